// Tests of parley/chat/dialogue.hpp: extract_dialogue in C++ and in templates (the filter
// extract_dialogue and the method extractDialogue), in the format of Quarkus LangChain4j's Qute
// extension: which messages give an entry, how the text is taken, the delimiter between entries,
// defaults, and the errors for wrong arguments and receivers.
#include <parley/chat/dialogue.hpp>

#include <parley/chat/conversation_template.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/render.hpp>
#include <parley/chat/view.hpp>
#include <parley/error.hpp>
#include <parley/jinja.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace pj = parley::jinja;
using parley::errc;

// A conversation with every kind of message the rules treat apart.
boost::json::value dialogue_memory() {
    return boost::json::parse(R"([
        {"role": "system", "content": "You are brief."},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi! How can I help?"},
        {"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]},
        {"role": "assistant", "content": null,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "assistant", "content": "It is sunny."},
        {"role": "user", "content": [{"type": "text", "text": "And this?"},
                                     {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]},
        {"role": "assistant", "content": "A cat."}
    ])");
}

// The dialogue of dialogue_memory() with the default format.
const char* const expected_default =
    "User: Hello\n"
    "Assistant: Hi! How can I help?\n"
    "User: What is the weather in Paris?\n"
    "Assistant: It is sunny.\n"
    "User: null\n"
    "Assistant: A cat.";

pj::environment chat_env(pj::environment env = pj::environment::plain()) {
    parley::add_chat_extensions(env);
    return env;
}

std::string render(const pj::environment& env, std::string_view src,
                   const boost::json::value& memory = dialogue_memory()) {
    return env.parse(src, "t.j2").render(boost::json::object{{"chat_memory", memory}, {"d", {{"k", 1}}}});
}

// The text of the template error a render gives (file:line:col, message, excerpt).
std::string error_of(const pj::environment& env, std::string_view src,
                     const boost::json::value& memory = dialogue_memory()) {
    try {
        const std::string out = render(env, src, memory);
        FAIL_CHECK("no error; the output was: ", out);
    } catch (const parley::template_error& e) {
        return e.message();
    }
    return {};
}

errc code_of(const pj::environment& env, std::string_view src, const boost::json::value& memory = dialogue_memory()) {
    try {
        render(env, src, memory);
    } catch (const parley::template_error& e) {
        return static_cast<errc>(e.code().value());
    }
    return errc{};
}

}  // namespace

TEST_CASE("extract_dialogue: user and assistant messages, one entry each, joined by the delimiter") {
    CHECK(parley::extract_dialogue(dialogue_memory()) == expected_default);
    CHECK(parley::extract_dialogue(dialogue_memory(), {.user_prefix = "U:", .assistant_prefix = "A:", .delimiter = "|"}) ==
          "U:Hello|A:Hi! How can I help?|U:What is the weather in Paris?|A:It is sunny.|U:null|A:A cat.");
    CHECK(parley::extract_dialogue(dialogue_memory(), {.delimiter = "\n\n"}) ==
          "User: Hello\n\nAssistant: Hi! How can I help?\n\nUser: What is the weather in Paris?\n\n"
          "Assistant: It is sunny.\n\nUser: null\n\nAssistant: A cat.");
    // the prefix is written as given: no space is added
    CHECK(parley::extract_dialogue(boost::json::parse(R"([{"role": "user", "content": "a"}])"),
                                   {.user_prefix = "Q"}) == "Qa");
}

TEST_CASE("extract_dialogue: the delimiter goes between entries, never before the first or after the last") {
    const auto one = boost::json::parse(R"([{"role": "user", "content": "only"}])");
    CHECK(parley::extract_dialogue(one, {.delimiter = "|"}) == "User: only");
    const auto skipped_around = boost::json::parse(R"([
        {"role": "system", "content": "s"}, {"role": "user", "content": "a"}, {"role": "tool", "content": "t"},
        {"role": "assistant", "content": "b"}, {"role": "system", "content": "s2"}])");
    CHECK(parley::extract_dialogue(skipped_around, {.delimiter = "|"}) == "User: a|Assistant: b");
    CHECK(parley::extract_dialogue(skipped_around, {.delimiter = ""}) == "User: aAssistant: b");
}

TEST_CASE("extract_dialogue: no entry for system, tool, function, control and unknown roles, nor tool requests") {
    const auto none_kept = boost::json::parse(R"([
        {"role": "system", "content": "s"},
        {"role": "tool", "tool_call_id": "1", "content": "r"},
        {"role": "function", "name": "f", "content": "r"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function",
                                                               "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "assistant", "content": "calling", "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "default-request", "model": "m"},
        {"role": "truncate"},
        {"role": "developer", "content": "d"}])");
    CHECK(parley::extract_dialogue(none_kept) == "");
    // an empty tool_calls list or a null function_call requests nothing
    const auto kept = boost::json::parse(R"([
        {"role": "assistant", "content": "a", "tool_calls": []},
        {"role": "assistant", "content": "b", "function_call": null}])");
    CHECK(parley::extract_dialogue(kept) == "Assistant: a\nAssistant: b");
}

TEST_CASE("extract_dialogue: text as chatMessageToText takes it; a missing text is written null") {
    const auto messages = boost::json::parse(R"([
        {"role": "user", "content": ""},
        {"role": "user", "content": [{"type": "text", "text": "one part"}]},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]},
        {"role": "user", "content": []},
        {"role": "user", "content": null},
        {"role": "user"},
        {"role": "assistant", "content": null},
        {"role": "assistant"},
        {"role": "assistant", "content": [{"type": "text", "text": "part"}]},
        {"role": "user", "content": "line 1\nline 2"}])");
    CHECK(parley::extract_dialogue(messages) ==
          "User: \n"
          "User: one part\n"
          "User: null\n"
          "User: null\n"
          "User: null\n"
          "User: null\n"
          "User: null\n"
          "Assistant: null\n"
          "Assistant: null\n"
          "Assistant: part\n"
          "User: line 1\nline 2");
}

TEST_CASE("extract_dialogue: an empty list, none and undefined give the empty string") {
    CHECK(parley::extract_dialogue(boost::json::array()) == "");
    CHECK(parley::extract_dialogue(boost::json::value(nullptr)) == "");
    CHECK(parley::extract_dialogue(pj::value()) == "");
    const auto env = chat_env();
    CHECK(render(env, "[{{ nothing | extract_dialogue }}][{{ none | extract_dialogue('|') }}]") == "[][]");
    CHECK(render(env, "[{{ [] | extract_dialogue }}][{{ [].extractDialogue() }}]") == "[][]");
    // a strict environment refuses the undefined value
    pj::options strict;
    strict.undefined = pj::undefined_behavior::strict;
    const auto senv = chat_env(pj::environment(strict));
    CHECK(error_of(senv, "{{ nothing | extract_dialogue }}") == "'nothing' is undefined");
    CHECK(code_of(senv, "{{ nothing | extract_dialogue }}") == errc::template_undefined);
}

TEST_CASE("extract_dialogue: the filter's three forms") {
    const auto env = chat_env();
    CHECK(render(env, "{{ chat_memory | extract_dialogue }}") == expected_default);
    CHECK(render(env, "{{ chat_memory | extract_dialogue('|') }}") ==
          "User: Hello|Assistant: Hi! How can I help?|User: What is the weather in Paris?|Assistant: It is sunny.|"
          "User: null|Assistant: A cat.");
    CHECK(render(env, "{{ chat_memory | extract_dialogue('U:', 'A:', '|') }}") ==
          "U:Hello|A:Hi! How can I help?|U:What is the weather in Paris?|A:It is sunny.|U:null|A:A cat.");
    // none stands for the default, as Java's null does
    CHECK(render(env, "{{ chat_memory | extract_dialogue(none, 'A:', none) }}") ==
          "User: Hello\nA:Hi! How can I help?\nUser: What is the weather in Paris?\nA:It is sunny.\nUser: null\n"
          "A:A cat.");
    CHECK(render(env, "{{ chat_memory | extract_dialogue(none) }}") == expected_default);
    // the filter takes any list: one made by the template, a filtered one
    CHECK(render(env, "{{ chat_memory | selectattr('role', 'eq', 'user') | extract_dialogue(', ') }}") ==
          "User: Hello, User: What is the weather in Paris?, User: null");
    CHECK(render(env, "{{ [{'role': 'user', 'content': 'x'}] | extract_dialogue }}") == "User: x");
}

TEST_CASE("extract_dialogue: the method's three forms, also taken as an attribute") {
    const auto env = chat_env();
    CHECK(render(env, "{{ chat_memory.extractDialogue() }}") == expected_default);
    CHECK(render(env, "{{ chat_memory.extractDialogue('|') }}") ==
          "User: Hello|Assistant: Hi! How can I help?|User: What is the weather in Paris?|Assistant: It is sunny.|"
          "User: null|Assistant: A cat.");
    CHECK(render(env, "{{ chat_memory.extractDialogue('U:', 'A:', '|') }}") ==
          "U:Hello|A:Hi! How can I help?|U:What is the weather in Paris?|A:It is sunny.|U:null|A:A cat.");
    CHECK(render(env, "{% set f = chat_memory.extractDialogue %}{{ f('; ') == chat_memory | extract_dialogue('; ') }}") ==
          "True");
    CHECK(render(env, "{{ chat_memory[1:3].extractDialogue() }}") == "User: Hello\nAssistant: Hi! How can I help?");
    // in the hf sandbox too
    CHECK(render(chat_env(pj::environment::hf()), "{{ chat_memory.extractDialogue('U:', 'A:', '|') }}") ==
          "U:Hello|A:Hi! How can I help?|U:What is the weather in Paris?|A:It is sunny.|U:null|A:A cat.");
    // without add_chat_extensions, neither exists
    CHECK(error_of(pj::environment::plain(), "{{ chat_memory.extractDialogue() }}") ==
          "'list object' has no attribute 'extractDialogue'");
    CHECK_THROWS_AS(pj::environment::plain().parse("{{ chat_memory | extract_dialogue }}"), parley::template_error);
}

TEST_CASE("extract_dialogue: wrong argument counts, keywords and types are errors that say what to give") {
    const auto env = chat_env();
    CHECK(error_of(env, "{{ chat_memory | extract_dialogue('U:', 'A:') }}") ==
          "extract_dialogue() takes 0, 1 or 3 arguments: (), (delimiter) or (user_prefix, assistant_prefix, "
          "delimiter); 2 given");
    CHECK(error_of(env, "{{ chat_memory.extractDialogue('a', 'b', 'c', 'd') }}") ==
          "extractDialogue() takes 0, 1 or 3 arguments: (), (delimiter) or (user_prefix, assistant_prefix, "
          "delimiter); 4 given");
    CHECK(error_of(env, "{{ chat_memory | extract_dialogue(delimiter='|') }}") ==
          "extract_dialogue() takes no keyword arguments (found delimiter=): give (), (delimiter) or (user_prefix, "
          "assistant_prefix, delimiter)");
    CHECK(error_of(env, "{{ chat_memory.extractDialogue(userPrefix='U') }}") ==
          "extractDialogue() takes no keyword arguments (found userPrefix=): give (), (delimiter) or (user_prefix, "
          "assistant_prefix, delimiter)");
    CHECK(error_of(env, "{{ chat_memory | extract_dialogue(1) }}") ==
          "extract_dialogue(): the delimiter must be a string or none, found 'int'");
    CHECK(error_of(env, "{{ chat_memory.extractDialogue(['U'], 'A', '') }}") ==
          "extractDialogue(): the user prefix must be a string or none, found 'list'");
    CHECK(error_of(env, "{{ chat_memory.extractDialogue('U', false, '') }}") ==
          "extractDialogue(): the assistant prefix must be a string or none, found 'bool'");
    CHECK(error_of(env, "{{ chat_memory | extract_dialogue(missing) }}") ==
          "extract_dialogue(): the delimiter is undefined");
    CHECK(code_of(env, "{{ chat_memory | extract_dialogue('U:', 'A:') }}") == errc::template_type);
    CHECK(code_of(env, "{{ chat_memory | extract_dialogue(missing) }}") == errc::template_undefined);
    // the error points at the call in the template
    try {
        render(env, "line 1\n{{ chat_memory | extract_dialogue(2) }}");
        FAIL_CHECK("no error");
    } catch (const parley::template_error& e) {
        CHECK(std::string(e.what()).rfind("t.j2:2:", 0) == 0);
    }
}

TEST_CASE("extract_dialogue: a receiver or input that is not a list of messages") {
    const auto env = chat_env();
    CHECK(error_of(env, "{{ 'text' | extract_dialogue }}") == "extract_dialogue: expected a list of messages, found 'str'");
    CHECK(error_of(env, "{{ d | extract_dialogue }}") == "extract_dialogue: expected a list of messages, found 'dict'");
    CHECK(error_of(env, "{{ 'text'.extractDialogue() }}") ==
          "extractDialogue() is a method of a list of messages, not of 'str'");
    CHECK(error_of(env, "{{ 3 .extractDialogue() }}") == "extractDialogue() is a method of a list of messages, not of 'int'");
    CHECK(error_of(env, "{{ none.extractDialogue() }}") ==
          "extractDialogue() is a method of a list of messages, not of 'NoneType'");
    CHECK(code_of(env, "{{ 'text'.extractDialogue() }}") == errc::template_type);
    // a mapping has no such method (the usual attribute error), and its key of that name wins
    CHECK(error_of(env, "{{ d.extractDialogue() }}") == "'dict object' has no attribute 'extractDialogue'");
    CHECK(render(env, "{{ {'extractDialogue': 'key'}.extractDialogue }}") == "key");
    // C++ callers get parley::error
    try {
        parley::extract_dialogue(boost::json::value("text"));
        FAIL_CHECK("no error");
    } catch (const parley::error& e) {
        CHECK(std::string(e.what()) == "extract_dialogue: expected a list of messages, found 'str'");
        CHECK(static_cast<errc>(e.code().value()) == errc::template_type);
    }
}

TEST_CASE("extract_dialogue: malformed messages are named by their index") {
    const auto env = chat_env();
    auto err = [&](const char* memory) { return error_of(env, "{{ chat_memory | extract_dialogue }}", boost::json::parse(memory)); };
    CHECK(err(R"([{"role": "user", "content": "a"}, "b"])") ==
          "extract_dialogue: message 1 must be a mapping with a role and a content, found 'str'");
    CHECK(err(R"([{"content": "a"}])") == "extract_dialogue: message 0 has no role");
    CHECK(err(R"([{"role": 1, "content": "a"}])") == "extract_dialogue: message 0: role must be a string, found 'int'");
    CHECK(err(R"([{"role": "user", "content": 5}])") ==
          "extract_dialogue: message 0: content must be a string, a list of content parts or none, found 'int'");
    CHECK(err(R"([{"role": "user", "content": {"text": "a"}}])") ==
          "extract_dialogue: message 0: content must be a string, a list of content parts or none, found 'dict'");
    CHECK(err(R"([{"role": "user", "content": ["a"]}])") ==
          "extract_dialogue: message 0, content part 0 must be a mapping with a type, found 'str'");
    CHECK(err(R"([{"role": "user", "content": [{"text": "a"}]}])") ==
          "extract_dialogue: message 0, content part 0 has no type (a string such as 'text')");
    CHECK(err(R"([{"role": "assistant", "content": [{"type": "image_url"}, {"type": "text"}]}])") ==
          "extract_dialogue: message 0, content part 1 is of type 'text' but has no text (a string)");
    // the content of a message that gives no entry is not looked at
    CHECK(render(env, "{{ chat_memory | extract_dialogue }}", boost::json::parse(R"([{"role": "system", "content": 5}])")) ==
          "");
}

TEST_CASE("extract_dialogue: on chat_memory as conversation templates see it, and on parley::message lists") {
    std::vector<parley::message> history;
    history.push_back(parley::make_message(parley::role::system, "Be brief."));
    history.push_back(parley::make_message(parley::role::user, "Weather in Paris?"));
    parley::message call;
    call.role = parley::role::assistant;
    call.tool_calls.push_back({"c1", {"weather", R"({"city": "Paris"})"}});
    history.push_back(call);
    parley::message result = parley::make_message(parley::role::tool, "sunny");
    result.tool_call_id = "c1";
    history.push_back(result);
    history.push_back(parley::make_message(parley::role::assistant, "Sunny."));
    parley::message photo;
    photo.role = parley::role::user;
    photo.content = std::vector<parley::content_part>{parley::content_part::make_text("And here?"),
                                                      parley::content_part::make_image("https://example.com/a.png")};
    history.push_back(photo);
    parley::message one_part;
    one_part.role = parley::role::user;
    one_part.content = std::vector<parley::content_part>{parley::content_part::make_text("Thanks")};
    history.push_back(one_part);

    const std::string expected = "User: Weather in Paris?|Assistant: Sunny.|User: null|User: Thanks";
    CHECK(parley::extract_dialogue(history, {.delimiter = "|"}) == expected);

    const pj::environment env = chat_env();
    parley::template_info info;
    info.name = "summary";
    std::vector<parley::message> messages = {parley::make_message(
        parley::role::user, "{{ chat_memory | extract_dialogue('|') }}#{{ chat_memory.extractDialogue('U:', 'A:', ' ') }}")};
    const parley::conversation_template t(std::move(info), std::move(messages), env);
    const parley::rendered_request r = parley::render(t, boost::json::object{}, history);
    REQUIRE(r.added.size() == 1);
    CHECK(r.added[0].text() == expected + "#U:Weather in Paris? A:Sunny. U:null U:Thanks");
}
