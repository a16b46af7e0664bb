// Tests of parley/schema/json_schema.hpp.
//
// Every schema of a zoo of types is checked by Python's jsonschema (tests/harness/schema_check.py)
// against the draft 2020-12 meta-schema, and hand-written instances are validated against it
// (those that must pass and those that must fail). The strict forms are walked by a checker,
// written here independently of the generator, that asserts OpenAI's strict-mode rules on every
// sub-schema.
#include <parley/schema/json_schema.hpp>

#include "../harness/schema_check.hpp"

#include <doctest/doctest.h>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/serialize.hpp>
#include <boost/preprocessor/cat.hpp>
#include <boost/preprocessor/repetition/repeat.hpp>
#include <boost/preprocessor/repetition/repeat_from_to.hpp>
#include <boost/preprocessor/tuple/elem.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <variant>
#include <vector>

// ---------------------------------------------------------------------------------------------
// The zoo

namespace zoo {

enum class colour { red, green, blue };
BOOST_DESCRIBE_ENUM(colour, red, green, blue)
PARLEY_ANNOTATE(colour, "A colour", (red, "warm"), (blue, "cold"))

enum class size_class { small, large };
BOOST_DESCRIBE_ENUM(size_class, small, large)

struct integers {
    std::int8_t i8;
    std::uint8_t u8;
    std::int16_t i16;
    std::uint16_t u16;
    std::int32_t i32;
    std::uint32_t u32;
    std::int64_t i64;
    std::uint64_t u64;
};
BOOST_DESCRIBE_STRUCT(integers, (), (i8, u8, i16, u16, i32, u32, i64, u64))

struct scalars {
    bool flag;
    float ratio;
    double amount;
    std::string text;
    std::string_view view;
    colour hue;
    size_class size;
};
BOOST_DESCRIBE_STRUCT(scalars, (), (flag, ratio, amount, text, view, hue, size))

struct containers {
    std::vector<int> numbers;
    std::array<std::string, 3> triple;
    std::set<int> unique;
    std::map<std::string, double> prices;
    std::deque<bool> bits;
    std::list<colour> hues;
    std::unordered_set<std::string> words;
    std::vector<std::vector<std::uint8_t>> grid;
};
BOOST_DESCRIBE_STRUCT(containers, (), (numbers, triple, unique, prices, bits, hues, words, grid))

struct leaf {
    std::string label;
};
BOOST_DESCRIBE_STRUCT(leaf, (), (label))
PARLEY_ANNOTATE(leaf, "A labelled leaf")

struct optionals {
    std::optional<int> count;
    std::optional<std::string> note;
    std::optional<colour> hue;
    std::optional<std::vector<int>> list;
    std::vector<std::optional<int>> holes;
    std::optional<leaf> extra;
    int plain;
};
BOOST_DESCRIBE_STRUCT(optionals, (), (count, note, hue, list, holes, extra, plain))
PARLEY_ANNOTATE(optionals, (hue, "The hue, if known"), (extra, "Something more"))

struct variants {
    std::variant<int, std::string> either;
    std::variant<std::monostate, double, leaf> maybe;
    std::optional<std::variant<bool, std::string>> flag_or_text;
};
BOOST_DESCRIBE_STRUCT(variants, (), (either, maybe, flag_or_text))

struct node {
    std::string name;
    std::vector<node> children;
};
BOOST_DESCRIBE_STRUCT(node, (), (name, children))

struct forest {
    std::vector<node> trees;
    std::optional<leaf> marker;
};
BOOST_DESCRIBE_STRUCT(forest, (), (trees, marker))

struct team;
struct person {
    std::string name;
    std::vector<team> teams;
};
struct team {
    std::string title;
    std::vector<person> members;
};
BOOST_DESCRIBE_STRUCT(person, (), (name, teams))
BOOST_DESCRIBE_STRUCT(team, (), (title, members))

struct with_json {
    boost::json::value payload;
    std::map<std::string, boost::json::value> meta;
};
BOOST_DESCRIBE_STRUCT(with_json, (), (payload, meta))

struct hidden_any {
    leaf first;
    std::optional<std::vector<std::variant<int, boost::json::value>>> deep;
};
BOOST_DESCRIBE_STRUCT(hidden_any, (), (first, deep))
struct holds_hidden_any {
    std::vector<hidden_any> items;
};
BOOST_DESCRIBE_STRUCT(holds_hidden_any, (), (items))

struct base {
    int id;
};
BOOST_DESCRIBE_STRUCT(base, (), (id))
struct derived : base {
    std::string extra;
};
BOOST_DESCRIBE_STRUCT(derived, (base), (extra))

struct with_set {
    std::set<std::uint16_t> ids;
};
BOOST_DESCRIBE_STRUCT(with_set, (), (ids))

struct empty {};
BOOST_DESCRIBE_STRUCT(empty, (), ())

template <class T>
struct box {
    T value;
};
BOOST_DESCRIBE_STRUCT(box<int>, (), (value))

namespace shop {
struct item {
    std::string sku;
};
BOOST_DESCRIBE_STRUCT(item, (), (sku))
}  // namespace shop
namespace game {
struct item {
    int power;
};
BOOST_DESCRIBE_STRUCT(item, (), (power))
}  // namespace game

struct two_items {
    shop::item bought;
    game::item found;
    box<int> boxed;
};
BOOST_DESCRIBE_STRUCT(two_items, (), (bought, found, boxed))

struct order {
    std::string id;
    int quantity;
    double price;
    std::optional<std::string> note;
    std::vector<std::string> tags;
    std::string email;
    std::string when;
    colour hue;
    leaf label;
    std::vector<int> sizes;
    std::int64_t step;
    std::uint16_t port;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, quantity, price, note, tags, email, when, hue, label, sizes, step, port))
PARLEY_ANNOTATE(order, "A customer order", name("place_order"),
                (id, "Order identifier", pattern("^[A-Z]{3}-[0-9]+$"), examples("ABC-1", "XYZ-42")),
                (quantity, "How many", minimum(1), maximum(100), default_value(1)),
                (price, "Unit price", exclusive_minimum(0), maximum(1e6), examples(9.99, 10)),
                (note, "For the courier", min_length(1), max_length(200)),
                (tags, min_items(1), max_items(5), default_value(parley::annotate::json(R"(["new"])"))),
                (email, format("email")),
                (when, "ISO date", format("date")),
                (hue, "Paint colour", default_value(colour::green)),
                (label, "What is written on the box"),
                (sizes, "Even sizes", max_items(3)),
                (step, multiple_of(5), range(-50, 50)),
                (port, minimum(1024), maximum(1000000)))

}  // namespace zoo

// OpenAI's strict-mode limits
namespace limits {

// 10 levels of nesting (d1 ... d10) fit, 11 (d0) do not
struct d10 {
    int x;
};
BOOST_DESCRIBE_STRUCT(d10, (), (x))
struct d9 {
    d10 next;
};
BOOST_DESCRIBE_STRUCT(d9, (), (next))
struct d8 {
    d9 next;
};
BOOST_DESCRIBE_STRUCT(d8, (), (next))
struct d7 {
    d8 next;
};
BOOST_DESCRIBE_STRUCT(d7, (), (next))
struct d6 {
    d7 next;
};
BOOST_DESCRIBE_STRUCT(d6, (), (next))
struct d5 {
    d6 next;
};
BOOST_DESCRIBE_STRUCT(d5, (), (next))
struct d4 {
    d5 next;
};
BOOST_DESCRIBE_STRUCT(d4, (), (next))
struct d3 {
    d4 next;
};
BOOST_DESCRIBE_STRUCT(d3, (), (next))
struct d2 {
    d3 next;
};
BOOST_DESCRIBE_STRUCT(d2, (), (next))
struct d1 {
    d2 next;
};
BOOST_DESCRIBE_STRUCT(d1, (), (next))
struct d0 {
    d1 next;
};
BOOST_DESCRIBE_STRUCT(d0, (), (next))

enum class wide { v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21, v22, v23, v24, v25, v26, v27, v28, v29, v30, v31, v32, v33, v34, v35, v36, v37, v38, v39 };
BOOST_DESCRIBE_ENUM(wide, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21, v22, v23, v24, v25, v26, v27, v28, v29, v30, v31, v32, v33, v34, v35, v36, v37, v38, v39)

// 25 * 40 = 1000 enum values fit, 26 * 40 = 1040 do not
struct enums_1000 {
    wide e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24;
};
BOOST_DESCRIBE_STRUCT(enums_1000, (), (e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24))
// 1000 + 1 = 1001 do not
enum class single { only };
BOOST_DESCRIBE_ENUM(single, only)
struct enums_1001 {
    wide e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24;
    single one;
};
BOOST_DESCRIBE_STRUCT(enums_1001, (), (e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, one))
struct enums_1040 {
    wide e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, e25;
};
BOOST_DESCRIBE_STRUCT(enums_1040, (), (e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, e25))

// Names of exact lengths for the limits on characters, made by the preprocessor: a prefix of
// LIMITS_P<n> (n characters) and a number. The enumerators are described with the macros
// BOOST_DESCRIBE_ENUM is made of, since BOOST_DESCRIBE_ENUM takes at most 52 names written out.
#define LIMITS_JOIN4_I(a, b, c, d) a##b##c##d
#define LIMITS_JOIN4(a, b, c, d) LIMITS_JOIN4_I(a, b, c, d)
#define LIMITS_P10 abcdefghij
#define LIMITS_P40 LIMITS_JOIN4(LIMITS_P10, LIMITS_P10, LIMITS_P10, LIMITS_P10)
#define LIMITS_P50 LIMITS_JOIN4(LIMITS_P40, LIMITS_P10, , )
#define LIMITS_P51 LIMITS_JOIN4(LIMITS_P40, LIMITS_P10, z, )
#define LIMITS_P57 LIMITS_JOIN4(LIMITS_P40, LIMITS_P10, abcdef, g)
#define LIMITS_P151 LIMITS_JOIN4(LIMITS_P40, LIMITS_P40, LIMITS_P40, LIMITS_JOIN4(LIMITS_P10, LIMITS_P10, LIMITS_P10, g))
#define LIMITS_ENUMERATOR(z, n, prefix) BOOST_PP_CAT(prefix, n),
#define LIMITS_DESCRIBE_I(E, e) BOOST_DESCRIBE_ENUM_ENTRY(E, e)
#define LIMITS_DESCRIBE(z, n, E_prefix) \
    LIMITS_DESCRIBE_I(BOOST_PP_TUPLE_ELEM(2, 0, E_prefix), BOOST_PP_CAT(BOOST_PP_TUPLE_ELEM(2, 1, E_prefix), n))

// 120,000 characters of names fit, 120,001 do not: 16 members of 3 characters, each an enum of
// 49 values of 153 characters (16 * (3 + 49 * 153) = 120,000); one member named with 4
// characters makes 120,001.
enum class long_names { BOOST_PP_REPEAT_FROM_TO(10, 59, LIMITS_ENUMERATOR, LIMITS_P151) };
BOOST_DESCRIBE_ENUM_BEGIN(long_names)
BOOST_PP_REPEAT_FROM_TO(10, 59, LIMITS_DESCRIBE, (long_names, LIMITS_P151))
BOOST_DESCRIBE_ENUM_END(long_names)
struct chars_120000 {
    long_names e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, e25;
};
BOOST_DESCRIBE_STRUCT(chars_120000, (), (e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, e25))
struct chars_120001 {
    long_names e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, ex25;
};
BOOST_DESCRIBE_STRUCT(chars_120001, (), (e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, ex25))

// An enum of more than 250 values may have 15,000 characters, not 15,001: 251 names of 57
// characters and a number from 0 to 250 (251 * 57 + 643 digits = 14,950), then one of 50 (or 51).
enum class large_15000 { BOOST_PP_REPEAT(251, LIMITS_ENUMERATOR, LIMITS_P57) LIMITS_P50 };
BOOST_DESCRIBE_ENUM_BEGIN(large_15000)
BOOST_PP_REPEAT(251, LIMITS_DESCRIBE, (large_15000, LIMITS_P57)) LIMITS_DESCRIBE_I(large_15000, LIMITS_P50)
BOOST_DESCRIBE_ENUM_END(large_15000)
enum class large_15001 { BOOST_PP_REPEAT(251, LIMITS_ENUMERATOR, LIMITS_P57) LIMITS_P51 };
BOOST_DESCRIBE_ENUM_BEGIN(large_15001)
BOOST_PP_REPEAT(251, LIMITS_DESCRIBE, (large_15001, LIMITS_P57)) LIMITS_DESCRIBE_I(large_15001, LIMITS_P51)
BOOST_DESCRIBE_ENUM_END(large_15001)
struct large_enum_15000 {
    large_15000 e;
};
BOOST_DESCRIBE_STRUCT(large_enum_15000, (), (e))
struct large_enum_15001 {
    large_15001 e;
};
BOOST_DESCRIBE_STRUCT(large_enum_15001, (), (e))

}  // namespace limits

namespace {

using boost::json::value;
using schema_check::json;

// ---------------------------------------------------------------------------------------------
// Expectations checked by jsonschema

struct expectation {
    std::string name;
    value schema;
    std::vector<value> good;
    std::vector<value> bad;
};

template <class T>
expectation plain(const char* name, std::vector<value> good, std::vector<value> bad) {
    return {name, parley::json_schema<T>(), std::move(good), std::move(bad)};
}
template <class T>
expectation strict(const char* name, std::vector<value> good, std::vector<value> bad) {
    return {name, parley::strict_json_schema<T>(), std::move(good), std::move(bad)};
}

void check_all(const std::vector<expectation>& expectations) {
    std::vector<schema_check::check_case> cases;
    for (const auto& e : expectations) {
        schema_check::check_case c{e.name, e.schema, {}};
        c.instances.insert(c.instances.end(), e.good.begin(), e.good.end());
        c.instances.insert(c.instances.end(), e.bad.begin(), e.bad.end());
        cases.push_back(std::move(c));
    }
    const auto results = schema_check::run(cases);
    REQUIRE(results.size() == expectations.size());
    for (std::size_t i = 0; i != results.size(); ++i) {
        const auto& e = expectations[i];
        const auto& r = results[i];
        INFO("schema ", e.name, ": ", boost::json::serialize(e.schema));
        CHECK_MESSAGE(!r.schema_error, (r.schema_error ? *r.schema_error : std::string()));
        for (const auto& a : r.annotation_errors) FAIL_CHECK("default or example does not validate: " << a);
        if (r.schema_error) continue;
        REQUIRE(r.valid.size() == e.good.size() + e.bad.size());
        for (std::size_t j = 0; j != e.good.size(); ++j)
            CHECK_MESSAGE(r.valid[j], "should be valid: " << boost::json::serialize(e.good[j]) << " (" << r.errors[j] << ")");
        for (std::size_t j = 0; j != e.bad.size(); ++j)
            CHECK_MESSAGE(!r.valid[e.good.size() + j], "should be invalid: " << boost::json::serialize(e.bad[j]));
    }
}

// ---------------------------------------------------------------------------------------------
// The strict-mode walker: OpenAI's rules, checked on every sub-schema of a strict schema.

struct strict_walk {
    explicit strict_walk(const boost::json::object& r) : root(r) {}

    const boost::json::object& root;
    std::size_t properties = 0;
    std::size_t enum_values = 0;
    std::size_t string_chars = 0;
    std::size_t large_enum_chars = 0;  // of the enum of more than 250 values with the most
    std::vector<std::string> problems;

    void problem(const std::string& where, const std::string& what) { problems.push_back(where + ": " + what); }

    static bool allowed_keyword(std::string_view k) {
        for (std::string_view ok : {"type", "description", "properties", "required", "additionalProperties", "items",
                                    "enum", "anyOf", "$ref", "pattern", "format", "minimum", "maximum",
                                    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"})
            if (k == ok) return true;
        return false;
    }

    void schema(const value& v, const std::string& where) {
        if (!v.is_object()) return problem(where, "not an object schema");
        const auto& s = v.as_object();
        for (const auto& kv : s) {
            if (!allowed_keyword(kv.key()) && !(kv.key() == "$defs" && &s == &root))
                problem(where, "keyword not accepted in strict mode: " + std::string(kv.key()));
        }
        if (s.contains("$ref")) {
            if (s.size() != 1) problem(where, "$ref with sibling keywords");
            const std::string_view ref = s.at("$ref").as_string();
            if (ref != "#" && !(ref.substr(0, 8) == "#/$defs/" && root.contains("$defs") &&
                                root.at("$defs").as_object().contains(ref.substr(8))))
                problem(where, "$ref to nowhere: " + std::string(ref));
            return;
        }
        if (s.contains("anyOf")) {
            if (&s == &root) problem(where, "anyOf at the root");
            const auto& branches = s.at("anyOf").as_array();
            if (branches.empty()) problem(where, "empty anyOf");
            for (std::size_t i = 0; i != branches.size(); ++i) schema(branches[i], where + "/anyOf/" + std::to_string(i));
            return;
        }
        if (!s.contains("type")) return problem(where, "no type");
        const std::string_view type = s.at("type").as_string();
        if (type == "object") {
            if (!s.contains("properties")) return problem(where, "object without properties");
            if (!s.contains("additionalProperties") || s.at("additionalProperties") != value(false))
                problem(where, "object without additionalProperties: false");
            const auto& props = s.at("properties").as_object();
            const auto& required = s.at("required").as_array();
            if (required.size() != props.size()) problem(where, "required does not list every property");
            std::size_t i = 0;
            for (const auto& p : props) {
                ++properties;
                string_chars += p.key().size();
                if (i < required.size() && required[i] != value(p.key())) problem(where, "required out of order or incomplete");
                ++i;
                schema(p.value(), where + "/properties/" + std::string(p.key()));
            }
        } else if (type == "array") {
            if (!s.contains("items")) return problem(where, "array without items");
            schema(s.at("items"), where + "/items");
        } else if (type == "string") {
            if (s.contains("format")) {
                bool known = false;
                for (std::string_view f : {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
                    known = known || s.at("format").as_string() == f;
                if (!known) problem(where, "format not accepted in strict mode");
            }
            if (s.contains("enum")) {
                const auto& values = s.at("enum").as_array();
                std::size_t chars = 0;
                for (const auto& e : values) chars += e.as_string().size();
                enum_values += values.size();
                string_chars += chars;
                if (values.size() > 250) large_enum_chars = std::max(large_enum_chars, chars);
            }
        } else if (type != "integer" && type != "number" && type != "boolean" && type != "null") {
            problem(where, "unknown type " + std::string(type));
        }
    }

    // Object nesting levels, following $ref; a definition already on the path is not entered
    // again.
    std::size_t depth(const value& v, std::vector<std::string>& path) const {
        const auto& s = v.as_object();
        if (s.contains("$ref")) {
            const std::string ref(s.at("$ref").as_string());
            for (const auto& p : path)
                if (p == ref) return 0;
            path.push_back(ref);
            const value& target = ref == "#" ? value(root) : root.at("$defs").at(std::string_view(ref).substr(8));
            const std::size_t d = depth(target, path);
            path.pop_back();
            return d;
        }
        std::size_t deepest = 0;
        if (s.contains("anyOf"))
            for (const auto& b : s.at("anyOf").as_array()) deepest = std::max(deepest, depth(b, path));
        if (s.contains("items")) deepest = std::max(deepest, depth(s.at("items"), path));
        if (s.contains("properties")) {
            for (const auto& p : s.at("properties").as_object()) deepest = std::max(deepest, depth(p.value(), path));
            return deepest + 1;
        }
        return deepest;
    }
};

template <class T>
value check_strict_rules() {
    const value schema = parley::strict_json_schema<T>();
    INFO("strict schema: ", boost::json::serialize(schema));
    REQUIRE(schema.is_object());
    const auto& root = schema.as_object();
    CHECK(root.at("type") == "object");
    strict_walk walk(root);
    walk.schema(schema, "#");
    if (root.contains("$defs"))
        for (const auto& d : root.at("$defs").as_object()) {
            walk.string_chars += d.key().size();
            walk.schema(d.value(), "#/$defs/" + std::string(d.key()));
        }
    for (const auto& p : walk.problems) FAIL_CHECK(p);
    CHECK(walk.problems.empty());
    std::vector<std::string> path{"#"};
    const std::size_t depth = walk.depth(schema, path);
    constexpr parley::schema_stats stats = parley::strict_json_schema_stats<T>;
    CHECK(stats.properties == walk.properties);
    CHECK(stats.enum_values == walk.enum_values);
    CHECK(stats.string_chars == walk.string_chars);
    CHECK(stats.large_enum_chars == walk.large_enum_chars);
    CHECK(stats.depth == depth);
    CHECK(depth <= parley::openai_strict_limits::max_depth);
    CHECK(walk.properties <= parley::openai_strict_limits::max_properties);
    CHECK(walk.enum_values <= parley::openai_strict_limits::max_enum_values);
    CHECK(walk.string_chars <= parley::openai_strict_limits::max_string_chars);
    CHECK(walk.large_enum_chars <= parley::openai_strict_limits::max_large_enum_chars);
    return schema;
}

// ---------------------------------------------------------------------------------------------
// Compile-time text

static_assert(parley::json_schema_text<bool> ==
              R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"boolean"})");
static_assert(parley::json_schema_text<std::uint8_t> ==
              R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"integer","minimum":0,"maximum":255})");
static_assert(parley::json_schema_text<zoo::leaf> ==
              R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","description":"A labelled leaf",)"
              R"("properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false})");
static_assert(parley::strict_json_schema_text<zoo::node> ==
              R"({"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},)"
              R"("required":["name","children"],"additionalProperties":false})");
static_assert(parley::json_schema_text<std::optional<zoo::colour>> ==
              R"({"$schema":"https://json-schema.org/draft/2020-12/schema","anyOf":[{"type":"string","description":)"
              R"("A colour\n- red: warm\n- blue: cold","enum":["red","green","blue"]},{"type":"null"}]})");
static_assert(parley::json_schema_text<const std::vector<zoo::leaf>&> ==
              R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"$ref":"#/$defs/leaf"},)"
              R"("$defs":{"leaf":{"type":"object","description":"A labelled leaf","properties":{"label":{"type":"string"}},)"
              R"("required":["label"],"additionalProperties":false}}})");
// Every integer type has its range as minimum and maximum.
template <class I>
constexpr bool integer_schema(std::string_view bounds) {
    constexpr std::string_view head = R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"integer",)";
    constexpr std::string_view text = parley::json_schema_text<I>;
    return text.substr(0, head.size()) == head && text.substr(head.size()) == bounds;
}
static_assert(integer_schema<signed char>(R"("minimum":-128,"maximum":127})"));
static_assert(integer_schema<unsigned char>(R"("minimum":0,"maximum":255})"));
static_assert(integer_schema<short>(R"("minimum":-32768,"maximum":32767})"));
static_assert(integer_schema<unsigned short>(R"("minimum":0,"maximum":65535})"));
static_assert(integer_schema<int>(R"("minimum":-2147483648,"maximum":2147483647})"));
static_assert(integer_schema<unsigned>(R"("minimum":0,"maximum":4294967295})"));
static_assert(integer_schema<long>(R"("minimum":-9223372036854775808,"maximum":9223372036854775807})"));
static_assert(integer_schema<unsigned long>(R"("minimum":0,"maximum":18446744073709551615})"));
static_assert(integer_schema<long long>(R"("minimum":-9223372036854775808,"maximum":9223372036854775807})"));
static_assert(integer_schema<unsigned long long>(R"("minimum":0,"maximum":18446744073709551615})"));
static_assert(!integer_schema<int>(R"("minimum":-2147483648,"maximum":2147483646})"));

// the constant is usable like any other: searched at compile time
static_assert(parley::json_schema_text<zoo::order>.find(R"("pattern":"^[A-Z]{3}-[0-9]+$")") != std::string_view::npos);
static_assert(parley::strict_json_schema_text<zoo::order>.find("\"default\"") == std::string_view::npos);

// What has a strict form and what has none (a concept, so no failing compile is needed).
static_assert(parley::strict_describable<zoo::order>);
static_assert(parley::strict_describable<zoo::person>);
static_assert(!parley::strict_describable<zoo::containers>);  // std::map
static_assert(!parley::strict_describable<zoo::with_json>);  // boost::json::value
static_assert(!parley::strict_describable<std::vector<zoo::leaf>>);  // not an object root
static_assert(!parley::strict_describable<int>);
static_assert(std::is_same_v<parley::detail::strict_offender_t<zoo::containers>, std::map<std::string, double>>);

// Limits: what the strict form counts, and the boundaries.
static_assert(parley::strict_json_schema_stats<limits::d1>.depth == 10);
static_assert(parley::strict_describable<limits::d1>);
static_assert(!parley::strict_describable<limits::d0>);
static_assert(parley::describable<limits::d0>);  // the plain form has no such limit
static_assert(parley::detail::schema_info_v<limits::d0, true>.stats.depth == 11);
static_assert(parley::strict_json_schema_stats<limits::enums_1000>.enum_values == 1000);
static_assert(parley::strict_describable<limits::enums_1000>);
static_assert(!parley::strict_describable<limits::enums_1040>);
static_assert(parley::detail::schema_info_v<limits::enums_1040, true>.stats.enum_values == 1040);
static_assert(!parley::strict_describable<limits::enums_1001>);
static_assert(parley::detail::schema_info_v<limits::enums_1001, true>.stats.enum_values == 1001);
static_assert(parley::strict_json_schema_stats<limits::chars_120000>.string_chars == 120000);
static_assert(parley::strict_describable<limits::chars_120000>);
static_assert(!parley::strict_describable<limits::chars_120001>);
static_assert(parley::detail::schema_info_v<limits::chars_120001, true>.stats.string_chars == 120001);
static_assert(parley::strict_json_schema_stats<limits::large_enum_15000>.large_enum_chars == 15000);
static_assert(parley::strict_json_schema_stats<limits::large_enum_15000>.enum_values == 252);
static_assert(parley::strict_describable<limits::large_enum_15000>);
static_assert(!parley::strict_describable<limits::large_enum_15001>);
static_assert(parley::detail::schema_info_v<limits::large_enum_15001, true>.stats.large_enum_chars == 15001);
// An enum of 250 values or fewer has no limit of its own: 49 values of 153 characters.
static_assert(parley::strict_json_schema_stats<limits::chars_120000>.large_enum_chars == 0);

// The check itself, on counts: each limit reached passes, each limit passed by one fails (the
// compile errors it gives are tested in json_schema_compile_test.cpp). 5000 properties take a
// schema text beyond g++'s default budget for constant evaluation, so that limit is reached here
// only.
constexpr parley::schema_stats at_limits{.properties = 5000, .enum_values = 1000, .string_chars = 120000,
                                         .large_enum_chars = 15000, .depth = 10};
static_assert(parley::detail::fits_openai_limits(at_limits));
static_assert((parley::detail::require_openai_limits<at_limits>(), true));
static_assert(!parley::detail::fits_openai_limits({.properties = 5001}));
static_assert(!parley::detail::fits_openai_limits({.enum_values = 1001}));
static_assert(!parley::detail::fits_openai_limits({.string_chars = 120001}));
static_assert(!parley::detail::fits_openai_limits({.large_enum_chars = 15001}));
static_assert(!parley::detail::fits_openai_limits({.depth = 11}));
static_assert(parley::strict_json_schema_stats<zoo::node>.depth == 1);
static_assert(parley::strict_json_schema_stats<zoo::person>.depth == 2);
static_assert(parley::strict_json_schema_stats<zoo::person>.properties == 4);
static_assert(std::is_same_v<parley::detail::strict_offender_t<zoo::with_json>, boost::json::value>);
// found however deep (a member of a struct in a vector, in an optional vector of variants)
static_assert(std::is_same_v<parley::detail::strict_offender_t<zoo::holds_hidden_any>, boost::json::value>);
static_assert(!parley::strict_describable<zoo::holds_hidden_any>);
static_assert(parley::describable<zoo::holds_hidden_any>);

// ---------------------------------------------------------------------------------------------
// The tests

TEST_CASE("json_schema: every zoo schema passes the 2020-12 meta-schema and validates as expected") {
    std::vector<expectation> e;
    e.push_back(plain<zoo::integers>(
        "integers",
        {json(R"({"i8":-128,"u8":255,"i16":-32768,"u16":65535,"i32":-2147483648,"u32":4294967295,)"
              R"("i64":-9223372036854775808,"u64":18446744073709551615})"),
         json(R"({"i8":0,"u8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0})")},
        {json(R"({"i8":128,"u8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0})"),
         json(R"({"i8":0,"u8":-1,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0})"),
         json(R"({"i8":0,"u8":256,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0})"),
         json(R"({"i8":0,"u8":0,"i16":-32769,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0})"),
         json(R"({"i8":0,"u8":0,"i16":0,"u16":65536,"i32":0,"u32":0,"i64":0,"u64":0})"),
         json(R"({"i8":0,"u8":0,"i16":0,"u16":0,"i32":2147483648,"u32":0,"i64":0,"u64":0})"),
         json(R"({"i8":0,"u8":0,"i16":0,"u16":0,"i32":0,"u32":4294967296,"i64":0,"u64":0})"),
         json(R"({"i8":0,"u8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":-1})"),
         json(R"({"i8":0.5,"u8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0})"),
         json(R"({"u8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0})")}));
    e.push_back(plain<zoo::scalars>(
        "scalars",
        {json(R"({"flag":true,"ratio":0.5,"amount":3,"text":"a","view":"","hue":"red","size":"large"})")},
        {json(R"({"flag":1,"ratio":0.5,"amount":3,"text":"a","view":"","hue":"red","size":"large"})"),
         json(R"({"flag":true,"ratio":"0.5","amount":3,"text":"a","view":"","hue":"red","size":"large"})"),
         json(R"({"flag":true,"ratio":0.5,"amount":3,"text":1,"view":"","hue":"red","size":"large"})"),
         json(R"({"flag":true,"ratio":0.5,"amount":3,"text":"a","view":"","hue":"Red","size":"large"})"),
         json(R"({"flag":true,"ratio":0.5,"amount":3,"text":"a","view":"","hue":"red","size":"medium"})"),
         json(R"({"flag":true,"ratio":0.5,"amount":3,"text":"a","view":"","hue":"red","size":"large","x":1})")}));
    e.push_back(plain<zoo::containers>(
        "containers",
        {json(R"({"numbers":[],"triple":["a","b","c"],"unique":[1,2],"prices":{"x":1.5},"bits":[true],)"
              R"("hues":["blue"],"words":[],"grid":[[0,255],[]]})")},
        {json(R"({"numbers":[],"triple":["a","b"],"unique":[1,2],"prices":{},"bits":[],"hues":[],"words":[],"grid":[]})"),
         json(R"({"numbers":[],"triple":["a","b","c","d"],"unique":[],"prices":{},"bits":[],"hues":[],"words":[],"grid":[]})"),
         json(R"({"numbers":[],"triple":["a","b","c"],"unique":[1,1],"prices":{},"bits":[],"hues":[],"words":[],"grid":[]})"),
         json(R"({"numbers":[],"triple":["a","b","c"],"unique":[],"prices":{"x":"y"},"bits":[],"hues":[],"words":[],"grid":[]})"),
         json(R"({"numbers":[],"triple":["a","b","c"],"unique":[],"prices":{},"bits":[],"hues":["pink"],"words":[],"grid":[]})"),
         json(R"({"numbers":[],"triple":["a","b","c"],"unique":[],"prices":{},"bits":[],"hues":[],"words":["a","a"],"grid":[]})"),
         json(R"({"numbers":[],"triple":["a","b","c"],"unique":[],"prices":{},"bits":[],"hues":[],"words":[],"grid":[[256]]})"),
         json(R"({"numbers":[1.5],"triple":["a","b","c"],"unique":[],"prices":{},"bits":[],"hues":[],"words":[],"grid":[]})")}));
    e.push_back(plain<zoo::optionals>(
        "optionals",
        {json(R"({"plain":1,"holes":[]})"),
         json(R"({"plain":1,"holes":[1,null],"count":2,"note":"n","hue":"green","list":[1],"extra":{"label":"x"}})")},
        {json(R"({"holes":[]})"), json(R"({"plain":1})"), json(R"({"plain":1,"holes":[],"count":"2"})"),
         json(R"({"plain":1,"holes":[],"hue":"grey"})"), json(R"({"plain":1,"holes":[],"extra":{}})"),
         json(R"({"plain":1,"holes":["x"]})")}));
    e.push_back(plain<zoo::variants>(
        "variants",
        {json(R"({"either":1,"maybe":null})"), json(R"({"either":"a","maybe":2.5,"flag_or_text":true})"),
         json(R"({"either":"a","maybe":{"label":"l"},"flag_or_text":"t"})")},
        // in the plain form an optional member is left out, not null
        {json(R"({"either":"a","maybe":{"label":"l"},"flag_or_text":null})"),
         json(R"({"either":1.5,"maybe":null})"), json(R"({"either":1,"maybe":"s"})"),
         json(R"({"either":1,"maybe":{"label":1}})"), json(R"({"either":1,"maybe":null,"flag_or_text":3})"),
         json(R"({"maybe":null})")}));
    e.push_back(plain<zoo::node>(
        "node",
        {json(R"({"name":"a","children":[]})"),
         json(R"({"name":"a","children":[{"name":"b","children":[{"name":"c","children":[]}]}]})")},
        {json(R"({"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]})"),
         json(R"({"name":"a","children":[{"name":"b","children":[{"name":3,"children":[]}]}]})")}));
    e.push_back(plain<zoo::forest>(
        "forest", {json(R"({"trees":[{"name":"a","children":[{"name":"b","children":[]}]}]})")},
        {json(R"({"trees":[{"name":"a","children":[{"children":[]}]}]})"), json(R"({"trees":[],"marker":{}})")}));
    e.push_back(plain<zoo::person>(
        "person", {json(R"({"name":"ann","teams":[{"title":"t","members":[{"name":"bob","teams":[]}]}]})")},
        {json(R"({"name":"ann","teams":[{"title":"t","members":[{"name":"bob"}]}]})"),
         json(R"({"name":"ann","teams":[{"members":[]}]})")}));
    e.push_back(plain<zoo::with_json>(
        "with_json", {json(R"({"payload":null,"meta":{}})"), json(R"({"payload":{"a":[1,"x"]},"meta":{"k":[true]}})")},
        {json(R"({"meta":{}})"), json(R"({"payload":1,"meta":[]})")}));
    e.push_back(plain<zoo::derived>("derived", {json(R"({"id":1,"extra":"x"})")},
                                    {json(R"({"extra":"x"})"), json(R"({"id":1})")}));
    e.push_back(plain<zoo::empty>("empty", {json("{}")}, {json(R"({"a":1})"), json("[]")}));
    e.push_back(plain<zoo::two_items>("two_items", {json(R"({"bought":{"sku":"s"},"found":{"power":3},"boxed":{"value":1}})")},
                                      {json(R"({"bought":{"power":3},"found":{"power":3},"boxed":{"value":1}})"),
                                       json(R"({"bought":{"sku":"s"},"found":{"sku":"s"},"boxed":{"value":1}})")}));
    e.push_back(plain<zoo::order>(
        "order",
        {json(R"({"id":"ABC-1","quantity":1,"price":0.01,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":-50,"port":65535})"),
         json(R"({"id":"ABC-123","quantity":100,"price":1000000,"note":"x","tags":["a","b","c","d","e"],)"
              R"("email":"x@y.z","when":"2024-01-01","hue":"blue","label":{"label":""},"sizes":[1,2,3],"step":45,"port":1024})")},
        {json(R"({"id":"abc-1","quantity":1,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":0,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":101,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":0,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"note":"","tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":[],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a","b","c","d","e","f"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a"],"email":"not an address","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[1,2,3,4],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":3,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":55,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":80})"),
         json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":"x"},"sizes":[],"step":0,"port":65536})")}));
    e.push_back(plain<std::vector<zoo::node>>("vector of node", {json(R"([{"name":"a","children":[]}])"), json("[]")},
                                              {json(R"([{"name":"a"}])"), json("{}")}));
    e.push_back(plain<std::optional<zoo::colour>>("optional colour", {json("null"), json(R"("green")")},
                                                  {json(R"("grey")"), json("1")}));
    e.push_back(plain<std::map<std::string, std::vector<zoo::leaf>>>(
        "map of leaves", {json(R"({"a":[{"label":"x"}],"b":[]})")}, {json(R"({"a":[{}]})"), json(R"({"a":{}})")}));
    e.push_back(plain<std::variant<std::monostate, zoo::node, std::array<int, 2>>>(
        "variant root", {json("null"), json(R"({"name":"a","children":[]})"), json("[1,2]")},
        {json("[1]"), json(R"({"name":"a"})"), json(R"("x")")}));
    e.push_back(plain<boost::json::value>("any", {json("null"), json(R"({"x":[1]})")}, {}));
    check_all(e);
}

TEST_CASE("json_schema: strict forms pass the meta-schema and take instances with every member, null for optionals") {
    std::vector<expectation> e;
    e.push_back(strict<zoo::optionals>(
        "optionals",
        {json(R"({"count":null,"note":null,"hue":null,"list":null,"holes":[],"extra":null,"plain":1})"),
         json(R"({"count":2,"note":"n","hue":"red","list":[1],"holes":[null,1],"extra":{"label":"l"},"plain":1})")},
        {json(R"({"plain":1,"holes":[]})"),
         json(R"({"count":null,"note":null,"hue":"grey","list":null,"holes":[],"extra":null,"plain":1})"),
         json(R"({"count":null,"note":null,"hue":null,"list":null,"holes":[],"extra":null,"plain":1,"more":0})")}));
    e.push_back(strict<zoo::variants>(
        "variants", {json(R"({"either":1,"maybe":null,"flag_or_text":null})"), json(R"({"either":"a","maybe":{"label":"x"},"flag_or_text":"t"})")},
        {json(R"({"either":1,"maybe":null})"), json(R"({"either":1,"maybe":null,"flag_or_text":1})")}));
    e.push_back(strict<zoo::node>("node", {json(R"({"name":"a","children":[{"name":"b","children":[]}]})")},
                                  {json(R"({"name":"a","children":[{"name":"b"}]})")}));
    e.push_back(strict<zoo::person>("person", {json(R"({"name":"a","teams":[{"title":"t","members":[]}]})")},
                                    {json(R"({"name":"a","teams":[{"title":"t"}]})")}));
    e.push_back(strict<zoo::order>(
        "order",
        {json(R"({"id":"ABC-1","quantity":1,"price":1,"note":null,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":""},"sizes":[],"step":0,"port":2000})"),
         // minLength is not part of the strict form: an empty note passes it
         json(R"({"id":"ABC-1","quantity":1,"price":1,"note":"","tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":""},"sizes":[],"step":0,"port":2000})")},
        {json(R"({"id":"ABC-1","quantity":1,"price":1,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":""},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"ABC-1","quantity":1000,"price":1,"note":null,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":""},"sizes":[],"step":0,"port":2000})"),
         json(R"({"id":"x","quantity":1,"price":1,"note":null,"tags":["a"],"email":"a@b.c","when":"2024-07-26",)"
              R"("hue":"red","label":{"label":""},"sizes":[],"step":0,"port":2000})")}));
    e.push_back(strict<zoo::two_items>("two_items", {json(R"({"bought":{"sku":"s"},"found":{"power":3},"boxed":{"value":1}})")},
                                       {json(R"({"bought":{"sku":"s"},"found":{"power":3}})")}));
    check_all(e);
}

TEST_CASE("json_schema: strict forms follow OpenAI's rules on every sub-schema") {
    std::vector<expectation> e;
    e.push_back({"integers", check_strict_rules<zoo::integers>(), {}, {}});
    e.push_back({"scalars", check_strict_rules<zoo::scalars>(), {}, {}});
    e.push_back({"optionals", check_strict_rules<zoo::optionals>(), {}, {}});
    e.push_back({"variants", check_strict_rules<zoo::variants>(), {}, {}});
    e.push_back({"node", check_strict_rules<zoo::node>(), {}, {}});
    e.push_back({"forest", check_strict_rules<zoo::forest>(), {}, {}});
    e.push_back({"person", check_strict_rules<zoo::person>(), {}, {}});
    e.push_back({"derived", check_strict_rules<zoo::derived>(), {}, {}});
    e.push_back({"empty", check_strict_rules<zoo::empty>(), {}, {}});
    e.push_back({"with_set", check_strict_rules<zoo::with_set>(), {}, {}});
    e.push_back({"d1", check_strict_rules<limits::d1>(), {}, {}});
    e.push_back({"enums_1000", check_strict_rules<limits::enums_1000>(), {}, {}});
    e.push_back({"chars_120000", check_strict_rules<limits::chars_120000>(), {}, {}});
    e.push_back({"large_enum_15000", check_strict_rules<limits::large_enum_15000>(), {}, {}});
    e.push_back({"two_items", check_strict_rules<zoo::two_items>(), {}, {}});
    e.push_back({"order", check_strict_rules<zoo::order>(), {}, {}});
    // and each is a valid draft 2020-12 schema
    check_all(e);
}

TEST_CASE("json_schema: the strict walker finds what breaks the rules") {
    // the checker itself, on hand-made schemas that break one rule each
    const auto problems = [](const char* text) {
        const value v = json(text);
        strict_walk walk(v.as_object());
        walk.schema(v, "#");
        return walk.problems.size();
    };
    CHECK(problems(R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false})") == 0);
    CHECK(problems(R"({"type":"object","properties":{"a":{"type":"string"}},"required":[],"additionalProperties":false})") == 1);
    CHECK(problems(R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"]})") == 1);
    CHECK(problems(R"({"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"],"additionalProperties":false})") == 1);
    CHECK(problems(R"({"type":"object","properties":{"a":{"type":"string","format":"uri"}},"required":["a"],"additionalProperties":false})") == 1);
    CHECK(problems(R"({"type":"object","properties":{"a":{"$ref":"#","description":"x"}},"required":["a"],"additionalProperties":false})") == 1);
    CHECK(problems(R"({"type":"object","properties":{"a":{"$ref":"#/$defs/none"}},"required":["a"],"additionalProperties":false})") == 1);
    CHECK(problems(R"({"type":"object","properties":{"a":{"type":"integer","default":1}},"required":["a"],"additionalProperties":false})") == 1);
    CHECK(problems(R"({"anyOf":[{"type":"object","properties":{},"required":[],"additionalProperties":false}]})") >= 1);
    CHECK(problems(R"({"type":"object","properties":{"a":{"type":"object","properties":{},"required":[]}}, "required":["a"],"additionalProperties":false})") == 1);
}

TEST_CASE("json_schema: the plain form's shape") {
    const value s = parley::json_schema<zoo::optionals>();
    // optional members are not required; the others are, in declaration order
    CHECK(s.at("required") == json(R"(["holes","plain"])"));
    CHECK(s.at("additionalProperties") == value(false));
    // an optional member has its value's schema (not nullable); an optional item is nullable
    CHECK(s.at("properties").at("count") == json(R"({"type":"integer","minimum":-2147483648,"maximum":2147483647})"));
    CHECK(s.at("properties").at("holes").at("items") ==
          json(R"({"anyOf":[{"type":"integer","minimum":-2147483648,"maximum":2147483647},{"type":"null"}]})"));
    // a described member with a description: $ref with a sibling description (fine in 2020-12)
    CHECK(s.at("properties").at("extra") == json(R"({"$ref":"#/$defs/leaf","description":"Something more"})"));
    // enum: the member's description, then the described enumerators
    CHECK(s.at("properties").at("hue") ==
          json(R"({"type":"string","description":"The hue, if known\n- red: warm\n- blue: cold","enum":["red","green","blue"]})"));

    // a variant is anyOf its alternatives (std::monostate is null); boost::json::value is any
    // JSON, the empty schema
    const value v = parley::json_schema<zoo::variants>();
    CHECK(v.at("properties").at("either") ==
          json(R"({"anyOf":[{"type":"integer","minimum":-2147483648,"maximum":2147483647},{"type":"string"}]})"));
    CHECK(v.at("properties").at("maybe") == json(R"({"anyOf":[{"type":"null"},{"type":"number"},{"$ref":"#/$defs/leaf"}]})"));
    const value j = parley::json_schema<zoo::with_json>();
    CHECK(j.at("properties").at("payload") == json("{}"));
    CHECK(j.at("properties").at("meta") == json(R"({"type":"object","additionalProperties":{}})"));

    const value c = parley::json_schema<zoo::containers>();
    CHECK(c.at("properties").at("triple") == json(R"({"type":"array","items":{"type":"string"},"minItems":3,"maxItems":3})"));
    CHECK(c.at("properties").at("unique").at("uniqueItems") == value(true));
    CHECK(c.at("properties").at("prices") == json(R"({"type":"object","additionalProperties":{"type":"number"}})"));

    // $defs names: the annotated name, else the unqualified C++ name; clashes get a suffix;
    // template arguments are folded into the name
    const value t = parley::json_schema<zoo::two_items>();
    CHECK(t.at("properties").at("bought") == json(R"({"$ref":"#/$defs/item"})"));
    CHECK(t.at("properties").at("found") == json(R"({"$ref":"#/$defs/item_2"})"));
    CHECK(t.at("properties").at("boxed") == json(R"({"$ref":"#/$defs/box_int"})"));
    CHECK(t.at("$defs").at("item_2").at("properties").as_object().contains("power"));

    // mutual recursion: both structs in $defs except the root, which is "#"
    const value p = parley::json_schema<zoo::person>();
    CHECK(p.at("$defs").as_object().size() == 1);
    CHECK(p.at("$defs").at("team").at("properties").at("members").at("items") == json(R"({"$ref":"#"})"));

    const value o = parley::json_schema<zoo::order>();
    CHECK(o.at("description") == "A customer order");
    CHECK(o.at("properties").at("quantity") ==
          json(R"({"type":"integer","description":"How many","minimum":1,"maximum":100,"default":1})"));
    CHECK(o.at("properties").at("price") ==
          json(R"({"type":"number","description":"Unit price","maximum":1000000.0,"exclusiveMinimum":0,"examples":[9.99,10]})"));
    CHECK(o.at("properties").at("tags").at("default") == json(R"(["new"])"));
    CHECK(o.at("properties").at("hue").at("default") == "green");
    // an annotated bound wider than the type keeps the type's bound
    CHECK(o.at("properties").at("port").at("maximum") == 65535);
    CHECK(o.at("$defs").at("leaf").at("description") == "A labelled leaf");
}

TEST_CASE("json_schema: the strict form's shape") {
    const value s = parley::strict_json_schema<zoo::optionals>();
    CHECK(s.at("required") == json(R"(["count","note","hue","list","holes","extra","plain"])"));
    CHECK(s.at("properties").at("count") ==
          json(R"({"anyOf":[{"type":"integer","minimum":-2147483648,"maximum":2147483647},{"type":"null"}]})"));
    CHECK(s.at("properties").at("extra") == json(R"({"anyOf":[{"$ref":"#/$defs/leaf"},{"type":"null"}],"description":"Something more"})"));
    CHECK(!s.as_object().contains("$schema"));

    // a described member with its own description: the definition written in place
    const value o = parley::strict_json_schema<zoo::order>();
    CHECK(o.at("properties").at("label") ==
          json(R"({"type":"object","description":"What is written on the box","properties":{"label":{"type":"string"}},)"
               R"("required":["label"],"additionalProperties":false})"));
    // left out: default, examples, minLength, maxLength; kept: pattern, format (date, email), bounds, items
    CHECK(o.at("properties").at("id") == json(R"({"type":"string","description":"Order identifier","pattern":"^[A-Z]{3}-[0-9]+$"})"));
    CHECK(o.at("properties").at("note") == json(R"({"anyOf":[{"type":"string"},{"type":"null"}],"description":"For the courier"})"));
    CHECK(o.at("properties").at("when").at("format") == "date");
    CHECK(o.at("properties").at("tags") == json(R"({"type":"array","items":{"type":"string"},"minItems":1,"maxItems":5})"));
    CHECK(o.at("properties").at("step") ==
          json(R"({"type":"integer","minimum":-50,"maximum":50,"multipleOf":5})"));

    // optional<variant> is one flat anyOf
    const value v = parley::strict_json_schema<zoo::variants>();
    CHECK(v.at("properties").at("flag_or_text") == json(R"({"anyOf":[{"type":"boolean"},{"type":"string"},{"type":"null"}]})"));
    // std::set is a plain array in strict mode (uniqueItems is not accepted)
    const value w = parley::strict_json_schema<zoo::with_set>();
    CHECK(w.at("properties").at("ids") == json(R"({"type":"array","items":{"type":"integer","minimum":0,"maximum":65535}})"));
    CHECK(parley::json_schema<zoo::with_set>().at("properties").at("ids").at("uniqueItems") == value(true));
}

// The schemas are returned by reference to one value per type, parsed once.
static_assert(std::is_same_v<decltype(parley::json_schema<zoo::node>()), const value&>);
static_assert(std::is_same_v<decltype(parley::strict_json_schema<zoo::node>()), const value&>);

TEST_CASE("json_schema: the value is parsed once, every call returns it, and a copy can be changed") {
    const value& first = parley::json_schema<zoo::node>();
    CHECK(&parley::json_schema<zoo::node>() == &first);
    CHECK(&parley::strict_json_schema<zoo::node>() == &parley::strict_json_schema<zoo::node>());
    CHECK(&parley::strict_json_schema<zoo::node>() != &first);
    value a = parley::json_schema<zoo::node>();  // callers that copy still can
    a.as_object()["type"] = "changed";
    const value b = parley::json_schema<zoo::node>();
    CHECK(b.at("type") == "object");
    CHECK(boost::json::serialize(b) == parley::json_schema_text<zoo::node>);
    CHECK(boost::json::serialize(parley::strict_json_schema<zoo::node>()) == parley::strict_json_schema_text<zoo::node>);
}

}  // namespace
