// parley/provider/anthropic/options.hpp: what a client_config holds for Anthropic Messages:
// its default base URL and how requests are written, without the codecs (light to include).
#ifndef PARLEY_PROVIDER_ANTHROPIC_OPTIONS_HPP
#define PARLEY_PROVIDER_ANTHROPIC_OPTIONS_HPP

#include <cstdint>
#include <string_view>

namespace parley::anthropic {

/// The base URL the official Anthropic SDKs use.
inline constexpr std::string_view base_url = "https://api.anthropic.com";

/// Options of encode_request.
struct encode_options {
    /// The `max_tokens` sent when the request parameters leave it unset: the Messages API requires
    /// the field, and parley's parameters make it optional. At least 1.
    std::int64_t default_max_tokens = 4096;
};

}  // namespace parley::anthropic

#endif
