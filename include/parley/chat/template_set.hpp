// parley/chat/template_set.hpp: named conversation templates plus the definitions of the
// functions their requests refer to by name.
#ifndef PARLEY_CHAT_TEMPLATE_SET_HPP
#define PARLEY_CHAT_TEMPLATE_SET_HPP

#include <parley/chat/conversation_template.hpp>
#include <parley/chat/detail/strict_schema.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/error.hpp>
#include <parley/schema/function_signature.hpp>

#include <boost/json/object.hpp>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// How a program runs a function of a set itself (YAML `command` and `timeout` of a function
/// definition; `parley run` follows it, see docs/yaml-format.md). Not part of the definition the
/// model sees.
struct function_command {
    std::string command;  ///< a shell command (`/bin/sh -c`); the arguments are its standard input
    double timeout = 0;  ///< seconds the command may take; 0: the runner's default
    friend bool operator==(const function_command&, const function_command&) = default;
};

/// The function name under which a tool of an MCP server is offered: `prefix` then the tool's
/// name, made to follow the chat APIs' rule for names (^[a-zA-Z0-9_-]{1,64}$): other characters
/// become '_', and the name is cut at 64 characters.
inline std::string mcp_function_name(std::string_view prefix, std::string_view tool) {
    std::string name = std::string(prefix) + std::string(tool);
    for (char& c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) c = '_';
    if (name.size() > 64) name.resize(64);
    return name;
}

/// An MCP server a template set declares (YAML `mcp_servers`, docs/yaml-format.md): how a program
/// reaches it (a command to run, the stdio transport, or a URL, Streamable HTTP) and which of its
/// tools become functions, under which prefix. The chat layer only describes it: a program
/// connects (`parley run` does, docs/mcp.md).
struct mcp_server {
    std::string name;  ///< the key in `mcp_servers`: ^[a-zA-Z0-9_-]{1,63}$
    // stdio
    std::string command;  ///< the program (looked up on PATH when it has no '/'), not a shell command
    std::vector<std::string> args;  ///< its arguments
    std::vector<std::pair<std::string, std::string>> env;  ///< added to the server's environment
    std::string cwd;  ///< its working directory (relative: to the directory of the set's file)
    // Streamable HTTP
    std::string url;  ///< the endpoint (http:// or https://)
    std::vector<std::pair<std::string, std::string>> headers;  ///< sent with every request
    // both
    std::vector<std::string> tools;  ///< the tools offered to the model (as the server names them); empty: all
    std::optional<std::string> prefix;  ///< put before the tools' names; absent: the name and '_'
    double timeout = 0;  ///< seconds a request to the server may take; 0: the client's default

    bool is_http() const noexcept { return !url.empty(); }
    /// The prefix of the server's functions: `prefix`, or the server's name and '_'.
    std::string function_prefix() const { return prefix ? *prefix : name + "_"; }
    /// The function name of tool `tool` of this server.
    std::string function_name(std::string_view tool) const { return mcp_function_name(function_prefix(), tool); }
    /// Whether `function` may be one of this server's functions: one of `tools` under the prefix
    /// when `tools` is given, else any name that begins with the prefix (the server's tools are
    /// known only once it runs).
    bool may_provide(std::string_view function) const {
        if (!tools.empty()) {
            for (const auto& t : tools)
                if (function_name(t) == function) return true;
            return false;
        }
        const std::string p = function_prefix();
        return function.size() > p.size() && function.substr(0, p.size()) == p;
    }
    friend bool operator==(const mcp_server&, const mcp_server&) = default;
};

/// Named conversation templates (in the order they were added) and function definitions.
class template_set {
public:
    /// Adds a template; throws parley::error (errc::chat_invalid) when its name is empty or taken.
    void add(conversation_template t) {
        if (t.name().empty()) throw error(errc::chat_invalid, "a template of a set needs a name");
        if (find(t.name())) throw error(errc::chat_invalid, "template '" + t.name() + "' is defined twice");
        templates_.push_back(std::move(t));
    }
    /// Adds a function definition; throws parley::error (errc::chat_invalid) when its name is
    /// invalid (^[a-zA-Z0-9_-]{1,64}$) or taken, or when it is strict and its parameters are not
    /// in the strict form (detail::strict_schema_problem).
    void add(function_definition f) {
        if (!is_valid_function_name(f.name))
            throw error(errc::chat_invalid, describe(chat_rule::bad_function_name, role::assistant, f.name));
        if (function(f.name)) throw error(errc::chat_invalid, "function '" + f.name + "' is defined twice");
        if (f.strict)
            if (const std::string problem = detail::strict_schema_problem(f.parameters); !problem.empty())
                throw error(errc::chat_invalid, "function '" + f.name + "' is strict, but its parameters at " + problem);
        functions_.push_back(std::move(f));
    }

    /// Says how function `name` of the set runs as a command; throws parley::error
    /// (errc::chat_invalid) when the set does not define `name`, when `c.command` is empty or when
    /// `c.timeout` is negative or not finite.
    void set_command(std::string_view name, function_command c) {
        if (!function(name))
            throw error(errc::chat_invalid, "a command for function '" + std::string(name) + "', which the set does not define");
        if (c.command.empty()) throw error(errc::chat_invalid, "the command of function '" + std::string(name) + "' is empty");
        if (!(c.timeout >= 0) || c.timeout > 1e9)
            throw error(errc::chat_invalid, "the timeout of function '" + std::string(name) +
                                                "' must be a number of seconds from 0 to 1e9");
        for (auto& [n, existing] : commands_)
            if (n == name) {
                existing = std::move(c);
                return;
            }
        commands_.emplace_back(std::string(name), std::move(c));
    }
    /// Adds the declaration of an MCP server; throws parley::error (errc::chat_invalid) when its
    /// name is not ^[a-zA-Z0-9_-]{1,63}$ or is taken, when it has both or neither of a command and
    /// a URL, or when its prefix does not fit in a function name (^[a-zA-Z0-9_-]{0,63}$).
    void add(mcp_server s) {
        auto name_chars = [](std::string_view n) {
            return std::all_of(n.begin(), n.end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            });
        };
        if (s.name.empty() || s.name.size() > 63 || !name_chars(s.name))
            throw error(errc::chat_invalid, "an MCP server's name matches ^[a-zA-Z0-9_-]{1,63}$ (it begins the names of its "
                                            "functions), found '" + s.name + "'");
        if (mcp_server_named(s.name)) throw error(errc::chat_invalid, "MCP server '" + s.name + "' is declared twice");
        if (s.command.empty() == s.url.empty())
            throw error(errc::chat_invalid, "MCP server '" + s.name + "' needs either a 'command' (stdio) or a 'url' (Streamable HTTP)");
        if (s.prefix && (s.prefix->size() > 63 || !name_chars(*s.prefix)))
            throw error(errc::chat_invalid, "the prefix of MCP server '" + s.name + "' matches ^[a-zA-Z0-9_-]{0,63}$, found '" +
                                                *s.prefix + "'");
        mcp_servers_.push_back(std::move(s));
    }
    /// The MCP servers the set declares, in the order they were added.
    const std::vector<mcp_server>& mcp_servers() const noexcept { return mcp_servers_; }
    /// The MCP server named `name`, or null.
    const mcp_server* mcp_server_named(std::string_view name) const noexcept {
        for (const auto& s : mcp_servers_)
            if (s.name == name) return &s;
        return nullptr;
    }
    /// The MCP server whose function `function` may be (mcp_server::may_provide; the longest
    /// prefix first), or null.
    const mcp_server* mcp_server_for(std::string_view function) const {
        const mcp_server* best = nullptr;
        for (const auto& s : mcp_servers_)
            if (s.may_provide(function) && (!best || s.function_prefix().size() > best->function_prefix().size())) best = &s;
        return best;
    }

    /// The command of function `name`, or null when it has none.
    const function_command* command(std::string_view name) const noexcept {
        for (const auto& [n, c] : commands_)
            if (n == name) return &c;
        return nullptr;
    }

    const std::vector<conversation_template>& templates() const noexcept { return templates_; }
    const std::vector<function_definition>& functions() const noexcept { return functions_; }

    /// The template named `name`, or null.
    const conversation_template* find(std::string_view name) const noexcept {
        for (const auto& t : templates_)
            if (t.name() == name) return &t;
        return nullptr;
    }
    /// The template named `name`; throws parley::error (errc::chat_invalid) listing the names
    /// there are when there is none.
    const conversation_template& at(std::string_view name) const {
        if (const auto* t = find(name)) return *t;
        std::string names;
        for (const auto& t : templates_) names += (names.empty() ? "" : ", ") + t.name();
        throw error(errc::chat_invalid, "no template named '" + std::string(name) + "' (the set has: " +
                                            (names.empty() ? std::string("none") : names) + ")");
    }
    /// The function definition named `name`, or null.
    const function_definition* function(std::string_view name) const noexcept {
        for (const auto& f : functions_)
            if (f.name == name) return &f;
        return nullptr;
    }

    /// The templates whose name or description contains `keyword`, ignoring ASCII case, in
    /// set order; every template for an empty keyword.
    std::vector<const conversation_template*> search(std::string_view keyword) const {
        std::vector<const conversation_template*> out;
        for (const auto& t : templates_)
            if (contains(t.name(), keyword) || contains(t.info().description, keyword)) out.push_back(&t);
        return out;
    }

    /// Throws parley::error (errc::chat_invalid) when a request of a template names a function
    /// (in `functions` or as `call_function`) that is neither defined in the set nor in `external`
    /// (functions provided from elsewhere, such as C++ functions registered with a bot) nor may be
    /// one of a declared MCP server's (mcp_server::may_provide).
    void check_functions(const std::vector<std::string>& external = {}) const {
        auto known = [&](const std::string& n) {
            return function(n) || std::find(external.begin(), external.end(), n) != external.end() || mcp_server_for(n);
        };
        for (const auto& t : templates_) {
            for (std::size_t i = 0; i < t.messages().size(); ++i) {
                const request_params& p = t.messages()[i].params;
                auto fail = [&](const std::string& what) {
                    throw error(errc::chat_invalid, t.name() + ", message " + std::to_string(i) + ": " + what);
                };
                if (p.functions)
                    for (const auto& f : *p.functions)
                        if (!known(f)) fail(undefined_function("functions", f));
                if (p.call_function && !p.call_function->empty() && *p.call_function != "*" && !known(*p.call_function))
                    fail(undefined_function("call_function", *p.call_function));
            }
        }
    }

    /// After the MCP servers were connected: throws parley::error (errc::chat_invalid) when a
    /// request names a function (in `functions` or as `call_function`) that the set does not
    /// define, that is not in `known` (the functions a program registered, the servers' tools
    /// among them), and that a declared MCP server may provide (mcp_server_for). The error names
    /// the server and its tools, from `server_tools` (a server's name and the names of the tools
    /// it offers), and is a located_error at the name in the file when the template has an origin
    /// that knows the place (the YAML loader's), else it names the template and the message.
    void check_mcp_functions(const std::vector<std::string>& known,
                             const std::vector<std::pair<std::string, std::vector<std::string>>>& server_tools) const {
        auto check = [&](const conversation_template& t, std::size_t i, std::size_t index, std::string_view param,
                         const std::string& name) {
            if (function(name) || std::find(known.begin(), known.end(), name) != known.end()) return;
            const mcp_server* s = mcp_server_for(name);
            if (!s) return;
            std::string tools;
            for (const auto& [server, list] : server_tools)
                if (server == s->name)
                    for (const auto& tool : list) tools += (tools.empty() ? "" : ", ") + tool;
            const std::string text = "'" + std::string(param) + "' names '" + name + "', which MCP server '" + s->name +
                                     "' does not offer (its tools, under the prefix '" + s->function_prefix() + "': " +
                                     (tools.empty() ? std::string("none") : tools) + ")";
            if (t.origin())
                if (auto placed = t.origin()->place_function(i, index, errc::chat_invalid, text)) throw *placed;
            throw error(errc::chat_invalid, t.name() + ", message " + std::to_string(i) + ": " + text);
        };
        for (const auto& t : templates_) {
            for (std::size_t i = 0; i < t.messages().size(); ++i) {
                const request_params& p = t.messages()[i].params;
                if (p.functions)
                    for (std::size_t k = 0; k < p.functions->size(); ++k) check(t, i, k, "functions", (*p.functions)[k]);
                if (p.call_function && !p.call_function->empty() && *p.call_function != "*")
                    check(t, i, text_location::npos, "call_function", *p.call_function);
            }
        }
    }

    /// The sentence check_functions reports for function `name` that request parameter `param`
    /// ("functions" or "call_function") names and nothing defines.
    static std::string undefined_function(std::string_view param, std::string_view name) {
        return "'" + std::string(param) + "' names '" + std::string(name) + "', which the set does not define";
    }

    friend bool operator==(const template_set&, const template_set&) = default;

private:
    static bool contains(std::string_view text, std::string_view keyword) {
        auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
        if (keyword.empty()) return true;
        if (keyword.size() > text.size()) return false;
        for (std::size_t i = 0; i + keyword.size() <= text.size(); ++i) {
            std::size_t k = 0;
            while (k < keyword.size() && lower(text[i + k]) == lower(keyword[k])) ++k;
            if (k == keyword.size()) return true;
        }
        return false;
    }

    std::vector<conversation_template> templates_;
    std::vector<function_definition> functions_;
    std::vector<std::pair<std::string, function_command>> commands_;  ///< by function name, in the order set
    std::vector<mcp_server> mcp_servers_;
};

}  // namespace parley

#endif
