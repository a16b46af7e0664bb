// parley/provider/openai_wire.hpp: what the OpenAI reply decoders share: the limits on untrusted
// replies, bounded JSON parsing, typed reading with messages that name the offending field, usage
// and finish reasons, and decode_error for error replies.
#ifndef PARLEY_PROVIDER_OPENAI_WIRE_HPP
#define PARLEY_PROVIDER_OPENAI_WIRE_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/monotonic_resource.hpp>
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
#include <system_error>
#include <utility>

namespace parley::openai {

/// Limits on what a server's reply may hold. A reply that goes past one is refused with
/// errc::protocol (a message naming the limit), never followed into a crash or unbounded memory.
struct reply_limits {
    std::size_t max_json_depth = 64;  ///< nesting of arrays and objects in one JSON text
    std::size_t max_choices = 128;  ///< choices of a reply; a choice's index must also be below it
    std::size_t max_tool_calls = 128;  ///< tool calls of one choice; a call's index must also be below it
    /// bytes a streamed reply assembles: content, refusals, tool call ids, names and arguments,
    /// plus the size of every chunk that carries log probabilities
    std::size_t max_assembled_bytes = std::size_t{32} << 20;
    std::size_t max_embeddings = 4096;  ///< vectors in an embeddings reply
    std::size_t max_embedding_dimensions = 65536;  ///< numbers in one embedding vector
};

namespace detail {

/// The longest text of an error message taken from a server (longer ones are cut).
inline constexpr std::size_t max_error_text = 4096;
/// The longest excerpt of a body that is not an error object.
inline constexpr std::size_t max_body_excerpt = 200;

/// A malformed reply; caught at the public functions and turned into a call_error.
struct wire_failure {
    std::string message;
};

/// A place in a JSON value, built on the stack as the readers descend: `choices[0].delta.content`.
struct json_path {
    const json_path* parent = nullptr;
    std::string_view key;  ///< a member name, or empty for an array element
    std::size_t index = 0;

    json_path member(std::string_view k) const noexcept { return {this, k, 0}; }
    json_path element(std::size_t i) const noexcept { return {this, {}, i}; }

    /// The path as text; the root's is its own key (the name of what is read).
    std::string str() const {
        if (!parent) return std::string(key);
        std::string s = parent->str();
        if (key.empty()) return s + "[" + std::to_string(index) + "]";
        return s + (parent->parent ? "." : ": ") + std::string(key);
    }
};

/// `s` cut to at most `max` bytes at a UTF-8 character boundary, with "..." when cut.
inline std::string cut(std::string_view s, std::size_t max) {
    if (s.size() <= max) return std::string(s);
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return std::string(s.substr(0, n)) + "...";
}

/// Replaces what looks like a secret (`sk-` followed by 16 or more key characters, or the
/// token after `Bearer `) with "[redacted]". Servers mask keys in their messages; this guards
/// against one that does not.
inline std::string redact_secrets(std::string s) {
    auto key_char = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.' || c == '~' || c == '+' || c == '/' || c == '=';
    };
    auto redact_after = [&](std::string_view marker, std::size_t min_run, bool ignore_case) {
        std::size_t from = 0;
        while (from < s.size()) {
            std::size_t at = std::string::npos;
            for (std::size_t i = from; i + marker.size() <= s.size(); ++i)
                if (ignore_case ? parley::detail::iequals(std::string_view(s).substr(i, marker.size()), marker)
                                : std::string_view(s).substr(i, marker.size()) == marker) {
                    at = i;
                    break;
                }
            if (at == std::string::npos) return;
            const std::size_t begin = at + marker.size();
            std::size_t end = begin;
            while (end < s.size() && key_char(s[end])) ++end;
            if (end - begin >= min_run) {
                s.replace(begin, end - begin, "[redacted]");
                from = begin + 10;
            } else {
                from = end > at ? end : at + 1;
            }
        }
    };
    redact_after("sk-", 16, false);
    redact_after("Bearer ", 8, true);
    return s;
}

/// An untrusted text redacted, then cut to `max` bytes (redacting first, so that a key cut short
/// is still recognised; only the first `max` + 256 bytes are read).
inline std::string bounded_text(std::string_view s, std::size_t max) {
    const bool longer = s.size() > max + 256;
    std::string r = redact_secrets(std::string(s.substr(0, max + 256)));
    if (r.size() > max) return cut(r, max);
    return longer ? r + "..." : r;
}

/// A short, printable excerpt of an untrusted text: secrets redacted, the length bounded,
/// control characters turned into spaces.
inline std::string excerpt(std::string_view s, std::size_t max = max_body_excerpt) {
    std::string out = bounded_text(s, max);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
    return out;
}

/// "a string", "an integer", ... for messages.
inline const char* kind_name(const boost::json::value& v) noexcept {
    switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "an integer";
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
    }
    return "a value";
}

/// What was found, for messages: the kind, and the value itself when it is short.
inline std::string found(const boost::json::value& v) {
    std::string s = kind_name(v);
    if (v.is_null() || v.is_object() || v.is_array()) return s;
    return s + " (" + excerpt(boost::json::serialize(v), 40) + ")";
}

[[noreturn]] inline void fail_at(const json_path& at, std::string_view expected, std::string_view what_found) {
    throw wire_failure{at.str() + ": expected " + std::string(expected) + ", found " + std::string(what_found)};
}
[[noreturn]] inline void fail_at(const json_path& at, std::string_view expected, const boost::json::value& v) {
    fail_at(at, expected, found(v));
}

/// The member `key` of `o`; null when it is missing or JSON null.
inline const boost::json::value* member(const boost::json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    return v && !v->is_null() ? v : nullptr;
}
/// The string member `key`; empty when missing or null; throws wire_failure for another kind.
inline std::optional<std::string_view> opt_string(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = member(o, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail_at(at.member(key), "a string or null", *v);
    return std::string_view(v->get_string());
}
/// The object member `key`; null when missing or null; throws wire_failure for another kind.
inline const boost::json::object* opt_object(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = member(o, key);
    if (!v) return nullptr;
    if (!v->is_object()) fail_at(at.member(key), "an object or null", *v);
    return &v->get_object();
}
/// The array member `key`; null when missing or null; throws wire_failure for another kind.
inline const boost::json::array* opt_array(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = member(o, key);
    if (!v) return nullptr;
    if (!v->is_array()) fail_at(at.member(key), "an array or null", *v);
    return &v->get_array();
}
/// A non-negative integer (an integral double is accepted); throws wire_failure otherwise.
inline std::uint64_t to_count(const boost::json::value& v, const json_path& at) {
    if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
    if (v.is_uint64()) return v.get_uint64();
    if (v.is_double() && v.get_double() >= 0 && v.get_double() < 9e15 &&
        static_cast<double>(static_cast<std::uint64_t>(v.get_double())) == v.get_double())
        return static_cast<std::uint64_t>(v.get_double());
    fail_at(at, "a non-negative integer", v);
}
/// The integer member `key`; empty when missing or null.
inline std::optional<std::int64_t> opt_integer(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = member(o, key);
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    const std::uint64_t n = to_count(*v, at.member(key));
    if (n > static_cast<std::uint64_t>(INT64_MAX)) fail_at(at.member(key), "an integer below 2^63", *v);
    return static_cast<std::int64_t>(n);
}

/// Memory for the DOM of one reply or event, on the stack while it fits (a small reply or event
/// needs no allocation). For decoders that copy what they keep: the DOM dies with the scratch.
struct json_scratch {
    json_scratch() = default;
    json_scratch(const json_scratch&) = delete;
    json_scratch& operator=(const json_scratch&) = delete;
    boost::json::storage_ptr storage() noexcept { return boost::json::storage_ptr(&resource); }

    unsigned char buffer[4096];
    boost::json::monotonic_resource resource{buffer, sizeof buffer};
};

/// Parses an untrusted JSON text with the depth limit, into the memory of `sp`; throws
/// wire_failure saying what `what` (for instance "a chat.completion.chunk") was expected and
/// what was found.
inline boost::json::value parse_bounded(std::string_view text, const reply_limits& limits, std::string_view what,
                                        boost::json::storage_ptr sp = {}) {
    boost::json::parse_options opt;
    opt.max_depth = limits.max_json_depth;
    std::error_code ec;
    boost::json::value v = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec, std::move(sp), opt);
    if (ec) {
        if (ec == boost::json::error::too_deep)
            throw wire_failure{"expected " + std::string(what) + ", found JSON nested deeper than max_json_depth (" +
                               std::to_string(limits.max_json_depth) + ")"};
        throw wire_failure{"expected " + std::string(what) + " as JSON, found text that does not parse (" + ec.message() +
                           "): \"" + excerpt(text) + "\""};
    }
    return v;
}

/// The finish reason for the provider's word.
inline finish_reason finish_from_word(std::string_view w) noexcept {
    if (w == "stop") return finish_reason::stop;
    if (w == "length") return finish_reason::length;
    if (w == "tool_calls") return finish_reason::tool_calls;
    if (w == "function_call") return finish_reason::function_call;
    if (w == "content_filter") return finish_reason::content_filter;
    if (w.empty()) return finish_reason::none;
    return finish_reason::other;
}

/// Reads a usage object: the three counts (0 when missing) and the whole object as `details`.
inline token_usage read_usage(const boost::json::object& o, const json_path& at) {
    token_usage u;
    u.prompt_tokens = opt_integer(o, "prompt_tokens", at).value_or(0);
    u.completion_tokens = opt_integer(o, "completion_tokens", at).value_or(0);
    u.total_tokens = opt_integer(o, "total_tokens", at).value_or(0);
    u.details = o;
    return u;
}

/// A usage as OpenAI writes it: `details` with the three counts set.
inline boost::json::object usage_to_json(const token_usage& u) {
    boost::json::object o = u.details;
    o["prompt_tokens"] = u.prompt_tokens;
    o["completion_tokens"] = u.completion_tokens;
    o["total_tokens"] = u.total_tokens;
    return o;
}

/// A field of an error object as text: a string as is, a number or another value as JSON, null
/// as "". Bounded and redacted.
inline std::string error_text(const boost::json::value* v, std::size_t max) {
    if (!v || v->is_null()) return {};
    if (v->is_string()) return bounded_text(v->get_string(), max);
    return bounded_text(boost::json::serialize(*v), max);
}

/// Fills `e` from the value of an `"error"` member: an object with type, message, param and code
/// (code may be a string, a number or null), or a bare string (as Ollama writes it). False when
/// it is neither (or null).
inline bool read_error_member(const boost::json::value& err, call_error& e) {
    if (err.is_string()) {
        e.code = make_error_code(errc::api_error);
        e.message = bounded_text(err.get_string(), max_error_text);
        return true;
    }
    if (!err.is_object()) return false;
    const auto& o = err.get_object();
    e.code = make_error_code(errc::api_error);
    e.type = error_text(o.if_contains("type"), 256);
    e.param = error_text(o.if_contains("param"), 256);
    e.api_code = error_text(o.if_contains("code"), 256);
    // as the official SDK words it: the message, or else the whole error object as JSON
    if (const auto* m = member(o, "message")) e.message = error_text(m, max_error_text);
    else e.message = error_text(&err, max_error_text);
    return true;
}

}  // namespace detail

/// The error of a failed call from its HTTP status, header fields and body. A body
/// `{"error": {"type", "message", "param", "code"}}` (code a string, a number or null; or
/// `{"error": "text"}`) gives errc::api_error with those fields; any other body (not JSON, not
/// that shape, empty) gives errc::http_status with a short excerpt of the body as the message.
/// The message and fields are built from the status and the body only, so no API key can enter
/// them from the request; text that looks like a key (`sk-...`, `Bearer ...`) in the body is
/// redacted, and every text is bounded.
inline call_error decode_error(int status, http_headers headers, std::string_view body, const reply_limits& limits = {}) {
    call_error e;
    e.code = make_error_code(errc::http_status);
    e.status = status;
    e.headers = std::move(headers);
    try {
        const boost::json::value v = detail::parse_bounded(body, limits, "an error object");
        if (const auto* o = v.if_object())
            if (const auto* err = detail::member(*o, "error"))
                if (detail::read_error_member(*err, e)) return e;
    } catch (const detail::wire_failure&) {
        // not JSON: the excerpt below says what came
    }
    e.message = detail::excerpt(body);
    return e;
}

}  // namespace parley::openai

#endif
