// parley/mcp/stdio.hpp: the stdio transport of MCP: the server runs as a child process of this
// one, in a process group of its own; messages are lines of JSON on its standard input and
// output; its standard error goes to a handler. Stopping closes its input, then signals the group
// (SIGTERM), then kills it (SIGKILL) after a grace period each. POSIX only.
#ifndef PARLEY_MCP_STDIO_HPP
#define PARLEY_MCP_STDIO_HPP

#include <parley/mcp/client.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

extern char** environ;

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley::mcp {

namespace detail {

inline mcp_error system_failure(int err, std::string what) {
    mcp_error e;
    e.code = std::error_code(err, std::generic_category());
    e.message = std::move(what) + ": " + std::strerror(err);
    return e;
}

/// The stdio transport.
class stdio_transport final : public transport {
public:
    stdio_transport(boost::asio::any_io_executor ex, server_config config, client_options options)
        : ex_(std::move(ex)), config_(std::move(config)), options_(std::move(options)), io_(ex_), err_(ex_), wake_(ex_),
          lines_(options_.limits.max_message) {}

    ~stdio_transport() override { kill(); }

    boost::asio::awaitable<mcp_result<void>> start(session_sink sink) override {
        sink_ = std::move(sink);
        if (config_.command.empty()) co_return make_mcp_error(errc::invalid_argument, "the server '" + config_.name + "' has no command");
        if (auto e = spawn()) co_return *e;
        state_ = std::make_shared<bool>(true);
        auto alive = state_;
        boost::asio::co_spawn(ex_, read_output(alive), boost::asio::detached);
        boost::asio::co_spawn(ex_, read_errors(alive), boost::asio::detached);
        boost::asio::co_spawn(ex_, write_queue(alive), boost::asio::detached);
        co_return mcp_result<void>();
    }

    boost::asio::awaitable<mcp_result<void>> send(std::string message, std::int64_t) override {
        if (ended_) co_return make_mcp_error(errc::connection_closed, "the server '" + config_.name + "' is not running");
        message += '\n';
        queue_.push_back(std::move(message));
        wake_.cancel();
        co_return mcp_result<void>();
    }

    boost::asio::awaitable<void> stop() override {
        if (pid_ <= 0) co_return;
        // 1. close its input: a server that follows the protocol exits
        auto alive = state_ ? state_ : std::make_shared<bool>(true);
        boost::system::error_code ec;
        io_.shutdown(boost::asio::socket_base::shutdown_send, ec);
        if (!co_await wait_exit(options_.stop_grace, alive)) {
            if (!*alive) co_return;
            if (!reaped_) ::kill(-pid_, SIGTERM);  // 2. the group
            if (!co_await wait_exit(options_.stop_grace, alive)) {
                if (!*alive) co_return;
                kill();  // 3. SIGKILL
            }
        }
        kill();  // the group's other processes (a launcher's child) go too

    }

    void kill() noexcept override {
        if (pid_ > 0 && !group_killed_) {
            group_killed_ = true;
            ::kill(-pid_, SIGKILL);  // the server and what it started (a launcher's child)
            if (!reaped_) {
                ::kill(pid_, SIGKILL);
                int status = 0;
                while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
                }
                note_exit(status);
            }
        }
        close_all();
    }

    std::string describe_end() const override {
        std::string s;
        if (reaped_) {
            if (WIFEXITED(status_)) s = "the server exited with status " + std::to_string(WEXITSTATUS(status_));
            else if (WIFSIGNALED(status_)) s = "the server was ended by signal " + std::to_string(WTERMSIG(status_));
        }
        if (!last_stderr_.empty()) s += (s.empty() ? "" : "; ") + std::string("its last error line: ") + last_stderr_;
        return s;
    }

    int process_id() const noexcept override { return static_cast<int>(pid_); }

private:
    std::optional<mcp_error> spawn() {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return system_failure(errno, "cannot start the server '" + config_.name + "'");
        int errpipe[2];
        if (::pipe2(errpipe, O_CLOEXEC) != 0) {
            const int e = errno;
            ::close(sv[0]);
            ::close(sv[1]);
            return system_failure(e, "cannot start the server '" + config_.name + "'");
        }
        int report[2];  // the child's exec failure, as an errno
        if (::pipe2(report, O_CLOEXEC) != 0) {
            const int e = errno;
            for (int fd : {sv[0], sv[1], errpipe[0], errpipe[1]}) ::close(fd);
            return system_failure(e, "cannot start the server '" + config_.name + "'");
        }
        // everything the child needs is made before fork: the program may have other threads
        std::vector<std::string> args{config_.command};
        args.insert(args.end(), config_.args.begin(), config_.args.end());
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_strings;
        if (config_.inherit_env)
            for (char** e = environ; *e; ++e) {
                const std::string_view entry(*e);
                bool replaced = false;
                for (const auto& [k, v] : config_.env)
                    replaced = replaced || (entry.size() > k.size() && entry.substr(0, k.size()) == k && entry[k.size()] == '=');
                if (!replaced) env_strings.emplace_back(entry);
            }
        for (const auto& [k, v] : config_.env) env_strings.push_back(k + "=" + v);
        std::vector<char*> envp;
        for (auto& e : env_strings) envp.push_back(e.data());
        envp.push_back(nullptr);
        const std::string cwd = config_.cwd;
        const pid_t parent = ::getpid();

        const pid_t pid = ::fork();
        if (pid < 0) {
            const int e = errno;
            for (int fd : {sv[0], sv[1], errpipe[0], errpipe[1], report[0], report[1]}) ::close(fd);
            return system_failure(e, "cannot start the server '" + config_.name + "'");
        }
        if (pid == 0) {
            ::setpgid(0, 0);
#ifdef __linux__
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // this process killed: the server goes too
            if (::getppid() != parent) ::_exit(125);
#else
            (void)parent;
#endif
            struct sigaction dfl {};
            dfl.sa_handler = SIG_DFL;
            ::sigaction(SIGPIPE, &dfl, nullptr);
            ::dup2(sv[1], 0);
            ::dup2(sv[1], 1);
            ::dup2(errpipe[1], 2);
            auto fail = [&](int err) {
                [[maybe_unused]] auto n = ::write(report[1], &err, sizeof err);
                ::_exit(127);
            };
            if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) fail(errno);
            ::execvpe(argv[0], argv.data(), envp.data());
            fail(errno);
        }
        ::setpgid(pid, pid);  // also here: the group exists before either side goes on
        ::close(sv[1]);
        ::close(errpipe[1]);
        ::close(report[1]);
        int child_errno = 0;
        ssize_t got = 0;
        while ((got = ::read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
        }
        ::close(report[0]);
        pid_ = pid;
        if (got == static_cast<ssize_t>(sizeof child_errno)) {
            int status = 0;
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            note_exit(status);
            ::close(sv[0]);
            ::close(errpipe[0]);
            return system_failure(child_errno, "cannot start the server '" + config_.name + "' (" + config_.command +
                                                   (cwd.empty() ? std::string() : " in " + cwd) + ")");
        }
        boost::system::error_code ec;
        io_.assign(boost::asio::local::stream_protocol(), sv[0], ec);
        err_.assign(errpipe[0], ec);
        return std::nullopt;
    }

    boost::asio::awaitable<void> read_output(std::shared_ptr<bool> alive) {
        std::vector<char> buffer(64 * 1024);
        for (;;) {
            auto [ec, n] = co_await io_.async_read_some(boost::asio::buffer(buffer), boost::asio::as_tuple(boost::asio::use_awaitable));
            if (!*alive) co_return;
            if (ec) break;
            std::optional<std::string> bad;
            auto failure = lines_.feed(std::string_view(buffer.data(), n), [&](std::string_view line) {
                if (bad) return;
                auto messages = decode(line, options_.limits);
                if (!messages) {
                    bad = "the server wrote something that is not an MCP message: " + messages.error();
                    return;
                }
                for (auto& m : *messages)
                    if (sink_.on_message) sink_.on_message(std::move(m));
            });
            if (!*alive) co_return;
            if (failure) bad = "the server wrote " + *failure;
            if (bad) {
                finish(make_mcp_error(errc::protocol, *bad));
                kill();
                co_return;
            }
        }
        // its output ended: it is exiting (or closed stdout); reap it if it does, and read the
        // rest of its standard error for the message
        co_await wait_exit(options_.stop_grace, alive);
        if (!*alive) co_return;
        boost::asio::steady_timer t(ex_);
        for (int i = 0; i < 20 && !stderr_done_; ++i) {
            t.expires_after(std::chrono::milliseconds(10));
            auto [ec] = co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            (void)ec;
            if (!*alive) co_return;
        }
        finish(make_mcp_error(errc::connection_closed, "the server '" + config_.name + "' closed its output"));
    }

    boost::asio::awaitable<void> read_errors(std::shared_ptr<bool> alive) {
        std::vector<char> buffer(16 * 1024);
        std::string line;
        for (;;) {
            auto [ec, n] = co_await err_.async_read_some(boost::asio::buffer(buffer), boost::asio::as_tuple(boost::asio::use_awaitable));
            if (!*alive) co_return;
            if (ec) {
                if (!line.empty()) {
                    last_stderr_ = line.substr(0, 500);
                    if (options_.on_stderr) options_.on_stderr(line);
                }
                stderr_done_ = true;
                co_return;
            }
            for (std::size_t i = 0; i < n; ++i) {
                const char c = buffer[i];
                if (c == '\n') {
                    if (!line.empty() && line.back() == '\r') line.pop_back();
                    last_stderr_ = line.substr(0, 500);
                    if (options_.on_stderr) options_.on_stderr(line);
                    line.clear();
                } else if (line.size() < options_.max_stderr_line) {
                    line += c;
                }
            }
        }
    }

    boost::asio::awaitable<void> write_queue(std::shared_ptr<bool> alive) {
        for (;;) {
            while (!queue_.empty()) {
                std::string next = std::move(queue_.front());
                queue_.pop_front();
                auto [ec, n] = co_await boost::asio::async_write(io_, boost::asio::buffer(next),
                                                                 boost::asio::as_tuple(boost::asio::use_awaitable));
                (void)n;
                if (!*alive) co_return;
                if (ec) {
                    queue_.clear();
                    co_return;  // the reader reports the end (the server closed its input)
                }
            }
            wake_.expires_at(std::chrono::steady_clock::time_point::max());
            auto [ec] = co_await wake_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            (void)ec;
            if (!*alive || ended_) co_return;
        }
    }

    /// Waits up to `limit` for the server to exit; true when it has. Stops waiting (false) when
    /// `alive` turns false (the transport is gone).
    boost::asio::awaitable<bool> wait_exit(std::chrono::milliseconds limit, std::shared_ptr<bool> alive) {
        const auto until = std::chrono::steady_clock::now() + limit;
        boost::asio::steady_timer t(ex_);
        for (;;) {
            if (reaped_) co_return true;
            int status = 0;
            const pid_t r = ::waitpid(pid_, &status, WNOHANG);
            if (r == pid_) {
                note_exit(status);
                co_return true;
            }
            if (r < 0 && errno != EINTR) co_return true;  // not our child any more
            if (std::chrono::steady_clock::now() >= until) co_return false;
            t.expires_after(std::chrono::milliseconds(10));
            auto [ec] = co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            (void)ec;
            if (!*alive) co_return false;
        }
    }

    void note_exit(int status) {
        reaped_ = true;
        status_ = status;
    }

    void finish(mcp_error e) {
        if (finished_) return;
        finished_ = true;
        ended_ = true;
        wake_.cancel();
        if (sink_.on_closed) sink_.on_closed(std::move(e));
    }

    void close_all() noexcept {
        if (state_) *state_ = false;
        ended_ = true;
        boost::system::error_code ec;
        io_.close(ec);
        err_.close(ec);
        wake_.cancel();
    }

    boost::asio::any_io_executor ex_;
    server_config config_;
    client_options options_;
    boost::asio::local::stream_protocol::socket io_;
    boost::asio::posix::stream_descriptor err_;
    boost::asio::steady_timer wake_;
    line_reader lines_;
    session_sink sink_;
    std::deque<std::string> queue_;
    std::shared_ptr<bool> state_;
    std::string last_stderr_;
    pid_t pid_ = -1;
    bool reaped_ = false;
    int status_ = 0;
    bool ended_ = false;
    bool stderr_done_ = false;
    bool group_killed_ = false;
    bool finished_ = false;  ///< the session was told the connection ended
};

}  // namespace detail

/// Starts the server of `config` (its `command`) and opens a session with it.
inline boost::asio::awaitable<mcp_result<std::shared_ptr<client>>> connect_stdio(server_config config, client_options options = client_options()) {
    auto ex = co_await boost::asio::this_coro::executor;
    auto t = std::make_unique<detail::stdio_transport>(ex, config, options);
    co_return co_await client::start(std::move(t), std::move(config), std::move(options));
}

}  // namespace parley::mcp

#include <parley/detail/warnings_pop.hpp>

#endif
