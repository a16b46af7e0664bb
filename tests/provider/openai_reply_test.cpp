// Tests of parley/provider/openai/reply.hpp: decode_reply on the chat.completion objects of the
// OpenAI API reference (text, tool calls, log probabilities), refusals, legacy function calls,
// errors and malformed bodies; reply_to_json written back.
#include <parley/provider/openai/reply.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

using namespace parley;

namespace {

// The API reference's example of a chat completion object.
constexpr const char* reference_text = R"({
  "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  "object": "chat.completion",
  "created": 1741570283,
  "model": "gpt-4o-2024-08-06",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": "The image shows a wooden boardwalk path running through a lush green field or meadow. The sky is bright blue with some scattered clouds, giving the scene a serene and peaceful atmosphere. Trees and shrubs are visible in the background.",
        "refusal": null,
        "annotations": []
      },
      "logprobs": null,
      "finish_reason": "stop"
    }
  ],
  "usage": {
    "prompt_tokens": 1117,
    "completion_tokens": 46,
    "total_tokens": 1163,
    "prompt_tokens_details": {
      "cached_tokens": 0,
      "audio_tokens": 0
    },
    "completion_tokens_details": {
      "reasoning_tokens": 0,
      "audio_tokens": 0,
      "accepted_prediction_tokens": 0,
      "rejected_prediction_tokens": 0
    }
  },
  "service_tier": "default",
  "system_fingerprint": "fp_fc9f1d7035"
})";

// The API reference's function-calling example.
constexpr const char* reference_tools = R"({
  "id": "chatcmpl-abc123",
  "object": "chat.completion",
  "created": 1699896916,
  "model": "gpt-4o-mini",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": null,
        "tool_calls": [
          {
            "id": "call_abc123",
            "type": "function",
            "function": {
              "name": "get_current_weather",
              "arguments": "{\n\"location\": \"Boston, MA\"\n}"
            }
          }
        ]
      },
      "logprobs": null,
      "finish_reason": "tool_calls"
    }
  ],
  "usage": {
    "prompt_tokens": 82,
    "completion_tokens": 17,
    "total_tokens": 99,
    "completion_tokens_details": {
      "reasoning_tokens": 0,
      "accepted_prediction_tokens": 0,
      "rejected_prediction_tokens": 0
    }
  }
})";

// The API reference's log probabilities example (two of its tokens).
constexpr const char* reference_logprobs = R"({
  "id": "chatcmpl-123",
  "object": "chat.completion",
  "created": 1702685778,
  "model": "gpt-4o-mini",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": "Hello! How can I assist you today?"
      },
      "logprobs": {
        "content": [
          {
            "token": "Hello",
            "logprob": -0.31725305,
            "bytes": [72, 101, 108, 108, 111],
            "top_logprobs": [
              {"token": "Hello", "logprob": -0.31725305, "bytes": [72, 101, 108, 108, 111]},
              {"token": "Hi", "logprob": -1.3190403, "bytes": [72, 105]}
            ]
          },
          {
            "token": "!",
            "logprob": -0.02380986,
            "bytes": [33],
            "top_logprobs": [
              {"token": "!", "logprob": -0.02380986, "bytes": [33]},
              {"token": " there", "logprob": -3.787621, "bytes": [32, 116, 104, 101, 114, 101]}
            ]
          }
        ]
      },
      "finish_reason": "stop"
    }
  ],
  "usage": {
    "prompt_tokens": 9,
    "completion_tokens": 9,
    "total_tokens": 18,
    "completion_tokens_details": {
      "reasoning_tokens": 0,
      "accepted_prediction_tokens": 0,
      "rejected_prediction_tokens": 0
    }
  },
  "system_fingerprint": null
})";

chat_reply decode_ok(std::string_view body) {
    http_headers h;
    h.add("x-request-id", "req_7");
    auto r = openai::decode_reply(200, h, body);
    REQUIRE_MESSAGE(r.has_value(), r.error().what());
    CHECK(r->status == 200);
    CHECK(r->headers.request_id() == "req_7");
    return std::move(*r);
}

call_error decode_failure(std::string_view body, int status = 200) {
    auto r = openai::decode_reply(status, {}, body);
    REQUIRE_FALSE(r.has_value());
    return r.error();
}

}  // namespace

TEST_CASE("openai::decode_reply: the API reference's text reply") {
    const chat_reply r = decode_ok(reference_text);
    CHECK(r.id == "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG");
    CHECK(r.model == "gpt-4o-2024-08-06");
    CHECK(r.created == 1741570283);
    CHECK(r.system_fingerprint == "fp_fc9f1d7035");
    REQUIRE(r.choices.size() == 1);
    CHECK(r.message().role == role::assistant);
    CHECK(r.text().rfind("The image shows a wooden boardwalk", 0) == 0);
    CHECK_FALSE(r.choices[0].message.refusal);
    CHECK(r.choices[0].finish == finish_reason::stop);
    CHECK(r.choices[0].finish_text == "stop");
    CHECK(r.choices[0].logprobs.is_null());
    REQUIRE(r.usage);
    CHECK(r.usage->prompt_tokens == 1117);
    CHECK(r.usage->completion_tokens == 46);
    CHECK(r.usage->total_tokens == 1163);
    CHECK(r.usage->details.at("prompt_tokens_details").at("cached_tokens") == 0);

    // written back: the API's object without the members parley does not keep
    auto expected = boost::json::parse(reference_text).as_object();
    expected.erase("service_tier");
    expected["choices"].as_array()[0].as_object()["message"].as_object().erase("annotations");
    CHECK(openai::reply_to_json(r) == expected);
}

TEST_CASE("openai::decode_reply: the API reference's tool call reply") {
    const chat_reply r = decode_ok(reference_tools);
    const auto& m = r.message();
    CHECK(std::holds_alternative<std::monostate>(m.content));
    REQUIRE(m.tool_calls.size() == 1);
    CHECK(m.tool_calls[0].id == "call_abc123");
    CHECK(m.tool_calls[0].function.name == "get_current_weather");
    CHECK(m.tool_calls[0].function.arguments == "{\n\"location\": \"Boston, MA\"\n}");
    CHECK(r.choices[0].finish == finish_reason::tool_calls);
    CHECK(r.system_fingerprint.empty());
    // the API's object plus the refusal (null) it writes today
    auto expected = boost::json::parse(reference_tools).as_object();
    expected["choices"].as_array()[0].as_object()["message"].as_object()["refusal"] = nullptr;
    CHECK(openai::reply_to_json(r) == expected);
    // and the message, less the refusal the chat layer has no place for, reads back through it
    auto back = openai::reply_to_json(r).at("choices").at(0).at("message").as_object();
    back.erase("refusal");
    CHECK(message_from_json(back) == m);
}

TEST_CASE("openai::decode_reply: the API reference's log probabilities") {
    const chat_reply r = decode_ok(reference_logprobs);
    const auto& lp = r.choices.at(0).logprobs;
    REQUIRE(lp.is_object());
    CHECK(lp.at("content").as_array().size() == 2);
    CHECK(lp.at("content").at(1).at("top_logprobs").at(1).at("token") == " there");
    CHECK(r.system_fingerprint.empty());
    const auto back = openai::reply_to_json(r);
    CHECK(back.at("choices").at(0).at("logprobs") == boost::json::parse(reference_logprobs).at("choices").at(0).at("logprobs"));
    CHECK_FALSE(back.contains("system_fingerprint"));
}

TEST_CASE("openai::decode_reply: refusal, legacy function call, several choices, empty content") {
    const chat_reply r = decode_ok(R"({"id":"x","object":"chat.completion","created":1,"model":"m","choices":[
        {"index":2,"message":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":"length"},
        {"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"logprobs":null,"finish_reason":"stop"},
        {"index":1,"message":{"role":"assistant","content":null,"function_call":{"name":"lookup","arguments":"{\"q\":1}"}},"finish_reason":"function_call"}]})");
    REQUIRE(r.choices.size() == 3);
    CHECK(r.choices[0].index == 0);
    CHECK(r.choices[0].message.refusal == "I can't help with that.");
    CHECK(r.choices[1].message.function_call == function_call{"lookup", R"({"q":1})"});
    CHECK(r.choices[1].finish == finish_reason::function_call);
    CHECK(r.choices[2].message.has_text());  // "" is kept as the API wrote it
    CHECK(r.choices[2].message.text().empty());
    CHECK(r.choices[2].finish == finish_reason::length);
    CHECK_FALSE(r.usage);
    const auto j = openai::reply_to_json(r);
    CHECK(j.at("choices").at(1).at("message").at("function_call").at("name") == "lookup");
    CHECK(j.at("choices").at(2).at("message").at("content") == "");
    CHECK_FALSE(j.contains("usage"));
}

TEST_CASE("openai::decode_reply: a finish reason of another server is kept as 'other' with its word") {
    const chat_reply r =
        decode_ok(R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"abort"}]})");
    CHECK(r.choices[0].finish == finish_reason::other);
    CHECK(r.choices[0].finish_text == "abort");
    CHECK(openai::reply_to_json(r).at("choices").at(0).at("finish_reason") == "abort");
}

TEST_CASE("openai::decode_reply: errors") {
    SUBCASE("an error status goes to decode_error") {
        const auto e = decode_failure(
            R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})",
            429);
        CHECK(e.code == errc::api_error);
        CHECK(e.status == 429);
        CHECK(e.api_code == "insufficient_quota");
    }
    SUBCASE("an error body with 200") {
        const auto e = decode_failure(R"({"error":{"message":"boom","type":"server_error"}})");
        CHECK(e.code == errc::api_error);
        CHECK(e.message == "boom");
    }
    SUBCASE("malformed bodies name what was expected and found") {
        const std::pair<const char*, const char*> cases[] = {
            {"not json", "expected a chat.completion object as JSON, found text that does not parse"},
            {"[]", "chat.completion: expected an object, found an array"},
            {R"({"id":"x"})", "chat.completion: choices: expected an array, found nothing"},
            {R"({"choices":[{"index":0}]})", "chat.completion: choices[0].message: expected an object, found nothing"},
            {R"({"choices":[{"message":{"content":["a"]}}]})",
             "chat.completion: choices[0].message.content: expected a string or null, found an array"},
            {R"({"choices":[{"message":{"tool_calls":[{"id":"a","type":"function"}]}}]})",
             "chat.completion: choices[0].message.tool_calls[0].function: expected an object, found nothing"},
            {R"({"choices":[{"message":{"tool_calls":[{"id":"a","type":"custom","custom":{}}]}}]})",
             "chat.completion: choices[0].message.tool_calls[0].type: expected \"function\", found a string (\"custom\")"},
            {R"({"choices":[{"index":0,"message":{}},{"index":0,"message":{}}]})",
             "chat.completion: choices: expected each index once, found index 0 twice"},
            {R"({"created":"today","choices":[]})", "chat.completion: created: expected a non-negative integer, found a string (\"today\")"},
            {R"({"choices":[],"usage":{"prompt_tokens":1.5}})",
             "chat.completion: usage.prompt_tokens: expected a non-negative integer, found a number (1.5E0)"},
        };
        for (const auto& c : cases) {
            const std::string body = c.first;
            CAPTURE(body);
            const auto e = decode_failure(body);
            CHECK(e.code == errc::protocol);
            CHECK(e.message.rfind(c.second, 0) == 0);
        }
    }
    SUBCASE("limits") {
        reply_limits l;
        l.max_choices = 1;
        auto r = openai::decode_reply(200, {}, R"({"choices":[{"message":{}},{"message":{}}]})", l);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().message == "chat.completion: choices: expected at most max_choices (1), found 2");
        l = {};
        l.max_tool_calls = 1;
        r = openai::decode_reply(
            200, {},
            R"({"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f"}},{"id":"b","function":{"name":"g"}}]}}]})", l);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().message ==
              "chat.completion: choices[0].message.tool_calls: expected at most max_tool_calls (1) tool calls, found 2");
        l = {};
        l.max_json_depth = 4;
        r = openai::decode_reply(200, {}, R"({"choices":[{"message":{"content":[[1]]}}]})", l);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().message == "expected a chat.completion object, found JSON nested deeper than max_json_depth (4)");
    }
}

TEST_CASE("openai::reply_to_json: finish reasons in OpenAI's words, the provider's word for others") {
    chat_reply r;
    r.choices.resize(4);
    r.choices[0].finish = finish_reason::stop;
    r.choices[0].finish_text = "end_turn";  // as an Anthropic reply has it
    r.choices[1].index = 1;
    r.choices[1].finish = finish_reason::other;
    r.choices[1].finish_text = "refusal";
    r.choices[2].index = 2;
    r.choices[3].index = 3;
    r.choices[3].finish = finish_reason::length;
    r.choices[3].message.role = role::assistant;
    const auto j = openai::reply_to_json(r);
    CHECK(j.at("choices").at(0).at("finish_reason") == "stop");
    CHECK(j.at("choices").at(1).at("finish_reason") == "refusal");
    CHECK(j.at("choices").at(2).at("finish_reason").is_null());
    CHECK(j.at("choices").at(3).at("finish_reason") == "length");
    CHECK(j.at("choices").at(3).at("message") == boost::json::parse(R"({"role":"assistant","content":null,"refusal":null})"));
}

TEST_CASE("openai::decode_reply: value() throws call_exception with the error") {
    auto r = openai::decode_reply(500, {}, "oops");
    CHECK_THROWS_AS(r.value(), call_exception);
}
