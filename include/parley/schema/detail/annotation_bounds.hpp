// parley/schema/detail/annotation_bounds.hpp: from_json's check of a member's value against the
// bounds its PARLEY_ANNOTATE entry sets, with messages that state them.
#ifndef PARLEY_SCHEMA_DETAIL_ANNOTATION_BOUNDS_HPP
#define PARLEY_SCHEMA_DETAIL_ANNOTATION_BOUNDS_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/annotation_check.hpp>
#include <parley/schema/detail/annotation_types.hpp>
#include <parley/schema/detail/conversion.hpp>
#include <parley/schema/detail/reader_state.hpp>
#include <parley/schema/traits.hpp>

#include <boost/json/string.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace parley::detail::conv {

inline void append_literal_text(std::string& out, const json_literal& l) {
    using k = json_literal::kind;
    if (l.type == k::integer)
        out += std::to_string(l.integer);
    else if (l.type == k::unsigned_integer)
        out += std::to_string(l.unsigned_integer);
    else
        append_double(out, l.number);
}

// "at least 3 and at most 10"-style phrases of a size constraint; "" when there is none.
inline std::string size_phrase(std::size_t min, std::size_t max, const char* one, const char* many) {
    auto unit = [&](std::size_t n) { return std::to_string(n) + " " + (n == 1 ? one : many); };
    if (min != annotation::unset && max != annotation::unset)
        return min == max ? unit(min) : std::to_string(min) + " to " + unit(max);
    if (min != annotation::unset) return "at least " + unit(min);
    return "at most " + unit(max);
}

inline bool is_multiple(const json_literal& value, const json_literal& step) {
    using k = json_literal::kind;
    if (value.type != k::number && step.type != k::number) {
        // Exact for integers: |value| mod step.
        std::uint64_t m = step.type == k::integer ? static_cast<std::uint64_t>(step.integer) : step.unsigned_integer;
        std::uint64_t x = value.type == k::unsigned_integer ? value.unsigned_integer
                          : value.integer < 0 ? 0 - static_cast<std::uint64_t>(value.integer)
                                              : static_cast<std::uint64_t>(value.integer);
        return x % m == 0;
    }
    double q = value.as_double() / step.as_double();
    return std::fabs(q - std::round(q)) <= 1e-9 * std::max(1.0, std::fabs(q));
}

// Checks a member's value against the bounds of its annotation (PARLEY_ANNOTATE): numbers
// against minimum, maximum, their exclusive forms and multiple_of; strings against min_length
// and max_length (in code points); arrays against min_items and max_items. Patterns and
// formats are in the schema the model sees, but are not checked here.
template <class M>
bool check_annotation(const M& value, const annotation& a, reader& r) {
    constexpr json_kind kind = json_kind_v<M>;
    if constexpr (kind == json_kind::optional) {
        return !value || check_annotation(*value, a, r);
    } else if constexpr (kind == json_kind::integer || kind == json_kind::number) {
        if (!a.has_number_constraint()) return true;
        const json_literal x(value);
        bool fits = (!a.minimum.is_set() || compare_numbers(x, a.minimum) >= 0) &&
                    (!a.maximum.is_set() || compare_numbers(x, a.maximum) <= 0) &&
                    (!a.exclusive_minimum.is_set() || compare_numbers(x, a.exclusive_minimum) > 0) &&
                    (!a.exclusive_maximum.is_set() || compare_numbers(x, a.exclusive_maximum) < 0) &&
                    (!a.multiple_of.is_set() || is_multiple(x, a.multiple_of));
        if (fits) return true;
        std::string expected = kind == json_kind::integer ? "an integer" : "a number";
        const char* joint = " ";
        auto bound = [&](const json_literal& l, const char* words) {
            if (!l.is_set()) return;
            expected += joint;
            expected += words;
            append_literal_text(expected, l);
            joint = " and ";
        };
        bound(a.minimum, "at least ");
        bound(a.exclusive_minimum, "greater than ");
        bound(a.maximum, "at most ");
        bound(a.exclusive_maximum, "less than ");
        if (a.multiple_of.is_set() && std::string_view(joint) == " ") expected.clear();  // "a multiple of 15"
        bound(a.multiple_of, "a multiple of ");
        if (expected.front() == ' ') expected.erase(0, 1);
        std::string found;
        if constexpr (kind == json_kind::integer)
            found = std::to_string(value);
        else
            append_double(found, static_cast<double>(value));
        r.error(json_problem_kind::out_of_range, std::move(expected), std::move(found));
        return false;
    } else if constexpr (kind == json_kind::string) {
        if (a.min_length == annotation::unset && a.max_length == annotation::unset) return true;
        std::size_t n = 0;
        for (char c : std::string_view(value)) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        if ((a.min_length == annotation::unset || n >= a.min_length) &&
            (a.max_length == annotation::unset || n <= a.max_length))
            return true;
        r.error(json_problem_kind::wrong_size, "a string of " + size_phrase(a.min_length, a.max_length, "character", "characters"),
                found_text(boost::json::string(std::string_view(value))) + " (" + std::to_string(n) +
                    (n == 1 ? " character)" : " characters)"));
        return false;
    } else if constexpr (kind == json_kind::array && !is_std_array_v<M>) {
        if (!a.has_array_constraint()) return true;
        std::size_t n = value.size();
        if ((a.min_items == annotation::unset || n >= a.min_items) &&
            (a.max_items == annotation::unset || n <= a.max_items))
            return true;
        r.error(json_problem_kind::wrong_size, "an array of " + size_phrase(a.min_items, a.max_items, "item", "items"),
                "an array of " + std::to_string(n) + (n == 1 ? " item" : " items"));
        return false;
    } else {
        return true;
    }
}

}  // namespace parley::detail::conv

#endif
