// parley/mcp/types.hpp: what an MCP client works with: how to reach a server (a command to run,
// or a URL), the limits, the errors, and what servers describe and return (tools, their results,
// prompts, resources), read from the protocol's JSON with every member checked.
#ifndef PARLEY_MCP_TYPES_HPP
#define PARLEY_MCP_TYPES_HPP

#include <parley/error.hpp>
#include <parley/mcp/jsonrpc.hpp>
#include <parley/net/headers.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace parley::mcp {

/// The protocol revisions parley speaks, newest first: the first is proposed in `initialize`,
/// and a server may answer with any of them.
inline constexpr std::string_view protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/// How to reach a server: a command to run (the stdio transport) or a URL (Streamable HTTP).
struct server_config {
    std::string name;  ///< the server's name (in messages, and the default prefix of its tools)
    // stdio
    std::string command;  ///< the program, looked up on PATH when it has no '/'
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;  ///< set in the server's environment
    bool inherit_env = true;  ///< start from this process's environment (else from `env` alone)
    std::string cwd;  ///< the working directory (empty: this process's)
    // Streamable HTTP
    std::string url;  ///< the MCP endpoint (http:// or https://)
    http_headers headers;  ///< sent with every request (Authorization, for instance)

    bool is_http() const noexcept { return !url.empty(); }
};

/// The limits and time limits of a client.
struct client_options {
    message_limits limits;
    std::chrono::milliseconds request_timeout{60000};  ///< a request without an answer for this long fails
    std::chrono::milliseconds connect_timeout{30000};  ///< for starting the server and `initialize`
    std::chrono::milliseconds stop_grace{2000};  ///< after closing its input, then after SIGTERM, before SIGKILL
    std::size_t max_pages = 100;  ///< most pages of one list
    std::size_t max_stderr_line = 64 * 1024;  ///< longer stderr lines are cut
    /// Receives each line the server writes on its standard error (stdio); empty: dropped.
    std::function<void(std::string_view)> on_stderr;
    /// Receives the server's log messages (notifications/message): level, logger, data.
    std::function<void(std::string_view level, std::string_view logger, const boost::json::value& data)> on_log;
    /// Called after the tool list changed (notifications/tools/list_changed) and was read again.
    std::function<void()> on_tools_changed;
    std::string client_name = "parley";  ///< clientInfo.name
    std::string client_version = "0.1";  ///< clientInfo.version
};

/// Why an MCP call failed.
struct mcp_error {
    /// errc::api_error for a JSON-RPC error the server answered, errc::connection_closed when the
    /// server went away, errc::protocol for a message that breaks the protocol or a limit,
    /// errc::timeout, boost::asio::error::operation_aborted when the call was cancelled, or a
    /// system error (the command could not be started, a connection failed).
    std::error_code code;
    std::string message;
    std::int64_t rpc_code = 0;  ///< the JSON-RPC error code, for errc::api_error
    boost::json::value data;  ///< the JSON-RPC error's data, if any
    int http_status = 0;  ///< Streamable HTTP: the status of the failed reply, if any

    std::string what() const {
        if (code == errc::api_error)
            return "the server answered with JSON-RPC error " + std::to_string(rpc_code) + (message.empty() ? "" : ": " + message);
        std::string s = code.message();
        if (http_status != 0) s += " (HTTP " + std::to_string(http_status) + ")";
        if (!message.empty()) s += ": " + message;
        return s;
    }
};

/// The exception result<T, mcp_error>::value() throws.
class mcp_exception : public error {
public:
    explicit mcp_exception(mcp_error e) : error(e.code, e.what()), detail_(std::move(e)) {}
    const mcp_error& detail() const noexcept { return detail_; }

private:
    mcp_error detail_;
};

/// Found by ADL from boost::system::result<T, mcp_error>::value().
[[noreturn]] inline void throw_exception_from_error(const mcp_error& e, const auto& /*location*/) { throw mcp_exception(e); }

template <class T>
using mcp_result = boost::system::result<T, mcp_error>;

inline mcp_error make_mcp_error(errc code, std::string message) {
    mcp_error e;
    e.code = make_error_code(code);
    e.message = std::move(message);
    return e;
}

/// A tool a server offers.
struct tool {
    std::string name;
    std::string title;  ///< empty when the server gives none
    std::string description;
    boost::json::object input_schema;  ///< the JSON schema of its arguments
    std::optional<boost::json::object> output_schema;  ///< the schema of its structured content
    boost::json::object annotations;  ///< readOnlyHint, destructiveHint...
};

/// One piece of content: text, an image, audio, an embedded resource or a link to one.
struct content {
    std::string type;  ///< "text", "image", "audio", "resource", "resource_link", or the server's own
    std::string text;  ///< text: the text; resource: the resource's text, if any
    std::string data;  ///< image and audio: base64; resource: the blob, if any
    std::string mime_type;
    std::string uri;  ///< resource and resource_link
    boost::json::object raw;  ///< the content as the server sent it
};

/// What a tool call gave.
struct tool_result {
    std::vector<content> items;
    boost::json::value structured;  ///< structuredContent; null when none
    bool is_error = false;  ///< the tool reports a failure (its content says which)
    boost::json::object raw;

    /// The result as text for a model: the texts of the items, one per line; an image or audio as
    /// `[image image/png, 1,234 bytes of base64]`; a link or a resource by its URI; the structured
    /// content's JSON when there are no items.
    std::string text() const {
        std::string out;
        auto add = [&](const std::string& s) { out += (out.empty() ? "" : "\n") + s; };
        for (const content& c : items) {
            if (c.type == "text") add(c.text);
            else if (c.type == "image" || c.type == "audio")
                add("[" + c.type + " " + c.mime_type + ", " + std::to_string(c.data.size()) + " bytes of base64]");
            else if (c.type == "resource")
                add(c.text.empty() ? "[resource " + c.uri + (c.mime_type.empty() ? "" : ", " + c.mime_type) + "]" : c.text);
            else if (c.type == "resource_link")
                add("[link " + c.uri + (c.mime_type.empty() ? "" : ", " + c.mime_type) + "]");
            else add(boost::json::serialize(c.raw));
        }
        if (items.empty() && !structured.is_null()) add(boost::json::serialize(structured));
        return out;
    }
};

/// A prompt a server offers.
struct prompt_argument {
    std::string name;
    std::string description;
    bool required = false;
};
struct prompt {
    std::string name;
    std::string title;
    std::string description;
    std::vector<prompt_argument> arguments;
};

/// A message of a prompt got from a server.
struct prompt_message {
    std::string role;  ///< "user" or "assistant"
    content body;
};
struct prompt_result {
    std::string description;
    std::vector<prompt_message> messages;
};

/// A resource a server offers.
struct resource {
    std::string uri;
    std::string name;
    std::string title;
    std::string description;
    std::string mime_type;
};

/// What reading a resource gave: text or a blob (base64), per URI.
struct resource_contents {
    std::string uri;
    std::string mime_type;
    std::optional<std::string> text;
    std::optional<std::string> blob;
};

/// What the server said of itself in `initialize`.
struct server_info {
    std::string protocol_version;
    std::string name;
    std::string version;
    std::string instructions;
    boost::json::object capabilities;
};

/// A progress notification of a request.
struct progress {
    double done = 0;
    std::optional<double> total;
    std::string message;
};

namespace detail {

/// Reads the members of a protocol object, collecting the first problem.
class reader {
public:
    explicit reader(std::string where) : where_(std::move(where)) {}

    const boost::json::object* object(const boost::json::value& v, const std::string& what) {
        if (v.is_object()) return &v.get_object();
        fail(what + ": expected an object, found " + kind_of(v));
        return nullptr;
    }
    std::string string(const boost::json::object& o, std::string_view key, bool required, const std::string& what) {
        const auto* v = o.if_contains(key);
        if (!v || v->is_null()) {
            if (required) fail(what + ": \"" + std::string(key) + "\" is missing");
            return {};
        }
        if (!v->is_string()) {
            fail(what + ": expected \"" + std::string(key) + "\" to be a string, found " + kind_of(*v));
            return {};
        }
        return std::string(v->get_string());
    }
    const boost::json::array* array(const boost::json::object& o, std::string_view key, bool required, const std::string& what) {
        const auto* v = o.if_contains(key);
        if (!v || v->is_null()) {
            if (required) fail(what + ": \"" + std::string(key) + "\" is missing");
            return nullptr;
        }
        if (!v->is_array()) {
            fail(what + ": expected \"" + std::string(key) + "\" to be an array, found " + kind_of(*v));
            return nullptr;
        }
        return &v->get_array();
    }
    void fail(std::string problem) {
        if (problem_.empty()) problem_ = std::move(problem);
    }
    bool ok() const noexcept { return problem_.empty(); }
    mcp_error error() const { return make_mcp_error(errc::protocol, where_ + ": " + problem_); }

private:
    std::string where_;
    std::string problem_;
};

inline content read_content(reader& r, const boost::json::value& v, const std::string& what) {
    content c;
    const auto* o = r.object(v, what);
    if (!o) return c;
    c.raw = *o;
    c.type = r.string(*o, "type", true, what);
    if (c.type == "text") c.text = r.string(*o, "text", true, what);
    else if (c.type == "image" || c.type == "audio") {
        c.data = r.string(*o, "data", true, what);
        c.mime_type = r.string(*o, "mimeType", false, what);
    } else if (c.type == "resource_link") {
        c.uri = r.string(*o, "uri", true, what);
        c.mime_type = r.string(*o, "mimeType", false, what);
    } else if (c.type == "resource") {
        const auto* res = o->if_contains("resource");
        if (!res) r.fail(what + ": \"resource\" is missing");
        else if (const auto* ro = r.object(*res, what + ".resource")) {
            c.uri = r.string(*ro, "uri", true, what + ".resource");
            c.mime_type = r.string(*ro, "mimeType", false, what + ".resource");
            c.text = r.string(*ro, "text", false, what + ".resource");
            c.data = r.string(*ro, "blob", false, what + ".resource");
        }
    }
    return c;
}

inline mcp_result<tool_result> read_tool_result(const boost::json::value& v) {
    reader r("tools/call result");
    tool_result out;
    const auto* o = r.object(v, "the result");
    if (!o) return r.error();
    out.raw = *o;
    if (const auto* items = r.array(*o, "content", false, "the result")) {
        for (std::size_t i = 0; i < items->size(); ++i)
            out.items.push_back(read_content(r, (*items)[i], "content[" + std::to_string(i) + "]"));
    }
    if (const auto* s = o->if_contains("structuredContent")) out.structured = *s;
    if (const auto* e = o->if_contains("isError"); e && !e->is_null()) {
        if (!e->is_bool()) r.fail("expected \"isError\" to be a boolean, found " + kind_of(*e));
        else out.is_error = e->get_bool();
    }
    if (!r.ok()) return r.error();
    return out;
}

inline mcp_result<tool> read_tool(const boost::json::value& v, std::size_t i) {
    reader r("tools/list result");
    const std::string what = "tools[" + std::to_string(i) + "]";
    tool t;
    const auto* o = r.object(v, what);
    if (!o) return r.error();
    t.name = r.string(*o, "name", true, what);
    t.title = r.string(*o, "title", false, what);
    t.description = r.string(*o, "description", false, what);
    if (const auto* s = o->if_contains("inputSchema"); s && s->is_object()) t.input_schema = s->get_object();
    else r.fail(what + " (" + t.name + "): \"inputSchema\" must be an object");
    if (const auto* s = o->if_contains("outputSchema"); s && s->is_object()) t.output_schema = s->get_object();
    if (const auto* a = o->if_contains("annotations"); a && a->is_object()) t.annotations = a->get_object();
    if (!r.ok()) return r.error();
    return t;
}

}  // namespace detail

}  // namespace parley::mcp

#endif
