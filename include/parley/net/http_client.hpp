// parley/net/http_client.hpp: HTTP/1.1 calls over TCP and TLS with Boost.Beast and C++20
// coroutines: a connection pool with keep-alive, connect/idle/total time limits, cancellation,
// retries with the official SDKs' policy, proxies through CONNECT, and streamed bodies.
#ifndef PARLEY_NET_HTTP_CLIENT_HPP
#define PARLEY_NET_HTTP_CLIENT_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/net/call_error.hpp>
#include <parley/net/detail/pool_counters.hpp>
#include <parley/net/headers.hpp>
#include <parley/net/options.hpp>
#include <parley/net/proxy.hpp>
#include <parley/net/retry.hpp>
#include <parley/net/url.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
struct failure;
class lease;
class connection;
class pool_state;
class tls_contexts;
struct stream_io;
}  // namespace detail

/// The body of a reply, read as it arrives (an SSE stream, for instance). Holds its connection
/// until the body ends (then the connection goes back to the pool) or the stream is dropped
/// (then the connection is closed).
class http_stream {
public:
    PARLEY_NET_DECL http_stream() noexcept;
    PARLEY_NET_DECL http_stream(http_stream&&) noexcept;
    PARLEY_NET_DECL http_stream& operator=(http_stream&&) noexcept;
    PARLEY_NET_DECL ~http_stream();

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
    call_error stop(detail::failure f);

    /// The connection and the parser of a body still to read (its `body` is what read_some
    /// returns); null for a body read whole, and once the stream failed.
    std::unique_ptr<detail::stream_io> io_;
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
    PARLEY_NET_DECL explicit http_client(executor_type ex, client_options options = {});

    executor_type get_executor() const noexcept { return ex_; }
    const client_options& options() const noexcept { return options_; }
    /// Connection counters.
    PARLEY_NET_DECL detail::pool_counters counters() const;
    /// Closes every kept-alive connection.
    PARLEY_NET_DECL void close_idle();

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
    /// One attempt of a call: its connection, parser and reply (parley/net/impl/http_client.hpp).
    struct attempt;

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
