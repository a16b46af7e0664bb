// parley/schema/from_json.hpp: tolerant reading of a JSON value into a C++ type described with
// Boost.Describe, reporting every problem found with its JSON pointer.
#ifndef PARLEY_SCHEMA_FROM_JSON_HPP
#define PARLEY_SCHEMA_FROM_JSON_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/json_reader.hpp>
#include <parley/schema/from_json_result.hpp>
#include <parley/schema/traits.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <utility>

namespace parley {

/// Reads `v` into a `T`, accepting what a model is likely to write: unknown members are ignored
/// (and reported as warnings), missing `std::optional` members and `null` for them give
/// `std::nullopt`, integers are accepted for floating members and numbers without a fraction
/// (3.0, 1e2) for integer members, and a `std::variant` takes the first alternative that fits
/// (preferring one that fits without a number conversion). Members annotated with bounds
/// (PARLEY_ANNOTATE: minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of,
/// min_length, max_length, min_items, max_items) are checked against them; pattern and format
/// are not checked. On failure the result lists every
/// problem found, each with its JSON pointer. T is any type of parley/schema/traits.hpp except
/// std::string_view (nothing would own the characters). Throws only what allocation throws.
template <class T>
from_json_result<T> from_json(const boost::json::value& v, const from_json_options& options = {}) {
    static_assert(describable<T>,
                  "from_json<T>: T, or a type inside it, has no JSON form; parley::detail::first_unsupported_t<T> "
                  "names it (see the table in parley/schema/traits.hpp)");
    std::size_t steps = 0;
    detail::conv::reader r{options, steps, {}, {}, {}, 0, 0, false, false, false, {}};
    T value{};
    if (detail::conv::read(v, value, r) && !r.failed()) return {std::move(value), std::move(r.warnings)};
    return {std::move(r.errors), std::move(r.warnings), r.omitted};
}

}  // namespace parley

#endif
