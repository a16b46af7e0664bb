// parley/schema/traits.hpp: how the schema layer (schemas, from_json, to_json, parse_commands)
// classifies C++ types, and the concept describable.
// See docs/extraction.md, "Supported types and their schemas" (the table of types).
#ifndef PARLEY_SCHEMA_TRAITS_HPP
#define PARLEY_SCHEMA_TRAITS_HPP

#include <parley/config.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace parley::detail {

// ---------------------------------------------------------------------------------------------
// Scalars

/// True for integer types that hold numbers: every integral type except bool and the
/// character types (char, wchar_t, char8_t, char16_t, char32_t).
template <class T>
inline constexpr bool is_integer_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> && !std::is_same_v<T, wchar_t> &&
    !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t>;

/// True for float, double and long double.
template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T>;

/// True for std::string and std::string_view.
template <class T>
inline constexpr bool is_string_like_v = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>;

/// True for boost::json::value (any JSON value).
template <class T>
inline constexpr bool is_json_value_v = std::is_same_v<T, boost::json::value>;

/// True for std::monostate (null inside a variant).
template <class T>
inline constexpr bool is_monostate_v = std::is_same_v<T, std::monostate>;

// ---------------------------------------------------------------------------------------------
// Described types

/// True for an enum described with BOOST_DESCRIBE_ENUM.
template <class T>
inline constexpr bool is_described_enum_v = std::is_enum_v<T> && boost::describe::has_describe_enumerators<T>::value;

/// True for a class described with BOOST_DESCRIBE_STRUCT or BOOST_DESCRIBE_CLASS.
template <class T>
inline constexpr bool is_described_struct_v =
    std::is_class_v<T> && !std::is_union_v<T> && boost::describe::has_describe_members<T>::value;

/// The modifiers the schema layer reads members with: public members, inherited ones included.
inline constexpr unsigned member_modifiers = boost::describe::mod_public | boost::describe::mod_inherited;

/// The member descriptors of a described struct (an mp11 list).
template <class T>
using described_members = boost::describe::describe_members<T, member_modifiers>;

/// The type of the member a descriptor D of struct T points to, without cv-qualifiers.
template <class T, class D>
using member_type_t = std::remove_cvref_t<decltype(std::declval<T&>().*D::pointer)>;

// ---------------------------------------------------------------------------------------------
// Wrappers and containers

template <class T>
struct optional_traits : std::false_type {};
template <class T>
struct optional_traits<std::optional<T>> : std::true_type {
    using value_type = T;
};
/// True for std::optional<T>.
template <class T>
inline constexpr bool is_optional_v = optional_traits<T>::value;

template <class T>
struct sequence_traits : std::false_type {};
template <class T, class A>
struct sequence_traits<std::vector<T, A>> : std::true_type {
    using value_type = T;
};
template <class T, class A>
struct sequence_traits<std::deque<T, A>> : std::true_type {
    using value_type = T;
};
template <class T, class A>
struct sequence_traits<std::list<T, A>> : std::true_type {
    using value_type = T;
};
/// True for std::vector, std::deque and std::list (an array of any length). std::vector<bool> is
/// included.
template <class T>
inline constexpr bool is_sequence_v = sequence_traits<T>::value;

template <class T>
struct std_array_traits : std::false_type {};
template <class T, std::size_t N>
struct std_array_traits<std::array<T, N>> : std::true_type {
    using value_type = T;
    static constexpr std::size_t size = N;
};
/// True for std::array<T, N> (an array of exactly N items).
template <class T>
inline constexpr bool is_std_array_v = std_array_traits<T>::value;

template <class T>
struct set_traits : std::false_type {};
template <class T, class C, class A>
struct set_traits<std::set<T, C, A>> : std::true_type {
    using value_type = T;
};
template <class T, class H, class E, class A>
struct set_traits<std::unordered_set<T, H, E, A>> : std::true_type {
    using value_type = T;
};
/// True for std::set and std::unordered_set (an array of unique items).
template <class T>
inline constexpr bool is_set_v = set_traits<T>::value;

template <class T>
struct string_map_traits : std::false_type {};
template <class T, class C, class A>
struct string_map_traits<std::map<std::string, T, C, A>> : std::true_type {
    using mapped_type = T;
};
template <class T, class H, class E, class A>
struct string_map_traits<std::unordered_map<std::string, T, H, E, A>> : std::true_type {
    using mapped_type = T;
};
/// True for std::map and std::unordered_map with std::string keys (an object with arbitrary keys).
template <class T>
inline constexpr bool is_string_map_v = string_map_traits<T>::value;

template <class T>
struct variant_traits : std::false_type {};
template <class... Ts>
struct variant_traits<std::variant<Ts...>> : std::true_type {
    using alternatives = boost::mp11::mp_list<Ts...>;
};
/// True for std::variant<Ts...>.
template <class T>
inline constexpr bool is_variant_v = variant_traits<T>::value;

/// The item type of a sequence, std::array or set.
template <class T>
using array_item_t = typename std::conditional_t<is_sequence_v<T>, sequence_traits<T>,
                                                 std::conditional_t<is_std_array_v<T>, std_array_traits<T>, set_traits<T>>>::value_type;

/// True for every type that becomes a JSON array.
template <class T>
inline constexpr bool is_array_like_v = is_sequence_v<T> || is_std_array_v<T> || is_set_v<T>;

// ---------------------------------------------------------------------------------------------
// Classification

/// What a type becomes in JSON.
enum class json_kind {
    unsupported,  ///< none of the kinds below
    boolean,
    integer,
    number,
    string,
    enumeration,  ///< a described enum: one of its enumerator names
    optional,  ///< std::optional<T>
    array,  ///< sequence, std::array or set
    map,  ///< std::map<std::string, T>
    variant,  ///< std::variant<Ts...>
    object,  ///< a described struct
    any,  ///< boost::json::value
    null,  ///< std::monostate
};

template <class T>
constexpr json_kind classify() noexcept {
    if constexpr (std::is_same_v<T, bool>)
        return json_kind::boolean;
    else if constexpr (is_integer_v<T>)
        return json_kind::integer;
    else if constexpr (is_floating_v<T>)
        return json_kind::number;
    else if constexpr (is_string_like_v<T>)
        return json_kind::string;
    else if constexpr (is_described_enum_v<T>)
        return json_kind::enumeration;
    else if constexpr (is_optional_v<T>)
        return json_kind::optional;
    else if constexpr (is_array_like_v<T>)
        return json_kind::array;
    else if constexpr (is_string_map_v<T>)
        return json_kind::map;
    else if constexpr (is_variant_v<T>)
        return json_kind::variant;
    else if constexpr (is_json_value_v<T>)
        return json_kind::any;
    else if constexpr (is_monostate_v<T>)
        return json_kind::null;
    else if constexpr (is_described_struct_v<T>)
        return json_kind::object;
    else
        return json_kind::unsupported;
}

/// What T becomes in JSON (cv-qualifiers are not part of T).
template <class T>
inline constexpr json_kind json_kind_v = classify<T>();

// ---------------------------------------------------------------------------------------------
// The described structs a type reaches

// The types of kind `Want` (described structs, described enums) that appear in the type
// expression T, through optionals, arrays, maps and variants, without looking inside structs.
template <class T, json_kind Want, json_kind K = json_kind_v<T>>
struct direct_of_kind {
    using type = boost::mp11::mp_list<>;
};
template <class T, json_kind Want>
using direct_of_kind_t = typename direct_of_kind<T, Want>::type;
template <class T, json_kind Want>
struct direct_of_kind<T, Want, Want> {
    using type = boost::mp11::mp_list<T>;
};
template <class T, json_kind Want>
struct direct_of_kind<T, Want, json_kind::optional> {
    using type = direct_of_kind_t<typename optional_traits<T>::value_type, Want>;
};
template <class T, json_kind Want>
struct direct_of_kind<T, Want, json_kind::array> {
    using type = direct_of_kind_t<array_item_t<T>, Want>;
};
template <class T, json_kind Want>
struct direct_of_kind<T, Want, json_kind::map> {
    using type = direct_of_kind_t<typename string_map_traits<T>::mapped_type, Want>;
};
template <class... Ts, json_kind Want>
struct direct_of_kind<std::variant<Ts...>, Want, json_kind::variant> {
    using type = boost::mp11::mp_append<boost::mp11::mp_list<>, direct_of_kind_t<Ts, Want>...>;
};

// The described structs that appear in the type expression T, without looking inside them.
template <class T>
using direct_structs_t = direct_of_kind_t<T, json_kind::object>;

template <class T>
struct member_types_of {
    template <class D>
    using fn = member_type_t<T, D>;
};
/// The member types of a described struct (an mp11 list, in declaration order).
template <class T>
using member_types_t =
    boost::mp11::mp_rename<boost::mp11::mp_transform_q<member_types_of<T>, described_members<T>>, boost::mp11::mp_list>;

// The described structs one level down from struct T: those its member types name.
template <class T>
using member_structs_t =
    boost::mp11::mp_apply<boost::mp11::mp_append,
                          boost::mp11::mp_push_front<boost::mp11::mp_transform<direct_structs_t, member_types_t<T>>,
                                                     boost::mp11::mp_list<>>>;

template <class Todo, class Done>
struct struct_closure_impl;
template <class Done>
struct struct_closure_impl<boost::mp11::mp_list<>, Done> {
    using type = Done;
};
template <class H, class... R, class Done>
struct struct_closure_impl<boost::mp11::mp_list<H, R...>, Done> {
    using type = typename std::conditional_t<
        boost::mp11::mp_contains<Done, H>::value, struct_closure_impl<boost::mp11::mp_list<R...>, Done>,
        struct_closure_impl<boost::mp11::mp_append<boost::mp11::mp_list<R...>, member_structs_t<H>>,
                            boost::mp11::mp_push_back<Done, H>>>::type;
};

/// Every described struct T reaches, each once, in breadth-first order (T first when T is
/// itself a described struct). Recursive structs are fine: a struct already listed is not
/// entered again.
template <class T>
using struct_closure_t = typename struct_closure_impl<direct_structs_t<T>, boost::mp11::mp_list<>>::type;

// ---------------------------------------------------------------------------------------------
// Finding a type inside a type

// The first non-void type of the mp11 list L, or void.
template <class L>
using first_non_void_t = boost::mp11::mp_front<boost::mp11::mp_push_back<boost::mp11::mp_remove<L, void>, void>>;

// The first type inside the type expression T for which Offends<X>::value is true (T itself,
// then optional values, array items, map values and variant alternatives in order), or void.
// Described structs are not entered: their members are searched once per struct, below.
template <template <class> class Offends, class T, bool = Offends<T>::value, json_kind K = json_kind_v<T>>
struct first_offender_in {
    using type = void;
};
template <template <class> class Offends, class T>
using first_offender_in_t = typename first_offender_in<Offends, T>::type;
template <template <class> class Offends, class T, json_kind K>
struct first_offender_in<Offends, T, true, K> {
    using type = T;
};
template <template <class> class Offends, class T>
struct first_offender_in<Offends, T, false, json_kind::optional> {
    using type = first_offender_in_t<Offends, typename optional_traits<T>::value_type>;
};
template <template <class> class Offends, class T>
struct first_offender_in<Offends, T, false, json_kind::array> {
    using type = first_offender_in_t<Offends, array_item_t<T>>;
};
template <template <class> class Offends, class T>
struct first_offender_in<Offends, T, false, json_kind::map> {
    using type = first_offender_in_t<Offends, typename string_map_traits<T>::mapped_type>;
};
template <template <class> class Offends, class... Ts>
struct first_offender_in<Offends, std::variant<Ts...>, false, json_kind::variant> {
    using type = first_non_void_t<boost::mp11::mp_list<first_offender_in_t<Offends, Ts>...>>;
};

template <template <class> class Offends>
struct first_offender_in_q {
    template <class T>
    using fn = first_offender_in_t<Offends, T>;
};

template <template <class> class Offends>
struct first_offender_among_members_q {
    template <class S>
    using fn = first_non_void_t<boost::mp11::mp_transform_q<first_offender_in_q<Offends>, member_types_t<S>>>;
};

/// The first type inside T, members of the described structs T reaches included, for which
/// Offends<X>::value is true, or void: the type expression T is searched first, then the
/// members of each struct of struct_closure_t<T> in order. Error messages name this type, so
/// the culprit is named however deep it is.
template <template <class> class Offends, class T>
using first_offender_t = first_non_void_t<boost::mp11::mp_push_front<
    boost::mp11::mp_transform_q<first_offender_among_members_q<Offends>, struct_closure_t<T>>,
    first_offender_in_t<Offends, T>>>;

// ---------------------------------------------------------------------------------------------
// Describability

/// True for a type that has no JSON form (json_kind::unsupported).
template <class T>
using is_unsupported = std::bool_constant<json_kind_v<T> == json_kind::unsupported>;

/// The first type inside T (members of described structs included) that the schema layer
/// cannot describe, or void when T is describable. Error messages name it.
template <class T>
using first_unsupported_t = first_offender_t<is_unsupported, T>;

}  // namespace parley::detail

namespace parley {

/// True when T (and everything it contains, members of described structs included,
/// recursively) has a JSON form: see docs/extraction.md, "Supported types and their schemas".
/// References and cv-qualifiers are ignored.
template <class T>
concept describable = std::is_void_v<detail::first_unsupported_t<std::remove_cvref_t<T>>>;

}  // namespace parley

#endif
