// A Rasa-style command generator: the assistant's business processes are flows that collect
// slots; for each user message the model is shown the flows, the conversation and where it
// stands (parley's command-generator prompt), and answers with an action list such as
//
//   StartFlow(transfer_money)
//   SetSlot(recipient, Freddy)
//
// which extract<std::vector<parley::rasa::command>> reads into typed commands (parse_commands).
// A list that cannot be read, or that the validator below rejects (a slot of another flow, a
// value not allowed), goes back to the model with its problems. The program then applies the
// commands to the dialogue state and asks for the next missing slot.
//
// Offline (nothing set), the chat client's in-process scripted model answers: one reply in
// turn 1 does not fit and is corrected. With OPENAI_BASE_URL and/or OPENAI_API_KEY set, a real
// OpenAI-compatible server answers instead, with the model OPENAI_MODEL (default gpt-4o-mini).
#include <parley/bot/client_model.hpp>  // a chat_client as a chat_model (link parley::net)
#include <parley/bot/extract.hpp>
#include <parley/chat/command_prompt.hpp>
#include <parley/schema/rasa_commands.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace asio = boost::asio;
using commands = std::vector<parley::rasa::command>;

// ---- The assistant's flows and the dialogue state.

struct slot {
    std::string name;
    std::string description;
    std::string question;  // what the assistant asks to fill it
    std::vector<std::string> allowed_values;  // empty: any value
};

struct flow {
    std::string name;
    std::string description;
    std::vector<slot> slots;
};

const std::vector<flow> flows = {
    {"transfer_money", "Send money to one of the user's contacts",
     {{"recipient", "Who receives the money", "Who should get the money?", {}},
      {"amount", "How much, in dollars", "How much should I send?", {}},
      {"account", "The account the money comes from", "From which account: checking or savings?", {"checking", "savings"}}}},
    {"check_balance", "Tell the user how much money is in an account",
     {{"account", "The account to look at", "Which account: checking or savings?", {"checking", "savings"}}}},
};

const flow* find_flow(std::string_view name) {
    auto it = std::find_if(flows.begin(), flows.end(), [&](const flow& f) { return f.name == name; });
    return it == flows.end() ? nullptr : &*it;
}

struct dialogue {
    const flow* active = nullptr;
    std::map<std::string, std::string> values;  // slot -> value
    std::vector<std::pair<std::string, std::string>> turns;  // (speaker, text)
    std::string asked;  // the slot the assistant asked for last
};

// The context of parley's command-generator prompt (the variables Rasa's prompt uses too).
boost::json::value prompt_context(const dialogue& d, const std::string& user_message) {
    boost::json::array available;
    for (const flow& f : flows) {
        boost::json::array slots;
        for (const slot& s : f.slots) {
            boost::json::object o{{"name", s.name}, {"description", s.description}};
            if (!s.allowed_values.empty()) o["allowed_values"] = boost::json::value_from(s.allowed_values);
            slots.push_back(std::move(o));
        }
        available.push_back(boost::json::object{{"name", f.name}, {"description", f.description}, {"slots", std::move(slots)}});
    }
    std::string conversation;
    for (const auto& [who, text] : d.turns) conversation += who + ": " + text + "\n";
    conversation += "USER: " + user_message;
    boost::json::object c{{"available_flows", std::move(available)},
                          {"current_conversation", conversation},
                          {"user_message", user_message},
                          {"is_repeat_command_enabled", false}};
    if (d.active) {
        c["current_flow"] = d.active->name;
        if (!d.asked.empty()) c["current_slot"] = d.asked;
        boost::json::array slots;
        for (const slot& s : d.active->slots) {
            boost::json::object o{{"name", s.name}, {"type", "text"}, {"description", s.description}};
            auto v = d.values.find(s.name);
            o["value"] = v == d.values.end() ? boost::json::value(nullptr) : boost::json::value(v->second);
            if (!s.allowed_values.empty()) o["allowed_values"] = boost::json::value_from(s.allowed_values);
            slots.push_back(std::move(o));
        }
        c["flow_slots"] = std::move(slots);
    }
    return c;
}

// The validator: a list the parser read can still be wrong for this assistant.
std::optional<std::string> check(const dialogue& d, const commands& list) {
    const flow* active = d.active;
    std::string problems;
    for (const auto& c : list) {
        if (const auto* start = std::get_if<parley::rasa::StartFlow>(&c)) {
            active = find_flow(start->flow);
            if (!active) problems += "StartFlow(" + start->flow + "): there is no flow named " + start->flow + "\n";
        } else if (const auto* set = std::get_if<parley::rasa::SetSlot>(&c)) {
            const slot* s = nullptr;
            if (active)
                for (const slot& each : active->slots)
                    if (each.name == set->slot) s = &each;
            if (!s)
                problems += "SetSlot(" + set->slot + ", " + set->value + "): " +
                            (active ? "the flow " + active->name + " has no slot " + set->slot : std::string("no flow is active")) + "\n";
            else if (!s->allowed_values.empty() &&
                     std::find(s->allowed_values.begin(), s->allowed_values.end(), set->value) == s->allowed_values.end())
            {
                std::string allowed;
                for (const std::string& v : s->allowed_values) allowed += (allowed.empty() ? "" : " or ") + v;
                problems += "SetSlot(" + set->slot + ", " + set->value + "): " + set->slot + " is " + allowed + "\n";
            }
        }
    }
    if (problems.empty()) return std::nullopt;
    problems.pop_back();
    return problems;
}

// Applies the commands to the dialogue state (the other commands of Rasa's set would hand over
// to a person, search a knowledge base...: not in this example).
void apply(dialogue& d, const commands& list) {
    for (const auto& c : list) {
        if (const auto* start = std::get_if<parley::rasa::StartFlow>(&c)) {
            d.active = find_flow(start->flow);
            d.values.clear();
        } else if (const auto* set = std::get_if<parley::rasa::SetSlot>(&c)) {
            d.values[set->slot] = set->value;
        } else if (std::holds_alternative<parley::rasa::CancelFlow>(c)) {
            d.active = nullptr;
            d.values.clear();
        }
    }
}

// What the assistant says next: the question for the first missing slot, or the flow's end.
std::string next_step(dialogue& d) {
    d.asked.clear();
    if (!d.active) return "How can I help?";
    for (const slot& s : d.active->slots)
        if (!d.values.count(s.name)) {
            d.asked = s.name;
            return s.question;
        }
    std::string done = "Done: " + d.active->name + " (";
    for (const slot& s : d.active->slots) done += (done.back() == '(' ? "" : ", ") + s.name + " " + d.values[s.name];
    d.active = nullptr;
    d.values.clear();
    return done + ").";
}

// A command as it was written: Name(arguments).
std::string written(const parley::rasa::command& c) {
    return std::visit(
        [](const auto& cmd) {
            using T = std::decay_t<decltype(cmd)>;
            std::string args;
            boost::json::value j = parley::to_json(cmd);
            for (const auto& m : j.as_object()) {
                if (!args.empty()) args += ", ";
                if (m.value().is_string()) args += m.value().as_string();
                else args += boost::json::serialize(m.value());
            }
            return std::string(parley::function_name<T>) + "(" + args + ")";
        },
        c);
}

// ---- Printing what goes to the model and back.

class logged final : public parley::chat_model {
public:
    explicit logged(std::shared_ptr<parley::chat_model> model) : model_(std::move(model)) {}

    asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request request, const parley::stream_handler* on_event) override {
        if (request.messages.size() > 1)  // a re-ask: the reply, then its problems
            std::cout << "  sent back:\n" << indented(request.messages.back().text(), "    ") << '\n';
        auto reply = co_await model_->chat(std::move(request), on_event);
        if (reply && !reply->choices.empty())
            std::cout << "  the model answers:\n" << indented(reply->text(), "    ") << '\n';
        co_return reply;
    }

    static std::string indented(std::string_view text, const std::string& margin) {
        std::string out = margin;
        for (char c : text) out += c == '\n' ? "\n" + margin : std::string(1, c);
        return out;
    }

private:
    std::shared_ptr<parley::chat_model> model_;
};

std::string environment(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

int main() try {
    parley::client_config config = parley::config_from_environment(parley::api::openai);
    if (config.base_url.empty() && config.api_key.empty()) {
        config.api = parley::api::scripted;  // nothing configured: the replies below, in process
        config.script->push_text("StartFlow(transfer_money)\nSetSlot(recipient, Freddy)\nSetSlot(amount)");
        config.script->push_text("StartFlow(transfer_money)\nSetSlot(recipient, Freddy)\nSetSlot(amount, 50)");
        config.script->push_text("SetSlot(account, savings account)");
        config.script->push_text("SetSlot(account, savings)");
        std::cout << "offline: the chat client's scripted model answers\n";
    } else {
        std::cout << "using " << (config.base_url.empty() ? std::string(parley::openai_base_url) : config.base_url) << '\n';
    }
    std::string model_name = environment("OPENAI_MODEL");
    if (model_name.empty()) model_name = "gpt-4o-mini";

    asio::io_context io;
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), std::move(config));
    logged model(std::make_shared<parley::client_model>(client));

    dialogue d;
    for (std::string user : {"I want to send 50 dollars to Freddy", "Take it from my savings"}) {
        std::cout << "\nUSER: " << user << '\n';
        parley::extract_options<commands> opt;
        opt.params.model = model_name;
        opt.params.temperature = 0;
        opt.validate = [&d](const commands& list) { return check(d, list); };
        const boost::json::value context = prompt_context(d, user);
        auto f = asio::co_spawn(io, parley::extract<commands>(model, parley::command_generator_prompt, context, opt),
                                asio::use_future);
        io.restart();
        io.run();
        const parley::extract_result<commands> list = f.get();
        if (!list) {
            std::cout << "no commands: " << list.error().what() << '\n';
            return 1;
        }
        std::cout << "  commands:";
        for (std::size_t i = 0; i < list->size(); ++i) std::cout << (i ? ", " : " ") << written((*list)[i]);
        d.turns.emplace_back("USER", user);
        apply(d, *list);
        std::cout << "\n  state: " << (d.active ? "flow " + d.active->name : std::string("no active flow"));
        for (const auto& [name, value] : d.values) std::cout << ", " << name << " = " << value;
        const std::string answer = next_step(d);
        std::cout << "\nASSISTANT: " << answer << '\n';
        d.turns.emplace_back("AI", answer);
    }
    return 0;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
}
