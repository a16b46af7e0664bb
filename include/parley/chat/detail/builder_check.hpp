// parley/chat/detail/builder_check.hpp: how the constexpr builders of parley/chat/builder.hpp
// report a broken rule.
//
// One error path for both worlds: each rule has a function that is not constexpr and whose
// name states the rule (`error_a_function_message_needs_a_name`). In constant evaluation (a
// `constexpr` builder) reaching such a call is a compile error, and both g++ and clang++ print
// the function's name; at run time the same call throws parley::error with the sentence of
// parley::describe.
//
// A template text that does not parse also names the parser's message, line and column. clang++
// prints the arguments of each call in the evaluation, so the innermost call carries them as
// values. g++ prints template arguments instead, so the line and the column pass through one
// instantiation each (`template_error_at_line<3>`, `template_error_at_column<14>`, reached
// through tables of function pointers: no template is instantiated per pair) and the parser's
// message becomes a fixed_string template argument of the innermost call, looked up in a list of
// the parser's messages.
#ifndef PARLEY_CHAT_DETAIL_BUILDER_CHECK_HPP
#define PARLEY_CHAT_DETAIL_BUILDER_CHECK_HPP

#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/error.hpp>
#include <parley/fixed_string.hpp>
#include <parley/jinja/detail/lexer.hpp>
#include <parley/jinja/detail/parser.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::detail {

inline constexpr std::size_t no_message = static_cast<std::size_t>(-1);

/// Where a builder breaks a rule: the index of the message (no_message for the template set or
/// the metadata), its role, the key or value concerned, and the template's name.
struct builder_site {
    std::size_t message = no_message;
    parley::role role = parley::role::user;
    std::string_view key;
    std::string_view template_name;
};

/// "NAME, message I: sentence" (the form conversation_template uses), thrown as parley::error.
[[noreturn]] inline void throw_builder_error(const builder_site& at, const std::string& sentence) {
    std::string where = at.template_name.empty() ? std::string("template") : std::string(at.template_name);
    if (at.message != no_message) where += ", message " + std::to_string(at.message);
    throw error(errc::chat_invalid, where + ": " + sentence);
}
[[noreturn]] inline void throw_rule(const builder_site& at, chat_rule rule) {
    throw_builder_error(at, describe(rule, at.role, at.key));
}

// ---- the rules of rules.hpp, one function each -------------------------------------------------

inline void error_a_function_message_needs_a_name(builder_site at) { throw_rule(at, chat_rule::function_needs_name); }
inline void error_a_tool_message_needs_a_tool_call_id(builder_site at) { throw_rule(at, chat_rule::tool_needs_id); }
inline void error_a_default_request_must_set_at_least_one_parameter(builder_site at) {
    throw_rule(at, chat_rule::empty_default_request);
}
inline void error_image_parts_belong_to_user_messages(builder_site at) {
    throw_rule(at, chat_rule::image_outside_user);
}
inline void error_an_image_detail_is_auto_low_or_high(builder_site at) { throw_rule(at, chat_rule::bad_detail); }
inline void error_a_function_call_needs_the_function_name(builder_site at) {
    throw_rule(at, chat_rule::empty_call_name);
}
inline void error_a_tool_call_needs_an_id(builder_site at) { throw_rule(at, chat_rule::empty_tool_call_id); }
inline void error_max_tokens_must_be_at_least_1(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_temperature_must_be_between_0_and_2(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_top_p_must_be_between_0_and_1(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_presence_penalty_must_be_between_minus_2_and_2(builder_site at) {
    throw_rule(at, chat_rule::out_of_range);
}
inline void error_frequency_penalty_must_be_between_minus_2_and_2(builder_site at) {
    throw_rule(at, chat_rule::out_of_range);
}
inline void error_n_must_be_between_1_and_128(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_a_logit_bias_must_be_between_minus_100_and_100(builder_site at) {
    throw_rule(at, chat_rule::out_of_range);
}
inline void error_a_request_parameter_is_out_of_range(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_stop_has_at_most_4_sequences(builder_site at) { throw_rule(at, chat_rule::too_many_stops); }
inline void error_a_stop_sequence_cannot_be_empty(builder_site at) { throw_rule(at, chat_rule::empty_stop); }
inline void error_a_logit_bias_key_is_a_token_id_in_decimal_digits(builder_site at) {
    throw_rule(at, chat_rule::bad_logit_bias_key);
}
inline void error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens(builder_site at) {
    throw_rule(at, chat_rule::bad_function_name);
}
inline void error_a_function_is_listed_twice_in_functions(builder_site at) {
    throw_rule(at, chat_rule::duplicate_function);
}
inline void error_call_function_forces_a_function_that_functions_does_not_list(builder_site at) {
    throw_rule(at, chat_rule::forced_function_not_listed);
}
inline void error_response_format_needs_a_type_of_text_json_object_or_json_schema(builder_site at) {
    throw_rule(at, chat_rule::bad_response_format);
}
inline void error_a_chat_rule_is_broken(builder_site at, chat_rule rule) { throw_rule(at, rule); }

static_assert(max_stop_sequences == 4, "the name error_stop_has_at_most_4_sequences states the limit");

/// Turns a broken rule into the call of its error function (nothing for chat_rule::none).
constexpr void report(chat_rule rule, builder_site at) {
    switch (rule) {
    case chat_rule::none: return;
    case chat_rule::function_needs_name: return error_a_function_message_needs_a_name(at);
    case chat_rule::tool_needs_id: return error_a_tool_message_needs_a_tool_call_id(at);
    case chat_rule::empty_default_request: return error_a_default_request_must_set_at_least_one_parameter(at);
    case chat_rule::image_outside_user: return error_image_parts_belong_to_user_messages(at);
    case chat_rule::bad_detail: return error_an_image_detail_is_auto_low_or_high(at);
    case chat_rule::empty_call_name: return error_a_function_call_needs_the_function_name(at);
    case chat_rule::empty_tool_call_id: return error_a_tool_call_needs_an_id(at);
    case chat_rule::out_of_range:
        if (at.key == "max_tokens") return error_max_tokens_must_be_at_least_1(at);
        if (at.key == "temperature") return error_temperature_must_be_between_0_and_2(at);
        if (at.key == "top_p") return error_top_p_must_be_between_0_and_1(at);
        if (at.key == "presence_penalty") return error_presence_penalty_must_be_between_minus_2_and_2(at);
        if (at.key == "frequency_penalty") return error_frequency_penalty_must_be_between_minus_2_and_2(at);
        if (at.key == "n") return error_n_must_be_between_1_and_128(at);
        if (at.key == "logit_bias") return error_a_logit_bias_must_be_between_minus_100_and_100(at);
        return error_a_request_parameter_is_out_of_range(at);
    case chat_rule::too_many_stops: return error_stop_has_at_most_4_sequences(at);
    case chat_rule::empty_stop: return error_a_stop_sequence_cannot_be_empty(at);
    case chat_rule::bad_logit_bias_key: return error_a_logit_bias_key_is_a_token_id_in_decimal_digits(at);
    case chat_rule::bad_function_name:
        return error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens(at);
    case chat_rule::duplicate_function: return error_a_function_is_listed_twice_in_functions(at);
    case chat_rule::forced_function_not_listed:
        return error_call_function_forces_a_function_that_functions_does_not_list(at);
    case chat_rule::bad_response_format:
        return error_response_format_needs_a_type_of_text_json_object_or_json_schema(at);
    default: return error_a_chat_rule_is_broken(at, rule);
    }
}

// ---- limits of the builders and rules of template sets -----------------------------------------

inline void error_a_builder_message_has_at_most_8_content_parts(builder_site at) {
    throw_builder_error(at, "a message made by a builder has at most 8 content parts");
}
inline void error_a_builder_message_has_at_most_8_tool_calls(builder_site at) {
    throw_builder_error(at, "a message made by a builder has at most 8 tool calls");
}
inline void error_a_builder_request_has_at_most_8_stop_entries(builder_site at) {
    throw_builder_error(at, "a request made by a builder has at most 8 entries in 'stop'");
}
inline void error_a_builder_request_has_at_most_32_logit_bias_entries(builder_site at) {
    throw_builder_error(at, "a request made by a builder has at most 32 entries in 'logit_bias'");
}
inline void error_a_builder_request_lists_at_most_64_functions(builder_site at) {
    throw_builder_error(at, "a request made by a builder lists at most 64 functions");
}
inline void error_builder_metadata_lists_at_most_32_variables(builder_site at) {
    throw_builder_error(at, "the metadata of a template made by a builder lists at most 32 variables");
}
inline void error_response_format_is_not_a_json_object(builder_site at) {
    throw_builder_error(at, "'response_format' is not a JSON object");
}
inline void error_the_parameters_of_a_function_are_not_a_json_object(builder_site at) {
    throw_builder_error(at, "the parameters of function '" + std::string(at.key) + "' are not a JSON object");
}
inline void error_a_template_of_a_set_needs_a_name(builder_site at) {
    throw_builder_error(at, "a template of a set needs a name");
}
inline void error_two_templates_of_a_set_have_the_same_name(builder_site at) {
    throw_builder_error(at, "template '" + std::string(at.key) + "' is defined twice");
}
inline void error_a_function_is_defined_twice_in_a_set(builder_site at) {
    throw_builder_error(at, "function '" + std::string(at.key) + "' is defined twice");
}

// ---- JSON text (response_format, function parameters) ------------------------------------------

/// What a constexpr reading of a JSON text found: whether it is one JSON object, and the value
/// of its top-level "type" member when that is a string. `escaped` is set when a top-level key or
/// the type has escapes, which this reading does not decode (the type is then not known).
struct json_object_scan {
    bool is_object = false;
    bool has_type = false;
    bool escaped = false;
    std::string_view type;
};

/// A JSON syntax check (RFC 8259) that runs in constant evaluation; nesting beyond 64 levels
/// counts as invalid.
class json_checker {
public:
    constexpr explicit json_checker(std::string_view s) : s_(s) {}

    constexpr json_object_scan run() {
        json_object_scan out;
        space();
        if (i_ >= s_.size() || s_[i_] != '{') return out;
        if (!value(0, &out)) return {};
        space();
        if (i_ != s_.size()) return {};
        out.is_object = true;
        return out;
    }

private:
    static constexpr unsigned max_depth = 64;

    constexpr void space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    constexpr bool literal(std::string_view word) {
        if (s_.substr(i_, word.size()) != word) return false;
        i_ += word.size();
        return true;
    }
    static constexpr bool hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
    // a string at i_; its raw text (without the quotes) in *raw, and whether it had escapes
    constexpr bool string(std::string_view* raw, bool* escaped) {
        ++i_;  // the opening quote
        const std::size_t start = i_;
        bool esc = false;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '"') {
                if (raw) *raw = s_.substr(start, i_ - start);
                if (escaped) *escaped = esc;
                ++i_;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) return false;
            if (c == '\\') {
                esc = true;
                if (++i_ >= s_.size()) return false;
                const char e = s_[i_];
                if (e == 'u') {
                    for (int k = 1; k <= 4; ++k)
                        if (i_ + k >= s_.size() || !hex(s_[i_ + k])) return false;
                    i_ += 4;
                } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' &&
                           e != 't') {
                    return false;
                }
            }
            ++i_;
        }
        return false;
    }
    constexpr bool digits() {
        const std::size_t start = i_;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
        return i_ > start;
    }
    constexpr bool number() {
        if (s_[i_] == '-') ++i_;
        if (i_ < s_.size() && s_[i_] == '0') ++i_;
        else if (!digits()) return false;
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            if (!digits()) return false;
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
            if (!digits()) return false;
        }
        return true;
    }
    // a value at i_ (after spaces); `top` receives the top-level object's "type"
    constexpr bool value(unsigned depth, json_object_scan* top) {
        if (i_ >= s_.size() || depth > max_depth) return false;
        const char c = s_[i_];
        if (c == '"') return string(nullptr, nullptr);
        if (c == 't') return literal("true");
        if (c == 'f') return literal("false");
        if (c == 'n') return literal("null");
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        if (c == '[') {
            ++i_;
            space();
            if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
            for (;;) {
                space();
                if (!value(depth + 1, nullptr)) return false;
                space();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
                return false;
            }
        }
        if (c != '{') return false;
        ++i_;
        space();
        if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
        for (;;) {
            space();
            std::string_view key;
            bool key_escaped = false;
            if (i_ >= s_.size() || s_[i_] != '"' || !string(&key, &key_escaped)) return false;
            if (top && key_escaped) top->escaped = true;
            space();
            if (i_ >= s_.size() || s_[i_] != ':') return false;
            ++i_;
            space();
            if (top && !key_escaped && key == "type" && i_ < s_.size() && s_[i_] == '"') {
                std::string_view type;
                bool escaped = false;
                if (!string(&type, &escaped)) return false;
                top->has_type = true;
                top->escaped = top->escaped || escaped;
                top->type = type;
            } else if (!value(depth + 1, nullptr)) {
                return false;
            }
            space();
            if (i_ < s_.size() && s_[i_] == ',') {
                ++i_;
                continue;
            }
            if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
            return false;
        }
    }

    std::string_view s_;
    std::size_t i_ = 0;
};

constexpr json_object_scan scan_json_object(std::string_view text) { return json_checker(text).run(); }

// ---- template texts ---------------------------------------------------------------------------

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
    "expected a subscript",
    "expected an expression, got ",
    "expression nested too deeply",
    "illegal Unicode character in string literal",
    "integer literal too large",
    "invalid syntax for function call expression",
    "keyword argument repeated: ",
    "mismatched block name ",
    "missing end of comment tag",
    "missing end of raw directive",
    "non-default argument follows default argument",
    "positional argument follows keyword argument",
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
    std::uint32_t column = 1;
    for (std::size_t k = line_start; k < err.pos && k < s.source.size(); ++k)
        if ((static_cast<unsigned char>(s.source[k]) & 0xc0) != 0x80) ++column;
    s.line = line;
    s.column = column;
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
