// parley/bot/client_model.hpp: a chat_client (any wire API: OpenAI, Anthropic, the in-process
// models) as the chat_model of a bot. This is the only bot header that includes the network
// code (Boost.Beast, OpenSSL): link parley::net.
#ifndef PARLEY_BOT_CLIENT_MODEL_HPP
#define PARLEY_BOT_CLIENT_MODEL_HPP

#include <parley/bot/model.hpp>
#include <parley/provider/chat_client.hpp>

#include <memory>
#include <string>
#include <utility>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// Sends a bot's requests through a chat_client (its configured defaults apply under every
/// request's parameters). Streamed calls read the client's stream to its `done` event.
class client_model final : public chat_model {
public:
    /// The client must outlive this model.
    explicit client_model(chat_client& client) : client_(&client) {}
    /// Shares the ownership of the client.
    explicit client_model(std::shared_ptr<chat_client> client) : owned_(std::move(client)), client_(owned_.get()) {}

    chat_client& client() noexcept { return *client_; }

    /// The client's default model (client_config::defaults.model), "" when it has none.
    std::string default_model() const override { return client_->config().defaults.model.value_or(std::string()); }

    boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat(chat_request request,
                                                                              const stream_handler* on_event) override {
        if (!on_event || !*on_event) co_return co_await client_->chat(std::move(request));
        auto stream = co_await client_->stream(std::move(request));
        if (!stream) co_return stream.error();
        for (;;) {
            auto event = co_await stream->next();
            if (!event) co_return event.error();
            (*on_event)(*event);
            if (event->type == stream_event::kind::done) break;
        }
        co_return stream->take_reply();
    }

private:
    std::shared_ptr<chat_client> owned_;
    chat_client* client_;
};

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
