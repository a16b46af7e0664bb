// Chat calls with co_await: a whole reply, a streamed reply printed as it arrives, a tool call
// answered and sent back, and a failed call handled as a value.
//
// With nothing set, an in-process scripted model answers (below), so the program runs offline
// and prints the same thing every time. With OPENAI_BASE_URL and/or OPENAI_API_KEY set, the same
// calls go to that server instead (OpenAI or any compatible one: Ollama, llama.cpp, vLLM...);
// PARLEY_MODEL names the model (default gpt-4o-mini). fake-server-script.json, next to this file,
// gives `parley fake-server --script` the same answers as the offline model.
#include <parley/provider/chat_client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

namespace asio = boost::asio;

namespace {

// The function the model may call. Its arguments are JSON text written by the model: check them
// (parley::from_text<T> reads them into a described struct, see docs/extraction.md).
std::string get_weather(std::string_view arguments) {
    boost::system::error_code ec;
    const boost::json::value args = boost::json::parse(arguments, ec);
    const boost::json::value* city = !ec && args.is_object() ? args.as_object().if_contains("city") : nullptr;
    if (!city || !city->is_string()) return R"({"error": "expected {\"city\": \"a city\"}"})";
    return boost::json::serialize(boost::json::object{{"city", *city}, {"celsius", 18}, {"sky", "sunny"}});
}

parley::function_definition get_weather_definition() {
    return {"get_weather", "The current weather in a city",
            boost::json::parse(R"({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})")
                .as_object()};
}

// What the offline model answers, in order: the replies and the failure a server would send.
std::shared_ptr<parley::scripted_model> offline_model() {
    auto model = std::make_shared<parley::scripted_model>();
    model->push_text("Bonjour !");
    model->push_text("Un, deux, trois, quatre, cinq, six, sept, huit, neuf, dix.");
    model->push(parley::tool_call_reply({{"call_1", {"get_weather", R"({"city":"Paris"})"}}}));
    model->push_text("It is 18 °C and sunny in Paris.");
    parley::call_error unknown_model;  // what api.openai.com answers for a model it does not have
    unknown_model.code = parley::errc::api_error;
    unknown_model.status = 404;
    unknown_model.type = "invalid_request_error";
    unknown_model.api_code = "model_not_found";
    unknown_model.message = "The model `no-such-model` does not exist or you do not have access to it.";
    unknown_model.attempts = 1;
    model->push(unknown_model);
    return model;
}

parley::chat_request ask(std::string model, std::string question) {
    parley::chat_request r;
    r.params.model = std::move(model);
    r.messages.push_back(parley::make_message(parley::role::user, std::move(question)));
    return r;
}

asio::awaitable<void> demo(parley::chat_client& client, std::string model) {
    // 1. A whole reply. Failures are values: a call_error says what went wrong.
    auto reply = co_await client.chat(ask(model, "Say hello in French, in two words."));
    if (!reply) {
        std::cout << "error: " << reply.error().what() << '\n';
        co_return;
    }
    std::cout << "chat: " << reply->text() << " [" << finish_reason_name(reply->choices.front().finish) << "]\n";

    // 2. A streamed reply: text deltas are printed as they arrive; `done` ends the stream.
    auto stream = co_await client.stream(ask(model, "Count from one to ten in French, on one line."));
    if (!stream) {
        std::cout << "error: " << stream.error().what() << '\n';
        co_return;
    }
    std::cout << "stream: ";
    int pieces = 0;
    for (;;) {
        auto event = co_await stream->next();
        if (!event) {  // a broken connection, a stalled server, an error event...
            std::cout << "\nerror: " << event.error().what() << '\n';
            co_return;
        }
        if (event->type == parley::stream_event::kind::done) break;
        if (event->type == parley::stream_event::kind::text) {
            std::cout << event->text << std::flush;
            ++pieces;
        }
    }
    std::cout << " [" << stream->reply().text().size() << " bytes in " << pieces << " pieces]\n";

    // 3. A tool call: the model asks for get_weather, the program runs it and sends the result
    //    back in a tool message, and the model answers with it.
    auto weather = ask(model, "What is the weather in Paris?");
    weather.functions.push_back(get_weather_definition());
    weather.params.functions = {"get_weather"};
    weather.params.call_function = "*";  // the model chooses
    auto first = co_await client.chat(weather);
    if (!first) {
        std::cout << "error: " << first.error().what() << '\n';
        co_return;
    }
    weather.messages.push_back(first->message());  // the assistant's turn, with its tool calls
    for (const parley::tool_call& call : first->message().tool_calls) {
        std::string result = get_weather(call.function.arguments);
        std::cout << "tool call: " << call.function.name << ' ' << call.function.arguments << " -> " << result << '\n';
        parley::message answer = parley::make_message(parley::role::tool, std::move(result));
        answer.tool_call_id = call.id;
        weather.messages.push_back(std::move(answer));
    }
    auto second = co_await client.chat(weather);
    if (!second) {
        std::cout << "error: " << second.error().what() << '\n';
        co_return;
    }
    std::cout << "answer: " << second->text() << '\n';

    // 4. A call that fails. `what()` is one line for a log; the fields are there to decide on.
    //    (Calling `.value()` instead would throw the error as a parley::call_exception.)
    auto failed = co_await client.chat(ask("no-such-model", "Hello?"));
    if (!failed) {
        const parley::call_error& e = failed.error();
        std::cout << "error: " << e.what() << '\n';
        if (e.code == parley::errc::api_error && e.status == 404) std::cout << "  -> check the model name\n";
        else if (e.status == 429) std::cout << "  -> rate limited: try again later\n";
    }
}

}  // namespace

int main() try {
    parley::client_config config = parley::config_from_environment(parley::api::openai);
    if (config.base_url.empty() && config.api_key.empty()) {
        config.api = parley::api::scripted;  // nothing configured: answer offline
        config.script = offline_model();
    }
    const char* model = std::getenv("PARLEY_MODEL");

    asio::io_context io;
    parley::chat_client client(io.get_executor(), std::move(config));
    asio::co_spawn(io, demo(client, model && *model ? model : "gpt-4o-mini"), [](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);  // a request parley cannot encode (no model...) throws
    });
    io.run();
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
}
