// parley/schema/from_json.hpp: tolerant reading of a JSON value into a C++ type described with
// Boost.Describe, reporting every problem found with its JSON pointer.
#ifndef PARLEY_SCHEMA_FROM_JSON_HPP
#define PARLEY_SCHEMA_FROM_JSON_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/annotation_check.hpp>
#include <parley/schema/detail/json_reader.hpp>
#include <parley/schema/from_json_result.hpp>
#include <parley/schema/traits.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace parley {

namespace detail {

/// True for a described struct that has no default constructor (from_json needs one).
template <class T>
using lacks_default_constructor =
    std::bool_constant<json_kind_v<T> == json_kind::object && !std::is_default_constructible_v<T>>;

/// The first struct inside T (T itself included) that has no default constructor, or void.
template <class T>
using first_without_default_constructor_t = first_offender_t<lacks_default_constructor, T>;

template <class X>
struct needs_default_constructor {
    static_assert(sizeof(X) == 0,
                  "from_json builds structs member by member: give the struct (named in the instantiation notes) "
                  "a default constructor");
};
template <>
struct needs_default_constructor<void> {};

}  // namespace detail

/// Reads `v` into a `T`, accepting what a model is likely to write: unknown members are ignored
/// (and reported as warnings), missing `std::optional` members and `null` for them give
/// `std::nullopt`, integers are accepted for floating members and numbers without a fraction
/// (3.0, 1e2) for integer members, and a `std::variant` takes the first alternative that fits
/// (preferring one that fits without a number conversion). Members annotated with bounds
/// (PARLEY_ANNOTATE: minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of,
/// min_length, max_length, min_items, max_items) are checked against them; pattern and format
/// are not checked. On failure the result lists every problem found, each with its JSON
/// pointer. T is any type of docs/extraction.md's "Supported types and their schemas" but
/// std::string_view (nothing would own the characters), whose structs have default
/// constructors; otherwise, and for a mistake in the annotations of a type T reaches, it is a
/// compile error (static_assert) that says so. Throws only what allocation throws.
template <class T>
from_json_result<T> from_json(const boost::json::value& v, const from_json_options& options = {}) {
    static_assert(describable<T>,
                  "from_json<T>: T, or a type inside it, has no JSON form; parley::detail::first_unsupported_t<T> "
                  "names it (see \"Supported types and their schemas\" in docs/extraction.md)");
    if constexpr (describable<T>) {
        // Checked before the body is instantiated, so that these messages come first.
        using without_constructor = detail::first_without_default_constructor_t<T>;
        static_cast<void>(sizeof(detail::needs_default_constructor<without_constructor>));
        if constexpr (std::is_void_v<without_constructor>) {
            [[maybe_unused]] constexpr bool annotations_checked = detail::check_reachable_annotations<T>();
            std::size_t steps = 0;
            detail::conv::reader r{options, steps, {}, {}, {}, 0, 0, false, false, false, {}};
            T value{};
            if (detail::conv::read(v, value, r) && !r.failed()) return {std::move(value), std::move(r.warnings)};
            return {std::move(r.errors), std::move(r.warnings), r.omitted};
        }
    }
    return {std::vector<json_problem>{}, {}, 0};
}

}  // namespace parley

#endif
