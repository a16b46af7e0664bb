// parley/jinja/detail/pystr.hpp: Python 3.11 str algorithms on UTF-8 text.
//
// Every function here gives the answer CPython 3.11 gives for the same text, so that templates
// render byte for byte as Python Jinja2 renders them. Text is UTF-8; indexes and lengths that
// Python counts in code points are counted in code points here too. Invalid UTF-8 never throws:
// each byte that does not start a valid sequence is one unit that behaves like U+FFFD (no case,
// not a space, not a letter), and functions that copy text copy such bytes through unchanged.
#ifndef PARLEY_JINJA_DETAIL_PYSTR_HPP
#define PARLEY_JINJA_DETAIL_PYSTR_HPP

#include <parley/config.hpp>
#include <parley/jinja/detail/unicode_tables.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

// ---------------------------------------------------------------------------------------------
// Character data

inline constexpr std::uint32_t flag_mask = (1u << tables::flag_bits) - 1;

inline constexpr std::array<std::uint16_t, 256> latin1_flags = [] {
    std::array<std::uint16_t, 256> a{};
    std::size_t r = 0;
    constexpr std::size_t n = std::size(tables::char_flags);
    for (std::uint32_t c = 0; c < 256; ++c) {
        while (r + 1 < n && (tables::char_flags[r + 1] >> tables::flag_bits) <= c) ++r;
        a[c] = static_cast<std::uint16_t>(tables::char_flags[r] & flag_mask);
    }
    return a;
}();

/// The tables::flag bits of one code point.
inline std::uint32_t flags_of(char32_t c) noexcept {
    if (c < 256) return latin1_flags[c];
    if (c > 0x10FFFF) return 0;
    const std::uint32_t key = (std::uint32_t(c) << tables::flag_bits) | flag_mask;
    const auto* it = std::upper_bound(std::begin(tables::char_flags), std::end(tables::char_flags), key);
    return *(it - 1) & flag_mask;
}

inline constexpr std::uint32_t alnum_flags =
    tables::flag_alpha | tables::flag_decimal | tables::flag_digit | tables::flag_numeric;

inline bool is_space(char32_t c) noexcept { return (flags_of(c) & tables::flag_space) != 0; }

inline bool is_word(char32_t c) noexcept { return c == U'_' || (flags_of(c) & alnum_flags) != 0; }

inline bool is_ascii_word(unsigned char b) noexcept { return (latin1_flags[b] & alnum_flags) || b == '_'; }

/// Maps one code point through a run table and a special table; returns how many code points
/// were written to out (1..3).
template <std::size_t NR, std::size_t NS>
inline unsigned map_with(const tables::case_run (&runs)[NR], const tables::case_special (&special)[NS],
                         char32_t c, char32_t* out) noexcept {
    const auto* sp = std::lower_bound(std::begin(special), std::end(special), c,
                                      [](const tables::case_special& e, char32_t v) { return e.cp < v; });
    if (sp != std::end(special) && sp->cp == c) {
        for (unsigned k = 0; k < sp->size; ++k) out[k] = sp->mapped[k];
        return sp->size;
    }
    const auto* r = std::upper_bound(std::begin(runs), std::end(runs), c,
                                     [](char32_t v, const tables::case_run& e) { return v < e.start; });
    out[0] = c;
    if (r != std::begin(runs)) {
        --r;
        const std::uint32_t off = std::uint32_t(c) - r->start;
        if (off < std::uint32_t(r->count) * r->step && off % r->step == 0)
            out[0] = static_cast<char32_t>(static_cast<std::int32_t>(c) + r->delta);
    }
    return 1;
}

enum class case_map { upper, lower, title, fold };

inline unsigned map_case(case_map m, char32_t c, char32_t* out) noexcept {
    switch (m) {
    case case_map::upper: return map_with(tables::upper_runs, tables::upper_special, c, out);
    case case_map::lower: return map_with(tables::lower_runs, tables::lower_special, c, out);
    case case_map::title: return map_with(tables::title_runs, tables::title_special, c, out);
    case case_map::fold: return map_with(tables::fold_runs, tables::fold_special, c, out);
    }
    out[0] = c;
    return 1;
}

inline void append_mapped(std::string& out, case_map m, char32_t c) {
    char32_t mapped[3];
    const unsigned n = map_case(m, c, mapped);
    for (unsigned k = 0; k < n; ++k) append_cp(out, mapped[k]);
}

inline char ascii_upper(unsigned char b) noexcept { return char(unsigned(b - 'a') < 26u ? b - 32 : b); }
inline char ascii_lower(unsigned char b) noexcept { return char(unsigned(b - 'A') < 26u ? b + 32 : b); }

/// CPython's handle_capital_sigma: is the capital sigma at [pos, pos + 2) of s final?
inline bool final_sigma(std::string_view s, std::size_t pos) noexcept {
    bool final = false;
    for (std::size_t p = pos; p > 0;) {
        const std::size_t q = prev_unit_start(s, p);
        const unit u = decode_unit(s, q);
        const std::uint32_t f = flags_of(u.cp);
        if (!(f & tables::flag_case_ignorable)) {
            final = (f & tables::flag_cased) != 0;
            break;
        }
        p = q;
    }
    if (!final) return false;
    for (std::size_t i = pos + 2; i < s.size();) {
        const unit u = decode_unit(s, i);
        const std::uint32_t f = flags_of(u.cp);
        if (!(f & tables::flag_case_ignorable)) return !(f & tables::flag_cased);
        i += u.len;
    }
    return true;
}

/// Lower-cases the units of s from byte offset i on; s is the whole string (for final sigma).
inline void lower_from(std::string& out, std::string_view s, std::size_t i) {
    const unsigned char* d = bytes(s);
    while (i < s.size()) {
        if (d[i] < 0x80) {
            out += ascii_lower(d[i]);
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        if (!u.valid) {
            out += char(d[i]);
        } else if (u.cp == 0x3A3) {
            append_cp(out, final_sigma(s, i) ? 0x3C2 : 0x3C3);
        } else {
            append_mapped(out, case_map::lower, u.cp);
        }
        i += u.len;
    }
}

/// Unit-aligned byte search: s.find(sub, from) that skips matches splitting a valid sequence of
/// s (only possible when sub itself is not valid UTF-8).
inline std::size_t find_units(std::string_view s, std::string_view sub, std::size_t from, bool sub_valid) noexcept {
    for (;;) {
        const std::size_t p = s.find(sub, from);
        if (p == std::string_view::npos || sub_valid) return p;
        if (is_boundary(s, p) && is_boundary(s, p + sub.size())) return p;
        from = p + 1;
    }
}

inline std::size_t rfind_units(std::string_view s, std::string_view sub, bool sub_valid) noexcept {
    std::size_t from = std::string_view::npos;
    for (;;) {
        const std::size_t p = s.rfind(sub, from);
        if (p == std::string_view::npos || sub_valid) return p;
        if (is_boundary(s, p) && is_boundary(s, p + sub.size())) return p;
        if (p == 0) return std::string_view::npos;
        from = p - 1;
    }
}

/// Set of units to strip, from a UTF-8 string: a bitmap when all ASCII.
class unit_set {
public:
    explicit unit_set(std::string_view chars) noexcept : chars_(chars) {
        ascii_only_ = true;
        for (const char ch : chars) {
            const auto b = static_cast<unsigned char>(ch);
            if (b >= 0x80) {
                ascii_only_ = false;
                break;
            }
            bits_[b >> 6] |= std::uint64_t(1) << (b & 63);
        }
    }
    /// Does the unit s[i, i + len) belong to the set?
    bool contains(std::string_view s, std::size_t i, std::size_t len) const noexcept {
        const unsigned char b = bytes(s)[i];
        if (ascii_only_) return b < 0x80 && (bits_[b >> 6] >> (b & 63)) & 1;
        const std::string_view u = s.substr(i, len);
        for (std::size_t k = 0; k < chars_.size();) {
            const std::size_t n = decode_unit(chars_, k).len;
            if (chars_.substr(k, n) == u) return true;
            k += n;
        }
        return false;
    }

private:
    std::string_view chars_;
    std::uint64_t bits_[2] = {0, 0};
    bool ascii_only_ = true;
};

/// Python's slice index adjustment (ADJUST_INDICES).
inline void adjust_indices(long& start, long& end, long len) noexcept {
    if (end > len) {
        end = len;
    } else if (end < 0) {
        end += len;
        if (end < 0) end = 0;
    }
    if (start < 0) {
        start += len;
        if (start < 0) start = 0;
    }
}

inline void append_repeated(std::string& out, char32_t fill, long n) {
    if (n <= 0) return;
    if (fill < 0x80) {
        out.append(static_cast<std::size_t>(n), char(fill));
        return;
    }
    std::string one;
    append_cp(one, fill);
    out.reserve(out.size() + one.size() * static_cast<std::size_t>(n));
    for (long k = 0; k < n; ++k) out += one;
}

inline void append_hex(std::string& out, std::uint32_t v, int digits, bool upper) {
    const char* hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    for (int k = digits - 1; k >= 0; --k) out += hex[(v >> (4 * k)) & 0xF];
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

// =============================================================================================
// Character classes (str methods on a one-character string)

/// str.isspace() of one character.
inline bool py_isspace(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_space) != 0; }
/// str.isprintable() of one character.
inline bool py_isprintable(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_printable) != 0; }
/// str.isalpha() of one character.
inline bool py_isalpha(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_alpha) != 0; }
/// str.isdigit() of one character.
inline bool py_isdigit(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_digit) != 0; }
/// str.isdecimal() of one character.
inline bool py_isdecimal(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_decimal) != 0; }
/// str.isnumeric() of one character.
inline bool py_isnumeric(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_numeric) != 0; }
/// str.isalnum() of one character.
inline bool py_isalnum(char32_t c) { return (pystr_impl::flags_of(c) & pystr_impl::alnum_flags) != 0; }
/// str.isupper() of one character.
inline bool py_isupper(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_upper) != 0; }
/// str.islower() of one character.
inline bool py_islower(char32_t c) { return (pystr_impl::flags_of(c) & tables::flag_lower) != 0; }
/// Python re's \w for str patterns: alphanumeric or '_'.
inline bool py_is_word(char32_t c) { return pystr_impl::is_word(c); }

// =============================================================================================
// Whole-string predicates

namespace pystr_impl {
/// True when s is non-empty and every unit has one of the flags in mask.
inline bool all_units(std::string_view s, std::uint32_t mask) {
    if (s.empty()) return false;
    for (std::size_t i = 0; i < s.size();) {
        const unit u = decode_unit(s, i);
        if (!(flags_of(u.cp) & mask)) return false;
        i += u.len;
    }
    return true;
}
} // namespace pystr_impl

/// str.isspace().
inline bool py_str_isspace(std::string_view s) { return pystr_impl::all_units(s, tables::flag_space); }
/// str.isalpha().
inline bool py_str_isalpha(std::string_view s) { return pystr_impl::all_units(s, tables::flag_alpha); }
/// str.isdigit().
inline bool py_str_isdigit(std::string_view s) { return pystr_impl::all_units(s, tables::flag_digit); }
/// str.isalnum().
inline bool py_str_isalnum(std::string_view s) { return pystr_impl::all_units(s, pystr_impl::alnum_flags); }
/// str.isdecimal().
inline bool py_str_isdecimal(std::string_view s) { return pystr_impl::all_units(s, tables::flag_decimal); }
/// str.isnumeric().
inline bool py_str_isnumeric(std::string_view s) { return pystr_impl::all_units(s, tables::flag_numeric); }

/// str.islower(): no upper- or titlecase character and at least one lowercase one.
inline bool py_str_islower(std::string_view s) {
    using namespace pystr_impl;
    if (s.empty()) return false;
    const unit first = decode_unit(s, 0);
    if (first.len == s.size()) return (flags_of(first.cp) & tables::flag_lower) != 0;
    bool cased = false;
    for (std::size_t i = 0; i < s.size();) {
        const unit u = decode_unit(s, i);
        const std::uint32_t f = flags_of(u.cp);
        if (f & (tables::flag_upper | tables::flag_title)) return false;
        if (f & tables::flag_lower) cased = true;
        i += u.len;
    }
    return cased;
}

/// str.isupper(): no lower- or titlecase character and at least one uppercase one.
inline bool py_str_isupper(std::string_view s) {
    using namespace pystr_impl;
    if (s.empty()) return false;
    const unit first = decode_unit(s, 0);
    if (first.len == s.size()) return (flags_of(first.cp) & tables::flag_upper) != 0;
    bool cased = false;
    for (std::size_t i = 0; i < s.size();) {
        const unit u = decode_unit(s, i);
        const std::uint32_t f = flags_of(u.cp);
        if (f & (tables::flag_lower | tables::flag_title)) return false;
        if (f & tables::flag_upper) cased = true;
        i += u.len;
    }
    return cased;
}

/// str.istitle(): upper/titlecase only after uncased characters, lowercase only after cased.
inline bool py_str_istitle(std::string_view s) {
    using namespace pystr_impl;
    if (s.empty()) return false;
    const unit first = decode_unit(s, 0);
    if (first.len == s.size()) return (flags_of(first.cp) & (tables::flag_upper | tables::flag_title)) != 0;
    bool cased = false;
    bool previous_is_cased = false;
    for (std::size_t i = 0; i < s.size();) {
        const unit u = decode_unit(s, i);
        const std::uint32_t f = flags_of(u.cp);
        if (f & (tables::flag_upper | tables::flag_title)) {
            if (previous_is_cased) return false;
            previous_is_cased = cased = true;
        } else if (f & tables::flag_lower) {
            if (!previous_is_cased) return false;
            previous_is_cased = cased = true;
        } else {
            previous_is_cased = false;
        }
        i += u.len;
    }
    return cased;
}

// =============================================================================================
// Case mapping

/// str.upper() (full mappings: 'ß' becomes "SS").
inline void py_upper(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    out.reserve(out.size() + s.size());
    const unsigned char* d = bytes(s);
    for (std::size_t i = 0; i < s.size();) {
        if (d[i] < 0x80) {
            out += ascii_upper(d[i]);
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        if (u.valid)
            append_mapped(out, case_map::upper, u.cp);
        else
            out += char(d[i]);
        i += u.len;
    }
}

/// str.lower() (full mappings, final sigma).
inline void py_lower(std::string& out, std::string_view s) {
    out.reserve(out.size() + s.size());
    pystr_impl::lower_from(out, s, 0);
}

/// str.casefold().
inline void py_casefold(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    out.reserve(out.size() + s.size());
    const unsigned char* d = bytes(s);
    for (std::size_t i = 0; i < s.size();) {
        if (d[i] < 0x80) {
            out += ascii_lower(d[i]);
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        if (u.valid)
            append_mapped(out, case_map::fold, u.cp);
        else
            out += char(d[i]);
        i += u.len;
    }
}

/// str.swapcase(): uppercase characters lowered (final sigma included), lowercase ones uppered.
inline void py_swapcase(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    out.reserve(out.size() + s.size());
    const unsigned char* d = bytes(s);
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char b = d[i];
        if (b < 0x80) {
            out += unsigned(b - 'a') < 26u ? char(b - 32) : ascii_lower(b);
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        const std::uint32_t f = flags_of(u.cp);
        if (!u.valid)
            out += char(b);
        else if (f & tables::flag_upper)
            u.cp == 0x3A3 ? append_cp(out, final_sigma(s, i) ? 0x3C2 : 0x3C3)
                          : append_mapped(out, case_map::lower, u.cp);
        else if (f & tables::flag_lower)
            append_mapped(out, case_map::upper, u.cp);
        else
            out.append(s.data() + i, u.len);
        i += u.len;
    }
}

/// str.capitalize(): first character titlecased, the rest lowered.
inline void py_capitalize(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    if (s.empty()) return;
    out.reserve(out.size() + s.size());
    const unit u = decode_unit(s, 0);
    if (!u.valid)
        out += s[0];
    else if (u.cp < 0x80)
        out += ascii_upper(static_cast<unsigned char>(u.cp));
    else
        append_mapped(out, case_map::title, u.cp);
    lower_from(out, s, u.len);
}

/// str.title(): a character after a cased one is lowered, any other is titlecased.
inline void py_title(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    out.reserve(out.size() + s.size());
    const unsigned char* d = bytes(s);
    bool previous_is_cased = false;
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char b = d[i];
        if (b < 0x80) {
            out += previous_is_cased ? ascii_lower(b) : ascii_upper(b);
            previous_is_cased = (latin1_flags[b] & tables::flag_cased) != 0;
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        if (!u.valid)
            out += char(b);
        else if (!previous_is_cased)
            append_mapped(out, case_map::title, u.cp);
        else if (u.cp == 0x3A3)
            append_cp(out, final_sigma(s, i) ? 0x3C2 : 0x3C3);
        else
            append_mapped(out, case_map::lower, u.cp);
        previous_is_cased = (flags_of(u.cp) & tables::flag_cased) != 0;
        i += u.len;
    }
}

/// Jinja's title filter: the text is split on runs of '-', whitespace, '(', '{', '[' and '<';
/// each piece becomes piece[0].upper() + piece[1:].lower().
inline void jinja_title(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    out.reserve(out.size() + s.size());
    auto is_sep = [](const unit& u) {
        if (u.cp < 0x80)
            return u.cp == '-' || u.cp == '(' || u.cp == '{' || u.cp == '[' || u.cp == '<' ||
                   (latin1_flags[u.cp] & tables::flag_space) != 0;
        return u.valid && is_space(u.cp);
    };
    std::size_t i = 0;
    while (i < s.size()) {
        const unit first = decode_unit(s, i);
        if (is_sep(first)) {
            out.append(s.data() + i, first.len);
            i += first.len;
            continue;
        }
        std::size_t end = i + first.len;
        while (end < s.size()) {
            const unit u = decode_unit(s, end);
            if (is_sep(u)) break;
            end += u.len;
        }
        if (!first.valid)
            out += s[i];
        else if (first.cp < 0x80)
            out += ascii_upper(static_cast<unsigned char>(first.cp));
        else
            append_mapped(out, case_map::upper, first.cp);
        lower_from(out, s.substr(i + first.len, end - i - first.len), 0);
        i = end;
    }
}

/// Jinja's capitalize filter (str.capitalize()).
inline void jinja_capitalize(std::string& out, std::string_view s) { py_capitalize(out, s); }

// =============================================================================================
// repr and formatting

/// repr(float): shortest round-trip digits, fixed notation for exponents -4 < e <= 16,
/// 'inf', '-inf', 'nan'.
inline void py_float_repr(std::string& out, double v) {
    if (std::isnan(v)) {
        out += "nan";
        return;
    }
    if (std::isinf(v)) {
        out += v < 0 ? "-inf" : "inf";
        return;
    }
    char buf[40];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
    if (!sci.empty() && sci[0] == '-') {
        out += '-';
        sci.remove_prefix(1);
    }
    const std::size_t e = sci.find('e');
    char digits[24];
    int ndigits = 0;
    for (std::size_t k = 0; k < e; ++k)
        if (sci[k] != '.') digits[ndigits++] = sci[k];
    int exp = 0;
    std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp);
    const int decpt = exp + 1;  // value = 0.digits * 10**decpt
    if (decpt <= -4 || decpt > 16) {
        out += digits[0];
        if (ndigits > 1) {
            out += '.';
            out.append(digits + 1, static_cast<std::size_t>(ndigits - 1));
        }
        out += 'e';
        out += exp < 0 ? '-' : '+';
        const int a = exp < 0 ? -exp : exp;
        if (a < 10) out += '0';
        out += std::to_string(a);
    } else if (decpt <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-decpt), '0');
        out.append(digits, static_cast<std::size_t>(ndigits));
    } else if (decpt >= ndigits) {
        out.append(digits, static_cast<std::size_t>(ndigits));
        out.append(static_cast<std::size_t>(decpt - ndigits), '0');
        out += ".0";
    } else {
        out.append(digits, static_cast<std::size_t>(decpt));
        out += '.';
        out.append(digits + decpt, static_cast<std::size_t>(ndigits - decpt));
    }
}

/// repr(str): single quotes unless the text has ' and no "; \\ \n \r \t escapes, \xNN, \uNNNN
/// or \UNNNNNNNN for characters that are not printable. Invalid bytes are copied through.
inline void py_str_repr(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    const bool squote = s.find('\'') != std::string_view::npos;
    const bool dquote = s.find('"') != std::string_view::npos;
    const char quote = (squote && !dquote) ? '"' : '\'';
    out.reserve(out.size() + s.size() + 2);
    out += quote;
    const unsigned char* d = bytes(s);
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char b = d[i];
        if (b < 0x80) {
            if (b == quote || b == '\\') {
                out += '\\';
                out += char(b);
            } else if (b == '\t') {
                out += "\\t";
            } else if (b == '\n') {
                out += "\\n";
            } else if (b == '\r') {
                out += "\\r";
            } else if (b < ' ' || b == 0x7F) {
                out += "\\x";
                append_hex(out, b, 2, false);
            } else {
                out += char(b);
            }
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        if (!u.valid || (flags_of(u.cp) & tables::flag_printable)) {
            out.append(s.data() + i, u.len);
        } else if (u.cp <= 0xFF) {
            out += "\\x";
            append_hex(out, u.cp, 2, false);
        } else if (u.cp <= 0xFFFF) {
            out += "\\u";
            append_hex(out, u.cp, 4, false);
        } else {
            out += "\\U";
            append_hex(out, u.cp, 8, false);
        }
        i += u.len;
    }
    out += quote;
}

/// json.dumps(str) with its quotes. ensure_ascii escapes everything outside ' '..'~' as \uXXXX
/// (surrogate pairs past U+FFFF; an invalid byte as \ufffd); otherwise only '"', '\\' and
/// control characters are escaped and invalid bytes are copied through.
inline void json_string(std::string& out, std::string_view s, bool ensure_ascii) {
    using namespace pystr_impl;
    out.reserve(out.size() + s.size() + 2);
    out += '"';
    const unsigned char* d = bytes(s);
    for (std::size_t i = 0; i < s.size();) {
        // a run of printable ASCII that needs no escape, appended at once
        std::size_t run = i;
        while (run < s.size() && d[run] >= ' ' && d[run] < 0x7F && d[run] != '"' && d[run] != '\\') ++run;
        if (run != i) {
            out.append(s.data() + i, run - i);
            i = run;
            continue;
        }
        const unsigned char b = d[i];
        if (b < 0x80) {
            switch (b) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (b < ' ' || (b == 0x7F && ensure_ascii)) {
                    out += "\\u";
                    append_hex(out, b, 4, false);
                } else {
                    out += char(b);
                }
            }
            ++i;
            continue;
        }
        const unit u = decode_unit(s, i);
        if (!ensure_ascii) {
            out.append(s.data() + i, u.len);
        } else if (u.cp >= 0x10000) {
            const std::uint32_t v = u.cp - 0x10000;
            out += "\\u";
            append_hex(out, 0xD800 | (v >> 10), 4, false);
            out += "\\u";
            append_hex(out, 0xDC00 | (v & 0x3FF), 4, false);
        } else {
            out += "\\u";
            append_hex(out, u.cp, 4, false);
        }
        i += u.len;
    }
    out += '"';
}

/// json.dumps(float): repr, or NaN, Infinity, -Infinity.
inline void json_float(std::string& out, double v) {
    if (std::isnan(v))
        out += "NaN";
    else if (std::isinf(v))
        out += v < 0 ? "-Infinity" : "Infinity";
    else
        py_float_repr(out, v);
}

/// markupsafe.escape: & < > " ' become &amp; &lt; &gt; &#34; &#39;.
inline void html_escape(std::string& out, std::string_view s) {
    out.reserve(out.size() + s.size());
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char* rep = nullptr;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&#34;"; break;
        case '\'': rep = "&#39;"; break;
        default: continue;
        }
        out.append(s.data() + run, i - run);
        out += rep;
        run = i + 1;
    }
    out.append(s.data() + run, s.size() - run);
}

// =============================================================================================
// Stripping and splitting

/// str.strip/lstrip/rstrip: chars is the set of code points to remove (UTF-8), or nullopt
/// for whitespace; left/right choose the ends.
inline std::string_view py_strip(std::string_view s, std::optional<std::string_view> chars, bool left,
                                 bool right) {
    using namespace pystr_impl;
    std::size_t b = 0;
    std::size_t e = s.size();
    if (!chars) {
        if (left) {
            while (b < e) {
                const unit u = decode_unit(s, b);
                if (!u.valid || !is_space(u.cp)) break;
                b += u.len;
            }
        }
        if (right) {
            while (e > b) {
                const std::size_t q = prev_unit_start(s, e);
                const unit u = decode_unit(s, q);
                if (!u.valid || !is_space(u.cp)) break;
                e = q;
            }
        }
        return s.substr(b, e - b);
    }
    const unit_set set(*chars);
    if (left) {
        while (b < e) {
            const std::size_t n = decode_unit(s, b).len;
            if (!set.contains(s, b, n)) break;
            b += n;
        }
    }
    if (right) {
        while (e > b) {
            const std::size_t q = prev_unit_start(s, e);
            if (!set.contains(s, q, e - q)) break;
            e = q;
        }
    }
    return s.substr(b, e - b);
}

/// str.split(sep, maxsplit); maxsplit < 0 means no limit. Throws std::invalid_argument
/// ("empty separator") when sep is empty.
inline std::vector<std::string_view> py_split(std::string_view s, std::optional<std::string_view> sep,
                                              long maxsplit) {
    using namespace pystr_impl;
    std::vector<std::string_view> parts;
    long remaining = maxsplit < 0 ? std::numeric_limits<long>::max() : maxsplit;
    if (sep) {
        if (sep->empty()) throw std::invalid_argument("empty separator");
        const bool valid = is_valid_utf8(*sep);
        std::size_t i = 0;
        while (remaining-- > 0) {
            const std::size_t p = find_units(s, *sep, i, valid);
            if (p == std::string_view::npos) break;
            parts.push_back(s.substr(i, p - i));
            i = p + sep->size();
        }
        parts.push_back(s.substr(i));
        return parts;
    }
    auto space_at = [&](std::size_t i, std::size_t& len) {
        if (bytes(s)[i] < 0x80) {
            len = 1;
            return (latin1_flags[bytes(s)[i]] & tables::flag_space) != 0;
        }
        const unit u = decode_unit(s, i);
        len = u.len;
        return u.valid && is_space(u.cp);
    };
    std::size_t i = 0;
    std::size_t len = 0;
    const std::size_t n = s.size();
    while (remaining-- > 0) {
        while (i < n && space_at(i, len)) i += len;
        if (i == n) break;
        const std::size_t j = i;
        while (i < n && !space_at(i, len)) i += len;
        parts.push_back(s.substr(j, i - j));
    }
    if (i < n) {
        while (i < n && space_at(i, len)) i += len;
        if (i != n) parts.push_back(s.substr(i));
    }
    return parts;
}

/// str.rsplit(sep, maxsplit); maxsplit < 0 means no limit. Throws std::invalid_argument
/// ("empty separator") when sep is empty.
inline std::vector<std::string_view> py_rsplit(std::string_view s, std::optional<std::string_view> sep,
                                               long maxsplit) {
    using namespace pystr_impl;
    std::vector<std::string_view> parts;
    long remaining = maxsplit < 0 ? std::numeric_limits<long>::max() : maxsplit;
    if (sep) {
        if (sep->empty()) throw std::invalid_argument("empty separator");
        const bool valid = is_valid_utf8(*sep);
        std::size_t j = s.size();
        while (remaining-- > 0) {
            const std::size_t p = rfind_units(s.substr(0, j), *sep, valid);
            if (p == std::string_view::npos) break;
            parts.push_back(s.substr(p + sep->size(), j - p - sep->size()));
            j = p;
        }
        parts.push_back(s.substr(0, j));
        std::reverse(parts.begin(), parts.end());
        return parts;
    }
    // Walk units backwards; e is the end of the part being looked at.
    auto space_before = [&](std::size_t e, std::size_t& start) {
        start = prev_unit_start(s, e);
        const unit u = decode_unit(s, start);
        return u.valid && is_space(u.cp);
    };
    std::size_t e = s.size();
    std::size_t q = 0;
    while (remaining-- > 0) {
        while (e > 0 && space_before(e, q)) e = q;
        if (e == 0) break;
        const std::size_t j = e;
        while (e > 0 && !space_before(e, q)) e = q;
        parts.push_back(s.substr(e, j - e));
    }
    if (e > 0) {
        while (e > 0 && space_before(e, q)) e = q;
        if (e > 0) parts.push_back(s.substr(0, e));
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
}

/// str.splitlines(keepends): breaks at \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029.
inline std::vector<std::string_view> py_splitlines(std::string_view s, bool keepends) {
    std::vector<std::string_view> lines;
    const unsigned char* d = pystr_impl::bytes(s);
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const std::size_t j = i;
        std::size_t brk = 0;  // length of the line break found at i
        for (; i < n; ++i) {
            const unsigned char b = d[i];
            if (b == '\n' || b == '\r' || b == 0x0B || b == 0x0C || (b >= 0x1C && b <= 0x1E)) {
                brk = (b == '\r' && i + 1 < n && d[i + 1] == '\n') ? 2 : 1;
                break;
            }
            if (b == 0xC2 && i + 1 < n && d[i + 1] == 0x85) {
                brk = 2;
                break;
            }
            if (b == 0xE2 && i + 2 < n && d[i + 1] == 0x80 && (d[i + 2] == 0xA8 || d[i + 2] == 0xA9)) {
                brk = 3;
                break;
            }
        }
        const std::size_t eol = i;
        i += brk;
        lines.push_back(s.substr(j, (keepends ? i : eol) - j));
    }
    return lines;
}

// =============================================================================================
// Searching (code point indexes, Python slice semantics for start/end)

namespace pystr_impl {
/// Resolves s[start:end] to byte offsets; returns false when the slice is shorter than sub_len.
struct slice {
    std::string_view text;  // the slice itself
    long start;             // code point index of its start
    long end;               // code point index of its end
    bool ascii;
};

inline bool resolve_slice(std::string_view s, std::optional<long> start, std::optional<long> end,
                          long sub_len, slice& out) {
    const bool ascii = is_ascii(s);
    const long len = static_cast<long>(ascii ? s.size() : utf8_length(s));
    long b = start.value_or(0);
    long e = end.value_or(len);
    adjust_indices(b, e, len);
    if (e - b < sub_len) return false;
    std::size_t bb;
    std::size_t eb;
    if (ascii) {
        bb = static_cast<std::size_t>(b);
        eb = static_cast<std::size_t>(e);
    } else {
        bb = utf8_offset(s, static_cast<std::size_t>(b));
        eb = bb + utf8_offset(s.substr(bb), static_cast<std::size_t>(e - b));
    }
    out = {s.substr(bb, eb - bb), b, e, ascii};
    return true;
}

inline long cp_index(const slice& sl, std::size_t byte_pos) {
    return sl.start + static_cast<long>(sl.ascii ? byte_pos : utf8_length(sl.text.substr(0, byte_pos)));
}
} // namespace pystr_impl

/// str.find(sub, start, end): code point index of the first match, or -1.
inline long py_find(std::string_view s, std::string_view sub, std::optional<long> start, std::optional<long> end) {
    using namespace pystr_impl;
    slice sl;
    if (!resolve_slice(s, start, end, static_cast<long>(utf8_length(sub)), sl)) return -1;
    if (sub.empty()) return sl.start;
    const std::size_t p = find_units(sl.text, sub, 0, is_valid_utf8(sub));
    return p == std::string_view::npos ? -1 : cp_index(sl, p);
}

/// str.rfind(sub, start, end): code point index of the last match, or -1.
inline long py_rfind(std::string_view s, std::string_view sub, std::optional<long> start,
                     std::optional<long> end) {
    using namespace pystr_impl;
    slice sl;
    if (!resolve_slice(s, start, end, static_cast<long>(utf8_length(sub)), sl)) return -1;
    if (sub.empty()) return sl.end;
    const std::size_t p = rfind_units(sl.text, sub, is_valid_utf8(sub));
    return p == std::string_view::npos ? -1 : cp_index(sl, p);
}

/// str.count(sub, start, end): non-overlapping matches.
inline long py_count(std::string_view s, std::string_view sub, std::optional<long> start,
                     std::optional<long> end) {
    using namespace pystr_impl;
    slice sl;
    if (!resolve_slice(s, start, end, static_cast<long>(utf8_length(sub)), sl)) return 0;
    if (sub.empty()) return sl.end - sl.start + 1;
    const bool valid = is_valid_utf8(sub);
    long count = 0;
    for (std::size_t p = 0; (p = find_units(sl.text, sub, p, valid)) != std::string_view::npos; p += sub.size())
        ++count;
    return count;
}

/// str.replace(old, repl, count); count < 0 replaces all. An empty old inserts repl before
/// every code point and at the end (at most count times).
inline void py_replace(std::string& out, std::string_view s, std::string_view old, std::string_view repl,
                       long count) {
    using namespace pystr_impl;
    if (count < 0) count = std::numeric_limits<long>::max();
    out.reserve(out.size() + s.size());
    if (old.empty()) {
        std::size_t i = 0;
        while (count > 0 && i < s.size()) {
            out += repl;
            const std::size_t n = decode_unit(s, i).len;
            out.append(s.data() + i, n);
            i += n;
            --count;
        }
        if (count > 0) out += repl;
        out.append(s.data() + i, s.size() - i);
        return;
    }
    const bool valid = is_valid_utf8(old);
    std::size_t i = 0;
    while (count-- > 0) {
        const std::size_t p = find_units(s, old, i, valid);
        if (p == std::string_view::npos) break;
        out.append(s.data() + i, p - i);
        out += repl;
        i = p + old.size();
    }
    out.append(s.data() + i, s.size() - i);
}

// =============================================================================================
// Padding

/// str.center(width, fill), with CPython's placement of the odd fill character.
inline void py_center(std::string& out, std::string_view s, long width, char32_t fill) {
    const long len = static_cast<long>(utf8_length(s));
    if (len >= width) {
        out += s;
        return;
    }
    const long marg = width - len;
    const long left = marg / 2 + (marg & width & 1);
    pystr_impl::append_repeated(out, fill, left);
    out += s;
    pystr_impl::append_repeated(out, fill, marg - left);
}

/// str.ljust(width, fill).
inline void py_ljust(std::string& out, std::string_view s, long width, char32_t fill) {
    const long len = static_cast<long>(utf8_length(s));
    out += s;
    if (len < width) pystr_impl::append_repeated(out, fill, width - len);
}

/// str.rjust(width, fill).
inline void py_rjust(std::string& out, std::string_view s, long width, char32_t fill) {
    const long len = static_cast<long>(utf8_length(s));
    if (len < width) pystr_impl::append_repeated(out, fill, width - len);
    out += s;
}

/// str.zfill(width): zeros on the left, after a leading '+' or '-'.
/// Python's str.expandtabs(tabsize), piece by piece: `emit(n, c)` for n copies of c. A tab
/// becomes the spaces up to the next multiple of `tabsize` columns (code points counted from the
/// last line break, '\n' or '\r'); a tabsize of 0 or less removes tabs.
template <class Emit>
void expandtabs_walk(std::string_view s, long tabsize, Emit&& emit) {
    std::uint64_t column = 0;
    for (const char c : s) {
        if (c == '\t') {
            if (tabsize <= 0) continue;
            const std::uint64_t pad = static_cast<std::uint64_t>(tabsize) - column % static_cast<std::uint64_t>(tabsize);
            column += pad;
            emit(pad, ' ');
            continue;
        }
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++column;  // a code point's first byte
        if (c == '\n' || c == '\r') column = 0;
        emit(std::uint64_t{1}, c);
    }
}
/// The length in bytes of s.expandtabs(tabsize), without building it.
inline std::uint64_t py_expandtabs_size(std::string_view s, long tabsize) {
    std::uint64_t size = 0;
    expandtabs_walk(s, tabsize, [&](std::uint64_t n, char) { size += n; });
    return size;
}
inline void py_expandtabs(std::string& out, std::string_view s, long tabsize) {
    out.reserve(out.size() + static_cast<std::size_t>(py_expandtabs_size(s, tabsize)));
    expandtabs_walk(s, tabsize, [&](std::uint64_t n, char c) { out.append(static_cast<std::size_t>(n), c); });
}

inline void py_zfill(std::string& out, std::string_view s, long width) {
    const long len = static_cast<long>(utf8_length(s));
    if (len >= width) {
        out += s;
        return;
    }
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        out += s[0];
        s.remove_prefix(1);
    }
    out.append(static_cast<std::size_t>(width - len), '0');
    out += s;
}

// =============================================================================================
// Jinja filter algorithms

namespace pystr_impl {

/// textwrap's whitespace: '\t\n\x0b\x0c\r '.
inline bool is_wrap_space(char32_t c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == 0x0C || c == '\r';
}

/// TextWrapper.wordsep_re's classes: [\w!"'&.,?] and [^\d\W].
inline bool is_word_punct(char32_t c) noexcept {
    return c == '!' || c == '"' || c == '\'' || c == '&' || c == '.' || c == ',' || c == '?' || is_word(c);
}
inline bool is_letter(char32_t c) noexcept {
    return is_word(c) && !(flags_of(c) & tables::flag_decimal);
}

/// One line of text decoded for textwrap: code points and the byte offset of each.
struct wrap_text {
    std::string_view bytes;
    std::vector<char32_t> cps;
    std::vector<std::size_t> offsets;  // cps.size() + 1 entries

    void assign(std::string_view line) {
        bytes = line;
        cps.clear();
        offsets.clear();
        for (std::size_t i = 0; i < line.size();) {
            const unit u = decode_unit(line, i);
            cps.push_back(u.cp);
            offsets.push_back(i);
            i += u.len;
        }
        offsets.push_back(line.size());
    }
    std::size_t size() const noexcept { return cps.size(); }
    char32_t at(std::size_t i) const noexcept { return i < cps.size() ? cps[i] : 0; }
    std::string_view piece(std::size_t b, std::size_t e) const noexcept {
        return bytes.substr(offsets[b], offsets[e] - offsets[b]);
    }
};

/// A chunk of a line: code point range [b, e).
struct chunk {
    std::size_t b;
    std::size_t e;
    long len() const noexcept { return static_cast<long>(e - b); }
};

/// Length of the run of '-' starting at i.
inline std::size_t dash_run(const wrap_text& t, std::size_t i) noexcept {
    std::size_t k = i;
    while (k < t.size() && t.cps[k] == '-') ++k;
    return k - i;
}

/// (?<=[\w!"'&.,?]) -{2,} (?=\w) at i: an em-dash between words.
inline std::size_t em_dash_at(const wrap_text& t, std::size_t i) noexcept {
    if (i == 0 || !is_word_punct(t.cps[i - 1])) return 0;
    const std::size_t r = dash_run(t, i);
    if (r < 2 || i + r >= t.size() || !is_word(t.cps[i + r])) return 0;
    return r;
}

/// TextWrapper._split with break_on_hyphens: the chunks wordsep_re.split yields. Every position
/// starts a match of wordsep_re, so the chunks are consecutive matches.
inline void split_wordsep(const wrap_text& t, std::vector<chunk>& chunks) {
    const std::size_t n = t.size();
    std::size_t p = 0;
    while (p < n) {
        std::size_t e;
        if (is_wrap_space(t.cps[p])) {
            e = p + 1;
            while (e < n && is_wrap_space(t.cps[e])) ++e;
        } else if (const std::size_t r = t.cps[p] == '-' ? em_dash_at(t, p) : 0) {
            e = p + r;
        } else {
            // [^ws]+? followed by a hyphen between letters, whitespace or the end, or an em-dash.
            std::size_t q = p + 1;
            for (;; ++q) {
                if (q == n || is_wrap_space(t.cps[q])) {
                    e = q;
                    break;
                }
                if (t.cps[q] == '-') {
                    const bool behind =
                        (q >= 2 && is_letter(t.cps[q - 2]) && is_letter(t.cps[q - 1])) ||
                        (q >= 3 && is_letter(t.cps[q - 3]) && t.cps[q - 2] == '-' && is_letter(t.cps[q - 1]));
                    const bool ahead = q + 1 < n && is_letter(t.cps[q + 1]) &&
                                       ((q + 2 < n && is_letter(t.cps[q + 2])) ||
                                        (q + 3 < n && t.cps[q + 2] == '-' && is_letter(t.cps[q + 3])));
                    if (behind && ahead) {
                        e = q + 1;
                        break;
                    }
                    if (em_dash_at(t, q)) {
                        e = q;
                        break;
                    }
                }
            }
        }
        chunks.push_back({p, e});
        p = e;
    }
}

/// TextWrapper._split without break_on_hyphens: runs of whitespace and runs of the rest.
inline void split_simple(const wrap_text& t, std::vector<chunk>& chunks) {
    const std::size_t n = t.size();
    std::size_t p = 0;
    while (p < n) {
        const bool ws = is_wrap_space(t.cps[p]);
        std::size_t e = p + 1;
        while (e < n && is_wrap_space(t.cps[e]) == ws) ++e;
        chunks.push_back({p, e});
        p = e;
    }
}

/// chunk.strip() == '' (Python whitespace, not only textwrap's).
inline bool blank(const wrap_text& t, const chunk& c) noexcept {
    for (std::size_t i = c.b; i < c.e; ++i)
        if (!is_space(t.cps[i])) return false;
    return true;
}

} // namespace pystr_impl

/// Jinja's wordwrap filter: each line of s.splitlines() wrapped by textwrap.wrap(line, width,
/// expand_tabs=False, replace_whitespace=False, break_long_words, break_on_hyphens), lines and
/// paragraphs joined with wrapstring. Throws std::invalid_argument when width <= 0 (and there is
/// a line to wrap).
inline void jinja_wordwrap(std::string& out, std::string_view s, long width, bool break_long_words,
                           std::string_view wrapstring, bool break_on_hyphens,
                           std::size_t max_size = std::size_t(-1)) {
    // a long wrapstring repeated at every line could make the text far larger than the input
    const auto add_wrap = [&] {
        if (out.size() + wrapstring.size() > max_size) throw std::length_error("wordwrap result exceeds the output size limit");
        out += wrapstring;
    };
    using namespace pystr_impl;
    const std::vector<std::string_view> paragraphs = py_splitlines(s, false);
    if (!paragraphs.empty() && width <= 0)
        throw std::invalid_argument("invalid width " + std::to_string(width) + " (must be > 0)");
    wrap_text t;
    std::vector<chunk> chunks;
    std::vector<chunk> line;
    out.reserve(out.size() + s.size());
    for (std::size_t pi = 0; pi < paragraphs.size(); ++pi) {
        if (pi > 0) add_wrap();
        t.assign(paragraphs[pi]);
        chunks.clear();
        if (break_on_hyphens)
            split_wordsep(t, chunks);
        else
            split_simple(t, chunks);
        // TextWrapper._wrap_chunks with drop_whitespace; chunks[ci] is the top of Python's
        // reversed stack.
        std::size_t ci = 0;
        long nlines = 0;
        while (ci < chunks.size()) {
            line.clear();
            long cur_len = 0;
            if (nlines > 0 && blank(t, chunks[ci])) ++ci;
            while (ci < chunks.size() && cur_len + chunks[ci].len() <= width) {
                cur_len += chunks[ci].len();
                line.push_back(chunks[ci++]);
            }
            if (ci < chunks.size() && chunks[ci].len() > width) {
                // _handle_long_word
                const long space_left = width < 1 ? 1 : width - cur_len;
                chunk& c = chunks[ci];
                if (break_long_words) {
                    long end = space_left;
                    if (break_on_hyphens && c.len() > space_left) {
                        long hyphen = -1;
                        for (long k = std::min<long>(space_left, c.len()) - 1; k >= 0; --k) {
                            if (t.cps[c.b + static_cast<std::size_t>(k)] == '-') {
                                hyphen = k;
                                break;
                            }
                        }
                        if (hyphen > 0) {
                            bool other = false;
                            for (long k = 0; k < hyphen && !other; ++k)
                                other = t.cps[c.b + static_cast<std::size_t>(k)] != '-';
                            if (other) end = hyphen + 1;
                        }
                    }
                    const std::size_t cut = c.b + static_cast<std::size_t>(end);
                    line.push_back({c.b, cut});
                    c.b = cut;
                } else if (line.empty()) {
                    line.push_back(chunks[ci++]);
                }
                cur_len = 0;
                for (const chunk& l : line) cur_len += l.len();
            }
            if (!line.empty() && blank(t, line.back())) {
                cur_len -= line.back().len();
                line.pop_back();
            }
            if (!line.empty()) {
                if (nlines > 0) add_wrap();
                for (const chunk& l : line) out += t.piece(l.b, l.e);
                ++nlines;
            }
        }
    }
}

/// Jinja's wordcount filter: len(re.findall(r"\w+", s)).
inline long jinja_wordcount(std::string_view s) {
    using namespace pystr_impl;
    long count = 0;
    bool in_word = false;
    const unsigned char* d = bytes(s);
    for (std::size_t i = 0; i < s.size();) {
        bool w;
        if (d[i] < 0x80) {
            w = is_ascii_word(d[i]);
            ++i;
        } else {
            const unit u = decode_unit(s, i);
            w = u.valid && is_word(u.cp);
            i += u.len;
        }
        if (w && !in_word) ++count;
        in_word = w;
    }
    return count;
}

namespace pystr_impl {

/// Finds pat in the text out[from_out:] + in[r:] (out's tail joined to in's unread part).
/// Returns the position in that joined text counted from out's start, or npos.
inline std::size_t find_joined(const std::string& out, std::string_view in, std::size_t r, std::size_t from,
                               std::string_view pat) {
    const std::size_t o = out.size();
    auto at = [&](std::size_t v, char& c) {
        if (v < o) {
            c = out[v];
            return true;
        }
        if (r + (v - o) >= in.size()) return false;
        c = in[r + (v - o)];
        return true;
    };
    for (std::size_t k = from; k < o; ++k) {
        std::size_t m = 0;
        char c = 0;
        while (m < pat.size() && at(k + m, c) && c == pat[m]) ++m;
        if (m == pat.size()) return k;
    }
    const std::size_t p = in.find(pat, r + (from > o ? from - o : 0));
    return p == std::string_view::npos ? p : o + (p - r);
}

/// markupsafe's loop `while (start := value.find(open)) != -1: end = value.find(close, start);
/// value = value[:start] + value[end + len(close):]` done in one pass.
inline void remove_spans(std::string& out, std::string_view in, std::string_view open, std::string_view close) {
    std::size_t r = 0;      // unread part of in starts here
    std::size_t from = 0;   // value.find(open) may start here: out has no match before it
    for (;;) {
        const std::size_t start = find_joined(out, in, r, from, open);
        if (start == std::string_view::npos) break;
        const std::size_t end = find_joined(out, in, r, start, close);
        if (end == std::string_view::npos) break;
        const std::size_t o = out.size();
        if (start < o)
            out.resize(start);
        else
            out.append(in.substr(r, start - o));
        r += end + close.size() - o;
        from = out.size() >= open.size() - 1 ? out.size() - (open.size() - 1) : 0;
    }
    out.append(in.substr(r));
}

inline const tables::html_entity* find_entity(std::string_view name) noexcept {
    const auto* it = std::lower_bound(std::begin(tables::html5_entities), std::end(tables::html5_entities), name,
                                      [](const tables::html_entity& e, std::string_view n) { return e.name < n; });
    return (it != std::end(tables::html5_entities) && it->name == name) ? it : nullptr;
}

/// html.unescape.
inline void html_unescape(std::string& out, std::string_view s) {
    const unsigned char* d = bytes(s);
    std::size_t i = 0;
    const std::size_t n = s.size();
    while (i < n) {
        const std::size_t amp = s.find('&', i);
        if (amp == std::string_view::npos) break;
        out.append(s.data() + i, amp - i);
        i = amp + 1;
        if (i < n && s[i] == '#') {
            // &#[0-9]+;? or &#[xX][0-9a-fA-F]+;?
            const bool hex = i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
            std::size_t k = i + (hex ? 2 : 1);
            const std::size_t digits_start = k;
            std::uint32_t num = 0;
            bool too_big = false;
            for (; k < n; ++k) {
                const char c = s[k];
                unsigned v;
                if (c >= '0' && c <= '9') v = unsigned(c - '0');
                else if (hex && c >= 'a' && c <= 'f') v = unsigned(c - 'a' + 10);
                else if (hex && c >= 'A' && c <= 'F') v = unsigned(c - 'A' + 10);
                else break;
                if (!too_big) {
                    num = num * (hex ? 16u : 10u) + v;
                    if (num > 0x10FFFF) too_big = true;
                }
            }
            if (k == digits_start) {  // no digits: '&' stays, as the named form cannot start with '#'
                out += '&';
                continue;
            }
            if (k < n && s[k] == ';') ++k;
            i = k;
            const auto* fix = std::lower_bound(std::begin(tables::invalid_charrefs), std::end(tables::invalid_charrefs),
                                               num, [](const tables::charref_fix& e, std::uint32_t v) { return e.number < v; });
            if (!too_big && fix != std::end(tables::invalid_charrefs) && fix->number == num) {
                append_cp(out, fix->replacement);
            } else if (too_big || (num >= 0xD800 && num <= 0xDFFF)) {
                append_cp(out, replacement);
            } else if (!std::binary_search(std::begin(tables::invalid_codepoints), std::end(tables::invalid_codepoints), num)) {
                append_cp(out, num);
            }
            continue;
        }
        // [^\t\n\f <&#;]{1,32};?
        std::size_t k = i;
        std::size_t units = 0;
        while (k < n && units < 32) {
            const unsigned char b = d[k];
            if (b == '\t' || b == '\n' || b == '\f' || b == ' ' || b == '<' || b == '&' || b == '#' || b == ';') break;
            k += b < 0x80 ? 1 : decode_unit(s, k).len;
            ++units;
        }
        if (units == 0) {
            out += '&';
            continue;
        }
        if (k < n && s[k] == ';') ++k;
        const std::string_view name = s.substr(i, k - i);
        i = k;
        if (const auto* e = find_entity(name)) {
            out += e->value;
            continue;
        }
        // The longest prefix (of at least two characters, shorter than the name) that is an entity.
        bool found = false;
        std::size_t ascii_len = 0;
        while (ascii_len < name.size() && d[amp + 1 + ascii_len] < 0x80) ++ascii_len;
        const std::size_t name_units = utf8_length(name);
        std::size_t x = std::min(ascii_len, name_units - 1);
        for (; x >= 2; --x) {
            if (const auto* e = find_entity(name.substr(0, x))) {
                out += e->value;
                out += name.substr(x);
                found = true;
                break;
            }
        }
        if (!found) {
            out += '&';
            out += name;
        }
    }
    out.append(s.data() + i, n - i);
}

} // namespace pystr_impl

/// markupsafe's Markup.striptags() (MarkupSafe 3.0): removes <!--...--> comments, then <...>
/// tags, then joins the words of str.split() with single spaces, then applies html.unescape
/// (HTML5 named references, numeric references with the HTML5 fix-ups).
inline void jinja_striptags(std::string& out, std::string_view s) {
    using namespace pystr_impl;
    std::string no_comments;
    no_comments.reserve(s.size());
    remove_spans(no_comments, s, "<!--", "-->");
    std::string no_tags;
    no_tags.reserve(no_comments.size());
    remove_spans(no_tags, no_comments, "<", ">");
    std::string joined;
    joined.reserve(no_tags.size());
    for (const std::string_view word : py_split(no_tags, std::nullopt, -1)) {
        if (!joined.empty()) joined += ' ';
        joined += word;
    }
    if (joined.find('&') == std::string::npos) {
        out += joined;
        return;
    }
    html_unescape(out, joined);
}

/// markupsafe's Markup.unescape(): html.unescape (HTML5 named references, numeric references
/// with the HTML5 fix-ups).
inline void markup_unescape(std::string& out, std::string_view s) { pystr_impl::html_unescape(out, s); }

/// urllib.parse.quote(s, safe) on the UTF-8 bytes of s: letters, digits, '_.-~' and the ASCII
/// characters of safe are kept, every other byte becomes %XX.
inline void url_quote(std::string& out, std::string_view s, std::string_view safe) {
    bool keep[128] = {};
    for (unsigned char c = 0; c < 128; ++c)
        keep[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '.' || c == '-' || c == '~';
    for (const char ch : safe)
        if (static_cast<unsigned char>(ch) < 0x80) keep[static_cast<unsigned char>(ch)] = true;
    out.reserve(out.size() + s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x80 && keep[c]) {
            out += char(c);
        } else {
            out += '%';
            pystr_impl::append_hex(out, c, 2, true);
        }
    }
}

/// Jinja's truncate filter: s unchanged when len(s) <= length + leeway; otherwise the first
/// length - len(end) code points (cut back to the last ' ' unless killwords) followed by end.
/// Throws std::invalid_argument when length < len(end) or leeway < 0 (Jinja's assertions).
inline void jinja_truncate(std::string& out, std::string_view s, long length, bool killwords, std::string_view end,
                           long leeway) {
    const long end_len = static_cast<long>(utf8_length(end));
    if (length < end_len)
        throw std::invalid_argument("expected length >= " + std::to_string(end_len) + ", got " +
                                    std::to_string(length));
    if (leeway < 0) throw std::invalid_argument("expected leeway >= 0, got " + std::to_string(leeway));
    const long len = static_cast<long>(utf8_length(s));
    if (len - leeway <= length) {
        out += s;
        return;
    }
    std::string_view head = s.substr(0, utf8_offset(s, static_cast<std::size_t>(length - end_len)));
    if (!killwords) {
        const std::size_t space = head.rfind(' ');
        if (space != std::string_view::npos) head = head.substr(0, space);
    }
    out += head;
    out += end;
}

/// round(v, ndigits) for a float: the exact binary value rounded half to even at ndigits
/// decimal places (negative ndigits round to tens, hundreds, ...). Throws std::overflow_error
/// when the result is too large to represent, as Python raises OverflowError.
inline double py_round(double v, int ndigits) {
    if (!std::isfinite(v) || v == 0.0) return v;
    if (ndigits > 323) return v;              // NDIGITS_MAX: every double is unchanged
    if (ndigits < -308) return 0.0 * v;       // NDIGITS_MIN: rounds to a signed zero
    // Exact decimal expansion: v = m * 2**e2 with m odd has max(0, -e2) fractional digits.
    int e = 0;
    const double frac = std::frexp(std::fabs(v), &e);
    auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));
    int e2 = e - 53;
    while ((m & 1) == 0) {
        m >>= 1;
        ++e2;
    }
    const int precision = e2 < 0 ? -e2 : 0;
    char buf[1500];
    const auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::fixed, precision);
    // D = all digits; ip = number of integer digits.
    char digits[1500];
    std::size_t nd = 0;
    std::size_t ip = 0;
    bool seen_point = false;
    for (const char* p = buf; p != res.ptr; ++p) {
        if (*p == '.') {
            seen_point = true;
            continue;
        }
        digits[nd++] = *p;
        if (!seen_point) ++ip;
    }
    const long keep = static_cast<long>(ip) + ndigits;
    if (keep >= static_cast<long>(nd)) return v;  // already exact at that many places
    std::string kept;
    if (keep >= 0) {
        kept.assign(digits, static_cast<std::size_t>(keep));
        const char first_dropped = digits[keep];
        bool rest_nonzero = false;
        for (std::size_t k = static_cast<std::size_t>(keep) + 1; k < nd && !rest_nonzero; ++k)
            rest_nonzero = digits[k] != '0';
        const bool last_odd = !kept.empty() && ((kept.back() - '0') & 1);
        const bool up = first_dropped > '5' || (first_dropped == '5' && (rest_nonzero || last_odd));
        if (up) {
            std::size_t k = kept.size();
            while (k > 0 && kept[k - 1] == '9') kept[--k] = '0';
            if (k == 0)
                kept.insert(kept.begin(), '1');
            else
                ++kept[k - 1];
        }
    }
    if (kept.find_first_not_of('0') == std::string::npos) return std::signbit(v) ? -0.0 : 0.0;
    kept += 'e';
    kept += std::to_string(-ndigits);
    double r = 0.0;
    const auto conv = std::from_chars(kept.data(), kept.data() + kept.size(), r);
    if (conv.ec == std::errc::result_out_of_range) throw std::overflow_error("rounded value too large to represent");
    return std::signbit(v) ? -r : r;
}

} // namespace parley::jinja::detail

#endif
