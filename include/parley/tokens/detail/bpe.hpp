// parley/tokens/detail/bpe.hpp: byte-pair merging of one piece.
//
// tiktoken's rule: the piece starts as single bytes; the adjacent pair whose concatenation has
// the lowest rank (the leftmost of equal ranks) merges, until no pair is a token.
//
// Hugging Face's rule (models/bpe/word.rs): the word starts as symbols; a heap of (merge rank,
// position) entries pops the lowest, checks that the pair there still merges to the entry's
// token, merges, and pushes the pairs the merged symbol forms with its neighbours. A pair that
// changed since its entry was made never passes that check: the merged symbol is longer than
// either of the two, so the new pair's concatenation is another string, hence (the loader refuses
// a string or an id given twice) another token. So the reference too merges, at each step, the
// pair of lowest rank, the leftmost of equal ranks.
//
// Both run here on one engine. Each adjacent pair has a key (rank << 32 | position) and the
// least key merges; a merge looks up the two pairs the merged part forms with its neighbours.
// Pieces of up to 32 parts find the least key with a scan of all keys, up to 256 parts with a scan
// of the least key of each block of 8 (both branch free, over arrays on the stack); longer ones
// keep the keys in a tree of the least of each 8 (8 keys to a cache line; a change rescans its
// block and goes up only while the block's least changes): O(log n) a merge, so O(n log n) for a
// piece of n parts, whatever the text.
#ifndef PARLEY_TOKENS_DETAIL_BPE_HPP
#define PARLEY_TOKENS_DETAIL_BPE_HPP

#include <parley/tokens/detail/vocab.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// Pieces up to this many parts find each merge with a scan of all their merge keys; up to
/// medium_piece with a scan of the least key of each block of 8 (both on the stack); longer ones
/// with a key_tree.
inline constexpr std::size_t small_piece = 32;
inline constexpr std::size_t medium_piece = 256;

/// Scratch space of one thread's merges, kept between calls.
struct bpe_scratch {
    std::vector<std::uint32_t> next, prev, id, made;
    std::vector<std::uint64_t> tree;
    std::vector<std::uint32_t> symbols;  ///< Hugging Face: the tokens a piece starts as
};

/// Units above which the scratch space of a piece is given back after it (a thread keeps the
/// space of ordinary pieces, not that of the longest piece it ever saw).
inline constexpr std::size_t kept_scratch_units = std::size_t(1) << 16;

/// No merge (greater than every merge key).
inline constexpr std::uint64_t no_merge = ~std::uint64_t(0);

/// The order of the merge of a pair starting at `pos`: its rank, then its position (the leftmost
/// of equal ranks first); no_merge for no rank.
inline std::uint64_t merge_key(std::uint32_t rank, std::size_t pos) noexcept {
    return rank == no_token ? no_merge : (std::uint64_t(rank) << 32) | pos;
}

/// The least of keys[0, n) (n a multiple of 4), in four independent chains.
__attribute__((always_inline)) inline std::uint64_t least_key(const std::uint64_t* keys, std::size_t n) noexcept {
    std::uint64_t a = no_merge, b = no_merge, c = no_merge, d = no_merge;
    for (std::size_t k = 0; k < n; k += 4) {
        a = std::min(a, keys[k]);
        b = std::min(b, keys[k + 1]);
        c = std::min(c, keys[k + 2]);
        d = std::min(d, keys[k + 3]);
    }
    return std::min(std::min(a, b), std::min(c, d));
}

/// The merge keys of up to N positions on the stack, the least found by scanning them all.
template <std::size_t N>
class flat_keys {
public:
    /// n keys, all no_merge.
    explicit flat_keys(std::size_t n) noexcept : padded_((n + 3) & ~std::size_t(3)) {
        for (std::size_t k = 0; k < padded_; ++k) key_[k] = no_merge;
    }
    /// Sets key p before the first call of least (then call ready).
    void init(std::size_t p, std::uint64_t k) noexcept { key_[p] = k; }
    void ready() noexcept {}
    void set(std::size_t p, std::uint64_t k) noexcept { key_[p] = k; }
    std::uint64_t least() const noexcept { return least_key(key_, padded_); }

private:
    std::size_t padded_;
    std::uint64_t key_[(N + 3) & ~std::size_t(3)];
};

/// The merge keys of up to N positions on the stack with the least of each block of 8: setting a
/// key rescans its block, finding the least scans the blocks' least.
template <std::size_t N>
class block_keys {
public:
    explicit block_keys(std::size_t n) noexcept : blocks_(((n + 7) / 8 + 3) & ~std::size_t(3)) {
        for (std::size_t k = 0; k < blocks_ * 8; ++k) key_[k] = no_merge;
    }
    void init(std::size_t p, std::uint64_t k) noexcept { key_[p] = k; }
    void ready() noexcept {
        for (std::size_t b = 0; b < blocks_; ++b) least_[b] = least_key(key_ + b * 8, 8);
    }
    void set(std::size_t p, std::uint64_t k) noexcept {
        key_[p] = k;
        least_[p / 8] = least_key(key_ + (p & ~std::size_t(7)), 8);
    }
    std::uint64_t least() const noexcept { return least_key(least_, blocks_); }

private:
    static constexpr std::size_t blocks = ((N + 7) / 8 + 3) & ~std::size_t(3);
    std::size_t blocks_;
    std::uint64_t key_[blocks * 8];
    std::uint64_t least_[blocks];
};

/// The merge keys of n positions in a tree: level 0 holds the keys, each level above the least of
/// each block of 8 entries of the level below, up to a level of one block. Levels are padded to
/// blocks of 8 with no_merge.
class key_tree {
public:
    /// The entries of the tree of n keys.
    static constexpr std::size_t storage_for(std::size_t n) noexcept {
        std::size_t size = round8(std::max<std::size_t>(n, 1)), total = size;
        while (size > 8) {
            size = round8(size / 8);
            total += size;
        }
        return total;
    }

    /// n keys, all no_merge, in `storage` (storage_for(n) entries).
    key_tree(std::size_t n, std::uint64_t* storage) noexcept : t_(storage) {
        std::size_t size = round8(std::max<std::size_t>(n, 1)), total = 0;
        for (;;) {
            offset_[levels_++] = total;
            total += size;
            if (size == 8) break;
            size = round8(size / 8);
        }
        std::fill(t_, t_ + total, no_merge);
    }
    void init(std::size_t p, std::uint64_t k) noexcept { t_[p] = k; }
    void ready() noexcept {
        for (std::size_t l = 0; l + 1 < levels_; ++l)
            for (std::size_t b = 0; offset_[l] + b * 8 < offset_[l + 1]; ++b) t_[offset_[l + 1] + b] = least_key(t_ + offset_[l] + b * 8, 8);
    }
    void set(std::size_t p, std::uint64_t k) noexcept {
        t_[p] = k;
        for (std::size_t l = 0, i = p; l + 1 < levels_; ++l) {
            const std::size_t b = i / 8;
            const std::uint64_t least = least_key(t_ + offset_[l] + b * 8, 8);
            std::uint64_t& above = t_[offset_[l + 1] + b];
            if (above == least) break;  // nothing changes further up
            above = least;
            i = b;
        }
    }
    std::uint64_t least() const noexcept { return least_key(t_ + offset_[levels_ - 1], 8); }

private:
    static constexpr std::size_t round8(std::size_t n) noexcept { return (n + 7) & ~std::size_t(7); }
    std::uint64_t* t_;
    std::size_t offset_[24] = {};  // 8^22 keys would not fit in memory
    std::size_t levels_ = 0;
};

// The engine's callbacks, for a piece of n units (bytes or symbols):
//   initial(p)                     the token of unit p at the start;
//   merge_of(b, m, e, left, right) the merge (rank and token; no_merge_info for none) of the part
//                                  of units [b, m), token left, with the part [m, e), token right;
//   emit(id)                       called with each token of the result, in order.
// RankIsToken: a merge's token is its rank (tiktoken), which then need not be kept apart.
// Parts are named by their first unit: next[p] and prev[p] link them, id[p] is the part's token,
// the key of p the merge of the part with the next one (no_merge for units inside parts), made[p]
// the token that merge makes.

/// The engine over n units (n >= 1): Keys holds the keys; the arrays have room for n.
template <bool RankIsToken, class Index, class Keys, class Initial, class MergeOf, class Emit>
void merge_parts(std::size_t n, Keys& key, std::uint32_t* id, std::uint32_t* made, Index* next, Index* prev, Initial& initial,
                 MergeOf& merge_of, Emit& emit) {
    auto set = [&](std::size_t p, const merge_info& m) {
        key.set(p, merge_key(m.rank, p));
        if constexpr (!RankIsToken) made[p] = m.id;
    };
    for (std::size_t p = 0; p < n; ++p) {
        id[p] = initial(p);
        next[p] = static_cast<Index>(p + 1);
        prev[p] = static_cast<Index>(p - 1);  // wraps for 0: never read
    }
    for (std::size_t p = 0; p + 1 < n; ++p) {
        const merge_info m = merge_of(p, p + 1, p + 2, id[p], id[p + 1]);
        key.init(p, merge_key(m.rank, p));
        if constexpr (!RankIsToken) made[p] = m.id;
    }
    key.ready();
    for (;;) {
        const std::uint64_t least = key.least();
        if (least == no_merge) break;
        const std::size_t p = static_cast<std::uint32_t>(least);
        const std::size_t q = next[p], r = next[q];
        if constexpr (RankIsToken) id[p] = static_cast<std::uint32_t>(least >> 32);
        else id[p] = made[p];
        key.set(q, no_merge);
        next[p] = static_cast<Index>(r);
        if (r < n) {
            prev[r] = static_cast<Index>(p);
            set(p, merge_of(p, r, next[r], id[p], id[r]));
        } else {
            key.set(p, no_merge);
        }
        if (p > 0) {
            const std::size_t o = prev[p];
            set(o, merge_of(o, p, r, id[o], id[p]));
        }
    }
    for (std::size_t p = 0; p < n; p = next[p]) emit(id[p]);
}

/// Byte-pair merges of n >= 1 units with the engine that suits n.
template <bool RankIsToken, class Initial, class MergeOf, class Emit>
void merge_units(std::size_t n, Initial&& initial, MergeOf&& merge_of, bpe_scratch& scratch, Emit&& emit) {
    if (n <= small_piece) {
        flat_keys<small_piece> key(n);
        std::uint32_t id[small_piece], made[RankIsToken ? 1 : small_piece];
        std::uint16_t next[small_piece], prev[small_piece];
        merge_parts<RankIsToken>(n, key, id, made, next, prev, initial, merge_of, emit);
        return;
    }
    if (n <= medium_piece) {
        block_keys<medium_piece> key(n);
        std::uint32_t id[medium_piece], made[RankIsToken ? 1 : medium_piece];
        std::uint16_t next[medium_piece], prev[medium_piece];
        merge_parts<RankIsToken>(n, key, id, made, next, prev, initial, merge_of, emit);
        return;
    }
    scratch.tree.resize(key_tree::storage_for(n));
    key_tree key(n, scratch.tree.data());
    scratch.next.resize(n);
    scratch.prev.resize(n);
    scratch.id.resize(n);
    if constexpr (!RankIsToken) scratch.made.resize(n);
    merge_parts<RankIsToken>(n, key, scratch.id.data(), scratch.made.data(), scratch.next.data(), scratch.prev.data(), initial,
                             merge_of, emit);
    if (n > kept_scratch_units) {
        for (auto* v : {&scratch.next, &scratch.prev, &scratch.id, &scratch.made}) std::vector<std::uint32_t>().swap(*v);
        std::vector<std::uint64_t>().swap(scratch.tree);
    }
}

/// Runs tiktoken's merge over `piece` (at least one byte, every byte a token) and calls
/// `emit(id)` for each token in order. `pair_ranks` holds the rank of each two-byte token at
/// [first << 8 | second] and of each byte at [65536 + byte] (no_token for none). A part's token
/// is its rank, which is the rank of the merge that made it.
template <class Emit>
void tiktoken_merge(std::string_view piece, const byte_map& map, const token_table& tokens, const std::uint32_t* pair_ranks,
                    bpe_scratch& scratch, Emit&& emit) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
    merge_units<true>(
        piece.size(), [&](std::size_t p) { return pair_ranks[65536 + bytes[p]]; },
        [&](std::size_t b, std::size_t, std::size_t e, std::uint32_t, std::uint32_t) {
            // two-byte tokens from the table of every byte pair's rank, longer ones from the map
            const std::uint32_t rank = e - b == 2 ? pair_ranks[(std::size_t(bytes[b]) << 8) | bytes[b + 1]]
                                                  : map.find(std::string_view(piece.data() + b, e - b), tokens);
            return merge_info{rank, rank};
        },
        scratch, emit);
}

/// Runs Hugging Face's merge over the symbols of `scratch.symbols` (their tokens, in order) and
/// calls `emit(id)` for each token of the result. For a byte-level model, `bytes` are the piece's
/// bytes (one symbol each) and `byte_pairs` the merge of every pair of bytes' tokens at
/// [first << 8 | second]; else both are null.
template <class Emit>
void hf_merge(const pair_map& merges, const unsigned char* bytes, const merge_info* byte_pairs, bpe_scratch& scratch, Emit&& emit) {
    const std::uint32_t* symbols = scratch.symbols.data();
    merge_units<false>(
        scratch.symbols.size(), [&](std::size_t p) { return symbols[p]; },
        [&](std::size_t b, std::size_t m, std::size_t e, std::uint32_t left, std::uint32_t right) {
            if (byte_pairs && m - b == 1 && e - m == 1) return byte_pairs[(std::size_t(bytes[b]) << 8) | bytes[m]];
            return merges.merge_of(left, right);
        },
        scratch, emit);
}

}  // namespace parley::tokens::detail

#endif
