// Rasa's command-generator prompt (the shared corpus's command_generator_single_step.jinja2) as a
// compile-time template rendered with a described context: every context of the corpus is read
// into the structs below and the output compared byte for byte with Python Jinja2's (the shared
// oracle) on the JSON context. The template's source is embedded from the corpus at build time
// (tests/jinja/embed_text.cmake); a missing corpus or oracle fails the test.
#include <parley/jinja.hpp>
#include <parley/jinja/compiled.hpp>

#include "../harness/jinja_oracle.hpp"
#include "rasa_prompt_source.hpp"

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rasa {

// A JSON null reads as None (std::nullptr_t); a key some objects lack reads as undefined in
// Jinja, as an empty std::optional does (`allowed_values` is absent, null or a list).
using nullable_string = std::variant<std::nullptr_t, std::string>;
using allowed_values_t = std::optional<std::variant<std::nullptr_t, std::vector<std::string>>>;

// a slot of a flow that can be started
struct flow_slot_info {
    std::string name;
    std::string description;
    allowed_values_t allowed_values;
};
BOOST_DESCRIBE_STRUCT(flow_slot_info, (), (name, description, allowed_values))

struct flow {
    std::string name;
    std::string description;
    std::vector<flow_slot_info> slots;
};
BOOST_DESCRIBE_STRUCT(flow, (), (name, description, slots))

// a slot of the active flow
struct active_slot {
    std::string name;
    nullable_string value;
    std::string type;
    std::string description;
    allowed_values_t allowed_values;
};
BOOST_DESCRIBE_STRUCT(active_slot, (), (name, value, type, description, allowed_values))

struct context {
    std::vector<flow> available_flows;
    std::string current_conversation;
    nullable_string current_flow;
    nullable_string current_slot;
    nullable_string current_slot_description;
    std::vector<active_slot> flow_slots;
    std::string user_message;
    bool is_repeat_command_enabled = false;
};
BOOST_DESCRIBE_STRUCT(context, (), (available_flows, current_conversation, current_flow, current_slot,
                                    current_slot_description, flow_slots, user_message, is_repeat_command_enabled))

// ---- JSON to the structs: every key of the corpus must have its member (else a failed check) ----

void only_keys(const boost::json::object& o, std::initializer_list<std::string_view> keys, std::string_view what) {
    for (const auto& kv : o) {
        bool known = false;
        for (std::string_view k : keys) known = known || kv.key() == k;
        CHECK_MESSAGE(known, what << " has a key the structs do not model: " << std::string_view(kv.key()));
    }
}

std::string text(const boost::json::object& o, std::string_view key) { return std::string(o.at(key).as_string()); }

nullable_string nullable_text(const boost::json::object& o, std::string_view key) {
    const boost::json::value& v = o.at(key);
    if (v.is_null()) return nullptr;
    return std::string(v.as_string());
}

allowed_values_t allowed_values(const boost::json::object& o) {
    const boost::json::value* v = o.if_contains("allowed_values");
    if (!v) return std::nullopt;
    if (v->is_null()) return nullptr;
    std::vector<std::string> values;
    for (const auto& x : v->as_array()) values.emplace_back(x.as_string());
    return values;
}

context from_json(const boost::json::value& json) {
    const boost::json::object& o = json.as_object();
    only_keys(o,
              {"available_flows", "current_conversation", "current_flow", "current_slot", "current_slot_description",
               "flow_slots", "user_message", "is_repeat_command_enabled"},
              "a context");
    context c;
    for (const auto& f : o.at("available_flows").as_array()) {
        const boost::json::object& fo = f.as_object();
        only_keys(fo, {"name", "description", "slots"}, "a flow");
        flow x{text(fo, "name"), text(fo, "description"), {}};
        for (const auto& s : fo.at("slots").as_array()) {
            const boost::json::object& so = s.as_object();
            only_keys(so, {"name", "description", "allowed_values"}, "a flow's slot");
            x.slots.push_back({text(so, "name"), text(so, "description"), allowed_values(so)});
        }
        c.available_flows.push_back(std::move(x));
    }
    c.current_conversation = text(o, "current_conversation");
    c.current_flow = nullable_text(o, "current_flow");
    c.current_slot = nullable_text(o, "current_slot");
    c.current_slot_description = nullable_text(o, "current_slot_description");
    for (const auto& s : o.at("flow_slots").as_array()) {
        const boost::json::object& so = s.as_object();
        only_keys(so, {"name", "value", "type", "description", "allowed_values"}, "an active slot");
        c.flow_slots.push_back(
            {text(so, "name"), nullable_text(so, "value"), text(so, "type"), text(so, "description"), allowed_values(so)});
    }
    c.user_message = text(o, "user_message");
    c.is_repeat_command_enabled = o.at("is_repeat_command_enabled").as_bool();
    return c;
}

}  // namespace rasa

namespace {

namespace pj = parley::jinja;

constexpr pj::compiled_template<rasa_prompt_source> rasa_prompt;

}  // namespace

TEST_CASE("compiled rasa prompt: the compile-time template with a described context renders as Python Jinja2") {
    REQUIRE_MESSAGE(rasa_prompt_source_found, "the Rasa prompt " << rasa_prompt_source_path
                                                                 << " was missing when the test was built");
    const std::filesystem::path dir = jinja_oracle::shared_dir() / "corpus" / "rasa";
    // the embedded source is the corpus's current file
    const std::optional<std::string> source = jinja_oracle::read_file(dir / "command_generator_single_step.jinja2");
    REQUIRE(source);
    REQUIRE_MESSAGE(*source == rasa_prompt_source::value, "the embedded prompt differs from " << rasa_prompt_source_path
                                                                                            << ": rebuild");
    const std::optional<std::string> contexts = jinja_oracle::read_file(dir / "contexts.json");
    REQUIRE(contexts);
    const boost::json::value list = boost::json::parse(*contexts);
    REQUIRE(list.is_array());
    REQUIRE_FALSE(list.as_array().empty());

    constexpr bool compiled = decltype(rasa_prompt)::is_compiled_for<rasa::context>;
    const std::string path = compiled ? "the generated code (is_compiled_for is true)"
                                      : "the run-time engine (is_compiled_for is false)";
    MESSAGE("Rasa's prompt with rasa::context renders through " << path);

    std::vector<jinja_oracle::render_case> cases;
    for (const auto& ctx : list.as_array()) cases.push_back({std::string(rasa_prompt_source::value), ctx, "plain"});
    const std::vector<jinja_oracle::result> reference = jinja_oracle::render(cases);
    REQUIRE(reference.size() == cases.size());

    for (std::size_t i = 0; i < cases.size(); ++i) {
        CAPTURE(i);
        const boost::json::value& json = list.as_array()[i];
        REQUIRE_MESSAGE(reference[i].output, "Python Jinja2 failed: " << reference[i].error);
        const std::string& expected = *reference[i].output;
        const rasa::context ctx = rasa::from_json(json);
        const std::string out = rasa_prompt.render(ctx);
        CHECK_MESSAGE(out == expected, jinja_oracle::first_difference(out, expected));
        // the run-time engine, on the same typed context, agrees
        CHECK(decltype(rasa_prompt)::runtime().render(ctx) == expected);
        // the comparison is about a real prompt: it holds the user's message and the conversation
        CHECK(expected.find("The user just said \"\"\"" + std::string(json.at("user_message").as_string()) + "\"\"\"") !=
              std::string::npos);
        CHECK(expected.find(std::string(json.at("current_conversation").as_string())) != std::string::npos);
    }
}
