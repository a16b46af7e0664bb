// Tests of parley/provider/responses/stream.hpp: the semantic events of a responses_streamed Response, in
// the shapes of the API reference's streaming events (and the official SDK's
// ResponseStreamEvent types): text, refusal, function call arguments and reasoning summary
// deltas, output items added and done, response.completed replacing the assembly, errors.
#include <parley/provider/responses/stream.hpp>

#include <parley/provider/responses/reply.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

using namespace parley;

namespace {

struct responses_streamed {
    std::vector<stream_event> events;
    std::optional<call_error> error;
};

responses_streamed responses_feed(responses::stream_decoder& d, const std::vector<std::pair<std::string, std::string>>& events) {
    responses_streamed s;
    for (const auto& [name, data] : events) {
        s.error = d.feed(name, data, s.events);
        if (s.error) break;
    }
    return s;
}

std::string responses_lines(const std::vector<stream_event>& events) {
    std::string s;
    for (const auto& e : events) {
        switch (e.type) {
        case stream_event::kind::text: s += "text '" + e.text + "'"; break;
        case stream_event::kind::refusal: s += "refusal '" + e.text + "'"; break;
        case stream_event::kind::reasoning: s += "reasoning '" + e.text + "'"; break;
        case stream_event::kind::tool_call:
            s += "tool_call #" + std::to_string(e.tool_index);
            if (!e.id.empty()) s += " " + e.id + " " + e.name;
            s += " '" + e.text + "'";
            break;
        case stream_event::kind::function_call: s += "function_call"; break;
        case stream_event::kind::finish: s += "finish " + std::string(finish_reason_name(e.finish)) + " " + e.finish_text; break;
        case stream_event::kind::usage: s += "usage"; break;
        case stream_event::kind::done: s += "done"; break;
        }
        s += "\n";
    }
    return s;
}

const std::string rs_created = R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response",)"
                            R"("created_at":1741476542,"status":"in_progress","model":"gpt-5","output":[],"usage":null}})";
std::string rs_added(std::size_t index, std::string_view item) {
    return R"({"type":"response.output_item.added","sequence_number":1,"output_index":)" + std::to_string(index) +
           R"(,"item":)" + std::string(item) + "}";
}
std::string rs_delta(std::string_view type, std::size_t index, std::string_view text, std::string_view more = {}) {
    return R"({"type":")" + std::string(type) + R"(","sequence_number":2,"item_id":"x","output_index":)" + std::to_string(index) +
           R"(,"content_index":0,"summary_index":0,"delta":)" + boost::json::serialize(boost::json::value(text)) +
           std::string(more) + "}";
}
std::string rs_completed(std::string_view output, std::string_view type = "response.completed",
                      std::string_view status = "completed") {
    return R"({"type":")" + std::string(type) + R"(","sequence_number":9,"response":{"id":"resp_1","object":"response",)"
           R"("created_at":1741476542,"status":")" + std::string(status) + R"(","model":"gpt-5","output":)" + std::string(output) +
           R"(,"usage":{"input_tokens":5,"output_tokens":7,"total_tokens":12,"input_tokens_details":{"cached_tokens":0},)"
           R"("output_tokens_details":{"reasoning_tokens":3}}}})";
}

}  // namespace

TEST_CASE("responses::stream_decoder: text deltas, then response.completed") {
    const std::string message = R"({"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[)"
                                R"({"type":"output_text","text":"Hi there","annotations":[]}]})";
    responses::stream_decoder d;
    const auto s = responses_feed(d, {{"response.created", rs_created},
                            {"response.in_progress", rs_created},
                            {"response.output_item.added", rs_added(0, R"({"type":"message","id":"msg_1","status":"in_progress",)"
                                                                   R"("role":"assistant","content":[]})")},
                            {"response.content_part.added", R"({"type":"response.content_part.added","sequence_number":3,)"
                                                            R"("item_id":"msg_1","output_index":0,"content_index":0,)"
                                                            R"("part":{"type":"output_text","text":"","annotations":[]}})"},
                            {"response.output_text.delta", rs_delta("response.output_text.delta", 0, "Hi ", R"(,"logprobs":[])")},
                            {"response.output_text.delta", rs_delta("response.output_text.delta", 0, "there", R"(,"logprobs":[])")},
                            {"response.output_text.done", R"({"type":"response.output_text.done","sequence_number":6,)"
                                                          R"("item_id":"msg_1","output_index":0,"content_index":0,"text":"Hi there"})"},
                            {"response.output_item.done", R"({"type":"response.output_item.done","sequence_number":7,)"
                                                          R"("output_index":0,"item":)" + message + "}"},
                            {"response.completed", rs_completed("[" + message + "]")}});
    REQUIRE_FALSE(s.error);
    CHECK(responses_lines(s.events) == "text 'Hi '\ntext 'there'\nfinish stop completed\nusage\ndone\n");
    CHECK(d.done());
    const chat_reply& r = d.reply();
    CHECK(r.id == "resp_1");
    CHECK(r.model == "gpt-5");
    CHECK(r.text() == "Hi there");
    REQUIRE(r.usage);
    CHECK(r.usage->reasoning_tokens() == 3);
    // the assembled reply is the one the same Response decodes to
    auto whole = responses::decode_reply(200, {}, boost::json::serialize(boost::json::parse(rs_completed("[" + message + "]")).at("response")));
    REQUIRE(whole.has_value());
    CHECK(r.choices == whole->choices);
    CHECK(r.usage == whole->usage);
    std::vector<stream_event> more;
    const auto after = d.feed("response.output_text.delta", rs_delta("response.output_text.delta", 0, "x"), more);
    REQUIRE(after);
    CHECK(after->code == make_error_code(errc::protocol));
}

TEST_CASE("responses::stream_decoder: function call arguments, reasoning summaries, the items' ends") {
    const std::string call_added = R"({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather",)"
                                   R"("arguments":"","status":"in_progress"})";
    const std::string call_done = R"({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather",)"
                                  R"("arguments":"{\"city\":\"Oslo\"}","status":"completed"})";
    const std::string rs_done = R"({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Check it."}],)"
                                R"("encrypted_content":"gAAAA"})";
    responses::stream_decoder d;
    const auto s = responses_feed(d, {{"response.created", rs_created},
                            {"response.output_item.added", rs_added(0, R"({"type":"reasoning","id":"rs_1","summary":[]})")},
                            {"response.reasoning_summary_text.delta", rs_delta("response.reasoning_summary_text.delta", 0, "Check ")},
                            {"response.reasoning_summary_text.delta", rs_delta("response.reasoning_summary_text.delta", 0, "it.")},
                            {"response.output_item.done", R"({"type":"response.output_item.done","sequence_number":4,)"
                                                          R"("output_index":0,"item":)" + rs_done + "}"},
                            {"response.output_item.added", rs_added(1, call_added)},
                            {"response.function_call_arguments.delta", rs_delta("response.function_call_arguments.delta", 1, "{\"city\":")},
                            {"response.function_call_arguments.delta", rs_delta("response.function_call_arguments.delta", 1, "\"Oslo\"}")},
                            {"response.output_item.done", R"({"type":"response.output_item.done","sequence_number":8,)"
                                                          R"("output_index":1,"item":)" + call_done + "}"},
                            {"response.completed", rs_completed("[" + rs_done + "," + call_done + "]")}});
    REQUIRE_FALSE(s.error);
    CHECK(responses_lines(s.events) == "reasoning 'Check '\nreasoning 'it.'\ntool_call #0 call_1 get_weather ''\n"
                             "tool_call #0 '{\"city\":'\ntool_call #0 '\"Oslo\"}'\nfinish tool_calls completed\nusage\ndone\n");
    const message& m = d.reply().message();
    REQUIRE(m.tool_calls.size() == 1);
    CHECK(m.tool_calls[0].function.arguments == R"({"city":"Oslo"})");
    REQUIRE(m.reasoning.size() == 1);
    CHECK(m.reasoning[0].summary == std::vector<std::string>{"Check it."});
    CHECK(m.reasoning[0].data == "gAAAA");
}

TEST_CASE("responses::stream_decoder: a refusal, an incomplete response, a failed one, an error event") {
    responses::stream_decoder refusal;
    const auto r = responses_feed(refusal, {{"response.created", rs_created},
                                  {"response.output_item.added", rs_added(0, R"({"type":"message","id":"m","role":"assistant","content":[]})")},
                                  {"response.refusal.delta", rs_delta("response.refusal.delta", 0, "No.")},
                                  {"response.incomplete", rs_completed("[]", "response.incomplete", "incomplete")}});
    REQUIRE_FALSE(r.error);
    CHECK(responses_lines(r.events) == "refusal 'No.'\nfinish other incomplete\nusage\ndone\n");
    CHECK(refusal.reply().message().refusal == "No.");

    responses::stream_decoder failed;
    const auto f = responses_feed(failed, {{"response.created", rs_created},
                                 {"response.failed", R"({"type":"response.failed","sequence_number":1,"response":{"id":"resp_1",)"
                                                     R"("object":"response","status":"failed","error":{"code":"server_error",)"
                                                     R"("message":"The model failed."},"output":[]}})"}});
    REQUIRE(f.error);
    CHECK(f.error->code == make_error_code(errc::api_error));
    CHECK(f.error->message == "The model failed.");
    CHECK(failed.failed());

    responses::stream_decoder error;
    const auto e = responses_feed(error, {{"error", R"({"type":"error","code":"ERR_SOMETHING","message":"Something went wrong",)"
                                          R"("param":null,"sequence_number":1})"}});
    REQUIRE(e.error);
    CHECK(e.error->code == make_error_code(errc::api_error));
    CHECK(e.error->api_code == "ERR_SOMETHING");
    CHECK(e.error->message == "Something went wrong");
}

TEST_CASE("responses::stream_decoder: a text split in the middle of a surrogate pair is joined") {
    responses::stream_decoder d;
    const auto s = responses_feed(d, {{"response.created", rs_created},
                            {"response.output_item.added", rs_added(0, R"({"type":"message","id":"m","role":"assistant","content":[]})")},
                            {"", R"({"type":"response.output_text.delta","sequence_number":2,"output_index":0,"delta":"a\ud83d"})"},
                            {"", R"({"type":"response.output_text.delta","sequence_number":3,"output_index":0,"delta":"\ude00b"})"},
                            {"response.completed", rs_completed("[]")}});
    REQUIRE_FALSE(s.error);
    CHECK(responses_lines(s.events) == "text 'a'\ntext '\xF0\x9F\x98\x80" "b'\nfinish stop completed\nusage\ndone\n");
    CHECK(d.reply().text() == "a\xF0\x9F\x98\x80" "b");
}

TEST_CASE("responses::stream_decoder: malformed events name the event and the member") {
    auto problem = [](std::vector<std::pair<std::string, std::string>> events) {
        responses::stream_decoder d;
        const auto s = responses_feed(d, events);
        REQUIRE(s.error);
        CHECK(s.error->code == make_error_code(errc::protocol));
        return s.error->message;
    };
    CHECK(problem({{"response.output_text.delta", rs_delta("response.output_text.delta", 0, "x")}}) ==
          "response.output_text.delta: output_index: output item 0 has not been added");
    CHECK(problem({{"response.output_item.added", rs_added(1, R"({"type":"message"})")}}) ==
          "response.output_item.added: output_index: expected 0 (the next output item), found an integer (1)");
    CHECK(problem({{"response.output_item.added", rs_added(0, R"({"type":"function_call","name":"f"})")}}) ==
          "response.output_item.added: item.call_id: expected a string, found nothing");
    CHECK(problem({{"response.created", "{oops"}}) ==
          "response.created: expected JSON data as JSON, found text that does not parse (syntax error): \"{oops\"");
    CHECK(problem({{"", R"({"no_type": 1})"}}) == "(unnamed event): an event without a name needs a 'type' in its data");
}
