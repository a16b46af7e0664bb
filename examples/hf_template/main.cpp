// A Hugging Face chat template rendered for a local model: the template and the special tokens
// are read from the model's folder as transformers saves it (chat_template.jinja next to
// tokenizer_config.json, or the template inside tokenizer_config.json), and rendered by parley's
// run-time engine in the `hf` environment (Hugging Face's: trim_blocks, lstrip_blocks, the
// sandbox, tojson as transformers writes it, raise_exception). The tools come from a C++ struct
// described with Boost.Describe (function_signature), the conversation holds a tool call and its
// result, and add_generation_prompt opens the assistant's turn. The text printed is what a local
// inference engine would tokenize.
//
//   hf_template [MODEL_DIR]    default: the model/ folder next to this file
#include <parley/jinja.hpp>
#include <parley/schema/annotations.hpp>
#include <parley/schema/function_signature.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

enum class unit { celsius, fahrenheit };
BOOST_DESCRIBE_ENUM(unit, celsius, fahrenheit)

struct weather_query {
    std::string city;
    ::unit unit = ::unit::celsius;
};
BOOST_DESCRIBE_STRUCT(weather_query, (), (city, unit))
PARLEY_ANNOTATE(weather_query, "The current weather in a city", (city, "The city's name"))

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A special token of tokenizer_config.json: a string, or an object whose "content" is one.
std::string token(const boost::json::object& config, const char* name) {
    const boost::json::value* t = config.if_contains(name);
    if (t && t->is_object()) t = t->as_object().if_contains("content");
    return t && t->is_string() ? std::string(t->as_string()) : std::string();
}

// The chat template: chat_template.jinja, else tokenizer_config.json's "chat_template" (a string,
// or a list of named templates, of which "tool_use" serves conversations with tools).
std::string chat_template(const std::filesystem::path& dir, const boost::json::object& config) {
    if (std::filesystem::exists(dir / "chat_template.jinja")) return read_file(dir / "chat_template.jinja");
    const boost::json::value* t = config.if_contains("chat_template");
    if (t && t->is_string()) return std::string(t->as_string());
    if (t && t->is_array()) {
        std::string fallback;
        for (const auto& named : t->as_array()) {
            const auto& o = named.as_object();
            const std::string_view name = o.at("name").as_string();
            if (name == "tool_use") return std::string(o.at("template").as_string());
            if (name == "default") fallback = std::string(o.at("template").as_string());
        }
        if (!fallback.empty()) return fallback;
    }
    throw std::runtime_error(dir.string() + " has no chat template");
}

int main(int argc, char** argv) try {
    const std::filesystem::path dir = argc > 1 ? std::filesystem::path(argv[1]) : std::filesystem::path(PARLEY_HF_MODEL_DIR);
    const boost::json::object config = boost::json::parse(read_file(dir / "tokenizer_config.json")).as_object();

    // Parsed once (syntax errors are reported here, with line and column), rendered many times.
    const parley::jinja::parsed_template tmpl = parley::jinja::environment::hf().parse(chat_template(dir, config), "chat_template.jinja");

    // The context transformers' apply_chat_template gives a template: the messages, the tools,
    // add_generation_prompt and the special tokens.
    boost::json::object context;
    context["messages"] = boost::json::parse(R"([
        {"role": "system", "content": "You are a weather assistant. Be brief."},
        {"role": "user", "content": "Is it warmer in Lisbon or in Oslo?"},
        {"role": "assistant", "tool_calls": [
            {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Lisbon", "unit": "celsius"}}},
            {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}}]},
        {"role": "tool", "content": "{\"city\": \"Lisbon\", \"temperature\": 19}"},
        {"role": "tool", "content": "{\"city\": \"Oslo\", \"temperature\": -3}"}
    ])");
    context["tools"] = boost::json::array{
        boost::json::object{{"type", "function"}, {"function", parley::function_signature<weather_query>("get_weather")}}};
    context["add_generation_prompt"] = true;
    context["bos_token"] = token(config, "bos_token");
    context["eos_token"] = token(config, "eos_token");

    const std::string prompt = tmpl.render(context);
    std::cout << "bos_token " << context["bos_token"] << ", eos_token " << context["eos_token"] << '\n'
              << "the prompt (" << prompt.size() << " bytes), between the lines; the model writes after its end:\n"
              << "-----\n" << prompt << "-----\n\n";

    // A conversation the template refuses: its raise_exception is an error with the template's
    // name, line and column.
    context["messages"] = boost::json::parse(R"([{"role": "developer", "content": "Answer in French."}])");
    try {
        std::cout << tmpl.render(context);
    } catch (const parley::template_error& e) {
        std::cout << "refused: " << e.what() << '\n';
    }
    return 0;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
}
