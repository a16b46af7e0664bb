// parley/chat/detail/builder_runtime.hpp: builder messages as messages of the runtime model.
#ifndef PARLEY_CHAT_DETAIL_BUILDER_RUNTIME_HPP
#define PARLEY_CHAT_DETAIL_BUILDER_RUNTIME_HPP

#include <parley/chat/message.hpp>
#include <parley/chat/message_builders.hpp>
#include <parley/chat/request.hpp>
#include <parley/error.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace parley::detail {

inline std::optional<std::string> optional_text(const std::optional<std::string_view>& s) {
    if (!s) return std::nullopt;
    return std::string(*s);
}

inline parley::content runtime_content(const builder::content& c) {
    switch (c.type()) {
    case builder::content::kind::none: return std::monostate{};
    case builder::content::kind::text: return std::string(c.text());
    case builder::content::kind::parts: break;
    }
    std::vector<content_part> parts;
    for (const auto& p : c.parts()) {
        if (p.is_image()) parts.push_back(content_part::make_image(std::string(p.url()), optional_text(p.detail())));
        else parts.push_back(content_part::make_text(std::string(p.text())));
    }
    return parts;
}

inline std::vector<std::string> runtime_names(const builder::name_list& names) {
    return std::vector<std::string>(names.begin(), names.end());
}

template <role R>
request_params runtime_params(const basic_request<R>& b) {
    request_params p;
    if (b.model) p.model = std::string(*b.model);
    p.max_tokens = b.max_tokens;
    p.temperature = b.temperature;
    p.top_p = b.top_p;
    if (b.stop.is_set()) {
        if (b.stop.is_one()) p.stop = std::string(b.stop.sequences()[0]);
        else p.stop = std::vector<std::string>(b.stop.sequences().begin(), b.stop.sequences().end());
    }
    p.presence_penalty = b.presence_penalty;
    p.frequency_penalty = b.frequency_penalty;
    if (b.logit_bias.is_set()) {
        p.logit_bias.emplace();
        for (const auto& e : b.logit_bias) p.logit_bias->emplace_back(std::string(e.token), e.bias);
    }
    p.seed = b.seed;
    p.n = b.n;
    if (b.response_format) {
        boost::json::value v = boost::json::parse(*b.response_format);
        if (!v.is_object()) throw error(errc::chat_invalid, "'response_format' is not a JSON object");
        p.response_format = std::move(v.as_object());
    }
    if (b.functions.is_set()) p.functions = runtime_names(b.functions);
    if (b.call_function) p.call_function = std::string(*b.call_function);
    p.max_completion_tokens = b.max_completion_tokens;
    p.top_k = b.top_k;
    p.logprobs = b.logprobs;
    p.top_logprobs = b.top_logprobs;
    p.parallel_tool_calls = b.parallel_tool_calls;
    auto text = [](std::optional<std::string>& to, const std::optional<std::string_view>& from) {
        if (from) to = std::string(*from);
    };
    text(p.reasoning_effort, b.reasoning_effort);
    text(p.reasoning_summary, b.reasoning_summary);
    text(p.verbosity, b.verbosity);
    if (b.thinking)
        p.thinking = thinking_config{std::string(b.thinking->type), b.thinking->budget_tokens, optional_text(b.thinking->display)};
    text(p.prediction, b.prediction);
    text(p.service_tier, b.service_tier);
    p.store = b.store;
    if (b.metadata.is_set()) {
        p.metadata.emplace();
        for (const auto& e : b.metadata) p.metadata->emplace_back(std::string(e.key), std::string(e.value));
    }
    text(p.user, b.user);
    text(p.safety_identifier, b.safety_identifier);
    text(p.prompt_cache_key, b.prompt_cache_key);
    text(p.prompt_cache_retention, b.prompt_cache_retention);
    if (b.cache_control)
        p.cache_control = prompt_cache_control{std::string(b.cache_control->type), optional_text(b.cache_control->ttl)};
    text(p.truncation, b.truncation);
    if (b.extra) {
        boost::json::value v = boost::json::parse(*b.extra);
        if (!v.is_object()) throw error(errc::chat_invalid, "'extra' is not a JSON object");
        p.extra = std::move(v.as_object());
    }
    return p;
}

template <class M>
message runtime_message(const M& b) {
    message m;
    m.role = M::role;
    if constexpr (std::is_same_v<M, default_request> || std::is_same_v<M, request>) {
        m.params = runtime_params(b);
    } else if constexpr (!std::is_same_v<M, truncate>) {
        m.name = optional_text(b.name);
        m.content = runtime_content(b.content);
        if constexpr (std::is_same_v<M, tool>) m.tool_call_id = optional_text(b.tool_call_id);
        if constexpr (std::is_same_v<M, assistant>) {
            if (b.function_call.given)
                m.function_call = parley::function_call{std::string(b.function_call.name),
                                                        std::string(b.function_call.arguments)};
            for (const auto& c : b.tool_calls)
                m.tool_calls.push_back(
                    {std::string(c.id), {std::string(c.function.name), std::string(c.function.arguments)}});
        }
    }
    return m;
}

}  // namespace parley::detail

#endif
