// `parley render`: the request a conversation template leads to, as JSON, without sending it.
#include "commands.hpp"

#include <parley/chat.hpp>
#include <parley/chat/pretty_json.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/provider/openai_request.hpp>

#include <boost/json/parse.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace parley_cli {

const char* const render_usage =
    "usage: parley render TEMPLATES.yaml [--template NAME] [--data JSON_FILE] [--history JSON_FILE]\n"
    "\n"
    "Reads a template set (docs/yaml-format.md), renders one template with the data and the\n"
    "history up to its first request message, and prints the chat-completions request it would\n"
    "send (OpenAI wire format) as JSON. Nothing is sent.\n"
    "  --template NAME     the template to render (needed when the set has several)\n"
    "  --data FILE         the data the texts are rendered with: a JSON object (default {})\n"
    "  --history FILE      the conversation so far: a JSON array of messages (default [])\n";

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

boost::json::value read_json(const std::string& path) {
    const std::string text = read_text(path);
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec);
    if (ec) throw std::runtime_error(path + ": not valid JSON: " + ec.message());
    return v;
}

}  // namespace

int render_main(const std::vector<std::string>& args) {
    std::vector<std::string> files;
    std::optional<std::string> name, data_file, history_file;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::optional<std::string>& slot) {
            if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
            slot = args[++i];
        };
        try {
            if (a == "--template") value(name);
            else if (a == "--data") value(data_file);
            else if (a == "--history") value(history_file);
            else if (a == "-h" || a == "--help") {
                std::cout << render_usage;
                return 0;
            } else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
            else files.push_back(a);
        } catch (const std::invalid_argument& e) {
            std::cerr << "error: " << e.what() << "\n" << render_usage;
            return 2;
        }
    }
    if (files.size() != 1) {
        std::cerr << render_usage;
        return 2;
    }
    try {
        const parley::template_set set = parley::load_template_set_file(files[0]);
        const parley::conversation_template* t = nullptr;
        if (name) {
            t = &set.at(*name);
        } else if (set.templates().size() == 1) {
            t = &set.templates().front();
        } else {
            std::string names;
            for (const auto& each : set.templates()) names += (names.empty() ? "" : ", ") + each.name();
            throw std::runtime_error(files[0] + " has " + std::to_string(set.templates().size()) +
                                     " templates: choose one with --template NAME (" + names + ")");
        }
        const boost::json::value data = data_file ? read_json(*data_file) : boost::json::value(boost::json::object());
        if (!data.is_object()) throw std::runtime_error(*data_file + ": the data must be a JSON object");
        std::vector<parley::message> history;
        if (history_file) {
            try {
                history = parley::conversation_from_json(read_json(*history_file));
            } catch (const parley::error& e) {
                throw std::runtime_error(*history_file + ": " + e.what());
            }
        }
        const parley::rendered_request r = parley::render(*t, data, history);
        const auto body = parley::openai::encode_request(r.params, r.messages, set.functions());
        std::cout << parley::pretty_json(body) << '\n';
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace parley_cli
