// parley/net/detail/http_parts.hpp: what the HTTP client's coroutines are made of, with
// Boost.Beast, Asio's TLS and OpenSSL: an attempt's failure, the reply parser, the TLS contexts,
// a streamed body's connection. Included by parley/net/impl/http_client.hpp only, so that the
// client's declaration (parley/net/http_client.hpp) stays free of Beast under
// PARLEY_SEPARATE_COMPILATION.
#ifndef PARLEY_NET_DETAIL_HTTP_PARTS_HPP
#define PARLEY_NET_DETAIL_HTTP_PARTS_HPP

#include <parley/error.hpp>
#include <parley/net/call_error.hpp>
#include <parley/net/detail/pool.hpp>
#include <parley/net/headers.hpp>
#include <parley/net/detail/pool_counters.hpp>
#include <parley/net/options.hpp>
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

namespace parley::net::detail {

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

/// The connection of a streamed body and the parser reading it (null once the stream failed or
/// was dropped; the connection goes back to the pool when the body ends).
struct stream_io {
    lease conn;
    std::unique_ptr<reply_parser> parser;
};

}  // namespace parley::net::detail

#endif
