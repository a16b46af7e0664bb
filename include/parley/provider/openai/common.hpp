// parley/provider/openai/common.hpp: what the OpenAI chat-completions decoders share: finish
// reasons, usage objects, and decode_error for error replies.
#ifndef PARLEY_PROVIDER_OPENAI_COMMON_HPP
#define PARLEY_PROVIDER_OPENAI_COMMON_HPP

#include <parley/net/headers.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>

#include <string_view>
#include <utility>

namespace parley::openai {

namespace detail {

using namespace parley::detail::wire;

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

}  // namespace detail

/// The error of a failed call from its HTTP status, header fields and body. A body
/// `{"error": {"type", "message", "param", "code"}}` (code a string, a number or null; or
/// `{"error": "text"}`) gives errc::api_error with those fields; any other body (not JSON, not
/// that shape, empty) gives errc::http_status with a short excerpt of the body as the message.
/// The message and fields are built from the status and the body only, so no API key can enter
/// them from the request; text that looks like a key (`sk-...`, `Bearer ...`) in the body is
/// redacted, and every text is bounded.
inline call_error decode_error(int status, http_headers headers, std::string_view body, const reply_limits& limits = {}) {
    return parley::detail::wire::decode_openai_error(status, std::move(headers), body, limits);
}

}  // namespace parley::openai

#endif
