// Tests of parley/schema/annotations.hpp: PARLEY_ANNOTATE, the annotation values, and the
// compile-time checks of annotations against the annotated types.
//
// A mistake in an annotation is a compile error (a static_assert per kind of mistake, see
// json_schema_compile_test.cpp for the messages). Here the mistakes are written with
// PARLEY_DETAIL_ANNOTATIONS, which is PARLEY_ANNOTATE without its checks, and the fault each
// check finds is compared with the expected one, without failing the build.
#include <parley/schema/annotations.hpp>

#include <parley/schema/json_schema.hpp>

#include "../harness/schema_check.hpp"

#include <doctest/doctest.h>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

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
PARLEY_DETAIL_ANNOTATIONS(pattern_on_int, (x, pattern("^[0-9]+$")))

struct minimum_on_string {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(minimum_on_string, (), (s))
PARLEY_DETAIL_ANNOTATIONS(minimum_on_string, (s, minimum(1)))

struct items_on_fixed_array {
    std::array<int, 3> a;
};
BOOST_DESCRIBE_STRUCT(items_on_fixed_array, (), (a))
PARLEY_DETAIL_ANNOTATIONS(items_on_fixed_array, (a, max_items(2)))

struct items_on_string {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(items_on_string, (), (s))
PARLEY_DETAIL_ANNOTATIONS(items_on_string, (s, min_items(1)))

struct default_of_wrong_type {
    int x;
};
BOOST_DESCRIBE_STRUCT(default_of_wrong_type, (), (x))
PARLEY_DETAIL_ANNOTATIONS(default_of_wrong_type, (x, default_value("three")))

struct default_out_of_type_range {
    unsigned char x;
};
BOOST_DESCRIBE_STRUCT(default_out_of_type_range, (), (x))
PARLEY_DETAIL_ANNOTATIONS(default_out_of_type_range, (x, default_value(256)))

struct example_below_minimum {
    int x;
};
BOOST_DESCRIBE_STRUCT(example_below_minimum, (), (x))
PARLEY_DETAIL_ANNOTATIONS(example_below_minimum, (x, minimum(0), examples(1, -1)))

struct unknown_enum_default {
    level l;
};
BOOST_DESCRIBE_STRUCT(unknown_enum_default, (), (l))
PARLEY_DETAIL_ANNOTATIONS(unknown_enum_default, (l, default_value("medium")))

struct null_default_for_required {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(null_default_for_required, (), (s))
PARLEY_DETAIL_ANNOTATIONS(null_default_for_required, (s, default_value(nullptr)))

struct unknown_member {
    int x;
    int not_described;
};
BOOST_DESCRIBE_STRUCT(unknown_member, (), (x))
PARLEY_DETAIL_ANNOTATIONS(unknown_member, (not_described, "not in BOOST_DESCRIBE_STRUCT"))

struct name_on_member {
    int x;
};
BOOST_DESCRIBE_STRUCT(name_on_member, (), (x))
PARLEY_DETAIL_ANNOTATIONS(name_on_member, (x, name("y")))

struct bounds_crossed {
    int x;
};
BOOST_DESCRIBE_STRUCT(bounds_crossed, (), (x))
PARLEY_DETAIL_ANNOTATIONS(bounds_crossed, (x, minimum(5), maximum(4)))

struct lengths_crossed {
    std::string s;
};
BOOST_DESCRIBE_STRUCT(lengths_crossed, (), (s))
PARLEY_DETAIL_ANNOTATIONS(lengths_crossed, (s, min_length(5), max_length(4)))

struct constraint_on_struct {
    int x;
};
BOOST_DESCRIBE_STRUCT(constraint_on_struct, (), (x))
PARLEY_DETAIL_ANNOTATIONS(constraint_on_struct, "fine", minimum(1))

struct invalid_type_name {
    int x;
};
BOOST_DESCRIBE_STRUCT(invalid_type_name, (), (x))
PARLEY_DETAIL_ANNOTATIONS(invalid_type_name, name("not valid"))

struct annotated_twice {
    int x;
};
BOOST_DESCRIBE_STRUCT(annotated_twice, (), (x))
PARLEY_DETAIL_ANNOTATIONS(annotated_twice, (x, "one"), (x, "two"))

struct two_descriptions {
    int x;
};
BOOST_DESCRIBE_STRUCT(two_descriptions, (), (x))
PARLEY_DETAIL_ANNOTATIONS(two_descriptions, (x, "one", description("two")))

struct second_entry_wrong {
    int a;
    int b;
};
BOOST_DESCRIBE_STRUCT(second_entry_wrong, (), (a, b))
PARLEY_DETAIL_ANNOTATIONS(second_entry_wrong, "fine", (a, maximum(3)), (b, maximum(3), default_value(4)))

struct infinite_bound {
    double x;
};
BOOST_DESCRIBE_STRUCT(infinite_bound, (), (x))
PARLEY_DETAIL_ANNOTATIONS(infinite_bound, (x, maximum(__builtin_inf())))

struct not_described {
    int x;
};
PARLEY_DETAIL_ANNOTATIONS(not_described, "no BOOST_DESCRIBE_STRUCT")

enum class bad_enum_entry { a, b };
BOOST_DESCRIBE_ENUM(bad_enum_entry, a, b)
PARLEY_DETAIL_ANNOTATIONS(bad_enum_entry, (c, "no such enumerator"))

enum class constrained_enumerator { a, b };
BOOST_DESCRIBE_ENUM(constrained_enumerator, a, b)
PARLEY_DETAIL_ANNOTATIONS(constrained_enumerator, (a, "fine", minimum(1)))

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

// Mistakes in values are recorded as faults, which the checks report.
using fault = parley::detail::annotation_fault;
static_assert(json("{\"a\": [true, false, -1.5e3]}").fault == fault::none);
static_assert(json("[1,").fault == fault::raw_not_json);
static_assert(json("{a: 1}").fault == fault::raw_not_json);
static_assert(json("1 2").fault == fault::raw_not_json);
static_assert(json_literal(1e308).fault == fault::none);
static_assert(json_literal(__builtin_inf()).fault == fault::not_finite);
static_assert(json_literal(__builtin_nan("")).fault == fault::not_finite);
static_assert(json_literal(static_cast<nt::level>(7)).fault == fault::enum_value_unnamed);

static_assert(parley::detail::make_member_annotation("x", "text", pattern("a"), max_length(3)).note.max_length == 3);
static_assert(parley::detail::make_member_annotation("x", "text").note.description == "text");
static_assert(parley::detail::make_member_annotation("x", "text", pattern("a")).note.first_fault() == fault::none);
static_assert(examples(1, "two", 3.5, nullptr).example_count == 4);
static_assert(parley::detail::make_member_annotation("x", pattern("a"), pattern("b")).note.first_fault() == fault::given_twice);
static_assert(parley::detail::make_member_annotation("x", "a", "b").note.first_fault() == fault::given_twice);
static_assert(parley::detail::make_member_annotation("x", examples(1), examples(2)).note.first_fault() == fault::given_twice);
static_assert(minimum("not a number").first_fault() == fault::bound_not_number);
static_assert(range(1, "ten").first_fault() == fault::bound_not_number);
static_assert(default_value(json("[")).first_fault() == fault::raw_not_json);
static_assert(examples(1, 2.0, __builtin_inf()).first_fault() == fault::not_finite);
static_assert(parley::detail::make_member_annotation("x", "text", maximum(__builtin_nan(""))).note.first_fault() ==
              fault::not_finite);

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
static_assert(parley::detail::check_annotations<nt::ticket>());
static_assert(parley::detail::check_annotations<nt::level>());
static_assert(parley::detail::check_annotations<int>());

// ---------------------------------------------------------------------------------------------
// Mistakes are found, in the order written, with the member they concern

template <class T>
constexpr parley::detail::annotation_report report = parley::detail::annotation_report_of<T>();

template <class T>
constexpr bool reports(fault f, std::string_view member) {
    return report<T>.fault == f && report<T>.member == member;
}

static_assert(reports<nt::ticket>(fault::none, ""));
static_assert(reports<nt::level>(fault::none, ""));
static_assert(reports<nt::unannotated>(fault::none, ""));
static_assert(reports<nt::pattern_on_int>(fault::strings_only, "x"));
static_assert(reports<nt::minimum_on_string>(fault::numbers_only, "s"));
static_assert(reports<nt::items_on_fixed_array>(fault::fixed_size_array, "a"));
static_assert(reports<nt::items_on_string>(fault::arrays_only, "s"));
static_assert(reports<nt::default_of_wrong_type>(fault::value_of_wrong_type, "x"));
static_assert(reports<nt::default_out_of_type_range>(fault::value_of_wrong_type, "x"));
static_assert(reports<nt::example_below_minimum>(fault::value_below_minimum, "x"));
static_assert(reports<nt::unknown_enum_default>(fault::value_of_wrong_type, "l"));
static_assert(reports<nt::null_default_for_required>(fault::value_of_wrong_type, "s"));
static_assert(reports<nt::unknown_member>(fault::unknown_member, "not_described"));
static_assert(reports<nt::name_on_member>(fault::name_on_member, "x"));
static_assert(reports<nt::bounds_crossed>(fault::minimum_above_maximum, "x"));
static_assert(reports<nt::lengths_crossed>(fault::min_length_above_max_length, "s"));
static_assert(reports<nt::constraint_on_struct>(fault::constraint_on_type, ""));
static_assert(reports<nt::invalid_type_name>(fault::invalid_name, ""));
static_assert(reports<nt::annotated_twice>(fault::annotated_twice, "x"));
static_assert(reports<nt::two_descriptions>(fault::given_twice, "x"));
static_assert(reports<nt::bad_enum_entry>(fault::unknown_enumerator, "c"));
static_assert(reports<nt::constrained_enumerator>(fault::constraint_on_enumerator, "a"));
static_assert(reports<nt::second_entry_wrong>(fault::value_above_maximum, "b"));
static_assert(reports<nt::infinite_bound>(fault::not_finite, "x"));
static_assert(reports<nt::not_described>(fault::not_described, ""));

// ---------------------------------------------------------------------------------------------
// The annotations in the schema

TEST_CASE("annotations: every kind reaches the schema") {
    const boost::json::value s = parley::json_schema<nt::ticket>();
    const auto& p = s.at("properties");
    CHECK(s.at("description") == "A support ticket");
    CHECK(p.at("title") == boost::json::parse(R"({"type":"string","description":"Short summary","minLength":3,"maxLength":80})"));
    CHECK(p.at("priority") == boost::json::parse(R"({"type":"integer","minimum":1,"maximum":5,"default":3,"examples":[1,5]})"));
    // an optional member whose default is null accepts null, so that its default validates
    CHECK(p.at("owner") ==
          boost::json::parse(R"({"anyOf":[{"type":"string","format":"email"},{"type":"null"}],"default":null})"));
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
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":1,"owner":"nobody"})"),
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":1,"owner":null})"),
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":1,"owner":"a@example.com"})")}},
        {"strict ticket", parley::strict_json_schema<nt::ticket>(),
         {json(R"({"title":"Printer","priority":5,"owner":null,"labels":[],"urgency":"low","score":9.5})"),
          json(R"({"title":"Printer","priority":5,"labels":[],"urgency":"low","score":9.5})")}},
        {"assembly", parley::json_schema<nt::assembly>(),
         {json(R"({"parts":[{"number":1}],"effort":"high"})"), json(R"({"parts":[{}],"effort":"high"})")}},
    });
    REQUIRE(results.size() == 3);
    for (const auto& r : results) {
        CHECK_MESSAGE(!r.schema_error, r.name, ": ", r.schema_error.value_or(""));
        // every default and example validates against the schema that carries it
        for (const auto& e : r.annotation_errors) FAIL_CHECK(r.name << ": default or example does not validate: " << e);
    }
    const std::vector<std::vector<bool>> expected = {
        {true, false, false, false, false, false, true, true}, {true, false}, {true, false}};
    for (std::size_t i = 0; i != results.size(); ++i) {
        CAPTURE(results[i].name);
        CHECK(results[i].valid == expected[i]);
    }
}

}  // namespace
