// Tests of parley/provider/responses/reply.hpp: Response objects (the API reference's examples'
// shapes: output messages with output_text and refusal parts, function_call and reasoning
// items, usage with its details, incomplete and failed responses) and error bodies.
#include <parley/provider/responses/reply.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>

using namespace parley;

namespace {

call_error responses_failure(const boost::system::result<chat_reply, call_error>& r) {
    REQUIRE_FALSE(r.has_value());
    return r.error();
}

std::string response_with(std::string_view output, std::string_view status = "completed",
                          std::string_view more = R"("incomplete_details":null)") {
    return R"({"id":"resp_67ccd2bed1ec8190","object":"response","created_at":1741476542,"status":")" + std::string(status) +
           R"(","error":null,)" + std::string(more) + R"(,"model":"gpt-4.1-2025-04-14","output":)" + std::string(output) +
           R"(,"parallel_tool_calls":true,"usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":4},)"
           R"("output_tokens":87,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":123}})";
}

}  // namespace

TEST_CASE("responses::decode_reply: a message's text, the usage and its details") {
    const auto r = responses::decode_reply(
        200, {},
        response_with(R"([{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[)"
                      R"({"type":"output_text","text":"In a peaceful grove ","annotations":[]},)"
                      R"({"type":"output_text","text":"beneath a silver moon.","annotations":[]}]}])"));
    REQUIRE(r.has_value());
    CHECK(r->id == "resp_67ccd2bed1ec8190");
    CHECK(r->model == "gpt-4.1-2025-04-14");
    CHECK(r->created == 1741476542);
    REQUIRE(r->choices.size() == 1);
    CHECK(r->text() == "In a peaceful grove beneath a silver moon.");
    CHECK(r->choices[0].finish == finish_reason::stop);
    CHECK(r->choices[0].finish_text == "completed");
    REQUIRE(r->usage);
    CHECK(r->usage->prompt_tokens == 36);
    CHECK(r->usage->completion_tokens == 87);
    CHECK(r->usage->total_tokens == 123);
    CHECK(r->usage->cached_tokens() == 4);
    CHECK(r->usage->reasoning_tokens() == 12);
    CHECK(r->choices[0].logprobs.is_null());
}

TEST_CASE("responses::decode_reply: function calls, reasoning items, refusals, log probabilities") {
    const auto calls = responses::decode_reply(
        200, {},
        response_with(R"([{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"First, "},)"
                      R"({"type":"summary_text","text":"the city."}],"encrypted_content":"gAAAA"},)"
                      R"({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather",)"
                      R"("arguments":"{\"city\":\"Oslo\"}","status":"completed"},)"
                      R"({"type":"web_search_call","id":"ws_1","status":"completed"}])"));
    REQUIRE(calls.has_value());
    const message& m = calls->message();
    REQUIRE(m.tool_calls.size() == 1);
    CHECK(m.tool_calls[0].id == "call_1");
    CHECK(m.tool_calls[0].function.name == "get_weather");
    CHECK(m.tool_calls[0].function.arguments == R"({"city":"Oslo"})");
    CHECK(m.content.index() == 0);
    REQUIRE(m.reasoning.size() == 1);
    CHECK(m.reasoning[0].type == reasoning_part::kind::item);
    CHECK(m.reasoning[0].id == "rs_1");
    CHECK(m.reasoning[0].summary == std::vector<std::string>{"First, ", "the city."});
    CHECK(m.reasoning[0].data == "gAAAA");
    CHECK(m.reasoning_text() == "First, the city.");
    CHECK(calls->choices[0].finish == finish_reason::tool_calls);

    const auto refused = responses::decode_reply(
        200, {},
        response_with(R"([{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[)"
                      R"({"type":"refusal","refusal":"I can't help with that."}]}])"));
    REQUIRE(refused.has_value());
    CHECK(refused->message().refusal == "I can't help with that.");
    CHECK(refused->message().content.index() == 0);

    const auto logprobs = responses::decode_reply(
        200, {},
        response_with(R"([{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[)"
                      R"({"type":"output_text","text":"Hi","annotations":[],"logprobs":[{"token":"Hi","bytes":[72,105],)"
                      R"("logprob":-0.1,"top_logprobs":[]}]}]}])"));
    REQUIRE(logprobs.has_value());
    CHECK(logprobs->choices[0].logprobs ==
          boost::json::parse(R"({"content":[{"token":"Hi","bytes":[72,105],"logprob":-0.1,"top_logprobs":[]}]})"));
}

TEST_CASE("responses::decode_reply: incomplete and failed responses") {
    const auto cut = responses::decode_reply(200, {},
                                             response_with("[]", "incomplete", R"("incomplete_details":{"reason":"max_output_tokens"})"));
    REQUIRE(cut.has_value());
    CHECK(cut->choices[0].finish == finish_reason::length);
    CHECK(cut->choices[0].finish_text == "max_output_tokens");
    const auto filtered = responses::decode_reply(200, {},
                                                  response_with("[]", "incomplete", R"("incomplete_details":{"reason":"content_filter"})"));
    REQUIRE(filtered.has_value());
    CHECK(filtered->choices[0].finish == finish_reason::content_filter);

    const auto failed = responses_failure(responses::decode_reply(
        200, {},
        R"({"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"The model failed."},)"
        R"("output":[]})"));
    CHECK(failed.code == make_error_code(errc::api_error));
    CHECK(failed.api_code == "server_error");
    CHECK(failed.message == "The model failed.");
}

TEST_CASE("responses::decode_reply and decode_error: error bodies as the chat completions API writes them") {
    http_headers h;
    h.add("x-request-id", "req_1");
    const auto e = responses_failure(responses::decode_reply(
        400, h, R"({"error":{"message":"Invalid 'input': empty.","type":"invalid_request_error","param":"input","code":null}})"));
    CHECK(e.code == make_error_code(errc::api_error));
    CHECK(e.status == 400);
    CHECK(e.type == "invalid_request_error");
    CHECK(e.param == "input");
    CHECK(e.headers.request_id() == "req_1");
    const auto not_json = responses::decode_error(502, {}, "<html>Bad Gateway</html>");
    CHECK(not_json.code == make_error_code(errc::http_status));
    CHECK(not_json.message == "<html>Bad Gateway</html>");
}

TEST_CASE("responses::decode_reply: malformed replies name the member") {
    auto problem = [](std::string_view body) {
        const auto e = responses_failure(responses::decode_reply(200, {}, body));
        CHECK(e.code == make_error_code(errc::protocol));
        return e.message;
    };
    CHECK(problem(R"({"object":"response","status":"completed"})") == "response: output: expected an array, found nothing");
    CHECK(problem(R"({"object":"chat.completion","output":[]})") ==
          "response: object: expected \"response\", found a string (\"chat.completion\")");
    CHECK(problem(R"({"object":"response","output":[{"type":"function_call","name":"f","arguments":"{}"}]})") ==
          "response: output[0].call_id: expected a string, found nothing");
    CHECK(problem(R"({"object":"response","output":[{"type":"message","content":[{"type":"output_text"}]}]})") ==
          "response: output[0].content[0].text: expected a string, found nothing");
    CHECK(problem(R"({"object":"response","output":[],"usage":{"input_tokens":-1}})") ==
          "response: usage.input_tokens: expected a token count (an integer from 0 to 10^18), found an integer (-1)");
    reply_limits few;
    few.max_content_blocks = 1;
    CHECK(responses_failure(responses::decode_reply(200, {}, response_with(R"([{"type":"x"},{"type":"y"}])"), few)).message ==
          "response: output: expected at most max_content_blocks (1) output items, found 2");
}
