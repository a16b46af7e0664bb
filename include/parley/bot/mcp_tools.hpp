// parley/bot/mcp_tools.hpp: the tools of MCP servers as functions of a bot. Each tool becomes a
// function whose definition is the tool's (its inputSchema as the parameters), under a name with
// the server's prefix; a model's call runs tools/call, and the result becomes the tool message. A
// result the server marks isError, a JSON-RPC error (arguments the server refuses) and a call past
// its time limit are told to the model as failures, as function_failure is; a server that went
// away fails the run.
#ifndef PARLEY_BOT_MCP_TOOLS_HPP
#define PARLEY_BOT_MCP_TOOLS_HPP

#include <parley/bot/bot.hpp>
#include <parley/mcp/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley::mcp {

/// How a server's tools become a bot's functions.
struct bot_tool_options {
    /// Put before every tool's name (a server's tools and another's may share names); the name
    /// is then made to follow the chat APIs' rule (^[a-zA-Z0-9_-]{1,64}$): other characters
    /// become '_', and it is cut at 64 characters.
    std::string prefix;
    /// The tools to offer (their names as the server gives them); empty: every tool.
    std::vector<std::string> allowed;
    /// The options of every call (its time limit, progress).
    call_options call;
};

/// A tool's name under `prefix`, as a function name the chat APIs take.
/// (parley::mcp_function_name: the rule a template set's `mcp_servers` follow too.)
inline std::string function_name_for(std::string_view prefix, std::string_view tool) { return mcp_function_name(prefix, tool); }

/// How to reach the server a template set declares (YAML `mcp_servers`): its command, arguments,
/// environment and directory (a relative `cwd`, and none, start at `base_dir`, the directory of
/// the set's file; empty: this process's directory), or its URL and headers.
inline server_config config_of(const mcp_server& d, const std::string& base_dir = std::string()) {
    server_config c;
    c.name = d.name;
    c.command = d.command;
    c.args = d.args;
    c.env = d.env;
    if (d.cwd.empty()) c.cwd = base_dir;
    else if (d.cwd.front() == '/' || base_dir.empty()) c.cwd = d.cwd;
    else c.cwd = base_dir + (base_dir.back() == '/' ? "" : "/") + d.cwd;
    c.url = d.url;
    for (const auto& [name, value] : d.headers) c.headers.add(name, value);
    return c;
}

/// The options of the tools of a declared server: its prefix (the server's name and '_' unless
/// given), its allowed tools, and its time limit for each call.
inline bot_tool_options tool_options_of(const mcp_server& d) {
    bot_tool_options o;
    o.prefix = d.function_prefix();
    o.allowed = d.tools;
    if (d.timeout > 0) o.call.timeout = std::chrono::milliseconds(static_cast<long long>(d.timeout * 1000));
    return o;
}

/// The function definition the model sees for `t`.
inline function_definition definition_of(const tool& t, std::string_view prefix) {
    function_definition d;
    d.name = function_name_for(prefix, t.name);
    d.description = !t.description.empty() ? t.description : t.title;
    d.parameters = t.input_schema;
    if (!d.parameters.contains("type")) d.parameters["type"] = "object";
    return d;
}

/// Registers the tools of `server` (as last listed: client::tools()) with `b` as functions; returns
/// the functions' names, in the server's order. A name in `opt.allowed` the server does not offer
/// throws parley::error (errc::invalid_argument), as does a name another function already has.
/// The client is shared with every function, and must stay open while runs call them.
inline std::vector<std::string> add_tools(bot& b, const std::shared_ptr<client>& server,
                                          const bot_tool_options& opt = bot_tool_options()) {
    for (const std::string& name : opt.allowed)
        if (!server->find_tool(name))
            throw error(errc::invalid_argument, "the MCP server '" + server->config().name + "' has no tool named '" + name + "'");
    std::vector<std::string> added;
    for (const tool& t : server->tools()) {
        if (!opt.allowed.empty() && std::find(opt.allowed.begin(), opt.allowed.end(), t.name) == opt.allowed.end()) continue;
        function_definition d = definition_of(t, opt.prefix);
        added.push_back(d.name);
        b.add_function(std::move(d), [server, name = t.name, call = opt.call](const boost::json::value& args) -> boost::asio::awaitable<std::string> {
            boost::json::object arguments = args.is_object() ? args.get_object() : boost::json::object();
            auto r = co_await server->call_tool(name, std::move(arguments), call);
            if (!r) {
                // an error the server answered (unknown tool, arguments it refuses) or no answer in
                // time: the model is told; the server gone (or a broken protocol): the run fails
                if (r.error().code == errc::api_error) throw function_failure(r.error().message);
                if (r.error().code == errc::timeout) throw function_failure("the tool " + name + " did not answer in time");
                throw mcp_exception(r.error());
            }
            if (r->is_error) throw function_failure(r->text());
            co_return r->text();
        });
    }
    return added;
}

}  // namespace parley::mcp

#include <parley/detail/warnings_pop.hpp>

#endif
