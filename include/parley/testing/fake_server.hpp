// parley/testing/fake_server.hpp: a fake OpenAI / Azure OpenAI / Anthropic / Gemini / Ollama model
// server for the tests of programs that call models (and for parley's own tests, benchmarks and
// `parley fake-server`). Boost.Beast HTTP/1.1 on loopback (optionally TLS), keep-alive, answers
// from a script of steps: replies encoded in the wire format of the route they are answered on
// (chat completions, the Responses API, Anthropic Messages, the Gemini API, Ollama's API,
// embeddings; JSON, server-sent events or JSON lines; the batch APIs of OpenAI and Anthropic,
// whose requests are answered the same way), recorded files replayed byte for byte,
// HTTP errors and faults (slow headers, stalls, disconnects, malformed JSON, error
// events, wrong content type, connections closed while idle). It records every request and can
// act as an HTTP CONNECT proxy. It shares no code with parley's clients (it uses Boost and
// parley's support layer only): it is an independent reading of the wire formats, there to catch
// the clients' mistakes.
//
// The script format (JSON and C++) is described in docs/fake-server.md. Link the CMake target
// parley::testing (OpenSSL and threads). Header-only by default; with PARLEY_SEPARATE_COMPILATION
// (parley/config.hpp) the code of impl/fake_server.hpp is compiled once, by
// <parley/testing/src.hpp> (the target parley::testing_compiled).
#ifndef PARLEY_TESTING_FAKE_SERVER_HPP
#define PARLEY_TESTING_FAKE_SERVER_HPP

#include <parley/config.hpp>

#include <boost/json/value.hpp>

#include <sys/socket.h>  // SOMAXCONN

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::testing {

/// The routes the server answers (matched on the end of the path, so any base path works).
enum class fake_route {
    openai,        ///< POST .../chat/completions
    anthropic,     ///< POST .../messages
    embeddings,    ///< POST .../embeddings
    models,        ///< GET .../models
    responses,     ///< POST .../responses
    count_tokens,  ///< POST .../messages/count_tokens
    gemini,        ///< POST .../models/MODEL:generateContent, :streamGenerateContent?alt=sse (Gemini)
    gemini_embeddings,  ///< POST .../models/MODEL:embedContent, :batchEmbedContents (Gemini)
    ollama,        ///< POST .../api/chat (Ollama)
    ollama_embeddings,  ///< POST .../api/embed (Ollama)
    files,  ///< .../files, .../files/ID, .../files/ID/content (OpenAI's files, for batches)
    batches,  ///< .../batches, .../batches/ID, .../batches/ID/cancel (OpenAI's Batch API)
    message_batches,  ///< .../messages/batches, .../ID, .../ID/results, .../ID/cancel (Anthropic's Message Batches API)
};

/// One tool (function) call of a scripted reply. `arguments` is the JSON text of the arguments as
/// the model writes it (it is streamed in pieces); an empty id is replaced by a generated one.
struct fake_tool_call {
    std::string id;         ///< the call's id (empty: generated)
    std::string name;       ///< the function called
    std::string arguments;  ///< the arguments' JSON text, sent as written
};

/// One choice of a scripted reply. `finish` may be given in OpenAI terms ("stop", "length",
/// "tool_calls", "content_filter") or Anthropic terms ("end_turn", "max_tokens", "tool_use",
/// "stop_sequence", "refusal"); it is translated for the route. Empty: "stop"/"end_turn", or
/// "tool_calls"/"tool_use" when the choice calls tools.
struct fake_choice {
    std::string text;                        ///< the reply's text
    std::vector<fake_tool_call> tool_calls;  ///< the tools the reply calls
    std::string finish;                      ///< why the model stopped (empty: from the content)
    std::string refusal;  ///< OpenAI's `refusal` (content is then null); not sent on Anthropic
    /// the model's reasoning: `reasoning_content` (chat completions), a thinking block with a
    /// signature (Anthropic), a reasoning item with a summary (Responses API)
    std::string reasoning;
    bool default_text = false;  ///< no text, refusal, tool call or reasoning was scripted: the default reply's text
};

/// Token counts of a scripted reply (prompt = input tokens, completion = output tokens).
struct fake_usage {
    std::size_t prompt = 0;  ///< every input token, cached ones included
    std::size_t completion = 0;  ///< every output token, reasoning ones included
    std::size_t cached = 0;  ///< input tokens read from the prompt cache
    std::size_t cache_write = 0;  ///< input tokens written to the prompt cache (Anthropic)
    std::size_t reasoning = 0;  ///< output tokens spent on reasoning (OpenAI)
};

/// A scripted reply. Anthropic has a single choice: only `choices[0]` is sent there.
struct fake_reply {
    std::vector<fake_choice> choices;       ///< empty: one choice echoing the last user text
    std::optional<fake_usage> usage;        ///< absent: estimated from the sizes
    std::string model;                      ///< empty: the request's model
    std::size_t delta_size = 4;             ///< bytes of text / arguments per streamed delta
    std::vector<std::vector<double>> embeddings;  ///< embeddings route: these vectors
    std::size_t dimensions = 0;             ///< embeddings route: vector size (0: request's or 16)
    /// Gemini routes: the prompt is blocked (`promptFeedback.blockReason`, no candidates): SAFETY, OTHER...
    std::string block_reason;

    /// A reply of one choice with this text.
    static fake_reply with_text(std::string text, std::string finish = {}) {
        fake_reply r;
        r.choices.push_back({std::move(text), {}, std::move(finish), {}, {}, false});
        return r;
    }
    /// A reply of one choice calling these tools.
    static fake_reply with_tool_calls(std::vector<fake_tool_call> calls) {
        fake_reply r;
        r.choices.push_back({{}, std::move(calls), {}, {}, {}, false});
        return r;
    }
};

/// Misbehaviours a step can show (docs/fake-server.md describes each).
enum class fake_fault {
    none,                ///< no misbehaviour
    slow_headers,        ///< wait `delay` before sending anything, then answer
    stall,               ///< send `after_bytes` body bytes (nothing at all when absent), then nothing
    disconnect,          ///< send `after_bytes` body bytes (nothing at all when absent), then close
    malformed_json,      ///< a 200 whose body is not JSON, or a stream event whose data is not JSON
    error_event,         ///< after `after_events` events, an error event, then the end of the stream
    wrong_content_type,  ///< a 200 with Content-Type text/html and an HTML body
    close_idle,          ///< answer, then close the connection without saying `Connection: close`
};

/// How a body is cut into writes (each piece is written and flushed on its own; streams use one
/// HTTP chunk per piece). Default: a stream is sent one SSE event per HTTP chunk, all at once.
struct fake_chunking {
    std::size_t size = 0;        ///< fixed bytes per write (0: not fixed)
    bool random = false;         ///< sizes drawn uniformly in [1, random_max] from `seed`
    std::uint64_t seed = 0;      ///< the seed of `random`'s sizes (the same seed, the same cuts)
    std::size_t random_max = 4096;  ///< the largest size `random` draws

    /// Whether the body is cut (a size or random sizes were asked for).
    bool active() const noexcept { return size > 0 || random; }
};

/// The error object of a status reply's default body or of an error event.
struct fake_error {
    /// empty: chosen from the status / route; "content_filter" on a status step: the error body
    /// of Azure's content filter (code content_filter, an innererror naming the category)
    std::string type;
    std::string message;  ///< empty: a default message
};

/// One step of a script: what the server answers to one request. At most one of `reply`,
/// `replay` and `status` is set; none means the default reply (echo of the last user text).
struct fake_step {
    std::optional<fake_route> route;  ///< answer only a request on this route (absent: any POST route)
    /// Answer only a request whose body holds this text (as received: JSON strings escaped);
    /// empty: any request. Scripts a conversation of its own among concurrent ones.
    std::string match{};
    std::optional<fake_reply> reply;  ///< a reply encoded for the route and the request's `stream`
    std::string replay;               ///< path of a recorded stream (SSE; JSON lines on Ollama's route), sent as-is
    unsigned status = 0;              ///< non-zero: an HTTP status reply
    std::optional<std::string> body;  ///< the status reply's body (absent: an error JSON for the route)
    std::vector<std::pair<std::string, std::string>> headers;  ///< extra header fields, replacing defaults
    fake_fault fault = fake_fault::none;       ///< the misbehaviour of the answer
    std::chrono::milliseconds delay{0};        ///< wait before answering (slow_headers: default 1 s)
    std::chrono::milliseconds chunk_delay{0};  ///< wait between the writes of a chunked body
    std::optional<std::size_t> after_bytes;    ///< stall / disconnect: body bytes sent first
    std::size_t after_events = 1;              ///< error_event / malformed_json: events sent first
    std::string variant;                       ///< malformed_json: "body" or "event" (default: by `stream`)
    fake_error error;                          ///< error_event / status: the error object
    fake_chunking chunking;                    ///< how the body is cut into writes

    /// A reply step with one choice of text.
    static fake_step text(std::string text, std::string finish = {}) {
        fake_step s;
        s.reply = fake_reply::with_text(std::move(text), std::move(finish));
        return s;
    }
    /// A reply step with one choice calling tools.
    static fake_step tool_calls(std::vector<fake_tool_call> calls) {
        fake_step s;
        s.reply = fake_reply::with_tool_calls(std::move(calls));
        return s;
    }
    /// A status reply with these header fields and body (empty body: an error JSON for the route).
    static fake_step http_status(unsigned status, std::vector<std::pair<std::string, std::string>> headers = {},
                                 std::optional<std::string> body = std::nullopt) {
        fake_step s;
        s.status = status;
        s.headers = std::move(headers);
        s.body = std::move(body);
        return s;
    }
    /// A replay of a recorded SSE file.
    static fake_step replay_file(std::string path, fake_chunking chunking = {}) {
        fake_step s;
        s.replay = std::move(path);
        s.chunking = chunking;
        return s;
    }
    /// A fault step (answering with the default reply where the fault answers at all).
    static fake_step with_fault(fake_fault fault, std::optional<std::size_t> after_bytes = std::nullopt) {
        fake_step s;
        s.fault = fault;
        s.after_bytes = after_bytes;
        return s;
    }
};

/// Faults mixed into a share of the chat requests (chat completions, Responses, Anthropic
/// Messages), for load tests: each such request is, with probability `rate`, answered by one of
/// `faults` (drawn with equal chances) instead of the script, which then keeps its step for the
/// next request. The draws depend on `seed` and the request's rank of arrival only.
/// docs/fake-server.md, "Fault mix".
struct fake_fault_mix {
    double rate = 0;  ///< the share of chat requests answered with a fault, from 0 to 1
    std::uint64_t seed = 1;  ///< the same seed, the same ranks fault, with the same faults
    /// The faults, as steps; empty: fake_standard_faults().
    std::vector<fake_step> faults;
};

/// A request limit per window, with the rate-limit header fields of the real APIs on every reply
/// of a chat route: `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests` and
/// `x-ratelimit-reset-requests` (a duration such as "120ms") on OpenAI's routes,
/// `anthropic-ratelimit-requests-limit`, `-remaining` and `-reset` (an RFC 3339 time) on
/// Anthropic's. A request over the limit gets a 429 (with `retry-after-ms` when `retry_after`).
/// Windows are fixed: the first request opens one, and the count starts again when it ends.
struct fake_rate_limit {
    std::size_t requests = 0;  ///< requests allowed per window (0: no limit, no fields)
    std::chrono::milliseconds window{1000};  ///< the window's length
    bool retry_after = true;  ///< the 429 also says `retry-after-ms` (else only the reset fields)
};

/// How the batches of the batch APIs (OpenAI's /v1/batches, Anthropic's /v1/messages/batches)
/// move through their states, one step per retrieval of the batch (GET .../batches/ID), so
/// that a test sees each state without waiting. docs/fake-server.md, "Batch APIs".
struct fake_batch_options {
    /// Retrievals that see each state before the next: OpenAI's validating, in_progress,
    /// finalizing and cancelling, Anthropic's in_progress and canceling. 0: a batch has ended
    /// at its first retrieval.
    std::size_t polls = 1;
    /// Requests answered at each retrieval in progress (0: all of them at the first); in_progress
    /// lasts until every request is answered, and at least `polls` retrievals.
    std::size_t per_poll = 0;
    /// The batch expires after `polls` retrievals in progress: the requests not answered by then
    /// expire (OpenAI's status expired; Anthropic's results of type expired).
    bool expire = false;
    /// The most requests of one batch (0: the API's, 50,000 for OpenAI, 100,000 for Anthropic).
    std::size_t max_requests = 0;
    /// The most bytes of one batch: OpenAI's file, Anthropic's request body (0: the API's, 200 MB
    /// and 256 MB).
    std::size_t max_bytes = 0;
};

/// A script: steps taken in order. With `repeat`, a step taken goes back to the end of the queue.
struct fake_script {
    std::vector<fake_step> steps;  ///< the steps, the first answered first
    bool repeat = false;           ///< a step taken goes back to the end of the queue
    fake_fault_mix fault_mix{};    ///< faults in a share of the requests (rate 0: none)
    fake_rate_limit rate_limit{};  ///< a request limit (0 requests: none)
    fake_batch_options batch{};    ///< how batches of the batch APIs move through their states
};

/// The faults a fake_fault_mix without faults draws from, one kind each (docs/fake-server.md):
/// a 429 with `retry-after-ms: 20`, `x-ratelimit-remaining-requests: 0` and
/// `x-ratelimit-reset-requests: 20ms`; a 500; a 503; the connection closed before the reply; the
/// connection closed after 24 bytes of the body (a cut stream or body); nothing sent at all (the
/// client's time-out); 24 bytes of the body, then nothing (a time-out in the middle of a body).
PARLEY_DECL std::vector<fake_step> fake_standard_faults();

/// A request as the server received it.
struct recorded_request {
    std::string method;  ///< "POST", "GET", "CONNECT"...
    std::string target;  ///< the request target as sent ("/v1/chat/completions", "host:443" for CONNECT)
    std::vector<std::pair<std::string, std::string>> headers;  ///< the header fields, in the order sent
    std::string body;    ///< the body, as received
    bool tls = false;            ///< received over TLS
    std::size_t connection = 0;  ///< number of the connection it came on (1 for the first accepted)
    std::chrono::steady_clock::time_point received{};  ///< when its header and body had arrived

    /// The value of the first header field named `name` (any case), or "" when there is none.
    std::string header(std::string_view name) const {
        for (const auto& [n, v] : headers)
            if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
                    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
                }))
                return v;
        return {};
    }
    /// Whether a header field named `name` (any case) was sent.
    bool has_header(std::string_view name) const {
        for (const auto& [n, v] : headers)
            if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
                    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
                }))
                return true;
        return false;
    }
    /// The body parsed as JSON; throws boost::system::system_error when it is not JSON.
    boost::json::value json() const;
};

/// What a fake_server is started with.
struct fake_server_options {
    std::string host = "127.0.0.1";  ///< the address to listen on
    unsigned short port = 0;  ///< 0: any free port (see fake_server::port())
    std::size_t threads = 1;  ///< threads running the server's io_context
    /// TLS: the certificate chain and the private key in PEM. With TLS, plain connections are
    /// closed unless `proxy` is on (then one port serves both, told apart by the first byte).
    std::string tls_certificate_chain_pem;  ///< the server's certificate, then its issuers' (empty: no TLS)
    std::string tls_private_key_pem;        ///< the private key of the chain's first certificate
    bool proxy = false;                        ///< also act as an HTTP CONNECT proxy
    std::string proxy_authorization;           ///< non-empty: the Proxy-Authorization value required (else 407)
    /// non-empty: require `Authorization: Bearer KEY` / `x-api-key: KEY` (else 401; an Azure
    /// request, one with `?api-version=`, may give `api-key: KEY` instead), on the Gemini routes
    /// `x-goog-api-key: KEY` or `?key=KEY` (else 403 without a key, 400 with another)
    std::string api_key;
    bool record = true;                        ///< keep every request for requests()
    int backlog = SOMAXCONN;                   ///< the listen queue (default: the system's maximum)
    std::size_t max_body = 64u << 20;          ///< bigger request bodies are refused (413)
    fake_script script;                        ///< the initial script
    /// Called (on a server thread) for each request received, after it is recorded.
    std::function<void(const recorded_request&, unsigned status)> on_request;
};

namespace detail {

/// Appends `s` to `out` as a JSON string (quoted, escaped).
PARLEY_DECL void append_json_string(std::string& out, std::string_view s);
/// `s` as a JSON string (quoted, escaped).
PARLEY_DECL std::string json_string(std::string_view s);
/// Whether `a` and `b` are equal ignoring ASCII case.
PARLEY_DECL bool iequals(std::string_view a, std::string_view b);
/// The bytes of a file; throws std::runtime_error when it cannot be read.
PARLEY_DECL std::string read_file(const std::string& path);

}  // namespace detail

/// A script from its JSON form (docs/fake-server.md): {"steps": [...], "repeat": false} or an
/// array of steps. Relative replay paths are taken from `base_dir`. Throws std::invalid_argument
/// naming the place of the first mistake ("fake server script: steps[1].reply.finish: ...").
PARLEY_DECL fake_script fake_script_from_json(const boost::json::value& json, const std::filesystem::path& base_dir = {});

/// One step from its JSON form; throws std::invalid_argument as fake_script_from_json does.
PARLEY_DECL fake_step fake_step_from_json(const boost::json::value& json, const std::filesystem::path& base_dir = {});

/// A script read from a JSON file; relative replay paths are taken from the file's directory.
/// Throws std::runtime_error when the file cannot be read or is not JSON, std::invalid_argument
/// when the script is wrong.
PARLEY_DECL fake_script fake_script_from_file(const std::filesystem::path& path);

/// The route a request path leads to (matched on its end; the batch APIs' routes on their last
/// segments, ids included), or nothing.
PARLEY_DECL std::optional<fake_route> fake_route_of_path(std::string_view target);

/// A fake model server: binds at construction (the port is known at once), serves on its own
/// threads until stop() or destruction. The script, the records and the counters may be used
/// from any thread; start() and stop() from one thread at a time.
class fake_server {
public:
    /// Binds host:port and starts serving; throws boost::system::system_error when it cannot bind,
    /// std::runtime_error when a replay file of the script cannot be read.
    explicit fake_server(fake_server_options options = {});
    fake_server(const fake_server&) = delete;
    fake_server& operator=(const fake_server&) = delete;
    /// Stops and joins the server's threads.
    ~fake_server();

    /// Starts serving (again, on the same port after stop()); nothing when running.
    void start();
    /// Stops serving: every connection is closed, the threads are joined. The script, the records
    /// and the port are kept.
    void stop();

    /// Whether the server is serving.
    bool running() const noexcept;
    /// The port it listens on.
    unsigned short port() const noexcept;
    /// The address it listens on.
    const std::string& host() const noexcept;
    /// Whether it speaks TLS.
    bool tls() const noexcept;
    /// "http://HOST:PORT" ("https://..." with TLS).
    std::string base_url() const;
    /// base_url() followed by `path`.
    std::string url(std::string_view path) const;

    /// Replaces the script. Throws std::runtime_error when a replay file cannot be read.
    void set_script(fake_script script);
    /// Appends a step. Throws std::runtime_error when its replay file cannot be read.
    void push(fake_step step);
    /// Appends steps.
    void push(std::vector<fake_step> steps);
    /// Whether a step taken goes back to the end of the queue.
    void set_repeat(bool repeat);
    /// The number of steps not yet taken.
    std::size_t pending_steps() const;

    /// Every request received so far (CONNECT requests included), in order of arrival.
    std::vector<recorded_request> requests() const;
    /// The CONNECT requests received so far.
    std::vector<recorded_request> connect_requests() const;
    /// The number of requests received so far (counted even when not recorded).
    std::size_t request_count() const noexcept;
    /// The last request recorded; throws std::logic_error when there is none.
    recorded_request last_request() const;
    /// Forgets the recorded requests (the counters are kept).
    void clear_requests();
    /// The number of connections accepted so far.
    std::size_t connections_accepted() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace parley::testing

#ifndef PARLEY_SEPARATE_COMPILATION
#include <parley/testing/impl/fake_server.hpp>
#endif

#endif
