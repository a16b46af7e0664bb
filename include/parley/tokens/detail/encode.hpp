// parley/tokens/detail/encode.hpp: encoding text to token ids and decoding ids to text, for both
// kinds of model, in parley/tokens/detail/encode/ (common, tiktoken, hf, decode), each file
// including the one before.
#ifndef PARLEY_TOKENS_DETAIL_ENCODE_HPP
#define PARLEY_TOKENS_DETAIL_ENCODE_HPP

#include <parley/tokens/detail/encode/decode.hpp>

#endif
