// The same two assistants written twice: as a YAML template set (assistants.yaml) and with the
// constexpr builders. Both render the same requests; the program prints the weather assistant's.
#include <parley/chat.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/provider/openai/request.hpp>

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>

#include <iostream>
#include <string>

// The function the weather assistant forces: its parameters are this struct's members.
struct get_weather {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(get_weather, (), (city))
PARLEY_ANNOTATE(get_weather, "The current weather in a city.", (city, "The city, e.g. Oslo"))

constexpr auto ask = parley::conversation(
    parley::metadata{.name = "ask", .description = "Answer one question briefly.", .variables = {"ask"}},
    parley::default_request{.model = "gpt-4o-mini", .temperature = 0.2},
    parley::system{"You are brief. Answer in one sentence."},
    parley::user{"# Question\n\n{{ ask }}\n"},
    parley::request{.max_tokens = 100});

constexpr auto weather = parley::conversation(
    parley::metadata{.name = "weather",
                     .description = "Answer questions about the weather with a function.",
                     .variables = {"city"}},
    parley::default_request{.model = "gpt-4o-mini"},
    parley::system{"You answer questions about the weather.\n"
                   "Earlier in this conversation:\n"
                   "{{ chat_memory | extract_dialogue('U: ', 'A: ', ' / ') }}"},
    parley::user{"What is the weather in {{ city }}?"},
    parley::request{.functions = {"get_weather"}, .call_function = "get_weather"});

constexpr auto assistants = parley::templates(ask, weather, parley::function_def_of<get_weather>);
static_assert(assistants.undefined_function().empty(), "every function a request names is defined");

int main(int argc, char** argv) try {
    const std::string dir = argc > 1 ? argv[1] : ".";
    const parley::template_set from_yaml = parley::load_template_set_file(dir + "/assistants.yaml");
    const parley::template_set from_code = assistants.to_set();

    const auto data = boost::json::parse(R"({"city": "Oslo", "ask": "Why is the sky blue?"})");
    const auto history = parley::conversation_from_json(boost::json::parse(
        R"([{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi, how can I help?"}])"));

    for (const char* name : {"ask", "weather"}) {
        const auto a = parley::render(from_yaml.at(name), data, history);
        const auto b = parley::render(from_code.at(name), data, history);
        if (a.added != b.added || a.params != b.params || a.messages != b.messages) {
            std::cerr << name << ": the YAML and C++ templates render differently\n";
            return 1;
        }
        std::cout << name << ": YAML and C++ render the same request\n";
    }
    const auto r = parley::render(from_code.at("weather"), data, history);
    std::cout << parley::pretty_json(parley::openai::encode_request(r.params, r.messages, from_code.functions())) << '\n';
} catch (const std::exception& e) {  // a YAML, template or rule error, with its location
    std::cerr << e.what() << '\n';
    return 1;
}
