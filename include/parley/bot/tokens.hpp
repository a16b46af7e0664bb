// parley/bot/tokens.hpp: token counting and the context window (step 3 of the bot algorithm):
// a token counter (parley's estimate, or any counter of one's own: an exact tokenizer plugs in
// here), and the choice of the messages a request carries: system messages and the current
// read are always kept, the history is cut only at turn boundaries.
#ifndef PARLEY_BOT_TOKENS_HPP
#define PARLEY_BOT_TOKENS_HPP

#include <parley/chat/message.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>

#include <boost/json/serialize.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace parley {

/// Tokens of an image part for the estimate (OpenAI's cost of a low-detail image).
inline constexpr std::size_t estimated_image_tokens = 85;
/// Tokens of a message's framing (role, separators) for the estimate.
inline constexpr std::size_t estimated_message_overhead = 4;

/// parley's estimate of a message's tokens: about one token per four bytes of text (rounded up),
/// counted over the content's texts, the name, the tool call id and every call's name and
/// arguments; 85 tokens per image part; 4 tokens of framing per message. It errs on the high side
/// for English prose and is exact for no tokenizer: give the bot a counter of your own (or an
/// exact tokenizer) for exact budgets.
inline std::size_t estimate_tokens(const message& m) {
    std::size_t bytes = 0;
    std::size_t images = 0;
    bytes += m.text().size();
    for (const content_part& p : m.parts()) {
        if (p.type == content_part::kind::text) bytes += p.text.size();
        else ++images;
    }
    if (m.name) bytes += m.name->size();
    if (m.tool_call_id) bytes += m.tool_call_id->size();
    if (m.function_call) bytes += m.function_call->name.size() + m.function_call->arguments.size();
    for (const tool_call& c : m.tool_calls) bytes += c.id.size() + c.function.name.size() + c.function.arguments.size();
    return estimated_message_overhead + (bytes + 3) / 4 + images * estimated_image_tokens;
}

/// parley's estimate of a function definition's tokens: a token per four bytes of its name,
/// description and parameters' JSON, rounded up.
inline std::size_t estimate_function_tokens(const function_definition& f) {
    return (f.name.size() + f.description.size() + boost::json::serialize(f.parameters).size() + 3) / 4;
}

/// Counts what a request costs in tokens for one model: each message with its framing, each
/// function definition sent with it, and the tokens a request adds once (the priming of the
/// reply, for instance). A default-constructed counter is parley's estimate; a callable
/// `std::size_t(const message&)` converts to a counter that counts messages with it (function
/// definitions are then estimated). Copies share the callables; counting is thread-safe when
/// they are.
class token_counter {
public:
    using message_count = std::function<std::size_t(const message&)>;
    using function_count = std::function<std::size_t(const function_definition&)>;

    /// parley's estimate (estimate_tokens, estimate_function_tokens, nothing per request).
    token_counter() = default;

    /// Messages counted by `count`, function definitions estimated.
    template <class F>
        requires(!std::same_as<std::remove_cvref_t<F>, token_counter> &&
                 std::is_invocable_r_v<std::size_t, F&, const message&>)
    token_counter(F count) : messages_(std::move(count)) {}  // NOLINT: a callable is a counter

    /// Messages counted by `messages`, function definitions by `functions` (estimated when
    /// empty), and `per_request` tokens added once per request.
    token_counter(message_count messages, function_count functions, std::size_t per_request = 0)
        : messages_(std::move(messages)), functions_(std::move(functions)), per_request_(per_request) {}

    /// The tokens `m` takes in a request, framing included.
    std::size_t operator()(const message& m) const { return messages_ ? messages_(m) : estimate_tokens(m); }
    /// The tokens the definition of `f` takes in a request.
    std::size_t function(const function_definition& f) const {
        return functions_ ? functions_(f) : estimate_function_tokens(f);
    }
    /// The tokens every request adds once, whatever it carries.
    std::size_t per_request() const noexcept { return per_request_; }
    /// True for parley's estimate (no callable of one's own).
    bool is_estimate() const noexcept { return !messages_ && !functions_ && per_request_ == 0; }

private:
    message_count messages_;
    function_count functions_;
    std::size_t per_request_ = 0;
};

/// The messages a request carries after fitting, and what they cost.
struct window_fit {
    std::vector<message> messages;  ///< oldest first
    std::size_t message_tokens = 0;  ///< the tokens of `messages`
    std::size_t dropped = 0;  ///< how many of the history's messages were left out
};

/// What a request reserves besides its messages.
struct window_reserve {
    std::size_t reply = 0;  ///< room for the reply (the request's max_tokens)
    std::size_t functions = 0;  ///< the function definitions sent with the request
    std::size_t per_request = 0;  ///< the counter's per-request tokens
    std::size_t total() const noexcept { return reply + functions + per_request; }
};

/// Chooses the messages a request carries in a context window of `window` tokens, of which
/// `reserve` goes to other things. `messages` are the conversation's sendable messages (its
/// system, user, assistant, function and tool messages after its last truncate), oldest first;
/// those from index `keep_from` on (the current read, and the replies and results since) are
/// always sent, and so are system messages, wherever they are. The history before `keep_from`
/// is cut only at turn boundaries: a turn starts at a user message and holds everything up to
/// the next one, so an assistant or tool message is never sent without the user message that led
/// to it, nor a tool result without its call. When the kept part starts inside a turn (the
/// current read begins with an assistant message, say), the start of that turn is kept as well.
/// Whole turns are taken from the newest while they fit; the first that does not fit ends the
/// choice (nothing older is sent). `model` names the model in messages.
/// Throws parley::error (errc::bot_limit) when what may not be dropped does not fit, with the
/// counts: nothing is sent then.
inline window_fit fit_to_window(std::vector<message> messages, std::size_t keep_from, std::size_t window,
                                const window_reserve& reserve, const token_counter& count,
                                std::string_view model = {}) {
    const std::size_t n = messages.size();
    if (keep_from > n) keep_from = n;
    std::vector<std::size_t> tokens(n);
    for (std::size_t i = 0; i < n; ++i) tokens[i] = count(messages[i]);

    // The kept part begins at the turn that holds its first non-system message.
    std::size_t first_kept = keep_from;
    {
        std::size_t first_real = keep_from;
        while (first_real < n && messages[first_real].role == role::system) ++first_real;
        if (first_real < n && messages[first_real].role != role::user) {
            std::size_t start = keep_from;
            while (start > 0 && messages[start - 1].role != role::user) --start;
            if (start > 0) first_kept = start - 1;  // the user message that opened the turn
            else first_kept = 0;
        }
    }

    std::size_t system_tokens = 0;
    std::size_t systems = 0;
    std::size_t kept_tokens = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (i >= first_kept) kept_tokens += tokens[i];
        else if (messages[i].role == role::system) {
            system_tokens += tokens[i];
            ++systems;
        }
    }
    const std::size_t needed = reserve.total() + system_tokens + kept_tokens;
    if (needed > window) {
        auto num = [](std::size_t v) { return std::to_string(v); };
        std::string what = "the request does not fit the context window";
        if (!model.empty()) what += " of '" + std::string(model) + "'";
        what += " (" + num(window) + " tokens): the messages that may not be dropped take " +
                num(system_tokens + kept_tokens) + " tokens (" + num(n - first_kept) +
                (n - first_kept == 1 ? " message" : " messages") + " of the current read and after it: " + num(kept_tokens);
        if (systems != 0) what += "; " + num(systems) + " earlier system message" + (systems == 1 ? "" : "s") + ": " + num(system_tokens);
        what += ")";
        if (reserve.reply != 0) what += ", max_tokens reserves " + num(reserve.reply);
        if (reserve.functions != 0) what += ", the function definitions take " + num(reserve.functions);
        if (reserve.per_request != 0) what += ", every request adds " + num(reserve.per_request);
        what += ": " + num(needed) + " in all";
        throw error(errc::bot_limit, what);
    }

    // Whole turns of the history, newest first, while they fit.
    std::size_t budget = window - needed;
    std::size_t cut = first_kept;  // the history's messages from `cut` on are sent
    while (cut > 0) {
        std::size_t begin = cut - 1;
        while (begin > 0 && messages[begin].role != role::user) --begin;
        std::size_t turn = 0;
        for (std::size_t i = begin; i < cut; ++i)
            if (messages[i].role != role::system) turn += tokens[i];
        if (turn > budget) break;
        budget -= turn;
        cut = begin;
    }

    window_fit out;
    out.messages.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (i < cut && messages[i].role != role::system) {
            ++out.dropped;
            continue;
        }
        out.message_tokens += tokens[i];
        out.messages.push_back(std::move(messages[i]));
    }
    return out;
}

}  // namespace parley

#endif
