// parley/jinja/detail/link.hpp: what environment::parse adds to a parsed program for the
// run-time renderer (the compile-time front end does not read it).
#ifndef PARLEY_JINJA_DETAIL_LINK_HPP
#define PARLEY_JINJA_DETAIL_LINK_HPP

#include <parley/jinja/detail/ast.hpp>
#include <parley/jinja/detail/check.hpp>
#include <parley/jinja/detail/methods.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace parley::jinja::detail {

/// Marks what the renderer reads of attribute and item accesses (flag_member, flag_member_var,
/// flag_dict_method; see ast.hpp): `name.key`, `name['key']` and `name[k]` are read in place
/// without evaluating their operands, and a getattr knows whether its name is a dict method
/// without comparing it at each render.
inline void link_members(program& p) {
    for (node& x : p.nodes) {
        if (x.kind != nk::getattr && x.kind != nk::getitem) continue;
        if (x.kind == nk::getattr && is_dict_method(p.sym_name(x.sym))) x.flags |= flag_dict_method;
        if (p.nodes[x.a].kind != nk::name) continue;
        if (x.kind == nk::getattr) {
            if (x.flags & flag_dict_method) continue;  // a dict method wins over a key
            x.c = p.symbols[x.sym].off;
            x.d = p.symbols[x.sym].len;
            x.flags |= flag_member;
        } else if (const node& key = p.nodes[x.b]; key.kind == nk::k_str) {
            x.c = key.a;
            x.d = key.b;
            x.flags |= flag_member;
        } else if (key.kind == nk::name) {
            x.d = key.sym;
            x.flags |= flag_member_var;
        } else {
            continue;
        }
        x.sym2 = p.nodes[x.a].sym;
    }
}

/// What the renderer reads of a chain's operand (see chain_part); after link_members.
inline chain_part describe_chain_part(const program& p, std::uint32_t k) {
    const node& x = p.nodes[k];
    chain_part part;
    part.node = k;
    if (x.kind == nk::k_str) {
        part.kind = chain_part::literal;
        part.off = x.a;
        part.len = x.b;
    } else if (x.flags & flag_member) {
        part.kind = chain_part::member;
        part.sym = x.sym2;
        part.off = x.c;
        part.len = x.d;
    }
    return part;
}

/// Gives each `{{ }}` of a `+` or `~` chain the chain's operands in order (program::chains, from
/// the print node's b, c of them), which render_state::print writes one after the other. For
/// `+`, adjacent string literals become one (`'<|im_end|>' + '\n'`): `+` of strings is
/// associative, and when Python's left fold meets a value that is not a string, `x + 'a' + 'b'`
/// and `x + 'ab'` give the same result or the same error.
inline void link_print_chains(program& p) {
    const auto is_add = [&](std::uint32_t k) { return p.nodes[k].kind == nk::binop && p.nodes[k].oper == op::add; };
    const auto is_str = [&](std::uint32_t k) { return p.nodes[k].kind == nk::k_str; };
    const std::size_t count = p.nodes.size();  // nodes are added below
    for (std::size_t i = 0; i < count; ++i) {
        if (p.nodes[i].kind != nk::print) continue;
        std::vector<std::uint32_t> parts;
        if (const node e = p.nodes[p.nodes[i].a]; e.kind == nk::concat) {
            for (std::uint32_t k = 0; k < e.b; ++k) parts.push_back(p.lists[e.a + k]);
        } else if (is_add(p.nodes[i].a)) {
            std::vector<std::uint32_t> leaves;  // last first
            std::uint32_t cur = p.nodes[i].a;
            for (; is_add(cur); cur = p.nodes[cur].a) leaves.push_back(p.nodes[cur].b);
            leaves.push_back(cur);
            const std::vector<std::uint32_t> ordered(leaves.rbegin(), leaves.rend());
            for (std::size_t k = 0; k < ordered.size();) {  // literals merged
                std::size_t end = k + 1;  // a run of literals: [k, end)
                if (is_str(ordered[k]))
                    while (end < ordered.size() && is_str(ordered[end])) ++end;
                if (end - k == 1) {
                    parts.push_back(ordered[k++]);
                    continue;
                }
                std::string text;
                for (std::size_t j = k; j < end; ++j) text += p.str(p.nodes[ordered[j]].a, p.nodes[ordered[j]].b);
                node merged = p.nodes[ordered[k]];
                merged.a = static_cast<std::uint32_t>(p.pool.size());
                merged.b = static_cast<std::uint32_t>(text.size());
                p.pool.insert(p.pool.end(), text.begin(), text.end());
                parts.push_back(static_cast<std::uint32_t>(p.nodes.size()));
                p.nodes.push_back(merged);
                k = end;
            }
        } else {
            continue;
        }
        node& print = p.nodes[i];
        print.b = static_cast<std::uint32_t>(p.chains.size());
        print.c = static_cast<std::uint32_t>(parts.size());
        for (std::uint32_t k : parts) p.chains.push_back(describe_chain_part(p, k));
    }
}

/// Marks in program::bound the symbols a render may bind as variables: targets of `set`, `for`
/// and `with` (names inside tuple targets too), macro names and parameters, and the names the
/// renderer binds itself (`specials`: loop, caller, varargs, kwargs; `none` for those the
/// template never names).
inline void link_bound_symbols(program& p, std::initializer_list<std::uint32_t> specials) {
    p.bound.assign(p.symbols.size(), 0);
    const auto mark_target = [&](const auto& self, std::uint32_t k) -> void {
        const node& t = p.nodes[k];
        if (t.kind == nk::name) {
            p.bound[t.sym] = 1;
        } else if (t.kind == nk::tuple || t.kind == nk::list) {
            for (std::uint32_t j = 0; j < t.b; ++j) self(self, p.lists[t.a + j]);
        }
    };
    for (const node& x : p.nodes) {
        switch (x.kind) {
        case nk::set:
        case nk::set_block:
        case nk::for_: mark_target(mark_target, x.a); break;
        case nk::with:
            for (std::uint32_t j = 0; j < p.nodes[x.a].b; ++j) mark_target(mark_target, p.nodes[p.lists[p.nodes[x.a].a + j]].a);
            break;
        case nk::macro:
        case nk::param: p.bound[x.sym] = 1; break;
        default: break;
        }
    }
    for (std::uint32_t s : specials)
        if (s != none) p.bound[s] = 1;
}

/// Marks the loops in which the name `loop` appears (flag_uses_loop): the others need no loop
/// object. `loop_sym` is the symbol of `loop`, or `none` when the template never names it.
inline void mark_loops_using_loop(program& p, std::uint32_t loop_sym) {
    if (loop_sym == none) return;
    for (std::uint32_t k = 0; k < p.nodes.size(); ++k)
        if (p.nodes[k].kind == nk::for_ && mentions_symbol(p, k, loop_sym)) p.nodes[k].flags |= flag_uses_loop;
}

/// Marks the macros and call blocks in which a parameter's default names a later parameter
/// (flag_defaults_see_params): in Jinja2 that name is the parameter, not a variable of the
/// scope the macro was defined in.
inline void mark_defaults_naming_params(program& p) {
    for (node& x : p.nodes) {
        std::uint32_t params = none;
        if (x.kind == nk::macro) params = x.a;
        else if (x.kind == nk::call_block) params = x.b;
        if (params == none) continue;
        const node& list = p.nodes[params];
        for (std::uint32_t k = 0; k < list.b; ++k) {
            const node& prm = p.nodes[p.lists[list.a + k]];
            if (prm.a == none) continue;
            for (std::uint32_t j = k + 1; j < list.b; ++j)
                if (mentions_symbol(p, prm.a, p.nodes[p.lists[list.a + j]].sym)) x.flags |= flag_defaults_see_params;
        }
    }
}

}  // namespace parley::jinja::detail

#endif
