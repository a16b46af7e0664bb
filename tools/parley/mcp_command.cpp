// `parley mcp`: the tools and prompts of an MCP server from the shell (docs/mcp.md): list them,
// call a tool. The server is a URL (Streamable HTTP) or, after `--`, a command that runs it
// (stdio).
#include "cli_options.hpp"
#include "commands.hpp"

#include <parley/chat/pretty_json.hpp>
#include <parley/mcp/http.hpp>
#include <parley/mcp/stdio.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <csignal>
#include <future>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parley_cli {

const char* const mcp_usage =
    "usage: parley mcp tools   [--json] [OPTIONS] SERVER\n"
    "       parley mcp call    TOOL [ARGUMENTS_JSON] [--json] [OPTIONS] SERVER\n"
    "       parley mcp prompts [--json] [OPTIONS] SERVER\n"
    "\n"
    "Lists the tools or the prompts of an MCP server, or calls one of its tools. SERVER is the URL\n"
    "of its endpoint (Streamable HTTP), or `-- COMMAND [ARGS...]`, the command that runs it (stdio).\n"
    "  tools                  one line per tool: its name and description (--json: the list)\n"
    "  call TOOL [ARGUMENTS]  calls TOOL with ARGUMENTS (a JSON object, default {}) and prints its\n"
    "                         content (--json: the whole result); exit status 1 when the tool\n"
    "                         reports an error (isError)\n"
    "  prompts                one line per prompt: its name, arguments and description\n"
    "  --env KEY=VALUE        set in a stdio server's environment (repeatable)\n"
    "  --header 'NAME: VALUE' sent with every request to an HTTP server (repeatable)\n"
    "  --timeout SECONDS      the time limit of each request (default 60)\n"
    "  --verbose              show what a stdio server writes on its standard error\n"
    "Exit status: 0, 1 when the server fails or a tool reports an error, 2 for a wrong command line.\n";

namespace {

namespace asio = boost::asio;
namespace mcp = parley::mcp;

/// The first line of `text`, at most 160 bytes (a description in a listing).
std::string summary_line(std::string_view text) {
    std::string_view line = text.substr(0, text.find('\n'));
    if (line.size() > 160) return std::string(line.substr(0, 157)) + "...";
    return std::string(line);
}

boost::json::value tool_json(const mcp::tool& t) {
    boost::json::object o;
    o["name"] = t.name;
    if (!t.title.empty()) o["title"] = t.title;
    o["description"] = t.description;
    o["inputSchema"] = t.input_schema;
    if (t.output_schema) o["outputSchema"] = *t.output_schema;
    if (!t.annotations.empty()) o["annotations"] = t.annotations;
    return o;
}

struct request {
    std::string what;  // tools, call, prompts
    std::string tool;
    boost::json::object arguments;
    bool json = false;
};

asio::awaitable<int> work(mcp::server_config config, mcp::client_options options, request r) {
    mcp::mcp_result<std::shared_ptr<mcp::client>> connected = mcp::make_mcp_error(parley::errc::invalid_argument, "no server");
    if (config.is_http()) connected = co_await mcp::connect_http(config, options);
    else connected = co_await mcp::connect_stdio(config, options);
    if (!connected) {
        std::cerr << "error: " << connected.error().what() << '\n';
        co_return 1;
    }
    std::shared_ptr<mcp::client> c = std::move(*connected);
    int status = 0;
    if (r.what == "tools") {
        if (r.json) {
            boost::json::array list;
            for (const auto& t : c->tools()) list.push_back(tool_json(t));
            std::cout << parley::pretty_json(list) << '\n';
        } else {
            for (const auto& t : c->tools())
                std::cout << t.name << (t.description.empty() ? std::string() : ": " + summary_line(t.description)) << '\n';
        }
    } else if (r.what == "prompts") {
        auto prompts = co_await c->list_prompts();
        if (!prompts) {
            std::cerr << "error: " << prompts.error().what() << '\n';
            status = 1;
        } else if (r.json) {
            boost::json::array list;
            for (const auto& p : *prompts) {
                boost::json::object o;
                o["name"] = p.name;
                if (!p.title.empty()) o["title"] = p.title;
                o["description"] = p.description;
                boost::json::array args;
                for (const auto& a : p.arguments)
                    args.push_back(boost::json::object{{"name", a.name}, {"description", a.description}, {"required", a.required}});
                o["arguments"] = std::move(args);
                list.push_back(std::move(o));
            }
            std::cout << parley::pretty_json(list) << '\n';
        } else {
            for (const auto& p : *prompts) {
                std::string args;
                for (const auto& a : p.arguments) args += (args.empty() ? "" : ", ") + a.name + (a.required ? "" : "?");
                std::cout << p.name << "(" << args << ")" << (p.description.empty() ? std::string() : ": " + summary_line(p.description))
                          << '\n';
            }
        }
    } else {
        boost::json::object arguments = std::move(r.arguments);
        auto result = co_await c->call_tool(r.tool, std::move(arguments));
        if (!result) {
            std::cerr << "error: " << result.error().what() << '\n';
            status = 1;
        } else {
            if (r.json) std::cout << parley::pretty_json(result->raw) << '\n';
            else std::cout << result->text() << '\n';
            if (result->is_error) {
                if (!r.json) std::cerr << "error: the tool " << r.tool << " reported an error\n";
                status = 1;
            }
        }
    }
    co_await c->close();
    co_return status;
}

}  // namespace

int mcp_main(const std::vector<std::string>& all) {
    // SERVER may be `-- COMMAND [ARGS...]`: everything after `--` is the command
    std::vector<std::string> args;
    std::vector<std::string> command;
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i] == "--") {
            command.assign(all.begin() + static_cast<std::ptrdiff_t>(i) + 1, all.end());
            break;
        }
        args.push_back(all[i]);
    }
    std::optional<std::string> timeout;
    std::vector<std::string> env, headers;
    bool json = false, verbose = false;
    request r;
    mcp::server_config config;
    mcp::client_options options;
    try {
        // --env and --header repeat: read them before the other options
        std::vector<std::string> rest;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            const bool is_env = a == "--env" || a.rfind("--env=", 0) == 0;
            const bool is_header = a == "--header" || a.rfind("--header=", 0) == 0;
            if (!is_env && !is_header) {
                rest.push_back(a);
                continue;
            }
            std::string value;
            if (a != "--env" && a != "--header") value = a.substr(a.find('=') + 1);  // --env=KEY=VALUE
            else if (i + 1 < args.size()) value = args[++i];
            else throw usage_error(a + " needs a value");
            (is_env ? env : headers).push_back(value);
        }
        auto words = option_list().value("--timeout", timeout).flag("--json", json).flag("--verbose", verbose).parse(rest);
        if (!words) {
            std::cout << mcp_usage;
            return 0;
        }
        if (words->empty()) throw usage_error("give tools, call or prompts");
        r.what = words->front();
        r.json = json;
        std::vector<std::string> operands(words->begin() + 1, words->end());
        std::string url;
        if (command.empty()) {
            if (operands.empty()) throw usage_error("give the server: its URL, or -- COMMAND [ARGS...]");
            url = operands.back();
            operands.pop_back();
            if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
                throw usage_error("'" + url + "' is not a URL (http:// or https://); a command goes after --");
        }
        if (r.what == "tools" || r.what == "prompts") {
            if (!operands.empty()) throw usage_error("unexpected '" + operands.front() + "'");
        } else if (r.what == "call") {
            if (operands.empty()) throw usage_error("give the tool to call");
            if (operands.size() > 2) throw usage_error("unexpected '" + operands[2] + "'");
            r.tool = operands[0];
            if (operands.size() == 2) {
                boost::system::error_code ec;
                boost::json::value v = boost::json::parse(operands[1], ec);
                if (ec || !v.is_object()) throw usage_error("the arguments must be a JSON object, not '" + operands[1] + "'");
                r.arguments = std::move(v.get_object());
            }
        } else {
            throw usage_error("unknown mcp command '" + r.what + "' (tools, call or prompts)");
        }
        if (timeout) {
            char* end = nullptr;
            const double s = std::strtod(timeout->c_str(), &end);
            if (!end || *end != '\0' || !(s > 0) || s > 86400) throw usage_error("--timeout takes seconds, not '" + *timeout + "'");
            options.request_timeout = std::chrono::milliseconds(static_cast<long long>(s * 1000));
        }
        config.name = command.empty() ? url : command.front();
        if (command.empty()) {
            config.url = url;
            for (const auto& h : headers) {
                const auto colon = h.find(':');
                if (colon == std::string::npos || colon == 0) throw usage_error("--header takes 'NAME: VALUE', not '" + h + "'");
                std::string value = h.substr(colon + 1);
                while (!value.empty() && value.front() == ' ') value.erase(0, 1);
                config.headers.add(h.substr(0, colon), value);
            }
            if (!env.empty()) throw usage_error("--env is for a server run as a command (after --)");
        } else {
            config.command = command.front();
            config.args.assign(command.begin() + 1, command.end());
            for (const auto& e : env) {
                const auto eq = e.find('=');
                if (eq == std::string::npos || eq == 0) throw usage_error("--env takes KEY=VALUE, not '" + e + "'");
                config.env.emplace_back(e.substr(0, eq), e.substr(eq + 1));
            }
            if (!headers.empty()) throw usage_error("--header is for a server reached by URL");
        }
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << mcp_usage;
        return 2;
    }
    if (verbose) options.on_stderr = [](std::string_view line) { std::cerr << "[server] " << line << '\n'; };
    std::signal(SIGPIPE, SIG_IGN);
    try {
        asio::io_context io;
        auto done = asio::co_spawn(io, work(std::move(config), std::move(options), std::move(r)), asio::use_future);
        while (done.wait_for(std::chrono::seconds(0)) != std::future_status::ready) io.run_one();
        return done.get();
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return 1;
    }
}

}  // namespace parley_cli
