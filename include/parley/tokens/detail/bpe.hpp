// parley/tokens/detail/bpe.hpp: byte-pair merging of one piece.
//
// tiktoken's rule: the piece starts as single bytes; the adjacent pair whose concatenation has
// the lowest rank (the leftmost of equal ranks) merges, until no pair is a token. Pieces of up to
// 96 bytes use tiktoken's own loop over a small array (quadratic, but cache friendly); longer
// ones a heap over a linked list (O(n log n)), which merges the same pairs in the same order.
//
// Hugging Face's rule (models/bpe/word.rs): the word starts as symbols; a heap of (merge rank,
// position) entries pops the lowest, checks that the pair there still merges to the entry's
// token, merges, and pushes the pairs the merged symbol forms with its neighbours. parley runs the
// same heap with the same checks, so it merges the same pairs in the same order.
#ifndef PARLEY_TOKENS_DETAIL_BPE_HPP
#define PARLEY_TOKENS_DETAIL_BPE_HPP

#include <parley/tokens/detail/vocab.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// Pieces up to this length use tiktoken's quadratic loop.
inline constexpr std::size_t small_piece = 96;

/// Scratch space of one thread's merges, kept between calls.
struct bpe_scratch {
    std::vector<std::uint32_t> next, prev, rank;
    std::vector<std::uint64_t> heap;
    struct symbol {
        std::uint32_t id;
        std::int32_t prev, next;
        std::uint32_t len;
    };
    std::vector<symbol> symbols;
    struct hf_merge {
        std::uint32_t rank, pos, id, left, right;  ///< left and right: the pair the entry was made for
    };
    std::vector<hf_merge> hf_heap;
};

/// Runs tiktoken's merge over `piece` (at least two bytes, every byte a token) and calls
/// `emit(id)` for each token in order. `pair_ranks` holds the rank of each two-byte token at
/// [first << 8 | second] and of each byte at [65536 + byte] (no_token for none).
template <class Emit>
void tiktoken_merge(std::string_view piece, const byte_map& map, const token_table& tokens, const std::uint32_t* pair_ranks,
                    bpe_scratch& scratch, Emit&& emit) {
    const std::size_t n = piece.size();
    const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
    // two-byte tokens from the table of every byte pair's rank, longer ones from the hash map
    auto rank_of = [&](std::size_t b, std::size_t e) {
        if (e - b == 2) return pair_ranks[(std::size_t(bytes[b]) << 8) | bytes[b + 1]];
        if (e - b == 1) return pair_ranks[65536 + bytes[b]];
        return map.find(piece.substr(b, e - b), tokens);
    };
    if (n <= small_piece) {
        std::uint32_t start[small_piece + 1], rank[small_piece + 1];
        std::size_t len = n + 1;
        std::uint32_t min_rank = no_token;
        std::size_t min_i = 0;
        for (std::size_t i = 0; i + 1 < n; ++i) {
            start[i] = static_cast<std::uint32_t>(i);
            rank[i] = rank_of(i, i + 2);
            if (rank[i] < min_rank) {
                min_rank = rank[i];
                min_i = i;
            }
        }
        start[n - 1] = static_cast<std::uint32_t>(n - 1);
        rank[n - 1] = no_token;
        start[n] = static_cast<std::uint32_t>(n);
        rank[n] = no_token;
        auto get_rank = [&](std::size_t i) { return i + 3 < len ? rank_of(start[i], start[i + 3]) : no_token; };
        while (min_rank != no_token) {
            const std::size_t i = min_i;
            if (i > 0) rank[i - 1] = get_rank(i - 1);
            rank[i] = get_rank(i);
            for (std::size_t k = i + 1; k + 1 < len; ++k) {
                start[k] = start[k + 1];
                rank[k] = rank[k + 1];
            }
            --len;
            min_rank = no_token;
            for (std::size_t k = 0; k + 1 < len; ++k)
                if (rank[k] < min_rank) {
                    min_rank = rank[k];
                    min_i = k;
                }
        }
        for (std::size_t k = 0; k + 1 < len; ++k) emit(rank_of(start[k], start[k + 1]));
        return;
    }
    // Parts are named by their first byte; next/prev link them, rank[p] is the rank of part p
    // merged with the part after it.
    auto& next = scratch.next;
    auto& prev = scratch.prev;
    auto& rank = scratch.rank;
    auto& heap = scratch.heap;
    next.resize(n + 1);
    prev.resize(n + 1);
    rank.resize(n + 1);
    heap.clear();
    for (std::size_t i = 0; i < n; ++i) {
        next[i] = static_cast<std::uint32_t>(i + 1);
        prev[i] = static_cast<std::uint32_t>(i - 1);  // wraps for 0: never read
        rank[i] = i + 1 < n ? rank_of(i, i + 2) : no_token;
        if (rank[i] != no_token) heap.push_back((std::uint64_t(rank[i]) << 32) | i);
    }
    next[n] = static_cast<std::uint32_t>(n + 1);
    const auto later = std::greater<std::uint64_t>();
    std::make_heap(heap.begin(), heap.end(), later);
    auto pair_rank = [&](std::uint32_t p) -> std::uint32_t {
        const std::uint32_t q = next[p];
        if (q >= n) return no_token;
        return rank_of(p, next[q]);
    };
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const std::uint64_t top = heap.back();
        heap.pop_back();
        const std::uint32_t p = static_cast<std::uint32_t>(top);
        if (rank[p] != static_cast<std::uint32_t>(top >> 32)) continue;  // stale: the pair changed
        const std::uint32_t q = next[p];
        next[p] = next[q];
        if (next[p] < n) prev[next[p]] = p;
        rank[q] = no_token;
        rank[p] = pair_rank(p);
        if (rank[p] != no_token) {
            heap.push_back((std::uint64_t(rank[p]) << 32) | p);
            std::push_heap(heap.begin(), heap.end(), later);
        }
        if (p > 0) {
            const std::uint32_t o = prev[p];
            rank[o] = pair_rank(o);
            if (rank[o] != no_token) {
                heap.push_back((std::uint64_t(rank[o]) << 32) | o);
                std::push_heap(heap.begin(), heap.end(), later);
            }
        }
    }
    for (std::uint32_t p = 0; p < n; p = next[p]) emit(rank_of(p, next[p]));
}

/// Runs Hugging Face's merge over the symbols of `scratch.symbols` (ids and byte lengths, linked
/// in order), leaving the merged symbols there (those of length 0 were merged away).
inline void hf_merge(const pair_map& merges, bpe_scratch& scratch) {
    auto& symbols = scratch.symbols;
    auto& heap = scratch.hf_heap;
    heap.clear();
    // a min-heap on (rank, position)
    auto later = [](const bpe_scratch::hf_merge& a, const bpe_scratch::hf_merge& b) {
        return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
    };
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i)
        if (const merge_info* m = merges.find(symbols[i].id, symbols[i + 1].id))
            heap.push_back({m->rank, static_cast<std::uint32_t>(i), m->id, symbols[i].id, symbols[i + 1].id});
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const bpe_scratch::hf_merge top = heap.back();
        heap.pop_back();
        auto& cur = symbols[top.pos];
        if (cur.len == 0 || cur.next == -1) continue;
        const std::size_t next_pos = static_cast<std::size_t>(cur.next);
        const auto right = symbols[next_pos];
        if (cur.id != top.left || right.id != top.right) {
            // the pair changed since the entry was made: the reference merges anyway when the new
            // pair merges into the same token (its check compares the merged token only)
            const merge_info* m = merges.find(cur.id, right.id);
            if (!m || m->id != top.id) continue;  // an expired entry
        }
        cur.id = top.id;
        cur.len += right.len;
        cur.next = right.next;
        symbols[next_pos].len = 0;
        if (right.next > -1 && static_cast<std::size_t>(right.next) < symbols.size())
            symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(top.pos);
        if (cur.prev >= 0) {
            const auto& before = symbols[static_cast<std::size_t>(cur.prev)];
            if (const merge_info* pm = merges.find(before.id, cur.id)) {
                heap.push_back({pm->rank, static_cast<std::uint32_t>(cur.prev), pm->id, before.id, cur.id});
                std::push_heap(heap.begin(), heap.end(), later);
            }
        }
        if (cur.next >= 0 && static_cast<std::size_t>(cur.next) < symbols.size()) {
            const auto& after = symbols[static_cast<std::size_t>(cur.next)];
            if (const merge_info* nm = merges.find(cur.id, after.id)) {
                heap.push_back({nm->rank, top.pos, nm->id, cur.id, after.id});
                std::push_heap(heap.begin(), heap.end(), later);
            }
        }
    }
}

}  // namespace parley::tokens::detail

#endif
