// parley/net/http_client.hpp: HTTP/1.1 calls over TCP and TLS with Boost.Beast and C++20
// coroutines: a connection pool with keep-alive, connect/idle/total time limits, cancellation,
// retries with the official SDKs' policy, proxies through CONNECT, and streamed bodies.
#ifndef PARLEY_NET_HTTP_CLIENT_HPP
#define PARLEY_NET_HTTP_CLIENT_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/net/call_error.hpp>
#include <parley/net/detail/pool.hpp>
#include <parley/net/headers.hpp>
#include <parley/net/options.hpp>
#include <parley/net/proxy.hpp>
#include <parley/net/retry.hpp>
#include <parley/net/tls.hpp>
#include <parley/net/url.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/system/result.hpp>

#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace parley::net {

/// An HTTP request to send: method, full URL, extra header fields, body.
struct http_request {
    std::string method = "POST";
    net::url target;
    /// Fields shared by many requests (a client's authorization and content types), sent as
    /// given after Host and User-Agent; may be null. An http_client checks a set once and keeps
    /// its lines: the fields must not change once a request has carried them.
    std::shared_ptr<const http_headers> common;
    http_headers headers;  ///< sent as given, after `common`; Content-Length follows
    std::string body;
};

/// A whole HTTP reply.
struct http_response {
    int status = 0;
    http_headers headers;
    std::string body;
    unsigned attempts = 1;  ///< attempts made (retries + 1)
};

class http_client;

namespace detail {

/// Why one attempt failed, and whether another attempt may help.
struct failure {
    std::error_code code;
    std::string message;
    bool retryable = false;
    bool stale = false;  ///< a kept-alive connection died before the reply began: try a fresh one
    int status = 0;
    http_headers headers;
};

inline call_error to_call_error(failure f, unsigned attempts) {
    call_error e;
    e.code = f.code;
    e.message = std::move(f.message);
    e.status = f.status;
    e.headers = std::move(f.headers);
    e.attempts = attempts;
    e.transient = f.retryable;
    return e;
}

/// What is left of a limit before the deadline; zero or less means the deadline has passed.
inline clock::duration bounded(clock::duration limit, clock::time_point deadline) {
    return std::min(limit, deadline - clock::now());
}

inline std::string host_port(const url& u) { return u.host + ":" + std::to_string(u.port); }

inline bool is_ip_literal(std::string_view host) {
    boost::system::error_code ec;
    (void)boost::asio::ip::make_address(host, ec);
    return !ec;
}

inline void copy_fields(const boost::beast::http::fields& from, http_headers& to) {
    for (const auto& f : from) to.add(std::string(f.name_string()), std::string(f.value()));
}

/// Parses a reply straight into what the client keeps: the status, the header fields as
/// http_headers, and the body appended to `body` (no intermediate message object).
class reply_parser final : public boost::beast::http::basic_parser<false> {
public:
    int status = 0;
    http_headers fields;
    std::string body;  ///< the body bytes parsed since it was last cleared

private:
    using string_view = boost::beast::string_view;
    using error_code = boost::system::error_code;

    void on_request_impl(boost::beast::http::verb, string_view, string_view, int, error_code&) override {}
    void on_response_impl(int code, string_view, int, error_code&) override {
        status = code;
        fields.reserve(12);  // the fields of a reply grow the vector at most once or twice
    }
    void on_field_impl(boost::beast::http::field, string_view name, string_view value, error_code&) override {
        fields.add_copy(name, value);
    }
    void on_header_impl(error_code&) override {}
    void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code&) override {
        if (length && *length <= 1024 * 1024) body.reserve(static_cast<std::size_t>(*length));
    }
    std::size_t on_body_impl(string_view piece, error_code&) override {
        body.append(piece.data(), piece.size());
        return piece.size();
    }
    void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
    std::size_t on_chunk_body_impl(std::uint64_t, string_view piece, error_code&) override {
        body.append(piece.data(), piece.size());
        return piece.size();
    }
    void on_finish_impl(error_code&) override {}
};

/// The TLS contexts of a client. Connections to https servers use `verified()`, made on the
/// first of them (loading the system CA store takes tens of milliseconds: a client that only
/// speaks plain HTTP never pays it), or at once when the options name CAs of their own, so that
/// an unreadable CA file is the constructor's error. Plain connections use `plain`, which
/// verifies nothing and never carries TLS.
class tls_contexts {
public:
    explicit tls_contexts(tls_options options)
        : options_(std::move(options)), plain_(boost::asio::ssl::context::tls_client) {
        if (!options_.ca_file.empty() || !options_.ca_pem.empty()) verified_.emplace(make_tls_context(options_));
    }

    boost::asio::ssl::context& plain() noexcept { return plain_; }

    /// Throws parley::error (errc::invalid_argument) when the context cannot be made.
    boost::asio::ssl::context& verified() {
        std::lock_guard lock(mutex_);
        if (!verified_) verified_.emplace(make_tls_context(options_));
        return *verified_;
    }

private:
    tls_options options_;
    boost::asio::ssl::context plain_;
    std::mutex mutex_;
    std::optional<boost::asio::ssl::context> verified_;
};

}  // namespace detail

/// The body of a reply, read as it arrives (an SSE stream, for instance). Holds its connection
/// until the body ends (then the connection goes back to the pool) or the stream is dropped
/// (then the connection is closed).
class http_stream {
public:
    http_stream() = default;
    http_stream(http_stream&&) noexcept = default;
    http_stream& operator=(http_stream&&) noexcept = default;

    int status() const noexcept { return status_; }
    const http_headers& headers() const noexcept { return headers_; }
    unsigned attempts() const noexcept { return attempts_; }
    /// True once the whole body was read.
    bool done() const noexcept { return done_; }

    /// The next bytes of the body; an empty view at the end. The view is valid until the next
    /// call. Fails with errc::timeout when nothing arrives for the idle limit or the call's total
    /// limit passes, and with the socket's error when the connection breaks.
    boost::asio::awaitable<boost::system::result<std::string_view, call_error>> read_some();

    /// The rest of the body (at most `limit` bytes; more is errc::protocol).
    boost::asio::awaitable<boost::system::result<std::string, call_error>> read_all(std::size_t limit);

private:
    friend class http_client;

    /// Ends the stream with a failure: its connection is closed.
    call_error stop(detail::failure f) {
        failed_ = true;
        lease_.drop();
        parser_.reset();
        return detail::to_call_error(std::move(f), attempts_);
    }

    detail::lease lease_;
    std::unique_ptr<detail::reply_parser> parser_;  ///< its `body` is what read_some returns
    std::string buffer_;  ///< a body read whole before the stream was handed over
    int status_ = 0;
    http_headers headers_;
    unsigned attempts_ = 1;
    bool done_ = false;
    bool failed_ = false;
    bool handed_ = false;
    std::chrono::milliseconds idle_{0};
    detail::clock::time_point deadline_{};
};

/// An HTTP/1.1 client for one executor. Calls are coroutines; any number may run at once. As
/// with Beast's streams, the executor runs one handler at a time: an io_context run by one
/// thread, or a strand. Connections are pooled per (scheme, host, port, proxy) and kept alive; at most
/// `max_connections_per_host` are open at once per pool key (further calls wait for one).
/// A kept-alive connection the server closed is detected when taken, or when its request fails
/// before any byte of the reply, and replaced without counting as a retry. Failed attempts are
/// retried as the official OpenAI and Anthropic SDKs do (retry.hpp). Cancelling a call (Asio
/// cancellation slot) ends it with boost::asio::error::operation_aborted and closes the
/// connection it was using.
class http_client {
public:
    using executor_type = boost::asio::any_io_executor;

    /// Throws parley::error when the TLS options name an unreadable CA file. The system CA
    /// store is loaded on the first https connection.
    explicit http_client(executor_type ex, client_options options = {})
        : ex_(std::move(ex)),
          options_(std::move(options)),
          tls_(std::make_shared<detail::tls_contexts>(options_.tls)),
          pool_(std::make_shared<detail::pool_state>(options_.max_connections_per_host)) {}

    executor_type get_executor() const noexcept { return ex_; }
    const client_options& options() const noexcept { return options_; }
    /// Connection counters.
    detail::pool_counters counters() const { return pool_->counters(); }
    /// Closes every kept-alive connection.
    void close_idle() { pool_->close_idle(); }

    /// Sends `request` and reads the whole reply, retrying per the policy. A reply with any
    /// status is a value; only a failure to get a reply (or a reply beyond the limits) is an
    /// error.
    boost::asio::awaitable<boost::system::result<http_response, call_error>> send(http_request request);

    /// Sends `request` and reads the reply's header, retrying per the policy until a reply is
    /// handed over. A 2xx reply's body is left to read from the stream; any other reply's body
    /// is read whole first (so `read_all` returns it at once). Nothing is retried once the
    /// stream is returned.
    boost::asio::awaitable<boost::system::result<http_stream, call_error>> open(http_request request);

private:
    struct attempt {
        detail::lease lease;
        std::unique_ptr<detail::reply_parser> parser;
        int status = 0;
        http_headers headers;
        std::string body;  ///< read whole for non-2xx replies, and for every reply of send()
        unsigned attempts = 1;
    };

    /// The attempts of one call, each by try_once, retried per the policy until one gives a reply
    /// or the policy gives up; the reply as `Value`: an http_response (send: every body read
    /// whole) or an http_stream (open). One coroutine for the call: send and open start none.
    template <class Value>
    boost::asio::awaitable<boost::system::result<Value, call_error>> run(http_request request);
    /// How long to wait before the next attempt, per the policy; none when the last attempt is
    /// the call's result (a success, a failure not to retry, no retry or time left).
    std::optional<std::chrono::milliseconds> retry_wait(const std::optional<detail::failure>& f, const attempt& a,
                                                        unsigned retries, detail::clock::time_point deadline) const;
    /// Waits `wait` before another attempt; the failure when the wait was cancelled.
    boost::asio::awaitable<std::optional<detail::failure>> wait_to_retry(const http_request& request,
                                                                         std::chrono::milliseconds wait);
    /// The reply of send, from its last attempt.
    static http_response response_of(attempt& a);
    /// The stream of open, from its last attempt and the call's deadline.
    http_stream stream_of(attempt& a, detail::clock::time_point deadline) const;
    boost::asio::awaitable<std::optional<detail::failure>> try_once(const http_request& request, bool whole_body,
                                                                    detail::clock::time_point deadline, attempt& out);
    /// The proxy of `target` (none when direct) and the pool's key of a connection to it; fails
    /// when the proxy settings are unusable.
    std::optional<detail::failure> route_to(const url& target, std::optional<url>& proxy, std::string& key) const;
    /// A kept-alive connection to `target` into `lease`, when one is idle: the way of most calls,
    /// with nothing to await. Fails when the proxy settings are unusable.
    std::optional<detail::failure> take_kept_alive(const url& target, detail::lease& lease);
    /// A connection to `target` into `lease` when none was idle: a new one in a free slot, or one
    /// given back or freed while waiting for a slot, within the deadline.
    boost::asio::awaitable<std::optional<detail::failure>> acquire(const url& target, detail::clock::time_point deadline,
                                                                   detail::lease& lease);
    boost::asio::awaitable<std::optional<detail::failure>> connect(detail::connection& c, const url& target,
                                                                   const std::optional<url>& proxy,
                                                                   detail::clock::time_point deadline);
    /// The lines of the request's `common` fields, checked and laid out once per set of fields
    /// (a chat client sends the same two sets in every request): null when there are none, or
    /// when they do not pass the checks (format_head then says why). Valid until the next call.
    const std::string* common_lines(const http_request& r);

    std::optional<url> proxy_for_target(const url& target) const {
        switch (options_.proxy.how) {
        case proxy_options::mode::none: return std::nullopt;
        case proxy_options::mode::fixed: return options_.proxy.url;
        case proxy_options::mode::environment: break;
        }
        return proxy_for(target);
    }

    executor_type ex_;
    client_options options_;
    std::shared_ptr<detail::tls_contexts> tls_;
    std::shared_ptr<detail::pool_state> pool_;
    /// Sets of common fields already checked, with their lines (the set is held, so that its
    /// address stays its own).
    struct checked_fields {
        std::shared_ptr<const http_headers> fields;
        std::string lines;
    };
    std::array<checked_fields, 2> common_cache_;
    std::size_t next_common_slot_ = 0;
    /// The pool's key of the last target taken from the pool, when the proxy does not come from
    /// the environment (then the key depends on the target alone).
    struct route_key {
        std::string scheme;
        std::string host;
        std::uint16_t port = 0;
        std::string key;
    };
    std::optional<route_key> last_route_;
};

}  // namespace parley::net

#ifndef PARLEY_SEPARATE_COMPILATION
#include <parley/net/impl/http_client.hpp>
#endif

#endif
