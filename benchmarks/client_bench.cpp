// benchmarks/client_bench.cpp (parley-bench-client_bench): the load side of the chat-client
// benchmark. It makes a fixed number of OpenAI chat calls through parley::chat_client, N at once,
// on one io_context run by one thread, against a server given by URL (`parley fake-server`), and
// prints one JSON line: the calls made, the wall-clock time of the timed calls, and the errors.
// benchmarks/client_compare.py runs it next to benchmarks/client_bench_node.mjs (the official
// openai SDK for Node) and measures the CPU time of both processes from outside (docs/benchmarks.md,
// "Chat client").
//
//   parley-bench-client_bench --base-url http://127.0.0.1:PORT/v1 --mode chat|stream|floor
//                             --concurrency N --calls N [--warmup N] [--expect TEXT]
//
// The warm-up calls run first, at the same concurrency, and open the connections; then the timed
// calls run on the same client. Every reply is checked: its text must be `--expect` (when given);
// a failed or wrong call is counted, reported, and makes the exit status 1.
//
// `--mode floor` (concurrency 1, plain http only) is a reference, not a client: the socket work of
// a non-streamed call and nothing else. One blocking TCP connection (POSIX socket, connect,
// TCP_NODELAY; no Asio, no Beast), and for each call one write of the bytes parley's client sends
// for the non-streamed call (its request line, header fields and JSON body, built once at
// start-up), then reads into a fixed 16 KiB buffer until the header and the Content-Length body
// have arrived. The reply is checked without parsing its JSON (status 200, a Content-Length, the
// expected text in the body); nothing is allocated per call. What parley's client spends per call
// beyond this floor is its own work; the floor itself is mostly the kernel's (loopback sends and
// receives, sleeping until the reply and waking up).
#include <parley/net/url.hpp>
#include <parley/provider/chat_client.hpp>
#include <parley/provider/openai/request.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

namespace asio = boost::asio;

struct settings {
    std::string base_url;
    bool stream = false;
    bool floor = false;  // --mode floor: the blocking socket loop, not parley's client
    std::size_t concurrency = 1;
    std::size_t calls = 0;
    std::size_t warmup = 0;
    std::string expect;
    bool check_text = false;
};

/// The calls of one phase, shared by its workers (one thread: no locking).
struct phase {
    std::size_t remaining = 0;
    std::size_t done = 0;
    std::size_t errors = 0;
    std::size_t events = 0;
    std::string first_error;

    void fail(std::string why) {
        ++errors;
        if (first_error.empty()) first_error = std::move(why);
    }
};

asio::awaitable<void> worker(parley::chat_client& client, const parley::chat_request& prototype, const settings& s,
                             phase& p) {
    while (p.remaining > 0) {
        --p.remaining;
        parley::chat_request request = prototype;  // what a program builds for each call
        if (!s.stream) {
            auto reply = co_await client.chat(std::move(request));
            if (!reply) p.fail(reply.error().what());
            else if (s.check_text && reply->text() != s.expect)
                p.fail("unexpected reply text: '" + std::string(reply->text()) + "'");
        } else {
            auto stream = co_await client.stream(std::move(request));
            if (!stream) {
                p.fail(stream.error().what());
                continue;
            }
            bool ok = true;
            for (;;) {
                auto event = co_await stream->next();
                if (!event) {
                    p.fail(event.error().what());
                    ok = false;
                    break;
                }
                ++p.events;
                if (event->type == parley::stream_event::kind::done) break;
            }
            if (ok && s.check_text && stream->reply().text() != s.expect)
                p.fail("unexpected streamed text: '" + std::string(stream->reply().text()) + "'");
        }
        ++p.done;
    }
}

/// Runs `calls` calls, `concurrency` at once, to the end; returns the wall-clock seconds.
double run_phase(asio::io_context& io, parley::chat_client& client, const parley::chat_request& prototype,
                 const settings& s, std::size_t calls, phase& p) {
    p.remaining = calls;
    std::exception_ptr crashed;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < s.concurrency && i < calls; ++i)
        asio::co_spawn(io, worker(client, prototype, s, p), [&crashed](const std::exception_ptr& e) {
            if (e && !crashed) crashed = e;
        });
    io.restart();
    io.run();
    const auto stop = std::chrono::steady_clock::now();
    if (crashed) std::rethrow_exception(crashed);
    return std::chrono::duration<double>(stop - start).count();
}

// --mode floor ----------------------------------------------------------------------------------

/// The bytes parley's client sends for a non-streamed call of `prototype` to `base`: the head as
/// net::detail::format_head lays it out (request line, Host, User-Agent, the chat client's
/// common fields for api::openai in their order, Content-Length) and the body chat_client
/// encodes.
std::string floor_request_bytes(const parley::net::url& base, const parley::client_config& config,
                                const parley::chat_request& prototype) {
    const std::string body = boost::json::serialize(parley::openai::encode_request(prototype, false, config.openai));
    std::string r;
    r.append("POST ").append(parley::net::join_path(base.path, "/chat/completions")).append(" HTTP/1.1\r\n");
    r.append("Host: ").append(base.authority()).append("\r\n");
    r.append("User-Agent: ").append(config.net.user_agent).append("\r\n");
    r.append("Content-Type: application/json\r\n");
    r.append("Accept: application/json\r\n");
    r.append("Authorization: Bearer ").append(config.api_key).append("\r\n");
    r.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    r.append("\r\n");
    r.append(body);
    return r;
}

std::string system_failure(const char* call) {
    return std::string(call) + ": " + std::generic_category().message(errno);
}

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

/// One blocking connection to the server, opened on the first call and again after a failed one.
class floor_client {
public:
    /// Resolves the host and port of `base` (once, at start-up).
    explicit floor_client(const parley::net::url& base) {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        addrinfo* found = nullptr;
        const std::string port = std::to_string(base.port);
        if (const int rc = ::getaddrinfo(base.host.c_str(), port.c_str(), &hints, &found); rc != 0)
            throw std::runtime_error("cannot resolve " + base.host + ": " + ::gai_strerror(rc));
        for (const addrinfo* a = found; a; a = a->ai_next) {
            address entry{};
            std::memcpy(&entry.storage, a->ai_addr, a->ai_addrlen);
            entry.size = a->ai_addrlen;
            addresses_.push_back(entry);
        }
        ::freeaddrinfo(found);
        if (addresses_.empty()) throw std::runtime_error("cannot resolve " + base.host + ": no address");
    }
    floor_client(const floor_client&) = delete;
    floor_client& operator=(const floor_client&) = delete;
    ~floor_client() { close(); }

    /// The connections opened so far.
    std::size_t opened() const noexcept { return opened_; }

    /// Sends `request` and reads its reply; "" when the reply is a 200 whose body holds `expect`
    /// (when `expect` is not empty), else what went wrong (the connection is then closed).
    std::string call(std::string_view request, std::string_view expect) {
        if (fd_ < 0)
            if (auto why = connect(); !why.empty()) return why;
        auto why = exchange(request, expect);
        if (!why.empty()) close();
        return why;
    }

private:
    struct address {
        sockaddr_storage storage;
        socklen_t size;
    };

    std::string connect() {
        std::string why;
        for (const auto& a : addresses_) {
            fd_ = ::socket(a.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd_ < 0) {
                why = system_failure("socket");
                continue;
            }
            if (::connect(fd_, reinterpret_cast<const sockaddr*>(&a.storage), a.size) != 0) {
                why = system_failure("connect");
                close();
                continue;
            }
            const int on = 1;
            if (::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0) {
                why = system_failure("setsockopt(TCP_NODELAY)");
                close();
                return why;
            }
            ++opened_;
            return {};
        }
        return why;
    }

    void close() noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    std::string exchange(std::string_view request, std::string_view expect) {
        for (std::size_t sent = 0; sent < request.size();) {
            const ssize_t n = ::write(fd_, request.data() + sent, request.size() - sent);
            if (n < 0) {
                if (errno == EINTR) continue;
                return system_failure("write");
            }
            sent += static_cast<std::size_t>(n);
        }
        std::size_t have = 0;  // bytes in buffer_
        std::size_t head = 0;  // bytes of the status line and header fields, their blank line included; 0 until seen
        std::size_t total = 0;  // head + Content-Length
        for (;;) {
            const ssize_t n = ::read(fd_, buffer_.data() + have, buffer_.size() - have);
            if (n < 0) {
                if (errno == EINTR) continue;
                return system_failure("read");
            }
            if (n == 0)
                return have == 0 ? "the server closed the connection" : "the server closed the connection within a reply";
            const std::size_t from = have >= 3 ? have - 3 : 0;
            have += static_cast<std::size_t>(n);
            const std::string_view seen(buffer_.data(), have);
            if (head == 0) {
                const std::size_t end = seen.find("\r\n\r\n", from);
                if (end == std::string_view::npos) {
                    if (have == buffer_.size()) return "a reply header larger than 16 KiB";
                    continue;
                }
                head = end + 4;
                if (auto why = check_head(seen.substr(0, head), total); !why.empty()) return why;
                if (total > buffer_.size() - head) return "a reply larger than 16 KiB";
                total += head;
            }
            if (have >= total) break;
        }
        if (have > total) return "bytes past the end of the reply";
        // The body is not parsed: the expected text, JSON-escaped as a whole string, must occur in
        // it (a reply that escaped the text differently would be refused; the fake server's does not).
        const std::string_view body(buffer_.data() + head, total - head);
        if (!expect.empty() && body.find(expect) == std::string_view::npos)
            return "unexpected reply body: '" + std::string(body) + "'";
        return {};
    }

    /// Checks the status line (200) and finds the Content-Length field (its name in any case).
    static std::string check_head(std::string_view header, std::size_t& content_length) {
        const std::size_t line_end = header.find("\r\n");
        const std::string_view status = header.substr(0, line_end);
        if (status.size() < 12 || status.substr(0, 7) != "HTTP/1." || status[8] != ' ' || status.substr(9, 3) != "200" ||
            (status.size() > 12 && status[12] != ' '))
            return "unexpected status line '" + std::string(status) + "'";
        std::size_t at = line_end + 2;
        while (at + 2 < header.size()) {  // the blank line ends the fields
            const std::size_t end = header.find("\r\n", at);
            const std::string_view field = header.substr(at, end - at);
            at = end + 2;
            const std::size_t colon = field.find(':');
            if (colon == std::string_view::npos || !equal_ignoring_case(field.substr(0, colon), "content-length")) continue;
            std::string_view value = field.substr(colon + 1);
            while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
            while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
            const auto [end_of_number, ec] = std::from_chars(value.data(), value.data() + value.size(), content_length);
            if (ec != std::errc{} || end_of_number != value.data() + value.size() || value.empty())
                return "an invalid Content-Length '" + std::string(value) + "'";
            return {};
        }
        return "a reply without Content-Length";
    }

    std::vector<address> addresses_;
    int fd_ = -1;
    std::size_t opened_ = 0;
    std::array<char, 16 * 1024> buffer_{};
};

/// Runs `calls` calls one after the other on `client`; returns the wall-clock seconds.
double run_floor_phase(floor_client& client, std::string_view request, std::string_view expect, std::size_t calls,
                       phase& p) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < calls; ++i) {
        if (auto why = client.call(request, expect); !why.empty()) p.fail(std::move(why));
        ++p.done;
    }
    const auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(stop - start).count();
}

// -------------------------------------------------------------------------------------------------

std::size_t count(std::string_view option, const std::string& text) {
    std::size_t used = 0;
    const auto n = std::stoull(text, &used);
    if (used != text.size()) throw std::invalid_argument(std::string(option) + ": not a number: " + text);
    return static_cast<std::size_t>(n);
}

settings parse(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument(std::string(a) + " needs a value");
        const std::string v = argv[++i];
        if (a == "--base-url") s.base_url = v;
        else if (a == "--mode") {
            if (v != "chat" && v != "stream" && v != "floor")
                throw std::invalid_argument("--mode is chat, stream or floor, not " + v);
            s.stream = v == "stream";
            s.floor = v == "floor";
        } else if (a == "--concurrency") s.concurrency = count(a, v);
        else if (a == "--calls") s.calls = count(a, v);
        else if (a == "--warmup") s.warmup = count(a, v);
        else if (a == "--expect") {
            s.expect = v;
            s.check_text = true;
        } else throw std::invalid_argument("unknown option " + std::string(a));
    }
    if (s.base_url.empty()) throw std::invalid_argument("--base-url is required");
    if (s.concurrency == 0) throw std::invalid_argument("--concurrency must be at least 1");
    if (s.floor) {
        if (s.concurrency != 1) throw std::invalid_argument("--mode floor makes one call at a time: --concurrency 1");
        if (parley::net::parse_url(s.base_url).tls())
            throw std::invalid_argument("--mode floor speaks plain HTTP only, not https (" + s.base_url + ")");
    }
    return s;
}

std::string compiler() {
#if defined(__clang__)
    return "clang++ " __clang_version__;
#elif defined(__GNUC__)
    return "g++ " __VERSION__;
#else
    return "unknown";
#endif
}

constexpr bool optimized() {
#if defined(__OPTIMIZE__)
    return true;
#else
    return false;
#endif
}

constexpr bool ndebug() {
#if defined(NDEBUG)
    return true;
#else
    return false;
#endif
}

}  // namespace

int main(int argc, char** argv) {
    settings s;
    try {
        s = parse(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "parley-bench-client_bench: " << e.what()
                  << "\nusage: parley-bench-client_bench --base-url URL --mode chat|stream|floor --concurrency N "
                     "--calls N [--warmup N] [--expect TEXT]\n";
        return 2;
    }
    try {
        parley::client_config config;
        config.api = parley::api::openai;
        config.base_url = s.base_url;
        config.api_key = "sk-bench-0123456789";
        config.net.proxy.how = parley::net::proxy_options::mode::none;
        config.net.max_connections_per_host = std::max<std::size_t>(s.concurrency, 1);

        parley::chat_request prototype;
        prototype.params.model = "gpt-4o-mini";
        prototype.messages.push_back(parley::make_message(parley::role::user, "Say hello in one short sentence."));

        phase warm;
        phase timed;
        double seconds = 0;
        std::size_t opened = 0;
        if (s.floor) {
            const auto base = parley::net::parse_url(s.base_url);
            const std::string request = floor_request_bytes(base, config, prototype);
            const std::string expect = s.check_text ? boost::json::serialize(boost::json::string(s.expect)) : "";
            std::signal(SIGPIPE, SIG_IGN);  // a write to a closed connection is an error, not the end
            floor_client client(base);
            run_floor_phase(client, request, expect, s.warmup, warm);
            seconds = run_floor_phase(client, request, expect, s.calls, timed);
            opened = client.opened();
        } else {
            asio::io_context io(1);  // one thread runs it
            parley::chat_client client(io.get_executor(), config);
            run_phase(io, client, prototype, s, s.warmup, warm);
            seconds = run_phase(io, client, prototype, s, s.calls, timed);
            opened = client.http().counters().opened;
        }

        boost::json::object out;
        out["client"] = "parley";
        out["compiler"] = compiler();
        out["optimized"] = optimized();
        out["ndebug"] = ndebug();
        out["mode"] = s.floor ? "floor" : s.stream ? "stream" : "chat";
        out["concurrency"] = s.concurrency;
        out["warmup"] = warm.done;
        out["calls"] = timed.done;
        out["wall_seconds"] = seconds;
        out["errors"] = warm.errors + timed.errors;
        out["events"] = timed.events;
        out["connections_opened"] = opened;
        if (!warm.first_error.empty() || !timed.first_error.empty())
            out["first_error"] = warm.first_error.empty() ? timed.first_error : warm.first_error;
        std::cout << boost::json::serialize(out) << std::endl;
        return warm.errors + timed.errors == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "parley-bench-client_bench: " << e.what() << '\n';
        return 1;
    }
}
