// parley/provider/ollama/options.hpp: what a client_config holds for Ollama's native API:
// its default base URL and how requests are written, without the codecs (light to include).
#ifndef PARLEY_PROVIDER_OLLAMA_OPTIONS_HPP
#define PARLEY_PROVIDER_OLLAMA_OPTIONS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace parley::ollama {

/// The address an Ollama server listens on by default (its official clients' default host).
inline constexpr std::string_view base_url = "http://127.0.0.1:11434";

/// Options of encode_request (and of the embeddings request): values sent with every request
/// that does not set them itself (through `extra`).
struct encode_options {
    /// `options.num_ctx`: the context window, in tokens, Ollama loads the model with. Ollama's own
    /// default is small (a few thousand tokens, depending on its version) and a longer
    /// conversation loses its oldest messages without an error: set it to what the conversations
    /// need. At least 1.
    std::optional<std::int64_t> num_ctx;
    /// `keep_alive`: how long the server keeps the model loaded after the request ("5m", "1h";
    /// "0" unloads it at once, "-1" keeps it). Unset: the server's default (5 minutes).
    std::optional<std::string> keep_alive;
};

}  // namespace parley::ollama

#endif
