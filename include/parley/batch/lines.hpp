// parley/batch/lines.hpp: the JSON lines of a batch: ids, input lines (`{"id": ..., data...}`),
// output lines (`{"id": ..., "result": ...}` or `{"id": ..., "error": {...}}`, with usage,
// attempts and latency) and the reading of an output file that a run is resumed from.
// Everything here reads untrusted text: every problem is a message with the line number.
#ifndef PARLEY_BATCH_LINES_HPP
#define PARLEY_BATCH_LINES_HPP

#include <parley/error.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace parley {

/// Bounds of what a batch reads.
struct batch_line_limits {
    std::size_t max_line_bytes = 64u << 20;  ///< an input or output line, without its line break
    unsigned max_depth = 64;  ///< JSON nesting of a line
    std::size_t max_id_bytes = 1024;  ///< an id, as JSON text
};

/// One input of a batch: its id (a JSON string or integer), the data the work reads (the whole
/// line's object, `id` included) and where it came from (line number, 1 for the first; 0 when
/// it came from C++).
struct batch_input {
    boost::json::value id;
    boost::json::value data;
    std::size_t line = 0;
};

/// A line that could not be read: the message says where (`file:line`) and what was found.
struct batch_line_error {
    std::size_t line = 0;
    std::string message;
};

namespace detail::batch {

inline std::string kind_of(const boost::json::value& v) {
    switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return v.get_bool() ? "true" : "false";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
    case boost::json::kind::double_: return "a number with a fraction or exponent";
    default: return "a number";
    }
}

inline std::string where(std::string_view file, std::size_t line) {
    return (file.empty() ? std::string("line ") : std::string(file) + ":") + std::to_string(line);
}

/// The JSON text of at most `n` bytes of `text`, for messages.
inline std::string excerpt(std::string_view text, std::size_t n = 60) {
    if (text.size() <= n) return boost::json::serialize(boost::json::value(text));
    // cut at a UTF-8 character boundary
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    return boost::json::serialize(boost::json::value(text.substr(0, n))) + "...";
}

/// Parses one line as JSON within the limits; the error names the line.
inline std::optional<boost::json::value> parse_line(std::string_view text, const batch_line_limits& limits,
                                                    std::string& problem) {
    boost::json::parse_options po;
    po.max_depth = limits.max_depth;
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec, {}, po);
    if (ec) {
        problem = "not JSON (" + ec.message() + "): " + excerpt(text);
        return std::nullopt;
    }
    return v;
}

}  // namespace detail::batch

/// The key of an id (its JSON text: `"a1"` for a string, `17` for an integer), or why it is not
/// one: an id is a string or an integer (from -2^63 to 2^64 - 1), of at most
/// `limits.max_id_bytes` as JSON.
inline std::optional<std::string> batch_id_key(const boost::json::value& id, std::string& problem,
                                               const batch_line_limits& limits = {}) {
    if (!id.is_string() && !id.is_int64() && !id.is_uint64()) {
        problem = "the id must be a string or an integer, found " + detail::batch::kind_of(id);
        return std::nullopt;
    }
    std::string key = boost::json::serialize(id);
    if (key.size() > limits.max_id_bytes) {
        problem = "the id is longer than " + std::to_string(limits.max_id_bytes) + " bytes";
        return std::nullopt;
    }
    return key;
}

/// The key of an id given in C++: a string (as a JSON string), an integer, or a
/// boost::json::value that is one of those. Throws parley::error (errc::invalid_argument) for
/// anything else.
template <class Id>
std::string batch_id_key_of(const Id& id) {
    if constexpr (std::is_same_v<Id, boost::json::value>) {
        std::string problem;
        if (auto key = batch_id_key(id, problem)) return *key;
        throw error(errc::invalid_argument, problem);
    } else if constexpr (std::is_same_v<Id, bool>) {
        static_assert(!std::is_same_v<Id, bool>, "a batch input's id is a string or an integer, not a bool");
    } else if constexpr (std::is_integral_v<Id>) {
        return std::to_string(id);
    } else {
        static_assert(std::is_convertible_v<const Id&, std::string_view>,
                      "a batch input's id is a string, an integer or a boost::json::value holding one");
        return boost::json::serialize(boost::json::value(std::string_view(id)));
    }
}

/// One line of an input file read as a batch input: a JSON object with a member `id` (a string
/// or an integer). `file` and `number` name the line in the error. A blank line (white space
/// only) is neither: both the value and the error are empty.
inline std::optional<batch_input> read_batch_input_line(std::string_view text, std::size_t number, std::string_view file,
                                                        std::optional<batch_line_error>& failure,
                                                        const batch_line_limits& limits = {}) {
    failure.reset();
    auto fail = [&](const std::string& what) {
        failure = batch_line_error{number, detail::batch::where(file, number) + ": " + what};
        return std::nullopt;
    };
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) return std::nullopt;
    if (text.size() > limits.max_line_bytes)
        return fail("the line is longer than " + std::to_string(limits.max_line_bytes) + " bytes");
    std::string problem;
    auto v = detail::batch::parse_line(text, limits, problem);
    if (!v) return fail(problem);
    if (!v->is_object())
        return fail("expected a JSON object with an \"id\" (a string or an integer), found " + detail::batch::kind_of(*v));
    const boost::json::value* id = v->get_object().if_contains("id");
    if (!id) return fail("the object has no \"id\" (a string or an integer)");
    if (!batch_id_key(*id, problem, limits)) return fail(problem);
    batch_input in;
    in.id = *id;
    in.data = std::move(*v);
    in.line = number;
    return in;
}

/// What an output line says: its id's key, and whether it is a result or an error.
struct batch_output_line {
    std::string id_key;
    bool failed = false;
};

/// One complete line of an output file (without its line break) read back: an object with an
/// `id` and one of `result` or `error`. The error names the line.
inline std::optional<batch_output_line> read_batch_output_line(std::string_view text, std::size_t number, std::string_view file,
                                                               std::optional<batch_line_error>& failure,
                                                               const batch_line_limits& limits = {}) {
    failure.reset();
    auto fail = [&](const std::string& what) {
        failure = batch_line_error{number, detail::batch::where(file, number) + ": " + what};
        return std::nullopt;
    };
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.size() > limits.max_line_bytes)
        return fail("the line is longer than " + std::to_string(limits.max_line_bytes) + " bytes");
    std::string problem;
    auto v = detail::batch::parse_line(text, limits, problem);
    if (!v) return fail(problem + " (not an output line of a batch)");
    if (!v->is_object()) return fail("expected an output line of a batch (a JSON object), found " + detail::batch::kind_of(*v));
    const auto& o = v->get_object();
    const boost::json::value* id = o.if_contains("id");
    if (!id) return fail("an output line of a batch has an \"id\"; this one has none");
    auto key = batch_id_key(*id, problem, limits);
    if (!key) return fail(problem);
    const bool result = o.contains("result");
    const bool error = o.contains("error");
    if (result == error)
        return fail(std::string("an output line of a batch has either \"result\" or \"error\"; this one has ") +
                    (result ? "both" : "neither"));
    return batch_output_line{std::move(*key), error};
}

/// Splits `bytes` into lines: calls `on_line(text, number)` for each line that ends with '\n'
/// (the text without it), numbering from `first_number`; returns the offset just past the last
/// line break (what follows it is a line not yet complete). A UTF-8 byte order mark at offset 0
/// is skipped when `at_start`.
template <class OnLine>
std::size_t for_each_line(std::string_view bytes, std::size_t first_number, bool at_start, OnLine&& on_line) {
    std::size_t at = 0;
    if (at_start && bytes.starts_with("\xEF\xBB\xBF")) at = 3;
    std::size_t number = first_number;
    for (;;) {
        const std::size_t nl = bytes.find('\n', at);
        if (nl == std::string_view::npos) return at;
        on_line(bytes.substr(at, nl - at), number++);
        at = nl + 1;
    }
}

}  // namespace parley

#endif
