// Tests of the bot's conversation against the rules of the chat model (parley/chat/rules.hpp):
// replies as models send them (an empty reply, a refusal, tool calls without ids, as Gemini's
// OpenAI-compatible endpoint sends them) are kept so that the conversation a run returns is
// sent again as the APIs require and reads back from JSON equal; a reply no API sends (a call
// without a function name) fails the run and leaves the history as it was.
#include <parley/bot/bot.hpp>

#include <parley/chat/json.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/provider/in_process.hpp>

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include "run_sync.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace history_rules_test {

struct lookup_args {
    std::string what;
};
BOOST_DESCRIBE_STRUCT(lookup_args, (), (what))

using parley::message;
using parley::role;

constexpr std::string_view templates = R"(
templates:
  main:
    messages:
      - role: system
        content: You look things up.
      - role: user
        content: "{{ q }}"
      - role: request
        model: m
        functions: [lookup]
      - role: user
        content: And now?
      - role: request
        model: m
)";

// A reply as a provider decodes it: one assistant message, as given, and its refusal.
parley::chat_reply reply_of(message m, std::optional<std::string> refusal = std::nullopt) {
    parley::chat_reply r;
    parley::reply_choice c;
    c.message = std::move(m);
    c.message.refusal = std::move(refusal);
    c.finish = parley::finish_reason::stop;
    r.choices.push_back(std::move(c));
    return r;
}

struct bot_with_script {
    std::shared_ptr<parley::scripted_model> script = std::make_shared<parley::scripted_model>();
    parley::bot bot;
    bot_with_script()
        : bot([] {
              parley::yaml_options o;
              o.external_functions = {"lookup"};
              return parley::load_template_set(templates, "history_rules.yaml", o);
          }(),
              std::make_shared<parley::in_process_model>(script)) {
        bot.add_function("lookup", "Looks something up", [](lookup_args a) { return "found " + a.what; });
    }
    std::vector<message> run(std::vector<message> history = {}) {
        return bot_tests::run_sync(bot.run("main", boost::json::parse(R"({"q": "Find x and y."})"), std::move(history)));
    }
};

TEST_CASE("bot: tool calls without ids and an empty reply are kept so that the conversation reads back") {
    bot_with_script f;
    // Gemini's OpenAI-compatible endpoint: `"id": ""` on every call
    f.script->push(parley::tool_call_reply({{"", {"lookup", R"({"what":"x"})"}}, {"", {"lookup", R"({"what":"y"})"}}}));
    message empty;  // a reply with neither content nor a call (an empty stream)
    empty.role = role::assistant;
    f.script->push(reply_of(empty));
    f.script->push(reply_of(empty, "I can't help with that."));  // a refusal: content null, the text apart
    const std::vector<message> out = f.run();

    REQUIRE(out.size() == 10);  // system, user, request, calls, 2 results, "", user, request, the refusal
    REQUIRE(out[3].tool_calls.size() == 2);
    CHECK(out[3].tool_calls[0].id == "call_3_0");
    CHECK(out[3].tool_calls[1].id == "call_3_1");
    CHECK(out[4].role == role::tool);
    CHECK(out[4].tool_call_id == "call_3_0");
    CHECK(out[5].tool_call_id == "call_3_1");
    CHECK(out[6] == parley::make_message(role::assistant, ""));
    // the refusal kept on the message, its text standing for the content the message needs
    message refused = parley::make_message(role::assistant, "I can't help with that.");
    refused.refusal = "I can't help with that.";
    CHECK(out[9] == refused);
    CHECK_NOTHROW(parley::validate(out));

    // the model saw the ids its results name, and the empty reply as an empty text
    const auto requests = f.script->requests();
    REQUIRE(requests.size() == 3);
    CHECK(requests[1].messages.at(2) == out[3]);
    CHECK(requests[1].messages.at(3) == out[4]);
    CHECK(requests[2].messages.at(5) == out[6]);

    // saved, the conversation reads back equal
    const std::string saved = boost::json::serialize(parley::conversation_to_json(out));
    CHECK(parley::conversation_from_json(boost::json::parse(saved)) == out);
}

TEST_CASE("bot: a reply whose call names no function fails the run; the history is untouched") {
    bot_with_script f;
    f.script->push(parley::tool_call_reply({{"c1", {"", "{}"}}}));
    const std::vector<message> history{parley::make_message(role::user, "before"),
                                       parley::make_message(role::assistant, "")};
    std::vector<message> mine = history;
    try {
        mine = f.run(mine);
        FAIL("no error");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::protocol);
        CHECK(std::string(e.what()) == "the model's reply breaks a rule of the chat model at /tool_calls/0: a function "
                                       "call needs the function's 'name'");
    }
    CHECK(mine == history);
}

}  // namespace history_rules_test
