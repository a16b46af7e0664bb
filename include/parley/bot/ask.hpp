// parley/bot/ask.hpp: what the one-shot calls (extract, classify) share: the request a prompt
// gives (a string or a conversation template rendered with data, or a conversation), and the
// loop that asks the model, reads its reply and, while the reply does not fit, sends the problems
// back and asks again; the failure that lists every attempt. See docs/bot.md, "ai-style calls".
#ifndef PARLEY_BOT_ASK_HPP
#define PARLEY_BOT_ASK_HPP

#include <parley/bot/model.hpp>
#include <parley/bot/usage.hpp>
#include <parley/chat/conversation_template.hpp>
#include <parley/chat/render.hpp>
#include <parley/error.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// One reply that did not give a value: what the model sent and what was wrong with it.
struct extraction_attempt {
    std::string reply;  ///< the call's arguments (tool_call mode) or the reply's text
    std::string problems;  ///< the problems, one per line, as sent back to the model
    friend bool operator==(const extraction_attempt&, const extraction_attempt&) = default;
};

/// Why extract<T> or classify gave no value: every attempt's problems, or the call that failed.
struct extraction_failure {
    /// errc::conversion when no reply fitted; the call's code when a call failed;
    /// errc::protocol for a reply without choices.
    std::error_code code;
    std::vector<extraction_attempt> attempts;  ///< the replies that did not fit, oldest first
    std::optional<call_error> call;  ///< the call that failed, if one did

    /// Every attempt, numbered, with its problems; or the failed call's what().
    std::string what() const {
        std::string s;
        if (call) s = "the call failed: " + call->what();
        else if (!attempts.empty())
            s = "no reply fitted in " + std::to_string(attempts.size()) + (attempts.size() == 1 ? " attempt" : " attempts");
        else s = code.message();
        for (std::size_t i = 0; i < attempts.size(); ++i)
            s += "\nattempt " + std::to_string(i + 1) + ": " + attempts[i].problems;
        return s;
    }
};

/// The exception `result<T, extraction_failure>::value()` throws: a parley::error with the
/// failure's code and message, and the whole failure.
class extraction_exception : public error {
public:
    explicit extraction_exception(extraction_failure f) : error(f.code, f.what()), detail_(std::move(f)) {}
    const extraction_failure& detail() const noexcept { return detail_; }

private:
    extraction_failure detail_;
};

/// Found by ADL from boost::system::result<T, extraction_failure>::value().
[[noreturn]] inline void throw_exception_from_error(const extraction_failure& f, const auto& /*location*/) {
    throw extraction_exception(f);
}

/// A value of an extraction, or why there is none.
template <class T>
using extract_result = boost::system::result<T, extraction_failure>;

namespace detail::calls {

/// The request a prompt string gives: one user message, rendered with `data`.
template <class Data>
chat_request prompt_request(std::string_view prompt, const Data& data, const request_params& params) {
    const conversation_template t("prompt", {make_message(role::user, std::string(prompt))});
    rendered_request r = render(t, data, {}, render_options{params, 0});
    return chat_request{std::move(r.params), std::move(r.messages), {}};
}

/// The request a conversation template gives (read up to its first request message).
template <class Data>
chat_request prompt_request(const conversation_template& t, const Data& data, const request_params& params) {
    rendered_request r = render(t, data, {}, render_options{params, 0});
    return chat_request{std::move(r.params), std::move(r.messages), {}};
}

/// The request a conversation gives: its system, user, assistant, function and tool messages
/// after its last truncate, with the parameters of its nearest default-request (`params` when it
/// has none).
inline chat_request prompt_request(const std::vector<message>& conversation, const request_params& params) {
    static const conversation_template none("conversation", {});
    rendered_request r = render(none, boost::json::value(), conversation, render_options{params, 0});
    return chat_request{std::move(r.params), std::move(r.messages), {}};
}

/// What one attempt read: a value, or the problems to send back.
template <class R>
struct reading {
    std::optional<R> value;
    std::string problems;
};

/// The piece of a stream event that belongs to the answer being read: the text (text modes) or
/// the arguments of the first tool call, or of a legacy function call (tool mode).
inline bool answer_piece(const stream_event& e, bool tool_mode, std::string& into) {
    if (e.choice != 0) return false;
    if (tool_mode) {
        const bool call = (e.type == stream_event::kind::tool_call && e.tool_index == 0) ||
                          e.type == stream_event::kind::function_call;
        if (!call || e.text.empty()) return false;
    } else if (e.type != stream_event::kind::text) {
        return false;
    }
    into += e.text;
    return true;
}

/// The text of a user message that re-asks in the text modes.
inline std::string text_reask(const std::string& problems) {
    return "Your reply does not fit the requested JSON:\n" + problems + "\nReply again with JSON that fits.";
}

/// The text of a tool message that answers a call whose value was read but rejected.
inline std::string rejected_text(std::string_view name, const std::string& problems) {
    return "Error: the arguments of " + std::string(name) + " were rejected:\n" + problems + "\nCall " +
           std::string(name) + " again with arguments that fit.";
}

/// What receives an answer's text while it streams: everything so far, the attempt (0 for the
/// first request), and whether this is the whole answer as the reply holds it (given once, after
/// the stream, before the answer is read).
using piece_handler = std::function<void(std::string_view so_far, unsigned attempt, bool whole)>;

/// The retry loop. `read` turns an answer's text (arguments or content) into a value or problems;
/// `tool` is the forced function's name in tool mode (empty in the text modes); `on_piece` (may
/// be empty) receives the answer's text so far while it streams, and the whole answer before it
/// is read; `reask` writes the user message that sends the problems back in the text modes;
/// `usage` (may be null) receives the usage of every request.
template <class R>
boost::asio::awaitable<boost::system::result<R, extraction_failure>> ask(
    chat_model& model, chat_request request, std::string tool, unsigned max_retries,
    std::function<reading<R>(std::string_view answer)> read, piece_handler on_piece,
    std::string (*reask)(const std::string& problems), usage_summary* usage = nullptr) {
    extraction_failure failure;
    const std::string model_name = request.params.model.value_or(model.default_model());
    for (unsigned attempt = 0; attempt <= max_retries; ++attempt) {
        std::string so_far;
        stream_handler handler;
        if (on_piece)
            handler = [&](const stream_event& e) {
                if (answer_piece(e, !tool.empty(), so_far)) on_piece(so_far, attempt, false);
            };
        auto reply = co_await model.chat(request, on_piece ? &handler : nullptr);
        detail::count_usage(usage, reply, model_name);
        if (!reply) {
            failure.code = reply.error().code;
            failure.call = reply.error();
            co_return failure;
        }
        if (reply->choices.empty()) {
            failure.code = make_error_code(errc::protocol);
            co_return failure;
        }
        message answer = std::move(reply->choices.front().message);
        const std::optional<std::string> refusal = answer.refusal;
        std::string shown;
        reading<R> r;
        auto read_whole = [&] {
            if (on_piece) on_piece(shown, attempt, true);
            r = read(shown);
        };
        if (refusal) {
            r.problems = "the model refused: " + *refusal;
            shown = *refusal;
        } else if (!tool.empty()) {
            if (answer.tool_calls.empty() && answer.function_call) {
                // the legacy form of a call (a client with legacy_functions)
                shown = answer.function_call->arguments;
                if (answer.function_call->name == tool) read_whole();
                else
                    r.problems = "expected a call of " + tool + ", found a call of \"" +
                                 answer.function_call->name.substr(0, 80) + "\"";
            } else if (answer.tool_calls.empty()) {
                shown = answer.has_text() ? answer.text() : std::string();
                r.problems = "expected a call of " + tool + ", found " +
                             (shown.empty() ? std::string("no call") : "the text \"" + shown.substr(0, 200) + "\"");
            } else if (answer.tool_calls.front().function.name != tool) {
                shown = answer.tool_calls.front().function.arguments;
                r.problems = "expected a call of " + tool + ", found a call of \"" +
                             answer.tool_calls.front().function.name.substr(0, 80) + "\"";
            } else {
                shown = answer.tool_calls.front().function.arguments;
                read_whole();
            }
        } else {
            shown = answer.has_text() ? answer.text() : std::string();
            read_whole();
        }
        if (r.value) co_return std::move(*r.value);
        failure.attempts.push_back({shown, r.problems});
        if (attempt == max_retries) break;
        // re-ask: the reply, then what was wrong with it
        const std::vector<tool_call> calls = answer.tool_calls;
        const bool legacy_call = calls.empty() && answer.function_call.has_value();
        // an assistant message needs a content or a call: a refusal's text stands for it
        if (calls.empty() && !legacy_call && std::holds_alternative<std::monostate>(answer.content))
            answer.content = refusal.value_or(std::string());
        request.messages.push_back(std::move(answer));
        if (!tool.empty() && legacy_call) {
            message m = make_message(role::function, r.problems);
            m.name = request.messages.back().function_call->name;
            request.messages.push_back(std::move(m));
        } else if (!tool.empty() && !calls.empty()) {
            for (std::size_t i = 0; i < calls.size(); ++i) {
                message m = make_message(role::tool, i == 0 ? r.problems : "Error: only the first call is read.");
                m.tool_call_id = calls[i].id;
                request.messages.push_back(std::move(m));
            }
        } else {
            request.messages.push_back(make_message(role::user, tool.empty() ? reask(r.problems) : r.problems));
        }
    }
    failure.code = make_error_code(errc::conversion);
    co_return failure;
}

}  // namespace detail::calls

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
