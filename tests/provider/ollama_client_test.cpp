// Tests of chat_client with api::ollama against the fake server's Ollama routes: /api/chat with
// `"stream": false` and with JSON lines, thinking, tools and their results, `format` for typed
// extraction, /api/embed, Ollama's error bodies (404 for a model it does not have, 503 retried),
// an error line in the middle of a stream, faults, and OLLAMA_HOST.
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

namespace oasio = boost::asio;

template <class T>
T ollama_run(oasio::io_context& io, oasio::awaitable<T> a) {
    auto f = oasio::co_spawn(io, std::move(a), oasio::use_future);
    io.restart();
    io.run();
    return f.get();
}

parley::client_config ollama_config(const parley::testing::fake_server& s) {
    parley::client_config c;
    c.api = parley::api::ollama;
    c.base_url = s.base_url();
    c.net.retry.initial_delay = 1ms;
    c.net.retry.max_delay = 5ms;
    c.net.timeouts.total = 30s;
    return c;
}

parley::chat_request ollama_ask(std::string text) {
    parley::chat_request r;
    r.params.model = "llama3.2";
    r.messages.push_back(parley::make_message(parley::role::user, std::move(text)));
    return r;
}

struct ollama_streamed {
    std::vector<parley::stream_event> events;
    parley::chat_reply reply;
    std::optional<parley::call_error> error;
};

oasio::awaitable<ollama_streamed> ollama_stream_all(parley::chat_client& c, parley::chat_request r) {
    ollama_streamed out;
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

TEST_CASE("ollama client: /api/chat with \"stream\": false; no key; usage and model") {
    parley::testing::fake_server server;
    parley::testing::fake_step step = parley::testing::fake_step::text("Hello from Ollama");
    step.reply->usage = parley::testing::fake_usage{26, 5, 0, 0, 0};
    server.push(step);
    oasio::io_context io;
    parley::chat_client client(io.get_executor(), ollama_config(server));
    auto r = ollama_run(io, client.chat(ollama_ask("Hi")));
    REQUIRE(r.has_value());
    CHECK(r->text() == "Hello from Ollama");
    CHECK(r->model == "llama3.2");
    CHECK(r->created > 1700000000);
    CHECK(r->choices[0].finish == parley::finish_reason::stop);
    CHECK(r->choices[0].finish_text == "stop");
    REQUIRE(r->usage.has_value());
    CHECK(r->usage->prompt_tokens == 26);
    CHECK(r->usage->completion_tokens == 5);
    CHECK(r->usage->total_tokens == 31);
    const auto req = server.last_request();
    CHECK(req.target == "/api/chat");
    CHECK(req.header("accept") == "application/json");
    CHECK_FALSE(req.has_header("authorization"));
    CHECK(req.json() == boost::json::parse(R"({"model": "llama3.2", "messages": [{"role": "user", "content": "Hi"}],
                                               "stream": false})"));

    // a key, for a server behind one, goes as a bearer token
    parley::testing::fake_server_options o;
    o.api_key = "ollama-key-0123456789";
    parley::testing::fake_server keyed(o);
    auto with_key = ollama_config(keyed);
    with_key.api_key = o.api_key;
    parley::chat_client kc(io.get_executor(), with_key);
    auto k = ollama_run(io, kc.chat(ollama_ask("echo me")));
    REQUIRE(k.has_value());
    CHECK(k->text() == "echo me");
    CHECK(keyed.last_request().header("authorization") == "Bearer ollama-key-0123456789");
    parley::chat_client unkeyed(io.get_executor(), ollama_config(keyed));
    auto denied = ollama_run(io, unkeyed.chat(ollama_ask("x")));
    REQUIRE_FALSE(denied.has_value());
    CHECK(denied.error().status == 401);
    CHECK(denied.error().message == "unauthorized");
}

TEST_CASE("ollama client: a streamed reply (JSON lines) with thinking, text and tool calls; the same as a whole reply") {
    parley::testing::fake_server server;
    parley::testing::fake_reply reply;
    reply.choices.push_back({"Checking the weather.", {{"", "get_weather", R"({"city":"Oslo"})"}, {"call_2", "get_time", "{}"}},
                             "", "", "The user wants the weather.", false});
    reply.usage = parley::testing::fake_usage{40, 30, 0, 0, 0};
    reply.delta_size = 6;
    parley::testing::fake_step step;
    step.reply = reply;
    server.push(step);
    server.set_repeat(true);  // one step, one created_at: the ids made up for the calls agree
    oasio::io_context io;
    parley::chat_client client(io.get_executor(), ollama_config(server));
    auto request = ollama_ask("Weather in Oslo?");
    request.params.reasoning_effort = "high";
    auto s = ollama_run(io, ollama_stream_all(client, request));
    REQUIRE_FALSE(s.error.has_value());
    const auto req = server.last_request();
    CHECK(req.header("accept") == "application/x-ndjson");
    CHECK(req.json().at("stream") == true);
    CHECK(req.json().at("think") == "high");
    std::string text, thinking;
    std::vector<std::string> ids;
    std::size_t text_events = 0;
    for (const auto& e : s.events) {
        if (e.type == parley::stream_event::kind::text) {
            text += e.text;
            ++text_events;
        }
        if (e.type == parley::stream_event::kind::reasoning) thinking += e.text;
        if (e.type == parley::stream_event::kind::tool_call) ids.push_back(e.id);
    }
    CHECK(text == "Checking the weather.");
    CHECK(text_events == 4);  // in pieces of 6 bytes
    CHECK(thinking == "The user wants the weather.");
    REQUIRE(ids.size() == 2);
    CHECK(ids[0].rfind("ollama-call-0-", 0) == 0);  // the fake sends no id for the first call
    CHECK(ids[1] == "call_2");
    CHECK(s.events.back().type == parley::stream_event::kind::done);
    const auto& m = s.reply.message();
    CHECK(m.text() == "Checking the weather.");
    REQUIRE(m.tool_calls.size() == 2);
    CHECK(m.tool_calls[0].function.arguments == R"({"city":"Oslo"})");
    REQUIRE(m.reasoning.size() == 1);
    CHECK(m.reasoning[0].text == "The user wants the weather.");
    CHECK(s.reply.choices[0].finish == parley::finish_reason::tool_calls);
    CHECK(s.reply.usage->completion_tokens == 30);
    auto whole = ollama_run(io, client.chat(request));
    REQUIRE(whole.has_value());
    CHECK(whole->message() == m);
    CHECK(whole->usage == s.reply.usage);

    // the calls and their results go back as Ollama takes them (the fake checks the shapes)
    parley::chat_request next = request;
    next.messages.push_back(m);
    parley::message r1 = parley::make_message(parley::role::tool, R"({"celsius": -3})");
    r1.tool_call_id = m.tool_calls[0].id;
    parley::message r2 = parley::make_message(parley::role::tool, "12:00");
    r2.tool_call_id = m.tool_calls[1].id;
    next.messages.push_back(r1);
    next.messages.push_back(r2);
    next.params.functions = std::vector<std::string>{"get_weather", "get_time"};
    next.functions = {{"get_weather", "The weather of a city",
                       boost::json::parse(R"({"type": "object", "properties": {"city": {"type": "string"}}})").as_object()},
                      {"get_time", "The time", {}}};
    auto answered = ollama_run(io, client.chat(next));
    REQUIRE(answered.has_value());
    const auto sent = server.last_request().json();
    CHECK(sent.at("messages").at(1).at("thinking") == "The user wants the weather.");
    CHECK(sent.at("messages").at(1).at("tool_calls") == boost::json::parse(R"([
        {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
        {"id": "call_2", "function": {"name": "get_time", "arguments": {}}}])"));
    CHECK(sent.at("messages").at(2) == boost::json::parse(R"({"role": "tool", "content": "{\"celsius\": -3}",
                                                               "tool_name": "get_weather"})"));
    CHECK(sent.at("messages").at(3) == boost::json::parse(R"({"role": "tool", "content": "12:00", "tool_name": "get_time",
                                                               "tool_call_id": "call_2"})"));
    CHECK(sent.at("tools").as_array().size() == 2);
}

TEST_CASE("ollama client: structured output through `format`, options and keep_alive from the configuration") {
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::text(R"({"age": 22, "available": true})"));
    oasio::io_context io;
    auto config = ollama_config(server);
    config.ollama.num_ctx = 16384;
    config.ollama.keep_alive = "30m";
    parley::chat_client client(io.get_executor(), config);
    auto request = ollama_ask("Ollama is 22 years old and busy saving the world.");
    request.params.response_format = boost::json::parse(R"({"type": "json_schema", "json_schema": {"name": "p",
        "schema": {"type": "object", "properties": {"age": {"type": "integer"}, "available": {"type": "boolean"}},
                   "required": ["age", "available"]}}})").as_object();
    request.params.temperature = 0.0;
    auto r = ollama_run(io, client.chat(request));
    REQUIRE(r.has_value());
    CHECK(boost::json::parse(r->text()) == boost::json::parse(R"({"age": 22, "available": true})"));
    const auto body = server.last_request().json();
    CHECK(body.at("format").at("required") == boost::json::parse(R"(["age", "available"])"));
    CHECK(body.at("options") == boost::json::parse(R"({"temperature": 0.0, "num_ctx": 16384})"));
    CHECK(body.at("keep_alive") == "30m");
}

TEST_CASE("ollama client: embeddings through /api/embed") {
    parley::testing::fake_server server;
    oasio::io_context io;
    parley::chat_client client(io.get_executor(), ollama_config(server));
    parley::embedding_request one;
    one.model = "nomic-embed-text";
    one.input = {"hello"};
    one.dimensions = 8;
    auto r = ollama_run(io, client.embed(one));
    REQUIRE(r.has_value());
    REQUIRE(r->data.size() == 1);
    CHECK(r->data[0].size() == 8);
    CHECK(r->model == "nomic-embed-text");
    CHECK(server.last_request().target == "/api/embed");
    CHECK(server.last_request().json() == boost::json::parse(R"({"model": "nomic-embed-text", "input": "hello", "dimensions": 8})"));
    parley::embedding_request many = one;
    many.input = {"hello", "world", "hello"};
    auto m = ollama_run(io, client.embed(many));
    REQUIRE(m.has_value());
    REQUIRE(m->data.size() == 3);
    CHECK(m->data[0] == r->data[0]);
    CHECK(m->data[0] != m->data[1]);
    REQUIRE(m->usage.has_value());
    CHECK(m->usage->prompt_tokens > 0);
    server.push(parley::testing::fake_step::http_status(404));
    auto missing = ollama_run(io, client.embed(one));
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().message == "model \"nomic-embed-text\" not found, try pulling it first");
}

TEST_CASE("ollama client: errors: a model it does not have, a busy server retried, a refused request not; mid-stream errors") {
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::http_status(404));
    server.push(parley::testing::fake_step::http_status(503));
    server.push(parley::testing::fake_step::text("after the queue"));
    parley::testing::fake_step refused = parley::testing::fake_step::http_status(400);
    refused.error.message = "invalid format: expected \"json\" or a JSON schema";
    server.push(refused);
    oasio::io_context io;
    parley::chat_client client(io.get_executor(), ollama_config(server));
    auto nf = ollama_run(io, client.chat(ollama_ask("x")));
    REQUIRE_FALSE(nf.has_value());
    CHECK(nf.error().code == parley::errc::api_error);
    CHECK(nf.error().status == 404);
    CHECK(nf.error().message == "model \"llama3.2\" not found, try pulling it first");
    CHECK(nf.error().attempts == 1);
    auto busy = ollama_run(io, client.chat(ollama_ask("x")));
    REQUIRE(busy.has_value());
    CHECK(busy->text() == "after the queue");
    CHECK(busy->attempts == 2);
    auto bad = ollama_run(io, client.chat(ollama_ask("x")));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().status == 400);
    CHECK(bad.error().message == "invalid format: expected \"json\" or a JSON schema");
    CHECK(bad.error().attempts == 1);

    auto once_config = ollama_config(server);
    once_config.net.retry.max_retries = 0;
    parley::chat_client once(io.get_executor(), once_config);
    // an error line after two lines of text: an API error, not text
    parley::testing::fake_step line = parley::testing::fake_step::text("a few words before the error");
    line.fault = parley::testing::fake_fault::error_event;
    line.after_events = 2;
    line.error.message = "an error was encountered while running the model: CUDA error";
    line.chunk_delay = 20ms;  // each line written on its own, as a model writes them
    server.push(line);
    auto e = ollama_run(io, ollama_stream_all(once, ollama_ask("x")));
    REQUIRE(e.error.has_value());
    CHECK(e.error->code == parley::errc::api_error);
    CHECK(e.error->status == 200);
    CHECK(e.error->message == "an error was encountered while running the model: CUDA error");
    std::string before;
    for (const auto& ev : e.events) before += ev.text;
    CHECK(before == "a few wo");
    // the same error as a whole reply's body (a 200 with {"error"})
    parley::testing::fake_step whole_error;
    whole_error.fault = parley::testing::fake_fault::error_event;
    server.push(whole_error);
    auto we = ollama_run(io, once.chat(ollama_ask("x")));
    REQUIRE_FALSE(we.has_value());
    CHECK(we.error().code == parley::errc::api_error);
    // a malformed line, a stream cut, a body that ends before the last line
    server.push(parley::testing::fake_step::with_fault(parley::testing::fake_fault::malformed_json));
    auto m = ollama_run(io, ollama_stream_all(once, ollama_ask("hello there")));
    REQUIRE(m.error.has_value());
    CHECK(m.error->code == parley::errc::protocol);
    parley::testing::fake_step cut = parley::testing::fake_step::text("a long text that is cut");
    cut.fault = parley::testing::fake_fault::disconnect;
    cut.after_bytes = 150;
    server.push(cut);
    auto c = ollama_run(io, ollama_stream_all(once, ollama_ask("x")));
    REQUIRE(c.error.has_value());
    server.push(parley::testing::fake_step::replay_file(std::string(PARLEY_TEST_SOURCE_DIR) +
                                                        "/tests/provider/ollama-data/stream-cut.ndjson"));
    auto cl = ollama_run(io, ollama_stream_all(once, ollama_ask("x")));
    REQUIRE(cl.error.has_value());
    CHECK(cl.error->code == parley::errc::protocol);
    CHECK(cl.error->message == "the stream ended before its end mark (a line with \"done\": true)");
    server.push(parley::testing::fake_step::replay_file(std::string(PARLEY_TEST_SOURCE_DIR) +
                                                        "/tests/provider/ollama-data/stream-tool-call.ndjson"));
    auto tc = ollama_run(io, ollama_stream_all(once, ollama_ask("x")));
    REQUIRE_FALSE(tc.error.has_value());
    REQUIRE(tc.reply.message().tool_calls.size() == 1);
    CHECK(tc.reply.message().tool_calls[0].function.name == "get_weather");
    CHECK(tc.reply.usage->prompt_tokens == 182);
    // a request Ollama cannot take fails before it is sent
    auto n2 = ollama_ask("x");
    n2.params.n = 2;
    const auto count = server.request_count();
    CHECK_THROWS_AS(ollama_run(io, client.chat(n2)), parley::error);
    CHECK(server.request_count() == count);
}

TEST_CASE("config_from_environment: OLLAMA_HOST, and the order OpenAI, Anthropic, Gemini, Azure, Ollama") {
    std::map<std::string, std::string> env;
    parley::environment_options options;
    options.getenv = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    env["OLLAMA_HOST"] = "gpu-box:11500";
    auto o = parley::config_from_environment(std::nullopt, options);
    CHECK(o.api == parley::api::ollama);
    CHECK(o.base_url == "http://gpu-box:11500");
    CHECK(o.api_key.empty());
    env["AZURE_OPENAI_ENDPOINT"] = "https://res.openai.azure.com/";
    CHECK(parley::config_from_environment(std::nullopt, options).api == parley::api::azure);
    env["GEMINI_API_KEY"] = "g";
    CHECK(parley::config_from_environment(std::nullopt, options).api == parley::api::gemini);
    env["ANTHROPIC_API_KEY"] = "a";
    CHECK(parley::config_from_environment(std::nullopt, options).api == parley::api::anthropic);
    env["OPENAI_API_KEY"] = "o";
    CHECK(parley::config_from_environment(std::nullopt, options).api == parley::api::openai);
    // named, the API takes its own variables whatever else is set
    CHECK(parley::config_from_environment(parley::api::ollama, options).base_url == "http://gpu-box:11500");
    env.clear();
    CHECK(parley::config_from_environment(parley::api::ollama, options).base_url == "http://127.0.0.1:11434");
    CHECK_THROWS_WITH_AS(parley::config_from_environment(std::nullopt, options),
                         "no model API is configured: set OPENAI_API_KEY or OPENAI_BASE_URL (OpenAI and compatible servers), "
                         "ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL (Anthropic), GEMINI_API_KEY, GOOGLE_API_KEY or "
                         "GOOGLE_GEMINI_BASE_URL (Gemini), AZURE_OPENAI_API_KEY or AZURE_OPENAI_ENDPOINT with "
                         "OPENAI_API_VERSION (Azure OpenAI), or OLLAMA_HOST (Ollama)",
                         parley::error);
    env["OLLAMA_HOST"] = "gopher://x";
    CHECK_THROWS_AS(parley::config_from_environment(std::nullopt, options), parley::error);
    CHECK(parley::api_from_name("ollama") == parley::api::ollama);
    CHECK(parley::api_name(parley::api::ollama) == "ollama");
    CHECK(parley::ollama_base_url == "http://127.0.0.1:11434");
}
