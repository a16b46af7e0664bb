// parley/tokens/options.hpp: the options of loading, encoding and decoding with a tokenizer.
#ifndef PARLEY_TOKENS_OPTIONS_HPP
#define PARLEY_TOKENS_OPTIONS_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace parley::tokens {

/// A token id.
using token_id = std::uint32_t;

/// How a text that spells a special token (`<|endoftext|>`, `<|im_start|>`, `<s>`...) is read.
enum class special_tokens : std::uint8_t {
    recognized,  ///< as the special token (one id): Hugging Face's default, tiktoken's allowed_special="all"
    as_text,  ///< as ordinary text: tiktoken's encode_ordinary; Hugging Face's encode_special_tokens
    refused,  ///< an error (errc::tokenizer_input): tiktoken's default disallowed_special="all"
};

/// Options of encode and count.
struct encode_options {
    /// How text spelling a special token is read. Hugging Face's added tokens that are not
    /// special are always recognized.
    tokens::special_tokens special = special_tokens::recognized;
    /// Hugging Face: add the post-processor's tokens (Llama 2's and Gemma's `<bos>`...), as
    /// `encode(text, add_special_tokens=True)` does. tiktoken adds none.
    bool add_special_tokens = false;
};

/// Options of decode.
struct decode_options {
    /// Leave out special tokens (Hugging Face's skip_special_tokens; tiktoken's special tokens too).
    bool skip_special_tokens = false;
};

/// Bounds on what loading a tokenizer file may take. A file beyond them is refused
/// (errc::tokenizer_file) before its memory is spent.
struct load_limits {
    std::size_t max_file_bytes = std::size_t(1) << 30;  ///< the file's size
    std::size_t max_vocabulary = 4'000'000;  ///< tokens (ranks or ids) of the vocabulary, added tokens included
    std::size_t max_token_bytes = 4096;  ///< bytes of one token
    std::size_t max_merges = 8'000'000;  ///< merges of a Hugging Face BPE model
    std::size_t max_added_tokens = 1'000'000;  ///< added tokens of a Hugging Face tokenizer
};

/// The tiktoken encodings parley knows (their split pattern and special tokens).
enum class tiktoken_encoding : std::uint8_t { o200k_base, cl100k_base, o200k_harmony };

/// The encoding's name ("o200k_base", ...).
constexpr std::string_view encoding_name(tiktoken_encoding e) noexcept {
    switch (e) {
    case tiktoken_encoding::o200k_base: return "o200k_base";
    case tiktoken_encoding::cl100k_base: return "cl100k_base";
    case tiktoken_encoding::o200k_harmony: return "o200k_harmony";
    }
    return "?";
}

/// The encoding of this name, if parley knows it.
constexpr std::optional<tiktoken_encoding> encoding_from_name(std::string_view name) noexcept {
    for (auto e : {tiktoken_encoding::o200k_base, tiktoken_encoding::cl100k_base, tiktoken_encoding::o200k_harmony})
        if (encoding_name(e) == name) return e;
    return std::nullopt;
}

}  // namespace parley::tokens

#endif
