// parley/bot/model.hpp: what a bot sends its requests to. `chat_model` is the interface (one
// virtual coroutine); `in_process_model` answers with parley's in-process models (scripted,
// echo) without any network code. A chat_client becomes a chat_model through
// parley/bot/client_model.hpp, the only bot header that needs Beast.
#ifndef PARLEY_BOT_MODEL_HPP
#define PARLEY_BOT_MODEL_HPP

#include <parley/provider/in_process.hpp>
#include <parley/provider/reply.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// Receives the events of a streamed reply, in order, as they arrive.
using stream_handler = std::function<void(const stream_event&)>;

/// A model a bot can talk to.
class chat_model {
public:
    virtual ~chat_model() = default;

    /// The reply to `request`, or why the call failed. When `on_event` is not null the call is
    /// streamed and every event is given to it as it arrives (the result is then the assembled
    /// reply). May throw parley::error for a request that cannot be encoded.
    virtual boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat(chat_request request,
                                                                                      const stream_handler* on_event) = 0;

    /// The model a request that names none is sent to ("" when unknown): the bot looks up its
    /// context window and token counter under this name.
    virtual std::string default_model() const { return {}; }
};

/// An in-process model as a chat_model: a scripted_model (replies and failures from a list) or an
/// echo_model. Both record the requests they receive; a streamed call delivers the reply through
/// the same events as a network stream (events_of).
class in_process_model final : public chat_model {
public:
    explicit in_process_model(std::shared_ptr<scripted_model> model) : model_(std::move(model)) {}
    explicit in_process_model(std::shared_ptr<echo_model> model) : model_(std::move(model)) {}

    /// Texts are streamed in pieces of at most `piece_size` bytes.
    void set_piece_size(std::size_t piece_size) noexcept { piece_size_ = piece_size; }

    boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat(chat_request request,
                                                                              const stream_handler* on_event) override {
        co_return answer(request, on_event);
    }

private:
    boost::system::result<chat_reply, call_error> answer(const chat_request& request, const stream_handler* on_event) {
        chat_reply reply;
        if (auto* echo = std::get_if<std::shared_ptr<echo_model>>(&model_)) {
            reply = (*echo)->answer(request);
        } else {
            auto step = std::get<std::shared_ptr<scripted_model>>(model_)->answer(request);
            if (auto* e = std::get_if<call_error>(&step)) return *e;
            reply = std::get<chat_reply>(std::move(step));
        }
        if (on_event && *on_event)
            for (const stream_event& e : events_of(reply, piece_size_)) (*on_event)(e);
        return reply;
    }

    std::variant<std::shared_ptr<scripted_model>, std::shared_ptr<echo_model>> model_;
    std::size_t piece_size_ = 16;
};

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
