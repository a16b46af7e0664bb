// parley/net/impl/http_client.hpp: the coroutines of http_client and http_stream.
#ifndef PARLEY_NET_IMPL_HTTP_CLIENT_HPP
#define PARLEY_NET_IMPL_HTTP_CLIENT_HPP

namespace parley::net {

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

template <class Stream>
asio::awaitable<boost::system::error_code> read_some_from(Stream& s, beast::flat_buffer& buffer, response_parser& p) {
    auto [ec, n] = co_await http::async_read_some(s, buffer, p, asio::as_tuple(asio::use_awaitable));
    (void)n;
    co_return ec;
}

template <class Stream>
asio::awaitable<boost::system::error_code> write_to(Stream& s, http::request<http::string_body>& req) {
    auto [ec, n] = co_await http::async_write(s, req, asio::as_tuple(asio::use_awaitable));
    (void)n;
    co_return ec;
}

/// Reads the next bytes of a reply into `p`, over TLS or plain TCP as the connection uses.
inline asio::awaitable<boost::system::error_code> read_some(connection& c, response_parser& p) {
    if (c.tls) co_return co_await read_some_from(c.stream, c.buffer, p);
    co_return co_await read_some_from(c.tcp(), c.buffer, p);
}

/// Writes a request, over TLS or plain TCP as the connection uses.
inline asio::awaitable<boost::system::error_code> write(connection& c, http::request<http::string_body>& req) {
    if (c.tls) co_return co_await write_to(c.stream, req);
    co_return co_await write_to(c.tcp(), req);
}

/// Reads the reply's header (the status line and fields) with an idle limit per read.
inline asio::awaitable<std::optional<failure>> read_header(connection& c, response_parser& p, clock::duration idle,
                                                           clock::time_point deadline, const std::string& where) {
    while (!p.is_header_done()) {
        const auto limit = bounded(idle, deadline);
        if (limit <= clock::duration::zero()) co_return timeout_failure("reading the reply of " + where);
        c.tcp().expires_after(limit);
        auto ec = co_await read_some(c, p);
        if (ec) {
            auto f = io_failure(ec, "reading the reply of " + where, false, limit, true);
            if (ec == http::error::header_limit || ec == http::error::bad_field || ec == http::error::bad_version ||
                ec == http::error::bad_status || ec == http::error::bad_line_ending || ec == http::error::bad_value) {
                f.code = make_error_code(errc::protocol);
                f.retryable = false;
            }
            // A kept-alive connection that the server closed before answering: try a fresh one.
            f.stale = c.reused && !p.got_some() &&
                      (ec == asio::error::eof || ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
                       ec == asio::ssl::error::stream_truncated);
            co_return f;
        }
    }
    co_return std::nullopt;
}

/// Reads the next piece of the body into `into` (appended). `got` tells how much was added.
inline asio::awaitable<std::optional<failure>> read_body_some(connection& c, response_parser& p, std::string& into,
                                                              std::size_t max_total, clock::duration idle,
                                                              clock::time_point deadline, const std::string& where) {
    constexpr std::size_t piece = 16 * 1024;
    const std::size_t before = into.size();
    into.resize(before + piece);
    p.get().body().data = into.data() + before;
    p.get().body().size = piece;
    const auto limit = bounded(idle, deadline);
    if (limit <= clock::duration::zero()) {
        into.resize(before);
        co_return timeout_failure("reading the body of " + where);
    }
    c.tcp().expires_after(limit);
    auto ec = co_await read_some(c, p);
    into.resize(before + (piece - p.get().body().size));
    if (ec == http::error::need_buffer) ec = {};
    if (ec) {
        auto f = io_failure(ec, "reading the body of " + where, false, limit, true);
        if (ec == http::error::body_limit || ec == http::error::bad_chunk || ec == http::error::bad_chunk_extension) {
            f.code = make_error_code(errc::protocol);
            f.retryable = false;
        }
        co_return f;
    }
    if (into.size() > max_total)
        co_return protocol_failure("the body of " + where + " is larger than the limit of " + std::to_string(max_total) +
                                   " bytes");
    co_return std::nullopt;
}

/// Cancels a name resolution when its time limit passes.
struct resolve_deadline {
    asio::ip::tcp::resolver* resolver;
    bool* timed_out;
    void operator()(const boost::system::error_code& ec) const {
        if (!ec) {
            *timed_out = true;
            resolver->cancel();
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
    asio::ip::tcp::resolver resolver(ex_);
    asio::steady_timer timer(ex_);
    bool resolve_timed_out = false;
    timer.expires_at(connect_deadline);
    timer.async_wait(detail::resolve_deadline{&resolver, &resolve_timed_out});
    auto [rec, endpoints] = co_await resolver.async_resolve(first_hop.host, std::to_string(first_hop.port),
                                                            asio::as_tuple(asio::use_awaitable));
    timer.cancel();
    if (rec) co_return detail::io_failure(rec, "resolve " + first_hop.host, resolve_timed_out, limit, true);

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
    co_return std::nullopt;
}

PARLEY_NET_DECL boost::asio::awaitable<std::optional<detail::failure>> http_client::try_once(const http_request& request,
                                                                                    bool whole_body,
                                                                                    detail::clock::time_point deadline,
                                                                                    attempt& out) {
    namespace asio = boost::asio;
    namespace http = boost::beast::http;
    using detail::clock;
    const url& target = request.target;
    std::optional<url> proxy;
    try {
        proxy = proxy_for_target(target);
    } catch (const error& e) {  // an unusable proxy variable (socks5://..., a bad URL)
        detail::failure f;
        f.code = e.code();
        f.message = e.what();
        co_return f;
    }
    std::string key = target.scheme + "://" + detail::host_port(target);
    if (proxy) key += " via " + proxy->scheme + "://" + detail::host_port(*proxy);

    // A connection: a kept-alive one, a new one in a free slot, or wait for a slot.
    detail::lease lease;
    for (;;) {
        auto taken = pool_->try_take(key, ex_);
        if (taken.idle) {
            lease = detail::lease(pool_, key, std::move(taken.idle));
            break;
        }
        if (taken.slot) {
            lease = detail::lease(pool_, key, nullptr);
            auto c = std::make_unique<detail::connection>(ex_, *tls_);
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
    auto& c = lease.conn();
    const std::string where = request.method + " " + target.scheme + "://" + target.authority() +
                              (target.path.empty() ? std::string("/") : target.path);

    http::request<http::string_body> req;
    req.method_string(request.method);
    req.target(target.path.empty() ? std::string_view("/") : std::string_view(target.path));
    req.version(11);
    req.set(http::field::host, target.authority());
    req.set(http::field::user_agent, options_.user_agent);
    for (const auto& [name, value] : request.headers.fields()) req.insert(name, value);
    req.body() = request.body;
    req.prepare_payload();
    req.keep_alive(true);

    const auto write_limit = detail::bounded(options_.timeouts.idle, deadline);
    if (write_limit <= clock::duration::zero()) co_return detail::timeout_failure("sending " + where);
    c.tcp().expires_after(write_limit);
    auto wec = co_await detail::write(c, req);
    if (wec) {
        auto f = detail::io_failure(wec, "sending " + where, false, write_limit, true);
        // A kept-alive connection the server has closed fails its first write; a cancelled or
        // timed-out write says nothing about the connection.
        f.stale = c.reused && wec != asio::error::operation_aborted && wec != boost::beast::error::timeout;
        co_return f;
    }

    auto parser = std::make_unique<detail::response_parser>();
    parser->header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options_.limits.max_header_bytes, UINT32_MAX)));
    parser->body_limit(boost::none);  // bounded by read_body_some (whole bodies) or by the reader (streams)
    if (auto f = co_await detail::read_header(c, *parser, options_.timeouts.idle, deadline, where)) co_return f;

    out.status = static_cast<int>(parser->get().result_int());
    detail::copy_fields(parser->get(), out.headers);
    const bool success = out.status >= 200 && out.status < 300;
    if (whole_body || !success) {
        while (!parser->is_done()) {
            if (auto f = co_await detail::read_body_some(c, *parser, out.body, options_.limits.max_body_bytes,
                                                         options_.timeouts.idle, deadline, where)) {
                f->status = out.status;
                f->headers = out.headers;
                co_return f;
            }
        }
        if (parser->get().keep_alive()) lease.give_back();
        else lease.drop();
    } else {
        out.lease = std::move(lease);
        out.parser = std::move(parser);
    }
    co_return std::nullopt;
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<http_client::attempt, call_error>> http_client::run(
    const http_request& request, bool whole_body, detail::clock::time_point deadline) {
    namespace asio = boost::asio;
    using detail::clock;
    unsigned retries = 0;
    unsigned fresh_tries = 0;
    for (;;) {
        attempt a;
        auto f = co_await try_once(request, whole_body, deadline, a);
        if (f && f->code == std::errc::operation_canceled) co_return detail::to_call_error(std::move(*f), retries + 1);
        if (f && f->stale && fresh_tries < 2) {
            // The kept-alive connection was dead: not the server's failure, not a retry.
            ++fresh_tries;
            continue;
        }
        std::optional<std::chrono::milliseconds> wait;
        if (retries < options_.retry.max_retries) {
            if (f && f->retryable) wait = retry_delay(options_.retry, retries, nullptr, detail::random01(), std::chrono::system_clock::now());
            else if (!f && (a.status < 200 || a.status > 299) && should_retry(a.status, a.headers))
                wait = retry_delay(options_.retry, retries, &a.headers, detail::random01(), std::chrono::system_clock::now());
        }
        if (wait && clock::now() + *wait >= deadline) wait.reset();  // no time left for another attempt
        if (!wait) {
            if (f) co_return detail::to_call_error(std::move(*f), retries + 1);
            a.attempts = retries + 1;
            co_return a;
        }
        a = attempt{};  // closes a connection left unread
        asio::steady_timer timer(ex_);
        timer.expires_after(*wait);
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (ec) {
            detail::failure cancelled;
            cancelled.code = ec;
            cancelled.message = "waiting to retry " + request.method + " " + request.target.authority() + ": cancelled";
            co_return detail::to_call_error(std::move(cancelled), retries + 1);
        }
        ++retries;
    }
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<http_response, call_error>> http_client::send(http_request request) {
    const auto deadline = detail::clock::now() + options_.timeouts.total;
    boost::system::result<attempt, call_error> a = call_error{};
    try {
        a = co_await run(request, true, deadline);
    } catch (const boost::system::system_error& e) {
        a = detail::thrown_error(e, 1);
    }
    if (!a) co_return a.error();
    http_response r;
    r.status = a->status;
    r.headers = std::move(a->headers);
    r.body = std::move(a->body);
    r.attempts = a->attempts;
    co_return r;
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<http_stream, call_error>> http_client::open(http_request request) {
    const auto deadline = detail::clock::now() + options_.timeouts.total;
    boost::system::result<attempt, call_error> a = call_error{};
    try {
        a = co_await run(request, false, deadline);
    } catch (const boost::system::system_error& e) {
        a = detail::thrown_error(e, 1);
    }
    if (!a) co_return a.error();
    http_stream s;
    s.status_ = a->status;
    s.headers_ = std::move(a->headers);
    s.attempts_ = a->attempts;
    s.idle_ = options_.timeouts.idle;
    s.deadline_ = deadline;
    if (a->parser) {
        s.lease_ = std::move(a->lease);
        s.parser_ = std::move(a->parser);
        s.done_ = s.parser_->is_done();
        if (s.done_) s.lease_.give_back();
    } else {
        s.buffer_ = std::move(a->body);
        s.done_ = true;
    }
    co_return s;
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<std::string_view, call_error>> http_stream::read_some() {
    if (failed_) {
        call_error e;
        e.code = make_error_code(errc::invalid_argument);
        e.message = "the stream failed before: nothing more to read";
        co_return e;
    }
    if (!parser_) {
        // A body read whole before the stream was handed over: given once, then the end.
        if (handed_) buffer_.clear();
        handed_ = true;
        co_return std::string_view(buffer_);
    }
    buffer_.clear();
    while (buffer_.empty() && !parser_->is_done()) {
        std::optional<detail::failure> f;
        try {
            f = co_await detail::read_body_some(lease_.conn(), *parser_, buffer_, SIZE_MAX, idle_, deadline_, "the stream");
        } catch (const boost::system::system_error& e) {
            failed_ = true;
            lease_.drop();
            parser_.reset();
            co_return detail::thrown_error(e, attempts_);
        }
        if (f) {
            failed_ = true;
            lease_.drop();
            parser_.reset();
            co_return detail::to_call_error(std::move(*f), attempts_);
        }
    }
    if (parser_->is_done() && !done_) {
        done_ = true;
        if (parser_->get().keep_alive()) lease_.give_back();
        else lease_.drop();
    }
    co_return std::string_view(buffer_);
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<std::string, call_error>> http_stream::read_all(std::size_t limit) {
    std::string all;
    for (;;) {
        auto piece = co_await read_some();
        if (!piece) co_return piece.error();
        if (piece->empty()) break;
        if (all.size() + piece->size() > limit) {
            failed_ = true;
            lease_.drop();
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
