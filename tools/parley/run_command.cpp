// `parley run`: a template set run as an assistant with parley::bot: the functions it declares
// run as shell commands or as built-in demo functions, the conversation is kept in a history
// file written atomically (docs/cli.md).
#include "cli_input.hpp"
#include "cli_provider.hpp"
#include "commands.hpp"
#include "usage_report.hpp"

#include <parley/bot/bot.hpp>
#include <parley/bot/client_model.hpp>
#include <parley/bot/mcp_tools.hpp>
#include <parley/chat/history_file.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/pretty_json.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/mcp/http.hpp>
#include <parley/mcp/stdio.hpp>
#include <parley/testing/fake_server.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

extern char** environ;

namespace parley_cli {

const char* const run_usage =
    "usage: parley run TEMPLATES.yaml [--template NAME] [--data JSON_FILE|JSON] [--set KEY=VALUE]...\n"
    "                  [--functions FILE] [--image FILE_OR_URL]... [--detail low|high|auto] [--history FILE]\n"
    "                  [--base-url URL] [--model NAME] [--api openai|responses|anthropic|gemini|ollama|\n"
    "                  azure|azure-responses|echo|scripted] [--script FILE.json] [--stream] [--ca-file PEM]\n"
    "                  [--context-window N]\n"
    "                  [--usage] [--models FILE] [PROMPT...|-]\n"
    "\n"
    "Runs a template as an assistant (docs/bot.md): renders it with the data, whose `input` is\n"
    "PROMPT and whose `contentParts` are PROMPT and the images, calls the model, runs the functions\n"
    "it calls, switches templates, and prints the text of each reply once the run has succeeded.\n"
    "TEMPLATES.yaml is a template set (docs/yaml-format.md) or a single template (a list of\n"
    "messages, named after the file). Functions run their `command` (the arguments as JSON on\n"
    "standard input, the result from standard output) or are built in: get_time, calculator.\n"
    "The MCP servers the set declares (`mcp_servers`, docs/mcp.md) are started or connected before\n"
    "the run, their tools become functions, and they are stopped after it, whatever happens.\n"
    "PROMPT is the words joined by spaces; '-', or no words with standard input not a terminal,\n"
    "reads it from standard input.\n"
    "  --template NAME   the template to run (needed when the set has several)\n"
    "  --data VALUE      more data for the texts: a JSON object, inline when VALUE begins with '{',\n"
    "                    else read from the file VALUE (without `input` and `contentParts`)\n"
    "  --set KEY=VALUE   one datum (repeatable): KEY.SUB makes nested objects; VALUE is JSON when\n"
    "                    it parses as JSON, else a string\n"
    "  --functions FILE  more function definitions: a YAML or JSON list, as a set's `functions`\n"
    "  --image X         an image for `contentParts` (repeatable): an http(s) or data: URL, or a\n"
    "                    PNG, JPEG, GIF or WebP file of at most 20 MiB, sent as a data: URL\n"
    "  --detail LEVEL    the images' detail: low, high or auto\n"
    "  --history FILE    the conversation so far (a JSON array of messages), read when the file\n"
    "                    exists and replaced atomically with the whole conversation after the run\n"
    "  --api NAME        the wire API: openai (chat completions, and compatible servers), responses\n"
    "                    (OpenAI's Responses API), anthropic, gemini, ollama, azure, azure-responses,\n"
    "                    or in process echo or scripted (with --script); --provider is another name\n"
    "                    for it\n"
    "  --base-url URL    the API's base URL (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL /\n"
    "                    GOOGLE_GEMINI_BASE_URL / AZURE_OPENAI_ENDPOINT + /openai / OLLAMA_HOST)\n"
    "  --model NAME      the model of every request, in place of the templates' (PARLEY_MODEL:\n"
    "                    the model of requests that name none)\n"
    "  --script FILE     the replies of the scripted model (the reply steps of a fake-server\n"
    "                    script, docs/fake-server.md)\n"
    "  --stream          print the replies as they arrive (a run that then fails says so)\n"
    "  --ca-file PEM     also trust the CAs in this file\n"
    "  --context-window N  the model's context window in tokens, in place of the catalog's (the\n"
    "                    conversation is cut by whole turns to fit; docs/bot.md)\n"
    "  --usage           print the tokens, requests and cost of the run on standard error (also\n"
    "                    when it fails)\n"
    "  --models FILE     a model catalog (JSON: context windows and prices) over the built-in one\n"
    "Keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY / GOOGLE_API_KEY or GEMINI_API_KEY /\n"
    "AZURE_OPENAI_API_KEY (with OPENAI_API_VERSION). With nothing configured, the echo model\n"
    "answers (and says so on stderr). Exit status: 0, 1 when the run fails or an MCP server cannot\n"
    "be started or reached (only the error is printed, and the history file is left as it was), 2\n"
    "for a wrong command line; SIGINT or SIGTERM stops the run, its commands and its servers, and\n"
    "parley then dies of that signal.\n";

namespace {

namespace fs = std::filesystem;

// --- interruption -----------------------------------------------------------------------------

/// The signal (SIGINT or SIGTERM) that asks the run to stop, 0 until one arrives.
volatile std::sig_atomic_t interrupted_by = 0;
/// How many of them arrived (a second one hurries the stopping of the servers).
volatile std::sig_atomic_t interruptions = 0;

void note_interruption(int signal) {
    interrupted_by = signal;
    interruptions = interruptions + 1;
}

/// The run was stopped by SIGINT or SIGTERM (interrupted_by).
class interrupted : public std::runtime_error {
public:
    interrupted() : std::runtime_error(interrupted_by == SIGTERM ? "interrupted (SIGTERM)" : "interrupted (SIGINT)") {}
};

/// While alive, SIGINT and SIGTERM set interrupted_by (no SA_RESTART: a waiting poll returns)
/// rather than end the process, so that the run stops its commands and servers first.
class interruption_handler {
public:
    interruption_handler() {
        struct sigaction sa {};
        sa.sa_handler = &note_interruption;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;
        ::sigaction(SIGINT, &sa, &old_int_);
        ::sigaction(SIGTERM, &sa, &old_term_);
    }
    ~interruption_handler() {
        ::sigaction(SIGINT, &old_int_, nullptr);
        ::sigaction(SIGTERM, &old_term_, nullptr);
    }
    interruption_handler(const interruption_handler&) = delete;
    interruption_handler& operator=(const interruption_handler&) = delete;

private:
    struct sigaction old_int_ {};
    struct sigaction old_term_ {};
};

/// Runs `io` until `f` is ready and returns its value; throws interrupted as soon as SIGINT or
/// SIGTERM arrived.
template <class T>
T run_until(boost::asio::io_context& io, std::future<T>& f) {
    while (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        if (interrupted_by) throw interrupted();
        if (io.stopped()) io.restart();
        if (io.run_one_for(std::chrono::milliseconds(100)) == 0 && io.stopped())
            f.wait_for(std::chrono::milliseconds(10));  // nothing to run here: the work is elsewhere
    }
    return f.get();
}

constexpr double default_timeout = 30;  // seconds a function's command may take
constexpr std::size_t max_command_output = std::size_t(1) << 20;  // bytes of standard output
constexpr std::size_t max_command_errors = std::size_t(1) << 16;  // bytes of standard error kept

std::string seconds_text(double s) {
    std::ostringstream out;
    out << s << " s";
    return out.str();
}

// --- what a run prints -------------------------------------------------------------------------

/// What a run prints on standard output (the replies) and standard error (the calls, the
/// commands' standard error): kept, in order, until the run has succeeded; or, with --stream,
/// written at once. Functions may run on other threads.
class run_output {
public:
    explicit run_output(bool live) : live_(live) {}

    void out(std::string_view text) { put(true, text); }
    void err(std::string_view text) { put(false, text); }

    /// Writes what was kept (the run succeeded).
    void flush() {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [to_out, text] : kept_) write(to_out, text);
        kept_.clear();
    }
    /// Drops what was kept (the run failed); with --stream, ends a line the replies left open and
    /// says whether text was printed that the failed run discarded.
    bool discard() {
        std::lock_guard<std::mutex> lock(mutex_);
        kept_.clear();
        if (open_line_) write(true, "\n");
        return printed_;
    }

private:
    void put(bool to_out, std::string_view text) {
        if (text.empty()) return;
        std::lock_guard<std::mutex> lock(mutex_);
        if (live_) write(to_out, text);
        else kept_.emplace_back(to_out, std::string(text));
    }
    void write(bool to_out, std::string_view text) {
        std::ostream& o = to_out ? std::cout : std::cerr;
        o << text;
        o.flush();
        if (to_out) {
            printed_ = true;
            open_line_ = text.back() != '\n';
        }
    }

    bool live_;
    std::mutex mutex_;
    std::vector<std::pair<bool, std::string>> kept_;  // (standard output?, text)
    bool printed_ = false;  // text went to standard output
    bool open_line_ = false;  // and its last line has no line break
};

// --- function commands ------------------------------------------------------------------------

/// How a command ended.
struct command_outcome {
    bool timed_out = false;
    bool too_much_output = false;
    bool interrupted = false;  // SIGINT or SIGTERM: the run stops
    int exit_status = 0;  // when it exited
    int signal = 0;  // when a signal ended it
    std::string out;
    std::string err;
};

class pipe_pair {
public:
    pipe_pair() {
        if (::pipe2(fd_, O_CLOEXEC) != 0) throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    ~pipe_pair() {
        close(0);
        close(1);
    }
    pipe_pair(const pipe_pair&) = delete;
    pipe_pair& operator=(const pipe_pair&) = delete;
    int operator[](int i) const noexcept { return fd_[i]; }
    void close(int i) noexcept {
        if (fd_[i] >= 0) ::close(fd_[i]);
        fd_[i] = -1;
    }

private:
    int fd_[2] = {-1, -1};
};

/// Runs `command` with /bin/sh -c in `dir`, `input` on its standard input, and kills its process
/// group when it is still running after `timeout` seconds or writes more than
/// max_command_output bytes.
command_outcome run_shell(const std::string& command, const std::string& dir, const std::string& input,
                          const std::string& function, double timeout) {
    pipe_pair in, out, err;
    // Everything the child needs is made before fork: the program may have other threads.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "PARLEY_FUNCTION=", 16) != 0) env_strings.emplace_back(*e);
    env_strings.push_back("PARLEY_FUNCTION=" + function);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
    const pid_t parent = ::getpid();

    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("cannot start a process: ") + std::strerror(errno));
    if (pid == 0) {
        ::setpgid(0, 0);
#ifdef __linux__
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // parley killed: the command goes too
        if (::getppid() != parent) ::_exit(125);
#else
        (void)parent;
#endif
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        ::sigaction(SIGPIPE, &dfl, nullptr);
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        if (!dir.empty() && ::chdir(dir.c_str()) != 0) {
            const char msg[] = "parley run: cannot enter the directory of the template file\n";
            [[maybe_unused]] auto n = ::write(2, msg, sizeof msg - 1);
            ::_exit(126);
        }
        ::execve("/bin/sh", const_cast<char* const*>(argv), envp.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: the group exists before either side goes on
    in.close(0);
    out.close(1);
    err.close(1);
    for (int fd : {in[1], out[0], err[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);

    command_outcome o;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    auto left_ms = [&] {
        const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        return d < 0 ? 0 : static_cast<int>(std::min<long long>(d, 1000));
    };
    std::size_t written = 0;
    if (input.empty()) in.close(1);
    bool kill_it = false;
    while (in[1] >= 0 || out[0] >= 0 || err[0] >= 0) {
        if (interrupted_by) {
            o.interrupted = kill_it = true;
            break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            o.timed_out = kill_it = true;
            break;
        }
        pollfd fds[3];
        nfds_t n = 0;
        if (in[1] >= 0) fds[n++] = {in[1], POLLOUT, 0};
        if (out[0] >= 0) fds[n++] = {out[0], POLLIN, 0};
        if (err[0] >= 0) fds[n++] = {err[0], POLLIN, 0};
        const int r = ::poll(fds, n, left_ms());
        if (r < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        for (nfds_t i = 0; r > 0 && i < n; ++i) {
            if (fds[i].revents == 0) continue;
            if (fds[i].fd == in[1]) {
                const ssize_t w = ::write(in[1], input.data() + written, input.size() - written);
                if (w > 0) written += static_cast<std::size_t>(w);
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) in.close(1);
                continue;
            }
            const bool is_out = fds[i].fd == out[0];
            char buf[65536];
            const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                std::string& to = is_out ? o.out : o.err;
                const std::size_t limit = is_out ? max_command_output : max_command_errors;
                to.append(buf, static_cast<std::size_t>(std::min<ssize_t>(got, static_cast<ssize_t>(limit + 1 - std::min(limit + 1, to.size())))));
                if (is_out && to.size() > max_command_output) o.too_much_output = kill_it = true;
            } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                (is_out ? out : err).close(0);
            }
        }
        if (o.too_much_output) break;
    }
    int status = 0;
    while (!kill_it) {  // the output is closed; wait for the exit until the deadline
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
        if (interrupted_by) o.interrupted = kill_it = true;
        else if (std::chrono::steady_clock::now() >= deadline) o.timed_out = kill_it = true;
        else ::usleep(5000);
    }
    if (kill_it) {
        ::kill(-pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (WIFEXITED(status)) o.exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
    return o;
}

/// The last line of a command's standard error, for messages.
std::string last_line(std::string_view err) {
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r' || err.back() == ' ')) err.remove_suffix(1);
    const std::size_t nl = err.rfind('\n');
    std::string_view line = nl == std::string_view::npos ? err : err.substr(nl + 1);
    if (line.size() > 500) line = line.substr(0, 500);
    return std::string(line);
}

/// A function that runs its command: a failure (exit status, signal, time-out, too much output)
/// is a function_failure, which the model is told about.
auto command_function(std::string name, parley::function_command c, std::string dir, std::shared_ptr<run_output> output) {
    return [name = std::move(name), c = std::move(c), dir = std::move(dir),
            output = std::move(output)](const boost::json::value& args) -> std::string {
        const double timeout = c.timeout > 0 ? c.timeout : default_timeout;
        command_outcome o = run_shell(c.command, dir, boost::json::serialize(args) + "\n", name, timeout);
        if (!o.err.empty()) output->err(o.err.back() == '\n' ? o.err : o.err + '\n');
        const std::string what = "the command of " + name;
        if (o.interrupted) throw interrupted();
        if (o.timed_out) throw parley::function_failure(what + " did not finish within " + seconds_text(timeout) + " and was stopped");
        if (o.too_much_output)
            throw parley::function_failure(what + " wrote more than " + std::to_string(max_command_output) + " bytes and was stopped");
        const std::string why = last_line(o.err);
        if (o.signal) throw parley::function_failure(what + " was killed by signal " + std::to_string(o.signal) + (why.empty() ? "" : ": " + why));
        if (o.exit_status != 0)
            throw parley::function_failure(what + " failed with exit status " + std::to_string(o.exit_status) + (why.empty() ? "" : ": " + why));
        if (!o.out.empty() && o.out.back() == '\n') o.out.pop_back();
        if (!o.out.empty() && o.out.back() == '\r') o.out.pop_back();
        return std::move(o.out);
    };
}

// --- built-in functions -----------------------------------------------------------------------

/// get_time: the current time, UTC.
std::string get_time(const boost::json::value&) {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    boost::json::object o;
    o["utc"] = text;
    o["unix"] = static_cast<std::int64_t>(now);
    return boost::json::serialize(o);
}

/// The calculator's arithmetic: numbers, + - * / and parentheses, unary signs.
class arithmetic {
public:
    explicit arithmetic(std::string_view text) : s_(text) {}

    double evaluate() {
        if (s_.size() > 1000) fail("the expression is longer than 1000 characters");
        const double v = sum();
        skip();
        if (i_ < s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "' at offset " + std::to_string(i_));
        return v;
    }

private:
    [[noreturn]] static void fail(const std::string& what) { throw parley::function_failure("calculator: " + what); }
    void skip() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    }
    bool take(char c) {
        skip();
        if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
        return false;
    }
    double sum() {
        double v = product();
        for (;;) {
            if (take('+')) v += product();
            else if (take('-')) v -= product();
            else return v;
        }
    }
    double product() {
        double v = factor();
        for (;;) {
            if (take('*')) v *= factor();
            else if (take('/')) {
                const std::size_t at = i_;
                const double d = factor();
                if (d == 0) fail("division by zero at offset " + std::to_string(at));
                v /= d;
            } else return v;
        }
    }
    double factor() {
        if (++depth_ > 64) fail("the expression is nested more than 64 levels deep");
        double v = 0;
        if (take('-')) v = -factor();
        else if (take('+')) v = factor();
        else if (take('(')) {
            v = sum();
            if (!take(')')) fail(i_ < s_.size() ? "expected ')' at offset " + std::to_string(i_) : std::string("expected ')' at the end"));
        } else {
            skip();
            const auto [end, ec] = std::from_chars(s_.data() + i_, s_.data() + s_.size(), v);
            if (ec != std::errc())
                fail(i_ < s_.size() ? "expected a number at offset " + std::to_string(i_) + ", found '" + std::string(1, s_[i_]) + "'"
                                    : std::string("expected a number at the end"));
            i_ = static_cast<std::size_t>(end - s_.data());
        }
        --depth_;
        return v;
    }

    std::string_view s_;
    std::size_t i_ = 0;
    int depth_ = 0;
};

/// calculator: {"expression": "..."} gives {"result": number}.
std::string calculator(const boost::json::value& args) {
    const auto* e = args.as_object().if_contains("expression");
    if (!e || !e->is_string()) throw parley::function_failure("calculator: 'expression' must be a string");
    const double v = arithmetic(e->get_string()).evaluate();
    char text[64];
    const auto r = std::to_chars(text, text + sizeof text, v);
    return "{\"result\": " + std::string(text, r.ptr) + "}";
}

struct builtin {
    const char* name;
    const char* description;
    const char* parameters;
    std::string (*run)(const boost::json::value&);
};

const builtin builtins[] = {
    {"get_time", "The current date and time (UTC).", R"({"type": "object", "properties": {}})", &get_time},
    {"calculator", "Evaluates an arithmetic expression: numbers, + - * / and parentheses.",
     R"({"type": "object", "properties": {"expression": {"type": "string", "description": "The expression, such as (2 + 3) * 4"}},
        "required": ["expression"]})",
     &calculator},
};

// --- MCP servers ------------------------------------------------------------------------------

/// `value` with each `${NAME}` replaced by the environment variable NAME (`$${` is a literal
/// `${`); throws std::runtime_error naming `what` when NAME is not set or the braces do not close.
std::string expand_environment(const std::string& value, const std::string& what) {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value.compare(i, 3, "$${") == 0) {
            out += "${";
            i += 2;
            continue;
        }
        if (value.compare(i, 2, "${") != 0) {
            out += value[i];
            continue;
        }
        const std::size_t end = value.find('}', i + 2);
        if (end == std::string::npos) throw std::runtime_error(what + ": '${' without its '}' (write '$${' for a '${')");
        const std::string name = value.substr(i + 2, end - i - 2);
        const char* v = name.empty() ? nullptr : std::getenv(name.c_str());
        if (!v) throw std::runtime_error(what + " names the environment variable '" + name + "', which is not set");
        out += v;
        i = end;
    }
    return out;
}

/// The MCP servers a template set declares, connected (concurrently) before the run; stopped
/// (gracefully: a stdio server's input is closed, then SIGTERM and SIGKILL to its process group
/// after the grace periods) when stop() is called or this is destroyed, whatever happened.
class mcp_connections {
public:
    explicit mcp_connections(boost::asio::io_context& io) : io_(io) {}
    ~mcp_connections() { stop(); }
    mcp_connections(const mcp_connections&) = delete;
    mcp_connections& operator=(const mcp_connections&) = delete;

    /// Starts or reaches every server of `set` (`file` names the set in errors; `dir` is its
    /// directory, where stdio servers run and relative `cwd`s start); throws std::runtime_error
    /// naming the server that cannot be reached, interrupted on SIGINT or SIGTERM.
    void connect(const parley::template_set& set, const std::string& file, const std::string& dir) {
        using result = parley::mcp::mcp_result<std::shared_ptr<parley::mcp::client>>;
        std::vector<std::future<result>> pending;
        for (const parley::mcp_server& d : set.mcp_servers()) {
            // as declared, with `${NAME}` in env values and headers taken from the environment
            parley::mcp::server_config config = parley::mcp::config_of(d, dir);
            const std::string where = file + ": MCP server '" + d.name + "'";
            config.env.clear();
            for (const auto& [name, value] : d.env) config.env.emplace_back(name, expand_environment(value, where + ", 'env' " + name));
            config.headers = parley::http_headers();
            for (const auto& [name, value] : d.headers) config.headers.add(name, expand_environment(value, where + ", header '" + name + "'"));
            parley::mcp::client_options options;
            if (d.timeout > 0) options.request_timeout = std::chrono::milliseconds(static_cast<long long>(d.timeout * 1000));
            options.on_stderr = [name = d.name](std::string_view line) {
                std::cerr << '[' << name << "] " << line << '\n';
                std::cerr.flush();
            };
            const bool http = d.is_http();
            auto connect = [](parley::mcp::server_config c, parley::mcp::client_options o, bool over_http) -> boost::asio::awaitable<result> {
                if (over_http) co_return co_await parley::mcp::connect_http(std::move(c), std::move(o));
                co_return co_await parley::mcp::connect_stdio(std::move(c), std::move(o));
            };
            pending.push_back(boost::asio::co_spawn(io_, connect(std::move(config), std::move(options), http), boost::asio::use_future));
        }
        // every connection ends (and those made are kept, to be stopped) before an error is reported
        std::optional<std::string> failure;
        for (std::size_t i = 0; i < pending.size(); ++i) {
            result r = run_until(io_, pending[i]);
            const parley::mcp_server& d = set.mcp_servers()[i];
            if (r) {
                clients_.push_back(std::move(*r));
                continue;
            }
            if (failure) continue;
            // a system error's message says what failed and names the server already
            const parley::mcp::mcp_error& e = r.error();
            const std::string detail = e.code.category() == std::generic_category() && !e.message.empty() ? e.message : e.what();
            std::string message = file + ": " + (detail.find("the server '" + d.name + "'") != std::string::npos
                                                      ? detail
                                                      : "MCP server '" + d.name + "': " + detail);
            const bool shell_like = d.args.empty() && d.command.find(' ') != std::string::npos;
            if (!d.is_http() && r.error().code == std::errc::no_such_file_or_directory && shell_like)
                message += " ('command' is the program, not a shell command: write the program and its arguments as a list, "
                           "as in [npx, -y, server])";
            failure = std::move(message);
        }
        if (failure) throw std::runtime_error(*failure);
    }

    /// Registers the tools of every server with `b` (the allowed tools, under the prefixes), then
    /// checks that every function the requests name under a server's prefix is one of them.
    void add_tools(parley::bot& b, const parley::template_set& set, const std::string& file) {
        std::vector<std::pair<std::string, std::vector<std::string>>> offered;
        for (std::size_t i = 0; i < clients_.size(); ++i) {
            const parley::mcp_server& d = set.mcp_servers()[i];
            const auto& c = clients_[i];
            std::string names;
            std::vector<std::string> tools;
            for (const auto& t : c->tools()) {
                names += (names.empty() ? "" : ", ") + t.name;
                tools.push_back(t.name);
            }
            for (const auto& wanted : d.tools)
                if (!c->find_tool(wanted))
                    throw std::runtime_error(file + ": MCP server '" + d.name + "' has no tool '" + wanted +
                                             "', which its 'tools' lists (its tools: " + (names.empty() ? std::string("none") : names) + ")");
            const parley::mcp::bot_tool_options opt = parley::mcp::tool_options_of(d);
            try {
                parley::mcp::add_tools(b, c, opt);
            } catch (const parley::error& e) {  // a function name already taken
                throw std::runtime_error(file + ": MCP server '" + d.name + "': " + e.what());
            }
            offered.emplace_back(d.name, d.tools.empty() ? tools : d.tools);
        }
        set.check_mcp_functions(b.functions().names(), offered);
    }

    /// Stops every server, gracefully, and forgets them; runs `io_` meanwhile. Never throws.
    void stop() noexcept {
        if (clients_.empty()) return;
        try {
            auto close_all = [](std::vector<std::shared_ptr<parley::mcp::client>> list) -> boost::asio::awaitable<void> {
                for (const auto& c : list) co_await c->close();
            };
            auto done = boost::asio::co_spawn(io_, close_all(clients_), boost::asio::use_future);
            // bounded: each close ends within its grace periods; a second signal kills at once
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            const std::sig_atomic_t seen = interruptions;
            while (done.wait_for(std::chrono::seconds(0)) != std::future_status::ready &&
                   std::chrono::steady_clock::now() < deadline && interruptions == seen) {
                if (io_.stopped()) io_.restart();
                io_.run_one_for(std::chrono::milliseconds(100));
            }
        } catch (...) {
        }
        clients_.clear();  // a server still running is killed with its group (the client's destructor)
    }

private:
    boost::asio::io_context& io_;
    std::vector<std::shared_ptr<parley::mcp::client>> clients_;  // in the order of the set's servers
};

// --- models -----------------------------------------------------------------------------------

/// The scripted model's replies: the reply steps of a fake-server script.
std::shared_ptr<parley::scripted_model> script_from_file(const std::string& file) {
    parley::testing::fake_script script;
    try {
        script = parley::testing::fake_script_from_file(file);
    } catch (const std::exception& e) {
        throw std::runtime_error(file + ": " + e.what());
    }
    auto model = std::make_shared<parley::scripted_model>();
    for (std::size_t i = 0; i < script.steps.size(); ++i) {
        const auto& step = script.steps[i];
        const std::string where = file + ": steps[" + std::to_string(i) + "]: ";
        if (!step.reply || step.status != 0 || !step.replay.empty() || step.fault != parley::testing::fake_fault::none)
            throw std::runtime_error(where + "the scripted model plays reply steps only (no status, replay or fault)");
        if (step.reply->choices.empty()) throw std::runtime_error(where + "a reply needs text, tool calls or choices");
        parley::chat_reply reply;
        reply.model = step.reply->model;
        for (std::size_t c = 0; c < step.reply->choices.size(); ++c) {
            const auto& from = step.reply->choices[c];
            parley::reply_choice choice;
            choice.index = c;
            choice.message.role = parley::role::assistant;
            if (!from.text.empty() || (from.tool_calls.empty() && from.refusal.empty())) choice.message.content = from.text;
            for (std::size_t t = 0; t < from.tool_calls.size(); ++t) {
                const auto& call = from.tool_calls[t];
                choice.message.tool_calls.push_back(parley::tool_call{
                    call.id.empty() ? "call_" + std::to_string(i + 1) + "_" + std::to_string(t + 1) : call.id,
                    parley::function_call{call.name, call.arguments}});
            }
            if (!from.refusal.empty()) choice.message.refusal = from.refusal;
            if (!from.reasoning.empty())
                choice.message.reasoning.push_back({parley::reasoning_part::kind::text, from.reasoning, {}, {}, {}, {}});
            const std::string& f = from.finish;
            choice.finish = f.empty() ? (from.tool_calls.empty() ? parley::finish_reason::stop : parley::finish_reason::tool_calls)
                            : f == "stop" || f == "end_turn" || f == "stop_sequence" ? parley::finish_reason::stop
                            : f == "length" || f == "max_tokens"                     ? parley::finish_reason::length
                            : f == "tool_calls" || f == "tool_use"                   ? parley::finish_reason::tool_calls
                            : f == "content_filter" || f == "refusal"                ? parley::finish_reason::content_filter
                                                                                     : parley::finish_reason::other;
            choice.finish_text = f.empty() ? std::string(parley::finish_reason_name(choice.finish)) : f;
            reply.choices.push_back(std::move(choice));
        }
        model->push(std::move(reply));
    }
    return model;
}

/// The model as the command line configures it: `--model` in every request (PARLEY_MODEL where
/// a request names none); gives `output` the text of each reply (after streamed text, a line
/// break) and its calls.
class cli_model final : public parley::chat_model {
public:
    cli_model(std::shared_ptr<parley::chat_model> inner, std::optional<std::string> model,
              std::optional<std::string> fallback_model, std::shared_ptr<run_output> output, parley::usage_summary* usage)
        : inner_(std::move(inner)), model_(std::move(model)), fallback_(std::move(fallback_model)), output_(std::move(output)),
          usage_(usage) {}

    std::string default_model() const override {
        return model_ ? *model_ : fallback_ ? *fallback_ : inner_->default_model();
    }

    boost::asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request request, const parley::stream_handler* on_event) override {
        if (model_) request.params.model = *model_;
        else if (!request.params.model && fallback_) request.params.model = *fallback_;
        // counted here, under the name the request went out with (--model replaces the templates')
        const std::string sent_model = request.params.model.value_or(inner_->default_model());
        auto reply = co_await inner_->chat(std::move(request), on_event);
        parley::detail::count_usage(usage_, reply, sent_model);
        if (reply && !reply->choices.empty()) {
            const parley::message& m = reply->message();
            const std::string_view text = reply->text();
            if (on_event) {
                if (!text.empty()) output_->out("\n");  // the text went out as it arrived
            } else if (!text.empty()) {
                output_->out(std::string(text) + "\n");
            }
            for (const auto& c : m.tool_calls) output_->err("[tool call] " + c.function.name + ' ' + c.function.arguments + '\n');
            if (m.function_call)
                output_->err("[function call] " + m.function_call->name + ' ' + m.function_call->arguments + '\n');
        }
        co_return reply;
    }

private:
    std::shared_ptr<parley::chat_model> inner_;
    std::optional<std::string> model_, fallback_;
    std::shared_ptr<run_output> output_;
    parley::usage_summary* usage_;
};

}  // namespace

int run_main(const std::vector<std::string>& args) {
    std::optional<std::string> name, data_option, functions_file, detail, history_file, base_url, model, provider, api, script, ca_file,
        window_option, models_file;
    std::vector<std::string> sets, images;
    bool stream = false, usage = false;
    std::size_t context_window = 0;
    std::vector<std::string> words;
    std::optional<parley::api> which;
    try {
        auto parsed = option_list()
                          .value("--template", name)
                          .value("--data", data_option)
                          .values("--set", sets)
                          .value("--functions", functions_file)
                          .values("--image", images)
                          .value("--detail", detail)
                          .value("--history", history_file)
                          .value("--base-url", base_url)
                          .value("--model", model)
                          .value("--provider", provider)
                          .value("--api", api)
                          .value("--script", script)
                          .value("--ca-file", ca_file)
                          .value("--context-window", window_option)
                          .value("--models", models_file)
                          .flag("--stream", stream)
                          .flag("--usage", usage)
                          .parse(args);
        if (!parsed) {
            std::cout << run_usage;
            return 0;
        }
        words = std::move(*parsed);
        if (words.empty()) throw usage_error("give the template file");
        which = api_option(api, provider, true);
        if (which == parley::api::scripted && !script) throw usage_error("--provider scripted needs --script FILE.json");
        if (script && which != parley::api::scripted) throw usage_error("--script goes with --provider scripted");
        if (detail && *detail != "low" && *detail != "high" && *detail != "auto")
            throw usage_error("--detail must be low, high or auto, not '" + *detail + "'");
        if (detail && images.empty()) throw usage_error("--detail goes with --image");
        if (window_option) {
            const std::string& w = *window_option;
            std::size_t n = 0;
            const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), n);
            if (w.empty() || ec != std::errc() || end != w.data() + w.size() || n == 0)
                throw usage_error("--context-window takes a positive number of tokens, not '" + w + "'");
            context_window = n;
        }
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << run_usage;
        return 2;
    }
    const std::string& file = words[0];
    auto output = std::make_shared<run_output>(stream);
    parley::usage_summary summary;
    parley::model_catalog catalog = parley::model_catalog::builtin();
    // What --usage prints once the run is over, whatever its outcome.
    auto report_usage = [&] {
        if (!usage) return;
        std::cout.flush();
        print_usage(std::cerr, summary, catalog);
    };
    try {
        if (models_file) catalog.merge(parley::model_catalog::from_file(*models_file));
        std::signal(SIGPIPE, SIG_IGN);  // a command that does not read its input
        boost::json::value data = read_data(data_option, sets);
        for (const char* key : {"input", "contentParts"})
            if (data.as_object().contains(key))
                throw usage_error(std::string("the data have a key '") + key + "', which " +
                                  (key == std::string_view("input") ? "PROMPT gives" : "PROMPT and --image give") + ": rename it");
        const std::string prompt = prompt_of({words.begin() + 1, words.end()});

        std::vector<std::string> external;
        for (const auto& b : builtins) external.emplace_back(b.name);
        external.emplace_back(parley::switch_template_function);
        std::vector<std::string> functions_file_names;
        parley::template_set set = load_templates(file, functions_file, external, true, &functions_file_names);
        const std::string template_name = select_template(set, name, file).name();

        std::vector<std::string> urls;
        for (const auto& image : images) urls.push_back(image_url(image));
        data.as_object()["input"] = prompt;
        data.as_object()["contentParts"] = content_parts(prompt, urls, detail);
        std::vector<parley::message> history;
        if (history_file) {
            if (const fs::path dir = fs::path(*history_file).parent_path(); !dir.empty() && !fs::is_directory(dir))
                throw std::runtime_error(*history_file + ": the directory " + dir.string() + " does not exist");
            history = read_history(*history_file, true);
        }

        // The io_context first: it must outlive the client, whose pooled connections hold timers
        // of its services, and the MCP servers' clients.
        boost::asio::io_context io;
        interruption_handler on_signal;
        mcp_connections servers(io);
        std::shared_ptr<parley::chat_model> inner;
        std::shared_ptr<parley::chat_client> client;
        if (which == parley::api::scripted) {
            inner = std::make_shared<parley::in_process_model>(script_from_file(*script));
        } else {
            parley::client_config config = client_config_of(which, base_url, ca_file, "the echo model");
            if (config.api == parley::api::echo) {
                inner = std::make_shared<parley::in_process_model>(std::make_shared<parley::echo_model>());
            } else {
                client = std::make_shared<parley::chat_client>(io.get_executor(), std::move(config));
                inner = std::make_shared<parley::client_model>(client);
            }
        }
        std::optional<std::string> fallback_model;
        if (const char* m = std::getenv("PARLEY_MODEL"); m && *m) fallback_model = m;
        parley::bot_options bot_options;
        bot_options.models = catalog;
        parley::bot bot(set, std::make_shared<cli_model>(inner, model, fallback_model, output, usage ? &summary : nullptr), std::move(bot_options));

        const std::string dir = fs::absolute(fs::path(file)).parent_path().string();
        const std::string functions_dir =
            functions_file ? fs::absolute(fs::path(*functions_file)).parent_path().string() : dir;
        for (const auto& def : set.functions()) {
            if (const parley::function_command* c = set.command(def.name)) {
                // a command runs in the directory of the file that defines it
                const bool from_functions_file =
                    std::find(functions_file_names.begin(), functions_file_names.end(), def.name) != functions_file_names.end();
                bot.add_function(def, command_function(def.name, *c, from_functions_file ? functions_dir : dir, output));
                continue;
            }
            const builtin* b = nullptr;
            for (const auto& each : builtins)
                if (def.name == each.name) b = &each;
            if (!b) {
                std::string names;
                for (const auto& each : builtins) names += (names.empty() ? "" : ", ") + std::string(each.name);
                throw std::runtime_error(file + ": function '" + def.name + "' has no 'command', and parley run has no built-in function of that name (" + names + ")");
            }
            bot.add_function(def, b->run);
        }
        for (const auto& b : builtins)
            if (!set.function(b.name))
                bot.add_function(parley::function_definition{b.name, b.description, boost::json::parse(b.parameters).as_object()}, b.run);

        // the MCP servers: their tools become functions; stopped when `servers` goes, whatever happens
        servers.connect(set, file, dir);
        servers.add_tools(bot, set, file);

        parley::run_options opt;
        if (stream) opt.on_text = [output](std::string_view delta) { output->out(delta); };
        // with --model, the window of that model rather than of the templates' model names
        opt.context_window = context_window != 0 ? context_window
                             : model             ? catalog.context_window(*model).value_or(0)
                                                 : 0;
        boost::asio::cancellation_signal cancel;
        auto done = boost::asio::co_spawn(io, bot.run(template_name, data, std::move(history), std::move(opt)),
                                          boost::asio::bind_cancellation_slot(cancel.slot(), boost::asio::use_future));
        std::vector<parley::message> conversation;
        try {
            conversation = run_until(io, done);
        } catch (const interrupted&) {
            // the run's pending call is cancelled, a tool call the server does not end is ended
            // by stopping the servers, and the run is let finish before what it uses goes away
            cancel.emit(boost::asio::cancellation_type::terminal);
            servers.stop();
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            while (done.wait_for(std::chrono::seconds(0)) != std::future_status::ready && std::chrono::steady_clock::now() < deadline) {
                if (io.stopped()) io.restart();
                io.run_one_for(std::chrono::milliseconds(100));
            }
            throw;
        }
        servers.stop();
        if (history_file) parley::save_history(*history_file, conversation);
        output->flush();
        report_usage();
        return 0;
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << run_usage;
        return 2;
    } catch (const interrupted& e) {
        // the commands and servers are stopped; parley dies of the signal, as the shell expects
        output->discard();
        report_usage();
        std::cerr << "parley: " << e.what() << (history_file ? "; the history file is unchanged" : "") << "\n";
        std::cerr.flush();
        const int sig = interrupted_by;
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return 128 + sig;
    } catch (const std::exception& e) {
        const bool printed = output->discard();
        report_usage();
        std::cerr << "error: " << e.what() << "\n";
        if (printed)
            std::cerr << "parley: the run failed, so the replies printed above are not part of the conversation"
                      << (history_file ? " (the history file is unchanged)" : "") << "\n";
        return 1;
    }
}

}  // namespace parley_cli
