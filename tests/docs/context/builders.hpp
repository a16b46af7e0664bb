// context=builders: what the C++ blocks of docs/builders.md take as given.
#include <parley/chat/builder.hpp>
#include <parley/chat/render.hpp>

#include <boost/json.hpp>

#include <vector>

constexpr auto weather = parley::conversation(
    parley::metadata{.name = "weather"},
    parley::system{"You answer questions about the weather."},
    parley::user{"{{ question }}"},
    parley::request{.functions = {"get_weather"}, .call_function = "*"});

boost::json::value data = boost::json::parse(R"({"ask": "Why is the sky blue?"})");
std::vector<parley::message> history;
