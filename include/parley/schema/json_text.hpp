// parley/schema/json_text.hpp: the JSON value in a model's free-text reply (bare, in a fenced
// code block, or among prose), with bounded work and errors that say where the JSON went wrong.
#ifndef PARLEY_SCHEMA_JSON_TEXT_HPP
#define PARLEY_SCHEMA_JSON_TEXT_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/schema/detail/conversion.hpp>
#include <parley/schema/detail/json_parser.hpp>
#include <parley/schema/from_json.hpp>
#include <parley/schema/from_json_result.hpp>

#include <boost/json/error.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// Limits for reading JSON out of text that comes from outside.
struct json_text_options {
    /// Deepest nesting of arrays and objects; deeper JSON is a `too_deep` error.
    std::size_t max_depth = 64;
    /// Longest text read, in bytes; a longer one is a `too_large` error.
    std::size_t max_size = std::size_t{8} << 20;
    /// Most failed tries at reading a JSON value from a `{` or `[` in prose, which bounds the
    /// work on text full of brackets.
    std::size_t max_candidates = 16;
};

/// Why no JSON value could be read from a text.
enum class json_text_errc {
    no_json = 1,  ///< nothing in the text looks like JSON
    malformed,  ///< JSON with a syntax error, or cut off before its end
    too_deep,  ///< nesting deeper than `json_text_options::max_depth`
    too_large,  ///< a text longer than `json_text_options::max_size`
};

/// What went wrong reading JSON from a text, and where.
struct json_text_error {
    json_text_errc code = json_text_errc::no_json;
    std::size_t offset = 0;  ///< byte offset in the text
    std::uint32_t line = 0;  ///< 1-based line of `offset`
    std::uint32_t column = 0;  ///< 1-based column of `offset`, counted in code points
    json_problem problem;  ///< the same as a problem (path ""), as `from_text` reports it

    /// One line: `expected valid JSON, found "EUR}" at line 1, column 13, offset 12 (syntax error)`.
    std::string message() const { return problem.message(); }
};

/// The JSON value read from a text, or why there is none. Truthy when there is a value.
class json_text_result {
public:
    json_text_result(boost::json::value value, std::size_t offset, std::size_t length, bool complete)
        : value_(std::move(value)), offset_(offset), length_(length), complete_(complete) {}
    explicit json_text_result(json_text_error error) : error_(std::move(error)) {}

    /// True when a value was read.
    explicit operator bool() const noexcept { return value_.has_value(); }
    /// True when a value was read.
    bool has_value() const noexcept { return value_.has_value(); }
    /// The value; throws `parley::error` (`errc::conversion`, with the message) when there is none.
    const boost::json::value& value() const& {
        check();
        return *value_;
    }
    /// The value, moved out; throws like the other overload.
    boost::json::value&& value() && {
        check();
        return std::move(*value_);
    }
    /// Why there is no value; meaningful only when there is none.
    const json_text_error& error() const noexcept { return error_; }
    /// Where the JSON text of the value starts in the text (bytes).
    std::size_t offset() const noexcept { return offset_; }
    /// How long the JSON text of the value is (bytes).
    std::size_t length() const noexcept { return length_; }
    /// False when the value was completed from a cut-off prefix (`parse_partial_json`).
    bool complete() const noexcept { return complete_; }

private:
    void check() const {
        if (!value_) throw parley::error(errc::conversion, error_.message());
    }

    std::optional<boost::json::value> value_;
    json_text_error error_;
    std::size_t offset_ = 0;
    std::size_t length_ = 0;
    bool complete_ = true;
};

namespace detail::json_text {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline std::size_t skip_space(std::string_view s, std::size_t i) {
    while (i < s.size() && is_space(s[i])) ++i;
    return i;
}

/// "line 3, column 12, offset 57" for a byte offset of `text`.
inline json_text_error locate(std::string_view text, std::size_t offset) {
    json_text_error e;
    e.offset = offset;
    e.line = 1;
    e.column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++e.line;
            e.column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++e.column;
        }
    }
    return e;
}

inline std::string where(const json_text_error& e) {
    return "line " + std::to_string(e.line) + ", column " + std::to_string(e.column) + ", offset " +
           std::to_string(e.offset);
}

/// The error for JSON that goes wrong at `offset` of `text`; `reason` is the parser's word.
inline json_text_error malformed(std::string_view text, std::size_t offset, std::string reason) {
    json_text_error e = locate(text, offset);
    e.code = json_text_errc::malformed;
    std::string found;
    if (offset >= text.size()) {
        found = "the end of the text";
    } else {
        std::size_t n = 0;  // up to 16 code points, whole characters only
        std::size_t end = offset;
        while (end < text.size() && n < 16) {
            ++end;
            while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
            ++n;
        }
        conv::append_quoted(found, text.substr(offset, end - offset));
        if (end < text.size()) found.insert(found.size() - 1, "...");
    }
    e.problem = {json_problem_kind::malformed_json, {}, "valid JSON", found + " at " + where(e), std::move(reason)};
    return e;
}

inline json_text_error too_deep(std::string_view text, std::size_t offset, std::size_t max_depth) {
    json_text_error e = locate(text, offset);
    e.code = json_text_errc::too_deep;
    e.problem = {json_problem_kind::limit, {}, "JSON nested at most " + std::to_string(max_depth) + " levels deep",
                 "deeper nesting at " + where(e), {}};
    return e;
}

inline json_text_error too_large(std::size_t size, std::size_t max_size) {
    json_text_error e;
    e.code = json_text_errc::too_large;
    e.problem = {json_problem_kind::limit, {}, "a text of at most " + std::to_string(max_size) + " bytes",
                 std::to_string(size) + " bytes", {}};
    return e;
}

inline json_text_error no_json() {
    json_text_error e;
    e.code = json_text_errc::no_json;
    e.problem = {json_problem_kind::no_json, {}, "a JSON value", "no JSON in the text", {}};
    return e;
}

/// Whether `c` may come first after the opening bracket `bracket` of a JSON value.
inline bool may_follow_bracket(char bracket, char c) {
    if (bracket == '{') return c == '"' || c == '}';
    return c == ']' || c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
           c == 'f' || c == 'n';
}

/// One try at reading a JSON value that starts at `begin` and lies before `end`.
struct attempt {
    std::optional<boost::json::value> value;
    std::size_t end = 0;  // where the value ends
    std::optional<json_text_error> error;
    bool progressed = false;  // the parser took more than the first character: it looked like JSON
    bool trailing = false;  // a whole value, but followed by other text
};

/// Reads one JSON value at `begin`. With `whole`, only white space may follow it before `end`.
inline attempt parse_at(std::string_view text, std::size_t begin, std::size_t end, const json_text_options& options,
                        bool whole) {
    attempt a;
    boost::json::parse_options po;
    po.max_depth = options.max_depth;
    exact_parser p(po);
    boost::system::error_code ec;
    std::size_t n = p.write_some(text.data() + begin, end - begin, ec);
    std::size_t stop = begin + n;
    if (!ec && !p.done()) {
        p.finish(ec);
        stop = end;
    }
    a.progressed = skip_space(text, begin + 1) < stop;
    if (ec == boost::json::error::too_deep) {
        a.error = too_deep(text, stop, options.max_depth);
        return a;
    }
    if (ec) {
        a.error = malformed(text, stop, ec.message());
        return a;
    }
    a.end = stop;  // the parser also takes the white space after a value
    while (a.end > begin && is_space(text[a.end - 1])) --a.end;
    if (whole) {
        std::size_t rest = skip_space(text, stop);
        if (rest < end) {
            a.error = malformed(text, rest, "text after the JSON value");
            a.trailing = true;
            return a;
        }
    }
    a.value = p.release();
    return a;
}

/// A fenced code block: the text between a line opening with ``` (or ~~~) and the next fence.
struct fenced_block {
    std::size_t begin;
    std::size_t end;
    int rank;  // 0: tagged json, 1: untagged, 2: another language
};

inline std::vector<fenced_block> fenced_blocks(std::string_view text) {
    std::vector<fenced_block> blocks;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        std::size_t i = pos;
        while (i < eol && (text[i] == ' ' || text[i] == '\t')) ++i;
        std::string_view line = text.substr(i, eol - i);
        if (line.substr(0, 3) != "```" && line.substr(0, 3) != "~~~") {
            pos = eol + 1;
            continue;
        }
        std::string_view fence = line.substr(0, 3);
        std::size_t info_begin = i + 3;
        while (info_begin < eol && text[info_begin] == fence[0]) ++info_begin;
        // The info string, and the JSON when a model writes it on the fence line (```json {"a": 1}```).
        std::size_t info_end = info_begin;
        while (info_end < eol && text[info_end] != '{' && text[info_end] != '[') ++info_end;
        std::size_t begin = info_end < eol ? info_end : (eol < text.size() ? eol + 1 : eol);
        std::size_t close = text.find(fence, begin);
        std::size_t end = close == std::string_view::npos ? text.size() : close;
        std::string_view info = text.substr(info_begin, info_end - info_begin);
        while (!info.empty() && is_space(info.back())) info.remove_suffix(1);
        while (!info.empty() && is_space(info.front())) info.remove_prefix(1);
        int rank = 2;
        if (info.empty())
            rank = 1;
        else if (info.size() >= 4 && (info[0] | 0x20) == 'j' && (info[1] | 0x20) == 's' && (info[2] | 0x20) == 'o' &&
                 (info[3] | 0x20) == 'n')
            rank = 0;  // json, JSON, jsonc, json5
        blocks.push_back({begin, end, rank});
        if (close == std::string_view::npos) break;
        pos = text.find('\n', close);
        if (pos == std::string_view::npos) break;
        ++pos;
    }
    return blocks;
}

}  // namespace detail::json_text

/// Finds the JSON value in a model's reply and parses it. Tried in this order:
/// 1. the whole text (surrounding white space aside) as one JSON value, which may be a scalar;
/// 2. fenced code blocks, those tagged `json` first, then untagged ones, then the others, the
///    first that holds exactly one JSON value winning; when none does, the first block that
///    looked like JSON (tagged `json` or untagged) gives a `malformed` error at its offset;
/// 3. an object or array among prose: each `{` or `[` followed by what may follow it in JSON is
///    tried, with any text allowed after the value (up to `max_candidates` failed tries; values
///    found are not searched inside); the longest value found wins.
/// The error is `malformed` at the place where the attempt that went furthest failed (when that
/// attempt went further than the longest value found is long), or `no_json` when nothing
/// looked like JSON. Depth and size limits give `too_deep` and
/// `too_large` errors. Work is linear in the text's length times `max_candidates`. Numbers are
/// read exactly (correctly rounded doubles). Throws only what allocation throws.
inline json_text_result parse_json_from_text(std::string_view text, const json_text_options& options = {}) {
    namespace d = detail::json_text;
    if (text.size() > options.max_size) return json_text_result(d::too_large(text.size(), options.max_size));

    std::size_t first = d::skip_space(text, 0);
    if (first == text.size()) return json_text_result(d::no_json());
    std::optional<json_text_error> failure;  // the most telling failure so far
    {
        std::size_t last = text.size();
        while (last > first && d::is_space(text[last - 1])) --last;
        d::attempt a = d::parse_at(text, first, last, options, true);
        if (a.value) return {std::move(*a.value), first, a.end - first, true};
        if (a.error->code == json_text_errc::too_deep) return json_text_result(*a.error);
        // A reply that starts like JSON and fails inside its value is malformed JSON.
        if ((text[first] == '{' || text[first] == '[') && !a.trailing) failure = a.error;
    }

    std::vector<d::fenced_block> blocks = d::fenced_blocks(text);
    std::optional<json_text_error> block_failure;
    for (int rank = 0; rank <= 2; ++rank) {
        for (const d::fenced_block& b : blocks) {
            if (b.rank != rank) continue;
            std::size_t begin = d::skip_space(text, b.begin);
            std::size_t end = b.end;
            while (end > begin && d::is_space(text[end - 1])) --end;
            if (begin >= end) continue;
            d::attempt a = d::parse_at(text, begin, end, options, true);
            if (a.value) return {std::move(*a.value), begin, a.end - begin, true};
            if (a.error->code == json_text_errc::too_deep) return json_text_result(*a.error);
            if (rank < 2 && !block_failure && (a.progressed || rank == 0)) block_failure = a.error;
        }
    }
    if (block_failure) return json_text_result(*block_failure);

    std::optional<d::attempt> best;
    std::size_t best_begin = 0;
    std::size_t failure_progress = failure ? failure->offset - first : 0;
    std::size_t tried = 0;
    for (std::size_t pos = text.find_first_of("{["); pos != std::string_view::npos && tried < options.max_candidates;) {
        // A bracket followed by something no JSON value continues with (a markdown link, a
        // "{placeholder}") is passed over without counting as a try.
        std::size_t next_char = d::skip_space(text, pos + 1);
        if (next_char < text.size() && !d::may_follow_bracket(text[pos], text[next_char])) {
            pos = text.find_first_of("{[", pos + 1);
            continue;
        }
        d::attempt a = d::parse_at(text, pos, text.size(), options, false);
        if (a.value) {
            std::size_t next = a.end;  // values inside this one are not tried
            if (!best || a.end - pos > best->end - best_begin) {
                best = std::move(a);
                best_begin = pos;
            }
            pos = text.find_first_of("{[", next);
            continue;
        }
        if (a.error->code == json_text_errc::too_deep) return json_text_result(*a.error);
        // Values found do not overlap, so only failures can make the work more than linear.
        ++tried;
        if (a.progressed && (!failure || a.error->offset - pos > failure_progress)) {
            failure_progress = a.error->offset - pos;
            failure = a.error;
        }
        pos = text.find_first_of("{[", pos + 1);
    }
    // A value found wins, unless an attempt that failed went further than the value is long
    // ("see [1]: {"price": 12 EUR}" is malformed JSON, not the array [1]).
    if (best && !(failure && failure_progress > best->end - best_begin))
        return {std::move(*best->value), best_begin, best->end - best_begin, true};
    if (failure) return json_text_result(*failure);
    return json_text_result(d::no_json());
}

/// `parse_json_from_text` then `from_json<T>`: a reply's JSON as a `T`. When the text holds no
/// readable JSON the result's only error is the text's problem (`no_json`, `malformed_json` or
/// `limit`, path "").
template <class T>
from_json_result<T> from_text(std::string_view text, const from_json_options& options = {},
                              const json_text_options& text_options = {}) {
    json_text_result json = parse_json_from_text(text, text_options);
    if (!json) return {std::vector<json_problem>{json.error().problem}, {}, 0};
    return from_json<T>(json.value(), options);
}

}  // namespace parley

#endif
