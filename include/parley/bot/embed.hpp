// parley/bot/embed.hpp: one vector per text (PromptingTools' aiembed), through a chat_client's
// OpenAI-compatible embeddings API. Like client_model.hpp, this header includes the network code
// (Boost.Beast, OpenSSL): link parley::net. See docs/bot.md, "ai-style calls".
#ifndef PARLEY_BOT_EMBED_HPP
#define PARLEY_BOT_EMBED_HPP

#include <parley/bot/usage.hpp>
#include <parley/provider/chat_client.hpp>
#include <parley/provider/openai/embeddings.hpp>
#include <parley/string_list.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// Options of embed.
struct embed_options {
    /// The embeddings model; empty: the client's default model (client_config::defaults.model).
    std::string model;
    /// Fewer dimensions than the model's, for the models that allow it.
    std::optional<std::int64_t> dimensions;
    /// When not null, the usage of the request (input tokens, attempts) is added to it, also when
    /// the call fails.
    usage_summary* usage = nullptr;
};

// The options' default argument is `embed_options()`, not `{}`: g++ 12 destroys twice an argument
// initialised as an aggregate (`{}`, `{.model = ...}`) in an expression that awaits, such as
// `co_await parley::embed(...)`; a value-initialised one is destroyed once.

/// The vectors of `texts`, one per text and in their order, from one embeddings request. No
/// texts: no request and no vectors. Every failure is the result's error: no model (neither in
/// `opt` nor in the client's defaults) or an empty text is errc::invalid_argument before any
/// request, a client of another API than OpenAI's is errc::invalid_argument, a reply with
/// another number of vectors than texts is errc::protocol, and the call's own failures are as
/// chat_client::embed reports them. `texts` is a std::vector<std::string> or a brace list
/// (`{"first text", "second text"}`, also inside a co_await expression with g++ 12: see
/// string_list). `client` must outlive the call.
inline boost::asio::awaitable<boost::system::result<std::vector<std::vector<float>>, call_error>> embed(
    chat_client& client, string_list list, embed_options opt = embed_options()) {
    std::vector<std::string> texts = std::move(list).strings();
    auto refused = [](errc code, std::string text, unsigned attempts) {
        call_error e;
        e.code = make_error_code(code);
        e.message = std::move(text);
        e.attempts = attempts;
        return e;
    };
    if (texts.empty()) co_return std::vector<std::vector<float>>{};
    openai::embedding_request request;
    request.model = !opt.model.empty() ? std::move(opt.model) : client.config().defaults.model.value_or("");
    if (request.model.empty())
        co_return refused(errc::invalid_argument,
                          "embed: no model (set embed_options::model or the client's default model)", 0);
    for (std::size_t i = 0; i < texts.size(); ++i)
        if (texts[i].empty())
            co_return refused(errc::invalid_argument, "embed: text " + std::to_string(i) + " is empty", 0);
    const std::size_t count = texts.size();
    request.input = std::move(texts);
    request.dimensions = opt.dimensions;
    const std::string model_name = request.model;
    auto reply = co_await client.embed(std::move(request));
    if (opt.usage) {
        if (!reply) {
            opt.usage->add(reply.error(), model_name);
        } else {
            chat_reply counted;  // the embedding reply's counts, in the form usage_summary reads
            counted.model = reply->model;
            counted.usage = reply->usage;
            opt.usage->add(counted, model_name);
        }
    }
    if (!reply) co_return reply.error();
    if (reply->data.size() != count)
        co_return refused(errc::protocol,
                          "embed: the reply has " + std::to_string(reply->data.size()) + " vectors for " +
                              std::to_string(count) + " texts",
                          1);
    co_return std::move(reply->data);
}

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
