// Tests of parley's MCP client (parley/mcp/client.hpp, stdio.hpp, http.hpp):
// - against the reference server @modelcontextprotocol/server-everything (npm), over stdio and
//   over Streamable HTTP: initialize and the revision, the tool list and its change, tools with
//   text, image and structured results, a tool error, progress, a long call cancelled mid-way,
//   a call past its time limit, prompts, resources;
// - against a scripted server of our own (tests/mcp/scripted_server.py): pagination, version
//   negotiation, the server's own requests, and faults (a server that dies mid-call, writes
//   garbage, never answers, sends a 10 MB line), each a clear error with no process left behind.
#include <parley/mcp/http.hpp>
#include <parley/mcp/stdio.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mcp_tests {

namespace asio = boost::asio;
namespace mcp = parley::mcp;
using namespace std::chrono_literals;

/// Runs `a` to its end on `io`; fails the test when it takes more than a minute.
template <class T>
T finish(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (f.wait_for(0s) != std::future_status::ready) {
        REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "the MCP test took more than a minute");
        io.run_for(50ms);
    }
    return f.get();
}

std::string python() {
    const char* p = std::getenv("PARLEY_PYTHON");
    return p && *p ? p : "python3";
}

std::filesystem::path everything_js() {
    return std::filesystem::path(PARLEY_NODE_PEERS) / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-everything" /
           "dist" / "index.js";
}

/// The reference server over stdio; fails the test when it is not installed (dev.sh installs it).
mcp::server_config everything_stdio() {
    const auto js = everything_js();
    REQUIRE_MESSAGE(std::filesystem::exists(js), "the reference MCP server is not installed at " << js.string()
                                                     << " (./dev.sh test installs tests/mcp/package.json)");
    mcp::server_config c;
    c.name = "everything";
    c.command = "node";
    c.args = {js.string(), "stdio"};
    return c;
}

mcp::server_config scripted(std::vector<std::pair<std::string, std::string>> env = {}) {
    mcp::server_config c;
    c.name = "scripted";
    c.command = python();
    c.args = {std::string(PARLEY_TEST_SOURCE_DIR) + "/tests/mcp/scripted_server.py"};
    c.env = std::move(env);
    return c;
}

/// True when no process has this id any more (it exited and was reaped).
bool gone(int pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

boost::json::object args(std::string_view key, boost::json::value v) {
    boost::json::object o;
    o[key] = std::move(v);
    return o;
}

asio::awaitable<std::shared_ptr<mcp::client>> open_stdio(mcp::server_config config, mcp::client_options options) {
    auto c = co_await mcp::connect_stdio(std::move(config), std::move(options));
    if (!c) throw mcp::mcp_exception(c.error());
    co_return std::move(*c);
}

/// The reference server over Streamable HTTP on a free port of 127.0.0.1, for the test's duration.
class everything_http {
public:
    everything_http() {
        const auto js = everything_js();
        REQUIRE_MESSAGE(std::filesystem::exists(js), "the reference MCP server is not installed at " << js.string());
        port_ = free_port();
        int err[2];
        REQUIRE(::pipe(err) == 0);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::setpgid(0, 0);
            ::dup2(err[1], 2);
            ::close(err[0]);
            const std::string port = "PORT=" + std::to_string(port_);
            ::putenv(const_cast<char*>(port.c_str()));
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 1);
            ::execlp("node", "node", js.c_str(), "streamableHttp", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(err[1]);
        // the server says it listens on its standard error
        std::string seen;
        char buf[512];
        while (seen.find("listening on port") == std::string::npos) {
            const ssize_t n = ::read(err[0], buf, sizeof buf);
            if (n <= 0) break;
            seen.append(buf, static_cast<std::size_t>(n));
        }
        ::close(err[0]);
        REQUIRE_MESSAGE(seen.find("listening on port") != std::string::npos, "the reference server did not start: " << seen);
    }
    ~everything_http() {
        ::kill(-pid_, SIGTERM);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

private:
    static int free_port() {
        const int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
        ::close(s);
        return ntohs(a.sin_port);
    }
    pid_t pid_ = -1;
    int port_ = 0;
};

/// What the reference server must do, whatever the transport.
asio::awaitable<void> exercise_everything(std::shared_ptr<mcp::client> c) {
    CHECK(c->server().protocol_version == mcp::protocol_versions[0]);
    CHECK(c->server().name == "mcp-servers/everything");
    CHECK(c->find_tool("echo") != nullptr);
    CHECK(c->find_tool("get-sum") != nullptr);
    CHECK(c->find_tool("echo")->input_schema.at("properties").as_object().contains("message"));

    auto echo = co_await c->call_tool("echo", args("message", "hello from parley"));
    REQUIRE_MESSAGE(echo.has_value(), (echo ? "" : echo.error().what()));
    CHECK(echo->text() == "Echo: hello from parley");
    CHECK_FALSE(echo->is_error);

    boost::json::object two;
    two["a"] = 2;
    two["b"] = 40;
    auto sum = co_await c->call_tool("get-sum", two);
    REQUIRE(sum.has_value());
    CHECK(sum->text() == "The sum of 2 and 40 is 42.");

    auto image = co_await c->call_tool("get-tiny-image", boost::json::object());
    REQUIRE(image.has_value());
    bool has_image = false;
    for (const auto& item : image->items) has_image = has_image || (item.type == "image" && item.mime_type == "image/png" && !item.data.empty());
    CHECK(has_image);

    auto structured = co_await c->call_tool("get-structured-content", args("location", "New York"));
    REQUIRE(structured.has_value());
    CHECK(structured->structured.is_object());
    CHECK(structured->structured.as_object().contains("temperature"));

    // arguments the tool refuses: the reference server answers with an isError result
    auto bad = co_await c->call_tool("get-sum", args("a", "not a number"));
    REQUIRE(bad.has_value());
    CHECK(bad->is_error);
    CHECK_FALSE(bad->text().empty());

    // progress, in order
    std::vector<double> steps;
    mcp::call_options with_progress;
    with_progress.on_progress = [&](const mcp::progress& p) {
        steps.push_back(p.done);
        CHECK(p.total == 3.0);
    };
    boost::json::object quick;
    quick["duration"] = 0.3;
    quick["steps"] = 3;
    auto done = co_await c->call_tool("trigger-long-running-operation", quick, with_progress);
    REQUIRE(done.has_value());
    CHECK(steps == std::vector<double>{1, 2, 3});
    CHECK(done->text().find("Long running operation completed") == 0);

    // a long call past its time limit: errc::timeout (and notifications/cancelled), then the
    // session goes on
    boost::json::object slow;
    slow["duration"] = 30;
    slow["steps"] = 1;
    mcp::call_options short_limit;
    short_limit.timeout = 300ms;
    const auto before = std::chrono::steady_clock::now();
    auto timed_out = co_await c->call_tool("trigger-long-running-operation", slow, short_limit);
    REQUIRE_FALSE(timed_out.has_value());
    CHECK(timed_out.error().code == parley::errc::timeout);
    CHECK(std::chrono::steady_clock::now() - before < 10s);
    auto after = co_await c->ping();
    CHECK(after.has_value());

    // prompts and resources
    auto prompts = co_await c->list_prompts();
    REQUIRE(prompts.has_value());
    bool has_args_prompt = false;
    for (const auto& p : *prompts) has_args_prompt = has_args_prompt || p.name == "args-prompt";
    CHECK(has_args_prompt);
    boost::json::object city;
    city["city"] = "Oslo";
    auto got = co_await c->get_prompt("args-prompt", city);
    REQUIRE(got.has_value());
    REQUIRE_FALSE(got->messages.empty());
    CHECK(got->messages.front().role == "user");
    CHECK(got->messages.front().body.text.find("Oslo") != std::string::npos);

    auto resources = co_await c->list_resources();
    REQUIRE(resources.has_value());
    REQUIRE_FALSE(resources->empty());
    auto read = co_await c->read_resource(resources->front().uri);
    REQUIRE(read.has_value());
    REQUIRE_FALSE(read->empty());
    CHECK((read->front().text || read->front().blob));
}

/// A call cancelled by its caller: it ends at once with operation_aborted.
asio::awaitable<void> cancel_mid_way(std::shared_ptr<mcp::client> c) {
    asio::cancellation_signal cancel;
    boost::json::object slow;
    slow["duration"] = 30;
    slow["steps"] = 30;
    std::size_t progress_seen = 0;
    mcp::call_options opt;
    opt.on_progress = [&](const mcp::progress&) {
        if (++progress_seen == 1) cancel.emit(asio::cancellation_type::terminal);
    };
    const auto before = std::chrono::steady_clock::now();
    auto r = co_await asio::co_spawn(co_await asio::this_coro::executor, c->call_tool("trigger-long-running-operation", slow, opt),
                                     asio::bind_cancellation_slot(cancel.slot(), asio::use_awaitable));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == boost::system::error_code(asio::error::operation_aborted));
    CHECK(progress_seen == 1);
    CHECK(std::chrono::steady_clock::now() - before < 15s);
    auto after = co_await c->ping();
    CHECK(after.has_value());
}

}  // namespace mcp_tests

using namespace mcp_tests;

TEST_CASE("mcp: the reference server over stdio") {
    asio::io_context io;
    mcp::client_options o;
    std::vector<std::string> stderr_lines;
    o.on_stderr = [&](std::string_view l) { stderr_lines.emplace_back(l); };
    bool changed = false;
    o.on_tools_changed = [&] { changed = true; };
    auto c = finish(io, open_stdio(everything_stdio(), o));
    const int pid = c->process_id();
    CHECK(pid > 0);
    finish(io, exercise_everything(c));
    finish(io, cancel_mid_way(c));
    // the server registers more tools once initialized, and says so (notifications/tools/list_changed):
    // the list is read again
    for (int i = 0; i < 100 && !changed; ++i) io.run_for(20ms);
    CHECK(changed);
    CHECK(c->find_tool("simulate-research-query") != nullptr);
    finish(io, c->close());
    CHECK(c->closed());
    CHECK(gone(pid));
    CHECK_FALSE(stderr_lines.empty());  // the server's log lines reached the handler
}

TEST_CASE("mcp: the reference server over Streamable HTTP") {
    everything_http server;
    asio::io_context io;
    mcp::server_config config;
    config.name = "everything";
    config.url = server.url();
    mcp::client_options o;
    bool changed = false;
    o.on_tools_changed = [&] { changed = true; };
    auto c = finish(io, [](mcp::server_config cfg, mcp::client_options opt) -> asio::awaitable<std::shared_ptr<mcp::client>> {
        auto r = co_await mcp::connect_http(std::move(cfg), std::move(opt));
        if (!r) throw mcp::mcp_exception(r.error());
        co_return std::move(*r);
    }(config, o));
    CHECK(c->process_id() == -1);
    finish(io, exercise_everything(c));
    finish(io, cancel_mid_way(c));
    for (int i = 0; i < 100 && !changed; ++i) io.run_for(20ms);
    CHECK(changed);  // the list change arrived on the GET stream
    finish(io, c->close());
    CHECK(c->closed());
}

TEST_CASE("mcp: pagination, version negotiation, the server's own requests (scripted server)") {
    asio::io_context io;
    {
        const auto log = std::filesystem::temp_directory_path() / ("parley-mcp-log-" + std::to_string(::getpid()) + ".jsonl");
        std::filesystem::remove(log);
        auto c = finish(io, open_stdio(scripted({{"LOG", log.string()}, {"PAGE_SIZE", "3"}}), {}));
        // ten tools in four pages
        REQUIRE(c->tools().size() == 10);
        CHECK(c->tools().back().name == "progress");
        auto ping = finish(io, c->call_tool("ask_ping", {}));
        REQUIRE(ping.has_value());
        CHECK(boost::json::parse(ping->text()) == boost::json::parse(R"({"id": "s1", "result": {}})"));
        auto sampling = finish(io, c->call_tool("ask_sampling", {}));
        REQUIRE(sampling.has_value());
        CHECK(boost::json::parse(ping->text()).at("id") == "s1");
        CHECK(boost::json::parse(sampling->text()).at("error").at("code") == -32601);
        auto fail = finish(io, c->call_tool("fail", {}));
        REQUIRE(fail.has_value());
        CHECK(fail->is_error);
        auto rpc = finish(io, c->call_tool("rpc_error", {}));
        REQUIRE_FALSE(rpc.has_value());
        CHECK(rpc.error().code == parley::errc::api_error);
        CHECK(rpc.error().rpc_code == -32602);
        CHECK(rpc.error().what() == "the server answered with JSON-RPC error -32602: bad arguments for rpc_error");
        mcp::call_options progress;
        std::vector<std::string> seen;
        progress.on_progress = [&](const mcp::progress& p) { seen.push_back(p.message); };
        auto stepped = finish(io, c->call_tool("progress", args("steps", 3), progress));
        REQUIRE(stepped.has_value());
        CHECK(seen == std::vector<std::string>{"step 1", "step 2", "step 3"});
        // a call past its time limit sends notifications/cancelled
        mcp::call_options quick;
        quick.timeout = 200ms;
        auto never = finish(io, c->call_tool("never", {}, quick));
        REQUIRE_FALSE(never.has_value());
        CHECK(never.error().code == parley::errc::timeout);
        CHECK(never.error().message == "tools/call: no answer within 200 ms");
        finish(io, c->close());
        std::ifstream in(log);
        std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(all.find("\"method\": \"notifications/initialized\"") != std::string::npos);
        CHECK(all.find("\"method\": \"notifications/cancelled\"") != std::string::npos);
        CHECK(all.find("\"reason\": \"the request timed out\"") != std::string::npos);
        CHECK(all.find("\"protocolVersion\": \"2025-11-25\"") != std::string::npos);
        std::filesystem::remove(log);
    }
    {
        // an older revision parley speaks is accepted
        auto c = finish(io, open_stdio(scripted({{"VERSION", "2024-11-05"}}), {}));
        CHECK(c->server().protocol_version == "2024-11-05");
        finish(io, c->close());
    }
    {
        // one it does not is refused, and the server stopped
        auto r = finish(io, mcp::connect_stdio(scripted({{"VERSION", "1999-01-01"}}), {}));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == parley::errc::protocol);
        CHECK(r.error().message ==
              "the server speaks protocol revision 1999-01-01, which parley does not (it speaks 2025-11-25, 2025-06-18, "
              "2025-03-26, 2024-11-05)");
    }
    {
        // a server that gives the same cursor again
        auto r = finish(io, mcp::connect_stdio(scripted({{"CURSOR_LOOP", "1"}}), {}));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().message == "tools/list: the server gave the same cursor twice");
    }
}

TEST_CASE("mcp: a server that fails ends the session with a clear error and leaves no process") {
    asio::io_context io;
    SUBCASE("it dies in the middle of a call") {
        auto c = finish(io, open_stdio(scripted(), {}));
        const int pid = c->process_id();
        auto r = finish(io, c->call_tool("die", {}));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == parley::errc::connection_closed);
        CHECK(r.error().message == "the server 'scripted' closed its output; the server exited with status 3; its last "
                                   "error line: scripted server: dying in the middle of a call");
        CHECK(gone(pid));
        // every later call fails the same way, at once
        auto again = finish(io, c->ping());
        REQUIRE_FALSE(again.has_value());
        CHECK(again.error().code == parley::errc::connection_closed);
    }
    SUBCASE("it writes something that is not JSON") {
        auto c = finish(io, open_stdio(scripted(), {}));
        const int pid = c->process_id();
        auto r = finish(io, c->call_tool("garbage", {}));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == parley::errc::protocol);
        CHECK(r.error().message.find("the server wrote something that is not an MCP message: not a JSON message (") == 0);
        CHECK(gone(pid));
    }
    SUBCASE("it sends a line of 10 MB") {
        mcp::client_options o;
        o.limits.max_message = 1 << 20;
        auto c = finish(io, open_stdio(scripted(), o));
        const int pid = c->process_id();
        auto r = finish(io, c->call_tool("huge", {}));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == parley::errc::protocol);
        CHECK(r.error().message.find("the server wrote a line of more than 1048576 bytes (the limit of one message)") == 0);
        CHECK(gone(pid));
    }
    SUBCASE("it never answers: the time limit, then the client goes away and the server with it") {
        int pid = 0;
        {
            auto c = finish(io, open_stdio(scripted(), {}));
            pid = c->process_id();
            mcp::call_options quick;
            quick.timeout = 200ms;
            auto r = finish(io, c->call_tool("never", {}, quick));
            REQUIRE_FALSE(r.has_value());
            CHECK(r.error().code == parley::errc::timeout);
            CHECK_FALSE(gone(pid));
        }  // the client is destroyed without close(): the server is killed at once
        CHECK(gone(pid));
    }
    SUBCASE("a command that cannot be started") {
        mcp::server_config missing;
        missing.name = "missing";
        missing.command = "/nonexistent/mcp-server";
        auto r = finish(io, mcp::connect_stdio(missing, {}));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == std::errc::no_such_file_or_directory);
        CHECK(r.error().message == "cannot start the server 'missing' (/nonexistent/mcp-server): No such file or directory");
        mcp::server_config elsewhere = scripted();
        elsewhere.cwd = "/nonexistent-directory";
        auto r2 = finish(io, mcp::connect_stdio(elsewhere, {}));
        REQUIRE_FALSE(r2.has_value());
        CHECK(r2.error().message.find("in /nonexistent-directory): No such file or directory") != std::string::npos);
    }
    SUBCASE("a server that does not answer initialize in time") {
        mcp::server_config silent;
        silent.name = "silent";
        silent.command = "sleep";
        silent.args = {"30"};
        mcp::client_options o;
        o.connect_timeout = 300ms;
        o.stop_grace = 200ms;
        auto r = finish(io, mcp::connect_stdio(silent, o));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == parley::errc::timeout);
        CHECK(r.error().message == "initialize: no answer within 300 ms");
    }
}
