// parley/jinja/detail/py/html.hpp: HTML in Jinja's filters: html.unescape (HTML5 named and numeric
// references), MarkupSafe's striptags, urlencode.
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_HTML_HPP
#define PARLEY_JINJA_DETAIL_PY_HTML_HPP

#include <parley/jinja/detail/py/textwrap.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

namespace parley::jinja::detail {

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

} // namespace parley::jinja::detail

#endif
