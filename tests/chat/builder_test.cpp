// Tests of parley/chat/builder.hpp: the contents of constexpr builders, their conversion to the
// runtime model (equal to the same template made at run time and loaded from YAML, and
// rendering to the same messages and parameters), the checks of builders made at run time, and
// compile-fail tests: every rule broken in a constexpr builder stops the compiler with a message
// that names it (one translation unit holds every case, compiled with the compiler family that
// built this test, g++ or clang++ from PATH, or PARLEY_CXX).
#include <parley/chat/builder.hpp>

#include <parley/chat/render.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/jinja/compiled.hpp>

#include "../harness/compile_fail.hpp"
#include "../harness/subprocess.hpp"

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct get_weather {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(get_weather, (), (city))
PARLEY_ANNOTATE(get_weather, "The current weather in a city.", (city, "The city's name"))

struct forecast {
    std::string summary;
    bool rain = false;
};
BOOST_DESCRIBE_STRUCT(forecast, (), (summary, rain))

struct find_notes {
    std::string text;
    std::optional<int> limit;
};
BOOST_DESCRIBE_STRUCT(find_notes, (), (text, limit))

// ---- three templates and a set, as builders ---------------------------------------------------

constexpr auto ask = parley::conversation(
    parley::metadata{
        .name = "ask", .description = "Answer a question briefly.", .version = "1.2", .variables = {"ask"}},
    parley::default_request{.model = "gpt-4o-mini", .max_tokens = 256},
    parley::system{"You are brief."},
    parley::user{"# Question\n\n{{ ask }}\n"},
    parley::request{.temperature = 0.2, .stop = {"\n\n", "END"}},
    parley::user{"Thanks! {{ ask|upper }}"});

constexpr auto weather = parley::conversation(
    parley::metadata{.name = "weather", .description = "Look the weather up with a function."},
    parley::default_request{.model = "gpt-4o",
                            .top_p = 0.9,
                            .presence_penalty = -0.5,
                            .frequency_penalty = 1.5,
                            .logit_bias = {{"50256", -100}, {"198", 5}},
                            .n = 2,
                            .response_format = parley::json_object_format},
    parley::system{"Use the functions you are given."},
    parley::user{.content = {parley::text_part{"What is the weather in {{ city }}?"},
                             parley::image_part{.url = "https://example.com/sky.png", .detail = "low"}},
                 .name = "ada"},
    parley::request{.functions = {"get_weather", "get_time"}, .call_function = "get_weather"},
    parley::assistant{.tool_calls = {{.id = "call_1",
                                      .function = {.name = "get_weather", .arguments = R"({"city":"Oslo"})"}}}},
    parley::tool{"call_1", "{{ city }}: {{ degrees }} degrees"},
    parley::assistant{.content = "Checking the time.", .function_call = {.name = "get_time", .arguments = "{}"}},
    parley::function{"get_time", "12:00"},
    parley::truncate{},
    parley::user{"And tomorrow?"},
    parley::request{.stop = "END", .seed = 7, .response_format = R"({"type": "text"})", .functions = parley::empty_list,
                    .call_function = ""});

constexpr auto vision = parley::conversation(parley::metadata{.name = "vision"}, parley::system{"Describe images."},
                                             parley::user{}, parley::request{.model = "gpt-4o"});

constexpr auto assistants = parley::templates(
    parley::function_def_of<get_weather>, ask, weather,
    parley::function_def{.name = "get_time",
                         .description = "The time in a zone.",
                         .parameters = R"({"type": "object", "properties": {"zone": {"type": "string"}}})"},
    vision);

// ---- the same, made at run time ---------------------------------------------------------------

parley::message control(parley::role r) {
    parley::message m;
    m.role = r;
    return m;
}

parley::conversation_template runtime_ask() {
    using namespace parley;
    message defaults = control(role::default_request);
    defaults.params.model = "gpt-4o-mini";
    defaults.params.max_tokens = 256;
    message req = control(role::request);
    req.params.temperature = 0.2;
    req.params.stop = std::vector<std::string>{"\n\n", "END"};
    return conversation_template(template_info{"ask", "Answer a question briefly.", "1.2", {"ask"}},
                                 {defaults, make_message(role::system, "You are brief."),
                                  make_message(role::user, "# Question\n\n{{ ask }}\n"), req,
                                  make_message(role::user, "Thanks! {{ ask|upper }}")});
}

parley::conversation_template runtime_weather() {
    using namespace parley;
    message defaults = control(role::default_request);
    defaults.params.model = "gpt-4o";
    defaults.params.top_p = 0.9;
    defaults.params.presence_penalty = -0.5;
    defaults.params.frequency_penalty = 1.5;
    defaults.params.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"50256", -100}, {"198", 5}};
    defaults.params.n = 2;
    defaults.params.response_format = boost::json::object{{"type", "json_object"}};
    message pic;
    pic.role = role::user;
    pic.name = "ada";
    pic.content = std::vector<content_part>{content_part::make_text("What is the weather in {{ city }}?"),
                                            content_part::make_image("https://example.com/sky.png", "low")};
    message req = control(role::request);
    req.params.functions = std::vector<std::string>{"get_weather", "get_time"};
    req.params.call_function = "get_weather";
    message call = control(role::assistant);
    call.tool_calls.push_back({"call_1", {"get_weather", R"({"city":"Oslo"})"}});
    message result = make_message(role::tool, "{{ city }}: {{ degrees }} degrees");
    result.tool_call_id = "call_1";
    message legacy = make_message(role::assistant, "Checking the time.");
    legacy.function_call = function_call{"get_time", "{}"};
    message time = make_message(role::function, "12:00");
    time.name = "get_time";
    message last = control(role::request);
    last.params.stop = std::string("END");
    last.params.seed = 7;
    last.params.response_format = boost::json::object{{"type", "text"}};
    last.params.functions = std::vector<std::string>{};
    last.params.call_function = "";
    return conversation_template(template_info{"weather", "Look the weather up with a function.", {}, {}},
                                 {defaults, make_message(role::system, "Use the functions you are given."), pic, req,
                                  call, result, legacy, time, control(role::truncate),
                                  make_message(role::user, "And tomorrow?"), last});
}

parley::conversation_template runtime_vision() {
    using namespace parley;
    message req = control(role::request);
    req.params.model = "gpt-4o";
    return conversation_template("vision", {make_message(role::system, "Describe images."), control(role::user), req});
}

parley::template_set runtime_assistants() {
    parley::template_set set;
    set.add(parley::function_definition{"get_weather", "The current weather in a city.",
                                        parley::function_signature<get_weather>()["parameters"].as_object()});
    set.add(runtime_ask());
    set.add(runtime_weather());
    set.add(parley::function_definition{
        "get_time", "The time in a zone.",
        boost::json::parse(R"({"type": "object", "properties": {"zone": {"type": "string"}}})").as_object()});
    set.add(runtime_vision());
    return set;
}

// ---- the same, in YAML --------------------------------------------------------------------------

constexpr std::string_view assistants_yaml = R"(templates:
  ask:
    description: Answer a question briefly.
    version: "1.2"
    variables: [ask]
    messages:
      - role: default-request
        model: gpt-4o-mini
        max_tokens: 256
      - role: system
        content: You are brief.
      - role: user
        content: |
          # Question

          {{ ask }}
      - role: request
        temperature: 0.2
        stop: ["\n\n", END]
      - role: user
        content: "Thanks! {{ ask|upper }}"
  weather:
    description: Look the weather up with a function.
    messages:
      - role: default-request
        model: gpt-4o
        top_p: 0.9
        presence_penalty: -0.5
        frequency_penalty: 1.5
        logit_bias: {"50256": -100, "198": 5}
        n: 2
        response_format: {type: json_object}
      - role: system
        content: Use the functions you are given.
      - role: user
        name: ada
        content:
          - type: text
            text: "What is the weather in {{ city }}?"
          - type: image_url
            image_url: {url: "https://example.com/sky.png", detail: low}
      - role: request
        functions: [get_weather, get_time]
        call_function: get_weather
      - role: assistant
        tool_calls:
          - id: call_1
            type: function
            function: {name: get_weather, arguments: '{"city":"Oslo"}'}
      - role: tool
        tool_call_id: call_1
        content: "{{ city }}: {{ degrees }} degrees"
      - role: assistant
        content: Checking the time.
        function_call: {name: get_time, arguments: "{}"}
      - role: function
        name: get_time
        content: "12:00"
      - role: truncate
      - role: user
        content: And tomorrow?
      - role: request
        stop: END
        seed: 7
        response_format: {type: text}
        functions: []
        call_function: ""
  vision:
    messages:
      - role: system
        content: Describe images.
      - role: user
      - role: request
        model: gpt-4o
functions:
  - name: get_weather
    description: The current weather in a city.
    parameters: {"type": "object", "properties": {"city": {"type": "string", "description": "The city's name"}},
                 "required": ["city"], "additionalProperties": false}
  - name: get_time
    description: The time in a zone.
    parameters: {"type": "object", "properties": {"zone": {"type": "string"}}}
)";

// ---- comparing renders --------------------------------------------------------------------------

void check_same(const parley::rendered_request& a, const parley::rendered_request& b) {
    CHECK(a.added == b.added);
    CHECK(a.params == b.params);
    CHECK(a.messages == b.messages);
    CHECK(a.next == b.next);
    CHECK(a.at_request == b.at_request);
}

// Renders the template up to each request in turn (the history grows with the messages read and
// a reply), for each form, and checks that every form gives what the first gives.
template <class Data>
void check_renders_alike(const std::vector<const parley::conversation_template*>& forms, const Data& data) {
    std::vector<parley::message> history;
    std::size_t from = 0;
    const std::size_t end = forms.front()->messages().size();
    int steps = 0;
    while (from < end && steps++ < 10) {
        const parley::rendered_request first = parley::render(*forms.front(), data, history, {{}, from});
        for (std::size_t k = 1; k < forms.size(); ++k) {
            INFO("form " << k << ", from message " << from);
            check_same(first, parley::render(*forms[k], data, history, {{}, from}));
        }
        history.insert(history.end(), first.added.begin(), first.added.end());
        history.push_back(parley::make_message(parley::role::assistant, "A reply."));
        from = first.next;
    }
    CHECK(from == end);
}

}  // namespace

// ---- contents -----------------------------------------------------------------------------------

TEST_CASE("builder: the contents of a constexpr conversation") {
    static_assert(ask.size() == 5);
    static_assert(ask.name() == "ask");
    static_assert(ask.info().variables.size() == 1 && ask.info().variables[0] == "ask");
    static_assert(ask.get<0>().role == parley::role::default_request);
    static_assert(*ask.get<0>().model == "gpt-4o-mini" && *ask.get<0>().max_tokens == 256);
    static_assert(!ask.get<0>().temperature.has_value());
    static_assert(ask.get<1>().role == parley::role::system);
    static_assert(ask.get<1>().content.text() == "You are brief.");
    static_assert(ask.get<2>().content.type() == parley::builder::content::kind::text);
    static_assert(*ask.get<3>().temperature == 0.2);
    static_assert(!ask.get<3>().stop.is_one() && ask.get<3>().stop.sequences().size() == 2);
    static_assert(ask.get<3>().stop.sequences()[1] == "END");

    static_assert(weather.get<2>().content.type() == parley::builder::content::kind::parts);
    static_assert(weather.get<2>().content.parts().size() == 2);
    static_assert(weather.get<2>().content.parts()[1].is_image());
    static_assert(weather.get<2>().content.parts()[1].url() == "https://example.com/sky.png");
    static_assert(weather.get<2>().content.parts()[1].detail() == "low");
    static_assert(weather.get<2>().name == "ada");
    static_assert(weather.get<0>().logit_bias.size() == 2 && weather.get<0>().logit_bias[0].bias == -100);
    static_assert(weather.get<3>().functions.size() == 2 && *weather.get<3>().call_function == "get_weather");
    static_assert(weather.get<4>().tool_calls.size() == 1);
    static_assert(weather.get<4>().tool_calls[0].function.name == "get_weather");
    static_assert(!weather.get<4>().function_call.given);
    static_assert(weather.get<6>().function_call.given && weather.get<6>().function_call.name == "get_time");
    static_assert(weather.get<5>().tool_call_id == "call_1");
    static_assert(weather.get<7>().name == "get_time");
    static_assert(weather.get<8>().role == parley::role::truncate);
    static_assert(weather.get<10>().stop.is_one());
    static_assert(weather.get<10>().functions.is_set() && weather.get<10>().functions.empty());
    static_assert(weather.get<10>().call_function.has_value() && weather.get<10>().call_function->empty());

    static_assert(vision.get<1>().content.is_none());
    constexpr auto empty = parley::conversation(parley::metadata{.name = "empty"});
    static_assert(empty.size() == 0 && empty.name() == "empty");
    CHECK(empty.to_template().messages().empty());
    static_assert(parley::request{}.empty() && !parley::request{.seed = 1}.empty());
    static_assert(!parley::request{.functions = parley::empty_list}.empty());
    CHECK(ask.to_messages().size() == 5);
}

TEST_CASE("builder: compile-time templates as message texts render as the same texts written as strings") {
    constexpr auto greet = parley::jinja::prompt<"Hello {{ name }}!">;
    constexpr auto with_templates = parley::conversation(
        parley::metadata{.name = "greet"}, parley::system{greet},
        parley::user{{parley::text_part{greet}, parley::text_part{"and {{ name | upper }}"}}});
    constexpr auto with_strings = parley::conversation(
        parley::metadata{.name = "greet"}, parley::system{"Hello {{ name }}!"},
        parley::user{{parley::text_part{"Hello {{ name }}!"}, parley::text_part{"and {{ name | upper }}"}}});
    static_assert(with_templates.get<0>().content.text() == "Hello {{ name }}!");
    static_assert(with_templates.get<1>().content.parts()[0].text() == "Hello {{ name }}!");
    const boost::json::value data = boost::json::parse(R"({"name": "Ada"})");
    const parley::rendered_request a = parley::render(with_templates.to_template(), data);
    check_same(a, parley::render(with_strings.to_template(), data));
    REQUIRE(a.added.size() == 2);
    // a template parsed with other options than the conversations' is not taken as a text
    constexpr auto trimmed = parley::jinja::prompt<"{{ name }}", parley::jinja::compile_options{.trim_blocks = true}>;
    static_assert(!std::is_convertible_v<decltype(trimmed), parley::builder::content>);
    static_assert(std::is_convertible_v<decltype(greet), parley::builder::content>);
}

TEST_CASE("builder: function definitions and response formats from described structs") {
    static_assert(parley::function_def_of<get_weather>.name == "get_weather");
    static_assert(parley::function_def_of<get_weather>.description == "The current weather in a city.");
    static_assert(parley::function_def_of<get_weather>.parameters == parley::json_schema_text<get_weather>);
    static_assert(parley::function_def_of<forecast>.description.empty());
    static_assert(parley::strict_function_def_of<find_notes>.parameters ==
                  parley::strict_json_schema_text<find_notes>);
    // the strict form requires the optional member (as nullable); the plain form does not
    const parley::template_set strict = parley::templates(parley::strict_function_def_of<find_notes>).to_set();
    REQUIRE(strict.functions().size() == 1);
    CHECK(strict.functions()[0].name == "find_notes");
    CHECK(strict.functions()[0].parameters == parley::strict_function_signature<find_notes>()["parameters"]);
    CHECK(strict.functions()[0].parameters != parley::function_signature<find_notes>()["parameters"]);
    static_assert(assistants.size() == 5);
    static_assert(assistants.get<3>().name == "get_time");
    static_assert(assistants.undefined_function().empty());
    constexpr auto partial = parley::templates(weather);
    static_assert(partial.undefined_function() == "get_weather");

    // the strict response format of a type is OpenAI's json_schema shape around the strict schema
    const boost::json::value format = boost::json::parse(parley::strict_response_format<forecast>);
    CHECK(format.at("type") == "json_schema");
    CHECK(format.at("json_schema").at("name") == "forecast");
    CHECK(format.at("json_schema").at("strict") == true);
    CHECK(format.at("json_schema").at("schema") == parley::strict_json_schema<forecast>());
    constexpr auto structured =
        parley::conversation(parley::user{"Forecast for {{ city }}."},
                             parley::request{.response_format = parley::strict_response_format<forecast>});
    const parley::rendered_request r = parley::render(structured.to_template(), boost::json::parse(R"({"city": "Oslo"})"));
    CHECK(boost::json::value(*r.params.response_format) == format);
}

// ---- conversion and equivalence -----------------------------------------------------------------

TEST_CASE("builder: converts to the same templates and set as made at run time and loaded from YAML") {
    const parley::conversation_template built_ask(ask);
    CHECK(built_ask == runtime_ask());
    CHECK(weather.to_template() == runtime_weather());
    CHECK(vision.to_template() == runtime_vision());
    CHECK(built_ask.info() == parley::template_info{"ask", "Answer a question briefly.", "1.2", {"ask"}});

    const parley::template_set built = assistants.to_set();
    const parley::template_set loaded = parley::load_template_set(assistants_yaml, "assistants.yaml");
    CHECK(built == runtime_assistants());
    CHECK(built == loaded);
    CHECK(boost::json::serialize(built.function("get_weather")->parameters) ==
          boost::json::serialize(loaded.function("get_weather")->parameters));
    CHECK(static_cast<parley::template_set>(assistants) == built);
}

TEST_CASE("builder: renders to the same messages and parameters as the runtime and YAML forms") {
    const parley::template_set loaded = parley::load_template_set(assistants_yaml, "assistants.yaml");
    const parley::template_set built = assistants.to_set();
    const parley::template_set made = runtime_assistants();
    for (const char* name : {"ask", "weather", "vision"}) {
        INFO("template " << name);
        const auto data = boost::json::parse(R"({"ask": "Why is the sky blue?", "city": "Oslo", "degrees": -3,
            "contentParts": ["What is it?", {"type": "image_url", "image_url": {"url": "https://x/cat.png"}}]})");
        check_renders_alike({&built.at(name), &made.at(name), &loaded.at(name)}, data);
    }

    // a builder converted once renders as the runtime-made template
    const auto data = boost::json::parse(R"({"ask": "Why?"})");
    const parley::rendered_request direct = parley::render(ask.to_template(), data);
    check_same(direct, parley::render(runtime_ask(), data));
    REQUIRE(direct.messages.size() == 2);
    CHECK(direct.messages[1].text() == "# Question\n\nWhy?");
    CHECK(*direct.params.model == "gpt-4o-mini");
    CHECK(*direct.params.temperature == 0.2);
    CHECK(std::get<std::vector<std::string>>(*direct.params.stop) == std::vector<std::string>{"\n\n", "END"});

    // the last request of `weather` overrides functions with an empty list and stop with one string
    const auto city = boost::json::parse(R"({"city": "Oslo", "degrees": 2})");
    const parley::conversation_template weather_template = weather.to_template();
    const parley::rendered_request first = parley::render(weather_template, city);
    const parley::rendered_request rest = parley::render(weather_template, city, first.added, {{}, first.next});
    CHECK(rest.messages.size() == 1);  // the truncate cut the rest
    CHECK(rest.added[1].text() == "Oslo: 2 degrees");
    CHECK(std::get<std::string>(*rest.params.stop) == "END");
    CHECK(rest.params.functions->empty());
    CHECK(*rest.params.model == "gpt-4o");
}

// ---- builders made at run time ------------------------------------------------------------------

TEST_CASE("builder: made at run time, a broken rule throws the rule's sentence") {
    auto error_of = [](auto make) -> std::string {
        try {
            make();
            return "no error";
        } catch (const parley::error& e) {
            CHECK(e.code() == parley::errc::chat_invalid);
            return e.what();
        }
    };
    CHECK(error_of([] { return parley::conversation(parley::system{"ok"}, parley::function{.content = "x"}); }) ==
          "template, message 1: a function message needs a 'name' (the function's name)");
    CHECK(error_of([] { return parley::conversation(parley::metadata{.name = "t"}, parley::tool{.content = "x"}); }) ==
          "t, message 0: a tool message needs a 'tool_call_id' (the id of the call it answers)");
    CHECK(error_of([] { return parley::conversation(parley::default_request{}); }) ==
          "template, message 0: a default-request message must set at least one request parameter");
    CHECK(error_of([] { return parley::conversation(parley::request{.temperature = 2.5}); }) ==
          "template, message 0: 'temperature' must be between 0 and 2");
    CHECK(error_of([] { return parley::conversation(parley::request{.stop = {"a", "b", "c", "d", "e"}}); }) ==
          "template, message 0: 'stop' has at most 4 sequences");
    CHECK(error_of([] { return parley::conversation(parley::request{.logit_bias = {{"the", 1}}}); }) ==
          "template, message 0: a 'logit_bias' key is a token id (decimal digits), found 'the'");
    CHECK(error_of([] { return parley::conversation(parley::request{.functions = {"get weather"}}); }) ==
          "template, message 0: a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'get weather'");
    CHECK(error_of([] { return parley::conversation(parley::request{.functions = {"f"}, .call_function = "g"}); }) ==
          "template, message 0: 'call_function' forces 'g', which 'functions' does not list");
    CHECK(error_of([] { return parley::conversation(parley::request{.response_format = R"({"type": "xml"})"}); }) ==
          "template, message 0: 'response_format' needs a 'type' of \"text\", \"json_object\" or \"json_schema\"");
    CHECK(error_of([] { return parley::conversation(parley::request{.response_format = "{type: text}"}); }) ==
          "template, message 0: 'response_format' is not a JSON object");
    // a type written with escapes is checked when the builder is converted
    constexpr auto escaped =
        parley::conversation(parley::request{.response_format = R"({"t\u0079pe": "json_object"})"});
    CHECK(*escaped.to_template().messages()[0].params.response_format == boost::json::object{{"type", "json_object"}});
    CHECK(error_of([] {
              return parley::conversation(parley::request{.response_format = R"({"t\u0079pe": "xml"})"}).to_template();
          }) ==
          "template, message 0: 'response_format' needs a 'type' of \"text\", \"json_object\" or \"json_schema\"");
    CHECK(error_of([] {
              return parley::conversation(parley::system{{parley::image_part{.url = "https://x/y.png"}}});
          }) == "template, message 0: image parts belong to user messages, not to a system message");
    CHECK(error_of([] { return parley::templates(parley::conversation(parley::system{"x"})); }) ==
          "template: a template of a set needs a name");
    CHECK(error_of([] { return parley::templates(ask, ask); }) == "ask: template 'ask' is defined twice");
    CHECK(error_of([] {
              return parley::conversation(parley::request{
                  .functions = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0", "b1", "b2", "b3", "b4",
                                "b5", "b6", "b7", "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "d0", "d1",
                                "d2", "d3", "d4", "d5", "d6", "d7", "e0", "e1", "e2", "e3", "e4", "e5", "e6",
                                "e7", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "g0", "g1", "g2", "g3",
                                "g4", "g5", "g6", "g7", "h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "i0"}});
          }) == "template, message 0: a request made by a builder lists at most 64 functions");
}

TEST_CASE("builder: made at run time, a text that does not parse throws where conversation_template does") {
    auto located = [](auto make) -> std::string {
        try {
            make();
            return "no error";
        } catch (const parley::template_error& e) {
            CHECK(e.code() == parley::errc::template_syntax);
            return e.where().name + ":" + std::to_string(e.where().line) + ":" + std::to_string(e.where().column) +
                   ": " + e.message();
        }
    };
    const std::string runtime = located([] {
        return parley::conversation_template(
            "greet", {parley::make_message(parley::role::system, "ok"),
                      parley::make_message(parley::role::user, "Line one\nHello {{ name ")});
    });
    CHECK(runtime == "greet#1:2:15: unexpected end of template, expected '}}'");
    CHECK(located([] {
              return parley::conversation(parley::metadata{.name = "greet"}, parley::system{"ok"},
                                          parley::user{"Line one\nHello {{ name "});
          }) == runtime);
    // a text part and its quoted token
    CHECK(located([] {
              return parley::conversation(parley::user{{parley::text_part{"fine"}, parley::text_part{"{% foo %}"}}});
          }) == "template#0.1:1:4: unknown tag 'foo'");
    // CRLF line ends, a non-ASCII column, a trailing newline: as the runtime parser locates them
    for (const char* text : {"a\r\nb {{ x + }}", "\xc3\xa9lan {{ 1 2 }}", "{% if x %}\n"}) {
        INFO(text);
        const std::string expected = located([&] {
            return parley::conversation_template("template", {parley::make_message(parley::role::user, text)});
        });
        CHECK(expected != "no error");
        CHECK(located([&] { return parley::conversation(parley::user{text}); }) == expected);
    }
}

TEST_CASE("builder: g++ shows every message of the parser by name") {
    // known_syntax_messages lists the parser's messages so that g++ can show them; every string
    // literal with a space in the lexer and the parser must be there
    const std::string dir = subprocess::source_dir() + "/include/parley/jinja/detail/";
    std::vector<std::string> found;
    for (const char* file : {"lexer.hpp", "parser.hpp"}) {
        std::ifstream in(dir + file);
        REQUIRE(in);
        std::stringstream text;
        text << in.rdbuf();
        const std::string s = text.str();
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s.compare(i, 2, "//") == 0) {
                i = s.find('\n', i);
                if (i == std::string::npos) break;
            } else if (s[i] == '\'') {  // a character literal
                i += s[i + 1] == '\\' ? 3 : 2;
            } else if (s[i] == '"') {
                std::string lit;
                for (++i; i < s.size() && s[i] != '"'; ++i) {
                    if (s[i] == '\\') ++i;
                    lit += s[i];
                }
                if (lit.find(' ') != std::string::npos) found.push_back(lit);
            }
        }
    }
    CHECK(found.size() > 40);
    for (const std::string& lit : found) {
        bool known = false;
        for (std::string_view k : parley::detail::known_syntax_messages) known = known || k == lit;
        INFO(lit);
        CHECK(known);
    }
}

// ---- compile-fail tests -------------------------------------------------------------------------

namespace {

using compile_fail::batch_result;
using compile_fail::compile_batch;
using compile_fail::fail_case;
using compile_fail::is_clang;

const char* const prelude = R"(#include <parley/chat/builder.hpp>
#include <boost/describe/class.hpp>
#include <string>
struct lookup { std::string query; };
BOOST_DESCRIBE_STRUCT(lookup, (), (query))
constexpr auto named_a = parley::conversation(parley::metadata{.name = "a"}, parley::user{"{{ x }}"});
constexpr auto unnamed = parley::conversation(parley::user{"{{ x }}"});
)";

}  // namespace

TEST_CASE("builder: every broken rule in a constexpr builder is a compile error that names it") {
    const std::string nine_parts = "parley::user{{parley::text_part{\"1\"}, parley::text_part{\"2\"}, "
                                   "parley::text_part{\"3\"}, parley::text_part{\"4\"}, parley::text_part{\"5\"}, "
                                   "parley::text_part{\"6\"}, parley::text_part{\"7\"}, parley::text_part{\"8\"}, "
                                   "parley::text_part{\"9\"}}}";
    // the parser's message as each compiler prints it: clang++ as an argument value, g++ as a
    // fixed_string template argument (quotes escaped)
    auto said = [](std::string message) {
        if (is_clang()) return "&\"" + message + "\"[0]";
        std::string escaped;
        for (char c : message) escaped += c == '\'' ? std::string("\\'") : std::string(1, c);
        return "{\"" + escaped + "\"}";
    };
    // message, part, line and column of a syntax error (clang++: the arguments of the note on the
    // call of template_syntax_error, which clang 19 prints after the template arguments and clang 14
    // right after the name)
    auto at = [](int message, int part, int line, int column) -> std::vector<std::string> {
        if (is_clang())
            return {"template_syntax_error", "({" + std::to_string(message) + ", " + std::to_string(part) + ", " +
                                                 std::to_string(line) + ", " + std::to_string(column) + ", &\""};
        return {"check_message<" + std::to_string(message) + ",",
                "template_error_at_line<" + std::to_string(line) + ">",
                "template_error_at_column<" + std::to_string(column) + ">"};
    };
    const std::string syntax = "error_a_template_text_does_not_parse";
    std::vector<fail_case> cases = {
        {"function_without_name", "parley::conversation(parley::system{\"ok\"}, parley::function{.content = \"x\"})",
         {"error_a_function_message_needs_a_name"}},
        {"tool_without_id", "parley::conversation(parley::tool{.content = \"x\"})",
         {"error_a_tool_message_needs_a_tool_call_id"}},
        {"empty_default_request", "parley::conversation(parley::default_request{}, parley::user{\"hi\"})",
         {"error_a_default_request_must_set_at_least_one_parameter"}},
        {"temperature", "parley::conversation(parley::request{.temperature = 2.5})",
         {"error_temperature_must_be_between_0_and_2"}},
        {"top_p", "parley::conversation(parley::request{.top_p = 1.5})", {"error_top_p_must_be_between_0_and_1"}},
        {"presence_penalty", "parley::conversation(parley::default_request{.presence_penalty = -3})",
         {"error_presence_penalty_must_be_between_minus_2_and_2"}},
        {"frequency_penalty", "parley::conversation(parley::request{.frequency_penalty = 2.5})",
         {"error_frequency_penalty_must_be_between_minus_2_and_2"}},
        {"max_tokens", "parley::conversation(parley::request{.max_tokens = 0})",
         {"error_max_tokens_must_be_at_least_1"}},
        {"n", "parley::conversation(parley::request{.n = 129})", {"error_n_must_be_between_1_and_128"}},
        {"bias_value", "parley::conversation(parley::request{.logit_bias = {{\"1\", 101}}})",
         {"error_a_logit_bias_must_be_between_minus_100_and_100"}},
        {"too_many_stops", "parley::conversation(parley::request{.stop = {\"a\", \"b\", \"c\", \"d\", \"e\"}})",
         {"error_stop_has_at_most_4_sequences"}},
        {"empty_stop", "parley::conversation(parley::request{.stop = \"\"})",
         {"error_a_stop_sequence_cannot_be_empty"}},
        {"bias_key", "parley::conversation(parley::request{.logit_bias = {{\"the\", 5}}})",
         {"error_a_logit_bias_key_is_a_token_id_in_decimal_digits"}},
        {"function_name", "parley::conversation(parley::request{.functions = {\"get weather\"}})",
         {"error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens"}},
        {"forced_name", "parley::conversation(parley::request{.call_function = \"a b\"})",
         {"error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens"}},
        {"listed_twice", "parley::conversation(parley::request{.functions = {\"f\", \"g\", \"f\"}})",
         {"error_a_function_is_listed_twice_in_functions"}},
        {"forced_not_listed", "parley::conversation(parley::request{.functions = {\"f\"}, .call_function = \"g\"})",
         {"error_call_function_forces_a_function_that_functions_does_not_list"}},
        {"format_type", "parley::conversation(parley::request{.response_format = R\"({\"type\": \"xml\"})\"})",
         {"error_response_format_needs_a_type_of_text_json_object_or_json_schema"}},
        {"format_json", "parley::conversation(parley::request{.response_format = \"{type: text}\"})",
         {"error_response_format_is_not_a_json_object"}},
        {"reasoning_effort", "parley::conversation(parley::request{.reasoning_effort = \"huge\"})",
         {"error_reasoning_effort_is_none_minimal_low_medium_high_xhigh_or_max"}},
        {"thinking_budget",
         "parley::conversation(parley::request{.thinking = parley::builder::thinking{.type = \"enabled\", .budget_tokens = 100}})",
         {"error_thinking_is_enabled_with_a_budget_of_at_least_1024_or_adaptive_or_disabled"}},
        {"top_logprobs", "parley::conversation(parley::request{.top_logprobs = 21})",
         {"error_top_logprobs_must_be_between_0_and_20"}},
        {"metadata_key_twice", "parley::conversation(parley::request{.metadata = {{\"k\", \"1\"}, {\"k\", \"2\"}}})",
         {"error_metadata_has_at_most_16_pairs_of_keys_up_to_64_and_values_up_to_512_characters"}},
        {"extra_json", "parley::conversation(parley::request{.extra = \"[1]\"})", {"error_extra_is_not_a_json_object"}},
        {"image_outside_user", "parley::conversation(parley::system{{parley::image_part{.url = \"u\"}}})",
         {"error_image_parts_belong_to_user_messages"}},
        {"image_detail", "parley::conversation(parley::user{{parley::image_part{.url = \"u\", .detail = \"max\"}}})",
         {"error_an_image_detail_is_auto_low_or_high"}},
        {"call_without_name", "parley::conversation(parley::assistant{.function_call = {.arguments = \"{}\"}})",
         {"error_a_function_call_needs_the_function_name"}},
        {"tool_call_without_id",
         "parley::conversation(parley::assistant{.tool_calls = {{.function = {.name = \"f\"}}}})",
         {"error_a_tool_call_needs_an_id"}},
        {"nine_parts", "parley::conversation(" + nine_parts + ")",
         {"error_a_builder_message_has_at_most_8_content_parts"}},
        {"set_unnamed", "parley::templates(named_a, unnamed)", {"error_a_template_of_a_set_needs_a_name"}},
        {"set_twice", "parley::templates(named_a, named_a)", {"error_two_templates_of_a_set_have_the_same_name"}},
        {"set_function_twice", "parley::templates(parley::function_def_of<lookup>, parley::function_def_of<lookup>)",
         {"error_a_function_is_defined_twice_in_a_set"}},
        {"set_function_name", "parley::templates(parley::function_def{.name = \"look up\", .parameters = \"{}\"})",
         {"error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens"}},
        {"set_parameters", "parley::templates(parley::function_def{.name = \"f\", .parameters = \"[1]\"})",
         {"error_the_parameters_of_a_function_are_not_a_json_object"}},
        {"syntax_unclosed",
         "parley::conversation(parley::system{\"ok\"}, parley::user{\"Line one\\nHello {{ name \"})",
         {syntax, said("unexpected end of template, expected '}}'")}},
        {"syntax_block", "parley::conversation(parley::user{\"{% for x in y %}\\n  {{ x }}\"})",
         {syntax, said("unexpected end of template, expected 'endfor'")}},
        {"syntax_part",
         "parley::conversation(parley::default_request{.model = \"m\"}, parley::user{{parley::text_part{\"ok\"}, "
         "parley::text_part{\"a {% foo %}\"}}})",
         {syntax, said("unknown tag ")}},
        {"syntax_in_metadata_template",
         "parley::conversation(parley::metadata{.name = \"s\"}, parley::assistant{\"{{ 1 + }}\"})",
         {syntax, said("unexpected ")}},
    };
    // where the syntax errors are
    for (auto& c : cases) {
        std::vector<std::string> where;
        if (c.name == "syntax_unclosed") where = at(1, -1, 2, 15);
        if (c.name == "syntax_block") where = at(0, -1, 2, 10);
        if (c.name == "syntax_part") where = at(1, 1, 1, 6);
        if (c.name == "syntax_in_metadata_template") where = at(0, -1, 1, 8);
        c.expected.insert(c.expected.end(), where.begin(), where.end());
    }
    const std::vector<std::string> fine = {
        "constexpr auto fine = parley::conversation(parley::metadata{.name = \"fine\"}, "
        "parley::default_request{.model = \"m\", .temperature = 2, .stop = {\"a\", \"b\", \"c\", \"d\"}}, "
        "parley::user{{parley::text_part{\"{{ q }}\"}, parley::image_part{.url = \"u\", .detail = \"high\"}}}, "
        "parley::function{\"f\", \"{% if x %}y{% endif %}\"}, "
        "parley::request{.functions = {\"f\"}, .call_function = \"f\"});",
        "constexpr auto fine_set = parley::templates(parley::function_def_of<lookup>, named_a, fine);",
    };

    const batch_result r = compile_batch(prelude, cases, fine);
    INFO("compiler: " << subprocess::compiler());
    CHECK_FALSE(r.compiled);
    {
        const auto fine_said = r.per_case.find("fine");
        INFO("about the lines that must compile: " << (fine_said == r.per_case.end() ? "" : fine_said->second));
        CHECK(fine_said == r.per_case.end());  // what is right compiles
    }
    for (const auto& c : cases) {
        INFO("case " << c.name << ": " << c.code);
        const auto it = r.per_case.find(c.name);
        CHECK_MESSAGE(it != r.per_case.end(), "the case compiled; the compiler said:\n" << r.output.substr(0, 4000));
        if (it == r.per_case.end()) continue;
        for (const auto& e : c.expected) {
            INFO("expected: " << e);
            INFO(it->second.substr(0, 6000));
            CHECK(it->second.find(e) != std::string::npos);
        }
    }
}
