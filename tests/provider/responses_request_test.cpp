// Tests of parley/provider/responses/request.hpp: the Responses API body (POST /responses) from
// a chat request, against the shapes of the API reference (and the official SDK's types:
// ResponseCreateParams, EasyInputMessage, ResponseFunctionToolCall, FunctionCallOutput,
// ResponseReasoningItem, FunctionTool).
#include <parley/provider/responses/request.hpp>

#include <parley/provider/responses.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

using namespace parley;

namespace {

chat_request responses_request(std::vector<message> messages = {make_message(role::user, "Hello")}) {
    chat_request r;
    r.params.model = "gpt-5";
    r.messages = std::move(messages);
    return r;
}

std::string responses_encoded(const chat_request& r, bool stream = false, const responses::encode_options& o = {}) {
    return boost::json::serialize(responses::encode_request(r, stream, o));
}

std::string responses_refused(const chat_request& r) {
    try {
        responses::encode_request(r, false);
    } catch (const parley::error& e) {
        CHECK(e.code() == make_error_code(errc::chat_invalid));
        return e.what();
    }
    return "no error";
}

function_definition responses_weather(bool strict = false) {
    function_definition d;
    d.name = "get_weather";
    d.description = "The weather of a city";
    d.parameters = boost::json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],)"
                                      R"("additionalProperties":false})")
                       .as_object();
    d.strict = strict;
    return d;
}

}  // namespace

TEST_CASE("responses::encode_request: the reference's text input, with instructions") {
    chat_request r = responses_request({make_message(role::system, "Be brief."), make_message(role::user, "Hello")});
    CHECK(responses_encoded(r) == R"({"model":"gpt-5","instructions":"Be brief.","input":[{"role":"user","content":"Hello"}]})");
    CHECK(responses_encoded(r, true) ==
          R"({"model":"gpt-5","instructions":"Be brief.","input":[{"role":"user","content":"Hello"}],"stream":true})");
    // without the option, or with two system messages, system messages are input messages
    responses::encode_options no_instructions;
    no_instructions.instructions = false;
    CHECK(responses_encoded(r, false, no_instructions) ==
          R"({"model":"gpt-5","input":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello"}]})");
    r.messages.push_back(make_message(role::system, "Answer in French."));
    CHECK(responses::encode_request(r, false).at("input").as_array().size() == 3);
    CHECK_FALSE(responses::encode_request(r, false).contains("instructions"));
}

TEST_CASE("responses::encode_request: images are input_image parts") {
    message m;
    m.content = std::vector<content_part>{content_part::make_text("What is this?"),
                                          content_part::make_image("https://example.com/ant.jpg"),
                                          content_part::make_image("data:image/png;base64,iVBORw0", "low")};
    CHECK(boost::json::value(responses::encode_request(responses_request({m}), false).at("input")) ==
          boost::json::parse(R"([{"role":"user","content":[{"type":"input_text","text":"What is this?"},)"
                             R"({"type":"input_image","image_url":"https://example.com/ant.jpg","detail":"auto"},)"
                             R"({"type":"input_image","image_url":"data:image/png;base64,iVBORw0","detail":"low"}]}])"));
}

TEST_CASE("responses::encode_request: a call and its output, with the reasoning item sent back first") {
    message assistant;
    assistant.role = role::assistant;
    assistant.tool_calls = {{"call_1", {"get_weather", R"({"city":"Oslo"})"}}};
    reasoning_part item;
    item.type = reasoning_part::kind::item;
    item.id = "rs_1";
    item.summary = {"Look it up."};
    item.data = "gAAAA-encrypted";
    assistant.reasoning = {item, {reasoning_part::kind::thinking, "not this API's", "sig", {}, {}, {}}};
    message result = make_message(role::tool, "12 degrees");
    result.tool_call_id = "call_1";
    chat_request r = responses_request({make_message(role::user, "Weather in Oslo?"), assistant, result});
    r.params.store = false;
    CHECK(boost::json::value(responses::encode_request(r, false)) ==
          boost::json::parse(R"({"model":"gpt-5","input":[{"role":"user","content":"Weather in Oslo?"},)"
                             R"({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Look it up."}],)"
                             R"("encrypted_content":"gAAAA-encrypted"},)"
                             R"({"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Oslo\"}"},)"
                             R"({"type":"function_call_output","call_id":"call_1","output":"12 degrees"}],)"
                             R"("include":["reasoning.encrypted_content"],"store":false})"));
    // an assistant text with its calls: the text, then the calls; a refusal stands for a missing text
    assistant.content = std::string("Let me check.");
    CHECK(responses::encode_request(responses_request({make_message(role::user, "x"), assistant}), false)
              .at("input")
              .at(2) == boost::json::parse(R"({"role":"assistant","content":"Let me check."})"));
    message refusal;
    refusal.role = role::assistant;
    refusal.refusal = "I can't.";
    CHECK(responses::encode_request(responses_request({make_message(role::user, "x"), refusal}), false).at("input").at(1) ==
          boost::json::parse(R"({"role":"assistant","content":"I can't."})"));
}

TEST_CASE("responses::encode_request: function tools with strict, tool_choice, parallel_tool_calls") {
    chat_request r = responses_request();
    r.functions = {responses_weather(true), responses_weather(false)};
    r.functions[1].name = "ping";
    r.functions[1].parameters = {};
    r.params.functions = std::vector<std::string>{"get_weather", "ping"};
    r.params.parallel_tool_calls = false;
    const auto body = responses::encode_request(r, false);
    CHECK(boost::json::value(body.at("tools")) ==
          boost::json::parse(R"([{"type":"function","name":"get_weather","description":"The weather of a city",)"
                             R"("parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],)"
                             R"("additionalProperties":false},"strict":true},)"
                             R"({"type":"function","name":"ping","description":"The weather of a city",)"
                             R"("parameters":{"type":"object","properties":{}},"strict":false}])"));
    CHECK(body.at("parallel_tool_calls") == false);
    CHECK_FALSE(body.contains("tool_choice"));
    for (auto [call, choice] : {std::pair<std::string, std::string>{"", R"("none")"},
                                {"*", R"("auto")"},
                                {"+", R"("required")"},
                                {"ping", R"({"type":"function","name":"ping"})"}}) {
        r.params.call_function = call;
        CHECK(boost::json::value(responses::encode_request(r, false).at("tool_choice")) == boost::json::parse(choice));
    }
    r.params.functions.reset();
    r.params.call_function = "+";
    CHECK(responses_refused(r) == "'call_function' '+' makes the model call a function, but the request lists no functions");
}

TEST_CASE("responses::encode_request: parameters under this API's names") {
    chat_request r = responses_request();
    request_params& p = r.params;
    p.max_completion_tokens = 2048;
    p.temperature = 0.5;
    p.top_p = 0.9;
    p.logprobs = true;
    p.top_logprobs = 3;
    p.reasoning_effort = "high";
    p.reasoning_summary = "auto";
    p.verbosity = "low";
    p.response_format = boost::json::parse(R"({"type":"json_schema","json_schema":{"name":"weather","strict":true,)"
                                           R"("schema":{"type":"object"}}})")
                            .as_object();
    p.store = true;
    p.metadata = std::vector<std::pair<std::string, std::string>>{{"team", "search"}};
    p.user = "user-1";
    p.safety_identifier = "hash-1";
    p.prompt_cache_key = "key-1";
    p.prompt_cache_retention = "24h";
    p.service_tier = "flex";
    p.truncation = "auto";
    p.extra = boost::json::parse(R"({"max_tool_calls": 3, "temperature": 0.25})").as_object();
    CHECK(responses_encoded(r) ==
          R"({"model":"gpt-5","input":[{"role":"user","content":"Hello"}],"max_output_tokens":2048,"temperature":2.5E-1,)"
          R"("top_p":9E-1,"top_logprobs":3,"reasoning":{"effort":"high","summary":"auto"},)"
          R"("text":{"format":{"type":"json_schema","name":"weather","strict":true,"schema":{"type":"object"}},"verbosity":"low"},)"
          R"("include":["message.output_text.logprobs"],"store":true,"metadata":{"team":"search"},"user":"user-1",)"
          R"("safety_identifier":"hash-1","prompt_cache_key":"key-1","prompt_cache_retention":"24h","service_tier":"flex",)"
          R"("truncation":"auto","max_tool_calls":3})");
    p.response_format = boost::json::object{{"type", "json_object"}};
    CHECK(boost::json::value(responses::encode_request(r, false).at("text")) ==
          boost::json::parse(R"({"format":{"type":"json_object"},"verbosity":"low"})"));
}

TEST_CASE("responses::encode_request: what the Responses API does not take is refused, by name") {
    auto refused_param = [](auto set) {
        chat_request r = responses_request();
        set(r.params);
        return responses_refused(r);
    };
    CHECK(refused_param([](request_params& p) { p.stop = std::string("END"); }) ==
          "'stop' is not supported by the OpenAI Responses API");
    CHECK(refused_param([](request_params& p) { p.seed = 1; }) == "'seed' is not supported by the OpenAI Responses API");
    CHECK(refused_param([](request_params& p) { p.top_k = 40; }) == "'top_k' is not supported by the OpenAI Responses API");
    CHECK(refused_param([](request_params& p) { p.thinking = thinking_config{"enabled", 2048, {}}; }) ==
          "'thinking' is not supported by the OpenAI Responses API");
    CHECK(refused_param([](request_params& p) { p.n = 2; }) ==
          "'n' is 2, but the OpenAI Responses API returns one output (n must be 1)");
    CHECK(refused_param([](request_params& p) { p.service_tier = "standard_only"; }) ==
          "'service_tier' is \"standard_only\", but the OpenAI Responses API takes \"auto\", \"default\", \"flex\", "
          "\"scale\" or \"priority\"");
    CHECK(refused_param([](request_params& p) {
              p.max_tokens = 1;
              p.max_completion_tokens = 2;
          }) == "set 'max_tokens' or 'max_completion_tokens', not both (they are the same limit)");
    CHECK(refused_param([](request_params& p) { p.top_logprobs = 2; }) == "'top_logprobs' needs 'logprobs': true");
    CHECK(refused_param([](request_params& p) { p.extra = boost::json::object{{"input", "x"}}; }) ==
          "'extra' may not set 'model', 'messages', 'input', 'stream' or 'tools' (parley builds them from the request), "
          "found 'input'");
    message legacy;
    legacy.role = role::function;
    legacy.name = "f";
    legacy.content = std::string("1");
    CHECK(responses_refused(responses_request({make_message(role::user, "x"), legacy})) ==
          "a function message has no equivalent in the OpenAI Responses API (a function_call_output needs the call_id of "
          "its call): use tool calls and tool messages");
}

TEST_CASE("responses::encode_request: the request of docs/client.md, as the page shows it") {
    chat_request r;
    r.params.model = "gpt-5";
    r.params.max_tokens = 200;
    r.params.temperature = 0.2;
    r.params.functions = std::vector<std::string>{"get_weather"};
    r.params.call_function = "*";
    function_definition d;
    d.name = "get_weather";
    d.description = "The current weather in a city";
    d.parameters = boost::json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})").as_object();
    r.functions = {d};
    r.messages = {make_message(role::system, "You are terse."), make_message(role::user, "Weather in Paris?")};
    message call;
    call.role = role::assistant;
    call.tool_calls = {{"call_1", {"get_weather", R"({"city":"Paris"})"}}};
    message result = make_message(role::tool, R"({"celsius":18})");
    result.tool_call_id = "call_1";
    r.messages.push_back(call);
    r.messages.push_back(result);
    CHECK(responses_encoded(r) ==
          R"({"model":"gpt-5","instructions":"You are terse.",)"
          R"("input":[{"role":"user","content":"Weather in Paris?"},)"
          R"({"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},)"
          R"({"type":"function_call_output","call_id":"call_1","output":"{\"celsius\":18}"}],)"
          R"("max_output_tokens":200,"temperature":2E-1,)"
          R"("tools":[{"type":"function","name":"get_weather","description":"The current weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":false}],)"
          R"("tool_choice":"auto"})");
}
