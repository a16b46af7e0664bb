// parley/jinja/detail/syntax_report.hpp: how a text parsed while the program compiles (a
// compile-time template, a builder's text) and found not to parse is shown by the compiler.
//
// The text is parsed by the constexpr parser of the prompt language. A syntax error ends in a
// call of error_a_template_text_does_not_parse, which is not constexpr: in constant evaluation
// that call is the compile error, at run time it throws parley::template_error. To show where
// the error is, clang++ prints the arguments of each call of the evaluation, so the innermost
// constexpr call carries the message, part, line, column and the parser's texts as values. g++
// prints template arguments instead, so the line and the column pass through one instantiation
// each (`template_error_at_line<3>`, `template_error_at_column<14>`, reached through tables of
// function pointers: nothing is instantiated per line and column pair), and the parser's message
// becomes a fixed_string template argument of the innermost call, looked up in a list of the
// parser's messages.
#ifndef PARLEY_JINJA_DETAIL_SYNTAX_REPORT_HPP
#define PARLEY_JINJA_DETAIL_SYNTAX_REPORT_HPP

#include <parley/error.hpp>
#include <parley/fixed_string.hpp>
#include <parley/jinja/detail/lexer.hpp>
#include <parley/jinja/detail/parser.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::detail {

/// A syntax error of a template text, located: the message and content part (-1 for a string
/// content) it is in, its line and column (1-based, columns in code points), the parser's
/// message (`what`, the quoted piece of the source, `then`), the text and the template's name.
struct syntax_site {
    std::size_t message = 0;
    int part = -1;
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    const char* what = nullptr;
    std::string_view quoted;
    const char* then = nullptr;
    std::string_view source;
    std::string_view template_name;
};

/// Throws parley::template_error for the site, named as conversation_template names its texts
/// (`NAME#I`, `NAME#I.J`).
inline void error_a_template_text_does_not_parse(syntax_site s) {
    std::string name = s.template_name.empty() ? std::string("template") : std::string(s.template_name);
    name += '#' + std::to_string(s.message);
    if (s.part >= 0) name += '.' + std::to_string(s.part);
    std::string msg = s.what ? s.what : "syntax error";
    if (!s.quoted.empty()) msg += "'" + std::string(s.quoted) + "'";
    if (s.then) msg += s.then;
    std::size_t begin = 0;
    for (std::uint32_t l = 1; l < s.line; ++l) begin = s.source.find('\n', begin) + 1;
    const std::size_t end = s.source.find('\n', begin);
    const std::string_view line =
        s.source.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    throw template_error(errc::template_syntax, std::move(msg), source_location{std::move(name), s.line, s.column},
                         line);
}

/// The texts of the parser's messages (parley/jinja/detail/parser.hpp and lexer.hpp), for g++'s
/// output; a message missing here is shown as "a syntax error" by g++ (clang++ shows it anyway).
inline constexpr std::string_view known_syntax_messages[] = {
    " needs a template loader, which this environment does not have",
    "'break' outside of a loop",
    "'continue' outside of a loop",
    ", a block is still open (expected its end tag)",
    ", a bracket is not closed",
    "\\N{...} escapes are not supported in string literals",
    "block defined twice: ",
    "blocks nested too deeply",
    "brackets nested too deeply",
    "cannot assign to the special variable 'loop' inside a for loop",
    "cannot assign to this expression",
    "duplicate parameter ",
    "end of template",
    "expected '%}', got ",
    "expected '(', got ",
    "expected ')', got ",
    "expected ',' or ')', got ",
    "expected ',' or ']', got ",
    "expected ',' or '}', got ",
    "expected ',', got ",
    "expected ':', got ",
    "expected '=', got ",
    "expected ']', got ",
    "expected 'in', got ",
    "expected '}', got ",
    "expected '}}', got ",
    "expected a block name, got ",
    "expected a call after 'call'",
    "expected a macro name, got ",
    "expected a name or number after '.'",
    "expected a name, got ",
    "expected a parameter name, got ",
    "expected an expression, got ",
    "expression nested too deeply",
    "illegal Unicode character in string literal",
    "integer literal too large",
    "invalid character in identifier ",
    "invalid float literal ",
    "invalid syntax for function call expression",
    "keyword argument repeated: ",
    "mismatched block name ",
    "missing end of comment tag",
    "missing end of raw directive",
    "non-default argument follows default argument",
    "positional argument follows keyword argument",
    "required blocks can only contain comments or whitespace",
    "tag ",
    "tag name expected, got ",
    "the 'caller' parameter needs a default (the body calls caller())",
    "truncated \\UXXXXXXXX escape in string literal",
    "truncated \\uXXXX escape in string literal",
    "truncated \\xXX escape in string literal",
    "unexpected ",
    "unexpected character ",
    "unexpected end of template",
    "unexpected end of template, expected '%}'",
    "unexpected end of template, expected 'endautoescape'",
    "unexpected end of template, expected 'endblock'",
    "unexpected end of template, expected 'endcall'",
    "unexpected end of template, expected 'endfilter'",
    "unexpected end of template, expected 'endfor'",
    "unexpected end of template, expected 'endif'",
    "unexpected end of template, expected 'endmacro'",
    "unexpected end of template, expected 'endset'",
    "unexpected end of template, expected 'endwith'",
    "unexpected end of template, expected '}}'",
    "unknown tag ",
    "unterminated string literal",
    "you cannot chain multiple tests with 'is'",
    "a syntax error",  // the last entry stands for any message not listed
};
inline constexpr std::size_t syntax_message_count = std::size(known_syntax_messages);

template <std::size_t I>
inline constexpr auto syntax_message_string = [] {
    fixed_string<known_syntax_messages[I].size()> s;
    for (std::size_t k = 0; k < known_syntax_messages[I].size(); ++k) s.data[k] = known_syntax_messages[I][k];
    return s;
}();

/// The innermost step: `Message` is the parser's message, which g++ prints as the template
/// argument; clang++ prints the site (message, part, line, column, the parser's texts).
template <fixed_string Message>
constexpr void template_syntax_error(syntax_site s) {
    error_a_template_text_does_not_parse(s);
}

using syntax_step = void (*)(syntax_site);
template <std::size_t N>
struct syntax_steps {
    syntax_step at[N];
};

template <std::size_t I>
constexpr void message_step(syntax_site s) {
    template_syntax_error<syntax_message_string<I>>(s);
}
template <std::size_t... I>
constexpr syntax_steps<sizeof...(I)> make_message_steps(std::index_sequence<I...>) {
    return {{&message_step<I>...}};
}
inline constexpr auto syntax_message_steps = make_message_steps(std::make_index_sequence<syntax_message_count>{});

constexpr std::size_t syntax_message_index(const char* what) {
    if (!what) return syntax_message_count - 1;
    const std::string_view w(what);
    for (std::size_t k = 0; k + 1 < syntax_message_count; ++k)
        if (known_syntax_messages[k] == w) return k;
    return syntax_message_count - 1;
}

/// Lines and columns beyond these are shown as 0 by g++ (clang++ shows the values anyway).
inline constexpr std::uint32_t max_shown_line = 1000;
inline constexpr std::uint32_t max_shown_column = 500;

template <std::uint32_t Column>
constexpr void template_error_at_column(syntax_site s) {
    syntax_message_steps.at[syntax_message_index(s.what)](s);
}
template <std::uint32_t Column>
constexpr void column_step(syntax_site s) {
    template_error_at_column<Column>(s);
}
template <std::size_t... I>
constexpr syntax_steps<sizeof...(I)> make_column_steps(std::index_sequence<I...>) {
    return {{&column_step<static_cast<std::uint32_t>(I)>...}};
}
inline constexpr auto syntax_column_steps = make_column_steps(std::make_index_sequence<max_shown_column + 1>{});

template <std::uint32_t Line>
constexpr void template_error_at_line(syntax_site s) {
    syntax_column_steps.at[s.column <= max_shown_column ? s.column : 0](s);
}
template <std::uint32_t Line>
constexpr void line_step(syntax_site s) {
    template_error_at_line<Line>(s);
}
template <std::size_t... I>
constexpr syntax_steps<sizeof...(I)> make_line_steps(std::index_sequence<I...>) {
    return {{&line_step<static_cast<std::uint32_t>(I)>...}};
}
inline constexpr auto syntax_line_steps = make_line_steps(std::make_index_sequence<max_shown_line + 1>{});

/// Reports a syntax error found in `source` (the text as parsed).
constexpr void report_syntax_error(syntax_site s, const jinja::detail::syntax_error& err) {
    // line and column of err.pos, in one pass
    std::uint32_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t k = 0; k < err.pos && k < s.source.size(); ++k) {
        if (s.source[k] == '\n') {
            ++line;
            line_start = k + 1;
        }
    }
    const std::size_t end = err.pos < s.source.size() ? err.pos : s.source.size();
    s.line = line;
    s.column = 1 + static_cast<std::uint32_t>(jinja::detail::utf8_units(s.source.substr(line_start, end - line_start)));
    s.what = err.what;
    s.quoted = err.arg_len ? s.source.substr(err.arg_pos, err.arg_len) : std::string_view();
    s.then = err.what2;
    syntax_line_steps.at[line <= max_shown_line ? line : 0](s);
}

/// Parses `text` as the default environment of conversation_template does (Python Jinja2's
/// defaults) and reports a syntax error.
constexpr void check_template_text(std::string_view text, std::size_t message, int part,
                                   std::string_view template_name) {
    namespace jd = jinja::detail;
    const jd::syntax_options options{};
    syntax_site site;
    site.message = message;
    site.part = part;
    site.template_name = template_name;
    jd::program program;
    if (jd::needs_normalising(text, options.keep_trailing_newline)) {
        std::vector<char> normal;
        jd::normalise_source(text, options.keep_trailing_newline, normal);
        site.source = std::string_view(normal.data(), normal.size());
        if (const jd::syntax_error err = jd::parse_program(site.source, options, program))
            report_syntax_error(site, err);
    } else {
        site.source = text;
        if (const jd::syntax_error err = jd::parse_program(text, options, program)) report_syntax_error(site, err);
    }
}

}  // namespace parley::detail

#endif
