// Tests of a bot and the ai-style calls (extract<T>, generate, embed) over the Gemini API,
// against the fake server's Gemini routes: the request bodies it received are checked against
// the API's shapes (systemInstruction, functionDeclarations, toolConfig, functionCall and
// functionResponse parts, responseJsonSchema).
#include <parley/bot/client_model.hpp>
#include <parley/bot/embed.hpp>
#include <parley/bot/extract.hpp>
#include <parley/bot/generate.hpp>
#include <parley/bot/bot.hpp>
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

namespace gemini_bot_test {

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
        model: gemini-2.5-flash
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
    c.api = parley::api::gemini;
    c.base_url = server.url("/v1beta");
    c.api_key = "AIza-test-key-0123456789";
    c.net.timeouts.total = std::chrono::seconds(30);
    return c;
}

}  // namespace gemini_bot_test

TEST_CASE("a bot over HTTP: the Gemini API, functionCall and functionResponse parts on the wire, streamed text") {
    namespace g = gemini_bot_test;
    parley::testing::fake_server server;
    server.push(parley::testing::fake_step::tool_calls({{"", "get_weather", R"({"city": "Oslo"})"}}));
    server.push(parley::testing::fake_step::text("It is -3 degrees in Oslo."));
    boost::asio::io_context io;
    parley::chat_client client(io.get_executor(), g::config_for(server));
    parley::yaml_options yo;
    yo.external_functions = {"get_weather"};
    parley::bot bot(parley::load_template_set(g::weather_set, "weather.yaml", yo), std::make_shared<parley::client_model>(client));
    bot.add_function("get_weather", "Current weather for a city", [](g::city_query q) { return g::city_weather{q.city, -3}; });
    std::string streamed;
    parley::run_options opt;
    opt.on_text = [&](std::string_view d) { streamed += d; };
    const auto out = g::run_on(io, bot.run("weather", boost::json::parse(R"({"city": "Oslo"})"), {}, opt));
    CHECK(streamed == "It is -3 degrees in Oslo.");
    REQUIRE(out.size() == 7);
    REQUIRE(out[4].tool_calls.size() == 1);
    const std::string id = out[4].tool_calls[0].id;
    CHECK(id.rfind("gemini-call-", 0) == 0);
    CHECK(out[5].tool_call_id == id);
    CHECK(out[6] == parley::make_message(parley::role::assistant, "It is -3 degrees in Oslo."));

    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].target == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    const boost::json::value first = requests[0].json();
    const boost::json::value second = requests[1].json();
    CHECK(first.at("systemInstruction") == boost::json::parse(R"({"parts": [{"text": "Answer in one sentence."}]})"));
    CHECK(first.at("generationConfig") == boost::json::parse(R"({"maxOutputTokens": 100})"));
    CHECK(first.at("tools") == boost::json::parse(R"([{"functionDeclarations": [{"name": "get_weather",
        "description": "Current weather for a city", "parametersJsonSchema": {"type": "object",
        "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}}]}])"));
    CHECK(first.at("toolConfig") ==
          boost::json::parse(R"({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}})"));
    CHECK(second.at("toolConfig") == boost::json::parse(R"({"functionCallingConfig": {"mode": "AUTO"}})"));
    // the generated id is not sent: the API matches the response to its call by name
    CHECK(second.at("contents") == boost::json::parse(R"([
        {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"city": "Oslo", "celsius": -3}}}]}])"));
}

TEST_CASE("ai-style calls over the Gemini API: extract<T> through responseJsonSchema and through a forced call, generate, embed") {
    namespace g = gemini_bot_test;
    parley::testing::fake_server server;
    boost::asio::io_context io;
    parley::chat_client client(io.get_executor(), g::config_for(server));
    parley::client_model model(client);

    // json_schema: responseMimeType + responseJsonSchema; the first reply does not fit, the re-ask does
    server.push(parley::testing::fake_step::text(R"({"city":"Oslo"})"));
    server.push(parley::testing::fake_step::text(R"({"city":"Oslo","celsius":-3})"));
    parley::extract_options<g::city_weather> opt;
    opt.mode = parley::extract_mode::json_schema;
    opt.params.model = "gemini-2.5-flash";
    const auto w = g::run_on(io, parley::extract<g::city_weather>(model, "Weather in {{ city }}?",
                                                                 boost::json::parse(R"({"city": "Oslo"})"), opt));
    REQUIRE_MESSAGE(w.has_value(), (w ? std::string() : w.error().what()));
    CHECK(w->city == "Oslo");
    CHECK(w->celsius == -3);
    auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    const auto config = requests[0].json().at("generationConfig");
    CHECK(config.at("responseMimeType") == "application/json");
    CHECK(config.at("responseJsonSchema").at("required") == boost::json::parse(R"(["city", "celsius"])"));
    CHECK(config.at("responseJsonSchema").at("additionalProperties") == false);
    // the re-ask carries the model's reply and the problems
    CHECK(requests[1].json().at("contents").as_array().size() == 3);

    // tool_call: a forced function call whose args are the struct
    server.clear_requests();
    server.push(parley::testing::fake_step::tool_calls({{"", "city_weather", R"({"city":"Rome","celsius":21})"}}));
    parley::extract_options<g::city_weather> call_opt;
    call_opt.mode = parley::extract_mode::tool_call;
    call_opt.params.model = "gemini-2.5-flash";
    const auto r = g::run_on(io, parley::extract<g::city_weather>(model, "Weather in Rome?", boost::json::object{}, call_opt));
    REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().what()));
    CHECK(r->city == "Rome");
    CHECK(r->celsius == 21);
    const auto body = server.last_request().json();
    CHECK(body.at("toolConfig").at("functionCallingConfig").at("mode") == "ANY");
    CHECK(body.at("tools").at(0).at("functionDeclarations").at(0).at("name") == "city_weather");

    // generate: the reply's text
    server.push(parley::testing::fake_step::text("Hello."));
    parley::generate_options gen;
    gen.params.model = "gemini-2.5-flash";
    const auto text = g::run_on(io, parley::generate(model, "Say hello", boost::json::object{}, gen));
    REQUIRE(text.has_value());
    CHECK(*text == "Hello.");

    // embed: batchEmbedContents for several texts
    parley::embed_options eo;
    eo.model = "gemini-embedding-001";
    eo.dimensions = 4;
    const auto vectors = g::run_on(io, parley::embed(client, {"a", "b"}, eo));
    REQUIRE_MESSAGE(vectors.has_value(), (vectors ? std::string() : vectors.error().what()));
    REQUIRE(vectors->size() == 2);
    CHECK((*vectors)[0].size() == 4);
    CHECK(server.last_request().target == "/v1beta/models/gemini-embedding-001:batchEmbedContents");
}
