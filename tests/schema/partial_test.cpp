// Tests of parley/schema/partial.hpp: partial<T> read from every prefix of documents of several
// types, against the independent Python reference (tests/harness/partial_reference.py); the
// deliveries of partial_reader<T> at every byte (monotone states, none repeated, the last one
// the whole value); the accessors (member pointers, items, map entries, variants, optionals,
// JSON pointers); JSON in prose; repeated member names; errors and limits.
#include <parley/schema/partial.hpp>

#include "../harness/partial_cases.hpp"

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <array>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace partial_test {

enum class unit { g, kg, lb };
BOOST_DESCRIBE_ENUM(unit, g, kg, lb)

struct line {
    std::string product;
    int grams = 0;
    unit u = unit::g;
};
BOOST_DESCRIBE_STRUCT(line, (), (product, grams, u))

struct base_order {
    std::string customer;
};
BOOST_DESCRIBE_STRUCT(base_order, (), (customer))

struct order : base_order {
    std::string kind = "other";
    int ref = 0;
    std::vector<line> lines;
    std::optional<line> extra;
    std::map<std::string, int> tags;
    std::variant<int, std::string, line> code;
    std::array<int, 3> rgb{};
    std::list<std::string> notes;
    std::set<int> ids;
    int not_described = 0;
};
BOOST_DESCRIBE_STRUCT(order, (base_order), (kind, ref, lines, extra, tags, code, rgb, notes, ids))

// The value and the states of a partial value, as one JSON value, for comparisons.
template <class T>
boost::json::value shown(const parley::partial<T>& p) {
    return boost::json::object{{"value", parley::to_json(p.value())}, {"states", partial_cases::states_json(p)}};
}

// Every prefix of every document of T against the reference.
template <class T>
void check_prefixes() {
    const auto& table = partial_cases::reference<PARLEY_PARTIAL_CASE_TYPES>();
    const auto docs = partial_cases::cases_of<T>::documents();
    for (std::size_t d = 0; d < docs.size(); ++d) {
        const std::string name = partial_cases::case_name<T>(d);
        CAPTURE(name);
        auto found = table.find(name);
        REQUIRE(found != table.end());
        const auto& expected = found->second;
        REQUIRE(expected.size() == docs[d].size() + 1);
        std::size_t values = 0;
        for (std::size_t n = 0; n <= docs[d].size(); ++n) {
            const std::string_view prefix = std::string_view(docs[d]).substr(0, n);
            CAPTURE(prefix);
            auto r = parley::read_partial_json<T>(prefix);
            switch (expected[n].what) {
            case partial_cases::expected::kind::nothing:
                REQUIRE(!r);
                CHECK(r.errors().at(0).kind == parley::json_problem_kind::nothing_yet);
                break;
            case partial_cases::expected::kind::fails:
                REQUIRE(!r);
                CHECK(r.errors().at(0).kind != parley::json_problem_kind::nothing_yet);
                break;
            case partial_cases::expected::kind::value:
                REQUIRE_MESSAGE(r, r.error_text());
                ++values;
                // (objects compare without regard to order: std::map writes its keys sorted)
                CHECK_MESSAGE(parley::to_json(r->value()) == expected[n].value,
                              boost::json::serialize(parley::to_json(r->value())) << " is not "
                                                                                 << boost::json::serialize(expected[n].value));
                CHECK(boost::json::serialize(partial_cases::states_json(*r)) == boost::json::serialize(expected[n].states));
                break;
            }
        }
        CHECK(values > docs[d].size() / 2);
    }
}

// partial_reader<T> given every prefix: its deliveries are those of the reference where what
// has arrived changed; states never go back; the last one is the whole value.
template <class T>
void check_deliveries() {
    const auto& table = partial_cases::reference<PARLEY_PARTIAL_CASE_TYPES>();
    const auto docs = partial_cases::cases_of<T>::documents();
    for (std::size_t d = 0; d < docs.size(); ++d) {
        const std::string name = partial_cases::case_name<T>(d);
        CAPTURE(name);
        auto found = table.find(name);
        REQUIRE(found != table.end());
        const auto& expected = found->second;
        REQUIRE(expected.size() == docs[d].size() + 1);
        // the reference's deliveries: each entry with a value unlike the last one delivered
        std::vector<std::pair<std::size_t, boost::json::value>> want;
        for (std::size_t n = 0; n < expected.size(); ++n) {
            if (expected[n].what != partial_cases::expected::kind::value) continue;
            boost::json::value v = boost::json::object{{"value", expected[n].value}, {"states", expected[n].states}};
            if (want.empty() || want.back().second != v) want.emplace_back(n, std::move(v));
        }
        parley::partial_reader<T> reader;
        std::vector<std::pair<std::size_t, parley::partial<T>>> got;
        for (std::size_t n = 0; n <= docs[d].size(); ++n)
            if (const parley::partial<T>* p = reader.update(std::string_view(docs[d]).substr(0, n))) got.emplace_back(n, *p);
        REQUIRE(got.size() == want.size());
        for (std::size_t k = 0; k < got.size(); ++k) {
            CAPTURE(k);
            CHECK(got[k].first == want[k].first);
            CHECK(shown(got[k].second) == want[k].second);
            if (k == 0) continue;
            std::string why;
            CHECK_MESSAGE(partial_cases::follows(got[k - 1].second, got[k].second, why), why);
            CHECK(shown(got[k - 1].second) != shown(got[k].second));
        }
        REQUIRE(!got.empty());
        const parley::partial<T>& last = got.back().second;
        CHECK(last.complete());
        for (const auto& entry : last.states()) {
            CAPTURE(entry.first);
            CHECK(entry.second == parley::arrival::complete);
        }
        CHECK(reader.last() != nullptr);
        CHECK(reader.update(docs[d]) == nullptr);  // the same again: nothing new
        auto whole = parley::from_partial_json<T>(docs[d]);
        REQUIRE(whole);
        CHECK(parley::to_json(last.value()) == parley::to_json(*whole));
        if (auto strict = parley::from_text<T>(docs[d])) CHECK(parley::to_json(last.value()) == parley::to_json(*strict));
    }
}

}  // namespace partial_test

TEST_CASE("read_partial_json: every prefix of every document against the Python reference") {
    partial_test::check_prefixes<partial_cases::ticket>();
    partial_test::check_prefixes<partial_cases::recipe>();
    partial_test::check_prefixes<partial_cases::text_sample>();
    partial_test::check_prefixes<partial_cases::measurements>();
    partial_test::check_prefixes<partial_cases::switches>();
    partial_test::check_prefixes<partial_cases::settings>();
    partial_test::check_prefixes<std::vector<partial_cases::ingredient>>();
}

TEST_CASE("partial_reader: the deliveries of a stream cut at every byte") {
    partial_test::check_deliveries<partial_cases::ticket>();
    partial_test::check_deliveries<partial_cases::recipe>();
    partial_test::check_deliveries<partial_cases::text_sample>();
    partial_test::check_deliveries<partial_cases::measurements>();
    partial_test::check_deliveries<partial_cases::switches>();
    partial_test::check_deliveries<partial_cases::settings>();
    partial_test::check_deliveries<std::vector<partial_cases::ingredient>>();
}

TEST_CASE("partial<T>: what has arrived of each member, item and entry") {
    using partial_test::line;
    using partial_test::order;
    using parley::arrival;
    const std::string prefix = R"({"customer": "Ann", "kind": "fo", "lines": [{"product": "flour", "grams": 50)";
    auto r = parley::read_partial_json<order>(prefix);
    REQUIRE_MESSAGE(r, r.error_text());
    const parley::partial<order>& p = *r;
    CHECK(p.state() == arrival::arriving);
    CHECK(p.complete(&order::customer));  // a member of a base struct
    CHECK(p.value().customer == "Ann");
    CHECK(p.state(&order::kind) == arrival::complete);
    CHECK(p.value().kind == "fo");
    // not arrived: the default stays in the value, the state says so
    CHECK(!p.has(&order::ref));
    CHECK(p.state(&order::ref) == arrival::missing);
    CHECK(p.value().ref == 0);
    CHECK(p[&order::lines].state() == arrival::arriving);
    CHECK(p[&order::lines].size() == 1);
    auto first = p[&order::lines][0];
    CHECK(first.state() == arrival::arriving);
    CHECK(first.complete(&line::product));
    CHECK(first->product == "flour");
    CHECK(first.state(&line::grams) == arrival::arriving);  // 50 may become 500
    CHECK(first.value().grams == 50);
    CHECK(first.state(&line::u) == arrival::missing);
    CHECK(first[&line::u].value() == partial_test::unit::g);
    // an item that has not arrived has no value
    auto second = p[&order::lines][1];
    CHECK(second.state() == arrival::missing);
    CHECK(second.get() == nullptr);
    CHECK_THROWS_AS(second.value(), parley::error);
    CHECK(second.state(&line::product) == arrival::missing);
    CHECK(second[&line::product].get() == nullptr);
    // an optional struct that has not arrived
    CHECK(!p.has(&order::extra));
    CHECK(p[&order::extra][&line::product].get() == nullptr);
    CHECK(p[&order::extra].inner().get() == nullptr);
    // JSON pointers
    CHECK(p.at_pointer("").state() == arrival::arriving);
    CHECK(p.at_pointer("/lines/0/product").complete());
    CHECK(p.at_pointer("/lines/0/grams").state() == arrival::arriving);
    CHECK(p.at_pointer("/lines/00/product").state() == arrival::missing);
    CHECK(p.at_pointer("/lines/x").state() == arrival::missing);
    CHECK(p.at_pointer("/nothing/here").state() == arrival::missing);
    CHECK_THROWS_AS(p.at_pointer("lines"), parley::error);
    CHECK_THROWS_AS(p.at_pointer("/a~2"), parley::error);
    std::vector<std::pair<std::string, arrival>> states{{"", arrival::arriving},
                                                        {"/customer", arrival::complete},
                                                        {"/kind", arrival::complete},
                                                        {"/lines", arrival::arriving},
                                                        {"/lines/0", arrival::arriving},
                                                        {"/lines/0/product", arrival::complete},
                                                        {"/lines/0/grams", arrival::arriving}};
    CHECK(p.states() == states);
    // a member pointer that is not described
    CHECK_THROWS_WITH_AS(p[&order::not_described], doctest::Contains("names no member described"), parley::error);
}

TEST_CASE("partial<T>: maps, variants, std::array, lists, sets and optionals") {
    using partial_test::line;
    using partial_test::order;
    using parley::arrival;
    const std::string doc = R"({"tags": {"a/b": 1, "c~d": 22}, "code": {"product": "x"}, "rgb": [1, 2], )"
                            R"("notes": ["one", "tw"], "ids": [3, 1, 2], "extra": {"product": "ex", "u": "kg"}})";
    auto r = parley::read_partial_json<order>(doc.substr(0, doc.size() - 1));  // the last } not yet
    REQUIRE_MESSAGE(r, r.error_text());
    const parley::partial<order>& p = *r;
    CHECK(p[&order::tags]["a/b"].complete());
    CHECK(p[&order::tags]["a/b"].value() == 1);
    CHECK(p[&order::tags]["c~d"].complete());
    CHECK(p[&order::tags]["zz"].get() == nullptr);
    CHECK(p.at_pointer("/tags/a~1b").complete());
    CHECK(p.at_pointer("/tags/c~0d").complete());
    // the variant holds a line
    CHECK(p[&order::code].complete());
    CHECK(p[&order::code].as<line>().get() != nullptr);
    CHECK(p[&order::code].as<int>().get() == nullptr);
    CHECK(p[&order::code].as<line>()[&line::product].value() == "x");
    CHECK(p[&order::code].as<line>().complete(&line::product));
    CHECK(!p[&order::code].as<line>().has(&line::grams));
    // a std::array has all its items; those not arrived hold their defaults
    CHECK(p[&order::rgb].size() == 2);
    CHECK(p[&order::rgb][1].complete());
    CHECK(p[&order::rgb][2].state() == arrival::missing);
    CHECK(p[&order::rgb][2].value() == 0);
    // a list
    CHECK(p[&order::notes][1].state() == arrival::complete);
    CHECK(p[&order::notes][1].value() == "tw");
    // a set: states by index in the text
    CHECK(p[&order::ids].item(0).complete());
    CHECK(p[&order::ids].size() == 3);
    CHECK(p.value().ids == std::set<int>{1, 2, 3});
    // an optional struct that has arrived
    CHECK(p[&order::extra].complete());
    CHECK(p[&order::extra][&line::product].value() == "ex");
    CHECK(p[&order::extra].inner().complete(&line::u));
    CHECK(p[&order::extra].inner()->u == partial_test::unit::kg);
    CHECK(!p[&order::extra].has(&line::grams));
    CHECK(p.state() == arrival::arriving);
    // copies and moves view their own value
    parley::partial<order> copy = p;
    parley::partial<order> moved = std::move(copy);
    CHECK(moved[&order::extra][&line::product].get() != p[&order::extra][&line::product].get());
    CHECK(moved[&order::extra][&line::product].value() == "ex");
    parley::partial<order> assigned = *parley::read_partial_json<order>("{}");
    assigned = moved;
    CHECK(assigned.value().tags.size() == 2);
    CHECK(&assigned.value() != &moved.value());
    CHECK(assigned.complete(&order::extra));
    order taken = std::move(assigned).take();
    CHECK(taken.notes.size() == 2);
}

TEST_CASE("partial_reader: what gives nothing new") {
    using partial_test::line;
    parley::partial_reader<line> reader;
    // Each step adds to the text; a step gives the value and the states, or "" for nothing new.
    const std::string e_acute = "\xC3\xA9", smile = "\xF0\x9F\x98\x80";
    const std::pair<std::string, std::string> steps[] = {
        {"", ""},  // nothing yet
        {"  ", ""},
        {"{", R"({"product":"","grams":0,"u":"g"} [["","arriving"]])"},
        {" ", ""},  // white space
        {"\"prod", ""},  // a member name
        {"uct\" :", ""},
        {" \"", R"({"product":"","grams":0,"u":"g"} [["","arriving"],["/product","arriving"]])"},
        {"caf", R"({"product":"caf","grams":0,"u":"g"} [["","arriving"],["/product","arriving"]])"},
        {"\\", ""},  // a cut escape
        {"u00", ""},
        {"e9 ", "{\"product\":\"caf" + e_acute + " \",\"grams\":0,\"u\":\"g\"} [[\"\",\"arriving\"],[\"/product\",\"arriving\"]]"},
        {"\xF0\x9F", ""},  // a cut UTF-8 character
        {"\x98\x80", "{\"product\":\"caf" + e_acute + " " + smile + "\",\"grams\":0,\"u\":\"g\"} [[\"\",\"arriving\"],[\"/product\",\"arriving\"]]"},
        {"\\ud83d", ""},  // a high surrogate without its low half
        {"\\ude0", ""},
        {"0", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":0,\"u\":\"g\"} [[\"\",\"arriving\"],[\"/product\",\"arriving\"]]"},
        {"\"", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":0,\"u\":\"g\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"]]"},
        {", \"extra\": [1, {\"a\": \"b", ""},  // not a member of line
        {"\"}]", ""},
        {", \"u\": \"", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":0,\"u\":\"g\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"],[\"/u\",\"arriving\"]]"},
        {"l", ""},  // the enum keeps its value while its name is cut: nothing new
        {"b", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":0,\"u\":\"lb\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"],[\"/u\",\"arriving\"]]"},
        {"\"", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":0,\"u\":\"lb\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"],[\"/u\",\"complete\"]]"},
        {" , \"grams\": -", ""},  // a lone minus sign
        {"1", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":-1,\"u\":\"lb\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"],[\"/u\",\"complete\"],[\"/grams\",\"arriving\"]]"},
        {"2", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":-12,\"u\":\"lb\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"],[\"/u\",\"complete\"],[\"/grams\",\"arriving\"]]"},
        {"e", ""},  // an exponent without digits: still -12
        {"1", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":-120,\"u\":\"lb\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"],[\"/u\",\"complete\"],[\"/grams\",\"arriving\"]]"},
        {"\n", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":-120,\"u\":\"lb\"} [[\"\",\"arriving\"],[\"/product\",\"complete\"],[\"/u\",\"complete\"],[\"/grams\",\"complete\"]]"},
        {"}", "{\"product\":\"caf" + e_acute + " " + smile + smile + "\",\"grams\":-120,\"u\":\"lb\"} [[\"\",\"complete\"],[\"/product\",\"complete\"],[\"/u\",\"complete\"],[\"/grams\",\"complete\"]]"},
        {" and more", ""},  // after the whole value
    };
    std::string text;
    for (const auto& [more, want] : steps) {
        text += more;
        CAPTURE(text);
        const parley::partial<line>* p = reader.update(text);
        const std::string got = p ? boost::json::serialize(parley::to_json(p->value())) + " " +
                                        boost::json::serialize(partial_cases::states_json(*p))
                                  : std::string();
        CHECK(got == want);
    }
    reader.reset();
    CHECK(reader.last() == nullptr);
    CHECK(reader.update("{") != nullptr);
}

TEST_CASE("read_partial_text: JSON after prose, in a fence") {
    using partial_test::line;
    const std::string text = "Here it is:\n```json\n{\"product\": \"tea\", \"grams\": 5";
    auto r = parley::read_partial_text<line>(text);
    REQUIRE_MESSAGE(r, r.error_text());
    CHECK(r->complete(&line::product));
    CHECK(r->state(&line::grams) == parley::arrival::arriving);
    CHECK(r->value().grams == 5);
    auto prose = parley::read_partial_text<line>("Here it is:\n``");
    REQUIRE(!prose);
    CHECK(prose.errors().at(0).kind == parley::json_problem_kind::nothing_yet);
    parley::partial_reader<line> reader(parley::partial_input::text);
    CHECK(reader.update("Let me think") == nullptr);
    CHECK(reader.update("Let me think. {") != nullptr);
    const std::string whole = text + ", \"u\": \"kg\"}\n```\nEnjoy.";
    const parley::partial<line>* p = reader.update(whole);
    REQUIRE(p != nullptr);
    CHECK(p->complete());
    CHECK(p->value().u == partial_test::unit::kg);
    CHECK(reader.update(whole + " More prose.") == nullptr);
}

TEST_CASE("read_partial_json: repeated member names, errors and limits") {
    using partial_test::line;
    // the last one counts, as in the value (Boost.JSON keeps the last one)
    auto twice = parley::read_partial_json<line>(R"({"product": "a", "grams": 1, "product": "b)");
    REQUIRE(twice);
    CHECK(twice->value().product == "b");
    CHECK(twice->state(&line::product) == parley::arrival::arriving);
    CHECK(twice->states().size() == 3);
    // a prefix no JSON starts with, and one that does not read as the type
    auto malformed = parley::read_partial_json<line>(R"({"product" 1)");
    REQUIRE(!malformed);
    CHECK(malformed.errors().at(0).kind == parley::json_problem_kind::malformed_json);
    auto wrong = parley::read_partial_json<line>(R"({"product": 12)");
    REQUIRE(!wrong);
    CHECK(wrong.error_text() == "/product: expected a string, found 12");
    auto unknown = parley::read_partial_json<line>(R"({"u": "ton")");
    CHECK(!unknown);
    // limits
    parley::json_text_options small;
    small.max_depth = 3;
    auto deep = parley::read_partial_json<boost::json::value>("[[[[1", {}, small);
    REQUIRE(!deep);
    CHECK(deep.errors().at(0).kind == parley::json_problem_kind::limit);
    CHECK(deep.error_text() == "expected JSON nested at most 3 levels deep, found deeper nesting at line 1, column 4, offset 3");
    small.max_size = 4;
    auto large = parley::read_partial_json<boost::json::value>("[1, 2", {}, small);
    REQUIRE(!large);
    CHECK(large.error_text() == "expected a text of at most 4 bytes, found 5 bytes");
    // a deep value within the limits: no recursion in the tree builder
    const std::size_t depth = 2000;
    parley::json_text_options deep_options;
    deep_options.max_depth = depth + 1;
    parley::from_json_options deep_read;
    deep_read.max_depth = depth + 1;
    auto nested = parley::read_partial_json<boost::json::value>(std::string(depth, '[') + "1", deep_read, deep_options);
    REQUIRE_MESSAGE(nested, nested.error_text());
    CHECK(nested->states().size() == depth + 1);
    CHECK(nested->states().back().second == parley::arrival::arriving);
}
