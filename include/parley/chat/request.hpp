// parley/chat/request.hpp: the request parameters that default-request and request messages set.
#ifndef PARLEY_CHAT_REQUEST_HPP
#define PARLEY_CHAT_REQUEST_HPP

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace parley {

/// Stop sequences: one string or a list (kept as given, so that a template round-trips).
using stop_sequences = std::variant<std::string, std::vector<std::string>>;

/// Anthropic's extended thinking (`thinking`): "enabled" with a budget of tokens, "adaptive"
/// (the model decides), or "disabled".
struct thinking_config {
    std::string type;  ///< "enabled", "adaptive" or "disabled"
    std::optional<std::int64_t> budget_tokens;  ///< "enabled" only, and required there: at least 1024, below max_tokens
    std::optional<std::string> display;  ///< "summarized" or "omitted" (not with "disabled")
    friend bool operator==(const thinking_config&, const thinking_config&) = default;
};

/// A prompt-cache breakpoint (Anthropic's top-level `cache_control`): the API caches the request
/// up to its last cacheable block.
struct prompt_cache_control {
    std::string type = "ephemeral";  ///< the only type: "ephemeral"
    std::optional<std::string> ttl;  ///< "5m" or "1h"; unset: the API's default (5 minutes)
    friend bool operator==(const prompt_cache_control&, const prompt_cache_control&) = default;
};

/// Parameters of a chat request. Every field is optional: a `request` message overrides the
/// fields it sets on top of the nearest `default-request`. Which wire API takes which field is
/// documented in docs/client.md; a field the chosen API does not have makes the request fail
/// before it is sent.
struct request_params {
    std::optional<std::string> model;
    std::optional<std::int64_t> max_tokens;  ///< at least 1
    std::optional<double> temperature;  ///< 0 to 2
    std::optional<double> top_p;  ///< 0 to 1
    std::optional<stop_sequences> stop;  ///< up to 4 non-empty sequences
    std::optional<double> presence_penalty;  ///< -2 to 2
    std::optional<double> frequency_penalty;  ///< -2 to 2
    /// token id (decimal digits) -> bias from -100 to 100, in the order given
    std::optional<std::vector<std::pair<std::string, std::int64_t>>> logit_bias;
    std::optional<std::int64_t> seed;
    std::optional<std::int64_t> n;  ///< 1 to 128
    /// `{"type": "text"}`, `{"type": "json_object"}` or `{"type": "json_schema", "json_schema": {...}}`
    std::optional<boost::json::object> response_format;
    /// names of the functions the model may call (definitions live in the template set)
    std::optional<std::vector<std::string>> functions;
    /// "" calls none, "*" lets the model choose, "+" makes it call one (any), a name forces that function
    std::optional<std::string> call_function;

    // The fields of today's models (docs/client.md, "Request parameters").
    std::optional<std::int64_t> max_completion_tokens;  ///< at least 1; includes reasoning tokens
    std::optional<std::int64_t> top_k;  ///< at least 0 (Anthropic)
    std::optional<bool> logprobs;  ///< return the log probabilities of the output tokens
    std::optional<std::int64_t> top_logprobs;  ///< 0 to 20, with logprobs
    std::optional<bool> parallel_tool_calls;  ///< false: at most one tool call per reply
    /// "none", "minimal", "low", "medium", "high", "xhigh" or "max" (each API takes some of them)
    std::optional<std::string> reasoning_effort;
    std::optional<std::string> reasoning_summary;  ///< "auto", "concise" or "detailed" (Responses API)
    std::optional<std::string> verbosity;  ///< "low", "medium" or "high"
    std::optional<thinking_config> thinking;  ///< Anthropic's extended thinking
    std::optional<std::string> prediction;  ///< predicted output text (OpenAI chat completions)
    /// "auto", "default", "flex", "scale", "priority" (OpenAI) or "standard_only" (Anthropic)
    std::optional<std::string> service_tier;
    std::optional<bool> store;  ///< let the API keep the request and its reply
    /// up to 16 pairs: keys of at most 64 characters, values of at most 512, in the order given
    std::optional<std::vector<std::pair<std::string, std::string>>> metadata;
    std::optional<std::string> user;  ///< the end user's id (Anthropic's metadata.user_id)
    std::optional<std::string> safety_identifier;  ///< the end user's id for abuse detection (OpenAI)
    std::optional<std::string> prompt_cache_key;  ///< groups requests that share a prompt cache (OpenAI)
    std::optional<std::string> prompt_cache_retention;  ///< "in_memory" or "24h" (OpenAI)
    std::optional<prompt_cache_control> cache_control;  ///< Anthropic's prompt cache breakpoint
    std::optional<std::string> truncation;  ///< "auto" or "disabled" (Responses API)
    /// members merged into the request body last, for fields parley does not know; they may not
    /// replace `model`, `messages`, `input`, `stream` or `tools`
    std::optional<boost::json::object> extra;

    /// True when no field is set.
    bool empty() const noexcept {
        return !(model || max_tokens || temperature || top_p || stop || presence_penalty || frequency_penalty ||
                 logit_bias || seed || n || response_format || functions || call_function || max_completion_tokens ||
                 top_k || logprobs || top_logprobs || parallel_tool_calls || reasoning_effort || reasoning_summary ||
                 verbosity || thinking || prediction || service_tier || store || metadata || user ||
                 safety_identifier || prompt_cache_key || prompt_cache_retention || cache_control || truncation ||
                 extra);
    }

    /// Sets every field that `over` sets (fields `over` leaves unset keep their value); `extra`
    /// is merged member by member, `over`'s members replacing those of the same name.
    void override_with(const request_params& over) {
        auto take = [](auto& mine, const auto& theirs) {
            if (theirs) mine = theirs;
        };
        take(model, over.model);
        take(max_tokens, over.max_tokens);
        take(temperature, over.temperature);
        take(top_p, over.top_p);
        take(stop, over.stop);
        take(presence_penalty, over.presence_penalty);
        take(frequency_penalty, over.frequency_penalty);
        take(logit_bias, over.logit_bias);
        take(seed, over.seed);
        take(n, over.n);
        take(response_format, over.response_format);
        take(functions, over.functions);
        take(call_function, over.call_function);
        take(max_completion_tokens, over.max_completion_tokens);
        take(top_k, over.top_k);
        take(logprobs, over.logprobs);
        take(top_logprobs, over.top_logprobs);
        take(parallel_tool_calls, over.parallel_tool_calls);
        take(reasoning_effort, over.reasoning_effort);
        take(reasoning_summary, over.reasoning_summary);
        take(verbosity, over.verbosity);
        take(thinking, over.thinking);
        take(prediction, over.prediction);
        take(service_tier, over.service_tier);
        take(store, over.store);
        take(metadata, over.metadata);
        take(user, over.user);
        take(safety_identifier, over.safety_identifier);
        take(prompt_cache_key, over.prompt_cache_key);
        take(prompt_cache_retention, over.prompt_cache_retention);
        take(cache_control, over.cache_control);
        take(truncation, over.truncation);
        if (over.extra) {
            if (!extra) extra.emplace();
            for (const auto& member : *over.extra) (*extra)[member.key()] = member.value();
        }
    }

    friend bool operator==(const request_params&, const request_params&) = default;
};

/// Names of the request parameters as written in YAML and JSON, in the order of the struct.
inline constexpr std::string_view request_param_names[] = {
    "model",          "max_tokens",        "temperature",       "top_p",          "stop",
    "presence_penalty", "frequency_penalty", "logit_bias",       "seed",           "n",
    "response_format", "functions",        "call_function",     "max_completion_tokens", "top_k",
    "logprobs",       "top_logprobs",      "parallel_tool_calls", "reasoning_effort", "reasoning_summary",
    "verbosity",      "thinking",          "prediction",        "service_tier",   "store",
    "metadata",       "user",              "safety_identifier", "prompt_cache_key", "prompt_cache_retention",
    "cache_control",  "truncation",        "extra"};

/// True when `key` names a request parameter.
constexpr bool is_request_param(std::string_view key) noexcept {
    for (auto n : request_param_names)
        if (n == key) return true;
    return false;
}

/// The name of the first parameter `p` sets, in the order of request_param_names; empty when none.
inline std::string_view first_set_param(const request_params& p) noexcept {
    const bool set[] = {p.model.has_value(),      p.max_tokens.has_value(),       p.temperature.has_value(),
                        p.top_p.has_value(),      p.stop.has_value(),             p.presence_penalty.has_value(),
                        p.frequency_penalty.has_value(), p.logit_bias.has_value(), p.seed.has_value(),
                        p.n.has_value(),          p.response_format.has_value(), p.functions.has_value(),
                        p.call_function.has_value(), p.max_completion_tokens.has_value(), p.top_k.has_value(),
                        p.logprobs.has_value(),   p.top_logprobs.has_value(),    p.parallel_tool_calls.has_value(),
                        p.reasoning_effort.has_value(), p.reasoning_summary.has_value(), p.verbosity.has_value(),
                        p.thinking.has_value(),   p.prediction.has_value(),      p.service_tier.has_value(),
                        p.store.has_value(),      p.metadata.has_value(),        p.user.has_value(),
                        p.safety_identifier.has_value(), p.prompt_cache_key.has_value(),
                        p.prompt_cache_retention.has_value(), p.cache_control.has_value(), p.truncation.has_value(),
                        p.extra.has_value()};
    static_assert(std::size(set) == std::size(request_param_names));
    for (std::size_t i = 0; i < std::size(set); ++i)
        if (set[i]) return request_param_names[i];
    return {};
}

}  // namespace parley

#endif
