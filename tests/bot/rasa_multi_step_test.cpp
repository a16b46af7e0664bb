// Tests of parley/bot/rasa_multi_step.hpp: the multi-step command generator's control flow
// against the scripted model (which prompts run, in which order, with what), the commands each
// step may produce (re-asked with the precise problem, a bounded number of times), the turn's
// commands, usage, and the prompts as Python Jinja2 renders them with the same variables.
#include <parley/bot/rasa_multi_step.hpp>

#include "../harness/jinja_oracle.hpp"
#include "run_sync.hpp"

#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

namespace multi_step_tests {

namespace rasa = parley::rasa;

rasa::multi_step_input banking(std::string active = {}, std::string slot = {}) {
    rasa::multi_step_input in;
    rasa::flow_spec transfer{"transfer_money", "Send money to one of the user's contacts", {}, false};
    transfer.slots.push_back({"recipient", "text", "Who receives the money", {}, std::nullopt});
    transfer.slots.push_back({"amount", "float", "How much, in dollars", {}, std::nullopt});
    rasa::flow_spec balance{"check_balance", "Tell the user how much money is in an account", {}, false};
    balance.slots.push_back({"account", "categorical", "", {"checking", "savings"}, std::nullopt});
    rasa::flow_spec help{"chit_chat", "Talk about the weather", {}, false};
    rasa::flow_spec pattern{"pattern_collect_information", "", {}, true};
    in.flows = {transfer, balance, help, pattern};
    in.state.active_flow = std::move(active);
    in.state.current_slot = std::move(slot);
    in.conversation = {parley::make_message(parley::role::user, "Hi"),
                       parley::make_message(parley::role::assistant, "Hello! How can I help?")};
    return in;
}

struct multi_step_model {
    std::shared_ptr<parley::scripted_model> script = std::make_shared<parley::scripted_model>();
    parley::in_process_model model{script};

    rasa::multi_step_result turn(const rasa::multi_step_input& in, rasa::multi_step_options opt = {}) {
        return bot_tests::run_sync(rasa::generate_commands_multi_step(model, in, std::move(opt)));
    }
    /// The text of the last user message of each request: the prompt, or a re-ask.
    std::vector<std::string> asked() const {
        std::vector<std::string> out;
        for (const auto& r : script->requests()) out.emplace_back(r.messages.back().text());
        return out;
    }
};

std::vector<std::string> actions(const std::vector<rasa::command>& commands) {
    std::vector<std::string> out;
    for (const auto& c : commands) out.push_back(rasa::action_text(c));
    return out;
}

using lines = std::vector<std::string>;  // NOLINT

}  // namespace multi_step_tests

using namespace multi_step_tests;

TEST_CASE("multi-step: without an active flow, handle_flows, then fill_slots for the flow it started") {
    multi_step_model s;
    s.script->push_text("The user wants to send money.\nStartFlow(transfer_money)");
    s.script->push_text("SetSlot(recipient, Freddy)\nSetSlot(amount, 50)\nDone()");
    auto in = banking();
    in.user_message = "Send 50 dollars to Freddy";
    const auto turn = s.turn(in);
    REQUIRE(turn.has_value());
    CHECK(actions(turn->commands) == lines{"StartFlow(transfer_money)", "SetSlot(recipient, Freddy)", "SetSlot(amount, 50)"});
    REQUIRE(turn->prompts.size() == 2);
    CHECK(turn->prompts[0].prompt == rasa::multi_step_prompt::handle_flows);
    CHECK(turn->prompts[1].prompt == rasa::multi_step_prompt::fill_slots_new);
    CHECK(turn->prompts[1].flow == "transfer_money");
    CHECK(actions(turn->prompts[1].commands) == lines{"SetSlot(recipient, Freddy)", "SetSlot(amount, 50)", "Done()"});
    CHECK(turn->prompts[0].replies == 1);
    const auto asked = s.asked();
    REQUIRE(asked.size() == 2);
    CHECK(asked[0] == turn->prompts[0].text);
    CHECK(asked[0].find("No flow is active.") != std::string::npos);
    CHECK(asked[0].find("- check_balance: Tell the user how much money is in an account") != std::string::npos);
    CHECK(asked[0].find("pattern_collect_information") == std::string::npos);  // patterns are not offered
    CHECK(asked[1].find("has just started the business process (flow) transfer_money") != std::string::npos);
    // the new flow's prompt sees more of the conversation (20 messages) than handle_flows (2)
    CHECK(asked[1].find("USER: Hi\nAI: Hello! How can I help?\nUSER: Send 50 dollars to Freddy") != std::string::npos);
    CHECK(turn->usage.total().requests == 2);
}

TEST_CASE("multi-step: with an active flow, fill_slots alone when it fills a slot") {
    multi_step_model s;
    s.script->push_text("SetSlot(amount, 50)");
    auto in = banking("transfer_money", "amount");
    in.user_message = "50 bucks";
    const auto turn = s.turn(in);
    REQUIRE(turn.has_value());
    CHECK(actions(turn->commands) == lines{"SetSlot(amount, 50)"});
    REQUIRE(turn->prompts.size() == 1);
    CHECK(turn->prompts[0].prompt == rasa::multi_step_prompt::fill_slots_active);
    const auto asked = s.asked();
    CHECK(asked[0].find("The flow transfer_money is active. Its slots:") != std::string::npos);
    CHECK(asked[0].find("The assistant has just asked the user for the slot amount (float): How much, in dollars.") !=
          std::string::npos);
    // one message before the latest for the active flow (Rasa's default)
    CHECK(asked[0].find("AI: Hello! How can I help?\nUSER: 50 bucks") != std::string::npos);
    CHECK(asked[0].find("USER: Hi") == std::string::npos);
}

TEST_CASE("multi-step: ChangeFlow hands over to handle_flows, which may cancel or start another flow") {
    SUBCASE("ChangeFlow, then CancelFlow") {
        multi_step_model s;
        s.script->push_text("ChangeFlow()");
        s.script->push_text("CancelFlow()");
        auto in = banking("transfer_money", "recipient");
        in.user_message = "Forget it";
        const auto turn = s.turn(in);
        REQUIRE(turn.has_value());
        CHECK(actions(turn->commands) == lines{"CancelFlow()"});
        REQUIRE(turn->prompts.size() == 2);
        CHECK(turn->prompts[1].prompt == rasa::multi_step_prompt::handle_flows);
        CHECK(s.asked()[1].find("- CancelFlow(): the user wants to stop the active flow.") != std::string::npos);
    }
    SUBCASE("a slot and ChangeFlow, then a new flow whose slots are filled") {
        multi_step_model s;
        s.script->push_text("SetSlot(recipient, Ann)\nChangeFlow()");
        s.script->push_text("StartFlow(check_balance)");
        s.script->push_text("SetSlot(account, SAVINGS)\nDone()");
        auto in = banking("transfer_money", "recipient");
        in.user_message = "Ann. But first, what is on my savings account?";
        const auto turn = s.turn(in);
        REQUIRE(turn.has_value());
        // the categorical value in the spelling of its list
        CHECK(actions(turn->commands) == lines{"SetSlot(recipient, Ann)", "StartFlow(check_balance)", "SetSlot(account, savings)"});
        REQUIRE(turn->prompts.size() == 3);
        CHECK(turn->prompts[2].flow == "check_balance");
    }
    SUBCASE("fill_slots gives nothing: handle_flows runs") {
        multi_step_model s;
        s.script->push_text("The user asks about the weather.");
        s.script->push_text("StartFlow(chit_chat)");
        auto in = banking("transfer_money", "amount");
        in.user_message = "Nice weather today";
        const auto turn = s.turn(in);
        REQUIRE(turn.has_value());
        // chit_chat has no slots: no fill_slots for it
        CHECK(actions(turn->commands) == lines{"StartFlow(chit_chat)"});
        CHECK(turn->prompts.size() == 2);
    }
    SUBCASE("a StartFlow of the active flow is dropped; nothing left is CannotHandle") {
        multi_step_model s;
        s.script->push_text("ChangeFlow()");
        s.script->push_text("StartFlow(transfer_money)");
        auto in = banking("transfer_money", "amount");
        in.user_message = "send money";
        const auto turn = s.turn(in);
        REQUIRE(turn.has_value());
        CHECK(actions(turn->commands) == lines{"CannotHandle()"});
        CHECK(turn->prompts.size() == 2);  // no fill_slots for a flow already active
    }
}

TEST_CASE("multi-step: CannotHandle, and Clarify") {
    multi_step_model s;
    s.script->push_text("CannotHandle()");
    auto in = banking();
    in.user_message = "What is the meaning of life?";
    auto turn = s.turn(in);
    REQUIRE(turn.has_value());
    CHECK(actions(turn->commands) == lines{"CannotHandle()"});
    s.script->push_text("Clarify(transfer_money, check_balance)");
    in.user_message = "money";
    turn = s.turn(in);
    REQUIRE(turn.has_value());
    CHECK(actions(turn->commands) == lines{"Clarify(transfer_money, check_balance)"});
}

TEST_CASE("multi-step: a reply that does not fit its step goes back with the precise problem") {
    SUBCASE("a float slot given words, a command of another step") {
        multi_step_model s;
        s.script->push_text("SetSlot(amount, fifty)\nStartFlow(check_balance)");
        s.script->push_text("SetSlot(amount, 50)");
        auto in = banking("transfer_money", "amount");
        in.user_message = "fifty";
        const auto turn = s.turn(in);
        REQUIRE(turn.has_value());
        CHECK(actions(turn->commands) == lines{"SetSlot(amount, 50)"});
        CHECK(turn->prompts[0].replies == 2);
        const auto asked = s.asked();
        REQUIRE(asked.size() == 2);
        CHECK(asked[1] == "Your list of commands does not fit:\n"
                          "SetSlot(amount, fifty): the slot amount holds a number (float), and \"fifty\" is not one\n"
                          "StartFlow(check_balance): not a command of this step, which takes SetSlot and ChangeFlow\n"
                          "Reply again with the whole list of commands, one per line.");
    }
    SUBCASE("unknown flows and slots, values outside the allowed ones, CancelFlow without a flow") {
        multi_step_model s;
        s.script->push_text("StartFlow(transfer_mony)\nCancelFlow()\nClarify(check_balance, nothing)");
        s.script->push_text("StartFlow(check_balance)");
        s.script->push_text("SetSlot(account, credit)\nSetSlot(colour, red)\nDone()");
        s.script->push_text("SetSlot(account, checking)\nDone()");
        auto in = banking();
        in.user_message = "balance";
        const auto turn = s.turn(in);
        REQUIRE(turn.has_value());
        CHECK(actions(turn->commands) == lines{"StartFlow(check_balance)", "SetSlot(account, checking)"});
        const auto asked = s.asked();
        REQUIRE(asked.size() == 4);
        CHECK(asked[1] == "Your list of commands does not fit:\n"
                          "StartFlow(transfer_mony): there is no flow named \"transfer_mony\" to start (the flows are "
                          "transfer_money, check_balance, chit_chat)\n"
                          "CancelFlow(): no flow is active, so there is none to cancel (this step takes StartFlow, Clarify "
                          "and CannotHandle)\n"
                          "Clarify(check_balance, nothing): there is no flow named \"nothing\" to start (the flows are "
                          "transfer_money, check_balance, chit_chat)\n"
                          "Reply again with the whole list of commands, one per line.");
        CHECK(asked[3] == "Your list of commands does not fit:\n"
                          "SetSlot(account, credit): the slot account takes one of checking, savings, not \"credit\"\n"
                          "SetSlot(colour, red): there is no slot named \"colour\" here (the slots are account)\n"
                          "Reply again with the whole list of commands, one per line.");
    }
    SUBCASE("a bounded number of times: then the turn fails, naming the prompt and every attempt") {
        multi_step_model s;
        for (int i = 0; i < 3; ++i) s.script->push_text("SetSlot(amount, 50)");
        auto in = banking();
        in.user_message = "x";
        parley::usage_summary usage;
        rasa::multi_step_options opt;
        opt.usage = &usage;
        const auto turn = s.turn(in, opt);
        REQUIRE_FALSE(turn.has_value());
        CHECK(turn.error().prompt == rasa::multi_step_prompt::handle_flows);
        CHECK(turn.error().failure.attempts.size() == 3);
        CHECK(turn.error().what().find("handle_flows: no reply fitted in 3 attempts") == 0);
        CHECK(usage.total().requests == 3);
        CHECK(turn.error().usage.total().requests == 3);
        CHECK_THROWS_AS((void)turn.value(), rasa::multi_step_exception);
    }
    SUBCASE("bool and categorical values are read case-insensitively and written as the slot spells them") {
        multi_step_model s;
        auto in = banking("transfer_money", "amount");
        in.flows[0].slots.push_back({"urgent", "bool", "", {}, std::nullopt});
        s.script->push_text("SetSlot(urgent, True)\nSetSlot(amount, 1e3)");
        in.user_message = "a thousand, and hurry";
        const auto turn = s.turn(in);
        REQUIRE(turn.has_value());
        CHECK(actions(turn->commands) == lines{"SetSlot(urgent, true)", "SetSlot(amount, 1e3)"});
    }
}

TEST_CASE("multi-step: usage, a call that fails, and a state that names what the input lacks") {
    multi_step_model s;
    parley::chat_reply counted = parley::text_reply("StartFlow(chit_chat)");
    parley::token_usage u;
    u.prompt_tokens = 300;
    u.completion_tokens = 7;
    counted.usage = u;
    s.script->push(counted);
    auto in = banking();
    in.user_message = "chat";
    parley::usage_summary outer;
    rasa::multi_step_options opt;
    opt.usage = &outer;
    opt.params.model = "small-model";
    const auto turn = s.turn(in, opt);
    REQUIRE(turn.has_value());
    CHECK(turn->usage.total().input_tokens == 300);
    CHECK(outer.total().output_tokens == 7);
    CHECK(outer.models.at(0).model == "small-model");
    CHECK(s.script->requests().at(0).params.model == "small-model");

    parley::call_error e;
    e.code = parley::make_error_code(parley::errc::http_status);
    e.status = 503;
    s.script->push(e);
    const auto failed = s.turn(in);
    REQUIRE_FALSE(failed.has_value());
    REQUIRE(failed.error().failure.call);
    CHECK(failed.error().failure.call->status == 503);

    auto wrong = banking("nope");
    CHECK_THROWS_WITH_AS(s.turn(wrong), "the active flow 'nope' is not one of the input's flows", parley::error);
    auto wrong_slot = banking("transfer_money", "colour");
    CHECK_THROWS_AS(s.turn(wrong_slot), parley::error);
}

TEST_CASE("multi-step: a pattern on top; Rasa's own prompts as templates; what is sent is what Python Jinja2 renders") {
    auto in = banking("pattern_collect_information", "account");
    in.state.top_user_flow = "check_balance";
    in.flows[3].slots.push_back({"account", "categorical", "", {"checking", "savings"}, std::nullopt});
    in.user_message = "savings, please";
    const auto dir = jinja_oracle::shared_dir() / "corpus" / "rasa" / "multi-step";
    const auto handle_flows = jinja_oracle::read_file(dir / "handle_flows_prompt.jinja2");
    const auto fill_slots = jinja_oracle::read_file(dir / "fill_slots_prompt.jinja2");
    REQUIRE(handle_flows);
    REQUIRE(fill_slots);
    rasa::multi_step_options opt;
    opt.handle_flows = std::make_shared<const parley::jinja::parsed_template>(
        parley::jinja::environment::plain().parse(*handle_flows, "handle_flows_prompt.jinja2"));
    opt.fill_slots = std::make_shared<const parley::jinja::parsed_template>(
        parley::jinja::environment::plain().parse(*fill_slots, "fill_slots_prompt.jinja2"));

    multi_step_model s;
    s.script->push_text("The user picked savings.\nSetSlot(account, savings)");
    const auto turn = s.turn(in, opt);
    REQUIRE(turn.has_value());
    CHECK(actions(turn->commands) == lines{"SetSlot(account, savings)"});

    // the variables the prompt was rendered with, rendered by Python Jinja2 with Rasa's template
    namespace dm = parley::rasa::detail::multi_step;
    const auto* pattern = dm::find_flow(in, "pattern_collect_information");
    const auto* user_flow = dm::find_flow(in, "check_balance");
    const boost::json::value ctx = dm::context(in, rasa::multi_step_prompt::fill_slots_active, pattern, user_flow, 1);
    CHECK(ctx.at("top_flow_is_pattern") == true);
    CHECK(ctx.at("top_user_flow") == "check_balance");
    CHECK(ctx.at("current_slot_allowed_values") == "['checking', 'savings']");
    const auto reference = jinja_oracle::render({{*fill_slots, ctx, "plain"}});
    REQUIRE(reference.size() == 1);
    REQUIRE_MESSAGE(reference[0].output, reference[0].error);
    CHECK(s.asked().at(0) == *reference[0].output);
    CHECK(s.asked().at(0).find("You are currently in the flow \"check_balance\".") != std::string::npos);
}

TEST_CASE("action_text writes what parse_rasa_commands reads back") {
    const std::vector<rasa::command> commands{
        rasa::StartFlow{"transfer_money"}, rasa::SetSlot{"note", "a, b (c) \"d\" \\ e"}, rasa::SetSlot{"empty", ""},
        rasa::Clarify{{"a", "b"}},         rasa::CancelFlow{},  rasa::Done{}, rasa::ChangeFlow{}, rasa::CannotHandle{}};
    std::string text;
    for (const auto& c : commands) text += rasa::action_text(c) + "\n";
    const auto read = rasa::parse_rasa_commands(text);
    CHECK(read.problems.empty());
    CHECK(read.commands == commands);
    CHECK(rasa::action_text(commands[1]) == R"(SetSlot(note, "a, b (c) \"d\" \\ e"))");
}
