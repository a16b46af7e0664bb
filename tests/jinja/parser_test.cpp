// Tests of parley/jinja/detail/parser.hpp: the parser runs in constant evaluation (static_assert
// below), builds the flat AST of ast.hpp, and reports syntax errors as a position plus message
// parts, with nesting bounded so that hostile input cannot exhaust the stack.
#include <parley/jinja/detail/parser.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace pd = parley::jinja::detail;

// ---- compile-time front end ---------------------------------------------------------------------

constexpr pd::syntax_options hf_syntax() {
    pd::syntax_options o;
    o.trim_blocks = true;
    o.lstrip_blocks = true;
    o.loop_controls = true;
    return o;
}

// Number of AST nodes of a template, or 0 when it does not parse.
constexpr std::size_t node_count(std::string_view src, pd::syntax_options opt = {}) {
    pd::program p;
    const pd::syntax_error err = pd::parse_program(src, opt, p);
    return err ? 0 : p.nodes.size();
}

// Kind of the k-th top-level statement.
constexpr pd::nk top_kind(std::string_view src, std::uint32_t k) {
    pd::program p;
    if (pd::parse_program(src, {}, p)) return pd::nk::param;  // never a top-level statement
    const pd::node& root = p.nodes[p.root];
    if (k >= root.b) return pd::nk::param;
    return p.nodes[p.lists[root.a + k]].kind;
}

constexpr std::uint32_t error_offset(std::string_view src, pd::syntax_options opt = {}) {
    pd::program p;
    const pd::syntax_error err = pd::parse_program(src, opt, p);
    return err ? err.pos : 0xffffffffu;
}

constexpr bool error_text_is(std::string_view src, std::string_view what) {
    pd::program p;
    const pd::syntax_error err = pd::parse_program(src, {}, p);
    return err && std::string_view(err.what) == what;
}

// "Hello " text, the name, the print, "!" text, the root statement list
static_assert(node_count("Hello {{ name }}!") == 5);
static_assert(node_count("") == 1);
static_assert(node_count("{{ name") == 0);

static_assert(top_kind("a{{ b }}{% if c %}{% endif %}{% for x in y %}{% endfor %}", 0) == pd::nk::text);
static_assert(top_kind("a{{ b }}{% if c %}{% endif %}{% for x in y %}{% endfor %}", 1) == pd::nk::print);
static_assert(top_kind("a{{ b }}{% if c %}{% endif %}{% for x in y %}{% endfor %}", 2) == pd::nk::if_);
static_assert(top_kind("a{{ b }}{% if c %}{% endif %}{% for x in y %}{% endfor %}", 3) == pd::nk::for_);
static_assert(top_kind("{% set x = 1 %}{% macro m() %}{% endmacro %}", 0) == pd::nk::set);
static_assert(top_kind("{% set x = 1 %}{% macro m() %}{% endmacro %}", 1) == pd::nk::macro);

// syntax errors are found in constant evaluation too, with their position
static_assert(error_offset("{{ x + }}") == 7);
static_assert(error_text_is("{{ x + }}", "unexpected "));
static_assert(error_text_is("{% foo %}", "unknown tag "));
static_assert(error_offset("{% for x in y %}") == 16);
static_assert(error_text_is("{% for x in y %}", "unexpected end of template, expected 'endfor'"));
static_assert(error_text_is("{{ 'open }}", "unterminated string literal"));
static_assert(error_offset("{% break %}", hf_syntax()) == 3);

// nesting is bounded, in constant evaluation as at run time
static_assert(error_text_is("{{ (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1"
                            "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))) }}",
                            "brackets nested too deeply"));
static_assert(node_count("{{ ((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))) }}") != 0);

// A realistic chat template parses at compile time.
struct chatml {
    static constexpr std::string_view value =
        "{%- if messages[0]['role'] == 'system' %}\n"
        "    {%- set system_message = messages[0]['content'] %}\n"
        "    {%- set loop_messages = messages[1:] %}\n"
        "{%- else %}\n"
        "    {%- set loop_messages = messages %}\n"
        "{%- endif %}\n"
        "{%- if system_message is defined %}{{ '<|im_start|>system\\n' + system_message + '<|im_end|>\\n' }}{% endif %}\n"
        "{%- for message in loop_messages %}\n"
        "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}\n"
        "        {{- raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}\n"
        "    {%- endif %}\n"
        "    {{- '<|im_start|>' + message['role'] + '\\n' + message['content'] | trim + '<|im_end|>\\n' }}\n"
        "{%- endfor %}\n"
        "{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}\n";
};
static_assert(node_count(chatml::value, hf_syntax()) > 50);

// ---- run-time helpers ---------------------------------------------------------------------------

struct parsed {
    pd::program prog;
    pd::syntax_error err;
};

parsed parse(std::string_view src, pd::syntax_options opt = {}) {
    parsed r;
    r.err = pd::parse_program(src, opt, r.prog);
    return r;
}

const pd::node& top(const parsed& p, std::uint32_t k) {
    const pd::node& root = p.prog.nodes[p.prog.root];
    REQUIRE(k < root.b);
    return p.prog.nodes[p.prog.lists[root.a + k]];
}

const pd::node& child(const parsed& p, std::uint32_t i) {
    REQUIRE(i != pd::none);
    REQUIRE(i < p.prog.nodes.size());
    return p.prog.nodes[i];
}

// The message the environment builds from a syntax_error.
std::string message_of(std::string_view src, const pd::syntax_error& e) {
    std::string m = e.what ? e.what : "";
    if (e.arg_len) m += "'" + std::string(src.substr(e.arg_pos, e.arg_len)) + "'";
    if (e.what2) m += e.what2;
    return m;
}

}  // namespace

TEST_CASE("parser: the same code gives the same tree at run time as in constant evaluation") {
    const auto p = parse("Hello {{ name }}!");
    REQUIRE_FALSE(p.err);
    CHECK(p.prog.nodes.size() == node_count("Hello {{ name }}!"));
    const pd::node& root = p.prog.nodes[p.prog.root];
    CHECK(root.kind == pd::nk::stmts);
    REQUIRE(root.b == 3);
    CHECK(top(p, 0).kind == pd::nk::text);
    CHECK(top(p, 0).a == 0);  // offset of "Hello "
    CHECK(top(p, 0).b == 6);  // its length
    const pd::node& pr = top(p, 1);
    CHECK(pr.kind == pd::nk::print);
    CHECK(pr.pos == 6);
    const pd::node& name = child(p, pr.a);
    CHECK(name.kind == pd::nk::name);
    CHECK(p.prog.sym_name(name.sym) == "name");
    CHECK(name.pos == 9);
    CHECK(top(p, 2).kind == pd::nk::text);
}

TEST_CASE("parser: a for loop keeps its target, iterable, filter, body and else branch") {
    const auto p = parse("{% for k, v in items if v recursive %}x{% else %}y{% endfor %}");
    REQUIRE_FALSE(p.err);
    const pd::node& f = top(p, 0);
    CHECK(f.kind == pd::nk::for_);
    CHECK(f.flags == pd::flag_recursive);
    CHECK(child(p, f.a).kind == pd::nk::tuple);
    CHECK(child(p, f.a).b == 2);
    CHECK(child(p, f.b).kind == pd::nk::name);
    CHECK(child(p, f.c).kind == pd::nk::name);
    CHECK(child(p, f.d).kind == pd::nk::stmts);
    CHECK(child(p, f.d).b == 1);
    CHECK(child(p, f.e).kind == pd::nk::stmts);

    const auto plain = parse("{% for x in y %}{% endfor %}");
    REQUIRE_FALSE(plain.err);
    CHECK(top(plain, 0).c == pd::none);
    CHECK(top(plain, 0).e == pd::none);
    CHECK(top(plain, 0).flags == 0);
}

TEST_CASE("parser: elif chains nest as if nodes in the else branch") {
    const auto p = parse("{% if a %}1{% elif b %}2{% else %}3{% endif %}");
    REQUIRE_FALSE(p.err);
    const pd::node& i = top(p, 0);
    CHECK(i.kind == pd::nk::if_);
    const pd::node& elif = child(p, i.c);
    CHECK(elif.kind == pd::nk::if_);
    CHECK(child(p, elif.c).kind == pd::nk::stmts);
}

TEST_CASE("parser: operator precedence: * binds tighter than +, filters tighter than both") {
    const auto p = parse("{{ a + b * c|f }}");
    REQUIRE_FALSE(p.err);
    const pd::node& add = child(p, top(p, 0).a);
    CHECK(add.kind == pd::nk::binop);
    CHECK(add.oper == pd::op::add);
    const pd::node& mul = child(p, add.b);
    CHECK(mul.kind == pd::nk::binop);
    CHECK(mul.oper == pd::op::mul);
    const pd::node& filt = child(p, mul.b);
    CHECK(filt.kind == pd::nk::filter);
    CHECK(p.prog.sym_name(filt.sym) == "f");

    const auto cmp = parse("{{ not a == b and c }}");
    REQUIRE_FALSE(cmp.err);
    const pd::node& conj = child(cmp, top(cmp, 0).a);
    CHECK(conj.kind == pd::nk::and_);
    const pd::node& neg = child(cmp, conj.a);
    CHECK(neg.kind == pd::nk::not_);
    CHECK(child(cmp, neg.a).kind == pd::nk::compare);
}

TEST_CASE("parser: identifiers are interned once; find_symbol finds them") {
    const auto p = parse("{{ user.name }}{{ user }}{{ name|upper }}");
    REQUIRE_FALSE(p.err);
    const std::uint32_t user = p.prog.find_symbol("user");
    const std::uint32_t name = p.prog.find_symbol("name");
    CHECK(user != pd::none);
    CHECK(name != pd::none);
    CHECK(p.prog.find_symbol("upper") != pd::none);
    CHECK(p.prog.find_symbol("missing") == pd::none);
    CHECK(p.prog.symbols.size() == 3);
    const pd::node& getattr = child(p, top(p, 0).a);
    CHECK(getattr.kind == pd::nk::getattr);
    CHECK(getattr.sym == name);
    CHECK(child(p, getattr.a).sym == user);
}

TEST_CASE("parser: literals: escapes are decoded, adjacent strings join, numbers in every base") {
    const auto p = parse(R"({{ 'a\nb' "c" }}{{ 0x1F }}{{ 0b101 }}{{ 0o17 }}{{ 1_000 }}{{ 1_0.5e1 }}{{ '\u00e9\x41' }})");
    REQUIRE_FALSE(p.err);
    const pd::node& s = child(p, top(p, 0).a);
    CHECK(s.kind == pd::nk::k_str);
    CHECK(p.prog.str(s.a, s.b) == "a\nbc");
    CHECK(child(p, top(p, 1).a).ival == 31);
    CHECK(child(p, top(p, 2).a).ival == 5);
    CHECK(child(p, top(p, 3).a).ival == 15);
    CHECK(child(p, top(p, 4).a).ival == 1000);
    const pd::node& f = child(p, top(p, 5).a);
    CHECK(f.kind == pd::nk::k_float);
    CHECK(p.prog.str(f.a, f.b) == "10.5e1");  // underscores dropped; converted when the template is linked
    const pd::node& u = child(p, top(p, 6).a);
    CHECK(p.prog.str(u.a, u.b) == "\xc3\xa9" "A");
}

TEST_CASE("parser: macros record whether they use caller, varargs and kwargs") {
    const auto p = parse("{% macro m(a, b=1) %}{{ caller() }}{{ varargs }}{% endmacro %}"
                         "{% macro n() %}{{ kwargs }}{% endmacro %}");
    REQUIRE_FALSE(p.err);
    const pd::node& m = top(p, 0);
    CHECK(m.kind == pd::nk::macro);
    CHECK(p.prog.sym_name(m.sym) == "m");
    CHECK(m.flags == (pd::flag_uses_caller | pd::flag_uses_varargs));
    const pd::node& params = child(p, m.a);
    REQUIRE(params.b == 2);
    CHECK(child(p, p.prog.lists[params.a]).a == pd::none);  // a: no default
    CHECK(child(p, p.prog.lists[params.a + 1]).a != pd::none);  // b=1
    CHECK(top(p, 1).flags == pd::flag_uses_kwargs);
}

TEST_CASE("parser: break and continue need loop_controls and a loop") {
    pd::syntax_options loops;
    loops.loop_controls = true;
    CHECK_FALSE(parse("{% for x in y %}{% break %}{% continue %}{% endfor %}", loops).err);
    const auto outside = parse("{% break %}", loops);
    REQUIRE(outside.err);
    CHECK(message_of("{% break %}", outside.err) == "'break' outside of a loop");
    const auto in_macro = parse("{% for x in y %}{% macro m() %}{% continue %}{% endmacro %}{% endfor %}", loops);
    REQUIRE(in_macro.err);
    CHECK(std::string_view(in_macro.err.what) == "'continue' outside of a loop");
    const auto disabled = parse("{% for x in y %}{% break %}{% endfor %}");
    REQUIRE(disabled.err);
    CHECK(std::string_view(disabled.err.what) == "unknown tag ");
    CHECK(disabled.err.arg_pos == 19);
    CHECK(disabled.err.arg_len == 5);
}

TEST_CASE("parser: a syntax error is a position and a message built from fixed parts and a source slice") {
    struct expectation {
        std::string_view src;
        std::uint32_t pos;
        std::string_view message;
    };
    const expectation cases[] = {
        {"{{ x + }}", 7, "unexpected '}}'"},
        {"{{ 1 2 }}", 5, "expected '}}', got '2'"},
        {"{% foo %}", 3, "unknown tag 'foo'"},
        {"{{ x|default(1, }}", 16, "unexpected '}', a bracket is not closed"},
        {"{{ x. }}", 6, "expected a name or number after '.'"},
        {"{% macro m(a=1, b) %}{% endmacro %}", 16, "non-default argument follows default argument"},
        {"{{ f(a=1, 2) }}", 10, "positional argument follows keyword argument"},
        {"{{ f(a=1, a=2) }}", 10, "keyword argument repeated: 'a'"},
        {"{{ x is defined is defined }}", 16, "you cannot chain multiple tests with 'is'"},
        {"{% set 1 = 2 %}", 7, "cannot assign to this expression"},
        {"{% for x on y %}{% endfor %}", 9, "expected 'in', got 'on'"},
        {"{{ 1\u0661.5 }}", 3, "invalid float literal '1\u0661.5'"},
        {"{{ a\u00b7\u00b2 }}", 3, "invalid character in identifier 'a\u00b7\u00b2'"},
        {"{{ \u00b7 }}", 3, "invalid character in identifier '\u00b7'"},
        {"{% block b required %}x{% endblock %}", 22, "required blocks can only contain comments or whitespace"},
        {"{# open", 0, "missing end of comment tag"},
        {"{{ x", 4, "unexpected end of template, expected '}}'"},
        {"{{ @ }}", 3, "unexpected character '@'"},
        {"{% block a %}{% endblock b %}", 25, "mismatched block name 'b'"},
        {"{% include 'x' %}", 3, "tag 'include' needs a template loader, which this environment does not have"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.src);
        const auto p = parse(c.src);
        REQUIRE(p.err);
        CHECK(p.err.pos == c.pos);
        CHECK(message_of(c.src, p.err) == c.message);
    }
}

TEST_CASE("parser: integer literals beyond 64 bits are big literals, up to Python's 4300 decimal digits") {
    const auto p = parse("{{ 18446744073709551616 }}{{ 0x1_0000_0000_0000_0000 }}{{ 9223372036854775807 }}");
    REQUIRE_FALSE(p.err);
    std::vector<std::string> big;
    int small = 0;
    for (const auto& n : p.prog.nodes) {
        if (n.kind == pd::nk::k_bigint) big.push_back(std::string(p.prog.str(n.a, n.b)) + "/" + std::to_string(n.c));
        if (n.kind == pd::nk::k_int) ++small;
    }
    CHECK(big == std::vector<std::string>{"18446744073709551616/10", "10000000000000000/16"});
    CHECK(small == 1);
    const std::string at_limit = "{{ " + std::string(4300, '7') + " }}";
    CHECK_FALSE(parse(at_limit).err);
    const std::string beyond = "{{ " + std::string(4301, '7') + " }}";
    const auto q = parse(beyond);
    REQUIRE(q.err);
    CHECK(message_of(beyond, q.err) == "integer literal too large");
}

TEST_CASE("parser: an empty subscript is a subscript by the empty tuple") {
    const auto p = parse("{{ a[] }}");
    REQUIRE_FALSE(p.err);
    bool found = false;
    for (const auto& n : p.prog.nodes)
        if (n.kind == pd::nk::getitem) found = p.prog.nodes[n.b].kind == pd::nk::tuple && p.prog.nodes[n.b].b == 0;
    CHECK(found);
    CHECK(parse("{{ a[1,] }}").err);
    CHECK(parse("{{ a[,] }}").err);
}

TEST_CASE("parser: nesting is bounded: deep input is an error, not a stack overflow") {
    const auto parens = std::string("{{ ") + std::string(1000, '(') + "1" + std::string(1000, ')') + " }}";
    const auto p1 = parse(parens);
    REQUIRE(p1.err);
    CHECK(message_of(parens, p1.err) == "brackets nested too deeply");
    CHECK(p1.err.pos == 3 + 64);  // the first bracket beyond the limit

    const auto lists = std::string("{{ ") + std::string(1000, '[') + std::string(1000, ']') + " }}";
    const auto p2 = parse(lists);
    REQUIRE(p2.err);
    CHECK(message_of(lists, p2.err) == "brackets nested too deeply");

    const auto dicts = std::string("{{ ") + std::string(1000, '{') + std::string(1000, '}') + " }}";
    const auto p3 = parse(dicts);
    REQUIRE(p3.err);
    CHECK(message_of(dicts, p3.err) == "brackets nested too deeply");

    std::string nots = "{{ ";
    for (int i = 0; i < 5000; ++i) nots += "not ";
    nots += "x }}";
    const auto p4 = parse(nots);
    REQUIRE(p4.err);
    CHECK(message_of(nots, p4.err) == "expression nested too deeply");

    std::string negs = "{{ ";
    for (int i = 0; i < 5000; ++i) negs += "- ";
    negs += "1 }}";
    const auto p5 = parse(negs);
    REQUIRE(p5.err);
    CHECK(message_of(negs, p5.err) == "expression nested too deeply");

    std::string blocks;
    for (int i = 0; i < 5000; ++i) blocks += "{% if x %}";
    const auto p6 = parse(blocks);
    CHECK(p6.err);

    std::string deep_ok;
    for (int i = 0; i < 100; ++i) deep_ok += "{% for x in y %}";
    for (int i = 0; i < 100; ++i) deep_ok += "{% endfor %}";
    CHECK_FALSE(parse(deep_ok).err);
}

TEST_CASE("parser: long flat sequences parse without recursion trouble") {
    std::string many_prints;
    for (int i = 0; i < 20000; ++i) many_prints += "{{ x }}y";
    const auto p = parse(many_prints);
    REQUIRE_FALSE(p.err);
    CHECK(p.prog.nodes[p.prog.root].b == 40000);

    std::string args = "{{ f(";
    for (int i = 0; i < 20000; ++i) args += "1, ";
    args += "2) }}";
    CHECK_FALSE(parse(args).err);
}
