// Tests of parley/schema/json_text.hpp: finding the JSON value in realistic model replies, the
// errors (with offsets) when there is none or it is malformed, limits, and from_text.
#include <parley/schema/json_text.hpp>

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace jt_test {

struct contact {
    std::string name;
    std::optional<std::string> email;
    int age = 0;
};
BOOST_DESCRIBE_STRUCT(contact, (), (name, email, age))

}  // namespace jt_test

namespace {

namespace bjson = boost::json;
using parley::json_text_errc;

struct found_case {
    const char* name;
    std::string reply;
    const char* json;  // the value expected
    std::string located;  // the JSON text as it appears in the reply (its offset and length are checked)
};

struct error_case {
    const char* name;
    std::string reply;
    json_text_errc code;
    std::size_t offset;
    std::string message;
};

}  // namespace

TEST_CASE("parse_json_from_text: realistic replies holding JSON") {
    const std::vector<found_case> cases = {
        {"bare object", R"({"a": 1})", R"({"a": 1})", R"({"a": 1})"},
        {"white space around", "\n  [1, 2]\n\n", "[1, 2]", "[1, 2]"},
        {"bare number", "42", "42", "42"},
        {"bare string", " \"yes\" ", R"("yes")", R"("yes")"},
        {"bare literal", "true\n", "true", "true"},
        {"prose and a json block",
         "Sure! Here is the order:\n```json\n{\"id\": \"A-1\", \"total\": 12.5}\n```\nLet me know if you need more.",
         R"({"id": "A-1", "total": 12.5})", R"({"id": "A-1", "total": 12.5})"},
        {"untagged block", "Result:\n```\n[1, 2, 3]\n```", "[1, 2, 3]", "[1, 2, 3]"},
        {"upper-case tag and CRLF", "Here:\r\n```JSON\r\n{\"a\": true}\r\n```\r\n", R"({"a": true})",
         R"({"a": true})"},
        {"indented fence", "1. The data:\n   ```json\n   {\"k\": null}\n   ```\n", R"({"k": null})", R"({"k": null})"},
        {"tilde fence", "~~~json\n{\"t\": 1}\n~~~", R"({"t": 1})", R"({"t": 1})"},
        {"JSON on the fence line", "```json {\"a\": [1]}```", R"({"a": [1]})", R"({"a": [1]})"},
        {"closing fence right after the JSON", "```json\n{\"a\": 2}```\nDone.", R"({"a": 2})", R"({"a": 2})"},
        {"unclosed fence", "Here it is:\n```json\n{\"a\": 3}\n", R"({"a": 3})", R"({"a": 3})"},
        {"a python block before the json block",
         "In Python:\n```python\nprint({'a': 1})\n```\nThe data:\n```json\n{\"a\": 1}\n```", R"({"a": 1})",
         R"({"a": 1})"},
        {"json blocks: the first malformed, the second fine",
         "```json\n{\"a\": 1,}\n```\nCorrected:\n```json\n{\"a\": 1}\n```", R"({"a": 1})", R"({"a": 1})"},
        {"an untagged block after a shell block", "```sh\ncurl -d '[1]' x\n```\n```\n{\"ok\": true}\n```",
         R"({"ok": true})", R"({"ok": true})"},
        {"trailing prose", "{\"a\": 1}\nI hope this helps!", R"({"a": 1})", R"({"a": 1})"},
        {"JSON after prose", "The answer is {\"a\": [1, 2]} as requested.", R"({"a": [1, 2]})",
         R"({"a": [1, 2]})"},
        {"array after prose", "Items: [{\"n\": 1}, {\"n\": 2}].", R"([{"n": 1}, {"n": 2}])",
         R"([{"n": 1}, {"n": 2}])"},
        {"citations before the JSON", "According to [the docs] and [1], the result is: {\"ok\": true, \"n\": 2}",
         R"({"ok": true, "n": 2})", R"({"ok": true, "n": 2})"},
        {"placeholder braces before the JSON", "Fill {name} in: {\"name\": \"Ann\"}", R"({"name": "Ann"})",
         R"({"name": "Ann"})"},
        {"nested values are not picked alone", "Here: {\"a\": {\"b\": [1]}} and {\"c\": 1}", R"({"a": {"b": [1]}})",
         R"({"a": {"b": [1]}})"},
        {"many markdown links first",
         [] {
             std::string s;
             for (int i = 0; i < 50; ++i) s += "see [link " + std::to_string(i) + "](http://x/" + std::to_string(i) + ") ";
             return s + "{\"found\": true}";
         }(),
         R"({"found": true})", R"({"found": true})"},
        {"many short arrays first",
         [] {
             std::string s;
             for (int i = 0; i < 40; ++i) s += "[" + std::to_string(i) + "] ";
             return s + "{\"found\": [1, 2, 3]}";
         }(),
         R"({"found": [1, 2, 3]})", R"({"found": [1, 2, 3]})"},
        {"unicode and escapes", "Voilà : {\"prix\": \"12 €\", \"note\": \"\\u00e9\\n\"}",
         R"({"prix": "12 €", "note": "é\n"})", R"({"prix": "12 €", "note": "\u00e9\n"})"},
    };
    for (const found_case& c : cases) {
        CAPTURE(c.name);
        auto r = parley::parse_json_from_text(c.reply);
        REQUIRE_MESSAGE(r, r.error().message());
        CHECK(r.value() == bjson::parse(c.json));
        CHECK(r.complete());
        CHECK(c.reply.substr(r.offset(), r.length()) == c.located);
    }
}

TEST_CASE("parse_json_from_text: no JSON, malformed JSON, with offsets") {
    auto at = [](const std::string& reply, const char* what) { return reply.find(what); };
    const std::string fenced = "```json\n{\"price\": 12 EUR}\n```";
    const std::string prose = "Here: {\"name\": \"x\", \"price\": 12 EUR} thanks";
    const std::string cited = "see [1]: {\"price\": 12 EUR}";
    const std::string partial_array = "[{\"a\": 1}, oops";
    const std::string multiline = "Voil\xc3\xa0 :\n```json\n{\n  \"prix\": 12 \xe2\x82\xac\n}\n```";
    const std::vector<error_case> cases = {
        {"empty", "", json_text_errc::no_json, 0, "expected a JSON value, found no JSON in the text"},
        {"only white space", " \n\t ", json_text_errc::no_json, 0, "expected a JSON value, found no JSON in the text"},
        {"a refusal", "I'm sorry, I can't help with that.", json_text_errc::no_json, 0,
         "expected a JSON value, found no JSON in the text"},
        {"brackets that are not JSON", "Use {curly} and [square] brackets.", json_text_errc::no_json, 0,
         "expected a JSON value, found no JSON in the text"},
        {"malformed in a json block", fenced, json_text_errc::malformed, at(fenced, "EUR"),
         "expected valid JSON, found \"EUR}\\n```\" at line 2, column 14, offset 21 (syntax error)"},
        {"trailing comma", "{\"a\": 1,}", json_text_errc::malformed, 8,
         "expected valid JSON, found \"}\" at line 1, column 9, offset 8 (syntax error)"},
        {"cut off", "{\"a\": [1, 2", json_text_errc::malformed, 11,
         "expected valid JSON, found the end of the text at line 1, column 12, offset 11 (incomplete JSON)"},
        {"python dict", "{'a': 1}", json_text_errc::malformed, 1,
         "expected valid JSON, found \"'a': 1}\" at line 1, column 2, offset 1 (syntax error)"},
        {"malformed among prose", prose, json_text_errc::malformed, at(prose, "EUR"),
         "expected valid JSON, found \"EUR} thanks\" at line 1, column 33, offset 32 (syntax error)"},
        {"malformed after a short array", cited, json_text_errc::malformed, at(cited, "EUR"),
         "expected valid JSON, found \"EUR}\" at line 1, column 23, offset 22 (syntax error)"},
        {"a failure longer than the value inside it", partial_array, json_text_errc::malformed, 11,
         "expected valid JSON, found \"oops\" at line 1, column 12, offset 11 (syntax error)"},
        {"lines and columns in code points", multiline, json_text_errc::malformed, at(multiline, "\xe2\x82\xac"),
         "expected valid JSON, found \"\xe2\x82\xac\\n}\\n```\" at line 4, column 14, offset 32 (syntax error)"},
        {"a long excerpt is cut", "{\"a\": 1 abcdefghijklmnopqrstuvwxyz}", json_text_errc::malformed, 8,
         "expected valid JSON, found \"abcdefghijklmnop...\" at line 1, column 9, offset 8 (syntax error)"},
    };
    for (const error_case& c : cases) {
        CAPTURE(c.name);
        auto r = parley::parse_json_from_text(c.reply);
        REQUIRE(!r);
        CHECK(r.error().code == c.code);
        CHECK(r.error().offset == c.offset);
        CHECK(r.error().message() == c.message);
        CHECK(r.error().problem.kind ==
              (c.code == json_text_errc::no_json ? parley::json_problem_kind::no_json
                                                 : parley::json_problem_kind::malformed_json));
        CHECK_THROWS_WITH_AS((void)r.value(), c.message.c_str(), parley::error);
        try {
            (void)r.value();
        } catch (const parley::error& e) {
            CHECK(e.code() == parley::errc::conversion);
        }
    }
}

TEST_CASE("parse_json_from_text: limits against hostile replies") {
    std::string deep(100000, '[');
    auto r = parley::parse_json_from_text(deep);
    REQUIRE(!r);
    CHECK(r.error().code == json_text_errc::too_deep);
    CHECK(r.error().offset == 64);
    CHECK(r.error().message() ==
          "expected JSON nested at most 64 levels deep, found deeper nesting at line 1, column 65, offset 64");

    auto r2 = parley::parse_json_from_text("Here: " + std::string(50000, '{') + "\"a\": 1");
    REQUIRE(!r2);
    CHECK(r2.error().code == json_text_errc::malformed);

    std::string deep_object;
    for (int i = 0; i < 70; ++i) deep_object += "{\"a\":";
    auto r3 = parley::parse_json_from_text("```json\n" + deep_object + "1" + std::string(70, '}') + "\n```");
    REQUIRE(!r3);
    CHECK(r3.error().code == json_text_errc::too_deep);
    CHECK(r3.error().problem.kind == parley::json_problem_kind::limit);

    parley::json_text_options roomy;
    roomy.max_depth = 100;
    CHECK(parley::parse_json_from_text(deep_object + "1" + std::string(70, '}'), roomy));

    parley::json_text_options small;
    small.max_size = 10;
    auto r4 = parley::parse_json_from_text("[1, 2, 3, 4, 5]", small);
    REQUIRE(!r4);
    CHECK(r4.error().code == json_text_errc::too_large);
    CHECK(r4.error().message() == "expected a text of at most 10 bytes, found 15 bytes");

    // Brackets everywhere: many tries, each bounded.
    std::string noisy;
    for (int i = 0; i < 20000; ++i) noisy += "[1, {\"a\": [";
    auto r5 = parley::parse_json_from_text(noisy);
    CHECK(!r5);
    std::string citations;
    for (int i = 0; i < 100000; ++i) citations += "[1],";
    CHECK(parley::parse_json_from_text(citations).value() == bjson::parse("[1]"));
    std::string long_tries;  // each try reads to the end before it fails
    for (int i = 0; i < 50; ++i) {
        long_tries += "[";
        for (int k = 0; k < 10000; ++k) long_tries += "1, ";
    }
    auto r6 = parley::parse_json_from_text(long_tries);
    REQUIRE(!r6);
    CHECK(r6.error().offset == long_tries.size());
    std::string braces(200000, '{');
    auto r7 = parley::parse_json_from_text(braces);
    REQUIRE(!r7);
    CHECK(r7.error().code == json_text_errc::malformed);
    CHECK(r7.error().offset == 1);
}

TEST_CASE("parse_json_from_text: numbers are read exactly") {
    std::mt19937_64 rng(7);
    int checked = 0;
    for (int i = 0; i < 20000; ++i) {
        std::uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        if (!std::isfinite(d)) continue;
        auto r = parley::parse_json_from_text("[" + bjson::serialize(bjson::value(d)) + "]");
        REQUIRE(r);
        CHECK(r.value().as_array()[0].as_double() == d);
        ++checked;
    }
    CHECK(checked > 19000);
    CHECK(parley::parse_json_from_text("0.1").value().as_double() == 0.1);
    CHECK(parley::parse_json_from_text("[1e400]").value().as_array()[0].as_double() == HUGE_VAL);
    CHECK(parley::parse_json_from_text("18446744073709551615").value().is_uint64());
    CHECK(parley::parse_json_from_text("-1").value().is_int64());
}

TEST_CASE("from_text: a reply's JSON as a struct") {
    auto ok = parley::from_text<jt_test::contact>(
        "Here is the contact:\n```json\n{\"name\": \"Ann\", \"age\": 41, \"phone\": \"1\"}\n```");
    REQUIRE(ok);
    CHECK(ok->name == "Ann");
    CHECK(ok->age == 41);
    CHECK(!ok->email);
    REQUIRE(ok.warnings().size() == 1);
    CHECK(ok.warnings()[0].path == "/phone");

    auto wrong = parley::from_text<jt_test::contact>("{\"name\": \"Ann\", \"age\": \"41 years\"}");
    REQUIRE(!wrong);
    CHECK(wrong.error_text() == "/age: expected an integer from -2147483648 to 2147483647, found \"41 years\"");

    auto none = parley::from_text<jt_test::contact>("I could not find a contact.");
    REQUIRE(!none);
    REQUIRE(none.errors().size() == 1);
    CHECK(none.errors()[0].kind == parley::json_problem_kind::no_json);
    CHECK(none.error_text() == "expected a JSON value, found no JSON in the text");

    auto bad = parley::from_text<jt_test::contact>("{\"name\": \"Ann\" \"age\": 3}");
    REQUIRE(!bad);
    CHECK(bad.errors()[0].kind == parley::json_problem_kind::malformed_json);
    CHECK(bad.error_text() == "expected valid JSON, found \"\\\"age\\\": 3}\" at line 1, column 16, offset 15 (syntax error)");
}

TEST_CASE("parse_json_from_text: random replies never crash; a value found is where it is said to be") {
    static const char* const pieces[] = {"{", "}", "[", "]", ",", ":", "\"", "a", "1", " ", "\n", "```", "```json\n",
                                         "Sure", "\"k\": ", "true", "null", "-", ".", "e", "'", "\\", "\xc3\xa9"};
    std::mt19937_64 rng(99);
    std::size_t found = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        for (std::size_t n = rng() % 30; n > 0; --n) s += pieces[rng() % std::size(pieces)];
        auto r = parley::parse_json_from_text(s);
        if (!r) {
            CHECK(r.error().offset <= s.size());
            continue;
        }
        ++found;
        REQUIRE(r.offset() + r.length() <= s.size());
        auto alone = parley::parse_json_from_text(s.substr(r.offset(), r.length()));
        REQUIRE(alone);
        CHECK(alone.value() == r.value());
    }
    CHECK(found > 1000);
}
