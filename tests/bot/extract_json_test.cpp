// Tests of parley/bot/extract_json.hpp: a JSON value that fits a schema given at run time, asked
// for in the three modes against the in-process scripted model; the re-asks carry the
// validator's violations (tool messages answering the call, user messages in the text modes);
// failures keep every attempt, the last violations and the usage of every request.
#include <parley/bot/extract_json.hpp>

#include "../harness/schema_check.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include "run_sync.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace extract_json_test {

using parley::role;
using bot_tests::run_sync;

struct json_scripted {
    std::shared_ptr<parley::scripted_model> script = std::make_shared<parley::scripted_model>();
    std::shared_ptr<parley::in_process_model> model = std::make_shared<parley::in_process_model>(script);
};

parley::chat_reply json_call(std::string id, std::string name, std::string arguments) {
    return parley::tool_call_reply({parley::tool_call{std::move(id), {std::move(name), std::move(arguments)}}});
}

const char* const person_schema = R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "description": "A person named in the text",
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
    "additionalProperties": false
})";

parley::schema_validator person_validator() { return parley::schema_validator::from_text(person_schema); }

const boost::json::value who_data = boost::json::parse(R"({"text": "Ada Lovelace, 36"})");
constexpr std::string_view who_prompt = "Who is in: {{ text }}";

}  // namespace extract_json_test

TEST_CASE("extract_json: a forced tool call whose parameters are the schema; the violations sent back under the call's id") {
    using namespace extract_json_test;
    json_scripted s;
    const std::string wrong = R"({"name": "Ada", "age": -36, "born": 1815})";
    const std::string good = R"({"name": "Ada", "age": 36})";
    s.script->push(json_call("call_1", "person", wrong));
    s.script->push(json_call("call_2", "person", good));
    parley::extract_json_options opt;
    opt.name = "person";
    parley::usage_summary usage;
    opt.usage = &usage;
    auto r = run_sync(parley::extract_json(*s.model, who_prompt, who_data, person_validator(), opt));
    REQUIRE(r.has_value());
    CHECK(*r == boost::json::parse(good));
    CHECK(usage.total().requests == 2);

    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    const auto& first = requests[0];
    REQUIRE(first.messages.size() == 1);
    CHECK(first.messages[0] == parley::make_message(role::user, "Who is in: Ada Lovelace, 36"));
    CHECK(first.params.functions == std::vector<std::string>{"person"});
    CHECK(first.params.call_function == std::optional<std::string>("person"));
    REQUIRE(first.functions.size() == 1);
    CHECK(first.functions[0].description == "A person named in the text");
    boost::json::object parameters = boost::json::parse(person_schema).as_object();
    parameters.erase("$schema");
    CHECK(first.functions[0].parameters == parameters);

    const auto& second = requests[1];
    REQUIRE(second.messages.size() == 3);
    CHECK(second.messages[1].tool_calls.at(0).function.arguments == wrong);
    CHECK(second.messages[2].role == role::tool);
    CHECK(second.messages[2].tool_call_id == std::optional<std::string>("call_1"));
    // the violations, as jsonschema words them (tests/schema/validator_test.cpp holds the comparison)
    CHECK(second.messages[2].text() ==
          "Error: the arguments of person do not fit its parameters:\n"
          "/age: -36 is less than the minimum of 0\n"
          "Additional properties are not allowed ('born' was unexpected)\n"
          "Call person again with arguments that fit its parameters.");
}

TEST_CASE("extract_json: the schema sent is the one jsonschema judges the replies by") {
    using namespace extract_json_test;
    json_scripted s;
    s.script->push(json_call("call_1", "extract", R"({"name": "Ada", "age": 36})"));
    auto r = run_sync(parley::extract_json(*s.model, who_prompt, who_data, person_validator()));
    REQUIRE(r.has_value());
    const auto requests = s.script->requests();
    REQUIRE(requests.at(0).functions.size() == 1);
    CHECK(requests[0].functions[0].name == "extract");  // the default name
    schema_check::check_case c{"person parameters", boost::json::value(requests[0].functions[0].parameters),
                               {boost::json::parse(R"({"name": "Ada", "age": 36})"), boost::json::parse(R"({"name": "Ada", "age": -36})")}};
    auto results = schema_check::run({c});
    REQUIRE(results.size() == 1);
    CHECK_MESSAGE(!results[0].schema_error, results[0].schema_error.value_or(""));
    REQUIRE(results[0].valid.size() == 2);
    CHECK(results[0].valid[0]);
    CHECK(!results[0].valid[1]);
}

TEST_CASE("extract_json: json_schema mode is the response format; a reply that is not JSON is re-asked") {
    using namespace extract_json_test;
    json_scripted s;
    s.script->push_text("Ada, aged 36.");
    s.script->push_text(R"({"name": "Ada", "age": 36})");
    parley::extract_json_options opt;
    opt.mode = parley::extract_mode::json_schema;
    opt.name = "person";
    opt.strict = true;
    opt.params.model = "gpt-4o-mini";
    auto r = run_sync(parley::extract_json(*s.model, who_prompt, who_data, person_validator(), opt));
    REQUIRE(r.has_value());
    CHECK(r->at("age") == 36);
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].functions.empty());
    CHECK(!requests[0].params.call_function);
    CHECK(requests[0].params.model == std::optional<std::string>("gpt-4o-mini"));
    boost::json::object schema = boost::json::parse(person_schema).as_object();
    schema.erase("$schema");
    const boost::json::object expected{
        {"type", "json_schema"},
        {"json_schema", {{"name", "person"}, {"description", "A person named in the text"}, {"strict", true}, {"schema", schema}}}};
    REQUIRE(requests[0].params.response_format);
    CHECK(*requests[0].params.response_format == expected);
    REQUIRE(requests[1].messages.size() == 3);
    CHECK(requests[1].messages[2].role == role::user);
    CHECK(requests[1].messages[2].text() ==
          "Your reply does not fit the requested JSON:\n" + parley::parse_json_from_text("Ada, aged 36.").error().message() +
              "\nReply again with JSON that fits.");
}

TEST_CASE("extract_json: json_text mode, any schema at the root; three replies that do not fit") {
    using namespace extract_json_test;
    json_scripted s;
    s.script->push_text("```json\n[\"a\", 2]\n```");
    s.script->push_text("Here: [\"a\", \"b\", \"a\"]");
    s.script->push_text("[]");
    const auto tags = parley::schema_validator::from_text(R"({"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1})");
    parley::extract_json_options opt;
    opt.mode = parley::extract_mode::json_text;
    parley::usage_summary usage;
    opt.usage = &usage;
    std::vector<parley::schema_violation> violations;
    opt.violations = &violations;
    auto r = run_sync(parley::extract_json(*s.model, "Tags of {{ text }}", who_data, tags, opt));
    REQUIRE(r.has_error());
    CHECK(r.error().code == parley::make_error_code(parley::errc::conversion));
    REQUIRE(r.error().attempts.size() == 3);
    CHECK(r.error().attempts[0].reply == "```json\n[\"a\", 2]\n```");
    CHECK(r.error().attempts[0].problems == "/1: 2 is not of type 'string'");
    CHECK(r.error().attempts[1].problems == "['a', 'b', 'a'] has non-unique elements");
    CHECK(r.error().attempts[2].problems == "[] should be non-empty");
    REQUIRE(violations.size() == 1);  // the last reply's
    CHECK(violations[0].keyword == "minItems");
    CHECK(violations[0].schema_path == "/minItems");
    CHECK(usage.total().requests == 3);
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 3);
    REQUIRE(requests[0].messages.size() == 2);
    CHECK(requests[0].messages[1].text() ==
          "Reply with one JSON value that follows this JSON Schema, in a ```json code block:\n" + boost::json::serialize(tags.schema()));
    CHECK(r.error().what().find("no reply fitted in 3 attempts") == 0);
}

TEST_CASE("extract_json: tool_call mode needs an object schema; a failed call is the error at once") {
    using namespace extract_json_test;
    json_scripted s;
    const auto list = parley::schema_validator::from_text(R"({"type": "array"})");
    CHECK_THROWS_WITH_AS(run_sync(parley::extract_json(*s.model, who_prompt, who_data, list)),
                         doctest::Contains("extract_mode::tool_call needs a schema whose root is an object schema"), parley::error);
    CHECK(s.script->requests().empty());

    parley::call_error e;
    e.code = make_error_code(parley::errc::http_status);
    e.status = 503;
    s.script->push(e);
    auto r = run_sync(parley::extract_json(*s.model, who_prompt, who_data, person_validator()));
    REQUIRE(r.has_error());
    REQUIRE(r.error().call);
    CHECK(r.error().call->status == 503);
    CHECK(s.script->requests().size() == 1);
}

TEST_CASE("extract_json: a validator's rejection of a value that fits, and a conversation template as the who_prompt") {
    using namespace extract_json_test;
    json_scripted s;
    s.script->push(json_call("call_1", "extract", R"({"name": "Bob", "age": 3})"));
    s.script->push(json_call("call_2", "extract", R"({"name": "Ada", "age": 36})"));
    const parley::conversation_template t(
        "who", {parley::make_message(role::system, "You read names."), parley::make_message(role::user, "{{ text }}")});
    parley::extract_json_options opt;
    opt.validate = [](const boost::json::value& v) -> std::optional<std::string> {
        if (v.at("name") != "Ada") return "the text names Ada";
        return std::nullopt;
    };
    auto r = run_sync(parley::extract_json(*s.model, t, who_data, person_validator(), opt));
    REQUIRE(r.has_value());
    CHECK(r->at("name") == "Ada");
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    REQUIRE(requests[0].messages.size() == 2);
    CHECK(requests[0].messages[1].text() == "Ada Lovelace, 36");
    CHECK(requests[1].messages.back().text() ==
          "Error: the arguments of extract were rejected:\nthe text names Ada\nCall extract again with arguments that fit.");
}
