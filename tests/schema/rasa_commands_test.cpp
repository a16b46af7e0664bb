// Tests of parley/schema/rasa_commands.hpp: Rasa's command set read from replies as Rasa's
// command generators prompt for them.
#include <parley/schema/rasa_commands.hpp>

#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

using namespace parley::rasa;

TEST_CASE("rasa commands: names and arguments") {
    static_assert(parley::function_name<StartFlow> == "StartFlow");
    static_assert(parley::function_name<RepeatLastBotMessages> == "RepeatLastBotMessages");
    static_assert(std::variant_size_v<command> == 12);
    // Every command, written the way the prompts describe it, reads back as itself.
    const std::vector<std::pair<std::string, command>> cases = {
        {"StartFlow(transfer_money)", StartFlow{"transfer_money"}},
        {"SetSlot(recipient, Freddy)", SetSlot{"recipient", "Freddy"}},
        {"CancelFlow()", CancelFlow{}},
        {"Clarify(list_contacts, add_contact, remove_contact)", Clarify{{"list_contacts", "add_contact", "remove_contact"}}},
        {"SkipQuestion()", SkipQuestion{}},
        {"SearchAndReply()", SearchAndReply{}},
        {"ChitChat()", ChitChat{}},
        {"HumanHandoff()", HumanHandoff{}},
        {"RepeatLastBotMessages()", RepeatLastBotMessages{}},
        {"CannotHandle()", CannotHandle{}},
        {"ChangeFlow()", ChangeFlow{}},
        {"Done()", Done{}},
    };
    for (const auto& c : cases) {
        const std::string& text = c.first;
        CAPTURE(text);
        command_list r = parse_rasa_commands(text);
        CHECK(r.error_text().empty());
        REQUIRE(r.commands.size() == 1);
        CHECK(r.commands[0] == c.second);
    }
}

TEST_CASE("rasa commands: a fine-tuned generator's comma-separated reply") {
    command_list r = parse_rasa_commands("StartFlow(transfer_money), SetSlot(recipient, John), SetSlot(amount, 55)");
    CHECK(r);
    const std::vector<command> expected = {StartFlow{"transfer_money"}, SetSlot{"recipient", "John"},
                                           SetSlot{"amount", "55"}};
    CHECK(r.commands == expected);
}

TEST_CASE("rasa commands: a reply that only reasons is no command, and says so") {
    command_list r = parse_rasa_commands("The user is greeting me.\nNo action is needed.");
    CHECK(r);  // nothing went wrong...
    CHECK(r.commands.empty());  // ...but nothing was asked for either
    REQUIRE(r.ignored.size() == 2);
    CHECK(r.ignored[1].text() == "line 2: No action is needed.: not an action");
}
