// parley/provider/gemini/common.hpp: what the Google Gemini API codec's encoder and decoders
// share: the base URL, model names in paths, Google's error bodies, finish reasons, token usage,
// prompts blocked by safety, and the ids given to function calls that come without one.
#ifndef PARLEY_PROVIDER_GEMINI_COMMON_HPP
#define PARLEY_PROVIDER_GEMINI_COMMON_HPP

#include <parley/provider/gemini/options.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <system_error>
#include <string_view>
#include <utility>

namespace parley::gemini {


/// The name of this API in messages.
inline constexpr std::string_view gemini_api_name = "the Gemini API";

/// The prefix of the ids parley gives function calls that come without one (the Gemini API
/// matches a function's response to its call by name; newer models also send an id). Such an
/// id is not sent back to the API.
inline constexpr std::string_view generated_id_prefix = "gemini-call-";

/// The resource name of a model as the official SDK writes it: a name that starts with
/// `models/` or `tunedModels/` as given, any other prefixed with `models/`. Throws parley::error
/// (errc::chat_invalid) for an empty name, or one with a character outside letters, digits and
/// `-._/`, "..", or an empty segment (it goes into the request's path).
inline std::string model_resource(std::string_view model) {
    auto refuse = [&](std::string_view why) {
        throw error(errc::chat_invalid, "the model name '" + parley::detail::wire::excerpt(model, 80) + "' " +
                                            std::string(why) + " (it is part of the Gemini API's request path)");
    };
    if (model.empty()) throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    for (char c : model) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '.' || c == '_' || c == '/';
        if (!ok) refuse("has a character other than letters, digits and -._/");
    }
    if (model.find("..") != std::string_view::npos) refuse("contains '..'");
    if (model.front() == '/' || model.back() == '/' || model.find("//") != std::string_view::npos)
        refuse("has an empty path segment");
    if (model.substr(0, 7) == "models/" || model.substr(0, 12) == "tunedModels/") return std::string(model);
    return "models/" + std::string(model);
}

namespace detail {

using namespace parley::detail::wire;

/// The finish reason of a Gemini finishReason: STOP is `stop` (`tool_calls` when the candidate
/// calls functions), MAX_TOKENS is `length`; SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT,
/// SPII, IMAGE_SAFETY, IMAGE_PROHIBITED_CONTENT and IMAGE_RECITATION are `content_filter`; any
/// other word (MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS, LANGUAGE,
/// OTHER, reasons added later) is `other`.
inline finish_reason finish_of(std::string_view word, bool calls_functions) noexcept {
    if (word == "STOP") return calls_functions ? finish_reason::tool_calls : finish_reason::stop;
    if (word == "MAX_TOKENS") return finish_reason::length;
    constexpr std::string_view filtered[] = {"SAFETY",       "RECITATION",   "BLOCKLIST",
                                             "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
                                             "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"};
    for (auto f : filtered)
        if (word == f) return finish_reason::content_filter;
    if (word.empty()) return finish_reason::none;
    return finish_reason::other;
}

/// Token counts from a usageMetadata object: prompt tokens are promptTokenCount +
/// toolUsePromptTokenCount, completion tokens candidatesTokenCount + thoughtsTokenCount (parley's
/// completion tokens include reasoning), the total totalTokenCount when given (else the sum);
/// `details` is the whole object. A missing count is 0; a count that is not an integer from 0
/// to max_token_count throws wire_failure.
inline token_usage read_usage(const boost::json::object& u, const json_path& at) {
    token_usage out;
    out.prompt_tokens = token_count(u, "promptTokenCount", at) + token_count(u, "toolUsePromptTokenCount", at);
    out.completion_tokens = token_count(u, "candidatesTokenCount", at) + token_count(u, "thoughtsTokenCount", at);
    out.total_tokens = member(u, "totalTokenCount") ? token_count(u, "totalTokenCount", at)
                                                    : out.prompt_tokens + out.completion_tokens;
    out.details = u;
    return out;
}

/// Fills `e` from a Google error object (`{"error": {"code", "message", "status", "details"}}`,
/// also as the one element of an array) and returns true; false when `v` is not one. `type` is
/// the `status` (RESOURCE_EXHAUSTED, INVALID_ARGUMENT...), `api_code` the `reason` of an
/// ErrorInfo detail (API_KEY_INVALID...), `param` the field of the first BadRequest field
/// violation. The code becomes errc::api_error.
inline bool read_google_error(const boost::json::value& v, call_error& e) {
    const boost::json::value* body = &v;
    if (const auto* a = v.if_array(); a && a->size() == 1) body = &(*a)[0];
    const auto* o = body->if_object();
    if (!o) return false;
    const auto* err = member(*o, "error");
    if (!err || !err->is_object()) return false;
    const auto& eo = err->get_object();
    const auto* message = member(eo, "message");
    const auto* status = member(eo, "status");
    if ((!message || !message->is_string()) && (!status || !status->is_string())) return false;
    e.code = make_error_code(errc::api_error);
    if (message && message->is_string()) e.message = bounded_text(message->get_string());
    if (status && status->is_string()) e.type = bounded_text(status->get_string(), 256);
    if (const auto* details = member(eo, "details"); details && details->is_array()) {
        for (const auto& d : details->get_array()) {
            const auto* dobj = d.if_object();
            if (!dobj) continue;
            const auto* type = member(*dobj, "@type");
            if (!type || !type->is_string()) continue;
            const std::string_view t = type->get_string();
            if (e.api_code.empty() && t.ends_with("google.rpc.ErrorInfo"))
                if (const auto* reason = member(*dobj, "reason"); reason && reason->is_string())
                    e.api_code = bounded_text(reason->get_string(), 256);
            if (e.param.empty() && t.ends_with("google.rpc.BadRequest"))
                if (const auto* fv = member(*dobj, "fieldViolations"); fv && fv->is_array() && !fv->get_array().empty())
                    if (const auto* f = fv->get_array()[0].if_object())
                        if (const auto* field = member(*f, "field"); field && field->is_string())
                            e.param = bounded_text(field->get_string(), 256);
        }
    }
    return true;
}

/// The error of a prompt the API blocked (`promptFeedback.blockReason`, no candidates), when
/// `o` (a GenerateContentResponse) says so: errc::api_error, type "prompt_blocked", api_code the
/// block reason (SAFETY, OTHER, BLOCKLIST, PROHIBITED_CONTENT, IMAGE_SAFETY...), a message with
/// the reason and the API's blockReasonMessage, if any.
inline std::optional<call_error> blocked_prompt(const boost::json::object& o, const json_path& at) {
    const auto* feedback = opt_object(o, "promptFeedback", at);
    if (!feedback) return std::nullopt;
    const auto reason = opt_string(*feedback, "blockReason", at.member("promptFeedback"));
    if (!reason || reason->empty() || *reason == "BLOCKED_REASON_UNSPECIFIED") return std::nullopt;
    call_error e;
    e.code = make_error_code(errc::api_error);
    e.type = "prompt_blocked";
    e.api_code = bounded_text(*reason, 256);
    e.message = "the Gemini API blocked the prompt (promptFeedback.blockReason " + e.api_code + ")";
    if (const auto m = opt_string(*feedback, "blockReasonMessage", at.member("promptFeedback")); m && !m->empty())
        e.message += ": " + bounded_text(*m);
    return e;
}

/// The id given to function call `k` of candidate `candidate` of the reply `response_id` when
/// the API sent none: the same for the same reply, distinct across the calls of a reply and the
/// replies of a conversation (the API's responseId differs per reply).
inline std::string generated_call_id(std::string_view response_id, std::size_t candidate, std::size_t k) {
    std::string id(generated_id_prefix);
    if (!response_id.empty()) id += std::string(response_id.substr(0, 64)) + "-";
    id += std::to_string(candidate) + "-" + std::to_string(k);
    return id;
}

}  // namespace detail

/// The wait a Google error body asks for before a retry: the `retryDelay` of its RetryInfo
/// detail (a duration in seconds with the suffix "s": "34.4s"), rounded up to a millisecond;
/// none when the body has no such detail or is not a Google error body.
inline std::optional<std::chrono::milliseconds> retry_info_delay(std::string_view body, const reply_limits& limits = {}) {
    namespace dw = parley::detail::wire;
    if (body.size() > limits.max_body_bytes) return std::nullopt;
    try {
        const boost::json::value v = dw::parse_bounded(body, limits.max_json_depth, "an error object");
        const boost::json::value* b = &v;
        if (const auto* a = v.if_array(); a && a->size() == 1) b = &(*a)[0];
        const auto* o = b->if_object();
        const auto* err = o ? dw::member(*o, "error") : nullptr;
        const auto* details = err && err->is_object() ? dw::member(err->get_object(), "details") : nullptr;
        if (!details || !details->is_array()) return std::nullopt;
        for (const auto& d : details->get_array()) {
            const auto* dobj = d.if_object();
            const auto* type = dobj ? dw::member(*dobj, "@type") : nullptr;
            if (!type || !type->is_string() || !std::string_view(type->get_string()).ends_with("google.rpc.RetryInfo")) continue;
            const auto* delay = dw::member(*dobj, "retryDelay");
            if (!delay || !delay->is_string()) return std::nullopt;
            std::string_view s = delay->get_string();
            if (s.size() < 2 || s.back() != 's') return std::nullopt;
            s.remove_suffix(1);
            double seconds = 0;
            const auto r = std::from_chars(s.data(), s.data() + s.size(), seconds);
            if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !(seconds >= 0) || seconds > 1e9) return std::nullopt;
            return std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(std::ceil(seconds * 1000)));
        }
    } catch (const dw::wire_failure&) {
    }
    return std::nullopt;
}

/// The call_error of a failed call: a Google error body (`{"error": {"code": 429, "message":
/// "...", "status": "RESOURCE_EXHAUSTED", "details": [...]}}`, also inside a one-element array)
/// gives errc::api_error with `type` the status, `message`, `api_code` the ErrorInfo reason and
/// `param` the first BadRequest field violation (each bounded, what looks like a key redacted);
/// any other body gives errc::http_status with a short excerpt of the body. `status` and
/// `headers` are kept.
inline call_error decode_error(int status, http_headers headers, std::string_view body, const reply_limits& limits = {}) {
    namespace dw = parley::detail::wire;
    call_error e;
    e.status = status;
    if (body.size() <= limits.max_body_bytes) {
        try {
            const boost::json::value v = dw::parse_bounded(body, limits.max_json_depth, "an error object");
            if (detail::read_google_error(v, e)) {
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

}  // namespace parley::gemini

#endif
