// Tests of parley/schema/annotations.hpp: PARLEY_ANNOTATE, the annotation values, and the
// compile-time checks of annotations against the annotated types.
//
// A mistake in an annotation is a compile error. Those errors are tested here without failing
// the build: `constant<F>` says whether F() is a constant expression, which it is not when an
// annotation check calls the (non-constexpr) error function.
#include <parley/schema/annotations.hpp>

#include <parley/schema/json_schema.hpp>

#include "../support/schema_check.hpp"

#include <doctest/doctest.h>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

template <auto F>
concept constant = requires { typename std::bool_constant<(F(), true)>; };

namespace notes_test {

enum class level { low, high };
BOOST_DESCRIBE_ENUM(level, low, high)
PARLEY_ANNOTATE(level, "How much", name("Level"), (low, "a little"), (high, "a lot"))

struct ticket {
    std::string title;
    int priority;
    std::optional<std::string> owner;
    std::vector<std::string> labels;
    level urgency;
    double score;
};
BOOST_DESCRIBE_STRUCT(ticket, (), (title, priority, owner, labels, urgency, score))
PARLEY_ANNOTATE(ticket, "A support ticket",
                (title, "Short summary", min_length(3), max_length(80)),
                (priority, range(1, 5), default_value(3), examples(1, 5)),
                (owner, format("email"), default_value(nullptr)),
                (labels, max_items(10), default_value(json("[]"))),
                (urgency, default_value(level::high), examples("low")),
                (score, parley::annotate::multiple_of(0.5), exclusive_maximum(10.0)))

struct part {
    int number;
};
BOOST_DESCRIBE_STRUCT(part, (), (number))
PARLEY_ANNOTATE(part, "A spare part", name("SparePart"))

struct assembly {
    std::vector<part> parts;
    level effort;
};
BOOST_DESCRIBE_STRUCT(assembly, (), (parts, effort))

struct unannotated {
    int x;
};
BOOST_DESCRIBE_STRUCT(unannotated, (), (x))

// Each of these has one mistake.
struct pattern_on_int {
    int x;
};
BOOST_DESCRIBE_STRUCT(pattern_on_int, (), (x))
PARLEY_ANNOTATE(pattern_on_int, (x, pattern("^[0-9]+$")))

struct minimum_on_string {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(minimum_on_string, (), (s))
PARLEY_ANNOTATE(minimum_on_string, (s, minimum(1)))

struct items_on_fixed_array {
    std::array<int, 3> a;
};
BOOST_DESCRIBE_STRUCT(items_on_fixed_array, (), (a))
PARLEY_ANNOTATE(items_on_fixed_array, (a, max_items(2)))

struct items_on_string {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(items_on_string, (), (s))
PARLEY_ANNOTATE(items_on_string, (s, min_items(1)))

struct default_of_wrong_type {
    int x;
};
BOOST_DESCRIBE_STRUCT(default_of_wrong_type, (), (x))
PARLEY_ANNOTATE(default_of_wrong_type, (x, default_value("three")))

struct default_out_of_type_range {
    unsigned char x;
};
BOOST_DESCRIBE_STRUCT(default_out_of_type_range, (), (x))
PARLEY_ANNOTATE(default_out_of_type_range, (x, default_value(256)))

struct example_below_minimum {
    int x;
};
BOOST_DESCRIBE_STRUCT(example_below_minimum, (), (x))
PARLEY_ANNOTATE(example_below_minimum, (x, minimum(0), examples(1, -1)))

struct unknown_enum_default {
    level l;
};
BOOST_DESCRIBE_STRUCT(unknown_enum_default, (), (l))
PARLEY_ANNOTATE(unknown_enum_default, (l, default_value("medium")))

struct null_default_for_required {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(null_default_for_required, (), (s))
PARLEY_ANNOTATE(null_default_for_required, (s, default_value(nullptr)))

struct unknown_member {
    int x;
    int not_described;
};
BOOST_DESCRIBE_STRUCT(unknown_member, (), (x))
PARLEY_ANNOTATE(unknown_member, (not_described, "not in BOOST_DESCRIBE_STRUCT"))

struct name_on_member {
    int x;
};
BOOST_DESCRIBE_STRUCT(name_on_member, (), (x))
PARLEY_ANNOTATE(name_on_member, (x, name("y")))

struct bounds_crossed {
    int x;
};
BOOST_DESCRIBE_STRUCT(bounds_crossed, (), (x))
PARLEY_ANNOTATE(bounds_crossed, (x, minimum(5), maximum(4)))

struct lengths_crossed {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(lengths_crossed, (), (s))
PARLEY_ANNOTATE(lengths_crossed, (s, min_length(5), max_length(4)))

struct constraint_on_struct {
    int x;
};
BOOST_DESCRIBE_STRUCT(constraint_on_struct, (), (x))
PARLEY_ANNOTATE(constraint_on_struct, "fine", minimum(1))

struct invalid_type_name {
    int x;
};
BOOST_DESCRIBE_STRUCT(invalid_type_name, (), (x))
PARLEY_ANNOTATE(invalid_type_name, name("not valid"))

struct annotated_twice {
    int x;
};
BOOST_DESCRIBE_STRUCT(annotated_twice, (), (x))
PARLEY_ANNOTATE(annotated_twice, (x, "one"), (x, "two"))

struct two_descriptions {
    int x;
};
BOOST_DESCRIBE_STRUCT(two_descriptions, (), (x))
PARLEY_ANNOTATE(two_descriptions, (x, "one", description("two")))

enum class bad_enum_entry { a, b };
BOOST_DESCRIBE_ENUM(bad_enum_entry, a, b)
PARLEY_ANNOTATE(bad_enum_entry, (c, "no such enumerator"))

enum class constrained_enumerator { a, b };
BOOST_DESCRIBE_ENUM(constrained_enumerator, a, b)
PARLEY_ANNOTATE(constrained_enumerator, (a, "fine", minimum(1)))

}  // namespace notes_test

namespace {

namespace nt = notes_test;
using namespace parley::annotate;
using parley::json_literal;

// ---------------------------------------------------------------------------------------------
// Values

static_assert(json_literal(3).type == json_literal::kind::integer);
static_assert(json_literal(3u).type == json_literal::kind::unsigned_integer);
static_assert(json_literal(2.5).type == json_literal::kind::number);
static_assert(json_literal(true).type == json_literal::kind::boolean);
static_assert(json_literal(nullptr).type == json_literal::kind::null);
static_assert(json_literal("x").type == json_literal::kind::string);
static_assert(json_literal(nt::level::high).text == "high");
static_assert(json("[1, {\"a\": null}]").type == json_literal::kind::raw);
static_assert(constant<[] { return json("{\"a\": [true, false, -1.5e3]}"); }>);
static_assert(!constant<[] { return json("[1,"); }>);
static_assert(!constant<[] { return json("{a: 1}"); }>);
static_assert(!constant<[] { return json("1 2"); }>);
static_assert(constant<[] { return json_literal(1e308); }>);
static_assert(!constant<[] { return json_literal(__builtin_inf()); }>);
static_assert(!constant<[] { return json_literal(__builtin_nan("")); }>);

static_assert(parley::detail::make_member_annotation("x", "text", pattern("a"), max_length(3)).note.max_length == 3);
static_assert(parley::detail::make_member_annotation("x", "text").note.description == "text");
static_assert(examples(1, "two", 3.5, nullptr).example_count == 4);
static_assert(!constant<[] { return parley::detail::make_member_annotation("x", pattern("a"), pattern("b")); }>);
static_assert(!constant<[] { return parley::detail::make_member_annotation("x", "a", "b"); }>);
static_assert(!constant<[] { return parley::detail::make_member_annotation("x", examples(1), examples(2)); }>);
static_assert(!constant<[] { return minimum("not a number"); }>);

// ---------------------------------------------------------------------------------------------
// PARLEY_ANNOTATE, found next to the type through argument-dependent lookup

constexpr auto& ticket_notes = parley::detail::annotations_v<nt::ticket>;
static_assert(ticket_notes.self.description == "A support ticket");
static_assert(ticket_notes.members.size() == 6);
static_assert(ticket_notes.find("title")->description == "Short summary");
static_assert(ticket_notes.find("title")->min_length == 3);
static_assert(ticket_notes.find("priority")->minimum.integer == 1);
static_assert(ticket_notes.find("priority")->maximum.integer == 5);
static_assert(ticket_notes.find("priority")->example_count == 2);
static_assert(ticket_notes.find("owner")->default_value.type == json_literal::kind::null);
static_assert(ticket_notes.find("score")->multiple_of.number == 0.5);
static_assert(ticket_notes.find("nothing") == nullptr);
static_assert(parley::detail::annotations_v<nt::level>.self.name == "Level");
static_assert(parley::detail::annotations_v<nt::level>.find("high")->description == "a lot");
static_assert(parley::detail::annotations_v<nt::unannotated>.members.empty());
static_assert(!parley::detail::annotations_v<nt::unannotated>.self.has_description());
static_assert(!parley::detail::has_annotations<int>);
static_assert(parley::detail::check_struct_annotations<nt::ticket>());
static_assert(parley::detail::check_enum_annotations<nt::level>());

// ---------------------------------------------------------------------------------------------
// Mistakes are compile errors

template <class T>
constexpr bool struct_notes_ok = constant<[] { return parley::detail::check_struct_annotations<T>(); }>;
template <class T>
constexpr bool enum_notes_ok = constant<[] { return parley::detail::check_enum_annotations<T>(); }>;
template <class T>
constexpr bool notes_build = constant<[] { return parley::detail::annotations_of_impl<T>().members.size(); }>;

static_assert(struct_notes_ok<nt::unannotated>);
static_assert(!struct_notes_ok<nt::pattern_on_int>);
static_assert(!struct_notes_ok<nt::minimum_on_string>);
static_assert(!struct_notes_ok<nt::items_on_fixed_array>);
static_assert(!struct_notes_ok<nt::items_on_string>);
static_assert(!struct_notes_ok<nt::default_of_wrong_type>);
static_assert(!struct_notes_ok<nt::default_out_of_type_range>);
static_assert(!struct_notes_ok<nt::example_below_minimum>);
static_assert(!struct_notes_ok<nt::unknown_enum_default>);
static_assert(!struct_notes_ok<nt::null_default_for_required>);
static_assert(!struct_notes_ok<nt::unknown_member>);
static_assert(!struct_notes_ok<nt::name_on_member>);
static_assert(!struct_notes_ok<nt::bounds_crossed>);
static_assert(!struct_notes_ok<nt::lengths_crossed>);
static_assert(!struct_notes_ok<nt::constraint_on_struct>);
static_assert(!struct_notes_ok<nt::invalid_type_name>);
static_assert(notes_build<nt::unannotated>);
static_assert(notes_build<nt::pattern_on_int>);
static_assert(!notes_build<nt::annotated_twice>);
static_assert(!notes_build<nt::two_descriptions>);
static_assert(enum_notes_ok<nt::level>);
static_assert(!enum_notes_ok<nt::bad_enum_entry>);
static_assert(!enum_notes_ok<nt::constrained_enumerator>);

// ---------------------------------------------------------------------------------------------
// The annotations in the schema

TEST_CASE("annotations: every kind reaches the schema") {
    const boost::json::value s = parley::json_schema<nt::ticket>();
    const auto& p = s.at("properties");
    CHECK(s.at("description") == "A support ticket");
    CHECK(p.at("title") == boost::json::parse(R"({"type":"string","description":"Short summary","minLength":3,"maxLength":80})"));
    CHECK(p.at("priority") == boost::json::parse(R"({"type":"integer","minimum":1,"maximum":5,"default":3,"examples":[1,5]})"));
    CHECK(p.at("owner") == boost::json::parse(R"({"type":"string","format":"email","default":null})"));
    CHECK(p.at("labels") == boost::json::parse(R"({"type":"array","items":{"type":"string"},"maxItems":10,"default":[]})"));
    CHECK(p.at("urgency") ==
          boost::json::parse(R"({"type":"string","description":"How much\n- low: a little\n- high: a lot",)"
                             R"("enum":["low","high"],"default":"high","examples":["low"]})"));
    CHECK(p.at("score") == boost::json::parse(R"({"type":"number","exclusiveMaximum":10.0,"multipleOf":0.5})"));
}

TEST_CASE("annotations: a renamed enum is still inline; a renamed struct is named in $defs") {
    const boost::json::value s = parley::json_schema<nt::assembly>();
    CHECK(s.at("properties").at("parts").at("items") == boost::json::parse(R"({"$ref":"#/$defs/SparePart"})"));
    CHECK(s.at("$defs").as_object().size() == 1);
    CHECK(s.at("$defs").at("SparePart").at("description") == "A spare part");
    CHECK(s.at("properties").at("effort").at("enum") == boost::json::parse(R"(["low","high"])"));
    CHECK(!s.at("$defs").as_object().contains("Level"));
    // an unrenamed struct keeps its C++ name
    const boost::json::value t = parley::json_schema<std::vector<nt::ticket>>();
    CHECK(t.at("items") == boost::json::parse(R"({"$ref":"#/$defs/ticket"})"));
}

TEST_CASE("annotations: annotated schemas are valid draft 2020-12 schemas that check what they say") {
    using schema_check::json;
    const auto results = schema_check::run({
        {"ticket", parley::json_schema<nt::ticket>(),
         {json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":9.5})"),
          json(R"({"title":"No","priority":5,"labels":[],"urgency":"low","score":9.5})"),
          json(R"({"title":"Printer","priority":6,"labels":[],"urgency":"low","score":9.5})"),
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":9.25})"),
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":10})"),
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":1,"owner":"nobody"})")}},
        {"strict ticket", parley::strict_json_schema<nt::ticket>(),
         {json(R"({"title":"Printer","priority":5,"owner":null,"labels":[],"urgency":"low","score":9.5})"),
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":9.5})")}},
        {"assembly", parley::json_schema<nt::assembly>(),
         {json(R"({"parts":[{"number":1}],"effort":"high"})"), json(R"({"parts":[{}],"effort":"high"})")}},
    });
    REQUIRE(results.size() == 3);
    for (const auto& r : results) CHECK_MESSAGE(!r.schema_error, r.name, ": ", r.schema_error.value_or(""));
    const std::vector<std::vector<bool>> expected = {
        {true, false, false, false, false, false}, {true, false}, {true, false}};
    for (std::size_t i = 0; i != results.size(); ++i) {
        CAPTURE(results[i].name);
        CHECK(results[i].valid == expected[i]);
    }
}

}  // namespace
