// parley/tokens/detail/vocab.hpp: the vocabulary of a tokenizer in memory: every token's bytes in
// one buffer (id -> bytes), an open-addressing hash table from bytes to id, and a table of merges
// (pair of ids -> rank and merged id).
#ifndef PARLEY_TOKENS_DETAIL_VOCAB_HPP
#define PARLEY_TOKENS_DETAIL_VOCAB_HPP

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

/// Bytes -> id over a token_table. Keys of up to 8 bytes live in a table of their own, packed in
/// a word (compared without reading the token_table); longer keys in a table of ids with a 32-bit
/// hash tag per slot. Both use open addressing with linear probing, at most 0.6 full.
class byte_map {
public:
    /// Sizes the tables for the keys of `tokens` (call before inserting them).
    void reserve(const token_table& tokens) {
        std::size_t shorts = 0, longs = 0;
        for (std::size_t id = 0; id < tokens.size(); ++id) (tokens.offsets[id + 1] - tokens.offsets[id] <= 8 ? shorts : longs) += 1;
        reserve(shorts, longs);
    }
    void reserve(std::size_t shorts, std::size_t longs) {
        auto capacity = [](std::size_t n) {
            std::size_t cap = 16;
            while (cap * 3 < n * 5) cap <<= 1;
            return cap;
        };
        short_keys_.assign(capacity(shorts), 0);
        short_values_.assign(short_keys_.size(), 0);
        short_mask_ = short_keys_.size() - 1;
        slots_.assign(capacity(longs), 0);
        mask_ = slots_.size() - 1;
    }

    /// The id of `key`, or no_token.
    std::uint32_t find(std::string_view key, const token_table& tokens) const noexcept {
        if (key.size() <= 8) return find_short(key);
        return find_long(key, hash_bytes(reinterpret_cast<const unsigned char*>(key.data()), key.size()), tokens);
    }

    /// Inserts `key` -> `id` unless `key` is there; returns the id it has.
    std::uint32_t insert(std::string_view key, std::uint32_t id, const token_table& tokens) {
        const std::uint32_t found = find(key, tokens);
        if (found != no_token) return found;
        if (key.size() <= 8) {
            const std::uint64_t k = pack(key);
            std::size_t i = short_hash(k) & short_mask_;
            while (short_values_[i] != 0) i = (i + 1) & short_mask_;
            short_keys_[i] = k;
            short_values_[i] = (static_cast<std::uint32_t>(key.size()) << 28) | id;
            return id;
        }
        const std::uint64_t h = hash_bytes(reinterpret_cast<const unsigned char*>(key.data()), key.size());
        const std::uint32_t tag = static_cast<std::uint32_t>(h >> 32) | 1u;
        std::size_t i = h & mask_;
        while (slots_[i] != 0) i = (i + 1) & mask_;
        slots_[i] = (std::uint64_t(tag) << 32) | id;
        return id;
    }

    std::size_t memory() const noexcept { return slots_.capacity() * 8 + short_keys_.capacity() * 8 + short_values_.capacity() * 4; }

private:
    /// Up to 8 bytes in a word (the rest zero).
    static std::uint64_t pack(std::string_view key) noexcept {
        const auto* p = reinterpret_cast<const unsigned char*>(key.data());
        const std::size_t n = key.size();
        if (n >= 4) {
            const std::uint64_t lo = load32(p), hi = load32(p + n - 4);
            return lo | (hi << ((n - 4) * 8));
        }
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t(p[i]) << (8 * i);
        return v;
    }
    static std::uint64_t short_hash(std::uint64_t k) noexcept { return mix(k ^ 0x9e3779b97f4a7c15ull, 0xd6e8feb86659fd93ull); }

    std::uint32_t find_short(std::string_view key) const noexcept {
        const std::uint64_t k = pack(key);
        const std::uint32_t len = static_cast<std::uint32_t>(key.size()) << 28;
        std::size_t i = short_hash(k) & short_mask_;
        for (;;) {
            const std::uint32_t v = short_values_[i];
            if (v == 0) return no_token;
            if (short_keys_[i] == k && (v & 0xf0000000u) == len) return v & 0x0fffffffu;
            i = (i + 1) & short_mask_;
        }
    }

    std::uint32_t find_long(std::string_view key, std::uint64_t h, const token_table& tokens) const noexcept {
        const std::uint32_t tag = static_cast<std::uint32_t>(h >> 32) | 1u;
        std::size_t i = h & mask_;
        for (;;) {
            const std::uint64_t slot = slots_[i];
            if (slot == 0) return no_token;
            if (static_cast<std::uint32_t>(slot >> 32) == tag) {
                const std::uint32_t id = static_cast<std::uint32_t>(slot);
                const std::uint32_t b = tokens.offsets[id], e = tokens.offsets[id + 1];
                if (e - b == key.size() && same_bytes(tokens.bytes.data() + b, key.data(), key.size())) return id;
            }
            i = (i + 1) & mask_;
        }
    }

    std::vector<std::uint64_t> short_keys_;
    std::vector<std::uint32_t> short_values_;  ///< length << 28 | id; 0 for an empty slot
    std::size_t short_mask_ = 0;
    std::vector<std::uint64_t> slots_;
    std::size_t mask_ = 0;
};

/// A merge of two tokens: its rank (lower merges first) and the merged token.
struct merge_info {
    std::uint32_t rank;
    std::uint32_t id;
};

/// (left id, right id) -> merge_info: open addressing, linear probing.
class pair_map {
public:
    void reserve(std::size_t count) {
        std::size_t cap = 16;
        while (cap * 7 < count * 10) cap <<= 1;  // at most 0.7 full
        slots_.assign(cap, slot{empty, {0, 0}});
        mask_ = cap - 1;
    }

    static std::uint64_t key(std::uint32_t a, std::uint32_t b) noexcept { return (std::uint64_t(a) << 32) | b; }

    /// The merge of `a` then `b`, or nullptr.
    const merge_info* find(std::uint32_t a, std::uint32_t b) const noexcept {
        const std::uint64_t k = key(a, b);
        std::size_t i = hash(k) & mask_;
        for (;;) {
            const slot& s = slots_[i];
            if (s.k == k) return &s.m;
            if (s.k == empty) return nullptr;
            i = (i + 1) & mask_;
        }
    }

    /// Sets the merge of `a` then `b` (a later merge of the same pair replaces the earlier one,
    /// as in Hugging Face tokenizers).
    void set(std::uint32_t a, std::uint32_t b, merge_info m) {
        const std::uint64_t k = key(a, b);
        std::size_t i = hash(k) & mask_;
        while (slots_[i].k != empty && slots_[i].k != k) i = (i + 1) & mask_;
        slots_[i] = slot{k, m};
    }

    std::size_t memory() const noexcept { return slots_.capacity() * sizeof(slot); }

private:
    static constexpr std::uint64_t empty = ~std::uint64_t(0);  // (no_token, no_token): never a pair of tokens
    static std::uint64_t hash(std::uint64_t k) noexcept { return mix(k ^ 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull); }
    struct slot {
        std::uint64_t k;
        merge_info m;
    };
    std::vector<slot> slots_;
    std::size_t mask_ = 0;
};

}  // namespace parley::tokens::detail

#endif
