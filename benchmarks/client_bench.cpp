// benchmarks/client_bench.cpp (parley-bench-client_bench): the load side of the chat-client
// benchmark. It makes a fixed number of OpenAI chat calls through parley::chat_client, N at once,
// on one io_context run by one thread, against a server given by URL (`parley fake-server`), and
// prints one JSON line: the calls made, the wall-clock time of the timed calls, and the errors.
// benchmarks/client_compare.py runs it next to benchmarks/client_bench_node.mjs (the official
// openai SDK for Node) and measures the CPU time of both processes from outside (docs/benchmarks.md,
// "Chat client").
//
//   parley-bench-client_bench --base-url http://127.0.0.1:PORT/v1 --mode chat|stream
//                             --concurrency N --calls N [--warmup N] [--expect TEXT]
//
// The warm-up calls run first, at the same concurrency, and open the connections; then the timed
// calls run on the same client. Every reply is checked: its text must be `--expect` (when given);
// a failed or wrong call is counted, reported, and makes the exit status 1.
#include <parley/provider/chat_client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace asio = boost::asio;

struct settings {
    std::string base_url;
    bool stream = false;
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
            if (v != "chat" && v != "stream") throw std::invalid_argument("--mode is chat or stream, not " + v);
            s.stream = v == "stream";
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
                  << "\nusage: parley-bench-client_bench --base-url URL --mode chat|stream --concurrency N --calls N "
                     "[--warmup N] [--expect TEXT]\n";
        return 2;
    }
    try {
        asio::io_context io(1);  // one thread runs it
        parley::client_config config;
        config.api = parley::api::openai;
        config.base_url = s.base_url;
        config.api_key = "sk-bench-0123456789";
        config.net.proxy.how = parley::net::proxy_options::mode::none;
        config.net.max_connections_per_host = std::max<std::size_t>(s.concurrency, 1);
        parley::chat_client client(io.get_executor(), config);

        parley::chat_request prototype;
        prototype.params.model = "gpt-4o-mini";
        prototype.messages.push_back(parley::make_message(parley::role::user, "Say hello in one short sentence."));

        phase warm;
        run_phase(io, client, prototype, s, s.warmup, warm);
        phase timed;
        const double seconds = run_phase(io, client, prototype, s, s.calls, timed);
        const auto pool = client.http().counters();

        boost::json::object out;
        out["client"] = "parley";
        out["compiler"] = compiler();
        out["optimized"] = optimized();
        out["ndebug"] = ndebug();
        out["mode"] = s.stream ? "stream" : "chat";
        out["concurrency"] = s.concurrency;
        out["warmup"] = warm.done;
        out["calls"] = timed.done;
        out["wall_seconds"] = seconds;
        out["errors"] = warm.errors + timed.errors;
        out["events"] = timed.events;
        out["connections_opened"] = pool.opened;
        if (!warm.first_error.empty() || !timed.first_error.empty())
            out["first_error"] = warm.first_error.empty() ? timed.first_error : warm.first_error;
        std::cout << boost::json::serialize(out) << std::endl;
        return warm.errors + timed.errors == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "parley-bench-client_bench: " << e.what() << '\n';
        return 1;
    }
}
