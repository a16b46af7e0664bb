// parley/tokens/detail/normalize.hpp: the normalizers of Hugging Face tokenizer files parley
// implements: NFC (with the tables of Unicode 9.0.0, as the reference has them), Replace of a
// string, Prepend, and Sequence of those.
#ifndef PARLEY_TOKENS_DETAIL_NORMALIZE_HPP
#define PARLEY_TOKENS_DETAIL_NORMALIZE_HPP

#include <parley/tokens/detail/unicode.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// The canonical combining class of a code point (Unicode 9.0.0).
inline std::uint8_t combining_class(char32_t cp) noexcept {
    return ucd::ccc_stage2[(static_cast<std::size_t>(ucd::ccc_stage1[cp >> ucd::ccc_shift]) << ucd::ccc_shift) |
                           (cp & ((1u << ucd::ccc_shift) - 1))];
}

inline constexpr char32_t hangul_s = 0xAC00, hangul_l = 0x1100, hangul_v = 0x1161, hangul_t = 0x11A7;
inline constexpr char32_t hangul_l_count = 19, hangul_v_count = 21, hangul_t_count = 28;
inline constexpr char32_t hangul_n = hangul_v_count * hangul_t_count, hangul_count = hangul_l_count * hangul_n;

/// Appends the full canonical decomposition of `cp`.
inline void decompose(char32_t cp, std::vector<char32_t>& out) {
    if (cp >= hangul_s && cp < hangul_s + hangul_count) {
        const char32_t s = cp - hangul_s;
        out.push_back(hangul_l + s / hangul_n);
        out.push_back(hangul_v + (s % hangul_n) / hangul_t_count);
        if (s % hangul_t_count) out.push_back(hangul_t + s % hangul_t_count);
        return;
    }
    const auto* b = std::begin(ucd::decomposition_index);
    const auto* e = std::end(ucd::decomposition_index);
    const auto* it = std::lower_bound(b, e, std::uint64_t(cp) << 24);
    if (it != e && (*it >> 24) == cp) {
        const std::size_t offset = (*it >> 8) & 0xffff, length = *it & 0xff;
        out.insert(out.end(), ucd::decomposition_data + offset, ucd::decomposition_data + offset + length);
        return;
    }
    out.push_back(cp);
}

/// The primary composite of `a` then `b`, or 0.
inline char32_t compose(char32_t a, char32_t b) noexcept {
    if (a >= hangul_l && a < hangul_l + hangul_l_count && b >= hangul_v && b < hangul_v + hangul_v_count)
        return hangul_s + ((a - hangul_l) * hangul_v_count + (b - hangul_v)) * hangul_t_count;
    if (a >= hangul_s && a < hangul_s + hangul_count && (a - hangul_s) % hangul_t_count == 0 && b > hangul_t &&
        b < hangul_t + hangul_t_count)
        return a + (b - hangul_t);
    const std::uint64_t key = (std::uint64_t(a) << 21) | b;
    const auto* it = std::lower_bound(std::begin(ucd::composition_keys), std::end(ucd::composition_keys), key);
    if (it != std::end(ucd::composition_keys) && *it == key)
        return ucd::composition_values[it - std::begin(ucd::composition_keys)];
    return 0;
}

/// Appends the NFC form of `text` (valid UTF-8) to `out`.
inline void nfc(std::string_view text, std::string& out) {
    // Below U+0300 every character is its own NFC form and composes with nothing before it.
    std::size_t plain = 0;
    while (plain < text.size() && static_cast<unsigned char>(text[plain]) < 0xCC) ++plain;
    if (plain == text.size()) {
        out.append(text);
        return;
    }
    // back up one character: the last plain one may compose with what follows
    if (plain > 0) {
        --plain;
        while (plain > 0 && (static_cast<unsigned char>(text[plain]) & 0xC0) == 0x80) --plain;
    }
    out.append(text.substr(0, plain));
    std::vector<char32_t> d;
    d.reserve(text.size() - plain);
    const auto* p = reinterpret_cast<const unsigned char*>(text.data()) + plain;
    const auto* end = reinterpret_cast<const unsigned char*>(text.data()) + text.size();
    while (p < end) {
        unsigned len;
        decompose(decode_utf8(p, len), d);
        p += len;
    }
    // canonical ordering: stable sort of each run of non-starters by class
    for (std::size_t i = 0; i < d.size();) {
        if (combining_class(d[i]) == 0) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < d.size() && combining_class(d[j]) != 0) ++j;
        std::stable_sort(d.begin() + static_cast<std::ptrdiff_t>(i), d.begin() + static_cast<std::ptrdiff_t>(j),
                         [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
        i = j;
    }
    // canonical composition (unicode-normalization's Recompositions)
    std::vector<char32_t> pending;
    bool have_composee = false;
    char32_t composee = 0;
    int last_class = -1;  // -1: nothing since the composee
    auto flush = [&] {
        if (have_composee) append_utf8(out, composee);
        for (char32_t c : pending) append_utf8(out, c);
        pending.clear();
    };
    for (char32_t ch : d) {
        const int cls = combining_class(ch);
        if (!have_composee) {
            if (cls != 0) {
                append_utf8(out, ch);
                continue;
            }
            have_composee = true;
            composee = ch;
            continue;
        }
        if (last_class >= cls && last_class != -1) {
            if (cls == 0) {
                flush();
                composee = ch;
                last_class = -1;
                continue;
            }
            pending.push_back(ch);
            last_class = cls;
            continue;
        }
        if (const char32_t r = compose(composee, ch)) {
            composee = r;
            continue;
        }
        if (cls == 0 && last_class == -1) {
            flush();
            composee = ch;
            continue;
        }
        pending.push_back(ch);
        last_class = cls;
    }
    flush();
}

/// One normalizer step.
struct normalizer_step {
    enum class kind : std::uint8_t { nfc, replace, prepend };
    kind type = kind::nfc;
    std::string pattern;  ///< replace: the string replaced
    std::string content;  ///< replace: the replacement; prepend: the text prepended
};

/// Applies `steps` to `text`, into `out` (using `scratch`); Prepend steps only when `at_start`
/// (a text cut in chunks is prepended to once).
inline void normalize(const std::vector<normalizer_step>& steps, std::string_view text, bool at_start, std::string& out,
                      std::string& scratch) {
    out.assign(text);
    for (const normalizer_step& step : steps) {
        switch (step.type) {
        case normalizer_step::kind::nfc:
            scratch.clear();
            nfc(out, scratch);
            out.swap(scratch);
            break;
        case normalizer_step::kind::replace: {
            if (step.pattern.empty() || out.find(step.pattern) == std::string::npos) break;
            scratch.clear();
            std::size_t from = 0;
            for (std::size_t at; (at = out.find(step.pattern, from)) != std::string::npos; from = at + step.pattern.size()) {
                scratch.append(out, from, at - from);
                scratch += step.content;
            }
            scratch.append(out, from, std::string::npos);
            out.swap(scratch);
            break;
        }
        case normalizer_step::kind::prepend:
            if (at_start && !out.empty()) out.insert(0, step.content);
            break;
        }
    }
}

}  // namespace parley::tokens::detail

#endif
