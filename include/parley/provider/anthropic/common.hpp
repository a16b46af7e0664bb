// parley/provider/anthropic/common.hpp: what the Anthropic Messages API codec's encoder and
// decoders share: the API version, error bodies, token usage and stop reasons.
#ifndef PARLEY_PROVIDER_ANTHROPIC_COMMON_HPP
#define PARLEY_PROVIDER_ANTHROPIC_COMMON_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace parley::anthropic {

/// The value of the `anthropic-version` header field this codec is written for.
inline constexpr std::string_view api_version = "2023-06-01";

/// The name of this API in messages.
inline constexpr std::string_view messages_api_name = "the Anthropic Messages API";

namespace detail {

using namespace parley::detail::wire;

/// Fills `e` from an API error object (`{"type": "error", "error": {"type": ..., "message": ...},
/// "request_id": ...}`) and returns true; false when `body` is not one. The code becomes
/// errc::api_error.
inline bool read_api_error(const boost::json::object& body, call_error& e) {
    const auto* err = body.if_contains("error");
    if (!err) return false;
    if (const auto* type = body.if_contains("type"); type && !(type->is_string() && type->get_string() == "error"))
        return false;
    if (err->is_string()) {
        e.message = bounded_text(err->get_string());
    } else if (err->is_object()) {
        const auto& o = err->get_object();
        const auto* type = o.if_contains("type");
        const auto* message = o.if_contains("message");
        if ((!type || !type->is_string()) && (!message || !message->is_string())) return false;
        if (type && type->is_string()) e.type = bounded_text(type->get_string(), 256);
        if (message && message->is_string()) e.message = bounded_text(message->get_string());
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
/// output_tokens; `details` is the whole object. A missing or null count is 0; a count that is
/// not an integer from 0 to max_token_count throws wire_failure.
inline token_usage read_usage(const boost::json::object& u, const json_path& at) {
    token_usage out;
    out.prompt_tokens = token_count(u, "input_tokens", at) + token_count(u, "cache_creation_input_tokens", at) +
                        token_count(u, "cache_read_input_tokens", at);
    out.completion_tokens = token_count(u, "output_tokens", at);
    out.total_tokens = out.prompt_tokens + out.completion_tokens;
    out.details = u;
    return out;
}

}  // namespace detail

/// The call_error of a failed call: an API error body (`{"type": "error", "error": {"type":
/// "overloaded_error", "message": "Overloaded"}}`) gives errc::api_error with the API's type and
/// message (each cut to 4096 bytes); any other body (an HTML page from a proxy, nothing, JSON of
/// another shape) gives errc::http_status with a short excerpt of the body (at most 200 bytes,
/// white space collapsed, invalid UTF-8 shown as '?', what looks like a key redacted).
/// `status` and `headers` are kept.
inline call_error decode_error(int status, http_headers headers, std::string_view body, const reply_limits& limits = {}) {
    namespace dw = parley::detail::wire;
    call_error e;
    e.status = status;
    if (body.size() <= limits.max_body_bytes) {
        try {
            const boost::json::value v = dw::parse_bounded(body, limits.max_json_depth, "an error object");
            if (v.is_object() && detail::read_api_error(v.get_object(), e)) {
                e.headers = std::move(headers);
                return e;
            }
        } catch (const dw::wire_failure&) {
            // not JSON: the excerpt below says what came
        }
    }
    e.code = make_error_code(errc::http_status);
    e.message = body.empty() ? std::string("the reply has no body") : "the reply is not an API error: " + dw::excerpt(body);
    e.headers = std::move(headers);
    return e;
}

}  // namespace parley::anthropic

#endif
