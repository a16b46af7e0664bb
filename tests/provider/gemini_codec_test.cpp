// Tests of parley/provider/gemini/: the Gemini API request body, replies, streamed chunks,
// errors and embeddings. The shapes checked are those of the API reference
// (https://ai.google.dev/api/generate-content, /api/caching#Content, /api/embeddings, the
// function calling and thinking guides) and of what the official @google/genai 2.x SDK sends
// and reads (its source: models/NAME paths, parametersJsonSchema, alt=sse); the reply shapes are
// those of recorded API replies (thought signatures on function call parts, a last chunk with an
// empty text and the finishReason, a blocked prompt with promptFeedback only).
#include <parley/provider/gemini.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace parley;

namespace {

boost::json::value gemini_body(const chat_request& r, const gemini::encode_options& o = {}) {
    return boost::json::value(gemini::encode_request(r, false, o));
}

chat_request gemini_request(std::vector<message> messages = {make_message(role::user, "Hello")}) {
    chat_request r;
    r.params.model = "gemini-2.5-flash";
    r.messages = std::move(messages);
    return r;
}

message gemini_tool_result(std::string id, std::string text) {
    message m = make_message(role::tool, std::move(text));
    m.tool_call_id = std::move(id);
    return m;
}

function_definition gemini_weather() {
    return {"get_weather", "The weather of a city",
            boost::json::parse(R"({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})")
                .as_object()};
}

std::vector<stream_event> gemini_feed(gemini::stream_decoder& d, const std::vector<std::string>& chunks) {
    std::vector<stream_event> out;
    for (const auto& c : chunks) {
        auto e = d.feed("", c, out);
        REQUIRE_FALSE(e.has_value());
    }
    return out;
}

}  // namespace

TEST_CASE("gemini: model names become the SDK's resource names; bad names are refused") {
    CHECK(gemini::model_resource("gemini-2.5-flash") == "models/gemini-2.5-flash");
    CHECK(gemini::model_resource("models/gemini-2.5-flash") == "models/gemini-2.5-flash");
    CHECK(gemini::model_resource("tunedModels/my-model-7") == "tunedModels/my-model-7");
    for (std::string_view bad : {"a?b", "a&b", "../x", "a b", "models/", "/x", "a//b", ""})
        CHECK_THROWS_AS(gemini::model_resource(bad), parley::error);
    gemini::gemini_api api;
    chat_request r = gemini_request();
    CHECK(api.chat_target(r, false) == "/models/gemini-2.5-flash:generateContent");
    CHECK(api.chat_target(r, true) == "/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    r.params.model = "tunedModels/t1";
    CHECK(api.chat_target(r, false) == "/tunedModels/t1:generateContent");
    http_headers h;
    api.add_auth(h, "AIza-test");
    CHECK(h.get("x-goog-api-key") == "AIza-test");
    CHECK(api.default_base_url() == "https://generativelanguage.googleapis.com/v1beta");
}

TEST_CASE("gemini::encode_request: a conversation with a system prompt, text turns and sampling parameters") {
    chat_request r = gemini_request({make_message(role::system, "You are a cat."), make_message(role::user, "Hello there"),
                                     make_message(role::assistant, "Meow?"), make_message(role::system, "Be brief."),
                                     make_message(role::user, "How are you?")});
    r.params.temperature = 1.0;
    r.params.top_p = 0.8;
    r.params.top_k = 10;
    r.params.max_tokens = 800;
    r.params.stop = std::vector<std::string>{"Title"};
    r.params.n = 2;
    r.params.seed = 7;
    r.params.presence_penalty = 0.5;
    r.params.frequency_penalty = -0.5;
    r.params.logprobs = true;
    r.params.top_logprobs = 3;
    CHECK(gemini_body(r) == boost::json::parse(R"({
        "contents": [
            {"role": "user", "parts": [{"text": "Hello there"}]},
            {"role": "model", "parts": [{"text": "Meow?"}]},
            {"role": "user", "parts": [{"text": "How are you?"}]}],
        "systemInstruction": {"parts": [{"text": "You are a cat."}, {"text": "Be brief."}]},
        "generationConfig": {"temperature": 1.0, "topP": 0.8, "topK": 10, "candidateCount": 2, "maxOutputTokens": 800,
                             "stopSequences": ["Title"], "presencePenalty": 0.5, "frequencyPenalty": -0.5, "seed": 7,
                             "responseLogprobs": true, "logprobs": 3}})"));
    // the stream flag changes nothing in the body (it is in the path)
    CHECK(boost::json::value(gemini::encode_request(r, true)) == gemini_body(r));
    chat_request one = gemini_request();
    one.params.stop = std::string("END");
    one.params.max_completion_tokens = 5;
    CHECK(gemini_body(one).at("generationConfig") == boost::json::parse(R"({"maxOutputTokens": 5, "stopSequences": ["END"]})"));
}

TEST_CASE("gemini::encode_request: images as inlineData and fileData; other URLs refused") {
    message m;
    m.role = role::user;
    m.content = std::vector<content_part>{content_part::make_text("What is this?"),
                                          content_part::make_image("data:image/jpeg;base64,/9j/4AAQ", "high"),
                                          content_part::make_image("gs://bucket/cat.png"),
                                          content_part::make_image("https://generativelanguage.googleapis.com/v1beta/files/abc")};
    CHECK(gemini_body(gemini_request({m})).at("contents") == boost::json::parse(R"([{"role": "user", "parts": [
        {"text": "What is this?"},
        {"inlineData": {"mimeType": "image/jpeg", "data": "/9j/4AAQ"}},
        {"fileData": {"fileUri": "gs://bucket/cat.png"}},
        {"fileData": {"fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}}]}])"));
    for (std::string url : {"https://example.com/cat.png", "data:image/png,notbase64", "data:;base64,AAAA", "ftp://x/y"}) {
        message bad;
        bad.role = role::user;
        bad.content = std::vector<content_part>{content_part::make_image(url)};
        try {
            static_cast<void>(gemini::encode_request(gemini_request({bad}), false));
            FAIL("no error for " << url);
        } catch (const parley::error& e) {
            CHECK(e.code() == errc::chat_invalid);
        }
    }
    CHECK_THROWS_WITH_AS(
        [] {
            message bad;
            bad.role = role::user;
            bad.content = std::vector<content_part>{content_part::make_image("https://example.com/cat.png")};
            static_cast<void>(gemini::encode_request(gemini_request({bad}), false));
        }(),
        "the Gemini API takes an image as a base64 data: URL (inlineData) or as a gs:// or Files API URI (fileData), found "
        "'https://example.com/cat.png': download it and send it as a data: URL",
        parley::error);
}

TEST_CASE("gemini::encode_request: functions, tool choice, calls and their results (the function calling guide's turns)") {
    message call = make_message(role::assistant, "");
    call.tool_calls = {{"call_1", {"get_weather", R"({"city": "Oslo"})"}}, {"call_2", {"get_weather", R"({"city":"Rome"})"}}};
    message failed = gemini_tool_result("call_2", "service down");
    failed.is_error = true;
    chat_request r = gemini_request({make_message(role::user, "Weather in Oslo and Rome?"), call,
                                     gemini_tool_result("call_1", R"({"celsius": -3})"), failed});
    r.functions = {gemini_weather(), {"get_time", "", {}}};
    r.params.functions = std::vector<std::string>{"get_weather", "get_time"};
    r.params.call_function = "get_weather";
    const auto body = gemini_body(r);
    CHECK(body.at("tools") == boost::json::parse(R"([{"functionDeclarations": [
        {"name": "get_weather", "description": "The weather of a city",
         "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        {"name": "get_time"}]}])"));
    CHECK(body.at("toolConfig") ==
          boost::json::parse(R"({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}})"));
    CHECK(body.at("contents") == boost::json::parse(R"([
        {"role": "user", "parts": [{"text": "Weather in Oslo and Rome?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1"}},
                                    {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}, "id": "call_2"}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"celsius": -3}, "id": "call_1"}},
            {"functionResponse": {"name": "get_weather", "response": {"error": "service down"}, "id": "call_2"}}]}])"));
    for (auto [choice, config] : std::vector<std::pair<std::string, std::string>>{
             {"", R"({"functionCallingConfig": {"mode": "NONE"}})"},
             {"*", R"({"functionCallingConfig": {"mode": "AUTO"}})"},
             {"+", R"({"functionCallingConfig": {"mode": "ANY"}})"}}) {
        r.params.call_function = choice;
        CHECK(gemini_body(r).at("toolConfig") == boost::json::parse(config));
    }
    r.params.call_function.reset();
    CHECK_FALSE(gemini_body(r).as_object().contains("toolConfig"));
    // a legacy function call and function message, matched by name
    message legacy = make_message(role::assistant, "");
    legacy.function_call = function_call{"get_time", ""};
    message result = make_message(role::function, "12:00");
    result.name = "get_time";
    CHECK(gemini_body(gemini_request({make_message(role::user, "time?"), legacy, result})).at("contents") ==
          boost::json::parse(R"([{"role": "user", "parts": [{"text": "time?"}]},
              {"role": "model", "parts": [{"functionCall": {"name": "get_time", "args": {}}}]},
              {"role": "user", "parts": [{"functionResponse": {"name": "get_time", "response": {"output": "12:00"}}}]}])"));
    // errors: unknown call, arguments that are not an object, a forced function not listed
    CHECK_THROWS_AS(static_cast<void>(gemini::encode_request(gemini_request({gemini_tool_result("nope", "x")}), false)),
                    parley::error);
    message bad_args = make_message(role::assistant, "");
    bad_args.tool_calls = {{"c", {"f", "[1]"}}};
    CHECK_THROWS_WITH_AS(static_cast<void>(gemini::encode_request(gemini_request({bad_args}), false)),
                         "the arguments of tool call 'c' to 'f' must be a JSON object, found an array", parley::error);
    chat_request forced = gemini_request();
    forced.params.call_function = "get_weather";
    CHECK_THROWS_AS(static_cast<void>(gemini::encode_request(forced, false)), parley::error);
}

TEST_CASE("gemini::encode_request: structured output, thinking, extra fields, refused parameters") {
    chat_request r = gemini_request();
    r.params.response_format = boost::json::parse(R"({"type": "json_schema", "json_schema": {"name": "w", "strict": true,
        "schema": {"type": "object", "properties": {"c": {"type": "integer"}}, "required": ["c"], "additionalProperties": false}}})")
                                   .as_object();
    r.params.thinking = thinking_config{"enabled", 2048, std::nullopt};
    r.params.extra = boost::json::parse(R"({"safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT",
        "threshold": "BLOCK_ONLY_HIGH"}], "generationConfig": {"responseModalities": ["TEXT"]}})")
                         .as_object();
    const auto body = gemini_body(r);
    CHECK(body.at("generationConfig") == boost::json::parse(R"({"responseMimeType": "application/json",
        "responseJsonSchema": {"type": "object", "properties": {"c": {"type": "integer"}}, "required": ["c"], "additionalProperties": false},
        "thinkingConfig": {"thinkingBudget": 2048, "includeThoughts": true}, "responseModalities": ["TEXT"]})"));
    CHECK(body.at("safetySettings").at(0).at("threshold") == "BLOCK_ONLY_HIGH");

    chat_request t = gemini_request();
    t.params.response_format = boost::json::parse(R"({"type": "json_object"})").as_object();
    t.params.reasoning_effort = "low";
    CHECK(gemini_body(t).at("generationConfig") ==
          boost::json::parse(R"({"responseMimeType": "application/json", "thinkingConfig": {"thinkingLevel": "LOW"}})"));
    t.params.reasoning_effort = "none";
    t.params.reasoning_summary = "auto";
    CHECK(gemini_body(t).at("generationConfig").at("thinkingConfig") ==
          boost::json::parse(R"({"thinkingBudget": 0, "includeThoughts": true})"));
    t.params.reasoning_effort.reset();
    t.params.reasoning_summary.reset();
    t.params.thinking = thinking_config{"adaptive", std::nullopt, std::string("omitted")};
    CHECK(gemini_body(t).at("generationConfig").at("thinkingConfig") ==
          boost::json::parse(R"({"thinkingBudget": -1, "includeThoughts": false})"));
    t.params.thinking = thinking_config{"disabled", std::nullopt, std::nullopt};
    CHECK(gemini_body(t).at("generationConfig").at("thinkingConfig") == boost::json::parse(R"({"thinkingBudget": 0})"));

    auto refused = [](auto set, std::string message) {
        chat_request q = gemini_request();
        set(q.params);
        CHECK_THROWS_WITH_AS(static_cast<void>(gemini::encode_request(q, false)), message.c_str(), parley::error);
    };
    refused([](request_params& p) { p.logit_bias = {{"1", 1}}; },
            "'logit_bias' is not supported by the Gemini API (set other Gemini fields through 'extra')");
    refused([](request_params& p) { p.parallel_tool_calls = false; },
            "'parallel_tool_calls' is not supported by the Gemini API (set other Gemini fields through 'extra')");
    refused([](request_params& p) { p.temperature = 2.5; }, "'temperature' is 2.5, but the Gemini API accepts 0 to 2");
    refused([](request_params& p) { p.n = 9; }, "'n' is 9, but the Gemini API's candidateCount is 1 to 8");
    refused([](request_params& p) { p.reasoning_effort = "xhigh"; },
            "'reasoning_effort' is \"xhigh\", but the Gemini API takes \"none\", \"minimal\", \"low\", \"medium\" or \"high\"");
    refused([](request_params& p) { p.extra = boost::json::parse(R"({"contents": []})").as_object(); },
            "'extra' may not replace 'contents' (the messages parley sends)");
    refused([](request_params& p) { p.top_logprobs = 2; }, "'top_logprobs' needs 'logprobs': true (the Gemini API's responseLogprobs)");
    chat_request none;
    none.messages = {make_message(role::user, "x")};
    CHECK_THROWS_AS(static_cast<void>(gemini::encode_request(none, false)), parley::error);
}

TEST_CASE("gemini::decode_reply: text, usage, model version and response id") {
    const auto r = gemini::decode_reply(200, {}, R"({
        "candidates": [{"content": {"parts": [{"text": "Hello! "}, {"text": "How can I help?"}], "role": "model"},
                        "finishReason": "STOP", "index": 0, "avgLogprobs": -0.2}],
        "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 6, "totalTokenCount": 30,
                          "cachedContentTokenCount": 4, "thoughtsTokenCount": 16,
                          "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 8}]},
        "modelVersion": "gemini-2.5-flash", "responseId": "mAitaLmkHPPlz7IPvtfUqQ4"})");
    REQUIRE(r.has_value());
    CHECK(r->id == "mAitaLmkHPPlz7IPvtfUqQ4");
    CHECK(r->model == "gemini-2.5-flash");
    REQUIRE(r->choices.size() == 1);
    CHECK(r->text() == "Hello! How can I help?");
    CHECK(r->choices[0].finish == finish_reason::stop);
    CHECK(r->choices[0].finish_text == "STOP");
    REQUIRE(r->usage.has_value());
    CHECK(r->usage->prompt_tokens == 8);
    CHECK(r->usage->completion_tokens == 22);
    CHECK(r->usage->total_tokens == 30);
    CHECK(r->usage->cached_tokens() == 4);
    CHECK(r->usage->reasoning_tokens() == 16);
    CHECK(r->status == 200);
}

TEST_CASE("gemini::decode_reply: thoughts, signatures and function calls without ids; the next request sends them back") {
    const std::string body = R"({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "The user wants ", "thought": true},
            {"text": "the weather.", "thought": true, "thoughtSignature": "c2lnLTE="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": "c2lnLTI="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]},
            "finishReason": "STOP", "index": 0}],
        "responseId": "resp-1"})";
    const auto r = gemini::decode_reply(200, {}, body);
    REQUIRE(r.has_value());
    const message& m = r->message();
    CHECK(m.content.index() == 0);  // no text
    REQUIRE(m.reasoning.size() == 2);
    CHECK(m.reasoning[0].type == reasoning_part::kind::thinking);
    CHECK(m.reasoning[0].text == "The user wants the weather.");
    CHECK(m.reasoning[0].signature == "c2lnLTE=");
    CHECK(m.reasoning[1].text.empty());
    CHECK(m.reasoning[1].signature == "c2lnLTI=");
    REQUIRE(m.tool_calls.size() == 2);
    CHECK(m.tool_calls[0].id == "gemini-call-resp-1-0-0");
    CHECK(m.tool_calls[1].id == "gemini-call-resp-1-0-1");
    CHECK(m.tool_calls[0].function.arguments == R"({"city":"Oslo"})");
    CHECK(r->choices[0].finish == finish_reason::tool_calls);
    CHECK(r->choices[0].finish_text == "STOP");
    CHECK(gemini::decode_reply(200, {}, body)->message() == m);  // the ids are stable

    chat_request next = gemini_request({make_message(role::user, "Weather?"), m,
                                        gemini_tool_result(m.tool_calls[0].id, R"({"celsius": -3})"),
                                        gemini_tool_result(m.tool_calls[1].id, R"({"celsius": 20})")});
    CHECK(gemini_body(next).at("contents") == boost::json::parse(R"([
        {"role": "user", "parts": [{"text": "Weather?"}]},
        {"role": "model", "parts": [
            {"text": "The user wants the weather.", "thought": true, "thoughtSignature": "c2lnLTE="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": "c2lnLTI="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"celsius": -3}}},
                                   {"functionResponse": {"name": "get_weather", "response": {"celsius": 20}}}]}])"));
    // the API's own ids are kept and sent back
    const auto with_id = gemini::decode_reply(
        200, {}, R"({"candidates": [{"content": {"parts": [{"functionCall": {"id": "fc-9", "name": "f", "args": {}}}]}, "finishReason": "STOP"}]})");
    REQUIRE(with_id.has_value());
    CHECK(with_id->message().tool_calls.at(0).id == "fc-9");
    // a signature on a text part goes back on the last text part
    const auto signed_text = gemini::decode_reply(
        200, {}, R"({"candidates": [{"content": {"parts": [{"text": "Hi", "thoughtSignature": "c2ln"}]}, "finishReason": "STOP"}]})");
    REQUIRE(signed_text.has_value());
    CHECK(gemini_body(gemini_request({make_message(role::user, "x"), signed_text->message()})).at("contents").at(1) ==
          boost::json::parse(R"({"role": "model", "parts": [{"text": "Hi", "thoughtSignature": "c2ln"}]})"));
}

TEST_CASE("gemini::decode_reply: finish reasons, candidates, blocked prompts") {
    for (auto [word, reason] : std::vector<std::pair<std::string, finish_reason>>{{"MAX_TOKENS", finish_reason::length},
                                                                                 {"SAFETY", finish_reason::content_filter},
                                                                                 {"RECITATION", finish_reason::content_filter},
                                                                                 {"PROHIBITED_CONTENT", finish_reason::content_filter},
                                                                                 {"MALFORMED_FUNCTION_CALL", finish_reason::other},
                                                                                 {"OTHER", finish_reason::other}}) {
        const auto r = gemini::decode_reply(200, {}, R"({"candidates": [{"finishReason": ")" + word + R"(", "index": 0}]})");
        REQUIRE(r.has_value());
        CHECK(r->choices[0].finish == reason);
        CHECK(r->choices[0].finish_text == word);
        CHECK(r->choices[0].message.content.index() == 0);
    }
    const auto two = gemini::decode_reply(200, {}, R"({"candidates": [
        {"content": {"parts": [{"text": "B"}]}, "finishReason": "STOP", "index": 1},
        {"content": {"parts": [{"text": "A"}]}, "finishReason": "MAX_TOKENS", "index": 0}]})");
    REQUIRE(two.has_value());
    REQUIRE(two->choices.size() == 2);
    CHECK(two->choices[0].index == 0);
    CHECK(two->choices[0].message.text() == "A");
    CHECK(two->choices[1].message.text() == "B");

    const auto blocked = gemini::decode_reply(200, {}, R"({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}, "modelVersion": "gemini-2.5-flash", "responseId": "x"})");
    REQUIRE_FALSE(blocked.has_value());
    CHECK(blocked.error().code == errc::api_error);
    CHECK(blocked.error().type == "prompt_blocked");
    CHECK(blocked.error().api_code == "PROHIBITED_CONTENT");
    CHECK(blocked.error().status == 200);
    CHECK(blocked.error().message == "the Gemini API blocked the prompt (promptFeedback.blockReason PROHIBITED_CONTENT)");
}

TEST_CASE("gemini::decode_reply and decode_error: Google's error bodies, malformed replies") {
    const auto e = gemini::decode_reply(429, {}, R"({"error": {"code": 429,
        "message": "You exceeded your current quota, please check your plan.", "status": "RESOURCE_EXHAUSTED",
        "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "q"}]},
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}]}})");
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().code == errc::api_error);
    CHECK(e.error().status == 429);
    CHECK(e.error().type == "RESOURCE_EXHAUSTED");
    CHECK(e.error().message == "You exceeded your current quota, please check your plan.");
    const auto key = gemini::decode_error(400, {}, R"([{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
        "domain": "googleapis.com"}, {"@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{"field": "contents[0].parts", "description": "empty"}]}]}}])");
    CHECK(key.code == errc::api_error);
    CHECK(key.api_code == "API_KEY_INVALID");
    CHECK(key.param == "contents[0].parts");
    const auto html = gemini::decode_error(502, {}, "<html>Bad Gateway</html>");
    CHECK(html.code == errc::http_status);
    CHECK(html.message == "the reply is not an API error: <html>Bad Gateway</html>");

    auto protocol = [](std::string body, std::string message) {
        const auto r = gemini::decode_reply(200, {}, body);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == errc::protocol);
        CHECK(r.error().message == message);
    };
    protocol("{", "expected a GenerateContentResponse as JSON, found text that does not parse (incomplete JSON): \"{\"");
    protocol(R"({"candidates": [{"content": {"parts": [{"text": 5}]}}]})",
             "GenerateContentResponse: candidates[0].content.parts[0].text: expected a string or null, found an integer (5)");
    protocol(R"({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]})",
             "GenerateContentResponse: candidates[0].content.parts[0].functionCall.name: expected a string, found nothing");
    protocol(R"({"candidates": [{"content": {"role": "user"}}]})",
             "GenerateContentResponse: candidates[0].content.role: expected \"model\", found a string (\"user\")");
    protocol(R"({"usageMetadata": {"promptTokenCount": -1}, "candidates": [{}]})",
             "GenerateContentResponse: usageMetadata.promptTokenCount: expected a token count (an integer from 0 to 10^18), found an integer (-1)");
    protocol(R"({"modelVersion": "m"})", "GenerateContentResponse: candidates: expected a non-empty array, found nothing");
    reply_limits small;
    small.max_choices = 1;
    const auto many = gemini::decode_reply(200, {}, R"({"candidates": [{}, {}]})", small);
    REQUIRE_FALSE(many.has_value());
    CHECK(many.error().message == "GenerateContentResponse: candidates: expected at most max_choices (1) candidates, found 2");
}

TEST_CASE("gemini::stream_decoder: chunks assemble the reply decode_reply gives; the body's end completes it") {
    const std::vector<std::string> chunks = {
        R"({"candidates": [{"content": {"parts": [{"text": "Let me think", "thought": true}], "role": "model"}, "index": 0}],
            "usageMetadata": {"promptTokenCount": 29, "totalTokenCount": 29}, "modelVersion": "gemini-3-pro-preview", "responseId": "R1"})",
        R"({"candidates": [{"content": {"parts": [{"text": " hard.", "thought": true, "thoughtSignature": "U0lH"}], "role": "model"}, "index": 0}],
            "usageMetadata": {"promptTokenCount": 29, "totalTokenCount": 29}, "modelVersion": "gemini-3-pro-preview", "responseId": "R1"})",
        R"({"candidates": [{"content": {"parts": [{"text": "It is "}], "role": "model"}, "index": 0}],
            "usageMetadata": {"promptTokenCount": 29, "totalTokenCount": 29}, "modelVersion": "gemini-3-pro-preview", "responseId": "R1"})",
        R"({"candidates": [{"content": {"parts": [{"functionCall": {"name": "weather", "args": {"location": "San Francisco"}},
            "thoughtSignature": "RXBFZw=="}], "role": "model"}, "index": 0}],
            "usageMetadata": {"promptTokenCount": 29, "candidatesTokenCount": 15, "totalTokenCount": 848, "thoughtsTokenCount": 804},
            "modelVersion": "gemini-3-pro-preview", "responseId": "R1"})",
        R"({"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 29, "candidatesTokenCount": 15, "totalTokenCount": 848, "thoughtsTokenCount": 804},
            "modelVersion": "gemini-3-pro-preview", "responseId": "R1"})"};
    gemini::stream_decoder d;
    auto events = gemini_feed(d, chunks);
    CHECK_FALSE(d.done());
    REQUIRE(d.end_of_body(events));
    CHECK(d.done());
    std::vector<stream_event::kind> kinds;
    for (const auto& e : events) kinds.push_back(e.type);
    using k = stream_event::kind;
    // a chunk's parts first, then its usage when the counts changed
    CHECK(kinds == std::vector<k>{k::reasoning, k::usage, k::reasoning, k::text, k::tool_call, k::usage, k::finish, k::done});
    CHECK(events[4].id == "gemini-call-R1-0-0");
    CHECK(events[4].name == "weather");
    CHECK(events[4].text == R"({"location":"San Francisco"})");
    CHECK(events[6].finish == finish_reason::tool_calls);
    const chat_reply& streamed = d.reply();
    CHECK(streamed.message().reasoning_text() == "Let me think hard.");
    CHECK(streamed.text() == "It is ");
    CHECK(streamed.usage->completion_tokens == 819);
    CHECK(streamed.usage->total_tokens == 848);

    // the same content as one reply decodes to the same reply
    const auto whole = gemini::decode_reply(200, {}, R"({"candidates": [{"content": {"parts": [
        {"text": "Let me think", "thought": true}, {"text": " hard.", "thought": true, "thoughtSignature": "U0lH"},
        {"text": "It is "}, {"functionCall": {"name": "weather", "args": {"location": "San Francisco"}}, "thoughtSignature": "RXBFZw=="},
        {"text": ""}], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 29, "candidatesTokenCount": 15, "totalTokenCount": 848, "thoughtsTokenCount": 804},
        "modelVersion": "gemini-3-pro-preview", "responseId": "R1"})");
    REQUIRE(whole.has_value());
    chat_reply taken = d.take_reply();
    taken.status = whole->status;
    CHECK(taken == *whole);
}

TEST_CASE("gemini::stream_decoder: a stream cut before the finishReason, an error chunk, a blocked prompt, bad chunks") {
    gemini::stream_decoder cut;
    auto events = gemini_feed(cut, {R"({"candidates": [{"content": {"parts": [{"text": "Hel"}]}, "index": 0}]})"});
    CHECK_FALSE(cut.end_of_body(events));
    gemini::stream_decoder empty;
    CHECK_FALSE(empty.end_of_body(events));

    gemini::stream_decoder err;
    std::vector<stream_event> out;
    REQUIRE_FALSE(err.feed("", R"({"candidates": [{"content": {"parts": [{"text": "a"}]}}]})", out).has_value());
    const auto e = err.feed("", R"({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}})", out);
    REQUIRE(e.has_value());
    CHECK(e->code == errc::api_error);
    CHECK(e->type == "UNAVAILABLE");
    const auto again_failed = err.feed("", "{}", out);  // failed for good
    REQUIRE(again_failed.has_value());
    CHECK(again_failed->message == e->message);
    CHECK(out.size() == 1);

    gemini::stream_decoder blocked;
    const auto b = blocked.feed("", R"({"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "no"}})", out);
    REQUIRE(b.has_value());
    CHECK(b->type == "prompt_blocked");
    CHECK(b->message == "the Gemini API blocked the prompt (promptFeedback.blockReason SAFETY): no");

    gemini::stream_decoder bad;
    const auto p = bad.feed("", R"({"candidates": [{"content": {"parts": [{"text": "x")", out);
    REQUIRE(p.has_value());
    CHECK(p->code == errc::protocol);
    CHECK(p->message.rfind("chunk 1: expected a GenerateContentResponse chunk as JSON", 0) == 0);
    gemini::stream_decoder after;
    gemini_feed(after, {R"({"candidates": [{"finishReason": "STOP", "index": 0}]})"});
    const auto again = after.feed("", R"({"candidates": [{"content": {"parts": [{"text": "more"}]}, "index": 0}]})", out);
    REQUIRE(again.has_value());
    CHECK(again->message == "chunk 2: candidates[0]: candidate 0 continues after its finishReason");
}

TEST_CASE("gemini embeddings: embedContent for one input, batchEmbedContents for several") {
    embedding_request one{"gemini-embedding-001", {"What is the meaning of life?"}, 8, std::nullopt, std::nullopt,
                          std::string("RETRIEVAL_QUERY")};
    CHECK(gemini::embed_path(one) == "/models/gemini-embedding-001:embedContent");
    CHECK(boost::json::value(gemini::encode_embedding_request(one)) ==
          boost::json::parse(R"({"content": {"parts": [{"text": "What is the meaning of life?"}]},
                                 "taskType": "RETRIEVAL_QUERY", "outputDimensionality": 8})"));
    embedding_request many{"models/gemini-embedding-001", {"a", "b"}, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    CHECK(gemini::embed_path(many) == "/models/gemini-embedding-001:batchEmbedContents");
    CHECK(boost::json::value(gemini::encode_embedding_request(many)) == boost::json::parse(R"({"requests": [
        {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "a"}]}},
        {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "b"}]}}]})"));
    embedding_request b64 = many;
    b64.encoding_format = "base64";
    CHECK_THROWS_AS(static_cast<void>(gemini::encode_embedding_request(b64)), parley::error);
    embedding_request blank = many;
    blank.input[1].clear();
    CHECK_THROWS_WITH_AS(static_cast<void>(gemini::encode_embedding_request(blank)), "input 1 of the embeddings request is empty",
                         parley::error);

    const auto single = gemini::decode_embedding_reply(200, {}, R"({"embedding": {"values": [0.5, -1, 2]}})");
    REQUIRE(single.has_value());
    CHECK(single->data == std::vector<std::vector<float>>{{0.5f, -1.0f, 2.0f}});
    const auto batch = gemini::decode_embedding_reply(200, {}, R"({"embeddings": [{"values": [1]}, {"values": [2, 3]}]})");
    REQUIRE(batch.has_value());
    CHECK(batch->data == std::vector<std::vector<float>>{{1.0f}, {2.0f, 3.0f}});
    const auto bad = gemini::decode_embedding_reply(200, {}, R"({"embeddings": [{"values": ["x"]}]})");
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().message == "embeddings reply: embeddings[0].values[0]: expected a number, found a string (\"x\")");
    const auto shape = gemini::decode_embedding_reply(200, {}, R"({"data": []})");
    REQUIRE_FALSE(shape.has_value());
    CHECK(shape.error().code == errc::protocol);
    const auto failed = gemini::decode_embedding_reply(400, {}, R"({"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}})");
    REQUIRE_FALSE(failed.has_value());
    CHECK(failed.error().type == "INVALID_ARGUMENT");
}

TEST_CASE("gemini: the RetryInfo detail of an error body is the wait before a retry") {
    const std::string quota = R"({"error": {"code": 429, "message": "You exceeded your current quota, please check your plan.",
        "status": "RESOURCE_EXHAUSTED", "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "q"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}]}})";
    CHECK(gemini::retry_info_delay(quota) == std::chrono::milliseconds(34400));
    CHECK(gemini::gemini_api().retry_after({}, quota) == std::chrono::milliseconds(34400));
    CHECK(gemini::retry_info_delay(R"({"error": {"code": 503, "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": "2s"}]}})") == std::chrono::milliseconds(2000));
    for (std::string body : {std::string(R"({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}})"),
                             std::string(R"({"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "soon"}]}})"),
                             std::string(R"({"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "-1s"}]}})"),
                             std::string("<html>"), std::string()})
        CHECK_FALSE(gemini::retry_info_delay(body).has_value());
}
