// `parley render`: the request a conversation template leads to, as JSON, without sending it.
#include "cli_options.hpp"
#include "commands.hpp"

#include <parley/chat.hpp>
#include <parley/chat/pretty_json.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/provider/openai/request.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <utility>
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

int render_main(const std::vector<std::string>& args) {
    std::optional<std::string> name, data_file, history_file;
    std::vector<std::string> files;
    try {
        auto words = option_list().value("--template", name).value("--data", data_file).value("--history", history_file).parse(args);
        if (!words) {
            std::cout << render_usage;
            return 0;
        }
        files = std::move(*words);
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << render_usage;
        return 2;
    }
    if (files.size() != 1) {
        std::cerr << render_usage;
        return 2;
    }
    try {
        const parley::template_set set = parley::load_template_set_file(files[0]);
        const parley::conversation_template& t = select_template(set, name, files[0]);
        const boost::json::value data = read_data(data_file);
        const std::vector<parley::message> history = history_file ? read_history(*history_file) : std::vector<parley::message>{};
        const parley::rendered_request r = parley::render(t, data, history);
        const auto body = parley::openai::encode_request(r.params, r.messages, set.functions());
        std::cout << parley::pretty_json(body) << '\n';
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace parley_cli
