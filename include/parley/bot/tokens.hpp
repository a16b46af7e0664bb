// parley/bot/tokens.hpp: token counting and the context window (step 3 of the bot algorithm):
// a token counter (any callable; a default estimator), the context sizes of known models, and
// the choice of the newest messages that fit, never separating a tool call from its results.
#ifndef PARLEY_BOT_TOKENS_HPP
#define PARLEY_BOT_TOKENS_HPP

#include <parley/chat/message.hpp>
#include <parley/error.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// Counts the tokens a message takes in a request (its text, names, calls and the per-message
/// overhead of the wire format).
using token_counter = std::function<std::size_t(const message&)>;

/// Tokens of an image part for the default estimator (OpenAI's cost of a low-detail image).
inline constexpr std::size_t estimated_image_tokens = 85;
/// Tokens of a message's framing (role, separators) for the default estimator.
inline constexpr std::size_t estimated_message_overhead = 4;

/// The default estimator: about one token per four bytes of text (rounded up), counted over the
/// content's texts, the name, the tool call id and every call's name and arguments; 85 tokens
/// per image part; 4 tokens of framing per message. It errs on the high side for English prose
/// and is exact for no tokenizer: give the bot a counter of your own for exact budgets.
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

/// Context sizes (in tokens) of models, matched by the longest prefix of the model's name
/// ("gpt-4o-mini-2024-07-18" takes the size of "gpt-4o-mini"), and the size of other models.
struct context_windows {
    /// (prefix, size) pairs; the longest matching prefix wins.
    std::vector<std::pair<std::string, std::size_t>> sizes;
    /// The size of a model no prefix matches (or of a request without a model); 0 means no limit.
    std::size_t fallback = 0;

    /// The context size of `model`; 0 means no limit.
    std::size_t of(std::string_view model) const noexcept {
        std::size_t best_length = 0;
        std::size_t size = fallback;
        bool found = false;
        for (const auto& [prefix, n] : sizes) {
            if (model.substr(0, prefix.size()) != prefix) continue;
            if (found && prefix.size() <= best_length) continue;
            found = true;
            best_length = prefix.size();
            size = n;
        }
        return size;
    }

    /// Sets the size of models whose name starts with `prefix` (replacing an earlier size of the
    /// same prefix).
    context_windows& set(std::string prefix, std::size_t size) {
        for (auto& entry : sizes)
            if (entry.first == prefix) {
                entry.second = size;
                return *this;
            }
        sizes.emplace_back(std::move(prefix), size);
        return *this;
    }

    /// The published context sizes of common OpenAI and Anthropic models; other models have no
    /// limit.
    static context_windows known() {
        context_windows w;
        w.set("gpt-3.5-turbo", 16385)
            .set("gpt-4", 8192)
            .set("gpt-4-32k", 32768)
            .set("gpt-4-turbo", 128000)
            .set("gpt-4o", 128000)
            .set("gpt-4o-mini", 128000)
            .set("gpt-4.1", 1047576)
            .set("o1", 200000)
            .set("o3", 200000)
            .set("o4-mini", 200000)
            .set("claude-", 200000);
        return w;
    }
};

/// The index of the first of `messages` to send so that the newest messages fit in `budget`
/// tokens, counting each with `count`. Messages are kept in blocks that are never split: an
/// assistant message that calls tools (or a function) together with the tool (function)
/// messages that follow it. Blocks are taken from the newest while they fit; the first block that
/// does not fit stops the choice (nothing older is sent). A `budget` of 0 means no limit (0 is
/// returned). Throws parley::error (errc::bot_limit) when not even the newest block fits.
inline std::size_t fit_to_window(const std::vector<message>& messages, std::size_t budget, const token_counter& count) {
    if (budget == 0) return 0;
    const auto counter = count ? count : token_counter(&estimate_tokens);
    std::size_t used = 0;
    std::size_t first = messages.size();
    auto is_result = [](const message& m) { return m.role == role::tool || m.role == role::function; };
    while (first > 0) {
        // the block that ends at first - 1: one message, or results with the call before them
        std::size_t begin = first - 1;
        if (is_result(messages[begin])) {
            while (begin > 0 && is_result(messages[begin - 1])) --begin;
            const message* call = begin > 0 ? &messages[begin - 1] : nullptr;
            if (call && call->role == role::assistant && (!call->tool_calls.empty() || call->function_call)) --begin;
        }
        std::size_t tokens = 0;
        for (std::size_t i = begin; i < first; ++i) tokens += counter(messages[i]);
        if (used + tokens > budget) {
            if (first == messages.size()) {
                const std::size_t n = first - begin;
                throw error(errc::bot_limit, (n == 1 ? std::string("the newest message of the conversation (")
                                                     : "the newest " + std::to_string(n) +
                                                           " messages of the conversation (a call and its results, ") +
                                                 std::to_string(tokens) + (n == 1 ? " tokens) does" : " tokens) do") + " not fit in the " +
                                                 std::to_string(budget) + " tokens the context window leaves for messages");
            }
            break;
        }
        used += tokens;
        first = begin;
    }
    return first;
}

}  // namespace parley

#endif
