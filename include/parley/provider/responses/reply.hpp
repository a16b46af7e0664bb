// parley/provider/responses/reply.hpp: a Responses API reply (a Response object) decoded into a
// chat_reply, and its error bodies.
#ifndef PARLEY_PROVIDER_RESPONSES_REPLY_HPP
#define PARLEY_PROVIDER_RESPONSES_REPLY_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace parley::responses {

namespace detail {

using namespace parley::detail::wire;

/// Reads a reasoning item.
inline reasoning_part read_reasoning(const boost::json::object& item, const json_path& at, byte_budget& bytes) {
    reasoning_part r;
    r.type = reasoning_part::kind::item;
    r.id = std::string(req_string(item, "id", at));
    if (const auto* summary = opt_array(item, "summary", at)) {
        const auto sat = at.member("summary");
        for (std::size_t k = 0; k < summary->size(); ++k) {
            const json_path pat = sat.element(k);
            const auto& part = as_object((*summary)[k], pat);
            const std::string_view text = req_string(part, "text", pat);
            bytes.add(text.size());
            r.summary.emplace_back(text);
        }
    }
    if (const auto* content = opt_array(item, "content", at)) {
        const auto cat = at.member("content");
        for (std::size_t k = 0; k < content->size(); ++k) {
            const json_path pat = cat.element(k);
            const auto& part = as_object((*content)[k], pat);
            if (const auto text = opt_string(part, "text", pat)) r.text += *text;
        }
        bytes.add(r.text.size());
    }
    if (const auto data = opt_string(item, "encrypted_content", at)) r.data = std::string(*data);
    bytes.add(r.id.size() + r.data.size());
    return r;
}

/// Appends the log probabilities of an output_text part (an array of the chat completions'
/// token objects) to `choice.logprobs` as `{"content": [...]}`.
inline void add_logprobs(reply_choice& choice, const boost::json::array& tokens) {
    if (!choice.logprobs.is_object()) choice.logprobs = boost::json::object{{"content", boost::json::array()}};
    auto& content = choice.logprobs.get_object()["content"].get_array();
    for (const auto& t : tokens) content.push_back(t);
}

/// Reads the `output` items of a Response into `choice`: message text (output_text parts) and
/// refusals, function calls, reasoning items; other items (built-in tools' calls) are skipped.
inline void read_output(const boost::json::array& items, const json_path& at, reply_choice& choice, const reply_limits& limits) {
    if (items.size() > limits.max_content_blocks)
        fail_with(at, "expected at most max_content_blocks (" + std::to_string(limits.max_content_blocks) +
                          ") output items, found " + std::to_string(items.size()));
    byte_budget bytes(limits.max_assembled_bytes);
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto iat = at.element(i);
        const auto& item = as_object(items[i], iat);
        const std::string_view type = req_string(item, "type", iat);
        if (type == "message") {
            const auto cat = iat.member("content");
            const auto& content = req_array(item, "content", iat);
            for (std::size_t k = 0; k < content.size(); ++k) {
                const auto pat = cat.element(k);
                const auto& part = as_object(content[k], pat);
                const std::string_view part_type = req_string(part, "type", pat);
                if (part_type == "output_text") {
                    const std::string_view text = req_string(part, "text", pat);
                    bytes.add(text.size());
                    if (!choice.message.has_text()) choice.message.content = std::string();
                    std::get<std::string>(choice.message.content) += text;
                    if (const auto* lp = opt_array(part, "logprobs", pat); lp && !lp->empty()) add_logprobs(choice, *lp);
                } else if (part_type == "refusal") {
                    const std::string_view text = req_string(part, "refusal", pat);
                    bytes.add(text.size());
                    if (!choice.message.refusal) choice.message.refusal.emplace();
                    *choice.message.refusal += text;
                }
            }
        } else if (type == "function_call") {
            if (choice.message.tool_calls.size() >= limits.max_tool_calls)
                fail_with(iat, "expected at most max_tool_calls (" + std::to_string(limits.max_tool_calls) +
                                   ") function calls, found more");
            tool_call call;
            call.id = std::string(req_string(item, "call_id", iat));
            call.function.name = std::string(req_string(item, "name", iat));
            call.function.arguments = std::string(req_string(item, "arguments", iat));
            bytes.add(call.id.size() + call.function.name.size() + call.function.arguments.size());
            choice.message.tool_calls.push_back(std::move(call));
        } else if (type == "reasoning") {
            choice.message.reasoning.push_back(read_reasoning(item, iat, bytes));
        }
    }
}

/// The finish reason of a Response's status: completed -> stop (tool_calls with function calls),
/// incomplete -> its incomplete_details.reason (max_output_tokens -> length, content_filter ->
/// content_filter, others -> other); finish_text is the reason or the status.
inline void read_finish(const boost::json::object& o, const json_path& at, reply_choice& choice) {
    const auto status = opt_string(o, "status", at);
    if (!status) return;
    if (*status == "completed") {
        choice.finish = choice.message.tool_calls.empty() ? finish_reason::stop : finish_reason::tool_calls;
        choice.finish_text = std::string(*status);
    } else if (*status == "incomplete") {
        std::string_view reason = *status;
        if (const auto* details = opt_object(o, "incomplete_details", at))
            if (const auto r = opt_string(*details, "reason", at.member("incomplete_details"))) reason = *r;
        choice.finish = reason == "max_output_tokens" ? finish_reason::length
                        : reason == "content_filter"  ? finish_reason::content_filter
                                                      : finish_reason::other;
        choice.finish_text = cut(reason, 256);
    } else {
        choice.finish = finish_reason::other;
        choice.finish_text = cut(*status, 256);
    }
}

/// Reads a usage object: input_tokens, output_tokens and total_tokens as the three counts, the
/// whole object as `details` (input_tokens_details.cached_tokens and
/// output_tokens_details.reasoning_tokens are read from there by token_usage).
inline token_usage read_usage(const boost::json::object& u, const json_path& at) {
    token_usage out;
    out.prompt_tokens = token_count(u, "input_tokens", at);
    out.completion_tokens = token_count(u, "output_tokens", at);
    out.total_tokens = token_count(u, "total_tokens", at);
    out.details = u;
    return out;
}

/// The error of a Response whose status is "failed": its `error` (code and message) as
/// errc::api_error.
inline call_error failed_response(const boost::json::object& o, int status, const http_headers& headers) {
    call_error e;
    e.code = make_error_code(errc::api_error);
    e.status = status;
    e.headers = headers;
    if (const auto* err = member(o, "error"); err && err->is_object()) {
        e.api_code = error_text(err->get_object().if_contains("code"), 256);
        e.message = error_text(err->get_object().if_contains("message"), max_error_text);
    }
    if (e.message.empty()) e.message = "the response failed";
    return e;
}

/// Reads a Response object into a chat_reply (one choice); a failed response gives its error.
inline boost::system::result<chat_reply, call_error> read_response(const boost::json::object& o, const json_path& root,
                                                                   int status, const reply_limits& limits) {
    if (const auto object = opt_string(o, "object", root); object && *object != "response")
        fail_at(root.member("object"), "\"response\"", boost::json::value(*object));
    if (const auto s = opt_string(o, "status", root); s && *s == "failed") return failed_response(o, status, {});
    chat_reply r;
    r.id = cut(opt_string(o, "id", root).value_or(""), limits.max_assembled_bytes);
    r.model = cut(opt_string(o, "model", root).value_or(""), limits.max_assembled_bytes);
    r.created = opt_integer(o, "created_at", root).value_or(0);
    reply_choice choice;
    choice.message.role = role::assistant;
    choice.logprobs = nullptr;
    read_output(req_array(o, "output", root), root.member("output"), choice, limits);
    read_finish(o, root, choice);
    if (const auto* u = opt_object(o, "usage", root)) r.usage = read_usage(*u, root.member("usage"));
    r.choices.push_back(std::move(choice));
    return r;
}

}  // namespace detail

/// The error of a failed call: as openai::decode_error (the Responses API writes errors as the
/// chat completions API does).
inline call_error decode_error(int status, http_headers headers, std::string_view body, const reply_limits& limits = {}) {
    return parley::detail::wire::decode_openai_error(status, std::move(headers), body, limits);
}

/// Decodes the body of a non-streamed Responses API reply (a Response object) into a chat_reply
/// with one choice: the text of the output messages' `output_text` parts concatenated as its
/// content (no content without text), `refusal` parts as its refusal, `function_call` items as
/// tool calls (`call_id` is the call's id), `reasoning` items as reasoning parts of kind item
/// (id, summary texts, reasoning text, encrypted_content), output_text `logprobs` as the
/// choice's `{"content": [...]}`; the status as the finish reason (completed -> stop, or
/// tool_calls when there are function calls; incomplete -> length for max_output_tokens,
/// content_filter, other; finish_text the word); `created_at` as created; the usage (input and
/// output tokens, their details). Items of built-in tools are skipped. A status outside
/// 200-299 gives decode_error's error, a response whose status is "failed" its `error` as
/// errc::api_error; a body that is not JSON or not of that shape, or exceeds `limits`, gives
/// errc::protocol naming the member.
inline boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers, std::string_view body,
                                                                  const reply_limits& limits = {}) {
    namespace dr = detail;
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        if (body.size() > limits.max_body_bytes)
            throw dr::wire_failure{"expected a reply body of at most max_body_bytes (" + std::to_string(limits.max_body_bytes) +
                                   " bytes), found " + std::to_string(body.size())};
        const boost::json::value v = dr::parse_bounded(body, limits.max_json_depth, "a Response object");
        const dr::json_path root{nullptr, "response", 0};
        const auto& o = dr::as_object(v, root);
        if (!o.contains("object") && dr::member(o, "error")) return decode_error(status, std::move(headers), body, limits);
        auto reply = dr::read_response(o, root, status, limits);
        if (!reply) {
            reply.error().headers = std::move(headers);
            return reply;
        }
        reply->status = status;
        reply->headers = std::move(headers);
        return reply;
    } catch (const dr::wire_failure& f) {
        return dr::protocol_failure(status, headers, f.message);
    }
}

}  // namespace parley::responses

#endif
