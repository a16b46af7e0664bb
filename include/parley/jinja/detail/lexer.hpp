// parley/jinja/detail/lexer.hpp: the template lexer (constexpr), Jinja2's rules.
#ifndef PARLEY_JINJA_DETAIL_LEXER_HPP
#define PARLEY_JINJA_DETAIL_LEXER_HPP

#include <parley/jinja/detail/tokens.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

class lexer {
public:
    constexpr lexer(std::string_view src, const syntax_options& opt) : s_(src), opt_(opt) {}

    /// Tokenises the whole source. Returns false (and fills error()) on a lexical error.
    constexpr bool run(std::vector<token>& out) {
        std::size_t pos = 0;
        bool line_starting = true;
        const std::size_t n = s_.size();
        while (pos < n) {
            // find the next tag opener
            std::size_t t = pos;
            char kind = 0;
            for (; t + 1 < n; ++t) {
                if (s_[t] == '{' && (s_[t + 1] == '{' || s_[t + 1] == '%' || s_[t + 1] == '#')) {
                    kind = s_[t + 1];
                    break;
                }
            }
            if (!kind) {
                emit(out, tk::data, pos, n);
                break;
            }
            const char sign = t + 2 < n && (s_[t + 2] == '-' || s_[t + 2] == '+') ? s_[t + 2] : 0;
            std::size_t raw_end = 0;  // end of a `{% raw %}` opener
            bool raw_minus = false;
            if (kind == '%') raw_end = match_raw_begin(t + 2 + (sign ? 1 : 0), raw_minus);
            std::size_t text_end = t;
            strip_before(pos, text_end, sign, kind != '{', line_starting);
            emit(out, tk::data, pos, text_end);
            if (raw_end) {
                // the raw body runs to the first `{% endraw %}`
                std::size_t body = raw_end;
                std::size_t close_begin = 0, close_end = 0;
                char close_sign = 0;
                if (!find_endraw(body, close_begin, close_end, close_sign)) {
                    err_ = {static_cast<std::uint32_t>(t), "missing end of raw directive"};
                    return false;
                }
                std::size_t body_end = close_begin;
                // the character before the closer that matters for line_starting is the end of the opener
                const bool ls = s_[raw_end - 1] == '\n';
                strip_before(body, body_end, close_sign, true, ls);
                emit(out, tk::data, body, body_end);
                pos = close_end;
                line_starting = s_[pos - 1] == '\n';
                continue;
            }
            std::size_t p = t + 2 + (sign ? 1 : 0);
            if (kind == '#') {
                // comment: up to the first `#}` (with its own whitespace control)
                std::size_t e = p;
                for (;; ++e) {
                    if (e + 1 >= n) {
                        err_ = {static_cast<std::uint32_t>(t), "missing end of comment tag"};
                        return false;
                    }
                    if ((s_[e] == '+' || s_[e] == '-') && s_[e + 1] == '#' && e + 2 < n && s_[e + 2] == '}') break;
                    if (s_[e] == '#' && s_[e + 1] == '}') break;
                }
                pos = closer_at(e, '#');
                line_starting = s_[pos - 1] == '\n';
                continue;
            }
            const bool block = kind == '%';
            out.push_back({block ? tk::block_begin : tk::var_begin, static_cast<std::uint32_t>(t),
                           static_cast<std::uint32_t>(p - t)});
            if (!lex_tag(out, p, block)) return false;
            line_starting = s_[p - 1] == '\n';
            pos = p;
        }
        out.push_back({tk::eof, static_cast<std::uint32_t>(n), 0});
        return true;
    }

    constexpr const syntax_error& error() const noexcept { return err_; }

private:
    constexpr void emit(std::vector<token>& out, tk type, std::size_t b, std::size_t e) const {
        if (e > b) out.push_back({type, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e - b)});
    }

    // Whitespace control of the text [b, e) before a tag: `-` strips all whitespace,
    // lstrip_blocks strips the indentation of a block/comment tag that starts a line.
    constexpr void strip_before(std::size_t b, std::size_t& e, char sign, bool block_or_comment,
                                bool line_starting) const {
        if (sign == '-') {
            e = rstrip_end(s_, b, e);
        } else if (sign != '+' && opt_.lstrip_blocks && block_or_comment) {
            std::size_t l = e;
            while (l > b && s_[l - 1] != '\n') --l;
            if (l > b || line_starting) {
                if (l < e && rstrip_end(s_, l, e) == l) e = l;
            }
        }
    }

    constexpr std::size_t skip_spaces(std::size_t i) const {
        while (std::size_t k = space_at(s_, i)) i += k;
        return i;
    }

    // `{%` [-+] \s* raw \s* (-%}\s* | %}) : returns the end of the opener or 0.
    constexpr std::size_t match_raw_begin(std::size_t i, bool& minus) const {
        i = skip_spaces(i);
        if (s_.substr(i, 3) != "raw") return 0;
        i = skip_spaces(i + 3);
        if (s_.substr(i, 3) == "-%}") {
            minus = true;
            return skip_spaces(i + 3);
        }
        if (s_.substr(i, 2) == "%}") return i + 2;
        return 0;
    }

    constexpr bool find_endraw(std::size_t from, std::size_t& begin, std::size_t& end, char& sign) const {
        for (std::size_t i = from; i + 1 < s_.size(); ++i) {
            if (s_[i] != '{' || s_[i + 1] != '%') continue;
            std::size_t j = i + 2;
            char sg = 0;
            if (j < s_.size() && (s_[j] == '-' || s_[j] == '+')) sg = s_[j++];
            j = skip_spaces(j);
            if (s_.substr(j, 6) != "endraw") continue;
            j = skip_spaces(j + 6);
            const std::size_t e = closer_at(j, '%');
            if (!e) continue;
            begin = i;
            end = e;
            sign = sg;
            return true;
        }
        return false;
    }

    // At i: `+X}` | `-X}\s*` | `X}` (+ `\n` with trim_blocks). Returns the end or 0.
    constexpr std::size_t closer_at(std::size_t i, char x) const {
        if (i + 2 < s_.size() && s_[i] == '+' && s_[i + 1] == x && s_[i + 2] == '}') return i + 3;
        if (i + 2 < s_.size() && s_[i] == '-' && s_[i + 1] == x && s_[i + 2] == '}') return skip_spaces(i + 3);
        if (i + 1 < s_.size() && s_[i] == x && s_[i + 1] == '}') {
            std::size_t e = i + 2;
            if (opt_.trim_blocks && x != '}' && e < s_.size() && s_[e] == '\n') ++e;
            return e;
        }
        return 0;
    }

    // Tokens inside `{{ ... }}` or `{% ... %}`; p starts after the opener and ends after the closer.
    constexpr bool lex_tag(std::vector<token>& out, std::size_t& p, bool block) {
        const std::size_t n = s_.size();
        char stack[64] = {};
        std::size_t depth = 0;
        for (;;) {
            if (p >= n) {
                err_ = {static_cast<std::uint32_t>(n), block ? "unexpected end of template, expected '%}'"
                                                              : "unexpected end of template, expected '}}'"};
                return false;
            }
            if (depth == 0) {
                std::size_t e = 0;
                if (block) {
                    e = closer_at(p, '%');
                } else if (s_[p] == '-' && p + 2 < n && s_[p + 1] == '}' && s_[p + 2] == '}') {
                    e = skip_spaces(p + 3);
                } else if (p + 1 < n && s_[p] == '}' && s_[p + 1] == '}') {
                    e = p + 2;
                }
                if (e) {
                    out.push_back({block ? tk::block_end : tk::var_end, static_cast<std::uint32_t>(p),
                                   static_cast<std::uint32_t>(e - p)});
                    p = e;
                    return true;
                }
            }
            if (std::size_t k = space_at(s_, p)) {
                p += k;
                continue;
            }
            const std::size_t start = p;
            const char c = s_[p];
            if (is_digit(c)) {
                if (!lex_number(out, p)) return false;
                continue;
            }
            if (is_name_start(c)) {
                // Jinja2: the longest run of characters of its name pattern, which must then be a
                // Python identifier (str.isidentifier(): XID_Start or '_', then XID_Continue)
                bool identifier = true;
                std::size_t first_len = 1;
                while (p < n) {
                    const char b = s_[p];
                    if (static_cast<unsigned char>(b) < 0x80) {
                        if (!is_name_char(b)) break;
                        ++p;
                        continue;
                    }
                    const utf8_char u = utf8_at(s_, p);
                    const std::uint32_t f = ident_flags(u.cp);
                    if (!(f & tables::ident_word)) break;
                    if (!(f & (p == start ? tables::ident_start : tables::ident_continue))) identifier = false;
                    if (p == start) first_len = u.len;
                    p += u.len;
                }
                if (p == start) {  // a character that is neither part of a name nor an operator
                    err_ = {static_cast<std::uint32_t>(start), "unexpected character ", static_cast<std::uint32_t>(start),
                            static_cast<std::uint32_t>(first_len == 1 ? utf8_at(s_, start).len : first_len)};
                    return false;
                }
                if (!identifier) {
                    err_ = {static_cast<std::uint32_t>(start), "invalid character in identifier ", static_cast<std::uint32_t>(start),
                            static_cast<std::uint32_t>(p - start)};
                    return false;
                }
                out.push_back({tk::name, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p - start)});
                continue;
            }
            if (c == '\'' || c == '"') {
                ++p;
                while (p < n && s_[p] != c) p += (s_[p] == '\\' && p + 1 < n) ? 2 : 1;
                if (p >= n) {
                    err_ = {static_cast<std::uint32_t>(start), "unterminated string literal"};
                    return false;
                }
                ++p;
                out.push_back({tk::string, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p - start)});
                continue;
            }
            tk type = tk::eof;
            std::size_t len = 1;
            const char d = p + 1 < n ? s_[p + 1] : '\0';
            switch (c) {
            case '*':
                type = d == '*' ? tk::pow : tk::mul;
                len = d == '*' ? 2 : 1;
                break;
            case '/':
                type = d == '/' ? tk::floordiv : tk::div;
                len = d == '/' ? 2 : 1;
                break;
            case '=':
                type = d == '=' ? tk::eq : tk::assign;
                len = d == '=' ? 2 : 1;
                break;
            case '!':
                if (d == '=') {
                    type = tk::ne;
                    len = 2;
                }
                break;
            case '>':
                type = d == '=' ? tk::gteq : tk::gt;
                len = d == '=' ? 2 : 1;
                break;
            case '<':
                type = d == '=' ? tk::lteq : tk::lt;
                len = d == '=' ? 2 : 1;
                break;
            case '+': type = tk::add; break;
            case '-': type = tk::sub; break;
            case '%': type = tk::mod; break;
            case '~': type = tk::tilde; break;
            case '|': type = tk::pipe; break;
            case '.': type = tk::dot; break;
            case ',': type = tk::comma; break;
            case ':': type = tk::colon; break;
            case ';': type = tk::semicolon; break;
            case '(': type = tk::lparen; break;
            case ')': type = tk::rparen; break;
            case '[': type = tk::lbracket; break;
            case ']': type = tk::rbracket; break;
            case '{': type = tk::lbrace; break;
            case '}': type = tk::rbrace; break;
            default: break;
            }
            if (type == tk::eof) {
                err_ = {static_cast<std::uint32_t>(start), "unexpected character ", static_cast<std::uint32_t>(start), 1};
                return false;
            }
            if (type == tk::lparen || type == tk::lbracket || type == tk::lbrace) {
                if (depth == sizeof(stack)) {
                    err_ = {static_cast<std::uint32_t>(start), "brackets nested too deeply"};
                    return false;
                }
                stack[depth++] = type == tk::lparen ? ')' : type == tk::lbracket ? ']' : '}';
            } else if (type == tk::rparen || type == tk::rbracket || type == tk::rbrace) {
                if (depth == 0) {
                    err_ = {static_cast<std::uint32_t>(start), "unexpected ", static_cast<std::uint32_t>(start), 1};
                    return false;
                }
                if (stack[--depth] != c) {
                    err_ = {static_cast<std::uint32_t>(start), "unexpected ", static_cast<std::uint32_t>(start), 1,
                            ", a bracket is not closed"};
                    return false;
                }
            }
            out.push_back({type, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(len)});
            p += len;
        }
    }

    // digits (re's \\d: Unicode decimal digits too) with single underscores between them, at i;
    // returns the end or i if none
    constexpr std::size_t digits(std::size_t i) const {
        const std::size_t b = i;
        while (i < s_.size()) {
            if (const std::size_t k = digit_at(s_, i)) {
                i += k;
            } else if (s_[i] == '_' && i > b && digit_at(s_, i + 1)) {
                ++i;
            } else {
                break;
            }
        }
        return i;
    }

    constexpr bool lex_number(std::vector<token>& out, std::size_t& p) {
        const std::size_t start = p;
        const std::size_t n = s_.size();
        // float: digits ( (.digits)? e[+-]?digits | .digits ), not preceded by '.'
        const bool after_dot = start > 0 && s_[start - 1] == '.';
        std::size_t i = digits(p);
        if (!after_dot) {
            std::size_t f = i;
            bool frac = false;
            if (f < n && s_[f] == '.' && digit_at(s_, f + 1)) {
                f = digits(f + 1);
                frac = true;
            }
            bool expo = false;
            if (f < n && (s_[f] == 'e' || s_[f] == 'E')) {
                std::size_t g = f + 1;
                if (g < n && (s_[g] == '+' || s_[g] == '-')) ++g;
                if (digit_at(s_, g)) {
                    f = digits(g);
                    expo = true;
                }
            }
            if (frac || expo) {
                // Jinja2 reads a float with Python's literal_eval, which takes ASCII digits only
                for (std::size_t k = start; k < f; ++k) {
                    if (static_cast<unsigned char>(s_[k]) >= 0x80) {
                        err_ = {static_cast<std::uint32_t>(start), "invalid float literal ", static_cast<std::uint32_t>(start),
                                static_cast<std::uint32_t>(f - start)};
                        return false;
                    }
                }
                out.push_back({tk::floating, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(f - start)});
                p = f;
                return true;
            }
        }
        // integers: 0b / 0o / 0x prefixes, [1-9](_?\d)*, 0(_?0)*
        if (s_[start] == '0' && start + 1 < n) {
            const char x = s_[start + 1];
            int base = (x == 'b' || x == 'B') ? 2 : (x == 'o' || x == 'O') ? 8 : (x == 'x' || x == 'X') ? 16 : 0;
            if (base) {
                std::size_t j = start + 2;
                std::size_t last = 0;
                while (j < n) {
                    std::size_t k = j;
                    if (s_[k] == '_') ++k;
                    if (k < n && digit_value(s_[k]) < base) {
                        j = k + 1;
                        last = j;
                    } else if (std::size_t u = base == 16 ? digit_at(s_, k) : 0) {  // 0x(_?[\\da-f])+
                        j = k + u;
                        last = j;
                    } else {
                        break;
                    }
                }
                if (last) {
                    out.push_back({tk::integer, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(last - start)});
                    p = last;
                    return true;
                }
            }
            // 0(_?0)*
            std::size_t j = start + 1;
            while (j < n) {
                std::size_t k = j;
                if (s_[k] == '_') ++k;
                if (k < n && s_[k] == '0') j = k + 1;
                else break;
            }
            i = j;
        }
        out.push_back({tk::integer, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(i - start)});
        p = i;
        return true;
    }

    static constexpr int digit_value(char c) noexcept {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return 99;
    }

    std::string_view s_;
    syntax_options opt_;
    syntax_error err_{};
};

}  // namespace parley::jinja::detail

#endif
