// PromptingTools.jl's `aiextract` Food example in C++: a described struct is the return type,
// its JSON schema becomes the parameters of a function the model is made to call, and the call's
// arguments are read back into the struct. When they do not fit, the problems go back to the
// model in a tool message and it is asked again.
//
// Offline (nothing set), the model is parley's fake server on 127.0.0.1, over HTTP: its first
// reply does not fit (a string where a list belongs, calories in words), the second does. With
// OPENAI_BASE_URL and/or OPENAI_API_KEY set, a real OpenAI-compatible server answers instead,
// with the model OPENAI_MODEL (default gpt-4o-mini).
#include <parley/bot/client_model.hpp>  // a chat_client as a chat_model (link parley::net)
#include <parley/bot/extract.hpp>
#include <parley/chat/pretty_json.hpp>
#include <parley/testing/fake_server.hpp>  // the fake model server (link parley::testing)

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/describe/class.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace asio = boost::asio;

// The return type. Julia's `ingredients::Vector{String}` and `calories::Union{Nothing, Int}`
// are a std::vector and a std::optional: the schema marks the optional members as not required.
struct food {
    std::string name;
    std::vector<std::string> ingredients;
    std::optional<int> calories;
    std::optional<bool> vegetarian;
};
BOOST_DESCRIBE_STRUCT(food, (), (name, ingredients, calories, vegetarian))
PARLEY_ANNOTATE(food, "A dish and what is in it", (name, "The dish's name"), (ingredients, "One ingredient per item"),
                (calories, "Kilocalories, if the text says", minimum(0)))

// A chat_model that prints the model's calls and what is sent back, then passes each call on.
class logged final : public parley::chat_model {
public:
    explicit logged(std::shared_ptr<parley::chat_model> model) : model_(std::move(model)) {}

    asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request request, const parley::stream_handler* on_event) override {
        if (++requests_ == 1) {
            std::cout << "request 1, the prompt: " << request.messages.front().text() << '\n'
                      << "and the function the model must call:\n"
                      << parley::pretty_json(boost::json::object{{"name", request.functions.at(0).name},
                                                                 {"description", request.functions.at(0).description},
                                                                 {"parameters", request.functions.at(0).parameters}})
                      << '\n';
        } else {  // a re-ask: the problems, answering the call that did not fit
            std::cout << "request " << requests_ << ": sent back to the model:\n  "
                      << indented(request.messages.back().text()) << '\n';
        }
        auto reply = co_await model_->chat(std::move(request), on_event);
        if (reply && !reply->choices.empty())
            for (const parley::tool_call& c : reply->message().tool_calls)
                std::cout << "reply " << requests_ << ": the model calls " << c.function.name << ' ' << c.function.arguments << '\n';
        co_return reply;
    }

private:
    static std::string indented(std::string_view text) {
        std::string out;
        for (char c : text) out += c == '\n' ? std::string("\n  ") : std::string(1, c);
        return out;
    }

    std::shared_ptr<parley::chat_model> model_;
    int requests_ = 0;
};

std::string environment(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

int main() try {
    parley::client_config config = parley::config_from_environment(parley::api::openai);
    std::unique_ptr<parley::testing::fake_server> offline;
    if (config.base_url.empty() && config.api_key.empty()) {
        offline = std::make_unique<parley::testing::fake_server>();
        // The model's two replies: a call whose arguments do not fit `food`, then one that does.
        offline->push(parley::testing::fake_step::tool_calls(
            {{"call_1", "food",
              R"({"name": "margherita pizza", "ingredients": "mozzarella, tomato, basil", "calories": "about 800"})"}}));
        offline->push(parley::testing::fake_step::tool_calls(
            {{"call_2", "food",
              R"({"name": "margherita pizza", "ingredients": ["mozzarella", "tomato", "basil"], "calories": 800, "vegetarian": true})"}}));
        config.base_url = offline->url("/v1");
        std::cout << "offline: parley's fake model server answers on 127.0.0.1\n\n";
    } else {
        std::cout << "using " << (config.base_url.empty() ? std::string(parley::openai_base_url) : config.base_url)
                  << "\n\n";
    }
    std::string model_name = environment("OPENAI_MODEL");
    if (model_name.empty()) model_name = "gpt-4o-mini";

    asio::io_context io;
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), std::move(config));
    logged model(std::make_shared<parley::client_model>(client));

    // The prompt is a template rendered with the data; the reply must be a `food`.
    const boost::json::value data = {
        {"text", "For dinner I had a margherita pizza: mozzarella, tomato and basil, about 800 kcal."}};
    parley::extract_options<food> opt;
    opt.params.model = model_name;
    opt.params.temperature = 0;
    opt.max_retries = 2;  // at most 3 requests
    auto extracted = asio::co_spawn(
        io, parley::extract<food>(model, "Extract the food from this text: {{ text }}", data, opt), asio::use_future);
    io.run();
    const parley::extract_result<food> result = extracted.get();

    if (!result) {  // every attempt's problems (result.value() would throw them)
        std::cout << "\nno food: " << result.error().what() << '\n';
        return 1;
    }
    const food& f = *result;
    std::cout << "\nfood (a C++ struct):\n  name         " << f.name << "\n  ingredients  ";
    for (std::size_t i = 0; i < f.ingredients.size(); ++i) std::cout << (i ? ", " : "") << f.ingredients[i];
    std::cout << "\n  calories     " << (f.calories ? std::to_string(*f.calories) : "unknown")
              << "\n  vegetarian   " << (f.vegetarian ? (*f.vegetarian ? "yes" : "no") : "unknown") << '\n';
    return 0;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
}
