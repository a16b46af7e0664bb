// Tests of parley/chat/command_prompt.hpp: parley's command-generator prompt parses (also at
// compile time), renders as Python Jinja2 does for every context of the shared Rasa corpus, shows
// every flow, slot and piece of state of the context, and lists every command of the Rasa command
// set in the syntax parse_commands reads.
#include <parley/chat/command_prompt.hpp>

#include <parley/jinja.hpp>
#include <parley/schema/rasa_commands.hpp>

#include "../harness/jinja_oracle.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace {

namespace pj = parley::jinja;
namespace rasa = parley::rasa;

// The prompt's source parses in constant evaluation, with the plain environment's syntax.
constexpr bool parses_at_compile_time() {
    pj::detail::program p;
    return !pj::detail::parse_program(parley::command_generator_prompt, {}, p);
}
static_assert(parses_at_compile_time());
// no trailing newline to drop: the source is used as it is
static_assert(parley::command_generator_prompt.back() != '\n');

std::vector<boost::json::value> rasa_contexts() {
    const auto text = jinja_oracle::read_file(jinja_oracle::shared_dir() / "corpus" / "rasa" / "contexts.json");
    if (!text) return {};
    std::vector<boost::json::value> out;
    const boost::json::value list = boost::json::parse(*text);
    for (const auto& c : list.as_array()) out.push_back(c);
    return out;
}

std::string str(const boost::json::value& v) { return v.is_string() ? std::string(v.as_string()) : std::string(); }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The part of a rendered prompt from the line `start` to the line `end` (both excluded).
std::string section(const std::string& text, std::string_view start, std::string_view end) {
    const std::size_t b = text.find(start);
    if (b == std::string::npos) return {};
    const std::size_t e = text.find(end, b);
    return text.substr(b + start.size(), e == std::string::npos ? std::string::npos : e - b - start.size());
}

// The name of the command a variant holds.
std::string command_name(const rasa::command& c) {
    return std::visit(
        [](const auto& x) { return std::string(parley::function_name<std::remove_cvref_t<decltype(x)>>); }, c);
}

}  // namespace

// A context without the optional fields (descriptions, allowed values, the current slot).
boost::json::value sparse_context() {
    return boost::json::parse(R"({
        "available_flows": [{"name": "greet", "description": "say hello", "slots": [{"name": "who"}]},
                            {"name": "leave", "description": "say goodbye", "slots": []}],
        "current_conversation": "",
        "current_flow": "greet",
        "current_slot": null,
        "flow_slots": [{"name": "who", "type": "text"}, {"name": "mood", "type": "bool", "value": false,
                        "allowed_values": [true, false]}],
        "user_message": "hello, it's me",
        "is_repeat_command_enabled": false
    })");
}

TEST_CASE("command prompt: renders as Python Jinja2 does for every Rasa context") {
    auto contexts = rasa_contexts();
    REQUIRE(!contexts.empty());
    contexts.push_back(sparse_context());
    std::vector<jinja_oracle::render_case> cases;
    for (const auto& ctx : contexts) cases.push_back({std::string(parley::command_generator_prompt), ctx, "plain"});
    const auto reference = jinja_oracle::render(cases);
    REQUIRE(reference.size() == contexts.size());
    for (std::size_t i = 0; i < contexts.size(); ++i) {
        CAPTURE(i);
        REQUIRE_MESSAGE(reference[i].output, "Python Jinja2 failed: " << reference[i].error);
        const std::string out = parley::command_generator_template().render(contexts[i]);
        CHECK_MESSAGE(out == *reference[i].output, jinja_oracle::first_difference(out, *reference[i].output));
    }
}

TEST_CASE("command prompt: every flow, slot and piece of state of the context is shown") {
    const auto contexts = rasa_contexts();
    REQUIRE(!contexts.empty());
    for (std::size_t i = 0; i < contexts.size(); ++i) {
        CAPTURE(i);
        const boost::json::object& ctx = contexts[i].as_object();
        const std::string out = parley::command_generator_template().render(ctx);
        const std::string flows = section(out, "## Flows that can be started\n", "## The conversation so far");
        REQUIRE(!flows.empty());
        if (ctx.at("available_flows").as_array().empty()) CHECK(flows == "\n(none)\n\n");
        for (const auto& f : ctx.at("available_flows").as_array()) {
            CHECK(has(flows, "- " + str(f.at("name")) + ": " + str(f.at("description")) + "\n"));
            for (const auto& s : f.at("slots").as_array()) {
                std::string line = "  - slot " + str(s.at("name"));
                if (!str(s.at("description")).empty()) line += ": " + str(s.at("description"));
                CHECK(has(flows, line));
                const auto* allowed = s.as_object().if_contains("allowed_values");
                if (allowed && allowed->is_array() && !allowed->as_array().empty()) {
                    std::string values;
                    for (const auto& v : allowed->as_array()) values += (values.empty() ? "" : ", ") + str(v);
                    CHECK(has(flows, line + " (one of: " + values + ")\n"));
                }
            }
        }
        CHECK(has(section(out, "## The conversation so far\n\n", "## Where"), str(ctx.at("current_conversation"))));
        CHECK(has(section(out, "## The user's latest message\n\n", "## Commands"), str(ctx.at("user_message")) + "\n"));

        const std::string state = section(out, "## Where the conversation stands\n", "## The user's latest message");
        if (ctx.at("current_flow").is_null()) {
            CHECK(has(state, "No flow is active"));
            CHECK(!has(state, "Its slots:"));
        } else {
            CHECK(has(state, "The flow " + str(ctx.at("current_flow")) + " is active."));
            CHECK(has(state, "asked the user for the slot " + str(ctx.at("current_slot"))));
            CHECK(!has(state, "No flow is active"));
            for (const auto& s : ctx.at("flow_slots").as_array()) {
                const std::string value = s.at("value").is_null() ? "not set yet" : str(s.at("value"));
                CHECK(has(state, "- " + str(s.at("name")) + " (" + str(s.at("type")) + "): " + str(s.at("description")) +
                                     "; value: " + value));
            }
        }
    }
}

TEST_CASE("command prompt: the listed commands are the Rasa command set, in the syntax parse_commands reads") {
    const auto contexts = rasa_contexts();
    REQUIRE(!contexts.empty());
    bool saw_repeat_on = false, saw_repeat_off = false;
    for (std::size_t i = 0; i < contexts.size(); ++i) {
        CAPTURE(i);
        const bool repeat = contexts[i].at("is_repeat_command_enabled").as_bool();
        (repeat ? saw_repeat_on : saw_repeat_off) = true;
        const std::string out = parley::command_generator_template().render(contexts[i]);
        const std::string listed = section(out, "## Commands\n", "Rules:");
        REQUIRE(!listed.empty());
        const rasa::command_list r = rasa::parse_rasa_commands(listed);
        CHECK_MESSAGE(r, r.error_text());
        std::vector<std::string> names;
        for (const auto& c : r.commands) names.push_back(command_name(c));
        std::vector<std::string> expected = {"StartFlow",      "SetSlot",  "CancelFlow",   "Clarify",
                                             "SkipQuestion",   "ChangeFlow", "SearchAndReply", "ChitChat",
                                             "HumanHandoff"};
        if (repeat) expected.push_back("RepeatLastBotMessages");
        expected.push_back("CannotHandle");
        CHECK(names == expected);
        // the arguments are the parameter names the prompt explains
        REQUIRE(r.commands.size() >= 4);
        CHECK(std::get<rasa::StartFlow>(r.commands[0]).flow == "flow_name");
        CHECK(std::get<rasa::SetSlot>(r.commands[1]) == rasa::SetSlot{"slot_name", "value"});
        CHECK(std::get<rasa::Clarify>(r.commands[3]).flows == std::vector<std::string>{"flow_name", "..."});

        // the example answer is a reply the parser reads completely
        const std::string example = section(out, "the answer could be\n", "\n\nYour commands:");
        const rasa::command_list ex = rasa::parse_rasa_commands(example);
        CHECK_MESSAGE(ex, ex.error_text());
        CHECK(ex.ignored.empty());
        REQUIRE(ex.commands.size() == 3);
        CHECK(std::get<rasa::StartFlow>(ex.commands[0]).flow == "transfer_money");
        CHECK(std::get<rasa::SetSlot>(ex.commands[2]) == rasa::SetSlot{"amount", "50"});
        // the prompt ends where the model's answer begins
        CHECK(std::string_view(out).ends_with("\n\nYour commands:"));
    }
    // the corpus has contexts with and without RepeatLastBotMessages
    CHECK(saw_repeat_on);
    CHECK(saw_repeat_off);
}

TEST_CASE("command prompt: a context without optional fields, and the parsed template is parsed once") {
    const boost::json::value ctx = sparse_context();
    const std::string out = parley::command_generator_template().render(ctx);
    CHECK(has(out, "- greet: say hello\n  - slot who\n- leave: say goodbye\n\n"));
    CHECK(has(out, "The flow greet is active.\nIts slots:\n- who (text); value: not set yet\n"
                   "- mood (bool); value: False; one of: True, False\n"));
    CHECK(!has(out, "asked the user for the slot"));
    CHECK(&parley::command_generator_template() == &parley::command_generator_template());
    CHECK(pj::environment::plain().parse(parley::command_generator_prompt).render(ctx) == out);
}
