// Tests of parley/provider/openai/stream.hpp: the recorded OpenAI streams
// (../shared/fixtures/openai-sse) assembled as the official openai SDK assembles them
// (tests/provider/openai-sse-assembled), the events, errors inside a stream and the limits.
#include <parley/provider/openai/stream.hpp>

#include <parley/net/sse.hpp>
#include <parley/provider/openai/reply.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace parley;

namespace {

std::string read_recording(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot open " << p.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The data of each event of a text/event-stream body, read by parley's SSE reader in pieces of
// `piece` bytes.
std::vector<std::string> sse_data(const std::string& body, std::size_t piece = std::string::npos) {
    std::vector<std::string> events;
    net::sse_reader reader;
    for (std::size_t at = 0; at < body.size(); at += piece) {
        const auto ec = reader.feed(std::string_view(body).substr(at, piece),
                                    [&](const net::sse_event& e) { events.emplace_back(e.data); });
        REQUIRE_FALSE(ec);
    }
    CHECK_FALSE(reader.pending());
    return events;
}

std::filesystem::path recordings() { return std::filesystem::path(PARLEY_TEST_SHARED_DIR) / "fixtures" / "openai-sse"; }
std::filesystem::path goldens() {
    return std::filesystem::path(PARLEY_TEST_SOURCE_DIR) / "tests" / "provider" / "openai-sse-assembled";
}

struct decoded {
    chat_reply reply;
    std::vector<stream_event> events;
};

decoded decode_all(const std::vector<std::string>& events, const reply_limits& limits = {}) {
    http_headers h;
    h.add("x-request-id", "req_1");
    openai::stream_decoder d(h, 200, limits);
    decoded out;
    for (const auto& e : events) {
        const auto err = d.feed(e, out.events);
        REQUIRE_MESSAGE(!err, err->what());
    }
    CHECK(d.done());
    out.reply = d.take_reply();
    CHECK(out.reply.headers.request_id() == "req_1");
    CHECK(out.reply.status == 200);
    return out;
}

// The texts the events give, per choice and tool index, as the assembled reply has them.
void check_events_reproduce(const decoded& d) {
    std::map<std::size_t, std::string> text, refusal, reasoning;
    std::map<std::pair<std::size_t, std::size_t>, std::string> args, names, ids;
    std::map<std::size_t, std::string> finish, fn_args, fn_name;
    std::size_t usage = 0, done = 0;
    for (const auto& e : d.events) {
        switch (e.type) {
        case stream_event::kind::text: text[e.choice] += e.text; break;
        case stream_event::kind::refusal: refusal[e.choice] += e.text; break;
        case stream_event::kind::reasoning: reasoning[e.choice] += e.text; break;
        case stream_event::kind::tool_call:
            args[{e.choice, e.tool_index}] += e.text;
            if (!e.name.empty()) names[{e.choice, e.tool_index}] = e.name;
            if (!e.id.empty()) ids[{e.choice, e.tool_index}] = e.id;
            break;
        case stream_event::kind::finish: finish[e.choice] = e.finish_text; break;
        case stream_event::kind::usage: ++usage; break;
        case stream_event::kind::done: ++done; break;
        case stream_event::kind::function_call:
            fn_args[e.choice] += e.text;
            if (!e.name.empty()) fn_name[e.choice] = e.name;
            break;
        }
    }
    CHECK(done == 1);
    CHECK(d.events.back().type == stream_event::kind::done);
    CHECK(usage == (d.reply.usage ? 1u : 0u));
    for (const auto& c : d.reply.choices) {
        CHECK(text[c.index] == c.message.text());
        CHECK(refusal[c.index] == c.message.refusal.value_or(""));
        CHECK(reasoning[c.index] == c.message.reasoning_text());
        CHECK(finish[c.index] == c.finish_text);
        CHECK(fn_args[c.index] == (c.message.function_call ? c.message.function_call->arguments : ""));
        CHECK(fn_name[c.index] == (c.message.function_call ? c.message.function_call->name : ""));
        for (std::size_t t = 0; t < c.message.tool_calls.size(); ++t) {
            CHECK(args[{c.index, t}] == c.message.tool_calls[t].function.arguments);
            CHECK(names[{c.index, t}] == c.message.tool_calls[t].function.name);
            CHECK(ids[{c.index, t}] == c.message.tool_calls[t].id);
        }
    }
}

std::vector<std::string> recording(const char* name) { return sse_data(read_recording(recordings() / name)); }

// Decodes `sse` and compares the assembled reply with the SDK's (`golden`); true when equal.
void check_against_sdk(const std::filesystem::path& sse, const std::filesystem::path& golden) {
    const auto events = sse_data(read_recording(sse));
    REQUIRE(events.size() > 2);
    CHECK(events.back() == "[DONE]");
    const decoded d = decode_all(events);
    const boost::json::value expected = boost::json::parse(read_recording(golden));
    const boost::json::value mine = openai::reply_to_json(d.reply);
    CHECK_MESSAGE(mine == expected, "parley:\n" << boost::json::serialize(mine) << "\nSDK:\n" << boost::json::serialize(expected));
    check_events_reproduce(d);
    // read in pieces of 7 bytes through a fresh decoder: the same events and reply
    const decoded pieces = decode_all(sse_data(read_recording(sse), 7));
    CHECK(pieces.reply == d.reply);
    CHECK(pieces.events == d.events);
}

std::size_t check_folder(const std::filesystem::path& sse_dir, const std::filesystem::path& golden_dir) {
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(sse_dir)) {
        if (entry.path().extension() != ".sse") continue;
        ++files;
        const std::string name = entry.path().stem().string();
        CAPTURE(name);
        check_against_sdk(entry.path(), golden_dir / (name + ".json"));
    }
    return files;
}

}  // namespace

TEST_CASE("openai::stream_decoder assembles every recording as the official SDK does") {
    CHECK(check_folder(recordings(), goldens()) == 12);
}

TEST_CASE("openai::stream_decoder assembles the hand-written streams as the official SDK does") {
    // tool names replaced by later deltas, a legacy function call, "" content only and no usage,
    // choices arriving out of order with log probabilities starting in a later chunk, surrogate
    // pairs split between chunks (in content and in tool call arguments)
    CHECK(check_folder(goldens() / "cases", goldens() / "cases") == 5);
}

TEST_CASE("openai::stream_decoder: what the recordings exercise, spelled out") {
    SUBCASE("plain text: content concatenated, finish stop, usage") {
        const auto d = decode_all(recording("plain-text.sse"));
        REQUIRE(d.reply.choices.size() == 1);
        CHECK(d.reply.text().rfind("I'm unable to provide real-time weather", 0) == 0);
        CHECK(d.reply.choices[0].finish == finish_reason::stop);
        REQUIRE(d.reply.usage);
        CHECK(d.reply.usage->total_tokens == d.reply.usage->prompt_tokens + d.reply.usage->completion_tokens);
        CHECK(d.reply.usage->details.at("completion_tokens_details").at("reasoning_tokens") == 0);
    }
    SUBCASE("parallel tool calls: merged by index, content null") {
        const auto d = decode_all(recording("parallel-tool-calls-with-usage.sse"));
        REQUIRE(d.reply.choices.size() == 1);
        const auto& m = d.reply.message();
        CHECK(std::holds_alternative<std::monostate>(m.content));
        REQUIRE(m.tool_calls.size() == 2);
        CHECK(m.tool_calls[0].id == "call_JMW1whyEaYG438VE1OIflxA2");
        CHECK(m.tool_calls[0].function.name == "GetWeatherArgs");
        CHECK(m.tool_calls[1].function.name == "get_stock_price");
        CHECK(boost::json::parse(m.tool_calls[0].function.arguments).at("city") == "Edinburgh");
        CHECK(boost::json::parse(m.tool_calls[1].function.arguments).at("ticker") == "AAPL");
        CHECK(d.reply.choices[0].finish == finish_reason::tool_calls);
    }
    SUBCASE("three choices interleaved by index") {
        const auto d = decode_all(recording("json-schema-three-choices.sse"));
        REQUIRE(d.reply.choices.size() == 3);
        for (std::size_t i = 0; i < 3; ++i) {
            CHECK(d.reply.choices[i].index == i);
            CHECK(boost::json::parse(d.reply.choices[i].message.text()).at("city") == "San Francisco");
        }
    }
    SUBCASE("refusal with log probabilities: the refusal tokens spell the refusal") {
        const auto d = decode_all(recording("refusal-logprobs.sse"));
        const auto& c = d.reply.choices.at(0);
        REQUIRE(c.message.refusal);
        CHECK(std::holds_alternative<std::monostate>(c.message.content));
        std::string spelled;
        for (const auto& t : c.logprobs.at("refusal").as_array()) spelled += t.at("token").as_string();
        CHECK(spelled == *c.message.refusal);
        CHECK(c.logprobs.at("content").is_null());
    }
    SUBCASE("length cut-off") {
        const auto d = decode_all(recording("length-cutoff.sse"));
        CHECK(d.reply.choices.at(0).finish == finish_reason::length);
        CHECK(d.reply.choices.at(0).finish_text == "length");
    }
}

namespace {

std::string chunk(const std::string& choices, const std::string& extra = "") {
    return R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":)" + choices +
           extra + "}";
}

}  // namespace

TEST_CASE("openai::stream_decoder: name, id and arguments of a tool call follow the SDK") {
    // The beginning of openai-sse-assembled/cases/tool-name-replaced.sse, whose SDK assembly is
    // compared above: the SDK keeps the last non-empty name and id, and concatenates arguments.
    // The events carry each piece as it came.
    openai::stream_decoder d;
    std::vector<stream_event> ev;
    CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"role":"assistant","content":"A"},"logprobs":null,"finish_reason":null}])"), ev));
    CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_","arguments":"{"}}]},"finish_reason":null}])"), ev));
    CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"weather","arguments":"}"}}]},"finish_reason":"tool_calls"}])"), ev));
    CHECK_FALSE(d.feed("[DONE]", ev));
    const auto& m = d.reply().message();
    CHECK(m.text() == "A");
    REQUIRE(m.tool_calls.size() == 1);
    CHECK(m.tool_calls[0].id == "c1");
    CHECK(m.tool_calls[0].function.name == "weather");
    CHECK(m.tool_calls[0].function.arguments == "{}");
    REQUIRE(ev.size() == 5);
    CHECK(ev[1].type == stream_event::kind::tool_call);
    CHECK(ev[1].id == "c1");
    CHECK(ev[1].name == "get_");
    CHECK(ev[2].name == "weather");
    CHECK(ev[3].type == stream_event::kind::finish);
    CHECK(ev[3].finish == finish_reason::tool_calls);
}

TEST_CASE("openai::stream_decoder: legacy function_call, tool calls without index, empty content") {
    openai::stream_decoder d;
    std::vector<stream_event> ev;
    CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"role":"assistant","content":"","function_call":{"name":"lookup","arguments":""}}}])"), ev));
    CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"function_call":{"arguments":"{\"q\":"}}}])"), ev));
    CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"function_call":{"arguments":"1}"}},"finish_reason":"function_call"}])"), ev));
    // a second choice whose server omits the tool call index: a new id starts a new call
    CHECK_FALSE(d.feed(chunk(R"([{"index":1,"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{"}}]}}])"), ev));
    CHECK_FALSE(d.feed(chunk(R"([{"index":1,"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}])"), ev));
    CHECK_FALSE(d.feed(chunk(R"([{"index":1,"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":"[]"}}]},"finish_reason":"tool_calls"}])"), ev));
    CHECK_FALSE(d.feed(" [DONE] ", ev));
    CHECK(d.done());
    const auto& r = d.reply();
    REQUIRE(r.choices.size() == 2);
    CHECK(std::holds_alternative<std::monostate>(r.choices[0].message.content));  // only "" came: null, as the SDK
    REQUIRE(r.choices[0].message.function_call);
    CHECK(r.choices[0].message.function_call->name == "lookup");
    CHECK(r.choices[0].message.function_call->arguments == R"({"q":1})");
    CHECK(r.choices[0].finish == finish_reason::function_call);
    const auto& calls = r.choices[1].message.tool_calls;
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].id == "a");
    CHECK(calls[0].function.arguments == "{}");
    CHECK(calls[1].id == "b");
    CHECK(calls[1].function.name == "g");
    const auto j = openai::reply_to_json(r);
    CHECK(j.at("choices").at(0).at("message").at("function_call") == boost::json::parse(R"({"name":"lookup","arguments":"{\"q\":1}"})"));
    CHECK(j.at("choices").at(0).at("message").at("content").is_null());
    CHECK_FALSE(j.contains("usage"));
    std::size_t fn_events = 0;
    for (const auto& e : ev)
        if (e.type == stream_event::kind::function_call) ++fn_events;
    CHECK(fn_events == 3);
}

TEST_CASE("openai::stream_decoder: reasoning deltas of OpenAI-compatible servers") {
    // DeepSeek's reasoning model streams reasoning_content deltas before the content; the client
    // concatenates them (DeepSeek API docs, "Reasoning Model", streaming example)
    const std::string head = R"({"id":"c1","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","choices":[)";
    auto chunk = [&](std::string delta, std::string finish = "null") {
        return head + R"({"index":0,"delta":)" + delta + R"(,"logprobs":null,"finish_reason":)" + finish + "}]}";
    };
    const auto d = decode_all({chunk(R"({"role":"assistant","content":null,"reasoning_content":""})"),
                               chunk(R"({"content":null,"reasoning_content":"Six"})"),
                               chunk(R"({"content":null,"reasoning_content":" times seven."})"),
                               chunk(R"({"content":"42","reasoning_content":null})"), chunk("{}", R"("stop")"), "[DONE]"});
    REQUIRE(d.reply.choices.size() == 1);
    const message& m = d.reply.message();
    REQUIRE(m.reasoning.size() == 1);
    CHECK(m.reasoning[0].type == reasoning_part::kind::text);
    CHECK(m.reasoning[0].text == "Six times seven.");
    CHECK(m.text() == "42");
    REQUIRE(d.events.size() == 5);
    CHECK(d.events[0].type == stream_event::kind::reasoning);
    CHECK(d.events[0].text == "Six");
    CHECK(d.events[1].type == stream_event::kind::reasoning);
    CHECK(d.events[2].type == stream_event::kind::text);
    check_events_reproduce(d);
    // OpenRouter's `reasoning` text the same way
    const auto r = decode_all({chunk(R"({"role":"assistant","reasoning":"Hmm"})"), chunk(R"({"content":"ok"})", R"("stop")"), "[DONE]"});
    CHECK(r.reply.message().reasoning_text() == "Hmm");
    CHECK(boost::json::value(openai::reply_to_json(r.reply).at("choices").at(0).at("message").at("reasoning_content")) == "Hmm");
}

TEST_CASE("openai::stream_decoder: a lone surrogate left at the end becomes U+FFFD") {
    const std::string head = R"({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[)";
    const auto d = decode_all({head + R"({"index":0,"delta":{"role":"assistant","content":"x\ud83d"},"finish_reason":null}]})",
                               head + R"({"index":0,"delta":{},"finish_reason":"stop"}]})", "[DONE]"});
    CHECK(d.reply.text() == "x\xEF\xBF\xBD");
    // the event of the first half waits for a second half that never comes
    REQUIRE(d.events.size() >= 1);
    CHECK(d.events[0].type == stream_event::kind::text);
    CHECK(d.events[0].text == "x");
    // a lone low surrogate, and one in the middle of a text
    const auto m = decode_all({head + R"({"index":0,"delta":{"role":"assistant","content":"\ude00a\ud83db"},"finish_reason":"stop"}]})",
                               "[DONE]"});
    CHECK(m.reply.text() == "\xEF\xBF\xBD" "a\xEF\xBF\xBD" "b");
    CHECK(m.events[0].text == "\xEF\xBF\xBD" "a\xEF\xBF\xBD" "b");
}

TEST_CASE("openai::stream_decoder: an error object inside the stream") {
    http_headers h;
    h.add("x-request-id", "req_9");
    openai::stream_decoder d(h);
    std::vector<stream_event> ev;
    CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"role":"assistant","content":"Hel"}}])"), ev));
    CHECK(ev.size() == 1);
    const auto err = d.feed(
        R"({"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}})",
        ev);
    REQUIRE(err);
    CHECK(err->code == errc::api_error);
    CHECK(err->type == "server_error");
    CHECK(err->message == "The server had an error while processing your request. Sorry about that!");
    CHECK(err->param.empty());
    CHECK(err->api_code.empty());
    CHECK(err->status == 200);
    CHECK(err->headers.request_id() == "req_9");
    CHECK(ev.size() == 1);
    CHECK(d.failed());
    // failed for good: the next chunk gets the same error and yields nothing
    const auto again = d.feed(chunk(R"([{"index":0,"delta":{"content":"lo"}}])"), ev);
    REQUIRE(again);
    CHECK(again->message == err->message);
    CHECK(ev.size() == 1);
    CHECK(d.reply().text() == "Hel");
}

TEST_CASE("openai::stream_decoder: malformed chunks are protocol errors naming what was expected") {
    struct bad {
        std::string data;
        std::string message;
    };
    const bad cases[] = {
        {R"({"id":"x","choices":[{"index":0,"delta":{"content":"a"})",
         "expected a chat.completion.chunk as JSON, found text that does not parse"},
        {R"([1,2])", "chat.completion.chunk: expected an object, found an array"},
        {R"({"id":"x"})", "chat.completion.chunk: choices: expected an array, found nothing"},
        {R"({"id":"x","choices":{}})", "chat.completion.chunk: choices: expected an array, found an object"},
        {chunk(R"([{"index":0,"delta":{"content":5}}])"),
         "chat.completion.chunk: choices[0].delta.content: expected a string or null, found an integer (5)"},
        {chunk(R"([{"index":-1,"delta":{}}])"),
         "chat.completion.chunk: choices[0].index: expected a non-negative integer, found an integer (-1)"},
        {chunk(R"([{"index":0,"delta":{"tool_calls":[{"index":"0"}]}}])"),
         "chat.completion.chunk: choices[0].delta.tool_calls[0].index: expected a non-negative integer, found a string (\"0\")"},
        {chunk(R"([{"index":0,"delta":{"role":"user"}}])"),
         "chat.completion.chunk: choices[0].delta.role: expected \"assistant\", found a string (\"user\")"},
        {chunk(R"([{"index":0,"delta":{},"logprobs":{"content":{}}}])"),
         "chat.completion.chunk: choices[0].logprobs.content: expected an array or null, found an object"},
        {chunk("[]", R"(,"usage":[1])"), "chat.completion.chunk: usage: expected an object or null, found an array"},
        {"", ""},
    };
    for (const auto& c : cases) {
        if (c.data.empty()) continue;
        CAPTURE(c.data);
        openai::stream_decoder d;
        std::vector<stream_event> ev;
        const auto err = d.feed(c.data, ev);
        REQUIRE(err);
        CHECK(err->code == errc::protocol);
        CHECK(err->message.rfind(c.message, 0) == 0);
        CHECK(ev.empty());
        CHECK(d.failed());
    }
    SUBCASE("data after [DONE]") {
        openai::stream_decoder d;
        std::vector<stream_event> ev;
        CHECK_FALSE(d.feed("[DONE]", ev));
        const auto err = d.feed(chunk("[]"), ev);
        REQUIRE(err);
        CHECK(err->message.rfind("expected nothing after [DONE], found \"{", 0) == 0);
    }
    SUBCASE("blank data is skipped") {
        openai::stream_decoder d;
        std::vector<stream_event> ev;
        CHECK_FALSE(d.feed("  \r\n", ev));
        CHECK(ev.empty());
        CHECK_FALSE(d.done());
    }
}

TEST_CASE("openai::stream_decoder: limits") {
    std::vector<stream_event> ev;
    SUBCASE("choices") {
        reply_limits l;
        l.max_choices = 2;
        openai::stream_decoder d({}, 200, l);
        CHECK_FALSE(d.feed(chunk(R"([{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"a"}}])"), ev));
        CHECK(d.reply().choices.at(0).message.text() == "a");
        CHECK(d.reply().choices.at(1).message.text() == "b");
        const auto err = d.feed(chunk(R"([{"index":2,"delta":{"content":"c"}}])"), ev);
        REQUIRE(err);
        CHECK(err->code == errc::protocol);
        CHECK(err->message == "chat.completion.chunk: choices[0].index: expected a choice index below max_choices (2), found 2");
    }
    SUBCASE("tool calls") {
        reply_limits l;
        l.max_tool_calls = 1;
        openai::stream_decoder d({}, 200, l);
        const auto err = d.feed(chunk(R"([{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}},{"index":1,"id":"b","function":{"name":"g"}}]}}])"), ev);
        REQUIRE(err);
        CHECK(err->message ==
              "chat.completion.chunk: choices[0].delta.tool_calls[1].index: expected a tool call index below max_tool_calls (1), found 1");
    }
    SUBCASE("assembled bytes") {
        reply_limits l;
        l.max_assembled_bytes = 10;
        openai::stream_decoder d({}, 200, l);
        CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"content":"12345"}}])"), ev));
        CHECK_FALSE(d.feed(chunk(R"([{"index":0,"delta":{"content":"67890"}}])"), ev));
        const auto err = d.feed(chunk(R"([{"index":0,"delta":{"content":"x"}}])"), ev);
        REQUIRE(err);
        CHECK(err->message == "expected a streamed reply of at most max_assembled_bytes (10 bytes), found more");
        CHECK(ev.size() == 2);
    }
    SUBCASE("JSON depth") {
        reply_limits l;
        l.max_json_depth = 8;
        openai::stream_decoder d({}, 200, l);
        const auto err = d.feed(std::string(20, '[') + std::string(20, ']'), ev);
        REQUIRE(err);
        CHECK(err->message == "expected a chat.completion.chunk, found JSON nested deeper than max_json_depth (8)");
    }
}

TEST_CASE("openai::stream_decoder: cut and altered chunks give errors, never a crash") {
    const auto events = recording("parallel-tool-calls-with-usage.sse");
    std::size_t errors = 0, fed = 0;
    for (const auto& e : events) {
        if (e == "[DONE]") continue;
        for (std::size_t cut = 0; cut < e.size(); cut += 3) {
            for (const char replacement : {'\0', '"', '{', ']', '9'}) {
                std::string data = e.substr(0, cut);
                if (replacement != '\0') data = e.substr(0, cut) + replacement + e.substr(cut + 1);
                openai::stream_decoder d;
                std::vector<stream_event> ev;
                std::optional<call_error> err;
                CHECK_NOTHROW(err = d.feed(data, ev));
                ++fed;
                if (err) {
                    ++errors;
                    CHECK(err->code == errc::protocol);
                    CHECK(ev.empty());
                }
            }
        }
    }
    CHECK(fed > 1000);
    CHECK(errors > fed / 2);  // most alterations break the JSON or the shape
}
