// parley/bot/tokenizers.hpp: exact token counters for the bot's context window, from parley's
// tokenizers (parley/tokens): OpenAI models with their tiktoken encoding, and local models with
// their Hugging Face folder's chat template and tokenizer. See docs/tokens.md.
#ifndef PARLEY_BOT_TOKENIZERS_HPP
#define PARLEY_BOT_TOKENIZERS_HPP

#include <parley/bot/models.hpp>
#include <parley/bot/tokens.hpp>
#include <parley/tokens/chat_template.hpp>
#include <parley/tokens/openai.hpp>
#include <parley/tokens/tokenizer.hpp>

#include <string_view>
#include <utility>

namespace parley {

/// A counter for OpenAI models with the tokenizer `t` (o200k_base for GPT-4o, GPT-4.1, o1, o3,
/// o4; cl100k_base for GPT-4 and GPT-3.5): messages by tokens::openai_message_tokens (the
/// documented framing, images by the tile rule), function definitions by
/// tokens::openai_function_tokens, 3 tokens per request (the priming of the reply).
inline token_counter openai_token_counter(tokens::tokenizer t) {
    return token_counter([t](const message& m) { return tokens::openai_message_tokens(t, m); },
                         [t](const function_definition& f) { return tokens::openai_function_tokens(t, f); },
                         tokens::openai_tokens_per_request);
}

/// A counter for a local model from its chat template and tokenizer
/// (tokens::chat_template_counter): each message as the template renders it alone, each
/// function definition as the template renders it, and the generation prompt once per request.
/// For templates that render each message on its own (ChatML and most others) the sum is the
/// whole conversation's count; chat_template_counter::count counts a whole conversation exactly.
inline token_counter chat_template_token_counter(tokens::chat_template_counter c) {
    const std::size_t per_request = c.request_tokens();
    return token_counter([c](const message& m) { return c.message_tokens(m); },
                         [c](const function_definition& f) { return c.function_tokens(f); }, per_request);
}

/// Sets the counters of OpenAI's models in `catalog`: those of o200k_base (gpt-4o, gpt-4.1,
/// gpt-4.5, gpt-5, o1, o3, o4, chatgpt-4o), cl100k_base (gpt-4, gpt-3.5) and o200k_harmony
/// (gpt-oss) when the matching tokenizer is given.
inline model_catalog& set_openai_counters(model_catalog& catalog, const tokens::tokenizer* o200k_base,
                                         const tokens::tokenizer* cl100k_base, const tokens::tokenizer* o200k_harmony = nullptr) {
    for (std::string_view p : {"gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o"})
        if (o200k_base) catalog.set_counter(p, openai_token_counter(*o200k_base));
    for (std::string_view p : {"gpt-4", "gpt-3.5"})
        if (cl100k_base) catalog.set_counter(p, openai_token_counter(*cl100k_base));
    if (o200k_harmony) catalog.set_counter("gpt-oss", openai_token_counter(*o200k_harmony));
    return catalog;
}

}  // namespace parley

#endif
