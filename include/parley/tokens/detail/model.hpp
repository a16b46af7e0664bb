// parley/tokens/detail/model.hpp: a loaded tokenizer in memory (tiktoken's or Hugging Face's
// BPE), as the loaders build it and the encoder reads it.
#ifndef PARLEY_TOKENS_DETAIL_MODEL_HPP
#define PARLEY_TOKENS_DETAIL_MODEL_HPP

#include <parley/tokens/detail/literals.hpp>
#include <parley/tokens/detail/normalize.hpp>
#include <parley/tokens/detail/split.hpp>
#include <parley/tokens/detail/vocab.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace parley::tokens::detail {

/// A special token (tiktoken) or an added token (Hugging Face).
struct added_token {
    std::string content;
    std::string decoded;  ///< what decoding gives for it (byte-level decoders map it through the byte alphabet)
    std::uint32_t id = 0;
    bool special = true;
    bool single_word = false, lstrip = false, rstrip = false, normalized = false;
};

/// A pre-tokenizer step of a Hugging Face tokenizer.
struct pre_tokenizer_step {
    enum class kind : std::uint8_t { split_regex, split_string, byte_level };
    enum class behavior : std::uint8_t { removed, isolated, merged_with_previous, merged_with_next, contiguous };
    kind type = kind::split_regex;
    split_pattern pattern = split_pattern::gpt2;  ///< split_regex; byte_level with use_regex: gpt2
    std::string literal;  ///< split_string
    behavior how = behavior::isolated;
    bool invert = false;
    bool add_prefix_space = false;  ///< byte_level
    bool use_regex = false;  ///< byte_level
};

/// A decoder step of a Hugging Face tokenizer.
struct decoder_step {
    enum class kind : std::uint8_t { byte_level, replace, byte_fallback, fuse, strip };
    kind type = kind::byte_level;
    std::string pattern, content;  ///< replace
    char32_t strip_char = 0;  ///< strip
    std::size_t start = 0, stop = 0;  ///< strip
};

/// A loaded tokenizer.
struct model {
    enum class family : std::uint8_t { tiktoken, hf_byte_level, hf_chars };
    family kind = family::tiktoken;
    std::string name;

    token_table tokens;  ///< by id: raw bytes (tiktoken, byte-level vocabularies) or UTF-8 text
    std::vector<bool> hole;  ///< ids of no token (gaps in the ranks or ids)
    byte_map lookup;  ///< token bytes -> id (model vocabulary only)

    // tiktoken
    split_pattern pattern = split_pattern::o200k;
    std::vector<std::uint32_t> pair_ranks;  ///< ranks of the two-byte tokens, then of the bytes (see tiktoken_merge)
    std::vector<added_token> specials;  ///< tiktoken's special tokens, or Hugging Face's added tokens
    literal_set special_set;  ///< tiktoken: every special token

    // Hugging Face
    std::vector<normalizer_step> normalizers;
    std::vector<pre_tokenizer_step> pre_tokenizers;
    std::vector<decoder_step> decoders;
    bool has_decoder = false;
    pair_map merges;
    std::vector<merge_info> byte_pairs;  ///< byte-level: the merge of the tokens of every two bytes, at [first << 8 | second]
    bool ignore_merges = false;
    bool byte_fallback = false;
    bool fuse_unk = false;
    std::uint32_t unk_id = no_token;
    std::array<std::uint32_t, 256> byte_fallback_ids{};  ///< <0xXX> tokens, or no_token
    std::array<std::uint32_t, 256> byte_ids{};  ///< byte-level: the token of each byte's character
    literal_set raw_added;  ///< added tokens matched in the raw text (normalized: false), specials included
    std::vector<std::uint32_t> raw_added_index;  ///< literal -> index in specials
    literal_set raw_added_plain;  ///< the same without the special tokens (special tokens read as text)
    std::vector<std::uint32_t> raw_added_plain_index;
    literal_set normalized_added;  ///< added tokens matched in the normalized text
    std::vector<std::uint32_t> normalized_added_index;
    literal_set normalized_added_plain;
    std::vector<std::uint32_t> normalized_added_plain_index;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> added_ids;  ///< (id, index in specials), sorted by id
    std::vector<bool> special_by_content;  ///< ids whose text is a special token's content (skipped by decode)
    std::vector<std::uint32_t> prefix_ids, suffix_ids;  ///< the post-processor's tokens around a text
    bool chunk_safe = false;  ///< long texts may be cut after a newline between non-space characters
    std::uint32_t vocab_size = 0;  ///< every id is below this

    std::uint64_t instance = 0;  ///< distinguishes tokenizers in the per-thread caches

    /// The added (special) token of `id`, or nullptr.
    const added_token* added_of(std::uint32_t id) const noexcept {
        const auto it = std::lower_bound(added_ids.begin(), added_ids.end(), std::pair<std::uint32_t, std::uint32_t>(id, 0));
        return it != added_ids.end() && it->first == id ? &specials[it->second] : nullptr;
    }
    /// Records the added tokens' ids (the first token of an id is the one decoding gives).
    void index_added() {
        added_ids.clear();
        for (std::uint32_t i = 0; i < specials.size(); ++i) added_ids.emplace_back(specials[i].id, i);
        std::stable_sort(added_ids.begin(), added_ids.end(), [](auto& a, auto& b) { return a.first < b.first; });
        added_ids.erase(std::unique(added_ids.begin(), added_ids.end(), [](auto& a, auto& b) { return a.first == b.first; }), added_ids.end());
    }

    std::size_t memory() const noexcept {
        std::size_t m = tokens.memory() + pair_ranks.capacity() * 4 + hole.capacity() / 8 + lookup.memory() + merges.memory() +
                        byte_pairs.capacity() * sizeof(merge_info) + special_set.memory() +
                        raw_added.memory() + raw_added_plain.memory() + normalized_added.memory() +
                        normalized_added_plain.memory() + added_ids.capacity() * 8 + special_by_content.capacity() / 8;
        for (const auto& s : specials) m += sizeof(s) + s.content.capacity();
        return m;
    }
};

}  // namespace parley::tokens::detail

#endif
