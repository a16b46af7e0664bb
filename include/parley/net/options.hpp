// parley/net/options.hpp: the settings of an HTTP client: TLS, timeouts, retries, connection
// pool, proxy and size limits. No Beast here: a program can fill them without the transport.
#ifndef PARLEY_NET_OPTIONS_HPP
#define PARLEY_NET_OPTIONS_HPP

#include <parley/net/retry.hpp>
#include <parley/net/url.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace parley::net {

/// How TLS connections are checked. By default the server's certificate chain is verified
/// against the system's CA store and its name against the host name (SNI is always sent for
/// host names).
struct tls_options {
    /// A PEM file of extra trusted CAs (a corporate CA, a test server's self-signed CA), trusted
    /// in addition to the system store.
    std::string ca_file;
    /// Extra trusted CAs as PEM text.
    std::string ca_pem;
    /// False skips the system CA store (only `ca_file` and `ca_pem` are trusted).
    bool use_system_store = true;

    /// Turns every certificate and host-name check off: anyone on the path can read and change
    /// the traffic, API key included. For a throw-away test server only.
    void danger_accept_invalid_certificates() noexcept { verify_ = false; }
    /// True unless danger_accept_invalid_certificates() was called.
    bool verifies() const noexcept { return verify_; }

private:
    bool verify_ = true;
};

/// Time limits of a call. Each is a limit, not a wait: a reply that arrives sooner is taken.
struct timeouts {
    /// Name resolution, TCP connect, proxy CONNECT and TLS handshake of one connection.
    std::chrono::milliseconds connect{10'000};
    /// The longest wait for the next bytes of a reply (headers or body; a stalled stream ends
    /// with errc::timeout after this long).
    std::chrono::milliseconds idle{120'000};
    /// The whole call: every attempt, the waits between retries, and the reading of a stream
    /// to its end.
    std::chrono::milliseconds total{600'000};
};

/// Which proxy the client goes through.
struct proxy_options {
    enum class mode : unsigned char {
        environment,  ///< HTTPS_PROXY / HTTP_PROXY / ALL_PROXY, minus NO_PROXY (the default)
        none,  ///< direct connections only
        fixed,  ///< `url` for every host
    };
    mode how = mode::environment;
    std::optional<net::url> url;  ///< the proxy of mode::fixed
};

/// Bounds on what a server may send.
struct reply_limits {
    std::size_t max_header_bytes = 64 * 1024;  ///< status line and header fields
    std::size_t max_body_bytes = 64 * 1024 * 1024;  ///< a whole (non-streamed) body
};

/// Every setting of an HTTP client.
struct client_options {
    tls_options tls;
    net::timeouts timeouts;
    retry_policy retry;
    proxy_options proxy;
    reply_limits limits;
    /// Most connections open at once to one (scheme, host, port); further calls wait for one.
    std::size_t max_connections_per_host = 256;
    /// The User-Agent field of every request.
    std::string user_agent = "parley/0.1";
    /// The wait before a retry that a failed reply's body asks for, read when its header fields
    /// (retry-after) ask for none: an API's own retry hint (Google's RetryInfo detail), taken as a
    /// header's wait is, when it is more than 0 and less than 60 s. Empty: none is read.
    /// chat_client sets it from its wire API (wire_api::retry_after) when it is empty.
    std::function<std::optional<std::chrono::milliseconds>(const http_headers& headers, std::string_view body)> retry_body_wait;
};

}  // namespace parley::net

#endif
