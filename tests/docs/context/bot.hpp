// context=bot: what the C++ blocks of docs/bot.md take as given. tests/docs/snippets.py puts the
// #include lines at the top of the generated translation unit and the rest in the namespace of
// each block that names this context.
#include <parley/bot.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/describe/class.hpp>
#include <boost/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;

boost::asio::io_context io;
std::shared_ptr<parley::scripted_model> script = std::make_shared<parley::scripted_model>();
parley::template_set templates;
parley::in_process_model model(script);
parley::bot bot(templates, std::make_shared<parley::in_process_model>(script));
std::vector<parley::message> history;  // the conversation so far
boost::json::value input = boost::json::parse(R"({"city": "Oslo", "name": "Ada", "dish": "apple pie"})");

/// What a program does with a value.
template <class... T>
void use(const T&...) {}

struct itinerary {
    std::string traveller;
    std::string flight;
};
BOOST_DESCRIBE_STRUCT(itinerary, (), (traveller, flight))
