// parley/schema/partial_json.hpp: a JSON value from the first part of a JSON text, as it arrives
// while a reply streams in, so that a partly filled struct can be shown before the reply ends.
// parley/schema/partial.hpp adds what has arrived of each of its values (parley::partial<T>).
#ifndef PARLEY_SCHEMA_PARTIAL_JSON_HPP
#define PARLEY_SCHEMA_PARTIAL_JSON_HPP

#include <parley/config.hpp>
#include <parley/schema/arrival.hpp>
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

namespace detail::partial {

/// A prefix read: its completion (as parse_partial_json gives it) and, when asked for, the
/// arrival of each value of the completion.
struct prefix_reading {
    json_text_result json;
    node arrivals;
};

/// parse_partial_json, and the arrival tree of the completion when `arrivals` is set (and
/// something has arrived).
inline prefix_reading read_prefix(std::string_view prefix, const json_text_options& options, bool arrivals) {
    if (prefix.size() > options.max_size)
        return {json_text_result(detail::json_text::too_large(prefix.size(), options.max_size)), {}};
    completer c(prefix, options);
    if (auto e = c.run()) return {json_text_result(std::move(*e)), {}};
    boost::json::parse_options po;
    po.max_depth = options.max_depth;
    boost::system::error_code ec;
    std::size_t consumed = 0;
    boost::json::value v = detail::json_text::parse_exact(c.completion, po, ec, consumed);
    if (ec) {
        // What the scanner leaves to the parser (invalid UTF-8...). The completion is the
        // prefix up to the kept part, so the error is located in the prefix.
        std::size_t at = c.begin + (consumed < c.length ? consumed : c.length);
        return {json_text_result(detail::json_text::malformed(prefix, at, ec.message())), {}};
    }
    node tree;
    if (arrivals && c.length != 0) {
        tree = tree_builder(c.completion, c.length, c.open_number()).build();
        merge_repeated_names(tree);
    }
    return {json_text_result(std::move(v), c.begin, c.length, c.complete), std::move(tree)};
}

/// Where the JSON of a free-text reply still streaming in starts (see
/// parse_partial_json_from_text), or npos when nothing of it has come.
inline std::size_t json_start_in_text(std::string_view text) {
    namespace d = detail::json_text;
    std::size_t start = d::skip_space(text, 0);
    bool at_start = start < text.size() && (text[start] == '{' || text[start] == '[' || text[start] == '"' ||
                                            text.substr(start, 3) == "```" || text.substr(start, 3) == "~~~");
    if (at_start) return start;
    start = npos;
    for (std::size_t line = 0; line < text.size();) {  // the first fence line
        std::size_t i = line;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        if (text.substr(i, 3) == "```" || text.substr(i, 3) == "~~~") return i;
        std::size_t eol = text.find('\n', line);
        if (eol == npos) break;
        line = eol + 1;
    }
    for (std::size_t pos = text.find_first_of("{["); start == npos && pos != npos; pos = text.find_first_of("{[", pos + 1)) {
        std::size_t next = d::skip_space(text, pos + 1);
        if (next == text.size() || d::may_follow_bracket(text[pos], text[next])) start = pos;
    }
    return start;
}

/// parse_partial_json_from_text, and the arrival tree when `arrivals` is set.
inline prefix_reading read_text_prefix(std::string_view text, const json_text_options& options, bool arrivals) {
    namespace d = detail::json_text;
    if (text.size() > options.max_size) return {json_text_result(d::too_large(text.size(), options.max_size)), {}};
    const std::size_t start = json_start_in_text(text);
    if (start == npos) return {json_text_result(nullptr, text.size(), 0, false), {}};
    prefix_reading r = read_prefix(text.substr(start), options, arrivals);
    if (r.json) {
        const std::size_t offset = start + r.json.offset();
        const std::size_t length = r.json.length();
        const bool complete = r.json.complete();
        r.json = json_text_result(std::move(r.json).value(), offset, length, complete);
        return r;
    }
    const json_text_error& e = r.json.error();
    if (e.code == json_text_errc::too_deep)
        return {json_text_result(d::too_deep(text, start + e.offset, options.max_depth)), {}};
    return {json_text_result(d::malformed(text, start + e.offset, e.problem.detail)), {}};
}

}  // namespace detail::partial

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
    return detail::partial::read_prefix(prefix, options, false).json;
}

namespace detail::partial {

/// The result of a partial reader while nothing of the value has arrived (the completion is a
/// `null` made of no text): one problem of kind nothing_yet.
template <class T>
from_json_result<T> nothing_yet() {
    return {std::vector<json_problem>{{json_problem_kind::nothing_yet, {}, "a JSON value", "nothing yet", {}}}, {}, 0};
}

}  // namespace detail::partial

/// `parse_partial_json` then `from_json<T>` with `options.partial` set: the part of a `T` that
/// has arrived, missing members keeping their default values (see `from_json_options::partial`).
/// A prefix of a valid document always gives a value, except while nothing of the value has
/// arrived (an empty prefix, white space, an opening fence, a lone `-`): then the only problem
/// is of kind `json_problem_kind::nothing_yet`, `expected a JSON value, found nothing yet`,
/// whatever T is.
template <class T>
from_json_result<T> from_partial_json(std::string_view prefix, from_json_options options = {},
                                      const json_text_options& text_options = {}) {
    json_text_result json = parse_partial_json(prefix, text_options);
    if (!json) return {std::vector<json_problem>{json.error().problem}, {}, 0};
    if (json.length() == 0) return detail::partial::nothing_yet<T>();
    options.partial = true;
    return from_json<T>(json.value(), options);
}

/// The JSON of a free-text reply still streaming in (prose, then JSON), completed like
/// `parse_partial_json`. The JSON is taken to start at the first line opening a code fence
/// (```json) or, when there is none yet, at the first `{`, `[` or `"` that begins the text or a
/// `{` or `[` followed by what may follow it in JSON (or by nothing yet); before that there is
/// nothing of a value (`null`). Offsets in the result and its errors are offsets in `text`.
inline json_text_result parse_partial_json_from_text(std::string_view text, const json_text_options& options = {}) {
    return detail::partial::read_text_prefix(text, options, false).json;
}

/// `parse_partial_json_from_text` then `from_json<T>` with `options.partial` set. While nothing
/// of the value has arrived (only prose so far), the only problem is of kind
/// `json_problem_kind::nothing_yet`, as for from_partial_json.
template <class T>
from_json_result<T> from_partial_text(std::string_view text, from_json_options options = {},
                                      const json_text_options& text_options = {}) {
    json_text_result json = parse_partial_json_from_text(text, text_options);
    if (!json) return {std::vector<json_problem>{json.error().problem}, {}, 0};
    if (json.length() == 0) return detail::partial::nothing_yet<T>();
    options.partial = true;
    return from_json<T>(json.value(), options);
}

}  // namespace parley

#endif
