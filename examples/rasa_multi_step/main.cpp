// A banking assistant driven by Rasa's multi-step command generator: for each user message,
// parley::rasa::generate_commands_multi_step runs the prompts the dialogue needs (fill_slots for
// the active flow; handle_flows to start, clarify or cancel flows; fill_slots again for a flow
// that has just started), reads each reply as an action list, sends back what does not fit, and
// gives the turn's commands. The program applies them to its flows and says what it does next.
//
// Four turns: a flow started with a slot given up front, a slot filled (after the model is told
// that "fifty" is not a number), a ChangeFlow that cancels the transfer, and a message no flow
// handles. Offline (nothing set), the model is parley's fake server on 127.0.0.1, answering from
// fake-server-script.json, so the program prints the same thing every time. With OPENAI_BASE_URL
// and/or OPENAI_API_KEY set, a real OpenAI-compatible server answers, with the model OPENAI_MODEL
// (default gpt-4o-mini).
#include <parley/bot/client_model.hpp>  // a chat_client as a chat_model (link parley::net)
#include <parley/bot/rasa_multi_step.hpp>
#include <parley/testing/fake_server.hpp>  // the fake model server (link parley::testing)

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace asio = boost::asio;
namespace rasa = parley::rasa;

namespace {

/// A model that prints what is sent back and what the model replies, then passes the call on.
class transcript final : public parley::chat_model {
public:
    explicit transcript(std::shared_ptr<parley::chat_model> model) : model_(std::move(model)) {}

    asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request request, const parley::stream_handler* on_event) override {
        const std::string_view last = request.messages.back().text();
        if (last.starts_with("Your list of commands does not fit")) std::cout << "  sent back:  " << indent(last) << '\n';
        auto reply = co_await model_->chat(std::move(request), on_event);
        if (reply && !reply->choices.empty()) std::cout << "  model:      " << indent(reply->text()) << '\n';
        co_return reply;
    }

    std::string default_model() const override { return model_->default_model(); }

private:
    static std::string indent(std::string_view text) {
        std::string out;
        for (char c : text) out += c == '\n' ? std::string("\n              ") : std::string(1, c);
        return out;
    }
    std::shared_ptr<parley::chat_model> model_;
};

/// The assistant's flows, the dialogue state and the conversation: the generator's input.
struct assistant {
    rasa::multi_step_input state;
    double balance = 1250.0;

    assistant() {
        rasa::flow_spec transfer{"transfer_money", "Send money to one of the user's contacts", {}, false};
        transfer.slots.push_back({"recipient", "text", "Who receives the money", {}, std::nullopt});
        transfer.slots.push_back({"amount", "float", "How much, in dollars", {}, std::nullopt});
        rasa::flow_spec balance_flow{"check_balance", "Tell the user how much money is on their account", {}, false};
        state.flows = {transfer, balance_flow};
    }

    rasa::flow_spec* flow(const std::string& name) {
        for (auto& f : state.flows)
            if (f.name == name) return &f;
        return nullptr;
    }
    rasa::slot_spec* slot(const std::string& name) {
        if (rasa::flow_spec* f = flow(state.state.active_flow))
            for (auto& s : f->slots)
                if (s.name == name) return &s;
        return nullptr;
    }

    void end_flow() {
        if (rasa::flow_spec* f = flow(state.state.active_flow))
            for (auto& s : f->slots) s.value.reset();
        state.state.active_flow.clear();
        state.state.current_slot.clear();
    }

    /// Applies the turn's commands and gives the assistant's answer.
    std::string apply(const std::vector<rasa::command>& commands) {
        std::string said;
        for (const rasa::command& c : commands) {
            if (const auto* start = std::get_if<rasa::StartFlow>(&c)) {
                end_flow();
                state.state.active_flow = start->flow;
            } else if (const auto* set = std::get_if<rasa::SetSlot>(&c)) {
                if (rasa::slot_spec* s = slot(set->slot)) s->value = set->value;
            } else if (std::holds_alternative<rasa::CancelFlow>(c)) {
                said = "Alright, I have cancelled the " + state.state.active_flow + " flow.";
                end_flow();
            } else if (std::holds_alternative<rasa::CannotHandle>(c)) {
                said = "Sorry, I can't help with that. I can send money and tell you your balance.";
            } else if (const auto* clarify = std::get_if<rasa::Clarify>(&c)) {
                said = "Do you want to " + clarify->flows.front() + "?";
            }
        }
        if (!said.empty()) return said;
        rasa::flow_spec* f = flow(state.state.active_flow);
        if (!f) return "Is there anything else I can do?";
        if (f->name == "check_balance") {
            end_flow();
            return "You have " + money(balance) + " on your account.";
        }
        for (auto& s : f->slots)
            if (!s.value) {
                state.state.current_slot = s.name;
                return s.name == "recipient" ? "Who should get the money?" : "How much should I send to " + *slot("recipient")->value + "?";
            }
        state.state.current_slot.clear();  // every slot is set: the flow asks to confirm
        return "Send " + money(std::stod(*slot("amount")->value)) + " to " + *slot("recipient")->value + "? Say yes to confirm.";
    }

    static std::string money(double d) {
        const long cents = static_cast<long>(d * 100 + 0.5);
        return std::to_string(cents / 100) + "." + (cents % 100 < 10 ? "0" : "") + std::to_string(cents % 100) + " dollars";
    }

    void print_state() const {
        std::cout << "  state:      ";
        if (state.state.active_flow.empty()) std::cout << "no active flow\n";
        else {
            std::cout << state.state.active_flow;
            for (const auto& f : state.flows)
                if (f.name == state.state.active_flow)
                    for (const auto& s : f.slots) std::cout << ", " << s.name << " = " << s.value.value_or("(not set)");
            std::cout << '\n';
        }
    }
};

asio::awaitable<int> converse(parley::chat_model& model, const std::string& model_name) {
    assistant bank;
    const std::vector<std::string> messages = {"Send money to Freddy", "Make it fifty", "No, cancel that",
                                               "What's the weather like in Oslo?"};
    rasa::multi_step_options opt;
    opt.params.model = model_name;
    opt.params.temperature = 0;
    parley::usage_summary usage;
    opt.usage = &usage;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        bank.state.user_message = messages[i];
        std::cout << "== turn " << i + 1 << "\nuser:         " << messages[i] << '\n';
        auto turn = co_await rasa::generate_commands_multi_step(model, bank.state, opt);
        if (!turn) {
            std::cout << "the turn failed: " << turn.error().what() << '\n';
            co_return 1;
        }
        std::string ran;
        for (const auto& p : turn->prompts)
            ran += (ran.empty() ? "" : ", ") + std::string(rasa::prompt_name(p.prompt)) + (p.flow.empty() ? "" : " for " + p.flow) +
                   (p.replies > 1 ? " (" + std::to_string(p.replies) + " replies)" : "");
        std::cout << "  prompts:    " << ran << '\n';
        std::string list;
        for (const auto& c : turn->commands) list += (list.empty() ? "" : " ") + rasa::action_text(c);
        std::cout << "  commands:   " << list << '\n';
        const std::string answer = bank.apply(turn->commands);
        bank.print_state();
        std::cout << "assistant:    " << answer << "\n\n";
        bank.state.conversation.push_back(parley::make_message(parley::role::user, messages[i]));
        bank.state.conversation.push_back(parley::make_message(parley::role::assistant, answer));
    }
    const auto total = usage.total();
    std::cout << total.requests << " requests in 4 turns\n";
    co_return 0;
}

std::string environment(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

}  // namespace

int main(int argc, char** argv) try {
    const std::filesystem::path dir = argc > 1 ? argv[1] : PARLEY_RASA_MULTI_STEP_DIR;
    parley::client_config config = parley::config_from_environment(parley::api::openai);
    std::unique_ptr<parley::testing::fake_server> offline;
    std::string model_name = environment("OPENAI_MODEL");
    if (model_name.empty()) model_name = "gpt-4o-mini";
    if (config.base_url.empty() && config.api_key.empty()) {
        parley::testing::fake_server_options o;
        o.script = parley::testing::fake_script_from_file(dir / "fake-server-script.json");
        offline = std::make_unique<parley::testing::fake_server>(std::move(o));
        config.base_url = offline->url("/v1");
        std::cout << "offline: parley's fake model server on 127.0.0.1 answers from fake-server-script.json\n\n";
    }
    asio::io_context io;
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), std::move(config));
    transcript model(std::make_shared<parley::client_model>(client));
    int status = 1;
    asio::co_spawn(io, converse(model, model_name), [&](std::exception_ptr e, int s) {
        if (e) std::rethrow_exception(e);
        status = s;
    });
    io.run();
    return status;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
}
