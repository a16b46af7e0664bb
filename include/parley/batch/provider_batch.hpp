// parley/batch/provider_batch.hpp: a batch run through a provider's batch API (OpenAI's Batch
// API, Anthropic's Message Batches API) instead of N requests in flight: the requests of the
// inputs are submitted as batches (split at the provider's limits), polled until they end, and
// their results written as the same output lines batch_runner writes. The batches and the inputs
// each holds are kept in a state file beside the output, so that a run killed while the provider
// works resumes polling them instead of submitting again. provider_batch_client is the HTTP part
// (upload, create, retrieve, cancel, results); provider_batch the run. See docs/batch.md. Needs
// parley::net (OpenSSL): not included by <parley/batch.hpp>.
#ifndef PARLEY_BATCH_PROVIDER_BATCH_HPP
#define PARLEY_BATCH_PROVIDER_BATCH_HPP

#include <parley/batch/batch_api.hpp>
#include <parley/batch/batch_state.hpp>
#include <parley/batch/lines.hpp>
#include <parley/batch/output.hpp>
#include <parley/batch/runner.hpp>
#include <parley/bot/usage.hpp>
#include <parley/error.hpp>
#include <parley/net/call_error.hpp>
#include <parley/net/http_client.hpp>
#include <parley/net/url.hpp>
#include <parley/provider/anthropic/common.hpp>
#include <parley/provider/openai/common.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// Where a run through a batch API stands.
struct provider_batch_progress {
    std::size_t inputs = 0;  ///< inputs read
    std::size_t skipped = 0;  ///< inputs whose id the sink already had
    std::size_t submitted = 0;  ///< requests this run submitted
    std::size_t resumed = 0;  ///< requests of batches an earlier run submitted (the state file's), awaited again
    std::size_t batches_submitted = 0;  ///< batches this run created
    std::size_t done = 0;  ///< inputs with their line written (results and errors)
    std::size_t failed = 0;  ///< of which errors
    std::size_t canceled = 0;  ///< requests a cancellation stopped: no line, a later run submits them again
    std::vector<provider_batch_status> pending;  ///< the last known status of each batch not collected yet
    usage_summary usage;  ///< the tokens of every result
    std::chrono::steady_clock::duration elapsed{};  ///< since the run began
    bool stopped = false;  ///< stop() ended the run with batches not collected (the state file keeps them)
};

namespace detail::provider_batch {

/// The HTTP settings of a batch client: the defaults, with room for large files (a batch's file
/// may be hundreds of megabytes) and their transfer.
inline net::client_options net_defaults() {
    net::client_options o;
    o.limits.max_body_bytes = std::size_t{1} << 30;
    o.timeouts.total = std::chrono::hours(1);
    o.timeouts.idle = std::chrono::minutes(5);
    return o;
}

}  // namespace detail::provider_batch

/// How a run through a batch API goes.
struct provider_batch_options {
    batch_api api = batch_api::openai;
    /// The API's base URL, as for the chat clients (empty: https://api.openai.com/v1,
    /// https://api.anthropic.com): OpenAI's routes are `{base}/files` and `{base}/batches`,
    /// Anthropic's `{base}/v1/messages/batches`.
    std::string base_url;
    std::string api_key;  ///< sent as the API takes it; never written anywhere else
    /// OpenAI: the endpoint of every request of the batches ("/v1/chat/completions",
    /// "/v1/responses", "/v1/embeddings"). Anthropic's is always the Messages API.
    std::string endpoint = "/v1/chat/completions";
    http_headers headers;  ///< extra header fields of every request
    /// TLS, time limits, retries of each HTTP call (1 GiB bodies, an hour per call by default).
    net::client_options net = detail::provider_batch::net_defaults();
    /// The bounds of each batch; 0, or more than the provider allows: the provider's
    /// (provider_batch_limits).
    batch_limits limits;
    /// The wait before the first poll of a batch; it grows by half at each poll that finds the
    /// batch as it was, up to `max_poll_interval`, and is back to this when something changed.
    std::chrono::milliseconds poll_interval{30'000};
    std::chrono::milliseconds max_poll_interval{600'000};
    /// Failed polls (or result downloads) in a row, each worth retrying, after which the run
    /// stops with the error (the state file keeps the batches).
    unsigned max_poll_failures = 10;
    /// Receives the progress after each submission, poll and collection.
    std::function<void(const provider_batch_progress&)> on_progress;
};

/// The HTTP calls of a provider's batch API: upload a file and create a batch of requests,
/// retrieve and cancel a batch, read its results. Each call is retried as the chat clients'
/// calls are (net::retry_policy); a reply with an error status is the API's call_error. The
/// executor must run one handler at a time.
class provider_batch_client {
public:
    using executor_type = boost::asio::any_io_executor;

    /// Throws parley::error (errc::invalid_argument) for a base URL that does not parse.
    provider_batch_client(executor_type ex, provider_batch_options options)
        : options_(std::move(options)), http_(std::move(ex), options_.net) {
        if (options_.base_url.empty())
            options_.base_url = options_.api == batch_api::openai ? "https://api.openai.com/v1" : "https://api.anthropic.com";
        base_ = net::parse_url(options_.base_url);
        auto common = std::make_shared<http_headers>();
        common->add("Accept", "application/json");
        if (options_.api == batch_api::openai) {
            if (!options_.api_key.empty()) common->add("Authorization", "Bearer " + options_.api_key);
        } else {
            if (!options_.api_key.empty()) common->add("x-api-key", options_.api_key);
            common->add("anthropic-version", std::string(anthropic::api_version));
        }
        for (const auto& [name, value] : options_.headers.fields()) common->add(name, value);
        common_ = std::move(common);
    }

    executor_type get_executor() const noexcept { return http_.get_executor(); }
    const provider_batch_options& options() const noexcept { return options_; }
    /// The base URL the calls go to.
    const std::string& base_url() const noexcept { return options_.base_url; }

    /// OpenAI: uploads `jsonl` as a file for batches (POST {base}/files, multipart, purpose
    /// "batch"); its file id.
    boost::asio::awaitable<boost::system::result<std::string, call_error>> upload(std::string jsonl, std::string filename = "batch.jsonl") {
        const std::string boundary = fresh_boundary(jsonl);
        std::string body;
        body.reserve(jsonl.size() + 512);
        body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n";
        body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename +
                "\"\r\nContent-Type: application/jsonl\r\n\r\n";
        body += jsonl;
        jsonl = std::string();
        body += "\r\n--" + boundary + "--\r\n";
        std::string content_type = "multipart/form-data; boundary=" + boundary;
        auto reply = co_await call("POST", target("/files"), std::move(content_type), std::move(body));
        if (!reply) co_return reply.error();
        try {
            const boost::json::value v = detail::batch_wire::parse(reply->body, "the file object");
            const std::string where = "file";
            const auto& o = detail::batch_wire::object_of(v, where);
            co_return detail::batch_wire::id_member(o, "id", "file", true);
        } catch (const detail::batch_wire::bad_shape& b) {
            co_return protocol(b.message, *reply);
        }
    }

    /// Creates a batch of `requests` (which must outlive the call): OpenAI uploads them as a
    /// JSONL file first (the status's input_file_id), then creates the batch for the options'
    /// endpoint with a completion window of 24 hours; Anthropic creates it with the requests in
    /// the body. The batch as the API describes it once created.
    boost::asio::awaitable<boost::system::result<provider_batch_status, call_error>> create(
        const std::vector<provider_batch_request>& requests) {
        if (options_.api == batch_api::openai) {
            std::string jsonl;
            for (const auto& r : requests) jsonl += openai_batch_line(r, options_.endpoint);
            auto file = co_await upload(std::move(jsonl), std::string("batch.jsonl"));
            if (!file) co_return file.error();
            std::string body = "{\"input_file_id\":" + boost::json::serialize(boost::json::value(*file)) +
                               ",\"endpoint\":" + boost::json::serialize(boost::json::value(options_.endpoint)) +
                               ",\"completion_window\":\"24h\"}";
            auto status = co_await status_call("POST", target("/batches"), std::move(body));
            if (status && status->input_file_id.empty()) status->input_file_id = *file;
            co_return status;
        }
        std::string body = "{\"requests\":[";
        for (std::size_t i = 0; i < requests.size(); ++i) {
            if (i) body += ',';
            body += anthropic_batch_entry(requests[i]);
        }
        body += "]}";
        co_return co_await status_call("POST", target("/v1/messages/batches"), std::move(body));
    }

    /// The batch `id` as the API describes it now.
    boost::asio::awaitable<boost::system::result<provider_batch_status, call_error>> retrieve(std::string id) {
        co_return co_await status_call("GET", target(batch_path(id)), std::string());
    }

    /// Asks the API to cancel the batch `id`; the batch as it describes it then (cancelling).
    boost::asio::awaitable<boost::system::result<provider_batch_status, call_error>> cancel(std::string id) {
        co_return co_await status_call("POST", target(batch_path(id) + "/cancel"), std::string());
    }

    /// The results of an ended batch: OpenAI's output and error files (GET {base}/files/ID/content),
    /// Anthropic's results (GET its results_url when it is on the base URL's server, else
    /// {base}/v1/messages/batches/ID/results: the key goes to no other server).
    boost::asio::awaitable<boost::system::result<std::vector<provider_batch_result>, call_error>> results(provider_batch_status batch) {
        std::vector<provider_batch_result> out;
        std::vector<net::url> files;
        if (options_.api == batch_api::openai) {
            for (const std::string* id : {&batch.output_file_id, &batch.error_file_id})
                if (!id->empty()) files.push_back(target("/files/" + *id + "/content"));
        } else {
            net::url u = target(batch_path(batch.id) + "/results");
            try {
                net::url given = net::parse_url(batch.results_url);
                if (given.scheme == base_.scheme && given.host == base_.host && given.port == base_.port) u = std::move(given);
            } catch (const error&) {
                // not a URL: the documented path
            }
            files.push_back(std::move(u));
        }
        for (auto& f : files) {
            auto reply = co_await call("GET", std::move(f), std::string(), std::string());
            if (!reply) co_return reply.error();
            auto read = read_batch_results(options_.api, reply->body, out);
            if (!read) {
                call_error e = read.error();
                e.status = reply->status;
                e.headers = reply->headers;
                co_return e;
            }
        }
        co_return out;
    }

private:
    net::url target(std::string_view path) const {
        net::url u = base_;
        u.path = net::join_path(base_.path, path);
        return u;
    }
    std::string batch_path(const std::string& id) const {
        return (options_.api == batch_api::openai ? "/batches/" : "/v1/messages/batches/") + id;
    }

    /// A multipart boundary that `content` does not hold.
    static std::string fresh_boundary(std::string_view content) {
        thread_local std::mt19937_64 engine(std::random_device{}());
        for (;;) {
            char text[40];
            std::snprintf(text, sizeof text, "parley-batch-%016llx", static_cast<unsigned long long>(engine()));
            if (content.find(text) == std::string_view::npos) return text;
        }
    }

    call_error protocol(std::string message, const net::http_response& reply) const {
        call_error e;
        e.code = make_error_code(errc::protocol);
        e.message = std::move(message);
        e.status = reply.status;
        e.headers = reply.headers;
        e.attempts = reply.attempts;
        return e;
    }

    /// One call; a reply outside 200-299 is the API's error.
    boost::asio::awaitable<boost::system::result<net::http_response, call_error>> call(std::string_view method, net::url to,
                                                                                       std::string content_type, std::string body) {
        net::http_request r;
        r.method = std::string(method);
        r.target = std::move(to);
        r.common = common_;
        if (!content_type.empty()) r.headers.add("Content-Type", std::move(content_type));
        r.body = std::move(body);
        auto reply = co_await http_.send(std::move(r));
        if (!reply) co_return redacted(reply.error());
        if (reply->status < 200 || reply->status > 299) {
            call_error e = options_.api == batch_api::openai ? openai::decode_error(reply->status, reply->headers, reply->body)
                                                             : anthropic::decode_error(reply->status, reply->headers, reply->body);
            e.attempts = reply->attempts;
            co_return redacted(std::move(e));
        }
        co_return std::move(*reply);
    }

    boost::asio::awaitable<boost::system::result<provider_batch_status, call_error>> status_call(std::string_view method, net::url to,
                                                                                                std::string body) {
        std::string content_type = body.empty() ? std::string() : std::string("application/json");
        auto reply = co_await call(method, std::move(to), std::move(content_type), std::move(body));
        if (!reply) co_return reply.error();
        auto status = read_batch_status(options_.api, reply->body);
        if (!status) co_return protocol(status.error().message, *reply);
        co_return std::move(*status);
    }

    /// `e` without the API key in its texts.
    call_error redacted(call_error e) const {
        const std::string& key = options_.api_key;
        if (key.size() >= 4)
            for (std::string* s : {&e.message, &e.type, &e.param, &e.api_code})
                for (auto at = s->find(key); at != std::string::npos; at = s->find(key, at + 3)) s->replace(at, key.size(), "***");
        return e;
    }

    provider_batch_options options_;
    net::http_client http_;
    net::url base_;
    std::shared_ptr<const http_headers> common_;
};

/// A batch run through a provider's batch API. run() reads the inputs, renders each one's request
/// with `prepare`, submits them in batches within the provider's limits, polls the batches until
/// they end and writes one line per input to the sink, as batch_runner does: the result that
/// `finish` makes of its reply, or the error. The batches and the input ids of their custom_ids
/// are kept in a state file (written atomically after each batch is created and each is
/// collected, removed at the end): a rerun polls those batches again instead of submitting their
/// inputs, and skips the ids the sink holds. Not thread-safe; the executor must run one handler
/// at a time.
class provider_batch {
public:
    using executor_type = boost::asio::any_io_executor;

    /// Throws parley::error (errc::invalid_argument) for a base URL that does not parse.
    provider_batch(executor_type ex, provider_batch_options options) : ex_(ex), client_(std::move(ex), std::move(options)) {
        const batch_limits most = provider_batch_limits(opts().api);
        limits_ = opts().limits;
        if (limits_.max_requests == 0 || limits_.max_requests > most.max_requests) limits_.max_requests = most.max_requests;
        if (limits_.max_bytes == 0 || limits_.max_bytes > most.max_bytes) limits_.max_bytes = most.max_bytes;
    }

    provider_batch_client& client() noexcept { return client_; }
    const provider_batch_options& options() const noexcept { return client_.options(); }
    /// The bounds each batch is cut to.
    const batch_limits& limits() const noexcept { return limits_; }

    /// Stops the run: no batch is created after the one being created, no poll is made; run()
    /// returns with `stopped` set and the state file holding the batches not collected. Callable
    /// from a handler on the executor.
    void stop() noexcept {
        stopping_ = true;
        if (timer_) timer_->cancel();
    }
    bool stopping() const noexcept { return stopping_; }

    /// Runs `inputs` (a range of elements with an `id`, as batch_runner takes them) through the
    /// batch API, writing the lines to `sink`; the state is kept in `state_file`
    /// (batch_state_path of the output file). `prepare(input)` gives the JSON text of the input's
    /// request body (an exception is that input's error line, written at once);
    /// `finish(result, id, usage)` gives the line's result (or error) of a reply (a result with
    /// a body: a success, or OpenAI's error reply with its status, Anthropic's error object), and
    /// counts its usage. Results without a reply are errors of the run's own: `expired` (code
    /// timeout, type batch_expired), an error of the batch (code api_error, the API's code as
    /// type), a failed batch (type batch_failed); a canceled request gets no line. Throws
    /// parley::error for a repeated id or a state file of another API, base URL or endpoint, a
    /// call_exception when a batch cannot be created or a batch cannot be polled
    /// (`max_poll_failures` failures in a row, or one not worth retrying), and what the sink
    /// throws: the state file keeps the batches created, for the next run.
    template <std::ranges::input_range Range, class Prepare, class Finish>
    boost::asio::awaitable<provider_batch_progress> run(Range&& inputs, Prepare prepare, Finish finish, batch_sink& sink,
                                                        std::filesystem::path state_file) {
        using input_type = std::ranges::range_value_t<Range>;
        static_assert(std::is_invocable_r_v<std::string, Prepare&, const input_type&>,
                      "prepare is a callable (const Input&) returning the request body's JSON text (std::string)");
        static_assert(std::is_invocable_r_v<batch_outcome, Finish&, const provider_batch_result&, const boost::json::value&,
                                            usage_summary&>,
                      "finish is a callable (const parley::provider_batch_result&, const boost::json::value& id, "
                      "parley::usage_summary&) returning parley::batch_outcome");
        begin(state_file);
        std::unordered_set<std::string> in_batches;
        for (const auto& b : state_.batches)
            for (const auto& [custom_id, id] : b.requests) {
                std::string key = batch_id_key_of(id);
                if (!sink.done(key)) ++progress_.resumed;
                in_batches.insert(std::move(key));
            }
        if constexpr (std::ranges::forward_range<Range>) {
            std::unordered_map<std::string, std::size_t> first;
            std::size_t index = 0;
            for (const auto& in : inputs) {
                std::string key = batch_id_key_of(detail::batch::id_of(in));
                if (auto [at, fresh] = first.emplace(key, index); !fresh)
                    throw error(errc::invalid_argument, "input " + std::to_string(index + 1) + ": the id " + key + " is that of input " +
                                                            std::to_string(at->second + 1) + " already: ids must be unique");
                ++index;
            }
        }

        chunk pending;
        std::unordered_set<std::string> seen;
        std::size_t position = 0;
        for (auto it = std::ranges::begin(inputs); it != std::ranges::end(inputs); ++it) {
            const input_type& in = *it;
            ++position;
            ++progress_.inputs;
            std::string key = batch_id_key_of(detail::batch::id_of(in));
            if (!seen.insert(key).second)
                throw error(errc::invalid_argument, "the id " + key + " appears twice in the inputs: ids must be unique");
            if (sink.done(key)) {
                ++progress_.skipped;
                continue;
            }
            if (in_batches.count(key) || stopping_) continue;
            std::string body;
            try {
                body = prepare(in);
            } catch (...) {
                bool call = false;
                std::optional<boost::json::object> details;
                call_error e = detail::batch::error_of(std::current_exception(), call, details);
                write_error(sink, key, e, {}, call, details ? &*details : nullptr);
                continue;
            }
            provider_batch_request request{"in-" + std::to_string(position), std::move(body)};
            const std::size_t bytes = entry_bytes(request);
            if (bytes > limits_.max_bytes) {
                call_error e;
                e.code = make_error_code(errc::invalid_argument);
                e.message = "the request takes " + std::to_string(bytes) + " bytes in a batch, more than a batch holds (" +
                            std::to_string(limits_.max_bytes) + ")";
                write_error(sink, key, e, {}, false);
                continue;
            }
            if (!pending.requests.empty() && (pending.requests.size() >= limits_.max_requests || pending.bytes + bytes > limits_.max_bytes)) {
                co_await submit(pending, state_file);
                if (stopping_) continue;
            }
            pending.bytes += bytes;
            pending.requests.push_back(std::move(request));
            pending.ids.push_back(detail::batch::id_value(detail::batch::id_of(in)));
        }
        if (!pending.requests.empty() && !stopping_) co_await submit(pending, state_file);
        co_await await_batches(finish, sink, state_file, false);
        co_return end();
    }

    /// Cancels the batches of the state file `state_file` (those not ended yet), waits until
    /// each has ended, and writes the lines of the requests that were done before the
    /// cancellation (`finish` as for run()); the canceled ones get no line. The state file is
    /// removed at the end. Without a state file there is nothing to do: the progress is empty.
    template <class Finish>
    boost::asio::awaitable<provider_batch_progress> cancel(Finish finish, batch_sink& sink, std::filesystem::path state_file) {
        begin(state_file);
        for (const auto& b : state_.batches) {
            for (const auto& [custom_id, id] : b.requests)
                if (!sink.done(batch_id_key_of(id))) ++progress_.resumed;
            auto status = co_await client_.retrieve(b.id);
            if (!status) throw call_exception(status.error());
            if (!status->ended) {
                status = co_await client_.cancel(b.id);
                if (!status) throw call_exception(status.error());
            }
        }
        co_await await_batches(finish, sink, state_file, true);
        co_return end();
    }

private:
    struct chunk {
        std::vector<provider_batch_request> requests;
        std::vector<boost::json::value> ids;
        std::size_t bytes = 0;
    };

    /// One batch being watched: when to poll it next, and how long to wait after that.
    struct watch {
        std::string id;
        provider_batch_status last;
        std::chrono::steady_clock::time_point next{};
        std::chrono::milliseconds interval{0};
        unsigned failures = 0;
    };

    const provider_batch_options& opts() const noexcept { return client_.options(); }

    void begin(const std::filesystem::path& state_file) {
        start_ = std::chrono::steady_clock::now();
        progress_ = provider_batch_progress{};
        stopping_ = false;
        watches_.clear();
        auto loaded = load_batch_state(state_file);
        const std::string endpoint = opts().api == batch_api::openai ? opts().endpoint : std::string("/v1/messages");
        if (loaded) {
            const std::string name = state_file.string();
            if (loaded->api != opts().api)
                throw error(errc::invalid_argument, name + ": its batches were submitted through " + std::string(batch_api_name(loaded->api)) +
                                                        ", not " + std::string(batch_api_name(opts().api)) + ": use the same --via, or --cancel them");
            if (loaded->base_url != client_.base_url())
                throw error(errc::invalid_argument, name + ": its batches were submitted to " + loaded->base_url + ", not " + client_.base_url() +
                                                        ": use the same base URL, or --cancel them");
            if (loaded->endpoint != endpoint)
                throw error(errc::invalid_argument, name + ": its batches were submitted to the endpoint " + loaded->endpoint + ", not " + endpoint);
            state_ = std::move(*loaded);
        } else {
            state_ = provider_batch_state{};
            state_.api = opts().api;
            state_.base_url = client_.base_url();
            state_.endpoint = endpoint;
        }
        const auto now = std::chrono::steady_clock::now();
        for (const auto& b : state_.batches) watches_.push_back(watch{b.id, {}, now, opts().poll_interval, 0});
        for (const auto& b : state_.batches) {
            provider_batch_status s;
            s.id = b.id;
            s.total = b.requests.size();
            progress_.pending.push_back(std::move(s));
        }
    }

    provider_batch_progress end() {
        progress_.elapsed = std::chrono::steady_clock::now() - start_;
        progress_.stopped = !state_.batches.empty();
        report();
        return progress_;
    }

    void report() {
        progress_.elapsed = std::chrono::steady_clock::now() - start_;
        if (opts().on_progress) opts().on_progress(progress_);
    }

    /// The bytes a request takes in a batch (its line of the file, its element of the body).
    std::size_t entry_bytes(const provider_batch_request& r) const {
        if (opts().api == batch_api::openai) return r.body.size() + r.custom_id.size() + opts().endpoint.size() + 64;
        return r.body.size() + r.custom_id.size() + 32;
    }

    /// Creates a batch of the chunk's requests and records it in the state file.
    boost::asio::awaitable<void> submit(chunk& c, const std::filesystem::path& state_file) {
        auto created = co_await client_.create(c.requests);
        if (!created) throw call_exception(created.error());
        provider_batch_entry entry;
        entry.id = created->id;
        entry.input_file_id = created->input_file_id;
        entry.requests.reserve(c.requests.size());
        for (std::size_t i = 0; i < c.requests.size(); ++i) entry.requests.emplace_back(std::move(c.requests[i].custom_id), std::move(c.ids[i]));
        state_.batches.push_back(std::move(entry));
        save_batch_state(state_file, state_);
        progress_.submitted += c.requests.size();
        ++progress_.batches_submitted;
        progress_.pending.push_back(*created);
        watches_.push_back(watch{created->id, *created, std::chrono::steady_clock::now() + opts().poll_interval, opts().poll_interval, 0});
        c = chunk{};
        report();
    }

    /// Polls the batches of the state until each has ended and is collected (or the run stops).
    template <class Finish>
    boost::asio::awaitable<void> await_batches(Finish& finish, batch_sink& sink, const std::filesystem::path& state_file,
                                               bool cancelling) {
        while (!watches_.empty() && !stopping_) {
            auto next = std::min_element(watches_.begin(), watches_.end(), [](const watch& a, const watch& b) { return a.next < b.next; });
            if (next->next > std::chrono::steady_clock::now()) {
                boost::asio::steady_timer t(ex_, next->next);
                timer_ = &t;
                co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                timer_ = nullptr;
                continue;  // the list may have changed; stopping_ may be set
            }
            const std::string id = next->id;
            auto status = co_await client_.retrieve(id);
            auto w = std::find_if(watches_.begin(), watches_.end(), [&](const watch& x) { return x.id == id; });
            if (!status) {
                after_failure(*w, status.error());
                continue;
            }
            const provider_batch_status& s = *status;
            const bool changed = s.status != w->last.status || s.succeeded != w->last.succeeded || s.errored != w->last.errored ||
                                 s.processing != w->last.processing;
            w->failures = 0;
            w->interval = changed ? opts().poll_interval
                                  : std::min(std::max(opts().max_poll_interval, opts().poll_interval),
                                             std::chrono::milliseconds(w->interval.count() + w->interval.count() / 2 + 1));
            w->last = s;
            w->next = std::chrono::steady_clock::now() + w->interval;
            for (auto& p : progress_.pending)
                if (p.id == id) p = s;
            report();
            if (!s.ended) continue;
            auto results = co_await client_.results(s);
            w = std::find_if(watches_.begin(), watches_.end(), [&](const watch& x) { return x.id == id; });
            if (!results) {
                after_failure(*w, results.error());
                continue;
            }
            collect(id, s, *results, finish, sink, cancelling);
            watches_.erase(w);
            std::erase_if(state_.batches, [&](const provider_batch_entry& b) { return b.id == id; });
            std::erase_if(progress_.pending, [&](const provider_batch_status& p) { return p.id == id; });
            save_batch_state(state_file, state_);
            report();
        }
    }

    /// A poll or a download failed: another try later when it is worth it, else the run's error.
    void after_failure(watch& w, const call_error& e) {
        if (!net::worth_retrying(e) || ++w.failures >= std::max(1u, opts().max_poll_failures)) throw call_exception(e);
        w.next = std::chrono::steady_clock::now() + w.interval;
    }

    /// Writes the lines of an ended batch's requests that the sink does not hold.
    template <class Finish>
    void collect(const std::string& id, const provider_batch_status& status, const std::vector<provider_batch_result>& results,
                 Finish& finish, batch_sink& sink, bool cancelling) {
        const provider_batch_entry* entry = nullptr;
        for (const auto& b : state_.batches)
            if (b.id == id) entry = &b;
        if (!entry) return;
        std::unordered_map<std::string_view, const provider_batch_result*> by_custom_id;
        for (const auto& r : results) by_custom_id.emplace(r.custom_id, &r);
        for (const auto& [custom_id, input_id] : entry->requests) {
            const std::string key = batch_id_key_of(input_id);
            if (sink.done(key)) continue;  // written by a run killed before it could update the state
            usage_summary usage;
            auto found = by_custom_id.find(custom_id);
            call_error e;
            if (found == by_custom_id.end()) {
                if (status.cancelled() || cancelling || status.status == "cancelling" || status.status == "canceling") {
                    ++progress_.canceled;
                    continue;
                }
                if (status.status == "failed") {
                    e.code = make_error_code(errc::api_error);
                    e.type = "batch_failed";
                    e.message = "the batch " + id + " failed" + (status.errors.empty() ? std::string() : ": " + status.errors);
                } else if (status.status == "expired") {
                    e = expired(id);
                } else {
                    e.code = make_error_code(errc::protocol);
                    e.message = "the batch " + id + " ended (" + status.status + ") without a result for this request (" + custom_id + ")";
                }
                write_error(sink, key, e, usage, false);
                continue;
            }
            const provider_batch_result& r = *found->second;
            switch (r.outcome) {
            case provider_batch_result::kind::canceled: ++progress_.canceled; continue;
            case provider_batch_result::kind::expired: write_error(sink, key, expired(id), usage, false); continue;
            case provider_batch_result::kind::errored:
                if (r.body.empty()) {
                    e.code = make_error_code(errc::api_error);
                    e.type = r.error_code;
                    e.message = r.error_message.empty() ? "the request failed in the batch " + id : r.error_message;
                    if (!r.request_id.empty()) e.headers.add("x-request-id", r.request_id);
                    write_error(sink, key, e, usage, false);
                    continue;
                }
                break;
            case provider_batch_result::kind::succeeded: break;
            }
            std::optional<batch_outcome> outcome;
            std::optional<boost::json::object> details;
            bool call = true;
            try {
                outcome.emplace(finish(r, input_id, usage));
            } catch (...) {
                e = detail::batch::error_of(std::current_exception(), call, details);
            }
            if (outcome && outcome->has_value()) {
                sink.write(batch_result_line(key, **outcome, usage, 1));
                ++progress_.done;
                progress_.usage += usage;
            } else {
                if (outcome) e = outcome->error();
                write_error(sink, key, e, usage, call, details ? &*details : nullptr);
            }
        }
    }

    static call_error expired(const std::string& id) {
        call_error e;
        e.code = make_error_code(errc::timeout);
        e.type = "batch_expired";
        e.message = "the batch " + id + " expired before this request ran (its completion window passed)";
        return e;
    }

    void write_error(batch_sink& sink, const std::string& key, const call_error& e, const usage_summary& usage, bool call,
                     const boost::json::object* details = nullptr) {
        call_error shown = e;
        if (shown.attempts == 0) shown.attempts = 1;
        sink.write(batch_error_line(key, shown, usage, 1, std::nullopt, call, details));
        ++progress_.done;
        ++progress_.failed;
        progress_.usage += usage;
    }

    executor_type ex_;
    provider_batch_client client_;
    batch_limits limits_;
    provider_batch_state state_;
    std::vector<watch> watches_;
    provider_batch_progress progress_;
    std::chrono::steady_clock::time_point start_{};
    boost::asio::steady_timer* timer_ = nullptr;
    bool stopping_ = false;
};

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
