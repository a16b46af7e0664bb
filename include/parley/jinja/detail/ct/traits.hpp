// parley/jinja/detail/ct/traits.hpp: what the generated code knows of C++ types: printable values,
// sequences, elements, what reading or printing a type may raise.
#ifndef PARLEY_JINJA_DETAIL_CT_TRAITS_HPP
#define PARLEY_JINJA_DETAIL_CT_TRAITS_HPP

#include <parley/jinja/detail/ct/scope.hpp>

namespace parley::jinja::detail::ct {

// ---- types --------------------------------------------------------------------------------------

template <class T>
using plain_t = std::remove_cvref_t<T>;

template <class T>
constexpr bool is_unknown = std::is_same_v<plain_t<T>, unknown_t>;

template <class T>
constexpr bool is_text = std::is_convertible_v<const T&, std::string_view> && !std::is_pointer_v<T> &&
                         !std::is_array_v<T> && !std::is_same_v<T, std::nullptr_t>;

template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
                        !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t> &&
                        !std::is_same_v<T, wchar_t> && (std::is_signed_v<T> || sizeof(T) < sizeof(std::int64_t));

template <class T>
constexpr bool is_json = std::is_same_v<T, boost::json::value> || std::is_same_v<T, boost::json::object> ||
                         std::is_same_v<T, boost::json::array> || std::is_same_v<T, boost::json::string>;

/// A typed value the generated code prints and tests (loop itself is only read through its
/// attributes).
template <class T>
constexpr bool is_value = !std::is_same_v<T, unknown_t> && !is_json<T> && !std::is_same_v<T, loop_info> &&
                          !is_typed_namespace<T>::value && !is_item_of<T>::value;

/// A sequence the generated code iterates: a range that is not a string, a mapping or JSON.
template <class T>
constexpr bool is_sequence = is_range<T>::value && !is_text<T> && !is_string_map<T>::value && !is_described_struct<T> &&
                             !is_json<T> && !has_view_traits<T>;

/// The element type of a sequence.
template <class Seq>
using elem_t = plain_t<decltype(*std::begin(std::declval<const Seq&>()))>;

template <class T>
using members_of = boost::describe::describe_members<T, boost::describe::mod_public | boost::describe::mod_inherited>;

// The generated code computes with 64-bit integers, and leaves to the run-time engine the
// templates that read a value it does not represent (an unsigned integer beyond the signed
// 64-bit range, a big integer there) or whose reads may raise an error (JSON, types with
// view_traits of their own). The only errors it raises itself are a read past the end of a
// sequence and tojson of a value JSON cannot hold (raise_at, with the run-time engine's message
// and position); a render whose integer arithmetic passes 64 bits is done again by the run-time
// engine, which only templates with such arithmetic carry (may_compute_big_int): the run-time
// engine is not even instantiated for the other templates that take the generated path.

/// Reading a T (a member, an element, a variable) may give a value the generated code does not
/// represent, or raise an error, in the run-time engine.
template <class T>
constexpr bool raises_on_read() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        return std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t);
    } else if constexpr (is_optional<T>::value) {
        return raises_on_read<typename T::value_type>();
    } else if constexpr (is_variant<T>::value) {
        return []<class... A>(std::type_identity<std::variant<A...>>) {
            return (raises_on_read<A>() || ...);
        }(std::type_identity<T>{});
    } else {
        return is_json<T> || has_view_traits<T>;
    }
}

/// Printing a T (Python's str of a list, a dict, an object) may raise: it reads everything
/// inside. Seen lists the types being visited (a recursive type adds nothing new).
template <class T, class... Seen>
constexpr bool raises_when_printed() {
    if constexpr ((std::is_same_v<T, Seen> || ...)) {
        return false;
    } else if constexpr (raises_on_read<T>()) {
        return true;
    } else if constexpr (is_optional<T>::value) {
        return raises_when_printed<typename T::value_type, T, Seen...>();
    } else if constexpr (is_variant<T>::value) {
        return []<class... A>(std::type_identity<std::variant<A...>>) {
            return (raises_when_printed<A, T, Seen...>() || ...);
        }(std::type_identity<T>{});
    } else if constexpr (is_described_struct<T>) {
        return []<template <class...> class L, class... D>(L<D...>) {
            return (raises_when_printed<plain_t<decltype(std::declval<const T&>().*D::pointer)>, T, Seen...>() || ...);
        }(members_of<T>{});
    } else if constexpr (is_string_map<T>::value) {
        return raises_when_printed<typename T::mapped_type, T, Seen...>();
    } else if constexpr (is_range<T>::value && !is_text<T>) {
        return raises_when_printed<plain_t<decltype(*std::begin(std::declval<const T&>()))>, T, Seen...>();
    } else {
        return false;
    }
}

inline constexpr std::size_t no_member = static_cast<std::size_t>(-1);

template <class T>
constexpr std::size_t member_index(std::string_view name) {
    std::size_t found = no_member, k = 0;
    boost::mp11::mp_for_each<members_of<T>>([&](auto d) {
        if (found == no_member && name == std::string_view(d.name)) found = k;
        ++k;
    });
    return found;
}

/// Reading member M of T (a member index, or no_member) may raise an error in the run-time engine.
template <class T, std::size_t M>
constexpr bool member_raises_on_read() {
    if constexpr (M == no_member) return false;
    else return raises_on_read<plain_t<decltype(std::declval<const T&>().*boost::mp11::mp_at_c<members_of<T>, M>::pointer)>>();
}

constexpr bool is_dict_method_name(std::string_view n) {
    constexpr std::string_view names[] = {"clear", "copy", "fromkeys", "get",    "items", "keys",
                                          "pop",   "popitem", "setdefault", "update", "values"};
    for (std::string_view m : names)
        if (m == n) return true;
    return false;
}

/// Names of the plain environment's global functions and the names the engine gives a meaning.
constexpr bool is_global_name(std::string_view n) {
    constexpr std::string_view names[] = {"range",  "dict",    "namespace", "cycler", "joiner",
                                          "lipsum", "loop",    "caller",    "varargs", "kwargs"};
    for (std::string_view m : names)
        if (m == n) return true;
    return false;
}

}  // namespace parley::jinja::detail::ct

#endif
