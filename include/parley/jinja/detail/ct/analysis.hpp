// parley/jinja/detail/ct/analysis.hpp: what is known of a parsed template before its code is
// generated: the symbols it assigns where the generated code does not follow the assignment.
#ifndef PARLEY_JINJA_DETAIL_CT_ANALYSIS_HPP
#define PARLEY_JINJA_DETAIL_CT_ANALYSIS_HPP

#include <parley/jinja/detail/ct/diagnostics.hpp>

namespace parley::jinja::detail::ct {

// ---- the program --------------------------------------------------------------------------------

/// The symbols a template assigns where the generated code does not follow the assignment
/// (a `set` in an if's branch, a macro's parameters, a tuple target, `with`...). A lookup of
/// such a name that reaches the context is not typed (and not reported as missing).
template <class P>
constexpr auto assigned_symbols() {
    constexpr auto& p = P::prog;
    std::array<bool, p.symbol_count + 1> r{};
    // marks the names of an assignment target
    auto mark = [&](auto&& self, std::uint32_t i) -> void {
        if (i == none) return;
        const node& x = p.nodes[i];
        if (x.kind == nk::name || x.kind == nk::nsref) r[x.sym] = true;
        else if (x.kind == nk::tuple || x.kind == nk::list)
            for (std::uint32_t k = 0; k < x.b; ++k) self(self, p.lists[x.a + k]);
    };
    // marks every assignment below node i (followed: whether a set directly in a list there is
    // followed by the generated code)
    auto walk = [&](auto&& self, std::uint32_t i, bool followed) -> void {
        if (i == none) return;
        const node& x = p.nodes[i];
        switch (x.kind) {
        case nk::stmts:
            for (std::uint32_t k = 0; k < x.b; ++k) {
                const node& item = p.nodes[p.lists[x.a + k]];
                if (item.kind == nk::set && (!followed || p.nodes[item.a].kind != nk::name)) mark(mark, item.a);
                if (item.kind != nk::set) self(self, p.lists[x.a + k], followed);
            }
            return;
        case nk::for_:
            if (p.nodes[x.a].kind != nk::name) mark(mark, x.a);
            self(self, x.d, true);
            self(self, x.e, followed);
            return;
        case nk::if_:
            self(self, x.b, false);
            self(self, x.c, false);
            return;
        case nk::macro: r[x.sym] = true; [[fallthrough]];
        case nk::call_block:
        case nk::with:
        case nk::set_block:
        case nk::filter_block:
        case nk::block:
        case nk::autoescape:
            // everything assigned inside, at any depth
            for (std::uint32_t k = 0; k < p.node_count; ++k) {
                const node& y = p.nodes[k];
                if (y.kind == nk::set || y.kind == nk::set_block || y.kind == nk::for_) mark(mark, y.a);
                if (y.kind == nk::param || y.kind == nk::macro) r[y.sym] = true;
            }
            return;
        default: return;
        }
    };
    walk(walk, p.root, true);
    return r;
}

template <class P>
inline constexpr auto assigned_v = assigned_symbols<P>();

// Nodes and list items are read as P::prog.nodes[i] and P::prog.lists[i] (constant
// expressions, so that `a && b` in a condition does not read b's node when a is false).

}  // namespace parley::jinja::detail::ct

#endif
