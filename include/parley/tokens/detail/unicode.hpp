// parley/tokens/detail/unicode.hpp: UTF-8 decoding and validation, and the character classes the
// split patterns test (letters by category, numbers, marks, punctuation, symbols, White_Space).
#ifndef PARLEY_TOKENS_DETAIL_UNICODE_HPP
#define PARLEY_TOKENS_DETAIL_UNICODE_HPP

#include <parley/tokens/detail/unicode_data.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace parley::tokens::detail {

/// Class bits of a character, as the split patterns test them.
enum char_bit : std::uint16_t {
    cb_letter = 1 << 0,  ///< \p{L}
    cb_upper = 1 << 1,  ///< [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k's upper-case class)
    cb_lower = 1 << 2,  ///< [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k's lower-case class)
    cb_number = 1 << 3,  ///< \p{N}
    cb_mark = 1 << 4,  ///< \p{M}
    cb_punct = 1 << 5,  ///< \p{P}
    cb_symbol = 1 << 6,  ///< \p{S}
    cb_space = 1 << 7,  ///< \s (White_Space)
    cb_newline = 1 << 8,  ///< \r or \n
    cb_word = 1 << 9,  ///< \w (Alphabetic, marks, decimal numbers, connector punctuation, Join_Control)
};

/// The class bits of each general category (ucd::category order).
inline constexpr std::array<std::uint16_t, 32> category_bits = [] {
    std::array<std::uint16_t, 32> t{};
    using namespace ucd;
    t[gc_Lu] = cb_letter | cb_upper;
    t[gc_Lt] = cb_letter | cb_upper;
    t[gc_Ll] = cb_letter | cb_lower;
    t[gc_Lm] = cb_letter | cb_upper | cb_lower;
    t[gc_Lo] = cb_letter | cb_upper | cb_lower;
    t[gc_Mn] = t[gc_Mc] = t[gc_Me] = cb_mark | cb_upper | cb_lower;
    t[gc_Nd] = t[gc_Nl] = t[gc_No] = cb_number;
    for (auto c : {gc_Pc, gc_Pd, gc_Ps, gc_Pe, gc_Pi, gc_Pf, gc_Po}) t[c] = cb_punct;
    for (auto c : {gc_Sm, gc_Sc, gc_Sk, gc_So}) t[c] = cb_symbol;
    return t;
}();

/// The class bits of a code point (below 0x110000).
inline std::uint16_t char_bits_slow(char32_t cp) noexcept {
    const std::uint8_t c = ucd::class_stage2[(static_cast<std::size_t>(ucd::class_stage1[cp >> ucd::class_shift]) << ucd::class_shift) |
                                             (cp & ((1u << ucd::class_shift) - 1))];
    std::uint16_t bits = category_bits[c & 0x1f];
    if (c & ucd::white_space_bit) bits |= cb_space;
    if (c & ucd::word_bit) bits |= cb_word;
    if (cp == U'\r' || cp == U'\n') bits |= cb_newline;
    return bits;
}

/// The class bits of the ASCII characters.
inline const std::array<std::uint16_t, 128> ascii_bits = [] {
    std::array<std::uint16_t, 128> t{};
    for (char32_t c = 0; c < 128; ++c) t[c] = char_bits_slow(c);
    return t;
}();

/// The class bits of a code point.
inline std::uint16_t char_bits(char32_t cp) noexcept { return cp < 128 ? ascii_bits[cp] : char_bits_slow(cp); }

/// The code point at `p` of valid UTF-8 and its length in bytes.
inline char32_t decode_utf8(const unsigned char* p, unsigned& length) noexcept {
    const unsigned char b = p[0];
    if (b < 0x80) {
        length = 1;
        return b;
    }
    if (b < 0xE0) {
        length = 2;
        return (char32_t(b & 0x1f) << 6) | (p[1] & 0x3f);
    }
    if (b < 0xF0) {
        length = 3;
        return (char32_t(b & 0x0f) << 12) | (char32_t(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
    }
    length = 4;
    return (char32_t(b & 0x07) << 18) | (char32_t(p[1] & 0x3f) << 12) | (char32_t(p[2] & 0x3f) << 6) | (p[3] & 0x3f);
}

/// The length in bytes of the valid UTF-8 sequence starting at `p` (which is before `end`), or
/// 0 when the bytes there are not valid UTF-8 (overlong forms, surrogates and code points above
/// U+10FFFF are not).
inline unsigned valid_utf8_length(const unsigned char* p, const unsigned char* end) noexcept {
    const unsigned char b = p[0];
    const std::ptrdiff_t left = end - p;
    auto cont = [](unsigned char c) { return (c & 0xc0) == 0x80; };
    if (b < 0x80) return 1;
    if (b < 0xC2) return 0;
    if (b < 0xE0) return left >= 2 && cont(p[1]) ? 2 : 0;
    if (b < 0xF0) {
        if (left < 3 || !cont(p[1]) || !cont(p[2])) return 0;
        if (b == 0xE0 && p[1] < 0xA0) return 0;  // overlong
        if (b == 0xED && p[1] >= 0xA0) return 0;  // surrogate
        return 3;
    }
    if (b < 0xF5) {
        if (left < 4 || !cont(p[1]) || !cont(p[2]) || !cont(p[3])) return 0;
        if (b == 0xF0 && p[1] < 0x90) return 0;  // overlong
        if (b == 0xF4 && p[1] >= 0x90) return 0;  // above U+10FFFF
        return 4;
    }
    return 0;
}

/// The offset of the first byte of `text` that does not begin valid UTF-8, or npos.
inline std::size_t invalid_utf8_offset(std::string_view text) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    const auto* begin = p;
    while (p < end) {
        // eight ASCII bytes at a time
        while (end - p >= 8) {
            std::uint64_t w;
            __builtin_memcpy(&w, p, 8);
            if (w & 0x8080808080808080ull) break;
            p += 8;
        }
        if (p == end) break;
        const unsigned n = valid_utf8_length(p, end);
        if (n == 0) return static_cast<std::size_t>(p - begin);
        p += n;
    }
    return std::string_view::npos;
}

/// Appends the UTF-8 encoding of `cp`.
inline void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

/// Appends `bytes` as UTF-8 text, each maximal invalid subsequence replaced by U+FFFD (as Rust's
/// String::from_utf8_lossy and the WHATWG decoder do).
inline void append_utf8_lossy(std::string& out, std::string_view bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const auto* end = p + bytes.size();
    while (p < end) {
        const unsigned n = valid_utf8_length(p, end);
        if (n) {
            out.append(reinterpret_cast<const char*>(p), n);
            p += n;
            continue;
        }
        // the maximal prefix of a valid sequence, replaced by one U+FFFD
        const unsigned char b = *p++;
        unsigned need = b >= 0xF0 && b < 0xF5 ? 3 : b >= 0xE0 && b < 0xF0 ? 2 : b >= 0xC2 && b < 0xE0 ? 1 : 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b == 0xE0) lo = 0xA0;
        if (b == 0xED) hi = 0x9F;
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F;
        while (need > 0 && p < end && *p >= lo && *p <= hi) {
            ++p;
            --need;
            lo = 0x80;
            hi = 0xBF;
        }
        out += "\xEF\xBF\xBD";
    }
}

}  // namespace parley::tokens::detail

#endif
