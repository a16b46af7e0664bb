// Tests of parley/chat/rules.hpp across the four ways messages are made: for every rule, the same
// bad message read from YAML (the error's text and its line:column), read as a JSON history (the
// error's text and its JSON pointer), made in C++ (validate, check's pointer, the constructor of
// conversation_template) and written with the builders (at run time: the exception; constexpr: a
// compile error that names the rule, all cases in one translation unit) gives the same sentence;
// good messages are accepted by all four and read as equal messages. Then reply_for_history:
// what models send, kept in histories that read back.
#include <parley/chat/rules.hpp>

#include <parley/chat/builder.hpp>
#include <parley/chat/conversation_template.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/yaml.hpp>

#include "../harness/compile_fail.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace rules_test {

using parley::message;
using parley::role;

// A template of two messages, as JSON text (which is also YAML: JSON is its flow style): a user
// message, then `bad` on a line of its own. The bad message is message 1 everywhere.
const std::string head = "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  ";
std::string two(const std::string& bad) { return head + bad + "\n]\n"; }

// "line:col" (1-based) of the first occurrence of `at` in `bad`, within two(bad); the start of
// `bad` when `at` is empty. `at` must occur once.
std::string position_in(const std::string& bad, const std::string& at) {
    const std::size_t k = at.empty() ? 0 : bad.find(at);
    REQUIRE(k != std::string::npos);
    if (!at.empty()) REQUIRE_MESSAGE(bad.find(at, k + 1) == std::string::npos, "'" << at << "' occurs twice in " << bad);
    const std::string before = head + bad.substr(0, k);
    const std::size_t line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
    const std::size_t column = before.size() - (before.rfind('\n') + 1) + 1;
    return std::to_string(line) + ":" + std::to_string(column);
}

// "line:col: message" of the error loading `yaml` as a template gives, or "no error".
std::string yaml_error(const std::string& yaml) {
    try {
        parley::load_template(yaml, "t", "t.yaml");
    } catch (const parley::located_error& e) {
        CHECK(e.code() == parley::errc::chat_invalid);
        CHECK(e.where().name == "t.yaml");
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
    }
    return "no error";
}

// The error reading `json` as a history gives ("POINTER: message"), or "no error".
std::string json_error(const std::string& json) {
    try {
        parley::conversation_from_json(boost::json::parse(json));
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::chat_invalid);
        return e.what();
    }
    return "no error";
}

// The error `make` throws (parley::error, errc::chat_invalid), or "no error".
template <class F>
std::string error_of(F make) {
    try {
        make();
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::chat_invalid);
        return e.what();
    }
    return "no error";
}

message with(role r) {
    message m;
    m.role = r;
    return m;
}
message text(role r, std::string content) { return parley::make_message(r, std::move(content)); }

// One broken rule, written in each of the four ways.
struct rule_case {
    const char* name;
    std::string bad;  // the message as JSON (and as YAML)
    std::string at;  // where the YAML loader points: the first occurrence of this text in `bad`; "" for its start
    std::string pointer;  // where in the message, as a JSON pointer
    std::string sentence;  // the error's sentence, the same everywhere
    message (*cpp)() = nullptr;  // the message made in C++; null when the struct cannot hold it
    void (*builder)() = nullptr;  // the builder made at run time; null when it cannot be written
    std::string builder_code;  // the builder for the compile-fail test ("": none)
    std::string compiler_says;  // what the compiler's diagnostics about it contain
};

// The builder of the template (a user message, then the bad one), made at run time and as text.
#define RULES_BUILDER(...)                                                                                       \
    [] { (void)parley::conversation(parley::metadata{.name = "t"}, parley::user{"hi"}, __VA_ARGS__); },       \
        "parley::conversation(parley::metadata{.name = \"t\"}, parley::user{\"hi\"}, " #__VA_ARGS__ ")"
// A builder that cannot be written: the key is not a member of the role's builder.
#define RULES_NO_MEMBER(...) nullptr, "parley::conversation(" #__VA_ARGS__ ")"

const std::string content_needed = " needs 'content' (only a user message may leave it out)";
const std::string needs_content_fn = "error_a_system_function_or_tool_message_needs_content";

std::vector<rule_case> cases() {
    return {
        // what a role needs
        {"system_without_content", R"({"role": "system"})", "", "", "a system message" + content_needed,
         [] { return with(role::system); }, RULES_BUILDER(parley::system{}), needs_content_fn},
        {"system_with_null_content", R"({"role": "system", "content": null})", "", "", "a system message" + content_needed,
         [] { return with(role::system); }, nullptr, "", ""},
        {"function_without_content", R"({"role": "function", "name": "f"})", "", "", "a function message" + content_needed,
         [] {
             message m = with(role::function);
             m.name = "f";
             return m;
         },
         RULES_BUILDER(parley::function{"f"}), needs_content_fn},
        {"tool_without_content", R"({"role": "tool", "tool_call_id": "c1"})", "", "", "a tool message" + content_needed,
         [] {
             message m = with(role::tool);
             m.tool_call_id = "c1";
             return m;
         },
         RULES_BUILDER(parley::tool{"c1"}), needs_content_fn},
        {"assistant_without_content_or_call", R"({"role": "assistant"})", "", "",
         "an assistant message needs 'content' unless it has 'tool_calls', a 'function_call' or a 'refusal'",
         [] { return with(role::assistant); }, RULES_BUILDER(parley::assistant{}),
         "error_an_assistant_message_needs_content_or_a_call"},
        {"assistant_with_no_tool_calls", R"({"role": "assistant", "content": null, "tool_calls": []})", "", "",
         "an assistant message needs 'content' unless it has 'tool_calls', a 'function_call' or a 'refusal'",
         [] { return with(role::assistant); }, RULES_BUILDER(parley::assistant{.tool_calls = parley::empty_list}),
         "error_an_assistant_message_needs_content_or_a_call"},
        {"function_without_name", R"({"role": "function", "content": "42"})", "", "",
         "a function message needs a 'name' (the function's name)", [] { return text(role::function, "42"); },
         RULES_BUILDER(parley::function{.content = "42"}), "error_a_function_message_needs_a_name"},
        {"function_with_empty_name", R"({"role": "function", "name": "", "content": "42"})", R"("")", "/name",
         "'name' cannot be empty",
         [] {
             message m = text(role::function, "42");
             m.name = "";
             return m;
         },
         RULES_BUILDER(parley::function{"", "42"}), "error_a_name_cannot_be_empty"},
        {"user_with_empty_name", R"({"role": "user", "name": "", "content": "hi"})", R"("")", "/name",
         "'name' cannot be empty",
         [] {
             message m = text(role::user, "hi");
             m.name = "";
             return m;
         },
         RULES_BUILDER(parley::user{.content = "hi", .name = ""}), "error_a_name_cannot_be_empty"},
        {"assistant_with_empty_name", R"({"role": "assistant", "content": "ok", "name": ""})", R"("")", "/name",
         "'name' cannot be empty",
         [] {
             message m = text(role::assistant, "ok");
             m.name = "";
             return m;
         },
         RULES_BUILDER(parley::assistant{.content = "ok", .name = ""}), "error_a_name_cannot_be_empty"},
        {"tool_without_id", R"({"role": "tool", "content": "18"})", "", "",
         "a tool message needs a 'tool_call_id' (the id of the call it answers)", [] { return text(role::tool, "18"); },
         RULES_BUILDER(parley::tool{.content = "18"}), "error_a_tool_message_needs_a_tool_call_id"},
        {"tool_with_empty_id", R"({"role": "tool", "tool_call_id": "", "content": "18"})", R"("")", "/tool_call_id",
         "'tool_call_id' cannot be empty",
         [] {
             message m = text(role::tool, "18");
             m.tool_call_id = "";
             return m;
         },
         RULES_BUILDER(parley::tool{"", "18"}), "error_a_tool_call_id_cannot_be_empty"},
        {"empty_default_request", R"({"role": "default-request"})", "", "",
         "a default-request message must set at least one request parameter", [] { return with(role::default_request); },
         RULES_BUILDER(parley::default_request{}), "error_a_default_request_must_set_at_least_one_parameter"},

        // keys a role does not take (a builder has no member for them)
        {"unknown_key", R"({"role": "user", "contnet": "hi"})", R"("contnet")", "/contnet",
         "unknown key 'contnet' in a user message; did you mean 'content'?", nullptr,
         RULES_NO_MEMBER(parley::user{.contnet = "hi"}), "contnet"},
        {"parameter_in_user_message", R"({"role": "user", "content": "hi", "temperature": 1})", R"("temperature")",
         "/temperature",
         "'temperature' is a request parameter: only default-request and request messages set it, not a user message",
         [] {
             message m = text(role::user, "hi");
             m.params.temperature = 1;
             return m;
         },
         RULES_NO_MEMBER(parley::user{.content = "hi", .temperature = 1}), "temperature"},
        {"content_in_request", R"({"role": "request", "content": "hi"})", R"("content")", "/content",
         "a request message sets request parameters only; it has no 'content'", [] { return text(role::request, "hi"); },
         RULES_NO_MEMBER(parley::request{.content = "hi"}), "content"},
        {"null_content_in_request", R"({"role": "request", "content": null})", R"("content")", "/content",
         "a request message sets request parameters only; it has no 'content'", nullptr, nullptr, "", ""},
        {"name_in_default_request", R"({"role": "default-request", "model": "m", "name": "x"})", R"("name")", "/name",
         "a default-request message sets request parameters only; it has no 'name'",
         [] {
             message m = with(role::default_request);
             m.params.model = "m";
             m.name = "x";
             return m;
         },
         RULES_NO_MEMBER(parley::default_request{.model = "m", .name = "x"}), "name"},
        {"key_in_truncate", R"({"role": "truncate", "model": "m"})", R"("model")", "/model",
         "a truncate message has no key but 'role', found 'model'",
         [] {
             message m = with(role::truncate);
             m.params.model = "m";
             return m;
         },
         RULES_NO_MEMBER(parley::truncate{.model = "m"}), "model"},
        {"call_in_user_message", R"({"role": "user", "content": "hi", "function_call": {"name": "f", "arguments": "{}"}})",
         R"("function_call")", "/function_call", "'function_call' belongs to assistant messages, not to a user message",
         [] {
             message m = text(role::user, "hi");
             m.function_call = parley::function_call{"f", "{}"};
             return m;
         },
         RULES_NO_MEMBER(parley::user{.content = "hi", .function_call = {.name = "f"}}), "function_call"},
        {"tool_calls_in_tool_message",
         R"({"role": "tool", "tool_call_id": "c1", "content": "x", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})",
         R"("tool_calls")", "/tool_calls", "'tool_calls' belongs to assistant messages, not to a tool message",
         [] {
             message m = text(role::tool, "x");
             m.tool_call_id = "c1";
             m.tool_calls.push_back({"c1", {"f", "{}"}});
             return m;
         },
         RULES_NO_MEMBER(parley::tool{.tool_call_id = "c1", .content = "x", .tool_calls = {}}), "tool_calls"},
        {"tool_call_id_in_system_message", R"({"role": "system", "content": "s", "tool_call_id": "c1"})",
         R"("tool_call_id")", "/tool_call_id", "'tool_call_id' belongs to tool messages, not to a system message",
         [] {
             message m = text(role::system, "s");
             m.tool_call_id = "c1";
             return m;
         },
         RULES_NO_MEMBER(parley::system{.content = "s", .tool_call_id = "c1"}), "tool_call_id"},

        // image parts
        {"image_outside_user", R"({"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "u"}}]})",
         R"({"type")", "/content/0", "image parts belong to user messages, not to an assistant message",
         [] {
             message m = with(role::assistant);
             m.content = std::vector<parley::content_part>{parley::content_part::make_image("u")};
             return m;
         },
         RULES_BUILDER(parley::assistant{{parley::image_part{.url = "u"}}}), "error_image_parts_belong_to_user_messages"},
        {"image_detail",
         R"({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u", "detail": "medium"}}]})",
         R"("medium")", "/content/0/image_url/detail", "an image detail is 'auto', 'low' or 'high', found 'medium'",
         [] {
             message m = with(role::user);
             m.content = std::vector<parley::content_part>{parley::content_part::make_image("u", "medium")};
             return m;
         },
         RULES_BUILDER(parley::user{{parley::image_part{.url = "u", .detail = "medium"}}}),
         "error_an_image_detail_is_auto_low_or_high"},
        {"empty_image_detail",
         R"({"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "u", "detail": ""}}]})",
         R"("")", "/content/1/image_url/detail", "an image detail is 'auto', 'low' or 'high', found ''",
         [] {
             message m = with(role::user);
             m.content = std::vector<parley::content_part>{parley::content_part::make_text("see"),
                                                           parley::content_part::make_image("u", "")};
             return m;
         },
         RULES_BUILDER(parley::user{{parley::text_part{"see"}, parley::image_part{.url = "u", .detail = ""}}}),
         "error_an_image_detail_is_auto_low_or_high"},

        // calls
        {"function_call_without_name", R"({"role": "assistant", "function_call": {"arguments": "{}"}})",
         R"({"arguments")", "/function_call", "a function call needs the function's 'name'",
         [] {
             message m = with(role::assistant);
             m.function_call = parley::function_call{"", "{}"};
             return m;
         },
         RULES_BUILDER(parley::assistant{.function_call = {.arguments = "{}"}}),
         "error_a_function_call_needs_the_function_name"},
        {"function_call_with_empty_name", R"({"role": "assistant", "function_call": {"name": "", "arguments": "{}"}})",
         R"({"name")", "/function_call", "a function call needs the function's 'name'",
         [] {
             message m = with(role::assistant);
             m.function_call = parley::function_call{"", "{}"};
             return m;
         },
         RULES_BUILDER(parley::assistant{.function_call = {.name = "", .arguments = "{}"}}),
         "error_a_function_call_needs_the_function_name"},
        {"tool_call_without_id",
         R"({"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]})",
         R"({"type")", "/tool_calls/0", "a tool call needs an 'id'",
         [] {
             message m = with(role::assistant);
             m.tool_calls.push_back({"", {"f", "{}"}});
             return m;
         },
         RULES_BUILDER(parley::assistant{.tool_calls = {{.function = {.name = "f", .arguments = "{}"}}}}),
         "error_a_tool_call_needs_an_id"},
        {"tool_call_with_empty_id",
         R"({"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}, {"id": "", "function": {"name": "g", "arguments": "{}"}}]})",
         R"({"id": "")", "/tool_calls/1", "a tool call needs an 'id'",
         [] {
             message m = with(role::assistant);
             m.tool_calls.push_back({"c1", {"f", "{}"}});
             m.tool_calls.push_back({"", {"g", "{}"}});
             return m;
         },
         RULES_BUILDER(parley::assistant{.tool_calls = {{.id = "c1", .function = {.name = "f", .arguments = "{}"}},
                                                         {.id = "", .function = {.name = "g", .arguments = "{}"}}}}),
         "error_a_tool_call_needs_an_id"},
        {"tool_call_without_function", R"({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function"}]})",
         R"({"id")", "/tool_calls/0", "a function call needs the function's 'name'",
         [] {
             message m = with(role::assistant);
             m.tool_calls.push_back({"c1", {}});
             return m;
         },
         RULES_BUILDER(parley::assistant{.tool_calls = {{.id = "c1"}}}), "error_a_function_call_needs_the_function_name"},

        // request parameters
        {"temperature", R"({"role": "request", "temperature": 2.5})", "2.5", "/temperature",
         "'temperature' must be between 0 and 2",
         [] {
             message m = with(role::request);
             m.params.temperature = 2.5;
             return m;
         },
         RULES_BUILDER(parley::request{.temperature = 2.5}), "error_temperature_must_be_between_0_and_2"},
        {"top_p", R"({"role": "request", "top_p": 1.5})", "1.5", "/top_p", "'top_p' must be between 0 and 1",
         [] {
             message m = with(role::request);
             m.params.top_p = 1.5;
             return m;
         },
         RULES_BUILDER(parley::request{.top_p = 1.5}), "error_top_p_must_be_between_0_and_1"},
        {"presence_penalty", R"({"role": "default-request", "presence_penalty": -3})", "-3", "/presence_penalty",
         "'presence_penalty' must be between -2 and 2",
         [] {
             message m = with(role::default_request);
             m.params.presence_penalty = -3;
             return m;
         },
         RULES_BUILDER(parley::default_request{.presence_penalty = -3}),
         "error_presence_penalty_must_be_between_minus_2_and_2"},
        {"frequency_penalty", R"({"role": "request", "frequency_penalty": 2.5})", "2.5", "/frequency_penalty",
         "'frequency_penalty' must be between -2 and 2",
         [] {
             message m = with(role::request);
             m.params.frequency_penalty = 2.5;
             return m;
         },
         RULES_BUILDER(parley::request{.frequency_penalty = 2.5}),
         "error_frequency_penalty_must_be_between_minus_2_and_2"},
        {"max_tokens", R"({"role": "request", "max_tokens": 0})", "0", "/max_tokens", "'max_tokens' must be at least 1",
         [] {
             message m = with(role::request);
             m.params.max_tokens = 0;
             return m;
         },
         RULES_BUILDER(parley::request{.max_tokens = 0}), "error_max_tokens_must_be_at_least_1"},
        {"n", R"({"role": "request", "n": 129})", "129", "/n", "'n' must be between 1 and 128",
         [] {
             message m = with(role::request);
             m.params.n = 129;
             return m;
         },
         RULES_BUILDER(parley::request{.n = 129}), "error_n_must_be_between_1_and_128"},
        {"logit_bias_value", R"({"role": "request", "logit_bias": {"50256": 101}})", "101", "/logit_bias/50256",
         "'logit_bias' must be between -100 and 100",
         [] {
             message m = with(role::request);
             m.params.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"50256", 101}};
             return m;
         },
         RULES_BUILDER(parley::request{.logit_bias = {{"50256", 101}}}),
         "error_a_logit_bias_must_be_between_minus_100_and_100"},
        {"logit_bias_key", R"({"role": "request", "logit_bias": {"13": 1, "a/b": 5}})", R"("a/b")", "/logit_bias/a~1b",
         "a 'logit_bias' key is a token id (decimal digits), found 'a/b'",
         [] {
             message m = with(role::request);
             m.params.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"13", 1}, {"a/b", 5}};
             return m;
         },
         RULES_BUILDER(parley::request{.logit_bias = {{"13", 1}, {"a/b", 5}}}),
         "error_a_logit_bias_key_is_a_token_id_in_decimal_digits"},
        {"too_many_stops", R"({"role": "request", "stop": ["a", "b", "c", "d", "e"]})", "[", "/stop",
         "'stop' has at most 4 sequences",
         [] {
             message m = with(role::request);
             m.params.stop = std::vector<std::string>{"a", "b", "c", "d", "e"};
             return m;
         },
         RULES_BUILDER(parley::request{.stop = {"a", "b", "c", "d", "e"}}), "error_stop_has_at_most_4_sequences"},
        {"empty_stop", R"({"role": "request", "stop": ""})", R"("")", "/stop", "a 'stop' sequence cannot be empty",
         [] {
             message m = with(role::request);
             m.params.stop = std::string();
             return m;
         },
         RULES_BUILDER(parley::request{.stop = ""}), "error_a_stop_sequence_cannot_be_empty"},
        {"empty_stop_in_a_list", R"({"role": "request", "stop": ["a", ""]})", R"("")", "/stop/1",
         "a 'stop' sequence cannot be empty",
         [] {
             message m = with(role::request);
             m.params.stop = std::vector<std::string>{"a", ""};
             return m;
         },
         RULES_BUILDER(parley::request{.stop = {"a", ""}}), "error_a_stop_sequence_cannot_be_empty"},
        {"function_name", R"({"role": "request", "functions": ["ok", "get weather"]})", R"("get weather")",
         "/functions/1", "a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'get weather'",
         [] {
             message m = with(role::request);
             m.params.functions = std::vector<std::string>{"ok", "get weather"};
             return m;
         },
         RULES_BUILDER(parley::request{.functions = {"ok", "get weather"}}),
         "error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens"},
        {"function_listed_twice", R"({"role": "request", "functions": ["f", "g", "f"]})", R"("f"])", "/functions/2",
         "function 'f' is listed twice in 'functions'",
         [] {
             message m = with(role::request);
             m.params.functions = std::vector<std::string>{"f", "g", "f"};
             return m;
         },
         RULES_BUILDER(parley::request{.functions = {"f", "g", "f"}}), "error_a_function_is_listed_twice_in_functions"},
        {"forced_name", R"({"role": "request", "call_function": "a b"})", R"("a b")", "/call_function",
         "a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'a b'",
         [] {
             message m = with(role::request);
             m.params.call_function = "a b";
             return m;
         },
         RULES_BUILDER(parley::request{.call_function = "a b"}),
         "error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens"},
        {"forced_not_listed", R"({"role": "request", "functions": ["f"], "call_function": "g"})", R"("g")",
         "/call_function", "'call_function' forces 'g', which 'functions' does not list",
         [] {
             message m = with(role::request);
             m.params.functions = std::vector<std::string>{"f"};
             m.params.call_function = "g";
             return m;
         },
         RULES_BUILDER(parley::request{.functions = {"f"}, .call_function = "g"}),
         "error_call_function_forces_a_function_that_functions_does_not_list"},
        {"response_format_type", R"({"role": "request", "response_format": {"type": "xml"}})", R"({"type")",
         "/response_format", "'response_format' needs a 'type' of \"text\", \"json_object\" or \"json_schema\"",
         [] {
             message m = with(role::request);
             m.params.response_format = boost::json::object{{"type", "xml"}};
             return m;
         },
         RULES_BUILDER(parley::request{.response_format = R"({"type": "xml"})"}),
         "error_response_format_needs_a_type_of_text_json_object_or_json_schema"},
        {"response_format_without_type", R"({"role": "request", "response_format": {}})", "{}", "/response_format",
         "'response_format' needs a 'type' of \"text\", \"json_object\" or \"json_schema\"",
         [] {
             message m = with(role::request);
             m.params.response_format = boost::json::object{};
             return m;
         },
         RULES_BUILDER(parley::request{.response_format = "{}"}),
         "error_response_format_needs_a_type_of_text_json_object_or_json_schema"},
    };
}

// Good messages, as JSON (and YAML), as a builder and in C++: all four accept them, as equal messages.
const std::string good_json = R"([
  {"role": "default-request", "model": "m"},
  {"role": "system", "content": ""},
  {"role": "user"},
  {"role": "user", "content": "{{ q }}", "name": "ada"},
  {"role": "user", "content": [{"type": "text", "text": "{{ q }}"}, {"type": "image_url", "image_url": {"url": "u", "detail": "auto"}}]},
  {"role": "assistant", "content": ""},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": ""},
  {"role": "assistant", "function_call": {"name": "f", "arguments": ""}},
  {"role": "function", "name": "f", "content": "42"},
  {"role": "request"},
  {"role": "truncate"},
  {"role": "request", "max_tokens": 1, "temperature": 2, "top_p": 0, "stop": ["a", "b", "c", "d"], "presence_penalty": -2, "frequency_penalty": 2, "logit_bias": {"50256": -100}, "seed": -1, "n": 128, "response_format": {"type": "json_object"}, "functions": ["f"], "call_function": "f"}
])";

#define RULES_GOOD_BUILDER                                                                                          \
    parley::conversation(                                                                                           \
        parley::metadata{.name = "t"}, parley::default_request{.model = "m"}, parley::system{""}, parley::user{},   \
        parley::user{"{{ q }}", "ada"},                                                                             \
        parley::user{{parley::text_part{"{{ q }}"}, parley::image_part{.url = "u", .detail = "auto"}}},            \
        parley::assistant{""},                                                                                      \
        parley::assistant{.tool_calls = {{.id = "c1", .function = {.name = "f", .arguments = "{}"}}}},             \
        parley::tool{"c1", ""}, parley::assistant{.function_call = {.name = "f"}}, parley::function{"f", "42"},   \
        parley::request{}, parley::truncate{},                                                                      \
        parley::request{.max_tokens = 1, .temperature = 2, .top_p = 0, .stop = {"a", "b", "c", "d"},              \
                        .presence_penalty = -2, .frequency_penalty = 2, .logit_bias = {{"50256", -100}},            \
                        .seed = -1, .n = 128, .response_format = R"({"type": "json_object"})", .functions = {"f"},  \
                        .call_function = "f"})
#define RULES_STRING(...) #__VA_ARGS__
#define RULES_TEXT(x) RULES_STRING(x)

std::vector<message> good_cpp() {
    std::vector<message> c;
    message d = with(role::default_request);
    d.params.model = "m";
    c.push_back(d);
    c.push_back(text(role::system, ""));
    c.push_back(with(role::user));
    message named = text(role::user, "{{ q }}");
    named.name = "ada";
    c.push_back(named);
    message parts = with(role::user);
    parts.content = std::vector<parley::content_part>{parley::content_part::make_text("{{ q }}"),
                                                      parley::content_part::make_image("u", "auto")};
    c.push_back(parts);
    c.push_back(text(role::assistant, ""));
    message calls = with(role::assistant);
    calls.tool_calls.push_back({"c1", {"f", "{}"}});
    c.push_back(calls);
    message result = text(role::tool, "");
    result.tool_call_id = "c1";
    c.push_back(result);
    message legacy = with(role::assistant);
    legacy.function_call = parley::function_call{"f", ""};
    c.push_back(legacy);
    message fn = text(role::function, "42");
    fn.name = "f";
    c.push_back(fn);
    c.push_back(with(role::request));
    c.push_back(with(role::truncate));
    message all = with(role::request);
    all.params.max_tokens = 1;
    all.params.temperature = 2;
    all.params.top_p = 0;
    all.params.stop = std::vector<std::string>{"a", "b", "c", "d"};
    all.params.presence_penalty = -2;
    all.params.frequency_penalty = 2;
    all.params.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"50256", -100}};
    all.params.seed = -1;
    all.params.n = 128;
    all.params.response_format = boost::json::object{{"type", "json_object"}};
    all.params.functions = std::vector<std::string>{"f"};
    all.params.call_function = "f";
    c.push_back(all);
    return c;
}

TEST_CASE("rules: each broken rule gives the same sentence from YAML (line:col), JSON (pointer), C++ and builders") {
    for (const rule_case& c : cases()) {
        INFO("case " << c.name << ": " << c.bad);
        const std::string doc = two(c.bad);
        CHECK(yaml_error(doc) == position_in(c.bad, c.at) + ": " + c.sentence);
        CHECK(json_error(doc) == "/1" + c.pointer + ": " + c.sentence);
        // one message alone: its pointer is relative to the message ("/" for the message itself)
        CHECK(error_of([&] { parley::message_from_json(boost::json::parse(c.bad)); }) ==
              (c.pointer.empty() ? std::string("/") : c.pointer) + ": " + c.sentence);
        if (c.cpp) {
            const message m = c.cpp();
            const parley::rule_violation v = parley::check(m);
            CHECK(parley::describe(v.rule, m.role, v.key) == c.sentence);
            CHECK(v.pointer == c.pointer);
            CHECK(error_of([&] { parley::validate(m); }) == c.sentence);
            CHECK(error_of([&] { parley::validate(std::vector<message>{text(role::user, "hi"), m}); }) ==
                  "message 1: " + c.sentence);
            CHECK(error_of([&] { parley::conversation_template("t", {text(role::user, "hi"), m}); }) ==
                  "t, message 1: " + c.sentence);
        }
        if (c.builder) CHECK(error_of(c.builder) == "t, message 1: " + c.sentence);
    }
}

TEST_CASE("rules: good messages are accepted by YAML, JSON, C++ and the builders, as equal messages") {
    const std::vector<message> cpp = good_cpp();
    CHECK_NOTHROW(parley::validate(cpp));
    const parley::conversation_template from_yaml = parley::load_template(good_json, "t", "t.yaml");
    CHECK(from_yaml.messages() == cpp);
    CHECK(parley::conversation_from_json(boost::json::parse(good_json)) == cpp);
    constexpr auto built = RULES_GOOD_BUILDER;
    CHECK(built.to_messages() == cpp);
    CHECK(parley::conversation_template("t", cpp) == built.to_template());
    // and what parley writes reads back
    CHECK(parley::conversation_from_json(parley::conversation_to_json(cpp)) == cpp);
    CHECK(parley::load_template(parley::dump_yaml(from_yaml), "t").messages() == cpp);
}

TEST_CASE("rules: is_error, a key of JSON histories only, in C++ and JSON; YAML templates hold no results' failures") {
    message m = text(role::assistant, "ok");
    m.is_error = true;
    const std::string sentence =
        "'is_error' belongs to tool and function messages (a result that reports a failure), not to an assistant message";
    const parley::rule_violation v = parley::check(m);
    CHECK(v.rule == parley::chat_rule::result_only);
    CHECK(v.pointer == "/is_error");
    CHECK(error_of([&] { parley::validate(m); }) == sentence);
    CHECK(error_of([&] { parley::conversation_template("t", {text(role::user, "hi"), m}); }) ==
          "t, message 1: " + sentence);
    const std::string bad = R"({"role": "assistant", "content": "ok", "is_error": true})";
    CHECK(json_error(two(bad)) == "/1/is_error: " + sentence);
    CHECK(yaml_error(two(bad)) == position_in(bad, R"("is_error")") + ": unknown key 'is_error' in an assistant message");
    message result = text(role::tool, "Error: no city");
    result.tool_call_id = "c1";
    result.is_error = true;
    CHECK_NOTHROW(parley::validate(result));
}

TEST_CASE("rules: a constexpr builder that breaks a rule is a compile error that names it; the good one compiles") {
    std::vector<compile_fail::fail_case> batch;
    for (const rule_case& c : cases())
        if (!c.builder_code.empty()) batch.push_back({c.name, c.builder_code, {c.compiler_says}});
    CHECK(batch.size() > 40);
    const std::vector<std::string> fine = {"constexpr auto good = " RULES_TEXT(RULES_GOOD_BUILDER) ";"};
    const compile_fail::batch_result r = compile_fail::compile_batch("#include <parley/chat/builder.hpp>\n", batch, fine);
    INFO("compiler: " << subprocess::compiler());
    CHECK_FALSE(r.compiled);
    {
        const auto fine_said = r.per_case.find("fine");
        INFO("about the line that must compile: " << (fine_said == r.per_case.end() ? "" : fine_said->second));
        CHECK(fine_said == r.per_case.end());
    }
    for (const auto& c : batch) {
        INFO("case " << c.name << ": " << c.code);
        const auto it = r.per_case.find(c.name);
        CHECK_MESSAGE(it != r.per_case.end(), "the case compiled; the compiler said:\n" << r.output.substr(0, 4000));
        if (it == r.per_case.end()) continue;
        INFO(it->second.substr(0, 4000));
        const std::string& said = it->second;
        if (c.expected.at(0).rfind("error_", 0) == 0) {  // a rule: the function that names it
            CHECK(said.find(c.expected[0]) != std::string::npos);
            continue;
        }
        // a key the role's builder has no member for: the compiler's error line names it (g++
        // says a builder without members, truncate, has too many initializers)
        const bool no_members = !compile_fail::is_clang() && c.code.find("truncate{") != std::string::npos;
        const std::string phrase = compile_fail::is_clang() ? "does not refer to any field"
                                   : no_members             ? "too many initializers for"
                                                            : "has no non-static data member named";
        const std::size_t at = said.find(phrase);
        REQUIRE(at != std::string::npos);
        const std::size_t start = said.rfind('\n', at) + 1;  // npos + 1 is 0
        const std::string line = said.substr(start, said.find('\n', at) - start);
        const std::size_t named = line.find(compile_fail::is_clang() ? "designator " : "member named ");
        if (!no_members) CHECK((named != std::string::npos && line.find(c.expected[0], named + 11) != std::string::npos));
    }
}

TEST_CASE("rules: the table of docs/conversation-templates.md shows every rule in describe()'s words") {
    std::ifstream in(PARLEY_TEST_SOURCE_DIR "/docs/conversation-templates.md");
    REQUIRE(in);
    std::stringstream doc;
    doc << in.rdbuf();
    const std::string page = doc.str();
    std::vector<bool> shown(static_cast<std::size_t>(parley::chat_rule::result_only) + 1);
    for (const rule_case& c : cases()) {
        const bool unknown = std::string_view(c.name) == "unknown_key";  // the one rule C++ cannot break
        if ((!c.cpp && !unknown) || page.find("`" + c.sentence + "`") == std::string::npos) continue;
        const parley::chat_rule rule = unknown ? parley::chat_rule::unknown_key : parley::check(c.cpp()).rule;
        shown.at(static_cast<std::size_t>(rule)) = true;
    }
    message failed_user = text(role::user, "x");
    failed_user.is_error = true;
    const parley::rule_violation v = parley::check(failed_user);
    if (page.find("`" + parley::describe(v.rule, role::user, v.key) + "`") != std::string::npos)
        shown.at(static_cast<std::size_t>(v.rule)) = true;
    message bad_word = with(role::request);  // a word a request field does not take
    bad_word.params.reasoning_effort = "huge";
    const parley::rule_violation w = parley::check(bad_word);
    CHECK(w.rule == parley::chat_rule::bad_value);
    if (page.find("`" + parley::describe(w.rule, role::request, w.key) + "`") != std::string::npos)
        shown.at(static_cast<std::size_t>(w.rule)) = true;
    for (std::size_t r = 1; r < shown.size(); ++r) {
        INFO("chat_rule " << r << ": " << parley::describe(static_cast<parley::chat_rule>(r), role::user, "KEY"));
        CHECK(shown[r]);
    }
}

TEST_CASE("reply_for_history: what models send is kept, made to follow the rules") {
    SUBCASE("an empty reply (no content, no call) is the empty text") {
        const message kept = parley::reply_for_history(with(role::assistant), 3);
        CHECK(kept == text(role::assistant, ""));
        CHECK(parley::reply_for_history(text(role::assistant, ""), 3) == text(role::assistant, ""));
        CHECK(parley::reply_for_history(text(role::assistant, "Paris."), 3) == text(role::assistant, "Paris."));
    }
    SUBCASE("a refusal (content null, the refusal apart) is its text") {
        CHECK(parley::reply_for_history(with(role::assistant), 3, std::string("I can't help with that.")) ==
              text(role::assistant, "I can't help with that."));
        CHECK(parley::reply_for_history(text(role::assistant, "Some."), 3, std::string("No.")) ==
              text(role::assistant, "Some."));
    }
    SUBCASE("tool calls without an id get call_POSITION_INDEX; ids given are kept, no id is used twice") {
        message reply = with(role::assistant);
        reply.tool_calls = {{"", {"f", "{}"}}, {"call_7_0", {"g", "{}"}}, {"", {"h", "{}"}}, {"x", {"f", "{}"}}};
        const message kept = parley::reply_for_history(reply, 7);
        CHECK(kept.content.index() == 0);  // calls need no content
        CHECK(kept.tool_calls[0].id == "call_7_0_");
        CHECK(kept.tool_calls[1].id == "call_7_0");
        CHECK(kept.tool_calls[2].id == "call_7_2");
        CHECK(kept.tool_calls[3].id == "x");
        CHECK(kept.tool_calls[2].function == parley::function_call{"h", "{}"});
    }
    SUBCASE("a call without a function name is a protocol error") {
        message reply = with(role::assistant);
        reply.tool_calls = {{"c1", {"f", "{}"}}, {"c2", {"", "{}"}}};
        try {
            parley::reply_for_history(reply, 1);
            FAIL("no error");
        } catch (const parley::error& e) {
            CHECK(e.code() == parley::errc::protocol);
            CHECK(std::string(e.what()) ==
                  "the model's reply breaks a rule of the chat model at /tool_calls/1: a function call needs the "
                  "function's 'name'");
        }
    }
    SUBCASE("a history of such replies reads back from JSON, equal") {
        message gemini = with(role::assistant);
        gemini.tool_calls = {{"", {"get_weather", R"({"city":"Oslo"})"}}};
        std::vector<message> history{text(role::user, "Weather in Oslo?")};
        history.push_back(parley::reply_for_history(gemini, history.size()));
        message result = text(role::tool, "-3");
        result.tool_call_id = history.back().tool_calls[0].id;
        history.push_back(result);
        history.push_back(parley::reply_for_history(with(role::assistant), history.size()));
        CHECK(history[1].tool_calls[0].id == "call_1_0");
        CHECK(history[3] == text(role::assistant, ""));
        const std::string written = boost::json::serialize(parley::conversation_to_json(history));
        CHECK(parley::conversation_from_json(boost::json::parse(written)) == history);
    }
}

}  // namespace rules_test
