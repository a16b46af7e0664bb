// Tests of parley/provider/anthropic/stream.hpp: the documented example streams of Anthropic's
// Streaming Messages page (tests/provider/anthropic-data/README.md) fed event by event, the
// assembled reply checked field by field and against decode_reply of the same message.
#include <parley/provider/anthropic/stream.hpp>

#include <parley/provider/anthropic/reply.hpp>

#include "anthropic_test_data.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using namespace parley;
using anthropic_test::read_data;
using anthropic_test::read_json;
using anthropic_test::read_sse;
using anthropic_test::sse_event;

namespace {

struct fed {
    std::vector<stream_event> events;
    std::optional<call_error> error;
    std::size_t count = 0;  // events fed, the failing one included
};

fed feed_all(anthropic::stream_decoder& d, const std::vector<sse_event>& events) {
    fed r;
    for (const auto& e : events) {
        ++r.count;
        r.error = d.feed(e.event, e.data, r.events);
        if (r.error) break;
    }
    return r;
}

// One line per event, for readable comparisons.
std::string lines(const std::vector<stream_event>& events) {
    std::string s;
    for (const auto& e : events) {
        switch (e.type) {
        case stream_event::kind::text: s += "text[" + std::to_string(e.choice) + "] '" + e.text + "'"; break;
        case stream_event::kind::refusal: s += "refusal '" + e.text + "'"; break;
        case stream_event::kind::reasoning: s += "reasoning '" + e.text + "'"; break;
        case stream_event::kind::tool_call:
            s += "tool_call[" + std::to_string(e.choice) + "] #" + std::to_string(e.tool_index);
            if (!e.id.empty() || !e.name.empty()) s += " " + e.id + " " + e.name;
            s += " '" + e.text + "'";
            break;
        case stream_event::kind::function_call: s += "function_call"; break;
        case stream_event::kind::finish:
            s += "finish " + std::string(finish_reason_name(e.finish)) + " " + e.finish_text;
            break;
        case stream_event::kind::usage: s += "usage"; break;
        case stream_event::kind::done: s += "done"; break;
        }
        s += "\n";
    }
    return s;
}

http_headers stream_headers() {
    http_headers h;
    h.add("content-type", "text/event-stream; charset=utf-8");
    h.add("request-id", "req_018EeWyXxfu5pfWkrYcMdjWG");
    return h;
}

// The reply decode_reply gives for a non-streamed body, received with stream_headers().
chat_reply non_streamed(const std::string& body) {
    auto r = anthropic::decode_reply(200, stream_headers(), body);
    REQUIRE(r.has_value());
    return *r;
}

std::string protocol_problem(const std::vector<sse_event>& events, reply_limits limits = {}) {
    anthropic::stream_decoder d({}, 200, limits);
    const auto r = feed_all(d, events);
    REQUIRE(r.error);
    CHECK(r.error->code == make_error_code(errc::protocol));
    CHECK(d.failed());
    return r.error->message;
}

const sse_event start{"message_start",
                      R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m",)"
                      R"("content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}})"};

}  // namespace

TEST_CASE("anthropic::stream_decoder: the documented basic stream") {
    anthropic::stream_decoder d(stream_headers());
    const auto r = feed_all(d, read_sse("stream-text.sse"));
    REQUIRE_FALSE(r.error);
    CHECK(r.count == 8);
    CHECK(lines(r.events) == "text[0] 'Hello'\ntext[0] '!'\nfinish stop end_turn\nusage\ndone\n");
    CHECK(d.done());
    CHECK_FALSE(d.failed());
    const chat_reply& reply = d.reply();
    CHECK(reply.id == "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY");
    CHECK(reply.model == "claude-sonnet-4-5-20250929");
    CHECK(reply.status == 200);
    CHECK(reply.headers.request_id() == "req_018EeWyXxfu5pfWkrYcMdjWG");
    REQUIRE(reply.choices.size() == 1);
    CHECK(reply.choices[0].index == 0);
    CHECK(reply.choices[0].message.role == role::assistant);
    CHECK(reply.text() == "Hello!");
    CHECK(reply.choices[0].finish == finish_reason::stop);
    CHECK(reply.choices[0].finish_text == "end_turn");
    REQUIRE(reply.usage);
    // message_delta's counts are cumulative: 15 output tokens in all
    CHECK(reply.usage->prompt_tokens == 25);
    CHECK(reply.usage->completion_tokens == 15);
    CHECK(reply.usage->total_tokens == 40);
    CHECK(reply == non_streamed(read_data("stream-text.message.json")));
    CHECK(d.take_reply() == non_streamed(read_data("stream-text.message.json")));
    std::vector<stream_event> more;
    const auto after = d.feed("ping", R"({"type": "ping"})", more);
    REQUIRE(after);
    CHECK(after->message == "stream_decoder::feed after take_reply()");
}

TEST_CASE("anthropic::stream_decoder: the documented stream with tool use") {
    anthropic::stream_decoder d(stream_headers());
    const auto r = feed_all(d, read_sse("stream-tool-use.sse"));
    REQUIRE_FALSE(r.error);
    CHECK(lines(r.events) == "text[0] 'Okay'\ntext[0] ','\ntext[0] ' let'\ntext[0] ''s'\ntext[0] ' check'\n"
                             "text[0] ' the'\ntext[0] ' weather'\ntext[0] ' for'\ntext[0] ' San'\ntext[0] ' Francisco'\n"
                             "text[0] ','\ntext[0] ' CA'\ntext[0] ':'\n"
                             "tool_call[0] #0 toolu_01T1x1fJ34qAmk2tNTrN7Up6 get_weather ''\n"
                             "tool_call[0] #0 '{\"location\":'\ntool_call[0] #0 ' \"San'\ntool_call[0] #0 ' Francisc'\n"
                             "tool_call[0] #0 'o,'\ntool_call[0] #0 ' CA\"'\ntool_call[0] #0 ', '\n"
                             "tool_call[0] #0 '\"unit\": \"fah'\ntool_call[0] #0 'renheit\"}'\n"
                             "finish tool_calls tool_use\nusage\ndone\n");
    std::string fragments;
    for (const auto& e : r.events)
        if (e.type == stream_event::kind::tool_call) fragments += e.text;
    CHECK(fragments == R"({"location": "San Francisco, CA", "unit": "fahrenheit"})");

    const chat_reply& reply = d.reply();
    CHECK(reply.id == "msg_014p7gG3wDgGV9EUtLvnow3U");
    CHECK(reply.text() == "Okay, let's check the weather for San Francisco, CA:");
    REQUIRE(reply.message().tool_calls.size() == 1);
    const tool_call& call = reply.message().tool_calls[0];
    CHECK(call.id == "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    CHECK(call.function.name == "get_weather");
    CHECK(call.function.arguments == R"({"location":"San Francisco, CA","unit":"fahrenheit"})");
    CHECK(reply.choices[0].finish == finish_reason::tool_calls);
    CHECK(reply.choices[0].finish_text == "tool_use");
    CHECK(reply.usage->prompt_tokens == 472);
    CHECK(reply.usage->completion_tokens == 89);
    CHECK(reply.usage->total_tokens == 561);
    CHECK(reply.usage->details == boost::json::parse(R"({"input_tokens": 472, "output_tokens": 89})").as_object());
    CHECK(reply == non_streamed(read_data("stream-tool-use.message.json")));

    SUBCASE("events without names are dispatched on their data's type") {
        auto unnamed = read_sse("stream-tool-use.sse");
        for (auto& e : unnamed) e.event.clear();
        anthropic::stream_decoder u(stream_headers());
        const auto ur = feed_all(u, unnamed);
        REQUIRE_FALSE(ur.error);
        CHECK(lines(ur.events) == lines(r.events));
        CHECK(u.reply() == reply);
    }
    SUBCASE("unknown event types, unknown delta types and pings anywhere are ignored") {
        auto events = read_sse("stream-tool-use.sse");
        events.insert(events.begin() + 3, {"content_block_glimmer", "not even JSON"});
        events.insert(events.begin() + 4, {"", R"({"type": "message_glimmer", "index": 9})"});
        events.insert(events.begin() + 5, {"content_block_delta", R"({"type": "content_block_delta", "index": 0, "delta": )"
                                                                  R"({"type": "citations_delta", "citation": {"cited_text": "x"}}})"});
        events.insert(events.end() - 1, {"ping", R"({"type": "ping"})"});
        anthropic::stream_decoder u(stream_headers());
        const auto ur = feed_all(u, events);
        REQUIRE_FALSE(ur.error);
        CHECK(lines(ur.events) == lines(r.events));
        CHECK(u.reply() == reply);
    }
}

TEST_CASE("anthropic::stream_decoder: a tool_use block whose input streams nothing gets \"{}\"") {
    // The documented tool stream without its input_json_delta events
    auto events = read_sse("stream-tool-use.sse");
    std::erase_if(events, [](const sse_event& e) { return e.data.find("input_json_delta") != std::string::npos; });
    anthropic::stream_decoder d(stream_headers());
    const auto r = feed_all(d, events);
    REQUIRE_FALSE(r.error);
    CHECK(lines(r.events).find("tool_call[0] #0 toolu_01T1x1fJ34qAmk2tNTrN7Up6 get_weather ''\n"
                               "tool_call[0] #0 '{}'\nfinish tool_calls tool_use\n") != std::string::npos);
    CHECK(d.reply().message().tool_calls.at(0).function.arguments == "{}");
    auto body = read_json("stream-tool-use.message.json");
    body.at("content").at(1).as_object()["input"] = boost::json::object();
    CHECK(d.reply() == non_streamed(boost::json::serialize(body)));
}

TEST_CASE("anthropic::stream_decoder: the documented stream with extended thinking") {
    anthropic::stream_decoder d(stream_headers());
    const auto r = feed_all(d, read_sse("stream-thinking.sse"));
    REQUIRE_FALSE(r.error);
    // each thinking delta is a reasoning event, the signature delta completes the block; no usage was sent
    CHECK(lines(r.events) == "reasoning 'Let me solve this step by step:\n\n1. First break down 27 * 453'\n"
                             "reasoning '\n2. 453 = 400 + 50 + 3'\n"
                             "reasoning '\n3. 27 * 400 = 10,800'\n"
                             "reasoning '\n4. 27 * 50 = 1,350'\n"
                             "reasoning '\n5. 27 * 3 = 81'\n"
                             "reasoning '\n6. 10,800 + 1,350 + 81 = 12,231'\n"
                             "text[0] '27 * 453 = 12,231'\nfinish stop end_turn\ndone\n");
    CHECK(d.reply().text() == "27 * 453 = 12,231");
    CHECK_FALSE(d.reply().usage);
    REQUIRE(d.reply().message().reasoning.size() == 1);
    CHECK(d.reply().message().reasoning[0].type == reasoning_part::kind::thinking);
    CHECK(d.reply().message().reasoning[0].signature == "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...");
    CHECK(d.reply() == non_streamed(read_data("stream-thinking.message.json")));
}

TEST_CASE("anthropic::stream_decoder: an error event in the middle of the stream") {
    // Streaming Messages: an overloaded_error during a stream
    auto events = read_sse("stream-text.sse");
    events.resize(4);  // message_start, content_block_start, ping, the "Hello" delta
    events.push_back(read_sse("stream-error-event.sse").at(0));
    events.push_back(read_sse("stream-text.sse").at(4));  // the "!" delta, after the error
    anthropic::stream_decoder d(stream_headers());
    const auto r = feed_all(d, events);
    REQUIRE(r.error);
    CHECK(r.count == 5);
    CHECK(r.error->code == make_error_code(errc::api_error));
    CHECK(r.error->type == "overloaded_error");
    CHECK(r.error->message == "Overloaded");
    CHECK(r.error->status == 200);
    CHECK(r.error->headers.request_id() == "req_018EeWyXxfu5pfWkrYcMdjWG");
    CHECK(r.error->what() == "error reported by the model API (HTTP 200) [overloaded_error]: Overloaded");
    CHECK(lines(r.events) == "text[0] 'Hello'\n");
    CHECK(d.failed());
    CHECK_FALSE(d.done());
    CHECK(d.reply().text() == "Hello");
    std::vector<stream_event> more;
    const auto again = d.feed(events.back().event, events.back().data, more);
    REQUIRE(again);
    CHECK(again->type == "overloaded_error");
    CHECK(more.empty());
    CHECK(d.reply().text() == "Hello");

    anthropic::stream_decoder plain;
    const auto not_json = plain.feed("error", "upstream overloaded", more);
    REQUIRE(not_json);
    CHECK(not_json->code == make_error_code(errc::api_error));
    CHECK(not_json->message == "the stream reported an error: upstream overloaded");
}

TEST_CASE("anthropic::stream_decoder: unexpected or malformed events give errc::protocol") {
    const sse_event text_block{"content_block_start",
                               R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"};
    const sse_event tool_block{"content_block_start",
                               R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1",)"
                               R"("name":"f","input":{}}})"};
    const sse_event text_delta{"content_block_delta",
                               R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}})"};
    const sse_event stop_block{"content_block_stop", R"({"type":"content_block_stop","index":0})"};
    const sse_event stop{"message_stop", R"({"type":"message_stop"})"};

    CHECK(protocol_problem({text_delta}) == "content_block_delta: expected message_start first");
    CHECK(protocol_problem({start, text_delta}) == "content_block_delta: index: content block 0 has not started");
    CHECK(protocol_problem({start, text_block, stop_block, text_delta}) ==
          "content_block_delta: index: content block 0 has stopped");
    CHECK(protocol_problem({start, tool_block, text_delta}) ==
          "content_block_delta: delta.type: a text_delta for content block 0, which is not a text block");
    CHECK(protocol_problem({start, {"content_block_start", R"({"type":"content_block_start","index":1,)"
                                                           R"("content_block":{"type":"text","text":""}})"}}) ==
          "content_block_start: index: expected 0 (the next content block), found an integer (1)");
    CHECK(protocol_problem({start, {"content_block_start", R"({"type":"content_block_start","index":0,)"
                                                           R"("content_block":{"type":"tool_use","name":"f","input":{}}})"}}) ==
          "content_block_start: content_block.id: expected a string, found nothing");
    CHECK(protocol_problem({start, text_block, {"content_block_delta", R"({"type":"content_block_delta","index":"0",)"
                                                                      R"("delta":{"type":"text_delta","text":"Hi"}})"}}) ==
          "content_block_delta: index: expected a content block index, found a string (\"0\")");
    CHECK(protocol_problem({start, text_block, {"content_block_delta", R"({"type":"content_block_delta","index":0,)"
                                                                      R"("delta":{"type":"text_delta"}})"}}) ==
          "content_block_delta: delta.text: expected a string, found nothing");
    CHECK(protocol_problem({start, {"message_delta", "{oops"}}) ==
          "message_delta: expected JSON data as JSON, found text that does not parse (syntax error): \"{oops\"");
    CHECK(protocol_problem({start, {"content_block_stop", text_block.data}}) ==
          "content_block_stop: type: expected \"content_block_stop\", found a string (\"content_block_start\")");
    CHECK(protocol_problem({start, start}) == "message_start: a second message_start");
    CHECK(protocol_problem({start, stop, text_block}) == "content_block_start: the stream continues after message_stop");
    CHECK(protocol_problem({{"message_start", R"({"type":"message_start"})"}}) ==
          "message_start: message: expected an object, found nothing");
    CHECK(protocol_problem({start, {"message_delta", R"({"type":"message_delta","delta":{"stop_reason":7}})"}}) ==
          "message_delta: delta.stop_reason: expected a string or null, found an integer (7)");
    CHECK(protocol_problem({start, {"message_delta", R"({"type":"message_delta","delta":{},"usage":{"output_tokens":-1}})"}}) ==
          "message_delta: usage.output_tokens: expected a token count (an integer from 0 to 10^18), found an integer (-1)");
    CHECK(protocol_problem({{"", R"({"index": 0})"}}) ==
          "(unnamed event): an event without a name needs a 'type' in its data, found {\"index\": 0}");

    // a ping after message_stop is still fine
    anthropic::stream_decoder d;
    std::vector<stream_event> out;
    CHECK_FALSE(d.feed(start.event, start.data, out));
    CHECK_FALSE(d.feed(stop.event, stop.data, out));
    CHECK_FALSE(d.feed("ping", R"({"type": "ping"})", out));
    CHECK(d.done());
}

TEST_CASE("anthropic::stream_decoder: limits") {
    const auto events = read_sse("stream-tool-use.sse");
    reply_limits one_block;
    one_block.max_content_blocks = 1;
    CHECK(protocol_problem(events, one_block) ==
          "content_block_start: expected at most max_content_blocks (1) content blocks, found more");

    // the text is 52 bytes; the tool call's id does not fit in 60
    reply_limits few_bytes;
    few_bytes.max_assembled_bytes = 60;
    CHECK(protocol_problem(events, few_bytes) ==
          "expected a reply of at most max_assembled_bytes (60 bytes of text, reasoning and tool calls), found more");
    few_bytes.max_assembled_bytes = 100;  // text, id and name fit; the arguments do not
    CHECK(protocol_problem(events, few_bytes) ==
          "expected a reply of at most max_assembled_bytes (100 bytes of text, reasoning and tool calls), found more");

    reply_limits small_events;
    small_events.max_body_bytes = 100;
    CHECK(protocol_problem(events, small_events) ==
          "message_start: expected data of at most max_body_bytes (100 bytes), found " + std::to_string(events[0].data.size()));

    std::string deep = R"({"type":"message_delta","delta":{},"extra":)";
    for (int i = 0; i < 70; ++i) deep += "[";
    for (int i = 0; i < 70; ++i) deep += "]";
    deep += "}";
    const std::string problem = protocol_problem({start, {"message_delta", deep}});
    CHECK(problem == "message_delta: expected JSON data, found JSON nested deeper than max_json_depth (64)");
    CHECK(problem.size() < 400);
}
