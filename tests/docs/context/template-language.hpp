// context=template-language: what the C++ blocks of docs/template-language.md take as given.
#include <parley/jinja.hpp>

#include <boost/json.hpp>

#include <string>

std::string source = "{% for m in messages %}{{ m.content }}{% endfor %}";  // a template's text
boost::json::value context = boost::json::parse(R"({"messages": [{"role": "user", "content": "Hi"}]})");
