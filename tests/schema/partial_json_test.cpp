// Tests of parley/schema/partial_json.hpp: completing every prefix of JSON documents, the
// documented completion of each kind of cut, malformed prefixes, limits and partial structs.
#include <parley/schema/partial_json.hpp>

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace pj_test {

enum class status { open, shipped, closed };
BOOST_DESCRIBE_ENUM(status, open, shipped, closed)

struct item {
    std::string name;
    int quantity = 0;
    double price = 0;
    friend bool operator==(const item&, const item&) = default;
};
BOOST_DESCRIBE_STRUCT(item, (), (name, quantity, price))

struct order {
    std::string customer;
    std::vector<item> items;
    std::optional<std::string> note;
    bool paid = false;
    status state = status::open;
    friend bool operator==(const order&, const order&) = default;
};
BOOST_DESCRIBE_STRUCT(order, (), (customer, items, note, paid, state))

}  // namespace pj_test

namespace {

namespace bjson = boost::json;

// The completion of a prefix, as compact JSON, or the error message.
std::string completed(std::string_view prefix) {
    auto r = parley::parse_partial_json(prefix);
    return r ? bjson::serialize(r.value()) : "error: " + r.error().message();
}

const char* const documents[] = {
    R"({"customer": "Zoë \"Z\" O'Neil", "items": [{"name": "tea\\pot", "quantity": 2, "price": 12.5},
        {"name": "caf\u00e9 \ud83d\ude00 €", "quantity": -3, "price": -0.5e-3}], "note": null,
        "paid": true, "state": "shipped"})",
    R"([1, -2, 3.25, 1E+2, -0, 0.5e-7, 12345678901234567890, [], {}, [[]], [{}], "", "\/\b\f\n\r\t", false, null, true])",
    "  {\n  \"a\" : [ 1 , { \"b\" : [ true , false ] } ] ,\n  \"c\" : { } \n}\n",
    R"("just a string with \"quotes\" and \u0041\u00e9 and 😀")",
    "-12.5e+3",
    "[[[[[[[[[[\"deep\"]]]]]]]]]]",
    R"({"empty key": {"": ""}, "unicode key é": [0.1, 0.2, 0.30000000000000004]})",
};

}  // namespace

TEST_CASE("parse_partial_json: every prefix of a document completes to a valid value") {
    std::size_t prefixes = 0;
    std::size_t expected_prefixes = 0;
    for (const char* doc : documents) {
        expected_prefixes += std::strlen(doc) + 1;
        std::string_view text(doc);
        CAPTURE(text);
        bjson::value whole = parley::parse_json_from_text(text).value();
        for (std::size_t n = 0; n <= text.size(); ++n) {
            std::string_view prefix = text.substr(0, n);
            CAPTURE(prefix);
            auto r = parley::parse_partial_json(prefix);
            REQUIRE_MESSAGE(r, r.error().message());
            // The completion holds nothing the document does not: it reads back, and for an
            // object or array document it is an object or array too (once one has begun).
            bjson::value again = parley::parse_partial_json(bjson::serialize(r.value())).value();
            CHECK(again == r.value());
            if (r.value().is_object() || r.value().is_array()) CHECK(r.value().kind() == whole.kind());
            ++prefixes;
        }
        auto full = parley::parse_partial_json(text);
        REQUIRE(full);
        CHECK(full.value() == whole);
        CHECK(full.complete() == !whole.is_number());
        std::size_t last = text.find_last_not_of(" \n");
        CHECK(!parley::parse_partial_json(text.substr(0, last)).complete());
    }
    CHECK(prefixes == expected_prefixes);
}

TEST_CASE("parse_partial_json: what each kind of cut completes to") {
    // nothing of a value yet
    CHECK(completed("") == "null");
    CHECK(completed(" \n ") == "null");
    CHECK(completed("```json\n") == "null");
    CHECK(completed("```js") == "null");
    // open containers are closed, innermost first
    CHECK(completed("{") == "{}");
    CHECK(completed("[") == "[]");
    CHECK(completed("[[{") == "[[{}]]");
    CHECK(completed(R"({"a": [1, {"b": [2)") == R"({"a":[1,{"b":[2]}]})");
    // a member name, or a name and its colon, is left out
    CHECK(completed(R"({")") == "{}");
    CHECK(completed(R"({"na)") == "{}");
    CHECK(completed(R"({"name")") == "{}");
    CHECK(completed(R"({"name" )") == "{}");
    CHECK(completed(R"({"name":)") == "{}");
    CHECK(completed(R"({"name": )") == "{}");
    CHECK(completed(R"({"a": 1, "b)") == R"({"a":1})");
    CHECK(completed(R"({"a": 1,)") == R"({"a":1})");
    CHECK(completed(R"({"a": 1, )") == R"({"a":1})");
    // a comma without its item is left out
    CHECK(completed("[1,") == "[1]");
    CHECK(completed("[1, ") == "[1]");
    CHECK(completed("[1, 2") == "[1,2]");
    // strings as far as they came
    CHECK(completed(R"({"name": ")") == R"({"name":""})");
    CHECK(completed(R"({"name": "Fr)") == R"({"name":"Fr"})");
    CHECK(completed(R"(["a\)") == R"(["a"])");
    CHECK(completed(R"(["a\n)") == R"(["a\n"])");
    CHECK(completed(R"(["a\u)") == R"(["a"])");
    CHECK(completed(R"(["a\u00)") == R"(["a"])");
    CHECK(completed(R"(["a\u00e9)") == "[\"a\xc3\xa9\"]");
    CHECK(completed(R"("\ud83d)") == R"("")");
    CHECK(completed(R"("\ud83d\)") == R"("")");
    CHECK(completed(R"("\ud83d\ude)") == R"("")");
    CHECK(completed(R"("\ud83d\ude00)") == "\"\xf0\x9f\x98\x80\"");
    CHECK(completed("\"caf\xc3") == R"("caf")");
    CHECK(completed("\"x\xf0\x9f\x98") == R"("x")");
    CHECK(completed("\"x\xf0\x9f\x98\x80") == "\"x\xf0\x9f\x98\x80\"");
    // numbers as far as they are numbers
    CHECK(completed("12") == "12");
    CHECK(completed("[1.") == "[1]");
    CHECK(completed("[1.5e") == "[1.5E0]");
    CHECK(completed("[1.5e-") == "[1.5E0]");
    CHECK(completed("[1.5e-1") == "[1.5E-1]");
    CHECK(completed("[-") == "[]");
    CHECK(completed("[7, -") == "[7]");
    CHECK(completed(R"({"a": -)") == "{}");
    CHECK(completed("-") == "null");
    CHECK(completed("-0.") == "0");
    // literals are finished
    CHECK(completed("t") == "true");
    CHECK(completed("[fals") == "[false]");
    CHECK(completed(R"({"a": n)") == R"({"a":null})");
    // after a whole value, the rest is not read
    CHECK(completed(R"({"a": 1} and then some prose)") == R"({"a":1})");
    CHECK(completed("```json\n{\"a\": [1, 2]}\n```\nDone") == R"({"a":[1,2]})");
    CHECK(completed("```json\n{\"a\": [1, 2") == R"({"a":[1,2]})");

    auto r = parley::parse_partial_json("  {\"a\": \"xy");
    REQUIRE(r);
    CHECK(r.offset() == 2);
    CHECK(r.length() == 9);
    CHECK(!r.complete());
    auto whole = parley::parse_partial_json("[1] ");
    CHECK(whole.complete());
    CHECK(whole.length() == 3);
}

TEST_CASE("parse_partial_json: prefixes no JSON text starts with") {
    struct bad {
        const char* prefix;
        std::size_t offset;
        const char* reason;
    };
    const bad cases[] = {
        {R"({"a" 1)", 5, "expected ':' after a member name"},
        {"[1 2", 3, "expected ',' or ']'"},
        {R"({"a": 1 "b")", 8, "expected ',' or '}'"},
        {"{a", 1, "expected a member name in double quotes"},
        {"[1,]", 3, "expected a JSON value"},
        {"[01]", 2, "expected ',' or ']'"},
        {"[1.e5]", 3, "invalid number"},
        {"[-x]", 2, "invalid number"},
        {"tx", 1, "invalid literal"},
        {"[nul]", 4, "invalid literal"},
        {R"("\q")", 2, "invalid escape sequence"},
        {R"("\u12G4")", 5, "expected 4 hexadecimal digits after \\u"},
        {R"("\ud83dx")", 1, "a UTF-16 high surrogate without its low half"},
        {R"("\ud83d\u0041")", 1, "a UTF-16 high surrogate without its low half"},
        {R"("\ud83d")", 1, "a UTF-16 high surrogate without its low half"},
        {R"("\ude00")", 1, "a UTF-16 low surrogate without its high half"},
        {"\"a\x01", 2, "control character in a string"},
        {"Sure: {\"a\": 1}", 0, "expected a JSON value"},
        {"[\"\xff\"]", 2, "syntax error"},
    };
    for (const bad& c : cases) {
        CAPTURE(c.prefix);
        auto r = parley::parse_partial_json(c.prefix);
        REQUIRE(!r);
        CHECK(r.error().code == parley::json_text_errc::malformed);
        CHECK(r.error().offset == c.offset);
        CHECK(r.error().problem.detail == c.reason);
    }
    CHECK(completed(R"({"a" 1)") == "error: expected valid JSON, found \"1\" at line 1, column 6, offset 5 (expected ':' "
                                    "after a member name)");
}

TEST_CASE("parse_partial_json: limits") {
    auto r = parley::parse_partial_json(std::string(100000, '['));
    REQUIRE(!r);
    CHECK(r.error().code == parley::json_text_errc::too_deep);
    CHECK(r.error().offset == 64);
    CHECK(parley::parse_partial_json(std::string(64, '[')).value().is_array());
    std::string objects;
    for (int i = 0; i < 100000; ++i) objects += "{\"k\": ";
    CHECK(parley::parse_partial_json(objects).error().code == parley::json_text_errc::too_deep);
    std::string long_string = "\"" + std::string(1 << 20, 'x');
    CHECK(parley::parse_partial_json(long_string).value().as_string().size() == 1u << 20);
    parley::json_text_options small;
    small.max_size = 4;
    CHECK(parley::parse_partial_json("[1, 2", small).error().code == parley::json_text_errc::too_large);
}

TEST_CASE("from_partial_json: a partly streamed order as a partly filled struct") {
    using pj_test::order;
    const std::string doc = R"({"customer": "Ann", "items": [{"name": "tea", "quantity": 2, "price": 3.5},)"
                            R"( {"name": "cup", "quantity": 10, "price": 12}], "note": "gift", "paid": true,)"
                            R"( "state": "shipped"})";
    // Every prefix gives a value but the empty one, a cut enum name included.
    for (std::size_t n = 1; n <= doc.size(); ++n) {
        std::string_view prefix = std::string_view(doc).substr(0, n);
        CAPTURE(prefix);
        auto r = parley::from_partial_json<order>(prefix);
        REQUIRE_MESSAGE(r, r.error_text());
    }
    // Nothing of the value yet is a problem of its own kind, whatever the type.
    for (std::string_view nothing : {"", "  \n", "```json\n"}) {
        CAPTURE(nothing);
        auto r = parley::from_partial_json<order>(nothing);
        REQUIRE(!r);
        REQUIRE(r.errors().size() == 1);
        CHECK(r.errors()[0].kind == parley::json_problem_kind::nothing_yet);
        CHECK(r.error_text() == "expected a JSON value, found nothing yet");
        CHECK(parley::from_partial_json<std::optional<int>>(nothing).errors().at(0).kind ==
              parley::json_problem_kind::nothing_yet);
    }
    // A null that has arrived is a null.
    CHECK(parley::from_partial_json<order>("nu").error_text() == "expected an object, found null");
    CHECK(parley::from_partial_json<std::optional<int>>("nu"));
    auto cut_name = parley::from_partial_json<order>(R"({"customer": "Ann", "state": "shi)");
    REQUIRE(cut_name);
    CHECK(cut_name->state == pj_test::status::open);  // left as it was
    auto wrong_name = parley::from_partial_json<order>(R"({"customer": "Ann", "state": "sent")");
    CHECK(wrong_name.error_text() == "/state: expected one of \"open\", \"shipped\", \"closed\", found \"sent\"");

    auto mid = parley::from_partial_json<order>(R"({"customer": "Ann", "items": [{"name": "tea", "quantity": 2, "price": 3.5}, {"name": "c)");
    REQUIRE(mid);
    REQUIRE(mid->items.size() == 2);
    CHECK(mid->items[0] == pj_test::item{"tea", 2, 3.5});
    CHECK(mid->items[1] == pj_test::item{"c", 0, 0});
    CHECK(!mid->paid);

    auto all = parley::from_partial_json<order>(doc);
    REQUIRE(all);
    CHECK(*all == order{"Ann", {{"tea", 2, 3.5}, {"cup", 10, 12}}, std::string("gift"), true, pj_test::status::shipped});

    auto malformed = parley::from_partial_json<order>("{\"customer\" 1");
    REQUIRE(!malformed);
    CHECK(malformed.errors()[0].kind == parley::json_problem_kind::malformed_json);
}

namespace {

// Random JSON values with strings that need escapes and non-ASCII characters.
bjson::value random_value(std::mt19937_64& rng, int depth = 0) {
    static const char* const pieces[] = {"a", "\"", "\\", "\n", "\x01", "\xc3\xa9", "\xf0\x9f\x98\x80", " ", "/"};
    auto text = [&] {
        std::string s;
        for (std::size_t n = rng() % 6; n > 0; --n) s += pieces[rng() % std::size(pieces)];
        return s;
    };
    switch (rng() % (depth > 3 ? 6 : 8)) {
    case 0: return nullptr;
    case 1: return rng() % 2 == 0;
    case 2: return static_cast<std::int64_t>(rng()) >> (rng() % 64);
    case 3: return static_cast<double>(static_cast<std::int64_t>(rng() % 2000000) - 1000000) / 1024.0;
    case 4:
    case 5: return bjson::string(text());
    case 6: {
        bjson::array a;
        for (std::size_t n = rng() % 4; n > 0; --n) a.push_back(random_value(rng, depth + 1));
        return a;
    }
    default: {
        bjson::object o;
        for (std::size_t n = rng() % 4; n > 0; --n) o[text()] = random_value(rng, depth + 1);
        return o;
    }
    }
}

}  // namespace

TEST_CASE("parse_partial_json: every prefix of generated documents") {
    std::mt19937_64 rng(31337);
    std::size_t prefixes = 0;
    for (int i = 0; i < 150; ++i) {
        bjson::value doc = random_value(rng);
        std::string text = bjson::serialize(doc);
        if (rng() % 2 == 0) {  // pretty-ish spacing as well
            std::string spaced;
            for (char c : text) {
                spaced += c;
                if (c == ',' || c == ':') spaced += ' ';
            }
            if (parley::parse_json_from_text(spaced) && parley::parse_json_from_text(spaced).value() == doc) text = spaced;
        }
        CAPTURE(text);
        for (std::size_t n = 0; n <= text.size(); ++n) {
            auto r = parley::parse_partial_json(std::string_view(text).substr(0, n));
            REQUIRE_MESSAGE(r, r.error().message());
            ++prefixes;
        }
        CHECK(parley::parse_partial_json(text).value() == doc);
    }
    CHECK(prefixes > 1000);
}

TEST_CASE("parse_partial_json: random text never crashes, and what it completes reads back") {
    static const char* const pieces[] = {"{", "}", "[", "]", ",", ":", "\"", "\\", "u", "d83d", "a", "1", "-", ".",
                                         "e", "+", "0", "t", "r", "true", "null", "fals", " ", "\n", "\xc3", "\xa9",
                                         "\"k\"", "```json\n", "\x01"};
    std::mt19937_64 rng(2024);
    std::size_t values = 0;
    std::size_t errors = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        for (std::size_t n = rng() % 24; n > 0; --n) s += pieces[rng() % std::size(pieces)];
        auto r = parley::parse_partial_json(s);
        if (!r) {
            ++errors;
            CHECK(r.error().offset <= s.size());
            continue;
        }
        ++values;
        CHECK(r.offset() + r.length() <= s.size());
        auto again = parley::parse_partial_json(bjson::serialize(r.value()));
        REQUIRE(again);
        CHECK(again.value() == r.value());
    }
    CHECK(values > 1000);
    CHECK(errors > 1000);
}

TEST_CASE("parse_partial_json_from_text: prose, then JSON, as a reply streams in") {
    const std::string json_part = R"({"customer": "Ann", "items": [{"name": "tea", "quantity": 2, "price": 3.5}], "paid": true, "state": "shipped"})";
    const std::string reply = "Sure! Here is the order you asked for:\n\n```json\n" + json_part + "\n```\nAnything else?";
    const std::size_t json_at = reply.find('{');
    for (std::size_t n = 0; n <= reply.size(); ++n) {
        std::string_view prefix = std::string_view(reply).substr(0, n);
        CAPTURE(prefix);
        auto r = parley::parse_partial_json_from_text(prefix);
        REQUIRE_MESSAGE(r, r.error().message());
        if (n <= json_at) CHECK(r.value().is_null());
        else CHECK(r.value().is_object());
        auto typed = parley::from_partial_text<pj_test::order>(prefix);
        if (n > json_at)
            CHECK(typed);
        else  // only prose so far (and the fence)
            CHECK((!typed && typed.errors().at(0).kind == parley::json_problem_kind::nothing_yet));
    }
    auto full = parley::parse_partial_json_from_text(reply);
    REQUIRE(full);
    CHECK(full.value() == parley::parse_json_from_text(json_part).value());
    CHECK(full.complete());
    CHECK(full.offset() == json_at);
    CHECK(full.length() == json_part.size());
    auto cut = parley::from_partial_text<pj_test::order>(reply.substr(0, reply.find("\"tea\"") + 3));
    REQUIRE(cut);
    REQUIRE(cut->items.size() == 1);
    CHECK(cut->items[0].name == "te");
}

TEST_CASE("parse_partial_json_from_text: JSON among prose, without a fence") {
    CHECK(bjson::serialize(parley::parse_partial_json_from_text("The result is {\"a\": [1").value()) == R"({"a":[1]})");
    CHECK(parley::parse_partial_json_from_text("Use {name} in: ").value().is_null());
    CHECK(bjson::serialize(parley::parse_partial_json_from_text("Use {name} in: {\"a\": 1").value()) == R"({"a":1})");
    CHECK(bjson::serialize(parley::parse_partial_json_from_text("Items: [").value()) == "[]");
    CHECK(bjson::serialize(parley::parse_partial_json_from_text("  [1, 2").value()) == "[1,2]");
    CHECK(bjson::serialize(parley::parse_partial_json_from_text("\"quoted").value()) == R"("quoted")");
    const std::string text = "The result is {\"a\": [1, 2]} as asked.";
    for (std::size_t n = 0; n <= text.size(); ++n) CHECK(parley::parse_partial_json_from_text(text.substr(0, n)));
    CHECK(parley::parse_partial_json_from_text(text).value() == bjson::parse(R"({"a": [1, 2]})"));

    // Errors are located in the whole text.
    const std::string bad = "Here:\n```json\n{\"a\" 1";
    auto r = parley::parse_partial_json_from_text(bad);
    REQUIRE(!r);
    CHECK(r.error().offset == bad.size() - 1);
    CHECK(r.error().message() ==
          "expected valid JSON, found \"1\" at line 3, column 6, offset 19 (expected ':' after a member name)");
    auto deep = parley::parse_partial_json_from_text("Deep: " + std::string(1000, '['));
    REQUIRE(!deep);
    CHECK(deep.error().code == parley::json_text_errc::too_deep);
    CHECK(deep.error().offset == 6 + 64);
}
