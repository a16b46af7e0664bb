// parley/schema/detail/annotation_check.hpp: compile-time checks of PARLEY_ANNOTATE against
// the annotated type (names exist, constraints fit the member types, defaults and examples
// have the right JSON type). Each mistake is a static_assert of its own, so that the first
// error line of g++ and of clang++ says what is wrong.
#ifndef PARLEY_SCHEMA_DETAIL_ANNOTATION_CHECK_HPP
#define PARLEY_SCHEMA_DETAIL_ANNOTATION_CHECK_HPP

#include <parley/config.hpp>
#include <parley/fixed_string.hpp>
#include <parley/schema/detail/annotation_types.hpp>
#include <parley/schema/traits.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

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

/// The fault (if any) of the annotation of one member of type M.
template <class M>
constexpr annotation_fault member_fault(const annotation& a) {
    using k = annotation_fault;
    using V = unwrap_optional_t<M>;
    constexpr json_kind kind = json_kind_v<V>;
    if (a.has_name()) return k::name_on_member;
    if (a.has_number_constraint()) {
        if (kind != json_kind::integer && kind != json_kind::number) return k::numbers_only;
        if (a.minimum.is_set() && a.maximum.is_set() && compare_numbers(a.minimum, a.maximum) > 0)
            return k::minimum_above_maximum;
        if (a.multiple_of.is_set() && a.multiple_of.as_double() <= 0) return k::multiple_of_not_positive;
    }
    if (a.has_string_constraint()) {
        if (kind != json_kind::string) return k::strings_only;
        if (a.min_length != annotation::unset && a.max_length != annotation::unset && a.min_length > a.max_length)
            return k::min_length_above_max_length;
        if ((a.has_pattern() && a.pattern.empty()) || (a.has_format() && a.format.empty()))
            return k::empty_pattern_or_format;
    }
    if (a.has_array_constraint()) {
        if (kind != json_kind::array) return k::arrays_only;
        if (is_std_array_v<V>) return k::fixed_size_array;
        if (a.min_items != annotation::unset && a.max_items != annotation::unset && a.min_items > a.max_items)
            return k::min_items_above_max_items;
    }
    auto value_fault = [&](const json_literal& v) {
        if (!literal_fits<M>(v)) return k::value_of_wrong_type;
        if (v.is_number()) {
            if (a.minimum.is_set() && compare_numbers(v, a.minimum) < 0) return k::value_below_minimum;
            if (a.maximum.is_set() && compare_numbers(v, a.maximum) > 0) return k::value_above_maximum;
        }
        return k::none;
    };
    annotation_fault f = k::none;
    if (a.default_value.is_set()) f = value_fault(a.default_value);
    for (std::size_t i = 0; i != a.example_count && f == k::none; ++i) f = value_fault(a.examples[i]);
    return f;
}

/// The fault (if any) of the annotations of a type itself: only a description and a name.
constexpr annotation_fault type_fault(const annotation& a) {
    if (a.has_number_constraint() || a.has_string_constraint() || a.has_array_constraint() || a.has_value_annotation())
        return annotation_fault::constraint_on_type;
    if (a.has_name() && !is_valid_function_name(a.name)) return annotation_fault::invalid_name;
    return annotation_fault::none;
}

/// The position of the entry of `member` in `notes`, or the number of entries when it has none.
template <std::size_t N>
constexpr std::size_t entry_index(const type_annotations<N>& notes, std::string_view member) {
    std::size_t i = 0;
    while (i != N && notes.members[i].member != member) ++i;
    return i;
}

/// The first mistake in the annotations of a type, and the member or enumerator it concerns
/// ("" for the type itself).
struct annotation_report {
    annotation_fault fault = annotation_fault::none;
    std::string_view member;
};

/// The first mistake, in the order written, in the annotations of T (a described struct or
/// enum); none when T has no annotations.
template <class T>
constexpr annotation_report annotation_report_of() {
    using k = annotation_fault;
    if constexpr (!has_annotations<T>) {
        return {};
    } else if constexpr (!is_described_struct_v<T> && !is_described_enum_v<T>) {
        return {k::not_described, {}};
    } else {
        constexpr auto& notes = unchecked_annotations_v<T>;
        constexpr std::size_t n = notes.members.size();
        if (notes.fault != k::none) return {notes.fault, notes.fault_member};
        if (k f = notes.self.first_fault(); f != k::none) return {f, {}};
        if (k f = type_fault(notes.self); f != k::none) return {f, {}};
        // The faults of annotated members, by entry; only their types are looked at.
        std::array<k, n> member_faults{};
        std::array<bool, n> described{};
        if constexpr (is_described_struct_v<T>) {
            boost::mp11::mp_for_each<described_members<T>>([&](auto d) {
                using D = decltype(d);
                constexpr std::size_t i = entry_index(unchecked_annotations_v<T>, D::name);
                if constexpr (i != n) {
                    described[i] = true;
                    member_faults[i] = member_fault<member_type_t<T, D>>(unchecked_annotations_v<T>.members[i].note);
                }
            });
        }
        for (std::size_t i = 0; i != n; ++i) {
            const member_annotation& entry = notes.members[i];
            k f = entry.note.first_fault();
            if constexpr (is_described_struct_v<T>) {
                record_fault(f, described[i] ? member_faults[i] : k::unknown_member);
            } else {
                if (!is_enumerator_name<T>(entry.member)) record_fault(f, k::unknown_enumerator);
                const annotation& a = entry.note;
                if (a.has_name() || a.has_number_constraint() || a.has_string_constraint() || a.has_array_constraint() ||
                    a.has_value_annotation())
                    record_fault(f, k::constraint_on_enumerator);
            }
            if (f != k::none) return {f, entry.member};
        }
        return {};
    }
}

/// A compile error whose message says what the fault F is; T and Member (the member or
/// enumerator, empty for the type itself, as characters: both compilers show them readably) are
/// named in the instantiation notes. True for none.
template <class T, annotation_fault F, char... Member>
constexpr bool report_annotation_fault() {
    using k = annotation_fault;
    static_assert(F != k::not_finite, "PARLEY_ANNOTATE: a bound, default or example must be a finite number");
    static_assert(F != k::bound_not_number, "PARLEY_ANNOTATE: a numeric bound must be a number");
    static_assert(F != k::raw_not_json, "PARLEY_ANNOTATE: json(...) must hold exactly one JSON value");
    static_assert(F != k::enum_value_unnamed, "PARLEY_ANNOTATE: this enum value has no described name");
    static_assert(F != k::given_twice, "PARLEY_ANNOTATE: the same annotation is given twice for one name");
    static_assert(F != k::annotated_twice, "PARLEY_ANNOTATE: a member or enumerator is annotated twice");
    static_assert(F != k::not_described,
                  "PARLEY_ANNOTATE annotates a struct described with BOOST_DESCRIBE_STRUCT or an enum described "
                  "with BOOST_DESCRIBE_ENUM, and is written after that line");
    static_assert(F != k::unknown_member, "PARLEY_ANNOTATE names a member that BOOST_DESCRIBE_STRUCT does not list");
    static_assert(F != k::unknown_enumerator,
                  "PARLEY_ANNOTATE names an enumerator that BOOST_DESCRIBE_ENUM does not list");
    static_assert(F != k::name_on_member, "PARLEY_ANNOTATE: name(...) names a struct or an enum, not a member");
    static_assert(F != k::numbers_only,
                  "PARLEY_ANNOTATE: minimum/maximum/exclusive_minimum/exclusive_maximum/multiple_of apply to "
                  "numbers only");
    static_assert(F != k::minimum_above_maximum, "PARLEY_ANNOTATE: minimum is greater than maximum");
    static_assert(F != k::multiple_of_not_positive, "PARLEY_ANNOTATE: multiple_of must be greater than zero");
    static_assert(F != k::strings_only, "PARLEY_ANNOTATE: min_length/max_length/pattern/format apply to strings only");
    static_assert(F != k::min_length_above_max_length, "PARLEY_ANNOTATE: min_length is greater than max_length");
    static_assert(F != k::empty_pattern_or_format, "PARLEY_ANNOTATE: pattern and format must not be empty");
    static_assert(F != k::arrays_only, "PARLEY_ANNOTATE: min_items/max_items apply to arrays only");
    static_assert(F != k::fixed_size_array,
                  "PARLEY_ANNOTATE: a std::array has a fixed size: min_items/max_items do not apply");
    static_assert(F != k::min_items_above_max_items, "PARLEY_ANNOTATE: min_items is greater than max_items");
    static_assert(F != k::value_of_wrong_type,
                  "PARLEY_ANNOTATE: a default or example does not have the member's type (or is not one of an "
                  "enum's names)");
    static_assert(F != k::value_below_minimum, "PARLEY_ANNOTATE: a default or example is below minimum");
    static_assert(F != k::value_above_maximum, "PARLEY_ANNOTATE: a default or example is above maximum");
    static_assert(F != k::constraint_on_type,
                  "PARLEY_ANNOTATE: a struct or enum itself takes only a description and name(...); constraints "
                  "go on members");
    static_assert(F != k::invalid_name, "PARLEY_ANNOTATE: name(...) must match ^[a-zA-Z0-9_-]{1,64}$");
    static_assert(F != k::constraint_on_enumerator, "PARLEY_ANNOTATE: an enumerator takes only a description");
    return F == k::none;
}

/// Checks the annotations of T: true when they are right, a compile error (a static_assert
/// saying what is wrong) otherwise. True for a type without annotations.
template <class T, annotation_fault F, fixed_string Member, std::size_t... I>
constexpr bool report_annotation_fault(std::index_sequence<I...>) {
    return report_annotation_fault<T, F, Member.data[I]...>();
}

template <class T>
constexpr bool check_annotations() {
    constexpr annotation_report r = annotation_report_of<T>();
    constexpr auto member = name_argument<r.member.size()>(r.member.data());
    return report_annotation_fault<T, r.fault, member>(std::make_index_sequence<member.size()>{});
}

/// True when the compiler finds the PARLEY_ANNOTATE of T where parley looks for it (through
/// argument-dependent lookup, in the namespace of T).
template <class T>
constexpr bool annotations_found() {
    return has_annotations<T>;
}

/// The annotations of T (none when T has no PARLEY_ANNOTATE), as a constant; reading them
/// checks them (check_annotations<T>).
template <class T>
inline constexpr const auto& annotations_v = (static_cast<void>(check_annotations<T>()), unchecked_annotations_v<T>);

/// The described enums that appear in the type expression T, without looking inside structs.
template <class T>
using direct_enums_t = direct_of_kind_t<T, json_kind::enumeration>;

/// The described enums among the members of struct S.
template <class S>
using member_enums_t =
    boost::mp11::mp_apply<boost::mp11::mp_append,
                          boost::mp11::mp_push_front<boost::mp11::mp_transform<direct_enums_t, member_types_t<S>>,
                                                     boost::mp11::mp_list<>>>;

/// Every described struct and enum T reaches (T included): the types whose annotations reading
/// or writing T may use.
template <class T>
using annotated_types_t = boost::mp11::mp_unique<boost::mp11::mp_apply<
    boost::mp11::mp_append,
    boost::mp11::mp_push_front<boost::mp11::mp_transform<member_enums_t, struct_closure_t<T>>, struct_closure_t<T>,
                               direct_enums_t<T>>>>;

/// Checks the annotations of every struct and enum T reaches (a compile error naming the first
/// mistake); true otherwise.
template <class T>
constexpr bool check_reachable_annotations() {
    bool ok = true;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::add_pointer_t, annotated_types_t<T>>>([&](auto* type) {
        ok = check_annotations<std::remove_pointer_t<decltype(type)>>() && ok;
    });
    return ok;
}

}  // namespace parley::detail

#endif
