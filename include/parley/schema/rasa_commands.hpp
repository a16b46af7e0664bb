// parley/schema/rasa_commands.hpp: the commands of Rasa's LLM command generators, ready to be
// read with parse_commands (or parse_rasa_commands, which reads all of them).
//
// The names and arguments follow the action list Rasa's prompts describe: StartFlow(flow_name),
// SetSlot(slot_name, slot_value), CancelFlow(), Clarify(flow_name, ...), SkipQuestion(),
// SearchAndReply(), ChitChat(), HumanHandoff(), RepeatLastBotMessages(), CannotHandle() and
// ChangeFlow(). A slot value is kept as the text the model wrote (`None` included).
#ifndef PARLEY_SCHEMA_RASA_COMMANDS_HPP
#define PARLEY_SCHEMA_RASA_COMMANDS_HPP

#include <parley/config.hpp>
#include <parley/schema/commands.hpp>

#include <boost/describe/class.hpp>

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parley::rasa {

/// Start the flow `flow`.
struct StartFlow {
    std::string flow;
    friend bool operator==(const StartFlow&, const StartFlow&) = default;
};
BOOST_DESCRIBE_STRUCT(StartFlow, (), (flow))

/// Set the slot `slot` to `value`.
struct SetSlot {
    std::string slot;
    std::string value;
    friend bool operator==(const SetSlot&, const SetSlot&) = default;
};
BOOST_DESCRIBE_STRUCT(SetSlot, (), (slot, value))

/// Cancel the current flow.
struct CancelFlow {
    friend bool operator==(const CancelFlow&, const CancelFlow&) = default;
};
BOOST_DESCRIBE_STRUCT(CancelFlow, (), ())

/// Ask the user which of these flows they mean (one flow: confirm it).
struct Clarify {
    std::vector<std::string> flows;
    friend bool operator==(const Clarify&, const Clarify&) = default;
};
BOOST_DESCRIBE_STRUCT(Clarify, (), (flows))

/// The user wants to skip the current question.
struct SkipQuestion {
    friend bool operator==(const SkipQuestion&, const SkipQuestion&) = default;
};
BOOST_DESCRIBE_STRUCT(SkipQuestion, (), ())

/// Answer a knowledge question from the knowledge base.
struct SearchAndReply {
    friend bool operator==(const SearchAndReply&, const SearchAndReply&) = default;
};
BOOST_DESCRIBE_STRUCT(SearchAndReply, (), ())

/// Reply to small talk.
struct ChitChat {
    friend bool operator==(const ChitChat&, const ChitChat&) = default;
};
BOOST_DESCRIBE_STRUCT(ChitChat, (), ())

/// Hand the conversation over to a person.
struct HumanHandoff {
    friend bool operator==(const HumanHandoff&, const HumanHandoff&) = default;
};
BOOST_DESCRIBE_STRUCT(HumanHandoff, (), ())

/// Repeat the assistant's last messages.
struct RepeatLastBotMessages {
    friend bool operator==(const RepeatLastBotMessages&, const RepeatLastBotMessages&) = default;
};
BOOST_DESCRIBE_STRUCT(RepeatLastBotMessages, (), ())

/// The message cannot be handled.
struct CannotHandle {
    friend bool operator==(const CannotHandle&, const CannotHandle&) = default;
};
BOOST_DESCRIBE_STRUCT(CannotHandle, (), ())

/// The user wants to change the current flow.
struct ChangeFlow {
    friend bool operator==(const ChangeFlow&, const ChangeFlow&) = default;
};
BOOST_DESCRIBE_STRUCT(ChangeFlow, (), ())

/// Any Rasa command.
using command = std::variant<StartFlow, SetSlot, CancelFlow, Clarify, SkipQuestion, SearchAndReply, ChitChat,
                             HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow>;

/// The commands of an action list, each of Rasa's set.
using command_list = parley::command_list<StartFlow, SetSlot, CancelFlow, Clarify, SkipQuestion, SearchAndReply,
                                          ChitChat, HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow>;

/// parse_commands with every Rasa command.
inline command_list parse_rasa_commands(std::string_view text, const command_options& options = {}) {
    return parse_commands<StartFlow, SetSlot, CancelFlow, Clarify, SkipQuestion, SearchAndReply, ChitChat,
                          HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow>(text, options);
}

}  // namespace parley::rasa

#endif
