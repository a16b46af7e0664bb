// parley/provider/in_process.hpp: models that answer inside the program, for tests and offline
// use: `echo_model` (repeats the last user message) and `scripted_model` (answers from a list,
// tool calls and errors included). Both record the requests they receive, and both stream
// through the same events as the network providers.
#ifndef PARLEY_PROVIDER_IN_PROCESS_HPP
#define PARLEY_PROVIDER_IN_PROCESS_HPP

#include <parley/provider/reply.hpp>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace parley {

/// The stream events that deliver `reply`: per choice, its reasoning text, its text (in pieces
/// of at most `piece_size` bytes, cut at UTF-8 character boundaries), its refusal, its tool calls (the
/// first event of each carries its id and name, the arguments follow in pieces) or legacy
/// function call, its finish reason; then the usage (when the reply has one) and done.
inline std::vector<stream_event> events_of(const chat_reply& reply, std::size_t piece_size = 16) {
    if (piece_size == 0) piece_size = 1;
    std::vector<stream_event> out;
    auto pieces = [&](std::string_view text, auto&& make) {
        std::size_t i = 0;
        while (i < text.size()) {
            auto continuation = [&](std::size_t at) {
                return at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
            };
            // Never cut a UTF-8 sequence: end the piece before the character it would cut, or
            // after it when the piece holds nothing else.
            std::size_t n = std::min(piece_size, text.size() - i);
            while (n > 0 && continuation(i + n)) --n;
            if (n == 0)
                do ++n;
                while (continuation(i + n));
            make(text.substr(i, n));
            i += n;
        }
    };
    for (const auto& c : reply.choices) {
        auto event = [&](stream_event::kind k) {
            stream_event e;
            e.type = k;
            e.choice = c.index;
            return e;
        };
        for (const auto& r : c.message.reasoning) {
            std::string text = r.text;
            if (text.empty())
                for (const auto& part : r.summary) text += part;
            pieces(text, [&](std::string_view p) {
                auto e = event(stream_event::kind::reasoning);
                e.text = p;
                out.push_back(std::move(e));
            });
        }
        if (auto text = c.message.text(); !text.empty())
            pieces(text, [&](std::string_view p) {
                auto e = event(stream_event::kind::text);
                e.text = p;
                out.push_back(std::move(e));
            });
        if (c.message.refusal)
            pieces(*c.message.refusal, [&](std::string_view p) {
                auto e = event(stream_event::kind::refusal);
                e.text = p;
                out.push_back(std::move(e));
            });
        for (std::size_t t = 0; t < c.message.tool_calls.size(); ++t) {
            const auto& call = c.message.tool_calls[t];
            auto first = event(stream_event::kind::tool_call);
            first.tool_index = t;
            first.id = call.id;
            first.name = call.function.name;
            out.push_back(std::move(first));
            pieces(call.function.arguments, [&](std::string_view p) {
                auto e = event(stream_event::kind::tool_call);
                e.tool_index = t;
                e.text = p;
                out.push_back(std::move(e));
            });
        }
        if (c.message.function_call) {
            auto first = event(stream_event::kind::function_call);
            first.name = c.message.function_call->name;
            out.push_back(std::move(first));
            pieces(c.message.function_call->arguments, [&](std::string_view p) {
                auto e = event(stream_event::kind::function_call);
                e.text = p;
                out.push_back(std::move(e));
            });
        }
        auto fin = event(stream_event::kind::finish);
        fin.finish = c.finish;
        fin.finish_text = c.finish_text;
        out.push_back(std::move(fin));
    }
    if (reply.usage) {
        stream_event u;
        u.type = stream_event::kind::usage;
        out.push_back(std::move(u));
    }
    stream_event done;
    done.type = stream_event::kind::done;
    out.push_back(std::move(done));
    return out;
}

/// A reply with one choice: `text` as the assistant's content, finish reason `stop`.
inline chat_reply text_reply(std::string text) {
    chat_reply r;
    reply_choice c;
    c.message = make_message(role::assistant, std::move(text));
    c.finish = finish_reason::stop;
    c.finish_text = "stop";
    r.choices.push_back(std::move(c));
    return r;
}

/// A reply with one choice calling `calls` (each: id, name, arguments JSON text), finish reason
/// `tool_calls`.
inline chat_reply tool_call_reply(std::vector<tool_call> calls) {
    chat_reply r;
    reply_choice c;
    c.message.role = role::assistant;
    c.message.tool_calls = std::move(calls);
    c.finish = finish_reason::tool_calls;
    c.finish_text = "tool_calls";
    r.choices.push_back(std::move(c));
    return r;
}

namespace detail {
/// The requests an in-process model received, kept for inspection.
class request_log {
public:
    void add(const chat_request& r) {
        std::lock_guard lock(mutex_);
        requests_.push_back(r);
    }
    std::vector<chat_request> requests() const {
        std::lock_guard lock(mutex_);
        return requests_;
    }
    std::size_t count() const {
        std::lock_guard lock(mutex_);
        return requests_.size();
    }

private:
    mutable std::mutex mutex_;
    std::vector<chat_request> requests_;
};
}  // namespace detail

/// Answers every request with the text of its last user message (text parts joined; "" when
/// there is none), as model "echo", and keeps every request it received.
class echo_model {
public:
    chat_reply answer(const chat_request& request) {
        log_.add(request);
        std::string text;
        for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
            if (it->role != role::user) continue;
            if (it->has_text()) text = it->text();
            for (const auto& p : it->parts())
                if (p.type == content_part::kind::text) text += p.text;
            break;
        }
        chat_reply r = text_reply(std::move(text));
        r.model = request.params.model.value_or("echo");
        r.id = "echo-" + std::to_string(log_.count());
        return r;
    }
    /// Every request received, oldest first.
    std::vector<chat_request> requests() const { return log_.requests(); }

private:
    detail::request_log log_;
};

/// Answers requests from a list, in order: replies (text, tool calls, anything a chat_reply
/// holds) and failures (a call_error, returned as the call's error). A request after the last
/// step fails with errc::invalid_argument ("the scripted model has no reply left").
class scripted_model {
public:
    using step = std::variant<chat_reply, call_error>;

    scripted_model() = default;
    explicit scripted_model(std::vector<step> steps) : steps_(steps.begin(), steps.end()) {}

    /// Appends a step.
    void push(step s) {
        std::lock_guard lock(mutex_);
        steps_.push_back(std::move(s));
    }
    /// Appends a reply whose content is `text`.
    void push_text(std::string text) { push(text_reply(std::move(text))); }

    /// The next step for `request` (recorded).
    step answer(const chat_request& request) {
        log_.add(request);
        std::lock_guard lock(mutex_);
        if (steps_.empty()) {
            call_error e;
            e.code = make_error_code(errc::invalid_argument);
            e.message = "the scripted model has no reply left (" + std::to_string(log_.count()) + " requests received)";
            e.attempts = 1;
            return e;
        }
        step s = std::move(steps_.front());
        steps_.pop_front();
        if (auto* r = std::get_if<chat_reply>(&s); r && r->model.empty()) r->model = request.params.model.value_or("scripted");
        return s;
    }
    /// Steps not used yet.
    std::size_t remaining() const {
        std::lock_guard lock(mutex_);
        return steps_.size();
    }
    /// Every request received, oldest first.
    std::vector<chat_request> requests() const { return log_.requests(); }

private:
    mutable std::mutex mutex_;
    std::deque<step> steps_;
    detail::request_log log_;
};

}  // namespace parley

#endif
