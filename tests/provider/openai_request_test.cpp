// Tests of parley/provider/openai_request.hpp: the chat-completions body from rendered messages,
// parameters and function definitions.
#include <parley/provider/openai_request.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace parley;

namespace {

std::vector<function_definition> weather() {
    return {{"get_weather", "Weather of a city.",
             boost::json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})")
                 .as_object()},
            {"ping", "", {}}};
}

}  // namespace

TEST_CASE("openai::encode_request: model, messages, parameters, tools and tool_choice") {
    request_params p;
    p.model = "gpt-4o-mini";
    p.temperature = 0.2;
    p.stop = std::vector<std::string>{"END"};
    p.functions = std::vector<std::string>{"get_weather", "ping"};
    p.call_function = "get_weather";
    message truncate_mark;
    truncate_mark.role = role::truncate;
    const std::vector<message> messages{make_message(role::system, "Be brief."), truncate_mark,
                                        make_message(role::user, "Oslo?")};
    const auto body = openai::encode_request(p, messages, weather());
    CHECK(boost::json::serialize(body) ==
          R"({"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Oslo?"}],)"
          R"("temperature":2E-1,"stop":["END"],"tools":[{"type":"function","function":{"name":"get_weather",)"
          R"("description":"Weather of a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},)"
          R"("required":["city"]}}},{"type":"function","function":{"name":"ping","parameters":{"type":"object",)"
          R"("properties":{}}}}],"tool_choice":{"type":"function","function":{"name":"get_weather"}}})");

    p.call_function = "*";
    CHECK(openai::encode_request(p, messages, weather()).at("tool_choice") == "auto");
    p.call_function = "";
    CHECK(openai::encode_request(p, messages, weather()).at("tool_choice") == "none");
    p.call_function.reset();
    CHECK_FALSE(openai::encode_request(p, messages, weather()).contains("tool_choice"));
}

TEST_CASE("openai::encode_request: errors") {
    request_params p;
    CHECK_THROWS_WITH_AS(openai::encode_request(p, {}, {}),
                         "the request has no model: set 'model' in a default-request or request message", parley::error);
    p.model = "m";
    p.functions = std::vector<std::string>{"nowhere"};
    CHECK_THROWS_WITH_AS(openai::encode_request(p, {}, weather()),
                         "function 'nowhere' is requested but has no definition", parley::error);
    p.functions.reset();
    p.call_function = "get_weather";
    CHECK_THROWS_WITH_AS(openai::encode_request(p, {}, weather()),
                         "'call_function' forces 'get_weather', but the request lists no functions", parley::error);
}
