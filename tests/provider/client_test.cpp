// Tests of parley/provider/chat_client.hpp and parley/net/http_client.hpp: the in-process
// models (echo, scripted) through the same interface as the network APIs, and the network APIs
// against the fake OpenAI/Anthropic server (parley/testing/fake_server.hpp) on loopback: wire
// formats, streaming in any chunking, keep-alive and the pool, retries, timeouts, cancellation,
// TLS, proxies, and faults.
#include <parley/provider/chat_client.hpp>

#include <parley/testing/fake_server.hpp>
#include "../harness/test_tls.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>

using namespace parley;
using namespace std::chrono_literals;
using parley::testing::fake_fault;
using parley::testing::fake_server;
using parley::testing::fake_server_options;
using parley::testing::fake_step;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool parley_test_asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool parley_test_asan = true;
#else
constexpr bool parley_test_asan = false;
#endif
#else
constexpr bool parley_test_asan = false;
#endif

#define REQUIRE_OK(r) REQUIRE_MESSAGE((r).has_value(), ((r).has_value() ? std::string() : (r).error().what()))

namespace {

namespace asio = boost::asio;

chat_request ask(std::string text, std::string model = "gpt-test") {
    chat_request r;
    r.params.model = std::move(model);
    r.messages.push_back(make_message(role::user, std::move(text)));
    return r;
}

/// Options that keep failing tests short: small retry waits and time limits.
net::client_options quick() {
    net::client_options o;
    o.retry.initial_delay = 1ms;
    o.retry.max_delay = 5ms;
    o.timeouts.connect = 5s;
    o.timeouts.idle = 5s;
    o.timeouts.total = 30s;
    return o;
}

client_config openai_config(const fake_server& s, std::string key = "sk-test-key-0123456789") {
    client_config c;
    c.api = api::openai;
    c.base_url = s.url("/v1");
    c.api_key = std::move(key);
    c.net = quick();
    return c;
}

client_config anthropic_config(const fake_server& s) {
    client_config c;
    c.api = api::anthropic;
    c.base_url = s.base_url();
    c.api_key = "sk-ant-test-key-0123456789";
    c.net = quick();
    return c;
}

/// Runs a coroutine to its end on a fresh io_context (one thread) and returns its result.
template <class T>
T run(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

struct streamed {
    std::vector<stream_event> events;
    chat_reply reply;
};

asio::awaitable<boost::system::result<streamed, call_error>> read_stream(chat_client& c, chat_request r) {
    auto s = co_await c.stream(std::move(r));
    if (!s) co_return s.error();
    streamed out;
    for (;;) {
        auto e = co_await s->next();
        if (!e) co_return e.error();
        out.events.push_back(*e);
        if (e->type == stream_event::kind::done) break;
    }
    out.reply = s->take_reply();
    co_return out;
}

std::string read_golden(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot read " << p.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("openai: a chat call sends the wire request and decodes the reply") {
    fake_server server;
    server.push(fake_step::text("Hello from the server"));
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    chat_request r = ask("Hi");
    r.params.temperature = 0.5;
    auto reply = run(io, client.chat(r));
    REQUIRE_OK(reply);
    CHECK(reply->text() == "Hello from the server");
    CHECK(reply->status == 200);
    CHECK(reply->choices.at(0).finish == finish_reason::stop);
    CHECK_FALSE(reply->headers.request_id().empty());
    const auto got = server.last_request();
    CHECK(got.method == "POST");
    CHECK(got.target == "/v1/chat/completions");
    CHECK(got.header("authorization") == "Bearer sk-test-key-0123456789");
    CHECK(got.header("content-type") == "application/json");
    CHECK(got.header("host") == server.host() + ":" + std::to_string(server.port()));
    CHECK(got.header("content-length") == std::to_string(got.body.size()));
    std::vector<std::string> names;
    for (const auto& field : got.headers) names.push_back(field.first);
    CHECK(names == std::vector<std::string>{"Host", "User-Agent", "Content-Type", "Accept", "Authorization", "Content-Length"});
    const auto body = got.json().as_object();
    CHECK(body.at("model") == "gpt-test");
    CHECK(body.at("temperature") == 0.5);
    CHECK(body.at("messages").as_array().at(0).at("content") == "Hi");
    CHECK_FALSE(body.contains("stream"));
}

TEST_CASE("openai: every recording, replayed in chunks of random sizes, assembles as the official SDK does") {
    const std::filesystem::path recordings = std::filesystem::path(PARLEY_TEST_SHARED_DIR) / "fixtures/openai-sse";
    const std::filesystem::path goldens = std::filesystem::path(PARLEY_TEST_SOURCE_DIR) / "tests/provider/openai-sse-assembled";
    REQUIRE(std::filesystem::is_directory(recordings));
    fake_server server;
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(recordings)) {
        if (entry.path().extension() != ".sse") continue;
        ++files;
        const auto expected = boost::json::parse(read_golden(goldens / (entry.path().stem().string() + ".json")));
        for (std::uint64_t seed : {1u, 2u, 3u}) {
            CAPTURE(entry.path().filename().string());
            CAPTURE(seed);
            testing::fake_chunking chunks;
            chunks.random = true;
            chunks.seed = seed;
            chunks.random_max = seed == 1 ? 16 : 4096;  // seed 1: tiny pieces, events split everywhere
            server.push(fake_step::replay_file(entry.path().string(), chunks));
            auto got = run(io, read_stream(client, ask("replay")));
            REQUIRE_OK(got);
            CHECK(openai::reply_to_json(got->reply) == expected);
            CHECK(got->events.back().type == stream_event::kind::done);
        }
    }
    CHECK(files == 12);
    // Every replay went over one kept-alive connection.
    CHECK(server.connections_accepted() == 1);
}

TEST_CASE("openai: a streamed tool call arrives in pieces; the request asks for usage") {
    fake_server server;
    auto step = fake_step::tool_calls({{"call_7", "get_weather", R"({"city":"Oslo","unit":"celsius"})"}});
    step.reply->delta_size = 3;
    step.chunking.size = 5;
    server.push(step);
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    auto got = run(io, read_stream(client, ask("weather?")));
    REQUIRE_OK(got);
    const auto& m = got->reply.message();
    REQUIRE(m.tool_calls.size() == 1);
    CHECK(m.tool_calls[0].id == "call_7");
    CHECK(m.tool_calls[0].function.name == "get_weather");
    CHECK(m.tool_calls[0].function.arguments == R"({"city":"Oslo","unit":"celsius"})");
    CHECK(got->reply.choices[0].finish == finish_reason::tool_calls);
    std::size_t deltas = 0;
    for (const auto& e : got->events) deltas += e.type == stream_event::kind::tool_call;
    CHECK(deltas > 5);
    const auto body = server.last_request().json().as_object();
    CHECK(body.at("stream") == true);
    CHECK(body.at("stream_options").at("include_usage") == true);
    CHECK(server.last_request().header("accept") == "text/event-stream");
}

TEST_CASE("anthropic: chat and stream with x-api-key and anthropic-version") {
    fake_server server;
    server.push(fake_step::text("Bonjour"));
    auto tools = fake_step::tool_calls({{"toolu_1", "lookup", R"({"q":"parley"})"}});
    tools.chunking.size = 7;
    server.push(tools);
    asio::io_context io;
    chat_client client(io.get_executor(), anthropic_config(server));
    chat_request r = ask("Salut", "claude-test");
    r.messages.insert(r.messages.begin(), make_message(role::system, "Answer in French."));
    auto reply = run(io, client.chat(r));
    REQUIRE_OK(reply);
    CHECK(reply->text() == "Bonjour");
    auto got = server.last_request();
    CHECK(got.target == "/v1/messages");
    CHECK(got.header("x-api-key") == "sk-ant-test-key-0123456789");
    CHECK(got.header("anthropic-version") == anthropic::api_version);
    CHECK_FALSE(got.has_header("authorization"));
    CHECK(got.json().at("system") == "Answer in French.");

    auto s = run(io, read_stream(client, r));
    REQUIRE_OK(s);
    REQUIRE(s->reply.message().tool_calls.size() == 1);
    CHECK(s->reply.message().tool_calls[0].function.name == "lookup");
    CHECK(boost::json::parse(s->reply.message().tool_calls[0].function.arguments) == boost::json::parse(R"({"q":"parley"})"));
    CHECK(s->reply.choices[0].finish == finish_reason::tool_calls);
    CHECK(s->reply.choices[0].finish_text == "tool_use");
}

TEST_CASE("openai: embeddings") {
    fake_server server;
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    openai::embedding_request e;
    e.model = "text-embedding-test";
    e.input = {"one", "two"};
    e.dimensions = 8;
    auto reply = run(io, client.embed(e));
    REQUIRE_OK(reply);
    REQUIRE(reply->data.size() == 2);
    CHECK(reply->data[0].size() == 8);
    CHECK(server.last_request().target == "/v1/embeddings");
}

TEST_CASE("keep-alive: sequential calls share one connection") {
    fake_server server;
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    for (int i = 0; i < 5; ++i) {
        auto reply = run(io, client.chat(ask("call " + std::to_string(i))));
        REQUIRE_OK(reply);
        CHECK(reply->text() == "call " + std::to_string(i));
    }
    CHECK(server.connections_accepted() == 1);
    CHECK(client.http().counters().opened == 1);
    CHECK(client.http().counters().reused == 4);
    CHECK(client.http().counters().idle == 1);
}

TEST_CASE("keep-alive: without a proxy, calls to two servers in turn each keep their own connection") {
    fake_server first;
    fake_server second;
    asio::io_context io;
    auto options = quick();
    options.proxy.how = net::proxy_options::mode::none;  // the pool's key is then kept per target
    net::http_client http(io.get_executor(), options);
    for (int i = 0; i < 6; ++i) {
        fake_server& s = i % 2 == 0 ? first : second;
        const std::string text = i % 2 == 0 ? "first" : "second";
        s.push(fake_step::text(text));
        net::http_request req;
        req.target = net::parse_url(s.url("/v1/chat/completions"));
        req.headers.add("Content-Type", "application/json");
        req.body = R"({"model":"m","messages":[{"role":"user","content":"x"}]})";
        auto r = run(io, http.send(req));
        REQUIRE_OK(r);
        CHECK(r->body.find(text) != std::string::npos);
        CHECK(s.request_count() == static_cast<std::size_t>(i / 2 + 1));
    }
    CHECK(first.connections_accepted() == 1);
    CHECK(second.connections_accepted() == 1);
    CHECK(http.counters().opened == 2);
    CHECK(http.counters().reused == 4);
    CHECK(http.counters().idle == 2);
}

TEST_CASE("pool: a connection the server closed while idle is replaced without a retry") {
    fake_server server;
    server.push(fake_step::with_fault(fake_fault::close_idle));
    server.push(fake_step::text("second"));
    asio::io_context io;
    auto config = openai_config(server);
    config.net.retry.max_retries = 0;  // the replacement must not need a retry
    chat_client client(io.get_executor(), config);
    auto first = run(io, client.chat(ask("first")));
    REQUIRE_OK(first);
    auto second = run(io, client.chat(ask("again")));
    REQUIRE_OK(second);
    CHECK(second->text() == "second");
    CHECK(server.connections_accepted() == 2);
    CHECK(server.request_count() == 2);
    const auto counters = client.http().counters();
    CHECK(counters.opened == 2);
    CHECK(counters.discarded_idle == 1);
    CHECK(counters.reused == 0);  // the dead connection served nothing
    CHECK(counters.idle == 1);
}

namespace {

/// The error of one chat call made with `config`; the test fails when the call succeeds.
call_error failed_chat(asio::io_context& io, const client_config& config, std::string text = "x") {
    chat_client client(io.get_executor(), config);
    auto r = run(io, client.chat(ask(std::move(text))));
    REQUIRE_FALSE(r.has_value());
    return r.error();
}

/// The error of one HTTP request; the test fails when it succeeds.
call_error failed_send(asio::io_context& io, net::http_client& http, const net::http_request& request) {
    auto r = run(io, http.send(request));
    REQUIRE_FALSE(r.has_value());
    return r.error();
}

}  // namespace

TEST_CASE("requests: a header field, method or path that could smuggle a second request is refused, nothing sent") {
    fake_server server;
    asio::io_context io;
    auto injected = openai_config(server);
    injected.headers.add("X-Trace", "a\r\nX-Injected: 1");
    const auto e = failed_chat(io, injected);
    CHECK(e.code == errc::invalid_argument);
    CHECK(e.message.find("X-Trace") != std::string::npos);

    auto named = openai_config(server);
    named.headers.add("Bad Name", "v");
    CHECK(failed_chat(io, named).code == errc::invalid_argument);

    net::http_client http(io.get_executor(), quick());
    net::http_request req;
    req.method = "GET /x HTTP/1.1\r\n";
    req.target = net::parse_url(server.url("/v1/models"));
    CHECK(failed_send(io, http, req).code == errc::invalid_argument);
    req.method = "GET";
    req.target.path = "/v1/models\r\nX: y";
    CHECK(failed_send(io, http, req).code == errc::invalid_argument);
    CHECK(server.request_count() == 0);
}

TEST_CASE("requests: a client checks each set of common fields once, and every request carries its own fields") {
    fake_server server;
    asio::io_context io;
    net::http_client http(io.get_executor(), quick());
    auto set_of = [](std::string value) {
        auto h = std::make_shared<http_headers>();
        h->add("Content-Type", "application/json");
        h->add("X-Set", std::move(value));
        return std::shared_ptr<const http_headers>(std::move(h));
    };
    // three sets taken in turn, more than a client keeps checked
    const std::vector<std::shared_ptr<const http_headers>> sets{set_of("one"), set_of("two"), set_of("three")};
    for (int i = 0; i < 7; ++i) {
        server.push(fake_step::text("ok"));
        net::http_request req;
        req.target = net::parse_url(server.url("/v1/chat/completions"));
        req.common = sets[static_cast<std::size_t>(i) % sets.size()];
        req.headers.add("X-Call", std::to_string(i));
        req.body = R"({"model":"m","messages":[{"role":"user","content":"x"}]})";
        auto r = run(io, http.send(req));
        REQUIRE_OK(r);
        const auto got = server.last_request();
        CHECK(got.header("x-set") == sets[static_cast<std::size_t>(i) % sets.size()]->get("X-Set"));
        CHECK(got.header("x-call") == std::to_string(i));
        std::vector<std::string> names;
        for (const auto& field : got.headers) names.push_back(field.first);
        CHECK(names == std::vector<std::string>{"Host", "User-Agent", "Content-Type", "X-Set", "X-Call", "Content-Length"});
    }
    const std::size_t sent = server.request_count();

    // a set that does not pass is refused at every request, and a request's own fields are
    // checked even when its common set was checked before
    auto bad = std::make_shared<http_headers>();
    bad->add("X-Trace", "a\r\nX-Injected: 1");
    net::http_request req;
    req.target = net::parse_url(server.url("/v1/chat/completions"));
    req.common = bad;
    for (int i = 0; i < 2; ++i) {
        const auto e = failed_send(io, http, req);
        CHECK(e.code == errc::invalid_argument);
        CHECK(e.message.find("the value of header field X-Trace holds CR, LF or NUL") != std::string::npos);
    }
    req.common = sets[0];
    req.headers.add("Bad Name", "v");
    CHECK(failed_send(io, http, req).message.find("the header field name 'Bad Name' is not an HTTP token") !=
          std::string::npos);

    auto injected = openai_config(server);
    injected.headers.add("X-Trace", "a\r\nX-Injected: 1");
    chat_client client(io.get_executor(), injected);
    for (int i = 0; i < 2; ++i) {
        auto r = run(io, client.chat(ask("x")));
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == errc::invalid_argument);
    }
    CHECK(server.request_count() == sent);
}

TEST_CASE("limits: a body over max_body_bytes and a header over max_header_bytes are errc::protocol") {
    fake_server server;
    asio::io_context io;
    auto config = openai_config(server);
    config.net.limits.max_body_bytes = 100;  // the reply's JSON is longer
    config.net.retry.max_retries = 0;
    const auto e = failed_chat(io, config, "a reply longer than one hundred bytes once it is wrapped in its JSON object");
    CHECK(e.code == errc::protocol);
    CHECK(e.message.find("larger than the limit of 100 bytes") != std::string::npos);

    auto small_header = openai_config(server);
    small_header.net.limits.max_header_bytes = 40;  // the status line and fields are longer
    small_header.net.retry.max_retries = 0;
    CHECK(failed_chat(io, small_header).code == errc::protocol);

    // A streamed body has no total limit: the same small max_body_bytes does not stop it.
    chat_client client(io.get_executor(), config);
    auto s = run(io, read_stream(client, ask("a streamed reply longer than one hundred bytes, delivered as events")));
    REQUIRE_OK(s);
    CHECK(s->reply.text() == "a streamed reply longer than one hundred bytes, delivered as events");
}

TEST_CASE("pool: at most max_connections_per_host connections; the other calls wait their turn") {
    fake_server server;
    asio::io_context io;
    auto config = openai_config(server);
    config.net.max_connections_per_host = 3;
    chat_client client(io.get_executor(), config);
    std::vector<std::future<boost::system::result<chat_reply, call_error>>> calls;
    for (int i = 0; i < 20; ++i) calls.push_back(client.async_chat(ask("n" + std::to_string(i)), asio::use_future));
    io.run();
    for (int i = 0; i < 20; ++i) {
        auto r = calls[i].get();
        REQUIRE_OK(r);
        CHECK(r->text() == "n" + std::to_string(i));
    }
    CHECK(server.connections_accepted() <= 3);
    CHECK(client.http().counters().waiting == 0);
}

TEST_CASE("retries: 429 with retry-after, then success; x-should-retry: false is final") {
    fake_server server;
    server.push(fake_step::http_status(429, {{"retry-after", "0"}}));
    server.push(fake_step::http_status(503));
    server.push(fake_step::text("finally"));
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    auto reply = run(io, client.chat(ask("x")));
    REQUIRE_OK(reply);
    CHECK(reply->text() == "finally");
    CHECK(server.request_count() == 3);

    server.push(fake_step::http_status(429, {{"x-should-retry", "false"}},
                                       R"({"error":{"type":"rate_limit_error","message":"slow down","param":null,"code":"rate_limit_exceeded"}})"));
    auto refused = run(io, client.chat(ask("y")));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == errc::api_error);
    CHECK(refused.error().status == 429);
    CHECK(refused.error().type == "rate_limit_error");
    CHECK(refused.error().api_code == "rate_limit_exceeded");
    CHECK(refused.error().message == "slow down");
    CHECK(refused.error().attempts == 1);
    CHECK(refused.error().headers.get("x-should-retry") == "false");
    CHECK(server.request_count() == 4);
}

TEST_CASE("retries: a successful reply is never retried, whatever x-should-retry says") {
    fake_server server;
    auto once = fake_step::text("only once");
    once.headers = {{"x-should-retry", "true"}};
    server.push(once);
    server.push(fake_step::text("a second answer"));
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    auto reply = run(io, client.chat(ask("x")));
    REQUIRE_OK(reply);
    CHECK(reply->text() == "only once");
    CHECK(server.request_count() == 1);
}

TEST_CASE("retries: the policy's count is the limit; 400 is never retried") {
    fake_server server;
    for (int i = 0; i < 4; ++i) server.push(fake_step::http_status(500));
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    auto failed = run(io, client.chat(ask("x")));
    REQUIRE_FALSE(failed.has_value());
    CHECK(failed.error().status == 500);
    CHECK(failed.error().attempts == 3);
    CHECK(server.request_count() == 3);

    server.set_script({});
    server.push(fake_step::http_status(400));
    auto bad = run(io, client.chat(ask("x")));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().status == 400);
    CHECK(bad.error().attempts == 1);
    CHECK(server.request_count() == 4);
}

TEST_CASE("retries: a connection dropped before the reply is retried") {
    fake_server server;
    server.push(fake_step::with_fault(fake_fault::disconnect, 0));
    server.push(fake_step::text("after the drop"));
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    auto reply = run(io, client.chat(ask("x")));
    REQUIRE_OK(reply);
    CHECK(reply->text() == "after the drop");
}

TEST_CASE("streams: never retried once the first byte reached the caller") {
    fake_server server;
    auto cut = fake_step::text("a long answer that will be cut in the middle of the stream");
    cut.fault = fake_fault::disconnect;
    cut.after_bytes = 300;
    server.push(cut);
    server.push(fake_step::text("must not be used"));
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    auto got = run(io, read_stream(client, ask("x")));
    REQUIRE_FALSE(got.has_value());
    CHECK(got.error().code != std::error_code());
    CHECK(server.request_count() == 1);
    CHECK(server.pending_steps() == 1);
    CHECK(client.http().counters().open == 0);
}

TEST_CASE("timeouts: slow headers and a stalled stream end with errc::timeout") {
    fake_server server;
    asio::io_context io;
    auto config = openai_config(server);
    config.net.timeouts.idle = 200ms;
    config.net.retry.max_retries = 0;
    chat_client client(io.get_executor(), config);

    auto slow = fake_step::with_fault(fake_fault::slow_headers);
    slow.delay = 3s;
    server.push(slow);
    auto r = run(io, client.chat(ask("x")));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::timeout);

    auto stall = fake_step::text("this stream stalls after a few bytes");
    stall.fault = fake_fault::stall;
    stall.after_bytes = 120;
    server.push(stall);
    auto s = run(io, read_stream(client, ask("x")));
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code == errc::timeout);
    CHECK(client.http().counters().open <= 1);
}

TEST_CASE("timeouts: the idle limit ends a call on a kept-alive connection whose wait the call before armed") {
    fake_server server;
    asio::io_context io;
    auto config = openai_config(server);
    config.net.timeouts.idle = 300ms;
    config.net.retry.max_retries = 0;
    chat_client client(io.get_executor(), config);
    auto slow = fake_step::with_fault(fake_fault::slow_headers);
    slow.delay = 3s;
    server.push({fake_step::text("first"), slow});
    struct outcome {
        boost::system::result<chat_reply, call_error> first, second;
        std::chrono::steady_clock::duration second_took{};
    };
    // Two calls in one handler's run: the second takes the connection before the first's wait
    // is cancelled, and keeps it (its own deadline is later).
    auto both = [&]() -> asio::awaitable<outcome> {
        outcome o{call_error{}, call_error{}};
        o.first = co_await client.chat(ask("x"));
        const auto start = std::chrono::steady_clock::now();
        o.second = co_await client.chat(ask("y"));
        o.second_took = std::chrono::steady_clock::now() - start;
        co_return o;
    };
    const auto o = run(io, both());
    REQUIRE_OK(o.first);
    CHECK(o.first->text() == "first");
    REQUIRE_FALSE(o.second.has_value());
    CHECK(o.second.error().code == errc::timeout);
    CHECK(o.second_took >= 300ms);
    CHECK(o.second_took < 2500ms);  // not the server's 3 s
    CHECK(client.http().counters().reused == 1);
}

TEST_CASE("timeouts: the total limit bounds a call whose server keeps it waiting") {
    fake_server server;
    asio::io_context io;
    auto config = openai_config(server);
    config.net.timeouts.idle = 10s;
    config.net.timeouts.total = 300ms;
    chat_client client(io.get_executor(), config);
    auto slow = fake_step::with_fault(fake_fault::slow_headers);
    slow.delay = 5s;
    server.push(slow);
    auto r = run(io, client.chat(ask("x")));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::timeout);
}

TEST_CASE("faults: malformed JSON, an error event, a wrong Content-Type") {
    fake_server server;
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));

    auto bad_body = fake_step::with_fault(fake_fault::malformed_json);
    bad_body.variant = "body";
    server.push(bad_body);
    auto a = run(io, client.chat(ask("x")));
    REQUIRE_FALSE(a.has_value());
    CHECK(a.error().code == errc::protocol);

    auto bad_event = fake_step::with_fault(fake_fault::malformed_json);
    bad_event.variant = "event";
    server.push(bad_event);
    auto b = run(io, read_stream(client, ask("x")));
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().code == errc::protocol);

    auto error_event = fake_step::text("some text before the error");
    error_event.fault = fake_fault::error_event;
    error_event.after_events = 2;
    error_event.error = {"server_error", "The model crashed"};
    server.push(error_event);
    auto c = run(io, read_stream(client, ask("x")));
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().code == errc::api_error);
    CHECK(c.error().message == "The model crashed");

    server.push(fake_step::with_fault(fake_fault::wrong_content_type));
    auto d = run(io, client.chat(ask("x")));
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error().code == errc::protocol);
    CHECK(d.error().message.find("text/html") != std::string::npos);

    server.push(fake_step::with_fault(fake_fault::wrong_content_type));
    auto e = run(io, read_stream(client, ask("x")));
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().code == errc::protocol);
}

TEST_CASE("cancellation: a cancelled stream ends with operation_aborted and releases its connection") {
    fake_server server;
    auto stall = fake_step::text("this stream never finishes");
    stall.fault = fake_fault::stall;
    stall.after_bytes = 100;
    server.push(stall);
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server));
    asio::cancellation_signal cancel;
    std::optional<boost::system::result<streamed, call_error>> outcome;
    asio::co_spawn(io, read_stream(client, ask("x")),
                   asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr ex, boost::system::result<streamed, call_error> r) {
                       CHECK_FALSE(ex);
                       outcome = std::move(r);
                   }));
    asio::steady_timer later(io, 200ms);
    later.async_wait([&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
    io.run();
    REQUIRE(outcome.has_value());
    REQUIRE_FALSE(outcome->has_value());
    CHECK(outcome->error().code == std::errc::operation_canceled);
    CHECK(client.http().counters().open == 0);
    // The client is still usable.
    auto after = run(io, client.chat(ask("still here")));
    REQUIRE_OK(after);
    CHECK(after->text() == "still here");
}

TEST_CASE("TLS: verified against a CA made for the test; a wrong host name or an unknown CA fails") {
    const auto certs = test::make_test_certificates({"DNS:localhost"});
    fake_server_options options;
    options.tls_certificate_chain_pem = certs.server_chain_pem();
    options.tls_private_key_pem = certs.server_private_key_pem;
    fake_server server(options);
    asio::io_context io;

    auto config = openai_config(server);
    config.base_url = "https://localhost:" + std::to_string(server.port()) + "/v1";
    config.net.retry.max_retries = 0;
    config.net.tls.ca_pem = certs.ca_certificate_pem;
    chat_client trusted(io.get_executor(), config);
    auto ok = run(io, trusted.chat(ask("over TLS")));
    REQUIRE_OK(ok);
    CHECK(ok->text() == "over TLS");
    CHECK(server.last_request().tls);

    // The same CA from a file.
    test::temp_file ca_file(certs.ca_certificate_pem);
    auto from_file = config;
    from_file.net.tls.ca_pem.clear();
    from_file.net.tls.ca_file = ca_file.path().string();
    chat_client trusted_file(io.get_executor(), from_file);
    auto ok2 = run(io, trusted_file.chat(ask("again")));
    REQUIRE_OK(ok2);

    // 127.0.0.1 is not a name of the certificate.
    auto wrong_host = config;
    wrong_host.base_url = "https://127.0.0.1:" + std::to_string(server.port()) + "/v1";
    chat_client mismatched(io.get_executor(), wrong_host);
    auto bad = run(io, mismatched.chat(ask("x")));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code == errc::tls_verification);
    CHECK(bad.error().message.find("127.0.0.1") != std::string::npos);

    // Without the test CA, the system store does not know the server.
    auto unknown = config;
    unknown.net.tls.ca_pem.clear();
    chat_client untrusted(io.get_executor(), unknown);
    auto bad2 = run(io, untrusted.chat(ask("x")));
    REQUIRE_FALSE(bad2.has_value());
    CHECK(bad2.error().code == errc::tls_verification);

    // Only the loudly named switch turns verification off.
    auto reckless = wrong_host;
    reckless.net.tls.ca_pem.clear();
    reckless.net.tls.danger_accept_invalid_certificates();
    chat_client unverified(io.get_executor(), reckless);
    auto ok3 = run(io, unverified.chat(ask("unverified")));
    REQUIRE_OK(ok3);

    // A CA file that does not exist is named in the error.
    auto missing = config;
    missing.net.tls.ca_file = "/nonexistent/ca.pem";
    CHECK_THROWS_WITH_AS(chat_client(io.get_executor(), missing), doctest::Contains("/nonexistent/ca.pem"), parley::error);
}

TEST_CASE("proxies: CONNECT tunnels, with and without credentials, TLS inside the tunnel") {
    const auto certs = test::make_test_certificates({"DNS:localhost"});
    fake_server_options options;
    options.tls_certificate_chain_pem = certs.server_chain_pem();
    options.tls_private_key_pem = certs.server_private_key_pem;
    options.proxy = true;
    options.proxy_authorization = "Basic dXNlcjpwQHNz";  // user:p@ss
    fake_server server(options);
    asio::io_context io;

    auto config = openai_config(server);
    config.base_url = "https://localhost:" + std::to_string(server.port()) + "/v1";
    config.net.tls.ca_pem = certs.ca_certificate_pem;
    config.net.retry.max_retries = 0;
    config.net.proxy.how = net::proxy_options::mode::fixed;
    config.net.proxy.url = net::parse_url("http://user:p%40ss@127.0.0.1:" + std::to_string(server.port()));
    chat_client client(io.get_executor(), config);
    auto ok = run(io, client.chat(ask("through the proxy")));
    REQUIRE_OK(ok);
    CHECK(ok->text() == "through the proxy");
    const auto tunnels = server.connect_requests();
    REQUIRE(tunnels.size() == 1);
    CHECK(tunnels[0].target == "localhost:" + std::to_string(server.port()));
    CHECK(tunnels[0].header("proxy-authorization") == "Basic dXNlcjpwQHNz");

    auto no_credentials = config;
    no_credentials.net.proxy.url = net::parse_url("http://127.0.0.1:" + std::to_string(server.port()));
    chat_client refused(io.get_executor(), no_credentials);
    auto bad = run(io, refused.chat(ask("x")));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().status == 407);
    CHECK(bad.error().message.find("CONNECT") != std::string::npos);
    CHECK(bad.error().message.find("p@ss") == std::string::npos);
}

TEST_CASE("proxies: HTTP_PROXY from the environment, and NO_PROXY exempting a host") {
    fake_server_options options;
    options.proxy = true;
    fake_server server(options);
    const std::string port = std::to_string(server.port());
    // The process environment is what a user sets; every variable is put back at the end.
    struct saved_variable {
        std::string name;
        std::optional<std::string> value;
        explicit saved_variable(std::string n) : name(std::move(n)) {
            if (const char* v = std::getenv(name.c_str())) value = v;
            ::unsetenv(name.c_str());
        }
        ~saved_variable() {
            if (value) ::setenv(name.c_str(), value->c_str(), 1);
            else ::unsetenv(name.c_str());
        }
    };
    std::vector<std::unique_ptr<saved_variable>> saved;
    for (const char* name : {"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy",
                             "NO_PROXY", "no_proxy", "REQUEST_METHOD"})
        saved.push_back(std::make_unique<saved_variable>(name));
    ::setenv("http_proxy", ("http://127.0.0.1:" + port).c_str(), 1);

    asio::io_context io;
    auto config = openai_config(server);
    config.base_url = "http://localhost:" + port + "/v1";  // not 127.0.0.1: NO_PROXY names it below
    chat_client client(io.get_executor(), config);
    auto through = run(io, client.chat(ask("via the proxy")));
    REQUIRE_OK(through);
    CHECK(through->text() == "via the proxy");
    REQUIRE(server.connect_requests().size() == 1);
    CHECK(server.connect_requests()[0].target == "localhost:" + port);

    ::setenv("no_proxy", "example.com,localhost", 1);
    chat_client direct(io.get_executor(), config);
    auto around = run(io, direct.chat(ask("direct")));
    REQUIRE_OK(around);
    CHECK(around->text() == "direct");
    CHECK(server.connect_requests().size() == 1);

    // An unusable proxy setting is the call's error, not an exception.
    ::unsetenv("no_proxy");
    ::setenv("http_proxy", "socks5://127.0.0.1:1080", 1);
    chat_client misconfigured(io.get_executor(), config);
    auto refused = run(io, misconfigured.chat(ask("x")));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == errc::invalid_argument);
    CHECK(refused.error().message.find("socks5") != std::string::npos);

    // proxy_options::mode::none ignores the environment.
    auto none = config;
    none.net.proxy.how = net::proxy_options::mode::none;
    chat_client never(io.get_executor(), none);
    auto plain = run(io, never.chat(ask("no proxy")));
    REQUIRE_OK(plain);
    CHECK(server.connect_requests().size() == 1);
}

TEST_CASE("API keys never appear in errors, even when the server quotes them") {
    fake_server server;
    // Not shaped like an OpenAI key, so that the client's own redaction is what hides it.
    const std::string key = "private-token-abcdefghijklmnop";
    server.push(fake_step::http_status(
        401, {}, R"({"error":{"type":"invalid_request_error","message":"Incorrect API key provided: private-token-abcdefghijklmnop.","param":"private-token-abcdefghijklmnop","code":"invalid_api_key"}})"));
    asio::io_context io;
    chat_client client(io.get_executor(), openai_config(server, key));
    auto r = run(io, client.chat(ask("x")));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().status == 401);
    const std::string all = r.error().what() + r.error().message + r.error().param + r.error().type;
    CHECK(all.find(key) == std::string::npos);
    CHECK(r.error().message.find("***") != std::string::npos);
    try {
        (void)r.value();
        FAIL("value() must throw");
    } catch (const call_exception& e) {
        CHECK(std::string(e.what()).find(key) == std::string::npos);
    }
    // Connection failures do not name it either.
    auto config = openai_config(server, key);
    config.base_url = "http://127.0.0.1:1/v1";
    config.net.retry.max_retries = 0;
    chat_client nowhere(io.get_executor(), config);
    auto refused = run(io, nowhere.chat(ask("x")));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().what().find(key) == std::string::npos);
}

TEST_CASE("1000 concurrent streamed chats on one thread, each assembled correctly") {
    // Each call holds a connection; the client and the server side need 2000 descriptors.
    rlimit limit{};
    REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0);
    if (limit.rlim_cur < 4096 && limit.rlim_max >= 4096) {
        limit.rlim_cur = 4096;
        REQUIRE(setrlimit(RLIMIT_NOFILE, &limit) == 0);
    }
    fake_server_options options;
    options.threads = 2;
    options.record = false;
    fake_server server(options);
    asio::io_context io;
    auto config = openai_config(server);
    config.net.max_connections_per_host = limit.rlim_cur >= 4096 ? 1000 : 256;
    chat_client client(io.get_executor(), config);
    constexpr int calls = 1000;
    std::vector<std::optional<boost::system::result<streamed, call_error>>> results(calls);
    for (int i = 0; i < calls; ++i)
        asio::co_spawn(io, read_stream(client, ask("conversation number " + std::to_string(i))),
                       [&results, i](std::exception_ptr ex, boost::system::result<streamed, call_error> r) {
                           if (!ex) results[i] = std::move(r);
                       });
    io.run();
    int correct = 0;
    for (int i = 0; i < calls; ++i)
        if (results[i] && results[i]->has_value() &&
            (*results[i])->reply.text() == "conversation number " + std::to_string(i))
            ++correct;
    CHECK(correct == calls);
    CHECK(server.request_count() == calls);
}

TEST_CASE("10000 streamed chats on one thread with 5% of the requests faulty: each ends right, none hangs, nothing leaks") {
    // Faults, in the order the server takes its steps, and the error each must end in (retries
    // are off, so each request takes exactly one step and a fault always reaches its caller).
    struct fault_kind {
        const char* name;
        std::error_code expected;
        fake_step step;
    };
    std::vector<fault_kind> kinds;
    {
        auto cut = fake_step::text("a streamed answer cut by the server in the middle of its events");
        cut.fault = fake_fault::disconnect;
        cut.after_bytes = 200;
        kinds.push_back({"disconnect mid-stream", errc::protocol, cut});
        auto bad_event = fake_step::with_fault(fake_fault::malformed_json);
        bad_event.variant = "event";
        kinds.push_back({"malformed event", errc::protocol, bad_event});
        auto error_event = fake_step::text("text before the error event");
        error_event.fault = fake_fault::error_event;
        error_event.after_events = 2;
        error_event.error = {"server_error", "The model crashed"};
        kinds.push_back({"error event", errc::api_error, error_event});
        kinds.push_back({"status 500", errc::api_error, fake_step::http_status(500)});
        kinds.push_back({"status 503 with an HTML body", errc::http_status,
                         fake_step::http_status(503, {{"Content-Type", "text/html"}}, "<html>busy</html>")});
        kinds.push_back({"wrong content type", errc::protocol, fake_step::with_fault(fake_fault::wrong_content_type)});
        auto stall = fake_step::text("a stream that stalls");
        stall.fault = fake_fault::stall;
        stall.after_bytes = 150;
        kinds.push_back({"stalled stream", errc::timeout, stall});
    }

    constexpr int chats = 10'000;
    constexpr int workers = 100;  // chats in flight at once
    fake_server_options options;
    options.record = false;
    fake_server server(options);
    std::mt19937 random(20261122);
    std::map<std::error_code, int> expected_errors;
    int faults = 0;
    for (int i = 0; i < chats; ++i) {
        if (random() % 100 < 5) {
            const fault_kind& k = kinds[random() % kinds.size()];
            server.push(k.step);
            ++expected_errors[k.expected];
            ++faults;
        } else {
            server.push(fake_step{});  // the default reply: the last user text, streamed back
        }
    }
    REQUIRE(faults > chats / 40);  // about 500

    asio::io_context io;
    auto config = openai_config(server);
    config.net.retry.max_retries = 0;
    config.net.timeouts.idle = 1500ms;  // the stalled streams end after this long
    chat_client client(io.get_executor(), config);

    std::map<std::error_code, int> errors;
    int correct = 0, wrong = 0, finished = 0;
    auto worker = [&](int first) -> asio::awaitable<void> {
        for (int i = first; i < chats; i += workers) {
            const std::string text = "chat number " + std::to_string(i);
            auto got = co_await read_stream(client, ask(text));
            ++finished;
            if (!got) ++errors[got.error().code];
            else if (got->reply.text() == text && got->events.back().type == stream_event::kind::done) ++correct;
            else ++wrong;
        }
    };
    auto memory_kb = [] {
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        return usage.ru_maxrss;
    };
    for (int w = 0; w < workers; ++w) asio::co_spawn(io, worker(w), asio::detached);
    // The first half, then the second: memory must not grow with the number of chats.
    while (finished < chats / 2 && io.run_one() > 0) {
    }
    const long half_kb = memory_kb();
    io.run();
    const long end_kb = memory_kb();

    CHECK(finished == chats);  // none hangs: every chat ended
    CHECK(wrong == 0);
    CHECK(correct == chats - faults);
    auto listed = [](const std::map<std::error_code, int>& m) {
        std::string out;
        for (const auto& [code, n] : m) out += code.message() + ": " + std::to_string(n) + "; ";
        return out;
    };
    CHECK_MESSAGE(errors == expected_errors, "errors " << listed(errors) << "expected " << listed(expected_errors));
    CHECK(server.pending_steps() == 0);
    CHECK(server.request_count() == static_cast<std::size_t>(chats));
    // No connection leaks: nothing in use, every connection the client opened was accepted by
    // the server, and at most one per worker was open at once.
    const auto counters = client.http().counters();
    CHECK(counters.open == counters.idle);
    CHECK(counters.waiting == 0);
    CHECK(counters.open <= static_cast<std::size_t>(workers));
    CHECK(server.connections_accepted() == counters.opened);
    MESSAGE("connections opened " << counters.opened << ", reused " << counters.reused << "; max RSS "
                                  << half_kb / 1024 << " MiB at half, " << end_kb / 1024 << " MiB at the end");
    // (Under AddressSanitizer, freed memory is held in its quarantine, and LeakSanitizer checks
    // for leaks at exit instead.)
    if (!parley_test_asan) CHECK(end_kb - half_kb < 32 * 1024);
}

// ---- in-process models ----

namespace {

chat_request ask_briefly(std::string text) {
    chat_request r;
    r.params.model = "test-model";
    r.messages.push_back(make_message(role::system, "Be brief."));
    r.messages.push_back(make_message(role::user, std::move(text)));
    return r;
}

/// Reads a whole stream; returns the events.
std::vector<stream_event> read_blocking(blocking_client& c, chat_request r, chat_reply& assembled) {
    std::vector<stream_event> events;
    auto reply = c.stream(std::move(r), [&](const stream_event& e) { events.push_back(e); });
    REQUIRE_OK(reply);
    assembled = *reply;
    return events;
}

}  // namespace

TEST_CASE("echo: the reply is the last user message; the request is recorded") {
    client_config config;
    config.api = api::echo;
    auto model = config.echo;
    blocking_client client(config);
    auto reply = client.chat(ask_briefly("Hello there"));
    REQUIRE_OK(reply);
    CHECK(reply->text() == "Hello there");
    CHECK(reply->model == "test-model");
    CHECK(reply->choices.at(0).finish == finish_reason::stop);
    REQUIRE(model->requests().size() == 1);
    CHECK(model->requests()[0].messages.size() == 2);
    CHECK(model->requests()[0].messages[0].text() == "Be brief.");
}

TEST_CASE("echo: defaults of the configuration sit under the request's parameters") {
    client_config config;
    config.api = api::echo;
    config.defaults.model = "default-model";
    config.defaults.temperature = 0.5;
    auto model = config.echo;
    blocking_client client(config);
    chat_request r = ask_briefly("x");
    r.params.model.reset();
    r.params.temperature = 0.1;
    auto res = client.chat(r);
    REQUIRE_OK(res);
    const auto seen = model->requests().at(0).params;
    CHECK(seen.model == "default-model");
    CHECK(seen.temperature == 0.1);
}

TEST_CASE("scripted: replies, tool calls and errors in order; then 'no reply left'") {
    client_config config;
    config.api = api::scripted;
    config.script->push_text("first");
    config.script->push(tool_call_reply({{"call_1", {"get_weather", R"({"city":"Oslo"})"}}}));
    call_error overloaded;
    overloaded.code = make_error_code(errc::api_error);
    overloaded.status = 529;
    overloaded.type = "overloaded_error";
    overloaded.message = "Overloaded";
    config.script->push(overloaded);
    blocking_client client(config);

    auto a = client.chat(ask_briefly("1"));
    REQUIRE_OK(a);
    CHECK(a->text() == "first");
    auto b = client.chat(ask_briefly("2"));
    REQUIRE_OK(b);
    REQUIRE(b->message().tool_calls.size() == 1);
    CHECK(b->message().tool_calls[0].function.name == "get_weather");
    CHECK(b->choices[0].finish == finish_reason::tool_calls);
    auto c = client.chat(ask_briefly("3"));
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().code == errc::api_error);
    CHECK(c.error().status == 529);
    CHECK_THROWS_AS((void)c.value(), call_exception);
    auto d = client.chat(ask_briefly("4"));
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error().code == errc::invalid_argument);
    CHECK(d.error().message.find("no reply left") != std::string::npos);
    CHECK(config.script->requests().size() == 4);
}

TEST_CASE("in-process streams: events rebuild the reply they came from") {
    client_config config;
    config.api = api::scripted;
    chat_reply two;
    two.choices.resize(2);
    two.choices[0].index = 0;
    two.choices[0].message = make_message(role::assistant, "Grüße aus Oslo, mit einer langen Antwort über das Wetter.");
    two.choices[0].finish = finish_reason::stop;
    two.choices[1].index = 1;
    two.choices[1].message.role = role::assistant;
    two.choices[1].message.tool_calls = {{"c1", {"a", R"({"x":1,"y":"zzzzzzzzzzzzzzzzzzzzzzzzzzzz"})"}}, {"c2", {"b", "{}"}}};
    two.choices[1].finish = finish_reason::tool_calls;
    two.usage = token_usage{3, 4, 7, {}};
    config.script->push(two);
    blocking_client client(config);
    chat_reply assembled;
    const auto events = read_blocking(client, ask_briefly("go"), assembled);
    CHECK(assembled.choices == two.choices);
    CHECK(assembled.usage == two.usage);

    // The events alone, concatenated per choice and tool call, give the same texts.
    std::map<std::size_t, std::string> text;
    std::map<std::pair<std::size_t, std::size_t>, std::string> args, names;
    std::size_t finishes = 0;
    for (const auto& e : events) {
        if (e.type == stream_event::kind::text) {
            CHECK(e.text.size() <= 16);
            text[e.choice] += e.text;
        }
        if (e.type == stream_event::kind::tool_call) {
            args[{e.choice, e.tool_index}] += e.text;
            names[{e.choice, e.tool_index}] += e.name;
        }
        if (e.type == stream_event::kind::finish) ++finishes;
    }
    CHECK(text[0] == two.choices[0].message.text());
    CHECK(args[{1, 0}] == two.choices[1].message.tool_calls[0].function.arguments);
    CHECK(args[{1, 1}] == "{}");
    CHECK(names[{1, 1}] == "b");
    CHECK(finishes == 2);
    CHECK(events.back().type == stream_event::kind::done);
    CHECK(events[events.size() - 2].type == stream_event::kind::usage);
}

TEST_CASE("events_of never cuts a UTF-8 character") {
    const chat_reply r = text_reply("ééééé€€€");
    for (std::size_t piece = 1; piece < 6; ++piece)
        for (const auto& e : events_of(r, piece))
            if (e.type == stream_event::kind::text) {
                REQUIRE_FALSE(e.text.empty());
                const auto lead = static_cast<unsigned char>(e.text.front());
                CHECK((lead & 0xC0) != 0x80);
            }
}

TEST_CASE("async_chat takes completion tokens: a callback and use_future") {
    boost::asio::io_context io;
    client_config config;
    config.api = api::echo;
    chat_client client(io.get_executor(), config);
    std::string seen;
    client.async_chat(ask_briefly("by callback"), [&](std::exception_ptr ex, boost::system::result<chat_reply, call_error> r) {
        CHECK_FALSE(ex);
        REQUIRE_OK(r);
        seen = std::string(r->text());
    });
    auto future = client.async_chat(ask_briefly("by future"), boost::asio::use_future);
    io.run();
    CHECK(seen == "by callback");
    auto r = future.get();
    REQUIRE_OK(r);
    CHECK(r->text() == "by future");
}

TEST_CASE("config_from_environment: the SDKs' variable names choose the API") {
    std::map<std::string, std::string> env;
    environment_options options;
    options.getenv = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    // nothing set: an error, unless a fallback is chosen
    CHECK_THROWS_WITH_AS(config_from_environment(std::nullopt, options),
                         "no model API is configured: set OPENAI_API_KEY or OPENAI_BASE_URL (OpenAI and compatible "
                         "servers), ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL (Anthropic), GEMINI_API_KEY, "
                         "GOOGLE_API_KEY or GOOGLE_GEMINI_BASE_URL (Gemini), AZURE_OPENAI_API_KEY or "
                         "AZURE_OPENAI_ENDPOINT with OPENAI_API_VERSION (Azure OpenAI), or OLLAMA_HOST (Ollama)",
                         parley::error);
    try {
        config_from_environment(std::nullopt, options);
    } catch (const parley::error& e) {
        CHECK(e.code() == errc::invalid_argument);
    }
    env["OPENAI_API_KEY"] = "";  // empty is not set
    CHECK_THROWS_AS(config_from_environment(std::nullopt, options), parley::error);
    env.clear();
    environment_options echo = options;
    echo.fallback = api::echo;
    CHECK(config_from_environment(std::nullopt, echo).api == api::echo);
    CHECK(config_from_environment(api::openai, options).api == api::openai);  // an API asked for needs no variable
    CHECK(config_from_environment(api::echo, options).api == api::echo);
    env["ANTHROPIC_API_KEY"] = "sk-ant-secret";
    auto a = config_from_environment(std::nullopt, options);
    CHECK(a.api == api::anthropic);
    CHECK(a.api_key == "sk-ant-secret");
    CHECK(a.base_url.empty());
    CHECK(config_from_environment(std::nullopt, echo).api == api::anthropic);  // the fallback only when nothing is set
    env["OPENAI_BASE_URL"] = "http://127.0.0.1:8080/v1";
    auto o = config_from_environment(std::nullopt, options);
    CHECK(o.api == api::openai);
    CHECK(o.base_url == "http://127.0.0.1:8080/v1");
    CHECK(o.api_key.empty());
    env["OPENAI_API_KEY"] = "sk-openai";
    CHECK(config_from_environment(api::anthropic, options).api_key == "sk-ant-secret");
    CHECK(config_from_environment(api::openai, options).api_key == "sk-openai");
}

TEST_CASE("api names") {
    CHECK(api_from_name("anthropic") == api::anthropic);
    CHECK(api_from_name("OpenAI") == std::nullopt);
    CHECK(api_name(api::scripted) == "scripted");
}
