// parley/bot/generate.hpp: the text of a model's reply to a prompt (a string or a conversation
// template rendered with data, or a conversation), optionally streamed. See docs/bot.md,
// "ai-style calls".
#ifndef PARLEY_BOT_GENERATE_HPP
#define PARLEY_BOT_GENERATE_HPP

#include <parley/bot/ask.hpp>
#include <parley/bot/model.hpp>
#include <parley/chat/conversation_template.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// Options of generate.
struct generate_options {
    /// Request parameters (model, temperature, ...). For a conversation template they apply when
    /// the template has no default-request; its request message overrides them.
    request_params params;
    /// When set, the call is streamed and the text arrives here as it comes.
    std::function<void(std::string_view)> on_text;
    /// When not null, the usage of the request (tokens, attempts) is added to it, also when the
    /// call fails.
    usage_summary* usage = nullptr;
};

namespace detail::calls {

/// The text of the first choice of the reply to `request`.
inline boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(chat_model& model,
                                                                                        chat_request request,
                                                                                        std::function<void(std::string_view)> on_text,
                                                                                        usage_summary* usage) {
    const std::string model_name = request.params.model.value_or(model.default_model());
    stream_handler handler;
    if (on_text)
        handler = [&](const stream_event& e) {
            if (e.choice == 0 && e.type == stream_event::kind::text) on_text(e.text);
        };
    auto reply = co_await model.chat(std::move(request), on_text ? &handler : nullptr);
    detail::count_usage(usage, reply, model_name);
    if (!reply) co_return reply.error();
    if (reply->choices.empty()) {
        call_error e;
        e.code = make_error_code(errc::protocol);
        e.message = "the reply has no choices";
        e.attempts = 1;
        co_return e;
    }
    const message& m = reply->choices.front().message;
    co_return m.has_text() ? m.text() : std::string();
}

}  // namespace detail::calls

// The options' default argument is `generate_options()`, not `{}`: g++ 12 destroys twice an
// argument initialised as an aggregate (`{}`, `{.params = ...}`) in an expression that awaits,
// such as `co_await parley::generate(...)`; a value-initialised one is destroyed once.

/// The text of the model's reply to `prompt` (a template rendered with `data`, sent as one user
/// message). Throws parley::template_error (when it is called, before any request) for a prompt
/// that does not render; a call that fails is the result's error (a reply without choices:
/// errc::protocol). `model` must outlive the call.
template <class Data>
boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(
    chat_model& model, std::string_view prompt, const Data& data, generate_options opt = generate_options()) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::generate(model, std::move(request), std::move(opt.on_text), opt.usage);
}

/// The same with a conversation template, read up to its first request message and rendered with
/// `data` (its default-request and request parameters apply).
template <class Data>
boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(
    chat_model& model, const conversation_template& prompt, const Data& data, generate_options opt = generate_options()) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::generate(model, std::move(request), std::move(opt.on_text), opt.usage);
}

/// The same with a conversation as the prompt: its system, user, assistant, function and tool
/// messages after its last truncate are sent, with the parameters of its nearest
/// default-request (`opt.params` when it has none).
inline boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(
    chat_model& model, const std::vector<message>& conversation, generate_options opt = generate_options()) {
    chat_request request = detail::calls::prompt_request(conversation, opt.params);
    return detail::calls::generate(model, std::move(request), std::move(opt.on_text), opt.usage);
}

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
