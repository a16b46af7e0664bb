// `parley chat`: sends one user message to a model and prints the reply.
#include "commands.hpp"

#include <parley/chat/json.hpp>
#include <parley/provider/chat_client.hpp>

#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace parley_cli {

const char* const chat_usage =
    "usage: parley chat [--base-url URL] [--model NAME] [--provider openai|anthropic|echo] [--system TEXT]\n"
    "                   [--stream] [--json] [--ca-file PEM] PROMPT\n"
    "\n"
    "Sends PROMPT as one user message and prints the model's reply.\n"
    "  --provider NAME  the wire API: openai (and compatible servers), anthropic, or echo (in process)\n"
    "  --base-url URL   the API's base URL (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the\n"
    "                   official one)\n"
    "  --model NAME     the model (default: PARLEY_MODEL)\n"
    "  --system TEXT    a system message sent before the prompt\n"
    "  --stream         print the reply as it arrives\n"
    "  --json           print the whole reply message as JSON\n"
    "  --ca-file PEM    also trust the CAs in this file (a corporate or test CA)\n"
    "Keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY; proxies from HTTPS_PROXY, HTTP_PROXY and\n"
    "NO_PROXY. With nothing configured, the echo model answers (and says so on stderr).\n";

namespace {

void print_calls(const parley::message& m) {
    for (const auto& c : m.tool_calls) std::cout << "[tool call " << c.id << "] " << c.function.name << c.function.arguments << '\n';
    if (m.function_call) std::cout << "[function call] " << m.function_call->name << m.function_call->arguments << '\n';
}

}  // namespace

int chat_main(const std::vector<std::string>& args) {
    std::optional<std::string> base_url, model, provider, system, ca_file;
    bool stream = false, json = false;
    std::vector<std::string> prompt;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::optional<std::string>& slot) {
            if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
            slot = args[++i];
        };
        try {
            if (a == "--base-url") value(base_url);
            else if (a == "--model") value(model);
            else if (a == "--provider") value(provider);
            else if (a == "--system") value(system);
            else if (a == "--ca-file") value(ca_file);
            else if (a == "--stream") stream = true;
            else if (a == "--json") json = true;
            else if (a == "-h" || a == "--help") {
                std::cout << chat_usage;
                return 0;
            } else if (a.size() > 1 && a[0] == '-' && a != "--") throw std::invalid_argument("unknown option " + a);
            else if (a == "--") {
                prompt.insert(prompt.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
                break;
            } else prompt.push_back(a);
        } catch (const std::invalid_argument& e) {
            std::cerr << "error: " << e.what() << "\n" << chat_usage;
            return 2;
        }
    }
    if (prompt.size() != 1) {
        std::cerr << "error: give exactly one PROMPT (quote it)\n" << chat_usage;
        return 2;
    }
    std::optional<parley::api> which;
    if (provider) {
        which = parley::api_from_name(*provider);
        if (!which || *which == parley::api::scripted) {
            std::cerr << "error: --provider must be openai, anthropic or echo, not '" << *provider << "'\n";
            return 2;
        }
    }
    try {
        parley::client_config config = parley::config_from_environment(which);
        if (base_url) {
            if (!which) config = parley::config_from_environment(parley::api::openai);
            config.base_url = *base_url;
        }
        if (config.api == parley::api::echo && !provider)
            std::cerr << "parley: no API configured (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, "
                         "ANTHROPIC_BASE_URL, --provider, --base-url): the echo model answers\n";
        if (ca_file) config.net.tls.ca_file = *ca_file;

        parley::chat_request request;
        if (model) request.params.model = *model;
        else if (const char* m = std::getenv("PARLEY_MODEL"); m && *m) request.params.model = std::string(m);
        else if (config.api != parley::api::echo) {
            std::cerr << "error: no model: pass --model NAME (or set PARLEY_MODEL)\n";
            return 2;
        }
        if (system) request.messages.push_back(parley::make_message(parley::role::system, *system));
        request.messages.push_back(parley::make_message(parley::role::user, prompt[0]));

        parley::blocking_client client(std::move(config));
        boost::system::result<parley::chat_reply, parley::call_error> reply;
        if (stream && !json) {
            reply = client.stream(std::move(request), [](const parley::stream_event& e) {
                if (e.type == parley::stream_event::kind::text && e.choice == 0) {
                    std::cout << e.text;
                    std::cout.flush();
                }
            });
            if (reply) {
                std::cout << '\n';
                print_calls(reply->message());
            }
        } else {
            reply = stream ? client.stream(std::move(request), {}) : client.chat(std::move(request));
            if (reply) {
                if (json) std::cout << boost::json::serialize(parley::message_to_json(reply->message())) << '\n';
                else {
                    if (!reply->text().empty()) std::cout << reply->text() << '\n';
                    if (const auto& refusal = reply->choices.front().refusal) std::cout << "[refusal] " << *refusal << '\n';
                    print_calls(reply->message());
                }
            }
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
