// parley/mcp/client.hpp: a Model Context Protocol client over a transport (stdio: mcp/stdio.hpp;
// Streamable HTTP: mcp/http.hpp; connect_stdio and connect_http make a client over each): the session
// (initialize with version negotiation, notifications/initialized), requests with time limits and
// cancellation (notifications/cancelled), progress, ping, tools (listed page by page, refreshed
// on notifications/tools/list_changed, called), prompts and resources. See docs/mcp.md.
#ifndef PARLEY_MCP_CLIENT_HPP
#define PARLEY_MCP_CLIENT_HPP

#include <parley/mcp/jsonrpc.hpp>
#include <parley/mcp/types.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley::mcp {

/// Options of one request.
struct call_options {
    /// Receives the request's progress notifications (the request then carries a progressToken);
    /// each one also restarts the request's time limit.
    std::function<void(const progress&)> on_progress;
    /// The request's time limit; 0: the client's request_timeout.
    std::chrono::milliseconds timeout{0};
};

namespace detail {

/// What a transport gives the session: each message the server sent, the failure of one request
/// it could not deliver (Streamable HTTP: its POST failed), and the end of the connection.
struct session_sink {
    std::function<void(rpc_message)> on_message;
    std::function<void(std::int64_t id, mcp_error)> on_request_failed;
    std::function<void(mcp_error)> on_closed;
};

/// A way to a server. Every call is made on the session's executor.
class transport {
public:
    virtual ~transport() = default;
    /// Starts (runs the server, or checks the URL) and begins delivering messages to `sink`.
    virtual boost::asio::awaitable<mcp_result<void>> start(session_sink sink) = 0;
    /// Sends one message; `id` is the request's id (0 for notifications and responses). The
    /// message's replies arrive through the sink.
    virtual boost::asio::awaitable<mcp_result<void>> send(std::string message, std::int64_t id) = 0;
    /// After initialize: the negotiated revision (Streamable HTTP sends it in a header).
    virtual void set_protocol_version(std::string) {}
    /// After initialize, before notifications/initialized: opens what carries the server's own
    /// messages (Streamable HTTP: its GET stream), so that nothing it sends then is lost.
    virtual boost::asio::awaitable<void> listen() { co_return; }
    /// The request `id` ended without its response (cancelled, timed out): stop reading for it.
    virtual void forget(std::int64_t /*id*/) {}
    /// Stops gracefully (closes the server's input, then signals, then kills; ends an HTTP session).
    virtual boost::asio::awaitable<void> stop() = 0;
    /// Stops at once, without waiting (the client's destructor).
    virtual void kill() noexcept = 0;
    /// What to say of the server when it went away (an exit status, its last stderr line).
    virtual std::string describe_end() const { return {}; }
    /// The server's process id (stdio), -1 when there is none.
    virtual int process_id() const noexcept { return -1; }
};

/// An open request.
struct pending {
    explicit pending(const boost::asio::any_io_executor& ex) : timer(ex, std::chrono::steady_clock::time_point::max()) {}
    boost::asio::steady_timer timer;
    std::optional<mcp_result<boost::json::value>> outcome;
    std::function<void(const progress&)> on_progress;
    std::chrono::milliseconds timeout{0};
};

}  // namespace detail

/// A session with one MCP server. Made by connect_stdio or connect_http (or `client::start` with a transport);
/// its coroutines run on its executor, one at a time (an io_context run by one thread, or a
/// strand). Requests may overlap. Destroying the client stops the server at once (a stdio server
/// is killed); `co_await close()` first stops it gracefully.
class client : public std::enable_shared_from_this<client> {
public:
    /// Starts the transport, initializes the session (proposing protocol_versions[0], accepting
    /// any of protocol_versions), sends notifications/initialized and reads the tool list when the
    /// server has tools. Fails with the transport's error, the server's JSON-RPC error, a revision
    /// parley does not speak (errc::protocol), or errc::timeout after options.connect_timeout.
    static boost::asio::awaitable<mcp_result<std::shared_ptr<client>>> start(std::unique_ptr<detail::transport> t,
                                                                            server_config config, client_options options) {
        auto ex = co_await boost::asio::this_coro::executor;
        std::shared_ptr<client> c(new client(ex, std::move(t), std::move(config), std::move(options)));
        if (auto r = co_await c->open(); !r) {
            c->transport_->kill();
            co_return r.error();
        }
        co_return c;
    }

    client(const client&) = delete;
    client& operator=(const client&) = delete;
    ~client() {
        if (transport_) transport_->kill();
    }

    const server_config& config() const noexcept { return config_; }
    const server_info& server() const noexcept { return server_; }
    /// The tools as last listed (kept up to date on notifications/tools/list_changed).
    const std::vector<tool>& tools() const noexcept { return tools_; }
    /// The tool named `name`, if the last list had it.
    const tool* find_tool(std::string_view name) const noexcept {
        for (const tool& t : tools_)
            if (t.name == name) return &t;
        return nullptr;
    }
    /// True once the connection ended (the server exited, or close() was called).
    bool closed() const noexcept { return closed_.has_value(); }
    /// The server's process id when parley started it (stdio), else -1.
    int process_id() const noexcept { return transport_ ? transport_->process_id() : -1; }

    /// A request; its result's JSON, or why it failed. Cancelling the awaiting coroutine (Asio
    /// cancellation) sends notifications/cancelled and ends the call with operation_aborted.
    boost::asio::awaitable<mcp_result<boost::json::value>> request(std::string method, boost::json::value params,
                                                                  call_options opt = call_options()) {
        auto self = shared_from_this();
        // a cancelled call still sends notifications/cancelled: no exception from the awaits
        co_await boost::asio::this_coro::throw_if_cancelled(false);
        if (closed_) co_return *closed_;
        const std::int64_t id = next_id_++;
        auto p = std::make_shared<detail::pending>(ex_);
        p->on_progress = std::move(opt.on_progress);
        p->timeout = opt.timeout.count() > 0 ? opt.timeout : options_.request_timeout;
        if (p->on_progress) {
            if (params.is_null()) params = boost::json::object();
            if (params.is_object()) params.get_object()["_meta"] = boost::json::object{{"progressToken", id}};
        }
        pending_[id] = p;
        p->timer.expires_after(p->timeout);
        if (auto sent = co_await transport_->send(encode_request(id, method, params), id); !sent) {
            pending_.erase(id);
            co_return sent.error();
        }
        while (!p->outcome) {
            auto [ec] = co_await p->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            if (p->outcome) break;
            if (ec == boost::asio::error::operation_aborted) {
                // cancelled by the caller (a response or progress cancels the wait too, but sets
                // the outcome or moves the expiry first)
                if (p->timer.expiry() > std::chrono::steady_clock::now()) {
                    auto cs = co_await boost::asio::this_coro::cancellation_state;
                    if (cs.cancelled() == boost::asio::cancellation_type::none) continue;  // progress moved the expiry
                }
                pending_.erase(id);
                transport_->forget(id);
                co_await boost::asio::this_coro::reset_cancellation_state();
                co_await notify_cancelled(id, "the client cancelled the request");
                mcp_error e;
                e.code = boost::system::error_code(boost::asio::error::operation_aborted);
                e.message = method + " was cancelled";
                co_return e;
            }
            if (p->timer.expiry() > std::chrono::steady_clock::now()) continue;  // moved by progress
            pending_.erase(id);
            transport_->forget(id);
            co_await notify_cancelled(id, "the request timed out");
            co_return make_mcp_error(errc::timeout, method + ": no answer within " + std::to_string(p->timeout.count()) + " ms");
        }
        pending_.erase(id);
        co_return std::move(*p->outcome);
    }

    /// A notification to the server.
    boost::asio::awaitable<mcp_result<void>> notify(std::string method, boost::json::value params = nullptr) {
        auto self = shared_from_this();
        if (closed_) co_return *closed_;
        co_return co_await transport_->send(encode_notification(method, params), 0);
    }

    /// ping: the server answers.
    boost::asio::awaitable<mcp_result<void>> ping() {
        auto r = co_await request("ping", boost::json::object());
        if (!r) co_return r.error();
        co_return mcp_result<void>();
    }

    /// Every tool of the server, page by page (at most options.max_pages); the list is kept.
    boost::asio::awaitable<mcp_result<std::vector<tool>>> list_tools() {
        std::vector<tool> all;
        auto pages = co_await list_pages("tools/list", "tools", [&](const boost::json::value& v, std::size_t i) -> std::optional<mcp_error> {
            (void)i;
            auto t = detail::read_tool(v, all.size());
            if (!t) return t.error();
            all.push_back(std::move(*t));
            return std::nullopt;
        });
        if (!pages) co_return pages.error();
        tools_ = all;
        co_return all;
    }

    /// Calls a tool with `arguments` (a JSON object). A result the tool marks as an error
    /// (isError) is a value; a JSON-RPC error (an unknown tool, arguments the server refuses) is
    /// the result's error (errc::api_error).
    boost::asio::awaitable<mcp_result<tool_result>> call_tool(std::string name, boost::json::object arguments,
                                                             call_options opt = call_options()) {
        // (a brace list inside a co_await expression trips g++ 12: the parameters are made first)
        boost::json::object params;
        params["name"] = name;
        params["arguments"] = std::move(arguments);
        auto r = co_await request("tools/call", std::move(params), std::move(opt));
        if (!r) co_return r.error();
        co_return detail::read_tool_result(*r);
    }

    /// Every prompt of the server, page by page.
    boost::asio::awaitable<mcp_result<std::vector<prompt>>> list_prompts() {
        std::vector<prompt> all;
        auto pages = co_await list_pages("prompts/list", "prompts", [&](const boost::json::value& v, std::size_t) -> std::optional<mcp_error> {
            detail::reader r("prompts/list result");
            const std::string what = "prompts[" + std::to_string(all.size()) + "]";
            const auto* o = r.object(v, what);
            if (!o) return r.error();
            prompt p;
            p.name = r.string(*o, "name", true, what);
            p.title = r.string(*o, "title", false, what);
            p.description = r.string(*o, "description", false, what);
            if (const auto* args = r.array(*o, "arguments", false, what))
                for (const auto& a : *args)
                    if (const auto* ao = r.object(a, what + ".arguments")) {
                        prompt_argument pa;
                        pa.name = r.string(*ao, "name", true, what + ".arguments");
                        pa.description = r.string(*ao, "description", false, what + ".arguments");
                        if (const auto* req = ao->if_contains("required"); req && req->is_bool()) pa.required = req->get_bool();
                        p.arguments.push_back(std::move(pa));
                    }
            if (!r.ok()) return r.error();
            all.push_back(std::move(p));
            return std::nullopt;
        });
        if (!pages) co_return pages.error();
        co_return all;
    }

    /// A prompt's messages, with its arguments.
    boost::asio::awaitable<mcp_result<prompt_result>> get_prompt(std::string name, boost::json::object arguments = boost::json::object()) {
        boost::json::object params{{"name", name}};
        if (!arguments.empty()) params["arguments"] = std::move(arguments);
        auto r = co_await request("prompts/get", std::move(params));
        if (!r) co_return r.error();
        detail::reader rd("prompts/get result");
        prompt_result out;
        const auto* o = rd.object(*r, "the result");
        if (!o) co_return rd.error();
        out.description = rd.string(*o, "description", false, "the result");
        if (const auto* ms = rd.array(*o, "messages", true, "the result"))
            for (std::size_t i = 0; i < ms->size(); ++i) {
                const std::string what = "messages[" + std::to_string(i) + "]";
                if (const auto* mo = rd.object((*ms)[i], what)) {
                    prompt_message m;
                    m.role = rd.string(*mo, "role", true, what);
                    if (const auto* c = mo->if_contains("content")) m.body = detail::read_content(rd, *c, what + ".content");
                    else rd.fail(what + ": \"content\" is missing");
                    out.messages.push_back(std::move(m));
                }
            }
        if (!rd.ok()) co_return rd.error();
        co_return out;
    }

    /// Every resource of the server, page by page.
    boost::asio::awaitable<mcp_result<std::vector<resource>>> list_resources() {
        std::vector<resource> all;
        auto pages = co_await list_pages("resources/list", "resources", [&](const boost::json::value& v, std::size_t) -> std::optional<mcp_error> {
            detail::reader r("resources/list result");
            const std::string what = "resources[" + std::to_string(all.size()) + "]";
            const auto* o = r.object(v, what);
            if (!o) return r.error();
            resource res;
            res.uri = r.string(*o, "uri", true, what);
            res.name = r.string(*o, "name", false, what);
            res.title = r.string(*o, "title", false, what);
            res.description = r.string(*o, "description", false, what);
            res.mime_type = r.string(*o, "mimeType", false, what);
            if (!r.ok()) return r.error();
            all.push_back(std::move(res));
            return std::nullopt;
        });
        if (!pages) co_return pages.error();
        co_return all;
    }

    /// The contents of a resource.
    boost::asio::awaitable<mcp_result<std::vector<resource_contents>>> read_resource(std::string uri) {
        boost::json::object params;
        params["uri"] = uri;
        auto r = co_await request("resources/read", std::move(params));
        if (!r) co_return r.error();
        detail::reader rd("resources/read result");
        std::vector<resource_contents> out;
        const auto* o = rd.object(*r, "the result");
        if (!o) co_return rd.error();
        if (const auto* cs = rd.array(*o, "contents", true, "the result"))
            for (std::size_t i = 0; i < cs->size(); ++i) {
                const std::string what = "contents[" + std::to_string(i) + "]";
                if (const auto* co = rd.object((*cs)[i], what)) {
                    resource_contents c;
                    c.uri = rd.string(*co, "uri", true, what);
                    c.mime_type = rd.string(*co, "mimeType", false, what);
                    if (co->contains("text")) c.text = rd.string(*co, "text", true, what);
                    if (co->contains("blob")) c.blob = rd.string(*co, "blob", true, what);
                    out.push_back(std::move(c));
                }
            }
        if (!rd.ok()) co_return rd.error();
        co_return out;
    }

    /// Ends the session gracefully: open requests fail with errc::connection_closed, then the
    /// transport stops (a stdio server's input is closed; it is signalled and killed if it does
    /// not exit within stop_grace).
    boost::asio::awaitable<void> close() {
        auto self = shared_from_this();
        if (!closed_) end(make_mcp_error(errc::connection_closed, "the client closed the session"));
        if (transport_) co_await transport_->stop();
    }

private:
    client(boost::asio::any_io_executor ex, std::unique_ptr<detail::transport> t, server_config config, client_options options)
        : ex_(std::move(ex)), transport_(std::move(t)), config_(std::move(config)), options_(std::move(options)) {}

    boost::asio::awaitable<mcp_result<void>> open() {
        std::weak_ptr<client> weak = weak_from_this();
        detail::session_sink sink;
        sink.on_message = [weak](rpc_message m) {
            if (auto c = weak.lock()) c->dispatch(std::move(m));
        };
        sink.on_request_failed = [weak](std::int64_t id, mcp_error e) {
            if (auto c = weak.lock()) c->fail_request(id, std::move(e));
        };
        sink.on_closed = [weak](mcp_error e) {
            if (auto c = weak.lock()) c->end(std::move(e));
        };
        if (auto started = co_await transport_->start(std::move(sink)); !started) co_return started.error();

        boost::json::object params{{"protocolVersion", protocol_versions[0]},
                                   {"capabilities", boost::json::object()},
                                   {"clientInfo", boost::json::object{{"name", options_.client_name}, {"version", options_.client_version}}}};
        call_options init;
        init.timeout = options_.connect_timeout;
        auto r = co_await request("initialize", std::move(params), init);
        if (!r) co_return r.error();
        detail::reader rd("initialize result");
        const auto* o = rd.object(*r, "the result");
        if (!o) co_return rd.error();
        server_.protocol_version = rd.string(*o, "protocolVersion", true, "the result");
        if (const auto* caps = o->if_contains("capabilities"); caps && caps->is_object()) server_.capabilities = caps->get_object();
        if (const auto* info = o->if_contains("serverInfo"); info && info->is_object()) {
            server_.name = rd.string(info->get_object(), "name", false, "serverInfo");
            server_.version = rd.string(info->get_object(), "version", false, "serverInfo");
        }
        server_.instructions = rd.string(*o, "instructions", false, "the result");
        if (!rd.ok()) co_return rd.error();
        bool spoken = false;
        for (std::string_view v : protocol_versions) spoken = spoken || v == server_.protocol_version;
        if (!spoken) {
            std::string known;
            for (std::string_view v : protocol_versions) known += (known.empty() ? "" : ", ") + std::string(v);
            co_return make_mcp_error(errc::protocol, "the server speaks protocol revision " + server_.protocol_version +
                                                         ", which parley does not (it speaks " + known + ")");
        }
        transport_->set_protocol_version(server_.protocol_version);
        co_await transport_->listen();
        if (auto n = co_await notify("notifications/initialized"); !n) co_return n.error();
        if (server_.capabilities.contains("tools")) {
            auto tools = co_await list_tools();
            if (!tools) co_return tools.error();
        }
        co_return mcp_result<void>();
    }

    template <class Add>
    boost::asio::awaitable<mcp_result<void>> list_pages(std::string method, std::string key, Add add) {
        std::string cursor;
        for (std::size_t page = 0;; ++page) {
            if (page == options_.max_pages)
                co_return make_mcp_error(errc::protocol, method + ": more than " + std::to_string(options_.max_pages) +
                                                             " pages (max_pages)");
            boost::json::object params;
            if (!cursor.empty()) params["cursor"] = cursor;
            auto r = co_await request(method, std::move(params));
            if (!r) co_return r.error();
            detail::reader rd(method + " result");
            const auto* o = rd.object(*r, "the result");
            if (!o) co_return rd.error();
            const auto* items = rd.array(*o, key, true, "the result");
            if (!items) co_return rd.error();
            for (std::size_t i = 0; i < items->size(); ++i)
                if (auto e = add((*items)[i], i)) co_return *e;
            const std::string next = rd.string(*o, "nextCursor", false, "the result");
            if (!rd.ok()) co_return rd.error();
            if (next.empty()) break;
            if (next == cursor) co_return make_mcp_error(errc::protocol, method + ": the server gave the same cursor twice");
            cursor = next;
        }
        co_return mcp_result<void>();
    }

    boost::asio::awaitable<void> notify_cancelled(std::int64_t id, std::string reason) {
        if (closed_) co_return;
        boost::json::object params;
        params["requestId"] = id;
        params["reason"] = reason;
        std::string message = encode_notification("notifications/cancelled", params);
        (void)co_await transport_->send(std::move(message), 0);
    }

    void dispatch(rpc_message m) {
        switch (m.type) {
        case rpc_message::kind::result:
        case rpc_message::kind::error: {
            if (!m.id.is_int64()) return;  // not one of ours (parley's ids are integers)
            auto it = pending_.find(m.id.get_int64());
            if (it == pending_.end()) return;  // late (cancelled or timed out)
            auto p = it->second;
            if (m.type == rpc_message::kind::result) p->outcome = mcp_result<boost::json::value>(std::move(m.result));
            else {
                mcp_error e;
                e.code = make_error_code(errc::api_error);
                e.rpc_code = m.error_code;
                e.message = m.error_message;
                e.data = std::move(m.error_data);
                p->outcome = mcp_result<boost::json::value>(std::move(e));
            }
            p->timer.cancel();
            return;
        }
        case rpc_message::kind::request: answer(std::move(m)); return;
        case rpc_message::kind::notification: on_notification(m); return;
        }
    }

    void answer(rpc_message m) {
        // parley declares no client capabilities: only ping is answered with a result
        std::string reply = m.method == "ping"
                                ? encode_result(m.id, boost::json::object())
                                : encode_error(m.id, rpc_code::method_not_found, "parley's client does not offer " + m.method);
        auto self = shared_from_this();
        boost::asio::co_spawn(
            ex_, [self, reply = std::move(reply)]() -> boost::asio::awaitable<void> { (void)co_await self->transport_->send(reply, 0); },
            boost::asio::detached);
    }

    void on_notification(const rpc_message& m) {
        const boost::json::object* params = m.params.is_object() ? &m.params.get_object() : nullptr;
        if (m.method == "notifications/progress" && params) {
            const auto* token = params->if_contains("progressToken");
            if (!token || !token->is_int64()) return;
            auto it = pending_.find(token->get_int64());
            if (it == pending_.end() || !it->second->on_progress) return;
            progress p;
            if (const auto* v = params->if_contains("progress"); v && v->is_number()) p.done = v->to_number<double>();
            if (const auto* v = params->if_contains("total"); v && v->is_number()) p.total = v->to_number<double>();
            if (const auto* v = params->if_contains("message"); v && v->is_string()) p.message = std::string(v->get_string());
            auto pend = it->second;
            pend->timer.expires_after(pend->timeout);  // progress restarts the time limit
            pend->on_progress(p);
            return;
        }
        if (m.method == "notifications/tools/list_changed") {
            auto self = shared_from_this();
            boost::asio::co_spawn(
                ex_,
                [self]() -> boost::asio::awaitable<void> {
                    auto r = co_await self->list_tools();
                    if (r && self->options_.on_tools_changed) self->options_.on_tools_changed();
                },
                boost::asio::detached);
            return;
        }
        if (m.method == "notifications/message" && params && options_.on_log) {
            std::string level, logger;
            if (const auto* v = params->if_contains("level"); v && v->is_string()) level = std::string(v->get_string());
            if (const auto* v = params->if_contains("logger"); v && v->is_string()) logger = std::string(v->get_string());
            const auto* data = params->if_contains("data");
            options_.on_log(level, logger, data ? *data : boost::json::value());
            return;
        }
        // other notifications (resources/updated, prompts/list_changed, cancelled...) need no action
    }

    void fail_request(std::int64_t id, mcp_error e) {
        auto it = pending_.find(id);
        if (it == pending_.end()) return;
        it->second->outcome = mcp_result<boost::json::value>(std::move(e));
        it->second->timer.cancel();
    }

    void end(mcp_error e) {
        if (closed_) return;
        const std::string more = transport_ ? transport_->describe_end() : std::string();
        if (!more.empty()) e.message += (e.message.empty() ? "" : "; ") + more;
        closed_ = e;
        for (auto& [id, p] : pending_) {
            p->outcome = mcp_result<boost::json::value>(e);
            p->timer.cancel();
        }
    }

    boost::asio::any_io_executor ex_;
    std::unique_ptr<detail::transport> transport_;
    server_config config_;
    client_options options_;
    server_info server_;
    std::vector<tool> tools_;
    std::map<std::int64_t, std::shared_ptr<detail::pending>> pending_;
    std::int64_t next_id_ = 1;
    std::optional<mcp_error> closed_;
};

}  // namespace parley::mcp

#include <parley/detail/warnings_pop.hpp>

#endif
