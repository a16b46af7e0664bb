// parley/provider/anthropic_reply.hpp: a non-streamed Anthropic Messages API reply (a Message
// object) or error body, decoded into a chat_reply or a call_error.
#ifndef PARLEY_PROVIDER_ANTHROPIC_REPLY_HPP
#define PARLEY_PROVIDER_ANTHROPIC_REPLY_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/anthropic_json.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace parley::anthropic {

/// The call_error of a failed call: an API error body (`{"type": "error", "error": {"type":
/// "overloaded_error", "message": "Overloaded"}}`) gives errc::api_error with the API's type and
/// message (each cut to 4096 bytes); any other body (an HTML page from a proxy, nothing, JSON of
/// another shape) gives errc::http_status with a short excerpt of the body (at most 200 bytes,
/// white space collapsed, invalid UTF-8 shown as '?'). `status` and `headers` are kept.
inline call_error decode_error(int status, http_headers headers, std::string_view body, const decode_limits& limits = {}) {
    namespace da = detail::anthropic;
    call_error e;
    e.status = status;
    if (body.size() <= limits.max_body_bytes) {
        std::string problem;
        if (auto v = da::parse_json(body, limits.max_json_depth, problem); v && v->is_object()) {
            if (da::read_api_error(v->get_object(), e)) {
                e.headers = std::move(headers);
                return e;
            }
        }
    }
    e.code = make_error_code(errc::http_status);
    e.message = body.empty() ? std::string("the reply has no body") : "the reply is not an API error: " + da::excerpt(body);
    e.headers = std::move(headers);
    return e;
}

/// A reply to a non-streamed request. A status outside 200-299 gives decode_error's call_error;
/// so does an error body sent with a 2xx status. Otherwise the body must be a Message object:
/// `text` blocks are concatenated (without separator) into the content string (no content when
/// there is no text block), `tool_use` blocks become tool calls whose arguments are the `input`
/// serialised as JSON; other blocks (thinking, server tools) are skipped. `stop_reason` gives the
/// finish reason (end_turn and stop_sequence -> stop, max_tokens -> length, tool_use ->
/// tool_calls, refusal -> content_filter, others -> other; finish_text keeps the word); usage
/// gives prompt tokens = input_tokens + cache_creation_input_tokens + cache_read_input_tokens,
/// completion tokens = output_tokens, and details = the whole usage object. One choice, index 0.
/// A body that is not JSON or breaks this shape, or exceeds `limits`, gives errc::protocol with
/// what was expected and what was found.
inline boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers, std::string_view body,
                                                                  const decode_limits& limits = {}) {
    namespace da = detail::anthropic;
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    auto fail = [&](std::string message) { return da::protocol_error(status, headers, std::move(message)); };
    if (body.size() > limits.max_body_bytes)
        return fail("the reply body has " + std::to_string(body.size()) + " bytes, more than the limit of " +
                    std::to_string(limits.max_body_bytes));
    std::string problem;
    const auto parsed = da::parse_json(body, limits.max_json_depth, problem);
    if (!parsed) return fail("expected a JSON Message object, found " + problem + ": " + da::excerpt(body));
    if (!parsed->is_object()) return fail("expected a JSON Message object, found " + da::found(*parsed));
    const auto& o = parsed->get_object();
    {
        call_error api;
        if (da::read_api_error(o, api)) {
            api.status = status;
            api.headers = std::move(headers);
            return api;
        }
    }
    auto string_field = [&](std::string_view key, std::string& out) -> bool {
        const auto* v = o.if_contains(key);
        if (!v) return true;
        if (!v->is_string()) {
            problem = "expected '" + std::string(key) + "' to be a string, found " + da::found(*v);
            return false;
        }
        out = da::bounded(v->get_string(), limits.max_assembled_bytes);
        return true;
    };
    std::string type, role;
    if (!string_field("type", type) || !string_field("role", role)) return fail(problem);
    if (o.contains("type") && type != "message") return fail("expected a reply of type 'message', found '" + da::excerpt(type) + "'");
    if (o.contains("role") && role != "assistant") return fail("expected the role 'assistant', found '" + da::excerpt(role) + "'");

    chat_reply reply;
    if (!string_field("id", reply.id) || !string_field("model", reply.model)) return fail(problem);
    const auto* content = o.if_contains("content");
    if (!content || !content->is_array())
        return fail("expected 'content' to be an array of content blocks, found " + (content ? da::found(*content) : "none"));
    const auto& blocks = content->get_array();
    if (blocks.size() > limits.max_content_blocks)
        return fail("the reply has " + std::to_string(blocks.size()) + " content blocks, more than the limit of " +
                    std::to_string(limits.max_content_blocks));

    reply_choice choice;
    choice.message.role = role::assistant;
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const std::string where = "content[" + std::to_string(i) + "]";
        const auto* block = blocks[i].if_object();
        const auto* block_type = block ? block->if_contains("type") : nullptr;
        if (!block_type || !block_type->is_string())
            return fail("expected " + where + " to be a content block with a 'type', found " + da::found(blocks[i]));
        auto member = [&](std::string_view key, boost::json::kind kind,
                          std::string_view expected) -> const boost::json::value* {
            const auto* v = block->if_contains(key);
            if (v && v->kind() == kind) return v;
            problem = "expected '" + where + "." + std::string(key) + "' to be " + std::string(expected) + ", found " +
                      (v ? da::found(*v) : std::string("none"));
            return nullptr;
        };
        if (block_type->get_string() == "text") {
            const auto* text = member("text", boost::json::kind::string, "a string");
            if (!text) return fail(problem);
            bytes += text->get_string().size();
            if (bytes > limits.max_assembled_bytes) break;
            if (!choice.message.has_text()) choice.message.content = std::string();
            std::get<std::string>(choice.message.content) += std::string_view(text->get_string());
        } else if (block_type->get_string() == "tool_use") {
            const auto* id = member("id", boost::json::kind::string, "a string");
            const auto* name = id ? member("name", boost::json::kind::string, "a string") : nullptr;
            const auto* input = name ? member("input", boost::json::kind::object, "an object") : nullptr;
            if (!input) return fail(problem);
            tool_call call;
            call.id = da::bounded(id->get_string(), limits.max_assembled_bytes);
            call.function.name = da::bounded(name->get_string(), limits.max_assembled_bytes);
            call.function.arguments = boost::json::serialize(*input);
            bytes += call.id.size() + call.function.name.size() + call.function.arguments.size();
            if (bytes > limits.max_assembled_bytes) break;
            choice.message.tool_calls.push_back(std::move(call));
        }
    }
    if (bytes > limits.max_assembled_bytes)
        return fail("the reply's text and tool arguments exceed the limit of " + std::to_string(limits.max_assembled_bytes) +
                    " bytes");

    if (const auto* stop = o.if_contains("stop_reason"); stop && !stop->is_null()) {
        if (!stop->is_string()) return fail("expected 'stop_reason' to be a string or null, found " + da::found(*stop));
        choice.finish_text = da::bounded(stop->get_string(), 256);
        choice.finish = da::finish_of(choice.finish_text);
    }
    if (const auto* usage = o.if_contains("usage"); usage && !usage->is_null()) {
        if (!usage->is_object()) return fail("expected 'usage' to be an object, found " + da::found(*usage));
        token_usage counts;
        if (!da::read_usage(usage->get_object(), counts, problem)) return fail(problem);
        reply.usage = std::move(counts);
    }
    reply.choices.push_back(std::move(choice));
    reply.status = status;
    reply.headers = std::move(headers);
    return reply;
}

}  // namespace parley::anthropic

#endif
