// Tests of parley/chat/detail/request_fields.hpp and request_fields_json.hpp: the request
// parameters of today's models and the reasoning and refusals of assistant messages, the same in
// C++ (parley::check), JSON histories, YAML files and the constexpr builders: values, rules,
// errors with their places, round trips.
#include <parley/chat/detail/request_fields.hpp>

#include <parley/chat/builder.hpp>
#include <parley/chat/detail/request_fields_json.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/yaml.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

using namespace parley;

namespace {

// Every field of today's models, set.
request_params every_new_field() {
    request_params p;
    p.model = "m";
    p.max_completion_tokens = 4096;
    p.top_k = 40;
    p.logprobs = true;
    p.top_logprobs = 5;
    p.parallel_tool_calls = false;
    p.reasoning_effort = "high";
    p.reasoning_summary = "detailed";
    p.verbosity = "low";
    p.thinking = thinking_config{"enabled", 2048, std::string("omitted")};
    p.prediction = "predicted text";
    p.service_tier = "flex";
    p.store = false;
    p.metadata = std::vector<std::pair<std::string, std::string>>{{"team", "search"}, {"b", "2"}};
    p.user = "user-1";
    p.safety_identifier = "hash";
    p.prompt_cache_key = "key";
    p.prompt_cache_retention = "in_memory";
    p.cache_control = prompt_cache_control{"ephemeral", std::string("5m")};
    p.truncation = "disabled";
    p.extra = boost::json::parse(R"({"min_p": 0.05, "chat_template_kwargs": {"enable_thinking": true}})").as_object();
    return p;
}

std::string json_error(std::string_view text) {
    try {
        conversation_from_json(boost::json::parse(text));
        return "ok";
    } catch (const parley::error& e) {
        CHECK(e.code() == errc::chat_invalid);
        return e.what();
    }
}

// "line:col: message" of the error of loading `text` as a template, or "ok".
std::string request_yaml_error(std::string_view text) {
    try {
        load_template(text, "t", "t.yaml");
        return "ok";
    } catch (const located_error& e) {
        CHECK(e.code() == errc::chat_invalid);
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
    }
}

}  // namespace

TEST_CASE("request fields: names, words and rules") {
    for (std::string_view name : {"max_completion_tokens", "reasoning_effort", "thinking", "metadata", "extra", "truncation"})
        CHECK(is_request_param(name));
    CHECK(detail::is_choice("reasoning_effort", "xhigh"));
    CHECK_FALSE(detail::is_choice("reasoning_effort", "huge"));
    CHECK(detail::is_choice("service_tier", "standard_only"));
    CHECK(detail::thinking_ok("enabled", true, 1024, false, ""));
    CHECK_FALSE(detail::thinking_ok("enabled", true, 1023, false, ""));
    CHECK_FALSE(detail::thinking_ok("enabled", false, 0, false, ""));
    CHECK_FALSE(detail::thinking_ok("adaptive", true, 2048, false, ""));
    CHECK_FALSE(detail::thinking_ok("disabled", false, 0, true, "omitted"));
    CHECK(detail::cache_control_ok("ephemeral", true, "1h"));
    CHECK_FALSE(detail::cache_control_ok("persistent", false, ""));

    CHECK_FALSE(check(every_new_field()));
    auto broken = [](auto set) {
        request_params p;
        set(p);
        const rule_violation v = check(p);
        return v ? describe(v.rule, role::request, v.key) : std::string("ok");
    };
    CHECK(broken([](request_params& p) { p.reasoning_effort = "huge"; }) ==
          "'reasoning_effort' is \"none\", \"minimal\", \"low\", \"medium\", \"high\", \"xhigh\" or \"max\"");
    CHECK(broken([](request_params& p) { p.top_logprobs = 21; }) == "'top_logprobs' must be between 0 and 20");
    CHECK(broken([](request_params& p) { p.max_completion_tokens = 0; }) == "'max_completion_tokens' must be at least 1");
    CHECK(broken([](request_params& p) { p.top_k = -1; }) == "'top_k' must be at least 0");
    CHECK(broken([](request_params& p) { p.thinking = thinking_config{"enabled", 100, {}}; }) ==
          "'thinking' is {type: enabled, budget_tokens: N} with N at least 1024, {type: adaptive} or {type: disabled}; "
          "'display' (not with disabled) is \"summarized\" or \"omitted\"");
    CHECK(broken([](request_params& p) {
              p.metadata = std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"a", "2"}};
          }) == "'metadata' has at most 16 pairs, each a key of 1 to 64 characters (given once) and a string value of at "
                "most 512");
    CHECK(broken([](request_params& p) { p.extra = boost::json::object{{"tools", boost::json::array()}}; }) ==
          "'extra' may not set 'model', 'messages', 'input', 'stream' or 'tools' (parley builds them from the request)");
    CHECK(broken([](request_params& p) { p.call_function = "+"; }) == "ok");
}

TEST_CASE("request fields: override_with takes each field, and merges extra member by member") {
    request_params defaults;
    defaults.reasoning_effort = "low";
    defaults.extra = boost::json::parse(R"({"a": 1, "b": 2})").as_object();
    request_params over;
    over.verbosity = "high";
    over.extra = boost::json::parse(R"({"b": 3, "c": 4})").as_object();
    defaults.override_with(over);
    CHECK(defaults.reasoning_effort == "low");
    CHECK(defaults.verbosity == "high");
    CHECK(boost::json::serialize(*defaults.extra) == R"({"a":1,"b":3,"c":4})");
    CHECK(first_set_param(over) == "verbosity");
}

TEST_CASE("request fields: JSON histories round-trip every field, and refusals and reasoning on assistant messages") {
    message d;
    d.role = role::default_request;
    d.params = every_new_field();
    message a;
    a.role = role::assistant;
    a.refusal = "I can't.";
    reasoning_part item;
    item.type = reasoning_part::kind::item;
    item.id = "rs_1";
    item.summary = {"a", "b"};
    item.text = "raw";
    item.data = "enc";
    a.reasoning = {{reasoning_part::kind::text, "deepseek", {}, {}, {}, {}},
                   {reasoning_part::kind::thinking, "claude", "sig", {}, {}, {}},
                   {reasoning_part::kind::redacted, {}, {}, "data", {}, {}},
                   item};
    const std::vector<message> c{d, make_message(role::user, "hi"), a};
    const boost::json::value j = conversation_to_json(c);
    CHECK(j.at(2) == boost::json::parse(R"({"role":"assistant","content":null,"refusal":"I can't.","reasoning":[)"
                                        R"({"type":"text","text":"deepseek"},{"type":"thinking","thinking":"claude","signature":"sig"},)"
                                        R"({"type":"redacted_thinking","data":"data"},{"type":"reasoning","id":"rs_1",)"
                                        R"("summary":["a","b"],"text":"raw","encrypted_content":"enc"}]})"));
    CHECK(j.at(0).at("thinking") == boost::json::parse(R"({"type":"enabled","budget_tokens":2048,"display":"omitted"})"));
    CHECK(j.at(0).at("cache_control") == boost::json::parse(R"({"type":"ephemeral","ttl":"5m"})"));
    CHECK(conversation_from_json(j) == c);
    CHECK(a.reasoning_text() == "deepseekclauderaw");
}

TEST_CASE("request fields: JSON errors name the pointer") {
    CHECK(json_error(R"([{"role": "request", "reasoning_effort": "huge"}])") ==
          "/0/reasoning_effort: 'reasoning_effort' is \"none\", \"minimal\", \"low\", \"medium\", \"high\", \"xhigh\" or "
          "\"max\", found 'huge'");
    CHECK(json_error(R"([{"role": "request", "thinking": {"type": "enabled", "budget_tokens": "many"}}])") ==
          "/0/thinking/budget_tokens: expected an integer, found a string");
    CHECK(json_error(R"([{"role": "request", "metadata": {"k": 1}}])") == "/0/metadata/k: expected a string, found an integer");
    CHECK(json_error(R"([{"role": "request", "extra": {"model": "x"}}])") ==
          "/0/extra/model: 'extra' may not set 'model', 'messages', 'input', 'stream' or 'tools' (parley builds them from "
          "the request), found 'model'");
    CHECK(json_error(R"([{"role": "request", "logprobs": "yes"}])") == "/0/logprobs: expected true or false, found a string");
    CHECK(json_error(R"([{"role": "user", "content": "x", "reasoning": []}])") ==
          "/0/reasoning: 'reasoning' belongs to assistant messages, not to a user message");
    CHECK(json_error(R"([{"role": "assistant", "content": "x", "reasoning": [{"type": "thinking", "thinking": 1}]}])") ==
          "/0/reasoning/0/thinking: expected a string, found an integer");
    CHECK(json_error(R"([{"role": "assistant", "content": "x", "reasoning": [{"type": "reasoning", "summary": []}]}])") ==
          "/0/reasoning/0: a reasoning item needs its 'id'");
    CHECK(json_error(R"([{"role": "user", "content": "x", "refusal": "no"}])") ==
          "/0/refusal: 'refusal' belongs to assistant messages, not to a user message");
    CHECK(json_error(R"([{"role": "user", "content": "x", "top_k": 3}])") ==
          "/0/top_k: 'top_k' is a request parameter: only default-request and request messages set it, not a user message");
}

TEST_CASE("request fields: YAML reads them as JSON does, with positions, and dumps them back") {
    const std::string yaml = "- role: default-request\n"
                             "  model: m\n"
                             "  max_completion_tokens: 4096\n"
                             "  top_k: 40\n"
                             "  logprobs: true\n"
                             "  top_logprobs: 5\n"
                             "  parallel_tool_calls: false\n"
                             "  reasoning_effort: high\n"
                             "  reasoning_summary: detailed\n"
                             "  verbosity: low\n"
                             "  thinking: {type: enabled, budget_tokens: 2048, display: omitted}\n"
                             "  prediction: predicted text\n"
                             "  service_tier: flex\n"
                             "  store: false\n"
                             "  metadata: {team: search, b: '2'}\n"
                             "  user: user-1\n"
                             "  safety_identifier: hash\n"
                             "  prompt_cache_key: key\n"
                             "  prompt_cache_retention: in_memory\n"
                             "  cache_control: {type: ephemeral, ttl: 5m}\n"
                             "  truncation: disabled\n"
                             "  extra:\n"
                             "    min_p: 0.05\n"
                             "    chat_template_kwargs: {enable_thinking: true}\n"
                             "- role: user\n"
                             "  content: hi\n";
    const conversation_template t = load_template(yaml, "t", "t.yaml");
    CHECK(t.messages().front().params == every_new_field());
    CHECK(load_template(dump_yaml(t), "t") == t);

    CHECK(request_yaml_error("- role: request\n  reasoning_effort: huge\n") ==
          "2:21: 'reasoning_effort' is \"none\", \"minimal\", \"low\", \"medium\", \"high\", \"xhigh\" or \"max\", "
          "found 'huge'");
    CHECK(request_yaml_error("- role: request\n  thinking: {type: enabled}\n").rfind("2:13: 'thinking' is {type: enabled", 0) == 0);
    CHECK(request_yaml_error("- role: request\n  metadata: {k: [1]}\n") == "2:13: metadata/k: expected a string, found an array");
    CHECK(request_yaml_error("- role: request\n  call_function: '+'\n  functions: [f]\n") == "ok");
}

TEST_CASE("request fields: the constexpr builders take them and convert to the same parameters") {
    constexpr auto built = conversation(
        default_request{.model = "m",
                        .max_completion_tokens = 4096,
                        .top_k = 40,
                        .logprobs = true,
                        .top_logprobs = 5,
                        .parallel_tool_calls = false,
                        .reasoning_effort = "high",
                        .reasoning_summary = "detailed",
                        .verbosity = "low",
                        .thinking = builder::thinking{.type = "enabled", .budget_tokens = 2048, .display = "omitted"},
                        .prediction = "predicted text",
                        .service_tier = "flex",
                        .store = false,
                        .metadata = {{"team", "search"}, {"b", "2"}},
                        .user = "user-1",
                        .safety_identifier = "hash",
                        .prompt_cache_key = "key",
                        .prompt_cache_retention = "in_memory",
                        .cache_control = builder::cache_control{.ttl = "5m"},
                        .truncation = "disabled",
                        .extra = R"({"min_p": 0.05, "chat_template_kwargs": {"enable_thinking": true}})"},
        user{"hi"});
    CHECK(built.to_messages().front().params == every_new_field());
    CHECK_THROWS_WITH_AS(conversation(request{.reasoning_effort = "huge"}),
                         "template, message 0: 'reasoning_effort' is \"none\", \"minimal\", \"low\", \"medium\", \"high\", "
                         "\"xhigh\" or \"max\"",
                         parley::error);
}

TEST_CASE("function definitions: strict ones must be in the strict form, in C++ and YAML") {
    template_set set;
    function_definition loose;
    loose.name = "f";
    loose.strict = true;
    loose.parameters = boost::json::parse(R"({"type":"object","properties":{"a":{"type":"string"}}})").as_object();
    CHECK_THROWS_WITH_AS(set.add(loose),
                         "function 'f' is strict, but its parameters at /: an object of a strict schema needs "
                         "\"additionalProperties\": false",
                         parley::error);
    loose.parameters["additionalProperties"] = false;
    CHECK_THROWS_WITH_AS(set.add(loose),
                         "function 'f' is strict, but its parameters at /: property 'a' is not in \"required\" (a strict "
                         "schema requires every property)",
                         parley::error);
    loose.parameters["required"] = boost::json::array{"a"};
    set.add(loose);
    CHECK(set.function("f")->strict);

    const std::string yaml = "templates:\n  t:\n    - role: user\n      content: hi\n"
                             "functions:\n  - name: g\n    strict: true\n    parameters:\n      type: object\n"
                             "      properties: {x: {type: object, properties: {y: {type: string}}}}\n"
                             "      required: [x]\n      additionalProperties: false\n";
    try {
        load_template_set(yaml, "s.yaml");
        FAIL("no error");
    } catch (const located_error& e) {
        CHECK(std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message() ==
              "7:13: function 'g' is strict, but its parameters at /properties/x: an object of a strict schema needs "
              "\"additionalProperties\": false");
    }
    const template_set strict = load_template_set(
        "functions:\n  - name: g\n    strict: true\n    parameters: {type: object, properties: {}, additionalProperties: false}\n",
        "s.yaml");
    CHECK(strict.function("g")->strict);
    CHECK(load_template_set(dump_yaml(strict), "s.yaml") == strict);
}
