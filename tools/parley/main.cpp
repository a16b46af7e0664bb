// The parley command-line program.
//
//   parley jinja [--env hf|plain] [--now ISO-8601] TEMPLATE_FILE [CONTEXT_JSON_FILE]
//   parley jinja --batch [--env hf|plain] [--now ISO-8601]
//   parley render TEMPLATES.yaml [--template NAME] [--data JSON_FILE|JSON] [--set KEY=VALUE]... [--functions FILE]
//                 [--history JSON_FILE]
//   parley chat [--base-url URL] [--model NAME] [--provider openai|anthropic|gemini|ollama|azure|echo] [--system TEXT] [--stream] [--json] [--ca-file PEM] PROMPT
//   parley fake-server [--port N] [--host ADDRESS] [--script FILE.json] [--tls-cert PEM --tls-key PEM] [--threads N]
//   parley run TEMPLATES.yaml [--template NAME] [--data JSON_FILE|JSON] [--set KEY=VALUE]... [--functions FILE]
//              [--image FILE_OR_URL]... [--detail low|high|auto] [--history FILE] [--base-url URL] [--model NAME]
//              [--provider openai|anthropic|gemini|ollama|azure|echo|scripted] [--script FILE.json] [--stream] [--ca-file PEM]
//              [PROMPT...|-]
//   parley batch TEMPLATES.yaml [--template NAME] --input IN.jsonl --output OUT.jsonl [--concurrency N] ...
//   parley templates list FILE... | search WORDS FILE... | show NAME FILE...
//   parley mcp tools|call|prompts ... SERVER
//   parley tokens (--tiktoken FILE.tiktoken | --tokenizer PATH) [--ids] [--special MODE] [--add-special-tokens] [FILE|-]
//   parley tokens (--tiktoken FILE.tiktoken | --tokenizer PATH) --batch
#include "cli_options.hpp"
#include "commands.hpp"

#include <parley/jinja.hpp>

#include <boost/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr const char* usage =
    "usage: parley jinja [--env hf|plain] [--now YYYY-MM-DDTHH:MM:SS] TEMPLATE_FILE [CONTEXT_JSON_FILE]\n"
    "       parley jinja --batch [--env hf|plain] [--now YYYY-MM-DDTHH:MM:SS]\n"
    "\n"
    "Renders a Jinja2 template (Python Jinja2 3.1 semantics) to standard output.\n"
    "  --env hf     the Hugging Face chat-template environment (default)\n"
    "  --env plain  Jinja2's default environment\n"
    "  --now TIME   the time strftime_now() sees (UTC), instead of the clock\n"
    "  --batch      read JSON lines {\"template\", \"context\", \"env\"} from standard input and\n"
    "               write one line {\"output\": ...} or {\"error\": ...} for each\n";

std::optional<std::chrono::system_clock::time_point> parse_time(const std::string& s) {
    std::tm tm{};
    std::istringstream in(s);
    in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
    if (in.fail()) {
        std::istringstream in2(s);
        tm = {};
        in2 >> std::get_time(&tm, "%Y-%m-%d");
        if (in2.fail()) return std::nullopt;
    }
    return std::chrono::system_clock::from_time_t(timegm(&tm));
}

parley::jinja::environment make_env(const std::string& name, const std::optional<std::chrono::system_clock::time_point>& now) {
    parley::jinja::environment env = parley::jinja::environment::named(name);
    if (now) {
        const auto t = *now;
        env.set_clock([t] { return t; });
    }
    return env;
}

int jinja_main(const std::vector<std::string>& args) {
    std::optional<std::string> env_name, now_text;
    bool batch = false;
    std::vector<std::string> files;
    try {
        auto words = parley_cli::option_list().value("--env", env_name).value("--now", now_text).flag("--batch", batch).parse(args);
        if (!words) {
            std::cout << usage;
            return 0;
        }
        files = std::move(*words);
    } catch (const parley_cli::usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << usage;
        return 2;
    }
    const std::string env = env_name.value_or("hf");
    std::optional<std::chrono::system_clock::time_point> now;
    if (now_text) {
        now = parse_time(*now_text);
        if (!now) {
            std::cerr << "error: --now expects YYYY-MM-DDTHH:MM:SS\n";
            return 2;
        }
    }
    if (env != "hf" && env != "plain") {
        std::cerr << "error: --env must be hf or plain\n";
        return 2;
    }
    if (batch) return parley_cli::jinja_batch(env, make_env("hf", now), make_env("plain", now));
    if (files.empty() || files.size() > 2) {
        std::cerr << usage;
        return 2;
    }
    try {
        const std::string source = parley_cli::read_text(files[0]);
        boost::json::value ctx = boost::json::object();
        if (files.size() == 2) ctx = parley_cli::read_json(files[1]);
        const std::string out = make_env(env, now).parse(source, files[0]).render(ctx);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        std::cout << usage << '\n' << parley_cli::render_usage << '\n' << parley_cli::chat_usage << '\n'
                  << parley_cli::run_usage << '\n' << parley_cli::batch_usage << '\n' << parley_cli::templates_usage << '\n' << parley_cli::fake_server_usage
                  << '\n' << parley_cli::mcp_usage << '\n' << parley_cli::tokens_usage;
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "jinja") return jinja_main({args.begin() + 1, args.end()});
    if (args[0] == "render") return parley_cli::render_main({args.begin() + 1, args.end()});
    if (args[0] == "chat") return parley_cli::chat_main({args.begin() + 1, args.end()});
    if (args[0] == "run") return parley_cli::run_main({args.begin() + 1, args.end()});
    if (args[0] == "batch") return parley_cli::batch_main({args.begin() + 1, args.end()});
    if (args[0] == "templates") return parley_cli::templates_main({args.begin() + 1, args.end()});
    if (args[0] == "fake-server") return parley_cli::fake_server_main({args.begin() + 1, args.end()});
    if (args[0] == "mcp") return parley_cli::mcp_main({args.begin() + 1, args.end()});
    if (args[0] == "tokens") return parley_cli::tokens_main({args.begin() + 1, args.end()});
    std::cerr << "error: unknown command " << args[0] << "\n" << usage << '\n' << parley_cli::render_usage << '\n'
              << parley_cli::chat_usage << '\n' << parley_cli::run_usage << '\n' << parley_cli::batch_usage << '\n'
              << parley_cli::templates_usage << '\n'
              << parley_cli::fake_server_usage << '\n' << parley_cli::mcp_usage << '\n'
              << parley_cli::tokens_usage;
    return 2;
}
