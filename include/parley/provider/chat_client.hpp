// parley/provider/chat_client.hpp: chat calls with co_await. One client speaks one wire API
// (OpenAI chat completions and every compatible server, the OpenAI Responses API, Anthropic
// Messages, the Google Gemini API, Azure OpenAI, Ollama's native API, a program's own wire_api,
// or an in-process model) and returns parley's replies and stream events whatever the wire
// format.
#ifndef PARLEY_PROVIDER_CHAT_CLIENT_HPP
#define PARLEY_PROVIDER_CHAT_CLIENT_HPP

#include <parley/net/http_client.hpp>
#include <parley/net/ndjson.hpp>
#include <parley/net/sse.hpp>
#include <parley/provider/anthropic/options.hpp>
#include <parley/provider/azure/options.hpp>
#include <parley/provider/gemini/options.hpp>
#include <parley/provider/in_process.hpp>
#include <parley/provider/ollama/options.hpp>
#include <parley/provider/openai/options.hpp>
#include <parley/provider/reply.hpp>
#include <parley/provider/responses/options.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace parley {

/// The wire API a client speaks.
enum class api : std::uint8_t {
    openai,  ///< OpenAI chat completions (also Ollama's /v1, llama.cpp server, vLLM, OpenRouter, Groq...)
    anthropic,  ///< Anthropic Messages
    responses,  ///< the OpenAI Responses API
    echo,  ///< in process: echo_model
    scripted,  ///< in process: scripted_model
    gemini,  ///< the Google Gemini API (generateContent)
    ollama,  ///< Ollama's native API (/api/chat)
    azure,  ///< Azure OpenAI chat completions (a deployment per model)
    azure_responses,  ///< Azure OpenAI's Responses API
};

/// "openai", "anthropic", "responses", "echo", "scripted", "gemini", "ollama", "azure",
/// "azure-responses".
constexpr std::string_view api_name(api a) noexcept {
    switch (a) {
    case api::openai: return "openai";
    case api::anthropic: return "anthropic";
    case api::responses: return "responses";
    case api::echo: return "echo";
    case api::scripted: return "scripted";
    case api::gemini: return "gemini";
    case api::ollama: return "ollama";
    case api::azure: return "azure";
    case api::azure_responses: return "azure-responses";
    }
    return "?";
}

/// The API named `name`; empty for an unknown name.
constexpr std::optional<api> api_from_name(std::string_view name) noexcept {
    for (api a : {api::openai, api::anthropic, api::responses, api::echo, api::scripted, api::gemini, api::ollama,
                  api::azure, api::azure_responses})
        if (api_name(a) == name) return a;
    return std::nullopt;
}

/// The base URL the official OpenAI SDKs use.
inline constexpr std::string_view openai_base_url = openai::base_url;
/// The base URL the official Anthropic SDKs use.
inline constexpr std::string_view anthropic_base_url = anthropic::base_url;
/// The base URL of the Gemini API (with the official SDKs' default API version, v1beta).
inline constexpr std::string_view gemini_base_url = gemini::base_url;
/// The address of a local Ollama server (its default).
inline constexpr std::string_view ollama_base_url = ollama::base_url;

/// Everything a chat_client needs. The API key is sent in the API's header field and never
/// written anywhere else: a server message that quotes it has it replaced by "***".
struct client_config {
    parley::api api = api::echo;
    std::string base_url;  ///< empty: the API's official base URL
    std::string api_key;
    http_headers headers;  ///< extra header fields of every request (OpenAI-Organization, ...)
    request_params defaults;  ///< under every request's parameters (a default model, for instance)
    net::client_options net;  ///< TLS, timeouts, retries, pool, proxy
    net::sse_limits sse;  ///< bounds of a streamed reply's lines and events
    openai::encode_options openai;  ///< how api::openai writes requests
    anthropic::encode_options anthropic;  ///< how api::anthropic writes requests
    responses::encode_options responses;  ///< how api::responses writes requests
    gemini::encode_options gemini;  ///< how api::gemini writes requests
    ollama::encode_options ollama;  ///< what api::ollama sends with every request (num_ctx, keep_alive)
    /// the API version and deployment of api::azure and api::azure_responses (which also take
    /// `openai` and `responses`); `base_url` is then the resource's `{endpoint}/openai`
    azure::options azure;
    reply_limits limits;  ///< bounds of every API's replies (choices, tool calls, sizes, depth)
    /// A wire API of the program's own: when set, the client speaks it (with `base_url`,
    /// `api_key`, `headers`...), whatever `api` says.
    std::shared_ptr<const wire_api> wire;
    std::shared_ptr<echo_model> echo = std::make_shared<echo_model>();  ///< the model of api::echo
    std::shared_ptr<scripted_model> script = std::make_shared<scripted_model>();  ///< the model of api::scripted
};

/// The wire API of a configuration: `config.wire` when set, else parley's own for `config.api`
/// with the configuration's options and limits; null for the in-process models. Throws
/// parley::error (errc::invalid_argument) for api::azure and api::azure_responses without an API
/// version (`config.azure.api_version`).
PARLEY_NET_DECL std::shared_ptr<const wire_api> wire_api_of(const client_config& config);

/// How config_from_environment chooses an API when no variable names one.
struct environment_options {
    /// The API to use when `which` is empty and none of the variables is set. Empty (the
    /// default): config_from_environment throws, so that a program without its key fails
    /// instead of answering with a stand-in; `api::echo` opts in to the in-process echo model.
    std::optional<api> fallback;
    /// Replaces std::getenv (for tests).
    std::function<const char*(const char*)> getenv;
};

/// A configuration from the environment variables the official SDKs read: OPENAI_API_KEY,
/// OPENAI_BASE_URL (for api::openai and api::responses), ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
/// GOOGLE_API_KEY or GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL (api::gemini: GOOGLE_API_KEY
/// when both keys are set, as the official @google/genai SDK takes it; the base URL variable
/// names the server without the API version, which is appended: "/v1beta"),
/// AZURE_OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT and OPENAI_API_VERSION (api::azure and
/// api::azure_responses: the base URL is the endpoint followed by "/openai", or OPENAI_BASE_URL
/// when that is set, as the SDKs' AzureOpenAI takes it), OLLAMA_HOST (api::ollama: `host:port`
/// or a URL, read as Ollama's clients read it; no key). With `which` empty, the API is the
/// first of these whose variables are set: OpenAI (OPENAI_API_KEY or OPENAI_BASE_URL),
/// Anthropic (ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL), Gemini (GOOGLE_API_KEY, GEMINI_API_KEY
/// or GOOGLE_GEMINI_BASE_URL), Azure OpenAI's chat completions (AZURE_OPENAI_API_KEY or
/// AZURE_OPENAI_ENDPOINT), Ollama (OLLAMA_HOST); else `options.fallback`. Throws parley::error
/// (errc::invalid_argument, naming the variables) when none is set and there is no fallback, and
/// for an OLLAMA_HOST that is not an address.
PARLEY_NET_DECL client_config config_from_environment(std::optional<api> which = std::nullopt,
                                                      const environment_options& options = {});

namespace detail {

/// Replaces every occurrence of `secret` in `text` by "***".
inline void redact(std::string& text, std::string_view secret) {
    if (secret.size() < 4) return;  // too short to be a key; replacing would garble texts
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
        text.replace(at, secret.size(), "***");
}

inline call_error redacted(call_error e, std::string_view secret) {
    redact(e.message, secret);
    redact(e.type, secret);
    redact(e.param, secret);
    redact(e.api_code, secret);
    return e;
}

inline call_error protocol_error(std::string message, int status, http_headers headers, unsigned attempts) {
    call_error e;
    e.code = make_error_code(errc::protocol);
    e.message = std::move(message);
    e.status = status;
    e.headers = std::move(headers);
    e.attempts = attempts;
    return e;
}

inline stream_event done_event() {
    stream_event e;
    e.type = stream_event::kind::done;
    return e;
}

inline bool media_type_is(std::string_view content_type, std::string_view type) {
    const auto semi = content_type.find(';');
    std::string_view t = content_type.substr(0, semi);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    return iequals(t, type);
}

}  // namespace detail

class chat_client;

/// A streamed reply. `co_await next()` gives the events in order (text and tool-call deltas,
/// finish reasons, usage) and finally a `done` event, after which `reply()` is the whole
/// assembled reply. Dropping the stream before the end closes its connection.
class chat_stream {
public:
    chat_stream(chat_stream&&) noexcept = default;
    chat_stream& operator=(chat_stream&&) noexcept = default;

    /// The next event; `done` at the end (and again on every later call). Fails with the
    /// transport's error (errc::timeout for a stalled stream, a socket error for a broken
    /// connection), errc::api_error for an error event, errc::protocol for malformed data or a
    /// stream that ends early. After a failure the stream is spent.
    boost::asio::awaitable<boost::system::result<stream_event, call_error>> next();

    /// The reply assembled from the events read so far (complete after `done`).
    const chat_reply& reply() const noexcept;
    /// Moves the assembled reply out.
    chat_reply take_reply();
    /// True once `done` was returned.
    bool done() const noexcept { return done_; }

private:
    friend class chat_client;
    chat_stream() = default;

    boost::asio::awaitable<std::optional<call_error>> fill();
    boost::asio::awaitable<void> drain();
    /// A reply known whole (an in-process model's, a server's that did not stream), given as events.
    void deliver(chat_reply reply) {
        pending_ = events_of(reply);
        reply_ = std::move(reply);
    }
    bool decoder_done() const noexcept { return !decoder_ || decoder_->done(); }

    net::http_stream http_;
    std::unique_ptr<net::sse_reader> sse_;  ///< the reader of server-sent events, or
    std::unique_ptr<net::ndjson_reader> ndjson_;  ///< the reader of JSON lines
    std::unique_ptr<wire_stream_decoder> decoder_;  ///< null for a reply known whole
    std::string_view end_mark_;  ///< the wire API's end mark, for the message of a stream cut short
    chat_reply reply_;  ///< the reply of an in-process model or of a server that did not stream
    std::vector<stream_event> pending_;
    std::size_t next_ = 0;
    bool done_ = false;
    bool failed_ = false;
    net::sse_limits limits_;
    std::shared_ptr<const std::string> key_;
};

/// Chat calls over one wire API. Calls are coroutines on the client's executor; any number may
/// run at once (connections are pooled). `co_await client.chat(request)` gives the reply or a
/// call_error; `async_chat` takes any Asio completion token (a callback, `use_future`,
/// `use_awaitable`...).
class chat_client {
public:
    using executor_type = boost::asio::any_io_executor;

    /// Throws parley::error (errc::invalid_argument) for a base URL that does not parse, none
    /// for an API without a default one (Azure OpenAI), an Azure configuration without an API
    /// version, or an unreadable CA file.
    chat_client(executor_type ex, client_config config)
        : config_(std::move(config)),
          key_(std::make_shared<const std::string>(config_.api_key)),
          wire_(wire_api_of(config_)),
          http_(ex, net_options(config_.net, wire_)) {
        if (wire_) {
            if (config_.base_url.empty()) config_.base_url = wire_->default_base_url();
            if (config_.base_url.empty())
                throw error(errc::invalid_argument,
                            "the " + std::string(wire_->name()) + " API has no default base URL: set client_config::base_url" +
                                (wire_->name().substr(0, 5) == "azure"
                                     ? std::string(" to the resource's https://RESOURCE.openai.azure.com/openai (or set "
                                                   "AZURE_OPENAI_ENDPOINT)")
                                     : std::string()));
            base_ = net::parse_url(config_.base_url);
            chat_target_ = base_;
            chat_target_.path = net::join_path(base_.path, wire_->chat_path());
            json_fields_ = common_fields(false);
            stream_fields_ = common_fields(true);
        }
        if (!config_.echo) config_.echo = std::make_shared<echo_model>();
        if (!config_.script) config_.script = std::make_shared<scripted_model>();
    }

    executor_type get_executor() const noexcept { return http_.get_executor(); }
    const client_config& config() const noexcept { return config_; }
    /// The HTTP client underneath (connection counters, closing idle connections).
    net::http_client& http() noexcept { return http_; }

    /// Sends `request` and returns the whole reply. Throws parley::error only for a request that
    /// cannot be encoded (no model, a function without definition, a parameter the API lacks);
    /// every failure of the call itself is a call_error.
    boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat(chat_request request);

    /// `chat` with a completion token; the handler gets
    /// `(std::exception_ptr, boost::system::result<chat_reply, call_error>)`.
    template <class CompletionToken>
    auto async_chat(chat_request request, CompletionToken&& token) {
        return boost::asio::co_spawn(get_executor(), chat(std::move(request)), std::forward<CompletionToken>(token));
    }

    /// Sends `request` as a streamed call and returns the stream once the reply has begun (the
    /// call is retried until then, never after).
    boost::asio::awaitable<boost::system::result<chat_stream, call_error>> stream(chat_request request);

    /// The wire API the client speaks; null for an in-process model.
    const wire_api* wire() const noexcept { return wire_.get(); }

    /// Embeddings, through the wire API's embeddings endpoint (OpenAI's `/embeddings` for
    /// api::openai and api::responses, a deployment's for Azure, `/api/embed` for Ollama). Fails with errc::invalid_argument on an API without one
    /// (and for the in-process models); throws parley::error for a request the API cannot take.
    boost::asio::awaitable<boost::system::result<embedding_reply, call_error>> embed(embedding_request request);

private:
    /// The HTTP options of the client: the configuration's, with the wire API's reading of retry
    /// hints in error bodies unless the configuration has its own.
    static net::client_options net_options(net::client_options o, const std::shared_ptr<const wire_api>& wire) {
        if (wire && !o.retry_body_wait)
            o.retry_body_wait = [wire](const http_headers& headers, std::string_view body) {
                return wire->retry_after(headers, body);
            };
        return o;
    }
    /// The header fields of every request of this client: content types, the API key, the
    /// configured fields.
    std::shared_ptr<const http_headers> common_fields(bool stream) const {
        auto h = std::make_shared<http_headers>();
        h->add("Content-Type", "application/json");
        h->add("Accept", !stream ? "application/json"
                         : wire_->framing() == stream_framing::ndjson ? "application/x-ndjson"
                                                                       : "text/event-stream");
        wire_->add_auth(*h, config_.api_key);
        for (const auto& [name, value] : config_.headers.fields()) h->add(name, value);
        return h;
    }

    /// The reply of an in-process model (echo, scripted) to a non-streamed call.
    boost::system::result<chat_reply, call_error> in_process_reply(const chat_request& request) const;
    /// The path of a chat call: empty for the wire API's chat_path(), else its chat_target.
    std::string chat_endpoint(const chat_request& request, bool stream) const { return wire_->chat_target(request, stream); }
    /// The HTTP call of a non-streamed chat, ready to be awaited. The HTTP request is built here
    /// and handed to the call's own coroutine, so that `chat`'s coroutine frame does not hold it.
    boost::asio::awaitable<boost::system::result<net::http_response, call_error>> send_chat(const chat_request& request);
    /// The coroutine of chat(): the request on the heap, released as soon as it is encoded, so
    /// that a call in flight holds neither the request nor its copy in its frame (at hundreds of
    /// calls in flight, the memory each call touches is what its CPU time grows with).
    boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat_call(std::unique_ptr<chat_request> request);
    /// The coroutine of stream(), likewise.
    boost::asio::awaitable<boost::system::result<chat_stream, call_error>> stream_call(std::unique_ptr<chat_request> request);
    /// The result of a non-streamed chat from its HTTP reply: the decoded reply, or the error.
    boost::system::result<chat_reply, call_error> reply_of(boost::system::result<net::http_response, call_error>&& response) const;

    /// The HTTP request of a call to `endpoint` (a path and query under the base URL; empty: the
    /// chat endpoint).
    net::http_request http_request_for(std::string_view endpoint, std::string body, bool stream) const {
        net::http_request r;
        if (endpoint.empty()) {
            r.target = chat_target_;
        } else {
            r.target = base_;
            r.target.path = net::join_path(base_.path, endpoint);
        }
        r.common = stream ? stream_fields_ : json_fields_;
        r.body = std::move(body);
        return r;
    }

    /// Gives the request's unset parameters the configured defaults' values (the request's own
    /// parameters override the defaults).
    void apply_defaults(chat_request& r) const {
        if (config_.defaults.empty()) return;
        request_params p = config_.defaults;
        p.override_with(r.params);
        r.params = std::move(p);
    }

    call_error decode_error(int status, http_headers headers, std::string_view body, unsigned attempts) const {
        call_error e = wire_->decode_error(status, std::move(headers), body);
        e.attempts = attempts;
        return detail::redacted(std::move(e), *key_);
    }

    client_config config_;
    std::shared_ptr<const std::string> key_;
    std::shared_ptr<const wire_api> wire_;  ///< null for the in-process models
    net::url base_;
    net::url chat_target_;  ///< base_ with the chat endpoint's path
    std::shared_ptr<const http_headers> json_fields_;  ///< the common fields of a call
    std::shared_ptr<const http_headers> stream_fields_;  ///< the common fields of a streamed call
    net::http_client http_;
};

/// A chat client for programs without an event loop: each call runs its own io_context until
/// the call ends.
class blocking_client {
public:
    explicit blocking_client(client_config config) : client_(io_.get_executor(), std::move(config)) {}

    /// The whole reply, or why the call failed.
    boost::system::result<chat_reply, call_error> chat(chat_request request);

    /// A streamed call: `on_event` sees each event as it arrives; returns the assembled reply.
    boost::system::result<chat_reply, call_error> stream(chat_request request,
                                                          std::function<void(const stream_event&)> on_event);

    chat_client& client() noexcept { return client_; }

private:
    static boost::asio::awaitable<boost::system::result<chat_reply, call_error>> stream_all(
        chat_client& c, chat_request request, std::function<void(const stream_event&)> on_event);

    template <class T>
    T run(boost::asio::awaitable<T> call) {
        auto future = boost::asio::co_spawn(io_, std::move(call), boost::asio::use_future);
        io_.restart();
        io_.run();
        return future.get();
    }

    boost::asio::io_context io_;
    chat_client client_;
};

}  // namespace parley

#ifndef PARLEY_SEPARATE_COMPILATION
#include <parley/provider/impl/chat_client.hpp>
#endif

#endif
