// parley/provider/openai/options.hpp: what a client_config holds for OpenAI chat completions:
// its default base URL and how requests are written, without the codecs (light to include).
#ifndef PARLEY_PROVIDER_OPENAI_OPTIONS_HPP
#define PARLEY_PROVIDER_OPENAI_OPTIONS_HPP

#include <string_view>

namespace parley::openai {

/// The base URL the official OpenAI SDKs use.
inline constexpr std::string_view base_url = "https://api.openai.com/v1";

/// How a request body is written for servers that differ from the current OpenAI API.
struct encode_options {
    /// Writes the legacy `functions` (definitions) and `function_call` ("none", "auto" or
    /// `{"name": ...}`) instead of `tools` and `tool_choice`, for servers that only know the old form.
    bool legacy_functions = false;
    /// Writes `max_tokens` as `max_completion_tokens`. OpenAI deprecated `max_tokens` and its
    /// reasoning models (o1, o3, ...) reject it; most compatible servers (Ollama, llama.cpp, vLLM,
    /// older proxies) know only `max_tokens`, which is therefore the default.
    bool max_completion_tokens = false;
    /// With a stream, asks for the final usage chunk (`"stream_options": {"include_usage": true}`).
    /// Turn it off for a server that rejects `stream_options`.
    bool stream_usage = true;
    /// Sends the reasoning text of assistant messages back as `reasoning_content`, for servers
    /// that want it during tool calls (DeepSeek's thinking mode). OpenAI and most servers do not
    /// take it, hence off by default.
    bool send_reasoning = false;
};

}  // namespace parley::openai

#endif
