// context=chat-prompts: what the C++ blocks of docs/chat-prompts.md take as given.
#include <parley/chat/dialogue.hpp>
#include <parley/jinja.hpp>

#include <boost/json.hpp>

#include <string>
#include <string_view>

parley::jinja::environment env = parley::jinja::environment::plain();
boost::json::value context = boost::json::parse(R"({"user_message": "I want to send money"})");
std::string reply = "StartFlow(transfer_money)";
void reask(std::string_view problems) { (void)problems; }
