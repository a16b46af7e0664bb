// parley/jinja/detail/tokens.hpp: what the lexer and the parser share: syntax options, token kinds
// and tokens, syntax errors, and the constexpr character helpers (Python whitespace, names, UTF-8
// characters, Jinja's source normalisation).
#ifndef PARLEY_JINJA_DETAIL_TOKENS_HPP
#define PARLEY_JINJA_DETAIL_TOKENS_HPP

#include <parley/config.hpp>
#include <parley/jinja/detail/identifier_tables.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>


namespace parley::jinja::detail {

/// Options that change how a template is split into tokens and parsed.
struct syntax_options {
    bool trim_blocks = false;  ///< remove the first newline after a block or comment tag
    bool lstrip_blocks = false;  ///< strip spaces and tabs before a block or comment tag that starts a line
    bool keep_trailing_newline = false;  ///< keep a single newline at the end of the template
    bool loop_controls = false;  ///< accept `break` and `continue`
};

enum class tk : std::uint8_t {
    eof,
    data,
    var_begin,
    var_end,
    block_begin,
    block_end,
    name,
    string,
    integer,
    floating,
    add,
    sub,
    mul,
    div,
    floordiv,
    mod,
    pow,
    tilde,
    pipe,
    dot,
    comma,
    colon,
    semicolon,
    assign,
    eq,
    ne,
    lt,
    lteq,
    gt,
    gteq,
    lparen,
    rparen,
    lbracket,
    rbracket,
    lbrace,
    rbrace,
};

/// One token: its type and where its text is in the (normalised) source.
struct token {
    tk type = tk::eof;
    std::uint32_t pos = 0;
    std::uint32_t len = 0;
};

/// A syntax error found while lexing or parsing: a position and a message.
/// The message is a fixed text plus an optional piece of the source (`arg`), so that the
/// same value can be produced at compile time.
struct syntax_error {
    std::uint32_t pos = 0;
    const char* what = nullptr;  ///< null when there is no error
    std::uint32_t arg_pos = 0;  ///< source slice quoted in the message (may be empty)
    std::uint32_t arg_len = 0;
    const char* what2 = nullptr;  ///< optional fixed text after the quoted slice
    constexpr explicit operator bool() const noexcept { return what != nullptr; }
};

/// Length in bytes of the Python whitespace character at `s[i]`, or 0.
/// Covers what `str.isspace()` and `re`'s `\s` accept.
constexpr std::size_t space_at(std::string_view s, std::size_t i) noexcept {
    if (i >= s.size()) return 0;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return 1;
    if (c < 0x80) return 0;
    const auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    if (c == 0xc2 && (b(1) == 0x85 || b(1) == 0xa0)) return 2;  // U+0085, U+00A0
    if (c == 0xe1 && b(1) == 0x9a && b(2) == 0x80) return 3;  // U+1680
    if (c == 0xe2 && b(1) == 0x80 && ((b(2) >= 0x80 && b(2) <= 0x8a) || b(2) == 0xa8 || b(2) == 0xa9 || b(2) == 0xaf))
        return 3;  // U+2000..200A, U+2028, U+2029, U+202F
    if (c == 0xe2 && b(1) == 0x81 && b(2) == 0x9f) return 3;  // U+205F
    if (c == 0xe3 && b(1) == 0x80 && b(2) == 0x80) return 3;  // U+3000
    return 0;
}

/// Whether `s` ends with a Python whitespace character that starts at `i` (helper for rstrip).
constexpr std::size_t rstrip_end(std::string_view s, std::size_t begin, std::size_t end) noexcept {
    // Walk forward so that multi-byte whitespace is recognised; remember the end of the last
    // non-space character.
    std::size_t last = begin;
    std::size_t i = begin;
    while (i < end) {
        const std::size_t n = space_at(s.substr(0, end), i);
        if (n) {
            i += n;
        } else {
            ++i;
            last = i;
        }
    }
    return last;
}

/// Code points of `s` as the run-time engine counts them for columns (parley/jinja/detail/pystr.hpp's
/// utf8_length): a valid UTF-8 sequence is one, and so is each byte that does not start one
/// (Python decodes it as U+FFFD).
constexpr std::size_t utf8_units(std::string_view s) noexcept {
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++count) {
        const auto at = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(s[i + k])); };
        const auto cont = [&](std::size_t k) { return (at(k) & 0xC0u) == 0x80u; };
        const unsigned b0 = at(0);
        const std::size_t n = s.size() - i;
        std::size_t len = 1;
        if (b0 >= 0xC2 && b0 < 0xE0) {
            if (n >= 2 && cont(1)) len = 2;
        } else if (b0 >= 0xE0 && b0 < 0xF5) {
            const unsigned lo = b0 == 0xE0 ? 0xA0 : b0 == 0xF0 ? 0x90 : 0x80;
            const unsigned hi = b0 == 0xED ? 0x9F : b0 == 0xF4 ? 0x8F : 0xBF;
            const std::size_t want = b0 < 0xF0 ? 3 : 4;
            if (n >= want && at(1) >= lo && at(1) <= hi && cont(2) && (want == 3 || cont(3))) len = want;
        }
        i += len;
    }
    return count;
}

/// Whether the source must be rewritten before lexing: `\r` line ends, or a trailing newline
/// that Jinja removes.
constexpr bool needs_normalising(std::string_view s, bool keep_trailing_newline) noexcept {
    if (s.find('\r') != std::string_view::npos) return true;
    return !keep_trailing_newline && !s.empty() && s.back() == '\n';
}

/// Jinja's source preparation: `\r\n` and `\r` become `\n`; without keep_trailing_newline one
/// final newline is dropped. Appends to `out` (a std::string or std::vector<char>).
template <class Out>
constexpr void normalise_source(std::string_view s, bool keep_trailing_newline, Out& out) {
    const std::size_t start = out.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r') {
            out.push_back('\n');
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else {
            out.push_back(s[i]);
        }
    }
    if (!keep_trailing_newline && out.size() > start && out.back() == '\n') out.pop_back();
}

constexpr bool is_name_start(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_name_char(char c) noexcept { return is_name_start(c) || is_digit(c); }

/// A character of a UTF-8 text: its code point and its length in bytes.
struct utf8_char {
    char32_t cp = 0;
    std::size_t len = 1;
};

/// The character at s[i]; a byte that does not start a valid sequence is U+FFFD, one byte long.
constexpr utf8_char utf8_at(std::string_view s, std::size_t i) noexcept {
    const auto at = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
    const char32_t b0 = at(0);
    if (b0 < 0x80) return {b0, 1};
    const std::size_t n = s.size() - i;
    if (b0 >= 0xC2 && b0 < 0xE0) {
        if (n >= 2 && (at(1) & 0xC0) == 0x80) return {((b0 & 0x1F) << 6) | (at(1) & 0x3F), 2};
    } else if (b0 >= 0xE0 && b0 < 0xF5) {
        const char32_t lo = b0 == 0xE0 ? 0xA0 : b0 == 0xF0 ? 0x90 : 0x80;
        const char32_t hi = b0 == 0xED ? 0x9F : b0 == 0xF4 ? 0x8F : 0xBF;
        const std::size_t want = b0 < 0xF0 ? 3 : 4;
        if (n >= want && at(1) >= lo && at(1) <= hi && (at(2) & 0xC0) == 0x80 && (want == 3 || (at(3) & 0xC0) == 0x80)) {
            if (want == 3) return {((b0 & 0x0F) << 12) | ((at(1) & 0x3F) << 6) | (at(2) & 0x3F), 3};
            return {((b0 & 0x07) << 18) | ((at(1) & 0x3F) << 12) | ((at(2) & 0x3F) << 6) | (at(3) & 0x3F), 4};
        }
    }
    return {0xFFFD, 1};
}

/// The run of tables::ident_runs that holds code point `cp`.
constexpr std::uint32_t ident_run(char32_t cp) noexcept {
    std::size_t lo = 0, hi = sizeof(tables::ident_runs) / sizeof(tables::ident_runs[0]);
    while (hi - lo > 1) {  // the last run that starts at or before cp
        const std::size_t mid = lo + (hi - lo) / 2;
        if ((tables::ident_runs[mid] >> tables::ident_bits) <= cp) lo = mid;
        else hi = mid;
    }
    return tables::ident_runs[lo];
}

/// What Jinja2's lexer makes of code point `cp` (tables::ident_flag bits): part of a name
/// (its name pattern), a valid first or later character of one (str.isidentifier()), a decimal
/// digit (re's `\d`).
constexpr std::uint32_t ident_flags(char32_t cp) noexcept {
    return ident_run(cp) & ((1u << tables::ident_bits) - 1);
}

/// The value of a decimal digit (ident_flags has tables::ident_decimal), ASCII or not.
constexpr int decimal_value(char32_t cp) noexcept {
    if (cp < 0x80) return static_cast<int>(cp - '0');
    return static_cast<int>((cp - (ident_run(cp) >> tables::ident_bits)) % 10);
}

/// Length in bytes of the decimal digit (re's `\d`: any Unicode decimal digit) at s[i], or 0.
constexpr std::size_t digit_at(std::string_view s, std::size_t i) noexcept {
    if (i >= s.size()) return 0;
    if (static_cast<unsigned char>(s[i]) < 0x80) return is_digit(s[i]) ? 1 : 0;
    const utf8_char u = utf8_at(s, i);
    return (ident_flags(u.cp) & tables::ident_decimal) ? u.len : 0;
}

/// Splits a normalised template source into tokens.

}  // namespace parley::jinja::detail

#endif
