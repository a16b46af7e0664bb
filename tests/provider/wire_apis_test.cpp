// Tests of the wire APIs through parley/provider/chat_client.hpp against the fake server on
// loopback: the Responses API (not streamed and streamed, tool calls, reasoning items sent back
// for stateless use), reasoning of the chat completions API and of Anthropic (thinking blocks
// sent back with their signatures), the request fields of today's models on the wire, strict
// tools, and a program's own wire_api.
#include <parley/provider/chat_client.hpp>
#include <parley/provider/openai/api.hpp>

#include <parley/testing/fake_server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace parley;

namespace wire_tests {

namespace asio = boost::asio;
using parley::testing::fake_reply;
using parley::testing::fake_server;
using parley::testing::fake_step;

client_config config_for(const fake_server& s, api which) {
    client_config c;
    c.api = which;
    c.base_url = which == api::anthropic ? s.base_url() : s.url("/v1");
    c.api_key = which == api::anthropic ? "sk-ant-wire-0123456789" : "sk-wire-0123456789";
    c.net.retry.initial_delay = std::chrono::milliseconds(1);
    c.net.retry.max_delay = std::chrono::milliseconds(5);
    return c;
}

chat_request question(std::string text, std::string model = "gpt-5") {
    chat_request r;
    r.params.model = std::move(model);
    r.messages.push_back(make_message(role::user, std::move(text)));
    return r;
}

template <class T>
T run_on(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

struct stream_result {
    std::vector<stream_event> events;
    chat_reply reply;
};

asio::awaitable<boost::system::result<stream_result, call_error>> stream_all(chat_client& c, chat_request r) {
    auto s = co_await c.stream(std::move(r));
    if (!s) co_return s.error();
    stream_result out;
    for (;;) {
        auto e = co_await s->next();
        if (!e) co_return e.error();
        out.events.push_back(*e);
        if (e->type == stream_event::kind::done) break;
    }
    out.reply = s->take_reply();
    co_return out;
}

std::string text_of(const std::vector<stream_event>& events, stream_event::kind k) {
    std::string s;
    for (const auto& e : events)
        if (e.type == k) s += e.text;
    return s;
}

fake_step reply_step(std::string text, std::string reasoning = {}) {
    fake_step s = fake_step::text(std::move(text));
    s.reply->choices.front().reasoning = std::move(reasoning);
    return s;
}

}  // namespace wire_tests

using namespace wire_tests;

TEST_CASE("responses API: a text reply, not streamed and streamed, with usage and request ids") {
    fake_server server;
    fake_step step = fake_step::text("Hello from the Responses API.");
    step.reply->usage = parley::testing::fake_usage{20, 7, 4, 0, 3};
    step.reply->delta_size = 6;
    server.push(step);
    server.push(step);
    asio::io_context io;
    chat_client client(io.get_executor(), config_for(server, api::responses));
    CHECK(client.wire()->name() == "responses");
    chat_request r = question("Say hello");
    r.messages.insert(r.messages.begin(), make_message(role::system, "Be brief."));
    const auto reply = run_on(io, client.chat(r));
    REQUIRE(reply.has_value());
    CHECK(reply->text() == "Hello from the Responses API.");
    CHECK(reply->choices[0].finish == finish_reason::stop);
    REQUIRE(reply->usage);
    CHECK(reply->usage->prompt_tokens == 20);
    CHECK(reply->usage->completion_tokens == 7);
    CHECK(reply->usage->cached_tokens() == 4);
    CHECK(reply->usage->reasoning_tokens() == 3);
    CHECK(reply->headers.request_id().rfind("req_fake_", 0) == 0);
    const auto sent = server.last_request();
    CHECK(sent.target == "/v1/responses");
    CHECK(sent.header("authorization") == "Bearer sk-wire-0123456789");
    CHECK(sent.json() == boost::json::parse(R"({"model":"gpt-5","instructions":"Be brief.","input":[{"role":"user","content":"Say hello"}]})"));

    const auto streamed = run_on(io, stream_all(client, r));
    REQUIRE(streamed.has_value());
    CHECK(text_of(streamed->events, stream_event::kind::text) == "Hello from the Responses API.");
    CHECK(streamed->events.back().type == stream_event::kind::done);
    CHECK(streamed->reply.choices == reply->choices);
    CHECK(streamed->reply.usage == reply->usage);
    CHECK(server.last_request().json().at("stream") == true);
}

TEST_CASE("responses API: tool calls and stateless reasoning sent back with their encrypted content") {
    fake_server server;
    fake_step calls = fake_step::tool_calls({{"call_1", "get_weather", R"({"city":"Oslo"})"}});
    calls.reply->choices.front().reasoning = "Look up the weather first.";
    server.push(calls);
    server.push(fake_step::text("It is sunny."));
    asio::io_context io;
    chat_client client(io.get_executor(), config_for(server, api::responses));
    chat_request r = question("Weather in Oslo?");
    function_definition weather;
    weather.name = "get_weather";
    weather.parameters = boost::json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},)"
                                            R"("required":["city"],"additionalProperties":false})")
                             .as_object();
    weather.strict = true;
    r.functions = {weather};
    r.params.functions = std::vector<std::string>{"get_weather"};
    r.params.store = false;
    r.params.reasoning_effort = "low";
    const auto first = run_on(io, stream_all(client, r));
    REQUIRE(first.has_value());
    const message& call = first->reply.message();
    REQUIRE(call.tool_calls.size() == 1);
    CHECK(call.tool_calls[0].id == "call_1");
    CHECK(call.tool_calls[0].function.arguments == R"({"city":"Oslo"})");
    REQUIRE(call.reasoning.size() == 1);
    CHECK(call.reasoning[0].type == reasoning_part::kind::item);
    CHECK(call.reasoning[0].summary == std::vector<std::string>{"Look up the weather first."});
    CHECK_FALSE(call.reasoning[0].data.empty());
    CHECK(text_of(first->events, stream_event::kind::reasoning) == "Look up the weather first.");
    const auto body = server.last_request().json();
    CHECK(body.at("tools").at(0).at("strict") == true);
    CHECK(body.at("include") == boost::json::parse(R"(["reasoning.encrypted_content"])"));
    CHECK(body.at("reasoning") == boost::json::parse(R"({"effort":"low"})"));

    r.messages.push_back(call);
    message result = make_message(role::tool, R"({"sky":"sunny"})");
    result.tool_call_id = "call_1";
    r.messages.push_back(result);
    const auto second = run_on(io, client.chat(r));
    REQUIRE(second.has_value());
    CHECK(second->text() == "It is sunny.");
    const auto input = server.last_request().json().at("input").as_array();
    REQUIRE(input.size() == 4);
    CHECK(input[1].at("type") == "reasoning");
    CHECK(input[1].at("encrypted_content") == boost::json::value(call.reasoning[0].data));
    CHECK(input[2] == boost::json::parse(R"({"type":"function_call","call_id":"call_1","name":"get_weather",)"
                                         R"("arguments":"{\"city\":\"Oslo\"}"})"));
    CHECK(input[3] == boost::json::parse(R"({"type":"function_call_output","call_id":"call_1","output":"{\"sky\":\"sunny\"}"})"));
}

TEST_CASE("responses API: errors and retries as for the other APIs") {
    fake_server server;
    server.push(fake_step::http_status(429, {{"retry-after", "0"}}));
    server.push(fake_step::text("after the limit"));
    server.push(fake_step::http_status(400));
    asio::io_context io;
    chat_client client(io.get_executor(), config_for(server, api::responses));
    const auto ok = run_on(io, client.chat(question("x")));
    REQUIRE(ok.has_value());
    CHECK(ok->text() == "after the limit");
    CHECK(ok->attempts == 2);
    const auto bad = run_on(io, client.chat(question("x")));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code == make_error_code(errc::api_error));
    CHECK(bad.error().status == 400);
    CHECK(bad.error().type == "invalid_request_error");
    CHECK(bad.error().headers.request_id().rfind("req_fake_", 0) == 0);
}

TEST_CASE("chat completions: reasoning_content of compatible servers, not streamed and streamed") {
    fake_server server;
    server.push(reply_step("42", "Six times seven."));
    server.push(reply_step("42", "Six times seven."));
    asio::io_context io;
    chat_client client(io.get_executor(), config_for(server, api::openai));
    const auto reply = run_on(io, client.chat(question("6*7?", "deepseek-reasoner")));
    REQUIRE(reply.has_value());
    CHECK(reply->message().reasoning_text() == "Six times seven.");
    const auto streamed = run_on(io, stream_all(client, question("6*7?", "deepseek-reasoner")));
    REQUIRE(streamed.has_value());
    CHECK(text_of(streamed->events, stream_event::kind::reasoning) == "Six times seven.");
    CHECK(streamed->reply.message() == reply->message());
}

TEST_CASE("anthropic: thinking blocks kept with their signatures and sent back for tool use") {
    fake_server server;
    fake_step calls = fake_step::tool_calls({{"toolu_1", "get_weather", R"({"city":"Oslo"})"}});
    calls.reply->choices.front().reasoning = "I need the weather tool.";
    server.push(calls);
    server.push(fake_step::text("It is sunny."));
    asio::io_context io;
    chat_client client(io.get_executor(), config_for(server, api::anthropic));
    chat_request r = question("Weather in Oslo?", "claude-sonnet-4-5");
    r.functions = {function_definition{"get_weather", "", {}}};
    r.params.functions = std::vector<std::string>{"get_weather"};
    r.params.max_tokens = 4096;
    r.params.thinking = thinking_config{"enabled", 2048, {}};
    const auto first = run_on(io, stream_all(client, r));
    REQUIRE(first.has_value());
    const message& call = first->reply.message();
    REQUIRE(call.reasoning.size() == 1);
    CHECK(call.reasoning[0].type == reasoning_part::kind::thinking);
    CHECK(call.reasoning[0].text == "I need the weather tool.");
    CHECK_FALSE(call.reasoning[0].signature.empty());
    CHECK(text_of(first->events, stream_event::kind::reasoning) == "I need the weather tool.");
    CHECK(server.last_request().json().at("thinking") == boost::json::parse(R"({"type":"enabled","budget_tokens":2048})"));

    r.messages.push_back(call);
    message result = make_message(role::tool, "sunny");
    result.tool_call_id = "toolu_1";
    r.messages.push_back(result);
    REQUIRE(run_on(io, client.chat(r)).has_value());
    const auto sent = server.last_request().json().at("messages").at(1).at("content");
    CHECK(sent.at(0) == boost::json::parse(R"({"type":"thinking","thinking":"I need the weather tool.","signature":)" +
                                           boost::json::serialize(boost::json::value(call.reasoning[0].signature)) + "}"));
    CHECK(sent.at(1).at("type") == "tool_use");
}

TEST_CASE("anthropic: 529 is overloaded_error, its request id in the header fields") {
    fake_server server;
    server.push(fake_step::http_status(529));
    asio::io_context io;
    client_config c = config_for(server, api::anthropic);
    c.net.retry.max_retries = 0;
    chat_client client(io.get_executor(), c);
    const auto r = run_on(io, client.chat(question("x", "claude-sonnet-4-5")));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == make_error_code(errc::api_error));
    CHECK(r.error().status == 529);
    CHECK(r.error().type == "overloaded_error");
    CHECK(r.error().message == "Overloaded");
    CHECK(r.error().headers.get("request-id").rfind("req_fake_", 0) == 0);
}

TEST_CASE("chat completions: the fields of today's models and extra reach the wire") {
    fake_server server;
    asio::io_context io;
    client_config c = config_for(server, api::openai);
    c.defaults.reasoning_effort = "low";
    c.defaults.extra = boost::json::parse(R"({"min_p": 0.1})").as_object();
    chat_client client(io.get_executor(), c);
    chat_request r = question("x");
    r.params.max_completion_tokens = 100;
    r.params.service_tier = "flex";
    r.params.metadata = std::vector<std::pair<std::string, std::string>>{{"k", "v"}};
    r.params.extra = boost::json::parse(R"({"top_k": 5})").as_object();
    REQUIRE(run_on(io, client.chat(r)).has_value());
    CHECK(server.last_request().json() ==
          boost::json::parse(R"({"model":"gpt-5","messages":[{"role":"user","content":"x"}],"max_completion_tokens":100,)"
                             R"("reasoning_effort":"low","service_tier":"flex","metadata":{"k":"v"},"min_p":0.1,"top_k":5})"));
    r.params.thinking = thinking_config{"enabled", 2048, {}};
    CHECK_THROWS_WITH_AS(run_on(io, client.chat(r)),
                         "'thinking' is not supported by the OpenAI chat completions API (send it in 'extra' to a compatible "
                         "server that takes it)",
                         parley::error);
}

namespace wire_tests {

/// A wire API of a program's own: the chat completions API under another path, its requests
/// marked with a header field.
class marked_api final : public wire_api {
public:
    std::string_view name() const noexcept override { return "marked"; }
    std::string_view default_base_url() const noexcept override { return "http://127.0.0.1:1"; }
    std::string_view chat_path() const noexcept override { return "/v1/chat/completions"; }
    void add_auth(http_headers& fields, const std::string& key) const override {
        inner_.add_auth(fields, key);
        fields.add("x-marked", "yes");
    }
    std::string encode(const chat_request& r, bool stream) const override { return inner_.encode(r, stream); }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        return inner_.decode_reply(status, std::move(headers), body);
    }
    call_error decode_error(int status, http_headers headers, std::string_view body) const override {
        return inner_.decode_error(status, std::move(headers), body);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const override {
        return inner_.stream_decoder(std::move(headers), status);
    }
    std::string_view end_mark() const noexcept override { return inner_.end_mark(); }

private:
    openai::chat_api inner_;
};

}  // namespace wire_tests

TEST_CASE("a program's own wire_api: the client speaks it") {
    fake_server server;
    asio::io_context io;
    client_config c;
    c.wire = std::make_shared<marked_api>();
    c.base_url = server.base_url();
    chat_client client(io.get_executor(), c);
    CHECK(client.wire()->name() == "marked");
    const auto r = run_on(io, client.chat(question("echo this")));
    REQUIRE(r.has_value());
    CHECK(r->text() == "echo this");
    CHECK(server.last_request().header("x-marked") == "yes");
    const auto s = run_on(io, stream_all(client, question("and this")));
    REQUIRE(s.has_value());
    CHECK(s->reply.text() == "and this");
}

namespace wire_tests {

/// A wire API of a program's own whose endpoint depends on the request (the model in the path,
/// a query for streaming), whose streams are JSON lines ending with the body (no end mark: the
/// last line says `"done": true`), with an embeddings endpoint of its own.
class lines_api final : public wire_api {
public:
    std::string_view name() const noexcept override { return "lines"; }
    std::string_view default_base_url() const noexcept override { return "http://127.0.0.1:1"; }
    std::string_view chat_path() const noexcept override { return "/unused/chat/completions"; }
    void add_auth(http_headers& fields, const std::string& key) const override { fields.add("x-lines-key", key); }
    std::string encode(const chat_request& r, bool stream) const override { return inner_.encode(r, stream); }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        return inner_.decode_reply(status, std::move(headers), body);
    }
    call_error decode_error(int status, http_headers headers, std::string_view body) const override {
        return inner_.decode_error(status, std::move(headers), body);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers, int) const override {
        return std::make_unique<decoder>();
    }
    std::string_view end_mark() const noexcept override { return "a line with \"done\": true"; }
    std::string chat_target(const chat_request& r, bool stream) const override {
        return "/v1/models/" + r.params.model.value_or("none") + "/chat/completions" + (stream ? "?stream=lines" : "");
    }
    stream_framing framing() const noexcept override { return stream_framing::ndjson; }
    std::string embed_target(const embedding_request& r) const override { return "/v1/models/" + r.model + "/embeddings"; }
    std::string encode_embedding(const embedding_request& r) const override {
        return boost::json::serialize(openai::encode_embedding_request(r));
    }
    boost::system::result<embedding_reply, call_error> decode_embedding(int status, http_headers headers,
                                                                        std::string_view body) const override {
        return openai::decode_embedding_reply(status, std::move(headers), body);
    }

    /// Each line `{"text": "..."}` is a text delta; `{"done": true}` ends the reply. A body that
    /// ends after a line with `"last": true` also completes it.
    class decoder final : public wire_stream_decoder {
    public:
        std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) override {
            CHECK(event.empty());
            boost::system::error_code ec;
            const auto v = boost::json::parse(data, ec);
            if (ec || !v.is_object()) {
                call_error e;
                e.code = make_error_code(errc::protocol);
                e.message = "not a JSON object: " + std::string(data);
                return e;
            }
            const auto& o = v.get_object();
            if (const auto* t = o.if_contains("text"); t && t->is_string()) {
                stream_event e;
                e.type = stream_event::kind::text;
                e.text = std::string(t->get_string());
                text_ += e.text;
                reply_.choices.resize(1);
                reply_.choices[0].message = make_message(role::assistant, text_);
                out.push_back(std::move(e));
            }
            last_ = o.contains("last");
            if (o.contains("done")) finish(out);
            return std::nullopt;
        }
        bool done() const noexcept override { return done_; }
        const chat_reply& reply() const noexcept override { return reply_; }
        chat_reply take_reply() override { return std::move(reply_); }
        bool end_of_body(std::vector<stream_event>& out) override {
            if (!last_) return false;
            finish(out);
            return true;
        }

    private:
        void finish(std::vector<stream_event>& out) {
            done_ = true;
            stream_event e;
            e.type = stream_event::kind::done;
            out.push_back(std::move(e));
        }
        chat_reply reply_;
        std::string text_;
        bool done_ = false;
        bool last_ = false;
    };

private:
    openai::chat_api inner_;
};

client_config lines_config(const fake_server& server) {
    client_config c;
    c.wire = std::make_shared<lines_api>();
    c.base_url = server.base_url();
    c.api_key = "lines-key-0123456789";
    c.net.retry.max_retries = 0;
    return c;
}

fake_step lines_step(std::string body) {
    return fake_step::http_status(200, {{"content-type", "application/x-ndjson"}}, std::move(body));
}

}  // namespace wire_tests

TEST_CASE("a program's own wire_api: a target per request, JSON lines, a stream that ends with its body, embeddings") {
    fake_server server;
    server.set_script({{lines_step("{\"text\": \"Hel\"}\n\n{\"text\": \"lo\"}\r\n{\"done\": true}\n"),
                        lines_step("{\"text\": \"cut\"}\n{\"text\": \" here\", \"last\": true}"),
                        lines_step("{\"text\": \"cut\"}\n"),
                        lines_step("{\"text\": \"x\"}\nnot json\n"),
                        fake_step::http_status(200, {{"content-type", "text/event-stream"}}, "data: {}\n\n")}});
    asio::io_context io;
    chat_client client(io.get_executor(), lines_config(server));

    // the model in the path, the query for streaming; the lines in any framing of line ends
    auto s = run_on(io, stream_all(client, question("hi", "m-1")));
    REQUIRE(s.has_value());
    CHECK(server.last_request().target == "/v1/models/m-1/chat/completions?stream=lines");
    CHECK(server.last_request().header("accept") == "application/x-ndjson");
    CHECK(server.last_request().header("x-lines-key") == "lines-key-0123456789");
    CHECK(text_of(s->events, stream_event::kind::text) == "Hello");
    CHECK(s->events.back().type == stream_event::kind::done);
    CHECK(s->reply.text() == "Hello");

    // a last line without its line end, then the end of the body completing the reply
    s = run_on(io, stream_all(client, question("hi", "m-2")));
    REQUIRE(s.has_value());
    CHECK(text_of(s->events, stream_event::kind::text) == "cut here");

    // a body that ends where the decoder does not take it as complete: the stream was cut
    s = run_on(io, stream_all(client, question("hi", "m-3")));
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code == make_error_code(errc::protocol));
    CHECK(s.error().message == "the stream ended before its end mark (a line with \"done\": true)");

    // a line the decoder refuses
    s = run_on(io, stream_all(client, question("hi", "m-4")));
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().message == "not a JSON object: not json");

    // server-sent events where JSON lines are expected
    s = run_on(io, stream_all(client, question("hi", "m-5")));
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code == make_error_code(errc::protocol));
    CHECK(s.error().message.starts_with(
        "expected JSON lines (Content-Type application/x-ndjson), found Content-Type 'text/event-stream'"));

    // a non-streamed call on the request's own path
    server.set_script({});
    const auto r = run_on(io, client.chat(question("plain", "m-6")));
    REQUIRE(r.has_value());
    CHECK(r->text() == "plain");
    CHECK(server.last_request().target == "/v1/models/m-6/chat/completions");

    // embeddings on the API's own endpoint
    embedding_request e;
    e.model = "emb-1";
    e.input = {"one", "two"};
    e.dimensions = 3;
    const auto v = run_on(io, client.embed(e));
    REQUIRE(v.has_value());
    CHECK(v->data.size() == 2);
    CHECK(server.last_request().target == "/v1/models/emb-1/embeddings");
}

TEST_CASE("embeddings on an API without them: errc::invalid_argument, the API named") {
    fake_server server;
    asio::io_context io;
    chat_client client(io.get_executor(), config_for(server, api::anthropic));
    embedding_request e;
    e.model = "m";
    e.input = {"x"};
    const auto v = run_on(io, client.embed(e));
    REQUIRE_FALSE(v.has_value());
    CHECK(v.error().code == make_error_code(errc::invalid_argument));
    CHECK(v.error().message == "embeddings need an API with an embeddings endpoint; this client speaks anthropic");
    CHECK(server.requests().empty());
}
