// parley/provider/wire_api.hpp: what a chat client needs of a wire API, in one interface: where
// it is (base URL, path) and how it is authenticated, how a request is encoded, how a reply, an
// error and a stream (server-sent events or JSON lines) are decoded, and its embeddings
// endpoint. parley implements it once per API (parley/provider/openai/, anthropic/,
// responses/, gemini/, ollama/, azure/: one folder each); chat_client dispatches to it once per
// call. A program can implement it for another API and hand it to chat_client in
// client_config::wire.
#ifndef PARLEY_PROVIDER_WIRE_API_HPP
#define PARLEY_PROVIDER_WIRE_API_HPP

#include <parley/net/headers.hpp>
#include <parley/provider/embeddings.hpp>
#include <parley/provider/reply.hpp>

#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// How a wire API frames the events of a streamed reply.
enum class stream_framing : std::uint8_t {
    sse,  ///< server-sent events (`text/event-stream`)
    ndjson,  ///< one JSON value per line (`application/x-ndjson`): each line is an event without a name
};

/// The decoder of one streamed reply of a wire API: server-sent events in, stream events and an
/// assembled reply out.
class wire_stream_decoder {
public:
    virtual ~wire_stream_decoder() = default;

    /// Decodes one server-sent event (its `event:` name, empty when it has none, and its data)
    /// and appends the stream events it yields to `out`; a `done` event once the reply is
    /// complete. Returns the call's error (errc::api_error for an error the stream reports,
    /// errc::protocol for malformed data); the decoder is failed afterwards and returns the
    /// same error again.
    virtual std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) = 0;
    /// True once the reply is complete (the stream's end mark was decoded).
    virtual bool done() const noexcept = 0;
    /// The reply assembled so far.
    virtual const chat_reply& reply() const noexcept = 0;
    /// Moves the assembled reply out.
    virtual chat_reply take_reply() = 0;
    /// Called when the body ends before done(). A stream without an end mark of its own (one
    /// that ends with its body, as Gemini's) completes the reply here: the decoder appends its
    /// last events, a `done` among them, and returns true. The default returns false: the
    /// stream was cut short.
    virtual bool end_of_body(std::vector<stream_event>& out) {
        static_cast<void>(out);
        return false;
    }
};

/// A wire API: a format of chat requests and replies over HTTP.
class wire_api {
public:
    virtual ~wire_api() = default;

    /// Its name ("openai", "anthropic", "responses"): the name of parley::api for parley's own.
    virtual std::string_view name() const noexcept = 0;
    /// The base URL the official SDKs use, taken when the configuration gives none; empty for an
    /// API without one (each Azure OpenAI resource has its own), whose configuration must give it.
    virtual std::string_view default_base_url() const noexcept = 0;
    /// The path of the chat endpoint under the base URL ("/chat/completions", "/v1/messages").
    virtual std::string_view chat_path() const noexcept = 0;
    /// Adds the header fields that carry `api_key` (nothing when it is empty) and any the API
    /// requires of every request (a version).
    virtual void add_auth(http_headers& fields, const std::string& api_key) const = 0;
    /// The body of a chat call. Throws parley::error (errc::chat_invalid) for a request the API
    /// cannot take (no model, a parameter it does not have, a message it cannot carry).
    virtual std::string encode(const chat_request& request, bool stream) const = 0;
    /// The reply of a non-streamed call from its HTTP reply (a status outside 200-299 gives the
    /// API's error).
    virtual boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                                       std::string_view body) const = 0;
    /// The error of a failed call from its HTTP reply.
    virtual call_error decode_error(int status, http_headers headers, std::string_view body) const = 0;
    /// A decoder for a streamed reply received with these header fields and this status.
    virtual std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const = 0;
    /// How a stream marks its end, for the message of a stream cut short ("data: [DONE]").
    virtual std::string_view end_mark() const noexcept = 0;

    /// The path (and query) under the base URL of a chat call whose endpoint depends on the
    /// request (a model or deployment in the path, a query for streaming); empty, the default:
    /// chat_path() for every call.
    virtual std::string chat_target(const chat_request& request, bool stream) const {
        static_cast<void>(request);
        static_cast<void>(stream);
        return {};
    }
    /// The wait before a retry that a failed reply's body asks for (an error detail of the API's
    /// own, such as Google's RetryInfo); none, the default, when it asks for none. The client
    /// takes it when the reply's header fields (retry-after) ask for no wait.
    virtual std::optional<std::chrono::milliseconds> retry_after(const http_headers& headers, std::string_view body) const {
        static_cast<void>(headers);
        static_cast<void>(body);
        return std::nullopt;
    }
    /// How its streamed replies are framed (server-sent events by default).
    virtual stream_framing framing() const noexcept { return stream_framing::sse; }

    /// The path (and query) under the base URL of an embeddings call; empty, the default, for an
    /// API without embeddings.
    virtual std::string embed_target(const embedding_request& request) const {
        static_cast<void>(request);
        return {};
    }
    /// The body of an embeddings call. Throws parley::error (errc::invalid_argument) for a
    /// request the API cannot take, or for any request when it has no embeddings.
    virtual std::string encode_embedding(const embedding_request& request) const {
        static_cast<void>(request);
        throw error(errc::invalid_argument, "the " + std::string(name()) + " API has no embeddings endpoint");
    }
    /// The reply of an embeddings call from its HTTP reply (a status outside 200-299 gives the
    /// API's error).
    virtual boost::system::result<embedding_reply, call_error> decode_embedding(int status, http_headers headers,
                                                                                std::string_view body) const {
        return decode_error(status, std::move(headers), body);
    }
};

namespace detail {

/// A wire_stream_decoder over a decoder class whose feed takes the event's name and data.
template <class Decoder>
class named_event_decoder final : public wire_stream_decoder {
public:
    template <class... Args>
    explicit named_event_decoder(Args&&... args) : d_(std::forward<Args>(args)...) {}
    std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) override {
        return d_.feed(event, data, out);
    }
    bool done() const noexcept override { return d_.done(); }
    const chat_reply& reply() const noexcept override { return d_.reply(); }
    chat_reply take_reply() override { return d_.take_reply(); }

private:
    Decoder d_;
};

/// A wire_stream_decoder over a decoder class whose feed takes the event's data only.
template <class Decoder>
class data_event_decoder final : public wire_stream_decoder {
public:
    template <class... Args>
    explicit data_event_decoder(Args&&... args) : d_(std::forward<Args>(args)...) {}
    std::optional<call_error> feed(std::string_view, std::string_view data, std::vector<stream_event>& out) override {
        return d_.feed(data, out);
    }
    bool done() const noexcept override { return d_.done(); }
    const chat_reply& reply() const noexcept override { return d_.reply(); }
    chat_reply take_reply() override { return d_.take_reply(); }

private:
    Decoder d_;
};

}  // namespace detail

}  // namespace parley

#endif
