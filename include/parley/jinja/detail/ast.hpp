// parley/jinja/detail/ast.hpp: the parsed form of a template, as flat arrays of nodes.
#ifndef PARLEY_JINJA_DETAIL_AST_HPP
#define PARLEY_JINJA_DETAIL_AST_HPP

#include <parley/jinja/detail/lexer.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

/// Node kinds. Children are node indices; `list` fields are (begin, count) ranges in
/// `program::lists`. `none` marks an absent child.
enum class nk : std::uint8_t {
    // statements
    text,  ///< literal output: str = (a: offset, b: length) in the source
    print,  ///< {{ a }}
    if_,  ///< a: test, b: body (stmts), c: else branch (stmts, or if_ for elif) or none
    for_,  ///< a: target, b: iterable, c: filter test or none, d: body (stmts), e: else (stmts) or none; flag_recursive
    set,  ///< a: target, b: value
    set_block,  ///< a: target, b: body list node, c: filter chain (filter node with a=none) or none
    macro,  ///< sym: name, a: params (list node of `param`), b: body list node; flags: uses caller/varargs/kwargs
    call_block,  ///< a: call expression, b: params list node, c: body list node; flags like macro
    filter_block,  ///< a: filter chain (innermost filter's input = none), b: body list node
    with,  ///< a: list node of `assign` pairs (set nodes), b: body list node
    block,  ///< sym: name, a: body list node; flags: flag_block_scoped, flag_block_required
    autoescape,  ///< a: expression, b: body list node
    break_,
    continue_,
    stmts,  ///< a list of statements: list (a: begin, b: count)
    param,  ///< sym: name, a: default expression or none

    // expressions
    k_none,
    k_true,
    k_false,
    k_int,  ///< ival
    k_bigint,  ///< an integer literal beyond 64 bits: its digits in the pool (a: offset, b: length), c: base
    k_float,  ///< fval once linked; the literal's digits in the pool: (a: offset, b: length)
    k_str,  ///< string in the pool: (a: offset, b: length)
    name,  ///< sym
    getattr,  ///< a: object, sym: attribute
    getitem,  ///< a: object, b: key
    slice,  ///< a, b, c: start, stop, step (each may be none)
    call,  ///< a: callee, b: args list node (`args`)
    filter,  ///< a: input (or none in filter blocks), sym: filter name, b: args node or none
    test,  ///< a: input, sym: test name, b: args node or none; flag 1: negated
    args,  ///< positional list (a: begin, b: count), keyword list (c: begin, d: count) of `kwarg`; e: *args, f: **kwargs
    kwarg,  ///< sym: name, a: value
    neg,
    pos,
    not_,
    binop,  ///< op: operator, a, b
    and_,
    or_,
    concat,  ///< list (a: begin, b: count)
    compare,  ///< a: first operand, list (b: begin, c: count) of `operand`
    operand,  ///< op: comparison operator, a: expression
    condexpr,  ///< a: test, b: true value, c: false value or none
    list,  ///< list (a: begin, b: count)
    tuple,  ///< list (a: begin, b: count)
    dict,  ///< list (a: begin, b: count) of alternating keys and values
    nsref,  ///< sym: namespace variable, sym2: attribute (assignment target)
};

/// Binary and comparison operators.
enum class op : std::uint8_t { add, sub, mul, div, floordiv, mod, pow, eq, ne, lt, lteq, gt, gteq, in, notin };

inline constexpr std::uint32_t none = 0xffffffffu;

struct node {
    nk kind{};
    op oper{};
    std::uint8_t flags = 0;
    std::uint32_t pos = 0;  ///< source offset, for error messages
    std::uint32_t a = none, b = none, c = none, d = none, e = none, f = none;
    std::uint32_t sym = none, sym2 = none;
    std::int64_t ival = 0;
    double fval = 0;
};

// flags
inline constexpr std::uint8_t flag_recursive = 1;  // for_
inline constexpr std::uint8_t flag_uses_loop = 2;  // for_: the name `loop` appears in it (set when linked)
inline constexpr std::uint8_t flag_negated = 1;  // test
inline constexpr std::uint8_t flag_block_scoped = 1;  // block: sees the variables of the scope it is in
inline constexpr std::uint8_t flag_block_required = 2;  // block: must be overridden (an error when rendered)
inline constexpr std::uint8_t flag_uses_caller = 1;  // macro / call_block
inline constexpr std::uint8_t flag_uses_varargs = 2;
inline constexpr std::uint8_t flag_uses_kwargs = 4;
/// macro / call_block: a parameter's default names a later parameter (set when linked): the
/// defaults then see every parameter bound, to its argument or to undefined, as in Jinja2
inline constexpr std::uint8_t flag_defaults_see_params = 64;
// getattr / getitem, set when linked (link_members) for the run-time renderer: the object is a
// variable (sym2) and the key a constant (c: offset, d: length in the pool; flag_member) or a
// variable (d: its symbol; flag_member_var); and a getattr's name is a dict method (which wins
// over a key of that name in Jinja)
inline constexpr std::uint8_t flag_member = 8;
inline constexpr std::uint8_t flag_member_var = 16;
inline constexpr std::uint8_t flag_dict_method = 32;

/// A symbol: an identifier in the string pool.
struct symbol {
    std::uint32_t off = 0, len = 0;
};

/// One operand of a chain printed by `{{ }}` (`a + b + c`, `a ~ b ~ c`), as the run-time
/// renderer reads it: a string literal, a member `name.key` or `name['key']` of a variable, or
/// any other expression. Set by link_print_chains.
struct chain_part {
    enum kind_t : std::uint8_t { literal, member, other };
    kind_t kind = other;
    std::uint32_t node = none;  ///< the operand
    std::uint32_t sym = none;  ///< member: the variable
    std::uint32_t off = 0, len = 0;  ///< in the pool: the literal's text, or the member's key
};

/// A parsed template. All containers are std::vector so that the same code runs in
/// constant evaluation (the compile-time front end) and at run time.
struct program {
    std::vector<node> nodes;
    std::vector<std::uint32_t> lists;  ///< child index ranges
    std::vector<char> pool;  ///< identifiers and unescaped string literals
    std::vector<symbol> symbols;
    std::uint32_t root = none;  ///< the top-level `stmts` node
    std::vector<chain_part> chains;  ///< operands of printed chains (run-time renderer only)
    /// Per symbol, 1 when some statement may bind it as a variable (run-time renderer only): the
    /// others are read from the context without looking through the scopes. Set by link_bound_symbols.
    std::vector<std::uint8_t> bound;

    constexpr std::string_view str(std::uint32_t off, std::uint32_t len) const {
        return {pool.data() + off, len};
    }
    constexpr std::string_view sym_name(std::uint32_t s) const { return str(symbols[s].off, symbols[s].len); }
    /// The symbol of an identifier, or `none` when the template never mentions it.
    constexpr std::uint32_t find_symbol(std::string_view name) const {
        for (std::uint32_t k = 0; k < symbols.size(); ++k)
            if (sym_name(k) == name) return k;
        return 0xffffffffu;
    }
};

}  // namespace parley::jinja::detail

#endif
