// Tests of parley/schema/from_json.hpp: reading JSON into described types, and the exact list of
// problems (path, expectation, what was found) for wrong values.
#include <parley/schema/from_json.hpp>

#include <parley/schema/annotations.hpp>

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <ostream>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace fj_test {

enum class currency { eur, usd, gbp };
BOOST_DESCRIBE_ENUM(currency, eur, usd, gbp)

struct price {
    double amount = 0;
    currency unit = currency::eur;
    friend bool operator==(const price&, const price&) = default;
};
BOOST_DESCRIBE_STRUCT(price, (), (amount, unit))

struct line_item {
    std::string name;
    std::int32_t quantity = 0;
    price cost;
    std::optional<std::string> note;
    friend bool operator==(const line_item&, const line_item&) = default;
};
BOOST_DESCRIBE_STRUCT(line_item, (), (name, quantity, cost, note))

struct order {
    std::string id;
    std::vector<line_item> items;
    std::map<std::string, std::string> tags;
    std::optional<bool> paid;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, items, tags, paid))

struct ranges {
    std::int8_t i8 = 0;
    std::uint16_t u16 = 0;
    std::int64_t i64 = 0;
    std::uint64_t u64 = 0;
    float f = 0;
};
BOOST_DESCRIBE_STRUCT(ranges, (), (i8, u16, i64, u64, f))

struct circle {
    double radius = 0;
};
BOOST_DESCRIBE_STRUCT(circle, (), (radius))

struct square {
    double side = 0;
};
BOOST_DESCRIBE_STRUCT(square, (), (side))

struct drawing {
    std::variant<circle, square> shape;
    std::variant<std::int64_t, double, std::string> label;
};
BOOST_DESCRIBE_STRUCT(drawing, (), (shape, label))

struct holder {
    boost::json::value any;
    std::array<int, 3> triple{};
    std::set<std::string> labels;
    std::map<std::string, std::vector<int>> groups;
};
BOOST_DESCRIBE_STRUCT(holder, (), (any, triple, labels, groups))

struct tree {
    std::string name;
    std::vector<tree> children;
};
BOOST_DESCRIBE_STRUCT(tree, (), (name, children))

struct base_part {
    int id = 0;
};
BOOST_DESCRIBE_STRUCT(base_part, (), (id))

struct derived_part : base_part {
    std::string label;
};
BOOST_DESCRIBE_STRUCT(derived_part, (base_part), (label))

struct defaults {
    int count = 7;
    std::string text = "keep";
};
BOOST_DESCRIBE_STRUCT(defaults, (), (count, text))

struct booking {
    int guests = 1;
    double price = 0;
    int slot = 0;
    std::string code;
    std::vector<std::string> names;
    std::optional<int> floor;
    double ratio = 0;
    std::uint64_t big = 0;
};
BOOST_DESCRIBE_STRUCT(booking, (), (guests, price, slot, code, names, floor, ratio, big))
PARLEY_ANNOTATE(booking, "A booking", (guests, "Number of guests", minimum(1), maximum(8)),
                (price, exclusive_minimum(0)), (slot, multiple_of(15)), (code, min_length(2), max_length(3)),
                (names, min_items(1), max_items(2)), (floor, minimum(-2)), (ratio, multiple_of(0.1), exclusive_maximum(1)),
                (big, maximum(18446744073709551614u)))

}  // namespace fj_test

namespace {

using namespace fj_test;
namespace bjson = boost::json;

// Messages, one per problem; printed one per line when a check fails.
struct lines {
    std::vector<std::string> items;
    lines() = default;
    lines(std::initializer_list<std::string> l) : items(l) {}
    friend bool operator==(const lines&, const lines&) = default;
    friend std::ostream& operator<<(std::ostream& os, const lines& l) {
        for (const std::string& s : l.items) os << "\n    " << s;
        return os;
    }
};

// The messages of a failed conversion's errors, in order.
template <class T>
lines errors_of(std::string_view text, const parley::from_json_options& options = {}) {
    auto r = parley::from_json<T>(bjson::parse(text), options);
    lines out;
    for (const auto& p : r.errors()) out.items.push_back(p.message());
    return out;
}

template <class T>
lines warnings_of(std::string_view text) {
    auto r = parley::from_json<T>(bjson::parse(text));
    lines out;
    for (const auto& p : r.warnings()) out.items.push_back(p.message());
    return out;
}

}  // namespace

TEST_CASE("from_json: a well-formed order") {
    auto r = parley::from_json<order>(bjson::parse(R"({
        "id": "A-17",
        "items": [
            {"name": "tea", "quantity": 2, "cost": {"amount": 3.5, "unit": "eur"}},
            {"name": "cup", "quantity": 1, "cost": {"amount": 12, "unit": "usd"}, "note": "blue"}
        ],
        "tags": {"channel": "web"},
        "paid": true
    })"));
    REQUIRE(r);
    CHECK(r.errors().empty());
    CHECK(r.warnings().empty());
    CHECK(r->id == "A-17");
    REQUIRE(r->items.size() == 2);
    CHECK(r->items[0] == line_item{"tea", 2, {3.5, currency::eur}, std::nullopt});
    CHECK(r->items[1] == line_item{"cup", 1, {12.0, currency::usd}, std::string("blue")});
    CHECK(r->tags == std::map<std::string, std::string>{{"channel", "web"}});
    CHECK(r->paid == std::optional<bool>(true));
    CHECK(r.error_text().empty());
}

TEST_CASE("from_json: every problem of a wrong order, in member order, with its path") {
    CHECK(errors_of<order>(R"({
        "id": 17,
        "items": [
            {"name": "tea", "quantity": "two", "cost": {"amount": "3.5 EUR", "unit": "euro"}},
            {"quantity": 1.5, "cost": null},
            "cup",
            {"name": "cup", "quantity": 1, "cost": {"amount": 2, "unit": "gbp"}, "note": 5}
        ],
        "tags": {"a/b": 1, "c~d": null, "ok": "fine"},
        "paid": "yes"
    })") == lines{
                "/id: expected a string, found 17",
                "/items/0/quantity: expected an integer from -2147483648 to 2147483647, found \"two\"",
                "/items/0/cost/amount: expected a number, found \"3.5 EUR\"",
                "/items/0/cost/unit: expected one of \"eur\", \"usd\", \"gbp\", found \"euro\"",
                "/items/1/name: expected a string, found nothing (required member missing)",
                "/items/1/quantity: expected an integer from -2147483648 to 2147483647, found 1.5",
                "/items/1/cost: expected an object, found null",
                "/items/2: expected an object, found \"cup\"",
                "/items/3/note: expected a string or null, found 5",
                "/tags/a~1b: expected a string, found 1",
                "/tags/c~0d: expected a string, found null",
                "/paid: expected a boolean or null, found \"yes\"",
            });
}

TEST_CASE("from_json: problems carry kind, path, expectation and what was found") {
    auto r = parley::from_json<line_item>(bjson::parse(R"({"name": "x", "quantity": 300000000000, "cost": {}})"));
    REQUIRE(!r);
    REQUIRE(r.errors().size() == 3);
    CHECK(r.errors()[0] == parley::json_problem{parley::json_problem_kind::out_of_range, "/quantity",
                                                "an integer from -2147483648 to 2147483647", "300000000000", ""});
    CHECK(r.errors()[1] == parley::json_problem{parley::json_problem_kind::missing_member, "/cost/amount", "a number",
                                                "nothing", "required member missing"});
    CHECK(r.errors()[2].kind == parley::json_problem_kind::missing_member);
    CHECK(r.errors()[2].path == "/cost/unit");
    CHECK(r.error_text() ==
          "/quantity: expected an integer from -2147483648 to 2147483647, found 300000000000\n"
          "/cost/amount: expected a number, found nothing (required member missing)\n"
          "/cost/unit: expected one of \"eur\", \"usd\", \"gbp\", found nothing (required member missing)");
}

TEST_CASE("from_json: integer ranges of int8, uint16, int64 and uint64") {
    auto ok = parley::from_json<ranges>(bjson::parse(
        R"({"i8": -128, "u16": 65535, "i64": -9223372036854775808, "u64": 18446744073709551615, "f": 1})"));
    REQUIRE(ok);
    CHECK(ok->i8 == -128);
    CHECK(ok->u16 == 65535);
    CHECK(ok->i64 == INT64_MIN);
    CHECK(ok->u64 == UINT64_MAX);
    CHECK(ok->f == 1.0f);

    auto ok2 = parley::from_json<ranges>(
        bjson::parse(R"({"i8": 127, "u16": 0, "i64": 9223372036854775807, "u64": 0, "f": -3.4e38})"));
    REQUIRE(ok2);
    CHECK(ok2->i8 == 127);
    CHECK(ok2->i64 == INT64_MAX);

    CHECK(errors_of<ranges>(R"({"i8": 128, "u16": -1, "i64": 9223372036854775808, "u64": -1, "f": 1e39})") ==
          lines{
              "/i8: expected an integer from -128 to 127, found 128",
              "/u16: expected an integer from 0 to 65535, found -1",
              "/i64: expected an integer from -9223372036854775808 to 9223372036854775807, found 9223372036854775808",
              "/u64: expected an integer from 0 to 18446744073709551615, found -1",
              "/f: expected a number from -3.4028234663852886e+38 to 3.4028234663852886e+38, found 1e+39",
          });
    CHECK(errors_of<ranges>(
              R"({"i8": -129, "u16": 65536, "i64": -9223372036854775809, "u64": 18446744073709551616, "f": 1e400})") ==
          lines{
              "/i8: expected an integer from -128 to 127, found -129",
              "/u16: expected an integer from 0 to 65535, found 65536",
              "/i64: expected an integer from -9223372036854775808 to 9223372036854775807, found "
              "-9223372036854775808 (too large to be an exact integer)",
              "/u64: expected an integer from 0 to 18446744073709551615, found 18446744073709551616",
              "/f: expected a number from -3.4028234663852886e+38 to 3.4028234663852886e+38, found inf",
          });
}

TEST_CASE("from_json: floats for integers, integers for floats") {
    // 1.5 is no integer; 3.0 and 1e2 are (as in JSON Schema), and an integer is a number.
    CHECK(errors_of<ranges>(R"({"i8": 1.5, "u16": -0.5, "i64": 2.25, "u64": 1e-3, "f": "1"})") ==
          lines{
              "/i8: expected an integer from -128 to 127, found 1.5",
              "/u16: expected an integer from 0 to 65535, found -0.5",
              "/i64: expected an integer from -9223372036854775808 to 9223372036854775807, found 2.25",
              "/u64: expected an integer from 0 to 18446744073709551615, found 0.001",
              "/f: expected a number, found \"1\"",
          });
    auto r = parley::from_json<ranges>(bjson::parse(R"({"i8": 3.0, "u16": 1e2, "i64": -4e0, "u64": 5.0, "f": 7})"));
    REQUIRE(r);
    CHECK(r->i8 == 3);
    CHECK(r->u16 == 100);
    CHECK(r->i64 == -4);
    CHECK(r->u64 == 5);
    CHECK(r->f == 7.0f);
    CHECK(errors_of<ranges>(R"({"i8": 0, "u16": 0, "i64": 1e17, "u64": 1e19, "f": 0})") ==
          lines{
              "/i64: expected an integer from -9223372036854775808 to 9223372036854775807, found 1e+17 (too large "
              "to be an exact integer)",
              "/u64: expected an integer from 0 to 18446744073709551615, found 1e+19 (too large to be an exact "
              "integer)",
          });
    CHECK(errors_of<ranges>(R"({"i8": 300.0, "u16": -1.0, "i64": 1e19, "u64": 2e19, "f": 0})") ==
          lines{
              "/i8: expected an integer from -128 to 127, found 300",
              "/u16: expected an integer from 0 to 65535, found -1",
              "/i64: expected an integer from -9223372036854775808 to 9223372036854775807, found 1e+19",
              "/u64: expected an integer from 0 to 18446744073709551615, found 2e+19",
          });
}

TEST_CASE("from_json: null and wrong JSON types for every kind of member") {
    CHECK(errors_of<ranges>(R"({"i8": null, "u16": true, "i64": [1], "u64": {"v": 1}, "f": null})") ==
          lines{
              "/i8: expected an integer from -128 to 127, found null",
              "/u16: expected an integer from 0 to 65535, found true",
              "/i64: expected an integer from -9223372036854775808 to 9223372036854775807, found [1]",
              "/u64: expected an integer from 0 to 18446744073709551615, found {\"v\":1}",
              "/f: expected a number, found null",
          });
    CHECK(errors_of<holder>(R"({"any": null, "triple": {"0": 1}, "labels": "a", "groups": [1, 2]})") ==
          lines{
              "/triple: expected an array of 3 items, found {\"0\":1}",
              "/labels: expected an array, found \"a\"",
              "/groups: expected an object, found [1,2]",
          });
    CHECK(errors_of<order>(R"([1, 2])") == lines{"expected an object, found [1,2]"});
    CHECK(errors_of<std::vector<bool>>(R"([true, 1, "false", null])") ==
          lines{"/1: expected a boolean, found 1", "/2: expected a boolean, found \"false\"",
                "/3: expected a boolean, found null"});
    CHECK(errors_of<std::string>("null") == lines{"expected a string, found null"});
}

TEST_CASE("from_json: enums are matched by exact name") {
    CHECK(parley::from_json<currency>(bjson::parse(R"("gbp")")).value() == currency::gbp);
    CHECK(errors_of<currency>(R"("EUR")") == lines{"expected one of \"eur\", \"usd\", \"gbp\", found \"EUR\""});
    CHECK(errors_of<currency>(R"(" eur")") == lines{"expected one of \"eur\", \"usd\", \"gbp\", found \" eur\""});
    CHECK(errors_of<currency>("1") == lines{"expected one of \"eur\", \"usd\", \"gbp\", found 1"});
    auto r = parley::from_json<currency>(bjson::parse(R"("yen")"));
    REQUIRE(r.errors().size() == 1);
    CHECK(r.errors()[0].kind == parley::json_problem_kind::unknown_name);
}

TEST_CASE("from_json: optional members may be missing or null") {
    auto r = parley::from_json<line_item>(
        bjson::parse(R"({"name": "a", "quantity": 1, "cost": {"amount": 1, "unit": "eur"}, "note": null})"));
    REQUIRE(r);
    CHECK(!r->note);
    auto r2 = parley::from_json<order>(bjson::parse(R"({"id": "x", "items": [], "tags": {}})"));
    REQUIRE(r2);
    CHECK(!r2->paid);
    CHECK(errors_of<order>(R"({"paid": false})") ==
          lines{"/id: expected a string, found nothing (required member missing)",
                "/items: expected an array, found nothing (required member missing)",
                "/tags: expected an object, found nothing (required member missing)"});
}

TEST_CASE("from_json: unknown members are ignored and reported as warnings") {
    auto r = parley::from_json<price>(bjson::parse(R"({"amount": 1, "currency": "eur", "unit": "usd", "a/b~": 0})"));
    REQUIRE(r);
    CHECK(r->unit == currency::usd);
    REQUIRE(r.warnings().size() == 2);
    CHECK(r.warnings()[0].kind == parley::json_problem_kind::unknown_member);
    CHECK(warnings_of<price>(R"({"amount": 1, "currency": "eur", "unit": "usd", "a/b~": 0})") ==
          lines{"/currency: expected one of the members \"amount\", \"unit\", found an unknown member (ignored)",
                "/a~1b~0: expected one of the members \"amount\", \"unit\", found an unknown member (ignored)"});
    // Warnings of a failed conversion are kept too.
    auto bad = parley::from_json<price>(bjson::parse(R"({"amount": "1", "extra": 0})"));
    CHECK(!bad);
    CHECK(bad.warnings().size() == 1);
    CHECK(bad.errors().size() == 2);
}

TEST_CASE("from_json: std::array needs exactly its size; std::set reports repeats") {
    auto r = parley::from_json<holder>(
        bjson::parse(R"({"any": {"x": [1, null]}, "triple": [1, 2, 3], "labels": ["b", "a", "b"], "groups": {"g": [1]}})"));
    REQUIRE(r);
    CHECK(r->any == bjson::parse(R"({"x": [1, null]})"));
    CHECK(r->triple == std::array<int, 3>{1, 2, 3});
    CHECK(r->labels == std::set<std::string>{"a", "b"});
    CHECK(r->groups.at("g") == std::vector<int>{1});
    REQUIRE(r.warnings().size() == 1);
    CHECK(r.warnings()[0].message() == "/labels/2: expected an item not already in the array, found \"b\" again (ignored)");

    CHECK(errors_of<holder>(R"({"any": 1, "triple": [1, "2"], "labels": [], "groups": {"g": [1, "x"], "h": 3}})") ==
          lines{
              "/triple: expected an array of 3 items, found an array of 2 items",
              "/triple/1: expected an integer from -2147483648 to 2147483647, found \"2\"",
              "/groups/g/1: expected an integer from -2147483648 to 2147483647, found \"x\"",
              "/groups/h: expected an array, found 3",
          });
    CHECK(errors_of<std::array<int, 2>>("[1, 2, 3.5]") ==
          lines{"expected an array of 2 items, found an array of 3 items"});
    CHECK(errors_of<std::array<int, 2>>("[1]") == lines{"expected an array of 2 items, found an array of 1 item"});
}

TEST_CASE("from_json: a variant takes the first alternative that fits, exact fits first") {
    auto r = parley::from_json<drawing>(bjson::parse(R"({"shape": {"side": 2}, "label": 3})"));
    REQUIRE(r);
    REQUIRE(std::holds_alternative<square>(r->shape));
    CHECK(std::get<square>(r->shape).side == 2.0);
    REQUIRE(std::holds_alternative<std::int64_t>(r->label));
    CHECK(std::get<std::int64_t>(r->label) == 3);

    r = parley::from_json<drawing>(bjson::parse(R"({"shape": {"radius": 1.5}, "label": 3.0})"));
    REQUIRE(r);
    CHECK(std::get<circle>(r->shape).radius == 1.5);
    REQUIRE(std::holds_alternative<double>(r->label));  // 3.0 fits double exactly

    r = parley::from_json<drawing>(bjson::parse(R"({"shape": {"side": 1, "colour": "red"}, "label": "x"})"));
    REQUIRE(r);
    CHECK(std::holds_alternative<square>(r->shape));
    CHECK(std::get<std::string>(r->label) == "x");
    REQUIRE(r.warnings().size() == 1);
    CHECK(r.warnings()[0].path == "/shape/colour");

    // No exact fit: the first alternative that fits with a conversion or an ignored member.
    auto v = parley::from_json<std::variant<std::string, double>>(bjson::parse("4"));
    REQUIRE(v);
    CHECK(std::get<double>(*v) == 4.0);
    auto w = parley::from_json<std::variant<circle, square>>(bjson::parse(R"({"radius": 1, "side": 2})"));
    REQUIRE(w);
    CHECK(std::get<circle>(*w).radius == 1.0);
    CHECK(w.warnings().size() == 1);
}

TEST_CASE("from_json: a variant's error explains each alternative") {
    CHECK(errors_of<drawing>(R"({"shape": {"radius": "big"}, "label": true})") ==
          lines{
              "/shape: expected an object, found {\"radius\":\"big\"} (alternative 1: /radius: expected a number, "
              "found \"big\"; alternative 2: /side: expected a number, found nothing (required member missing))",
              "/label: expected an integer from -9223372036854775808 to 9223372036854775807, a number or a string, "
              "found true",
          });
    CHECK(errors_of<drawing>(R"({"shape": [], "label": null})") ==
          lines{
              "/shape: expected an object, found []",
              "/label: expected an integer from -9223372036854775808 to 9223372036854775807, a number or a string, "
              "found null",
          });
    auto r = parley::from_json<std::variant<int, circle>>(bjson::parse(R"({"radius": null})"));
    REQUIRE(r.errors().size() == 1);
    CHECK(r.errors()[0].kind == parley::json_problem_kind::no_alternative);
    CHECK(r.errors()[0].message() ==
          "expected an integer from -2147483648 to 2147483647 or an object, found {\"radius\":null} (alternative 1: "
          "expected an integer from -2147483648 to 2147483647; alternative 2: /radius: expected a number, found null)");
    CHECK(errors_of<std::optional<std::variant<int, std::string>>>("[]") ==
          lines{"expected an integer from -2147483648 to 2147483647 or a string or null, found []"});
}

TEST_CASE("from_json: recursive structs through vectors") {
    auto r = parley::from_json<tree>(bjson::parse(
        R"({"name": "root", "children": [{"name": "a", "children": []}, {"name": "b", "children": [{"name": "c", "children": []}]}]})"));
    REQUIRE(r);
    REQUIRE(r->children.size() == 2);
    CHECK(r->children[1].children[0].name == "c");
    CHECK(errors_of<tree>(
              R"({"name": "root", "children": [{"name": "a", "children": [{"name": 1, "children": [{}]}]}]})") ==
          lines{
              "/children/0/children/0/name: expected a string, found 1",
              "/children/0/children/0/children/0/name: expected a string, found nothing (required member missing)",
              "/children/0/children/0/children/0/children: expected an array, found nothing (required member "
              "missing)",
          });
}

TEST_CASE("from_json: described bases, defaults kept in partial reading") {
    auto r = parley::from_json<derived_part>(bjson::parse(R"({"id": 4, "label": "x"})"));
    REQUIRE(r);
    CHECK(r->id == 4);
    CHECK(r->label == "x");
    CHECK(errors_of<derived_part>(R"({"label": "x"})") ==
          lines{"/id: expected an integer from -2147483648 to 2147483647, found nothing (required member missing)"});

    parley::from_json_options partial;
    partial.partial = true;
    auto p = parley::from_json<defaults>(bjson::parse(R"({"text": "new"})"), partial);
    REQUIRE(p);
    CHECK(p->count == 7);
    CHECK(p->text == "new");
    CHECK(!parley::from_json<defaults>(bjson::parse(R"({"text": "new"})")));
    CHECK(errors_of<defaults>(R"({"count": "x"})", partial) ==
          lines{"/count: expected an integer from -2147483648 to 2147483647, found \"x\""});
    // A std::array still filling up, a name still being written, bounds not met yet.
    auto h = parley::from_json<holder>(bjson::parse(R"({"triple": [4]})"), partial);
    REQUIRE(h);
    CHECK(h->triple == std::array<int, 3>{4, 0, 0});
    CHECK(errors_of<holder>(R"({"triple": [1, 2, 3, 4]})", partial) ==
          lines{"/triple: expected an array of 3 items, found an array of 4 items"});
    auto c = parley::from_json<price>(bjson::parse(R"({"unit": "us"})"), partial);
    REQUIRE(c);
    CHECK(c->unit == currency::eur);
    CHECK(errors_of<price>(R"({"unit": "usa"})", partial) ==
          lines{"/unit: expected one of \"eur\", \"usd\", \"gbp\", found \"usa\""});
    CHECK(errors_of<price>(R"({"unit": "us"})") ==
          lines{"/amount: expected a number, found nothing (required member missing)",
                "/unit: expected one of \"eur\", \"usd\", \"gbp\", found \"us\""});
}

TEST_CASE("from_json: found values are shortened in messages") {
    std::string long_text(100, 'x');
    CHECK(errors_of<int>("\"" + long_text + "\"") ==
          lines{"expected an integer from -2147483648 to 2147483647, found \"" + std::string(59, 'x') + "..."});
    CHECK(errors_of<int>(R"("line\nbreak \"quoted\"")") ==
          lines{R"(expected an integer from -2147483648 to 2147483647, found "line\nbreak \"quoted\"")"});
    // A cut never splits a UTF-8 character: 30 two-byte characters after the quote.
    std::string accents;
    for (int i = 0; i < 40; ++i) accents += "\xc3\xa9";
    auto r = parley::from_json<int>(bjson::value(accents));
    REQUIRE(r.errors().size() == 1);
    CHECK(r.errors()[0].found == "\"" + accents.substr(0, 58) + "...");
}

TEST_CASE("from_json: limits on problems, depth and work") {
    // 1000 wrong items: 100 recorded, the rest counted.
    bjson::array a;
    for (int i = 0; i < 1000; ++i) a.push_back("x");
    auto r = parley::from_json<std::vector<int>>(a);
    REQUIRE(!r);
    CHECK(r.errors().size() == 100);
    CHECK(r.omitted_errors() == 900);
    CHECK(r.errors()[99].path == "/99");
    std::string text = r.error_text();
    CHECK(text.substr(text.rfind('\n') + 1) == "(and 900 more problems)");

    parley::from_json_options few;
    few.max_problems = 2;
    auto r2 = parley::from_json<std::vector<int>>(bjson::parse(R"(["a", "b", "c"])"), few);
    CHECK(r2.error_text() ==
          "/0: expected an integer from -2147483648 to 2147483647, found \"a\"\n"
          "/1: expected an integer from -2147483648 to 2147483647, found \"b\"\n"
          "(and 1 more problem)");

    // A value nested deeper than max_depth, built by hand (parsing would refuse it).
    bjson::value deep = bjson::object{{"name", "leaf"}, {"children", bjson::array{}}};
    for (int i = 0; i < 100; ++i) deep = bjson::object{{"name", "n"}, {"children", bjson::array{deep}}};
    auto d = parley::from_json<tree>(deep);
    REQUIRE(!d);
    REQUIRE(d.errors().size() == 1);
    CHECK(d.errors()[0].kind == parley::json_problem_kind::limit);
    CHECK(d.errors()[0].message().find(": expected values nested at most 64 deep, found deeper nesting") !=
          std::string::npos);
    parley::from_json_options deeper;
    deeper.max_depth = 300;
    CHECK(parley::from_json<tree>(deep, deeper));

    // The work budget.
    parley::from_json_options budget;
    budget.max_steps = 10;
    auto b = parley::from_json<std::vector<int>>(bjson::parse("[1,2,3,4,5,6,7,8,9,10,11,12]"), budget);
    REQUIRE(!b);
    REQUIRE(b.errors().size() == 1);
    CHECK(b.errors()[0].message() == "/9: expected a value read within 10 steps, found a value that needs more");
}

namespace fj_test {
// Alternatives that look alike down to the last level: without a work budget, reading a value
// that fails at the bottom would try 2^depth combinations.
struct node_a;
struct node_b;
struct node_a {
    std::vector<std::variant<node_a, node_b>> next;
    int a = 0;
};
struct node_b {
    std::vector<std::variant<node_a, node_b>> next;
    int b = 0;
};
BOOST_DESCRIBE_STRUCT(node_a, (), (next, a))
BOOST_DESCRIBE_STRUCT(node_b, (), (next, b))
}  // namespace fj_test

TEST_CASE("from_json: the work budget stops exponential variant searches") {
    bjson::value v = bjson::object{{"next", bjson::array{}}, {"a", "wrong"}, {"b", "wrong"}};
    for (int i = 0; i < 40; ++i) v = bjson::object{{"next", bjson::array{v}}, {"a", 1}, {"b", 1}};
    parley::from_json_options options;
    options.max_steps = 100000;
    auto r = parley::from_json<std::variant<node_a, node_b>>(v, options);
    REQUIRE(!r);
    REQUIRE(r.errors().size() == 1);
    CHECK(r.errors()[0].kind == parley::json_problem_kind::limit);
}

TEST_CASE("from_json: value() throws the problems when there is no value") {
    auto r = parley::from_json<price>(bjson::parse(R"({"amount": "x", "unit": "eur"})"));
    REQUIRE(!r);
    try {
        (void)r.value();
        FAIL("value() did not throw");
    } catch (const parley::conversion_error& e) {
        CHECK(std::string(e.what()) ==
              "the JSON value does not fit the type:\n/amount: expected a number, found \"x\"");
        CHECK(e.problems().size() == 1);
        CHECK(e.code() == parley::errc::conversion);
    }
    auto ok = parley::from_json<price>(bjson::parse(R"({"amount": 1, "unit": "eur"})"));
    price moved = std::move(ok).value();
    CHECK(moved == price{1.0, currency::eur});
}

TEST_CASE("from_json: bounds from PARLEY_ANNOTATE are checked") {
    auto ok = parley::from_json<booking>(bjson::parse(
        R"({"guests": 8, "price": 0.5, "slot": -45, "code": "AB\u00e9", "names": ["a", "b"], "ratio": 0.3, "big": 18446744073709551614})"));
    REQUIRE_MESSAGE(ok, ok.error_text());
    CHECK(ok->code == "AB\xc3\xa9");  // 3 characters, 4 bytes
    CHECK(!ok->floor);
    CHECK(errors_of<booking>(
              R"({"guests": 0, "price": 0, "slot": 20, "code": "ABCD", "names": [], "floor": -3, "ratio": 1, "big": 18446744073709551615})") ==
          lines{
              "/guests: expected an integer at least 1 and at most 8, found 0",
              "/price: expected a number greater than 0, found 0",
              "/slot: expected a multiple of 15, found 20",
              "/code: expected a string of 2 to 3 characters, found \"ABCD\" (4 characters)",
              "/names: expected an array of 1 to 2 items, found an array of 0 items",
              "/floor: expected an integer at least -2, found -3",
              "/ratio: expected a number less than 1 and a multiple of 0.1, found 1",
              "/big: expected an integer at most 18446744073709551614, found 18446744073709551615",
          });
    CHECK(errors_of<booking>(
              R"({"guests": 9, "price": -1.5, "slot": 15, "code": "A", "names": ["a", "b", "c"], "floor": null, "ratio": 0.25, "big": 0})") ==
          lines{
              "/guests: expected an integer at least 1 and at most 8, found 9",
              "/price: expected a number greater than 0, found -1.5",
              "/code: expected a string of 2 to 3 characters, found \"A\" (1 character)",
              "/names: expected an array of 1 to 2 items, found an array of 3 items",
              "/ratio: expected a number less than 1 and a multiple of 0.1, found 0.25",
          });
    auto r = parley::from_json<booking>(bjson::parse(
        R"({"guests": 0, "price": 1, "slot": 0, "code": "ab", "names": ["x"], "ratio": 0, "big": 0})"));
    REQUIRE(r.errors().size() == 1);
    CHECK(r.errors()[0].kind == parley::json_problem_kind::out_of_range);
    // A value still arriving may not meet its bounds yet.
    parley::from_json_options partial;
    partial.partial = true;
    CHECK(parley::from_json<booking>(bjson::parse(R"({"guests": 0, "code": "A", "names": []})"), partial));
}
