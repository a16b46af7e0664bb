// Tests of parley/chat/template_set.hpp: named templates, function definitions, lookup, search
// and the check that requests only name defined functions.
#include <parley/chat/template_set.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace parley;

namespace {

conversation_template described(std::string name, std::string description, std::vector<message> messages = {}) {
    return conversation_template(template_info{std::move(name), std::move(description), "1.0", {"ask"}},
                                 std::move(messages));
}

std::vector<std::string> names(const std::vector<const conversation_template*>& ts) {
    std::vector<std::string> out;
    for (const auto* t : ts) out.push_back(t->name());
    return out;
}

}  // namespace

TEST_CASE("template_set: lookup by name, with the names there are in the error") {
    template_set set;
    set.add(described("summarize", "Summarize a text in three sentences."));
    set.add(described("translate", "Translate to French."));
    CHECK(set.find("translate")->info().description == "Translate to French.");
    CHECK(set.find("nope") == nullptr);
    CHECK(&set.at("summarize") == &set.templates()[0]);
    CHECK_THROWS_WITH_AS(set.at("sumarize"), "no template named 'sumarize' (the set has: summarize, translate)",
                         parley::error);
    CHECK_THROWS_WITH_AS(template_set{}.at("x"), "no template named 'x' (the set has: none)", parley::error);
    CHECK_THROWS_WITH_AS(set.add(described("translate", "again")), "template 'translate' is defined twice",
                         parley::error);
    CHECK_THROWS_WITH_AS(set.add(conversation_template()), "a template of a set needs a name", parley::error);
}

TEST_CASE("template_set: search by keyword in name or description, ignoring case") {
    template_set set;
    set.add(described("summarize", "Summarize a text in three sentences."));
    set.add(described("translate", "Translate a TEXT to French."));
    set.add(described("classify_text", "Pick a label."));
    set.add(described("chitchat", "Small talk."));
    CHECK(names(set.search("text")) == std::vector<std::string>{"summarize", "translate", "classify_text"});
    CHECK(names(set.search("FRENCH")) == std::vector<std::string>{"translate"});
    CHECK(names(set.search("chit")) == std::vector<std::string>{"chitchat"});
    CHECK(names(set.search("zebra")).empty());
    CHECK(set.search("").size() == 4);
}

TEST_CASE("template_set: function definitions and the functions requests name") {
    template_set set;
    set.add(function_definition{"get_weather", "Weather of a city.",
                                {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}});
    CHECK(set.function("get_weather")->description == "Weather of a city.");
    CHECK(set.function("other") == nullptr);
    CHECK_THROWS_WITH_AS(set.add(function_definition{"get weather", "", {}}),
                         "a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'get weather'", parley::error);
    CHECK_THROWS_WITH_AS(set.add(function_definition{"get_weather", "", {}}), "function 'get_weather' is defined twice",
                         parley::error);

    message req;
    req.role = role::request;
    req.params.functions = std::vector<std::string>{"get_weather", "send_mail"};
    set.add(conversation_template("mail", {make_message(role::user, "x"), req}));
    CHECK_THROWS_WITH_AS(set.check_functions(), "mail, message 1: 'functions' names 'send_mail', which the set does not define",
                         parley::error);
    CHECK_NOTHROW(set.check_functions({"send_mail"}));  // registered elsewhere (a bot's C++ function)

    template_set forced;
    message force;
    force.role = role::request;
    force.params.call_function = "lookup";
    forced.add(conversation_template("f", {force}));
    CHECK_THROWS_WITH_AS(forced.check_functions(), "f, message 0: 'call_function' names 'lookup', which the set does not define",
                         parley::error);
    message any = force;
    any.params.call_function = "*";
    template_set ok;
    ok.add(conversation_template("g", {any}));
    CHECK_NOTHROW(ok.check_functions());
}
