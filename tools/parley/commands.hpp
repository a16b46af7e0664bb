// The commands of the parley program, one translation unit each.
#ifndef PARLEY_TOOLS_COMMANDS_HPP
#define PARLEY_TOOLS_COMMANDS_HPP

#include <parley/jinja/environment.hpp>

#include <string>
#include <vector>

namespace parley_cli {

/// `parley jinja --batch`: renders the JSON lines of standard input (`{"template", "context",
/// "env"}`, env `hf` or `plain`, `default_env` when absent) and writes one line
/// `{"output": ...}` or `{"error": ...}` for each, in order.
int jinja_batch(const std::string& default_env, const parley::jinja::environment& hf, const parley::jinja::environment& plain);

/// `parley render TEMPLATES.yaml [--template NAME] [--data JSON_FILE] [--history JSON_FILE]`
int render_main(const std::vector<std::string>& args);
extern const char* const render_usage;

/// `parley fake-server [--port N] [--host ADDRESS] [--script FILE.json] [--tls-cert PEM --tls-key PEM] [--threads N]`
int fake_server_main(const std::vector<std::string>& args);
extern const char* const fake_server_usage;

/// `parley chat [--base-url URL] [--model NAME] [--provider openai|anthropic|echo] [--system TEXT] [--stream] [--json] [--ca-file PEM] PROMPT`
int chat_main(const std::vector<std::string>& args);
extern const char* const chat_usage;

/// `parley run TEMPLATES.yaml [--template NAME] [--data JSON_FILE] [--history FILE] [--base-url URL] [--model NAME]
/// [--provider openai|anthropic|echo|scripted] [--script FILE.json] [--stream] [--ca-file PEM] PROMPT`
int run_main(const std::vector<std::string>& args);
extern const char* const run_usage;

}  // namespace parley_cli

#endif
