// parley/schema/json_schema.hpp: the JSON Schema (draft 2020-12) of C++ types, plain and in
// OpenAI's strict structured-outputs form, built by the compiler.
// See docs/extraction.md, "Plain and strict schemas" and "The schema as a compile-time constant".
#ifndef PARLEY_SCHEMA_JSON_SCHEMA_HPP
#define PARLEY_SCHEMA_JSON_SCHEMA_HPP

#include <parley/config.hpp>
#include <parley/schema/annotations.hpp>
#include <parley/schema/detail/schema_writer.hpp>
#include <parley/schema/traits.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace parley {

/// OpenAI's documented limits on a strict schema; a strict schema beyond one does not compile.
struct openai_strict_limits {
    static constexpr std::size_t max_properties = 5000;  ///< object properties, over the whole schema
    static constexpr std::size_t max_depth = 10;  ///< levels of object nesting (the root is level 1)
    static constexpr std::size_t max_enum_values = 1000;  ///< enum values, over the whole schema
    static constexpr std::size_t max_string_chars = 120000;  ///< total characters of names and enum values
    static constexpr std::size_t large_enum_values = 250;  ///< more values than this make a large enum
    static constexpr std::size_t max_large_enum_chars = 15000;  ///< characters of one large enum's values
};

namespace detail {

template <class X>
struct cannot_describe {
    static_assert(sizeof(X) == 0,
                  "parley cannot describe this type (named in the instantiation notes) in JSON: use bool, an "
                  "integer type, float/double, std::string(_view), an enum described with BOOST_DESCRIBE_ENUM, "
                  "std::optional, std::vector/deque/list, std::array, std::set, std::map<std::string, T>, "
                  "std::variant, boost::json::value, or a struct described with BOOST_DESCRIBE_STRUCT");
};
template <>
struct cannot_describe<void> {};

template <class X>
struct cannot_be_strict {
    static_assert(sizeof(X) == 0,
                  "this type (named in the instantiation notes) has no OpenAI strict form: strict mode needs "
                  "additionalProperties: false on every object, so std::map and boost::json::value cannot be "
                  "expressed; use a std::vector of a described key/value struct, or json_schema<T>() (not strict)");
};
template <>
struct cannot_be_strict<void> {};

/// True for the types a strict schema cannot express: std::map (OpenAI needs
/// additionalProperties: false on every object) and boost::json::value (any JSON).
template <class T>
using has_no_strict_form = std::bool_constant<json_kind_v<T> == json_kind::map || json_kind_v<T> == json_kind::any>;

/// The first type inside T (members of described structs included) with no strict form, or void.
template <class T>
using strict_offender_t = first_offender_t<has_no_strict_form, T>;

/// Whether the strict text of T can be generated at all (limits aside).
template <class T>
inline constexpr bool strict_expressible_v =
    describable<T> && json_kind_v<T> == json_kind::object && std::is_void_v<strict_offender_t<T>>;

template <class T, bool Strict>
inline constexpr bool schema_generable_v = Strict ? strict_expressible_v<T> : describable<T>;

struct schema_info {
    std::size_t size = 0;
    schema_stats stats;
};

template <class T, bool Strict>
constexpr schema_info generate_schema(char* out) {
    schema_info info;
    if constexpr (schema_generable_v<T, Strict>) {
        text_buffer text;
        info.stats = schema_writer<T, Strict>(text).run();
        info.size = text.size();
        if (out != nullptr)
            for (char c : text.view()) *out++ = c;
    }
    return info;
}

template <class T, bool Strict>
inline constexpr schema_info schema_info_v = generate_schema<T, Strict>(nullptr);

template <class T, bool Strict>
inline constexpr auto schema_chars_v = [] {
    std::array<char, schema_info_v<T, Strict>.size + 1> chars{};
    generate_schema<T, Strict>(chars.data());
    return chars;
}();

template <class T, bool Strict>
inline constexpr std::string_view schema_text_v{schema_chars_v<T, Strict>.data(), schema_info_v<T, Strict>.size};

template <class T>
constexpr void require_describable() {
    (void)sizeof(cannot_describe<first_unsupported_t<T>>);
}

template <class T>
constexpr std::string_view checked_json_schema_text() {
    require_describable<T>();
    return schema_text_v<T, false>;
}

/// True when a strict schema with these counts is within every limit of openai_strict_limits.
constexpr bool fits_openai_limits(const schema_stats& s) noexcept {
    return s.properties <= openai_strict_limits::max_properties && s.depth <= openai_strict_limits::max_depth &&
           s.enum_values <= openai_strict_limits::max_enum_values &&
           s.string_chars <= openai_strict_limits::max_string_chars &&
           s.large_enum_chars <= openai_strict_limits::max_large_enum_chars;
}

/// A compile error naming each limit of openai_strict_limits that a strict schema with the
/// counts S exceeds.
template <schema_stats S>
constexpr void require_openai_limits() {
    static_assert(S.properties <= openai_strict_limits::max_properties,
                  "OpenAI strict mode allows at most 5000 object properties in a schema");
    static_assert(S.depth <= openai_strict_limits::max_depth,
                  "OpenAI strict mode allows at most 10 levels of object nesting");
    static_assert(S.enum_values <= openai_strict_limits::max_enum_values,
                  "OpenAI strict mode allows at most 1000 enum values in a schema");
    static_assert(S.string_chars <= openai_strict_limits::max_string_chars,
                  "OpenAI strict mode allows at most 120,000 characters of property names, definition "
                  "names and enum values");
    static_assert(S.large_enum_chars <= openai_strict_limits::max_large_enum_chars,
                  "OpenAI strict mode allows at most 15,000 characters in an enum of more than 250 values");
}

template <class T>
constexpr std::string_view checked_strict_json_schema_text() {
    require_describable<T>();
    if constexpr (describable<T>) {
        static_assert(json_kind_v<T> == json_kind::object,
                      "a strict (OpenAI structured outputs) schema needs a struct described with "
                      "BOOST_DESCRIBE_STRUCT at the root: OpenAI requires an object root that is not anyOf; "
                      "wrap the value in a struct");
        if constexpr (json_kind_v<T> == json_kind::object) {
            (void)sizeof(cannot_be_strict<strict_offender_t<T>>);
            require_openai_limits<schema_info_v<T, true>.stats>();
        }
    }
    return schema_text_v<T, true>;
}

/// Parses schema text made by this library (deeper than Boost.JSON's default depth allows).
inline boost::json::value parse_schema_text(std::string_view text) {
    boost::json::parse_options options;
    options.max_depth = 100000;
    return boost::json::parse(boost::json::string_view(text.data(), text.size()), {}, options);
}

}  // namespace detail

/// True when T has a strict schema: T is a described struct, contains no std::map and no
/// boost::json::value, and its schema stays within OpenAI's limits.
template <class T>
concept strict_describable =
    detail::strict_expressible_v<std::remove_cvref_t<T>> &&
    detail::fits_openai_limits(detail::schema_info_v<std::remove_cvref_t<T>, true>.stats);

/// The text of json_schema<T>() as a compile-time constant (compact JSON). A type that cannot
/// be described is a compile error that names it.
template <class T>
inline constexpr std::string_view json_schema_text = detail::checked_json_schema_text<std::remove_cvref_t<T>>();

/// The text of strict_json_schema<T>() as a compile-time constant (compact JSON). Compile errors
/// say why T has no strict form, if it has none.
template <class T>
inline constexpr std::string_view strict_json_schema_text =
    detail::checked_strict_json_schema_text<std::remove_cvref_t<T>>();

/// What the strict schema of T counts against OpenAI's limits (a compile-time constant).
template <class T>
inline constexpr schema_stats strict_json_schema_stats = ((void)detail::checked_strict_json_schema_text<std::remove_cvref_t<T>>(),
                                                          detail::schema_info_v<std::remove_cvref_t<T>, true>.stats);

/// The JSON Schema (draft 2020-12) of T: a value parsed from json_schema_text<T> on the first
/// call (once per type and program, thread-safe), which every call returns; copy it to change
/// it. A type that cannot be described is a compile error that names it.
/// @throws std::bad_alloc on the first call only.
template <class T>
const boost::json::value& json_schema() {
    static const boost::json::value schema = detail::parse_schema_text(json_schema_text<T>);
    return schema;
}

/// The OpenAI strict structured-outputs schema of T (a described struct), parsed once from
/// strict_json_schema_text<T>, like json_schema<T>(). Compile errors say why T has no strict
/// form, if it has none.
/// @throws std::bad_alloc on the first call only.
template <class T>
const boost::json::value& strict_json_schema() {
    static const boost::json::value schema = detail::parse_schema_text(strict_json_schema_text<T>);
    return schema;
}

}  // namespace parley

#endif
