// parley/schema/detail/annotation_check.hpp: compile-time checks of PARLEY_ANNOTATE against
// the annotated type (names exist, constraints fit the member types, defaults and examples
// have the right JSON type).
#ifndef PARLEY_SCHEMA_DETAIL_ANNOTATION_CHECK_HPP
#define PARLEY_SCHEMA_DETAIL_ANNOTATION_CHECK_HPP

#include <parley/config.hpp>
#include <parley/fixed_string.hpp>
#include <parley/schema/detail/annotation_types.hpp>
#include <parley/schema/traits.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <limits>
#include <string_view>

namespace parley::detail {

/// True for a name OpenAI accepts for a function or a response format: ^[a-zA-Z0-9_-]{1,64}$.
constexpr bool is_valid_function_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > 64) return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

/// Compares two numeric literals: negative, zero or positive like a <=> b. Exact for
/// integers; through double when one of them is floating point.
constexpr int compare_numbers(const json_literal& a, const json_literal& b) noexcept {
    using k = json_literal::kind;
    if (a.type != k::number && b.type != k::number) {
        const bool a_negative = a.type == k::integer && a.integer < 0;
        const bool b_negative = b.type == k::integer && b.integer < 0;
        if (a_negative != b_negative) return a_negative ? -1 : 1;
        if (a_negative) return a.integer < b.integer ? -1 : a.integer > b.integer ? 1 : 0;
        const std::uint64_t x = a.type == k::integer ? static_cast<std::uint64_t>(a.integer) : a.unsigned_integer;
        const std::uint64_t y = b.type == k::integer ? static_cast<std::uint64_t>(b.integer) : b.unsigned_integer;
        return x < y ? -1 : x > y ? 1 : 0;
    }
    const double x = a.as_double();
    const double y = b.as_double();
    return x < y ? -1 : x > y ? 1 : 0;
}

/// The smallest and largest values of an integer type, as literals.
template <class I>
constexpr json_literal integer_min() noexcept {
    if constexpr (std::is_signed_v<I>)
        return json_literal(static_cast<std::int64_t>(std::numeric_limits<I>::min()));
    else
        return json_literal(std::int64_t{0});
}
template <class I>
constexpr json_literal integer_max() noexcept {
    if constexpr (std::is_signed_v<I>)
        return json_literal(static_cast<std::int64_t>(std::numeric_limits<I>::max()));
    else
        return json_literal(static_cast<std::uint64_t>(std::numeric_limits<I>::max()));
}

/// The enumerator of E named name, if there is one.
template <class E>
constexpr bool is_enumerator_name(std::string_view name) noexcept {
    bool found = false;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
        if (c_string(d.name) == name) found = true;
    });
    return found;
}

template <class X>
constexpr bool literal_fits(const json_literal& l) noexcept;

template <class... Ts>
constexpr bool literal_fits_one_of(boost::mp11::mp_list<Ts...>, const json_literal& l) noexcept {
    return (literal_fits<Ts>(l) || ...);
}

/// Whether a literal is a value of type X in JSON (raw JSON text is taken on trust).
template <class X>
constexpr bool literal_fits(const json_literal& l) noexcept {
    using k = json_literal::kind;
    constexpr json_kind kind = json_kind_v<X>;
    if (l.type == k::raw || kind == json_kind::any) return true;
    if constexpr (kind == json_kind::optional) {
        return l.type == k::null || literal_fits<typename optional_traits<X>::value_type>(l);
    } else if constexpr (kind == json_kind::variant) {
        return literal_fits_one_of(typename variant_traits<X>::alternatives{}, l);
    } else if constexpr (kind == json_kind::null) {
        return l.type == k::null;
    } else if constexpr (kind == json_kind::boolean) {
        return l.type == k::boolean;
    } else if constexpr (kind == json_kind::integer) {
        return (l.type == k::integer || l.type == k::unsigned_integer) && compare_numbers(l, integer_min<X>()) >= 0 &&
               compare_numbers(l, integer_max<X>()) <= 0;
    } else if constexpr (kind == json_kind::number) {
        return l.is_number();
    } else if constexpr (kind == json_kind::string) {
        return l.type == k::string;
    } else if constexpr (kind == json_kind::enumeration) {
        return l.type == k::string && is_enumerator_name<X>(l.text);
    } else {
        return false;  // arrays, maps and structs take raw JSON only
    }
}

template <class T>
struct unwrap_optional {
    using type = T;
};
template <class T>
struct unwrap_optional<std::optional<T>> {
    using type = T;
};
/// T without one level of std::optional.
template <class T>
using unwrap_optional_t = typename unwrap_optional<T>::type;

/// A member's name as a template argument, so that compilers show it in error messages.
template <std::size_t N>
constexpr fixed_string<N> name_argument(const char* name) {
    fixed_string<N> s;
    for (std::size_t i = 0; i != N; ++i) s.data[i] = name[i];
    return s;
}

/// Checks the annotation of one member of type M (named Member, for error messages).
template <class M, fixed_string Member>
constexpr void check_member_annotation(const annotation& a) {
    using V = unwrap_optional_t<M>;
    constexpr json_kind kind = json_kind_v<V>;
    if (a.has_name()) annotation_error("name(...) names a struct or an enum, not a member");
    if (a.has_number_constraint()) {
        if (kind != json_kind::integer && kind != json_kind::number)
            annotation_error("minimum/maximum/exclusive_minimum/exclusive_maximum/multiple_of apply to numbers only");
        if (a.minimum.is_set() && a.maximum.is_set() && compare_numbers(a.minimum, a.maximum) > 0)
            annotation_error("minimum is greater than maximum");
        if (a.multiple_of.is_set() && a.multiple_of.as_double() <= 0)
            annotation_error("multiple_of must be greater than zero");
    }
    if (a.has_string_constraint()) {
        if (kind != json_kind::string)
            annotation_error("min_length/max_length/pattern/format apply to strings only");
        if (a.min_length != annotation::unset && a.max_length != annotation::unset && a.min_length > a.max_length)
            annotation_error("min_length is greater than max_length");
        if ((a.has_pattern() && a.pattern.empty()) || (a.has_format() && a.format.empty()))
            annotation_error("pattern and format must not be empty");
    }
    if (a.has_array_constraint()) {
        if (kind != json_kind::array) annotation_error("min_items/max_items apply to arrays only");
        if (is_std_array_v<V>) annotation_error("a std::array has a fixed size: min_items/max_items do not apply");
        if (a.min_items != annotation::unset && a.max_items != annotation::unset && a.min_items > a.max_items)
            annotation_error("min_items is greater than max_items");
    }
    auto check_value = [&](const json_literal& v) {
        if (!literal_fits<M>(v))
            annotation_error("a default or example does not have the member's type (or is not one of an enum's names)");
        if (v.is_number()) {
            if (a.minimum.is_set() && compare_numbers(v, a.minimum) < 0) annotation_error("a default or example is below minimum");
            if (a.maximum.is_set() && compare_numbers(v, a.maximum) > 0) annotation_error("a default or example is above maximum");
        }
    };
    if (a.default_value.is_set()) check_value(a.default_value);
    for (std::size_t i = 0; i != a.example_count; ++i) check_value(a.examples[i]);
}

/// Annotations of a type itself may only describe and name it.
constexpr void check_type_annotation(const annotation& a) {
    if (a.has_number_constraint() || a.has_string_constraint() || a.has_array_constraint() || a.has_value_annotation())
        annotation_error("a struct or enum itself takes only a description and name(...); constraints go on members");
    if (a.has_name() && !is_valid_function_name(a.name))
        annotation_error("name(...) must match ^[a-zA-Z0-9_-]{1,64}$");
}

/// Checks the annotations of a described struct; true when they are right (a compile error
/// otherwise, when evaluated as a constant).
template <class S>
constexpr bool check_struct_annotations() {
    constexpr auto& notes = annotations_v<S>;
    check_type_annotation(notes.self);
    for (const auto& entry : notes.members) {
        bool found = false;
        boost::mp11::mp_for_each<described_members<S>>([&](auto d) {
            if (c_string(d.name) == entry.member) found = true;
        });
        if (!found) annotation_error("PARLEY_ANNOTATE names a member that BOOST_DESCRIBE_STRUCT does not list");
    }
    boost::mp11::mp_for_each<described_members<S>>([&](auto d) {
        using D = decltype(d);
        constexpr auto member = name_argument<std::string_view(D::name).size()>(D::name);
        if (const annotation* a = notes.find(c_string(D::name))) check_member_annotation<member_type_t<S, D>, member>(*a);
    });
    return true;
}

/// Checks the annotations of a described enum (enumerators take only a description).
template <class E>
constexpr bool check_enum_annotations() {
    constexpr auto& notes = annotations_v<E>;
    check_type_annotation(notes.self);
    for (const auto& entry : notes.members) {
        if (!is_enumerator_name<E>(entry.member))
            annotation_error("PARLEY_ANNOTATE names an enumerator that BOOST_DESCRIBE_ENUM does not list");
        const annotation& a = entry.note;
        if (a.has_name() || a.has_number_constraint() || a.has_string_constraint() || a.has_array_constraint() ||
            a.has_value_annotation())
            annotation_error("an enumerator takes only a description");
    }
    return true;
}

template <class T>
inline constexpr bool struct_annotations_checked_v = check_struct_annotations<T>();
template <class T>
inline constexpr bool enum_annotations_checked_v = check_enum_annotations<T>();

}  // namespace parley::detail

#endif
