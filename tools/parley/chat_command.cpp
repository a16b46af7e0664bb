// `parley chat`: sends one user message to a model and prints the reply.
#include "cli_provider.hpp"
#include "commands.hpp"
#include "usage_report.hpp"

#include <parley/chat/json.hpp>
#include <parley/provider/chat_client.hpp>

#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parley_cli {

const char* const chat_usage =
    "usage: parley chat [--base-url URL] [--model NAME] [--api openai|responses|anthropic|gemini|ollama|\n"
    "                   azure|azure-responses|echo] [--system TEXT] [--stream] [--json] [--ca-file PEM]\n"
    "                   [--usage] [--models FILE] PROMPT\n"
    "\n"
    "Sends PROMPT as one user message and prints the model's reply.\n"
    "  --api NAME       the wire API: openai (chat completions, and compatible servers), responses\n"
    "                   (OpenAI's Responses API), anthropic, gemini (Google's Gemini API), ollama\n"
    "                   (Ollama's native API), azure or azure-responses (Azure OpenAI's chat\n"
    "                   completions or Responses API), or echo (in process); --provider is another\n"
    "                   name for it\n"
    "  --base-url URL   the API's base URL (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL /\n"
    "                   GOOGLE_GEMINI_BASE_URL / AZURE_OPENAI_ENDPOINT + /openai / OLLAMA_HOST, else\n"
    "                   the official one)\n"
    "  --model NAME     the model (default: PARLEY_MODEL)\n"
    "  --system TEXT    a system message sent before the prompt\n"
    "  --stream         print the reply as it arrives\n"
    "  --json           print the whole reply message as JSON (content, refusal, reasoning, calls)\n"
    "  --ca-file PEM    also trust the CAs in this file (a corporate or test CA)\n"
    "  --usage          print the tokens and the cost of the call on standard error\n"
    "  --models FILE    a model catalog (JSON: context windows and prices) over the built-in one\n"
    "Keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY / GOOGLE_API_KEY or GEMINI_API_KEY /\n"
    "AZURE_OPENAI_API_KEY (with OPENAI_API_VERSION); Ollama takes none. Proxies come from\n"
    "HTTPS_PROXY, HTTP_PROXY and NO_PROXY. With nothing configured, the echo model answers (and\n"
    "says so on stderr).\n";

namespace {

void print_calls(const parley::message& m) {
    for (const auto& c : m.tool_calls) std::cout << "[tool call " << c.id << "] " << c.function.name << c.function.arguments << '\n';
    if (m.function_call) std::cout << "[function call] " << m.function_call->name << m.function_call->arguments << '\n';
}

}  // namespace

int chat_main(const std::vector<std::string>& args) {
    std::optional<std::string> base_url, model, provider, api, system, ca_file, models_file;
    bool stream = false, json = false, usage = false;
    std::vector<std::string> prompt;
    std::optional<parley::api> which;
    try {
        auto words = option_list()
                         .value("--base-url", base_url)
                         .value("--model", model)
                         .value("--provider", provider)
                         .value("--api", api)
                         .value("--system", system)
                         .value("--ca-file", ca_file)
                         .flag("--stream", stream)
                         .flag("--json", json)
                         .flag("--usage", usage)
                         .value("--models", models_file)
                         .parse(args);
        if (!words) {
            std::cout << chat_usage;
            return 0;
        }
        prompt = std::move(*words);
        if (prompt.size() != 1) throw usage_error("give exactly one PROMPT (quote it)");
        which = api_option(api, provider, false);
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << chat_usage;
        return 2;
    }
    try {
        parley::model_catalog catalog = parley::model_catalog::builtin();
        if (models_file) catalog.merge(parley::model_catalog::from_file(*models_file));
        parley::client_config config = client_config_of(which, base_url, ca_file, "the echo model");

        parley::chat_request request;
        if (model) request.params.model = *model;
        else if (const char* m = std::getenv("PARLEY_MODEL"); m && *m) request.params.model = std::string(m);
        else if (config.api != parley::api::echo) {
            std::cerr << "error: no model: pass --model NAME (or set PARLEY_MODEL)\n";
            return 2;
        }
        if (system) request.messages.push_back(parley::make_message(parley::role::system, *system));
        request.messages.push_back(parley::make_message(parley::role::user, prompt[0]));

        const std::string model_name = request.params.model.value_or(std::string());
        parley::blocking_client client(std::move(config));
        boost::system::result<parley::chat_reply, parley::call_error> reply;
        if (stream && !json) {
            bool printed = false;
            reply = client.stream(std::move(request), [&printed](const parley::stream_event& e) {
                if (e.type == parley::stream_event::kind::text && e.choice == 0) {
                    std::cout << e.text;
                    std::cout.flush();
                    printed = printed || !e.text.empty();
                }
            });
            if (reply) {
                const auto& refusal = reply->message().refusal;
                if (printed || !refusal) std::cout << '\n';
                if (refusal) std::cout << "[refusal] " << *refusal << '\n';
                print_calls(reply->message());
            }
        } else {
            reply = stream ? client.stream(std::move(request), {}) : client.chat(std::move(request));
            if (reply) {
                if (json) std::cout << boost::json::serialize(parley::message_to_json(reply->message())) << '\n';
                else {
                    if (!reply->text().empty()) std::cout << reply->text() << '\n';
                    if (const auto& refusal = reply->message().refusal) std::cout << "[refusal] " << *refusal << '\n';
                    print_calls(reply->message());
                }
            }
        }
        if (usage) {
            parley::usage_summary summary;
            parley::detail::count_usage(&summary, reply, model_name);
            std::cout.flush();
            print_usage(std::cerr, summary, catalog);
        }
        if (!reply) {
            std::cerr << "error: " << reply.error().what() << '\n';
            return 1;
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return 1;
    }
}

}  // namespace parley_cli
