// Tests of parley/provider/anthropic/reply.hpp: Message objects and error bodies from Anthropic's
// documentation (tests/provider/anthropic-data/README.md) decoded into replies and errors.
#include <parley/provider/anthropic/reply.hpp>

#include "anthropic_test_data.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace parley;
using anthropic_test::read_data;
using anthropic_test::read_json;

namespace {

http_headers request_id(std::string id) {
    http_headers h;
    h.add("request-id", std::move(id));
    h.add("content-type", "application/json");
    return h;
}

// The documented text reply with one field replaced.
std::string text_reply_with(std::string_view key, const boost::json::value& v) {
    auto body = read_json("message-text.json");
    body.as_object()[key] = v;
    return boost::json::serialize(body);
}

// The error of a decode that must fail.
call_error failure(const boost::system::result<chat_reply, call_error>& r) {
    REQUIRE_FALSE(r.has_value());
    return r.error();
}

}  // namespace

TEST_CASE("anthropic::decode_reply: the documented text reply") {
    // Messages API reference, the 200 response example
    const auto r = anthropic::decode_reply(200, request_id("req_018EeWyXxfu5pfWkrYcMdjWG"), read_data("message-text.json"));
    REQUIRE(r.has_value());
    CHECK(r->id == "msg_013Zva2CMHLNnXjNJJKqJ2EF");
    CHECK(r->model == "claude-3-7-sonnet-20250219");
    CHECK(r->created == 0);
    CHECK(r->system_fingerprint.empty());
    CHECK(r->status == 200);
    CHECK(r->headers.request_id() == "req_018EeWyXxfu5pfWkrYcMdjWG");
    REQUIRE(r->choices.size() == 1);
    const auto& c = r->choices[0];
    CHECK(c.index == 0);
    CHECK(c.message.role == role::assistant);
    CHECK(c.message.text() == "Hi! My name is Claude.");
    CHECK(c.message.tool_calls.empty());
    CHECK_FALSE(c.message.function_call);
    CHECK(c.finish == finish_reason::stop);
    CHECK(c.finish_text == "end_turn");
    CHECK(c.logprobs.is_null());
    REQUIRE(r->usage);
    CHECK(r->usage->prompt_tokens == 2095);
    CHECK(r->usage->completion_tokens == 503);
    CHECK(r->usage->total_tokens == 2598);
    CHECK(r->usage->details == read_json("message-text.json").at("usage").as_object());
}

TEST_CASE("anthropic::decode_reply: the documented tool_use reply") {
    // Tool use with Claude, "Single tool example"
    const auto r = anthropic::decode_reply(200, {}, read_data("message-tool-use.json"));
    REQUIRE(r.has_value());
    CHECK(r->id == "msg_01Aq9w938a90dw8q");
    CHECK(r->model == "claude-sonnet-4-5");
    const auto& m = r->message();
    CHECK(m.text() == "I'll check the current weather in San Francisco for you.");
    REQUIRE(m.tool_calls.size() == 1);
    CHECK(m.tool_calls[0].id == "toolu_01A09q90qw90lq917835lq9");
    CHECK(m.tool_calls[0].function.name == "get_weather");
    CHECK(m.tool_calls[0].function.arguments == R"({"location":"San Francisco, CA","unit":"celsius"})");
    CHECK(boost::json::parse(m.tool_calls[0].function.arguments) ==
          read_json("message-tool-use.json").at("content").at(1).at("input"));
    CHECK(r->choices[0].finish == finish_reason::tool_calls);
    CHECK(r->choices[0].finish_text == "tool_use");
    CHECK_FALSE(r->usage);  // the documented example has none
}

TEST_CASE("anthropic::decode_reply: stop reasons") {
    // Messages API reference, stop_reason: end_turn, max_tokens, stop_sequence, tool_use, pause_turn, refusal
    const std::pair<std::string_view, finish_reason> cases[] = {
        {"end_turn", finish_reason::stop},         {"stop_sequence", finish_reason::stop},
        {"max_tokens", finish_reason::length},     {"tool_use", finish_reason::tool_calls},
        {"refusal", finish_reason::content_filter}, {"pause_turn", finish_reason::other}};
    for (const auto& c : cases) {
        const std::string_view word = c.first;
        const finish_reason reason = c.second;
        CAPTURE(word);
        const auto r = anthropic::decode_reply(200, {}, text_reply_with("stop_reason", boost::json::string(word)));
        REQUIRE(r.has_value());
        CHECK(r->choices[0].finish == reason);
        CHECK(r->choices[0].finish_text == word);
    }
    const auto none = anthropic::decode_reply(200, {}, text_reply_with("stop_reason", nullptr));
    REQUIRE(none.has_value());
    CHECK(none->choices[0].finish == finish_reason::none);
    CHECK(none->choices[0].finish_text.empty());
}

TEST_CASE("anthropic::decode_reply: usage with cache counts, several text blocks, skipped blocks") {
    // Messages API reference: the total of input tokens is input_tokens + cache_creation_input_tokens
    // + cache_read_input_tokens
    const auto usage = boost::json::parse(
        R"({"input_tokens": 100, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 30, "output_tokens": 5,)"
        R"( "service_tier": "standard"})");
    const auto r = anthropic::decode_reply(200, {}, text_reply_with("usage", usage));
    REQUIRE(r.has_value());
    CHECK(r->usage->prompt_tokens == 150);
    CHECK(r->usage->completion_tokens == 5);
    CHECK(r->usage->total_tokens == 155);
    CHECK(r->usage->details == usage.as_object());

    const auto blocks = boost::json::parse(
        R"([{"type": "thinking", "thinking": "27 * 453 = 12,231", "signature": "EqQB"}, {"type": "text", "text": "27 * 453"},)"
        R"( {"type": "text", "text": " = 12,231"}, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}])");
    const auto joined = anthropic::decode_reply(200, {}, text_reply_with("content", blocks));
    REQUIRE(joined.has_value());
    CHECK(joined->text() == "27 * 453 = 12,231");
    CHECK(joined->message().tool_calls.empty());
    // the thinking block is kept, with its signature, as the API needs it back
    REQUIRE(joined->message().reasoning.size() == 1);
    CHECK(joined->message().reasoning[0].type == reasoning_part::kind::thinking);
    CHECK(joined->message().reasoning[0].text == "27 * 453 = 12,231");
    CHECK(joined->message().reasoning[0].signature == "EqQB");

    // Extended thinking, "Thinking redaction": a redacted_thinking block keeps its data
    const auto redacted = anthropic::decode_reply(
        200, {},
        text_reply_with("content", boost::json::parse(R"([{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},)"
                                                      R"( {"type": "thinking", "thinking": "", "signature": "Sig"},)"
                                                      R"( {"type": "text", "text": "Done."}])")));
    REQUIRE(redacted.has_value());
    REQUIRE(redacted->message().reasoning.size() == 2);
    CHECK(redacted->message().reasoning[0].type == reasoning_part::kind::redacted);
    CHECK(redacted->message().reasoning[0].data == "EmwKAhgBEgy3va3pzix");
    CHECK(redacted->message().reasoning[1].signature == "Sig");
    CHECK(redacted->text() == "Done.");

    const auto no_text = anthropic::decode_reply(200, {}, text_reply_with("content", boost::json::array()));
    REQUIRE(no_text.has_value());
    CHECK(no_text->message().content.index() == 0);
}

TEST_CASE("anthropic::decode_reply and decode_error: API error bodies") {
    // Errors, "Error shapes"
    const auto e = failure(anthropic::decode_reply(404, request_id("req_011CSHoEeqs5C35K2UUqR7Fy"), read_data("error-not-found.json")));
    CHECK(e.code == make_error_code(errc::api_error));
    CHECK(e.status == 404);
    CHECK(e.type == "not_found_error");
    CHECK(e.message == "The requested resource could not be found.");
    CHECK(e.headers.request_id() == "req_011CSHoEeqs5C35K2UUqR7Fy");
    CHECK(e.what() == "error reported by the model API (HTTP 404) [not_found_error]: The requested resource could not be found.");

    // Streaming Messages, "Error events": the overloaded_error that HTTP 529 carries outside a stream
    const std::string overloaded = anthropic_test::read_sse("stream-error-event.sse").at(0).data;
    const auto o = anthropic::decode_error(529, {}, overloaded);
    CHECK(o.code == make_error_code(errc::api_error));
    CHECK(o.status == 529);
    CHECK(o.type == "overloaded_error");
    CHECK(o.message == "Overloaded");

    // an error body under a 2xx status is still an error
    const auto under_200 = failure(anthropic::decode_reply(200, {}, overloaded));
    CHECK(under_200.code == make_error_code(errc::api_error));
    CHECK(under_200.type == "overloaded_error");

    // an API message is bounded
    const std::string long_message(10000, 'x');
    const auto bounded = anthropic::decode_error(
        500, {}, R"({"type":"error","error":{"type":"api_error","message":")" + long_message + R"("}})");
    CHECK(bounded.message == std::string(4096, 'x') + "...");
}

TEST_CASE("anthropic::decode_error: bodies that are not API errors give errc::http_status and a short excerpt") {
    const std::string html = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
                             "<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n";
    const auto e = anthropic::decode_error(502, request_id("req_1"), html);
    CHECK(e.code == make_error_code(errc::http_status));
    CHECK(e.status == 502);
    CHECK(e.type.empty());
    CHECK(e.message == "the reply is not an API error: <html> <head><title>502 Bad Gateway</title></head> <body> "
                       "<center><h1>502 Bad Gateway</h1></center> </body> </html>");
    CHECK(e.headers.request_id() == "req_1");
    CHECK(e.what() == "HTTP error status (HTTP 502): " + e.message);

    const auto r = failure(anthropic::decode_reply(502, {}, html));
    CHECK(r.code == make_error_code(errc::http_status));
    CHECK(r.message == e.message);

    std::string long_body = "<p>" + std::string(1000, 'a') + "\xC3\xA9</p>";
    const auto cut = anthropic::decode_error(503, {}, long_body);
    CHECK(cut.message == "the reply is not an API error: <p>" + std::string(197, 'a') + "...");
    const auto utf8_cut = anthropic::decode_error(503, {}, std::string(199, 'a') + "\xC3\xA9 and more");
    CHECK(utf8_cut.message == "the reply is not an API error: " + std::string(199, 'a') + "...");
    CHECK(anthropic::decode_error(503, {}, "bad \xFF byte").message == "the reply is not an API error: bad ? byte");
    CHECK(anthropic::decode_error(503, {}, "").message == "the reply has no body");
    CHECK(anthropic::decode_error(400, {}, R"({"detail": "no"})").code == make_error_code(errc::http_status));
}

TEST_CASE("anthropic::decode_reply: malformed replies give errc::protocol saying what was expected and found") {
    auto problem = [](std::string_view body) {
        const auto e = failure(anthropic::decode_reply(200, {}, body));
        CHECK(e.code == make_error_code(errc::protocol));
        CHECK(e.status == 200);
        return e.message;
    };
    CHECK(problem("Hi! My name is Claude.") ==
          "expected a Message object as JSON, found text that does not parse (syntax error): \"Hi! My name is Claude.\"");
    CHECK(problem("[1, 2]") == "message: expected an object, found an array");
    CHECK(problem(R"({"type": "message", "content": "Hi"})") == "message: content: expected an array, found a string (\"Hi\")");
    CHECK(problem(R"({"type": "message"})") == "message: content: expected an array, found nothing");
    CHECK(problem(R"({"type": "completion", "content": []})") ==
          "message: type: expected \"message\", found a string (\"completion\")");
    CHECK(problem(R"({"role": "user", "content": []})") == "message: role: expected \"assistant\", found a string (\"user\")");
    CHECK(problem(R"({"id": 7, "content": []})") == "message: id: expected a string or null, found an integer (7)");
    CHECK(problem(R"({"content": [{"text": "Hi"}]})") == "message: content[0].type: expected a string, found nothing");
    CHECK(problem(R"({"content": [{"type": "text", "text": null}]})") ==
          "message: content[0].text: expected a string, found null");
    CHECK(problem(R"({"content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": "{}"}]})") ==
          "message: content[0].input: expected an object, found a string (\"{}\")");
    CHECK(problem(R"({"content": [{"type": "tool_use", "id": "toolu_1", "input": {}}]})") ==
          "message: content[0].name: expected a string, found nothing");
    CHECK(problem(R"({"content": [{"type": "thinking", "thinking": "hmm"}]})") ==
          "message: content[0].signature: expected a string, found nothing");
    CHECK(problem(R"({"content": [], "stop_reason": 1})") == "message: stop_reason: expected a string or null, found an integer (1)");
    CHECK(problem(R"({"content": [], "usage": {"input_tokens": -3, "output_tokens": 1}})") ==
          "message: usage.input_tokens: expected a token count (an integer from 0 to 10^18), found an integer (-3)");
    CHECK(problem(R"({"content": [], "usage": {"input_tokens": 1, "output_tokens": "many"}})") ==
          "message: usage.output_tokens: expected a token count (an integer from 0 to 10^18), found a string (\"many\")");
}

TEST_CASE("anthropic::decode_reply: limits") {
    const std::string tool_use = read_data("message-tool-use.json");
    reply_limits one_block;
    one_block.max_content_blocks = 1;
    CHECK(failure(anthropic::decode_reply(200, {}, tool_use, one_block)).message ==
          "message: content: expected at most max_content_blocks (1) content blocks, found 2");

    reply_limits few_bytes;
    few_bytes.max_assembled_bytes = 60;  // the text (56 bytes) fits, the tool call does not
    const auto e = failure(anthropic::decode_reply(200, {}, tool_use, few_bytes));
    CHECK(e.code == make_error_code(errc::protocol));
    CHECK(e.message ==
          "expected a reply of at most max_assembled_bytes (60 bytes of text, reasoning and tool calls), found more");
    few_bytes.max_assembled_bytes = 56 + 29 + 11 + 49;  // text, id, name and arguments exactly
    CHECK(anthropic::decode_reply(200, {}, tool_use, few_bytes).has_value());
    few_bytes.max_assembled_bytes -= 1;
    CHECK_FALSE(anthropic::decode_reply(200, {}, tool_use, few_bytes).has_value());

    reply_limits small_body;
    small_body.max_body_bytes = 100;
    CHECK(failure(anthropic::decode_reply(200, {}, tool_use, small_body)).message ==
          "expected a reply body of at most max_body_bytes (100 bytes), found " + std::to_string(tool_use.size()));

    std::string deep = R"({"content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": )";
    for (int i = 0; i < 100; ++i) deep += "[";
    for (int i = 0; i < 100; ++i) deep += "]";
    deep += "}}]}";
    const auto too_deep = failure(anthropic::decode_reply(200, {}, deep));
    CHECK(too_deep.message == "expected a Message object, found JSON nested deeper than max_json_depth (64)");
    CHECK(too_deep.message.size() < 400);
}
