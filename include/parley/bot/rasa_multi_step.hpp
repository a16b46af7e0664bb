// parley/bot/rasa_multi_step.hpp: Rasa's multi-step command generator. A turn splits the work of
// the single-step generator between two smaller prompts, so that smaller, cheaper models can do
// it: `fill_slots` fills the slots of the active flow from the user's latest message, and
// `handle_flows` starts, clarifies or cancels flows when there is no active flow or the user wants
// to change it; the slots of a flow that has just started are then filled by `fill_slots` again.
// Every reply is read as an action list into parley::rasa commands, checked against what its step
// may produce (commands, flow and slot names, slot types and allowed values) and sent back with
// the problems when it does not fit, a bounded number of times. See docs/chat-prompts.md.
#ifndef PARLEY_BOT_RASA_MULTI_STEP_HPP
#define PARLEY_BOT_RASA_MULTI_STEP_HPP

#include <parley/bot/extract.hpp>
#include <parley/bot/model.hpp>
#include <parley/bot/usage.hpp>
#include <parley/chat/multi_step_prompts.hpp>
#include <parley/error.hpp>
#include <parley/jinja/detail/pystr.hpp>
#include <parley/schema/rasa_commands.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley::rasa {

/// A slot a flow collects.
struct slot_spec {
    std::string name;
    /// Rasa's slot type: `text`, `float` (a number), `bool` (true or false), `categorical` (one
    /// of `allowed_values`), `any` or `list`. The values a model sets are checked against it.
    std::string type = "text";
    std::string description;
    std::vector<std::string> allowed_values;  ///< categorical slots: the values they take
    std::optional<std::string> value;  ///< the value it holds now; none: not set
};

/// A flow: a business process that collects slots.
struct flow_spec {
    std::string name;
    std::string description;
    std::vector<slot_spec> slots;  ///< in the order the flow collects them
    /// A flow of the assistant's own (Rasa's patterns, such as pattern_collect_information): it
    /// may be on top of the stack, over a user's flow, but is never offered to start.
    bool pattern = false;
};

/// Where the dialogue stands.
struct dialogue_state {
    std::string active_flow;  ///< the flow on top of the stack (a pattern, maybe); empty: none
    std::string top_user_flow;  ///< when the flow on top is a pattern: the user's flow under it
    std::string current_slot;  ///< the slot the assistant has just asked for; empty: none
};

/// What a turn of the generator works from.
struct multi_step_input {
    std::vector<flow_spec> flows;  ///< every flow: the user's flows and the patterns
    dialogue_state state;
    /// The conversation before the latest user message: its user and assistant messages become
    /// the `USER: ...` / `AI: ...` lines of `current_conversation`.
    std::vector<message> conversation;
    std::string user_message;  ///< the user's latest message
};

/// The steps of a turn.
enum class multi_step_prompt : std::uint8_t {
    fill_slots_active,  ///< fill_slots for the active flow (SetSlot, ChangeFlow)
    handle_flows,  ///< handle_flows (StartFlow, Clarify, CancelFlow when a flow is active, CannotHandle)
    fill_slots_new,  ///< fill_slots for a flow handle_flows has just started (SetSlot, Done)
};

/// "fill_slots (active flow)", "handle_flows", "fill_slots (new flow)".
constexpr std::string_view prompt_name(multi_step_prompt p) noexcept {
    switch (p) {
    case multi_step_prompt::fill_slots_active: return "fill_slots (active flow)";
    case multi_step_prompt::handle_flows: return "handle_flows";
    case multi_step_prompt::fill_slots_new: return "fill_slots (new flow)";
    }
    return "";
}

/// Options of a turn.
struct multi_step_options {
    request_params params;  ///< the requests' parameters (model, temperature...)
    unsigned max_retries = 2;  ///< re-asks per prompt: at most 1 + max_retries replies each
    /// The handle_flows template (null: parley's handle_flows_template()), for instance Rasa's own
    /// prompt parsed with jinja::environment::plain().
    std::shared_ptr<const jinja::parsed_template> handle_flows;
    /// The fill_slots template (null: parley's fill_slots_template()).
    std::shared_ptr<const jinja::parsed_template> fill_slots;
    /// How many of the conversation's last messages `current_conversation` holds, per prompt,
    /// before the latest user message (Rasa's: 1, 2 and 20).
    std::size_t active_flow_turns = 1, handle_flows_turns = 2, new_flow_turns = 20;
    /// When not null, the usage of every request of the turn is added to it, also on failure.
    usage_summary* usage = nullptr;
};

/// One prompt of a turn that ran.
struct multi_step_run {
    multi_step_prompt prompt = multi_step_prompt::handle_flows;
    std::string flow;  ///< fill_slots: the flow whose slots it filled
    std::vector<command> commands;  ///< what its accepted reply held, ChangeFlow and Done included
    std::size_t replies = 0;  ///< the replies read: 1 + re-asks
    std::string text;  ///< the rendered prompt
};

/// What a turn gives.
struct multi_step_turn {
    /// The turn's commands, in order: those of the active flow's slots, then handle_flows', then
    /// the slots of the flows it started. ChangeFlow and Done are not among them (they steer the
    /// steps), nor are repeated commands; when no step gave a command, CannotHandle().
    std::vector<command> commands;
    std::vector<multi_step_run> prompts;  ///< the prompts that ran, in order
    usage_summary usage;  ///< the turn's requests
};

/// Why a turn gave no commands: the prompt whose replies did not fit (or whose call failed).
struct multi_step_failure {
    multi_step_prompt prompt = multi_step_prompt::handle_flows;
    std::string flow;
    extraction_failure failure;
    std::vector<multi_step_run> prompts;  ///< the prompts that ran before
    usage_summary usage;

    std::string what() const {
        return std::string(prompt_name(prompt)) + (flow.empty() ? std::string() : " for " + flow) + ": " + failure.what();
    }
};

/// The exception `result<multi_step_turn, multi_step_failure>::value()` throws.
class multi_step_exception : public error {
public:
    explicit multi_step_exception(multi_step_failure f) : error(f.failure.code, f.what()), detail_(std::move(f)) {}
    const multi_step_failure& detail() const noexcept { return detail_; }

private:
    multi_step_failure detail_;
};

/// Found by ADL from boost::system::result<T, multi_step_failure>::value().
[[noreturn]] inline void throw_exception_from_error(const multi_step_failure& f, const auto& /*location*/) {
    throw multi_step_exception(f);
}

using multi_step_result = boost::system::result<multi_step_turn, multi_step_failure>;

namespace detail::multi_step {

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

inline std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// A message as Rasa puts it in a prompt: line breaks become spaces.
inline std::string sanitized(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    return out;
}

inline std::string names_of(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? std::string("none") : s;
}

/// Rasa's allowed values of a slot: the Python repr of the list (`['a', 'b']`; `[True, False]`
/// for a bool slot); none for other slots.
inline boost::json::value allowed_values_text(const slot_spec& s) {
    if (s.type == "bool") return boost::json::value("[True, False]");
    if (s.type != "categorical" || s.allowed_values.empty()) return nullptr;
    std::string out = "[";
    for (std::size_t i = 0; i < s.allowed_values.size(); ++i) {
        if (i) out += ", ";
        jinja::detail::py_str_repr(out, s.allowed_values[i]);
    }
    return boost::json::value(out + "]");
}

inline boost::json::array slots_json(const flow_spec* f) {
    boost::json::array a;
    if (!f) return a;
    for (const slot_spec& s : f->slots) {
        boost::json::object o;
        o["name"] = s.name;
        o["value"] = s.value ? boost::json::value(*s.value) : boost::json::value(nullptr);
        o["type"] = s.type;
        o["description"] = s.description;
        o["allowed_values"] = allowed_values_text(s);
        a.push_back(std::move(o));
    }
    return a;
}

/// `USER: ...` / `AI: ...` lines of the last `turns` messages, then the latest user message.
inline std::string transcript(const std::vector<message>& conversation, std::size_t turns, std::string_view latest) {
    std::vector<std::string> lines;
    for (const message& m : conversation) {
        if (m.role != role::user && m.role != role::assistant) continue;
        if (!m.has_text()) continue;
        lines.push_back((m.role == role::user ? "USER: " : "AI: ") + sanitized(m.text()));
    }
    std::string out;
    const std::size_t from = lines.size() > turns ? lines.size() - turns : 0;
    for (std::size_t i = from; i < lines.size(); ++i) out += lines[i] + "\n";
    return out + "USER: " + sanitized(latest);
}

/// The checks of one step's replies.
class step_rules {
public:
    step_rules(const multi_step_input& in, multi_step_prompt p, const flow_spec* flow, const flow_spec* user_flow)
        : input_(in), prompt_(p), flow_(flow), user_flow_(user_flow) {}

    /// Every problem of `commands`, one per line; none when they fit the step.
    std::optional<std::string> check(const std::vector<command>& commands) const {
        std::string problems;
        for (const command& c : commands) {
            const std::string why = problem(c);
            if (!why.empty()) problems += (problems.empty() ? "" : "\n") + action_text(c) + ": " + why;
        }
        if (problems.empty()) return std::nullopt;
        return problems;
    }

    /// `c` with its slot value in the slot's own spelling (`True` -> `true`, a categorical value
    /// in the case its list has); `c` as it is otherwise.
    command normalized(command c) const {
        if (auto* set = std::get_if<SetSlot>(&c))
            if (const slot_spec* s = slot(set->slot)) set->value = canonical(*s, set->value);
        return c;
    }

private:
    std::string allowed_list() const {
        switch (prompt_) {
        case multi_step_prompt::fill_slots_active: return "SetSlot and ChangeFlow";
        case multi_step_prompt::fill_slots_new: return "SetSlot and Done";
        case multi_step_prompt::handle_flows:
            return input_.state.active_flow.empty() ? "StartFlow, Clarify and CannotHandle"
                                                    : "StartFlow, Clarify, CancelFlow and CannotHandle";
        }
        return {};
    }

    bool allowed(const command& c) const {
        switch (prompt_) {
        case multi_step_prompt::fill_slots_active:
            return std::holds_alternative<SetSlot>(c) || std::holds_alternative<ChangeFlow>(c);
        case multi_step_prompt::fill_slots_new:
            return std::holds_alternative<SetSlot>(c) || std::holds_alternative<Done>(c);
        case multi_step_prompt::handle_flows:
            if (std::holds_alternative<CancelFlow>(c)) return !input_.state.active_flow.empty();
            return std::holds_alternative<StartFlow>(c) || std::holds_alternative<Clarify>(c) ||
                   std::holds_alternative<CannotHandle>(c);
        }
        return false;
    }

    std::vector<std::string> startable() const {
        std::vector<std::string> names;
        for (const flow_spec& f : input_.flows)
            if (!f.pattern) names.push_back(f.name);
        return names;
    }

    std::string flow_problem(const std::string& name) const {
        for (const flow_spec& f : input_.flows)
            if (f.name == name && !f.pattern) return {};
        return "there is no flow named \"" + name + "\" to start (the flows are " + names_of(startable()) + ")";
    }

    const slot_spec* slot(const std::string& name) const {
        for (const flow_spec* f : {flow_, user_flow_})
            if (f)
                for (const slot_spec& s : f->slots)
                    if (s.name == name) return &s;
        return nullptr;
    }

    static bool unsets(std::string_view value) { return value == "None" || value == "null"; }

    static std::string canonical(const slot_spec& s, const std::string& value) {
        const std::string_view v = trimmed(value);
        if (unsets(v)) return std::string(v);
        if (s.type == "bool") return lower(v);
        if (s.type == "categorical")
            for (const std::string& a : s.allowed_values)
                if (lower(a) == lower(v)) return a;
        return std::string(v);
    }

    static std::string value_problem(const slot_spec& s, const std::string& raw) {
        const std::string_view v = trimmed(raw);
        if (unsets(v)) return {};
        if (s.type == "float") {
            double d = 0;
            const auto r = std::from_chars(v.data(), v.data() + v.size(), d);
            if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size())
                return "the slot " + s.name + " holds a number (float), and \"" + std::string(v) + "\" is not one";
        } else if (s.type == "bool") {
            const std::string l = lower(v);
            if (l != "true" && l != "false")
                return "the slot " + s.name + " holds true or false (bool), not \"" + std::string(v) + "\"";
        } else if (s.type == "categorical" && !s.allowed_values.empty()) {
            const std::string l = lower(v);
            bool found = false;
            for (const std::string& a : s.allowed_values) found = found || lower(a) == l;
            if (!found)
                return "the slot " + s.name + " takes one of " + names_of(s.allowed_values) + ", not \"" + std::string(v) + "\"";
        }
        return {};
    }

    std::string problem(const command& c) const {
        if (!allowed(c)) {
            if (std::holds_alternative<CancelFlow>(c) && prompt_ == multi_step_prompt::handle_flows)
                return "no flow is active, so there is none to cancel (this step takes " + allowed_list() + ")";
            return "not a command of this step, which takes " + allowed_list();
        }
        if (const auto* start = std::get_if<StartFlow>(&c)) return flow_problem(start->flow);
        if (const auto* clarify = std::get_if<Clarify>(&c)) {
            if (clarify->flows.empty()) return "Clarify names at least one flow";
            for (const std::string& f : clarify->flows)
                if (std::string why = flow_problem(f); !why.empty()) return why;
            return {};
        }
        if (const auto* set = std::get_if<SetSlot>(&c)) {
            const slot_spec* s = slot(set->slot);
            if (!s) {
                std::vector<std::string> names;
                for (const flow_spec* f : {flow_, user_flow_})
                    if (f)
                        for (const slot_spec& each : f->slots) names.push_back(each.name);
                return "there is no slot named \"" + set->slot + "\" here (the slots are " + names_of(names) + ")";
            }
            return value_problem(*s, set->value);
        }
        return {};
    }

    const multi_step_input& input_;
    multi_step_prompt prompt_;
    const flow_spec* flow_;
    const flow_spec* user_flow_;
};

inline const flow_spec* find_flow(const multi_step_input& in, const std::string& name) {
    if (name.empty()) return nullptr;
    for (const flow_spec& f : in.flows)
        if (f.name == name) return &f;
    return nullptr;
}

/// The context of a prompt: Rasa's variables.
inline boost::json::object context(const multi_step_input& in, multi_step_prompt p, const flow_spec* flow,
                                   const flow_spec* user_flow, std::size_t turns) {
    boost::json::object o;
    o["current_conversation"] = transcript(in.conversation, turns, in.user_message);
    o["last_user_message"] = sanitized(in.user_message);
    o["flow_slots"] = slots_json(flow);
    o["current_flow"] = flow ? boost::json::value(flow->name) : boost::json::value(nullptr);
    if (p == multi_step_prompt::fill_slots_new) {
        o["flow_active"] = false;
        return o;
    }
    boost::json::array available;
    for (const flow_spec& f : in.flows)
        if (!f.pattern) available.push_back(boost::json::object{{"name", f.name}, {"description", f.description}});
    o["available_flows"] = std::move(available);
    const bool pattern = flow && flow->pattern;
    o["top_flow_is_pattern"] = pattern;
    o["top_user_flow"] = pattern && user_flow ? boost::json::value(user_flow->name) : boost::json::value(nullptr);
    o["top_user_flow_slots"] = pattern ? slots_json(user_flow) : boost::json::array();
    const slot_spec* current = nullptr;
    for (const flow_spec* f : {flow, pattern ? user_flow : nullptr})
        if (f && !in.state.current_slot.empty())
            for (const slot_spec& s : f->slots)
                if (!current && s.name == in.state.current_slot) current = &s;
    o["current_slot"] = current ? boost::json::value(current->name) : boost::json::value(nullptr);
    o["current_slot_description"] = current && !current->description.empty() ? boost::json::value(current->description)
                                                                             : boost::json::value(nullptr);
    o["current_slot_type"] = current ? boost::json::value(current->type) : boost::json::value(nullptr);
    o["current_slot_allowed_values"] = current ? allowed_values_text(*current) : boost::json::value(nullptr);
    o["flow_active"] = true;
    return o;
}

/// What one step gave: its run, or its failure.
struct step_outcome {
    multi_step_run run;
    std::optional<extraction_failure> failure;
};

inline boost::asio::awaitable<step_outcome> run_step(chat_model& model, const multi_step_input& in, multi_step_prompt p,
                                                     const flow_spec* flow, const flow_spec* user_flow,
                                                     const multi_step_options& opt, usage_summary& usage) {
    step_outcome out;
    out.run.prompt = p;
    if (p != multi_step_prompt::handle_flows && flow) out.run.flow = flow->name;
    const std::size_t turns = p == multi_step_prompt::fill_slots_active ? opt.active_flow_turns
                              : p == multi_step_prompt::handle_flows   ? opt.handle_flows_turns
                                                                       : opt.new_flow_turns;
    const jinja::parsed_template& t = p == multi_step_prompt::handle_flows
                                          ? (opt.handle_flows ? *opt.handle_flows : handle_flows_template())
                                          : (opt.fill_slots ? *opt.fill_slots : fill_slots_template());
    out.run.text = t.render(boost::json::value(context(in, p, flow, user_flow, turns)));

    const step_rules rules(in, p, flow, user_flow);
    extract_options<std::vector<command>> eo;
    eo.params = opt.params;
    eo.max_retries = opt.max_retries;
    eo.validate = [&rules](const std::vector<command>& commands) { return rules.check(commands); };
    usage_summary step_usage;
    eo.usage = &step_usage;
    const std::vector<message> prompt{make_message(role::user, out.run.text)};
    auto got = co_await extract<std::vector<command>>(model, prompt, std::move(eo));
    usage += step_usage;
    if (opt.usage) *opt.usage += step_usage;
    if (!got) {
        out.run.replies = got.error().attempts.size();
        out.failure = got.error();
        co_return out;
    }
    out.run.replies = step_usage.total().requests;
    for (command& c : *got) out.run.commands.push_back(rules.normalized(std::move(c)));
    co_return out;
}

inline void add_unique(std::vector<command>& to, const command& c) {
    if (std::find(to.begin(), to.end(), c) == to.end()) to.push_back(c);
}

}  // namespace detail::multi_step

/// One turn of the multi-step command generator for the user's latest message (Rasa's
/// MultiStepLLMCommandGenerator):
/// 1. with an active flow, `fill_slots` fills its slots (SetSlot; ChangeFlow when the user wants
///    something else);
/// 2. without an active flow, when that step gave no command, or when it gave ChangeFlow,
///    `handle_flows` starts, clarifies or cancels flows (StartFlow, Clarify, CancelFlow when a
///    flow is active, CannotHandle); a StartFlow of a flow already on the stack is dropped;
/// 3. for each flow handle_flows started that has slots, `fill_slots` fills them from what the
///    user has already said (SetSlot, then Done); only SetSlots with a value are kept.
/// Each prompt is rendered with Rasa's variables and sent as one user message; its reply is read
/// as an action list (parse_rasa_commands) and checked against the step: a command of another
/// step, an unknown flow or slot, a value that does not fit the slot's type or allowed values is
/// sent back with the problems, at most `opt.max_retries` times. Throws parley::error
/// (errc::invalid_argument) before any request when the state names a flow or slot the input does
/// not have, and parley::template_error when a prompt does not render. `model` and `input` must
/// outlive the call.
inline boost::asio::awaitable<multi_step_result> generate_commands_multi_step(chat_model& model, const multi_step_input& input,
                                                                            multi_step_options opt = multi_step_options()) {
    namespace dm = detail::multi_step;
    const flow_spec* active = dm::find_flow(input, input.state.active_flow);
    if (!input.state.active_flow.empty() && !active)
        throw error(errc::invalid_argument, "the active flow '" + input.state.active_flow + "' is not one of the input's flows");
    const flow_spec* user_flow = dm::find_flow(input, input.state.top_user_flow);
    if (!input.state.top_user_flow.empty() && !user_flow)
        throw error(errc::invalid_argument, "the top user flow '" + input.state.top_user_flow + "' is not one of the input's flows");
    if (!input.state.current_slot.empty()) {
        bool known = false;
        for (const flow_spec* f : {active, user_flow})
            if (f)
                for (const slot_spec& s : f->slots) known = known || s.name == input.state.current_slot;
        if (!known)
            throw error(errc::invalid_argument, "the slot being asked, '" + input.state.current_slot +
                                                    "', is not a slot of the active flow" +
                                                    (user_flow ? std::string(" or of the top user flow") : std::string()));
    }

    multi_step_turn turn;
    auto fail = [&](multi_step_prompt p, const std::string& flow, extraction_failure f) {
        multi_step_failure out;
        out.prompt = p;
        out.flow = flow;
        out.failure = std::move(f);
        out.prompts = std::move(turn.prompts);
        out.usage = std::move(turn.usage);
        return out;
    };

    // 1. the active flow's slots
    std::vector<command> from_active;
    bool change_flow = false;
    if (active) {
        auto step = co_await dm::run_step(model, input, multi_step_prompt::fill_slots_active, active, user_flow, opt, turn.usage);
        if (step.failure) co_return fail(multi_step_prompt::fill_slots_active, active->name, std::move(*step.failure));
        for (const command& c : step.run.commands) {
            if (std::holds_alternative<ChangeFlow>(c)) change_flow = true;
            else from_active.push_back(c);
        }
        const bool gave_nothing = step.run.commands.empty();
        turn.prompts.push_back(std::move(step.run));
        change_flow = change_flow || gave_nothing;
    }

    // 2. starting, clarifying or cancelling flows
    std::vector<command> from_handling;
    if (!active || change_flow) {
        auto step = co_await dm::run_step(model, input, multi_step_prompt::handle_flows, active, user_flow, opt, turn.usage);
        if (step.failure) co_return fail(multi_step_prompt::handle_flows, {}, std::move(*step.failure));
        for (const command& c : step.run.commands) {
            if (const auto* start = std::get_if<StartFlow>(&c);
                start && ((active && start->flow == active->name) || (user_flow && start->flow == user_flow->name)))
                continue;  // already on the stack
            from_handling.push_back(c);
        }
        turn.prompts.push_back(std::move(step.run));
    }

    // 3. the slots of the flows just started
    std::vector<command> from_new;
    for (const command& c : from_handling) {
        const auto* start = std::get_if<StartFlow>(&c);
        if (!start) continue;
        const flow_spec* started = dm::find_flow(input, start->flow);
        if (!started || started->slots.empty()) continue;
        auto step = co_await dm::run_step(model, input, multi_step_prompt::fill_slots_new, started, nullptr, opt, turn.usage);
        if (step.failure) co_return fail(multi_step_prompt::fill_slots_new, started->name, std::move(*step.failure));
        for (const command& s : step.run.commands)
            if (const auto* set = std::get_if<SetSlot>(&s);
                set && !dm::trimmed(set->value).empty() && set->value != "None" && set->value != "null")
                from_new.push_back(s);
        turn.prompts.push_back(std::move(step.run));
    }

    for (const auto* list : {&from_active, &from_handling, &from_new})
        for (const command& c : *list) dm::add_unique(turn.commands, c);
    if (turn.commands.empty()) turn.commands.push_back(CannotHandle{});
    co_return turn;
}

}  // namespace parley::rasa

#include <parley/detail/warnings_pop.hpp>

#endif
