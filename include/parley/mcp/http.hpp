// parley/mcp/http.hpp: MCP's Streamable HTTP transport over parley's HTTP client (TLS, proxies,
// time limits as for the chat clients): every message is a POST to the server's endpoint; a
// request's reply is one JSON message or an SSE stream of messages (its progress notifications,
// then its response); the session is the Mcp-Session-Id header the server gives in its reply to
// initialize; after initialize, every request carries MCP-Protocol-Version; a GET stream carries
// the server's own messages (list changes, logs) when the server offers one; DELETE ends the
// session. Needs Beast and OpenSSL: link parley::net.
#ifndef PARLEY_MCP_HTTP_HPP
#define PARLEY_MCP_HTTP_HPP

#include <parley/mcp/client.hpp>
#include <parley/net/http_client.hpp>
#include <parley/net/sse.hpp>
#include <parley/net/url.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include <map>
#include <memory>
#include <string>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley::mcp {

namespace detail {

/// The state of a Streamable HTTP session: shared with the coroutines that read its replies, so
/// that it outlives them.
class http_session : public std::enable_shared_from_this<http_session> {
public:
    /// `net` configures the HTTP client (TLS, proxies, connect time limit); its retries are
    /// turned off (a request is not sent twice) and its idle and total time limits are set from
    /// `options` (the session bounds each request itself).
    http_session(boost::asio::any_io_executor ex, server_config config, client_options options, net::client_options net = net::client_options())
        : ex_(ex), config_(std::move(config)), options_(std::move(options)), http_(ex, tuned(net, options_)),
          listen_(ex, listening(net)) {}

    boost::asio::awaitable<mcp_result<void>> start(session_sink sink) {
        sink_ = std::move(sink);
        const auto parsed = net::try_parse_url(config_.url);
        if (!parsed || (parsed->scheme != "http" && parsed->scheme != "https"))
            co_return make_mcp_error(errc::invalid_argument, "the server '" + config_.name + "' has no usable URL: '" + config_.url + "'");
        url_ = *parsed;
        alive_ = std::make_shared<bool>(true);
        co_return mcp_result<void>();
    }

    boost::asio::awaitable<mcp_result<void>> send(std::string message, std::int64_t id) {
        auto self = shared_from_this();
        if (ended_) co_return make_mcp_error(errc::connection_closed, "the session with '" + config_.name + "' has ended");
        if (id == 0) {
            // a notification or a response: the server answers 202 Accepted
            auto r = co_await http_.send(make_request("POST", std::move(message)));
            if (!r) co_return failure_of(r.error());
            if (r->status < 200 || r->status > 299) co_return status_failure(r->status, r->body);
            co_return mcp_result<void>();
        }
        auto signal = std::make_shared<boost::asio::cancellation_signal>();
        streams_[id] = signal;
        auto alive = alive_;
        // the handler holds the signal: a signal must outlive the operations bound to its slot
        boost::asio::co_spawn(ex_, self->exchange(std::move(message), id, alive),
                              boost::asio::bind_cancellation_slot(signal->slot(), [signal](std::exception_ptr) {}));
        co_return mcp_result<void>();
    }

    void set_protocol_version(std::string version) { version_ = std::move(version); }

    /// Opens the GET stream of the server's own messages and waits for its reply's head (at most
    /// the connect time limit); a server without one (405) is fine. Its events are then read by a
    /// coroutine of their own while the session lasts.
    boost::asio::awaitable<void> open_listener() {
        auto self = shared_from_this();
        if (listening_ || ended_) co_return;
        listening_ = true;
        boost::asio::steady_timer wait(ex_, std::chrono::steady_clock::time_point::max());
        auto alive = alive_;
        auto ready = std::make_shared<bool>(false);
        auto timer = std::make_shared<boost::asio::steady_timer*>(&wait);
        boost::asio::co_spawn(
            ex_,
            [self, alive, ready, timer]() -> boost::asio::awaitable<void> {
                auto r = co_await self->listen_.open(self->make_request("GET", {}));
                *ready = true;
                if (*timer) (*timer)->cancel();
                if (!*alive || !r || r->status() < 200 || r->status() > 299) co_return;  // 405: the server offers none
                (void)co_await self->read_events(*r, alive);
            },
            boost::asio::bind_cancellation_slot(listen_signal_.slot(), boost::asio::detached));
        wait.expires_after(options_.connect_timeout);
        if (!*ready) {
            auto [ec] = co_await wait.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            (void)ec;
        }
        *timer = nullptr;  // the timer goes with this frame
    }

    void forget(std::int64_t id) {
        auto it = streams_.find(id);
        if (it == streams_.end()) return;
        auto signal = it->second;
        streams_.erase(it);
        signal->emit(boost::asio::cancellation_type::terminal);
    }

    boost::asio::awaitable<void> stop() {
        auto self = shared_from_this();
        if (ended_) co_return;
        if (!session_.empty()) {
            auto req = make_request("DELETE", {});
            (void)co_await http_.send(std::move(req));  // the server may not allow it (405): nothing to do then
        }
        kill();
    }

    void kill() noexcept {
        if (alive_) *alive_ = false;
        ended_ = true;
        auto streams = std::move(streams_);
        streams_.clear();
        for (auto& [id, s] : streams) s->emit(boost::asio::cancellation_type::terminal);
        listen_signal_.emit(boost::asio::cancellation_type::terminal);
    }

    const std::string& session_id() const noexcept { return session_; }

private:
    static net::client_options tuned(net::client_options n, const client_options& o) {
        n.retry.max_retries = 0;
        n.timeouts.connect = std::min(n.timeouts.connect, o.connect_timeout);
        // a long tool call may stream nothing but its result: the session's own limit bounds it
        n.timeouts.idle = o.request_timeout + std::chrono::seconds(5);
        n.timeouts.total = std::chrono::hours(24);
        n.limits.max_body_bytes = o.limits.max_message;
        return n;
    }
    static net::client_options listening(net::client_options n) {
        n.retry.max_retries = 0;
        n.timeouts.idle = std::chrono::hours(24);
        n.timeouts.total = std::chrono::hours(24 * 365);
        return n;
    }

    net::http_request make_request(std::string method, std::string body) const {
        net::http_request r;
        r.method = std::move(method);
        r.target = url_;
        r.headers = config_.headers;
        if (r.method == "POST") {
            r.headers.add("Content-Type", "application/json");
            r.headers.add("Accept", "application/json, text/event-stream");
        } else if (r.method == "GET") {
            r.headers.add("Accept", "text/event-stream");
        }
        if (!session_.empty()) r.headers.add("Mcp-Session-Id", session_);
        if (!version_.empty()) r.headers.add("MCP-Protocol-Version", version_);
        r.body = std::move(body);
        return r;
    }

    mcp_error failure_of(const call_error& c) const {
        mcp_error e;
        e.code = c.code;
        e.message = "the server '" + config_.name + "' (" + config_.url + "): " + c.what();
        e.http_status = c.status;
        return e;
    }

    mcp_error status_failure(int status, std::string_view body) const {
        mcp_error e;
        e.code = make_error_code(status == 404 && !session_.empty() ? errc::connection_closed : errc::http_status);
        e.http_status = status;
        std::string shown(body.substr(0, 300));
        for (char& c : shown)
            if (static_cast<unsigned char>(c) < 0x20) c = ' ';
        e.message = status == 404 && !session_.empty() ? "the server '" + config_.name + "' no longer knows the session"
                                                       : "the server '" + config_.name + "' answered HTTP " + std::to_string(status) +
                                                             (shown.empty() ? std::string() : ": " + shown);
        return e;
    }

    /// Delivers the messages of a body (one message or a batch); false after a malformed one.
    bool deliver(std::string_view text) {
        auto messages = decode(text, options_.limits);
        if (!messages) {
            const mcp_error e = make_mcp_error(errc::protocol, "the server '" + config_.name + "' sent something that is not an MCP message: " + messages.error());
            end(e);
            return false;
        }
        for (auto& m : *messages)
            if (sink_.on_message) sink_.on_message(std::move(m));
        return true;
    }

    /// Reads an SSE body, delivering each event's data; returns the failure that ended it.
    boost::asio::awaitable<std::optional<mcp_error>> read_events(net::http_stream& stream, std::shared_ptr<bool> alive) {
        net::sse_limits limits;
        limits.max_event = options_.limits.max_message;
        limits.max_line = options_.limits.max_message;
        net::sse_reader reader(limits);
        for (;;) {
            auto bytes = co_await stream.read_some();
            if (!*alive) co_return std::nullopt;
            if (!bytes) co_return failure_of(bytes.error());
            if (bytes->empty()) co_return std::nullopt;
            bool bad = false;
            const auto ec = reader.feed(*bytes, [&](const net::sse_event& ev) {
                if (ev.data.empty()) return true;
                if (!deliver(ev.data)) bad = true;
                return !bad && *alive;
            });
            if (!*alive || bad) co_return std::nullopt;
            if (ec)
                co_return make_mcp_error(errc::protocol, "the server '" + config_.name + "' sent an event beyond the limits (" +
                                                             std::to_string(options_.limits.max_message) + " bytes)");
        }
    }

    /// One request's POST and its reply.
    boost::asio::awaitable<void> exchange(std::string message, std::int64_t id, std::shared_ptr<bool> alive) {
        auto self = shared_from_this();
        auto opened = co_await http_.open(make_request("POST", std::move(message)));
        if (!*alive) co_return;
        auto fail = [&](mcp_error e) {
            streams_.erase(id);
            if (sink_.on_request_failed) sink_.on_request_failed(id, std::move(e));
        };
        if (!opened) co_return fail(failure_of(opened.error()));
        net::http_stream& stream = *opened;
        if (const auto sid = stream.headers().get("mcp-session-id"); !sid.empty()) session_ = std::string(sid);
        const int status = stream.status();
        if (status < 200 || status > 299) {
            auto body = co_await stream.read_all(64 * 1024);
            if (!*alive) co_return;
            const std::string text = body ? *body : std::string();
            // a JSON-RPC error in the body answers the request itself
            if (auto m = decode(text, options_.limits); m && m->size() == 1 && m->front().type == rpc_message::kind::error) {
                streams_.erase(id);
                if (sink_.on_message) sink_.on_message(std::move(m->front()));
                co_return;
            }
            const mcp_error e = status_failure(status, text);
            if (e.code == errc::connection_closed) {
                fail(e);
                end(e);
                co_return;
            }
            co_return fail(e);
        }
        const std::string_view type = stream.headers().get("content-type");
        if (type.substr(0, 17) == "text/event-stream") {
            auto failure = co_await read_events(stream, alive);
            if (!*alive) co_return;
            streams_.erase(id);
            if (failure && sink_.on_request_failed) sink_.on_request_failed(id, std::move(*failure));
            co_return;
        }
        auto body = co_await stream.read_all(options_.limits.max_message);
        if (!*alive) co_return;
        if (!body) co_return fail(failure_of(body.error()));
        streams_.erase(id);
        if (status == 202 || body->empty()) {
            if (sink_.on_request_failed)
                sink_.on_request_failed(id, make_mcp_error(errc::protocol, "the server '" + config_.name +
                                                                               "' accepted a request without answering it"));
            co_return;
        }
        deliver(*body);
    }

    void end(const mcp_error& e) {
        if (ended_) return;
        ended_ = true;
        if (sink_.on_closed) sink_.on_closed(e);
    }

    boost::asio::any_io_executor ex_;
    server_config config_;
    client_options options_;
    net::http_client http_;
    net::http_client listen_;
    net::url url_;
    session_sink sink_;
    std::string session_;
    std::string version_;
    std::map<std::int64_t, std::shared_ptr<boost::asio::cancellation_signal>> streams_;
    boost::asio::cancellation_signal listen_signal_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
    bool listening_ = false;
    bool ended_ = false;
};

/// The Streamable HTTP transport: an http_session the session's coroutines share.
class http_transport final : public transport {
public:
    http_transport(boost::asio::any_io_executor ex, server_config config, client_options options, net::client_options net = net::client_options())
        : session_(std::make_shared<http_session>(std::move(ex), std::move(config), std::move(options), std::move(net))) {}
    ~http_transport() override { session_->kill(); }

    boost::asio::awaitable<mcp_result<void>> start(session_sink sink) override { return session_->start(std::move(sink)); }
    boost::asio::awaitable<mcp_result<void>> send(std::string message, std::int64_t id) override {
        return session_->send(std::move(message), id);
    }
    void set_protocol_version(std::string version) override { session_->set_protocol_version(std::move(version)); }
    boost::asio::awaitable<void> listen() override { return session_->open_listener(); }
    void forget(std::int64_t id) override { session_->forget(id); }
    boost::asio::awaitable<void> stop() override { return session_->stop(); }
    void kill() noexcept override { session_->kill(); }
    const std::string& session_id() const noexcept { return session_->session_id(); }

private:
    std::shared_ptr<http_session> session_;
};

}  // namespace detail

/// Opens a session with the server at `config.url` over Streamable HTTP.
inline boost::asio::awaitable<mcp_result<std::shared_ptr<client>>> connect_http(server_config config, client_options options = client_options(),
                                                                               net::client_options net = net::client_options()) {
    auto ex = co_await boost::asio::this_coro::executor;
    auto t = std::make_unique<detail::http_transport>(ex, config, options, std::move(net));
    co_return co_await client::start(std::move(t), std::move(config), std::move(options));
}

}  // namespace parley::mcp

#include <parley/detail/warnings_pop.hpp>

#endif
