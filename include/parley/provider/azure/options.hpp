// parley/provider/azure/options.hpp: what a client_config holds for Azure OpenAI:
// how a client addresses a resource, without the codecs (light to include).
#ifndef PARLEY_PROVIDER_AZURE_OPTIONS_HPP
#define PARLEY_PROVIDER_AZURE_OPTIONS_HPP

#include <string>

namespace parley::azure {

/// How a client addresses an Azure OpenAI resource (its base URL, `{endpoint}/openai`, is the
/// configuration's).
struct options {
    /// The `api-version` query every request carries ("2024-10-21", "2025-04-01-preview"...):
    /// required, as the official SDKs require it (OPENAI_API_VERSION).
    std::string api_version;
    /// The deployment of chat and embeddings calls; empty (the default): the request's model
    /// names the deployment.
    std::string deployment;
};

}  // namespace parley::azure

#endif
