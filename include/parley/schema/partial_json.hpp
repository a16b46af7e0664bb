// parley/schema/partial_json.hpp: a JSON value from the first part of a JSON text, as it arrives
// while a reply streams in, so that a partly filled struct can be shown before the reply ends.
#ifndef PARLEY_SCHEMA_PARTIAL_JSON_HPP
#define PARLEY_SCHEMA_PARTIAL_JSON_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/json_parser.hpp>
#include <parley/schema/detail/partial_completer.hpp>
#include <parley/schema/from_json.hpp>
#include <parley/schema/from_json_result.hpp>
#include <parley/schema/json_text.hpp>

#include <boost/json/error.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// Completes the first part of a JSON text (a reply still streaming in) into a JSON value.
/// Leading white space and an opening code fence line (```json) are skipped; whatever follows a
/// whole value is ignored. Where the prefix ends decides the completion:
/// - nothing of a value yet (empty, white space, only the fence): `null`;
/// - inside a string value: the string as far as it came (`"Fre` gives "Fre"), without a cut
///   escape (`\`, `\u00`), a cut UTF-8 character, or a UTF-16 high surrogate whose low half has
///   not come;
/// - inside a member name, or after a name, its colon, or a comma: that member or item is left
///   out (`{"a": 1, "b` and `{"a": 1, "b":` give {"a": 1}; `[1,` gives [1]);
/// - inside a number: the number as far as it is one (`12` stays 12, `1.` and `1.5e-` give 1
///   and 1.5); a lone `-` is left out like a cut member (`null` at the top);
/// - inside `true`, `false` or `null`: the literal (`tr` gives true);
/// - open arrays and objects are closed, innermost first.
/// The result's `complete()` says whether the prefix held a whole value (a number running to the
/// end of the prefix counts as cut: more digits may come). A prefix that no JSON
/// text starts with is a `malformed` error at the offending offset; nesting deeper than
/// `max_depth` is `too_deep`; a prefix longer than `max_size` is `too_large`. Linear time.
inline json_text_result parse_partial_json(std::string_view prefix, const json_text_options& options = {}) {
    if (prefix.size() > options.max_size)
        return json_text_result(detail::json_text::too_large(prefix.size(), options.max_size));
    detail::partial::completer c(prefix, options);
    if (auto e = c.run()) return json_text_result(std::move(*e));
    boost::json::parse_options po;
    po.max_depth = options.max_depth;
    boost::system::error_code ec;
    std::size_t consumed = 0;
    boost::json::value v = detail::json_text::parse_exact(c.completion, po, ec, consumed);
    if (ec) {
        // What the scanner leaves to the parser (invalid UTF-8...). The completion is the
        // prefix up to the kept part, so the error is located in the prefix.
        std::size_t at = c.begin + (consumed < c.length ? consumed : c.length);
        return json_text_result(detail::json_text::malformed(prefix, at, ec.message()));
    }
    return {std::move(v), c.begin, c.length, c.complete};
}

/// `parse_partial_json` then `from_json<T>` with `options.partial` set: the part of a `T` that
/// has arrived, missing members keeping their default values (see `from_json_options::partial`).
/// A prefix of a valid document always gives a value, except the empty prefix (null).
template <class T>
from_json_result<T> from_partial_json(std::string_view prefix, from_json_options options = {},
                                      const json_text_options& text_options = {}) {
    json_text_result json = parse_partial_json(prefix, text_options);
    if (!json) return {std::vector<json_problem>{json.error().problem}, {}, 0};
    options.partial = true;
    return from_json<T>(json.value(), options);
}

}  // namespace parley

#endif
