// parley/schema/detail/annotation_types.hpp: the values PARLEY_ANNOTATE builds (all literal
// types, so that annotations are constants).
#ifndef PARLEY_SCHEMA_DETAIL_ANNOTATION_TYPES_HPP
#define PARLEY_SCHEMA_DETAIL_ANNOTATION_TYPES_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/constexpr_json.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace parley {

namespace detail {
/// A mistake in an annotation. Building an annotation records the first one it meets instead
/// of stopping, and the checks of annotation_check.hpp turn each into a static_assert of its
/// own, whose message says what is wrong (see report_annotation_fault there).
enum class annotation_fault {
    none,
    // found while building the annotation
    not_finite,  ///< an infinite or NaN bound, default or example
    bound_not_number,  ///< minimum("text")
    raw_not_json,  ///< json("[1,")
    enum_value_unnamed,  ///< an enum value without a described name
    given_twice,  ///< one annotation twice in one entry
    annotated_twice,  ///< two entries for one member or enumerator
    // found by checking against the annotated type
    not_described,  ///< the annotated type is neither a described struct nor a described enum
    unknown_member,
    unknown_enumerator,
    name_on_member,
    numbers_only,
    minimum_above_maximum,
    multiple_of_not_positive,
    strings_only,
    min_length_above_max_length,
    empty_pattern_or_format,
    arrays_only,
    fixed_size_array,
    min_items_above_max_items,
    value_of_wrong_type,
    value_below_minimum,
    value_above_maximum,
    constraint_on_type,
    invalid_name,
    constraint_on_enumerator,
};

/// Records `fault` unless an earlier one is recorded.
constexpr void record_fault(annotation_fault& into, annotation_fault fault) noexcept {
    if (into == annotation_fault::none) into = fault;
}
}  // namespace detail

/// A JSON value known at compile time: the value of a default, an example or a bound.
struct json_literal {
    enum class kind : unsigned char { none, null, boolean, integer, unsigned_integer, number, string, raw };

    kind type = kind::none;
    bool boolean = false;
    std::int64_t integer = 0;
    std::uint64_t unsigned_integer = 0;
    double number = 0;
    std::string_view text;  ///< string or raw JSON
    detail::annotation_fault fault = detail::annotation_fault::none;  ///< what is wrong with it, if anything

    constexpr json_literal() = default;
    constexpr json_literal(std::nullptr_t) : type(kind::null) {}
    constexpr json_literal(bool b) : type(kind::boolean), boolean(b) {}
    template <std::integral I>
        requires(!std::is_same_v<I, bool>)
    constexpr json_literal(I i) {
        if constexpr (std::is_signed_v<I>) {
            type = kind::integer;
            integer = i;
        } else {
            type = kind::unsigned_integer;
            unsigned_integer = i;
        }
    }
    template <std::floating_point F>
    constexpr json_literal(F f) : type(kind::number), number(static_cast<double>(f)) {
        if (!(number == number) || number > 1.7976931348623157e308 || number < -1.7976931348623157e308)
            fault = detail::annotation_fault::not_finite;
    }
    constexpr json_literal(const char* s) : type(kind::string), text(s) {}
    constexpr json_literal(std::string_view s) : type(kind::string), text(s) {}
    /// An enumerator of a described enum becomes its name.
    template <class E>
        requires(std::is_enum_v<E> && boost::describe::has_describe_enumerators<E>::value)
    constexpr json_literal(E e) : type(kind::string) {
        bool found = false;
        boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
            if (!found && d.value == e) {
                text = d.name;
                found = true;
            }
        });
        if (!found) fault = detail::annotation_fault::enum_value_unnamed;
    }

    /// Raw JSON text, checked (text that is not one JSON value is a fault).
    static constexpr json_literal raw(std::string_view json_text) {
        json_literal l;
        l.type = kind::raw;
        l.text = json_text;
        if (!detail::is_json_text(json_text)) l.fault = detail::annotation_fault::raw_not_json;
        return l;
    }

    constexpr bool is_set() const noexcept { return type != kind::none; }
    constexpr bool is_number() const noexcept {
        return type == kind::integer || type == kind::unsigned_integer || type == kind::number;
    }
    /// The value as a double (numbers only).
    constexpr double as_double() const noexcept {
        return type == kind::integer            ? static_cast<double>(integer)
               : type == kind::unsigned_integer ? static_cast<double>(unsigned_integer)
                                                : number;
    }
};

/// Everything one PARLEY_ANNOTATE entry can say about a type, a member or an enumerator. Unset
/// parts are empty (null string data, kind none, npos sizes).
struct annotation {
    static constexpr std::size_t unset = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_examples = 16;

    std::string_view description;
    std::string_view name;
    json_literal minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
    std::size_t min_length = unset, max_length = unset;
    std::string_view pattern, format;
    std::size_t min_items = unset, max_items = unset;
    json_literal default_value;
    std::array<json_literal, max_examples> examples{};
    std::size_t example_count = 0;
    detail::annotation_fault fault = detail::annotation_fault::none;  ///< the first mistake met building it

    /// The first mistake in this annotation or in one of its values, or none.
    constexpr detail::annotation_fault first_fault() const noexcept {
        detail::annotation_fault f = fault;
        for (const json_literal* l : {&minimum, &maximum, &exclusive_minimum, &exclusive_maximum, &multiple_of, &default_value})
            detail::record_fault(f, l->fault);
        for (std::size_t i = 0; i != example_count; ++i) detail::record_fault(f, examples[i].fault);
        return f;
    }

    constexpr bool has_description() const noexcept { return description.data() != nullptr; }
    constexpr bool has_name() const noexcept { return name.data() != nullptr; }
    constexpr bool has_pattern() const noexcept { return pattern.data() != nullptr; }
    constexpr bool has_format() const noexcept { return format.data() != nullptr; }
    constexpr bool has_number_constraint() const noexcept {
        return minimum.is_set() || maximum.is_set() || exclusive_minimum.is_set() || exclusive_maximum.is_set() ||
               multiple_of.is_set();
    }
    constexpr bool has_string_constraint() const noexcept {
        return min_length != unset || max_length != unset || has_pattern() || has_format();
    }
    constexpr bool has_array_constraint() const noexcept { return min_items != unset || max_items != unset; }
    constexpr bool has_value_annotation() const noexcept { return default_value.is_set() || example_count != 0; }
};

/// The annotations of one member or enumerator.
struct member_annotation {
    std::string_view member;
    annotation note;
};

/// All annotations of one type: its own, then those of its members (or enumerators).
template <std::size_t N>
struct type_annotations {
    annotation self;
    std::array<member_annotation, N> members{};
    detail::annotation_fault fault = detail::annotation_fault::none;  ///< annotated_twice, or none
    std::string_view fault_member;  ///< the member or enumerator annotated twice

    /// The annotation of the named member, or nullptr.
    constexpr const annotation* find(std::string_view member) const noexcept {
        for (const auto& m : members)
            if (m.member == member) return &m.note;
        return nullptr;
    }
};

namespace detail {

/// Appends a literal as JSON text (raw JSON as it was given).
constexpr void append_literal(text_buffer& out, const json_literal& l) {
    using k = json_literal::kind;
    switch (l.type) {
    case k::none:
    case k::null: out.append("null"); break;
    case k::boolean: out.append(l.boolean ? "true" : "false"); break;
    case k::integer: append_signed(out, l.integer); break;
    case k::unsigned_integer: append_unsigned(out, l.unsigned_integer); break;
    case k::number: append_double(out, l.number); break;
    case k::string: append_json_string(out, l.text); break;
    case k::raw: out.append(l.text); break;
    }
}

constexpr json_literal require_number(json_literal l) {
    if (!l.is_number()) record_fault(l.fault, annotation_fault::bound_not_number);
    return l;
}

constexpr annotation to_annotation(const annotation& a) { return a; }
constexpr annotation to_annotation(std::string_view description) {
    annotation a;
    a.description = description;
    return a;
}

// Each merge_* takes `from` into `into` unless `from` is unset; when both are set, the fault
// given_twice is recorded in `fault`.
constexpr void merge_text(std::string_view& into, std::string_view from, annotation_fault& fault) {
    if (from.data() == nullptr) return;
    if (into.data() != nullptr) record_fault(fault, annotation_fault::given_twice);
    into = from;
}
constexpr void merge_literal(json_literal& into, const json_literal& from, annotation_fault& fault) {
    if (!from.is_set() && from.fault == annotation_fault::none) return;
    if (into.is_set()) record_fault(fault, annotation_fault::given_twice);
    into = from;
}
constexpr void merge_size(std::size_t& into, std::size_t from, annotation_fault& fault) {
    if (from == annotation::unset) return;
    if (into != annotation::unset) record_fault(fault, annotation_fault::given_twice);
    into = from;
}

/// Both annotations in one; an annotation given by both is the fault given_twice.
constexpr annotation merge(annotation a, const annotation& b) {
    annotation_fault& f = a.fault;
    record_fault(f, b.fault);
    merge_text(a.description, b.description, f);
    merge_text(a.name, b.name, f);
    merge_literal(a.minimum, b.minimum, f);
    merge_literal(a.maximum, b.maximum, f);
    merge_literal(a.exclusive_minimum, b.exclusive_minimum, f);
    merge_literal(a.exclusive_maximum, b.exclusive_maximum, f);
    merge_literal(a.multiple_of, b.multiple_of, f);
    merge_size(a.min_length, b.min_length, f);
    merge_size(a.max_length, b.max_length, f);
    merge_text(a.pattern, b.pattern, f);
    merge_text(a.format, b.format, f);
    merge_size(a.min_items, b.min_items, f);
    merge_size(a.max_items, b.max_items, f);
    merge_literal(a.default_value, b.default_value, f);
    if (b.example_count != 0) {
        if (a.example_count != 0) record_fault(f, annotation_fault::given_twice);
        a.examples = b.examples;
        a.example_count = b.example_count;
    }
    return a;
}

template <class... Notes>
constexpr member_annotation make_member_annotation(std::string_view member, const Notes&... notes) {
    member_annotation m{member, {}};
    ((m.note = merge(m.note, to_annotation(notes))), ...);
    return m;
}

template <class T>
inline constexpr bool is_member_annotation_v = std::is_same_v<T, member_annotation>;

template <class T, class... Entries>
constexpr auto make_annotations(const Entries&... entries) {
    constexpr std::size_t n = (std::size_t{0} + ... + (is_member_annotation_v<Entries> ? 1 : 0));
    type_annotations<n> result;
    std::size_t i = 0;
    auto add = [&](const auto& entry) {
        if constexpr (is_member_annotation_v<std::remove_cvref_t<decltype(entry)>>) {
            for (std::size_t j = 0; j != i; ++j) {
                if (result.members[j].member == entry.member && result.fault == annotation_fault::none) {
                    result.fault = annotation_fault::annotated_twice;
                    result.fault_member = entry.member;
                }
            }
            result.members[i++] = entry;
        } else {
            result.self = merge(result.self, to_annotation(entry));
        }
    };
    (add(entries), ...);
    return result;
}

template <class T>
concept has_annotations = requires { parley_annotations(static_cast<const T*>(nullptr)); };

template <class T>
constexpr auto annotations_of_impl() {
    if constexpr (has_annotations<T>)
        return parley_annotations(static_cast<const T*>(nullptr));
    else
        return type_annotations<0>{};
}

/// The annotations of T as PARLEY_ANNOTATE wrote them (none when T has no PARLEY_ANNOTATE), as
/// a constant, not checked: read annotations_v of annotation_check.hpp, which checks them.
template <class T>
inline constexpr auto unchecked_annotations_v = annotations_of_impl<T>();

}  // namespace detail

}  // namespace parley

#endif
