// Tests of chat_client with api::gemini against the fake server's Gemini routes: the paths,
// the x-goog-api-key header, plain and streamed replies, tool calls, thoughts, a blocked prompt,
// Google's error bodies and retries, embeddings, faults, and config_from_environment's
// variables.
#include <parley/provider/chat_client.hpp>

#include <parley/testing/fake_server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

namespace gasio = boost::asio;

template <class T>
T gemini_run(gasio::io_context& io, gasio::awaitable<T> a) {
    auto f = gasio::co_spawn(io, std::move(a), gasio::use_future);
    io.restart();
    io.run();
    return f.get();
}

parley::client_config gemini_config(const parley::testing::fake_server& s) {
    parley::client_config c;
    c.api = parley::api::gemini;
    c.base_url = s.url("/v1beta");
    c.api_key = "AIza-test-key-0123456789";
    c.net.retry.initial_delay = 1ms;
    c.net.retry.max_delay = 5ms;
    c.net.timeouts.total = 30s;
    return c;
}

parley::chat_request gemini_ask(std::string text) {
    parley::chat_request r;
    r.params.model = "gemini-2.5-flash";
    r.messages.push_back(parley::make_message(parley::role::user, std::move(text)));
    return r;
}

struct gemini_streamed {
    std::vector<parley::stream_event> events;
    parley::chat_reply reply;
    std::optional<parley::call_error> error;
};

gasio::awaitable<gemini_streamed> gemini_stream_all(parley::chat_client& c, parley::chat_request r) {
    gemini_streamed out;
    auto s = co_await c.stream(std::move(r));
    if (!s) {
        out.error = s.error();
        co_return out;
    }
    for (;;) {
        auto e = co_await s->next();
        if (!e) {
            out.error = e.error();
            co_return out;
        }
        out.events.push_back(*e);
        if (e->type == parley::stream_event::kind::done) break;
    }
    out.reply = s->take_reply();
    co_return out;
}

}  // namespace

TEST_CASE("gemini client: generateContent with x-goog-api-key; the fake server checks the key") {
    parley::testing::fake_server_options o;
    o.api_key = "AIza-test-key-0123456789";
    parley::testing::fake_server server(o);
    server.push(parley::testing::fake_step::text("Hello from Gemini"));
    gasio::io_context io;
    parley::chat_client client(io.get_executor(), gemini_config(server));
    auto r = gemini_run(io, client.chat(gemini_ask("Hi")));
    REQUIRE(r.has_value());
    CHECK(r->text() == "Hello from Gemini");
    CHECK(r->choices[0].finish == parley::finish_reason::stop);
    CHECK(r->choices[0].finish_text == "STOP");
    CHECK(r->model == "gemini-2.5-flash");
    CHECK(r->id.rfind("gemini_fake_", 0) == 0);
    REQUIRE(r->usage.has_value());
    CHECK(r->usage->total_tokens == r->usage->prompt_tokens + r->usage->completion_tokens);
    const auto req = server.last_request();
    CHECK(req.target == "/v1beta/models/gemini-2.5-flash:generateContent");
    CHECK(req.header("x-goog-api-key") == "AIza-test-key-0123456789");
    CHECK_FALSE(req.has_header("authorization"));
    CHECK(req.json() == boost::json::parse(R"({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})"));

    // a wrong key: the API's 400 with API_KEY_INVALID, not retried
    auto wrong = gemini_config(server);
    wrong.api_key = "AIza-wrong-key-000000000";
    parley::chat_client other(io.get_executor(), wrong);
    auto refused = gemini_run(io, other.chat(gemini_ask("Hi")));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().status == 400);
    CHECK(refused.error().type == "INVALID_ARGUMENT");
    CHECK(refused.error().api_code == "API_KEY_INVALID");
    CHECK(refused.error().attempts == 1);
    // no key: 403 PERMISSION_DENIED
    auto none = gemini_config(server);
    none.api_key.clear();
    parley::chat_client keyless(io.get_executor(), none);
    auto denied = gemini_run(io, keyless.chat(gemini_ask("Hi")));
    REQUIRE_FALSE(denied.has_value());
    CHECK(denied.error().status == 403);
    CHECK(denied.error().type == "PERMISSION_DENIED");
}

TEST_CASE("gemini client: a streamed reply with thoughts, text and tool calls; usage at the end") {
    parley::testing::fake_server server;
    parley::testing::fake_reply reply;
    reply.choices.push_back({"It is cold.", {{"", "get_weather", R"({"city":"Oslo"})"}, {"fc_2", "get_time", "{}"}}, "", "",
                             "Thinking about Oslo.", false});
    reply.usage = parley::testing::fake_usage{12, 30, 2, 0, 10};
    reply.delta_size = 5;
    parley::testing::fake_step step;
    step.reply = reply;
    server.push(step);
    server.set_repeat(true);  // one step, so one responseId: the ids made up for the calls agree
    gasio::io_context io;
    parley::chat_client client(io.get_executor(), gemini_config(server));
    auto s = gemini_run(io, gemini_stream_all(client, gemini_ask("Weather?")));
    REQUIRE_FALSE(s.error.has_value());
    CHECK(server.last_request().target == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    CHECK(server.last_request().header("accept") == "text/event-stream");
    std::string text, thoughts;
    std::vector<std::string> call_ids;
    for (const auto& e : s.events) {
        if (e.type == parley::stream_event::kind::text) text += e.text;
        if (e.type == parley::stream_event::kind::reasoning) thoughts += e.text;
        if (e.type == parley::stream_event::kind::tool_call) call_ids.push_back(e.id);
    }
    CHECK(text == "It is cold.");
    CHECK(thoughts == "Thinking about Oslo.");
    REQUIRE(call_ids.size() == 2);
    CHECK(call_ids[0].rfind("gemini-call-", 0) == 0);  // the fake sends no id for the first call
    CHECK(call_ids[1] == "fc_2");
    const auto& m = s.reply.message();
    CHECK(m.text() == "It is cold.");
    REQUIRE(m.tool_calls.size() == 2);
    CHECK(m.tool_calls[0].function.arguments == R"({"city":"Oslo"})");
    CHECK(s.reply.choices[0].finish == parley::finish_reason::tool_calls);
    REQUIRE(s.reply.usage.has_value());
    CHECK(s.reply.usage->prompt_tokens == 12);
    CHECK(s.reply.usage->completion_tokens == 30);
    CHECK(s.reply.usage->reasoning_tokens() == 10);
    CHECK(s.reply.usage->cached_tokens() == 2);
    CHECK(s.events.back().type == parley::stream_event::kind::done);
    // the same step as a whole reply assembles the same message
    auto whole = gemini_run(io, client.chat(gemini_ask("Weather?")));
    REQUIRE(whole.has_value());
    CHECK(whole->message() == m);
    CHECK(whole->usage == s.reply.usage);
}

TEST_CASE("gemini client: n candidates, a blocked prompt, finish reasons") {
    parley::testing::fake_server server;
    parley::testing::fake_reply two;
    two.choices.push_back({"first", {}, "", "", "", false});
    two.choices.push_back({"second", {}, "length", "", "", false});
    parley::testing::fake_step step;
    step.reply = two;
    server.push(step);
    server.push(step);
    parley::testing::fake_step blocked;
    blocked.reply = parley::testing::fake_reply{};
    blocked.reply->block_reason = "SAFETY";
    server.push(blocked);
    server.push(blocked);
    gasio::io_context io;
    parley::chat_client client(io.get_executor(), gemini_config(server));
    auto r = gemini_ask("x");
    r.params.n = 2;
    auto plain = gemini_run(io, client.chat(r));
    REQUIRE(plain.has_value());
    REQUIRE(plain->choices.size() == 2);
    CHECK(plain->choices[1].message.text() == "second");
    CHECK(plain->choices[1].finish == parley::finish_reason::length);
    CHECK(plain->choices[1].finish_text == "MAX_TOKENS");
    auto streamed = gemini_run(io, gemini_stream_all(client, r));
    REQUIRE_FALSE(streamed.error.has_value());
    CHECK(streamed.reply.choices == plain->choices);
    CHECK(server.last_request().json().at("generationConfig").at("candidateCount") == 2);

    auto b = gemini_run(io, client.chat(gemini_ask("bad")));
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().code == parley::errc::api_error);
    CHECK(b.error().type == "prompt_blocked");
    CHECK(b.error().api_code == "SAFETY");
    auto bs = gemini_run(io, gemini_stream_all(client, gemini_ask("bad")));
    REQUIRE(bs.error.has_value());
    CHECK(bs.error->type == "prompt_blocked");
}

TEST_CASE("gemini client: Google's error bodies; 429 and 503 retried, 400 not; faults") {
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::http_status(429));
    server.push(parley::testing::fake_step::http_status(503));
    server.push(parley::testing::fake_step::text("after the limit"));
    server.push(parley::testing::fake_step::http_status(400));
    gasio::io_context io;
    parley::chat_client client(io.get_executor(), gemini_config(server));
    auto ok = gemini_run(io, client.chat(gemini_ask("x")));
    REQUIRE(ok.has_value());
    CHECK(ok->text() == "after the limit");
    CHECK(ok->attempts == 3);
    auto bad = gemini_run(io, client.chat(gemini_ask("x")));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code == parley::errc::api_error);
    CHECK(bad.error().type == "INVALID_ARGUMENT");
    CHECK(bad.error().attempts == 1);

    auto limited = gemini_config(server);
    limited.net.retry.max_retries = 0;
    parley::chat_client once(io.get_executor(), limited);
    server.push(parley::testing::fake_step::http_status(429));
    auto quota = gemini_run(io, once.chat(gemini_ask("x")));
    REQUIRE_FALSE(quota.has_value());
    CHECK(quota.error().type == "RESOURCE_EXHAUSTED");
    CHECK(quota.error().message == "Resource has been exhausted (e.g. check quota).");

    // an error chunk in the stream, a malformed chunk, a stream cut before the finishReason
    parley::testing::fake_step error_event = parley::testing::fake_step::with_fault(parley::testing::fake_fault::error_event);
    server.push(error_event);
    auto e = gemini_run(io, gemini_stream_all(once, gemini_ask("hello there")));
    REQUIRE(e.error.has_value());
    CHECK(e.error->code == parley::errc::api_error);
    CHECK(e.error->type == "INTERNAL");
    server.push(parley::testing::fake_step::with_fault(parley::testing::fake_fault::malformed_json));
    auto m = gemini_run(io, gemini_stream_all(once, gemini_ask("hello there")));
    REQUIRE(m.error.has_value());
    CHECK(m.error->code == parley::errc::protocol);
    parley::testing::fake_step cut;
    cut.reply = parley::testing::fake_reply::with_text("a long text that is cut");
    cut.fault = parley::testing::fake_fault::disconnect;
    cut.after_bytes = 120;
    server.push(cut);
    auto c = gemini_run(io, gemini_stream_all(once, gemini_ask("x")));
    REQUIRE(c.error.has_value());
    // a chunked body that ends cleanly without the finishReason
    server.push(parley::testing::fake_step::replay_file(std::string(PARLEY_TEST_SOURCE_DIR) +
                                                        "/tests/provider/gemini-data/stream-cut.sse"));
    auto cl = gemini_run(io, gemini_stream_all(once, gemini_ask("x")));
    REQUIRE(cl.error.has_value());
    CHECK(cl.error->code == parley::errc::protocol);
    CHECK(cl.error->message == "the stream ended before its end mark (a finishReason for every candidate)");
}

TEST_CASE("gemini client: a 429 whose body asks for a wait in a RetryInfo detail is retried after that wait") {
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::http_status(
        429, {}, std::string(R"({"error": {"code": 429, "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED", "details": [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.3s"}]}})")));
    server.push(parley::testing::fake_step::text("after the wait"));
    gasio::io_context io;
    parley::chat_client client(io.get_executor(), gemini_config(server));  // computed delays of at most 5 ms
    const auto start = std::chrono::steady_clock::now();
    auto r = gemini_run(io, client.chat(gemini_ask("x")));
    const auto waited = std::chrono::steady_clock::now() - start;
    REQUIRE(r.has_value());
    CHECK(r->text() == "after the wait");
    CHECK(r->attempts == 2);
    CHECK(waited >= 300ms);
}

TEST_CASE("gemini client: embeddings through embedContent and batchEmbedContents") {
    parley::testing::fake_server server;
    gasio::io_context io;
    parley::chat_client client(io.get_executor(), gemini_config(server));
    parley::embedding_request one;
    one.model = "gemini-embedding-001";
    one.input = {"hello"};
    one.dimensions = 8;
    one.task_type = "SEMANTIC_SIMILARITY";
    auto r = gemini_run(io, client.embed(one));
    REQUIRE(r.has_value());
    REQUIRE(r->data.size() == 1);
    CHECK(r->data[0].size() == 8);
    CHECK(server.last_request().target == "/v1beta/models/gemini-embedding-001:embedContent");
    CHECK(server.last_request().json().at("taskType") == "SEMANTIC_SIMILARITY");
    parley::embedding_request many = one;
    many.input = {"hello", "world", "hello"};
    auto m = gemini_run(io, client.embed(many));
    REQUIRE(m.has_value());
    REQUIRE(m->data.size() == 3);
    CHECK(m->data[0] == r->data[0]);  // the same text, the same vector
    CHECK(m->data[0] != m->data[1]);
    CHECK(server.last_request().target == "/v1beta/models/gemini-embedding-001:batchEmbedContents");
}

TEST_CASE("config_from_environment: Gemini's variables") {
    std::map<std::string, std::string> env;
    parley::environment_options options;
    options.getenv = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    env["GEMINI_API_KEY"] = "gemini-key";
    auto g = parley::config_from_environment(std::nullopt, options);
    CHECK(g.api == parley::api::gemini);
    CHECK(g.api_key == "gemini-key");
    CHECK(g.base_url.empty());
    env["GOOGLE_API_KEY"] = "google-key";  // both set: GOOGLE_API_KEY, as @google/genai takes it
    CHECK(parley::config_from_environment(std::nullopt, options).api_key == "google-key");
    env["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9000/";
    CHECK(parley::config_from_environment(std::nullopt, options).base_url == "http://127.0.0.1:9000/v1beta");
    env["ANTHROPIC_API_KEY"] = "sk-ant";  // Anthropic comes before Gemini
    CHECK(parley::config_from_environment(std::nullopt, options).api == parley::api::anthropic);
    CHECK(parley::config_from_environment(parley::api::gemini, options).api_key == "google-key");
    env.clear();
    env["GOOGLE_GEMINI_BASE_URL"] = "http://localhost:1";
    CHECK(parley::config_from_environment(std::nullopt, options).api == parley::api::gemini);
    CHECK(parley::api_from_name("gemini") == parley::api::gemini);
    CHECK(parley::api_name(parley::api::gemini) == "gemini");
}
