// parley/provider/embeddings.hpp: an embeddings request and its reply, the same for every wire
// API that has an embeddings endpoint (chat_client::embed).
#ifndef PARLEY_PROVIDER_EMBEDDINGS_HPP
#define PARLEY_PROVIDER_EMBEDDINGS_HPP

#include <parley/net/headers.hpp>
#include <parley/provider/reply.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace parley {

/// An embeddings request: one vector per input text.
struct embedding_request {
    std::string model;
    std::vector<std::string> input;  ///< the texts, each non-empty
    std::optional<std::int64_t> dimensions;  ///< fewer dimensions than the model's (models that allow it)
    std::optional<std::string> encoding_format;  ///< OpenAI: "float" or "base64" (both decoded the same)
    std::optional<std::string> user;  ///< OpenAI: an end-user identifier for the provider's abuse monitoring
    /// Gemini: what the vectors are for (its taskType: "RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT",
    /// "SEMANTIC_SIMILARITY", "CLASSIFICATION", "CLUSTERING", ...), sent as given
    std::optional<std::string> task_type;
};

/// The reply to an embeddings request.
struct embedding_reply {
    std::string model;
    std::vector<std::vector<float>> data;  ///< one vector per input, in the order of the input
    std::optional<token_usage> usage;  ///< completion_tokens is 0 for embeddings
    int status = 0;
    http_headers headers;
};

}  // namespace parley

#endif
