// parley/jinja/detail/urlize.hpp: Jinja2's urlize: turns URLs and e-mail addresses in (already
// HTML-escaped) text into links, with the same recognition rules as jinja2.utils.urlize.
#ifndef PARLEY_JINJA_DETAIL_URLIZE_HPP
#define PARLEY_JINJA_DETAIL_URLIZE_HPP

#include <parley/jinja/arguments.hpp>
#include <parley/jinja/detail/pystr.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

/// How urlize shortens the text of a link (`trim_url_limit`).
struct url_trim {
    enum class kind : std::uint8_t {
        none,  ///< no limit
        integer,  ///< keep `count` code points (Python slicing: negative counts from the end)
        real,  ///< a float limit: fine while the text is not longer, a slicing error otherwise
        invalid,  ///< a limit that cannot be compared with a length: an error once a link is made
    };
    kind how = kind::none;
    std::int64_t count = 0;
    double real_limit = 0;
    std::string type;  ///< the limit's type name, for the error of `invalid`
};

/// What urlize adds to the links it makes.
struct urlize_options {
    url_trim trim;
    std::string rel_attr;  ///< ` rel="..."` or empty
    std::string target_attr;  ///< ` target="..."` or empty
    std::vector<std::string> extra_schemes;  ///< further prefixes that make a word a link
};

namespace urlize_impl {

using text = std::u32string;

inline text decode(std::string_view s) {
    text r;
    for (std::size_t i = 0; i < s.size();) r.push_back(utf8_decode(s, i));
    return r;
}

/// The ASCII letter a code point matches under Python's re.IGNORECASE, or the code point itself.
inline char32_t fold(char32_t c) noexcept {
    if (c >= U'A' && c <= U'Z') return c + 32;
    if (c == 0x130 || c == 0x131) return U'i';  // dotted capital I, dotless small i
    if (c == 0x17f) return U's';  // long s
    if (c == 0x212a) return U'k';  // Kelvin sign
    return c;
}
inline bool is_letter_az(char32_t c) noexcept {
    c = fold(c);
    return c >= U'a' && c <= U'z';
}
inline bool is_host_char(char32_t c) noexcept { return py_is_word(c) || c == U'%' || c == U'-'; }
inline bool is_hex(char32_t c) noexcept {
    if (py_isdecimal(c)) return true;
    c = fold(c);
    return c >= U'a' && c <= U'f';
}

/// s[pos:] starts with the ASCII word w, letters compared without case.
inline bool starts_ci(const text& s, std::size_t pos, std::string_view w) noexcept {
    if (pos > s.size() || s.size() - pos < w.size()) return false;
    for (std::size_t k = 0; k < w.size(); ++k)
        if (fold(s[pos + k]) != static_cast<char32_t>(w[k])) return false;
    return true;
}

inline std::size_t run(const text& s, std::size_t pos, bool (*pred)(char32_t) noexcept) noexcept {
    std::size_t k = pos;
    while (k < s.size() && pred(s[k])) ++k;
    return k - pos;
}

/// What may follow the host: an optional `:port` (1 to 5 digits), then nothing or a path,
/// query or fragment (`/`, `?` or `#` and no whitespace).
inline bool tail_ok(const text& s, std::size_t i) {
    if (i < s.size() && s[i] == U':') {
        const std::size_t d = run(s, i + 1, [](char32_t c) noexcept { return py_isdecimal(c); });
        if (d < 1 || d > 5) return false;
        i += 1 + d;
    }
    if (i == s.size()) return true;
    if (s[i] != U'/' && s[i] != U'?' && s[i] != U'#') return false;
    for (++i; i < s.size(); ++i)
        if (py_isspace(s[i])) return false;
    return true;
}

inline std::size_t scheme_length(const text& s) noexcept {
    if (starts_ci(s, 0, "https://")) return 8;
    if (starts_ci(s, 0, "http://")) return 7;
    return 0;
}

/// `scheme-or-www` + labels + a top-level domain of 2 to 63 letters or an `xn--` name.
inline void ends_named_host(const text& s, std::vector<std::size_t>& ends) {
    std::size_t j = scheme_length(s);
    if (!j && starts_ci(s, 0, "www.")) j = 4;
    if (!j) return;
    for (;;) {
        const std::size_t letters = run(s, j, [](char32_t c) noexcept { return is_letter_az(c); });
        for (std::size_t len = 2; len <= letters && len <= 63; ++len) ends.push_back(j + len);
        if (starts_ci(s, j, "xn--")) {
            const std::size_t tail = run(s, j + 4, [](char32_t c) noexcept { return py_is_word(c) || c == U'%'; });
            for (std::size_t len = 2; len <= tail && len <= 59; ++len) ends.push_back(j + 4 + len);
        }
        const std::size_t label = run(s, j, [](char32_t c) noexcept { return is_host_char(c); });
        if (label == 0 || j + label >= s.size() || s[j + label] != U'.') return;
        j += label + 1;
    }
}

/// Labels of 2 to 63 characters, each followed by a dot, then one of a few well-known domains.
inline void ends_bare_domain(const text& s, std::vector<std::size_t>& ends) {
    static constexpr std::string_view tlds[] = {"com", "net", "int", "edu", "gov", "org", "info", "mil"};
    std::size_t j = 0;
    for (;;) {
        const std::size_t label = run(s, j, [](char32_t c) noexcept { return is_host_char(c); });
        if (label < 2 || label > 63 || j + label >= s.size() || s[j + label] != U'.') return;
        j += label + 1;
        for (auto t : tlds)
            if (starts_ci(s, j, t)) ends.push_back(j + t.size());
    }
}

/// The fewest `hex{0,4}:?` pieces the text needs (each piece: up to four hex digits, then a colon
/// or not); npos when it holds another character.
inline std::size_t ipv6_pieces(const text& s, std::size_t b, std::size_t e) noexcept {
    std::size_t pieces = 0;
    for (std::size_t i = b; i < e;) {
        if (is_hex(s[i])) {
            std::size_t r = 0;
            while (i + r < e && is_hex(s[i + r])) ++r;
            pieces += (r + 3) / 4;
            i += r;
            if (i < e && s[i] == U':') ++i;
        } else if (s[i] == U':') {
            ++pieces;
            ++i;
        } else {
            return std::u32string::npos;
        }
    }
    return pieces;
}

/// `http(s)://` + a dotted IPv4 address or a bracketed IPv6 address.
inline void ends_ip_host(const text& s, std::vector<std::size_t>& ends) {
    std::size_t j = scheme_length(s);
    if (!j) return;
    auto digits = [&](std::size_t pos) { return run(s, pos, [](char32_t c) noexcept { return py_isdecimal(c); }); };
    std::size_t k = j;
    bool v4 = true;
    for (int group = 0; group < 3 && v4; ++group) {
        const std::size_t d = digits(k);
        if (d < 1 || d > 3 || k + d >= s.size() || s[k + d] != U'.') v4 = false;
        else k += d + 1;
    }
    if (v4)
        for (std::size_t len = 1; len <= 3 && len <= digits(k); ++len) ends.push_back(k + len);
    if (j >= s.size() || s[j] != U'[') return;
    k = j + 1;
    for (int group = 0; group < 2; ++group) {
        const std::size_t h = run(s, k, [](char32_t c) noexcept { return is_hex(c); });
        if (h > 4 || k + h >= s.size() || s[k + h] != U':') return;
        k += h + 1;
    }
    const std::size_t close = s.find(U']', k);
    if (close == std::u32string::npos) return;
    const std::size_t pieces = ipv6_pieces(s, k, close);
    if (pieces != std::u32string::npos && pieces <= 6) ends.push_back(close + 1);
}

/// The word is a web address (jinja2.utils._http_re).
inline bool is_web_address(std::string_view word) {
    const text s = decode(word);
    std::vector<std::size_t> ends;
    ends_named_host(s, ends);
    ends_bare_domain(s, ends);
    ends_ip_host(s, ends);
    for (std::size_t e : ends)
        if (tail_ok(s, e)) return true;
    return false;
}

/// `\S+@\w[\w.-]*\.\w+` over the whole word (jinja2.utils._email_re).
inline bool is_email(std::string_view word) {
    const text s = decode(word);
    const std::size_t at = s.rfind(U'@');
    if (at == std::u32string::npos || at == 0) return false;
    for (std::size_t i = 0; i < at; ++i)
        if (py_isspace(s[i])) return false;
    const std::size_t b = at + 1;
    if (b >= s.size() || !py_is_word(s[b])) return false;
    std::size_t dot = std::u32string::npos;
    for (std::size_t i = b; i < s.size(); ++i) {
        if (s[i] == U'.') dot = i;
        else if (!py_is_word(s[i]) && s[i] != U'-') return false;
    }
    if (dot == std::u32string::npos || dot + 1 == s.size()) return false;
    for (std::size_t i = dot + 1; i < s.size(); ++i)
        if (!py_is_word(s[i])) return false;
    return true;
}

inline std::size_t count_of(std::string_view s, std::string_view sub) noexcept {
    std::size_t n = 0;
    for (std::size_t p = s.find(sub); p != std::string_view::npos; p = s.find(sub, p + sub.size())) ++n;
    return n;
}

inline bool starts_with(std::string_view s, std::string_view p) noexcept { return s.substr(0, p.size()) == p; }

/// Splits leading `(`, `<`, `&lt;` and trailing `)`, `>`, `.`, `,`, newline, `&gt;` off a word,
/// then moves closing brackets back from the tail while the word has unmatched opening ones.
inline void split_punctuation(std::string_view word, std::string& head, std::string& middle, std::string& tail) {
    std::size_t b = 0;
    for (;;) {
        if (b < word.size() && (word[b] == '(' || word[b] == '<')) ++b;
        else if (starts_with(word.substr(b), "&lt;")) b += 4;
        else break;
    }
    std::size_t e = word.size();
    while (e > b) {
        const char c = word[e - 1];
        if (c == ')' || c == '>' || c == '.' || c == ',' || c == '\n') --e;
        else if (e - b >= 4 && word.substr(e - 4, 4) == "&gt;") e -= 4;
        else break;
    }
    head.assign(word.substr(0, b));
    middle.assign(word.substr(b, e - b));
    tail.assign(word.substr(e));
    static constexpr std::string_view pairs[][2] = {{"(", ")"}, {"<", ">"}, {"&lt;", "&gt;"}};
    for (auto& [open, close] : pairs) {
        const std::size_t opened = count_of(middle, open);
        if (opened <= count_of(middle, close)) continue;
        const std::size_t moves = std::min(opened, count_of(tail, close));
        for (std::size_t k = 0; k < moves; ++k) {
            const std::size_t end = tail.find(close) + close.size();
            middle += tail.substr(0, end);
            tail.erase(0, end);
        }
    }
}

/// The text shown for a link: the address, shortened as `trim_url_limit` asks.
inline void append_shown(std::string& out, std::string_view url, const url_trim& t) {
    const std::size_t len = utf8_length(url);
    switch (t.how) {
    case url_trim::kind::none: out += url; return;
    case url_trim::kind::invalid:
        raise(errc::template_type, "'>' not supported between instances of 'int' and '" + t.type + "'");
    case url_trim::kind::real:
        if (static_cast<double>(len) > t.real_limit)
            raise(errc::template_type, "slice indices must be integers or None or have an __index__ method");
        out += url;
        return;
    case url_trim::kind::integer: break;
    }
    if (static_cast<std::int64_t>(len) <= t.count) {
        out += url;
        return;
    }
    const std::int64_t keep = t.count >= 0 ? t.count : std::max<std::int64_t>(0, static_cast<std::int64_t>(len) + t.count);
    out += url.substr(0, utf8_offset(url, static_cast<std::size_t>(keep)));
    out += "...";
}

inline void link_word(std::string& out, std::string_view word, const urlize_options& o) {
    std::string head, middle, tail;
    split_punctuation(word, head, middle, tail);
    out += head;
    if (is_web_address(middle)) {
        const bool has_scheme = starts_with(middle, "https://") || starts_with(middle, "http://");
        out += has_scheme ? "<a href=\"" : "<a href=\"https://";
        out += middle;
        out += '"';
        out += o.rel_attr;
        out += o.target_attr;
        out += '>';
        append_shown(out, middle, o.trim);
        out += "</a>";
    } else if (starts_with(middle, "mailto:") && is_email(std::string_view(middle).substr(7))) {
        out += "<a href=\"" + middle + "\">" + middle.substr(7) + "</a>";
    } else if (middle.find('@') != std::string::npos && !starts_with(middle, "www.") && !starts_with(middle, "@") &&
               middle.find(':') == std::string::npos && is_email(middle)) {
        out += "<a href=\"mailto:" + middle + "\">" + middle + "</a>";
    } else {
        for (auto& scheme : o.extra_schemes)
            if (middle != scheme && starts_with(middle, scheme))
                middle = "<a href=\"" + middle + "\"" + o.rel_attr + o.target_attr + ">" + middle + "</a>";
        out += middle;
    }
    out += tail;
}

}  // namespace urlize_impl

/// jinja2.utils.urlize over text that is already HTML-escaped: each whitespace-separated word
/// that is a web address, a `mailto:` address, an e-mail address or starts with one of the
/// extra schemes becomes a link; everything else is copied.
inline void jinja_urlize(std::string& out, std::string_view escaped, const urlize_options& o) {
    // alternate runs of non-space and of space characters; each run is handled as a word
    std::size_t i = 0;
    while (i < escaped.size()) {
        std::size_t e = i;
        const bool space = py_isspace(utf8_decode(escaped, e));
        for (std::size_t k = e; e < escaped.size(); e = k)
            if (py_isspace(utf8_decode(escaped, k)) != space) break;
        urlize_impl::link_word(out, escaped.substr(i, e - i), o);
        i = e;
    }
}

/// The scheme is one `extra_schemes` accepts: `[\w.+-]{2,}:` followed by up to two slashes.
inline bool is_uri_scheme_prefix(std::string_view scheme) {
    std::string_view s = scheme;
    for (int k = 0; k < 2 && !s.empty() && s.back() == '/'; ++k) s.remove_suffix(1);
    if (s.empty() || s.back() != ':') return false;
    s.remove_suffix(1);
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++count) {
        const char32_t c = utf8_decode(s, i);
        if (!py_is_word(c) && c != U'.' && c != U'+' && c != U'-') return false;
    }
    return count >= 2;
}

}  // namespace parley::jinja::detail

#endif
