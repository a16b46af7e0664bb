// Tests of parley/chat/json.hpp: messages and conversations as JSON (OpenAI wire shape, control
// messages in their YAML form), round trips, and errors with JSON pointers.
#include <parley/chat/json.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

using namespace parley;

namespace {

// The error message conversation_from_json gives for `text`, or "ok".
std::string read_error(std::string_view text) {
    try {
        conversation_from_json(boost::json::parse(text));
        return "ok";
    } catch (const parley::error& e) {
        CHECK(e.code() == errc::chat_invalid);
        return e.what();
    }
}

// A conversation that uses every field of the model.
std::vector<message> every_field() {
    std::vector<message> c;
    message d;
    d.role = role::default_request;
    d.params.model = "gpt-4o-mini";
    d.params.temperature = 0.2;
    d.params.max_tokens = 300;
    d.params.stop = std::vector<std::string>{"\n\n", "END"};
    d.params.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"50256", -100}, {"13", 5}};
    d.params.seed = -7;
    d.params.n = 2;
    d.params.top_p = 0.9;
    d.params.presence_penalty = -0.5;
    d.params.frequency_penalty = 1.5;
    d.params.response_format = boost::json::object{{"type", "json_object"}};
    d.params.functions = std::vector<std::string>{"get_weather", "lookup"};
    d.params.call_function = "*";
    c.push_back(d);
    c.push_back(make_message(role::system, "Be brief."));
    message u;
    u.role = role::user;
    u.name = "ada";
    u.content = std::vector<content_part>{content_part::make_text("What is this?"),
                                          content_part::make_image("https://example.com/a.png", "low"),
                                          content_part::make_image("data:image/png;base64,AAAA")};
    c.push_back(u);
    message a;
    a.role = role::assistant;
    a.tool_calls.push_back({"call_1", {"get_weather", R"({"city": "Paris"})"}});
    c.push_back(a);
    message t = make_message(role::tool, "18 degrees");
    t.tool_call_id = "call_1";
    c.push_back(t);
    message legacy;
    legacy.role = role::assistant;
    legacy.function_call = function_call{"lookup", "not json at all"};
    c.push_back(legacy);
    message f = make_message(role::function, "{\"found\": true}");
    f.name = "lookup";
    c.push_back(f);
    message truncate;
    truncate.role = role::truncate;
    c.push_back(truncate);
    message r;
    r.role = role::request;
    r.params.stop = std::string("STOP");
    r.params.call_function = "";
    c.push_back(r);
    c.push_back(make_message(role::assistant, "It is a cat."));
    return c;
}

}  // namespace

TEST_CASE("JSON: the wire shape of each kind of message") {
    const auto c = every_field();
    const boost::json::array j = conversation_to_json(c);
    CHECK(boost::json::serialize(j[1]) == R"({"role":"system","content":"Be brief."})");
    CHECK(boost::json::serialize(j[2]) ==
          R"({"role":"user","content":[{"type":"text","text":"What is this?"},)"
          R"({"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}},)"
          R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}],"name":"ada"})");
    CHECK(boost::json::serialize(j[3]) ==
          R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",)"
          R"("function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]})");
    CHECK(boost::json::serialize(j[4]) == R"({"role":"tool","content":"18 degrees","tool_call_id":"call_1"})");
    CHECK(boost::json::serialize(j[7]) == R"({"role":"truncate"})");
    CHECK(boost::json::serialize(j[8]) == R"({"role":"request","stop":"STOP","call_function":""})");
    const auto& d = j[0].as_object();
    CHECK(d.at("role") == "default-request");
    CHECK(d.at("temperature") == 0.2);
    CHECK(d.at("stop") == boost::json::array{"\n\n", "END"});
    CHECK(d.at("logit_bias") == boost::json::object{{"50256", -100}, {"13", 5}});
    CHECK(d.at("functions") == boost::json::array{"get_weather", "lookup"});
}

TEST_CASE("JSON: conversations round-trip exactly, both ways") {
    const auto c = every_field();
    const boost::json::array j = conversation_to_json(c);
    const auto back = conversation_from_json(j);
    CHECK(back == c);
    // the JSON written again is the same text (key order included)
    CHECK(boost::json::serialize(conversation_to_json(back)) == boost::json::serialize(j));
    // and through Boost.JSON's customisation points
    CHECK(boost::json::value_to<message>(boost::json::value_from(c[2])) == c[2]);
}

TEST_CASE("JSON: what the OpenAI API sends is read (content null, integers for numbers)") {
    const auto c = conversation_from_json(boost::json::parse(R"([
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function",
          "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "default-request", "temperature": 1, "max_tokens": 100.0}])"));
    CHECK(c[0].content.index() == 0);
    CHECK(*c[1].params.temperature == 1.0);
    CHECK(*c[1].params.max_tokens == 100);
}

TEST_CASE("JSON: errors name the JSON pointer and what is wrong") {
    CHECK(read_error(R"({"role": "user"})") == "/: expected an array, found an object");
    CHECK(read_error(R"([{"content": "x"}])") ==
          "/0: a message needs a 'role' (expected system, user, assistant, function, tool, default-request, request "
          "or truncate)");
    CHECK(read_error(R"([{"role": "bot"}])") ==
          "/0/role: unknown role 'bot' (expected system, user, assistant, function, tool, default-request, request "
          "or truncate)");
    CHECK(read_error(R"([{"role": "user", "content": "a"}, {"role": "user", "contnet": "b"}])") ==
          "/1/contnet: unknown key 'contnet' in a user message; did you mean 'content'?");
    CHECK(read_error(R"([{"role": "asistant", "content": "a"}])") ==
          "/0/role: unknown role 'asistant' (expected system, user, assistant, function, tool, default-request, "
          "request or truncate); did you mean 'assistant'?");
    CHECK(read_error(R"([{"role": "user", "content": 5}])") == "/0/content: expected an array, found an integer");
    CHECK(read_error(R"([{"role": "request", "temperature": 3}])") ==
          "/0/temperature: 'temperature' must be between 0 and 2");
    CHECK(read_error(R"([{"role": "request", "temperature": "hot"}])") ==
          "/0/temperature: expected a number, found a string");
    CHECK(read_error(R"([{"role": "request", "max_tokens": 1.5}])") ==
          "/0/max_tokens: expected an integer, found a number");
    CHECK(read_error(R"([{"role": "default-request"}])") ==
          "/0: a default-request message must set at least one request parameter");
    CHECK(read_error(R"([{"role": "function", "content": "1"}])") ==
          "/0: a function message needs a 'name' (the function's name)");
    CHECK(read_error(R"([{"role": "user", "content": "x", "tool_calls": []}])") ==
          "/0/tool_calls: 'tool_calls' belongs to assistant messages, not to a user message");
    CHECK(read_error(R"([{"role": "user", "content": [{"type": "video"}]}])") ==
          "/0/content/0/type: unknown content part type 'video' (expected \"text\" or \"image_url\")");
    CHECK(read_error(R"([{"role": "user", "content": [{"type": "txt", "text": "hi"}]}])") ==
          "/0/content/0/type: unknown content part type 'txt' (expected \"text\" or \"image_url\"); did you mean 'text'?");
    CHECK(read_error(R"([{"role": "user", "content": [{"type": "text", "txt": "hi"}]}])") ==
          "/0/content/0/txt: unknown key 'txt' in a text content part (expected type or text); did you mean 'text'?");
    CHECK(read_error(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u", "size": 2}}]}])") ==
          "/0/content/0/image_url/size: unknown key 'size' in an image_url (expected url or detail)");
    CHECK(read_error(R"([{"role": "assistant", "function_call": {"name": "f", "args": "{}"}}])") ==
          "/0/function_call/args: unknown key 'args' in a function call (expected name or arguments)");
    CHECK(read_error(R"([{"role": "assistant", "tool_calls": [{"id": "c", "fn": {}}]}])") ==
          "/0/tool_calls/0/fn: unknown key 'fn' in a tool call (expected id, type or function)");
    CHECK(read_error(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"detail": "low"}}]}])") ==
          "/0/content/0/image_url: an image_url needs a 'url'");
    CHECK(read_error(R"([{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}])") ==
          "/0/content/0: image parts belong to user messages, not to a system message");
    CHECK(read_error(R"([{"role": "request", "logit_bias": {"a/b": 1}}])") ==
          "/0/logit_bias/a~1b: a 'logit_bias' key is a token id (decimal digits), found 'a/b'");
    CHECK(read_error(R"([{"role": "request", "stop": ["a", 1]}])") == "/0/stop/1: expected a string, found an integer");
    CHECK(read_error(R"([{"role": "assistant", "tool_calls": [{"id": "c", "type": "code",
                          "function": {"name": "f", "arguments": "{}"}}]}])") ==
          "/0/tool_calls/0/type: a tool call's type is \"function\"");
    CHECK(read_error(R"([{"role": "request", "functions": ["f"], "call_function": "g"}])") ==
          "/0/call_function: 'call_function' forces 'g', which 'functions' does not list");
    // content null is no content: a control message has none to give, a system message needs some
    CHECK(read_error(R"([{"role": "truncate", "content": null}])") ==
          "/0/content: a truncate message has no key but 'role', found 'content'");
    CHECK(read_error(R"([{"role": "system", "content": null}])") ==
          "/0: a system message needs 'content' (only a user message may leave it out)");
}

TEST_CASE("JSON: a result that reports a failure keeps is_error; only tool and function messages take it") {
    const auto read = parley::conversation_from_json(boost::json::parse(
        R"([{"role": "tool", "content": "Error: no city", "tool_call_id": "c1", "is_error": true},
            {"role": "function", "content": "Error: no city", "name": "f", "is_error": false},
            {"role": "tool", "content": "18 degrees", "tool_call_id": "c2"}])"));
    REQUIRE(read.size() == 3);
    CHECK(read[0].is_error);
    CHECK_FALSE(read[1].is_error);
    CHECK_FALSE(read[2].is_error);
    const auto written = parley::conversation_to_json(read);
    CHECK(boost::json::serialize(written[0]) ==
          R"({"role":"tool","content":"Error: no city","tool_call_id":"c1","is_error":true})");
    CHECK_FALSE(written[1].as_object().contains("is_error"));  // false is not written
    CHECK(parley::conversation_from_json(written) == read);
    CHECK(read_error(R"([{"role": "user", "content": "x", "is_error": true}])") ==
          "/0/is_error: 'is_error' belongs to tool and function messages (a result that reports a failure), not to "
          "a user message");
    CHECK(read_error(R"([{"role": "tool", "content": "x", "tool_call_id": "c", "is_error": 1}])") ==
          "/0/is_error: expected 'is_error' to be true or false");
}
