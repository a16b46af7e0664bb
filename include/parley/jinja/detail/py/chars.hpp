// parley/jinja/detail/py/chars.hpp: character data (the Unicode tables' flags, case mappings and
// digits of one code point) and str's character-class predicates (isspace, isalpha, isdigit,
// islower, istitle...).
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_CHARS_HPP
#define PARLEY_JINJA_DETAIL_PY_CHARS_HPP

#include <parley/jinja/detail/py/utf8.hpp>
#include <parley/jinja/detail/unicode_tables.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace parley::jinja::detail {

namespace pystr_impl {

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

namespace pystr_impl {
/// The loop of str.islower, str.isupper and str.istitle: calls step(flags) with the flags of
/// each character of s in turn until it returns false. A string of one character is answered by
/// `one` alone (CPython's shortcut). False for an empty string or when a step returns false;
/// otherwise whether a character was cased (`cased`, which the steps set).
template <class Step>
bool cased_scan(std::string_view s, std::uint32_t one, bool& cased, Step step) {
    if (s.empty()) return false;
    const unit first = decode_unit(s, 0);
    if (first.len == s.size()) return (flags_of(first.cp) & one) != 0;
    for (std::size_t i = 0; i < s.size();) {
        const unit u = decode_unit(s, i);
        if (!step(flags_of(u.cp))) return false;
        i += u.len;
    }
    return cased;
}
} // namespace pystr_impl

/// str.islower(): no upper- or titlecase character and at least one lowercase one.
inline bool py_str_islower(std::string_view s) {
    bool cased = false;
    return pystr_impl::cased_scan(s, tables::flag_lower, cased, [&](std::uint32_t f) {
        if (f & (tables::flag_upper | tables::flag_title)) return false;
        if (f & tables::flag_lower) cased = true;
        return true;
    });
}

/// str.isupper(): no lower- or titlecase character and at least one uppercase one.
inline bool py_str_isupper(std::string_view s) {
    bool cased = false;
    return pystr_impl::cased_scan(s, tables::flag_upper, cased, [&](std::uint32_t f) {
        if (f & (tables::flag_lower | tables::flag_title)) return false;
        if (f & tables::flag_upper) cased = true;
        return true;
    });
}

/// str.istitle(): upper/titlecase only after uncased characters, lowercase only after cased.
inline bool py_str_istitle(std::string_view s) {
    bool cased = false;
    bool previous_is_cased = false;
    return pystr_impl::cased_scan(s, tables::flag_upper | tables::flag_title, cased, [&](std::uint32_t f) {
        if (f & (tables::flag_upper | tables::flag_title)) {
            if (previous_is_cased) return false;
            previous_is_cased = cased = true;
        } else if (f & tables::flag_lower) {
            if (!previous_is_cased) return false;
            previous_is_cased = cased = true;
        } else {
            previous_is_cased = false;
        }
        return true;
    });
}

} // namespace parley::jinja::detail

#endif
