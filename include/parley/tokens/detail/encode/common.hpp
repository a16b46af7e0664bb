// parley/tokens/detail/encode/common.hpp: what encoding and decoding share: the sink of token ids,
// the cache of encoded pieces, per-thread scratch buffers, the UTF-8 check of input text.
#ifndef PARLEY_TOKENS_DETAIL_ENCODE_COMMON_HPP
#define PARLEY_TOKENS_DETAIL_ENCODE_COMMON_HPP

#include <parley/error.hpp>
#include <parley/tokens/detail/bpe.hpp>
#include <parley/tokens/detail/model.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// Where ids go: counted, and appended to `out` when it is set.
struct token_sink {
    std::vector<std::uint32_t>* out = nullptr;
    std::size_t count = 0;
    void add(std::uint32_t id) {
        ++count;
        if (out) out->push_back(id);
    }
};

/// What to do with text that spells a special token.
enum class special_mode : std::uint8_t { recognized, as_text, refused };

/// Results of recent pieces that took merges, per thread and tokenizer; emptied when half full.
/// A slot is 16 bytes (half a megabyte for all): a probe that finds nothing costs about what it
/// saves, so the table is kept small enough to stay in cache. Entries are forgotten by bumping a
/// generation number, without rewriting the slots.
class piece_cache {
public:
    static constexpr std::size_t max_piece = 256;

    /// The ids of `piece` (whose hash_bytes is `h`), or nullptr; `n` receives their number.
    const std::uint32_t* find(std::uint64_t owner, std::string_view piece, std::uint64_t h, std::size_t& n) {
        if (owner != owner_) {
            reset(owner);
            return nullptr;
        }
        const auto check = static_cast<std::uint32_t>(h >> 32);
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const slot& s = slots_[i];
            if (s.generation != generation_) return nullptr;
            if (s.check == check && s.key_length == piece.size() &&
                same_bytes(reinterpret_cast<const char*>(data_.data() + s.offset + s.ids_length), piece.data(), piece.size())) {
                n = s.ids_length;
                return data_.data() + s.offset;
            }
        }
    }

    /// Records the ids of `piece` (at most max_piece bytes, whose hash_bytes is `h`).
    void put(std::uint64_t owner, std::string_view piece, std::uint64_t h, const std::uint32_t* ids, std::size_t n) {
        if (owner != owner_ || used_ * 2 >= capacity || data_.size() > max_words) reset(owner);
        std::size_t i = h & mask;
        while (slots_[i].generation == generation_) i = (i + 1) & mask;
        const auto offset = static_cast<std::uint32_t>(data_.size());
        slots_[i] = slot{static_cast<std::uint32_t>(h >> 32), offset, static_cast<std::uint16_t>(piece.size()),
                         static_cast<std::uint16_t>(n), generation_};
        data_.insert(data_.end(), ids, ids + n);
        data_.resize(data_.size() + (piece.size() + 3) / 4);
        std::memcpy(data_.data() + offset + n, piece.data(), piece.size());
        ++used_;
    }

    /// Forgets every piece (the next lookup starts a new cache).
    void clear() noexcept { owner_ = 0; }

private:
    static constexpr std::size_t capacity = 1 << 15, mask = capacity - 1;
    static constexpr std::size_t max_words = std::size_t(1) << 20;  ///< of data_
    /// An entry: its ids then its bytes at data_[offset], of the generation that wrote it.
    struct slot {
        std::uint32_t check = 0, offset = 0;
        std::uint16_t key_length = 0, ids_length = 0;
        std::uint32_t generation = 0;
    };
    void reset(std::uint64_t owner) {
        owner_ = owner;
        if (slots_.size() != capacity || ++generation_ == 0) {
            slots_.assign(capacity, slot{});
            generation_ = 1;
        }
        data_.clear();
        used_ = 0;
    }
    std::vector<slot> slots_;
    std::vector<std::uint32_t> data_;  ///< ids and bytes of the entries
    std::uint64_t owner_ = 0;
    std::uint32_t generation_ = 0;
    std::size_t used_ = 0;
};

/// A piece of text to tokenize: bytes [b, e) of a thread's arena.
struct span {
    std::uint32_t b, e;
};

/// Per-thread working memory of the encoder.
struct encoder_scratch {
    bpe_scratch bpe;
    piece_cache cache;
    std::vector<std::uint32_t> ids;
    std::string normalized, normalize_tmp, arena;
    std::vector<span> pieces, pieces_tmp;
    std::vector<std::pair<span, bool>> matches;
};

inline encoder_scratch& thread_scratch() {
    thread_local encoder_scratch s;
    return s;
}

/// Throws errc::tokenizer_input for invalid UTF-8.
inline void check_utf8(std::string_view text) {
    const std::size_t bad = invalid_utf8_offset(text);
    if (bad != std::string_view::npos) {
        static const char* hex = "0123456789abcdef";
        const auto b = static_cast<unsigned char>(text[bad]);
        throw error(errc::tokenizer_input, std::string("the text is not valid UTF-8: byte 0x") + hex[b >> 4] + hex[b & 15] +
                                               " at offset " + std::to_string(bad) + " does not begin a valid sequence");
    }
}

[[noreturn]] inline void refused_special(const added_token& t, std::size_t at) {
    throw error(errc::tokenizer_input, "the text spells the special token " + t.content + " at byte " + std::to_string(at) +
                                           ", and special tokens are refused here (special_tokens::refused)");
}

}  // namespace parley::tokens::detail

#endif
