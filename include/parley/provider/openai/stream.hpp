// parley/provider/openai/stream.hpp: a streamed chat completion, decoded one server-sent event
// at a time into stream_events and assembled into the chat_reply the official OpenAI SDK builds.
#ifndef PARLEY_PROVIDER_OPENAI_STREAM_HPP
#define PARLEY_PROVIDER_OPENAI_STREAM_HPP

#include <parley/provider/detail/utf16.hpp>
#include <parley/provider/openai/common.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace parley::openai {

/// Decodes one streamed chat completion: feed it the `data` of each server-sent event in order
/// (chat.completion.chunk JSON texts, then `[DONE]`); it yields stream_events and assembles the
/// reply as the official `openai` SDK's `finalChatCompletion()` does:
/// - content and refusal deltas are concatenated per choice; a choice's content stays null
///   (std::monostate) until a non-empty content delta comes, so a stream whose deltas are all
///   `""` or null gives null content, as the SDK's final completion has; likewise the refusal;
/// - reasoning deltas (`reasoning_content` from DeepSeek, vLLM and llama.cpp, or a `reasoning`
///   text) are concatenated into the choice's one reasoning part of kind text, and each gives a
///   `reasoning` event;
/// - a text split in the middle of a UTF-16 surrogate pair (`"\ud83d"` ending one chunk's
///   string, `"\ude00"` beginning the next one's) is joined as the SDK's string concatenation
///   joins it; the event of the first half waits for the second (a surrogate left alone at the
///   end becomes U+FFFD);
/// - tool calls are merged by their `index` within a choice: `id`, `type` and a non-empty
///   `function.name` replace what an earlier delta gave (the SDK keeps the last name, it does not
///   concatenate names), `function.arguments` are concatenated; a delta without `index` continues
///   the last call unless it brings a new `id`; the legacy `function_call` the same way;
/// - choices are kept by their `index` (interleaved with `n` > 1), each with its own finish
///   reason (the last non-empty one) and log probabilities (the first `logprobs` object, then
///   the `content` and `refusal` arrays of later ones appended; other members replaced);
/// - `id`, `model`, `created` and `system_fingerprint` come from the first chunk and from every
///   later chunk that has an `id`; `usage` from any chunk that has a non-null one (the final
///   chunk with `choices: []` when `stream_options.include_usage` was asked for).
///
/// Where the SDK would give up (no role, no finish reason, no chunk before `[DONE]`), the
/// decoder keeps what came: the role is always assistant, the finish reason stays none. One
/// difference on purpose: the SDK appends the `logprobs` arrays of a choice's first chunk twice;
/// here every token is appended once.
///
/// Bounded by reply_limits: choices, tool calls per choice, assembled bytes, JSON depth.
class stream_decoder {
public:
    /// A decoder for a reply that came with these header fields and this HTTP status (copied
    /// into the assembled reply and into errors).
    explicit stream_decoder(http_headers headers = {}, int status = 200, const reply_limits& limits = {})
        : limits_(limits) {
        reply_.headers = std::move(headers);
        reply_.status = status;
    }

    /// Decodes one event's data and appends the events it yields to `out`: text, refusal,
    /// tool_call and function_call deltas (empty ones are skipped; `choice` and `tool_index` are
    /// the indexes the server gave, `id` and `name` are set on the events whose delta has them),
    /// finish, usage and, for `[DONE]`, done. Data that is empty or only white space yields nothing. Returns a
    /// call_error for an error object in the stream (`{"error": {...}}`, errc::api_error), or
    /// for malformed JSON, a chunk of the wrong shape, a limit exceeded or data after `[DONE]`
    /// (errc::protocol, the message says what was expected and what was found). After an error
    /// the decoder is failed: `out` keeps none of the failing event's events, and every later
    /// call returns the same error.
    std::optional<call_error> feed(std::string_view data, std::vector<stream_event>& out) {
        if (error_) return error_;
        const std::size_t first_new = out.size();
        try {
            feed_checked(data, out);
        } catch (const detail::wire_failure& f) {
            error_ = detail::protocol_failure(reply_.status, reply_.headers, f.message);
        }
        if (error_) out.resize(first_new);
        return error_;
    }

    /// True once `[DONE]` was fed.
    bool done() const noexcept { return done_; }
    /// True after feed returned an error.
    bool failed() const noexcept { return error_.has_value(); }
    /// The reply assembled so far (complete once done()).
    const chat_reply& reply() const noexcept { return reply_; }
    /// Moves the assembled reply out; the decoder then holds an empty reply.
    chat_reply take_reply() { return std::exchange(reply_, chat_reply{}); }

private:
    struct tool_slot {
        std::size_t wire_index;
    };

    void feed_checked(std::string_view data, std::vector<stream_event>& out) {
        const auto first = data.find_first_not_of(" \t\r\n");
        if (first == std::string_view::npos) return;
        data.remove_prefix(first);
        current_size_ = data.size();
        if (done_)
            throw detail::wire_failure{"expected nothing after [DONE], found \"" + detail::excerpt(data, 60) + "\""};
        if (data.substr(0, 6) == "[DONE]") {
            done_ = true;
            if (repaired_) seal_reply();
            stream_event ev;
            ev.type = stream_event::kind::done;
            out.push_back(std::move(ev));
            return;
        }
        detail::json_scratch scratch;  // every member read below is copied out of the DOM
        const boost::json::value v =
            detail::parse_event(data, limits_.max_json_depth, "a chat.completion.chunk", scratch.storage(), repaired_);
        const detail::json_path root{nullptr, "chat.completion.chunk", 0};
        const auto* chunk = v.if_object();
        if (!chunk) detail::fail_at(root, "an object", v);
        if (const auto* err = detail::member(*chunk, "error")) {
            call_error e;
            e.status = reply_.status;
            e.headers = reply_.headers;
            if (!detail::read_error_member(*err, e)) detail::fail_at(root.member("error"), "an error object", *err);
            error_ = std::move(e);
            return;
        }
        read_top(*chunk, root);
        const auto* choices_v = chunk->if_contains("choices");
        if (!choices_v || !choices_v->is_array())
            detail::fail_at(root.member("choices"), "an array", choices_v ? detail::found(*choices_v) : "nothing");
        const auto& choices = choices_v->get_array();
        const auto choices_at = root.member("choices");
        for (std::size_t i = 0; i < choices.size(); ++i) read_choice(choices[i], i, choices_at.element(i), out);
        if (const auto* u = detail::opt_object(*chunk, "usage", root)) {
            reply_.usage = detail::read_usage(*u, root.member("usage"));
            stream_event ev;
            ev.type = stream_event::kind::usage;
            out.push_back(std::move(ev));
        }
        started_ = true;
    }

    void read_top(const boost::json::object& chunk, const detail::json_path& root) {
        const auto id = detail::opt_string(chunk, "id", root);
        if (started_ && (!id || id->empty())) return;
        if (id) reply_.id = std::string(*id);
        if (const auto model = detail::opt_string(chunk, "model", root)) reply_.model = std::string(*model);
        if (const auto created = detail::opt_integer(chunk, "created", root)) reply_.created = *created;
        if (chunk.contains("system_fingerprint"))
            reply_.system_fingerprint = std::string(detail::opt_string(chunk, "system_fingerprint", root).value_or(""));
    }

    void grow(std::size_t bytes) {
        assembled_ += bytes;
        if (assembled_ > limits_.max_assembled_bytes)
            throw detail::wire_failure{"expected a streamed reply of at most max_assembled_bytes (" +
                                       std::to_string(limits_.max_assembled_bytes) + " bytes), found more"};
    }

    // The choice with wire index `index`, created in index order when new.
    std::size_t choice_slot(std::size_t index, const detail::json_path& at) {
        if (index >= limits_.max_choices)
            throw detail::wire_failure{at.str() + ": expected a choice index below max_choices (" +
                                       std::to_string(limits_.max_choices) + "), found " + std::to_string(index)};
        auto& cs = reply_.choices;
        auto it = std::lower_bound(cs.begin(), cs.end(), index,
                                   [](const reply_choice& c, std::size_t i) { return c.index < i; });
        const auto pos = static_cast<std::size_t>(it - cs.begin());
        if (it != cs.end() && it->index == index) return pos;
        reply_choice c;
        c.index = index;
        c.message.role = role::assistant;
        c.logprobs = nullptr;
        cs.insert(it, std::move(c));
        tools_.insert(tools_.begin() + static_cast<std::ptrdiff_t>(pos), std::vector<tool_slot>{});
        return pos;
    }

    void read_choice(const boost::json::value& cv, std::size_t position, const detail::json_path& at,
                     std::vector<stream_event>& out) {
        const auto* c = cv.if_object();
        if (!c) detail::fail_at(at, "an object", cv);
        std::size_t index = position;
        if (const auto* iv = detail::member(*c, "index")) index = static_cast<std::size_t>(detail::to_count(*iv, at.member("index")));
        const std::size_t pos = choice_slot(index, at.member("index"));
        if (const auto* lp = detail::member(*c, "logprobs")) merge_logprobs(pos, *lp, at.member("logprobs"));
        if (const auto* delta = detail::opt_object(*c, "delta", at)) read_delta(pos, *delta, at.member("delta"), out);
        if (const auto finish = detail::opt_string(*c, "finish_reason", at); finish && !finish->empty()) {
            auto& choice = reply_.choices[pos];
            choice.finish = detail::finish_from_word(*finish);
            choice.finish_text = std::string(*finish);
            stream_event ev;
            ev.type = stream_event::kind::finish;
            ev.choice = index;
            ev.finish = choice.finish;
            ev.finish_text = choice.finish_text;
            out.push_back(std::move(ev));
        }
    }

    void merge_logprobs(std::size_t pos, const boost::json::value& lp, const detail::json_path& at) {
        if (!lp.is_object()) detail::fail_at(at, "an object or null", lp);
        const auto& delta = lp.get_object();
        for (std::string_view key : {"content", "refusal"})
            if (const auto* a = detail::member(delta, key); a && !a->is_array())
                detail::fail_at(at.member(key), "an array or null", *a);
        grow(current_size_);
        auto& mine = reply_.choices[pos].logprobs;
        if (!mine.is_object()) {
            mine = delta;
            return;
        }
        auto& target = mine.get_object();
        for (const auto& kv : delta) {
            if (kv.key() == "content" || kv.key() == "refusal") {
                if (!kv.value().is_array()) continue;
                auto& slot = target[kv.key()];
                if (!slot.is_array()) slot = boost::json::array{};
                auto& arr = slot.get_array();
                for (const auto& item : kv.value().get_array()) arr.push_back(item);
            } else {
                target[kv.key()] = kv.value();
            }
        }
    }

    void read_delta(std::size_t pos, const boost::json::object& d, const detail::json_path& at,
                    std::vector<stream_event>& out) {
        auto& choice = reply_.choices[pos];
        if (const auto r = detail::opt_string(d, "role", at); r && *r != "assistant")
            detail::fail_at(at.member("role"), "\"assistant\"", boost::json::value(*r));
        // reasoning first: servers send it before the content
        std::optional<std::string_view> reasoning = detail::opt_string(d, "reasoning_content", at);
        if (!reasoning)
            if (const auto* r = detail::member(d, "reasoning"); r && r->is_string()) reasoning = std::string_view(r->get_string());
        if (reasoning && !reasoning->empty()) {
            grow(reasoning->size());
            auto& parts = choice.message.reasoning;
            if (parts.empty()) parts.emplace_back();
            emit(out, stream_event::kind::reasoning, choice.index, detail::append_piece(parts.front().text, *reasoning));
        }
        if (const auto text = detail::opt_string(d, "content", at); text && !text->empty()) {
            grow(text->size());
            auto* s = std::get_if<std::string>(&choice.message.content);
            if (!s) s = &choice.message.content.emplace<std::string>();
            emit(out, stream_event::kind::text, choice.index, detail::append_piece(*s, *text));
        }
        if (const auto text = detail::opt_string(d, "refusal", at); text && !text->empty()) {
            grow(text->size());
            if (!choice.message.refusal) choice.message.refusal.emplace();
            emit(out, stream_event::kind::refusal, choice.index, detail::append_piece(*choice.message.refusal, *text));
        }
        if (const auto* fc = detail::opt_object(d, "function_call", at)) {
            const auto fat = at.member("function_call");
            const auto name = detail::opt_string(*fc, "name", fat);
            const auto args = detail::opt_string(*fc, "arguments", fat);
            if (!choice.message.function_call) choice.message.function_call.emplace();
            auto& call = *choice.message.function_call;
            stream_event ev;
            ev.type = stream_event::kind::function_call;
            ev.choice = choice.index;
            if (name && !name->empty()) {
                grow(name->size());
                call.name = ev.name = std::string(*name);
            }
            if (args && !args->empty()) {
                grow(args->size());
                ev.text = detail::append_piece(call.arguments, *args);
            }
            if (!ev.name.empty() || !ev.text.empty()) out.push_back(std::move(ev));
        }
        if (const auto* calls = detail::opt_array(d, "tool_calls", at)) {
            const auto tat = at.member("tool_calls");
            for (std::size_t i = 0; i < calls->size(); ++i) read_tool_delta(pos, (*calls)[i], tat.element(i), out);
        }
    }

    void read_tool_delta(std::size_t pos, const boost::json::value& tv, const detail::json_path& at,
                         std::vector<stream_event>& out) {
        const auto* t = tv.if_object();
        if (!t) detail::fail_at(at, "an object", tv);
        const auto id = detail::opt_string(*t, "id", at);
        if (const auto type = detail::opt_string(*t, "type", at); type && *type != "function")
            detail::fail_at(at.member("type"), "\"function\"", boost::json::value(*type));
        const auto* fn = detail::opt_object(*t, "function", at);
        std::optional<std::string_view> name, args;
        if (fn) {
            name = detail::opt_string(*fn, "name", at.member("function"));
            args = detail::opt_string(*fn, "arguments", at.member("function"));
        }
        auto& slots = tools_[pos];
        auto& calls = reply_.choices[pos].message.tool_calls;
        std::size_t wire;
        if (const auto* iv = detail::member(*t, "index")) {
            wire = static_cast<std::size_t>(detail::to_count(*iv, at.member("index")));
        } else if (slots.empty()) {
            wire = 0;
        } else {
            wire = slots.back().wire_index;
            if (id && !id->empty() && *id != calls.back().id) ++wire;
        }
        if (wire >= limits_.max_tool_calls)
            throw detail::wire_failure{at.member("index").str() + ": expected a tool call index below max_tool_calls (" +
                                       std::to_string(limits_.max_tool_calls) + "), found " + std::to_string(wire)};
        auto it = std::lower_bound(slots.begin(), slots.end(), wire,
                                   [](const tool_slot& s, std::size_t w) { return s.wire_index < w; });
        const auto k = static_cast<std::ptrdiff_t>(it - slots.begin());
        if (it == slots.end() || it->wire_index != wire) {
            slots.insert(it, tool_slot{wire});
            calls.insert(calls.begin() + k, tool_call{});
        }
        auto& call = calls[static_cast<std::size_t>(k)];
        stream_event ev;
        ev.type = stream_event::kind::tool_call;
        ev.choice = reply_.choices[pos].index;
        ev.tool_index = wire;
        if (id && !id->empty()) {
            grow(id->size());
            call.id = ev.id = std::string(*id);
        }
        if (name && !name->empty()) {
            grow(name->size());
            call.function.name = ev.name = std::string(*name);
        }
        if (args && !args->empty()) {
            grow(args->size());
            ev.text = detail::append_piece(call.function.arguments, *args);
        }
        if (!ev.id.empty() || !ev.name.empty() || !ev.text.empty()) out.push_back(std::move(ev));
    }

    static void emit(std::vector<stream_event>& out, stream_event::kind k, std::size_t choice, std::string text) {
        if (text.empty()) return;  // half of a surrogate pair: its event comes with the other half
        stream_event ev;
        ev.type = k;
        ev.choice = choice;
        ev.text = std::move(text);
        out.push_back(std::move(ev));
    }

    // After a repaired event, what is left of lone surrogates in the assembled texts is U+FFFD.
    void seal_reply() {
        for (auto& c : reply_.choices) {
            if (auto* s = std::get_if<std::string>(&c.message.content)) detail::seal(*s);
            if (c.message.refusal) detail::seal(*c.message.refusal);
            for (auto& r : c.message.reasoning) detail::seal(r.text);
            for (auto& t : c.message.tool_calls) {
                detail::seal(t.id);
                detail::seal(t.function.name);
                detail::seal(t.function.arguments);
            }
            if (c.message.function_call) {
                detail::seal(c.message.function_call->name);
                detail::seal(c.message.function_call->arguments);
            }
        }
        detail::seal(reply_.id);
        detail::seal(reply_.model);
        detail::seal(reply_.system_fingerprint);
    }

    chat_reply reply_;
    std::vector<std::vector<tool_slot>> tools_;  // per choice (parallel to reply_.choices): wire indexes of its calls
    reply_limits limits_;
    std::size_t assembled_ = 0;
    std::size_t current_size_ = 0;  // size of the event being decoded, charged when it carries logprobs
    bool started_ = false;
    bool done_ = false;
    bool repaired_ = false;  // an event was read again with its lone surrogates repaired
    std::optional<call_error> error_;
};

}  // namespace parley::openai

#endif
