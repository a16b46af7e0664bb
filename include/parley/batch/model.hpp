// parley/batch/model.hpp: a chat_model that tells a batch's governor what each reply says (its
// rate-limit fields and its tokens), for work that runs templates through parley::bot.
#ifndef PARLEY_BATCH_MODEL_HPP
#define PARLEY_BATCH_MODEL_HPP

#include <parley/batch/governor.hpp>
#include <parley/batch/runner.hpp>
#include <parley/bot/model.hpp>
#include <parley/error.hpp>

#include <memory>
#include <string>
#include <utility>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// Wraps a chat_model: every successful reply's rate-limit fields and token count go to a
/// rate_governor (the failed calls' fields reach it through batch_runner, which reads the error
/// that ends an attempt). Give it the runner's governor (batch_runner::governor()); one model
/// serves every input of a run.
class governed_model final : public chat_model {
public:
    /// Throws parley::error (errc::invalid_argument) when `inner` is null. The governor must
    /// outlive the model.
    governed_model(std::shared_ptr<chat_model> inner, rate_governor& governor)
        : inner_(std::move(inner)), governor_(&governor) {
        if (!inner_) throw error(errc::invalid_argument, "governed_model needs a model");
    }

    std::string default_model() const override { return inner_->default_model(); }

    boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat(chat_request request,
                                                                              const stream_handler* on_event) override {
        auto reply = co_await inner_->chat(std::move(request), on_event);
        if (reply) batch_attempt::observe_reply(*governor_, *reply);
        co_return reply;
    }

private:
    std::shared_ptr<chat_model> inner_;
    rate_governor* governor_;
};

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
