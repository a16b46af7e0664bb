// parley/mcp/jsonrpc.hpp: the JSON-RPC 2.0 messages of the Model Context Protocol: reading a
// message (or a batch) a server sent, with limits and errors that say what is wrong; writing
// requests, notifications and responses; and the newline framing of the stdio transport.
#ifndef PARLEY_MCP_JSONRPC_HPP
#define PARLEY_MCP_JSONRPC_HPP

#include <parley/detail/json_kind.hpp>
#include <parley/error.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::mcp {

/// Limits on what a server may send.
struct message_limits {
    std::size_t max_message = std::size_t{4} << 20;  ///< bytes of one message (a stdio line, an HTTP body, an SSE event)
    std::size_t max_depth = 64;  ///< nesting of JSON arrays and objects
    std::size_t max_batch = 1000;  ///< messages in one batch
};

/// One JSON-RPC message.
struct rpc_message {
    enum class kind : std::uint8_t { request, notification, result, error };
    kind type = kind::notification;
    boost::json::value id;  ///< a string or an integer (requests and responses); null for an error without id
    std::string method;  ///< requests and notifications
    boost::json::value params;  ///< requests and notifications: an object, an array, or null when absent
    boost::json::value result;  ///< results
    std::int64_t error_code = 0;  ///< errors
    std::string error_message;  ///< errors
    boost::json::value error_data;  ///< errors: `data`, null when absent
};

/// JSON-RPC's error codes, and the ones MCP adds.
namespace rpc_code {
inline constexpr std::int64_t parse_error = -32700;
inline constexpr std::int64_t invalid_request = -32600;
inline constexpr std::int64_t method_not_found = -32601;
inline constexpr std::int64_t invalid_params = -32602;
inline constexpr std::int64_t internal_error = -32603;
inline constexpr std::int64_t request_timeout = -32001;  ///< MCP: the request timed out
}  // namespace rpc_code

namespace detail {

inline std::string kind_of(const boost::json::value& v) { return parley::detail::json_kind_name(v); }

/// One message of the peer's JSON: the member checks of JSON-RPC 2.0.
inline boost::system::result<rpc_message, std::string> read_one(boost::json::value v, const std::string& where) {
    if (!v.is_object()) return where + "expected a JSON-RPC message (an object), found " + kind_of(v);
    boost::json::object& o = v.get_object();
    const auto* version = o.if_contains("jsonrpc");
    if (!version || !version->is_string() || version->get_string() != "2.0")
        return where + "expected \"jsonrpc\": \"2.0\", found " +
               (version ? (version->is_string() ? "\"" + std::string(version->get_string()) + "\"" : kind_of(*version))
                        : std::string("nothing"));
    rpc_message m;
    const auto* id = o.if_contains("id");
    if (id && !id->is_string() && !id->is_int64() && !id->is_uint64() && !id->is_null())
        return where + "expected \"id\" to be a string or an integer, found " + kind_of(*id);
    if (const auto* method = o.if_contains("method")) {
        if (!method->is_string()) return where + "expected \"method\" to be a string, found " + kind_of(*method);
        m.method = std::string(method->get_string());
        if (auto* p = o.if_contains("params")) {
            if (!p->is_object() && !p->is_array())
                return where + "expected \"params\" of " + m.method + " to be an object or an array, found " + kind_of(*p);
            m.params = std::move(*p);
        }
        if (id && !id->is_null()) {
            m.type = rpc_message::kind::request;
            m.id = *id;
        } else {
            m.type = rpc_message::kind::notification;
        }
        return m;
    }
    if (!id) return where + "a message without \"method\" is a response and needs an \"id\"";
    m.id = *id;
    const auto* result = o.if_contains("result");
    const auto* err = o.if_contains("error");
    if (result && err) return where + "a response has either \"result\" or \"error\", not both";
    if (result) {
        if (id->is_null()) return where + "a result needs the id of its request, found null";
        m.type = rpc_message::kind::result;
        m.result = *result;
        return m;
    }
    if (!err) return where + "a response needs \"result\" or \"error\"";
    if (!err->is_object()) return where + "expected \"error\" to be an object, found " + kind_of(*err);
    const auto& e = err->get_object();
    const auto* code = e.if_contains("code");
    if (!code || !code->is_int64()) return where + "expected \"error.code\" to be an integer";
    const auto* text = e.if_contains("message");
    if (!text || !text->is_string()) return where + "expected \"error.message\" to be a string";
    m.type = rpc_message::kind::error;
    m.error_code = code->get_int64();
    m.error_message = std::string(text->get_string());
    if (const auto* data = e.if_contains("data")) m.error_data = *data;
    return m;
}

}  // namespace detail

/// The messages of one text the peer sent (a stdio line, an HTTP body, an SSE event's data): one
/// message, or a batch (a non-empty array of messages). The error names what is wrong: JSON that
/// does not parse (with its place), a message beyond the limits, a member of the wrong kind.
inline boost::system::result<std::vector<rpc_message>, std::string> decode(std::string_view text,
                                                                         const message_limits& limits = {}) {
    if (text.size() > limits.max_message)
        return "a message of " + std::to_string(text.size()) + " bytes, more than the limit of " +
               std::to_string(limits.max_message);
    boost::json::parse_options po;
    po.max_depth = limits.max_depth;
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec, {}, po);
    if (ec) {
        std::string shown(text.substr(0, 120));
        for (char& c : shown)
            if (static_cast<unsigned char>(c) < 0x20) c = ' ';
        return "not a JSON message (" + ec.message() + "): \"" + shown + (text.size() > 120 ? "...\"" : "\"");
    }
    std::vector<rpc_message> out;
    if (v.is_array()) {
        auto& a = v.get_array();
        if (a.empty()) return std::string("an empty batch");
        if (a.size() > limits.max_batch)
            return "a batch of " + std::to_string(a.size()) + " messages, more than the limit of " + std::to_string(limits.max_batch);
        out.reserve(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            auto m = detail::read_one(std::move(a[i]), "batch message " + std::to_string(i) + ": ");
            if (!m) return m.error();
            out.push_back(std::move(*m));
        }
        return out;
    }
    auto m = detail::read_one(std::move(v), "");
    if (!m) return m.error();
    out.push_back(std::move(*m));
    return out;
}

/// A request as one line of JSON (without the newline).
inline std::string encode_request(std::int64_t id, std::string_view method, const boost::json::value& params) {
    boost::json::object o{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) o["params"] = params;
    return boost::json::serialize(o);
}

/// A notification as one line of JSON.
inline std::string encode_notification(std::string_view method, const boost::json::value& params) {
    boost::json::object o{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null()) o["params"] = params;
    return boost::json::serialize(o);
}

/// A result as one line of JSON.
inline std::string encode_result(const boost::json::value& id, const boost::json::value& result) {
    return boost::json::serialize(boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

/// An error response as one line of JSON.
inline std::string encode_error(const boost::json::value& id, std::int64_t code, std::string_view message) {
    return boost::json::serialize(
        boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", boost::json::object{{"code", code}, {"message", message}}}});
}

/// Splits a byte stream into newline-delimited messages (the stdio transport): `\n` ends a
/// message, a `\r` before it is dropped, empty lines are skipped. A line longer than the limit
/// is an error, after which the reader takes nothing more.
class line_reader {
public:
    explicit line_reader(std::size_t max_line = std::size_t{4} << 20) : max_line_(max_line) {}

    /// Feeds `bytes`; `on_line(std::string_view)` receives each complete line. Returns the error
    /// that stopped the reading, if any (a line beyond the limit).
    template <class OnLine>
    std::optional<std::string> feed(std::string_view bytes, OnLine&& on_line) {
        if (failed_) return std::string("the reader stopped at an earlier error");
        while (!bytes.empty()) {
            const std::size_t nl = bytes.find('\n');
            const std::string_view piece = bytes.substr(0, nl);
            if (pending_.size() + piece.size() > max_line_) {
                failed_ = true;
                return "a line of more than " + std::to_string(max_line_) + " bytes (the limit of one message)";
            }
            if (nl == std::string_view::npos) {
                pending_.append(piece);
                return std::nullopt;
            }
            std::string_view line = piece;
            if (!pending_.empty()) {
                pending_.append(piece);
                line = pending_;
            }
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (!line.empty()) on_line(line);
            pending_.clear();
            bytes.remove_prefix(nl + 1);
        }
        return std::nullopt;
    }

    /// Bytes of an unfinished line.
    std::size_t pending() const noexcept { return pending_.size(); }

private:
    std::size_t max_line_;
    std::string pending_;
    bool failed_ = false;
};

}  // namespace parley::mcp

#endif
