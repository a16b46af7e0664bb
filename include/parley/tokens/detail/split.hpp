// parley/tokens/detail/split.hpp: the split patterns of the tokenizers parley reads, as code.
// Each function returns the length of the match the published regular expression finds at a
// position (leftmost alternative first, greedy quantifiers with backtracking, as Oniguruma and
// Rust's fancy-regex match them), or 0 when none of its alternatives matches there.
#ifndef PARLEY_TOKENS_DETAIL_SPLIT_HPP
#define PARLEY_TOKENS_DETAIL_SPLIT_HPP

#include <parley/tokens/detail/unicode.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace parley::tokens::detail {

/// The split patterns parley implements.
enum class split_pattern : std::uint8_t {
    gpt2,  ///< GPT-2's (r50k, p50k; Hugging Face's ByteLevel pre-tokenizer with use_regex)
    cl100k,  ///< cl100k_base's (also Llama 3's)
    o200k,  ///< o200k_base's and o200k_harmony's (also gpt-oss's)
    qwen2,  ///< cl100k_base's with single digits (Qwen 2 and 3)
    deepseek_digits,  ///< DeepSeek V3's first split: \p{N}{1,3}
    deepseek_cjk,  ///< DeepSeek V3's second split: runs of CJK ideographs and kana
    deepseek_words,  ///< DeepSeek V3's third split
};

/// The published source text of each pattern, in split_pattern's order.
inline constexpr std::string_view split_pattern_sources[] = {
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)",
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
    R"(\p{N}{1,3})",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
};

/// The pattern whose source text is `source` (exactly), if parley implements it.
inline std::optional<split_pattern> find_split_pattern(std::string_view source) noexcept {
    for (std::size_t i = 0; i < std::size(split_pattern_sources); ++i)
        if (split_pattern_sources[i] == source) return static_cast<split_pattern>(i);
    // DeepSeek's third pattern also circulates with \r and \n written as escapes
    if (source == R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)")
        return split_pattern::deepseek_words;
    return std::nullopt;
}

/// A character of a text: its class bits and length.
struct char_at {
    std::uint16_t bits;
    std::uint8_t length;
    char32_t cp;
};

/// The matcher of one pattern over one text of valid UTF-8.
class splitter {
public:
    splitter(split_pattern p, std::string_view text) noexcept
        : pattern_(p), s_(reinterpret_cast<const unsigned char*>(text.data())), n_(text.size()) {}

    /// The length of the match at byte offset `i` (< size), or 0.
    std::size_t match(std::size_t i) const noexcept {
        switch (pattern_) {
        case split_pattern::gpt2: return gpt2(i);
        case split_pattern::cl100k: return cl100k(i, 3);
        case split_pattern::qwen2: return cl100k(i, 1);
        case split_pattern::o200k: return o200k(i);
        case split_pattern::deepseek_digits: return numbers(i, 3);
        case split_pattern::deepseek_cjk: return cjk(i);
        case split_pattern::deepseek_words: return deepseek_words(i);
        }
        return 0;
    }

    /// The character at `i` (< size): ASCII inline, the rest out of line.
    __attribute__((always_inline)) char_at at(std::size_t i) const noexcept {
        const unsigned char b = s_[i];
        if (b < 0x80) return {ascii_bits[b], 1, b};
        return at_multibyte(i);
    }

    std::size_t size() const noexcept { return n_; }

private:
    __attribute__((noinline)) char_at at_multibyte(std::size_t i) const noexcept {
        unsigned len;
        const char32_t cp = decode_utf8(s_ + i, len);
        return {char_bits_slow(cp), static_cast<std::uint8_t>(len), cp};
    }

    static constexpr std::uint16_t lnn = cb_letter | cb_number | cb_newline;  // [^\r\n\p{L}\p{N}]
    static constexpr std::uint16_t sln = cb_space | cb_letter | cb_number;  // [^\s\p{L}\p{N}]

    /// The end of the run of characters having any of `bits`, from `i`.
    std::size_t run(std::size_t i, std::uint16_t bits) const noexcept {
        while (i < n_) {
            const char_at c = at(i);
            if (!(c.bits & bits)) break;
            i += c.length;
        }
        return i;
    }

    /// The length of a contraction ('s 't 're 've 'm 'll 'd) at `i`, case-insensitive (with
    /// Unicode's simple case folding: U+017F folds to s) when `fold`, or 0.
    std::size_t contraction(std::size_t i, bool fold) const noexcept {
        if (i + 1 >= n_ || s_[i] != '\'') return 0;
        auto letter = [&](std::size_t k, unsigned& len) -> char {
            if (k >= n_) return 0;
            const unsigned char b = s_[k];
            len = 1;
            if (b < 0x80) return static_cast<char>(fold && b >= 'A' && b <= 'Z' ? b + 32 : b);
            if (fold && b == 0xC5 && k + 1 < n_ && s_[k + 1] == 0xBF) {
                len = 2;
                return 's';
            }
            return 0;
        };
        unsigned l1 = 0, l2 = 0;
        const char c1 = letter(i + 1, l1);
        if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') return 1 + l1;
        if (c1 == 'r' || c1 == 'v' || c1 == 'l') {
            const char c2 = letter(i + 1 + l1, l2);
            if ((c1 == 'l' && c2 == 'l') || (c1 != 'l' && c2 == 'e')) return 1 + l1 + l2;
        }
        return 0;
    }

    /// \p{N}{1,max} at `i`.
    std::size_t numbers(std::size_t i, int max) const noexcept {
        std::size_t j = i;
        for (int k = 0; k < max && j < n_; ++k) {
            const char_at c = at(j);
            if (!(c.bits & cb_number)) break;
            j += c.length;
        }
        return j - i;
    }

    /// The whitespace alternatives at `i`: \s*[\r\n]+ (when `newlines`), then \s+(?!\S), then \s+.
    std::size_t spaces(std::size_t i, bool newlines) const noexcept {
        std::size_t j = i, last_start = i, last_newline_end = 0;
        while (j < n_) {
            const char_at c = at(j);
            if (!(c.bits & cb_space)) break;
            last_start = j;
            j += c.length;
            if (c.bits & cb_newline) last_newline_end = j;
        }
        if (j == i) return 0;
        if (newlines && last_newline_end) return last_newline_end - i;  // \s*[\r\n]+ backtracks to the last newline
        if (j == n_ || last_start == i) return j - i;  // \s+(?!\S) at the end, or \s+ for one character
        return last_start - i;  // \s+(?!\S) leaves the last space to the next piece
    }

    /// ` ?X+` at `i` for a class X given by `is` (the optional space is U+0020 only); the end
    /// of the match, or `i`.
    template <class Is>
    std::size_t space_then_run(std::size_t i, Is is) const noexcept {
        std::size_t start = i;
        if (s_[i] == ' ' && i + 1 < n_ && is(at(i + 1).bits)) start = i + 1;
        else if (!is(at(i).bits)) return i;
        std::size_t j = start;
        while (j < n_) {
            const char_at c = at(j);
            if (!is(c.bits)) break;
            j += c.length;
        }
        return j;
    }

    std::size_t gpt2(std::size_t i) const noexcept {
        if (std::size_t k = contraction(i, false)) return k;
        std::size_t e = space_then_run(i, [](std::uint16_t b) { return (b & cb_letter) != 0; });
        if (e > i) return e - i;
        e = space_then_run(i, [](std::uint16_t b) { return (b & cb_number) != 0; });
        if (e > i) return e - i;
        e = space_then_run(i, [](std::uint16_t b) { return !(b & sln); });
        if (e > i) return e - i;
        return spaces(i, false);
    }

    std::size_t cl100k(std::size_t i, int digits) const noexcept {
        const char_at c0 = at(i);
        if (std::size_t k = contraction(i, true)) return k;
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if (!(c0.bits & lnn)) {
            if (i + c0.length < n_ && (at(i + c0.length).bits & cb_letter)) return run(i + c0.length, cb_letter) - i;
        } else if (c0.bits & cb_letter) {
            return run(i, cb_letter) - i;
        }
        if (c0.bits & cb_number) return numbers(i, digits);
        // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
        std::size_t e = space_then_run(i, [](std::uint16_t b) { return !(b & sln); });
        if (e > i) return run(e, cb_newline) - i;
        return spaces(i, true);
    }

    /// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+ from `s`: the end, or 0.
    std::size_t o200k_lower_word(std::size_t s) const noexcept {
        std::size_t j = s, last_both = 0;
        bool found_both = false;
        while (j < n_) {
            const char_at c = at(j);
            if (!(c.bits & cb_upper)) break;
            if (c.bits & cb_lower) {
                last_both = j + c.length;
                found_both = true;
            }
            j += c.length;
        }
        if (j < n_ && (at(j).bits & cb_lower)) return run(j, cb_lower);
        // the upper-case run gives back characters until its last one that is also lower-case
        return found_both ? last_both : 0;
    }

    /// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* from `s`: the end, or 0.
    std::size_t o200k_upper_word(std::size_t s) const noexcept {
        const std::size_t j = run(s, cb_upper);
        if (j == s) return 0;
        return run(j, cb_lower);
    }

    std::size_t o200k(std::size_t i) const noexcept {
        const char_at c0 = at(i);
        const bool prefix = !(c0.bits & lnn);
        for (int branch = 0; branch < 2; ++branch) {
            std::size_t e = 0;
            if (prefix && i + c0.length < n_)
                e = branch == 0 ? o200k_lower_word(i + c0.length) : o200k_upper_word(i + c0.length);
            if (!e) e = branch == 0 ? o200k_lower_word(i) : o200k_upper_word(i);
            if (e) return e + contraction(e, true) - i;
        }
        if (c0.bits & cb_number) return numbers(i, 3);
        // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
        std::size_t e = space_then_run(i, [](std::uint16_t b) { return !(b & sln); });
        if (e > i) {
            while (e < n_ && (s_[e] == '\r' || s_[e] == '\n' || s_[e] == '/')) ++e;
            return e - i;
        }
        return spaces(i, true);
    }

    static bool is_cjk(char32_t cp) noexcept {
        return (cp >= 0x4e00 && cp <= 0x9fa5) || (cp >= 0x3040 && cp <= 0x309f) || (cp >= 0x30a0 && cp <= 0x30ff);
    }

    std::size_t cjk(std::size_t i) const noexcept {
        std::size_t j = i;
        while (j < n_) {
            const char_at c = at(j);
            if (!is_cjk(c.cp)) break;
            j += c.length;
        }
        return j - i;
    }

    static bool ascii_punct(unsigned char b) noexcept {
        return (b >= '!' && b <= '/') || (b >= ':' && b <= '@') || (b >= '[' && b <= '`') || (b >= '{' && b <= '~');
    }
    static bool ascii_letter(unsigned char b) noexcept { return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z'); }

    std::size_t deepseek_words(std::size_t i) const noexcept {
        // [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+
        if (ascii_punct(s_[i]) && i + 1 < n_ && ascii_letter(s_[i + 1])) {
            std::size_t j = i + 1;
            while (j < n_ && ascii_letter(s_[j])) ++j;
            return j - i;
        }
        // [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
        const char_at c0 = at(i);
        constexpr std::uint16_t lm = cb_letter | cb_mark;
        if (!(c0.bits & (cb_newline | cb_letter | cb_punct | cb_symbol)) && i + c0.length < n_ &&
            (at(i + c0.length).bits & lm))
            return run(i + c0.length, lm) - i;
        if (c0.bits & lm) return run(i, lm) - i;
        // ' ?[\p{P}\p{S}]+[\r\n]*'
        const std::size_t e = space_then_run(i, [](std::uint16_t b) { return (b & (cb_punct | cb_symbol)) != 0; });
        if (e > i) return run(e, cb_newline) - i;
        return spaces(i, true);
    }

    split_pattern pattern_;
    const unsigned char* s_;
    std::size_t n_;
};

/// Calls `piece(begin, end, is_match)` for the matches of `p` in `text` and the gaps between
/// them, in order (offsets in bytes; every byte belongs to one call).
template <class Piece>
void for_each_match(split_pattern p, std::string_view text, Piece&& piece) {
    const splitter sp(p, text);
    std::size_t i = 0, gap = 0;
    const std::size_t n = text.size();
    while (i < n) {
        const std::size_t len = sp.match(i);
        if (len == 0) {
            i += sp.at(i).length;
            continue;
        }
        if (gap < i) piece(gap, i, false);
        piece(i, i + len, true);
        i += len;
        gap = i;
    }
    if (gap < n) piece(gap, n, false);
}

}  // namespace parley::tokens::detail

#endif
