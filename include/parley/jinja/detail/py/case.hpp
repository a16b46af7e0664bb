// parley/jinja/detail/py/case.hpp: str's case mappings: upper, lower, casefold, capitalize, title,
// swapcase (full mappings, final sigma).
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_CASE_HPP
#define PARLEY_JINJA_DETAIL_PY_CASE_HPP

#include <parley/jinja/detail/py/chars.hpp>

#include <string>
#include <string_view>

namespace parley::jinja::detail {

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

} // namespace parley::jinja::detail

#endif
