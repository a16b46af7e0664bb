// Tests of a bot and the ai-style calls (extract<T>, generate, embed) over Ollama's native API
// and over Azure OpenAI, against the fake server: the request bodies it received are checked
// against the APIs' shapes (Ollama's tools, tool_calls with object arguments, tool results by
// tool_name, `format` with the struct's schema; Azure's deployment paths).
#include <parley/bot/bot.hpp>
#include <parley/bot/client_model.hpp>
#include <parley/bot/embed.hpp>
#include <parley/bot/extract.hpp>
#include <parley/bot/generate.hpp>
#include <parley/chat/yaml.hpp>

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

namespace ollama_bot_test {

struct city_query {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(city_query, (), (city))

struct city_weather {
    std::string city;
    int celsius = 0;
};
BOOST_DESCRIBE_STRUCT(city_weather, (), (city, celsius))

constexpr std::string_view weather_set = R"(
templates:
  weather:
    messages:
      - role: default-request
        model: qwen3:8b
        max_tokens: 100
      - role: system
        content: Answer in one sentence.
      - role: user
        content: "Weather in {{ city }}?"
      - role: request
        functions: [get_weather]
        call_function: get_weather
)";

template <class T>
T run_on(boost::asio::io_context& io, boost::asio::awaitable<T> a) {
    auto f = boost::asio::co_spawn(io, std::move(a), boost::asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

parley::client_config config_for(const parley::testing::fake_server& server) {
    parley::client_config c;
    c.api = parley::api::ollama;
    c.base_url = server.base_url();
    c.net.timeouts.total = std::chrono::seconds(30);
    return c;
}

}  // namespace ollama_bot_test

TEST_CASE("a bot over Ollama's API: tool calls with object arguments, results by tool_name, streamed text") {
    namespace o = ollama_bot_test;
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::tool_calls({{"", "get_weather", R"({"city": "Oslo"})"}}));
    server.push(parley::testing::fake_step::text("It is -3 degrees in Oslo."));
    boost::asio::io_context io;
    parley::chat_client client(io.get_executor(), o::config_for(server));
    parley::yaml_options yo;
    yo.external_functions = {"get_weather"};
    parley::bot bot(parley::load_template_set(o::weather_set, "weather.yaml", yo), std::make_shared<parley::client_model>(client));
    bot.add_function("get_weather", "Current weather for a city", [](o::city_query q) { return o::city_weather{q.city, -3}; });
    std::string streamed;
    parley::run_options opt;
    opt.on_text = [&](std::string_view d) { streamed += d; };
    const auto out = o::run_on(io, bot.run("weather", boost::json::parse(R"({"city": "Oslo"})"), {}, opt));
    CHECK(streamed == "It is -3 degrees in Oslo.");
    REQUIRE(out.size() == 7);
    REQUIRE(out[4].tool_calls.size() == 1);
    const std::string id = out[4].tool_calls[0].id;
    CHECK(id.rfind("ollama-call-0-", 0) == 0);
    CHECK(out[5].tool_call_id == id);
    CHECK(out[6] == parley::make_message(parley::role::assistant, "It is -3 degrees in Oslo."));

    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].target == "/api/chat");
    const boost::json::value first = requests[0].json();
    const boost::json::value second = requests[1].json();
    CHECK(first.at("stream") == true);
    CHECK(first.at("options") == boost::json::parse(R"({"num_predict": 100})"));
    // the forced function is the one tool offered (Ollama has no tool_choice)
    CHECK(first.at("tools") == boost::json::parse(R"([{"type": "function", "function": {"name": "get_weather",
        "description": "Current weather for a city", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}}}])"));
    // the generated id is not sent: Ollama matches the result to its call by the function's name
    CHECK(second.at("messages") == boost::json::parse(R"([
        {"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
        {"role": "tool", "content": "{\"city\":\"Oslo\",\"celsius\":-3}", "tool_name": "get_weather"}])"));
    CHECK(second.at("tools").as_array().size() == 1);
}

TEST_CASE("ai-style calls over Ollama's API: extract<T> through `format` and through a tool call, generate, embed") {
    namespace o = ollama_bot_test;
    parley::testing::fake_server server;
    boost::asio::io_context io;
    parley::chat_client client(io.get_executor(), o::config_for(server));
    parley::client_model model(client);

    // json_schema: `format` is the struct's strict schema; the first reply does not fit, the re-ask does
    server.push(parley::testing::fake_step::text(R"({"city":"Oslo"})"));
    server.push(parley::testing::fake_step::text(R"({"city":"Oslo","celsius":-3})"));
    parley::extract_options<o::city_weather> opt;
    opt.mode = parley::extract_mode::json_schema;
    opt.params.model = "qwen3:8b";
    const auto w = o::run_on(io, parley::extract<o::city_weather>(model, "Weather in {{ city }}?",
                                                                 boost::json::parse(R"({"city": "Oslo"})"), opt));
    REQUIRE_MESSAGE(w.has_value(), (w ? std::string() : w.error().what()));
    CHECK(w->city == "Oslo");
    CHECK(w->celsius == -3);
    auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    const auto format = requests[0].json().at("format");
    CHECK(format.at("required") == boost::json::parse(R"(["city", "celsius"])"));
    CHECK(format.at("additionalProperties") == false);
    // the re-ask carries the model's reply and the problems
    CHECK(requests[1].json().at("messages").as_array().size() == 3);

    // tool_call: the function whose arguments are the struct, offered alone
    server.clear_requests();
    server.push(parley::testing::fake_step::tool_calls({{"", "city_weather", R"({"city":"Rome","celsius":21})"}}));
    parley::extract_options<o::city_weather> call_opt;
    call_opt.mode = parley::extract_mode::tool_call;
    call_opt.params.model = "qwen3:8b";
    const auto r = o::run_on(io, parley::extract<o::city_weather>(model, "Weather in Rome?", boost::json::object{}, call_opt));
    REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().what()));
    CHECK(r->city == "Rome");
    CHECK(r->celsius == 21);
    const auto body = server.last_request().json();
    REQUIRE(body.at("tools").as_array().size() == 1);
    CHECK(body.at("tools").at(0).at("function").at("name") == "city_weather");

    // generate: the reply's text
    server.push(parley::testing::fake_step::text("Hello."));
    parley::generate_options gen;
    gen.params.model = "qwen3:8b";
    const auto text = o::run_on(io, parley::generate(model, "Say hello", boost::json::object{}, gen));
    REQUIRE(text.has_value());
    CHECK(*text == "Hello.");

    // embed: one request with the texts as an array
    parley::embed_options eo;
    eo.model = "nomic-embed-text";
    eo.dimensions = 4;
    const auto vectors = o::run_on(io, parley::embed(client, {"a", "b"}, eo));
    REQUIRE_MESSAGE(vectors.has_value(), (vectors ? std::string() : vectors.error().what()));
    REQUIRE(vectors->size() == 2);
    CHECK((*vectors)[0].size() == 4);
    CHECK(server.last_request().target == "/api/embed");
    CHECK(server.last_request().json().at("input") == boost::json::parse(R"(["a", "b"])"));
}

TEST_CASE("a bot over Azure OpenAI: the deployment in the path, tool calls as OpenAI's") {
    namespace o = ollama_bot_test;
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::tool_calls({{"call_1", "get_weather", R"({"city": "Oslo"})"}}));
    server.push(parley::testing::fake_step::text("It is -3 degrees in Oslo."));
    boost::asio::io_context io;
    parley::client_config c;
    c.api = parley::api::azure;
    c.base_url = server.url("/openai");
    c.api_key = "azure-key-0123456789";
    c.azure.api_version = "2024-10-21";
    c.azure.deployment = "weather-gpt";
    c.net.timeouts.total = std::chrono::seconds(30);
    parley::chat_client client(io.get_executor(), c);
    parley::yaml_options yo;
    yo.external_functions = {"get_weather"};
    parley::bot bot(parley::load_template_set(o::weather_set, "weather.yaml", yo), std::make_shared<parley::client_model>(client));
    bot.add_function("get_weather", "Current weather for a city", [](o::city_query q) { return o::city_weather{q.city, -3}; });
    const auto out = o::run_on(io, bot.run("weather", boost::json::parse(R"({"city": "Oslo"})"), {}, {}));
    REQUIRE(out.size() == 7);
    CHECK(out[5].tool_call_id == "call_1");
    CHECK(out[6].text() == "It is -3 degrees in Oslo.");
    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    for (const auto& r : requests) {
        CHECK(r.target == "/openai/deployments/weather-gpt/chat/completions?api-version=2024-10-21");
        CHECK(r.header("api-key") == "azure-key-0123456789");
    }
    CHECK(requests[0].json().at("tool_choice") ==
          boost::json::parse(R"({"type": "function", "function": {"name": "get_weather"}})"));
    CHECK(requests[1].json().at("messages").at(3).at("tool_call_id") == "call_1");
}
