// Tests of parley/provider/anthropic/request.hpp: the Messages API request body, checked against
// the request examples of Anthropic's documentation (tests/provider/anthropic-data/README.md).
#include <parley/provider/anthropic/request.hpp>

#include <parley/provider/anthropic/reply.hpp>

#include "anthropic_test_data.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace parley;
using anthropic_test::read_data;
using anthropic_test::read_json;

namespace {

std::string encoded(const chat_request& r, bool stream = false, const anthropic::encode_options& o = {}) {
    return boost::json::serialize(anthropic::encode_request(r, stream, o));
}

chat_request with_model(std::vector<message> messages = {make_message(role::user, "Hello")}) {
    chat_request r;
    r.params.model = "m";
    r.messages = std::move(messages);
    return r;
}

// The get_weather definition of the tool use documentation's example.
function_definition get_weather() {
    const auto documented = read_json("request-tool-result.json");
    const auto& tool = documented.at("tools").at(0).as_object();
    return {"get_weather", std::string(tool.at("description").as_string()), tool.at("input_schema").as_object()};
}

tool_call call(std::string id, std::string name, std::string arguments) {
    return {std::move(id), {std::move(name), std::move(arguments)}};
}

message tool_result(std::string id, std::string text) {
    message m = make_message(role::tool, std::move(text));
    m.tool_call_id = std::move(id);
    return m;
}

}  // namespace

TEST_CASE("anthropic::api_version is the version the documentation's requests send") {
    CHECK(anthropic::api_version == "2023-06-01");
}

TEST_CASE("anthropic::encode_request: the documented basic streaming request") {
    // Streaming Messages, "Basic streaming request"
    chat_request r = with_model();
    r.params.model = "claude-sonnet-4-5";
    r.params.max_tokens = 256;
    const auto documented = boost::json::parse(
        R"({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 256, "stream": true})");
    CHECK(boost::json::value(anthropic::encode_request(r, true)) == documented);
    CHECK(encoded(r, true) == R"({"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Hello"}],"stream":true})");
    CHECK(encoded(r, false) == R"({"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]})");
}

TEST_CASE("anthropic::encode_request: a tool call and its result give the documented follow-up request") {
    // Tool use with Claude, "Single tool example": the request that returns the tool's result
    chat_request r;
    r.params.model = "claude-sonnet-4-5";
    r.params.max_tokens = 1024;
    r.params.functions = std::vector<std::string>{"get_weather"};
    r.functions = {get_weather()};
    message assistant = make_message(role::assistant, "I'll check the current weather in San Francisco for you.");
    assistant.tool_calls = {call("toolu_01A09q90qw90lq917835lq9", "get_weather",
                                 R"({"location": "San Francisco, CA", "unit": "celsius"})")};
    r.messages = {make_message(role::user, "What is the weather like in San Francisco?"), assistant,
                  tool_result("toolu_01A09q90qw90lq917835lq9", "15 degrees")};
    CHECK(boost::json::value(anthropic::encode_request(r, false)) == read_json("request-tool-result.json"));

    SUBCASE("the assistant message decoded from the documented reply encodes to the documented turn") {
        const auto reply = anthropic::decode_reply(200, {}, read_data("message-tool-use.json"));
        REQUIRE(reply.has_value());
        r.messages[1] = reply->message();
        CHECK(boost::json::value(anthropic::encode_request(r, false)) == read_json("request-tool-result.json"));
    }
}

TEST_CASE("anthropic::encode_request: system messages are hoisted to the top-level system") {
    message cut;
    cut.role = role::truncate;
    SUBCASE("one system message: a string") {
        const auto r = with_model({make_message(role::system, "You are terse."), cut, make_message(role::user, "Hi")});
        CHECK(encoded(r) == R"({"model":"m","max_tokens":4096,"system":"You are terse.",)"
                            R"("messages":[{"role":"user","content":"Hi"}]})");
    }
    SUBCASE("several, one in the middle of the conversation: text blocks in order, nothing joined") {
        message parts;
        parts.role = role::system;
        parts.content = std::vector<content_part>{content_part::make_text("Use metric units."),
                                                  content_part::make_text("Be kind.")};
        const auto r = with_model({make_message(role::system, "You are terse."), make_message(role::user, "Hi"),
                                   make_message(role::assistant, "Hello."), make_message(role::system, "Answer in French."),
                                   parts, make_message(role::user, "Bye")});
        CHECK(encoded(r) ==
              R"({"model":"m","max_tokens":4096,"system":[{"type":"text","text":"You are terse."},)"
              R"({"type":"text","text":"Answer in French."},{"type":"text","text":"Use metric units."},)"
              R"({"type":"text","text":"Be kind."}],"messages":[{"role":"user","content":"Hi"},)"
              R"({"role":"assistant","content":"Hello."},{"role":"user","content":"Bye"}]})");
    }
    SUBCASE("no system message: no system field") {
        CHECK_FALSE(anthropic::encode_request(with_model(), false).contains("system"));
    }
}

TEST_CASE("anthropic::encode_request: consecutive messages of one role are merged into one turn") {
    message parts;
    parts.role = role::user;
    parts.content = std::vector<content_part>{content_part::make_text("b")};
    message calls;
    calls.role = role::assistant;
    calls.tool_calls = {call("toolu_1", "get_time", "{}"), call("toolu_2", "get_weather", R"({"location":"Oslo"})")};
    const auto r = with_model({make_message(role::user, "a"), parts, make_message(role::assistant, "c"), calls,
                               tool_result("toolu_1", "12:00"), tool_result("toolu_2", "15 degrees"),
                               make_message(role::user, "Thanks.")});
    CHECK(encoded(r) ==
          R"({"model":"m","max_tokens":4096,"messages":[)"
          R"({"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},)"
          R"({"role":"assistant","content":[{"type":"text","text":"c"},)"
          R"({"type":"tool_use","id":"toolu_1","name":"get_time","input":{}},)"
          R"({"type":"tool_use","id":"toolu_2","name":"get_weather","input":{"location":"Oslo"}}]},)"
          R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"12:00"},)"
          R"({"type":"tool_result","tool_use_id":"toolu_2","content":"15 degrees"},{"type":"text","text":"Thanks."}]}]})");

    SUBCASE("tool results come first in their user turn; an empty text beside tool calls is left out") {
        message ask = make_message(role::assistant, "");
        ask.tool_calls = {call("toolu_1", "get_time", "{}")};
        message parts_result;
        parts_result.role = role::tool;
        parts_result.tool_call_id = "toolu_1";
        parts_result.content = std::vector<content_part>{content_part::make_text("12:00"), content_part::make_text(" UTC")};
        message empty_result;
        empty_result.role = role::tool;
        empty_result.tool_call_id = "toolu_2";
        const auto r2 = with_model({make_message(role::user, "Time?"), ask, make_message(role::user, "Quick, please."),
                                    parts_result, empty_result});
        CHECK(encoded(r2) ==
              R"({"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"Time?"},)"
              R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_time","input":{}}]},)"
              R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[)"
              R"({"type":"text","text":"12:00"},{"type":"text","text":" UTC"}]},)"
              R"({"type":"tool_result","tool_use_id":"toolu_2"},{"type":"text","text":"Quick, please."}]}]})");
    }
}

TEST_CASE("anthropic::encode_request: images from base64 data: URLs and from http(s) URLs") {
    message base64;
    base64.content = std::vector<content_part>{content_part::make_image("data:image/jpeg;base64,/9j/4AAQSkZJRg...", "high"),
                                               content_part::make_text("What is in this image?")};
    CHECK(boost::json::value(anthropic::encode_request(with_model({base64}), false).at("messages").at(0)) ==
          read_json("message-image-base64.json"));

    message url;
    url.content = std::vector<content_part>{
        content_part::make_image("https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"),
        content_part::make_text("Describe this image.")};
    CHECK(boost::json::value(anthropic::encode_request(with_model({url}), false).at("messages").at(0)) ==
          read_json("message-image-url.json"));

    auto image_error = [](std::string image_url, role r = role::user) {
        message m;
        m.role = r;
        m.content = std::vector<content_part>{content_part::make_image(std::move(image_url))};
        try {
            anthropic::encode_request(with_model({make_message(role::user, "Hi"), m}), false);
        } catch (const parley::error& e) {
            CHECK(e.code() == make_error_code(errc::chat_invalid));
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(image_error("data:image/png,iVBORw0") ==
          "an image data: URL must be base64-encoded (data:<media type>;base64,<data>), found 'data:image/png,iVBORw0'");
    CHECK(image_error("data:;base64,iVBORw0") ==
          "an image data: URL needs a media type (data:image/png;base64,...), found 'data:;base64,iVBORw0'");
    CHECK(image_error("data:image/png;base64,") == "an image data: URL has no data after ';base64,'");
    CHECK(image_error("ftp://example.com/cat.png") ==
          "an image URL is an http(s) URL or a base64 data: URL, found 'ftp://example.com/cat.png'");
    CHECK(image_error("https://example.com/cat.png", role::assistant) ==
          "image parts belong to user messages, not to an assistant message");
    CHECK(image_error("https://example.com/cat.png", role::system) ==
          "image parts belong to user messages, not to a system message");
}

TEST_CASE("anthropic::encode_request: functions become tools, call_function becomes tool_choice") {
    chat_request r = with_model();
    r.params.functions = std::vector<std::string>{"get_weather", "ping"};
    r.functions = {get_weather(), {"ping", "", {}}};
    const auto tools = boost::json::parse(
        R"([{"name":"get_weather","description":"Get the current weather in a given location","input_schema":)" +
        boost::json::serialize(get_weather().parameters) +
        R"(},{"name":"ping","input_schema":{"type":"object","properties":{}}}])");
    CHECK(anthropic::encode_request(r, false).at("tools") == tools);
    CHECK_FALSE(anthropic::encode_request(r, false).contains("tool_choice"));
    // Tool use, "Forcing tool use": auto, any, tool (with a name), none
    r.params.call_function = "";
    CHECK(anthropic::encode_request(r, false).at("tool_choice") == boost::json::parse(R"({"type": "none"})"));
    r.params.call_function = "*";
    CHECK(anthropic::encode_request(r, false).at("tool_choice") == boost::json::parse(R"({"type": "auto"})"));
    r.params.call_function = "get_weather";
    CHECK(anthropic::encode_request(r, false).at("tool_choice") ==
          boost::json::parse(R"({"type": "tool", "name": "get_weather"})"));

    r.params.call_function = "forecast";
    CHECK_THROWS_WITH_AS(anthropic::encode_request(r, false), "'call_function' forces 'forecast', which 'functions' does not list",
                         parley::error);
    r.params.functions = std::vector<std::string>{"get_weather", "nowhere"};
    r.params.call_function.reset();
    CHECK_THROWS_WITH_AS(anthropic::encode_request(r, false), "function 'nowhere' is requested but has no definition",
                         parley::error);
    r.params.functions.reset();
    r.params.call_function = "get_weather";
    CHECK_THROWS_WITH_AS(anthropic::encode_request(r, false),
                         "'call_function' forces 'get_weather', but the request lists no functions", parley::error);
    r.params.call_function = "";
    const auto body = anthropic::encode_request(r, false);
    CHECK_FALSE(body.contains("tools"));
    CHECK_FALSE(body.contains("tool_choice"));
}

TEST_CASE("anthropic::encode_request: max_tokens, temperature, top_p, stop_sequences") {
    chat_request r = with_model();
    CHECK(anthropic::encode_request(r, false).at("max_tokens") == 4096);
    CHECK(anthropic::encode_request(r, false, {1000}).at("max_tokens") == 1000);
    r.params.max_tokens = 256;
    r.params.temperature = 0.5;
    r.params.top_p = 0.9;
    r.params.stop = std::string("END");
    r.params.n = 1;
    CHECK(encoded(r, false, {1000}) == R"({"model":"m","max_tokens":256,"messages":[{"role":"user","content":"Hello"}],)"
                                       R"("temperature":5E-1,"top_p":9E-1,"stop_sequences":["END"]})");
    r.params.stop = std::vector<std::string>{"END", "\n\nHuman:"};
    CHECK(anthropic::encode_request(r, false).at("stop_sequences") == boost::json::parse(R"(["END", "\n\nHuman:"])"));
}

TEST_CASE("anthropic::encode_request: parameters the Messages API does not have are refused, by name") {
    auto refused = [](auto set) {
        chat_request r = with_model();
        set(r.params);
        try {
            anthropic::encode_request(r, false);
        } catch (const parley::error& e) {
            CHECK(e.code() == make_error_code(errc::chat_invalid));
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(refused([](request_params& p) { p.presence_penalty = 0.5; }) ==
          "'presence_penalty' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.frequency_penalty = 0.5; }) ==
          "'frequency_penalty' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"50256", -100}}; }) ==
          "'logit_bias' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.seed = 7; }) == "'seed' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.response_format = boost::json::object{{"type", "json_object"}}; }) ==
          "'response_format' of type json_object is not supported by the Anthropic Messages API (ask for a json_schema, or "
          "force a function call to get structured output)");
    CHECK(refused([](request_params& p) { p.logprobs = true; }) == "'logprobs' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.verbosity = "low"; }) == "'verbosity' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.store = true; }) == "'store' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.metadata = std::vector<std::pair<std::string, std::string>>{{"a", "b"}}; }) ==
          "'metadata' is not supported by the Anthropic Messages API");
    CHECK(refused([](request_params& p) { p.reasoning_effort = "minimal"; }) ==
          "'reasoning_effort' is \"minimal\", but the Anthropic Messages API takes \"low\", \"medium\", \"high\", "
          "\"xhigh\" or \"max\"");
    CHECK(refused([](request_params& p) { p.service_tier = "flex"; }) ==
          "'service_tier' is \"flex\", but the Anthropic Messages API takes \"auto\" or \"standard_only\"");
    CHECK(refused([](request_params& p) {
              p.max_tokens = 2048;
              p.thinking = thinking_config{"enabled", 2048, {}};
          }) == "the thinking budget (2048 tokens) must be below max_tokens (2048)");
    CHECK(refused([](request_params& p) { p.extra = boost::json::object{{"messages", boost::json::array()}}; }) ==
          "'extra' may not set 'model', 'messages', 'input', 'stream' or 'tools' (parley builds them from the request), "
          "found 'messages'");
    CHECK(refused([](request_params& p) { p.n = 2; }) ==
          "'n' is 2, but the Anthropic Messages API returns one choice (n must be 1)");
    CHECK(refused([](request_params& p) { p.temperature = 1.5; }) ==
          "'temperature' is 1.5, but the Anthropic Messages API accepts 0 to 1");
    CHECK(refused([](request_params& p) { p.top_p = -0.25; }) == "'top_p' is -0.25, but the Anthropic Messages API accepts 0 to 1");
    CHECK(refused([](request_params& p) { p.max_tokens = 0; }) == "'max_tokens' must be at least 1");
    CHECK(refused([](request_params& p) { p.model.reset(); }) ==
          "the request has no model: set 'model' in a default-request or request message");
    CHECK(refused([](request_params& p) { p.model = ""; }) ==
          "the request has no model: set 'model' in a default-request or request message");
    CHECK_THROWS_WITH_AS(anthropic::encode_request(with_model(), false, {0}),
                         "encode_options::default_max_tokens must be at least 1, found 0", parley::error);
}

TEST_CASE("anthropic::encode_request: extended thinking, effort, structured output, top_k, cache_control, user") {
    // Messages API reference: thinking {type: enabled, budget_tokens}, output_config {effort,
    // format {type: json_schema, schema}}, top_k, service_tier, metadata {user_id}, cache_control
    chat_request r = with_model();
    r.params.max_completion_tokens = 16000;
    r.params.thinking = thinking_config{"enabled", 10000, std::string("summarized")};
    r.params.reasoning_effort = "high";
    r.params.response_format = boost::json::parse(R"({"type":"json_schema","json_schema":{"name":"w","strict":true,)"
                                                  R"("schema":{"type":"object","properties":{}}}})")
                                   .as_object();
    r.params.top_k = 40;
    r.params.service_tier = "standard_only";
    r.params.user = "user-123";
    r.params.cache_control = prompt_cache_control{"ephemeral", std::string("1h")};
    r.params.extra = boost::json::parse(R"({"inference_geo": "us"})").as_object();
    CHECK(encoded(r) == R"({"model":"m","max_tokens":16000,"messages":[{"role":"user","content":"Hello"}],"top_k":40,)"
                        R"("thinking":{"type":"enabled","budget_tokens":10000,"display":"summarized"},)"
                        R"("output_config":{"effort":"high","format":{"type":"json_schema","schema":{"type":"object",)"
                        R"("properties":{}}}},"service_tier":"standard_only","metadata":{"user_id":"user-123"},)"
                        R"("cache_control":{"type":"ephemeral","ttl":"1h"},"inference_geo":"us"})");
    r.params.thinking = thinking_config{"adaptive", {}, {}};
    CHECK(anthropic::encode_request(r, false).at("thinking") == boost::json::parse(R"({"type":"adaptive"})"));
}

TEST_CASE("anthropic::encode_request: thinking blocks go back first, with their signatures; strict tools, any, one at a time") {
    // Extended thinking, "Preserving thinking blocks": with tool use, the assistant turn of the
    // call is sent back with its thinking (and redacted_thinking) blocks as they came
    message assistant;
    assistant.role = role::assistant;
    assistant.reasoning = {{reasoning_part::kind::thinking, "I need the weather.", "EqQBsig", {}, {}, {}},
                           {reasoning_part::kind::redacted, {}, {}, "EmwKAhgB", {}, {}},
                           {reasoning_part::kind::text, "an OpenAI-compatible server's reasoning: not sent", {}, {}, {}, {}}};
    assistant.tool_calls = {call("toolu_1", "get_weather", R"({"location":"Paris"})")};
    chat_request r = with_model({make_message(role::user, "Weather in Paris?"), assistant, tool_result("toolu_1", "15 C")});
    r.functions = {get_weather()};
    r.functions[0].strict = true;
    r.params.functions = std::vector<std::string>{"get_weather"};
    r.params.call_function = "+";
    r.params.parallel_tool_calls = false;
    const auto body = anthropic::encode_request(r, false);
    CHECK(body.at("messages").at(1) ==
          boost::json::parse(R"({"role":"assistant","content":[{"type":"thinking","thinking":"I need the weather.",)"
                             R"("signature":"EqQBsig"},{"type":"redacted_thinking","data":"EmwKAhgB"},)"
                             R"({"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}}]})"));
    CHECK(body.at("tools").at(0).at("strict") == true);
    CHECK(body.at("tool_choice") == boost::json::parse(R"({"type":"any","disable_parallel_tool_use":true})"));
    r.params.call_function.reset();
    CHECK(anthropic::encode_request(r, false).at("tool_choice") ==
          boost::json::parse(R"({"type":"auto","disable_parallel_tool_use":true})"));
    r.params.call_function = "";
    CHECK(anthropic::encode_request(r, false).at("tool_choice") == boost::json::parse(R"({"type":"none"})"));
    // a refusal without content is sent as the assistant's text
    message refusal;
    refusal.role = role::assistant;
    refusal.refusal = "I can't.";
    CHECK(anthropic::encode_request(with_model({make_message(role::user, "x"), refusal}), false).at("messages").at(1) ==
          boost::json::parse(R"({"role":"assistant","content":"I can't."})"));
}

TEST_CASE("anthropic::encode_request: the reply decoded from a thinking stream goes back as the API wants it") {
    const auto reply = anthropic::decode_reply(200, {}, read_data("stream-thinking.message.json"));
    REQUIRE(reply.has_value());
    chat_request r = with_model({make_message(role::user, "What is 27 * 453?"), reply->message(), make_message(role::user, "Why?")});
    const auto sent = boost::json::value(anthropic::encode_request(r, false).at("messages").at(1));
    const auto original = read_json("stream-thinking.message.json").at("content");
    CHECK(sent.at("content") == original);
}

TEST_CASE("anthropic::encode_request: messages the Messages API cannot carry are refused") {
    auto refused = [](std::vector<message> messages) {
        try {
            anthropic::encode_request(with_model(std::move(messages)), false);
        } catch (const parley::error& e) {
            CHECK(e.code() == make_error_code(errc::chat_invalid));
            return std::string(e.what());
        }
        return std::string("no error");
    };
    message legacy = make_message(role::assistant, "");
    legacy.function_call = function_call{"get_time", "{}"};
    CHECK(refused({make_message(role::user, "Time?"), legacy}) ==
          "an assistant message's legacy 'function_call' has no equivalent in the Anthropic Messages API "
          "(a tool_use block needs an id): use 'tool_calls'");
    message result = make_message(role::function, "12:00");
    result.name = "get_time";
    CHECK(refused({make_message(role::user, "Time?"), result}) ==
          "a function message has no equivalent in the Anthropic Messages API (a tool_result block needs the id of its "
          "tool call): use tool calls and tool messages");
    message bad_args;
    bad_args.role = role::assistant;
    bad_args.tool_calls = {call("toolu_1", "get_weather", R"(["Oslo"])")};
    CHECK(refused({make_message(role::user, "Weather?"), bad_args}) ==
          "the arguments of tool call 'toolu_1' to 'get_weather' must be a JSON object, found an array");
    bad_args.tool_calls = {call("toolu_1", "get_weather", R"({"location": "Osl)")};
    CHECK(refused({make_message(role::user, "Weather?"), bad_args}) ==
          "the arguments of tool call 'toolu_1' to 'get_weather' must be a JSON object, found '{\"location\": \"Osl'");
    message no_id = make_message(role::tool, "15 degrees");
    CHECK(refused({make_message(role::user, "Weather?"), no_id}) ==
          "a tool message needs a 'tool_call_id' (the id of the call it answers)");
    message empty_user;
    CHECK(refused({empty_user}) == "a user message has no content");
    message empty_assistant;
    empty_assistant.role = role::assistant;
    CHECK(refused({make_message(role::user, "Hi"), empty_assistant}) == "an assistant message has no content and no tool calls");
}
