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

/// `parley render TEMPLATES.yaml [--template NAME] [--data JSON_FILE|JSON] [--set KEY=VALUE]...
/// [--functions FILE] [--history JSON_FILE]`
int render_main(const std::vector<std::string>& args);
extern const char* const render_usage;

/// `parley fake-server [--port N] [--host ADDRESS] [--script FILE.json] [--tls-cert PEM --tls-key PEM] [--threads N]`
int fake_server_main(const std::vector<std::string>& args);
extern const char* const fake_server_usage;

/// `parley chat [--base-url URL] [--model NAME] [--provider openai|anthropic|echo] [--system TEXT] [--stream] [--json] [--ca-file PEM] PROMPT`
int chat_main(const std::vector<std::string>& args);
extern const char* const chat_usage;

/// `parley run TEMPLATES.yaml [--template NAME] [--data JSON_FILE|JSON] [--set KEY=VALUE]... [--functions FILE]
/// [--image FILE_OR_URL]... [--detail low|high|auto] [--history FILE] [--base-url URL] [--model NAME]
/// [--provider openai|anthropic|echo|scripted] [--script FILE.json] [--stream] [--ca-file PEM] [PROMPT...|-]`
int run_main(const std::vector<std::string>& args);
extern const char* const run_usage;

/// `parley batch TEMPLATES.yaml --input IN.jsonl --output OUT.jsonl [...]`: a template run for
/// every input line, N at once, one output line each, resumable (docs/batch.md)
int batch_main(const std::vector<std::string>& args);
extern const char* const batch_usage;

/// `parley mcp tools|call|prompts ... SERVER`: an MCP server's tools and prompts (docs/mcp.md)
int mcp_main(const std::vector<std::string>& args);
extern const char* const mcp_usage;

/// `parley templates list FILE...`, `parley templates search WORDS FILE...`, `parley templates show NAME FILE...`
int templates_main(const std::vector<std::string>& args);
extern const char* const templates_usage;

/// `parley tokens (--tiktoken FILE.tiktoken | --tokenizer PATH) [--ids] [--special MODE] [--add-special-tokens] [FILE|-]`
int tokens_main(const std::vector<std::string>& args);
extern const char* const tokens_usage;

}  // namespace parley_cli

#endif
