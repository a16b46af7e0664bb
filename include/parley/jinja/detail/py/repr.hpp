// parley/jinja/detail/py/repr.hpp: Python's repr and formatting of strings, integers and floats
// (shortest round-trip digits).
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_REPR_HPP
#define PARLEY_JINJA_DETAIL_PY_REPR_HPP

#include <parley/jinja/detail/py/case.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

namespace parley::jinja::detail {

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

} // namespace parley::jinja::detail

#endif
