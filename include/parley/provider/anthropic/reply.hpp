// parley/provider/anthropic/reply.hpp: a non-streamed Anthropic Messages API reply (a Message
// object) decoded into a chat_reply.
#ifndef PARLEY_PROVIDER_ANTHROPIC_REPLY_HPP
#define PARLEY_PROVIDER_ANTHROPIC_REPLY_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/anthropic/common.hpp>
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

namespace detail {

/// Reads the content blocks of a Message into `choice`: text blocks concatenated, tool_use
/// blocks as tool calls, thinking and redacted_thinking blocks as reasoning; others skipped.
inline void read_content(const boost::json::array& blocks, const json_path& at, reply_choice& choice,
                         const reply_limits& limits) {
    if (blocks.size() > limits.max_content_blocks)
        fail_with(at, "expected at most max_content_blocks (" + std::to_string(limits.max_content_blocks) +
                          ") content blocks, found " + std::to_string(blocks.size()));
    byte_budget bytes(limits.max_assembled_bytes);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const auto bat = at.element(i);
        const auto& block = as_object(blocks[i], bat);
        const std::string_view type = req_string(block, "type", bat);
        if (type == "text") {
            const std::string_view text = req_string(block, "text", bat);
            bytes.add(text.size());
            if (!choice.message.has_text()) choice.message.content = std::string();
            std::get<std::string>(choice.message.content) += text;
        } else if (type == "tool_use") {
            tool_call call;
            call.id = std::string(req_string(block, "id", bat));
            call.function.name = std::string(req_string(block, "name", bat));
            call.function.arguments = boost::json::serialize(req_object(block, "input", bat));
            bytes.add(call.id.size() + call.function.name.size() + call.function.arguments.size());
            choice.message.tool_calls.push_back(std::move(call));
        } else if (type == "thinking") {
            reasoning_part r;
            r.type = reasoning_part::kind::thinking;
            r.text = std::string(req_string(block, "thinking", bat));
            r.signature = std::string(req_string(block, "signature", bat));
            bytes.add(r.text.size() + r.signature.size());
            choice.message.reasoning.push_back(std::move(r));
        } else if (type == "redacted_thinking") {
            reasoning_part r;
            r.type = reasoning_part::kind::redacted;
            r.data = std::string(req_string(block, "data", bat));
            bytes.add(r.data.size());
            choice.message.reasoning.push_back(std::move(r));
        }
    }
}

/// Reads a stop reason into `choice`.
inline void read_stop(const boost::json::object& o, std::string_view key, const json_path& at, reply_choice& choice) {
    if (const auto stop = opt_string(o, key, at)) {
        choice.finish_text = cut(*stop, 256);
        choice.finish = finish_of(choice.finish_text);
    }
}

}  // namespace detail

/// A reply to a non-streamed request. A status outside 200-299 gives decode_error's call_error;
/// so does an error body sent with a 2xx status. Otherwise the body must be a Message object:
/// `text` blocks are concatenated (without separator) into the content string (no content when
/// there is no text block), `tool_use` blocks become tool calls whose arguments are the `input`
/// serialised as JSON, `thinking` blocks become reasoning parts of kind thinking (text and
/// signature), `redacted_thinking` blocks reasoning parts of kind redacted (data), in the order
/// received; other blocks (server tools) are skipped. `stop_reason` gives the finish reason
/// (end_turn and stop_sequence -> stop, max_tokens -> length, tool_use -> tool_calls, refusal ->
/// content_filter, others -> other; finish_text keeps the word); usage gives prompt tokens =
/// input_tokens + cache_creation_input_tokens + cache_read_input_tokens, completion tokens =
/// output_tokens, and details = the whole usage object. One choice, index 0. A body that is not
/// JSON or breaks this shape, or exceeds `limits`, gives errc::protocol with what was expected
/// and where, and what was found.
inline boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers, std::string_view body,
                                                                  const reply_limits& limits = {}) {
    namespace da = detail;
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        if (body.size() > limits.max_body_bytes)
            throw da::wire_failure{"expected a reply body of at most max_body_bytes (" + std::to_string(limits.max_body_bytes) +
                                   " bytes), found " + std::to_string(body.size())};
        const boost::json::value v = da::parse_bounded(body, limits.max_json_depth, "a Message object");
        const da::json_path root{nullptr, "message", 0};
        const auto& o = da::as_object(v, root);
        {
            call_error api;
            if (da::read_api_error(o, api)) {
                api.status = status;
                api.headers = std::move(headers);
                return api;
            }
        }
        if (const auto type = da::opt_string(o, "type", root); type && *type != "message")
            da::fail_at(root.member("type"), "\"message\"", boost::json::value(*type));
        if (const auto r = da::opt_string(o, "role", root); r && *r != "assistant")
            da::fail_at(root.member("role"), "\"assistant\"", boost::json::value(*r));
        chat_reply reply;
        reply.id = da::cut(da::opt_string(o, "id", root).value_or(""), limits.max_assembled_bytes);
        reply.model = da::cut(da::opt_string(o, "model", root).value_or(""), limits.max_assembled_bytes);
        reply_choice choice;
        choice.message.role = role::assistant;
        da::read_content(da::req_array(o, "content", root), root.member("content"), choice, limits);
        da::read_stop(o, "stop_reason", root, choice);
        if (const auto* usage = da::opt_object(o, "usage", root)) reply.usage = da::read_usage(*usage, root.member("usage"));
        reply.choices.push_back(std::move(choice));
        reply.status = status;
        reply.headers = std::move(headers);
        return reply;
    } catch (const da::wire_failure& f) {
        return da::protocol_failure(status, headers, f.message);
    }
}

}  // namespace parley::anthropic

#endif
