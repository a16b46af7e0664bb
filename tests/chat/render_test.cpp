// Tests of parley/chat/render.hpp (with conversation_template.hpp and view.hpp): reading a
// template up to its request, rendering texts with the data and chat_memory, contentParts,
// the effective request parameters, truncate.
#include <parley/chat/render.hpp>

#include <parley/chat/conversation_template.hpp>

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace parley;

namespace {

message control_message(role r) {
    message m;
    m.role = r;
    return m;
}
message request_with_model(role r, std::string model) {
    message m = control_message(r);
    m.params.model = std::move(model);
    return m;
}

struct question {
    std::string ask;
    int times = 1;
};
BOOST_DESCRIBE_STRUCT(question, (), (ask, times))

struct with_parts {
    std::vector<content_part> contentParts;
};
BOOST_DESCRIBE_STRUCT(with_parts, (), (contentParts))

}  // namespace

TEST_CASE("render: reads up to and including the first request, renders texts with the data") {
    message req = control_message(role::request);
    req.params.temperature = 0.2;
    const conversation_template t("ask", {request_with_model(role::default_request, "gpt-4o-mini"),
                                            make_message(role::system, "You are brief."),
                                            make_message(role::user, "# Question\n\n{{ ask }} x{{ times }}"), req,
                                            make_message(role::user, "Thanks! {{ ask|upper }}")});
    const question q{"Why is the sky blue?", 2};
    const rendered_request r = render(t, q);
    REQUIRE(r.added.size() == 4);
    CHECK(r.added[2].text() == "# Question\n\nWhy is the sky blue? x2");
    CHECK(r.at_request);
    CHECK(r.next == 4);
    CHECK(*r.params.model == "gpt-4o-mini");
    CHECK(*r.params.temperature == 0.2);
    REQUIRE(r.messages.size() == 2);
    CHECK(r.messages[0].role == role::system);
    CHECK(r.messages[1].role == role::user);

    // resuming after the request reads the rest; the model comes from the default-request in
    // the history (the messages added before)
    std::vector<message> history = r.added;
    history.push_back(make_message(role::assistant, "Rayleigh scattering."));
    const rendered_request rest = render(t, boost::json::parse(R"({"ask": "ok"})"), history, {{}, r.next});
    REQUIRE(rest.added.size() == 1);
    CHECK(rest.added[0].text() == "Thanks! OK");
    CHECK_FALSE(rest.at_request);
    CHECK(rest.next == 5);
    CHECK(*rest.params.model == "gpt-4o-mini");
    CHECK_FALSE(rest.params.temperature.has_value());
    CHECK(rest.messages.size() == 4);
}

TEST_CASE("render: the nearest default-request wins; the defaults apply only without one") {
    const conversation_template t("t", {make_message(role::user, "hi"), control_message(role::request)});
    request_params defaults;
    defaults.model = "default-model";
    defaults.temperature = 1;
    CHECK(*render(t, boost::json::object{}, {}, {defaults, 0}).params.model == "default-model");

    const std::vector<message> history{request_with_model(role::default_request, "old"),
                                       make_message(role::user, "a"),
                                       request_with_model(role::default_request, "new")};
    const auto r = render(t, boost::json::object{}, history, {defaults, 0});
    CHECK(*r.params.model == "new");
    CHECK_FALSE(r.params.temperature.has_value());  // the defaults are not merged in
}

TEST_CASE("render: chat_memory is the conversation so far, after the last truncate") {
    const conversation_template t("t", {make_message(role::user, "second"),
                make_message(role::user,
                             "{% for m in chat_memory %}{{ m.role }}={{ m.content }};{% endfor %} n={{ chat_memory|length }}")});
    std::vector<message> history{make_message(role::user, "dropped"), control_message(role::truncate),
                                 make_message(role::system, "sys"), request_with_model(role::default_request, "m"),
                                 make_message(role::assistant, "first")};
    const auto r = render(t, boost::json::object{}, history);
    CHECK(r.added[1].text() == "system=sys;assistant=first;user=second; n=3");
    CHECK(r.messages.size() == 4);
    CHECK(r.messages[0].text() == "sys");
}

TEST_CASE("render: templates have the chat extensions: chat_memory as a dialogue") {
    const conversation_template t(
        "t", {make_message(role::system, "{{ chat_memory | extract_dialogue }}|{{ chat_memory.extractDialogue('U:', 'A:', '/') }}")});
    const auto r = render(t, boost::json::object{}, {make_message(role::user, "hi"), make_message(role::assistant, "hello")});
    CHECK(r.added[0].text() == "User: hi\nAssistant: hello|U:hi/A:hello");
}

TEST_CASE("render: messages in templates read in their JSON shape (tool calls, parts, names)") {
    message call;
    call.role = role::assistant;
    call.tool_calls.push_back({"call_9", {"get_weather", R"({"city":"Oslo"})"}});
    message tool = make_message(role::tool, "cold");
    tool.tool_call_id = "call_9";
    message pic;
    pic.role = role::user;
    pic.name = "ada";
    pic.content = std::vector<content_part>{content_part::make_text("look"),
                                            content_part::make_image("https://x/p.png", "high")};
    const conversation_template t("t", {make_message(role::user,
                             "{% set c = chat_memory[0].tool_calls[0] %}{{ c.id }} {{ c.type }} {{ c.function.name }} "
                             "{{ c.function.arguments }} | {{ chat_memory[1].tool_call_id }} | "
                             "{{ chat_memory[2].name }} {{ chat_memory[2].content[1].image_url.url }} "
                             "{{ chat_memory[2].content[1].image_url.detail }} {{ chat_memory[2].content[0].text }} | "
                             "{{ chat_memory[0].content }} {{ chat_memory[0]|list }}")});
    const auto r = render(t, boost::json::object{}, {call, tool, pic});
    CHECK(r.added[0].text() ==
          R"(call_9 function get_weather {"city":"Oslo"} | call_9 | ada https://x/p.png high look | None ['role', 'content', 'tool_calls'])");
}

TEST_CASE("render: content parts are rendered one by one; images are left alone") {
    message m;
    m.role = role::user;
    m.content = std::vector<content_part>{content_part::make_text("Describe {{ thing }}"),
                                          content_part::make_image("https://x/{{ thing }}.png")};
    const conversation_template t("t", {m});
    const auto r = render(t, boost::json::parse(R"({"thing": "cat"})"));
    CHECK(r.added[0].parts()[0].text == "Describe cat");
    CHECK(r.added[0].parts()[1].url == "https://x/{{ thing }}.png");
}

TEST_CASE("render: a user message without content takes the data's contentParts") {
    message empty_user;
    empty_user.role = role::user;
    const conversation_template t("vision", {make_message(role::system, "Describe images."), empty_user});
    const auto r = render(t, boost::json::parse(R"({"contentParts": ["What is it?",
        {"type": "image_url", "image_url": {"url": "https://x/cat.png", "detail": "low"}},
        {"type": "text", "text": "Be short."}]})"));
    const auto& parts = r.added[1].parts();
    REQUIRE(parts.size() == 3);
    CHECK(parts[0] == content_part::make_text("What is it?"));
    CHECK(parts[1] == content_part::make_image("https://x/cat.png", "low"));
    CHECK(parts[2].text == "Be short.");

    // from a described struct holding parts
    const with_parts data{{content_part::make_image("https://x/dog.png")}};
    CHECK(render(t, data).added[1].parts()[0].url == "https://x/dog.png");

    auto error_of = [&](std::string_view json) -> std::string {
        try {
            render(t, boost::json::parse(json));
            return "no error";
        } catch (const parley::error& e) {
            return e.what();
        }
    };
    CHECK(error_of("{}") == "vision, message 1: a user message without content takes its content from the data's "
                            "'contentParts', which the data does not have");
    CHECK(error_of(R"({"contentParts": "x"})") == "vision, message 1: the data's 'contentParts' must be a list of parts");
    CHECK(error_of(R"({"contentParts": [{"type": "audio"}]})") ==
          "vision, message 1: contentParts[0] must be a string or an object whose 'type' is \"text\" or "
          "\"image_url\"");
    CHECK(error_of(R"({"contentParts": [{"type": "image_url", "image_url": {"url": "u", "detail": "max"}}]})") ==
          "vision, message 1: contentParts[0]: an image detail is 'auto', 'low' or 'high', found 'max'");
}

TEST_CASE("render: a forced function the effective functions do not list is an error") {
    message d = control_message(role::default_request);
    d.params.functions = std::vector<std::string>{"a"};
    message req = control_message(role::request);
    req.params.call_function = "b";
    const conversation_template t("t", {d, make_message(role::user, "x"), req});
    CHECK_THROWS_WITH_AS(render(t, boost::json::object{}),
                         "t: the effective request parameters: 'call_function' forces 'b', which 'functions' does not list",
                         parley::error);
}

TEST_CASE("conversation_template: rules and template syntax are checked when it is made") {
    CHECK_THROWS_WITH_AS(conversation_template("bad", {make_message(role::user, "ok"), control_message(role::function)}),
                         "bad, message 1: a function message needs a 'name' (the function's name)", parley::error);
    try {
        conversation_template("broken", {make_message(role::system, "ok"), make_message(role::user, "Hi {{ name ")});
        FAIL("no error");
    } catch (const parley::template_error& e) {
        CHECK(e.where().name == "broken#1");
        CHECK(e.where().line == 1);
    }
    message parts;
    parts.role = role::user;
    parts.content = std::vector<content_part>{content_part::make_text("fine"), content_part::make_text("{% if %}")};
    try {
        conversation_template("p", {parts});
        FAIL("no error");
    } catch (const parley::template_error& e) {
        CHECK(e.where().name == "p#0.1");
    }
    // a render error names the message's template too
    const conversation_template t("r", {make_message(role::user, "{{ 1 / 0 }}")});
    try {
        render(t, boost::json::object{});
        FAIL("no error");
    } catch (const parley::template_error& e) {
        CHECK(e.where().name == "r#0");
    }
}
