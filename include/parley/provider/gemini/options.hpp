// parley/provider/gemini/options.hpp: what a client_config holds for the Gemini API:
// its default base URL and how requests are written, without the codecs (light to include).
#ifndef PARLEY_PROVIDER_GEMINI_OPTIONS_HPP
#define PARLEY_PROVIDER_GEMINI_OPTIONS_HPP

#include <string>
#include <string_view>

namespace parley::gemini {

/// The base URL of the Gemini API (the official SDKs' base URL with their default API version,
/// v1beta).
inline constexpr std::string_view base_url = "https://generativelanguage.googleapis.com/v1beta";

/// Options of encode_request.
struct encode_options {
    /// The `role` of the turn that carries function responses: "user", as the official SDK and
    /// the API's examples write it.
    std::string function_response_role = "user";
};

}  // namespace parley::gemini

#endif
