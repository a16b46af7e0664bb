// parley/provider/reply.hpp: what a chat call sends and returns, whatever the wire API: the
// request, the reply (choices, finish reasons, usage, headers) and the events of a stream (the
// error of a failed call, call_error, is the transport's: parley/net/call_error.hpp).
#ifndef PARLEY_PROVIDER_REPLY_HPP
#define PARLEY_PROVIDER_REPLY_HPP

#include <parley/chat/message.hpp>
#include <parley/chat/request.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/error.hpp>
#include <parley/net/call_error.hpp>
#include <parley/net/headers.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace parley {

/// A chat call: request parameters (the model, sampling, the functions the model may call...),
/// the messages to send (control messages are skipped) and the definitions of the functions that
/// `params.functions` names.
struct chat_request {
    request_params params;
    std::vector<message> messages;
    std::vector<function_definition> functions;
};

/// Limits on what a server's reply may hold, for every wire API (replies are untrusted input). A
/// reply that goes past one is refused with errc::protocol and a message naming the limit, never
/// followed into a crash or unbounded memory.
struct reply_limits {
    /// the largest non-streamed reply body, error body or data of one stream event, in bytes
    std::size_t max_body_bytes = std::size_t{64} << 20;
    std::size_t max_json_depth = 64;  ///< nesting of arrays and objects in one JSON text
    std::size_t max_choices = 128;  ///< choices of a reply; a choice's index must also be below it
    std::size_t max_tool_calls = 128;  ///< tool calls of one choice; a call's index must also be below it
    /// content blocks (Anthropic) or output items (Responses API) of one reply
    std::size_t max_content_blocks = 4096;
    /// bytes a reply assembles: content, refusals, reasoning, tool call ids, names and arguments,
    /// plus the size of every chunk that carries log probabilities
    std::size_t max_assembled_bytes = std::size_t{32} << 20;
    std::size_t max_embeddings = 4096;  ///< vectors in an embeddings reply
    std::size_t max_embedding_dimensions = 65536;  ///< numbers in one embedding vector
};

/// Why a choice ended, in the OpenAI vocabulary; other APIs' reasons are mapped onto it
/// (Anthropic's `end_turn` and `stop_sequence` are `stop`, `max_tokens` is `length`, `tool_use`
/// is `tool_calls`). The provider's own word is kept beside it.
enum class finish_reason : std::uint8_t { none, stop, length, tool_calls, function_call, content_filter, other };

/// The name of a finish reason: "", "stop", "length", "tool_calls", "function_call",
/// "content_filter", "other".
constexpr std::string_view finish_reason_name(finish_reason r) noexcept {
    switch (r) {
    case finish_reason::none: return "";
    case finish_reason::stop: return "stop";
    case finish_reason::length: return "length";
    case finish_reason::tool_calls: return "tool_calls";
    case finish_reason::function_call: return "function_call";
    case finish_reason::content_filter: return "content_filter";
    case finish_reason::other: return "other";
    }
    return "";
}

/// Token counts of a call. `details` is the provider's whole usage object (cached tokens,
/// reasoning tokens, ...), as received.
struct token_usage {
    std::int64_t prompt_tokens = 0;
    std::int64_t completion_tokens = 0;
    std::int64_t total_tokens = 0;
    boost::json::object details;

    /// Prompt tokens read from the provider's prompt cache: OpenAI's
    /// `prompt_tokens_details.cached_tokens`, Anthropic's `cache_read_input_tokens`, Gemini's
    /// `cachedContentTokenCount`; 0 when the reply does not say.
    std::int64_t cached_tokens() const noexcept {
        if (const auto n = detail_count(details, "prompt_tokens_details", "cached_tokens")) return *n;
        if (const auto n = detail_count(details, "input_tokens_details", "cached_tokens")) return *n;
        if (const auto n = detail_count(details, "cachedContentTokenCount")) return *n;
        return detail_count(details, "cache_read_input_tokens").value_or(0);
    }
    /// Prompt tokens written to the prompt cache (Anthropic's `cache_creation_input_tokens`).
    std::int64_t cache_creation_tokens() const noexcept {
        return detail_count(details, "cache_creation_input_tokens").value_or(0);
    }
    /// Completion tokens spent on reasoning: OpenAI's `completion_tokens_details.reasoning_tokens`,
    /// the Responses API's `output_tokens_details.reasoning_tokens`, Anthropic's
    /// `output_tokens_details.thinking_tokens`, Gemini's `thoughtsTokenCount`; 0 when the reply
    /// does not say.
    std::int64_t reasoning_tokens() const noexcept {
        if (const auto n = detail_count(details, "completion_tokens_details", "reasoning_tokens")) return *n;
        if (const auto n = detail_count(details, "output_tokens_details", "reasoning_tokens")) return *n;
        if (const auto n = detail_count(details, "thoughtsTokenCount")) return *n;
        return detail_count(details, "output_tokens_details", "thinking_tokens").value_or(0);
    }

    friend bool operator==(const token_usage&, const token_usage&) = default;

private:
    /// The non-negative integer at details[a] (or details[a][b]), if there is one.
    static std::optional<std::int64_t> detail_count(const boost::json::object& o, std::string_view a,
                                                    std::string_view b = {}) noexcept {
        const boost::json::value* v = o.if_contains(a);
        if (v && !b.empty()) v = v->is_object() ? v->get_object().if_contains(b) : nullptr;
        if (!v) return std::nullopt;
        if (const auto* i = v->if_int64(); i && *i >= 0) return *i;
        if (const auto* u = v->if_uint64(); u && *u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return static_cast<std::int64_t>(*u);
        return std::nullopt;
    }
};

/// One of the model's answers (there are several when the request sets `n`).
struct reply_choice {
    std::size_t index = 0;
    /// role assistant: content, tool calls or a legacy function call, a refusal, reasoning
    parley::message message;
    finish_reason finish = finish_reason::none;
    std::string finish_text;  ///< the provider's own word for the reason ("end_turn", "stop", ...)
    boost::json::value logprobs;  ///< the choice's log probabilities as received; null when none
    friend bool operator==(const reply_choice&, const reply_choice&) = default;
};

/// The reply to a chat call.
struct chat_reply {
    std::string id;
    std::string model;
    std::string system_fingerprint;
    std::int64_t created = 0;  ///< Unix time; 0 when the API does not say
    std::vector<reply_choice> choices;  ///< ordered by index
    std::optional<token_usage> usage;
    int status = 0;  ///< the HTTP status; 0 for in-process models
    http_headers headers;  ///< the HTTP reply's header fields (x-request-id, x-ratelimit-*, ...)
    unsigned attempts = 1;  ///< the HTTP attempts the reply took (1 + retries)

    /// The first choice's message. Throws parley::error (errc::protocol) when there is no choice.
    const parley::message& message() const {
        if (choices.empty()) throw error(errc::protocol, "the reply has no choices");
        return choices.front().message;
    }
    /// The first choice's text content ("" when it has none).
    std::string_view text() const { return message().text(); }

    friend bool operator==(const chat_reply&, const chat_reply&) = default;
};

/// One event of a streamed reply.
struct stream_event {
    enum class kind : std::uint8_t {
        text,  ///< `text` continues the content of choice `choice`
        refusal,  ///< `text` continues the refusal of choice `choice`
        reasoning,  ///< `text` continues the reasoning of choice `choice` (reasoning text, a thinking block, a summary)
        tool_call,  ///< `text` continues the arguments of tool call `tool_index` of choice `choice`; the
                    ///< first event of a call also carries its `id` and `name`
        function_call,  ///< the same for a legacy function call (`name` on the first event)
        finish,  ///< choice `choice` ended with `finish` (`finish_text` is the provider's word)
        usage,  ///< the token counts are known (read them on the assembled reply)
        done,  ///< the stream ended; the assembled reply is complete
    };
    kind type = kind::text;
    std::size_t choice = 0;
    std::size_t tool_index = 0;
    std::string text;
    std::string id;
    std::string name;
    finish_reason finish = finish_reason::none;
    std::string finish_text;
    friend bool operator==(const stream_event&, const stream_event&) = default;
};

}  // namespace parley

#endif
