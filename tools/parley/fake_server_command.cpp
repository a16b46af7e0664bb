// `parley fake-server`: the fake OpenAI / Anthropic model server of parley/testing/fake_server.hpp,
// run from the command line for offline development (docs/fake-server.md).
#include "cli_options.hpp"
#include "commands.hpp"

#include <parley/testing/fake_server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace parley_cli {

const char* const fake_server_usage =
    "usage: parley fake-server [--port N] [--host ADDRESS] [--script FILE.json] [--tls-cert PEM --tls-key PEM]\n"
    "                          [--threads N] [--proxy] [--proxy-auth VALUE] [--api-key KEY] [--log]\n"
    "                          [--record FILE]\n"
    "\n"
    "Serves the OpenAI chat-completions and Responses APIs (also as Azure OpenAI), Anthropic\n"
    "Messages, the Gemini API and Ollama's native API (also embeddings and models) for offline\n"
    "development. Replies come from a script (docs/fake-server.md); without one, or\n"
    "once it is used up, each reply echoes the last user message. Prints `listening on URL` and\n"
    "serves until SIGINT or SIGTERM.\n"
    "  --port N            the port (default 0: a free port, printed)\n"
    "  --host ADDRESS      the address to listen on (default 127.0.0.1)\n"
    "  --script FILE       the script: {\"steps\": [...], \"repeat\": false}, as JSON\n"
    "  --tls-cert FILE     serve TLS with this certificate chain (PEM); needs --tls-key\n"
    "  --tls-key FILE      the private key of --tls-cert (PEM)\n"
    "  --threads N         threads serving connections (default 1)\n"
    "  --proxy             also act as an HTTP CONNECT proxy\n"
    "  --proxy-auth VALUE  the Proxy-Authorization value a CONNECT must carry (else 407)\n"
    "  --api-key KEY       require `Authorization: Bearer KEY` / `x-api-key: KEY` (else 401), or\n"
    "                      `api-key: KEY` of an Azure request (?api-version=), or on the Gemini\n"
    "                      routes `x-goog-api-key: KEY` or `?key=KEY`\n"
    "  --log               print each request (method, target, status) to standard error\n"
    "  --record FILE       write each request to FILE as a JSON line {\"method\", \"target\", \"status\",\n"
    "                      \"body\"}, before it is answered (the file is emptied first)\n";

namespace {

unsigned long parse_number(const std::string& option, const std::string& text, unsigned long max) {
    std::size_t used = 0;
    unsigned long n = 0;
    try {
        n = std::stoul(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty() || n > max)
        throw std::invalid_argument(option + " expects a number up to " + std::to_string(max) + ", not '" + text + "'");
    return n;
}

}  // namespace

int fake_server_main(const std::vector<std::string>& args) {
    parley::testing::fake_server_options options;
    options.record = false;  // a long-running server keeps nothing
    std::optional<std::string> script_file, cert_file, key_file, port, host, threads, proxy_auth, api_key, record_file;
    bool log = false;
    try {
        const auto words = option_list()
                               .value("--port", port)
                               .value("--host", host)
                               .value("--script", script_file)
                               .value("--tls-cert", cert_file)
                               .value("--tls-key", key_file)
                               .value("--threads", threads)
                               .flag("--proxy", options.proxy)
                               .value("--proxy-auth", proxy_auth)
                               .value("--api-key", api_key)
                               .flag("--log", log)
                               .value("--record", record_file)
                               .parse(args);
        if (!words) {
            std::cout << fake_server_usage;
            return 0;
        }
        if (!words->empty()) throw usage_error("unexpected argument " + words->front());
        if (port) options.port = static_cast<unsigned short>(parse_number("--port", *port, 65535));
        if (host) options.host = *host;
        if (threads) options.threads = parse_number("--threads", *threads, 256);
        if (proxy_auth) options.proxy_authorization = *proxy_auth;
        if (api_key) options.api_key = *api_key;
        if (cert_file.has_value() != key_file.has_value())
            throw std::invalid_argument("--tls-cert and --tls-key go together");
        if (options.threads == 0) throw std::invalid_argument("--threads must be at least 1");
    } catch (const std::invalid_argument& e) {
        std::cerr << "error: " << e.what() << "\n" << fake_server_usage;
        return 2;
    }
    try {
        if (script_file) options.script = parley::testing::fake_script_from_file(*script_file);
        if (cert_file) {
            options.tls_certificate_chain_pem = parley::testing::detail::read_file(*cert_file);
            options.tls_private_key_pem = parley::testing::detail::read_file(*key_file);
        }
        std::shared_ptr<std::ofstream> record;
        if (record_file) {
            record = std::make_shared<std::ofstream>(*record_file, std::ios::binary | std::ios::trunc);
            if (!*record) throw std::runtime_error("cannot write " + *record_file);
        }
        if (log || record) {
            auto mutex = std::make_shared<std::mutex>();
            options.on_request = [mutex, log, record](const parley::testing::recorded_request& r, unsigned status) {
                std::lock_guard lock(*mutex);
                if (log)
                    std::cerr << r.method << ' ' << r.target << " -> " << (status ? std::to_string(status) : "(no reply)")
                              << std::endl;
                if (record) {
                    boost::json::object line{{"method", r.method}, {"target", r.target}, {"status", status}, {"body", r.body}};
                    *record << boost::json::serialize(line) << std::endl;  // flushed: read while the server runs
                }
            };
        }
        // The signals are caught before the server's threads exist, so that every thread
        // inherits the handling and a signal arriving early still ends the program cleanly.
        boost::asio::io_context signals_context;
        boost::asio::signal_set signals(signals_context, SIGINT, SIGTERM);
        int caught = 0;
        signals.async_wait([&](const boost::system::error_code& ec, int signal) {
            if (!ec) caught = signal;
        });
        parley::testing::fake_server server(std::move(options));
        std::cout << "listening on " << server.base_url() << std::endl;
        signals_context.run();
        server.stop();
        if (log) std::cerr << "stopped by signal " << caught << std::endl;
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace parley_cli
