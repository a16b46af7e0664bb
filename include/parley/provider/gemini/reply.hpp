// parley/provider/gemini/reply.hpp: a Gemini API reply (a GenerateContentResponse) decoded into a
// chat_reply. A streamed reply is a series of GenerateContentResponse chunks: both are read by
// one assembler, so that a stream assembles exactly the reply decode_reply gives for the same
// content.
#ifndef PARLEY_PROVIDER_GEMINI_REPLY_HPP
#define PARLEY_PROVIDER_GEMINI_REPLY_HPP

#include <parley/chat/message.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/gemini/common.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::gemini {

namespace detail {

/// Builds a chat_reply from GenerateContentResponse objects (one for a whole reply, one per
/// chunk for a stream), appending stream events as it goes. Throws wire_failure for malformed
/// data or a limit exceeded.
class reply_assembler {
public:
    explicit reply_assembler(const reply_limits& limits) : limits_(limits), bytes_(limits.max_assembled_bytes) {}

    chat_reply& reply() noexcept { return reply_; }
    const chat_reply& reply() const noexcept { return reply_; }

    /// True when at least one candidate came and every candidate has its finish reason.
    bool finished() const noexcept {
        if (reply_.choices.empty()) return false;
        for (const auto& s : states_)
            if (!s.finished) return false;
        return true;
    }

    /// Reads one GenerateContentResponse. Returns the error of a prompt the API blocked.
    std::optional<call_error> apply(const boost::json::object& o, const json_path& at, std::vector<stream_event>* out) {
        if (auto blocked = blocked_prompt(o, at)) return blocked;
        if (const auto id = opt_string(o, "responseId", at); id && reply_.id.empty())
            reply_.id = cut(*id, limits_.max_assembled_bytes);
        if (const auto model = opt_string(o, "modelVersion", at); model && reply_.model.empty())
            reply_.model = cut(*model, limits_.max_assembled_bytes);
        if (const auto* candidates = opt_array(o, "candidates", at)) {
            const auto cat = at.member("candidates");
            if (candidates->size() > limits_.max_choices)
                fail_with(cat, "expected at most max_choices (" + std::to_string(limits_.max_choices) +
                                   ") candidates, found " + std::to_string(candidates->size()));
            for (std::size_t i = 0; i < candidates->size(); ++i)
                candidate(as_object((*candidates)[i], cat.element(i)), i, cat.element(i), out);
        }
        if (const auto* usage = opt_object(o, "usageMetadata", at)) {
            token_usage u = read_usage(*usage, at.member("usageMetadata"));
            if (!reply_.usage || !(*reply_.usage == u)) {
                reply_.usage = std::move(u);
                if (out) out->push_back(make_event(stream_event::kind::usage, 0));
            }
        }
        return std::nullopt;
    }

private:
    struct choice_state {
        std::size_t index = 0;  // the candidate's index
        std::size_t calls = 0;  // function calls read
        bool thought_open = false;  // the last reasoning part takes more thought text
        bool finished = false;
    };

    static stream_event make_event(stream_event::kind k, std::size_t choice) {
        stream_event e;
        e.type = k;
        e.choice = choice;
        return e;
    }

    // The choice of candidate `index` (made when it is new, kept ordered by index).
    std::size_t position_of(std::size_t index) {
        for (std::size_t k = 0; k < states_.size(); ++k)
            if (states_[k].index == index) return k;
        const auto it = std::lower_bound(states_.begin(), states_.end(), index,
                                         [](const choice_state& s, std::size_t i) { return s.index < i; });
        const auto k = static_cast<std::size_t>(it - states_.begin());
        states_.insert(it, choice_state{index, 0, false, false});
        reply_choice c;
        c.index = index;
        c.message.role = role::assistant;
        reply_.choices.insert(reply_.choices.begin() + static_cast<std::ptrdiff_t>(k), std::move(c));
        return k;
    }

    void candidate(const boost::json::object& c, std::size_t position, const json_path& at, std::vector<stream_event>* out) {
        std::size_t index = position;
        if (const auto* iv = member(c, "index")) {
            const auto n = to_count(*iv, at.member("index"));
            if (n >= limits_.max_choices)
                fail_with(at.member("index"), "expected a candidate index below max_choices (" +
                                                  std::to_string(limits_.max_choices) + "), found " + std::to_string(n));
            index = static_cast<std::size_t>(n);
        }
        const std::size_t k = position_of(index);
        choice_state& state = states_[k];
        reply_choice& choice = reply_.choices[k];
        if (state.finished) fail_with(at, "candidate " + std::to_string(index) + " continues after its finishReason");
        if (const auto* content = opt_object(c, "content", at)) {
            const auto cat = at.member("content");
            if (const auto r = opt_string(*content, "role", cat); r && *r != "model")
                fail_at(cat.member("role"), "\"model\"", boost::json::value(*r));
            if (const auto* parts = opt_array(*content, "parts", cat)) {
                const auto pat = cat.member("parts");
                if (parts->size() > limits_.max_content_blocks)
                    fail_with(pat, "expected at most max_content_blocks (" + std::to_string(limits_.max_content_blocks) +
                                       ") parts, found " + std::to_string(parts->size()));
                for (std::size_t i = 0; i < parts->size(); ++i)
                    part(as_object((*parts)[i], pat.element(i)), pat.element(i), k, state, choice, out);
            }
        }
        if (const auto* lp = opt_object(c, "logprobsResult", at)) {
            bytes_.add(boost::json::serialize(*lp).size());
            if (!choice.logprobs.is_object()) {
                choice.logprobs = *lp;
            } else {
                auto& mine = choice.logprobs.get_object();
                for (const auto& m : *lp) {
                    auto* have = mine.if_contains(m.key());
                    if (have && have->is_array() && m.value().is_array())
                        for (const auto& x : m.value().get_array()) have->get_array().push_back(x);
                    else
                        mine[m.key()] = m.value();
                }
            }
        }
        if (const auto finish = opt_string(c, "finishReason", at)) {
            choice.finish_text = cut(*finish, 256);
            choice.finish = finish_of(choice.finish_text, !choice.message.tool_calls.empty());
            state.finished = true;
            if (out) {
                auto e = make_event(stream_event::kind::finish, k);
                e.finish = choice.finish;
                e.finish_text = choice.finish_text;
                out->push_back(std::move(e));
            }
        }
    }

    void part(const boost::json::object& p, const json_path& at, std::size_t k, choice_state& state, reply_choice& choice,
              std::vector<stream_event>* out) {
        message& m = choice.message;
        const auto signature = opt_string(p, "thoughtSignature", at);
        if (signature) bytes_.add(signature->size());
        const auto text = opt_string(p, "text", at);
        bool thought = false;
        if (const auto* t = member(p, "thought")) {
            if (!t->is_bool()) fail_at(at.member("thought"), "a boolean", *t);
            thought = t->get_bool();
        }
        if (text && thought) {
            bytes_.add(text->size());
            if (!state.thought_open) {
                reasoning_part r;
                r.type = reasoning_part::kind::thinking;
                m.reasoning.push_back(std::move(r));
                state.thought_open = true;
            }
            m.reasoning.back().text += *text;
            if (signature) {
                m.reasoning.back().signature = std::string(*signature);
                state.thought_open = false;
            }
            if (out && !text->empty()) {
                auto e = make_event(stream_event::kind::reasoning, k);
                e.text = std::string(*text);
                out->push_back(std::move(e));
            }
            return;
        }
        state.thought_open = false;
        if (text) {
            bytes_.add(text->size());
            if (!m.has_text()) m.content = std::string();
            std::get<std::string>(m.content) += *text;
            if (out && !text->empty()) {
                auto e = make_event(stream_event::kind::text, k);
                e.text = std::string(*text);
                out->push_back(std::move(e));
            }
        } else if (const auto* fc = opt_object(p, "functionCall", at)) {
            const auto fat = at.member("functionCall");
            if (m.tool_calls.size() >= limits_.max_tool_calls)
                fail_with(fat, "expected at most max_tool_calls (" + std::to_string(limits_.max_tool_calls) +
                                   ") function calls, found more");
            tool_call call;
            call.function.name = std::string(req_string(*fc, "name", fat));
            if (const auto* args = opt_object(*fc, "args", fat)) call.function.arguments = boost::json::serialize(*args);
            else call.function.arguments = "{}";
            const auto id = opt_string(*fc, "id", fat);
            call.id = id && !id->empty() ? std::string(*id) : generated_call_id(reply_.id, state.index, state.calls);
            ++state.calls;
            bytes_.add(call.id.size() + call.function.name.size() + call.function.arguments.size());
            if (out) {
                auto e = make_event(stream_event::kind::tool_call, k);
                e.tool_index = m.tool_calls.size();
                e.id = call.id;
                e.name = call.function.name;
                e.text = call.function.arguments;
                out->push_back(std::move(e));
            }
            m.tool_calls.push_back(std::move(call));
        }
        // other parts (inlineData, executableCode, codeExecutionResult, fileData) are skipped
        if (signature && !signature->empty()) {
            reasoning_part r;
            r.type = reasoning_part::kind::thinking;
            r.signature = std::string(*signature);
            m.reasoning.push_back(std::move(r));
        }
    }

    reply_limits limits_;
    byte_budget bytes_;
    chat_reply reply_;
    std::vector<choice_state> states_;  // parallel to reply_.choices
};

}  // namespace detail

/// A reply to a non-streamed request. A status outside 200-299 gives decode_error's call_error;
/// so does a Google error body sent with a 2xx status. A prompt the API blocked
/// (`promptFeedback.blockReason`) gives errc::api_error with type "prompt_blocked", api_code
/// the block reason and status 200. Otherwise the body must be a GenerateContentResponse, and
/// each candidate becomes a choice (index: the candidate's `index`, else its position):
/// - its text parts are concatenated into the content string (no content when there is none);
///   `thought: true` parts are reasoning parts of kind thinking (consecutive ones joined, their
///   `thoughtSignature` as the signature); a `thoughtSignature` on another part is kept as a
///   reasoning part of kind thinking without text (encode_request sends it back);
/// - `functionCall` parts become tool calls: the call's `id`, or one made up when the API sent
///   none (`gemini-call-{responseId}-{candidate}-{k}`: stable, distinct per call and reply,
///   never sent back), the name, and `args` serialised as JSON ("{}" without args);
///   other parts (inlineData, executableCode...) are skipped;
/// - `finishReason`: STOP -> stop (tool_calls when the candidate calls functions), MAX_TOKENS ->
///   length, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and the IMAGE_ ones ->
///   content_filter, others -> other; `finish_text` keeps the API's word;
/// - `logprobsResult` is kept as the choice's logprobs.
/// `responseId` is the reply's id, `modelVersion` its model; `usageMetadata` gives prompt tokens
/// = promptTokenCount + toolUsePromptTokenCount, completion tokens = candidatesTokenCount +
/// thoughtsTokenCount, total = totalTokenCount, details = the whole object (cached_tokens() reads
/// cachedContentTokenCount, reasoning_tokens() thoughtsTokenCount). A body that is not JSON,
/// breaks this shape, has neither candidates nor a block reason, or exceeds `limits`, gives
/// errc::protocol with what was expected and where, and what was found.
inline boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers, std::string_view body,
                                                                  const reply_limits& limits = {}) {
    namespace dg = detail;
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        if (body.size() > limits.max_body_bytes)
            throw dg::wire_failure{"expected a reply body of at most max_body_bytes (" +
                                   std::to_string(limits.max_body_bytes) + " bytes), found " + std::to_string(body.size())};
        const boost::json::value v = dg::parse_bounded(body, limits.max_json_depth, "a GenerateContentResponse");
        {
            call_error api;
            if (dg::read_google_error(v, api)) {
                api.status = status;
                api.headers = std::move(headers);
                return api;
            }
        }
        const dg::json_path root{nullptr, "GenerateContentResponse", 0};
        const auto& o = dg::as_object(v, root);
        dg::reply_assembler a(limits);
        if (auto blocked = a.apply(o, root, nullptr)) {
            blocked->status = status;
            blocked->headers = std::move(headers);
            return *blocked;
        }
        if (a.reply().choices.empty()) dg::fail_at(root.member("candidates"), "a non-empty array", dg::found(o.if_contains("candidates")));
        chat_reply reply = std::move(a.reply());
        reply.status = status;
        reply.headers = std::move(headers);
        return reply;
    } catch (const dg::wire_failure& f) {
        return dg::protocol_failure(status, headers, f.message);
    }
}

}  // namespace parley::gemini

#endif
