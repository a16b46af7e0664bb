// parley/schema/annotations.hpp: PARLEY_ANNOTATE, descriptions and constraints attached to types
// described with Boost.Describe, and the annotation functions of parley::annotate.
// See docs/extraction.md, "Annotations".
#ifndef PARLEY_SCHEMA_ANNOTATIONS_HPP
#define PARLEY_SCHEMA_ANNOTATIONS_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/annotation_check.hpp>
#include <parley/schema/detail/annotation_types.hpp>

#include <boost/preprocessor/punctuation/is_begin_parens.hpp>
#include <boost/preprocessor/seq/enum.hpp>
#include <boost/preprocessor/seq/transform.hpp>
#include <boost/preprocessor/variadic/to_seq.hpp>

/// Attaches descriptions and constraints to T, a type described with BOOST_DESCRIBE_STRUCT or
/// BOOST_DESCRIBE_ENUM: write it after that line, at namespace scope in T's namespace, before T
/// is used with parley. Written anywhere else, or with a mistake, it is a compile error that
/// says so.
#define PARLEY_ANNOTATE(T, ...)                                                                        \
    PARLEY_DETAIL_ANNOTATIONS(T, __VA_ARGS__)                                                          \
    [[maybe_unused]] inline void parley_annotations_check(T const*) {                                  \
        static_assert(::parley::detail::annotations_found<T>(),                                        \
                      "PARLEY_ANNOTATE(" #T ", ...) is written where parley does not look for it: write it " \
                      "at namespace scope in the namespace that declares " #T ", after its "            \
                      "BOOST_DESCRIBE_STRUCT or BOOST_DESCRIBE_ENUM, and before " #T " is used with parley"); \
        /* ambiguous when another PARLEY_ANNOTATE of T is visible from elsewhere */                   \
        static_cast<void>(parley_annotations(static_cast<T const*>(nullptr)));                         \
        [[maybe_unused]] constexpr bool checked = ::parley::detail::check_annotations<T>();            \
    }

/// The function PARLEY_ANNOTATE defines, without its checks (for the tests of the checks).
#define PARLEY_DETAIL_ANNOTATIONS(T, ...)                                                              \
    [[maybe_unused]] constexpr auto parley_annotations(T const*) {                                     \
        using namespace ::parley::annotate;                                                            \
        return ::parley::detail::make_annotations<T>(BOOST_PP_SEQ_ENUM(                                \
            BOOST_PP_SEQ_TRANSFORM(PARLEY_DETAIL_ANNOTATION_ENTRY, ~, BOOST_PP_VARIADIC_TO_SEQ(__VA_ARGS__)))); \
    }

#define PARLEY_DETAIL_ANNOTATION_ENTRY(s, data, entry) \
    BOOST_PP_IIF(BOOST_PP_IS_BEGIN_PARENS(entry), PARLEY_DETAIL_MEMBER_ENTRY, PARLEY_DETAIL_TYPE_ENTRY)(entry)
#define PARLEY_DETAIL_TYPE_ENTRY(entry) ::parley::detail::to_annotation(entry)
#define PARLEY_DETAIL_MEMBER_ENTRY(entry) PARLEY_DETAIL_MEMBER_ENTRY_I entry
#define PARLEY_DETAIL_MEMBER_ENTRY_I(member, ...) ::parley::detail::make_member_annotation(#member __VA_OPT__(, ) __VA_ARGS__)

namespace parley::annotate {

/// The description (same as a plain string in PARLEY_ANNOTATE).
constexpr annotation description(std::string_view text) {
    annotation a;
    a.description = text;
    return a;
}

/// Another name for a struct or enum: its key in $defs and the default name of its function
/// signature. Must match ^[a-zA-Z0-9_-]{1,64}$.
constexpr annotation name(std::string_view text) {
    annotation a;
    a.name = text;
    return a;
}

/// Inclusive lower bound of a number (`minimum`).
constexpr annotation minimum(json_literal bound) {
    annotation a;
    a.minimum = detail::require_number(bound);
    return a;
}
/// Inclusive upper bound of a number (`maximum`).
constexpr annotation maximum(json_literal bound) {
    annotation a;
    a.maximum = detail::require_number(bound);
    return a;
}
/// Both inclusive bounds of a number.
constexpr annotation range(json_literal low, json_literal high) {
    annotation a;
    a.minimum = detail::require_number(low);
    a.maximum = detail::require_number(high);
    return a;
}
/// Exclusive lower bound of a number (`exclusiveMinimum`).
constexpr annotation exclusive_minimum(json_literal bound) {
    annotation a;
    a.exclusive_minimum = detail::require_number(bound);
    return a;
}
/// Exclusive upper bound of a number (`exclusiveMaximum`).
constexpr annotation exclusive_maximum(json_literal bound) {
    annotation a;
    a.exclusive_maximum = detail::require_number(bound);
    return a;
}
/// The number must be a multiple of this (positive) one (`multipleOf`).
constexpr annotation multiple_of(json_literal step) {
    annotation a;
    a.multiple_of = detail::require_number(step);
    return a;
}

/// Shortest length of a string, in characters (`minLength`).
constexpr annotation min_length(std::size_t n) {
    annotation a;
    a.min_length = n;
    return a;
}
/// Longest length of a string, in characters (`maxLength`).
constexpr annotation max_length(std::size_t n) {
    annotation a;
    a.max_length = n;
    return a;
}
/// A regular expression (ECMA-262) the string must match somewhere (`pattern`); anchor it with
/// ^...$ to match the whole string.
constexpr annotation pattern(std::string_view regex) {
    annotation a;
    a.pattern = regex;
    return a;
}
/// A format name (`format`): date-time, date, time, duration, email, hostname, ipv4, ipv6,
/// uuid, uri...
constexpr annotation format(std::string_view name) {
    annotation a;
    a.format = name;
    return a;
}

/// Fewest items of an array (`minItems`).
constexpr annotation min_items(std::size_t n) {
    annotation a;
    a.min_items = n;
    return a;
}
/// Most items of an array (`maxItems`).
constexpr annotation max_items(std::size_t n) {
    annotation a;
    a.max_items = n;
    return a;
}

/// The value assumed when the member is absent (`default`). A number, string, bool, nullptr,
/// an enumerator of a described enum, or raw JSON text from json(...).
constexpr annotation default_value(json_literal value) {
    annotation a;
    a.default_value = value;
    return a;
}

/// Example values (`examples`), of the same kinds as default_value.
template <class... Ts>
constexpr annotation examples(const Ts&... values) {
    static_assert(sizeof...(Ts) >= 1, "examples(...) needs at least one value");
    static_assert(sizeof...(Ts) <= annotation::max_examples, "examples(...) takes at most 16 values");
    annotation a;
    ((a.examples[a.example_count++] = json_literal(values)), ...);
    return a;
}

/// Raw JSON text, for a default or an example that is an array or an object:
/// `default_value(json("[]"))`. Checked at compile time.
constexpr json_literal json(std::string_view text) { return json_literal::raw(text); }

}  // namespace parley::annotate

#endif
