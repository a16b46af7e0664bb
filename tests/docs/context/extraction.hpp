// context=extraction: what the C++ blocks of docs/extraction.md take as given.
#include <parley/schema.hpp>

#include <boost/describe/class.hpp>
#include <boost/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

std::string reply = R"({"customer": "Ana", "lines": [{"product": "latte"}]})";  // a model's reply
std::string received = R"({"customer": "An)";  // the part of a reply that has arrived
boost::json::value v = boost::json::parse(reply);

/// What a program does with a value.
template <class... T>
void use(const T&...) {}
template <class T>
void show(const T&) {}
void reask(std::string_view problems) { (void)problems; }
void report(std::string_view problems) { (void)problems; }

/// A recursive struct (a tree).
struct node {
    std::string name;
    std::vector<node> children;
};
BOOST_DESCRIBE_STRUCT(node, (), (name, children))
