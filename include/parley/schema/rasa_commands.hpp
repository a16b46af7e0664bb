// parley/schema/rasa_commands.hpp: the commands of Rasa's LLM command generators, ready to be
// read with parse_commands (or parse_rasa_commands, which reads all of them).
//
// The names and arguments follow the action list Rasa's prompts describe: StartFlow(flow_name),
// SetSlot(slot_name, slot_value), CancelFlow(), Clarify(flow_name, ...), SkipQuestion(),
// SearchAndReply(), ChitChat(), HumanHandoff(), RepeatLastBotMessages(), CannotHandle(),
// ChangeFlow() and Done() (the end of a list, in the multi-step generator's fill_slots prompt).
// A slot value is kept as the text the model wrote (`None` included).
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

/// The list of commands is complete (the fill_slots prompt of the multi-step generator, for a
/// flow that has just started).
struct Done {
    friend bool operator==(const Done&, const Done&) = default;
};
BOOST_DESCRIBE_STRUCT(Done, (), ())

/// Any Rasa command.
using command = std::variant<StartFlow, SetSlot, CancelFlow, Clarify, SkipQuestion, SearchAndReply, ChitChat,
                             HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow, Done>;

/// The commands of an action list, each of Rasa's set.
using command_list = parley::command_list<StartFlow, SetSlot, CancelFlow, Clarify, SkipQuestion, SearchAndReply,
                                          ChitChat, HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow, Done>;

/// parse_commands with every Rasa command.
inline command_list parse_rasa_commands(std::string_view text, const command_options& options = {}) {
    return parse_commands<StartFlow, SetSlot, CancelFlow, Clarify, SkipQuestion, SearchAndReply, ChitChat,
                          HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow, Done>(text, options);
}

namespace detail {

/// An argument as an action list writes it: as it is, or in double quotes when it holds a comma,
/// a parenthesis, a quote, a backslash, a line break, or white space at either end, or is empty
/// (a quote or a backslash inside is then escaped with a backslash).
inline std::string action_argument(std::string_view a) {
    bool quote = a.empty() || a.front() == ' ' || a.back() == ' ' || a.front() == '\t' || a.back() == '\t';
    for (char c : a)
        if (c == ',' || c == '(' || c == ')' || c == '"' || c == '\'' || c == '\\' || c == '\n' || c == '\r' || c == '\t')
            quote = true;
    if (!quote) return std::string(a);
    std::string out = "\"";
    for (char c : a) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else out += c;
    }
    return out + "\"";
}

}  // namespace detail

/// A command as an action list writes it, which parse_rasa_commands reads back as the same
/// command: `StartFlow(transfer_money)`, `SetSlot(note, "a, b")`, `Clarify(a, b)`, `Done()`.
inline std::string action_text(const command& c) {
    using detail::action_argument;
    struct writer {
        std::string operator()(const StartFlow& x) const { return "StartFlow(" + action_argument(x.flow) + ")"; }
        std::string operator()(const SetSlot& x) const {
            return "SetSlot(" + action_argument(x.slot) + ", " + action_argument(x.value) + ")";
        }
        std::string operator()(const CancelFlow&) const { return "CancelFlow()"; }
        std::string operator()(const Clarify& x) const {
            std::string s = "Clarify(";
            for (std::size_t i = 0; i < x.flows.size(); ++i) s += (i ? ", " : "") + action_argument(x.flows[i]);
            return s + ")";
        }
        std::string operator()(const SkipQuestion&) const { return "SkipQuestion()"; }
        std::string operator()(const SearchAndReply&) const { return "SearchAndReply()"; }
        std::string operator()(const ChitChat&) const { return "ChitChat()"; }
        std::string operator()(const HumanHandoff&) const { return "HumanHandoff()"; }
        std::string operator()(const RepeatLastBotMessages&) const { return "RepeatLastBotMessages()"; }
        std::string operator()(const CannotHandle&) const { return "CannotHandle()"; }
        std::string operator()(const ChangeFlow&) const { return "ChangeFlow()"; }
        std::string operator()(const Done&) const { return "Done()"; }
    };
    return std::visit(writer{}, c);
}

}  // namespace parley::rasa

#endif
