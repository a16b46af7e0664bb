// parley/batch/runner.hpp: batch_runner, the work of many inputs against one model endpoint: N
// inputs in flight on one executor, a rate-limit governor shared by all of them, retries, one
// output line per input (its result or the error that stopped it, with usage), resumption from
// the ids a sink already holds, and progress. See docs/batch.md.
#ifndef PARLEY_BATCH_RUNNER_HPP
#define PARLEY_BATCH_RUNNER_HPP

#include <parley/batch/governor.hpp>
#include <parley/batch/lines.hpp>
#include <parley/batch/output.hpp>
#include <parley/bot/usage.hpp>
#include <parley/error.hpp>
#include <parley/net/call_error.hpp>
#include <parley/net/retry.hpp>
#include <parley/provider/reply.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serializer.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// What one attempt at one input gives: the value of its output line's `result`, or why it
/// failed.
using batch_outcome = boost::system::result<boost::json::value, call_error>;

/// An exception the work of an input throws to end that input with an error line that says
/// more than a code and a message: the members of `details` follow `code` and `message` in the
/// line's `error` (a member of the same name as one the line has already is left out). Never
/// retried.
class batch_input_error : public error {
public:
    batch_input_error(std::error_code code, const std::string& message, boost::json::object details)
        : error(code, message), details_(std::move(details)) {}

    /// The members added to the line's `error`.
    const boost::json::object& details() const noexcept { return details_; }

private:
    boost::json::object details_;
};

/// What the work of one input sees of its attempt: the input's id, the attempt's number, where
/// its usage goes, and the governor its replies report to.
class batch_attempt {
public:
    batch_attempt(const boost::json::value& id, unsigned number, usage_summary& usage, rate_governor& governor) noexcept
        : id_(&id), number_(number), usage_(&usage), governor_(&governor) {}

    /// The input's id.
    const boost::json::value& id() const noexcept { return *id_; }
    /// 1 for the first attempt, 2 for the first retry...
    unsigned number() const noexcept { return number_; }
    /// The usage of every request of this input (all its attempts): give it to bot::run
    /// (run_options::usage) or add to it with record().
    usage_summary& usage() noexcept { return *usage_; }
    rate_governor& governor() noexcept { return *governor_; }

    /// Counts a reply to a request for `requested_model` (its tokens in usage(), its rate-limit
    /// fields and token count in the governor).
    void record(const chat_reply& reply, std::string_view requested_model) {
        usage_->add(reply, requested_model);
        observe_reply(*governor_, reply);
    }
    /// Counts a failed request for `requested_model` (the runner reads the headers of the error
    /// that ends an attempt itself).
    void record(const call_error& failure, std::string_view requested_model) { usage_->add(failure, requested_model); }

    /// Tells `governor` what a successful reply says: its rate-limit fields, its tokens.
    static void observe_reply(rate_governor& governor, const chat_reply& reply) {
        governor.observe(reply.headers, 200);
        if (reply.usage) governor.count_tokens(reply.usage->prompt_tokens + reply.usage->completion_tokens);
    }

private:
    const boost::json::value* id_;
    unsigned number_;
    usage_summary* usage_;
    rate_governor* governor_;
};

/// Where a batch stands.
struct batch_progress {
    std::optional<std::size_t> total;  ///< inputs to run (not those skipped), when known
    std::size_t done = 0;  ///< inputs with their line written (results and errors)
    std::size_t failed = 0;  ///< of which errors
    std::size_t skipped = 0;  ///< inputs whose id the sink already had (resumed)
    std::size_t in_flight = 0;  ///< inputs being worked on
    std::size_t retries = 0;  ///< attempts after the first, in all
    std::chrono::steady_clock::duration elapsed{};  ///< since the run began
    usage_summary usage;  ///< every request's tokens, per model
    governor_stats governor;  ///< the pauses the rate limits imposed
    /// The governor holds every worker until then (a time in the past: it holds none).
    std::chrono::steady_clock::time_point held_until{};

    /// Inputs done per second since the run began (0 before the first second's work).
    double rate() const noexcept {
        const double s = std::chrono::duration<double>(elapsed).count();
        return s > 0 ? static_cast<double>(done) / s : 0;
    }
    /// The time left at the current rate, when the total is known and the rate is not 0.
    std::optional<std::chrono::seconds> eta() const noexcept {
        const double r = rate();
        if (!total || r <= 0 || done > *total) return std::nullopt;
        return std::chrono::seconds(static_cast<std::int64_t>(static_cast<double>(*total - done) / r + 0.5));
    }
};

/// How a batch runs.
struct batch_options {
    /// Inputs worked on at once (at least 1).
    std::size_t concurrency = 16;
    /// Retries of an input whose attempt failed in a way worth retrying (net::worth_retrying: a
    /// broken connection, a time-out, a cut stream, 408, 409, 429, 5xx, as the server's
    /// `x-should-retry` says), each after retry_delay (the server's `retry-after` when it gives
    /// one, else exponential backoff with jitter). The clients the work uses should not retry on
    /// their own (client_options::retry.max_retries = 0), so that every attempt passes the
    /// governor.
    net::retry_policy retry{.max_retries = 4, .initial_delay = std::chrono::milliseconds(500),
                            .max_delay = std::chrono::milliseconds(8000), .jitter = 0.25};
    /// The rate-limit governor's reactions.
    governor_options governor;
    /// Receives the progress every `progress_interval` while the run goes on, and once at its end.
    std::function<void(const batch_progress&)> on_progress;
    std::chrono::milliseconds progress_interval{250};
    /// Receives each line as it is written (after the sink took it), with its input's result or
    /// error (for programs that want more than the sink).
    std::function<void(std::string_view line)> on_line;
    /// The number of inputs, for progress (when the range is not sized).
    std::optional<std::size_t> total;
    /// Adds `"latency_ms"` (the input's wall-clock time, all attempts) to each line.
    bool latency = true;
};

namespace detail::batch {

/// The name of an error code in output lines: parley's codes by their errc name ("timeout",
/// "http_status"...), the others as "CATEGORY:VALUE" ("system:111").
inline std::string code_name(const std::error_code& code) {
    if (code.category() == error_category()) {
        static constexpr std::string_view names[] = {
            "",           "template_syntax",  "template_unknown_name", "template_undefined", "template_type",
            "template_value", "template_security", "template_limit", "template_raised", "invalid_argument",
            "template_callback", "chat_invalid", "yaml_syntax", "conversion", "http_status", "api_error",
            "protocol", "timeout", "tls_verification", "bad_function_arguments", "bot_limit", "connection_closed",
            "tokenizer_file", "tokenizer_unsupported", "tokenizer_input", "schema_invalid", "schema_limit"};
        const int v = code.value();
        if (v > 0 && static_cast<std::size_t>(v) < std::size(names)) return std::string(names[v]);
    }
    return std::string(code.category().name()) + ":" + std::to_string(code.value());
}

/// Appends `v` as JSON.
inline void append_json(std::string& out, const boost::json::value& v) {
    boost::json::serializer sr;
    sr.reset(&v);
    char buf[4096];
    while (!sr.done()) out.append(sr.read(buf));
}

inline void append_json_string(std::string& out, std::string_view s) {
    boost::json::serializer sr;
    sr.reset(s);
    char buf[4096];
    while (!sr.done()) out.append(sr.read(buf));
}

/// The line's `usage`, `attempts` and `latency_ms`, then the closing brace and line break.
inline void append_tail(std::string& out, const usage_summary& usage, unsigned attempts,
                        std::optional<std::chrono::steady_clock::duration> latency) {
    const model_usage total = usage.total();
    out += ",\"usage\":{\"input_tokens\":";
    out += std::to_string(total.input_tokens);
    out += ",\"output_tokens\":";
    out += std::to_string(total.output_tokens);
    out += ",\"requests\":";
    out += std::to_string(total.requests);
    out += "},\"attempts\":";
    out += std::to_string(attempts);
    if (latency) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", std::chrono::duration<double, std::milli>(*latency).count());
        out += ",\"latency_ms\":";
        out += text;
    }
    out += "}\n";
}

}  // namespace detail::batch

/// The output line of an input that gave `result`.
inline std::string batch_result_line(std::string_view id_key, const boost::json::value& result, const usage_summary& usage,
                                     unsigned attempts, std::optional<std::chrono::steady_clock::duration> latency = {}) {
    std::string out;
    out.reserve(128);
    out += "{\"id\":";
    out += id_key;
    out += ",\"result\":";
    detail::batch::append_json(out, result);
    detail::batch::append_tail(out, usage, attempts, latency);
    return out;
}

/// The output line of an input that failed with `e`: `error` holds `code`, `message` (e.what(),
/// or e.message alone when `call` is false: the failure was not a call's) and, when they are
/// known, the HTTP `status`, the API's error `type` and the `request_id`; then the members of
/// `details`, when given (batch_input_error).
inline std::string batch_error_line(std::string_view id_key, const call_error& e, const usage_summary& usage,
                                    unsigned attempts, std::optional<std::chrono::steady_clock::duration> latency = {},
                                    bool call = true, const boost::json::object* details = nullptr) {
    std::string out;
    out.reserve(256);
    out += "{\"id\":";
    out += id_key;
    out += ",\"error\":{\"code\":";
    detail::batch::append_json_string(out, detail::batch::code_name(e.code));
    out += ",\"message\":";
    detail::batch::append_json_string(out, call ? e.what() : e.message);
    if (e.status != 0) {
        out += ",\"status\":";
        out += std::to_string(e.status);
    }
    if (!e.type.empty()) {
        out += ",\"type\":";
        detail::batch::append_json_string(out, e.type);
    }
    if (const std::string_view rid = e.headers.request_id(); !rid.empty()) {
        out += ",\"request_id\":";
        detail::batch::append_json_string(out, rid);
    }
    if (details)
        for (const auto& m : *details) {
            const std::string_view k = m.key();
            if (k == "code" || k == "message" || k == "status" || k == "type" || k == "request_id") continue;
            out += ',';
            detail::batch::append_json_string(out, k);
            out += ':';
            detail::batch::append_json(out, m.value());
        }
    out += '}';
    detail::batch::append_tail(out, usage, attempts, latency);
    return out;
}

namespace detail::batch {

template <class T>
concept has_id_member = requires(const T& t) { t.id; };

template <class T>
const auto& id_of(const T& input) {
    static_assert(has_id_member<T>,
                  "a batch input has a member `id` (a string, an integer or a boost::json::value holding one), "
                  "as parley::batch_input has");
    return input.id;
}

/// The id of an input as a JSON value (for batch_attempt::id).
template <class Id>
boost::json::value id_value(const Id& id) {
    if constexpr (std::is_same_v<Id, boost::json::value>) return id;
    else if constexpr (std::is_integral_v<Id>) return boost::json::value(id);
    else return boost::json::value(std::string_view(id));
}

/// The call_error of an exception the work threw: a call_exception's own (`call` set: judged as
/// a failed call), a parley::error's code and message (and a batch_input_error's details), or
/// the message of anything else (errc::invalid_argument).
inline call_error error_of(std::exception_ptr thrown, bool& call, std::optional<boost::json::object>& details) {
    call_error e;
    call = false;
    try {
        std::rethrow_exception(thrown);
    } catch (const call_exception& c) {
        e = c.detail();
        call = true;
    } catch (const batch_input_error& b) {
        e.code = b.code();
        e.message = b.what();
        details = b.details();
    } catch (const error& p) {
        e.code = p.code();
        e.message = p.what();
    } catch (const std::exception& x) {
        e.code = make_error_code(errc::invalid_argument);
        e.message = x.what();
    } catch (...) {
        e.code = make_error_code(errc::invalid_argument);
        e.message = "the work of the input threw an exception that is not a std::exception";
    }
    return e;
}

inline double jitter01() {
    thread_local std::minstd_rand engine(std::random_device{}());
    return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

}  // namespace detail::batch

/// Runs many inputs through a piece of work, N at once on one executor, and writes one line per
/// input to a sink. The work is a callable `(const Input&, batch_attempt&)` returning
/// `boost::asio::awaitable<batch_outcome>`; it is called once per attempt. The guarantees:
/// - every input whose id the sink does not have gets exactly one line: its result, or the error
///   that stopped it (after the retries); an input already in the sink is skipped;
/// - an id that appears twice in the inputs is an error before any work starts (for a forward
///   range), or as soon as it is met (a single-pass range: no input is started after it, the
///   inputs in flight end, then the run throws);
/// - before each attempt, the governor admits it (a 429's `retry-after`, or an exhausted limit,
///   holds every worker); a failed attempt tells the governor its reply's fields, and is retried
///   when net::worth_retrying says so, at most `retry.max_retries` times;
/// - an exception from the work is that input's error line (never retried), but for the sink's
///   own errors, which end the run.
/// The executor must run one handler at a time (an io_context run by one thread, or a strand).
class batch_runner {
public:
    using executor_type = boost::asio::any_io_executor;

    batch_runner(executor_type ex, batch_options options = {})
        : ex_(std::move(ex)), options_(std::move(options)), governor_(options_.governor) {
        if (options_.concurrency == 0) options_.concurrency = 1;
    }

    executor_type get_executor() const noexcept { return ex_; }
    const batch_options& options() const noexcept { return options_; }
    /// The governor every attempt passes (to feed it from elsewhere, or to read its state).
    rate_governor& governor() noexcept { return governor_; }

    /// Asks a run to stop starting inputs: the inputs in flight end and are written, then run()
    /// returns. Callable from a handler on the runner's executor.
    void stop() noexcept { stopping_ = true; }
    /// Whether stop() was called.
    bool stopping() const noexcept { return stopping_; }

    /// Works through `inputs` (a range whose elements have an `id`), writing the lines to `sink`;
    /// returns the final progress. Throws parley::error (errc::invalid_argument) for a repeated
    /// or invalid id, and what the sink throws.
    template <std::ranges::input_range Range, class Work>
    boost::asio::awaitable<batch_progress> run(Range&& inputs, Work work, batch_sink& sink) {
        using input_type = std::ranges::range_value_t<Range>;
        static_assert(std::is_invocable_v<Work&, const input_type&, batch_attempt&>,
                      "the work of a batch is a callable (const Input&, parley::batch_attempt&) returning "
                      "boost::asio::awaitable<parley::batch_outcome>");
        start_ = std::chrono::steady_clock::now();
        progress_ = batch_progress{};
        progress_.total = options_.total;
        seen_.clear();
        failure_ = nullptr;
        stopping_ = false;

        using iterator = std::ranges::iterator_t<Range>;
        auto it = std::ranges::begin(inputs);
        auto end = std::ranges::end(inputs);
        if constexpr (std::ranges::forward_range<Range>) {
            // every id checked before any work starts
            std::unordered_map<std::string, std::size_t> first;
            std::size_t index = 0;
            std::size_t to_run = 0;
            for (auto i = it; i != end; ++i, ++index) {
                std::string key = batch_id_key_of(detail::batch::id_of(*i));
                if (auto [at, fresh] = first.emplace(key, index); !fresh)
                    throw error(errc::invalid_argument, "input " + std::to_string(index + 1) + ": the id " + key +
                                                            " is that of input " + std::to_string(at->second + 1) +
                                                            " already: ids must be unique");
                if (!sink.done(key)) ++to_run;
            }
            if (!progress_.total) progress_.total = to_run;
        }

        struct shared_state {
            iterator it;
            std::ranges::sentinel_t<Range> end;
        };
        shared_state source{std::move(it), std::move(end)};

        std::size_t workers = 0;
        bool ticking = false;
        boost::asio::steady_timer all_done(ex_, boost::asio::steady_timer::time_point::max());
        boost::asio::steady_timer ticker(ex_);
        auto worker_ended = [&](std::exception_ptr e) {
            if (e && !failure_) failure_ = e;
            if (--workers == 0) {
                ticker.cancel();
                all_done.cancel();
            }
        };
        for (std::size_t w = 0; w < options_.concurrency; ++w) {
            ++workers;
            boost::asio::co_spawn(ex_, worker<input_type>(source, work, sink), worker_ended);
        }
        if (options_.on_progress) {
            ticking = true;
            boost::asio::co_spawn(ex_, tick(ticker, workers), [&](std::exception_ptr e) {
                if (e && !failure_) failure_ = e;
                ticking = false;
                all_done.cancel();
            });
        }
        while (workers > 0 || ticking) co_await all_done.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        progress_.elapsed = std::chrono::steady_clock::now() - start_;
        progress_.governor = governor_.stats();
        if (failure_) std::rethrow_exception(failure_);
        if (options_.on_progress) options_.on_progress(progress_);
        co_return progress_;
    }

private:
    /// One worker: takes the next input until none is left (or the run stops).
    template <class Input, class Source, class Work>
    boost::asio::awaitable<void> worker(Source& source, Work& work, batch_sink& sink) {
        for (;;) {
            if (stopping_ || failure_ || source.it == source.end) break;
            // a single-pass range's element is taken before the iterator moves on
            std::optional<Input> owned;
            const Input* input;
            if constexpr (std::forward_iterator<decltype(source.it)>) {
                input = &*source.it;
            } else {
                owned.emplace(*source.it);
                input = &*owned;
            }
            ++source.it;
            std::string key = batch_id_key_of(detail::batch::id_of(*input));
            if (sink.done(key)) {
                ++progress_.skipped;
                continue;
            }
            if constexpr (!std::forward_iterator<decltype(source.it)>) {
                if (!seen_.insert(key).second) {
                    stopping_ = true;
                    throw error(errc::invalid_argument, "the id " + key + " appears twice in the inputs: ids must be unique");
                }
            }
            ++progress_.in_flight;
            struct in_flight_guard {
                std::size_t& n;
                ~in_flight_guard() { --n; }
            } guard{progress_.in_flight};
            co_await one(*input, key, work, sink);
        }
    }

    /// Every attempt of one input, then its line.
    template <class Input, class Work>
    boost::asio::awaitable<void> one(const Input& input, const std::string& key, Work& work, batch_sink& sink) {
        const auto started = std::chrono::steady_clock::now();
        const boost::json::value id = detail::batch::id_value(detail::batch::id_of(input));
        usage_summary usage;
        std::string line;
        for (unsigned attempt = 1;; ++attempt) {
            co_await governor_.wait();
            batch_attempt a(id, attempt, usage, governor_);
            std::optional<batch_outcome> outcome;
            std::exception_ptr thrown;
            try {
                outcome.emplace(co_await work(input, a));
            } catch (...) {
                thrown = std::current_exception();
            }
            if (outcome && outcome->has_value()) {
                governor_.release();
                line = batch_result_line(key, **outcome, usage, attempt, latency(started));
                break;
            }
            bool call = !thrown;
            std::optional<boost::json::object> details;
            call_error e = thrown ? detail::batch::error_of(thrown, call, details) : outcome->error();
            if (call) governor_.observe(e.headers, e.status);
            governor_.release();
            if (call) {
                if (net::worth_retrying(e)) {
                    // stopping: the input is left without a line, for the next run to take up
                    if (stopping_) co_return;
                    if (attempt <= options_.retry.max_retries) {
                        ++progress_.retries;
                        const auto wait = net::retry_delay(options_.retry, attempt - 1, &e.headers, detail::batch::jitter01(),
                                                           std::chrono::system_clock::now());
                        if (wait.count() > 0) {
                            boost::asio::steady_timer t(ex_, wait);
                            co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                        }
                        continue;
                    }
                }
            }
            e.attempts = attempt;
            line = batch_error_line(key, e, usage, attempt, latency(started), call, details ? &*details : nullptr);
            ++progress_.failed;
            break;
        }
        sink.write(line);
        ++progress_.done;
        progress_.usage += usage;
        if (options_.on_line) options_.on_line(line);
    }

    std::optional<std::chrono::steady_clock::duration> latency(std::chrono::steady_clock::time_point started) const {
        if (!options_.latency) return std::nullopt;
        return std::chrono::steady_clock::now() - started;
    }

    /// Reports the progress every interval while workers run.
    boost::asio::awaitable<void> tick(boost::asio::steady_timer& t, const std::size_t& workers) {
        while (workers > 0) {
            t.expires_after(options_.progress_interval);
            co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            if (workers == 0) break;
            progress_.elapsed = std::chrono::steady_clock::now() - start_;
            progress_.governor = governor_.stats();
            progress_.held_until = governor_.closed_until();
            options_.on_progress(progress_);
        }
    }

    executor_type ex_;
    batch_options options_;
    rate_governor governor_;
    batch_progress progress_;
    std::chrono::steady_clock::time_point start_{};
    std::unordered_set<std::string> seen_;
    std::exception_ptr failure_;
    bool stopping_ = false;
};

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
