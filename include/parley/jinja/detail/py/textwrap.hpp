// parley/jinja/detail/py/textwrap.hpp: Jinja's wordwrap (Python's textwrap) and wordcount filters.
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_TEXTWRAP_HPP
#define PARLEY_JINJA_DETAIL_PY_TEXTWRAP_HPP

#include <parley/jinja/detail/py/split.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

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

} // namespace parley::jinja::detail

#endif
