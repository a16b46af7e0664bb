// The ai-style calls and bot::run called with their default options inside a co_await
// expression, as the docs show them. g++ 12 miscompiles a brace-initialized aggregate temporary
// (a default argument written `= {}`) in a co_await operand: the options would be copied bit by
// bit and their strings freed twice. The defaults are value-initialized (`= T()`) instead; this
// test fails (the program aborts) if one of them goes back to braces.
#include <parley/bot.hpp>
#include <parley/chat/yaml.hpp>

#include "run_sync.hpp"

#include <boost/describe/class.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

namespace coroutine_defaults {

struct dish {
    std::string name;
    int calories = 0;
};
BOOST_DESCRIBE_STRUCT(dish, (), (name, calories))

boost::asio::awaitable<std::vector<std::string>> every_call(parley::chat_model& model, const parley::bot& bot) {
    std::vector<std::string> out;
    const boost::json::value data = boost::json::object{{"what", "pie"}};
    auto text = co_await parley::generate(model, "Name {{ what }}.", data);
    out.push_back(text ? *text : text.error().what());
    auto food = co_await parley::extract<dish>(model, "Describe {{ what }}.", data);
    out.push_back(food ? food->name : food.error().what());
    const std::vector<std::string> choices{"sweet", "savoury"};
    auto kind = co_await parley::classify(model, "Apple pie", choices);
    out.push_back(kind ? *kind : kind.error().what());
    auto conversation = co_await bot.run("ask", data);
    out.push_back(std::string(conversation.back().text()));
    co_return out;
}

}  // namespace coroutine_defaults

TEST_CASE("the ai-style calls and bot::run with their default options inside co_await") {
    using namespace coroutine_defaults;
    auto script = std::make_shared<parley::scripted_model>();
    script->push_text("Pie.");
    script->push(parley::tool_call_reply({parley::tool_call{"c1", parley::function_call{"dish", R"({"name": "pie", "calories": 300})"}}}));
    script->push(parley::tool_call_reply({parley::tool_call{"c2", parley::function_call{"classify", R"({"choice": "sweet"})"}}}));
    script->push_text("A pie.");
    auto model = std::make_shared<parley::in_process_model>(script);
    parley::bot bot(parley::load_template_set("templates:\n  ask:\n    messages:\n      - role: user\n        content: \"{{ what }}?\"\n"),
                    model);
    const auto out = bot_tests::run_sync(every_call(*model, bot));
    CHECK(out == std::vector<std::string>{"Pie.", "pie", "sweet", "A pie."});
}
