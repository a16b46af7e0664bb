// parley/jinja/detail/ct_program.hpp: a template parsed while the program compiles, held in
// fixed-size arrays (the constexpr parser's vectors cannot outlive constant evaluation).
#ifndef PARLEY_JINJA_DETAIL_CT_PROGRAM_HPP
#define PARLEY_JINJA_DETAIL_CT_PROGRAM_HPP

#include <parley/jinja/detail/syntax_report.hpp>
#include <parley/fixed_string.hpp>
#include <parley/jinja/detail/ast.hpp>
#include <parley/jinja/detail/lexer.hpp>
#include <parley/jinja/detail/parser.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace parley::jinja {

/// How a compile-time template is parsed: the syntax options of parley::jinja::options.
/// Compile-time templates render with Jinja2's other defaults (no autoescaping, lenient
/// undefined, the filters, tests and globals of environment::plain()).
struct compile_options {
    bool trim_blocks = false;
    bool lstrip_blocks = false;
    bool keep_trailing_newline = false;
    bool loop_controls = false;
};

}  // namespace parley::jinja

namespace parley::jinja::detail {

/// The sizes of a parsed program, known once the parser has run in constant evaluation.
/// `own_source`: the parsed source is kept in the program (its line ends were rewritten);
/// otherwise it is the written source or a prefix of it (without a final newline), and the
/// program points into the written one.
struct ct_sizes {
    std::size_t nodes = 0, lists = 0, pool = 0, symbols = 0, source = 0;
    bool own_source = false;
};

/// A program in fixed-size arrays, with the (normalised) source its text nodes point into.
/// (Built-in arrays, one element longer than needed so that none is empty: the generated code
/// indexes them thousands of times in constant expressions, and std::array's operator[] costs
/// the compiler an overload resolution each time.)
template <ct_sizes S>
struct fixed_program {
    static constexpr std::size_t node_count = S.nodes, symbol_count = S.symbols;
    node nodes[S.nodes + 1] = {};
    std::uint32_t lists[S.lists + 1] = {};
    char pool[S.pool + 1] = {};
    symbol symbols[S.symbols + 1] = {};
    char own[S.own_source * S.source + 1] = {};
    std::string_view written{};  ///< the written source, when the program points into it
    std::uint32_t root = none;

    constexpr std::string_view str(std::uint32_t off, std::uint32_t len) const {
        return len ? std::string_view(pool + off, len) : std::string_view();
    }
    constexpr std::string_view text(std::uint32_t off, std::uint32_t len) const {
        if (!len) return {};
        if constexpr (S.own_source) return std::string_view(own + off, len);
        else return written.substr(off, len);
    }
    constexpr std::string_view sym_name(std::uint32_t s) const { return str(symbols[s].off, symbols[s].len); }
    constexpr std::uint32_t find_symbol(std::string_view name) const {
        for (std::uint32_t k = 0; k < S.symbols; ++k)
            if (sym_name(k) == name) return k;
        return none;
    }
    constexpr std::string_view source_view() const { return text(0, static_cast<std::uint32_t>(S.source)); }
};

constexpr syntax_options to_syntax_options(const compile_options& o) {
    syntax_options so;
    so.trim_blocks = o.trim_blocks;
    so.lstrip_blocks = o.lstrip_blocks;
    so.keep_trailing_newline = o.keep_trailing_newline;
    so.loop_controls = o.loop_controls;
    return so;
}

/// The source as the run-time engine parses it (line ends normalised, final newline removed
/// unless kept).
constexpr std::vector<char> normalised_source(std::string_view text, const compile_options& o) {
    std::vector<char> out;
    if (needs_normalising(text, o.keep_trailing_newline)) normalise_source(text, o.keep_trailing_newline, out);
    else out.assign(text.begin(), text.end());
    return out;
}

/// Parses `s` (a source already normalised); a syntax error stops the compiler with its line,
/// column and message (see parley/jinja/detail/syntax_report.hpp for how each compiler shows it).
constexpr program parse_or_report(std::string_view s, const compile_options& o, std::string_view name) {
    program p;
    if (const syntax_error err = parse_program(s, to_syntax_options(o), p)) {
        parley::detail::syntax_site site;
        site.template_name = name;
        site.source = s;
        parley::detail::report_syntax_error(site, err);
    }
    return p;
}

/// The arrays of the single parse: more than real templates need (the chat templates of the
/// corpus have a node per 7 bytes of source at most, a pool byte per 1.5). A program that does
/// not fit is parsed a second time, into arrays of its exact sizes.
constexpr ct_sizes parse_capacity(std::size_t n) { return {n / 4 + 16, n / 8 + 16, n + 32, n / 8 + 16, 0, false}; }

constexpr ct_sizes sizes_of(const program& p, std::size_t source, bool own_source) {
    return {p.nodes.size(), p.lists.size(), p.pool.size(), p.symbols.size(), source, own_source};
}

constexpr bool fits_in(const ct_sizes& s, const ct_sizes& cap) {
    return s.nodes <= cap.nodes && s.lists <= cap.lists && s.pool <= cap.pool && s.symbols <= cap.symbols;
}

/// Copies the first n.* entries of `from` (a program, or a larger fixed_program) into `to`.
template <ct_sizes S, class From>
constexpr void copy_program(fixed_program<S>& to, const From& from, const ct_sizes& n) {
    for (std::size_t k = 0; k < n.nodes; ++k) to.nodes[k] = from.nodes[k];
    for (std::size_t k = 0; k < n.lists; ++k) to.lists[k] = from.lists[k];
    for (std::size_t k = 0; k < n.pool; ++k) to.pool[k] = from.pool[k];
    for (std::size_t k = 0; k < n.symbols; ++k) to.symbols[k] = from.symbols[k];
    to.root = from.root;
}

/// Parses `Source::value` at compile time, once when the program fits parse_capacity (always,
/// for real templates): `sizes`, then `prog`.
template <class Source, compile_options Opt>
struct ct_parsed {
    static constexpr std::string_view name = "compiled template";
    /// The written source needs its line ends rewritten (it holds a `\r`).
    static constexpr bool own_source = Source::value.find('\r') != std::string_view::npos;
    /// The length of the parsed source (without a final newline unless kept).
    static constexpr std::size_t source_size = [] {
        if constexpr (own_source) return normalised_source(Source::value, Opt).size();
        else {
            constexpr std::string_view w = Source::value;
            return !Opt.keep_trailing_newline && !w.empty() && w.back() == '\n' ? w.size() - 1 : w.size();
        }
    }();

    template <ct_sizes S>
    static constexpr void fill_source(fixed_program<S>& f) {
        if constexpr (own_source) {
            const std::vector<char> src = normalised_source(Source::value, Opt);
            for (std::size_t k = 0; k < S.source; ++k) f.own[k] = src[k];
        } else {
            f.written = Source::value;
        }
    }

    /// Parses the source (normalised first when it has to be).
    static constexpr program parse() {
        if constexpr (own_source) {
            const std::vector<char> src = normalised_source(Source::value, Opt);
            return parse_or_report(std::string_view(src.data(), src.size()), Opt, name);
        } else {
            return parse_or_report(Source::value.substr(0, source_size), Opt, name);
        }
    }

    static constexpr ct_sizes capacity = parse_capacity(Source::value.size());

    struct first_parse {
        ct_sizes sizes;
        fixed_program<capacity> prog;  // filled when the program fits
    };
    static constexpr first_parse first = [] {
        first_parse r;
        const program p = parse();
        r.sizes = sizes_of(p, source_size, own_source);
        if (fits_in(r.sizes, capacity)) copy_program(r.prog, p, r.sizes);
        return r;
    }();

    static constexpr ct_sizes sizes = first.sizes;
    static constexpr fixed_program<sizes> prog = [] {
        fixed_program<sizes> f;
        if constexpr (fits_in(sizes, capacity)) copy_program(f, first.prog, sizes);
        else copy_program(f, parse(), sizes);
        fill_source(f);
        return f;
    }();
};

/// Line and column (1-based, columns in code points as the run-time engine counts them) of a
/// source offset.
struct ct_position {
    std::uint32_t line = 1, column = 1;
};
constexpr ct_position position_of(std::string_view s, std::uint32_t pos) {
    ct_position r;
    std::size_t line_start = 0;
    for (std::size_t k = 0; k < pos && k < s.size(); ++k) {
        if (s[k] == '\n') {
            ++r.line;
            line_start = k + 1;
        }
    }
    const std::size_t end = pos < s.size() ? pos : s.size();
    r.column = 1 + static_cast<std::uint32_t>(utf8_units(s.substr(line_start, end - line_start)));
    return r;
}

/// A message built in constant evaluation, then turned into a fixed_string.
struct ct_text {
    static constexpr std::size_t capacity = 1000;
    char data[capacity] = {};
    std::size_t size = 0;
    constexpr ct_text& operator<<(std::string_view s) {
        for (char c : s)
            if (size < capacity) data[size++] = c;
        return *this;
    }
    constexpr ct_text& operator<<(std::uint32_t n) {
        char digits[12] = {};
        std::size_t k = 0;
        do {
            digits[k++] = static_cast<char>('0' + n % 10);
            n /= 10;
        } while (n);
        while (k) *this << std::string_view(&digits[--k], 1);
        return *this;
    }
};

template <ct_text T>
constexpr auto to_fixed_string() {
    fixed_string<T.size> f;
    for (std::size_t k = 0; k < T.size; ++k) f.data[k] = T.data[k];
    return f;
}

}  // namespace parley::jinja::detail

#endif
