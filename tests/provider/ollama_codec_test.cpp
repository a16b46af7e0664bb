// Tests of parley/provider/ollama/: the body of a request to Ollama's /api/chat, replies, the
// lines of a streamed reply, errors, embeddings and OLLAMA_HOST. The request bodies expected are
// those of the examples of Ollama's API reference (docs/api.md of ollama/ollama: "Chat request
// (with tools)", "(with history, with tools)", "(with images)", "(structured outputs)", thinking,
// /api/embed) and of what the official `ollama` npm package sends (its ChatRequest, Message and
// ToolCall types: arguments as a JSON object, `tool_name` on tool results, `images` as base64);
// the replies are the reference's examples (a streamed line with `"images": null`, a last line
// without a message, a tool call reply, Ollama's `{"error": ...}` bodies and lines).
#include <parley/provider/ollama.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace parley;

namespace {

boost::json::value ollama_body(const chat_request& r, bool stream = false, const ollama::encode_options& o = {}) {
    return boost::json::value(ollama::encode_request(r, stream, o));
}

chat_request ollama_request(std::vector<message> messages = {make_message(role::user, "Hello")}) {
    chat_request r;
    r.params.model = "llama3.2";
    r.messages = std::move(messages);
    return r;
}

function_definition ollama_weather() {
    return {"get_current_weather", "Get the current weather for a location",
            boost::json::parse(R"({"type": "object", "properties": {
                "location": {"type": "string", "description": "The location to get the weather for, e.g. San Francisco, CA"},
                "format": {"type": "string", "description": "The format to return the weather in, e.g. 'celsius' or 'fahrenheit'",
                           "enum": ["celsius", "fahrenheit"]}},
                "required": ["location", "format"]})")
                .as_object()};
}

std::vector<stream_event> ollama_feed(ollama::stream_decoder& d, const std::vector<std::string>& lines) {
    std::vector<stream_event> out;
    for (const auto& l : lines) {
        auto e = d.feed("", l, out);
        REQUIRE_FALSE(e.has_value());
    }
    return out;
}

}  // namespace

TEST_CASE("ollama: OLLAMA_HOST as Ollama's clients read it; the wire API's paths and framing") {
    CHECK(ollama::host_url("") == "http://127.0.0.1:11434");
    CHECK(ollama::host_url("  ") == "http://127.0.0.1:11434");
    CHECK(ollama::host_url("example.com") == "http://example.com:11434");
    CHECK(ollama::host_url("example.com:56789") == "http://example.com:56789");
    CHECK(ollama::host_url(":56789") == "http://127.0.0.1:56789");
    CHECK(ollama::host_url("0.0.0.0") == "http://0.0.0.0:11434");
    CHECK(ollama::host_url("http://example.com") == "http://example.com:80");
    CHECK(ollama::host_url("https://example.com") == "https://example.com:443");
    CHECK(ollama::host_url("HTTPS://example.com:8443/ollama/") == "https://example.com:8443/ollama");
    CHECK(ollama::host_url("[::1]:1234") == "http://[::1]:1234");
    CHECK(ollama::host_url("[::1]") == "http://[::1]:11434");
    CHECK(ollama::host_url("::1") == "http://[::1]:11434");
    CHECK_THROWS_WITH_AS(ollama::host_url("ftp://example.com"),
                         "OLLAMA_HOST 'ftp://example.com' has the scheme 'ftp' (expected host:port or an http:// or "
                         "https:// URL)",
                         parley::error);
    CHECK_THROWS_AS(ollama::host_url("example.com:99999"), parley::error);
    CHECK_THROWS_AS(ollama::host_url("example.com:x"), parley::error);

    ollama::ollama_api api;
    CHECK(api.name() == "ollama");
    CHECK(api.default_base_url() == "http://127.0.0.1:11434");
    CHECK(api.chat_path() == "/api/chat");
    CHECK(api.chat_target(ollama_request(), true).empty());
    CHECK(api.framing() == stream_framing::ndjson);
    CHECK(api.embed_target({}) == "/api/embed");
    http_headers none;
    api.add_auth(none, "");
    CHECK(none.fields().empty());
    http_headers keyed;
    api.add_auth(keyed, "ollama-key");
    CHECK(keyed.get("Authorization") == "Bearer ollama-key");
}

TEST_CASE("ollama::encode_request: a conversation, `stream` always written, sampling parameters in `options`") {
    chat_request r = ollama_request({make_message(role::system, "You are a cat."), make_message(role::user, "Hello there"),
                                     make_message(role::assistant, "Meow?"), make_message(role::user, "How are you?")});
    CHECK(ollama_body(r, true) == boost::json::parse(R"({"model": "llama3.2", "messages": [
        {"role": "system", "content": "You are a cat."}, {"role": "user", "content": "Hello there"},
        {"role": "assistant", "content": "Meow?"}, {"role": "user", "content": "How are you?"}], "stream": true})"));
    r.params.temperature = 0.5;
    r.params.top_p = 0.9;
    r.params.top_k = 40;
    r.params.max_tokens = 128;
    r.params.stop = std::vector<std::string>{"\n\n", "User:"};
    r.params.seed = 42;
    r.params.presence_penalty = 0.25;
    r.params.frequency_penalty = 0.5;
    const auto body = ollama_body(r);
    CHECK(body.at("stream") == false);
    CHECK(body.at("options") == boost::json::parse(R"({"temperature": 0.5, "top_p": 0.9, "top_k": 40, "num_predict": 128,
        "stop": ["\n\n", "User:"], "seed": 42, "presence_penalty": 0.25, "frequency_penalty": 0.5})"));
    r.params.max_tokens.reset();
    r.params.max_completion_tokens = 64;
    r.params.stop = std::string("END");
    CHECK(ollama_body(r).at("options").at("num_predict") == 64);
    CHECK(ollama_body(r).at("options").at("stop") == boost::json::parse(R"(["END"])"));
    // control messages are not sent
    chat_request c = ollama_request({make_message(role::truncate, ""), make_message(role::user, "x")});
    CHECK(ollama_body(c).at("messages").as_array().size() == 1);
}

TEST_CASE("ollama::encode_request: the reference's tool examples, a forced function, tool results by name") {
    // "Chat request (with tools)"
    chat_request r = ollama_request({make_message(role::user, "What is the weather today in Paris?")});
    r.params.functions = std::vector<std::string>{"get_current_weather"};
    r.functions = {ollama_weather()};
    CHECK(ollama_body(r) == boost::json::parse(R"({"model": "llama3.2",
        "messages": [{"role": "user", "content": "What is the weather today in Paris?"}], "stream": false,
        "tools": [{"type": "function", "function": {"name": "get_current_weather",
            "description": "Get the current weather for a location",
            "parameters": {"type": "object", "properties": {
                "location": {"type": "string", "description": "The location to get the weather for, e.g. San Francisco, CA"},
                "format": {"type": "string", "description": "The format to return the weather in, e.g. 'celsius' or 'fahrenheit'",
                           "enum": ["celsius", "fahrenheit"]}},
            "required": ["location", "format"]}}}]})"));
    // Ollama has no tool_choice: "" offers none, a name offers that function alone
    function_definition time{"get_time", "", {}};
    r.functions.push_back(time);
    r.params.functions = std::vector<std::string>{"get_current_weather", "get_time"};
    CHECK(ollama_body(r).at("tools").as_array().size() == 2);
    r.params.call_function = "get_time";
    CHECK(ollama_body(r).at("tools") == boost::json::parse(R"([{"type": "function", "function": {"name": "get_time",
        "parameters": {"type": "object", "properties": {}}}}])"));
    r.params.call_function = "+";
    CHECK(ollama_body(r).at("tools").as_array().size() == 2);
    r.params.call_function = "";
    CHECK_FALSE(ollama_body(r).as_object().contains("tools"));
    r.params.call_function = "nope";
    CHECK_THROWS_AS(ollama_body(r), parley::error);
    r.params.call_function.reset();
    r.params.functions = std::vector<std::string>{"undefined_function"};
    CHECK_THROWS_WITH_AS(ollama_body(r), "function 'undefined_function' is requested but has no definition", parley::error);

    // "Chat request (with history, with tools)": arguments as an object, the result by tool_name
    message call = make_message(role::assistant, "");
    call.tool_calls = {{"ollama-call-0-0123456789abcdef", {"get_temperature", R"({"city": "Paris"})"}}};
    message result = make_message(role::tool, "22°C");
    result.tool_call_id = "ollama-call-0-0123456789abcdef";
    chat_request h = ollama_request({make_message(role::user, "What is the weather today in Paris?"), call, result});
    CHECK(ollama_body(h).at("messages") == boost::json::parse(R"([
        {"role": "user", "content": "What is the weather today in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_temperature", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "content": "22°C", "tool_name": "get_temperature"}])"));
    // an id that did not come from parley goes back with the call and the result
    h.messages[1].tool_calls[0].id = "call_abc";
    h.messages[2].tool_call_id = "call_abc";
    CHECK(ollama_body(h).at("messages").at(1).at("tool_calls") ==
          boost::json::parse(R"([{"id": "call_abc", "function": {"name": "get_temperature", "arguments": {"city": "Paris"}}}])"));
    CHECK(ollama_body(h).at("messages").at(2) ==
          boost::json::parse(R"({"role": "tool", "content": "22°C", "tool_name": "get_temperature", "tool_call_id": "call_abc"})"));
    // a legacy function call and its result
    message legacy = make_message(role::assistant, "");
    legacy.function_call = function_call{"get_time", ""};
    message legacy_result = make_message(role::function, "12:00");
    legacy_result.name = "get_time";
    chat_request l = ollama_request({make_message(role::user, "Time?"), legacy, legacy_result});
    CHECK(ollama_body(l).at("messages").at(1).at("tool_calls") ==
          boost::json::parse(R"([{"function": {"name": "get_time", "arguments": {}}}])"));
    CHECK(ollama_body(l).at("messages").at(2) == boost::json::parse(R"({"role": "tool", "content": "12:00", "tool_name": "get_time"})"));
    // arguments that are not a JSON object cannot be sent
    h.messages[1].tool_calls[0].function.arguments = "[1, 2]";
    CHECK_THROWS_WITH_AS(ollama_body(h),
                         "the arguments of tool call 'call_abc' to 'get_temperature' must be a JSON object (Ollama sends and "
                         "takes them as one), found an array",
                         parley::error);
    message no_id = make_message(role::tool, "x");
    CHECK_THROWS_AS(ollama_body(ollama_request({make_message(role::user, "x"), no_id})), parley::error);
}

TEST_CASE("ollama::encode_request: images as base64, thinking sent back, structured outputs, think, keep_alive, extra") {
    // "Chat request (with images)": the base64 data without the data: URL's media type
    message image = make_message(role::user, "");
    image.content = std::vector<content_part>{content_part::make_text("what is in this image?"),
                                              content_part::make_image("data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==", "low"),
                                              content_part::make_text("Answer briefly.")};
    CHECK(ollama_body(ollama_request({image})).at("messages").at(0) == boost::json::parse(R"({"role": "user",
        "content": "what is in this image?\nAnswer briefly.", "images": ["iVBORw0KGgoAAAANSUhEUg=="]})"));
    image.content = std::vector<content_part>{content_part::make_image("https://example.com/cat.png")};
    CHECK_THROWS_WITH_AS(ollama_body(ollama_request({image})),
                         "Ollama takes an image as base64 data (a data: URL), found 'https://example.com/cat.png': download it "
                         "and send it as data:<media type>;base64,<data>",
                         parley::error);
    image.content = std::vector<content_part>{content_part::make_image("data:image/png,rawbytes")};
    CHECK_THROWS_AS(ollama_body(ollama_request({image})), parley::error);
    message assistant_image = make_message(role::assistant, "");
    assistant_image.content = std::vector<content_part>{content_part::make_image("data:image/png;base64,AAAA")};
    CHECK_THROWS_AS(ollama_body(ollama_request({make_message(role::user, "x"), assistant_image})), parley::error);

    // an assistant message's reasoning goes back as `thinking`
    message thought = make_message(role::assistant, "It is 42.");
    thought.reasoning = {reasoning_part{reasoning_part::kind::text, "Six times seven.", "", "", "", {}}};
    CHECK(ollama_body(ollama_request({make_message(role::user, "6x7?"), thought})).at("messages").at(1) ==
          boost::json::parse(R"({"role": "assistant", "content": "It is 42.", "thinking": "Six times seven."})"));

    // "Chat request (structured outputs)": format is the schema; json_object is "json"
    chat_request s = ollama_request({make_message(role::user, "Ollama is 22 years old and busy saving the world.")});
    s.params.response_format = boost::json::parse(R"({"type": "json_schema", "json_schema": {"name": "person", "schema":
        {"type": "object", "properties": {"age": {"type": "integer"}, "available": {"type": "boolean"}},
         "required": ["age", "available"]}}})").as_object();
    s.params.temperature = 0.0;
    CHECK(ollama_body(s) == boost::json::parse(R"({"model": "llama3.2",
        "messages": [{"role": "user", "content": "Ollama is 22 years old and busy saving the world."}], "stream": false,
        "format": {"type": "object", "properties": {"age": {"type": "integer"}, "available": {"type": "boolean"}},
                   "required": ["age", "available"]},
        "options": {"temperature": 0.0}})"));
    s.params.response_format = boost::json::parse(R"({"type": "json_object"})").as_object();
    CHECK(ollama_body(s).at("format") == "json");
    s.params.response_format = boost::json::parse(R"({"type": "text"})").as_object();
    CHECK_FALSE(ollama_body(s).as_object().contains("format"));

    // think: reasoning_effort and thinking
    chat_request t = ollama_request();
    t.params.reasoning_effort = "high";
    CHECK(ollama_body(t).at("think") == "high");
    t.params.reasoning_effort = "none";
    CHECK(ollama_body(t).at("think") == false);
    t.params.reasoning_effort = "minimal";
    CHECK_THROWS_AS(ollama_body(t), parley::error);
    t.params.reasoning_effort.reset();
    t.params.thinking = thinking_config{"adaptive", std::nullopt, std::nullopt};
    CHECK(ollama_body(t).at("think") == true);
    t.params.thinking = thinking_config{"disabled", std::nullopt, std::nullopt};
    CHECK(ollama_body(t).at("think") == false);
    t.params.reasoning_effort = "low";
    CHECK_THROWS_AS(ollama_body(t), parley::error);

    // num_ctx and keep_alive from the options; extra last, `options` merged member by member
    chat_request e = ollama_request();
    e.params.temperature = 0.2;
    ollama::encode_options o;
    o.num_ctx = 8192;
    o.keep_alive = "10m";
    auto body = ollama_body(e, true, o);
    CHECK(body.at("options") == boost::json::parse(R"({"temperature": 0.2, "num_ctx": 8192})"));
    CHECK(body.at("keep_alive") == "10m");
    e.params.extra = boost::json::parse(R"({"options": {"num_ctx": 32768, "repeat_penalty": 1.1}, "keep_alive": -1,
                                            "think": "medium"})").as_object();
    body = ollama_body(e, true, o);
    CHECK(body.at("options") == boost::json::parse(R"({"temperature": 0.2, "num_ctx": 32768, "repeat_penalty": 1.1})"));
    CHECK(body.at("keep_alive") == -1);
    CHECK(body.at("think") == "medium");
    e.params.extra = boost::json::parse(R"({"messages": []})").as_object();
    CHECK_THROWS_AS(ollama_body(e), parley::error);
    o.num_ctx = 0;
    e.params.extra.reset();
    CHECK_THROWS_AS(ollama_body(e, false, o), parley::error);
    // logprobs at the top level
    chat_request lp = ollama_request();
    lp.params.logprobs = true;
    lp.params.top_logprobs = 3;
    CHECK(ollama_body(lp).at("logprobs") == true);
    CHECK(ollama_body(lp).at("top_logprobs") == 3);
}

TEST_CASE("ollama::encode_request: parameters Ollama has not, and bad values, are refused with their names") {
    auto refused = [](auto set) {
        chat_request r = ollama_request();
        set(r.params);
        try {
            static_cast<void>(ollama::encode_request(r, false));
        } catch (const parley::error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(refused([](request_params& p) { p.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"1", 1}}; }) ==
          "'logit_bias' is not supported by Ollama's API (set other Ollama fields, such as options.num_ctx or keep_alive, "
          "through 'extra')");
    CHECK(refused([](request_params& p) { p.parallel_tool_calls = false; }).find("'parallel_tool_calls'") == 0);
    CHECK(refused([](request_params& p) { p.reasoning_summary = "auto"; }).find("'reasoning_summary'") == 0);
    CHECK(refused([](request_params& p) { p.n = 2; }) == "'n' is 2, but Ollama's chat endpoint gives one reply per request");
    CHECK(refused([](request_params& p) { p.n = 1; }) == "accepted");
    CHECK(refused([](request_params& p) { p.temperature = 2.5; }) == "'temperature' is 2.5, but it is 0 to 2");
    CHECK(refused([](request_params& p) { p.top_logprobs = 2; }) == "'top_logprobs' needs 'logprobs': true");
    CHECK(refused([](request_params& p) {
              p.max_tokens = 5;
              p.max_completion_tokens = 5;
          }).find("set 'max_tokens' or 'max_completion_tokens'") == 0);
    CHECK(refused([](request_params& p) { p.model.reset(); }) ==
          "the request has no model: set 'model' in a default-request or request message");
    CHECK(refused([](request_params& p) { p.response_format = boost::json::parse(R"({"type": "json_schema"})").as_object(); })
              .find("'response_format' of type json_schema needs") == 0);
    chat_request empty_user = ollama_request({make_message(role::user, "")});
    empty_user.messages[0].content = std::monostate{};
    CHECK_THROWS_WITH_AS(ollama::encode_request(empty_user, false), "a user message has no content", parley::error);
}

TEST_CASE("ollama::decode_reply: the reference's replies: text, tool calls, thinking, usage, created_at") {
    const std::string tool_reply = R"({"model": "llama3.2", "created_at": "2024-07-22T20:33:28.123648Z",
        "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_current_weather",
            "arguments": {"format": "celsius", "location": "Paris, FR"}}}]},
        "done_reason": "stop", "done": true, "total_duration": 885095291, "load_duration": 3753500,
        "prompt_eval_count": 122, "prompt_eval_duration": 328493000, "eval_count": 33, "eval_duration": 552222000})";
    auto r = ollama::decode_reply(200, {}, tool_reply);
    REQUIRE(r.has_value());
    CHECK(r->model == "llama3.2");
    CHECK(r->created == 1721680408);
    CHECK(r->id.empty());
    REQUIRE(r->choices.size() == 1);
    const auto& m = r->message();
    CHECK(m.role == role::assistant);
    CHECK_FALSE(m.has_text());  // "" is no content
    REQUIRE(m.tool_calls.size() == 1);
    CHECK(m.tool_calls[0].function.name == "get_current_weather");
    CHECK(boost::json::parse(m.tool_calls[0].function.arguments) ==
          boost::json::parse(R"({"format": "celsius", "location": "Paris, FR"})"));
    CHECK(m.tool_calls[0].id.rfind("ollama-call-0-", 0) == 0);
    CHECK(r->choices[0].finish == finish_reason::tool_calls);
    CHECK(r->choices[0].finish_text == "stop");
    REQUIRE(r->usage.has_value());
    CHECK(r->usage->prompt_tokens == 122);
    CHECK(r->usage->completion_tokens == 33);
    CHECK(r->usage->total_tokens == 155);
    CHECK(r->usage->details.at("eval_duration") == 552222000);
    // the same reply gives the same id; another created_at another
    CHECK(ollama::decode_reply(200, {}, tool_reply)->message().tool_calls[0].id == m.tool_calls[0].id);
    std::string later = tool_reply;
    later.replace(later.find("28.123648Z"), 10, "29.123648Z");
    CHECK(ollama::decode_reply(200, {}, later)->message().tool_calls[0].id != m.tool_calls[0].id);
    // an id the server gives is kept
    std::string with_id = tool_reply;
    with_id.replace(with_id.find("{\"function\""), 1, "{\"id\": \"call_xyz\", ");
    CHECK(ollama::decode_reply(200, {}, with_id)->message().tool_calls[0].id == "call_xyz");

    auto t = ollama::decode_reply(200, {}, R"({"model": "qwen3", "created_at": "2025-05-29T09:35:56.836222Z",
        "message": {"role": "assistant", "content": "The answer is 42.", "thinking": "Let me count."},
        "done_reason": "length", "done": true, "eval_count": 7, "logprobs": [{"token": "The", "logprob": -0.1}]})");
    REQUIRE(t.has_value());
    CHECK(t->text() == "The answer is 42.");
    REQUIRE(t->message().reasoning.size() == 1);
    CHECK(t->message().reasoning[0].type == reasoning_part::kind::text);
    CHECK(t->message().reasoning[0].text == "Let me count.");
    CHECK(t->choices[0].finish == finish_reason::length);
    CHECK(t->usage->prompt_tokens == 0);  // left out when the prompt came from the cache
    CHECK(t->choices[0].logprobs == boost::json::parse(R"([{"token": "The", "logprob": -0.1}])"));
    auto load = ollama::decode_reply(200, {}, R"({"model": "x", "created_at": "2025-01-01T00:00:00+01:00",
        "message": {"role": "assistant", "content": ""}, "done_reason": "load", "done": true})");
    REQUIRE(load.has_value());
    CHECK(load->choices[0].finish == finish_reason::other);
    CHECK(load->created == 1735686000);
}

TEST_CASE("ollama::decode_reply and decode_error: Ollama's error bodies; malformed replies named") {
    auto nf = ollama::decode_reply(404, {}, R"({"error":"model \"llama9\" not found, try pulling it first"})");
    REQUIRE_FALSE(nf.has_value());
    CHECK(nf.error().code == errc::api_error);
    CHECK(nf.error().status == 404);
    CHECK(nf.error().message == "model \"llama9\" not found, try pulling it first");
    CHECK(nf.error().type.empty());
    auto in_200 = ollama::decode_reply(200, {}, R"({"error":"an error was encountered while running the model"})");
    REQUIRE_FALSE(in_200.has_value());
    CHECK(in_200.error().code == errc::api_error);
    CHECK(ollama::decode_error(502, {}, "<html>Bad Gateway</html>").code == errc::http_status);

    auto protocol = [](std::string_view body) {
        auto r = ollama::decode_reply(200, {}, body);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == errc::protocol);
        return r.error().message;
    };
    CHECK(protocol(R"({"model": "x", "message": {"role": "assistant", "content": "a"}, "done": false})") ==
          "ChatResponse: done: expected true (a whole reply), found a boolean (false)");
    CHECK(protocol(R"({"model": "x", "done": true})") == "ChatResponse: message: expected an object, found nothing");
    CHECK(protocol(R"({"message": {"role": "user", "content": "a"}, "done": true})") ==
          "ChatResponse: message.role: expected \"assistant\", found a string (\"user\")");
    CHECK(protocol(R"({"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f",
                       "arguments": "{\"a\": 1}"}}]}, "done": true})") ==
          "ChatResponse: message.tool_calls[0].function.arguments: expected an object, found a string (\"{\\\"a\\\": 1}\")");
    CHECK(protocol(R"({"message": {"role": "assistant", "content": 5}, "done": true})") ==
          "ChatResponse: message.content: expected a string or null, found an integer (5)");
    CHECK(protocol("not json").find("expected a ChatResponse as JSON") != std::string::npos);
}

TEST_CASE("ollama::stream_decoder: the reference's streamed lines; thinking, tool calls, the last line's usage") {
    ollama::stream_decoder d;
    const auto events = ollama_feed(
        d, {R"({"model": "llama3.2", "created_at": "2023-08-04T08:52:19.385406455-07:00", "message": {"role": "assistant",
               "content": "The", "images": null}, "done": false})",
            R"({"model": "llama3.2", "created_at": "2023-08-04T08:52:19.5Z", "message": {"role": "assistant", "content": " sky"}, "done": false})",
            R"({"model": "llama3.2", "created_at": "2023-08-04T19:22:45.499127Z", "done": true, "total_duration": 4883583458,
               "load_duration": 1334875, "prompt_eval_count": 26, "prompt_eval_duration": 342546000, "eval_count": 282,
               "eval_duration": 4535599000})"});
    REQUIRE(events.size() == 5);
    CHECK(events[0].type == stream_event::kind::text);
    CHECK(events[0].text == "The");
    CHECK(events[1].text == " sky");
    CHECK(events[2].type == stream_event::kind::finish);
    CHECK(events[2].finish == finish_reason::none);  // that version wrote no done_reason
    CHECK(events[3].type == stream_event::kind::usage);
    CHECK(events[4].type == stream_event::kind::done);
    CHECK(d.done());
    CHECK(d.reply().created == 1691164339);  // 08:52:19 at -07:00
    CHECK(d.reply().usage->total_tokens == 308);
    CHECK(d.take_reply().text() == "The sky");

    // thinking, then the answer, then a tool call line: the same reply as a whole
    const std::vector<std::string> lines = {
        R"({"model":"qwen3","created_at":"2025-05-29T09:35:56Z","message":{"role":"assistant","content":"","thinking":"I need "},"done":false})",
        R"({"model":"qwen3","created_at":"2025-05-29T09:35:56Z","message":{"role":"assistant","content":"","thinking":"the weather."},"done":false})",
        R"({"model":"qwen3","created_at":"2025-05-29T09:35:56Z","message":{"role":"assistant","content":"Checking."},"done":false})",
        R"({"model":"qwen3","created_at":"2025-05-29T09:35:56Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":0,"name":"get_weather","arguments":{"city":"Oslo"}}},{"function":{"index":1,"name":"get_time","arguments":{}}}]},"done":false})",
        R"({"model":"qwen3","created_at":"2025-05-29T09:35:56Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":20,"eval_count":15})"};
    ollama::stream_decoder s;
    const auto ev = ollama_feed(s, lines);
    std::string thinking;
    std::vector<stream_event> calls;
    for (const auto& e : ev) {
        if (e.type == stream_event::kind::reasoning) thinking += e.text;
        if (e.type == stream_event::kind::tool_call) calls.push_back(e);
    }
    CHECK(thinking == "I need the weather.");
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].name == "get_weather");
    CHECK(calls[0].text == R"({"city":"Oslo"})");
    CHECK(calls[1].tool_index == 1);
    CHECK(calls[1].id.rfind("ollama-call-1-", 0) == 0);
    const chat_reply streamed = s.take_reply();
    CHECK(streamed.choices[0].finish == finish_reason::tool_calls);
    // the whole reply of the same content
    auto whole = ollama::decode_reply(200, {}, R"({"model":"qwen3","created_at":"2025-05-29T09:35:56Z","message":{"role":"assistant",
        "content":"Checking.","thinking":"I need the weather.","tool_calls":[{"function":{"index":0,"name":"get_weather",
        "arguments":{"city":"Oslo"}}},{"function":{"index":1,"name":"get_time","arguments":{}}}]},"done":true,
        "done_reason":"stop","prompt_eval_count":20,"eval_count":15})");
    REQUIRE(whole.has_value());
    CHECK(whole->choices == streamed.choices);
    CHECK(whole->usage == streamed.usage);
}

TEST_CASE("ollama::stream_decoder: an error line mid-stream is an API error, never text; malformed lines; after the end") {
    ollama::stream_decoder d({}, 200);
    std::vector<stream_event> out;
    CHECK_FALSE(d.feed("", R"({"model":"x","message":{"role":"assistant","content":"Hal"},"done":false})", out).has_value());
    auto e = d.feed("", R"({"error":"an error was encountered while running the model: CUDA error: out of memory"})", out);
    REQUIRE(e.has_value());
    CHECK(e->code == errc::api_error);
    CHECK(e->status == 200);
    CHECK(e->message == "an error was encountered while running the model: CUDA error: out of memory");
    CHECK(out.size() == 1);  // the text before the error only
    CHECK(d.failed());
    CHECK_FALSE(d.done());
    auto again = d.feed("", R"({"model":"x","message":{"role":"assistant","content":"lo"},"done":false})", out);
    REQUIRE(again.has_value());
    CHECK(again->message == e->message);
    CHECK(out.size() == 1);

    ollama::stream_decoder m;
    auto bad = m.feed("", R"({"model":"x","message":{"role":"assistant","content)", out);
    REQUIRE(bad.has_value());
    CHECK(bad->code == errc::protocol);
    CHECK(bad->message.rfind("line 1: expected a ChatResponse line as JSON", 0) == 0);
    ollama::stream_decoder shape;
    auto wrong = shape.feed("", R"({"message":{"role":"assistant","content":"x"},"done":"yes"})", out);
    REQUIRE(wrong.has_value());
    CHECK(wrong->message == "line 1: done: expected a boolean, found a string (\"yes\")");
    ollama::stream_decoder after;
    std::vector<stream_event> o2;
    CHECK_FALSE(after.feed("", R"({"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"})", o2).has_value());
    CHECK(after.done());
    auto more = after.feed("", R"({"message":{"role":"assistant","content":"x"},"done":false})", o2);
    REQUIRE(more.has_value());
    CHECK(more->message == "line 2: expected nothing after the line with \"done\": true, found more");
    ollama::stream_decoder limited({}, 200, reply_limits{64, 64, 128, 128, 4096, 16, 4096, 65536});
    auto big = limited.feed("", R"({"message":{"role":"assistant","content":"abcdefghijklmnopqrstuvwxyz0123456789"},"done":false})", out);
    REQUIRE(big.has_value());
    CHECK(big->code == errc::protocol);
}

TEST_CASE("ollama: /api/embed requests and replies as the reference shows them") {
    embedding_request one;
    one.model = "all-minilm";
    one.input = {"Why is the sky blue?"};
    CHECK(boost::json::value(ollama::encode_embedding_request(one)) ==
          boost::json::parse(R"({"model": "all-minilm", "input": "Why is the sky blue?"})"));
    embedding_request two = one;
    two.input = {"Why is the sky blue?", "Why is the grass green?"};
    two.dimensions = 256;
    ollama::encode_options o;
    o.keep_alive = "1m";
    CHECK(boost::json::value(ollama::encode_embedding_request(two, o)) ==
          boost::json::parse(R"({"model": "all-minilm", "input": ["Why is the sky blue?", "Why is the grass green?"],
                                 "dimensions": 256, "keep_alive": "1m"})"));
    two.task_type = "RETRIEVAL_QUERY";
    CHECK_THROWS_AS(ollama::encode_embedding_request(two), parley::error);
    two.task_type.reset();
    two.encoding_format = "base64";
    CHECK_THROWS_AS(ollama::encode_embedding_request(two), parley::error);
    two.encoding_format.reset();
    two.input = {"a", ""};
    CHECK_THROWS_WITH_AS(ollama::encode_embedding_request(two), "input 1 of the embeddings request is empty", parley::error);

    auto r = ollama::decode_embedding_reply(200, {}, R"({"model": "all-minilm",
        "embeddings": [[0.010071029, -0.0017594862, 0.05007221, 0.04692972], [0.5, -1, 0, 2]],
        "total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8})");
    REQUIRE(r.has_value());
    CHECK(r->model == "all-minilm");
    REQUIRE(r->data.size() == 2);
    CHECK(r->data[0].size() == 4);
    CHECK(r->data[0][0] == doctest::Approx(0.010071029));
    CHECK(r->data[1][1] == -1.0f);
    REQUIRE(r->usage.has_value());
    CHECK(r->usage->prompt_tokens == 8);
    CHECK(r->usage->total_tokens == 8);
    auto err = ollama::decode_embedding_reply(400, {}, R"({"error":"input length exceeds maximum context length"})");
    REQUIRE_FALSE(err.has_value());
    CHECK(err.error().message == "input length exceeds maximum context length");
    auto bad = ollama::decode_embedding_reply(200, {}, R"({"model": "m", "embeddings": [[1, "x"]]})");
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().message == "embeddings reply: embeddings[0][1]: expected a number, found a string (\"x\")");
}
