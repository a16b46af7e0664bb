// parley/provider/responses/options.hpp: what a client_config holds for the OpenAI Responses API:
// how requests are written, without the codecs (light to include).
#ifndef PARLEY_PROVIDER_RESPONSES_OPTIONS_HPP
#define PARLEY_PROVIDER_RESPONSES_OPTIONS_HPP


namespace parley::responses {

/// Options of encode_request.
struct encode_options {
    /// Sends a conversation that begins with one system message with that message as
    /// `instructions` (the API's place for it); off: every system message is an input message
    /// with role "system".
    bool instructions = true;
};

}  // namespace parley::responses

#endif
