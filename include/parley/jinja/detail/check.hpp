// parley/jinja/detail/check.hpp: checks of a parsed program against its environment, done
// once after parsing (constexpr, so the compile-time front end can run them too).
#ifndef PARLEY_JINJA_DETAIL_CHECK_HPP
#define PARLEY_JINJA_DETAIL_CHECK_HPP

#include <parley/jinja/detail/ast.hpp>

#include <cstdint>
#include <vector>

namespace parley::jinja::detail {

/// Calls f(child) for each expression node directly below expression node `n`.
template <class F>
constexpr void for_each_expression_child(const program& p, const node& n, F f) {
    const auto range = [&](std::uint32_t begin, std::uint32_t count) {
        for (std::uint32_t k = 0; k < count; ++k) f(p.lists[begin + k]);
    };
    const auto one = [&](std::uint32_t i) {
        if (i != none) f(i);
    };
    switch (n.kind) {
    case nk::getattr:
    case nk::kwarg:
    case nk::neg:
    case nk::pos:
    case nk::not_:
    case nk::operand: one(n.a); break;
    case nk::getitem:
    case nk::binop:
    case nk::and_:
    case nk::or_:
    case nk::call:
    case nk::filter:
    case nk::test:
        one(n.a);
        one(n.b);
        break;
    case nk::slice:
    case nk::condexpr:
        one(n.a);
        one(n.b);
        one(n.c);
        break;
    case nk::args:
        range(n.a, n.b);
        range(n.c, n.d);
        one(n.e);
        one(n.f);
        break;
    case nk::concat:
    case nk::list:
    case nk::tuple:
    case nk::dict: range(n.a, n.b); break;
    case nk::compare:
        one(n.a);
        range(n.b, n.c);
        break;
    default: break;  // literals, names, and statements (whose nesting the parser bounds)
    }
}

/// Whether the symbol `sym` is read or assigned anywhere in the statement or expression `idx`
/// (names, namespace targets, macro parameters).
constexpr bool mentions_symbol(const program& p, std::uint32_t idx, std::uint32_t sym) {
    if (idx == none) return false;
    const node& n = p.nodes[idx];
    if ((n.kind == nk::name || n.kind == nk::nsref || n.kind == nk::param) && n.sym == sym) return true;
    switch (n.kind) {
    case nk::stmts:
        for (std::uint32_t k = 0; k < n.b; ++k)
            if (mentions_symbol(p, p.lists[n.a + k], sym)) return true;
        return false;
    case nk::print:
    case nk::block:
    case nk::param: return mentions_symbol(p, n.a, sym);
    case nk::set:
    case nk::macro:
    case nk::filter_block:
    case nk::with:
    case nk::autoescape: return mentions_symbol(p, n.a, sym) || mentions_symbol(p, n.b, sym);
    case nk::if_:
    case nk::set_block:
    case nk::call_block:
        return mentions_symbol(p, n.a, sym) || mentions_symbol(p, n.b, sym) || mentions_symbol(p, n.c, sym);
    case nk::for_:
        return mentions_symbol(p, n.a, sym) || mentions_symbol(p, n.b, sym) || mentions_symbol(p, n.c, sym) ||
               mentions_symbol(p, n.d, sym) || mentions_symbol(p, n.e, sym);
    default: {
        bool found = false;
        for_each_expression_child(p, n, [&](std::uint32_t c) { found = found || mentions_symbol(p, c, sym); });
        return found;
    }
    }
}

/// How deeply expressions may nest (operator chains included): rendering recurses once a level.
inline constexpr std::uint32_t max_expression_depth = 256;

/// A filter or test the environment does not have, used where Jinja2 refuses it at compile time.
struct unknown_name {
    std::uint32_t node = none;  ///< the filter or test node, or `none` when every name is known
    bool is_filter = false;
    constexpr explicit operator bool() const noexcept { return node != none; }
};

/// Finds the first filter or test whose name `has_filter(sym)` / `has_test(sym)` rejects and that
/// Jinja2 rejects when it compiles the template. Jinja2 lets an unknown name through when it sits
/// in a "soft" frame: anywhere in an `if` statement (test, branches) or in an inline `x if c else
/// y`, until a construct opens a frame of its own (a loop's body, filter and else; a macro or call
/// block's body and defaults; a set or filter block; a `with` body); there the name fails only if
/// it is used. Expressions a construct evaluates in the enclosing frame (a loop's iterable, the
/// call of a call block, `with` values, `set` values) keep the enclosing frame's softness.
template <class HasFilter, class HasTest>
class name_checker {
public:
    constexpr name_checker(const program& p, HasFilter has_filter, HasTest has_test)
        : p_(p), has_filter_(has_filter), has_test_(has_test) {}

    constexpr unknown_name run() {
        visit(p_.root, false);
        return found_;
    }

private:
    constexpr void visit_range(std::uint32_t begin, std::uint32_t count, bool soft) {
        for (std::uint32_t k = 0; k < count && !found_; ++k) visit(p_.lists[begin + k], soft);
    }

    constexpr void visit(std::uint32_t idx, bool soft) {
        if (idx == none || found_) return;
        const node& n = p_.nodes[idx];
        switch (n.kind) {
        case nk::if_:
        case nk::condexpr:
            visit(n.a, true);
            visit(n.b, true);
            visit(n.c, true);
            break;
        case nk::for_:
            visit(n.b, soft);
            visit(n.c, false);
            visit(n.d, false);
            visit(n.e, false);
            break;
        case nk::set:
            visit(n.a, soft);
            visit(n.b, soft);
            break;
        case nk::print: visit(n.a, soft); break;
        case nk::set_block:
        case nk::filter_block:
        case nk::macro:
        case nk::param:
        case nk::block:
            visit(n.a, false);
            visit(n.b, false);
            visit(n.c, false);
            break;
        case nk::call_block:
            visit(n.a, soft);
            visit(n.b, false);
            visit(n.c, false);
            break;
        case nk::with:
            if (n.a != none) {
                const node& assigns = p_.nodes[n.a];
                for (std::uint32_t k = 0; k < assigns.b && !found_; ++k) visit(p_.nodes[p_.lists[assigns.a + k]].b, soft);
            }
            visit(n.b, false);
            break;
        case nk::autoescape:
            visit(n.a, soft);
            visit(n.b, soft);
            break;
        case nk::stmts: visit_range(n.a, n.b, soft); break;
        case nk::filter:
        case nk::test:
            if (!soft && !(n.kind == nk::filter ? has_filter_(n.sym) : has_test_(n.sym))) {
                found_ = unknown_name{idx, n.kind == nk::filter};
                return;
            }
            [[fallthrough]];
        default:  // other expressions pass their softness down; text, names and literals end here
            for_each_expression_child(p_, n, [&](std::uint32_t c) { visit(c, soft); });
            break;
        }
    }

    const program& p_;
    HasFilter has_filter_;
    HasTest has_test_;
    unknown_name found_{};
};

/// The deepest point of an expression nested more than `limit` levels (a chain like
/// `a + a + a ...` or `x.a.a.a ...`, which the parser builds without recursion), or `none`.
/// Rendering recurses once per level, so this bounds its stack. Iterative: any depth is safe here.
constexpr std::uint32_t find_too_deep_expression(const program& p, std::uint32_t limit) {
    std::vector<std::uint32_t> depth(p.nodes.size(), 0);  // 0: not computed yet
    std::vector<std::uint32_t> stack;
    for (std::uint32_t start = 0; start < p.nodes.size(); ++start) {
        if (depth[start] != 0) continue;
        stack.push_back(start);
        while (!stack.empty()) {
            const std::uint32_t x = stack.back();
            if (depth[x] != 0) {
                stack.pop_back();
                continue;
            }
            bool ready = true;
            std::uint32_t deepest = 0;
            for_each_expression_child(p, p.nodes[x], [&](std::uint32_t c) {
                if (depth[c] == 0) {
                    ready = false;
                    stack.push_back(c);
                } else if (depth[c] > deepest) {
                    deepest = depth[c];
                }
            });
            if (!ready) continue;
            depth[x] = deepest + 1;
            if (depth[x] > limit) return x;
            stack.pop_back();
        }
    }
    return none;
}

/// The first filter or test Jinja2 would refuse at compile time (see name_checker).
template <class HasFilter, class HasTest>
constexpr unknown_name find_unknown_name(const program& p, HasFilter has_filter, HasTest has_test) {
    return name_checker<HasFilter, HasTest>(p, has_filter, has_test).run();
}

}  // namespace parley::jinja::detail

#endif
