// parley/tokens.hpp: the tokens layer: exact token counts with OpenAI's and Hugging Face's
// tokenizers (parley/tokens/tokenizer.hpp). It needs only the support layer. See docs/tokens.md.
#ifndef PARLEY_TOKENS_HPP
#define PARLEY_TOKENS_HPP

#include <parley/tokens/options.hpp>
#include <parley/tokens/tokenizer.hpp>

#endif
