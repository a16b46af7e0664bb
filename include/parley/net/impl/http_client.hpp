// parley/net/impl/http_client.hpp: the coroutines of http_client and http_stream.
#ifndef PARLEY_NET_IMPL_HTTP_CLIENT_HPP
#define PARLEY_NET_IMPL_HTTP_CLIENT_HPP

#include <parley/net/detail/http_parts.hpp>

namespace parley::net {

struct http_client::attempt {
    detail::lease lease;
    std::unique_ptr<detail::reply_parser> parser;
    int status = 0;
    http_headers headers;
    std::string body;  ///< read whole for non-2xx replies, and for every reply of send()
    unsigned attempts = 1;
};

PARLEY_NET_DECL http_client::http_client(executor_type ex, client_options options)
    : ex_(std::move(ex)),
      options_(std::move(options)),
      tls_(std::make_shared<detail::tls_contexts>(options_.tls)),
      pool_(std::make_shared<detail::pool_state>(options_.max_connections_per_host)) {}

PARLEY_NET_DECL detail::pool_counters http_client::counters() const { return pool_->counters(); }

PARLEY_NET_DECL void http_client::close_idle() { pool_->close_idle(); }

PARLEY_NET_DECL http_stream::http_stream() noexcept = default;
PARLEY_NET_DECL http_stream::http_stream(http_stream&&) noexcept = default;
PARLEY_NET_DECL http_stream& http_stream::operator=(http_stream&&) noexcept = default;
PARLEY_NET_DECL http_stream::~http_stream() = default;

PARLEY_NET_DECL call_error http_stream::stop(detail::failure f) {
    failed_ = true;
    io_.reset();  // closes the connection
    return detail::to_call_error(std::move(f), attempts_);
}

namespace detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

inline std::string millis_text(clock::duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

/// A failure from an I/O error. `what` says what was being done ("connect to host:443").
inline failure io_failure(const boost::system::error_code& ec, std::string what, bool timed_out, clock::duration limit,
                          bool retryable) {
    failure f;
    if (timed_out || ec == beast::error::timeout) {
        f.code = make_error_code(errc::timeout);
        f.message = what + ": no answer within " + millis_text(limit);
    } else {
        f.code = ec;
        f.message = what + ": " + ec.message();
    }
    f.retryable = retryable && ec != asio::error::operation_aborted;
    return f;
}

inline failure timeout_failure(std::string what) {
    failure f;
    f.code = make_error_code(errc::timeout);
    f.message = what + ": the call's total time limit passed";
    return f;
}

inline failure protocol_failure(std::string message) {
    failure f;
    f.code = make_error_code(errc::protocol);
    f.message = std::move(message);
    return f;
}

/// "POST http://host:port/path": what a message says was being done.
inline std::string describe(const http_request& r) {
    const url& t = r.target;
    return r.method + " " + t.scheme + "://" + t.authority() + (t.path.empty() ? std::string("/") : t.path);
}

/// The characters of an HTTP token (RFC 9110, 5.6.2): letters, digits and !#$%&'*+-.^_`|~.
inline constexpr auto token_chars = [] {
    std::array<bool, 256> t{};
    for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = t[static_cast<std::size_t>(c - 'a' + 'A')] = true;
    for (const char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
    return t;
}();

/// True for a header field name or a method: an HTTP token.
inline bool is_token(std::string_view name) noexcept {
    if (name.empty()) return false;
    for (const char c : name)
        if (!token_chars[static_cast<unsigned char>(c)]) return false;
    return true;
}

/// True for a header field value or a request target: no CR, LF or NUL (which would end the
/// field early and let the rest pass for fields or requests of its own).
inline bool is_field_value(std::string_view value) noexcept {
    for (const char c : value)
        if (c == '\r' || c == '\n' || c == '\0') return false;
    return true;
}

/// The failure of a request that cannot be sent as given: `what` is wrong with it.
inline failure refused(const http_request& r, std::string what) {
    failure f;
    f.code = make_error_code(errc::invalid_argument);
    f.message = describe(r) + ": " + what;
    return f;
}

/// Appends `fields` to `head` as lines of a request head ("Name: value\r\n"), after checking
/// each name (an HTTP token) and value (no CR, LF or NUL); fails for the first that is not.
inline std::optional<failure> append_fields(std::string& head, const http_headers& fields, const http_request& r) {
    for (const auto& [name, value] : fields.fields()) {
        if (!is_token(name)) return refused(r, "the header field name '" + name + "' is not an HTTP token");
        if (!is_field_value(value)) return refused(r, "the value of header field " + name + " holds CR, LF or NUL");
        head.append(name).append(": ").append(value).append("\r\n");
    }
    return std::nullopt;
}

/// Appends a number in decimal.
inline void append_decimal(std::string& head, std::uint64_t n) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    head.append(digits, static_cast<std::size_t>(end - digits));
}

/// Writes the request line and header fields of `r` into `head`: Host, User-Agent, the
/// request's fields as given (`common`, then `headers`), then Content-Length (for a body, and for an empty one of POST, PUT
/// and OPTIONS, as Beast's prepare_payload does). HTTP/1.1 keeps the connection alive unasked.
/// `common_lines`, when given, is `r.common` already checked and laid out by append_fields (a
/// client checks its fixed fields once, not in every request).
inline std::optional<failure> format_head(std::string& head, const http_request& r, std::string_view user_agent,
                                          const std::string* common_lines = nullptr) {
    const url& t = r.target;
    const std::string_view path = t.path.empty() ? std::string_view("/") : std::string_view(t.path);
    if (!is_token(r.method)) return refused(r, "the method is not an HTTP token");
    if (!is_field_value(path) || path.find(' ') != std::string_view::npos)
        return refused(r, "the target holds a space, CR, LF or NUL");
    if (!is_field_value(user_agent)) return refused(r, "the User-Agent holds CR, LF or NUL");
    head.clear();
    head.append(r.method).append(" ").append(path).append(" HTTP/1.1\r\nHost: ");
    const bool ipv6 = t.host.find(':') != std::string::npos;
    if (ipv6) head.append("[");
    head.append(t.host);
    if (ipv6) head.append("]");
    if (t.port != 0 && t.port != t.default_port()) {
        head.push_back(':');
        append_decimal(head, t.port);
    }
    head.append("\r\nUser-Agent: ").append(user_agent).append("\r\n");
    if (common_lines) head.append(*common_lines);
    else if (r.common)
        if (auto f = append_fields(head, *r.common, r)) return f;
    if (auto f = append_fields(head, r.headers, r)) return f;
    if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "OPTIONS") {
        head.append("Content-Length: ");
        append_decimal(head, r.body.size());
        head.append("\r\n");
    }
    head.append("\r\n");
    return std::nullopt;
}

/// How many bytes one read asks the socket for: a whole reply, or every event that has arrived,
/// in one system call.
inline constexpr std::size_t read_chunk = 16 * 1024;

/// The first half of a read (see read_more): room for read_chunk bytes in the connection's
/// buffer, and the time limit `deadline` started.
inline asio::mutable_buffer begin_read(connection& c, clock::time_point deadline) {
    const auto space = c.buffer.prepare(read_chunk);
    c.watch_io(deadline);
    return space;
}

/// The second half of a read: the time limit ended, the `n` bytes read kept. A read stopped by
/// its deadline fails with beast::error::timeout.
inline boost::system::error_code end_read(connection& c, const boost::system::error_code& ec, std::size_t n) {
    c.unwatch_io();
    c.buffer.commit(n);
    if (c.io_expired()) return beast::error::timeout;
    return ec;
}

/// Reads what the socket has into the connection's buffer, with the time limit `deadline`.
/// A read stopped by its deadline fails with beast::error::timeout. A plain connection reads
/// from its socket, awaited as a deferred operation, which needs no coroutine frame of its own
/// (use_awaitable starts one per operation; Beast's TLS stream takes only tokens of that kind).
inline asio::awaitable<boost::system::error_code> read_more(connection& c, clock::time_point deadline) {
    const auto space = begin_read(c, deadline);
    boost::system::error_code ec;
    std::size_t n = 0;
    if (c.tls) std::tie(ec, n) = co_await c.stream.async_read_some(space, asio::as_tuple(asio::use_awaitable));
    else std::tie(ec, n) = co_await c.tcp().socket().async_read_some(space, asio::as_tuple(asio::deferred));
    co_return end_read(c, ec, n);
}

/// Writes `head` and `body` on a plain connection at once, in one gathering system call (the
/// socket is non-blocking), without a pass through the event loop or a coroutine. Returns the
/// bytes written: all, some, or none when the socket cannot take any now (not an error).
inline std::size_t write_now(connection& c, std::string_view body, boost::system::error_code& ec) {
    const std::array<asio::const_buffer, 2> pieces{asio::buffer(c.head), asio::buffer(body)};
    const std::size_t n = c.tcp().socket().write_some(pieces, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
        ec = {};
        return 0;
    }
    return ec ? 0 : n;
}

/// Writes `head` and `body`, with the time limit `deadline`. On a plain connection, the rest of
/// what write_now began (`written` bytes of the two); on a TLS connection the two go in one TLS
/// record.
inline asio::awaitable<boost::system::error_code> write_request(connection& c, std::string_view body,
                                                                clock::time_point deadline, std::size_t written) {
    boost::system::error_code ec;
    std::size_t n = 0;
    if (c.tls) {
        c.head.append(body);
        c.watch_io(deadline);
        std::tie(ec, n) = co_await asio::async_write(c.stream, asio::buffer(c.head), asio::as_tuple(asio::use_awaitable));
    } else {
        const std::array<asio::const_buffer, 2> pieces{asio::buffer(c.head), asio::buffer(body)};
        beast::buffers_suffix<std::array<asio::const_buffer, 2>> rest(pieces);
        rest.consume(written);
        c.watch_io(deadline);
        std::tie(ec, n) = co_await asio::async_write(c.tcp(), rest, asio::as_tuple(asio::use_awaitable));
    }
    c.unwatch_io();
    if (c.io_expired()) co_return beast::error::timeout;
    co_return ec;
}

/// Parses the bytes already read (into the parser's `body`), until they run out or the reply
/// ends. Awaits nothing. `starved` tells whether the parser needs bytes that have not arrived.
inline boost::system::error_code parse_buffered(connection& c, reply_parser& p, bool& starved) {
    starved = false;
    while (!p.is_done()) {
        if (c.buffer.size() == 0) {
            starved = true;
            return {};
        }
        boost::system::error_code ec;
        const std::size_t n = p.put(c.buffer.data(), ec);
        c.buffer.consume(n);
        if (ec == http::error::need_more) {
            starved = true;
            return {};
        }
        if (ec) return ec;
    }
    return {};
}

/// The time limit of one read or write: the idle limit, or the call's deadline when that is nearer.
struct read_limit {
    read_limit(clock::duration idle, clock::time_point deadline) : idle(idle) {
        const auto now = clock::now();
        total = deadline - now < idle;
        until = total ? deadline : now + idle;
    }
    clock::duration idle;
    clock::time_point until;
    bool total;  ///< the call's deadline, not the idle limit, ends the read
};

/// A failed read or write, as the call's failure: `what` was being done.
inline failure read_failure(const boost::system::error_code& ec, std::string what, const read_limit& limit) {
    if (ec == beast::error::timeout && limit.total) return timeout_failure(std::move(what));
    return io_failure(ec, std::move(what), false, limit.idle, true);
}

/// A failed read of a reply's body, as the call's failure.
inline failure body_failure(const boost::system::error_code& ec, const std::string& where, const read_limit& limit) {
    auto f = read_failure(ec, "reading the body of " + where, limit);
    if (ec == http::error::body_limit || ec == http::error::bad_chunk || ec == http::error::bad_chunk_extension ||
        ec == http::error::partial_message || ec == http::error::bad_content_length) {
        f.code = make_error_code(errc::protocol);
        f.message = "reading the body of " + where + ": " + ec.message();
        f.retryable = ec == http::error::partial_message;
    }
    return f;
}

/// The part of reading a reply's header that awaits nothing: the bytes already read parsed.
/// Sets `done` once the header is whole; fails for a header that breaks the grammar or the limit.
inline std::optional<failure> take_buffered_header(connection& c, reply_parser& p, const http_request& request,
                                                   bool& done) {
    done = false;
    if (c.buffer.size() == 0) return std::nullopt;
    boost::system::error_code ec;
    const std::size_t n = p.put(c.buffer.data(), ec);
    c.buffer.consume(n);
    if (!ec && p.is_header_done()) {
        done = true;
        return std::nullopt;
    }
    if (ec && ec != http::error::need_more) {
        failure f;
        f.code = make_error_code(errc::protocol);
        f.message = "reading the reply of " + describe(request) + ": " + ec.message();
        return f;
    }
    return std::nullopt;
}

/// A failed read of a reply's header, as the attempt's failure.
inline failure header_failure(const connection& c, const reply_parser& p, const boost::system::error_code& ec,
                              const read_limit& limit, const http_request& request) {
    auto f = read_failure(ec, "reading the reply of " + describe(request), limit);
    // A kept-alive connection that the server closed before answering: try a fresh one.
    f.stale = c.reused && !p.got_some() && c.buffer.size() == 0 &&
              (ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::ssl::error::stream_truncated);
    if (ec == asio::error::eof && (p.got_some() || c.buffer.size() != 0)) {
        f.code = make_error_code(errc::protocol);
        f.message = "reading the reply of " + describe(request) + ": the connection closed inside the header";
    }
    return f;
}

/// A body over the limit of `max_total` bytes.
inline failure body_too_large(const http_request& request, std::size_t max_total) {
    return protocol_failure("the body of " + describe(request) + " is larger than the limit of " +
                            std::to_string(max_total) + " bytes");
}

/// The part of read_whole_body that awaits nothing: the length announced checked against
/// `max_total`, the bytes already read parsed. Sets `whole` when the body is complete (as it
/// mostly is when it came with the header), so that no coroutine needs to start.
inline std::optional<failure> take_buffered_body(connection& c, reply_parser& p, std::size_t max_total,
                                                 clock::duration idle, clock::time_point deadline,
                                                 const http_request& request, bool& whole) {
    whole = false;
    if (const auto length = p.content_length(); length && *length > max_total) return body_too_large(request, max_total);
    bool starved = false;
    const auto pec = parse_buffered(c, p, starved);
    if (pec) return body_failure(pec, describe(request), read_limit(idle, deadline));
    if (p.body.size() > max_total) return body_too_large(request, max_total);
    whole = p.is_done();
    return std::nullopt;
}

/// Reads the rest of a reply's body (into the parser's `body`), at most `max_total` bytes.
inline asio::awaitable<std::optional<failure>> read_whole_body(connection& c, reply_parser& p, std::size_t max_total,
                                                               clock::duration idle, clock::time_point deadline,
                                                               const http_request& request) {
    for (;;) {
        bool whole = false;
        if (auto f = take_buffered_body(c, p, max_total, idle, deadline, request, whole)) co_return f;
        if (whole) co_return std::nullopt;
        if (clock::now() >= deadline) co_return timeout_failure("reading the body of " + describe(request));
        const read_limit limit(idle, deadline);
        auto ec = co_await read_more(c, limit.until);
        if (ec == asio::error::eof) p.put_eof(ec);  // the end of a body without a length, or too early
        if (ec) co_return body_failure(ec, describe(request), limit);
    }
}

/// A name resolution and whether its time limit passed. Shared with the deadline's handler, which
/// may run after the resolution ended (a timer that expired as the resolution completed has its
/// handler queued already; cancelling the timer then does not stop it).
struct resolve_state {
    explicit resolve_state(const asio::any_io_executor& ex) : resolver(ex) {}
    asio::ip::tcp::resolver resolver;
    bool timed_out = false;
};

/// Cancels a name resolution when its time limit passes.
struct resolve_deadline {
    std::shared_ptr<resolve_state> state;
    void operator()(const boost::system::error_code& ec) const {
        if (!ec) {
            state->timed_out = true;
            state->resolver.cancel();
        }
    }
};

/// Checks the server's certificate for the host name, and keeps why it was refused.
struct certificate_check {
    asio::ssl::host_name_verification check;
    connection* c;
    std::string host;
    bool operator()(bool preverified, asio::ssl::verify_context& ctx) {
        const bool ok = check(preverified, ctx);
        if (!ok && c->verify_problem.empty()) {
            if (!preverified)
                c->verify_problem = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.native_handle()));
            else
                c->verify_problem = "the certificate is not valid for the host name '" + host + "'";
        }
        return ok;
    }
};

/// The error of a call whose coroutine Asio stopped with an exception: after a cancellation,
/// the next operation a coroutine starts throws operation_aborted.
inline call_error thrown_error(const boost::system::system_error& e, unsigned attempts) {
    call_error c;
    c.code = e.code();
    c.message = e.code() == asio::error::operation_aborted ? std::string("the call was cancelled") : std::string(e.what());
    c.attempts = attempts;
    return c;
}

inline std::uint32_t jitter_seed() {
    std::random_device device;
    return device();
}

inline double random01() {
    thread_local std::minstd_rand engine(jitter_seed());
    return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

}  // namespace detail

PARLEY_NET_DECL boost::asio::awaitable<std::optional<detail::failure>> http_client::connect(detail::connection& c,
                                                                                   const url& target,
                                                                                   const std::optional<url>& proxy,
                                                                                   detail::clock::time_point deadline) {
    namespace asio = boost::asio;
    namespace http = boost::beast::http;
    using detail::clock;
    const url& first_hop = proxy ? *proxy : target;
    const std::string where = "connect to " + detail::host_port(first_hop);
    // One limit for the whole connection: resolution, TCP, proxy CONNECT and TLS handshake.
    const auto connect_deadline = std::min(clock::now() + options_.timeouts.connect, deadline);
    const auto limit = connect_deadline - clock::now();
    if (limit <= clock::duration::zero()) co_return detail::timeout_failure(where);

    // Name resolution has no socket to put a deadline on: a timer cancels it.
    auto resolving = std::make_shared<detail::resolve_state>(ex_);
    asio::steady_timer timer(ex_);
    timer.expires_at(connect_deadline);
    timer.async_wait(detail::resolve_deadline{resolving});
    auto [rec, endpoints] = co_await resolving->resolver.async_resolve(first_hop.host, std::to_string(first_hop.port),
                                                                       asio::as_tuple(asio::use_awaitable));
    timer.cancel();
    if (rec) co_return detail::io_failure(rec, "resolve " + first_hop.host, resolving->timed_out, limit, true);

    c.tcp().expires_at(connect_deadline);
    auto [cec, ep] = co_await c.tcp().async_connect(endpoints, asio::as_tuple(asio::use_awaitable));
    (void)ep;
    if (cec) co_return detail::io_failure(cec, where, false, limit, true);
    boost::system::error_code ignored;
    c.tcp().socket().set_option(asio::ip::tcp::no_delay(true), ignored);

    if (proxy) {
        // A tunnel through the proxy: CONNECT host:port, then TLS (or plain HTTP) inside it.
        const std::string authority = detail::host_port(target);
        http::request<http::empty_body> req{http::verb::connect, authority, 11};
        req.set(http::field::host, authority);
        req.set(http::field::user_agent, options_.user_agent);
        if (auto auth = proxy_authorization(*proxy); !auth.empty()) req.set(http::field::proxy_authorization, auth);
        c.tcp().expires_at(connect_deadline);
        auto [wec, wn] = co_await http::async_write(c.tcp(), req, asio::as_tuple(asio::use_awaitable));
        (void)wn;
        if (wec) co_return detail::io_failure(wec, "CONNECT through proxy " + detail::host_port(*proxy), false, limit, true);
        http::response_parser<http::empty_body> p;
        p.skip(true);  // a 200 to CONNECT has no body: the tunnel starts right after the header
        p.header_limit(static_cast<std::uint32_t>(options_.limits.max_header_bytes));
        auto [rec2, rn] = co_await http::async_read_header(c.tcp(), c.buffer, p, asio::as_tuple(asio::use_awaitable));
        (void)rn;
        if (rec2)
            co_return detail::io_failure(rec2, "CONNECT through proxy " + detail::host_port(*proxy), false, limit, true);
        const int status = static_cast<int>(p.get().result_int());
        if (status != 200) {
            detail::failure f;
            f.code = make_error_code(errc::http_status);
            f.status = status;
            f.message = "proxy " + detail::host_port(*proxy) + " refused CONNECT to " + authority + ": " +
                        std::to_string(status) + " " + std::string(p.get().reason());
            f.retryable = status == 502 || status == 503 || status == 504;
            detail::copy_fields(p.get(), f.headers);
            co_return f;
        }
        if (c.buffer.size() != 0)
            co_return detail::protocol_failure("proxy " + detail::host_port(*proxy) + " sent bytes after its CONNECT reply");
    }

    if (target.tls()) {
        c.tls = true;
        SSL* ssl = c.stream.native_handle();
        if (!detail::is_ip_literal(target.host)) SSL_set_tlsext_host_name(ssl, target.host.c_str());
        if (options_.tls.verifies()) {
            c.stream.set_verify_mode(asio::ssl::verify_peer);
            c.stream.set_verify_callback(
                detail::certificate_check{asio::ssl::host_name_verification(target.host), &c, target.host});
        } else {
            c.stream.set_verify_mode(asio::ssl::verify_none);
        }
        c.tcp().expires_at(connect_deadline);
        auto [hec] = co_await c.stream.async_handshake(asio::ssl::stream_base::client, asio::as_tuple(asio::use_awaitable));
        if (hec) {
            if (!c.verify_problem.empty()) {
                detail::failure f;
                f.code = make_error_code(errc::tls_verification);
                f.message = "TLS handshake with " + detail::host_port(target) + ": " + c.verify_problem;
                co_return f;
            }
            co_return detail::io_failure(hec, "TLS handshake with " + detail::host_port(target), false, limit, true);
        }
    }
    c.tcp().expires_never();  // from now on each read and write has its own limit (connection::watch_io)
    if (!c.tls) {
        boost::system::error_code ignored_ec;
        c.tcp().socket().non_blocking(true, ignored_ec);  // for write_request's immediate write
    }
    co_return std::nullopt;
}

PARLEY_NET_DECL const std::string* http_client::common_lines(const http_request& r) {
    if (!r.common) return nullptr;
    for (const auto& e : common_cache_)
        if (e.fields == r.common) return &e.lines;
    std::string lines;
    if (detail::append_fields(lines, *r.common, r)) return nullptr;
    auto& slot = common_cache_[next_common_slot_];
    next_common_slot_ = (next_common_slot_ + 1) % common_cache_.size();
    slot.fields = r.common;
    slot.lines = std::move(lines);
    return &slot.lines;
}

PARLEY_NET_DECL std::optional<detail::failure> http_client::route_to(const url& target, std::optional<url>& proxy,
                                                                   std::string& key) const {
    try {
        proxy = proxy_for_target(target);
    } catch (const error& e) {  // an unusable proxy variable (socks5://..., a bad URL)
        detail::failure f;
        f.code = e.code();
        f.message = e.what();
        return f;
    }
    key.reserve(64);  // the pool's key: scheme://host:port[ via scheme://host:port]
    key.append(target.scheme).append("://").append(target.host).append(":").append(std::to_string(target.port));
    if (proxy) key.append(" via ").append(proxy->scheme).append("://").append(detail::host_port(*proxy));
    return std::nullopt;
}

PARLEY_NET_DECL std::optional<detail::failure> http_client::take_kept_alive(const url& target, detail::lease& lease) {
    std::string key;
    // Without proxy variables to read, the key depends on the target alone: that of the last
    // target is kept.
    const bool by_target = options_.proxy.how != proxy_options::mode::environment;
    if (by_target && last_route_ && last_route_->port == target.port && last_route_->scheme == target.scheme &&
        last_route_->host == target.host) {
        key = last_route_->key;
    } else {
        std::optional<url> proxy;
        if (auto f = route_to(target, proxy, key)) return f;
        if (by_target) last_route_ = route_key{target.scheme, target.host, target.port, key};
    }
    if (auto c = pool_->take_idle(key)) lease = detail::lease(pool_, std::move(key), std::move(c));
    return std::nullopt;
}

PARLEY_NET_DECL boost::asio::awaitable<std::optional<detail::failure>> http_client::acquire(const url& target,
                                                                                           detail::clock::time_point deadline,
                                                                                           detail::lease& lease) {
    namespace asio = boost::asio;
    using detail::clock;
    std::optional<url> proxy;
    std::string key;
    if (auto f = route_to(target, proxy, key)) co_return f;
    // A kept-alive connection (one given back while this call waited), a new one in a free
    // slot, or wait for a slot.
    for (;;) {
        auto taken = pool_->try_take(key, ex_);
        if (taken.idle) {
            lease = detail::lease(pool_, std::move(key), std::move(taken.idle));
            break;
        }
        if (taken.slot) {
            lease = detail::lease(pool_, std::move(key), nullptr);
            std::unique_ptr<detail::connection> c;
            try {
                c = std::make_unique<detail::connection>(ex_, target.tls() ? tls_->verified() : tls_->plain());
            } catch (const error& e) {  // the system CA store could not be loaded
                detail::failure f;
                f.code = e.code();
                f.message = e.what();
                co_return f;
            }
            if (auto f = co_await connect(*c, target, proxy, deadline)) {
                c->close();
                co_return f;
            }
            lease.set_connection(std::move(c));
            break;
        }
        const auto wait_limit = deadline - clock::now();
        if (wait_limit <= clock::duration::zero()) {
            pool_->forget(key, taken.wait);
            co_return detail::timeout_failure("waiting for a connection to " + detail::host_port(target));
        }
        // Woken by a released slot (the timer is cancelled then) or by the deadline.
        taken.wait->timer.expires_after(wait_limit);
        auto [ec] = co_await taken.wait->timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (!taken.wait->woken) {
            pool_->forget(key, taken.wait);
            if (ec == asio::error::operation_aborted) {
                detail::failure f;
                f.code = ec;
                f.message = "waiting for a connection to " + detail::host_port(target) + ": cancelled";
                co_return f;
            }
            co_return detail::timeout_failure("waiting for a connection to " + detail::host_port(target));
        }
    }
    co_return std::nullopt;
}

PARLEY_NET_DECL boost::asio::awaitable<std::optional<detail::failure>> http_client::try_once(const http_request& request,
                                                                                    bool whole_body,
                                                                                    detail::clock::time_point deadline,
                                                                                    attempt& out) {
    namespace asio = boost::asio;
    using detail::clock;
    // One failure for every step, and few other locals: a coroutine keeps each of its locals in
    // its frame, which is allocated per call (one of at most 1,020 bytes is recycled by Asio).
    std::optional<detail::failure> f;
    // A connection: a kept-alive one at once, or else a new one, or one freed while waiting.
    detail::lease lease;
    f = take_kept_alive(request.target, lease);
    if (!f && !lease) f = co_await acquire(request.target, deadline, lease);
    if (f) co_return std::move(f);
    auto& c = lease.conn();
    f = detail::format_head(c.head, request, options_.user_agent, common_lines(request));
    if (f) co_return std::move(f);
    const detail::read_limit write_limit(options_.timeouts.idle, deadline);
    boost::system::error_code ec;  // of the write, then of each read
    std::size_t n = 0;  // bytes written, then bytes of each read
    if (!c.tls) n = detail::write_now(c, request.body, ec);
    if (!ec && n != c.head.size() + request.body.size())
        ec = co_await detail::write_request(c, request.body, write_limit.until, n);
    if (ec) {
        f = detail::read_failure(ec, "sending " + detail::describe(request), write_limit);
        // A kept-alive connection the server has closed fails its first write; a cancelled or
        // timed-out write says nothing about the connection.
        f->stale = c.reused && ec != asio::error::operation_aborted && ec != boost::beast::error::timeout;
        co_return std::move(f);
    }

    auto parser = std::make_unique<detail::reply_parser>();
    parser->header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options_.limits.max_header_bytes, UINT32_MAX)));
    parser->body_limit(boost::none);  // bounded by read_whole_body (whole bodies) or by the reader (streams)
    if (request.method == "HEAD") parser->skip(true);
    // The reply's header, with the idle limit per read. The reads are awaited here, not in a
    // coroutine of their own: every call goes through this loop.
    for (;;) {
        bool header_done = false;
        f = detail::take_buffered_header(c, *parser, request, header_done);
        if (f) co_return std::move(f);
        if (header_done) break;
        if (clock::now() >= deadline) co_return detail::timeout_failure("reading the reply of " + detail::describe(request));
        const detail::read_limit limit(options_.timeouts.idle, deadline);
        const auto space = detail::begin_read(c, limit.until);
        if (c.tls) std::tie(ec, n) = co_await c.stream.async_read_some(space, asio::as_tuple(asio::use_awaitable));
        else std::tie(ec, n) = co_await c.tcp().socket().async_read_some(space, asio::as_tuple(asio::deferred));
        ec = detail::end_read(c, ec, n);
        if (ec) co_return detail::header_failure(c, *parser, ec, limit, request);
    }
    parser->eager(true);  // parse every byte that has arrived, not one chunk at a time

    out.status = parser->status;
    out.headers = std::move(parser->fields);
    const bool success = out.status >= 200 && out.status < 300;
    if (whole_body || !success) {
        // Mostly the body came with the header: then no coroutine is started to read it.
        bool whole = false;
        f = detail::take_buffered_body(c, *parser, options_.limits.max_body_bytes, options_.timeouts.idle, deadline,
                                       request, whole);
        if (!f && !whole)
            f = co_await detail::read_whole_body(c, *parser, options_.limits.max_body_bytes, options_.timeouts.idle,
                                                 deadline, request);
        if (f) {
            f->status = out.status;
            f->headers = out.headers;
            co_return std::move(f);
        }
        out.body = std::move(parser->body);
        if (parser->keep_alive() && c.buffer.size() == 0) lease.give_back();
        else lease.drop();  // a server that closes, or sent bytes past the reply
    } else {
        out.lease = std::move(lease);
        out.parser = std::move(parser);
    }
    co_return std::nullopt;
}

template <class Value>
boost::asio::awaitable<boost::system::result<Value, call_error>> http_client::run(http_request request) {
    using detail::clock;
    constexpr bool whole_body = std::is_same_v<Value, http_response>;
    const auto deadline = clock::now() + options_.timeouts.total;
    unsigned retries = 0;
    unsigned fresh_tries = 0;
    try {
        for (;;) {
            attempt a;
            auto f = co_await try_once(request, whole_body, deadline, a);
            if (f && f->code == std::errc::operation_canceled) co_return detail::to_call_error(std::move(*f), retries + 1);
            if (f && f->stale && fresh_tries < 2) {
                // The kept-alive connection was dead: not the server's failure, not a retry.
                ++fresh_tries;
                pool_->count_dead_reused();
                continue;
            }
            const auto wait = retry_wait(f, a, retries, deadline);
            if (!wait) {
                if (f) co_return detail::to_call_error(std::move(*f), retries + 1);
                a.attempts = retries + 1;
                if constexpr (whole_body) co_return response_of(a);
                else co_return stream_of(a, deadline);
            }
            a = attempt{};  // closes a connection left unread
            if (auto cancelled = co_await wait_to_retry(request, *wait))
                co_return detail::to_call_error(std::move(*cancelled), retries + 1);
            ++retries;
        }
    } catch (const boost::system::system_error& e) {
        co_return detail::thrown_error(e, 1);
    }
}

PARLEY_NET_DECL std::optional<std::chrono::milliseconds> http_client::retry_wait(const std::optional<detail::failure>& f,
                                                                                 const attempt& a, unsigned retries,
                                                                                 detail::clock::time_point deadline) const {
    std::optional<std::chrono::milliseconds> wait;
    if (retries < options_.retry.max_retries) {
        if (f && f->retryable) wait = retry_delay(options_.retry, retries, nullptr, detail::random01(), std::chrono::system_clock::now());
        else if (!f && (a.status < 200 || a.status > 299) && should_retry(a.status, a.headers)) {
            const auto now = std::chrono::system_clock::now();
            std::optional<std::chrono::milliseconds> asked;  // the body's hint, when the header fields give none
            if (options_.retry_body_wait && !server_retry_after(a.headers, now))
                asked = options_.retry_body_wait(a.headers, a.body);
            if (asked && asked->count() > 0 && *asked < std::chrono::seconds(60)) wait = *asked;
            else wait = retry_delay(options_.retry, retries, &a.headers, detail::random01(), now);
        }
    }
    if (wait && detail::clock::now() + *wait >= deadline) wait.reset();  // no time left for another attempt
    return wait;
}

PARLEY_NET_DECL boost::asio::awaitable<std::optional<detail::failure>> http_client::wait_to_retry(const http_request& request,
                                                                                                  std::chrono::milliseconds wait) {
    namespace asio = boost::asio;
    asio::steady_timer timer(ex_);
    timer.expires_after(wait);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (!ec) co_return std::nullopt;
    detail::failure cancelled;
    cancelled.code = ec;
    cancelled.message = "waiting to retry " + request.method + " " + request.target.authority() + ": cancelled";
    co_return cancelled;
}

PARLEY_NET_DECL http_response http_client::response_of(attempt& a) {
    http_response r;
    r.status = a.status;
    r.headers = std::move(a.headers);
    r.body = std::move(a.body);
    r.attempts = a.attempts;
    return r;
}

PARLEY_NET_DECL http_stream http_client::stream_of(attempt& a, detail::clock::time_point deadline) const {
    http_stream s;
    s.status_ = a.status;
    s.headers_ = std::move(a.headers);
    s.attempts_ = a.attempts;
    s.idle_ = options_.timeouts.idle;
    s.deadline_ = deadline;
    if (a.parser) {
        s.io_ = std::make_unique<detail::stream_io>();
        s.io_->conn = std::move(a.lease);
        s.io_->parser = std::move(a.parser);
        s.done_ = s.io_->parser->is_done();
        if (s.done_) s.io_->conn.give_back();
    } else {
        s.buffer_ = std::move(a.body);
        s.done_ = true;
    }
    return s;
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<http_response, call_error>> http_client::send(http_request request) {
    return run<http_response>(std::move(request));
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<http_stream, call_error>> http_client::open(http_request request) {
    return run<http_stream>(std::move(request));
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<std::string_view, call_error>> http_stream::read_some() {
    namespace asio = boost::asio;
    if (failed_) {
        call_error e;
        e.code = make_error_code(errc::invalid_argument);
        e.message = "the stream failed before: nothing more to read";
        co_return e;
    }
    if (!io_) {
        // A body read whole before the stream was handed over: given once, then the end.
        if (handed_) buffer_.clear();
        handed_ = true;
        co_return std::string_view(buffer_);
    }
    auto& p = *io_->parser;
    p.body.clear();
    while (!p.is_done()) {
        auto& c = io_->conn.conn();
        bool starved = false;
        const auto pec = detail::parse_buffered(c, p, starved);
        if (pec) co_return stop(detail::body_failure(pec, "the stream", detail::read_limit(idle_, deadline_)));
        if (!p.body.empty() || !starved) break;  // every byte that had arrived, in one piece; or the end
        if (detail::clock::now() >= deadline_) co_return stop(detail::timeout_failure("reading the stream"));
        const detail::read_limit limit(idle_, deadline_);
        boost::system::error_code ec;
        try {
            ec = co_await detail::read_more(c, limit.until);
        } catch (const boost::system::system_error& e) {
            failed_ = true;
            io_.reset();  // closes the connection
            co_return detail::thrown_error(e, attempts_);
        }
        if (ec == asio::error::eof) p.put_eof(ec);  // the end of a body without a length, or too early
        if (ec) co_return stop(detail::body_failure(ec, "the stream", limit));
    }
    if (p.is_done() && !done_) {
        done_ = true;
        if (p.keep_alive() && io_->conn.conn().buffer.size() == 0) io_->conn.give_back();
        else io_->conn.drop();
    }
    co_return std::string_view(p.body);
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<std::string, call_error>> http_stream::read_all(std::size_t limit) {
    std::string all;
    for (;;) {
        auto piece = co_await read_some();
        if (!piece) co_return piece.error();
        if (piece->empty()) break;
        if (all.size() + piece->size() > limit) {
            failed_ = true;
            io_.reset();  // closes the connection
            call_error e;
            e.code = make_error_code(errc::protocol);
            e.message = "the body is larger than the limit of " + std::to_string(limit) + " bytes";
            e.status = status_;
            e.headers = headers_;
            co_return e;
        }
        all += *piece;
    }
    co_return all;
}

}  // namespace parley::net

#endif
