// parley/provider/detail/wire.hpp: what every wire API's codec shares: the one internal failure
// (wire_failure, thrown by the decoders and turned into a call_error at their public functions),
// places in a JSON value for messages (json_path), the one redacting excerpt of untrusted text,
// kind names, typed readers of members, bounded JSON parsing, memory for small DOMs, and the
// error objects of OpenAI-style APIs.
#ifndef PARLEY_PROVIDER_DETAIL_WIRE_HPP
#define PARLEY_PROVIDER_DETAIL_WIRE_HPP

#include <parley/chat/detail/request_fields.hpp>
#include <parley/chat/request.hpp>
#include <parley/detail/json_kind.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace parley::detail::wire {

/// The longest text of an error message taken from a server (longer ones are cut).
inline constexpr std::size_t max_error_text = 4096;
/// The longest excerpt of a body in a message.
inline constexpr std::size_t max_body_excerpt = 200;

/// A malformed reply: thrown inside the decoders, caught at their public functions and turned
/// into a call_error with errc::protocol (protocol_failure).
struct wire_failure {
    std::string message;
};

/// The call_error of a malformed reply.
inline call_error protocol_failure(int status, const http_headers& headers, std::string message) {
    call_error e;
    e.code = make_error_code(errc::protocol);
    e.status = status;
    e.message = std::move(message);
    e.headers = headers;
    return e;
}

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

/// The length of the well-formed UTF-8 sequence at `s[i]`, or 0 when the bytes there are not one
/// (overlong forms, UTF-16 surrogates and code points above U+10FFFF are not).
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
    if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) > 0x9F) || (c == 0xF0 && b(i + 1) < 0x90) ||
        (c == 0xF4 && b(i + 1) > 0x8F))
        return 0;
    return n;
}

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
inline std::string bounded_text(std::string_view s, std::size_t max = max_error_text) {
    const bool longer = s.size() > max + 256;
    std::string r = redact_secrets(std::string(s.substr(0, max + 256)));
    if (r.size() > max) return cut(r, max);
    return longer ? r + "..." : r;
}

/// A short excerpt of an untrusted text for a message, on one line: secrets redacted, runs of
/// white space and control characters made one space (none at the ends), bytes that are not
/// UTF-8 shown as '?', at most `max` bytes, cut at a character boundary and then marked "...".
inline std::string excerpt(std::string_view s, std::size_t max = max_body_excerpt) {
    const std::string text = redact_secrets(std::string(s.substr(0, max * 4 + 256)));
    const bool longer = s.size() > max * 4 + 256;
    std::string out;
    bool pending_space = false;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c <= 0x20 || c == 0x7F) {
            pending_space = !out.empty();
            ++i;
            continue;
        }
        const std::size_t n = utf8_sequence(text, i);
        const std::size_t take = n == 0 ? 1 : n;
        if (out.size() + (pending_space ? 1 : 0) + (n == 0 ? 1 : n) > max) return out + "...";
        if (pending_space) out += ' ';
        pending_space = false;
        if (n == 0) out += '?';
        else out.append(text, i, n);
        i += take;
    }
    return longer ? out + "..." : out;
}

/// "a string", "an integer", "a number" (with a fraction), "a boolean", "an object", "an array"
/// or "null", for messages.
inline const char* kind_name(const boost::json::value& v) noexcept { return parley::detail::json_kind_name(v); }

/// What was found, for messages: the kind, and the value itself when it is a short scalar.
inline std::string found(const boost::json::value& v) {
    std::string s = kind_name(v);
    if (v.is_null() || v.is_object() || v.is_array()) return s;
    return s + " (" + excerpt(boost::json::serialize(v), 40) + ")";
}
/// found() of a member that may be missing ("nothing").
inline std::string found(const boost::json::value* v) { return v ? found(*v) : std::string("nothing"); }

[[noreturn]] inline void fail_at(const json_path& at, std::string_view expected, std::string_view what_found) {
    throw wire_failure{at.str() + ": expected " + std::string(expected) + ", found " + std::string(what_found)};
}
[[noreturn]] inline void fail_at(const json_path& at, std::string_view expected, const boost::json::value& v) {
    fail_at(at, expected, found(v));
}
/// Throws wire_failure with `message` placed at `at`.
[[noreturn]] inline void fail_with(const json_path& at, std::string_view message) {
    throw wire_failure{at.str() + ": " + std::string(message)};
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
/// The string member `key`, which must be there.
inline std::string_view req_string(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_string()) fail_at(at.member(key), "a string", found(v));
    return std::string_view(v->get_string());
}
/// The object member `key`; null when missing or null; throws wire_failure for another kind.
inline const boost::json::object* opt_object(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = member(o, key);
    if (!v) return nullptr;
    if (!v->is_object()) fail_at(at.member(key), "an object or null", *v);
    return &v->get_object();
}
/// The object member `key`, which must be there.
inline const boost::json::object& req_object(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_object()) fail_at(at.member(key), "an object", found(v));
    return v->get_object();
}
/// The array member `key`; null when missing or null; throws wire_failure for another kind.
inline const boost::json::array* opt_array(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = member(o, key);
    if (!v) return nullptr;
    if (!v->is_array()) fail_at(at.member(key), "an array or null", *v);
    return &v->get_array();
}
/// The array member `key`, which must be there.
inline const boost::json::array& req_array(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_array()) fail_at(at.member(key), "an array", found(v));
    return v->get_array();
}
/// `v` as an object; throws wire_failure for another kind.
inline const boost::json::object& as_object(const boost::json::value& v, const json_path& at) {
    if (!v.is_object()) fail_at(at, "an object", v);
    return v.get_object();
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

/// The largest token count accepted in a usage object (larger counts are a protocol error, which
/// also keeps the sums of counts far from overflow).
inline constexpr std::int64_t max_token_count = 1'000'000'000'000'000'000;

/// The token count member `key` (0 when missing or null): an integer from 0 to max_token_count.
inline std::int64_t token_count(const boost::json::object& o, std::string_view key, const json_path& at) {
    const auto* v = member(o, key);
    if (!v) return 0;
    if (v->is_int64() && v->get_int64() >= 0 && v->get_int64() <= max_token_count) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(max_token_count))
        return static_cast<std::int64_t>(v->get_uint64());
    fail_at(at.member(key), "a token count (an integer from 0 to 10^18)", *v);
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
inline boost::json::value parse_bounded(std::string_view text, std::size_t max_depth, std::string_view what,
                                        boost::json::storage_ptr sp = {}) {
    boost::json::parse_options opt;
    opt.max_depth = max_depth;
    std::error_code ec;
    boost::json::value v = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec, std::move(sp), opt);
    if (ec) {
        if (ec == boost::json::error::too_deep)
            throw wire_failure{"expected " + std::string(what) + ", found JSON nested deeper than max_json_depth (" +
                               std::to_string(max_depth) + ")"};
        throw wire_failure{"expected " + std::string(what) + " as JSON, found text that does not parse (" + ec.message() +
                           "): \"" + excerpt(text) + "\""};
    }
    return v;
}

/// Counts bytes a decoder assembles against reply_limits::max_assembled_bytes.
class byte_budget {
public:
    explicit byte_budget(std::size_t max) noexcept : max_(max) {}
    /// Counts `n` more bytes; throws wire_failure past the limit.
    void add(std::size_t n) {
        used_ += n;
        if (used_ > max_)
            throw wire_failure{"expected a reply of at most max_assembled_bytes (" + std::to_string(max_) +
                               " bytes of text, reasoning and tool calls), found more"};
    }

private:
    std::size_t used_ = 0;
    std::size_t max_;
};

/// A field of an error object as text: a string as is, a number or another value as JSON, null
/// as "". Bounded and redacted.
inline std::string error_text(const boost::json::value* v, std::size_t max) {
    if (!v || v->is_null()) return {};
    if (v->is_string()) return bounded_text(v->get_string(), max);
    return bounded_text(boost::json::serialize(*v), max);
}

/// Fills `e` from the value of an OpenAI-style `"error"` member: an object with type, message,
/// param and code (code may be a string, a number or null), or a bare string (as Ollama writes
/// it). False when it is neither (or null).
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

/// The error of a failed call to an OpenAI-style API (chat completions, the Responses API,
/// embeddings): a body `{"error": {...}}` gives errc::api_error with its fields; any other body
/// errc::http_status with a short excerpt of the body as the message.
inline call_error decode_openai_error(int status, http_headers headers, std::string_view body, const reply_limits& limits) {
    call_error e;
    e.code = make_error_code(errc::http_status);
    e.status = status;
    e.headers = std::move(headers);
    if (body.size() <= limits.max_body_bytes) {
        try {
            const boost::json::value v = parse_bounded(body, limits.max_json_depth, "an error object");
            if (const auto* o = v.if_object())
                if (const auto* err = member(*o, "error"))
                    if (read_error_member(*err, e)) return e;
        } catch (const wire_failure&) {
            // not JSON: the excerpt below says what came
        }
    }
    e.message = excerpt(body);
    return e;
}

/// A request parameter an API does not have: whether the request sets it, and its name.
struct unsupported_param {
    bool set;
    std::string_view name;
};

/// Throws parley::error (errc::chat_invalid) for the first of `params` that the request sets:
/// `api` (for instance "the Anthropic Messages API") does not have it. `hint` ends the sentence
/// (what to use instead).
inline void refuse_params(std::string_view api, std::initializer_list<unsupported_param> params, std::string_view hint = {}) {
    for (const unsupported_param& p : params)
        if (p.set)
            throw error(errc::chat_invalid, "'" + std::string(p.name) + "' is not supported by " + std::string(api) +
                                                std::string(hint));
}

/// Throws parley::error (errc::chat_invalid) when word parameter `name` is set to a word `api`
/// does not take (`words`: those it takes).
inline void check_word(const std::optional<std::string>& value, std::string_view name, std::string_view api,
                       std::initializer_list<std::string_view> words) {
    if (!value) return;
    std::string list;
    std::size_t i = 0;
    for (std::string_view w : words) {
        if (w == *value) return;
        if (i > 0) list += i + 1 == words.size() ? " or " : ", ";
        list += "\"" + std::string(w) + "\"";
        ++i;
    }
    throw error(errc::chat_invalid, "'" + std::string(name) + "' is \"" + *value + "\", but " + std::string(api) +
                                        " takes " + list);
}

/// The parameters of a function definition as a tool sends them: an empty schema is an object
/// without properties (in the strict form for a strict definition).
inline boost::json::object tool_parameters(const boost::json::object& parameters, bool strict) {
    if (!parameters.empty()) return parameters;
    boost::json::object o{{"type", "object"}, {"properties", boost::json::object{}}};
    if (strict) {
        o["required"] = boost::json::array{};
        o["additionalProperties"] = false;
    }
    return o;
}

/// Throws parley::error (errc::chat_invalid) when `call_function` asks for a call (a name, or
/// "+") and `functions` lists none.
inline void check_call_listed(const request_params& p) {
    const bool forced = p.call_function && !p.call_function->empty() && *p.call_function != "*";
    if (!forced || (p.functions && !p.functions->empty())) return;
    if (*p.call_function == "+")
        throw error(errc::chat_invalid, "'call_function' '+' makes the model call a function, but the request lists no functions");
    throw error(errc::chat_invalid, "'call_function' forces '" + *p.call_function + "', but the request lists no functions");
}

/// Throws parley::error (errc::chat_invalid) when both max_tokens and max_completion_tokens are set.
inline void check_one_limit(const request_params& p) {
    if (p.max_tokens && p.max_completion_tokens)
        throw error(errc::chat_invalid, "set 'max_tokens' or 'max_completion_tokens', not both (they are the same limit)");
}

/// Merges `extra` into a request body, last: each member replaces the body's member of the same
/// name or is added at the end. Throws parley::error (errc::chat_invalid) for a member that
/// would replace the request parley builds (model, messages, input, stream, tools).
inline void merge_extra(boost::json::object& body, const boost::json::object& extra) {
    for (const auto& member : extra) {
        if (parley::detail::is_reserved_extra_key(member.key()))
            throw error(errc::chat_invalid, parley::detail::value_rule_sentence("extra") + ", found '" +
                                                std::string(member.key()) + "'");
        body[member.key()] = member.value();
    }
}

}  // namespace parley::detail::wire

#endif
