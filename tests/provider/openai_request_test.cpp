// Tests of parley/provider/openai/request.hpp: the chat-completions body from rendered messages,
// parameters and function definitions.
#include <parley/provider/openai/request.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using namespace parley;

namespace {

std::vector<function_definition> weather() {
    return {{"get_weather", "Weather of a city.",
             boost::json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})")
                 .as_object()},
            {"ping", "", {}}};
}

}  // namespace

TEST_CASE("openai::encode_request: model, messages, parameters, tools and tool_choice") {
    request_params p;
    p.model = "gpt-4o-mini";
    p.temperature = 0.2;
    p.stop = std::vector<std::string>{"END"};
    p.functions = std::vector<std::string>{"get_weather", "ping"};
    p.call_function = "get_weather";
    message truncate_mark;
    truncate_mark.role = role::truncate;
    const std::vector<message> messages{make_message(role::system, "Be brief."), truncate_mark,
                                        make_message(role::user, "Oslo?")};
    const auto body = openai::encode_request(p, messages, weather());
    CHECK(boost::json::serialize(body) ==
          R"({"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Oslo?"}],)"
          R"("temperature":2E-1,"stop":["END"],"tools":[{"type":"function","function":{"name":"get_weather",)"
          R"("description":"Weather of a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},)"
          R"("required":["city"]}}},{"type":"function","function":{"name":"ping","parameters":{"type":"object",)"
          R"("properties":{}}}}],"tool_choice":{"type":"function","function":{"name":"get_weather"}}})");

    p.call_function = "*";
    CHECK(openai::encode_request(p, messages, weather()).at("tool_choice") == "auto");
    p.call_function = "";
    CHECK(openai::encode_request(p, messages, weather()).at("tool_choice") == "none");
    p.call_function.reset();
    CHECK_FALSE(openai::encode_request(p, messages, weather()).contains("tool_choice"));
}

TEST_CASE("openai::encode_request: errors") {
    request_params p;
    CHECK_THROWS_WITH_AS(openai::encode_request(p, {}, {}),
                         "the request has no model: set 'model' in a default-request or request message", parley::error);
    p.model = "m";
    p.functions = std::vector<std::string>{"nowhere"};
    CHECK_THROWS_WITH_AS(openai::encode_request(p, {}, weather()),
                         "function 'nowhere' is requested but has no definition", parley::error);
    p.functions.reset();
    p.call_function = "get_weather";
    CHECK_THROWS_WITH_AS(openai::encode_request(p, {}, weather()),
                         "'call_function' forces 'get_weather', but the request lists no functions", parley::error);
}

TEST_CASE("openai::encode_request: the fields of today's models, under the API's names and in its shapes") {
    chat_request r;
    r.params.model = "gpt-5";
    r.messages = {make_message(role::user, "Hi")};
    request_params& p = r.params;
    p.max_completion_tokens = 4096;
    p.logprobs = true;
    p.top_logprobs = 5;
    p.reasoning_effort = "minimal";
    p.verbosity = "low";
    p.prediction = "the old text";
    p.service_tier = "priority";
    p.store = false;
    p.metadata = std::vector<std::pair<std::string, std::string>>{{"team", "search"}, {"run", "7"}};
    p.user = "user-1";
    p.safety_identifier = "hash-of-user-1";
    p.prompt_cache_key = "tenant-42";
    p.prompt_cache_retention = "24h";
    CHECK(openai::encode_request_text(r, false) ==
          R"({"model":"gpt-5","messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":4096,"logprobs":true,)"
          R"("top_logprobs":5,"reasoning_effort":"minimal","verbosity":"low","prediction":{"type":"content",)"
          R"("content":"the old text"},"service_tier":"priority","store":false,"metadata":{"team":"search","run":"7"},)"
          R"("user":"user-1","safety_identifier":"hash-of-user-1","prompt_cache_key":"tenant-42","prompt_cache_retention":"24h"})");
    // max_tokens as max_completion_tokens for the reasoning models (encode_options)
    request_params old;
    old.model = "o3";
    old.max_tokens = 100;
    openai::encode_options o;
    o.max_completion_tokens = true;
    CHECK(boost::json::serialize(openai::encode_request(old, {make_message(role::user, "x")}, {}, o)) ==
          R"({"model":"o3","messages":[{"role":"user","content":"x"}],"max_completion_tokens":100})");
}

TEST_CASE("openai::encode_request: strict tools, \"+\" as tool_choice required, parallel_tool_calls") {
    chat_request r;
    r.params.model = "gpt-4o";
    r.messages = {make_message(role::user, "Oslo?")};
    r.functions = weather();
    r.functions[0].strict = true;
    r.functions[0].parameters["additionalProperties"] = false;
    r.functions[1].strict = true;
    r.params.functions = std::vector<std::string>{"get_weather", "ping"};
    r.params.call_function = "+";
    r.params.parallel_tool_calls = false;
    CHECK(openai::encode_request_text(r, false) ==
          R"({"model":"gpt-4o","messages":[{"role":"user","content":"Oslo?"}],"tools":[{"type":"function","function":)"
          R"({"name":"get_weather","description":"Weather of a city.","parameters":{"type":"object","properties":)"
          R"({"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true}},)"
          R"({"type":"function","function":{"name":"ping","parameters":{"type":"object","properties":{},"required":[],)"
          R"("additionalProperties":false},"strict":true}}],"tool_choice":"required","parallel_tool_calls":false})");
    // without functions there is nothing to call in parallel
    r.params.functions.reset();
    r.params.call_function.reset();
    CHECK(openai::encode_request_text(r, false) == R"({"model":"gpt-4o","messages":[{"role":"user","content":"Oslo?"}]})");
    r.params.call_function = "+";
    CHECK_THROWS_WITH_AS(openai::encode_request_text(r, false),
                         "'call_function' '+' makes the model call a function, but the request lists no functions", parley::error);
    r.params.functions = std::vector<std::string>{"get_weather"};
    openai::encode_options legacy;
    legacy.legacy_functions = true;
    CHECK_THROWS_WITH_AS(openai::encode_request_text(r, false, legacy),
                         "'call_function' \"+\" (the model calls one of the functions) has no legacy form: turn "
                         "legacy_functions off",
                         parley::error);
}

TEST_CASE("openai::encode_request: refusals and reasoning of assistant messages, extra merged last") {
    chat_request r;
    r.params.model = "deepseek-reasoner";
    message refused;
    refused.role = role::assistant;
    refused.refusal = "I can't.";
    message thought = make_message(role::assistant, "42");
    thought.reasoning = {{reasoning_part::kind::text, "Six times seven.", {}, {}, {}, {}}};
    r.messages = {make_message(role::user, "x"), refused, thought};
    CHECK(openai::encode_request_text(r, false) ==
          R"({"model":"deepseek-reasoner","messages":[{"role":"user","content":"x"},{"role":"assistant","content":null,)"
          R"("refusal":"I can't."},{"role":"assistant","content":"42"}]})");
    openai::encode_options send;
    send.send_reasoning = true;
    CHECK(boost::json::value(openai::encode_request(r, false, send).at("messages").at(2)) ==
          boost::json::parse(R"({"role":"assistant","content":"42","reasoning_content":"Six times seven."})"));
    r.params.temperature = 0.5;
    r.params.extra = boost::json::parse(R"({"top_k": 40, "temperature": 0.25, "chat_template_kwargs": {"thinking": true}})").as_object();
    CHECK(openai::encode_request_text(r, true) ==
          R"({"model":"deepseek-reasoner","messages":[{"role":"user","content":"x"},{"role":"assistant","content":null,)"
          R"("refusal":"I can't."},{"role":"assistant","content":"42"}],"temperature":2.5E-1,"stream":true,)"
          R"("stream_options":{"include_usage":true},"top_k":40,"chat_template_kwargs":{"thinking":true}})");
    r.params.extra = boost::json::object{{"stream", false}};
    CHECK_THROWS_WITH_AS(openai::encode_request_text(r, true),
                         "'extra' may not set 'model', 'messages', 'input', 'stream' or 'tools' (parley builds them from "
                         "the request), found 'stream'",
                         parley::error);
}

TEST_CASE("openai::encode_request: fields the chat completions API does not have are refused, by name") {
    auto refused = [](auto set) {
        chat_request r;
        r.params.model = "m";
        set(r.params);
        try {
            openai::encode_request_text(r, false);
        } catch (const parley::error& e) {
            CHECK(e.code() == make_error_code(errc::chat_invalid));
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(refused([](request_params& p) { p.top_k = 40; }) ==
          "'top_k' is not supported by the OpenAI chat completions API (send it in 'extra' to a compatible server that "
          "takes it)");
    CHECK(refused([](request_params& p) { p.thinking = thinking_config{"enabled", 2048, {}}; }) ==
          "'thinking' is not supported by the OpenAI chat completions API (send it in 'extra' to a compatible server "
          "that takes it)");
    CHECK(refused([](request_params& p) { p.cache_control = prompt_cache_control{}; }).rfind("'cache_control' is not", 0) == 0);
    CHECK(refused([](request_params& p) { p.reasoning_summary = "auto"; }).rfind("'reasoning_summary' is not", 0) == 0);
    CHECK(refused([](request_params& p) { p.truncation = "auto"; }).rfind("'truncation' is not", 0) == 0);
    CHECK(refused([](request_params& p) { p.service_tier = "standard_only"; }) ==
          "'service_tier' is \"standard_only\", but the OpenAI chat completions API takes \"auto\", \"default\", "
          "\"flex\", \"scale\" or \"priority\"");
    CHECK(refused([](request_params& p) {
              p.max_tokens = 10;
              p.max_completion_tokens = 20;
          }) == "set 'max_tokens' or 'max_completion_tokens', not both (they are the same limit)");
    CHECK(refused([](request_params& p) { p.top_logprobs = 3; }) == "'top_logprobs' needs 'logprobs': true");
}

TEST_CASE("openai::encode_request: a chat_request, streamed, with content parts and a strict response format") {
    chat_request r;
    r.params.model = "gpt-4o";
    r.params.max_tokens = 100;
    r.params.n = 3;
    r.params.seed = 7;
    r.params.response_format = boost::json::parse(
        R"({"type":"json_schema","json_schema":{"name":"weather","strict":true,"schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}})")
                                   .as_object();
    message user;
    user.role = role::user;
    user.content = std::vector<content_part>{content_part::make_text("What is in this image?"),
                                             content_part::make_image("https://example.com/a.png", "low")};
    r.messages = {make_message(role::system, "Be brief."), user};

    const auto body = openai::encode_request(r, true);
    // the shapes of the API reference: a user message with text and image_url parts,
    // `stream_options.include_usage` with `stream`
    CHECK(body == boost::json::parse(R"({"model":"gpt-4o","messages":[{"role":"system","content":"Be brief."},)"
                                     R"({"role":"user","content":[{"type":"text","text":"What is in this image?"},)"
                                     R"({"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}}]}],)"
                                     R"("max_tokens":100,"seed":7,"n":3,"response_format":{"type":"json_schema","json_schema":)"
                                     R"({"name":"weather","strict":true,"schema":{"type":"object","properties":{"city":)"
                                     R"({"type":"string"}},"required":["city"],"additionalProperties":false}}},)"
                                     R"("stream":true,"stream_options":{"include_usage":true}})"));
    const auto plain = openai::encode_request(r, false);
    CHECK_FALSE(plain.contains("stream"));
    CHECK_FALSE(plain.contains("stream_options"));

    openai::encode_options o;
    o.max_completion_tokens = true;
    o.stream_usage = false;
    const auto newer = openai::encode_request(r, true, o);
    CHECK_FALSE(newer.contains("max_tokens"));
    CHECK(newer.at("max_completion_tokens") == 100);
    CHECK(newer.at("stream") == true);
    CHECK_FALSE(newer.contains("stream_options"));

    r.params.response_format = boost::json::object{{"type", "json_object"}};
    CHECK(openai::encode_request(r, false).at("response_format") == boost::json::parse(R"({"type":"json_object"})"));
}

TEST_CASE("openai::encode_request: legacy functions and function_call") {
    chat_request r;
    r.params.model = "m";
    r.params.functions = std::vector<std::string>{"get_weather", "ping"};
    r.params.call_function = "get_weather";
    r.functions = weather();
    r.messages = {make_message(role::user, "Oslo?")};
    openai::encode_options o;
    o.legacy_functions = true;
    const auto body = openai::encode_request(r, false, o);
    CHECK_FALSE(body.contains("tools"));
    CHECK_FALSE(body.contains("tool_choice"));
    CHECK(body.at("functions") ==
          boost::json::parse(R"([{"name":"get_weather","description":"Weather of a city.","parameters":{"type":"object",)"
                             R"("properties":{"city":{"type":"string"}},"required":["city"]}},)"
                             R"({"name":"ping","parameters":{"type":"object","properties":{}}}])"));
    CHECK(body.at("function_call") == boost::json::parse(R"({"name":"get_weather"})"));
    r.params.call_function = "*";
    CHECK(openai::encode_request(r, false, o).at("function_call") == "auto");
    r.params.call_function = "";
    CHECK(openai::encode_request(r, false, o).at("function_call") == "none");
    // the tool form for the same request
    CHECK(openai::encode_request(r, false).at("tool_choice") == "none");
    CHECK(openai::encode_request(r, false).at("tools").as_array().size() == 2);
}

TEST_CASE("openai::encode_request: an assistant tool call and its result go back as the API wants them") {
    chat_request r;
    r.params.model = "m";
    message call;
    call.role = role::assistant;
    call.tool_calls = {tool_call{"call_1", {"get_weather", R"({"city":"Oslo"})"}}};
    message result = make_message(role::tool, R"({"temp":3})");
    result.tool_call_id = "call_1";
    r.messages = {make_message(role::user, "Oslo?"), call, result};
    CHECK(openai::encode_request(r, false).at("messages") ==
          boost::json::parse(R"([{"role":"user","content":"Oslo?"},{"role":"assistant","content":null,"tool_calls":)"
                             R"([{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},)"
                             R"({"role":"tool","content":"{\"temp\":3}","tool_call_id":"call_1"}])"));
}

namespace {

// Random requests for the comparison of encode_request_text with the serialised JSON tree.
struct text_case_maker {
    std::uint64_t state = 0x9E3779B97F4A7C15ull;

    std::uint64_t next() {  // xorshift64*: the same cases on every platform
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 0x2545F4914F6CDD1Dull;
    }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
    bool chance(std::size_t percent) { return below(100) < percent; }

    std::string text() {
        static const std::vector<std::string> pool = [] {
            std::vector<std::string> p{"",
                                       "Hello",
                                       "Say hello in one short sentence.",
                                       "quote \" and backslash \\ and slash /",
                                       "tab\there, new\nline, return\r, feed\f, back\b",
                                       std::string("nul \0 inside", 12),
                                       "\x7f delete, \x1b escape, \x1f unit separator",
                                       "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9d\x84\x9e \xe4\xb8\xad\xe6\x96\x87",
                                       "invalid UTF-8: \xff\xfe \xc3 \xed\xa0\x80 end",
                                       "</script><!-- {\"json\": [1, 2]} -->",
                                       "\\u0041 is not unescaped",
                                       std::string(300, 'x') + "\"" + std::string(200, '\n')};
            std::string every;
            for (int c = 0; c < 256; ++c) every.push_back(static_cast<char>(c));
            p.push_back(every);
            return p;
        }();
        std::string s = pool[below(pool.size())];
        if (chance(20)) s += pool[below(pool.size())];
        return s;
    }

    double number() {
        static const double pool[] = {0.0, -0.0, 0.2, 1.0, 2.0, 0.7, 1e-7, 123456.789, -1.5, 1e300, 0.1 + 0.2, 5e-324};
        return pool[below(std::size(pool))];
    }

    std::int64_t integer() {
        static const std::int64_t pool[] = {0, 1, 7, 100, 4096, -1, -42, INT64_MAX, INT64_MIN, 1000000007};
        return pool[below(std::size(pool))];
    }

    boost::json::object schema() {
        boost::json::object o{{"type", "object"}};
        boost::json::object props;
        const std::size_t n = below(4);
        for (std::size_t i = 0; i < n; ++i)
            props[text()] = boost::json::object{{"type", chance(50) ? "string" : "number"}, {"description", text()}};
        o["properties"] = std::move(props);
        if (chance(50)) o["required"] = boost::json::array{"city", text()};
        if (chance(30)) o["minimum"] = number();
        if (chance(30)) o["maxItems"] = integer();
        if (chance(20)) o["additionalProperties"] = false;
        return o;
    }

    request_params params(bool top_level, const std::vector<std::string>& names) {
        request_params p;
        if (top_level ? !chance(3) : chance(50)) p.model = chance(80) ? std::string("gpt-4o-mini") : text();
        if (chance(30)) p.max_tokens = integer();
        if (chance(30)) p.temperature = number();
        if (chance(20)) p.top_p = number();
        if (chance(20)) {
            if (chance(50)) p.stop = text();
            else p.stop = std::vector<std::string>{text(), text()};
        }
        if (chance(15)) p.presence_penalty = number();
        if (chance(15)) p.frequency_penalty = number();
        if (chance(15)) {
            std::vector<std::pair<std::string, std::int64_t>> bias{{"50256", -100}, {text(), integer()}};
            if (chance(50)) bias.emplace_back("50256", 5);  // a token given twice
            p.logit_bias = std::move(bias);
        }
        if (chance(20)) p.seed = integer();
        if (chance(20)) p.n = integer();
        if (chance(25)) {
            if (chance(50)) p.response_format = boost::json::object{{"type", chance(50) ? "json_object" : "text"}};
            else
                p.response_format = boost::json::object{
                    {"type", "json_schema"},
                    {"json_schema", {{"name", text()}, {"strict", chance(50)}, {"schema", schema()}}}};
        }
        if (chance(40)) {
            std::vector<std::string> f;
            const std::size_t n = below(4);
            for (std::size_t i = 0; i < n && !names.empty(); ++i) f.push_back(names[below(names.size())]);
            if (chance(5)) f.push_back("undefined_function");
            p.functions = std::move(f);
        }
        if (chance(40)) {
            const std::size_t k = below(4);
            p.call_function = k == 0 ? std::string() : k == 1 ? std::string("*") : names.empty() ? text() : names[below(names.size())];
        }
        return p;
    }

    message msg(const std::vector<std::string>& names) {
        message m;
        m.role = all_roles[below(std::size(all_roles))];
        switch (below(4)) {
        case 0: break;
        case 1:
        case 2: m.content = text(); break;
        default: {
            std::vector<content_part> parts;
            const std::size_t n = below(4);
            for (std::size_t i = 0; i < n; ++i) {
                if (chance(50)) parts.push_back(content_part::make_text(text()));
                else
                    parts.push_back(content_part::make_image(
                        chance(50) ? std::string("data:image/png;base64,iVBORw0KGgo=") : text(),
                        chance(50) ? std::optional<std::string>(chance(50) ? "low" : text()) : std::nullopt));
            }
            m.content = std::move(parts);
        }
        }
        if (chance(20)) m.name = text();
        if (chance(15)) m.function_call = function_call{text(), text()};
        if (chance(20)) {
            const std::size_t n = 1 + below(3);
            for (std::size_t i = 0; i < n; ++i) m.tool_calls.push_back(tool_call{"call_" + text(), {text(), text()}});
        }
        if (chance(20)) m.tool_call_id = text();
        if (chance(15)) m.params = params(false, names);
        return m;
    }

    chat_request request() {
        chat_request r;
        const std::size_t defs = below(4);
        std::vector<std::string> names;
        for (std::size_t i = 0; i < defs; ++i) {
            function_definition d;
            d.name = chance(80) ? "fn_" + std::to_string(i) : text();
            if (chance(60)) d.description = text();
            if (chance(70)) d.parameters = schema();
            names.push_back(d.name);
            r.functions.push_back(std::move(d));
            if (chance(10)) {  // the same name twice: the last definition counts
                function_definition again = r.functions.back();
                again.description = "the second " + text();
                r.functions.push_back(std::move(again));
            }
        }
        r.params = params(true, names);
        const std::size_t n = below(6);
        for (std::size_t i = 0; i < n; ++i) r.messages.push_back(msg(names));
        return r;
    }
};

// What encoding gives: the body, or the message of what it threw.
struct text_outcome {
    std::string body;
    std::string thrown;
};

template <class Encode>
text_outcome text_outcome_of(Encode encode) {
    text_outcome o;
    try {
        o.body = encode();
    } catch (const parley::error& e) {
        o.thrown = e.what();
    }
    return o;
}

}  // namespace

TEST_CASE("openai::encode_request_text: byte for byte the serialised JSON tree, for 3,000 varied requests") {
    text_case_maker make;
    std::size_t bodies = 0, thrown = 0, streamed = 0, with_tools = 0, with_parts = 0;
    for (int i = 0; i < 3000; ++i) {
        const chat_request r = make.request();
        openai::encode_options o;
        o.legacy_functions = make.chance(30);
        o.max_completion_tokens = make.chance(30);
        o.stream_usage = make.chance(70);
        const bool stream = make.chance(40);
        const auto text = text_outcome_of([&] { return openai::encode_request_text(r, stream, o); });
        const auto tree = text_outcome_of([&] { return boost::json::serialize(openai::encode_request(r, stream, o)); });
        INFO("case " << i << ": " << tree.body << tree.thrown);
        REQUIRE(text.thrown == tree.thrown);
        REQUIRE(text.body == tree.body);
        if (tree.thrown.empty()) ++bodies;
        else ++thrown;
        streamed += stream && tree.thrown.empty();
        with_tools += tree.body.find("\"tools\":[{") != std::string::npos || tree.body.find("\"functions\":[{") != std::string::npos;
        with_parts += tree.body.find("\"content\":[{") != std::string::npos;
    }
    // the cases cover what they are meant to
    CHECK(bodies > 2000);
    CHECK(thrown > 50);
    CHECK(streamed > 500);
    CHECK(with_tools > 200);
    CHECK(with_parts > 200);
}

TEST_CASE("openai::encode_request_text: every byte escaped as Boost.JSON escapes it") {
    chat_request r;
    r.params.model = "m";
    std::string every;
    for (int c = 0; c < 256; ++c) every.push_back(static_cast<char>(c));
    r.messages = {make_message(role::user, every)};
    const std::string body = openai::encode_request_text(r, false);
    CHECK(body == boost::json::serialize(openai::encode_request(r, false)));
    CHECK(body.find(R"(\u0000\u0001)") != std::string::npos);
    CHECK(body.find(R"(\b\t\n\u000b\f\r\u000e)") != std::string::npos);
    CHECK(body.find(R"(\u001f !\"#)") != std::string::npos);
    CHECK(body.find(R"([\\])") != std::string::npos);
    CHECK(body.find("~\x7f\x80") != std::string::npos);
}
