// parley/jinja/detail/py/utf8.hpp: UTF-8 as Python counts it: decoding units (an invalid byte is
// one unit that behaves like U+FFFD), appending code points, lengths and code point offsets; byte
// comparisons of short texts.
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_UTF8_HPP
#define PARLEY_JINJA_DETAIL_PY_UTF8_HPP

#include <parley/config.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace parley::jinja::detail {

/// Whether the `n` bytes at `a` and `b` (sizeof(Word) <= n <= 2 * sizeof(Word)) are the same:
/// the first and the last word of each, which overlap when n < 2 * sizeof(Word).
template <class Word>
bool same_words(const char* a, const char* b, std::size_t n) noexcept {
    Word a0, b0, a1, b1;
    std::memcpy(&a0, a, sizeof(Word));
    std::memcpy(&b0, b, sizeof(Word));
    std::memcpy(&a1, a + n - sizeof(Word), sizeof(Word));
    std::memcpy(&b1, b + n - sizeof(Word), sizeof(Word));
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/// Whether the `n` bytes at `a` and `b` are the same. Keys of chat messages are short: up to 16
/// bytes are compared as two overlapping words instead of calling memcmp.
PARLEY_ALWAYS_INLINE bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    if (n >= 8) return same_words<std::uint64_t>(a, b, n);
    if (n >= 4) return same_words<std::uint32_t>(a, b, n);
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

/// Whether two texts are the same bytes (short ones without calling memcmp).
PARLEY_ALWAYS_INLINE bool same_text(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}


namespace pystr_impl {

/// One decoded unit: a valid UTF-8 sequence, or one byte that starts none.
struct unit {
    char32_t cp;
    std::uint32_t len;
    bool valid;
};

inline constexpr char32_t replacement = 0xFFFD;

inline const unsigned char* bytes(std::string_view s) noexcept {
    return reinterpret_cast<const unsigned char*>(s.data());
}

/// Decodes the unit at i (i < s.size()).
inline unit decode_unit(std::string_view s, std::size_t i) noexcept {
    const unsigned char* p = bytes(s) + i;
    const std::size_t n = s.size() - i;
    const unsigned b0 = p[0];
    constexpr unit bad{replacement, 1, false};
    if (b0 < 0x80) return {b0, 1, true};
    if (b0 < 0xC2) return bad;
    if (b0 < 0xE0) {
        if (n < 2 || (p[1] & 0xC0u) != 0x80u) return bad;
        return {char32_t(((b0 & 0x1Fu) << 6) | (p[1] & 0x3Fu)), 2, true};
    }
    if (b0 < 0xF0) {
        if (n < 3) return bad;
        const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80;
        const unsigned hi = b0 == 0xED ? 0x9F : 0xBF;
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0u) != 0x80u) return bad;
        return {char32_t(((b0 & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu)), 3, true};
    }
    if (b0 < 0xF5) {
        if (n < 4) return bad;
        const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80;
        const unsigned hi = b0 == 0xF4 ? 0x8F : 0xBF;
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0u) != 0x80u || (p[3] & 0xC0u) != 0x80u) return bad;
        return {char32_t(((b0 & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) |
                         (p[3] & 0x3Fu)),
                4, true};
    }
    return bad;
}

/// Start of the unit that ends at p (0 < p <= s.size(), p a unit boundary). Consistent with
/// forward decoding: a byte that can lead a sequence always starts a unit.
inline std::size_t prev_unit_start(std::string_view s, std::size_t p) noexcept {
    const unsigned char* d = bytes(s);
    if (d[p - 1] < 0x80) return p - 1;
    for (std::size_t k = 2; k <= 4 && k <= p; ++k) {
        const unsigned lead = d[p - k];
        if ((lead & 0xC0u) != 0x80u) {
            const unit u = decode_unit(s, p - k);
            return (u.valid && u.len == k) ? p - k : p - 1;
        }
    }
    return p - 1;
}

/// True when byte offset p is not inside a valid multi-byte sequence.
inline bool is_boundary(std::string_view s, std::size_t p) noexcept {
    if (p == 0 || p >= s.size()) return true;
    const unsigned char* d = bytes(s);
    if ((d[p] & 0xC0u) != 0x80u) return true;
    for (std::size_t k = 1; k <= 3 && k <= p; ++k) {
        if ((d[p - k] & 0xC0u) != 0x80u) {
            const unit u = decode_unit(s, p - k);
            return !(u.valid && u.len > k);
        }
    }
    return true;
}

inline bool is_valid_utf8(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size();) {
        if (bytes(s)[i] < 0x80) {
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        if (!u.valid) return false;
        i += u.len;
    }
    return true;
}

inline void append_cp(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        const char b[2] = {char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))};
        out.append(b, 2);
    } else if (cp < 0x10000) {
        if (cp >= 0xD800 && cp < 0xE000) cp = replacement;
        const char b[3] = {char(0xE0 | (cp >> 12)), char(0x80 | ((cp >> 6) & 0x3F)),
                           char(0x80 | (cp & 0x3F))};
        out.append(b, 3);
    } else if (cp < 0x110000) {
        const char b[4] = {char(0xF0 | (cp >> 18)), char(0x80 | ((cp >> 12) & 0x3F)),
                           char(0x80 | ((cp >> 6) & 0x3F)), char(0x80 | (cp & 0x3F))};
        out.append(b, 4);
    } else {
        append_cp(out, replacement);
    }
}

} // namespace pystr_impl

// =============================================================================================
// UTF-8

/// Decodes the code point at byte offset i and advances i past it; an invalid byte (or i past
/// the end) gives U+FFFD and advances i by one.
inline char32_t utf8_decode(std::string_view s, std::size_t& i) {
    if (i >= s.size()) {
        ++i;
        return pystr_impl::replacement;
    }
    const pystr_impl::unit u = pystr_impl::decode_unit(s, i);
    i += u.len;
    return u.cp;
}

/// Appends cp as UTF-8; surrogates and values past U+10FFFF are written as U+FFFD.
inline void utf8_append(std::string& out, char32_t cp) { pystr_impl::append_cp(out, cp); }

/// True when every byte of s is ASCII.
inline bool is_ascii(std::string_view s) {
    const char* p = s.data();
    std::size_t n = s.size();
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        if (w & 0x8080808080808080ull) return false;
        p += 8;
        n -= 8;
    }
    for (; n > 0; --n, ++p)
        if (static_cast<unsigned char>(*p) >= 0x80) return false;
    return true;
}

/// Number of code points (units) in s.
inline std::size_t utf8_length(std::string_view s) {
    std::size_t count = 0;
    std::size_t i = 0;
    const unsigned char* d = pystr_impl::bytes(s);
    const std::size_t n = s.size();
    while (i < n) {
        if (i + 8 <= n) {
            std::uint64_t w;
            std::memcpy(&w, d + i, 8);
            if (!(w & 0x8080808080808080ull)) {
                i += 8;
                count += 8;
                continue;
            }
        }
        i += d[i] < 0x80 ? 1 : pystr_impl::decode_unit(s, i).len;
        ++count;
    }
    return count;
}

/// Byte offset of code point index cp in s; s.size() when cp is past the end.
inline std::size_t utf8_offset(std::string_view s, std::size_t cp) {
    std::size_t i = 0;
    const unsigned char* d = pystr_impl::bytes(s);
    while (cp > 0 && i < s.size()) {
        i += d[i] < 0x80 ? 1 : pystr_impl::decode_unit(s, i).len;
        --cp;
    }
    return i;
}

} // namespace parley::jinja::detail

#endif
