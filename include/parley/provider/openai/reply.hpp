// parley/provider/openai/reply.hpp: the reply side of the OpenAI chat-completions codec: a
// non-streamed reply (decode_reply), the reply written back as a chat.completion object
// (reply_to_json); with the error decoder, the stream decoder and embeddings, which it includes.
#ifndef PARLEY_PROVIDER_OPENAI_REPLY_HPP
#define PARLEY_PROVIDER_OPENAI_REPLY_HPP

#include <parley/chat/json.hpp>
#include <parley/provider/openai/common.hpp>
#include <parley/provider/openai/embeddings.hpp>
#include <parley/provider/openai/reply_sax.hpp>
#include <parley/provider/openai/stream.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace parley::openai {

namespace detail {

inline function_call read_function(const boost::json::object& o, const json_path& at) {
    function_call f;
    f.name = std::string(opt_string(o, "name", at).value_or(""));
    f.arguments = std::string(opt_string(o, "arguments", at).value_or(""));
    return f;
}

// One choice of a chat.completion object.
inline reply_choice read_reply_choice(const boost::json::value& cv, std::size_t position, const json_path& at,
                                      const reply_limits& limits) {
    const auto* c = cv.if_object();
    if (!c) fail_at(at, "an object", cv);
    reply_choice choice;
    choice.index = position;
    if (const auto* iv = member(*c, "index")) {
        const auto index = to_count(*iv, at.member("index"));
        if (index >= limits.max_choices)
            throw wire_failure{at.member("index").str() + ": expected a choice index below max_choices (" +
                               std::to_string(limits.max_choices) + "), found " + std::to_string(index)};
        choice.index = static_cast<std::size_t>(index);
    }
    const auto* mv = c->if_contains("message");
    if (!mv || !mv->is_object()) fail_at(at.member("message"), "an object", mv ? found(*mv) : "nothing");
    const auto& m = mv->get_object();
    const auto mat = at.member("message");
    choice.message.role = role::assistant;
    if (const auto r = opt_string(m, "role", mat); r && *r != "assistant")
        fail_at(mat.member("role"), "\"assistant\"", boost::json::value(*r));
    if (const auto text = opt_string(m, "content", mat)) choice.message.content = std::string(*text);
    if (const auto refusal = opt_string(m, "refusal", mat)) choice.message.refusal = std::string(*refusal);
    // DeepSeek, vLLM and llama.cpp write `reasoning_content`; OpenRouter and newer vLLM `reasoning`
    std::optional<std::string_view> reasoning = opt_string(m, "reasoning_content", mat);
    if (!reasoning)
        if (const auto* r = member(m, "reasoning"); r && r->is_string()) reasoning = std::string_view(r->get_string());
    if (reasoning && !reasoning->empty()) choice.message.reasoning.push_back({reasoning_part::kind::text, std::string(*reasoning), {}, {}, {}, {}});
    if (const auto* fc = opt_object(m, "function_call", mat)) choice.message.function_call = read_function(*fc, mat.member("function_call"));
    if (const auto* calls = opt_array(m, "tool_calls", mat)) {
        if (calls->size() > limits.max_tool_calls)
            throw wire_failure{mat.member("tool_calls").str() + ": expected at most max_tool_calls (" +
                               std::to_string(limits.max_tool_calls) + ") tool calls, found " + std::to_string(calls->size())};
        const auto tat = mat.member("tool_calls");
        for (std::size_t i = 0; i < calls->size(); ++i) {
            const auto cat = tat.element(i);
            const auto* t = (*calls)[i].if_object();
            if (!t) fail_at(cat, "an object", (*calls)[i]);
            if (const auto type = opt_string(*t, "type", cat); type && *type != "function")
                fail_at(cat.member("type"), "\"function\"", boost::json::value(*type));
            tool_call call;
            call.id = std::string(opt_string(*t, "id", cat).value_or(""));
            const auto* fn = t->if_contains("function");
            if (!fn || !fn->is_object()) fail_at(cat.member("function"), "an object", fn ? found(*fn) : "nothing");
            call.function = read_function(fn->get_object(), cat.member("function"));
            choice.message.tool_calls.push_back(std::move(call));
        }
    }
    if (const auto* lp = member(*c, "logprobs")) {
        if (!lp->is_object()) fail_at(at.member("logprobs"), "an object or null", *lp);
        choice.logprobs = *lp;
    }
    if (const auto finish = opt_string(*c, "finish_reason", at)) {
        choice.finish = finish_from_word(*finish);
        choice.finish_text = std::string(*finish);
    }
    return choice;
}

/// decode_reply through a DOM of the whole body: what decode_reply does for any body its fast
/// path (decode_reply_sax) does not take, with the messages of every error.
inline boost::system::result<chat_reply, call_error> decode_reply_dom(int status, http_headers headers, std::string_view body,
                                                                      const reply_limits& limits = {}) {
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        detail::json_scratch scratch;  // every member read below is copied out of the DOM
        const boost::json::value v = detail::parse_bounded(body, limits.max_json_depth, "a chat.completion object", scratch.storage());
        const detail::json_path root{nullptr, "chat.completion", 0};
        const auto* o = v.if_object();
        if (!o) detail::fail_at(root, "an object", v);
        if (detail::member(*o, "error")) return decode_error(status, std::move(headers), body, limits);
        chat_reply r;
        r.status = status;
        r.id = std::string(detail::opt_string(*o, "id", root).value_or(""));
        r.model = std::string(detail::opt_string(*o, "model", root).value_or(""));
        r.system_fingerprint = std::string(detail::opt_string(*o, "system_fingerprint", root).value_or(""));
        r.created = detail::opt_integer(*o, "created", root).value_or(0);
        const auto* cv = o->if_contains("choices");
        if (!cv || !cv->is_array()) detail::fail_at(root.member("choices"), "an array", cv ? detail::found(*cv) : "nothing");
        const auto& choices = cv->get_array();
        if (choices.size() > limits.max_choices)
            throw detail::wire_failure{"chat.completion: choices: expected at most max_choices (" +
                                       std::to_string(limits.max_choices) + "), found " + std::to_string(choices.size())};
        const auto cat = root.member("choices");
        r.choices.reserve(choices.size());
        for (std::size_t i = 0; i < choices.size(); ++i)
            r.choices.push_back(detail::read_reply_choice(choices[i], i, cat.element(i), limits));
        const auto by_index = [](const reply_choice& a, const reply_choice& b) { return a.index < b.index; };
        if (!std::is_sorted(r.choices.begin(), r.choices.end(), by_index))  // stable_sort allocates
            std::stable_sort(r.choices.begin(), r.choices.end(), by_index);
        for (std::size_t i = 1; i < r.choices.size(); ++i)
            if (r.choices[i].index == r.choices[i - 1].index)
                throw detail::wire_failure{"chat.completion: choices: expected each index once, found index " +
                                           std::to_string(r.choices[i].index) + " twice"};
        if (const auto* u = detail::opt_object(*o, "usage", root)) r.usage = detail::read_usage(*u, root.member("usage"));
        r.headers = std::move(headers);
        return r;
    } catch (const detail::wire_failure& f) {
        return detail::protocol_failure(status, headers, f.message);
    }
}

}  // namespace detail

/// Decodes the body of a non-streamed chat-completions reply (a chat.completion object) into a
/// chat_reply with this status and these header fields. Content, refusal, reasoning (the
/// `reasoning_content` of DeepSeek, vLLM and llama.cpp, or the `reasoning` text of OpenRouter
/// and newer servers: one reasoning part of kind text), tool calls, a legacy function call, log
/// probabilities, finish reasons and usage are kept as the API wrote them (`"content": null` is
/// std::monostate, `""` an empty string); members parley has no place for
/// (`annotations`, `audio`, `service_tier`) are skipped. Choices are ordered by index.
/// A status outside 200-299, or a body `{"error": ...}`, gives decode_error's error; a body that
/// is not JSON, too deep, or not of that shape (a member of the wrong kind, no `choices`, a
/// repeated choice index, too many choices or tool calls) gives errc::protocol naming the member.
///
/// A well-formed reply is read in one pass without building a JSON tree (`usage` and `logprobs`
/// are built as values); any other body, and any body that gives a member parley reads twice, is
/// decoded again through a tree, which gives the same result or the error that names the member.
inline boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers, std::string_view body,
                                                                  const reply_limits& limits = {}) {
    // The reply is decoded in the place it is returned from (one object, returned on every path).
    boost::system::result<chat_reply, call_error> out;
    if (status >= 200 && status <= 299 && detail::decode_reply_sax(body, limits, *out)) {
        out->status = status;
        out->headers = std::move(headers);
        return out;
    }
    out = detail::decode_reply_dom(status, std::move(headers), body, limits);
    return out;
}

/// The reply as OpenAI writes a chat.completion object: `id`, `object`, `created`, `model`,
/// `system_fingerprint` (when not empty), `choices` (each with `index`, `message` {`role`,
/// `content`, `refusal`, and `tool_calls` or `function_call` when there are any}, `logprobs`,
/// `finish_reason`) and `usage` (when known: `details` with the three counts). The finish
/// reason is OpenAI's word ("stop" for an Anthropic `end_turn`), the provider's own word for
/// finish_reason::other, null for none. Used by `parley chat --json` and to compare with the
/// official SDK.
inline boost::json::object reply_to_json(const chat_reply& r) {
    boost::json::object o;
    o["id"] = r.id;
    o["object"] = "chat.completion";
    o["created"] = r.created;
    o["model"] = r.model;
    if (!r.system_fingerprint.empty()) o["system_fingerprint"] = r.system_fingerprint;
    boost::json::array choices;
    for (const auto& c : r.choices) {
        boost::json::object m;
        m["role"] = role_name(c.message.role);
        if (const auto* s = std::get_if<std::string>(&c.message.content)) m["content"] = *s;
        else if (c.message.has_parts()) m["content"] = message_to_json(c.message).at("content");
        else m["content"] = nullptr;
        if (c.message.refusal) m["refusal"] = *c.message.refusal;
        else m["refusal"] = nullptr;
        if (!c.message.reasoning.empty()) m["reasoning_content"] = c.message.reasoning_text();
        if (c.message.function_call)
            m["function_call"] = {{"name", c.message.function_call->name}, {"arguments", c.message.function_call->arguments}};
        if (!c.message.tool_calls.empty()) {
            boost::json::array calls;
            for (const auto& t : c.message.tool_calls)
                calls.push_back(boost::json::object{
                    {"id", t.id},
                    {"type", "function"},
                    {"function", {{"name", t.function.name}, {"arguments", t.function.arguments}}}});
            m["tool_calls"] = std::move(calls);
        }
        boost::json::object choice;
        choice["index"] = c.index;
        choice["message"] = std::move(m);
        choice["logprobs"] = c.logprobs;
        if (c.finish != finish_reason::none && c.finish != finish_reason::other)
            choice["finish_reason"] = finish_reason_name(c.finish);
        else if (!c.finish_text.empty()) choice["finish_reason"] = c.finish_text;
        else choice["finish_reason"] = c.finish == finish_reason::other ? boost::json::value("other") : boost::json::value(nullptr);
        choices.emplace_back(std::move(choice));
    }
    o["choices"] = std::move(choices);
    if (r.usage) o["usage"] = detail::usage_to_json(*r.usage);
    return o;
}

}  // namespace parley::openai

#endif
