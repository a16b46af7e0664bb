// parley/tokens/detail/vocab.hpp: the vocabulary of a tokenizer in memory: every token's bytes in
// one buffer (id -> bytes), an open-addressing hash table from bytes to id, and a table of merges
// (pair of ids -> rank and merged id).
#ifndef PARLEY_TOKENS_DETAIL_VOCAB_HPP
#define PARLEY_TOKENS_DETAIL_VOCAB_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// An id that is no token.
inline constexpr std::uint32_t no_token = 0xffffffffu;

inline std::uint64_t load64(const unsigned char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline std::uint64_t load32(const unsigned char* p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
__extension__ using uint128 = unsigned __int128;

/// 64x64 -> 128-bit multiplication, folded.
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) noexcept {
    const uint128 r = static_cast<uint128>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

/// A fast hash of a byte string (in the style of wyhash: two words per step, one multiplication).
inline std::uint64_t hash_bytes(const unsigned char* p, std::size_t n) noexcept {
    constexpr std::uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
    std::uint64_t seed = k0 ^ n;
    std::uint64_t a, b;
    if (n <= 16) {
        if (n >= 8) {
            a = load64(p);
            b = load64(p + n - 8);
        } else if (n >= 4) {
            a = load32(p);
            b = load32(p + n - 4);
        } else if (n > 0) {
            a = (std::uint64_t(p[0]) << 16) | (std::uint64_t(p[n >> 1]) << 8) | p[n - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        std::size_t i = n;
        while (i > 16) {
            seed = mix(load64(p) ^ k1, load64(p + 8) ^ seed);
            p += 16;
            i -= 16;
        }
        a = load64(p + i - 16);
        b = load64(p + i - 8);
    }
    return mix(k1 ^ n, mix(a ^ k1, b ^ seed ^ k2));
}

/// Whether the `n` bytes at `a` and `b` are equal (word compares for short strings).
inline bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
    const auto* x = reinterpret_cast<const unsigned char*>(a);
    const auto* y = reinterpret_cast<const unsigned char*>(b);
    if (n >= 8) {
        if (n > 16) return std::memcmp(a, b, n) == 0;
        return load64(x) == load64(y) && load64(x + n - 8) == load64(y + n - 8);
    }
    if (n >= 4) return load32(x) == load32(y) && load32(x + n - 4) == load32(y + n - 4);
    for (std::size_t i = 0; i < n; ++i)
        if (x[i] != y[i]) return false;
    return true;
}

/// Every token's bytes, by id.
struct token_table {
    std::vector<std::uint32_t> offsets{0};  ///< token i is bytes[offsets[i], offsets[i + 1])
    std::string bytes;

    std::size_t size() const noexcept { return offsets.size() - 1; }
    std::string_view text(std::uint32_t id) const noexcept {
        return {bytes.data() + offsets[id], static_cast<std::size_t>(offsets[id + 1] - offsets[id])};
    }
    /// Appends a token (the next id).
    void push(std::string_view token) {
        bytes.append(token);
        offsets.push_back(static_cast<std::uint32_t>(bytes.size()));
    }
    std::size_t memory() const noexcept { return offsets.capacity() * 4 + bytes.capacity(); }
};

/// Where a hash falls in a table of `n` slots (the high bits of the hash scaled to n).
inline std::size_t slot_of(std::uint64_t h, std::size_t n) noexcept { return static_cast<std::size_t>((static_cast<uint128>(h) * n) >> 64); }

/// Slots for `n` keys with open addressing: at most 3/4 full.
inline std::size_t slots_for(std::size_t n) noexcept { return std::max<std::size_t>(16, n + n / 3 + 1); }

/// A Bloom filter over hashes: three bits in one 64-bit word per key, about 10 bits per key, so
/// that a query is one memory access and about 2% of absent keys pass. It answers the lookups of
/// absent keys (most of those of byte-pair merging) from a table small enough to stay in cache.
class hash_filter {
public:
    void reserve(std::size_t keys) {
        std::size_t words = 1;
        while (words * 64 < keys * 10) words <<= 1;
        words_.assign(words, 0);
        mask_ = words - 1;
    }
    void add(std::uint64_t h) noexcept { words_[index(h)] |= bits(h); }
    /// False when no key of this hash was added.
    bool may_hold(std::uint64_t h) const noexcept {
        const std::uint64_t b = bits(h);
        return (words_[index(h)] & b) == b;
    }
    std::size_t memory() const noexcept { return words_.capacity() * 8; }

private:
    // the word from bits 18 up, the bits from bits 0 to 17; the tables' slots come from the
    // high bits (slot_of)
    std::size_t index(std::uint64_t h) const noexcept { return static_cast<std::size_t>(h >> 18) & mask_; }
    static std::uint64_t bits(std::uint64_t h) noexcept {
        return (std::uint64_t(1) << (h & 63)) | (std::uint64_t(1) << ((h >> 6) & 63)) | (std::uint64_t(1) << ((h >> 12) & 63));
    }
    std::vector<std::uint64_t> words_ = std::vector<std::uint64_t>(1, 0);
    std::size_t mask_ = 0;
};

/// Bytes -> id over a token_table. Keys of up to 8 bytes live in a table of their own, packed in
/// a word next to their id (one memory access, without reading the token_table); longer keys in
/// a table of ids with a 32-bit hash tag per slot. Both use open addressing with linear probing,
/// at most 3/4 full, behind one Bloom filter that answers most lookups of absent keys.
class byte_map {
public:
    /// Sizes the tables for the keys of `tokens` (call before inserting them).
    void reserve(const token_table& tokens) {
        std::size_t shorts = 0, longs = 0;
        for (std::size_t id = 0; id < tokens.size(); ++id) (tokens.offsets[id + 1] - tokens.offsets[id] <= 8 ? shorts : longs) += 1;
        reserve(shorts, longs);
    }
    void reserve(std::size_t shorts, std::size_t longs) {
        shorts_.assign(slots_for(shorts), short_slot{0, 0, 0});
        longs_.assign(slots_for(longs), 0);
        filter_.reserve(shorts + longs);
    }

    /// The id of `key`, or no_token.
    __attribute__((always_inline)) std::uint32_t find(std::string_view key, const token_table& tokens) const noexcept {
        if (key.size() <= 8) return find_short(key);
        return find_long(key, hash_bytes(reinterpret_cast<const unsigned char*>(key.data()), key.size()), tokens);
    }

    /// Inserts `key` -> `id` unless `key` is there; returns the id it has.
    std::uint32_t insert(std::string_view key, std::uint32_t id, const token_table& tokens) {
        const std::uint32_t found = find(key, tokens);
        if (found != no_token) return found;
        if (key.size() <= 8) {
            const std::uint64_t k = pack(key);
            const std::uint64_t h = short_hash(k);
            filter_.add(h);
            std::size_t i = slot_of(h, shorts_.size());
            while (shorts_[i].value != 0) i = next(i, shorts_.size());
            shorts_[i] = short_slot{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k >> 32),
                                    (static_cast<std::uint32_t>(key.size()) << 28) | id};
            return id;
        }
        const std::uint64_t h = hash_bytes(reinterpret_cast<const unsigned char*>(key.data()), key.size());
        filter_.add(h);
        std::size_t i = slot_of(h, longs_.size());
        while (longs_[i] != 0) i = next(i, longs_.size());
        longs_[i] = (std::uint64_t(tag_of(h)) << 32) | id;
        return id;
    }

    std::size_t memory() const noexcept { return shorts_.capacity() * sizeof(short_slot) + longs_.capacity() * 8 + filter_.memory(); }

private:
    /// A key of up to 8 bytes (its low and high halves) and its length << 28 | id; 0 when empty.
    struct short_slot {
        std::uint32_t lo, hi, value;
    };

    static std::size_t next(std::size_t i, std::size_t n) noexcept { return i + 1 == n ? 0 : i + 1; }

    /// Up to 8 bytes in a word (the rest zero).
    static std::uint64_t pack(std::string_view key) noexcept {
        const auto* p = reinterpret_cast<const unsigned char*>(key.data());
        const std::size_t n = key.size();
        if (n >= 4) {
            const std::uint64_t lo = load32(p), hi = load32(p + n - 4);
            return lo | (hi << ((n - 4) * 8));
        }
        if (n == 0) return 0;
        // 1 to 3 bytes: the first, the middle and the last (the same byte more than once for 1 or 2)
        return std::uint64_t(p[0]) | (std::uint64_t(p[n >> 1]) << (8 * (n >> 1))) | (std::uint64_t(p[n - 1]) << (8 * (n - 1)));
    }
    static std::uint64_t short_hash(std::uint64_t k) noexcept { return mix(k ^ 0x9e3779b97f4a7c15ull, 0xd6e8feb86659fd93ull); }
    static std::uint32_t tag_of(std::uint64_t h) noexcept { return static_cast<std::uint32_t>(h) | 1u; }

    __attribute__((always_inline)) std::uint32_t find_short(std::string_view key) const noexcept {
        const std::uint64_t k = pack(key);
        const std::uint64_t h = short_hash(k);
        if (!filter_.may_hold(h)) return no_token;
        const std::uint32_t len = static_cast<std::uint32_t>(key.size()) << 28;
        const std::uint32_t lo = static_cast<std::uint32_t>(k), hi = static_cast<std::uint32_t>(k >> 32);
        for (std::size_t i = slot_of(h, shorts_.size());; i = next(i, shorts_.size())) {
            const short_slot& s = shorts_[i];
            if (s.value == 0) return no_token;
            if (s.lo == lo && s.hi == hi && (s.value & 0xf0000000u) == len) return s.value & 0x0fffffffu;
        }
    }

    std::uint32_t find_long(std::string_view key, std::uint64_t h, const token_table& tokens) const noexcept {
        if (!filter_.may_hold(h)) return no_token;
        const std::uint32_t tag = tag_of(h);
        for (std::size_t i = slot_of(h, longs_.size());; i = next(i, longs_.size())) {
            const std::uint64_t slot = longs_[i];
            if (slot == 0) return no_token;
            if (static_cast<std::uint32_t>(slot >> 32) == tag) {
                const std::uint32_t id = static_cast<std::uint32_t>(slot);
                const std::uint32_t b = tokens.offsets[id], e = tokens.offsets[id + 1];
                if (e - b == key.size() && same_bytes(tokens.bytes.data() + b, key.data(), key.size())) return id;
            }
        }
    }

    std::vector<short_slot> shorts_ = std::vector<short_slot>(16, short_slot{0, 0, 0});
    std::vector<std::uint64_t> longs_ = std::vector<std::uint64_t>(16, 0);
    hash_filter filter_;
};

/// A merge of two tokens: its rank (lower merges first) and the merged token.
struct merge_info {
    std::uint32_t rank;
    std::uint32_t id;
};

/// No merge.
inline constexpr merge_info no_merge_info{no_token, no_token};

/// (left id, right id) -> merge_info: open addressing, linear probing, at most 3/4 full, behind a
/// Bloom filter that answers most lookups of pairs that do not merge.
class pair_map {
public:
    void reserve(std::size_t count) {
        slots_.assign(slots_for(count), slot{empty, no_merge_info});
        filter_.reserve(count);
    }

    static std::uint64_t key(std::uint32_t a, std::uint32_t b) noexcept { return (std::uint64_t(a) << 32) | b; }

    /// The merge of `a` then `b`, or nullptr.
    const merge_info* find(std::uint32_t a, std::uint32_t b) const noexcept {
        const std::uint64_t k = key(a, b);
        const std::uint64_t h = hash(k);
        if (!filter_.may_hold(h)) return nullptr;
        for (std::size_t i = slot_of(h, slots_.size());; i = next(i)) {
            const slot& s = slots_[i];
            if (s.k == k) return &s.m;
            if (s.k == empty) return nullptr;
        }
    }

    /// The merge of `a` then `b`, or no_merge_info.
    merge_info merge_of(std::uint32_t a, std::uint32_t b) const noexcept {
        const merge_info* m = find(a, b);
        return m ? *m : no_merge_info;
    }

    /// Sets the merge of `a` then `b` (a later merge of the same pair replaces the earlier one,
    /// as in Hugging Face tokenizers).
    void set(std::uint32_t a, std::uint32_t b, merge_info m) {
        const std::uint64_t k = key(a, b);
        const std::uint64_t h = hash(k);
        filter_.add(h);
        std::size_t i = slot_of(h, slots_.size());
        while (slots_[i].k != empty && slots_[i].k != k) i = next(i);
        slots_[i] = slot{k, m};
    }

    std::size_t memory() const noexcept { return slots_.capacity() * sizeof(slot) + filter_.memory(); }

private:
    static constexpr std::uint64_t empty = ~std::uint64_t(0);  // (no_token, no_token): never a pair of tokens
    static std::uint64_t hash(std::uint64_t k) noexcept { return mix(k ^ 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull); }
    std::size_t next(std::size_t i) const noexcept { return i + 1 == slots_.size() ? 0 : i + 1; }
    struct slot {
        std::uint64_t k;
        merge_info m;
    };
    std::vector<slot> slots_ = std::vector<slot>(16, slot{empty, no_merge_info});
    hash_filter filter_;
};

}  // namespace parley::tokens::detail

#endif
