// Tests of parley/bot/client_model.hpp: a bot that talks through a chat_client, with the
// client's scripted API (the requests the client passed on are read back) and over HTTP against
// the fake server of parley/testing (the request bodies it received are checked against the wire
// formats of OpenAI chat completions and Anthropic Messages), plain and streamed.
#include <parley/bot/client_model.hpp>
#include <parley/bot/embed.hpp>
#include <parley/bot/extract.hpp>
#include <parley/bot/bot.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/schema/annotations.hpp>

#include <parley/testing/fake_server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace wire {

struct weather_query {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(weather_query, (), (city))

struct weather {
    std::string city;
    int celsius = 0;
};
BOOST_DESCRIBE_STRUCT(weather, (), (city, celsius))

}  // namespace wire

namespace {

constexpr std::string_view set = R"(
templates:
  main:
    messages:
      - role: user
        content: "{{ q }}"
      - role: request
        temperature: 0.25
)";

template <class T>
T run_in(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

}  // namespace

TEST_CASE("a bot over a chat_client: the client's defaults under the bot's parameters, plain and streamed") {
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::scripted;
    config.defaults.model = "client-default";
    config.script->push_text("first answer");
    config.script->push_text("second answer");
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), config);
    parley::bot bot(parley::load_template_set(set), std::make_shared<parley::client_model>(client));

    auto history = run_in(io, bot.run("main", boost::json::parse(R"({"q": "one"})"), {}));
    std::string streamed;
    parley::run_options opt;
    opt.on_text = [&](std::string_view d) { streamed += d; };
    history = run_in(io, bot.run("main", boost::json::parse(R"({"q": "two"})"), history, opt));

    const auto requests = config.script->requests();
    REQUIRE(requests.size() == 2);
    parley::request_params expected;
    expected.model = "client-default";
    expected.temperature = 0.25;
    CHECK(requests[0].params == expected);
    CHECK(requests[1].params == expected);
    CHECK(requests[0].messages == std::vector<parley::message>{parley::make_message(parley::role::user, "one")});
    CHECK(requests[1].messages.size() == 3);
    CHECK(streamed == "second answer");
    REQUIRE(history.size() == 6);
    CHECK(history[2] == parley::make_message(parley::role::assistant, "first answer"));
    CHECK(history[5] == parley::make_message(parley::role::assistant, "second answer"));
}

TEST_CASE("a bot over a chat_client: a failed call is a call_exception and nothing is kept") {
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::scripted;
    parley::call_error e;
    e.code = parley::make_error_code(parley::errc::api_error);
    e.status = 500;
    e.message = "overloaded";
    config.script->push(e);
    parley::chat_client client(io.get_executor(), config);
    parley::bot bot(parley::load_template_set(set), std::make_shared<parley::client_model>(client));
    const std::vector<parley::message> before{parley::make_message(parley::role::user, "earlier")};
    std::vector<parley::message> history = before;
    try {
        history = run_in(io, bot.run("main", boost::json::parse(R"({"q": "x"})"), history));
        FAIL("the run should fail");
    } catch (const parley::call_exception& x) {
        CHECK(x.detail().status == 500);
        CHECK(x.detail().message == "overloaded");
    }
    CHECK(history == before);
}

namespace {

constexpr std::string_view wire_weather_set = R"(
templates:
  weather:
    messages:
      - role: default-request
        model: wire-model
        max_tokens: 100
      - role: system
        content: Answer in one sentence.
      - role: user
        content: "Weather in {{ city }}?"
      - role: request
        functions: [get_weather]
        call_function: get_weather
)";

parley::net::client_options quick() {
    parley::net::client_options o;
    o.timeouts.connect = 5s;
    o.timeouts.idle = 5s;
    o.timeouts.total = 30s;
    return o;
}

/// The bot of wire_weather_set over a client of `which` API on the fake server, with get_weather.
parley::bot weather_bot(parley::chat_client& client) {
    parley::yaml_options o;
    o.external_functions = {"get_weather"};
    parley::bot bot(parley::load_template_set(wire_weather_set, "weather.yaml", o),
                    std::make_shared<parley::client_model>(client));
    bot.add_function("get_weather", "Current weather for a city",
                     [](wire::weather_query q) { return wire::weather{q.city, -3}; });
    return bot;
}

}  // namespace

TEST_CASE("a bot over HTTP: OpenAI chat completions, tools and tool messages on the wire, streamed text") {
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::tool_calls({{"call_w", "get_weather", R"({"city": "Oslo"})"}}));
    server.push(parley::testing::fake_step::text("It is -3 degrees in Oslo."));
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::openai;
    config.base_url = server.url("/v1");
    config.api_key = "sk-test-key-0123456789";
    config.net = quick();
    parley::chat_client client(io.get_executor(), config);
    parley::bot bot = weather_bot(client);

    std::vector<std::string> deltas;
    parley::run_options opt;
    opt.on_text = [&](std::string_view d) { deltas.emplace_back(d); };
    const auto out = run_in(io, bot.run("weather", boost::json::parse(R"({"city": "Oslo"})"), {}, opt));

    // the fake server streams text in deltas of 4 bytes
    std::string joined;
    for (const auto& d : deltas) joined += d;
    CHECK(joined == "It is -3 degrees in Oslo.");
    CHECK(deltas.size() == 7);
    CHECK(deltas.front() == "It i");

    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    const boost::json::value first = requests[0].json();
    const boost::json::value second = requests[1].json();
    CHECK(first.at("model") == "wire-model");
    CHECK(first.at("max_tokens") == 100);
    CHECK(first.at("stream") == true);
    // OpenAI's shapes: tools[].function, a forced tool_choice, then "auto"
    CHECK(first.at("tools") == boost::json::parse(R"([{"type": "function", "function": {"name": "get_weather",
        "description": "Current weather for a city", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}}}])"));
    CHECK(first.at("tool_choice") == boost::json::parse(R"({"type": "function", "function": {"name": "get_weather"}})"));
    CHECK(second.at("tool_choice") == "auto");
    CHECK(first.at("messages") == boost::json::parse(R"([{"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": "Weather in Oslo?"}])"));
    const auto& messages = second.at("messages").as_array();
    REQUIRE(messages.size() == 4);
    CHECK(messages[2].at("role") == "assistant");
    CHECK(messages[2].at("tool_calls").at(0).at("id") == "call_w");
    CHECK(messages[2].at("tool_calls").at(0).at("function").at("name") == "get_weather");
    CHECK(boost::json::parse(messages[2].at("tool_calls").at(0).at("function").at("arguments").as_string()) ==
          boost::json::parse(R"({"city": "Oslo"})"));
    CHECK(messages[3].at("role") == "tool");
    CHECK(messages[3].at("tool_call_id") == "call_w");
    CHECK(boost::json::parse(messages[3].at("content").as_string()) == boost::json::parse(R"({"city": "Oslo", "celsius": -3})"));

    REQUIRE(out.size() == 7);
    CHECK(out[6] == parley::make_message(parley::role::assistant, "It is -3 degrees in Oslo."));
}

TEST_CASE("a bot over HTTP: Anthropic Messages, tool_use and tool_result on the wire") {
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::tool_calls({{"toolu_1", "get_weather", R"({"city": "Oslo"})"}}));
    server.push(parley::testing::fake_step::text("Cold."));
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::anthropic;
    config.base_url = server.base_url();
    config.api_key = "sk-ant-test-key-0123456789";
    config.net = quick();
    parley::chat_client client(io.get_executor(), config);
    parley::bot bot = weather_bot(client);
    const auto out = run_in(io, bot.run("weather", boost::json::parse(R"({"city": "Oslo"})"), {}));

    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    const boost::json::value first = requests[0].json();
    const boost::json::value second = requests[1].json();
    // Anthropic's shapes: the system prompt apart, tools with input_schema, tool_choice by name
    CHECK(first.at("system") == "Answer in one sentence.");
    CHECK(first.at("tools").at(0).at("name") == "get_weather");
    CHECK(first.at("tools").at(0).at("input_schema").at("required") == boost::json::parse(R"(["city"])"));
    CHECK(first.at("tool_choice") == boost::json::parse(R"({"type": "tool", "name": "get_weather"})"));
    CHECK(second.at("tool_choice") == boost::json::parse(R"({"type": "auto"})"));
    const auto& messages = second.at("messages").as_array();
    REQUIRE(messages.size() == 3);
    CHECK(messages[1].at("role") == "assistant");
    CHECK(messages[1].at("content").at(0).at("type") == "tool_use");
    CHECK(messages[1].at("content").at(0).at("id") == "toolu_1");
    CHECK(messages[1].at("content").at(0).at("input") == boost::json::parse(R"({"city": "Oslo"})"));
    CHECK(messages[2].at("role") == "user");
    CHECK(messages[2].at("content").at(0).at("type") == "tool_result");
    CHECK(messages[2].at("content").at(0).at("tool_use_id") == "toolu_1");
    REQUIRE(out.size() == 7);
    CHECK(out[5].tool_call_id == "toolu_1");
    CHECK(out[6] == parley::make_message(parley::role::assistant, "Cold."));
}

TEST_CASE("a bot and extract over HTTP: the Responses API, function calls and text.format on the wire") {
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::tool_calls({{"call_r", "get_weather", R"({"city": "Oslo"})"}}));
    server.push(parley::testing::fake_step::text("Cold in Oslo."));
    server.push(parley::testing::fake_step::text(R"({"city":"Oslo","celsius":-3})"));
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::responses;
    config.base_url = server.url("/v1");
    config.api_key = "sk-test-key-0123456789";
    config.net = quick();
    parley::chat_client client(io.get_executor(), config);
    parley::bot bot = weather_bot(client);
    const auto out = run_in(io, bot.run("weather", boost::json::parse(R"({"city": "Oslo"})"), {}));
    REQUIRE(out.size() == 7);
    CHECK(out[5].tool_call_id == "call_r");
    CHECK(out[6] == parley::make_message(parley::role::assistant, "Cold in Oslo."));

    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].target == "/v1/responses");
    const boost::json::value first = requests[0].json();
    const boost::json::value second = requests[1].json();
    // the Responses API's shapes: instructions, flat function tools, tool_choice by name, then auto
    CHECK(first.at("instructions") == "Answer in one sentence.");
    CHECK(first.at("max_output_tokens") == 100);
    CHECK(first.at("tools").at(0).at("name") == "get_weather");
    CHECK(first.at("tools").at(0).at("strict") == false);
    CHECK(first.at("tool_choice") == boost::json::parse(R"({"type": "function", "name": "get_weather"})"));
    CHECK(second.at("tool_choice") == "auto");
    const auto& input = second.at("input").as_array();
    REQUIRE(input.size() == 3);
    CHECK(input[1].at("type") == "function_call");
    CHECK(input[1].at("call_id") == "call_r");
    CHECK(input[2].at("type") == "function_call_output");
    CHECK(boost::json::parse(input[2].at("output").as_string()) == boost::json::parse(R"({"city": "Oslo", "celsius": -3})"));

    // an ai-style call on the same client: extract<T> with a strict json_schema as text.format
    parley::client_model model(client);
    parley::extract_options<wire::weather> opt;
    opt.mode = parley::extract_mode::json_schema;
    opt.params.model = "gpt-5";
    const auto w = run_in(io, parley::extract<wire::weather>(model, "Weather in {{ city }}?", boost::json::parse(R"({"city": "Oslo"})"), opt));
    REQUIRE(w.has_value());
    CHECK(w->city == "Oslo");
    CHECK(w->celsius == -3);
    const auto format = server.last_request().json().at("text").at("format");
    CHECK(format.at("type") == "json_schema");
    CHECK(format.at("name") == "weather");
    CHECK(format.at("strict") == true);
    CHECK(format.at("schema").at("additionalProperties") == false);
}

TEST_CASE("embed: one vector per text, in order, from one embeddings request; bad calls are errors before any request") {
    parley::testing::fake_server server;
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::openai;
    config.base_url = server.url("/v1");
    config.api_key = "sk-test-key-0123456789";
    config.net = quick();
    config.defaults.model = "embed-default";
    parley::chat_client client(io.get_executor(), config);

    parley::testing::fake_step vectors;
    vectors.reply = parley::testing::fake_reply{};
    vectors.reply->embeddings = {{0.5, -0.25, 1.0}, {0.125, 0.0, -2.0}};
    server.push(vectors);
    parley::embed_options opt;
    opt.model = "text-embedding-3-small";
    opt.dimensions = 3;
    auto got = run_in(io, parley::embed(client, {"first text", "second text"}, opt));
    REQUIRE_MESSAGE(got.has_value(), (got ? std::string() : got.error().what()));
    CHECK(*got == std::vector<std::vector<float>>{{0.5f, -0.25f, 1.0f}, {0.125f, 0.0f, -2.0f}});
    const auto sent = server.last_request();
    CHECK(sent.target == "/v1/embeddings");
    CHECK(sent.json() == boost::json::parse(
                             R"({"model": "text-embedding-3-small", "input": ["first text", "second text"], "dimensions": 3})"));

    // the client's default model; the fake server's own vectors (16 numbers per text)
    auto by_default = run_in(io, parley::embed(client, {"only"}));
    REQUIRE(by_default.has_value());
    CHECK(by_default->size() == 1);
    CHECK(by_default->at(0).size() == 16);
    CHECK(server.last_request().json().as_object().at("model") == "embed-default");

    // a reply with fewer vectors than texts
    parley::testing::fake_step short_reply;
    short_reply.reply = parley::testing::fake_reply{};
    short_reply.reply->embeddings = {{1.0, 2.0}};
    server.push(short_reply);
    auto missing = run_in(io, parley::embed(client, {"a", "b"}));
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().code == parley::errc::protocol);
    CHECK(missing.error().message == "embed: the reply has 1 vectors for 2 texts");

    // refused before any request: an empty text, no model; no texts: nothing to ask
    const std::size_t requests = server.request_count();
    auto empty_text = run_in(io, parley::embed(client, {"a", ""}));
    REQUIRE_FALSE(empty_text.has_value());
    CHECK(empty_text.error().code == parley::errc::invalid_argument);
    CHECK(empty_text.error().message == "embed: text 1 is empty");
    parley::client_config no_model = config;
    no_model.defaults.model.reset();
    parley::chat_client unnamed(io.get_executor(), no_model);
    auto nameless = run_in(io, parley::embed(unnamed, {"a"}));
    REQUIRE_FALSE(nameless.has_value());
    CHECK(nameless.error().code == parley::errc::invalid_argument);
    auto nothing = run_in(io, parley::embed(client, {}));
    REQUIRE(nothing.has_value());
    CHECK(nothing->empty());
    CHECK(server.request_count() == requests);

    // a client of another API
    parley::client_config anthropic = config;
    anthropic.api = parley::api::anthropic;
    anthropic.base_url = server.base_url();
    parley::chat_client other(io.get_executor(), anthropic);
    auto refused = run_in(io, parley::embed(other, {"a"}));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == parley::errc::invalid_argument);
    CHECK(server.request_count() == requests);
}

namespace {

constexpr std::string_view reads_over_http = R"(
templates:
  no_request:
    messages:
      - role: default-request
        model: wire-model
      - role: system
        content: Answer briefly.
      - role: user
        content: "{{ input }}"
  after_request:
    messages:
      - role: default-request
        model: wire-model
      - role: user
        content: "{{ input }}"
      - role: request
        temperature: 0.5
      - role: user
        content: And in one word?
  router:
    messages:
      - role: default-request
        model: wire-model
      - role: user
        content: "{{ input }}"
      - role: request
        functions: [botSwitchTemplate]
        call_function: botSwitchTemplate
  middle:
    messages:
      - role: system
        content: You route again.
      - role: request
        functions: [botSwitchTemplate]
        call_function: botSwitchTemplate
      - role: assistant
        content: Back in the middle.
  plain:
    messages:
      - role: system
        content: You answer plainly.
)";

/// The bot of reads_over_http over OpenAI chat completions on `server`.
struct http_bot {
    asio::io_context io;
    parley::chat_client client;
    parley::bot bot;

    explicit http_bot(parley::testing::fake_server& server)
        : client(io.get_executor(), [&] {
              parley::client_config c;
              c.api = parley::api::openai;
              c.base_url = server.url("/v1");
              c.api_key = "sk-test-key-0123456789";
              c.net = quick();
              return c;
          }()),
          bot(parley::load_template_set(reads_over_http, "reads.yaml",
                                        [] {
                                            parley::yaml_options o;
                                            o.external_functions = {"botSwitchTemplate"};
                                            return o;
                                        }()),
              std::make_shared<parley::client_model>(client)) {}
};

/// The role and text content of every message of a request body.
std::vector<std::string> wire_messages(const boost::json::value& body) {
    std::vector<std::string> out;
    for (const auto& m : body.at("messages").as_array()) {
        std::string line(m.at("role").as_string());
        if (const auto* c = m.as_object().if_contains("content"); c && c->is_string()) line += ": " + std::string(c->as_string());
        if (m.as_object().contains("tool_calls")) line += " (calls)";
        out.push_back(line);
    }
    return out;
}

}  // namespace

TEST_CASE("every read that reads a message ends with a request, over HTTP: the number and bodies of the requests") {
    parley::testing::fake_server server;
    http_bot b(server);
    using lines = std::vector<std::string>;
    SUBCASE("a template without a request message") {
        server.push(parley::testing::fake_step::text("Paris."));
        const auto out = run_in(b.io, b.bot.run("no_request", boost::json::parse(R"({"input": "Capital of France?"})")));
        const auto requests = server.requests();
        REQUIRE(requests.size() == 1);
        const auto body = requests[0].json();
        CHECK(body.at("model") == "wire-model");
        CHECK(wire_messages(body) == lines{"system: Answer briefly.", "user: Capital of France?"});
        CHECK(out.back() == parley::make_message(parley::role::assistant, "Paris."));
    }
    SUBCASE("the messages after the last request") {
        server.push(parley::testing::fake_step::text("Paris is the capital of France."));
        server.push(parley::testing::fake_step::text("Paris."));
        const auto out = run_in(b.io, b.bot.run("after_request", boost::json::parse(R"({"input": "Capital of France?"})")));
        const auto requests = server.requests();
        REQUIRE(requests.size() == 2);
        const auto first = requests[0].json();
        const auto second = requests[1].json();
        CHECK(first.at("temperature") == 0.5);
        CHECK(wire_messages(first) == lines{"user: Capital of France?"});
        // the second read has no request message: the default-request's parameters alone
        CHECK_FALSE(second.as_object().contains("temperature"));
        CHECK(second.at("model") == "wire-model");
        CHECK(wire_messages(second) == lines{"user: Capital of France?", "assistant: Paris is the capital of France.",
                                             "user: And in one word?"});
        CHECK(out.back() == parley::make_message(parley::role::assistant, "Paris."));
    }
    SUBCASE("a template switched to without a request message, inside a switch") {
        server.push(parley::testing::fake_step::tool_calls({{"s1", "botSwitchTemplate", R"({"name": "middle"})"}}));
        server.push(parley::testing::fake_step::tool_calls({{"s2", "botSwitchTemplate", R"({"name": "plain"})"}}));
        server.push(parley::testing::fake_step::text("plain's reply"));
        server.push(parley::testing::fake_step::text("middle's second reply"));
        const auto out = run_in(b.io, b.bot.run("router", boost::json::parse(R"({"input": "Route me"})")));
        const auto requests = server.requests();
        REQUIRE(requests.size() == 4);
        CHECK(wire_messages(requests[0].json()) == lines{"user: Route me"});
        CHECK(requests[0].json().at("tool_choice").at("function").at("name") == "botSwitchTemplate");
        CHECK(wire_messages(requests[1].json()) == lines{"user: Route me", "assistant (calls)",
                                                         "tool: Switched to template 'middle'.", "system: You route again."});
        CHECK(wire_messages(requests[2].json()) ==
              lines{"user: Route me", "assistant (calls)", "tool: Switched to template 'middle'.", "system: You route again.",
                    "assistant (calls)", "tool: Switched to template 'plain'.", "system: You answer plainly."});
        CHECK_FALSE(requests[2].json().as_object().contains("tools"));
        CHECK(wire_messages(requests[3].json()).back() == "assistant: Back in the middle.");
        // the router ends right after its request: nothing more is sent
        CHECK(out.back() == parley::make_message(parley::role::assistant, "middle's second reply"));
    }
}

TEST_CASE("a failed function's result on the wire: Anthropic's is_error; usage of a run from the server's counts") {
    parley::testing::fake_server server;
    asio::io_context io;
    for (parley::api which : {parley::api::anthropic, parley::api::openai}) {
        CAPTURE(parley::api_name(which));
        parley::client_config config;
        config.api = which;
        config.base_url = which == parley::api::openai ? server.url("/v1") : server.base_url();
        config.api_key = "sk-test-key-0123456789";
        config.net = quick();
        parley::chat_client client(io.get_executor(), config);
        parley::yaml_options yo;
        yo.external_functions = {"get_weather"};
        parley::bot bot(parley::load_template_set(wire_weather_set, "weather.yaml", yo), std::make_shared<parley::client_model>(client));
        bot.add_function("get_weather", "Current weather for a city", [](wire::weather_query q) -> wire::weather {
            if (q.city == "Atlantis") throw parley::function_failure("no city named Atlantis");
            return wire::weather{q.city, -3};
        });
        auto calls = parley::testing::fake_step::tool_calls({{"toolu_1", "get_weather", R"({"city": "Atlantis"})"}});
        calls.reply->usage = parley::testing::fake_usage{1200, 30, 1024, 100, 0};
        auto answer = parley::testing::fake_step::text("There is no such city.");
        answer.reply->usage = parley::testing::fake_usage{1300, 20, 1200, 0, which == parley::api::openai ? 12u : 0u};
        server.push(calls);
        server.push(answer);
        const std::size_t before = server.request_count();
        parley::usage_summary usage;
        parley::run_options opt;
        opt.usage = &usage;
        if (which == parley::api::openai) opt.on_text = [](std::string_view) {};  // streamed, with include_usage
        const auto out = run_in(io, bot.run("weather", boost::json::parse(R"({"city": "Atlantis"})"), {}, opt));
        REQUIRE(out.size() == 7);
        CHECK(out[5].is_error);
        CHECK(out[5].text() == "Error: no city named Atlantis");
        const auto requests = server.requests();
        REQUIRE(requests.size() == before + 2);
        const auto second = requests[before + 1].json();
        if (which == parley::api::anthropic) {
            const auto& result = second.at("messages").as_array().at(2).at("content").at(0);
            CHECK(result.at("type") == "tool_result");
            CHECK(result.at("is_error") == true);
        } else {
            // OpenAI's tool messages have no such field: the text says it
            const auto& tool = second.at("messages").as_array().at(3);
            CHECK(tool.at("role") == "tool");
            CHECK_FALSE(tool.as_object().contains("is_error"));
        }
        REQUIRE(usage.models.size() == 1);
        const auto& u = usage.models[0];
        CHECK(u.model == "wire-model");
        CHECK(u.requests == 2);
        CHECK(u.attempts == 2);
        CHECK(u.input_tokens == 2500);
        CHECK(u.output_tokens == 50);
        CHECK(u.cached_input_tokens == 2224);
        CHECK(u.cache_write_tokens == (which == parley::api::anthropic ? 100 : 0));
        CHECK(u.reasoning_tokens == (which == parley::api::openai ? 12 : 0));
        CHECK(u.unreported == 0);
    }
}

TEST_CASE("embed: the texts as a brace list in an expression that awaits") {
    // g++ 12 cannot compile a std::initializer_list there ("array used as initializer");
    // parley::string_list takes the strings of the brace list as constructor arguments.
    parley::testing::fake_server server;
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::openai;
    config.base_url = server.url("/v1");
    config.api_key = "sk-test-key-0123456789";
    config.net = quick();
    parley::chat_client client(io.get_executor(), config);

    parley::testing::fake_step vectors;
    vectors.reply = parley::testing::fake_reply{};
    vectors.reply->embeddings = {{1.0, 0.0}, {0.0, 1.0}};
    server.push(vectors);
    auto got = run_in(io, [](parley::chat_client& c)
                              -> asio::awaitable<boost::system::result<std::vector<std::vector<float>>, parley::call_error>> {
        parley::embed_options opt;
        opt.model = "text-embedding-3-small";
        co_return co_await parley::embed(c, {"first text", "second text"}, opt);
    }(client));
    REQUIRE_MESSAGE(got.has_value(), (got ? std::string() : got.error().what()));
    CHECK(*got == std::vector<std::vector<float>>{{1.0f, 0.0f}, {0.0f, 1.0f}});
    CHECK(server.last_request().json() ==
          boost::json::parse(R"({"model": "text-embedding-3-small", "input": ["first text", "second text"]})"));
}
