// parley/provider/ollama/reply.hpp: a reply of Ollama's chat endpoint decoded into a chat_reply.
// A streamed reply is a series of objects of the same shape, one per line, the last with
// `"done": true`: both are read by one assembler, so that a stream assembles exactly the reply
// decode_reply gives for the same content.
#ifndef PARLEY_PROVIDER_OLLAMA_REPLY_HPP
#define PARLEY_PROVIDER_OLLAMA_REPLY_HPP

#include <parley/chat/message.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/ollama/common.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::ollama {

namespace detail {

/// Builds a chat_reply of one choice from ChatResponse objects (one for a whole reply, one per
/// line for a stream), appending stream events as it goes. Throws wire_failure for malformed
/// data or a limit exceeded.
class reply_assembler {
public:
    explicit reply_assembler(const reply_limits& limits) : limits_(limits), bytes_(limits.max_assembled_bytes) {
        reply_choice c;
        c.message.role = role::assistant;
        reply_.choices.push_back(std::move(c));
    }

    chat_reply& reply() noexcept { return reply_; }
    const chat_reply& reply() const noexcept { return reply_; }
    /// True once an object with `"done": true` was read.
    bool finished() const noexcept { return finished_; }

    /// Reads one ChatResponse object.
    void apply(const boost::json::object& o, const json_path& at, std::vector<stream_event>* out) {
        if (finished_) fail_with(at, "expected nothing after the line with \"done\": true, found more");
        if (const auto model = opt_string(o, "model", at); model && reply_.model.empty())
            reply_.model = cut(*model, limits_.max_assembled_bytes);
        const auto created_at = opt_string(o, "created_at", at);
        if (created_at && reply_.created == 0) reply_.created = unix_time(*created_at);
        reply_choice& choice = reply_.choices.front();
        message& m = choice.message;
        if (const auto* msg = opt_object(o, "message", at)) {
            const auto mat = at.member("message");
            if (const auto r = opt_string(*msg, "role", mat); r && *r != "assistant")
                fail_at(mat.member("role"), "\"assistant\"", boost::json::value(*r));
            if (const auto thinking = opt_string(*msg, "thinking", mat); thinking && !thinking->empty()) {
                bytes_.add(thinking->size());
                if (m.reasoning.empty()) m.reasoning.push_back(reasoning_part{});  // kind text
                m.reasoning.back().text += *thinking;
                if (out) out->push_back(make_event(stream_event::kind::reasoning, std::string(*thinking)));
            }
            if (const auto text = opt_string(*msg, "content", mat); text && !text->empty()) {
                bytes_.add(text->size());
                if (!m.has_text()) m.content = std::string();
                std::get<std::string>(m.content) += *text;
                if (out) out->push_back(make_event(stream_event::kind::text, std::string(*text)));
            }
            if (const auto* calls = opt_array(*msg, "tool_calls", mat)) {
                const auto cat = mat.member("tool_calls");
                for (std::size_t k = 0; k < calls->size(); ++k)
                    call(as_object((*calls)[k], cat.element(k)), cat.element(k), created_at.value_or(""), m, out);
            }
            // images in a reply (image generation models) are not part of a chat reply: skipped
        }
        if (const auto* lp = opt_array(o, "logprobs", at)) {
            std::size_t size = 0;
            for (const auto& x : *lp) size += boost::json::serialize(x).size();
            bytes_.add(size);
            if (!choice.logprobs.is_array()) choice.logprobs = boost::json::array();
            for (const auto& x : *lp) choice.logprobs.get_array().push_back(x);
        }
        const auto* done = member(o, "done");
        if (done && !done->is_bool()) fail_at(at.member("done"), "a boolean", *done);
        if (!done || !done->get_bool()) return;
        finished_ = true;
        choice.finish_text = cut(opt_string(o, "done_reason", at).value_or(""), 256);
        choice.finish = finish_of(choice.finish_text, !m.tool_calls.empty());
        reply_.usage = read_usage(o, at);
        if (out) {
            stream_event f = make_event(stream_event::kind::finish, {});
            f.finish = choice.finish;
            f.finish_text = choice.finish_text;
            out->push_back(std::move(f));
            out->push_back(make_event(stream_event::kind::usage, {}));
            out->push_back(make_event(stream_event::kind::done, {}));
        }
    }

private:
    static stream_event make_event(stream_event::kind k, std::string text) {
        stream_event e;
        e.type = k;
        e.text = std::move(text);
        return e;
    }

    void call(const boost::json::object& c, const json_path& at, std::string_view created_at, message& m,
              std::vector<stream_event>* out) {
        if (m.tool_calls.size() >= limits_.max_tool_calls)
            fail_with(at, "expected at most max_tool_calls (" + std::to_string(limits_.max_tool_calls) + ") tool calls, found more");
        const auto& f = req_object(c, "function", at);
        const auto fat = at.member("function");
        tool_call t;
        t.function.name = std::string(req_string(f, "name", fat));
        if (const auto* args = member(f, "arguments")) {
            if (!args->is_object()) fail_at(fat.member("arguments"), "an object", *args);
            t.function.arguments = boost::json::serialize(args->get_object());
        } else {
            t.function.arguments = "{}";
        }
        const auto id = opt_string(c, "id", at);
        t.id = id && !id->empty() ? std::string(*id)
                                  : generated_call_id(created_at, m.tool_calls.size(), t.function.name, t.function.arguments);
        bytes_.add(t.id.size() + t.function.name.size() + t.function.arguments.size());
        if (out) {
            stream_event e = make_event(stream_event::kind::tool_call, t.function.arguments);
            e.tool_index = m.tool_calls.size();
            e.id = t.id;
            e.name = t.function.name;
            out->push_back(std::move(e));
        }
        m.tool_calls.push_back(std::move(t));
    }

    reply_limits limits_;
    byte_budget bytes_;
    chat_reply reply_;
    bool finished_ = false;
};

}  // namespace detail

/// A reply to a non-streamed request (`"stream": false`). A status outside 200-299 gives
/// decode_error's call_error; so does an error body (`{"error": "..."}`) sent with a 2xx
/// status. Otherwise the body must be a ChatResponse with `"done": true`, which becomes the one
/// choice:
/// - `message.content` is the content (no content when it is empty); `message.thinking` is a
///   reasoning part of kind text;
/// - `message.tool_calls` become tool calls: the call's `id`, or one made up when the server
///   sent none (`ollama-call-{k}-{hash}`: stable for the same call of the same reply, never sent
///   back), the function's name, and `arguments` (a JSON object) serialised ("{}" without);
/// - `done_reason`: "stop" -> stop (tool_calls when the reply calls tools), "length" ->
///   length, others ("load", "unload") -> other; `finish_text` keeps the word;
/// - `logprobs` (an array of tokens) is kept as the choice's logprobs.
/// `model` is the reply's model, `created_at` its creation time (Unix seconds; 0 when it does
/// not parse); the reply has no id. The usage: prompt tokens = prompt_eval_count, completion
/// tokens = eval_count, total = their sum, details = the counts and durations as received. A
/// body that is not JSON, breaks this shape, is not done or exceeds `limits` gives
/// errc::protocol with what was expected and where, and what was found.
inline boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers, std::string_view body,
                                                                  const reply_limits& limits = {}) {
    namespace dl = detail;
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        if (body.size() > limits.max_body_bytes)
            throw dl::wire_failure{"expected a reply body of at most max_body_bytes (" +
                                   std::to_string(limits.max_body_bytes) + " bytes), found " + std::to_string(body.size())};
        const boost::json::value v = dl::parse_bounded(body, limits.max_json_depth, "a ChatResponse");
        {
            call_error api;
            if (dl::read_error(v, api)) {
                api.status = status;
                api.headers = std::move(headers);
                return api;
            }
        }
        const dl::json_path root{nullptr, "ChatResponse", 0};
        const auto& o = dl::as_object(v, root);
        static_cast<void>(dl::req_object(o, "message", root));
        dl::reply_assembler a(limits);
        a.apply(o, root, nullptr);
        if (!a.finished()) dl::fail_at(root.member("done"), "true (a whole reply)", dl::found(dl::member(o, "done")));
        chat_reply reply = std::move(a.reply());
        reply.status = status;
        reply.headers = std::move(headers);
        return reply;
    } catch (const dl::wire_failure& f) {
        return dl::protocol_failure(status, headers, f.message);
    }
}

}  // namespace parley::ollama

#endif
