// Tests of parley/jinja/detail/lexer.hpp: tokens, whitespace control, raw blocks and comments,
// numbers, source normalisation and lexical errors, at run time and in constant evaluation.
#include <parley/jinja/detail/lexer.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace pd = parley::jinja::detail;
using pd::tk;

struct lexed {
    std::vector<pd::token> tokens;
    pd::syntax_error err;
    bool ok = false;
};

lexed lex(std::string_view src, pd::syntax_options opt = {}) {
    lexed r;
    pd::lexer lx(src, opt);
    r.ok = lx.run(r.tokens);
    r.err = lx.error();
    return r;
}

std::vector<tk> types(const lexed& l) {
    std::vector<tk> t;
    for (const auto& x : l.tokens) t.push_back(x.type);
    return t;
}

// The text of every data token, joined with '|'.
std::string data_of(std::string_view src, pd::syntax_options opt = {}) {
    const auto l = lex(src, opt);
    REQUIRE(l.ok);
    std::string s;
    for (const auto& t : l.tokens)
        if (t.type == tk::data) {
            if (!s.empty()) s += '|';
            s += src.substr(t.pos, t.len);
        }
    return s;
}

constexpr std::size_t token_count(std::string_view src) {
    std::vector<pd::token> toks;
    pd::lexer lx(src, {});
    return lx.run(toks) ? toks.size() : 0;
}

constexpr std::size_t normalised_size(std::string_view src, bool keep_trailing_newline) {
    std::vector<char> out;
    pd::normalise_source(src, keep_trailing_newline, out);
    return out.size();
}

// data "a", {{, name, }}, data "b", eof
static_assert(token_count("a{{ x }}b") == 6);
static_assert(token_count("{{ 'open }}") == 0);
static_assert(pd::needs_normalising("a\r\nb", true));
static_assert(pd::needs_normalising("a\n", false));
static_assert(!pd::needs_normalising("a\n", true));
static_assert(!pd::needs_normalising("a\nb", false));
static_assert(normalised_size("a\r\nb\rc\n", false) == 5);
static_assert(normalised_size("a\r\n", true) == 2);
static_assert(pd::space_at("\xe3\x80\x80", 0) == 3);  // U+3000 IDEOGRAPHIC SPACE
static_assert(pd::space_at("\xc2\xa0", 0) == 2);  // U+00A0 NO-BREAK SPACE
static_assert(pd::space_at("x", 0) == 0);
// names are Jinja2's: its name pattern, then str.isidentifier() (also in constant evaluation)
static_assert(token_count("{{ \u00e9\u540d\u524d }}") == 4);  // a letter of any script
static_assert(token_count("{{ a\u00b7b }}") == 4);  // U+00B7 continues a name
static_assert(token_count("{{ \u00b7 }}") == 0);  // but does not start one
static_assert(token_count("{{ a\U0001F40D }}") == 0);  // no emoji
static_assert(token_count("{{ \u2118 }}") == 4);  // a start character that \w does not match
static_assert(pd::decimal_value(U'\u0667') == 7);  // ARABIC-INDIC DIGIT SEVEN
static_assert(pd::decimal_value(U'\U0001D7D9') == 1);  // MATHEMATICAL DOUBLE-STRUCK DIGIT ONE

}  // namespace

TEST_CASE("lexer: an expression tag is split into typed tokens with their positions") {
    const std::string_view src = "Hi {{ a.b|f(1, 'x') ~ c[0] }}!";
    const auto l = lex(src);
    REQUIRE(l.ok);
    CHECK(types(l) == std::vector<tk>{tk::data, tk::var_begin, tk::name, tk::dot, tk::name, tk::pipe, tk::name,
                                      tk::lparen, tk::integer, tk::comma, tk::string, tk::rparen, tk::tilde,
                                      tk::name, tk::lbracket, tk::integer, tk::rbracket, tk::var_end, tk::data,
                                      tk::eof});
    CHECK(l.tokens[0].pos == 0);
    CHECK(l.tokens[0].len == 3);
    CHECK(l.tokens[2].pos == 6);  // a
    CHECK(src.substr(l.tokens[10].pos, l.tokens[10].len) == "'x'");
    CHECK(l.tokens.back().pos == src.size());
}

TEST_CASE("lexer: operators, longest match first") {
    const auto l = lex("{{ a ** b // c == d != e <= f >= g < h > i = j % k - l + m / n * o }}");
    REQUIRE(l.ok);
    std::vector<tk> ops;
    for (const auto& t : l.tokens)
        if (t.type != tk::name && t.type != tk::var_begin && t.type != tk::var_end && t.type != tk::eof)
            ops.push_back(t.type);
    CHECK(ops == std::vector<tk>{tk::pow, tk::floordiv, tk::eq, tk::ne, tk::lteq, tk::gteq, tk::lt, tk::gt,
                                 tk::assign, tk::mod, tk::sub, tk::add, tk::div, tk::mul});
}

TEST_CASE("lexer: numbers: integers with bases and underscores, floats, a dot after an integer") {
    const std::string_view src = "{{ 1_000 0x1F 0b10 0o7 1.5 2e3 1.5e-2 x.0.1 }}";
    const auto l = lex(src);
    REQUIRE(l.ok);
    std::vector<std::string_view> numbers;
    for (const auto& t : l.tokens)
        if (t.type == tk::integer || t.type == tk::floating) numbers.push_back(src.substr(t.pos, t.len));
    CHECK(numbers == std::vector<std::string_view>{"1_000", "0x1F", "0b10", "0o7", "1.5", "2e3", "1.5e-2", "0", "1"});
    CHECK(l.tokens[5].type == tk::floating);  // 1.5
    CHECK(l.tokens[1].type == tk::integer);  // 1_000
}

TEST_CASE("lexer: comments disappear; raw blocks are data") {
    CHECK(data_of("a{# note {{ x }} #}b") == "a|b");
    CHECK(data_of("a{% raw %}{{ x }}{% endraw %}b") == "a|{{ x }}|b");
    CHECK(data_of("{% raw -%}  kept {{ }}  {%- endraw %}") == "kept {{ }}");
}

TEST_CASE("lexer: whitespace control with - and +") {
    CHECK(data_of("a  \n  {{- x -}}  \n  b") == "a|b");
    CHECK(data_of("a  {%- if x %}  b") == "a|  b");
    pd::syntax_options o;
    o.lstrip_blocks = true;
    o.trim_blocks = true;
    CHECK(data_of("a\n    {% if x %}\nb", o) == "a\n|b");
    CHECK(data_of("a\n    {%+ if x %}\nb", o) == "a\n    |b");
    CHECK(data_of("a\n  {{ x }}\nb", o) == "a\n  |\nb");  // only block tags are stripped and trimmed
    CHECK(data_of("a {% if x +%}\nb", o) == "a |\nb");  // +%} keeps the newline
}

TEST_CASE("lexer: errors carry a position and a message") {
    const auto unterminated = lex("ab {{ 'open }}");
    REQUIRE_FALSE(unterminated.ok);
    CHECK(unterminated.err.pos == 6);
    CHECK(std::string_view(unterminated.err.what) == "unterminated string literal");

    const auto comment = lex("ab {# open");
    REQUIRE_FALSE(comment.ok);
    CHECK(comment.err.pos == 3);
    CHECK(std::string_view(comment.err.what) == "missing end of comment tag");

    const auto character = lex("{{ a $ b }}");
    REQUIRE_FALSE(character.ok);
    CHECK(character.err.pos == 5);
    CHECK(std::string_view(character.err.what) == "unexpected character ");
    CHECK(character.err.arg_pos == 5);
    CHECK(character.err.arg_len == 1);

    const auto closing = lex("{{ (a] }}");
    REQUIRE_FALSE(closing.ok);
    CHECK(closing.err.pos == 5);
    CHECK(std::string_view(closing.err.what2) == ", a bracket is not closed");

    const auto deep = lex("{{ " + std::string(64, '(') + std::string(64, ')') + " }}");
    CHECK(deep.ok);
    const auto deeper = lex("{{ " + std::string(65, '(') + std::string(65, ')') + " }}");
    REQUIRE_FALSE(deeper.ok);
    CHECK(deeper.err.pos == 3 + 64);
    CHECK(std::string_view(deeper.err.what) == "brackets nested too deeply");

    const auto open = lex("{% if x");
    REQUIRE_FALSE(open.ok);
    CHECK(open.err.pos == 7);
    CHECK(std::string_view(open.err.what) == "unexpected end of template, expected '%}'");
}

TEST_CASE("lexer: normalise_source rewrites line ends and drops one final newline") {
    std::string out;
    pd::normalise_source("a\r\nb\rc\n\n", false, out);
    CHECK(out == "a\nb\nc\n");
    out.clear();
    pd::normalise_source("a\r\n", true, out);
    CHECK(out == "a\n");
    const std::string_view spaced = "ab \t\xe3\x80\x80";
    CHECK(pd::rstrip_end(spaced, 0, spaced.size()) == 2);
}

TEST_CASE("lexer: names follow Python's identifiers as Jinja2 reads them") {
    const auto kinds = [](std::string_view src) {
        const auto l = lex(src);
        std::string r;
        if (!l.ok) return std::string("error: ") + l.err.what + std::string(src.substr(l.err.arg_pos, l.err.arg_len));
        for (const auto& t : l.tokens)
            if (t.type == tk::name) r += "[" + std::string(src.substr(t.pos, t.len)) + "]";
        return r;
    };
    CHECK(kinds("{{ f\u00f6\u00f6 + \u304d + _ + a\u00b7 + \u1885 + \uff21 + \ufb01 }}") ==
          "[f\u00f6\u00f6][\u304d][_][a\u00b7][\u1885][\uff21][\ufb01]");
    CHECK(kinds("{{ \U0001F40Da }}") == "error: unexpected character \U0001F40D");
    CHECK(kinds("{{ a\U0001F40D }}") == "error: unexpected character \U0001F40D");
    CHECK(kinds("{{ \u00b7 }}") == "error: invalid character in identifier \u00b7");
    CHECK(kinds("{{ a\u00b2 }}") == "error: invalid character in identifier a\u00b2");
    CHECK(kinds("{{ \u0661 }}") == "error: invalid character in identifier \u0661");  // a digit
    CHECK(kinds("{{ 1a }}") == "[a]");  // the integer 1, then a name
}

TEST_CASE("lexer: numbers take Unicode decimal digits after an ASCII one, as Python's int() does") {
    const auto l = lex("{{ 1\u0661 + 0x\u0661 }}");
    REQUIRE(l.ok);
    CHECK(types(l) == std::vector<tk>{tk::var_begin, tk::integer, tk::add, tk::integer, tk::var_end, tk::eof});
    const auto f = lex("{{ 1.\u0665 }}");  // Python's literal_eval refuses such a float
    REQUIRE_FALSE(f.ok);
    CHECK(std::string_view(f.err.what) == "invalid float literal ");
}
