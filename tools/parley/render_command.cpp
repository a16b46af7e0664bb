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
    "usage: parley render TEMPLATES.yaml [--template NAME] [--data JSON_FILE|JSON] [--set KEY=VALUE]...\n"
    "                     [--functions FILE] [--history JSON_FILE]\n"
    "\n"
    "Reads a template set or a single template (docs/yaml-format.md), renders one template with\n"
    "the data and the history up to its first request message, and prints the chat-completions\n"
    "request it would send (OpenAI wire format) as JSON. Nothing is sent.\n"
    "  --template NAME     the template to render (needed when the set has several)\n"
    "  --data VALUE        the data the texts are rendered with: a JSON object, inline when VALUE\n"
    "                      begins with '{', else read from the file VALUE (default {})\n"
    "  --set KEY=VALUE     one datum (repeatable): KEY.SUB makes nested objects; VALUE is JSON when\n"
    "                      it parses as JSON, else a string\n"
    "  --functions FILE    more function definitions: a YAML or JSON list, as a set's `functions`\n"
    "  --history FILE      the conversation so far: a JSON array of messages (default [])\n";

int render_main(const std::vector<std::string>& args) {
    std::optional<std::string> name, data_option, functions_file, history_file;
    std::vector<std::string> sets;
    std::vector<std::string> files;
    try {
        auto words = option_list()
                         .value("--template", name)
                         .value("--data", data_option)
                         .values("--set", sets)
                         .value("--functions", functions_file)
                         .value("--history", history_file)
                         .parse(args);
        if (!words) {
            std::cout << render_usage;
            return 0;
        }
        files = std::move(*words);
        if (files.size() != 1) throw usage_error(files.empty() ? "give the template file" : "give one template file");
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << render_usage;
        return 2;
    }
    try {
        const boost::json::value data = read_data(data_option, sets);
        const parley::template_set set = load_templates(files[0], functions_file, {});
        const parley::conversation_template& t = select_template(set, name, files[0]);
        const std::vector<parley::message> history = history_file ? read_history(*history_file) : std::vector<parley::message>{};
        const parley::rendered_request r = parley::render(t, data, history);
        const auto body = parley::openai::encode_request(r.params, r.messages, set.functions());
        std::cout << parley::pretty_json(body) << '\n';
        return 0;
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << render_usage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace parley_cli
