// context=templates: what the C++ blocks of docs/conversation-templates.md take as given.
#include <parley/chat.hpp>

#include <boost/json.hpp>

#include <vector>

boost::json::value data = boost::json::parse(R"({"ask": "Why is the sky blue?"})");
std::vector<parley::message> history;
