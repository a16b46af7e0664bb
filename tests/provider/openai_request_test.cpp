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

TEST_CASE("openai::encode_request: a chat_request, streamed, with content parts and a strict response format") {
    chat_request r;
    r.params.model = "gpt-4o";
    r.params.max_tokens = 100;
    r.params.n = 3;
    r.params.seed = 7;
    r.params.response_format = boost::json::parse(
        R"({"type":"json_schema","json_schema":{"name":"weather","strict":true,"schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}})")
                                   .as_object();
    message user;
    user.role = role::user;
    user.content = std::vector<content_part>{content_part::make_text("What is in this image?"),
                                             content_part::make_image("https://example.com/a.png", "low")};
    r.messages = {make_message(role::system, "Be brief."), user};

    const auto body = openai::encode_request(r, true);
    // the shapes of the API reference: a user message with text and image_url parts,
    // `stream_options.include_usage` with `stream`
    CHECK(body == boost::json::parse(R"({"model":"gpt-4o","messages":[{"role":"system","content":"Be brief."},)"
                                     R"({"role":"user","content":[{"type":"text","text":"What is in this image?"},)"
                                     R"({"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}}]}],)"
                                     R"("max_tokens":100,"seed":7,"n":3,"response_format":{"type":"json_schema","json_schema":)"
                                     R"({"name":"weather","strict":true,"schema":{"type":"object","properties":{"city":)"
                                     R"({"type":"string"}},"required":["city"],"additionalProperties":false}}},)"
                                     R"("stream":true,"stream_options":{"include_usage":true}})"));
    const auto plain = openai::encode_request(r, false);
    CHECK_FALSE(plain.contains("stream"));
    CHECK_FALSE(plain.contains("stream_options"));

    openai::encode_options o;
    o.max_completion_tokens = true;
    o.stream_usage = false;
    const auto newer = openai::encode_request(r, true, o);
    CHECK_FALSE(newer.contains("max_tokens"));
    CHECK(newer.at("max_completion_tokens") == 100);
    CHECK(newer.at("stream") == true);
    CHECK_FALSE(newer.contains("stream_options"));

    r.params.response_format = boost::json::object{{"type", "json_object"}};
    CHECK(openai::encode_request(r, false).at("response_format") == boost::json::parse(R"({"type":"json_object"})"));
}

TEST_CASE("openai::encode_request: legacy functions and function_call") {
    chat_request r;
    r.params.model = "m";
    r.params.functions = std::vector<std::string>{"get_weather", "ping"};
    r.params.call_function = "get_weather";
    r.functions = weather();
    r.messages = {make_message(role::user, "Oslo?")};
    openai::encode_options o;
    o.legacy_functions = true;
    const auto body = openai::encode_request(r, false, o);
    CHECK_FALSE(body.contains("tools"));
    CHECK_FALSE(body.contains("tool_choice"));
    CHECK(body.at("functions") ==
          boost::json::parse(R"([{"name":"get_weather","description":"Weather of a city.","parameters":{"type":"object",)"
                             R"("properties":{"city":{"type":"string"}},"required":["city"]}},)"
                             R"({"name":"ping","parameters":{"type":"object","properties":{}}}])"));
    CHECK(body.at("function_call") == boost::json::parse(R"({"name":"get_weather"})"));
    r.params.call_function = "*";
    CHECK(openai::encode_request(r, false, o).at("function_call") == "auto");
    r.params.call_function = "";
    CHECK(openai::encode_request(r, false, o).at("function_call") == "none");
    // the tool form for the same request
    CHECK(openai::encode_request(r, false).at("tool_choice") == "none");
    CHECK(openai::encode_request(r, false).at("tools").as_array().size() == 2);
}

TEST_CASE("openai::encode_request: an assistant tool call and its result go back as the API wants them") {
    chat_request r;
    r.params.model = "m";
    message call;
    call.role = role::assistant;
    call.tool_calls = {tool_call{"call_1", {"get_weather", R"({"city":"Oslo"})"}}};
    message result = make_message(role::tool, R"({"temp":3})");
    result.tool_call_id = "call_1";
    r.messages = {make_message(role::user, "Oslo?"), call, result};
    CHECK(openai::encode_request(r, false).at("messages") ==
          boost::json::parse(R"([{"role":"user","content":"Oslo?"},{"role":"assistant","content":null,"tool_calls":)"
                             R"([{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},)"
                             R"({"role":"tool","content":"{\"temp\":3}","tool_call_id":"call_1"}])"));
}
