// parley/chat/command_prompt.hpp: parley's built-in prompt for a command generator: it shows
// the model the flows it can start (with their slots), the conversation, the active flow and its
// slots, and the user's latest message, and asks for an action list in the syntax parse_commands
// reads (see parley/schema/commands.hpp), with the commands of parley/schema/rasa_commands.hpp.
//
// Its variables are those of Rasa's single-step command-generator prompt, so the same context
// renders either:
//   available_flows            list of {name, description, slots: [{name, description, allowed_values}]}
//   current_conversation       the conversation so far, as text
//   current_flow               the name of the active flow, or none
//   current_slot               the slot the assistant has just asked for, or none
//   current_slot_description   its description (may be empty)
//   flow_slots                 the active flow's slots: [{name, value, type, description, allowed_values}]
//   user_message               the user's latest message
//   is_repeat_command_enabled  whether RepeatLastBotMessages() is offered
// A missing description or allowed_values is left out; a slot value that is none or missing
// reads "not set yet". A reply that follows the prompt is read with parley::rasa::parse_rasa_commands.
#ifndef PARLEY_CHAT_COMMAND_PROMPT_HPP
#define PARLEY_CHAT_COMMAND_PROMPT_HPP

#include <parley/jinja.hpp>

#include <string_view>

namespace parley {

/// The source of parley's command-generator prompt, a template for the plain environment
/// (jinja::environment::plain(): Python Jinja2's defaults).
inline constexpr std::string_view command_generator_prompt = R"prompt(You decide what an assistant does next in a conversation with a user. The assistant works through business processes called flows: a flow collects pieces of information called slots, then acts on them. Read what is below and answer with commands only.

## Flows that can be started
{% for flow in available_flows %}
- {{ flow.name }}: {{ flow.description }}
{%- for slot in flow.slots %}
  - slot {{ slot.name }}{% if slot.description %}: {{ slot.description }}{% endif %}{% if slot.allowed_values %} (one of: {{ slot.allowed_values | join(', ') }}){% endif %}
{%- endfor %}
{%- else %}
(none)
{%- endfor %}

## The conversation so far

{{ current_conversation }}

## Where the conversation stands
{% if current_flow %}
The flow {{ current_flow }} is active.
{%- if current_slot %} The assistant has just asked the user for the slot {{ current_slot }}{% if current_slot_description %} ({{ current_slot_description }}){% endif %}.{% endif %}
{%- if flow_slots %}
Its slots:
{%- for slot in flow_slots %}
- {{ slot.name }} ({{ slot.type }}){% if slot.description %}: {{ slot.description }}{% endif %}; value: {% if slot.value is defined and slot.value is not none %}{{ slot.value }}{% else %}not set yet{% endif %}{% if slot.allowed_values %}; one of: {{ slot.allowed_values | join(', ') }}{% endif %}
{%- endfor %}
{%- endif %}
{%- else %}
No flow is active, so no slot can be set yet: to fill a slot, first start the flow it belongs to.
{%- endif %}

## The user's latest message

{{ user_message }}

## Commands

Answer with one command per line, in the order they should happen, and nothing else. Write a command as its name followed by its arguments in parentheses, separated by commas; a command without arguments keeps its empty parentheses. Put an argument in double quotes when it contains a comma, a parenthesis or a quote.

- StartFlow(flow_name): start one of the flows listed above.
- SetSlot(slot_name, value): give a slot a value the user stated. For a slot with a list of values, use one of them.
- CancelFlow(): stop the active flow because the user no longer wants it.
- Clarify(flow_name, ...): ask the user which flow they mean, naming every candidate; with a single name, ask them to confirm that flow.
- SkipQuestion(): the user wants to skip the question they were just asked and go on.
- ChangeFlow(): the user wants to leave the active flow for another one.
- SearchAndReply(): the user asks for information, to be answered from the knowledge base.
- ChitChat(): the user makes small talk unrelated to any flow.
- HumanHandoff(): the user asks for a person, or seems frustrated.
{%- if is_repeat_command_enabled %}
- RepeatLastBotMessages(): the user asks to hear the assistant's last messages again.
{%- endif %}
- CannotHandle(): none of the other commands fits the message.

Rules:
- Take values only from what the user said: never a guess, a placeholder or a value from an example.
- Start a flow only when the user clearly wants it. When in doubt, or when the user asks for two things that contradict each other, use Clarify.
- When it is unclear whether the user wants to skip the question or to stop the flow, use CancelFlow().
- Work from the latest message; use the earlier conversation only to understand it.

An example (the flow and slot names are illustrations only): to a user who says "send 50 dollars to Freddy" while no flow is active, the answer could be
StartFlow(transfer_money)
SetSlot(recipient, Freddy)
SetSlot(amount, 50)

Your commands:)prompt";

/// command_generator_prompt parsed once in the plain environment; render it with a context that
/// has the variables listed at the top of this header. Thread-safe; parsing does not fail.
inline const jinja::parsed_template& command_generator_template() {
    static const jinja::parsed_template t =
        jinja::environment::plain().parse(command_generator_prompt, "parley/command_generator_prompt");
    return t;
}

}  // namespace parley

#endif
