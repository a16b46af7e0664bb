// Tests of parley/chat/multi_step_prompts.hpp: Rasa's multi-step prompts (handle_flows and
// fill_slots, from the shared corpus) and parley's own render with parley as with Python Jinja2
// (the shared oracle), byte for byte, on contexts that cover every variable and branch: a flow
// active or not, a pattern on top or not, slots with and without descriptions and allowed values,
// no flows, quotes and non-ASCII in values.
#include <parley/chat/multi_step_prompts.hpp>

#include "../harness/jinja_oracle.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace multi_step_prompt_tests {

namespace pj = parley::jinja;

/// Contexts with Rasa's variables. The first eight are handle_flows / active fill_slots contexts,
/// the others new-flow fill_slots contexts (flow_active false) and odd ones.
const char* const contexts_json = R"json([
  {"available_flows": [{"name": "transfer_money", "description": "send money to a contact"},
                       {"name": "check_balance", "description": "show the balance of an account"}],
   "current_conversation": "USER: I want to send money", "current_flow": null, "current_slot": null,
   "current_slot_description": null, "current_slot_type": null, "current_slot_allowed_values": null,
   "flow_slots": [], "last_user_message": "I want to send money", "top_flow_is_pattern": false,
   "top_user_flow": null, "top_user_flow_slots": [], "flow_active": true},

  {"available_flows": [{"name": "transfer_money", "description": "send money to a contact"}],
   "current_conversation": "USER: send money to Freddy\nAI: How much?\nUSER: 50 bucks",
   "current_flow": "transfer_money", "current_slot": "amount",
   "current_slot_description": "the amount of money to send", "current_slot_type": "float",
   "current_slot_allowed_values": null,
   "flow_slots": [{"name": "recipient", "value": "Freddy", "type": "text", "description": "who gets it", "allowed_values": null},
                  {"name": "amount", "value": null, "type": "float", "description": "the amount of money to send", "allowed_values": null}],
   "last_user_message": "50 bucks", "top_flow_is_pattern": false, "top_user_flow": null,
   "top_user_flow_slots": [], "flow_active": true},

  {"available_flows": [{"name": "transfer_money", "description": "send money"}, {"name": "check_balance", "description": "balance"}],
   "current_conversation": "AI: Which account?\nUSER: the savings one", "current_flow": "pattern_collect_information",
   "current_slot": "account", "current_slot_description": "", "current_slot_type": "categorical",
   "current_slot_allowed_values": "['checking', 'savings']",
   "flow_slots": [{"name": "account", "value": null, "type": "categorical", "description": "", "allowed_values": "['checking', 'savings']"}],
   "last_user_message": "the savings one", "top_flow_is_pattern": true, "top_user_flow": "check_balance",
   "top_user_flow_slots": [{"name": "account", "value": null, "type": "categorical", "description": "the account", "allowed_values": "['checking', 'savings']"},
                           {"name": "notify", "value": "True", "type": "bool", "description": null, "allowed_values": "[True, False]"}],
   "flow_active": true},

  {"available_flows": [], "current_conversation": "USER: hello", "current_flow": null, "current_slot": null,
   "current_slot_description": null, "current_slot_type": null, "current_slot_allowed_values": null,
   "flow_slots": [], "last_user_message": "hello", "top_flow_is_pattern": false, "top_user_flow": null,
   "top_user_flow_slots": [], "flow_active": true},

  {"available_flows": [{"name": "book_hotel", "description": "book a hotel \"room\" for the user"},
                       {"name": "réserver", "description": "réserver une table — « au calme »"}],
   "current_conversation": "USER: «Réserve» une table pour 2, s'il te plaît", "current_flow": "book_hotel",
   "current_slot": "city", "current_slot_description": "the city, e.g. \"Paris\"", "current_slot_type": "text",
   "current_slot_allowed_values": null,
   "flow_slots": [{"name": "city", "value": "Zürich", "type": "text", "description": "the city, e.g. \"Paris\"", "allowed_values": null},
                  {"name": "nights", "value": null, "type": "float", "description": null, "allowed_values": null}],
   "last_user_message": "«Réserve» une table pour 2, s'il te plaît", "top_flow_is_pattern": false,
   "top_user_flow": null, "top_user_flow_slots": [], "flow_active": true},

  {"available_flows": [{"name": "transfer_money", "description": "send money"}],
   "current_conversation": "USER: stop", "current_flow": "transfer_money", "current_slot": "recipient",
   "current_slot_description": null, "current_slot_type": "text", "current_slot_allowed_values": null,
   "flow_slots": [{"name": "recipient", "value": null, "type": "text", "description": null, "allowed_values": null}],
   "last_user_message": "stop", "top_flow_is_pattern": false, "top_user_flow": null, "top_user_flow_slots": [],
   "flow_active": true},

  {"available_flows": [{"name": "order_pizza", "description": "order a pizza"}],
   "current_conversation": "", "current_flow": "order_pizza", "current_slot": "size",
   "current_slot_description": "small, medium or large", "current_slot_type": "categorical",
   "current_slot_allowed_values": "['small', 'medium', 'large']",
   "flow_slots": [{"name": "size", "value": null, "type": "categorical", "description": "small, medium or large", "allowed_values": "['small', 'medium', 'large']"},
                  {"name": "vegan", "value": "False", "type": "bool", "description": "no animal products", "allowed_values": "[True, False]"}],
   "last_user_message": "a big one", "top_flow_is_pattern": false, "top_user_flow": null, "top_user_flow_slots": [],
   "flow_active": true},

  {"available_flows": [{"name": "a", "description": ""}],
   "current_conversation": "USER: 'quotes' and \"doubles\" and {{ braces }}", "current_flow": "pattern_cancel_flow",
   "current_slot": null, "current_slot_description": null, "current_slot_type": null, "current_slot_allowed_values": null,
   "flow_slots": [], "last_user_message": "'quotes' and \"doubles\" and {{ braces }}", "top_flow_is_pattern": true,
   "top_user_flow": "a", "top_user_flow_slots": [], "flow_active": true},

  {"current_conversation": "USER: send 50 dollars to Freddy", "current_flow": "transfer_money",
   "flow_slots": [{"name": "recipient", "value": null, "type": "text", "description": "who gets the money", "allowed_values": null},
                  {"name": "amount", "value": null, "type": "float", "description": "", "allowed_values": null}],
   "last_user_message": "send 50 dollars to Freddy", "flow_active": false},

  {"current_conversation": "AI: Hi!\nUSER: what is on my savings account?", "current_flow": "check_balance",
   "flow_slots": [{"name": "account", "value": null, "type": "categorical", "description": "the account to look at", "allowed_values": "['checking', 'savings']"}],
   "last_user_message": "what is on my savings account?", "flow_active": false},

  {"current_conversation": "USER: réserve à Zürich", "current_flow": "réserver",
   "flow_slots": [{"name": "ville", "value": "Genève", "type": "text", "description": "la ville « préférée »", "allowed_values": null},
                  {"name": "terrasse", "value": null, "type": "bool", "description": null, "allowed_values": "[True, False]"}],
   "last_user_message": "réserve à Zürich", "flow_active": false},

  {"current_conversation": "USER: go", "current_flow": "no_slots", "flow_slots": [], "last_user_message": "go",
   "flow_active": false},

  {"available_flows": [{"name": "transfer_money", "description": "send money"}],
   "current_conversation": "USER: x", "current_flow": "transfer_money", "current_slot": "amount",
   "current_slot_description": "how much", "current_slot_type": "float", "current_slot_allowed_values": null,
   "flow_slots": [{"name": "amount", "value": "12.5", "type": "float", "description": "how much", "allowed_values": null}],
   "last_user_message": "make it 12.50 — no, 13", "top_flow_is_pattern": true, "top_user_flow": "transfer_money",
   "top_user_flow_slots": [{"name": "recipient", "value": "Ann", "type": "text", "description": "", "allowed_values": null}],
   "flow_active": true}
])json";

std::vector<boost::json::value> contexts() {
    const boost::json::value all = boost::json::parse(contexts_json);
    return std::vector<boost::json::value>(all.as_array().begin(), all.as_array().end());
}

/// Renders `source` with every context, with parley and with Python Jinja2, and compares.
void compare_with_python(const std::string& source, const std::string& name, const std::vector<boost::json::value>& ctxs) {
    const pj::parsed_template t = pj::environment::plain().parse(source, name);
    std::vector<jinja_oracle::render_case> cases;
    for (const auto& ctx : ctxs) cases.push_back({source, ctx, "plain"});
    const auto reference = jinja_oracle::render(cases);
    REQUIRE(reference.size() == ctxs.size());
    for (std::size_t i = 0; i < ctxs.size(); ++i) {
        CAPTURE(name);
        CAPTURE(i);
        REQUIRE_MESSAGE(reference[i].output, "Python Jinja2 failed: " << reference[i].error);
        const std::string out = t.render(ctxs[i]);
        CHECK_MESSAGE(out == *reference[i].output, jinja_oracle::first_difference(out, *reference[i].output));
    }
}

}  // namespace multi_step_prompt_tests

using namespace multi_step_prompt_tests;

TEST_CASE("multi-step prompts: Rasa's handle_flows and fill_slots render with parley as with Python Jinja2") {
    const auto dir = jinja_oracle::shared_dir() / "corpus" / "rasa" / "multi-step";
    const auto handle_flows = jinja_oracle::read_file(dir / "handle_flows_prompt.jinja2");
    const auto fill_slots = jinja_oracle::read_file(dir / "fill_slots_prompt.jinja2");
    REQUIRE(handle_flows);
    REQUIRE(fill_slots);
    const auto all = contexts();
    REQUIRE(all.size() >= 12);
    // every context with both (the new-flow contexts lack available_flows: a list of no flows)
    compare_with_python(*handle_flows, "handle_flows_prompt.jinja2", all);
    compare_with_python(*fill_slots, "fill_slots_prompt.jinja2", all);
}

TEST_CASE("multi-step prompts: parley's handle_flows and fill_slots render as with Python Jinja2, and say what they must") {
    const auto all = contexts();
    compare_with_python(std::string(parley::handle_flows_prompt), "handle_flows_prompt", all);
    compare_with_python(std::string(parley::fill_slots_prompt), "fill_slots_prompt", all);

    // CancelFlow is offered only while a flow is active; ChangeFlow only for the active flow, Done only for a new one
    const std::string no_flow = parley::handle_flows_template().render(all[0]);
    CHECK(no_flow.find("CancelFlow()") == std::string::npos);
    CHECK(no_flow.find("No flow is active.") != std::string::npos);
    CHECK(no_flow.find("- transfer_money: send money to a contact") != std::string::npos);
    const std::string in_flow = parley::handle_flows_template().render(all[1]);
    CHECK(in_flow.find("- CancelFlow(): the user wants to stop the active flow.") != std::string::npos);
    CHECK(in_flow.find("The flow transfer_money is active.") != std::string::npos);
    const std::string active = parley::fill_slots_template().render(all[1]);
    CHECK(active.find("ChangeFlow()") != std::string::npos);
    CHECK(active.find("Done()") == std::string::npos);
    CHECK(active.find("- amount (float): the amount of money to send; value: not set yet") != std::string::npos);
    CHECK(active.find("The assistant has just asked the user for the slot amount (float): the amount of money to send.") !=
          std::string::npos);
    const std::string pattern = parley::fill_slots_template().render(all[2]);
    CHECK(pattern.find("over the user's flow check_balance") != std::string::npos);
    CHECK(pattern.find("- notify (bool); value: True; allowed values: [True, False]") != std::string::npos);
    const std::string fresh = parley::fill_slots_template().render(all[8]);
    CHECK(fresh.find("Done()") != std::string::npos);
    CHECK(fresh.find("ChangeFlow()") == std::string::npos);
    CHECK(fresh.find("has just started the business process (flow) transfer_money") != std::string::npos);
    CHECK(fresh.find("send 50 dollars to Freddy") != std::string::npos);
}
