// context=client: what the C++ blocks of docs/client.md take as given, among them the helpers of
// examples/chat_client/main.cpp that its excerpts call.
#include <parley/provider/chat_client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>

#include <future>
#include <iostream>
#include <string>
#include <string_view>

boost::asio::io_context io;
parley::chat_client client(io.get_executor(), parley::client_config{});
parley::chat_request request;
boost::system::result<parley::chat_reply, parley::call_error> reply = parley::chat_reply{};
std::string model = "gpt-4o-mini";

parley::chat_request ask(std::string model, std::string question) {
    parley::chat_request r;
    r.params.model = std::move(model);
    r.messages.push_back(parley::make_message(parley::role::user, std::move(question)));
    return r;
}
parley::function_definition get_weather_definition() { return {"get_weather", "The current weather in a city", {}}; }
std::string get_weather(std::string_view arguments) { return std::string(arguments); }

/// What a program does with a value.
template <class... T>
void use(const T&...) {}
