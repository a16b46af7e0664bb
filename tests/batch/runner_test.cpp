// Tests of parley/batch/runner.hpp: batch_runner through a chat_client against the fake server:
// one line per input, resumption, repeated ids, the fault mix (429s, 5xx, cut bodies, time-outs),
// the governor holding every worker after one 429 (read from the times the server received the
// requests), the server's request limit, and exceptions of the work.
#include <parley/batch/runner.hpp>

#include <parley/batch/model.hpp>
#include <parley/batch/output.hpp>
#include <parley/bot/client_model.hpp>
#include <parley/provider/chat_client.hpp>
#include <parley/testing/fake_server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <ranges>
#include <set>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

using parley::testing::fake_server;
using parley::testing::fake_step;

parley::client_config batch_config(const fake_server& server, std::chrono::milliseconds idle = 2000ms) {
    parley::client_config c;
    c.api = parley::api::openai;
    c.base_url = server.url("/v1");
    c.api_key = "sk-test";
    c.defaults.model = "gpt-4o-mini";
    c.net.retry.max_retries = 0;  // the runner retries
    c.net.timeouts.idle = idle;
    c.net.timeouts.total = 10s;
    c.net.proxy.how = parley::net::proxy_options::mode::none;
    return c;
}

/// Every request answered with the echo of its last user text.
parley::testing::fake_script echo_script() {
    parley::testing::fake_script s;
    s.steps.push_back(fake_step{});
    s.repeat = true;
    return s;
}

std::vector<parley::batch_input> inputs(std::size_t n, std::size_t first = 0) {
    std::vector<parley::batch_input> v;
    for (std::size_t i = first; i < first + n; ++i) {
        parley::batch_input in;
        in.id = "doc-" + std::to_string(i);
        in.data = boost::json::object{{"text", "text of " + std::to_string(i)}};
        v.push_back(std::move(in));
    }
    return v;
}

/// The work of these tests: one chat call with the input's text; the result is the reply's text.
auto chat_work(parley::chat_client& client) {
    return [&client](const parley::batch_input& in, parley::batch_attempt& a) -> asio::awaitable<parley::batch_outcome> {
        parley::chat_request r;
        r.messages.push_back(parley::make_message(parley::role::user, std::string(in.data.at("text").as_string())));
        auto reply = co_await client.chat(std::move(r));
        if (!reply) {
            a.record(reply.error(), "gpt-4o-mini");
            co_return reply.error();
        }
        a.record(*reply, "gpt-4o-mini");
        co_return boost::json::value(reply->text());
    };
}

/// An input with an integer id.
struct numbered_item {
    std::int64_t id;
    std::string text;
};

/// A single-pass range of numbered_items (ids 0, 10, 20...): each is made when it is read.
struct numbered_source {
    int next = 0;
    int last = 0;
    struct iterator {
        using value_type = numbered_item;
        using difference_type = std::ptrdiff_t;
        numbered_source* s = nullptr;
        numbered_item operator*() const { return numbered_item{s->next * 10, "t" + std::to_string(s->next)}; }
        iterator& operator++() {
            ++s->next;
            return *this;
        }
        void operator++(int) { ++s->next; }
        friend bool operator==(const iterator& i, std::default_sentinel_t) { return i.s->next == i.s->last; }
    };
    iterator begin() { return iterator{this}; }
    std::default_sentinel_t end() const { return {}; }
};

template <class T>
T run_on(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

/// The lines of a sink by id; fails the test for an id with two lines.
std::map<std::string, boost::json::value> by_id(const std::vector<std::string>& lines) {
    std::map<std::string, boost::json::value> out;
    for (const auto& line : lines) {
        REQUIRE(line.ends_with("\n"));
        REQUIRE(std::count(line.begin(), line.end(), '\n') == 1);
        auto v = boost::json::parse(line);
        const std::string id(v.at("id").as_string());
        CHECK_MESSAGE(out.emplace(id, v).second, "two lines for " << id);
    }
    return out;
}

}  // namespace

TEST_CASE("batch_runner: one line per input, results in order of completion") {
    fake_server server;
    server.set_script(echo_script());  // the default reply: the echo of the user's text
    asio::io_context io;
    parley::chat_client client(io.get_executor(), batch_config(server));
    parley::batch_options o;
    o.concurrency = 8;
    std::vector<parley::batch_progress> seen;
    o.on_progress = [&](const parley::batch_progress& p) { seen.push_back(p); };
    o.progress_interval = 1ms;
    parley::batch_runner runner(io.get_executor(), o);
    parley::batch_memory_sink sink;
    const auto all = inputs(50);
    const auto p = run_on(io, runner.run(all, chat_work(client), sink));
    CHECK(p.done == 50);
    CHECK(p.failed == 0);
    CHECK(p.total == 50);
    CHECK(p.in_flight == 0);
    const auto lines = by_id(sink.lines());
    REQUIRE(lines.size() == 50);
    for (std::size_t i = 0; i < 50; ++i) {
        const auto& v = lines.at("doc-" + std::to_string(i));
        CHECK(v.at("result") == boost::json::value("text of " + std::to_string(i)));
        CHECK(v.at("attempts") == 1);
        CHECK(v.at("usage").at("requests") == 1);
        CHECK(v.at("usage").at("input_tokens").as_int64() > 0);
    }
    CHECK(p.usage.total().requests == 50);
    REQUIRE_FALSE(seen.empty());
    CHECK(seen.back().done == 50);
    CHECK(server.request_count() == 50);
}

TEST_CASE("batch_runner: ids the sink has are skipped; a repeated id is refused before any request") {
    fake_server server;
    server.set_script(echo_script());
    asio::io_context io;
    parley::chat_client client(io.get_executor(), batch_config(server));
    parley::batch_runner runner(io.get_executor());
    parley::batch_memory_sink sink;
    sink.mark_done(R"("doc-3")");
    sink.mark_done(R"("doc-5")");
    auto p = run_on(io, runner.run(inputs(10), chat_work(client), sink));
    CHECK(p.done == 8);
    CHECK(p.skipped == 2);
    CHECK(p.total == 8);
    const auto lines = by_id(sink.lines());
    CHECK(lines.size() == 8);
    CHECK_FALSE(lines.contains("doc-3"));
    CHECK(server.request_count() == 8);

    auto twice = inputs(4);
    twice.push_back(twice[1]);
    parley::batch_memory_sink other;
    CHECK_THROWS_WITH_AS(run_on(io, runner.run(twice, chat_work(client), other)),
                         "input 5: the id \"doc-1\" is that of input 2 already: ids must be unique", parley::error);
    CHECK(other.lines().empty());
    CHECK(server.request_count() == 8);
}

TEST_CASE("batch_runner: a single-pass range, and ids of other types") {
    fake_server server;
    server.set_script(echo_script());
    asio::io_context io;
    parley::chat_client client(io.get_executor(), batch_config(server));
    numbered_source single_pass{0, 20};
    static_assert(!std::ranges::forward_range<decltype(single_pass)>);
    parley::batch_runner runner(io.get_executor());
    parley::batch_memory_sink sink;
    auto work = [&client](const numbered_item& in, parley::batch_attempt& a) -> asio::awaitable<parley::batch_outcome> {
        parley::chat_request r;
        r.messages.push_back(parley::make_message(parley::role::user, in.text));
        auto reply = co_await client.chat(std::move(r));
        if (!reply) co_return reply.error();
        a.record(*reply, "gpt-4o-mini");
        co_return boost::json::value(reply->text());
    };
    const auto p = run_on(io, runner.run(single_pass, work, sink));
    CHECK(p.done == 20);
    std::set<std::int64_t> ids;
    for (const auto& line : sink.lines()) ids.insert(boost::json::parse(line).at("id").as_int64());
    CHECK(ids.size() == 20);
    CHECK(ids.contains(190));
}

TEST_CASE("batch_runner: exceptions of the work are that input's error line, never retried") {
    asio::io_context io;
    parley::batch_runner runner(io.get_executor());
    parley::batch_memory_sink sink;
    int calls = 0;
    auto work = [&calls](const parley::batch_input& in, parley::batch_attempt&) -> asio::awaitable<parley::batch_outcome> {
        ++calls;
        if (in.id == "doc-1") throw parley::error(parley::errc::template_undefined, "'text' is undefined");
        if (in.id == "doc-2") throw std::runtime_error("plain failure");
        co_return boost::json::value(1);
    };
    const auto p = run_on(io, runner.run(inputs(3), work, sink));
    CHECK(p.failed == 2);
    CHECK(calls == 3);
    const auto lines = by_id(sink.lines());
    CHECK(lines.at("doc-1").at("error").at("code") == "template_undefined");
    CHECK(lines.at("doc-1").at("error").at("message") == "'text' is undefined");
    CHECK(lines.at("doc-2").at("error").at("code") == "invalid_argument");
    CHECK(lines.at("doc-0").at("result") == 1);
}

TEST_CASE("batch_runner: a batch_input_error adds its details to the error line") {
    asio::io_context io;
    parley::batch_runner runner(io.get_executor());
    parley::batch_memory_sink sink;
    int calls = 0;
    auto work = [&calls](const parley::batch_input& in, parley::batch_attempt&) -> asio::awaitable<parley::batch_outcome> {
        ++calls;
        if (in.id == "doc-0")
            throw parley::batch_input_error(parley::make_error_code(parley::errc::conversion), "no reply fitted in 3 attempts",
                                            boost::json::object{{"reply", "{\"a\": 1}"},
                                                                {"violations", boost::json::array{"/a: 1 is not of type 'string'"}},
                                                                {"code", "ignored"}});
        co_return boost::json::value(1);
    };
    const auto p = run_on(io, runner.run(inputs(2), work, sink));
    CHECK(p.failed == 1);
    CHECK(calls == 2);
    const auto lines = by_id(sink.lines());
    const auto& e = lines.at("doc-0").at("error").as_object();
    CHECK(e.at("code") == "conversion");
    CHECK(e.at("message") == "no reply fitted in 3 attempts");
    CHECK(e.at("reply") == "{\"a\": 1}");
    CHECK(e.at("violations") == boost::json::array{"/a: 1 is not of type 'string'"});
    CHECK(e.size() == 4);  // a member named as one the line has is left out
    CHECK(lines.at("doc-0").at("attempts") == 1);
}

TEST_CASE("batch_runner: faults of every kind, every id ends with exactly one line") {
    fake_server server;
    parley::testing::fake_script script;
    script.repeat = true;
    script.steps.push_back(fake_step{});
    script.fault_mix.rate = 0.3;
    script.fault_mix.seed = 42;
    server.set_script(script);
    asio::io_context io;
    parley::chat_client client(io.get_executor(), batch_config(server, 150ms));
    parley::batch_options o;
    o.concurrency = 32;
    o.retry.initial_delay = 5ms;
    o.retry.max_delay = 20ms;
    o.retry.max_retries = 3;
    parley::batch_runner runner(io.get_executor(), o);
    parley::batch_memory_sink sink;
    const auto p = run_on(io, runner.run(inputs(400), chat_work(client), sink));
    CHECK(p.done == 400);
    const auto lines = by_id(sink.lines());
    CHECK(lines.size() == 400);
    std::size_t errors = 0;
    std::set<std::string> codes;
    for (const auto& [id, v] : lines) {
        if (v.as_object().contains("error")) {
            ++errors;
            codes.insert(std::string(v.at("error").at("code").as_string()));
            CHECK(v.at("attempts") == 4);
        } else {
            CHECK(v.at("result") == boost::json::value("text of " + id.substr(4)));
        }
    }
    CHECK(errors == p.failed);
    // 30% of the requests fault: 4 in a row are rare (0.81%), so a few inputs fail
    CHECK(errors < 20);
    CHECK(p.retries > 60);
    // (and the requests the client sent again on a fresh connection when a kept-alive one was
    // closed before the reply began, which are not retries)
    CHECK(server.request_count() >= 400 + p.retries);
}

TEST_CASE("batch_runner: one 429 with retry-after holds every worker") {
    fake_server server;
    std::vector<fake_step> steps;
    steps.push_back(fake_step::http_status(429, {{"retry-after-ms", "300"}}));
    for (int i = 0; i < 3; ++i) {
        fake_step slow;
        slow.delay = 100ms;
        steps.push_back(slow);
    }
    parley::testing::fake_script opening;
    opening.steps = steps;
    server.set_script(opening);
    for (int i = 0; i < 40; ++i) server.push(fake_step{});
    asio::io_context io;
    parley::chat_client client(io.get_executor(), batch_config(server));
    parley::batch_options o;
    o.concurrency = 4;
    parley::batch_runner runner(io.get_executor(), o);
    parley::batch_memory_sink sink;
    const auto p = run_on(io, runner.run(inputs(12), chat_work(client), sink));
    CHECK(p.done == 12);
    CHECK(p.failed == 0);
    CHECK(p.retries == 1);
    CHECK(p.governor.pauses >= 1);
    const auto log = server.requests();
    REQUIRE(log.size() == 13);
    const auto first = log[0].received;
    // the four first requests went out at once; the 429 answered the first of them at once, the
    // others 100 ms later: without the governor their workers would have sent the next inputs
    // then, 200 ms before the pause ends
    for (std::size_t i = 4; i < log.size(); ++i)
        CHECK_MESSAGE(log[i].received - first >= 295ms,
                      "request " << i << " came " << std::chrono::duration_cast<std::chrono::milliseconds>(log[i].received - first).count()
                                 << " ms after the first");
}

TEST_CASE("batch_runner: the governor keeps within a server's request limit") {
    fake_server server;
    parley::testing::fake_script script;
    script.repeat = true;
    script.steps.push_back(fake_step{});
    script.rate_limit.requests = 10;
    script.rate_limit.window = 200ms;
    script.rate_limit.retry_after = false;  // the reset fields alone
    server.set_script(script);
    asio::io_context io;
    parley::chat_client client(io.get_executor(), batch_config(server));
    parley::batch_options o;
    o.concurrency = 16;
    o.retry.max_retries = 10;
    parley::batch_runner runner(io.get_executor(), o);
    parley::batch_memory_sink sink;
    const auto started = std::chrono::steady_clock::now();
    const auto p = run_on(io, runner.run(inputs(60), chat_work(client), sink));
    const auto took = std::chrono::steady_clock::now() - started;
    CHECK(p.done == 60);
    CHECK(p.failed == 0);
    const std::size_t limited = p.retries;
    // 60 requests at 10 per 200 ms take at least five windows after the first
    CHECK(took >= 1s);
    // the first burst of 16 meets the limit (6 are refused); after that, the budgets the replies
    // report, less the requests in flight, keep the workers within it
    // (a governor that took the first reports at face value let 9 more through at once: 15)
    CHECK(limited >= 6);
    CHECK(limited <= 8);
    CHECK(p.governor.pauses >= 5);
}

TEST_CASE("governed_model reports each reply's fields to the governor") {
    fake_server server;
    parley::testing::fake_script script;
    script.repeat = true;
    script.steps.push_back(fake_step{});
    script.rate_limit.requests = 3;
    script.rate_limit.window = 5s;
    server.set_script(script);
    asio::io_context io;
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), batch_config(server));
    parley::rate_governor governor;
    parley::governed_model model(std::make_shared<parley::client_model>(client), governor);
    auto ask = [&]() -> asio::awaitable<bool> {
        parley::chat_request r;
        r.messages.push_back(parley::make_message(parley::role::user, "hi"));
        auto reply = co_await model.chat(std::move(r), nullptr);
        co_return reply.has_value();
    };
    CHECK(run_on(io, ask()));
    CHECK(governor.remaining_requests() == 2);
    CHECK(run_on(io, ask()));
    CHECK(governor.remaining_requests() == 1);
    CHECK(run_on(io, ask()));
    CHECK(governor.remaining_requests() == 0);
    // used up: no request before the window's end, about 5 s from now
    const auto now = std::chrono::steady_clock::now();
    CHECK(governor.admit(now) > now + 4s);
}
