// parley/chat/multi_step_prompts.hpp: parley's prompts for the two steps of a multi-step command
// generator (parley/bot/rasa_multi_step.hpp): `handle_flows` decides which flow to start, clarify
// or cancel; `fill_slots` fills the slots of the active flow, or of a flow that has just started.
// Their variables are those of Rasa's MultiStepLLMCommandGenerator prompts, so the same context
// renders either (docs/chat-prompts.md lists them):
//   available_flows              the flows that can be started: [{name, description}]
//   current_conversation         the conversation, as `USER: ...` / `AI: ...` lines
//   current_flow                 the name of the flow on top (a pattern, maybe), or none
//   current_slot                 the slot the assistant has just asked for, or none
//   current_slot_description     its description, or none
//   current_slot_type            its type (text, float, bool, categorical, any), or none
//   current_slot_allowed_values  its allowed values as Rasa writes them ("['a', 'b']"), or none
//   flow_slots                   the slots of current_flow: [{name, value, type, description, allowed_values}]
//   last_user_message            the user's latest message
//   top_flow_is_pattern          whether the flow on top is a pattern (a flow of the assistant's own)
//   top_user_flow                the user's flow under that pattern, or none
//   top_user_flow_slots          its slots, as flow_slots
//   flow_active                  fill_slots only: true for the active flow, false for a flow that
//                                has just started (then only current_conversation, flow_slots,
//                                current_flow and last_user_message are set)
#ifndef PARLEY_CHAT_MULTI_STEP_PROMPTS_HPP
#define PARLEY_CHAT_MULTI_STEP_PROMPTS_HPP

#include <parley/jinja.hpp>

#include <string_view>

namespace parley {

/// parley's handle_flows prompt, a template for the plain environment: start, clarify or cancel
/// a flow. Its answer is an action list of StartFlow, Clarify, CancelFlow (offered only when a
/// flow is active) and CannotHandle.
inline constexpr std::string_view handle_flows_prompt = R"prompt(You decide which business process an assistant should start or stop for the user's latest message. The processes are called flows: a flow collects pieces of information called slots, then acts on them.

## Flows that can be started
{% for flow in available_flows %}
- {{ flow.name }}: {{ flow.description }}
{%- else %}
(none)
{%- endfor %}

## The conversation so far

{{ current_conversation }}

## Where the conversation stands

{% if current_flow %}The flow {{ current_flow }} is active.{% else %}No flow is active.{% endif %}

## Commands

Answer with one command per line and nothing else. Write a command as its name followed by its arguments in parentheses, separated by commas; a command without arguments keeps its empty parentheses.

- StartFlow(flow_name): start one of the flows listed above.
- Clarify(flow_name, ...): the message could mean several of the flows above: name every candidate. With a single name, ask the user to confirm that flow.
{%- if current_flow %}
- CancelFlow(): the user wants to stop the active flow.
{%- endif %}
- CannotHandle(): the message asks for something else than starting, clarifying{% if current_flow %} or stopping{% endif %} a flow.

Rules:
- Start a flow only when the user clearly wants it; when a short message could mean several flows, use Clarify.
- Name only flows of the list above.
- Work from the latest message; use the earlier conversation only to understand it.

## The user's latest message

{{ last_user_message }}

Your commands:)prompt";

/// parley's fill_slots prompt, a template for the plain environment. With `flow_active`, it fills
/// the slots of the active flow from the user's answer (SetSlot, or ChangeFlow when the user
/// wants something else); without, the slots of a flow the message has just started (SetSlot,
/// then Done).
inline constexpr std::string_view fill_slots_prompt = R"prompt({% if flow_active %}An assistant is collecting pieces of information, called slots, for a business process, called a flow. You fill in the slots from the user's latest message.{% else %}The user's latest message has just started the business process (flow) {{ current_flow }}. You fill in the pieces of information it collects, called slots, from what the user has already said.{% endif %}

## The conversation so far

{{ current_conversation }}

## The slots

{% if flow_active %}The flow {{ current_flow }} is active{% if top_flow_is_pattern %}, over the user's flow {{ top_user_flow }}{% endif %}. {% endif %}Its slots:
{%- for slot in flow_slots %}
- {{ slot.name }} ({{ slot.type }}){% if slot.description %}: {{ slot.description }}{% endif %}; value: {% if slot.value is not none %}{{ slot.value }}{% else %}not set yet{% endif %}{% if slot.allowed_values %}; allowed values: {{ slot.allowed_values }}{% endif %}
{%- else %}
(none)
{%- endfor %}
{%- if flow_active and top_flow_is_pattern %}
The slots of {{ top_user_flow }}:
{%- for slot in top_user_flow_slots %}
- {{ slot.name }} ({{ slot.type }}){% if slot.description %}: {{ slot.description }}{% endif %}; value: {% if slot.value is not none %}{{ slot.value }}{% else %}not set yet{% endif %}{% if slot.allowed_values %}; allowed values: {{ slot.allowed_values }}{% endif %}
{%- endfor %}
{%- endif %}
{%- if flow_active and current_slot %}

The assistant has just asked the user for the slot {{ current_slot }} ({{ current_slot_type }}){% if current_slot_description %}: {{ current_slot_description }}{% endif %}.{% if current_slot_allowed_values %} Its allowed values: {{ current_slot_allowed_values }}.{% endif %}
{%- endif %}

## Commands

Answer with one command per line and nothing else. Write a command as its name followed by its arguments in parentheses, separated by commas; put an argument in double quotes when it contains a comma, a parenthesis or a quote.

- SetSlot(slot_name, value): give a slot of the list above a value the user stated. A float slot takes a number, a bool slot true or false, a slot with allowed values one of them.
{%- if flow_active %}
- ChangeFlow(): the user wants something else than answering: another flow, stopping this one, skipping the question, a question of their own, or small talk.
{%- else %}
- Done(): the end of your list; write it last, also when no slot can be filled.
{%- endif %}

Rules:
- Take values only from what the user said: never a guess, a placeholder or a value from an example.
{%- if not flow_active %}
- Fill only what the user has already said for this flow; if they gave information for it earlier and then cancelled it, do not reuse that information.
{%- endif %}
- Work from the latest message; use the earlier conversation only to understand it.

## The user's latest message

{{ last_user_message }}

Your commands:)prompt";

/// handle_flows_prompt parsed once in the plain environment. Thread-safe.
inline const jinja::parsed_template& handle_flows_template() {
    static const jinja::parsed_template t = jinja::environment::plain().parse(handle_flows_prompt, "parley/handle_flows_prompt");
    return t;
}

/// fill_slots_prompt parsed once in the plain environment. Thread-safe.
inline const jinja::parsed_template& fill_slots_template() {
    static const jinja::parsed_template t = jinja::environment::plain().parse(fill_slots_prompt, "parley/fill_slots_prompt");
    return t;
}

}  // namespace parley

#endif
