// parley/provider/anthropic_json.hpp: what the Anthropic codec's encoder and decoders share:
// limits on untrusted replies, bounded JSON parsing, short excerpts of text for error messages,
// API error bodies, token usage and stop reasons.
#ifndef PARLEY_PROVIDER_ANTHROPIC_JSON_HPP
#define PARLEY_PROVIDER_ANTHROPIC_JSON_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace parley::anthropic {

/// Limits on what a server sends (its replies are untrusted input). A reply that exceeds one is a
/// call_error with errc::protocol naming the limit, never a crash or unbounded memory.
struct decode_limits {
    /// The largest non-streamed reply body, error body or data of one stream event, in bytes.
    std::size_t max_body_bytes = std::size_t{64} << 20;
    /// The most content blocks one reply may have (text, tool_use and blocks parley ignores).
    std::size_t max_content_blocks = 4096;
    /// The most bytes of assembled text and tool-call arguments one reply may have, together.
    std::size_t max_assembled_bytes = std::size_t{32} << 20;
    /// The deepest nesting of JSON arrays and objects accepted in a body or an event.
    std::size_t max_json_depth = 64;
};

}  // namespace parley::anthropic

namespace parley::detail::anthropic {

/// The most bytes of a server's text (an error body, a message) kept in an error message.
inline constexpr std::size_t excerpt_bytes = 200;
/// The most bytes kept of an error type or message an API error body gives.
inline constexpr std::size_t api_text_bytes = 4096;
/// The largest token count accepted in a usage object (larger counts are a protocol error, which
/// also keeps the sums of counts far from overflow).
inline constexpr std::int64_t max_token_count = 1'000'000'000'000'000'000;

/// The length of the well-formed UTF-8 sequence at `s[i]`, or 0 when the bytes there are not one.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) noexcept {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3;
    else if (c >= 0xF0 && c <= 0xF4) n = 4;
    else return 0;
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    // overlong forms, UTF-16 surrogates and code points above U+10FFFF
    if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) > 0x9F) || (c == 0xF0 && b(i + 1) < 0x90) ||
        (c == 0xF4 && b(i + 1) > 0x8F))
        return 0;
    return n;
}

/// At most `max` bytes of `s` for an error message: runs of white space and control characters
/// become one space, bytes that are not UTF-8 become '?', a cut never splits a character and is
/// marked with "...".
inline std::string excerpt(std::string_view s, std::size_t max = excerpt_bytes) {
    std::string out;
    bool pending_space = false;
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c <= 0x20 || c == 0x7F) {
            pending_space = !out.empty();
            ++i;
            continue;
        }
        const std::size_t n = utf8_sequence(s, i);
        const std::size_t take = n == 0 ? 1 : n;
        if (out.size() + (pending_space ? 1 : 0) + take > max) {
            out += "...";
            return out;
        }
        if (pending_space) out += ' ';
        pending_space = false;
        if (n == 0) out += '?';
        else out.append(s.substr(i, n));
        i += take;
    }
    return out;
}

/// `s` cut to at most `max` bytes at a character boundary, with "..." when it was cut.
inline std::string bounded(std::string_view s, std::size_t max = api_text_bytes) {
    if (s.size() <= max) return std::string(s);
    std::size_t end = max;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return std::string(s.substr(0, end)) + "...";
}

/// "an object", "an array", "a string", "a number", "a boolean" or "null".
inline std::string_view kind_name(const boost::json::value& v) noexcept {
    switch (v.kind()) {
    case boost::json::kind::object: return "an object";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::null: return "null";
    }
    return "a value";
}

/// What was found, for "expected X, found Y": the kind of an object or array, the (bounded)
/// value of a scalar.
inline std::string found(const boost::json::value& v) {
    if (v.is_object() || v.is_array()) return std::string(kind_name(v));
    return std::string(kind_name(v)) + " (" + excerpt(boost::json::serialize(v), 60) + ")";
}

/// Parses `text` as JSON with a nesting limit; on failure sets `problem` and returns nothing.
inline std::optional<boost::json::value> parse_json(std::string_view text, std::size_t max_depth, std::string& problem) {
    boost::json::parse_options options;
    options.max_depth = max_depth;
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec, {}, options);
    if (ec) {
        problem = ec == boost::json::error::too_deep
                      ? "JSON nested deeper than the limit of " + std::to_string(max_depth) + " levels"
                      : "not valid JSON (" + ec.message() + ")";
        return std::nullopt;
    }
    return v;
}

/// A call_error with errc::protocol.
inline call_error protocol_error(int status, const http_headers& headers, std::string message) {
    call_error e;
    e.code = make_error_code(errc::protocol);
    e.status = status;
    e.message = std::move(message);
    e.headers = headers;
    return e;
}

/// Fills `e` from an API error object (`{"type": "error", "error": {"type": ..., "message": ...}}`)
/// and returns true; false when `body` is not one. The code becomes errc::api_error.
inline bool read_api_error(const boost::json::object& body, call_error& e) {
    const auto* err = body.if_contains("error");
    if (!err) return false;
    if (const auto* type = body.if_contains("type"); type && !(type->is_string() && type->get_string() == "error"))
        return false;
    if (err->is_string()) {
        e.message = bounded(err->get_string());
    } else if (err->is_object()) {
        const auto& o = err->get_object();
        const auto* type = o.if_contains("type");
        const auto* message = o.if_contains("message");
        if ((!type || !type->is_string()) && (!message || !message->is_string())) return false;
        if (type && type->is_string()) e.type = bounded(type->get_string());
        if (message && message->is_string()) e.message = bounded(message->get_string());
    } else {
        return false;
    }
    e.code = make_error_code(errc::api_error);
    return true;
}

/// The finish reason of an Anthropic stop reason: end_turn and stop_sequence are `stop`,
/// max_tokens is `length`, tool_use is `tool_calls`, refusal is `content_filter`; any other word
/// (pause_turn, reasons added later) is `other`.
inline finish_reason finish_of(std::string_view stop_reason) noexcept {
    if (stop_reason == "end_turn" || stop_reason == "stop_sequence") return finish_reason::stop;
    if (stop_reason == "max_tokens") return finish_reason::length;
    if (stop_reason == "tool_use") return finish_reason::tool_calls;
    if (stop_reason == "refusal") return finish_reason::content_filter;
    return finish_reason::other;
}

/// Token counts from a usage object: prompt tokens are input_tokens + cache_creation_input_tokens
/// + cache_read_input_tokens (the API's total of input tokens), completion tokens are
/// output_tokens; `details` is the whole object. A missing or null count is 0. On a count that is
/// not an integer from 0 to max_token_count, sets `problem` and returns false.
inline bool read_usage(const boost::json::object& u, token_usage& out, std::string& problem) {
    std::int64_t counts[4] = {};
    const std::string_view keys[4] = {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                                      "output_tokens"};
    for (std::size_t k = 0; k < 4; ++k) {
        const auto* v = u.if_contains(keys[k]);
        if (!v || v->is_null()) continue;
        if (v->is_int64() && v->get_int64() >= 0 && v->get_int64() <= max_token_count) {
            counts[k] = v->get_int64();
        } else if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(max_token_count)) {
            counts[k] = static_cast<std::int64_t>(v->get_uint64());
        } else {
            problem = "expected 'usage." + std::string(keys[k]) + "' to be a token count (an integer from 0 to 10^18), found " +
                      found(*v);
            return false;
        }
    }
    out.prompt_tokens = counts[0] + counts[1] + counts[2];
    out.completion_tokens = counts[3];
    out.total_tokens = out.prompt_tokens + out.completion_tokens;
    out.details = u;
    return true;
}

}  // namespace parley::detail::anthropic

#endif
