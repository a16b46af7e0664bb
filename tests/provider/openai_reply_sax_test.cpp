// Tests of parley/provider/openai/reply_sax.hpp: decode_reply's fast path (no DOM) against its
// DOM path (detail::decode_reply_dom), member by member, on every chat.completion body the other
// provider tests and the recorded fixtures use, on edge bodies written here, and on bodies
// generated at random; where the fast path gives up, decode_reply must give the DOM path's
// result or error exactly.
#include <parley/provider/openai/reply_sax.hpp>

#include <parley/provider/openai/reply.hpp>

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace parley;

namespace {

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot open " << p.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::filesystem::path source_dir() { return std::filesystem::path(PARLEY_TEST_SOURCE_DIR); }

http_headers some_headers() {
    http_headers h;
    h.add("x-request-id", "req_sax");
    h.add("openai-processing-ms", "12");
    return h;
}

void check_same_reply(const chat_reply& a, const chat_reply& b) {
    CHECK(a.id == b.id);
    CHECK(a.model == b.model);
    CHECK(a.system_fingerprint == b.system_fingerprint);
    CHECK(a.created == b.created);
    CHECK(a.status == b.status);
    CHECK(a.headers == b.headers);
    REQUIRE(a.choices.size() == b.choices.size());
    for (std::size_t i = 0; i < a.choices.size(); ++i) {
        CAPTURE(i);
        const auto& x = a.choices[i];
        const auto& y = b.choices[i];
        CHECK(x.index == y.index);
        CHECK(x.message.role == y.message.role);
        CHECK(x.message.content == y.message.content);
        CHECK(x.message.name == y.message.name);
        CHECK(x.message.function_call == y.message.function_call);
        REQUIRE(x.message.tool_calls.size() == y.message.tool_calls.size());
        for (std::size_t k = 0; k < x.message.tool_calls.size(); ++k) {
            CHECK(x.message.tool_calls[k].id == y.message.tool_calls[k].id);
            CHECK(x.message.tool_calls[k].function.name == y.message.tool_calls[k].function.name);
            CHECK(x.message.tool_calls[k].function.arguments == y.message.tool_calls[k].function.arguments);
        }
        CHECK(x.message.tool_call_id == y.message.tool_call_id);
        CHECK(x.message == y.message);
        CHECK(x.message.refusal == y.message.refusal);
        CHECK(x.finish == y.finish);
        CHECK(x.finish_text == y.finish_text);
        CHECK(x.logprobs == y.logprobs);
        // the same members in the same order
        CHECK(boost::json::serialize(x.logprobs) == boost::json::serialize(y.logprobs));
    }
    REQUIRE(a.usage.has_value() == b.usage.has_value());
    if (a.usage) {
        CHECK(a.usage->prompt_tokens == b.usage->prompt_tokens);
        CHECK(a.usage->completion_tokens == b.usage->completion_tokens);
        CHECK(a.usage->total_tokens == b.usage->total_tokens);
        CHECK(a.usage->details == b.usage->details);
        CHECK(boost::json::serialize(a.usage->details) == boost::json::serialize(b.usage->details));
    }
    CHECK(a == b);
}

void check_same_error(const call_error& a, const call_error& b) {
    CHECK(a.code == b.code);
    CHECK(a.status == b.status);
    CHECK(a.type == b.type);
    CHECK(a.message == b.message);
    CHECK(a.param == b.param);
    CHECK(a.api_code == b.api_code);
    CHECK(a.headers == b.headers);
    CHECK(a.attempts == b.attempts);
}

/// Decodes `body` by both paths and by decode_reply; checks that a reply of the fast path is the
/// DOM path's and that decode_reply gives the DOM path's reply or error. True when the fast path
/// took the body.
bool check_body(std::string_view body, const reply_limits& limits = {}) {
    CAPTURE(body);
    const auto dom = openai::detail::decode_reply_dom(200, some_headers(), body, limits);
    chat_reply fast;
    const bool took = openai::detail::decode_reply_sax(body, limits, fast);
    if (took) {
        REQUIRE_MESSAGE(dom.has_value(), "the fast path took a body the DOM path refuses: " << dom.error().what());
        fast.status = 200;
        fast.headers = some_headers();
        check_same_reply(fast, *dom);
    }
    const auto got = openai::decode_reply(200, some_headers(), body, limits);
    REQUIRE(got.has_value() == dom.has_value());
    if (got) check_same_reply(*got, *dom);
    else check_same_error(got.error(), dom.error());
    return took;
}

/// The raw string literals of a C++ source file (`R"(...)"`, `R"x(...)x"`).
std::vector<std::string> raw_literals(const std::string& source) {
    std::vector<std::string> out;
    for (std::size_t at = source.find("R\""); at != std::string::npos; at = source.find("R\"", at + 2)) {
        const std::size_t open = source.find('(', at + 2);
        if (open == std::string::npos || open - at - 2 > 16) continue;
        const std::string close = ")" + source.substr(at + 2, open - at - 2) + "\"";
        const std::size_t end = source.find(close, open + 1);
        if (end == std::string::npos) break;
        out.push_back(source.substr(open + 1, end - open - 1));
        at = end;
    }
    return out;
}

/// The data of each `data:` line of a text/event-stream body (the recordings have one per event).
std::vector<std::string> sse_data_lines(const std::string& body) {
    std::vector<std::string> out;
    std::istringstream in(body);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("data: ", 0) == 0 && line != "data: [DONE]") out.push_back(line.substr(6));
    return out;
}

std::vector<std::filesystem::path> files_under(const std::filesystem::path& dir, std::string_view extension) {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == extension) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

/// A chat.completion as the fake server (parley/testing/fake_server.hpp) writes it.
std::string fake_server_body(std::string_view message, std::string_view finish) {
    return R"({"id":"chatcmpl-fake","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"message":)" +
           std::string(message) + R"(,"logprobs":null,"finish_reason":")" + std::string(finish) +
           R"("}],"usage":{"prompt_tokens":12,"completion_tokens":9,"total_tokens":21},"system_fingerprint":"fp_fake"})";
}

/// A string of `n` characters with escapes everywhere (one in three characters), starting and
/// ending with one.
std::string escaped_run(std::size_t n) {
    static constexpr const char* escapes[] = {"\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "\\/", "\\t", "\\u0000"};
    std::string s = "\"";
    for (std::size_t i = 0; i < n; ++i) s += i % 3 == 0 ? std::string(escapes[(i / 3) % 8]) : std::string(1, static_cast<char>('a' + i % 26));
    return s + "\\u00e9\"";
}

}  // namespace

TEST_CASE("decode_reply_sax: the bodies of the other tests and of the fixtures") {
    std::size_t bodies = 0, taken = 0;
    // every raw literal of the reply and stream tests (chat.completion bodies, malformed ones,
    // chunks, and whatever else they hold: the DOM path's error must come out for those)
    for (const char* test : {"openai_reply_test.cpp", "openai_stream_test.cpp", "openai_common_test.cpp"})
        for (const auto& body : raw_literals(read_file(source_dir() / "tests" / "provider" / test))) {
            ++bodies;
            taken += check_body(body) ? 1 : 0;
        }
    // the chat.completion objects the official SDK assembled from the recordings, the Anthropic
    // bodies (not of this shape), every recorded chunk
    for (const auto& f : files_under(source_dir() / "tests" / "provider", ".json")) {
        CAPTURE(f.string());
        ++bodies;
        const bool took = check_body(read_file(f));
        if (f.parent_path().filename() == "openai-sse-assembled" || f.parent_path().filename() == "cases") CHECK(took);
        taken += took ? 1 : 0;
    }
    for (const auto& f : files_under(std::filesystem::path(PARLEY_TEST_SHARED_DIR) / "fixtures" / "openai-sse", ".sse"))
        for (const auto& data : sse_data_lines(read_file(f))) {
            ++bodies;
            taken += check_body(data) ? 1 : 0;  // only the chunks with `"choices": []` are taken
        }
    for (const auto& f : files_under(source_dir() / "tests" / "provider" / "openai-sse-assembled" / "cases", ".sse"))
        for (const auto& data : sse_data_lines(read_file(f))) {
            ++bodies;
            check_body(data);
        }
    // the bodies of the fake server the client tests talk to
    const std::string fake[] = {
        fake_server_body(R"({"role":"assistant","content":"Hello! How can I help you today, friend?","refusal":null})", "stop"),
        fake_server_body(R"({"role":"assistant","content":"Grüße aus Oslo, mit einer langen Antwort über das Wetter.","refusal":null})",
                         "stop"),
        fake_server_body(
            R"({"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{\"x\":1,\"y\":\"zzzzzzzzzzzzzzzzzzzzzzzzzzzz\"}"}},{"id":"c2","type":"function","function":{"name":"b","arguments":"{}"}}]})",
            "tool_calls"),
        fake_server_body(R"({"role":"assistant","content":null,"refusal":"I can't help with that."})", "stop"),
    };
    for (const auto& body : fake) {
        ++bodies;
        CHECK(check_body(body));
        ++taken;
    }
    MESSAGE(bodies << " bodies, " << taken << " taken by the fast path");
    CHECK(taken >= 20);
}

TEST_CASE("decode_reply_sax: edge bodies it takes") {
    const std::string long_escaped = escaped_run(20000);
    const std::string bodies[] = {
        R"({"choices":[]})",
        R"({"choices":[{"message":{}}]})",
        " \n\t{ \"choices\" : [ { \"message\" : { } } ] } \r\n",
        // unicode escapes and escaped strings, in values and in member names
        R"({"id":"\u0063hat\ud83d\ude00","model":"caf\u00e9","choices":[{"message":{"content":"a\"b\\c\/d\b\f\n\r\t\u0000\u001f\u2028 \ud83d\ude00\u00e9"}}]})",
        R"({"cho\u0069ces":[{"m\u0065ssage":{"cont\u0065nt":"x","\u0072efusal":"r"},"finish_\u0072eason":"st\u006fp"}],"\u0075sage":{"prompt_tokens":1}})",
        "{\"choices\":[{\"message\":{\"content\":" + long_escaped + ",\"tool_calls\":[{\"id\":" + escaped_run(7) +
            ",\"function\":{\"name\":" + escaped_run(300) + ",\"arguments\":" + long_escaped + "}}]}}]}",
        "{\"choices\":[{\"message\":{\"content\":\"" + std::string(100000, 'x') + "\",\"refusal\":\"\\u00e9" +
            std::string(5000, 'y') + "\\n\"}}]}",
        R"({"choices":[{"message":{"content":"Grüße, 日本語, 😀"}}]})",
        // nulls everywhere they mean "missing"
        R"({"id":null,"model":null,"system_fingerprint":null,"created":null,"usage":null,"error":null,"choices":[
            {"index":null,"logprobs":null,"finish_reason":null,"message":{"role":null,"content":null,"refusal":null,
             "function_call":null,"tool_calls":null}}]})",
        R"({"choices":[{"message":{"tool_calls":[{"id":null,"type":null,"function":{"name":null,"arguments":null}}]}}]})",
        // empty arrays, objects and strings
        R"({"id":"","model":"","system_fingerprint":"","choices":[{"message":{"content":"","refusal":"","tool_calls":[],"function_call":{}},"finish_reason":"","logprobs":{}}],"usage":{}})",
        // many choices out of order, with and without index
        R"({"choices":[{"index":5,"message":{"content":"5"}},{"index":3,"message":{"content":"3"}},{"message":{"content":"p2"}},
            {"index":7,"message":{"content":"7"}},{"index":0,"message":{"content":"0"}},{"index":1,"message":{"content":"1"}},
            {"index":4,"message":{"content":"4"}},{"index":6,"message":{"content":"6"}}]})",
        // tool calls and a legacy function call, with members parley does not read
        R"({"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}","extra":[1,{"a":null}]},"extra":{"x":[[]]}},
            {"id":"call_2","function":{"name":"get_time"}},
            {"type":"function","function":{"arguments":""}}],
            "function_call":{"name":"legacy","arguments":"{}","strict":true}},"finish_reason":"tool_calls"}]})",
        // log probabilities, with repeated keys inside (the last is kept, as a DOM keeps it)
        R"({"choices":[{"message":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.31725305,"bytes":[72,105],
            "top_logprobs":[{"token":"Hi","logprob":-0.3,"bytes":[72,105]},{"token":"Hello","logprob":-1.5e-3,"bytes":[]}]}],
            "refusal":null,"refusal":[],"x":{"y":1,"y":2,"z":{"\u00e9":true}}},"finish_reason":"stop"}]})",
        // usage with details, repeated keys inside details, counts written in other ways
        R"({"choices":[],"usage":{"prompt_tokens":1e3,"completion_tokens":2.0,"total_tokens":-0,
            "prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0,"cached_tokens":5},"completion_tokens_details":{"reasoning_tokens":1.5}}})",
        R"({"choices":[],"usage":{"prompt_tokens":-0.0,"completion_tokens":-5,"total_tokens":9007199254740993}})",
        R"({"choices":[],"usage":{"prompt_tokens":null,"completion_tokens":8999999999999999}})",
        // integer members written as other numbers
        R"({"created":1e3,"choices":[{"index":1.0,"message":{}},{"index":-0,"message":{}},{"index":2E0,"message":{}}]})",
        R"({"created":-0,"choices":[]})",
        R"({"created":-7,"choices":[]})",
        R"({"created":-0.0,"choices":[]})",
        R"({"created":9223372036854775807,"choices":[]})",
        R"({"created":8.9e15,"choices":[]})",
        // members parley does not read, with objects and arrays inside
        R"({"object":"chat.completion","service_tier":"default","extra":{"choices":"no","error":{"message":"no"},"a":[{"b":[[[]]]},1e400,-1]},
            "choices":[{"message":{"annotations":[{"type":"url_citation","url_citation":{"url":"https://x","title":"t"}}],
            "audio":{"id":"a","data":"AAAA","expires_at":1},"content":"a","reasoning":[true,false,null]},"extra":[{"message":1}],
            "content_filter_results":{"hate":{"filtered":false}}}],"prompt_filter_results":[{"prompt_index":0}],"x":true,"y":false})",
        R"({"choices":[{"message":{"content":"a"},"finish_reason":"length"},{"message":{"content":"b"},"finish_reason":"content_filter"},
            {"message":{"content":"c"},"finish_reason":"function_call"},{"message":{"content":"d"},"finish_reason":"abort"}]})",
        R"({"choices":[{"message":{"role":"assistant"}}],"error":null})",
    };
    for (const auto& body : bodies) CHECK(check_body(body));

    // limits that are reached but not passed
    reply_limits l;
    l.max_choices = 2;
    CHECK(check_body(R"({"choices":[{"index":1,"message":{}},{"index":0,"message":{}}]})", l));
    l = {};
    l.max_tool_calls = 2;
    CHECK(check_body(R"({"choices":[{"message":{"tool_calls":[{"function":{}},{"function":{}}]}}]})", l));
    l = {};
    l.max_json_depth = 4;
    CHECK(check_body(R"({"choices":[{"message":{}}]})", l));
}

TEST_CASE("decode_reply_sax: the reasoning of OpenAI-compatible servers, as the DOM path reads it") {
    const std::string head = R"({"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",)";
    const std::string tail = R"(},"finish_reason":"stop"}]})";
    // DeepSeek, vLLM and llama.cpp: reasoning_content
    CHECK(check_body(head + R"("content":"42","reasoning_content":"Six times seven.")" + tail));
    // OpenRouter and newer vLLM: reasoning
    CHECK(check_body(head + R"("content":"42","reasoning":"Six times seven.")" + tail));
    CHECK_FALSE(check_body(head + R"("content":"42","reasoning_content":null,"reasoning":null)" + tail));
    CHECK(check_body(head + R"("content":"42","reasoning_content":"")" + tail));
    // both: the DOM prefers reasoning_content (the fast path leaves it the body); a reasoning that
    // is not text is no reasoning text; a reasoning_content that is not text is an error
    CHECK_FALSE(check_body(head + R"("content":"42","reasoning":"b","reasoning_content":"a")" + tail));
    CHECK(check_body(head + R"("content":"42","reasoning":{"effort":"low"})" + tail));
    CHECK(check_body(head + R"("content":"42","reasoning":[1,{"a":[]}])" + tail));
    CHECK_FALSE(check_body(head + R"("content":"42","reasoning_content":7)" + tail));
    const auto both = openai::decode_reply(200, {}, head + R"("content":"42","reasoning":"b","reasoning_content":"a")" + tail);
    REQUIRE(both.has_value());
    CHECK(both->message().reasoning_text() == "a");
    const auto one = openai::decode_reply(200, {}, head + R"("content":"42","reasoning_content":"Six times seven.")" + tail);
    REQUIRE(one.has_value());
    REQUIRE(one->message().reasoning.size() == 1);
    CHECK(one->message().reasoning[0].type == reasoning_part::kind::text);
    CHECK(one->message().reasoning[0].text == "Six times seven.");
}

TEST_CASE("decode_reply_sax: bodies it leaves to the DOM path") {
    const std::string bodies[] = {
        // not JSON, or not one JSON object
        "", "not json", "{", "[]", "null", "\"x\"", "1", "true", R"({"choices":[]} x)", R"({"choices":[]}{})",
        R"({"choices":[],})", "{\"choices\":[{\"message\":{\"content\":\"a\x01\"}}]}", "{\"choices\":[{\"message\":{\"content\":\"\xff\"}}]}",
        R"({"choices":[{"message":{"content":"\ud83d"}}]})",
        // an error object
        R"({"error":{"message":"boom","type":"server_error"}})", R"({"choices":[],"error":"overloaded"})",
        R"({"choices":[],"error":false})", R"({"choices":[],"error":0})", R"({"choices":[],"error":[]})",
        // members given twice (the DOM keeps the last)
        R"({"id":"a","id":"b","choices":[]})", R"({"choices":[{"message":{}}],"choices":[]})",
        R"({"choices":[],"usage":{"prompt_tokens":1},"usage":{"prompt_tokens":2}})",
        R"({"created":"today","created":1,"choices":[]})", R"({"choices":[{"message":{"content":"a"},"message":{"content":"b"}}]})",
        R"({"choices":[{"message":{"content":"a","content":null}}]})", R"({"choices":[{"index":0,"index":1,"message":{}}]})",
        R"({"choices":[{"message":{"tool_calls":[{"id":"a","id":"b","function":{}}]}}]})",
        R"({"choices":[{"message":{"tool_calls":[{"function":{"name":"a","name":"b"}}]}}]})",
        R"({"choices":[{"message":{},"finish_reason":"stop","finish_reason":"length"}]})",
        R"({"choices":[{"message":{"role":"user","role":"assistant"}}]})",
        // members of the wrong kind, or missing
        R"({"id":"x"})", R"({"choices":null})", R"({"choices":{}})", R"({"choices":"x"})", R"({"choices":[1]})", R"({"choices":[[]]})",
        R"({"choices":[null]})", R"({"id":1,"choices":[]})", R"({"model":[],"choices":[]})", R"({"system_fingerprint":{},"choices":[]})",
        R"({"created":"today","choices":[]})", R"({"created":true,"choices":[]})", R"({"created":1.5,"choices":[]})",
        R"({"created":18446744073709551615,"choices":[]})", R"({"created":9e15,"choices":[]})", R"({"created":-1.0,"choices":[]})",
        R"({"choices":[{"index":0}]})", R"({"choices":[{"message":null}]})", R"({"choices":[{"message":"x"}]})",
        R"({"choices":[{"message":[]}]})", R"({"choices":[{"index":-1,"message":{}}]})", R"({"choices":[{"index":1.5,"message":{}}]})",
        R"({"choices":[{"index":"0","message":{}}]})", R"({"choices":[{"index":128,"message":{}}]})",
        R"({"choices":[{"message":{"content":["a"]}}]})", R"({"choices":[{"message":{"content":{"text":"a"}}}]})",
        R"({"choices":[{"message":{"content":1}}]})", R"({"choices":[{"message":{"refusal":false}}]})",
        R"({"choices":[{"message":{"role":"user"}}]})", R"({"choices":[{"message":{"role":1}}]})",
        R"({"choices":[{"message":{"function_call":"f"}}]})", R"({"choices":[{"message":{"function_call":[]}}]})",
        R"({"choices":[{"message":{"function_call":{"name":1}}}]})", R"({"choices":[{"message":{"tool_calls":{}}}]})",
        R"({"choices":[{"message":{"tool_calls":[1]}}]})", R"({"choices":[{"message":{"tool_calls":[{"id":"a"}]}}]})",
        R"({"choices":[{"message":{"tool_calls":[{"function":null}]}}]})", R"({"choices":[{"message":{"tool_calls":[{"function":"f"}]}}]})",
        R"({"choices":[{"message":{"tool_calls":[{"type":"custom","function":{}}]}}]})",
        R"({"choices":[{"message":{"tool_calls":[{"id":7,"function":{}}]}}]})",
        R"({"choices":[{"message":{"tool_calls":[{"function":{"arguments":{}}}]}}]})",
        R"({"choices":[{"message":{},"logprobs":[]}]})", R"({"choices":[{"message":{},"logprobs":"x"}]})",
        R"({"choices":[{"message":{},"finish_reason":1}]})", R"({"choices":[],"usage":[]})", R"({"choices":[],"usage":"x"})",
        R"({"choices":[],"usage":{"prompt_tokens":"1"}})", R"({"choices":[],"usage":{"prompt_tokens":1.5}})",
        R"({"choices":[],"usage":{"total_tokens":18446744073709551615}})",
        R"({"choices":[],"usage":{"prompt_tokens":1,"prompt_tokens":"x"}})",
        // a repeated choice index
        R"({"choices":[{"index":0,"message":{}},{"index":0,"message":{}}]})",
        R"({"choices":[{"index":1,"message":{}},{"message":{}}]})",
    };
    for (const auto& body : bodies) CHECK_FALSE(check_body(body));

    reply_limits l;
    l.max_choices = 2;
    CHECK_FALSE(check_body(R"({"choices":[{"message":{}},{"message":{}},{"message":{}}]})", l));
    CHECK_FALSE(check_body(R"({"choices":[{"index":2,"message":{}}]})", l));
    l = {};
    l.max_tool_calls = 1;
    CHECK_FALSE(check_body(R"({"choices":[{"message":{"tool_calls":[{"function":{}},{"function":{}}]}}]})", l));
    l = {};
    l.max_json_depth = 3;
    CHECK_FALSE(check_body(R"({"choices":[{"message":{}}]})", l));
    l.max_json_depth = 6;
    CHECK_FALSE(check_body(R"({"choices":[{"message":{}, "logprobs":{"a":[[{"b":[]}]]}}]})", l));
    CHECK_FALSE(check_body(R"({"choices":[],"x":[[[[[[]]]]]]})", l));
}

namespace {

/// Bodies of roughly the chat.completion shape, each member right, null, missing, of another
/// kind or given twice at random.
class body_generator {
public:
    explicit body_generator(unsigned seed) : rng_(seed) {}

    std::string body() {
        std::vector<std::string> members;
        add(members, "id", [&] { return text(); });
        add(members, "model", [&] { return text(); });
        add(members, "system_fingerprint", [&] { return text(); });
        add(members, "created", [&] { return integer(); });
        add(members, "object", [&] { return text(); });
        add(members, "choices", [&] { return choices(); }, 1);
        add(members, "usage", [&] { return usage(); });
        if (chance(3)) members.push_back(pair("error", [&] { return chance(50) ? std::string("null") : any(2); }));
        if (chance(30)) members.push_back(pair("service_tier", [&] { return any(3); }));
        std::shuffle(members.begin(), members.end(), rng_);
        return object(members);
    }

private:
    bool chance(int percent) { return static_cast<int>(rng_() % 100) < percent; }
    std::size_t below(std::size_t n) { return rng_() % n; }

    std::string object(const std::vector<std::string>& members) {
        std::string s = "{";
        for (std::size_t i = 0; i < members.size(); ++i) s += (i ? "," : "") + members[i];
        return s + "}";
    }

    /// The name, sometimes with a letter written as a \u escape.
    std::string key(std::string_view name) {
        std::string s(name);
        if (chance(10)) {
            const std::size_t at = below(s.size());
            static constexpr char hex[] = "0123456789abcdef";
            const auto c = static_cast<unsigned char>(s[at]);
            s.replace(at, 1, std::string("\\u00") + hex[c >> 4] + hex[c & 15]);
        }
        return "\"" + s + "\"";
    }

    /// `"name":value`, the name drawn before the value (the order of the draws fixes the body).
    template <class F>
    std::string pair(std::string_view name, F value) {
        std::string s = key(name);
        return s + ":" + value();
    }

    /// The member, with its right value (or null, or another value), missing, or twice.
    template <class F>
    void add(std::vector<std::string>& members, std::string_view name, F right, int missing_percent = 10) {
        if (chance(missing_percent)) return;
        const int times = chance(2) ? 2 : 1;
        for (int i = 0; i < times; ++i) {
            const int roll = static_cast<int>(below(100));
            members.push_back(pair(name, [&] { return roll < 90 ? right() : roll < 96 ? std::string("null") : any(2); }));
        }
    }

    std::string text() {
        static constexpr const char* texts[] = {"\"\"", "\"a\"", "\"Hello! How can I help you today?\"", "\"caf\\u00e9 \\ud83d\\ude00\"",
                                                "\"line\\nnext \\\"quoted\\\" \\\\ \\/\"", "\"Grüße\"", "\"\\u0000\""};
        if (chance(3)) return escaped_run(below(3000) + 1);
        return texts[below(std::size(texts))];
    }

    std::string integer() {
        static constexpr const char* numbers[] = {"0", "1", "1741570283", "-0", "-3", "1e3", "2.0", "-0.0", "9223372036854775807", "4"};
        static constexpr const char* wrong[] = {"1.5", "9e15", "18446744073709551615", "-1e0"};
        if (chance(5)) return wrong[below(std::size(wrong))];
        return numbers[below(std::size(numbers))];
    }

    std::string any(int depth) {
        switch (below(depth > 0 ? 9 : 7)) {
        case 0: return "null";
        case 1: return "true";
        case 2: return "false";
        case 3: return integer();
        case 4: return text();
        case 5: return "[]";
        case 6: return "{}";
        case 7: {
            std::string s = "[";
            for (std::size_t i = 0, n = below(4); i < n; ++i) s += (i ? "," : "") + any(depth - 1);
            return s + "]";
        }
        default: {
            std::vector<std::string> members;
            static constexpr const char* names[] = {"a", "b", "content", "message", "choices", "index", "a"};
            for (std::size_t i = 0, n = below(4); i < n; ++i) members.push_back(pair(names[below(std::size(names))], [&] { return any(depth - 1); }));
            return object(members);
        }
        }
    }

    std::string choices() {
        std::string s = "[";
        const std::size_t n = below(5);
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng_);
        for (std::size_t i = 0; i < n; ++i) {
            if (i) s += ",";
            if (chance(1)) {
                s += any(1);
                continue;
            }
            std::vector<std::string> members;
            add(members, "index", [&] { return std::to_string(order[i]); }, 5);
            add(members, "message", [&] { return message(); }, 3);
            add(members, "logprobs", [&] { return chance(50) ? std::string("null") : "{\"content\":[" + any(3) + "]}"; });
            add(members, "finish_reason", [&] {
                static constexpr const char* words[] = {"\"stop\"", "\"length\"", "\"tool_calls\"", "\"function_call\"",
                                                        "\"content_filter\"", "\"\"", "\"abort\""};
                return std::string(words[below(std::size(words))]);
            });
            if (chance(20)) members.push_back(pair("content_filter_results", [&] { return any(3); }));
            std::shuffle(members.begin(), members.end(), rng_);
            s += object(members);
        }
        return s + "]";
    }

    std::string message() {
        std::vector<std::string> members;
        add(members, "role", [&] { return std::string(chance(98) ? "\"assistant\"" : "\"user\""); });
        add(members, "content", [&] { return text(); });
        add(members, "refusal", [&] { return chance(70) ? std::string("null") : text(); });
        add(members, "function_call", [&] { return function(); }, 80);
        add(members, "tool_calls", [&] {
            std::string s = "[";
            for (std::size_t i = 0, n = below(4); i < n; ++i) {
                std::vector<std::string> call;
                add(call, "id", [&] { return "\"call_" + std::to_string(i) + "\""; });
                add(call, "type", [&] { return std::string(chance(98) ? "\"function\"" : "\"custom\""); });
                add(call, "function", [&] { return function(); }, 3);
                if (chance(10)) call.push_back(pair("extra", [&] { return any(2); }));
                std::shuffle(call.begin(), call.end(), rng_);
                s += (i ? "," : "") + object(call);
            }
            return s + "]";
        }, 40);
        if (chance(20)) members.push_back(pair("annotations", [&] { return any(3); }));
        std::shuffle(members.begin(), members.end(), rng_);
        return object(members);
    }

    std::string function() {
        std::vector<std::string> members;
        add(members, "name", [&] { return text(); });
        add(members, "arguments", [&] { return chance(50) ? std::string("\"{\\\"q\\\":1}\"") : text(); });
        std::shuffle(members.begin(), members.end(), rng_);
        return object(members);
    }

    std::string usage() {
        std::vector<std::string> members;
        add(members, "prompt_tokens", [&] { return integer(); });
        add(members, "completion_tokens", [&] { return integer(); });
        add(members, "total_tokens", [&] { return integer(); });
        if (chance(50)) members.push_back(pair("prompt_tokens_details", [&] { return any(2); }));
        std::shuffle(members.begin(), members.end(), rng_);
        return object(members);
    }

    std::mt19937 rng_;
};

}  // namespace

TEST_CASE("decode_reply_sax: bodies generated at random give the DOM path's reply or error") {
    body_generator gen(20261121);
    std::size_t taken = 0;
    constexpr std::size_t count = 3000;
    for (std::size_t i = 0; i < count; ++i) {
        const std::string body = gen.body();
        reply_limits limits;
        if (i % 10 == 0) {
            limits.max_choices = 3;
            limits.max_tool_calls = 2;
            limits.max_json_depth = 6;
        }
        taken += check_body(body, limits) ? 1 : 0;
    }
    MESSAGE(taken << " of " << count << " generated bodies taken by the fast path");
    CHECK(taken >= count / 10);  // enough bodies well formed for the comparison to mean something
    CHECK(taken < count);
}
