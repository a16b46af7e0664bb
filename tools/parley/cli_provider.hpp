// The model options the commands that call models share (`parley chat`, `parley run`):
// --api (or --provider), --base-url, --ca-file and the environment of the official SDKs.
#ifndef PARLEY_TOOLS_CLI_PROVIDER_HPP
#define PARLEY_TOOLS_CLI_PROVIDER_HPP

#include "cli_options.hpp"

#include <parley/provider/chat_client.hpp>

#include <iostream>
#include <optional>
#include <string>

namespace parley_cli {

/// The API `--provider NAME` names (nothing without the option). Throws usage_error for a name
/// that is not one of openai, responses, anthropic, gemini, ollama, azure, azure-responses, echo
/// (and scripted when `scripted_allowed`).
inline std::optional<parley::api> provider_option(const std::optional<std::string>& name, bool scripted_allowed,
                                                  std::string_view option = "--provider") {
    if (!name) return std::nullopt;
    const std::optional<parley::api> which = parley::api_from_name(*name);
    if (!which || (*which == parley::api::scripted && !scripted_allowed))
        throw usage_error(std::string(option) + " must be openai, responses, anthropic, gemini, ollama, azure, azure-responses" +
                          (scripted_allowed ? ", echo or scripted" : " or echo") + ", not '" + *name + "'");
    return which;
}

/// The API of `--api NAME` or its other name `--provider NAME` (nothing without either).
/// Throws usage_error as provider_option, and when both are given with different names.
inline std::optional<parley::api> api_option(const std::optional<std::string>& api, const std::optional<std::string>& provider,
                                             bool scripted_allowed) {
    if (api && provider && *api != *provider)
        throw usage_error("--api and --provider name the same thing: give one (found '" + *api + "' and '" + *provider + "')");
    return api ? provider_option(api, scripted_allowed, "--api") : provider_option(provider, scripted_allowed);
}

/// The client configuration of the options and the environment: the provider's API (else OpenAI
/// when OPENAI_API_KEY or OPENAI_BASE_URL is set, or --base-url is given, else Anthropic when
/// ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL is set, else Gemini when GOOGLE_API_KEY,
/// GEMINI_API_KEY or GOOGLE_GEMINI_BASE_URL is set, else Azure OpenAI when AZURE_OPENAI_API_KEY
/// or AZURE_OPENAI_ENDPOINT is set, else Ollama when OLLAMA_HOST is set, else echo), its base
/// URL and key, the extra CA file. With nothing configured, says on stderr that `fallback`
/// answers.
inline parley::client_config client_config_of(std::optional<parley::api> which, const std::optional<std::string>& base_url,
                                              const std::optional<std::string>& ca_file, const char* fallback) {
    parley::environment_options echo_when_unset;
    echo_when_unset.fallback = parley::api::echo;  // visibly: the notice below
    parley::client_config config = parley::config_from_environment(which, echo_when_unset);
    if (base_url) {
        if (!which) config = parley::config_from_environment(parley::api::openai);
        config.base_url = *base_url;
    }
    if (config.api == parley::api::echo && !which)
        std::cerr << "parley: no API configured (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, "
                     "ANTHROPIC_BASE_URL, GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL, AZURE_OPENAI_API_KEY, "
                     "AZURE_OPENAI_ENDPOINT, OLLAMA_HOST, --api, --base-url): "
                  << fallback << " answers\n";
    if (ca_file) config.net.tls.ca_file = *ca_file;
    return config;
}

}  // namespace parley_cli

#endif
