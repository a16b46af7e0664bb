// Tests of parley/chat/yaml.hpp: loading template sets and templates from YAML (every error with
// its message and its line:column), template errors placed in the YAML file for every scalar
// style, limits, dumping and round trips (also over generated strings), rendering a loaded template.
#include <parley/chat/yaml.hpp>

#include <parley/chat/detail/yaml_scalar.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/render.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

using namespace parley;

namespace {

const std::string data_dir = PARLEY_TEST_SOURCE_DIR "/tests/chat/data/";

// "line:col: message" of the error that loading `yaml` as a set throws (with `code`).
std::string set_error(std::string_view yaml, errc code = errc::chat_invalid, const yaml_options& options = {}) {
    try {
        load_template_set(yaml, "t.yaml", options);
    } catch (const located_error& e) {
        CHECK(e.code() == code);
        CHECK(e.where().name == "t.yaml");
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
    }
    return "no error";
}

// The same for a single template (a list of messages).
std::string template_error_of(std::string_view yaml, errc code = errc::chat_invalid, const yaml_options& options = {}) {
    try {
        load_template(yaml, "t", "t.yaml", options);
    } catch (const located_error& e) {
        CHECK(e.code() == code);
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
    }
    return "no error";
}

// The error of a text's template, located in the YAML file.
std::string text_error(std::string_view yaml, errc code = errc::template_syntax) {
    try {
        load_template(yaml, "t", "t.yaml");
    } catch (const template_error& e) {
        CHECK(e.code() == code);
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
    } catch (const std::exception& e) {
        return std::string("not a template error: ") + e.what();
    }
    return "no error";
}

const std::string roles = "expected system, user, assistant, function, tool, default-request, request or truncate";

// Shows a string with its control characters and non-ASCII bytes escaped.
std::string escaped(std::string_view s) {
    std::string out;
    for (unsigned char c : s) {
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
        } else {
            static constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace

TEST_CASE("load: a set with several templates, functions, control messages, parts and block scalars") {
    const template_set set = load_template_set_file(data_dir + "assistants.yaml");
    REQUIRE(set.templates().size() == 2);
    const conversation_template& ask = set.at("ask");
    CHECK(ask.info().description == "Answer a question briefly.");
    CHECK(ask.info().version == "1.2");
    CHECK(ask.info().variables == std::vector<std::string>{"ask", "times"});
    REQUIRE(ask.messages().size() == 5);
    const message& defaults = ask.messages()[0];
    CHECK(defaults.role == role::default_request);
    CHECK(*defaults.params.model == "gpt-4o-mini");
    CHECK(*defaults.params.temperature == 0.2);
    CHECK(*defaults.params.max_tokens == 256);
    CHECK(ask.messages()[2].text() == "# Question\n\n{{ ask }} (asked {{ times }} times)\n");
    CHECK(std::get<std::vector<std::string>>(*ask.messages()[3].params.stop) == std::vector<std::string>{"\n\n", "END"});
    CHECK(*ask.messages()[3].params.seed == 7);
    CHECK(ask.messages()[4].text() == "Thanks, that was helpful.");

    const conversation_template& weather = set.at("weather");
    const request_params& p = weather.messages()[0].params;
    CHECK(*p.top_p == 0.9);
    CHECK(*p.presence_penalty == -0.5);
    CHECK(*p.frequency_penalty == 1.5);
    CHECK(*p.logit_bias == std::vector<std::pair<std::string, std::int64_t>>{{"50256", -100}, {"198", 5}});
    CHECK(*p.n == 2);
    CHECK(boost::json::serialize(*p.response_format) == R"({"type":"json_object"})");
    CHECK(weather.messages()[1].text() ==
          "Use the functions you are given.\n  Indented line.\nTrailing spaces stay:   ");
    const message& pic = weather.messages()[2];
    CHECK(*pic.name == "ada");
    REQUIRE(pic.parts().size() == 2);
    CHECK(pic.parts()[0].text == "What is the weather in {{ city }}?");
    CHECK(pic.parts()[1] == content_part::make_image("https://example.com/sky.png", "low"));
    CHECK(*weather.messages()[3].params.functions == std::vector<std::string>{"get_weather", "get_time"});
    CHECK(*weather.messages()[3].params.call_function == "get_weather");
    const message& call = weather.messages()[4];
    REQUIRE(call.tool_calls.size() == 1);
    CHECK(call.tool_calls[0].id == "call_1");
    CHECK(call.tool_calls[0].function.name == "get_weather");
    CHECK(call.tool_calls[0].function.arguments == R"({"city":"Oslo","unit":"celsius"})");  // a map, as JSON
    CHECK(*weather.messages()[5].tool_call_id == "call_1");
    CHECK(weather.messages()[5].text() == R"({"temperature": -3})");
    CHECK(weather.messages()[6].function_call->arguments == R"({"zone": "CET"})");  // a string, verbatim
    CHECK(*weather.messages()[7].name == "get_time");
    CHECK(weather.messages()[8].role == role::truncate);
    CHECK(weather.messages()[9].text() == "Keep my two newlines.\n\n");
    CHECK(*weather.messages()[10].params.call_function == "");

    REQUIRE(set.functions().size() == 2);
    CHECK(set.functions()[0].description == "The current weather in a city.");
    CHECK(boost::json::serialize(set.functions()[0].parameters) ==
          R"({"type":"object","properties":{"city":{"type":"string","description":"The city's name"},)"
          R"("unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]})");
    CHECK(boost::json::serialize(set.functions()[1].parameters) ==
          R"({"type":"object","properties":{"zone":{"type":"string"}}})");
}

TEST_CASE("load: a loaded template renders to the expected messages and parameters") {
    const template_set set = load_template_set_file(data_dir + "assistants.yaml");
    const rendered_request r = render(set.at("ask"), boost::json::parse(R"({"ask": "Why?", "times": 3})"));
    REQUIRE(r.added.size() == 4);
    CHECK(r.at_request);
    REQUIRE(r.messages.size() == 2);
    CHECK(r.messages[0] == make_message(role::system, "You are brief."));
    CHECK(r.messages[1] == make_message(role::user, "# Question\n\nWhy? (asked 3 times)"));
    CHECK(*r.params.model == "gpt-4o-mini");
    CHECK(*r.params.temperature == 0.2);
    CHECK(*r.params.max_tokens == 256);
    CHECK(*r.params.seed == 7);
    CHECK(boost::json::serialize(conversation_to_json(r.messages)) ==
          R"([{"role":"system","content":"You are brief."},)"
          R"j({"role":"user","content":"# Question\n\nWhy? (asked 3 times)"}])j");

    const rendered_request w = render(set.at("weather"), boost::json::parse(R"({"city": "Oslo"})"));
    REQUIRE(w.messages.size() == 2);
    CHECK(w.messages[1].parts()[0].text == "What is the weather in Oslo?");
    CHECK(*w.params.model == "gpt-4o");
    CHECK(*w.params.call_function == "get_weather");
    CHECK(*w.params.functions == std::vector<std::string>{"get_weather", "get_time"});
}

TEST_CASE("load: a single template, as a list of messages or as a map with metadata") {
    const conversation_template t = load_template("- role: system\n  content: Be brief.\n- role: user\n  content: '{{ q }}'\n",
                                                  "brief");
    CHECK(t.name() == "brief");
    REQUIRE(t.messages().size() == 2);
    CHECK(t.messages()[1].text() == "{{ q }}");
    const conversation_template m =
        load_template("description: Brief.\nversion: '2'\nvariables: [q]\nmessages:\n  - role: user\n    content: hi\n", "m");
    CHECK(m.info() == template_info{"m", "Brief.", "2", {"q"}});
    CHECK(m.messages().size() == 1);

    const conversation_template f = load_template_file(data_dir + "single.yaml");
    CHECK(f.name() == "single");
    REQUIRE(f.messages().size() == 3);
    CHECK(f.messages()[2].params.functions->front() == "lookup");
    CHECK(f == load_template(dump_yaml(f), "single"));

    // a single template's function names are checked only against functions given from outside
    yaml_options options;
    options.external_functions = {"other"};
    CHECK(template_error_of("- role: request\n  functions: [lookup]\n", errc::chat_invalid, options) ==
          "2:15: 'functions' names 'lookup', which the set does not define");
    options.external_functions = {"lookup"};
    CHECK(template_error_of("- role: request\n  functions: [lookup]\n", errc::chat_invalid, options) == "no error");
}

TEST_CASE("errors: roles and message keys") {
    CHECK(template_error_of("- role: bot\n") == "1:9: unknown role 'bot' (" + roles + ")");
    CHECK(template_error_of("- role: asistant\n") == "1:9: unknown role 'asistant' (" + roles + "); did you mean 'assistant'?");
    CHECK(template_error_of("- content: hi\n") == "1:3: a message needs a 'role' (" + roles + ")");
    CHECK(template_error_of("- hello\n") == "1:3: a message is a map with a 'role', found 'hello'");
    CHECK(template_error_of("- role: [user]\n") == "1:9: 'role' expects a role name, found a list");
    CHECK(template_error_of("- role: request\n  temprature: 0.2\n") ==
          "2:3: unknown key 'temprature' in a request message; did you mean 'temperature'?");
    CHECK(template_error_of("- role: user\n  contnet: hi\n") ==
          "2:3: unknown key 'contnet' in a user message; did you mean 'content'?");
    CHECK(template_error_of("- role: user\n  colour: red\n") == "2:3: unknown key 'colour' in a user message");
    CHECK(template_error_of("- role: user\n  content: hi\n  temperature: 1\n") ==
          "3:3: 'temperature' is a request parameter: only default-request and request messages set it, not a "
          "user message");
    CHECK(template_error_of("- role: request\n  content: hi\n") ==
          "2:3: a request message sets request parameters only; it has no 'content'");
    CHECK(template_error_of("- role: truncate\n  model: m\n") == "2:3: a truncate message has no key but 'role', found 'model'");
    CHECK(template_error_of("- role: user\n  function_call: {name: f}\n") ==
          "2:3: 'function_call' belongs to assistant messages, not to a user message");
    CHECK(template_error_of("- role: tool\n  tool_call_id: c\n  tool_calls: []\n") ==
          "3:3: 'tool_calls' belongs to assistant messages, not to a tool message");
    CHECK(template_error_of("- role: system\n  tool_call_id: c\n") ==
          "2:3: 'tool_call_id' belongs to tool messages, not to a system message");
    CHECK(template_error_of("- role: user\n  content: a\n  content: b\n") == "3:3: key 'content' is given twice (first on line 2)");
}

TEST_CASE("errors: what a role requires") {
    CHECK(template_error_of("- role: user\n  content: hi\n- role: function\n  content: '42'\n") ==
          "3:3: a function message needs a 'name' (the function's name)");
    CHECK(template_error_of("- role: tool\n  content: x\n") ==
          "1:3: a tool message needs a 'tool_call_id' (the id of the call it answers)");
    CHECK(template_error_of("- role: default-request\n") ==
          "1:3: a default-request message must set at least one request parameter");
    CHECK(template_error_of("- role: request\n") == "no error");
    CHECK(template_error_of("- role: truncate\n") == "no error");
    // content: only user messages, and assistant messages with calls, may leave it out
    CHECK(template_error_of("- role: system\n") == "1:3: a system message needs 'content' (only a user message may leave it out)");
    CHECK(template_error_of("- role: tool\n  tool_call_id: c1\n  content:\n") ==
          "1:3: a tool message needs 'content' (only a user message may leave it out)");
    CHECK(template_error_of("- role: assistant\n  tool_calls: []\n") ==
          "1:3: an assistant message needs 'content' unless it has 'tool_calls', a 'function_call' or a 'refusal'");
    CHECK(template_error_of("- role: request\n  content:\n") ==
          "2:3: a request message sets request parameters only; it has no 'content'");
    CHECK(template_error_of("- role: user\n") == "no error");
    CHECK(template_error_of("- role: assistant\n  content: ''\n") == "no error");
    CHECK(template_error_of("- role: assistant\n  function_call: {name: f}\n") == "no error");
    // a name or an id given is not empty
    CHECK(template_error_of("- role: user\n  name: ''\n  content: hi\n") == "2:9: 'name' cannot be empty");
    CHECK(template_error_of("- role: tool\n  tool_call_id: ''\n  content: x\n") == "2:17: 'tool_call_id' cannot be empty");
}

TEST_CASE("errors: values of the wrong type") {
    CHECK(template_error_of("- role: request\n  temperature: warm\n") == "2:16: 'temperature' expects a number, found 'warm'");
    CHECK(template_error_of("- role: request\n  temperature: '0.2'\n") ==
          "2:16: 'temperature' expects a number, found '0.2' (quoted, so a string)");
    CHECK(template_error_of("- role: request\n  temperature:\n") == "2:3: 'temperature' expects a number, found nothing");
    CHECK(template_error_of("- role: request\n  max_tokens: 1.5\n") == "2:15: 'max_tokens' expects an integer, found '1.5'");
    CHECK(template_error_of("- role: request\n  seed: 99999999999999999999\n") ==
          "2:9: 'seed' expects an integer, found '99999999999999999999' (outside the 64-bit range)");
    CHECK(template_error_of("- role: request\n  seed: -99999999999999999999\n") ==
          "2:9: 'seed' expects an integer, found '-99999999999999999999' (outside the 64-bit range)");
    CHECK(template_error_of("- role: request\n  model: [a]\n") == "2:10: 'model' expects a string, found a list");
    CHECK(template_error_of("- role: user\n  name: {a: 1}\n") == "2:9: 'name' expects a string, found a map");
    CHECK(template_error_of("- role: user\n  name: ~\n") == "2:9: 'name' expects a string, found null");
    CHECK(template_error_of("- role: user\n  name: null # none\n") == "2:9: 'name' expects a string, found null");
    CHECK(template_error_of("- role: user\n  name:\n- role: user\n") == "2:3: 'name' expects a string, found nothing");
    CHECK(template_error_of("- role: user\n  name:\n  null_name: x\n") == "2:3: 'name' expects a string, found nothing");
    CHECK(template_error_of("- role: user\n  content: {{ question }}\n") ==
          "2:12: 'content' expects a string or a list of content parts, found a map (a text that begins with '{' "
          "must be quoted)");
    CHECK(template_error_of("- role: request\n  stop: {a: 1}\n") == "2:9: 'stop' expects a string or a list of strings, found a map");
    CHECK(template_error_of("- role: request\n  logit_bias: [1]\n") ==
          "2:15: 'logit_bias' expects a map from token ids to biases, found a list");
    CHECK(template_error_of("- role: request\n  functions: lookup\n") ==
          "2:14: 'functions' expects a list of function names, found 'lookup'");
    CHECK(template_error_of("- role: request\n  call_function:\n") ==
          "2:3: 'call_function' expects \"\" (call none), \"*\" (the model chooses), \"+\" (the model calls one) or a function name, found nothing");
    CHECK(template_error_of("- role: request\n  response_format: [json]\n") ==
          "2:20: 'response_format' expects a map such as {type: json_object}, found a list");
    CHECK(template_error_of("- role: request\n  response_format: '{\"type\": '\n") ==
          "2:20: 'response_format' holds text that is not JSON (incomplete JSON)");
    CHECK(template_error_of("- role: user\n  content: [hi]\n") == "2:13: a content part is a map with a 'type', found 'hi'");
    CHECK(template_error_of("- role: assistant\n  tool_calls: [x]\n") ==
          "2:16: a tool call is a map with 'id', 'type' and 'function', found 'x'");
    CHECK(template_error_of("- role: assistant\n  function_call: f\n") ==
          "2:18: 'function_call' expects a map with 'name' and 'arguments', found 'f'");
    CHECK(template_error_of("- role: request\n  response_format: {type: json_object, x: !!binary aGk=}\n") ==
          "2:43: unsupported tag 'tag:yaml.org,2002:binary' (JSON values take !!str only)");
}

TEST_CASE("errors: values out of range and the rules of request parameters") {
    CHECK(template_error_of("- role: request\n  temperature: 2.5\n") == "2:16: 'temperature' must be between 0 and 2");
    CHECK(template_error_of("- role: request\n  temperature: .nan\n") == "2:16: 'temperature' must be between 0 and 2");
    CHECK(template_error_of("- role: request\n  top_p: -0.1\n") == "2:10: 'top_p' must be between 0 and 1");
    CHECK(template_error_of("- role: request\n  presence_penalty: 3\n") == "2:21: 'presence_penalty' must be between -2 and 2");
    CHECK(template_error_of("- role: request\n  frequency_penalty: -2.5\n") ==
          "2:22: 'frequency_penalty' must be between -2 and 2");
    CHECK(template_error_of("- role: request\n  max_tokens: 0\n") == "2:15: 'max_tokens' must be at least 1");
    CHECK(template_error_of("- role: request\n  n: 129\n") == "2:6: 'n' must be between 1 and 128");
    CHECK(template_error_of("- role: request\n  logit_bias: {'50256': 101}\n") ==
          "2:25: 'logit_bias' must be between -100 and 100");
    CHECK(template_error_of("- role: request\n  logit_bias: {the: 1}\n") ==
          "2:16: a 'logit_bias' key is a token id (decimal digits), found 'the'");
    CHECK(template_error_of("- role: request\n  stop: [a, b, c, d, e]\n") == "2:9: 'stop' has at most 4 sequences");
    CHECK(template_error_of("- role: request\n  stop: [a, '']\n") == "2:13: a 'stop' sequence cannot be empty");
    CHECK(template_error_of("- role: request\n  stop: ''\n") == "2:9: a 'stop' sequence cannot be empty");
    CHECK(template_error_of("- role: request\n  response_format: {type: xml}\n") ==
          "2:20: 'response_format' needs a 'type' of \"text\", \"json_object\" or \"json_schema\"");
    CHECK(template_error_of("- role: request\n  functions: [ok, a b]\n") ==
          "2:19: a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'a b'");
    CHECK(template_error_of("- role: request\n  functions: [f, g, f]\n") == "2:21: function 'f' is listed twice in 'functions'");
    CHECK(template_error_of("- role: request\n  call_function: g\n  functions: [f]\n") ==
          "2:18: 'call_function' forces 'g', which 'functions' does not list");
    CHECK(template_error_of("- role: request\n  call_function: 'a b'\n") ==
          "2:18: a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'a b'");
    CHECK(template_error_of("- role: request\n  call_function: '*'\n  functions: [f]\n") == "no error");
}

TEST_CASE("errors: content parts, function calls and tool calls") {
    CHECK(template_error_of("- role: assistant\n  content:\n    - type: image_url\n      image_url: {url: x}\n") ==
          "3:7: image parts belong to user messages, not to an assistant message");
    CHECK(template_error_of("- role: user\n  content:\n    - type: image_url\n      image_url: {url: x, detail: medium}\n") ==
          "4:35: an image detail is 'auto', 'low' or 'high', found 'medium'");
    CHECK(template_error_of("- role: user\n  content:\n    - text: hi\n") ==
          "3:7: a content part needs a 'type' (\"text\" or \"image_url\")");
    CHECK(template_error_of("- role: user\n  content:\n    - type: txt\n      text: hi\n") ==
          "3:13: unknown content part type 'txt' (expected \"text\" or \"image_url\"); did you mean 'text'?");
    CHECK(template_error_of("- role: user\n  content:\n    - type: text\n") == "3:7: a text content part needs a 'text'");
    CHECK(template_error_of("- role: user\n  content:\n    - type: text\n      txt: hi\n") ==
          "4:7: unknown key 'txt' in a text content part (expected type or text); did you mean 'text'?");
    CHECK(template_error_of("- role: user\n  content:\n    - type: image_url\n      image_url: {detail: low}\n") ==
          "4:18: an image_url needs a 'url'");
    CHECK(template_error_of("- role: user\n  content:\n    - type: image_url\n") ==
          "3:7: an image_url content part needs an 'image_url'");
    CHECK(template_error_of("- role: user\n  content:\n    - type: image_url\n      image_url: {url: x, size: 2}\n") ==
          "4:27: unknown key 'size' in an image_url (expected url or detail)");
    CHECK(template_error_of("- role: assistant\n  function_call: {arguments: '{}'}\n") ==
          "2:18: a function call needs the function's 'name'");
    CHECK(template_error_of("- role: assistant\n  function_call: {name: f, args: '{}'}\n") ==
          "2:28: unknown key 'args' in a function call (expected name or arguments)");
    CHECK(template_error_of("- role: assistant\n  tool_calls:\n    - function: {name: f}\n") == "3:7: a tool call needs an 'id'");
    CHECK(template_error_of("- role: assistant\n  tool_calls:\n    - id: c1\n") ==
          "3:7: a function call needs the function's 'name'");
    CHECK(template_error_of("- role: assistant\n  tool_calls:\n    - id: c1\n      type: tool\n      function: {name: f}\n") ==
          "4:13: a tool call's type is \"function\"");
}

TEST_CASE("errors: the set's structure, names and functions") {
    CHECK(set_error("- role: user\n") ==
          "1:1: a template set is a map with 'templates', 'functions' and 'mcp_servers', found a list (a list of messages is a "
          "single template: read it with load_template)");
    CHECK(set_error("") == "1:1: a template set is a map with 'templates', 'functions' and 'mcp_servers', found nothing");
    CHECK(set_error("template:\n  a: []\n") ==
          "1:1: unknown key 'template' at the top level of a template set (expected templates, functions or mcp_servers); did "
          "you mean 'templates'?");
    CHECK(set_error("templates:\n  a:\n    mesages: []\n") ==
          "3:5: unknown key 'mesages' in a template (expected description, version, variables or messages); did "
          "you mean 'messages'?");
    CHECK(set_error("templates:\n  a:\n    description: x\n") == "3:5: a template needs 'messages' (a list of messages)");
    CHECK(set_error("templates:\n  a: hello\n") ==
          "2:6: a template is a list of messages, or a map with 'messages' (and 'description', 'version', "
          "'variables'), found 'hello'");
    CHECK(set_error("templates: [a]\n") == "1:12: 'templates' expects a map from template names to templates, found a list");
    CHECK(set_error("templates:\n  a: []\n  b: []\n  a: []\n") == "4:3: template 'a' is defined twice");
    CHECK(set_error("templates:\n  '': []\n") == "2:3: a template of a set needs a name");
    CHECK(set_error("functions:\n  - name: f\n  - name: f\n") == "3:11: function 'f' is defined twice");
    CHECK(set_error("functions:\n  - name: a b\n") == "2:11: a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'a b'");
    CHECK(set_error("functions:\n  - description: x\n") == "2:5: a function definition needs a 'name'");
    CHECK(set_error("functions:\n  - name: f\n    params: {}\n") ==
          "3:5: unknown key 'params' in a function definition (expected name, description, parameters, strict, command or "
          "timeout)");
    CHECK(set_error("functions:\n  - name: f\n    parameters: [a]\n") ==
          "3:17: 'parameters' expects a JSON schema (a map, or a string of JSON text), found a list");
    CHECK(set_error("functions:\n  - name: f\n    parameters: '[1]'\n") ==
          "3:17: 'parameters' expects a JSON schema (a map, or a string of JSON text), found JSON text that is not "
          "an object");
    CHECK(set_error("functions: {f: {}}\n") == "1:12: 'functions' expects a list of function definitions, found a map");
    CHECK(set_error("templates: {}\n---\ntemplates: {}\n") == "3:1: a file holds one YAML document; this is a second one");
    CHECK(set_error("templates:\n  a:\n    - role: user\n      content: hi\n  1: []\n  ? [x]\n  : []\n") ==
          "6:5: a key is a string, found a list");
}

TEST_CASE("function commands: `command` and `timeout` of a definition, kept apart from what the model sees") {
    const template_set set = load_template_set(
        "functions:\n  - name: f\n    description: d\n    command: echo \"$x\" | tr a b\n    timeout: 2.5\n"
        "  - name: g\n    command: 'true'\n  - name: h\n");
    REQUIRE(set.command("f"));
    CHECK(*set.command("f") == function_command{"echo \"$x\" | tr a b", 2.5});
    CHECK(*set.command("g") == function_command{"true", 0});
    CHECK(set.command("h") == nullptr);
    CHECK(*set.function("f") == function_definition{"f", "d", {}});
    const std::string yaml = dump_yaml(set);
    CHECK(yaml.find("    command: echo \"$x\" | tr a b\n    timeout: 2.5\n") != std::string::npos);
    CHECK(load_template_set(yaml) == set);
    template_set other = set;
    other.set_command("g", {"false", 1});
    CHECK_FALSE(other == set);

    CHECK(set_error("functions:\n  - name: f\n    command: 'true'\n    timeout: 0\n") ==
          "4:14: 'timeout' expects a number of seconds above 0 (up to 1e9), found '0'");
    CHECK(set_error("functions:\n  - name: f\n    command: 'true'\n    timeout: soon\n") ==
          "4:14: 'timeout' expects a number, found 'soon'");
    CHECK(set_error("functions:\n  - name: f\n    timeout: 3\n") ==
          "3:14: 'timeout' is the time limit of a 'command', and the function has none");
    CHECK(set_error("functions:\n  - name: f\n    command: ' '\n") ==
          "3:14: 'command' is empty: give the shell command that runs the function");
    CHECK(set_error("functions:\n  - name: f\n    command: [ls]\n") ==
          "3:14: 'command' expects a shell command (a string), found a list");
    template_set s;
    CHECK_THROWS_WITH_AS(s.set_command("f", {"true", 0}), "a command for function 'f', which the set does not define",
                         parley::error);
}

TEST_CASE("errors: function names in requests must be defined by the set (or given from outside)") {
    const std::string yaml = "templates:\n  a:\n    - role: request\n      functions: [lookup, time]\n"
                             "      call_function: time\nfunctions:\n  - name: lookup\n";
    CHECK(set_error(yaml) == "4:27: 'functions' names 'time', which the set does not define");
    yaml_options options;
    options.external_functions = {"time"};
    CHECK(set_error(yaml, errc::chat_invalid, options) == "no error");
    const std::string forced = "templates:\n  a:\n    - role: request\n      call_function: clock\n";
    CHECK(set_error(forced) == "4:22: 'call_function' names 'clock', which the set does not define");
    options.external_functions = {"clock"};
    CHECK(set_error(forced, errc::chat_invalid, options) == "no error");
    yaml_options unchecked;
    unchecked.check_functions = false;
    CHECK(set_error(forced, errc::chat_invalid, unchecked) == "no error");
    // the functions section may come before or after the templates
    CHECK(set_error("functions:\n  - name: clock\n" + forced) == "no error");
}

TEST_CASE("mcp_servers: stdio and HTTP servers, their tools and prefixes, as the set's declarations") {
    const std::string yaml =
        "mcp_servers:\n"
        "  files:\n"
        "    command: npx\n"
        "    args: [-y, '@modelcontextprotocol/server-filesystem', /srv/data]\n"
        "    env: {LOG_LEVEL: warn, DEPTH: 3}\n"
        "    cwd: servers\n"
        "    tools: [read_file, list.directory]\n"
        "    timeout: 12.5\n"
        "  everything:\n"
        "    command: [node, server.js, stdio]\n"
        "  tracker:\n"
        "    url: https://mcp.example.com/mcp\n"
        "    headers:\n"
        "      Authorization: Bearer ${TRACKER_TOKEN}\n"
        "    prefix: ''\n"
        "templates:\n"
        "  a:\n"
        "    - role: request\n"
        "      functions: [files_read_file, files_list_directory, everything_echo, everything_get-sum, issues, lookup]\n"
        "      call_function: everything_get-sum\n"
        "functions:\n"
        "  - name: lookup\n";
    const template_set set = load_template_set(yaml, "t.yaml");
    REQUIRE(set.mcp_servers().size() == 3);
    const mcp_server& files = set.mcp_servers()[0];
    CHECK(files.name == "files");
    CHECK(files.command == "npx");
    CHECK(files.args == std::vector<std::string>{"-y", "@modelcontextprotocol/server-filesystem", "/srv/data"});
    CHECK(files.env == std::vector<std::pair<std::string, std::string>>{{"LOG_LEVEL", "warn"}, {"DEPTH", "3"}});
    CHECK(files.cwd == "servers");
    CHECK(files.tools == std::vector<std::string>{"read_file", "list.directory"});
    CHECK_FALSE(files.prefix);
    CHECK(files.function_prefix() == "files_");
    CHECK(files.function_name("list.directory") == "files_list_directory");
    CHECK(files.timeout == 12.5);
    CHECK_FALSE(files.is_http());
    const mcp_server& everything = *set.mcp_server_named("everything");
    CHECK(everything.command == "node");
    CHECK(everything.args == std::vector<std::string>{"server.js", "stdio"});
    CHECK(everything.tools.empty());
    const mcp_server& tracker = *set.mcp_server_named("tracker");
    CHECK(tracker.is_http());
    CHECK(tracker.url == "https://mcp.example.com/mcp");
    CHECK(tracker.headers == std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer ${TRACKER_TOKEN}"}});
    CHECK(tracker.prefix == std::optional<std::string>(""));
    CHECK(tracker.function_prefix().empty());
    CHECK(set.mcp_server_named("none") == nullptr);

    // which server a name may come from: the listed tools exactly, else any name under the prefix
    CHECK(set.mcp_server_for("files_read_file") == &files);
    CHECK(set.mcp_server_for("everything_anything") == &everything);
    CHECK(set.mcp_server_for("everything_") == &tracker);  // nothing after everything's prefix: the empty prefix's
    CHECK(set.mcp_server_for("files_write_file") == &tracker);
    CHECK_NOTHROW(set.check_functions());

    // the round trip, and the dump's form
    const std::string dumped = dump_yaml(set);
    CHECK(load_template_set(dumped, "dump.yaml") == set);
    CHECK(dump_yaml(load_template_set(dumped)) == dumped);
    CHECK(dumped.find("mcp_servers:\n"
                      "  files:\n"
                      "    command: npx\n"
                      "    args:\n"
                      "      - '-y'\n"
                      "      - '@modelcontextprotocol/server-filesystem'\n"
                      "      - /srv/data\n"
                      "    env:\n"
                      "      LOG_LEVEL: warn\n"
                      "      DEPTH: '3'\n"
                      "    cwd: servers\n"
                      "    tools:\n"
                      "      - read_file\n"
                      "      - list.directory\n"
                      "    timeout: 12.5\n"
                      "  everything:\n"
                      "    command: node\n"
                      "    args:\n"
                      "      - server.js\n"
                      "      - stdio\n"
                      "  tracker:\n"
                      "    url: https://mcp.example.com/mcp\n"
                      "    headers:\n"
                      "      Authorization: Bearer ${TRACKER_TOKEN}\n"
                      "    prefix: ''\n") != std::string::npos);
    template_set other = set;
    mcp_server more;
    more.name = "more";
    more.url = "http://127.0.0.1:1/mcp";
    other.add(more);
    CHECK_FALSE(other == set);
    CHECK(load_template_set(dump_yaml(other)) == other);

    // a file with only mcp_servers is a set, not a single template
    CHECK(load_templates("mcp_servers:\n  s: {url: 'http://h/mcp'}\n", "single").mcp_servers().size() == 1);
}

TEST_CASE("mcp_servers: function names in requests under a server's prefix are accepted until the server runs") {
    const std::string servers = "mcp_servers:\n  srv:\n    command: server\n";
    // any name under the prefix: the server's tools are known only once it runs
    CHECK(set_error(servers + "templates:\n  a:\n    - role: request\n      functions: [srv_anything]\n") == "no error");
    CHECK(set_error(servers + "templates:\n  a:\n    - role: request\n      call_function: srv_x\n") == "no error");
    // the prefix alone names no tool
    CHECK(set_error(servers + "templates:\n  a:\n    - role: request\n      functions: [srv_]\n") ==
          "7:19: 'functions' names 'srv_', which the set does not define");
    CHECK(set_error(servers + "templates:\n  a:\n    - role: request\n      functions: [other_x]\n") ==
          "7:19: 'functions' names 'other_x', which the set does not define");
    // with `tools`, exactly those, under the prefix
    const std::string listed = "mcp_servers:\n  srv:\n    command: server\n    tools: [echo, get.sum]\n    prefix: m-\n";
    CHECK(set_error(listed + "templates:\n  a:\n    - role: request\n      functions: [m-echo, m-get_sum]\n") == "no error");
    CHECK(set_error(listed + "templates:\n  a:\n    - role: request\n      functions: [m-echo, m-add]\n") ==
          "9:27: 'functions' names 'm-add', which the set does not define (MCP server 'srv' offers only the tools its "
          "'tools' lists: m-echo, m-get_sum)");
    CHECK(set_error(listed + "templates:\n  a:\n    - role: request\n      call_function: m-add\n") ==
          "9:22: 'call_function' names 'm-add', which the set does not define (MCP server 'srv' offers only the tools "
          "its 'tools' lists: m-echo, m-get_sum)");
    // the servers may come after the templates
    CHECK(set_error("templates:\n  a:\n    - role: request\n      functions: [srv_x]\n" + servers) == "no error");
}

TEST_CASE("mcp_servers: after connecting, a name under a server's prefix must be one of its tools, at its place") {
    const std::string yaml = "templates:\n"
                             "  a:\n"
                             "    - role: user\n"
                             "      content: hi\n"
                             "    - role: request\n"
                             "      functions: [srv_echo, srv_echoo]\n"
                             "  b:\n"
                             "    - role: request\n"
                             "      call_function: srv_sum\n"
                             "mcp_servers:\n"
                             "  srv: {command: server}\n";
    const template_set set = load_template_set(yaml, "t.yaml");
    const std::vector<std::pair<std::string, std::vector<std::string>>> tools = {{"srv", {"echo", "get-sum"}}};
    try {
        set.check_mcp_functions({"srv_echo", "srv_get-sum"}, tools);
        FAIL("no error");
    } catch (const located_error& e) {
        CHECK(e.code() == errc::chat_invalid);
        CHECK(e.where().name == "t.yaml");
        CHECK(e.where().line == 6);
        CHECK(e.where().column == 29);
        CHECK(e.message() == "'functions' names 'srv_echoo', which MCP server 'srv' does not offer (its tools, under the "
                             "prefix 'srv_': echo, get-sum)");
        CHECK(std::string(e.what()).find("\n        functions: [srv_echo, srv_echoo]\n" + std::string(30, ' ') + "^") !=
              std::string::npos);
    }
    try {
        set.check_mcp_functions({"srv_echo", "srv_echoo"}, tools);
        FAIL("no error");
    } catch (const located_error& e) {
        CHECK(e.where().line == 9);
        CHECK(e.where().column == 22);
        CHECK(e.message() == "'call_function' names 'srv_sum', which MCP server 'srv' does not offer (its tools, under "
                             "the prefix 'srv_': echo, get-sum)");
    }
    CHECK_NOTHROW(set.check_mcp_functions({"srv_echo", "srv_echoo", "srv_sum"}, tools));
    // a set built in C++ has no places: the error names the template and the message
    template_set built;
    message request;
    request.role = role::request;
    request.params.functions = std::vector<std::string>{"srv_x"};
    built.add(conversation_template("t", {request}));
    mcp_server srv;
    srv.name = "srv";
    srv.command = "server";
    built.add(srv);
    CHECK_NOTHROW(built.check_functions());
    CHECK_THROWS_WITH_AS(built.check_mcp_functions({}, {{"srv", {}}}),
                         "t, message 0: 'functions' names 'srv_x', which MCP server 'srv' does not offer (its tools, "
                         "under the prefix 'srv_': none)",
                         parley::error);
}

TEST_CASE("mcp_servers: every error at its place") {
    auto err = [](const std::string& servers) { return set_error("mcp_servers:\n" + servers); };
    CHECK(set_error("mcp_servers: [a]\n") == "1:14: 'mcp_servers' expects a map from server names to servers, found a list");
    CHECK(err("  s: npx\n") ==
          "2:6: an MCP server is a map with a 'command' (stdio) or a 'url' (Streamable HTTP), found 'npx'");
    CHECK(err("  s:\n") ==
          "2:3: an MCP server is a map with a 'command' (stdio) or a 'url' (Streamable HTTP), found nothing");
    CHECK(err("  s: {}\n") == "2:6: MCP server 's' needs a 'command' (the program that runs it, stdio) or a 'url' "
                             "(Streamable HTTP)");
    CHECK(err("  s:\n    command: x\n    url: http://h/mcp\n") ==
          "4:5: an MCP server has a 'command' (stdio) or a 'url' (Streamable HTTP), not both");
    CHECK(err("  s:\n    url: http://h/mcp\n    command: x\n") ==
          "4:5: an MCP server has a 'command' (stdio) or a 'url' (Streamable HTTP), not both");
    CHECK(err("  s:\n    comand: x\n") ==
          "3:5: unknown key 'comand' in an MCP server (expected command, args, env, cwd, url, headers, tools, prefix or "
          "timeout); did you mean 'command'?");
    CHECK(err("  s:\n    command: x\n    command: y\n") == "4:5: key 'command' is given twice (first on line 3)");
    CHECK(err("  s: {command: x}\n  s: {command: y}\n") == "3:3: MCP server 's' is declared twice");
    CHECK(err("  a b: {command: x}\n") ==
          "2:3: an MCP server's name matches ^[a-zA-Z0-9_-]{1,63}$ (it begins the names of its functions), found 'a b'");
    CHECK(err("  '': {command: x}\n") ==
          "2:3: an MCP server's name matches ^[a-zA-Z0-9_-]{1,63}$ (it begins the names of its functions), found ''");
    // command
    CHECK(err("  s:\n    command: ' '\n") == "3:14: 'command' is empty: give the program that runs the server");
    CHECK(err("  s:\n    command: []\n") == "3:14: 'command' is empty: give the program that runs the server");
    CHECK(err("  s:\n    command: ['', x]\n") == "3:15: the program of 'command' is empty");
    CHECK(err("  s:\n    command: {a: b}\n") ==
          "3:14: 'command' expects a program (a string), or a list of the program and its arguments, found a map");
    CHECK(err("  s:\n    command: [x, [y]]\n") ==
          "3:18: 'command' expects a string, found a list");
    CHECK(err("  s:\n    command: [x, y]\n    args: [z]\n") ==
          "4:5: 'args' goes with a 'command' given as a string; this 'command' is a list (the program, then its arguments)");
    CHECK(err("  s:\n    command: x\n    args: z\n") == "4:11: 'args' expects a list of arguments, found 'z'");
    CHECK(err("  s:\n    command: x\n    env: [A=1]\n") == "4:10: 'env' expects a map from variable names to values, found a list");
    CHECK(err("  s:\n    command: x\n    env: {A: [1]}\n") == "4:14: 'A' expects a string, found a list");
    CHECK(err("  s:\n    command: x\n    env: {A=B: 1}\n") ==
          "4:11: an environment variable's name is not empty and has no '=', found 'A=B'");
    CHECK(err("  s:\n    command: x\n    cwd: ''\n") ==
          "4:10: 'cwd' is empty: give the directory the server runs in, or leave 'cwd' out");
    // url
    CHECK(err("  s:\n    url: ftp://h/mcp\n") == "3:10: 'url' expects an http:// or https:// URL, found 'ftp://h/mcp'");
    CHECK(err("  s:\n    url: http://\n") == "3:10: 'url' expects an http:// or https:// URL, found 'http://'");
    CHECK(err("  s:\n    url: [x]\n") == "3:10: 'url' expects a URL (a string), found a list");
    CHECK(err("  s:\n    url: http://h/mcp\n    headers: {'a b': x}\n") ==
          "4:15: a header name is a token (letters, digits and !#$%&'*+-.^_`|~), found 'a b'");
    CHECK(err("  s:\n    url: http://h/mcp\n    headers: {A: \"x\\ny\"}\n") ==
          "4:18: the value of header 'A' has a line break or a NUL");
    CHECK(err("  s:\n    url: http://h/mcp\n    headers: [A]\n") ==
          "4:14: 'headers' expects a map from header names to values, found a list");
    // keys of the other transport
    CHECK(err("  s:\n    url: http://h/mcp\n    env: {A: b}\n") ==
          "4:5: 'env' belongs to a server run as a 'command', and this one has a 'url'");
    CHECK(err("  s:\n    url: http://h/mcp\n    args: [a]\n") ==
          "4:5: 'args' belongs to a server run as a 'command', and this one has a 'url'");
    CHECK(err("  s:\n    url: http://h/mcp\n    cwd: /\n") ==
          "4:5: 'cwd' belongs to a server run as a 'command', and this one has a 'url'");
    CHECK(err("  s:\n    command: x\n    headers: {A: b}\n") ==
          "4:5: 'headers' belong to a server reached at a 'url', and this one has a 'command'");
    // tools, prefix, timeout
    CHECK(err("  s:\n    command: x\n    tools: []\n") ==
          "4:12: 'tools' lists no tool: leave it out to offer every tool of the server");
    CHECK(err("  s:\n    command: x\n    tools: echo\n") == "4:12: 'tools' expects a list of tool names, found 'echo'");
    CHECK(err("  s:\n    command: x\n    tools: [echo, '']\n") == "4:19: a tool name cannot be empty");
    CHECK(err("  s:\n    command: x\n    tools: [echo, sum, echo]\n") == "4:24: tool 'echo' is listed twice in 'tools'");
    CHECK(err("  s:\n    command: x\n    prefix: a.\n") ==
          "4:13: a prefix of function names matches ^[a-zA-Z0-9_-]{0,63}$, found 'a.'");
    CHECK(err("  s:\n    command: x\n    prefix:\n") == "4:5: 'prefix' expects a string (\"\" for none), found nothing");
    CHECK(err("  s:\n    command: x\n    prefix: " + std::string(64, 'p') + "\n") ==
          "4:13: a prefix of function names matches ^[a-zA-Z0-9_-]{0,63}$, found '" + std::string(37, 'p') + "...'");
    CHECK(err("  s:\n    command: x\n    timeout: 0\n") ==
          "4:14: 'timeout' expects a number of seconds above 0 (up to 1e9), found '0'");
    CHECK(err("  s:\n    command: x\n    timeout: '5'\n") == "4:14: 'timeout' expects a number, found '5' (quoted, so a string)");

    yaml_options options;
    options.limits.max_mcp_servers = 2;
    CHECK(set_error("mcp_servers:\n  a: {url: 'http://h/'}\n  b: {url: 'http://h/'}\n  c: {url: 'http://h/'}\n",
                    errc::template_limit, options) == "4:3: a set has more than the limit of 2 MCP servers");

    // the declarations built in C++ follow the same rules
    template_set set;
    mcp_server both;
    both.name = "both";
    both.command = "x";
    both.url = "http://h/";
    CHECK_THROWS_WITH_AS(set.add(both), "MCP server 'both' needs either a 'command' (stdio) or a 'url' (Streamable HTTP)",
                         parley::error);
    mcp_server bad_prefix;
    bad_prefix.name = "p";
    bad_prefix.command = "x";
    bad_prefix.prefix = "a b";
    CHECK_THROWS_WITH_AS(set.add(bad_prefix), "the prefix of MCP server 'p' matches ^[a-zA-Z0-9_-]{0,63}$, found 'a b'",
                         parley::error);
}

TEST_CASE("errors: YAML syntax, with the parser's position") {
    CHECK(set_error("templates:\n  a: [1, 2\n", errc::yaml_syntax) == "3:1: YAML syntax error: end of sequence flow not found");
    CHECK(template_error_of("- role: user\n  content: Answer: yes\n", errc::yaml_syntax) ==
          "2:18: YAML syntax error: illegal map value (a text that contains ': ' must be quoted)");
    CHECK(template_error_of("- role: user\n  content: \"a \\q b\"\n", errc::yaml_syntax) ==
          "2:17: YAML syntax error: unknown escape character: q");
    CHECK(template_error_of("- role: request\n  call_function: *\n", errc::yaml_syntax) ==
          "2:19: YAML syntax error: alias not found after * (a text that begins with '*' must be quoted, as in '*')");
    try {
        load_template_set("templates:\n  a: [1, 2\n", "syntax.yaml");
        FAIL("no error");
    } catch (const yaml_error& e) {
        CHECK(std::string(e.what()) == "syntax.yaml:3:1: YAML syntax error: end of sequence flow not found\n  \n  ^");
    }
}

TEST_CASE("errors: a ',' outside a flow collection is a syntax error, not a parser that never returns") {
    // yaml-cpp 0.7's LoadAll loops for ever on these (found by fuzz/yaml_fuzz.cpp): without the
    // loader's own document count this test does not end.
    CHECK(set_error(",\n", errc::yaml_syntax) == "1:1: YAML syntax error: unexpected ',' outside a flow collection");
    CHECK(template_error_of(",- role: bot\n", errc::yaml_syntax) ==
          "1:1: YAML syntax error: unexpected ',' outside a flow collection");
    CHECK(template_error_of("- role: user\n  content: hi\n,\n", errc::yaml_syntax) ==
          "3:1: YAML syntax error: unexpected ',' outside a flow collection");
    CHECK(set_error("templates: {}\n---\n,\n", errc::yaml_syntax) ==
          "3:1: YAML syntax error: unexpected ',' outside a flow collection");
    CHECK(template_error_of("- role: user\n  content: hi\n---\n- role: user\n") ==
          "4:1: a file holds one YAML document; this is a second one");
}

TEST_CASE("template errors: the template's own line:col placed in the YAML file, for every scalar style") {
    // plain
    CHECK(text_error("- role: user\n  content: Hi {{ name | }}\n") == "2:25: expected a name, got '}}'");
    // plain over several lines (folded into one)
    CHECK(text_error("- role: user\n  content: Hi\n    there {{ x +\n    }}\n") == "4:5: unexpected '}}'");
    // single-quoted, with a doubled quote before the error
    CHECK(text_error("- role: user\n  content: 'It''s {{ x + }}'\n") == "2:26: unexpected '}}'");
    // double-quoted, with escapes before the error (each counts as the characters written)
    CHECK(text_error("- role: user\n  content: \"\\t\\u00e9\\\" {{ x + }}\"\n") == "2:31: unexpected '}}'");
    // double-quoted with an escaped line break
    CHECK(text_error("- role: user\n  content: \"one \\\n    two {{ x + }}\"\n") == "3:16: unexpected '}}'");
    // literal block: template line L is file line (header + L), column indent + col
    CHECK(text_error("- role: user\n  content: |\n    line one\n\n    {{ x + }}\n") == "5:12: unexpected '}}'");
    // literal block with an indentation indicator and a keep chomping indicator
    CHECK(text_error("- role: user\n  content: |2+\n       three spaces\n     {{ x + }}\n") == "4:13: unexpected '}}'");
    // folded block (lines joined by spaces in the text)
    CHECK(text_error("- role: user\n  content: >\n    one\n    two {{ x +\n    }}\n") == "5:5: unexpected '}}'");
    // folded block with a more-indented line
    CHECK(text_error("- role: user\n  content: >-\n    a\n      b\n    {{ x + }}\n") == "5:12: unexpected '}}'");
    // a content part's text
    CHECK(text_error("- role: user\n  content:\n    - type: text\n      text: \"{% if %}\"\n") ==
          "4:20: expected an expression, got '%}'");
    // columns count code points; CRLF line ends; a byte order mark
    CHECK(text_error("- role: user\r\n  content: \"é😀 {{ x + }}\"\r\n") == "2:23: unexpected '}}'");
    CHECK(text_error("\xEF\xBB\xBF- role: user\n  content: '{{ + }}'\n") == "2:18: unexpected '}}'");
    // the end of the text: an unclosed block
    CHECK(text_error("- role: user\n  content: |-\n    {% if x %}\n    yes\n") ==
          "4:8: unexpected end of template, expected 'endif'");
    // an unknown filter is a parse error of its own kind
    CHECK(text_error("- role: user\n  content: '{{ x | nope }}'\n", errc::template_unknown_name) ==
          "2:20: unknown filter 'nope'");
}

TEST_CASE("template errors: what() shows the YAML file's line and a caret") {
    try {
        load_template_set("templates:\n  a:\n    - role: user\n      content: |\n        Hi {{ name | }}\n", "prompts.yaml");
        FAIL("no error");
    } catch (const template_error& e) {
        CHECK(std::string(e.what()) == "prompts.yaml:5:22: expected a name, got '}}'\n"
                                       "          Hi {{ name | }}\n"
                                       "                       ^");
    }
}

namespace {

// "line:col: message" of the error that rendering the template `yaml` (a list of messages, from
// the file t.yaml) with `data` throws.
std::string render_error(std::string_view yaml, const boost::json::value& data = boost::json::object()) {
    const conversation_template t = load_template(yaml, "t", "t.yaml");
    try {
        render(t, data);
    } catch (const template_error& e) {
        CHECK(e.where().name == "t.yaml");
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
    } catch (const std::exception& e) {
        return std::string("not a template error: ") + e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("template errors: errors of rendering a loaded template are placed in the YAML file too") {
    const std::string div = "integer division or modulo by zero";
    // plain: "Hi {{ 1 // 0 }}" fails at its column 9 (the operator)
    CHECK(render_error("- role: user\n  content: Hi {{ 1 // 0 }}\n") == "2:20: " + div);
    // plain over several lines
    CHECK(render_error("- role: system\n  content: Hi\n- role: user\n  content: one\n    two {{ 1 // 0 }}\n") ==
          "5:14: " + div);
    // single-quoted, after a doubled quote
    CHECK(render_error("- role: user\n  content: 'It''s {{ 1 // 0 }}'\n") == "2:24: " + div);
    // double-quoted, after escapes
    CHECK(render_error("- role: user\n  content: \"\\t\\u00e9 {{ 1 // 0 }}\"\n") == "2:27: " + div);
    // double-quoted over an escaped line break
    CHECK(render_error("- role: user\n  content: \"one \\\n    two {{ 1 // 0 }}\"\n") == "3:14: " + div);
    // literal block: line L of the text is line L after the header
    CHECK(render_error("- role: user\n  content: |\n    line one\n\n    {{ name.first }} {{ 1 // 0 }}\n",
                       boost::json::parse(R"({"name": {"first": "Ada"}})")) == "5:27: " + div);
    // literal block with an indentation indicator
    CHECK(render_error("- role: user\n  content: |2-\n       three spaces\n     {{ 1 // 0 }}\n") == "4:11: " + div);
    // folded block
    CHECK(render_error("- role: user\n  content: >\n    one\n    two {{ 1 // 0 }}\n") == "4:14: " + div);
    // a content part's text, after an image part
    CHECK(render_error("- role: user\n  content:\n    - type: image_url\n      image_url: {url: 'https://x/a.png'}\n"
                       "    - type: text\n      text: \"Look: {{ 1 // 0 }}\"\n") == "6:25: " + div);
    // an undefined value, with the data
    CHECK(render_error("- role: user\n  content: '{{ user.name.first }}'\n") == "2:21: 'user' is undefined");
    // inside a macro the text defines, called later in the text
    CHECK(render_error("- role: system\n  content: |\n    {% macro f(x) %}{{ x // 0 }}{% endmacro %}\n    {{ f(3) }}\n") ==
          "3:26: " + div);
    // a message of a set's template
    try {
        const template_set set = load_template_set(
            "templates:\n  a:\n    - role: user\n      content: ok\n  b:\n    - role: system\n      content: |\n"
            "        fine\n        {{ \"a\" + 1 }}\n", "prompts.yaml");
        render(set.at("b"), boost::json::object());
        FAIL("no error");
    } catch (const template_error& e) {
        CHECK(std::string(e.what()) == "prompts.yaml:9:16: can only concatenate str (not \"int\") to str\n"
                                       "          {{ \"a\" + 1 }}\n" +
                                           std::string(2 + 15, ' ') + "^");
        CHECK(e.code() == errc::template_type);
    }
    // the origin goes with copies; a template written in C++ keeps the text's own place
    const conversation_template loaded = load_template("- role: user\n  content: 'x {{ 1 // 0 }}'\n", "t", "t.yaml");
    const conversation_template copy = loaded;
    CHECK_THROWS_WITH_AS(render(copy, boost::json::object()), doctest::Contains("t.yaml:2:20: "), template_error);
    const conversation_template made("t", {make_message(role::user, "x {{ 1 // 0 }}")});
    CHECK(made.origin() == nullptr);
    CHECK_THROWS_WITH_AS(render(made, boost::json::object()), doctest::Contains("t#0:1:8: "), template_error);
}

TEST_CASE("load_templates: a set, or a single template as a set of one named after the file") {
    const template_set list = load_templates("- role: system\n  content: Be brief.\n- role: user\n", "brief", "brief.yaml");
    REQUIRE(list.templates().size() == 1);
    CHECK(list.templates()[0].name() == "brief");
    CHECK(list.templates()[0] == load_template("- role: system\n  content: Be brief.\n- role: user\n", "brief"));
    CHECK(list.functions().empty());

    const template_set map = load_templates("description: Brief.\nmessages:\n  - role: user\n    content: hi\n", "m");
    REQUIRE(map.templates().size() == 1);
    CHECK(map.templates()[0].info() == template_info{"m", "Brief.", {}, {}});

    const std::string set_text = "templates:\n  a: [{role: user, content: hi}]\nfunctions:\n  - name: f\n";
    CHECK(load_templates(set_text, "ignored") == load_template_set(set_text));

    const template_set file = load_templates_file(data_dir + "single.yaml", [] {
        yaml_options o;
        o.external_functions = {"lookup"};
        return o;
    }());
    REQUIRE(file.templates().size() == 1);
    CHECK(file.templates()[0].name() == "single");
    CHECK(load_templates_file(data_dir + "assistants.yaml") == load_template_set_file(data_dir + "assistants.yaml"));

    // errors as in the shape the file has
    auto error_of = [](std::string_view yaml, const yaml_options& options = {}) -> std::string {
        try {
            load_templates(yaml, "t", "t.yaml", options);
        } catch (const located_error& e) {
            return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
        }
        return "no error";
    };
    CHECK(error_of("- role: bot\n") == "1:9: unknown role 'bot' (" + roles + ")");
    CHECK(error_of("- name: f\n  description: d\n") ==
          "1:3: a message needs a 'role' (" + roles + "); this looks like a function definition: a list of them is a "
          "functions file, not a template");
    CHECK(error_of("- name: f\n") == "1:3: a message needs a 'role' (" + roles + ")");
    CHECK(error_of("- role: user\n  content: '{{ x + }}'\n") == "2:20: unexpected '}}'");
    yaml_options external;
    external.external_functions = {"other"};
    CHECK(error_of("- role: request\n  functions: [lookup]\n", external) ==
          "2:15: 'functions' names 'lookup', which the set does not define");
    CHECK(error_of("messages: []\ntemplates: {}\n") == "1:1: unknown key 'messages' at the top level of a template set "
                                                        "(expected templates, functions or mcp_servers)");
    CHECK(error_of("just text\n") == "1:1: a template set is a map with 'templates', 'functions' and 'mcp_servers', found 'just text'");
}

TEST_CASE("load_functions: a list of function definitions added to a set") {
    template_set set = load_template_set("templates:\n  a: [{role: request, functions: [f]}]\nfunctions:\n  - name: f\n");
    load_functions("- name: g\n  description: G.\n  parameters: {type: object, properties: {x: {type: integer}}}\n"
                   "  command: ./g.sh\n  timeout: 3\n- name: h\n",
                   set, "functions.yaml");
    REQUIRE(set.functions().size() == 3);
    CHECK(set.functions()[1] == function_definition{"g", "G.", boost::json::parse(
                                                                   R"({"type": "object", "properties": {"x": {"type": "integer"}}})")
                                                                   .as_object()});
    CHECK(*set.command("g") == function_command{"./g.sh", 3});
    CHECK(set.functions()[2].name == "h");

    // JSON is read as well
    template_set json_set;
    load_functions(R"([{"name": "lookup", "description": "Looks up.", "parameters": {"type": "object"}}])", json_set);
    REQUIRE(json_set.functions().size() == 1);
    CHECK(json_set.functions()[0].parameters == boost::json::parse(R"({"type": "object"})").as_object());

    auto error_of = [](std::string_view text, template_set into = {}) -> std::string {
        try {
            load_functions(text, into, "functions.yaml");
        } catch (const yaml_error& e) {
            CHECK(e.where().name == "functions.yaml");
            return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
        }
        return "no error";
    };
    CHECK(error_of("functions:\n  - name: f\n") ==
          "1:1: a functions file is a list of function definitions (each a map with 'name', 'description' and "
          "'parameters'), found a map");
    CHECK(error_of("- name: f\n  parameter: {}\n") ==
          "2:3: unknown key 'parameter' in a function definition (expected name, description, parameters, strict, command or "
          "timeout); did you mean 'parameters'?");
    CHECK(error_of("- name: bad name\n") == "1:9: " + describe(chat_rule::bad_function_name, role::assistant, "bad name"));
    CHECK(error_of("- description: no name\n") == "1:3: a function definition needs a 'name'");
    CHECK(error_of("- name: f\n- name: f\n") == "2:9: function 'f' is defined twice");
    CHECK(error_of("- name: f\n", set) == "1:9: function 'f' is defined twice");
    CHECK(error_of("[{\"name\": \"f\", \"parameters\": [1]}]") ==
          "1:30: 'parameters' expects a JSON schema (a map, or a string of JSON text), found a list");
}

TEST_CASE("limits: size, depth, values, templates, messages, functions") {
    yaml_options small;
    small.limits.max_bytes = 20;
    CHECK(set_error("templates:\n  abcdefghijklmnop: []\n", errc::template_limit, small) ==
          "2:10: the text is longer than the limit of 20 bytes");

    std::string deep = "functions:\n  - name: f\n    parameters:";
    for (int i = 0; i < 70; ++i) deep += " {a:";
    deep += " 1" + std::string(70, '}') + "\n";
    CHECK(set_error(deep, errc::template_limit) == "3:261: maps and lists nest deeper than the limit of 64 levels");

    std::string very_deep = "functions:\n  - name: f\n    parameters: " + std::string(5000, '[') + std::string(5000, ']');
    CHECK(set_error(very_deep, errc::template_limit).find(": the YAML nests too deeply for the parser") != std::string::npos);

    // aliases multiply: 10 levels of 10 aliases would be 10^10 values
    std::string laughs = "functions:\n  - name: f\n    parameters:\n      l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 10; ++i) {
        const std::string prev = "*l" + std::to_string(i - 1);
        laughs += "      l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) laughs += (k ? ", " : "") + prev;
        laughs += "]\n";
    }
    const std::string laughed = set_error(laughs, errc::template_limit);
    CHECK(laughed.find(": more than the limit of 200000 values (an alias counts each time it is used)") != std::string::npos);

    yaml_options few;
    few.limits.max_templates = 2;
    few.limits.max_messages = 2;
    few.limits.max_functions = 1;
    CHECK(set_error("templates:\n  a: []\n  b: []\n  c: []\n", errc::template_limit, few) ==
          "4:3: a set has more than the limit of 2 templates");
    CHECK(set_error("templates:\n  a:\n    - role: truncate\n    - role: truncate\n    - role: truncate\n",
                    errc::template_limit, few) == "5:7: a template has more than the limit of 2 messages");
    CHECK(set_error("functions:\n  - name: f\n  - name: g\n", errc::template_limit, few) ==
          "3:5: a set has more than the limit of 1 functions");
}

TEST_CASE("files: names in errors, a missing file, the size limit read from the file") {
    try {
        load_template_set_file(data_dir + "no-such-file.yaml");
        FAIL("no error");
    } catch (const yaml_error& e) {
        CHECK(e.code() == errc::invalid_argument);
        CHECK(e.where().line == 0);
        CHECK(e.message() == "cannot open the file");
        CHECK(e.where().name == data_dir + "no-such-file.yaml");
    }
    yaml_options small;
    small.limits.max_bytes = 100;
    try {
        load_template_set_file(data_dir + "assistants.yaml", small);
        FAIL("no error");
    } catch (const yaml_error& e) {
        CHECK(e.code() == errc::template_limit);
        CHECK(e.where().name == data_dir + "assistants.yaml");
        CHECK(e.where().line == 2);
    }
}

TEST_CASE("dump: block scalars with the right chomping, quoting, numbers") {
    message user = make_message(role::user, "# Question\n\n{{ ask }}");
    message kept = make_message(role::user, "two newlines\n\n");
    message clipped = make_message(role::assistant, "one newline\n");
    message indented = make_message(role::system, "  starts with spaces\nthen not");
    message tricky = make_message(role::user, "null");
    message req;
    req.role = role::request;
    req.params.temperature = 0.2;
    req.params.top_p = 0.1 + 0.2;
    req.params.presence_penalty = 1.0;
    req.params.stop = std::string("- END");
    req.params.call_function = "*";
    req.params.model = "yes";
    const conversation_template t("t", {user, kept, clipped, indented, tricky, make_message(role::user, ""),
                                        make_message(role::user, "it's: #1"), req});
    const std::string yaml = dump_yaml(t);
    CHECK(yaml ==
          "- role: user\n  content: |-\n    # Question\n\n    {{ ask }}\n"
          "- role: user\n  content: |+\n    two newlines\n\n"
          "- role: assistant\n  content: |\n    one newline\n"
          "- role: system\n  content: |2-\n      starts with spaces\n    then not\n"
          "- role: user\n  content: 'null'\n"
          "- role: user\n  content: ''\n"
          "- role: user\n  content: 'it''s: #1'\n"
          "- role: request\n  model: 'yes'\n  temperature: 0.2\n  top_p: 0.30000000000000004\n  stop: '- END'\n"
          "  presence_penalty: 1.0\n  call_function: '*'\n");
    CHECK(load_template(yaml, "t") == t);
}

TEST_CASE("round trip: the data file, and a dump is stable") {
    const template_set set = load_template_set_file(data_dir + "assistants.yaml");
    const std::string once = dump_yaml(set);
    const template_set again = load_template_set(once, "dump.yaml");
    CHECK(again == set);
    CHECK(dump_yaml(again) == once);
    CHECK(load_template_set(dump_yaml(template_set{})) == template_set{});
    const conversation_template empty("e", {});
    CHECK(load_template(dump_yaml(empty), "e") == empty);
}

namespace {

// Pieces that YAML writers get wrong: indicators, quotes, comments, numbers, booleans, nulls,
// white space at the ends, tabs, line breaks, control characters, unicode, invalid UTF-8.
const std::vector<std::string> pieces = {
    " ", "  ", "\t", "\n", "\n\n", "#", " #", ": ", ":", "'", "\"", "\\", "-", "- ", "? ", "*", "&", "!", "%", "@",
    "`", ",", "[", "]", "}", "|", ">", "~", "null", "true", "False", "yes", "no", "1", "1.5", "-2", "0x1F", "1e3",
    ".inf", ".nan", "---", "...", "é", "😀", "日本", "\r", "\r\n", "\x01", "\x7f", "\u0085", "\u00a0", "\u2028",
    "\ufeff", "a", "word", "two words", "{{ x }}", "\xff", "\0", "<<", "="};

std::string tricky_string(std::mt19937& rng, bool for_template) {
    std::uniform_int_distribution<std::size_t> count(0, 6), which(0, pieces.size() - 1);
    std::string s;
    for (std::size_t n = count(rng); n > 0; --n) {
        const std::string& p = pieces[which(rng)];
        if (for_template && p.find('{') != std::string::npos) continue;
        s += p;
    }
    return s;
}

boost::json::value tricky_json(std::mt19937& rng, int depth) {
    std::uniform_int_distribution<int> kind(0, depth > 2 ? 5 : 7);
    switch (kind(rng)) {
    case 0: return nullptr;
    case 1: return rng() % 2 == 0;
    case 2: return static_cast<std::int64_t>(rng()) - (std::int64_t(1) << 31);
    case 3: return std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
    case 4: return static_cast<double>(rng() % 100);  // a double with an integral value stays a double
    case 5: return boost::json::string(tricky_string(rng, false));
    case 6: {
        boost::json::array a;
        for (unsigned n = rng() % 4; n > 0; --n) a.push_back(tricky_json(rng, depth + 1));
        return a;
    }
    default: {
        boost::json::object o;
        for (unsigned n = rng() % 4; n > 0; --n) o[tricky_string(rng, false)] = tricky_json(rng, depth + 1);
        return o;
    }
    }
}

template_set tricky_set(std::mt19937& rng) {
    auto str = [&] { return tricky_string(rng, false); };
    auto text = [&] { return tricky_string(rng, true); };
    auto nonempty = [&] {
        std::string s = str();
        return s.empty() ? std::string("x") : s;
    };
    template_set set;
    for (unsigned t = rng() % 3 + 1; t > 0; --t) {
        std::vector<message> messages;
        message defaults;
        defaults.role = role::default_request;
        defaults.params.model = str();
        defaults.params.temperature = std::uniform_real_distribution<double>(0, 2)(rng);
        defaults.params.stop = std::vector<std::string>{nonempty(), nonempty()};
        defaults.params.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{std::to_string(rng() % 100000), -7}};
        defaults.params.response_format = boost::json::object{{"type", "json_schema"}, {"json_schema", tricky_json(rng, 0)}};
        messages.push_back(defaults);
        message system = make_message(role::system, text());
        system.name = nonempty();  // a name given is not empty
        messages.push_back(system);
        message user;
        user.role = role::user;
        user.content = std::vector<content_part>{content_part::make_text(text()),
                                                 content_part::make_image(str(), std::string("auto"))};
        messages.push_back(user);
        message call;
        call.role = role::assistant;
        call.content = text();
        call.tool_calls.push_back({nonempty(), {"f", str()}});
        call.function_call = function_call{"g", str()};
        messages.push_back(call);
        message tool = make_message(role::tool, text());
        tool.tool_call_id = nonempty();
        messages.push_back(tool);
        message req;
        req.role = role::request;
        req.params.stop = nonempty();
        req.params.functions = std::vector<std::string>{"f"};
        req.params.call_function = rng() % 2 ? "f" : "";
        messages.push_back(req);
        std::string name = nonempty();
        while (set.find(name)) name += "+";
        set.add(conversation_template(template_info{name, str(), str(), {str(), str()}}, std::move(messages)));
    }
    function_definition f{"f", str(), boost::json::object{{"type", "object"}, {str(), tricky_json(rng, 0)}}};
    set.add(std::move(f));
    mcp_server server;
    server.name = "s" + std::to_string(rng() % 100);
    if (rng() % 2) {
        server.command = "x" + str();
        server.args = {str(), str()};
        server.env = {{"K", str()}, {nonempty() + "_", text()}};
        for (auto& [name, value] : server.env)
            std::replace(name.begin(), name.end(), '=', '_');
        server.cwd = "d" + str();
    } else {
        server.url = "https://h" + str();
        std::string value = str();
        value.erase(std::remove_if(value.begin(), value.end(), [](char c) { return c == '\r' || c == '\n' || c == '\0'; }),
                    value.end());
        server.headers = {{"X-Key", value}};
    }
    server.tools = {nonempty(), nonempty() + "+"};
    if (server.tools[0] == server.tools[1]) server.tools.pop_back();
    if (rng() % 2) server.prefix = rng() % 2 ? std::string() : std::string("p_");
    if (rng() % 2) server.timeout = std::uniform_real_distribution<double>(0.001, 1000)(rng);
    set.add(std::move(server));
    return set;
}

}  // namespace

TEST_CASE("round trip: generated sets of tricky strings read back equal") {
    std::mt19937 rng(20240726);
    int failures = 0;
    for (int i = 0; i < 300 && failures < 3; ++i) {
        const template_set set = tricky_set(rng);
        const std::string yaml = dump_yaml(set);
        try {
            const template_set back = load_template_set(yaml, "generated.yaml");
            if (!(back == set)) {
                ++failures;
                FAIL_CHECK("set " << i << " reads back different:\n" << escaped(yaml));
            }
        } catch (const std::exception& e) {
            ++failures;
            FAIL_CHECK("set " << i << " does not load: " << escaped(e.what()) << "\n" << escaped(yaml));
        }
    }
    CHECK(failures == 0);
}

TEST_CASE("scalar positions: every style the dumper writes maps back to its text exactly") {
    std::mt19937 rng(7);
    int mapped = 0;
    for (int i = 0; i < 500; ++i) {
        const std::string s = tricky_string(rng, true);
        const conversation_template t("t", {make_message(role::user, s)});
        const std::string yaml = dump_yaml(t);
        const std::size_t start = yaml.find("content:") + 9;
        const auto map = detail::map_yaml_scalar(yaml, start, s);
        if (map) ++mapped;
        else FAIL_CHECK("no exact map for " << escaped(s) << " written as\n" << escaped(yaml));
    }
    CHECK(mapped == 500);
}

TEST_CASE("scalar positions: generated scalars of every style, as the YAML parser reads them, map exactly") {
    std::mt19937 rng(11);
    const char* words[] = {"a", "bc", "{{ x }}", "é", "#x", "-", "'", "\"", "x:y"};
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    int tried = 0, mapped = 0;
    for (int i = 0; i < 4000; ++i) {
        const std::size_t style = pick(5), lines = 1 + pick(4);
        const std::string indent(2 + pick(2) * 2, ' ');
        std::string yaml = "k:";
        if (style == 0) {  // plain, folded over lines
            yaml += " a";
            for (std::size_t l = 0; l < lines; ++l) {
                if (l) yaml += std::string(pick(3), ' ') + (pick(3) == 0 ? "\n" : "") + "\n" + indent + std::string(pick(2), ' ');
                yaml += std::string(words[pick(2)]) + (pick(2) ? " " : "") + words[pick(2)];
            }
        } else if (style == 1 || style == 2) {  // single- or double-quoted, over lines
            const char q = style == 1 ? '\'' : '"';
            yaml += ' ';
            yaml += q;
            for (std::size_t l = 0; l < lines; ++l) {
                if (l) {
                    if (style == 2 && pick(3) == 0) yaml += "\\";
                    else yaml += std::string(pick(3), pick(2) ? ' ' : '\t');
                    yaml += (pick(3) == 0 ? "\n" : "") + std::string("\n") + indent + std::string(pick(3), ' ');
                }
                for (std::size_t w = 1 + pick(3); w > 0; --w) {
                    std::string word = words[pick(9)];
                    if (word == "'" && style == 1) word = "''";
                    if (word == "\"" && style == 2) word = "\\\"";
                    yaml += word;
                    if (pick(2)) yaml += pick(4) ? " " : "\t";
                    if (style == 2 && pick(5) == 0) yaml += pick(2) ? "\\t" : "\\u00e9";
                }
            }
            yaml += q;
        } else {  // literal or folded, with indicators
            yaml += style == 3 ? " |" : " >";
            const bool indicator = pick(3) == 1;
            if (indicator) yaml += "2";
            yaml += std::string("\0-+", 3).substr(pick(3), 1);
            if (yaml.back() == '\0') yaml.pop_back();
            if (pick(4) == 0) yaml += " # comment";
            yaml += "\n";
            const std::string content_indent = indicator ? std::string(2, ' ') : indent;
            for (std::size_t l = 0; l < lines; ++l) {
                const std::size_t kind = pick(4);
                if (kind == 0) yaml += std::string(pick(3), ' ') + "\n";
                else
                    yaml += content_indent + (kind == 1 ? std::string(1 + pick(2), ' ') : "") + words[pick(9)] +
                            (pick(3) == 0 ? " " : "") + (pick(4) == 0 ? "\t" : "") + " " + words[pick(9)] + "\n";
            }
            if (pick(2)) yaml += "\n\n";
        }
        yaml += "\nz: 1\n";
        if (pick(4) == 0) {  // CRLF line ends
            std::string crlf;
            for (char c : yaml) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
            yaml = crlf;
        }
        YAML::Node root;
        try {
            root = YAML::Load(yaml);
        } catch (const YAML::Exception&) {
            continue;  // the generator wrote something that is not YAML
        }
        if (!root.IsMap() || !root["k"].IsScalar()) continue;
        ++tried;
        const YAML::Node value = root["k"];
        if (detail::map_yaml_scalar(yaml, static_cast<std::size_t>(value.Mark().pos), value.Scalar())) ++mapped;
        else FAIL_CHECK("no exact map for " << escaped(value.Scalar()) << " in\n" << escaped(yaml));
    }
    CHECK(tried > 3000);
    CHECK(mapped == tried);
}

TEST_CASE("docs/yaml-format.md: its examples load as the page says") {
    std::ifstream in(PARLEY_TEST_SOURCE_DIR "/docs/yaml-format.md");
    REQUIRE(in);
    const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int checked = 0;
    for (std::size_t at = page.find("```yaml\n"); at != std::string::npos; at = page.find("```yaml\n", at)) {
        at += 8;
        const std::string block = page.substr(at, page.find("```", at) - at);
        if (block.rfind("templates:", 0) == 0) {
            const template_set set = load_template_set(block, "example.yaml");
            CHECK(set.templates().size() == 2);
            CHECK(set.at("weather").messages()[0].text() == "Use the functions you are given and answer in one sentence.");
            const auto r = render(set.at("ask"), boost::json::parse(R"({"ask": "Why?", "times": 1})"));
            CHECK(r.messages[1].text() == "# Question\n\nWhy? (asked 1 times)");
            ++checked;
        } else if (block.rfind("functions:", 0) == 0) {
            const template_set set = load_template_set(block, "example.yaml");
            REQUIRE(set.command("lookup_order"));
            CHECK(*set.command("lookup_order") == function_command{"./lookup_order.py --json", 5});
            ++checked;
        } else if (block.rfind("mcp_servers:", 0) == 0) {
            const template_set set = load_template_set(block, "ask.yaml");
            REQUIRE(set.mcp_servers().size() == 3);
            const mcp_server& files = set.mcp_servers()[0];
            CHECK(files.command == "npx");
            CHECK(files.args == std::vector<std::string>{"-y", "@modelcontextprotocol/server-filesystem", "/srv/data"});
            CHECK(files.function_name("read_file") == "files_read_file");
            CHECK(set.mcp_servers()[1].args == std::vector<std::string>{"servers/everything/index.js", "stdio"});
            CHECK(set.mcp_servers()[1].timeout == 20);
            CHECK(set.mcp_servers()[2].headers ==
                  std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer ${TRACKER_TOKEN}"}});
            CHECK(set.mcp_servers()[2].function_prefix().empty());
            CHECK(set.mcp_server_for("files_read_file") == &files);
            CHECK(set.mcp_server_for("everything_echo") == &set.mcp_servers()[1]);
            // the error the page shows, for the name misspelt as it shows it
            std::string typo = block;
            typo.replace(typo.find("everything_echo, create_issue"), 15, "everything_ecco");
            const template_set misspelt = load_template_set(typo, "ask.yaml");
            try {
                misspelt.check_mcp_functions({"files_read_file", "everything_echo", "create_issue"},
                                             {{"files", {"read_file", "list_directory"}}, {"everything", {"echo", "get-sum"}}});
                FAIL("no error");
            } catch (const located_error& e) {
                const std::string shown = std::string(e.what());
                CHECK(page.find("error: " + shown.substr(0, shown.find("get-sum") + 7)) != std::string::npos);
                CHECK(page.find(shown.substr(shown.find('\n'))) != std::string::npos);
            }
            ++checked;
        } else if (block.rfind("# look_up.yaml", 0) == 0) {
            CHECK(load_template(block, "look_up").messages().size() == 3);
            ++checked;
        } else if (block.find("{{ x + }}") != std::string::npos) {
            CHECK(text_error(block) == "5:12: unexpected '}}'");
            ++checked;
        } else if (block.find("|2-") != std::string::npos) {
            CHECK(load_template(block, "t").messages()[0].text() ==
                  "  two leading spaces are part of the text\nthis line has none");
            ++checked;
        } else if (block.rfind("# functions.yaml", 0) == 0) {
            template_set set;
            load_functions(block, set, "functions.yaml");
            REQUIRE(set.functions().size() == 1);
            CHECK(set.functions()[0].name == "lookup");
            CHECK(*set.command("lookup") == function_command{"./lookup.sh", 0});
            ++checked;
        } else if (block.find("Today is {{ 1 // 0 }}.") != std::string::npos) {
            CHECK(render_error(block) == "4:19: integer division or modulo by zero");
            ++checked;
        } else if (block.rfind("content: >", 0) == 0) {
            std::string message = "- role: user\n";
            for (std::size_t line = 0; line < block.size();) {
                const std::size_t end = block.find('\n', line) + 1;
                message += "  " + block.substr(line, end - line);
                line = end;
            }
            CHECK(load_template(message, "t").messages()[0].text() ==
                  "Use the functions you are given and answer in one sentence.\nBe brief.\n");
            ++checked;
        }
    }
    CHECK(checked == 9);
}
