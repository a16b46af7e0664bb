// parley/jinja/detail/ct/fallback.hpp: templates the generated code does not render: the checks of
// their name paths against the context type, and their parse by the run-time engine.
#ifndef PARLEY_JINJA_DETAIL_CT_FALLBACK_HPP
#define PARLEY_JINJA_DETAIL_CT_FALLBACK_HPP

#include <parley/jinja/detail/ct/execution.hpp>

namespace parley::jinja::detail::ct {

// ---- checks of a template the generated code does not render ------------------------------------

/// Visits every expression of a statement or expression node in scope E, so that each name
/// path is checked against the context type (eval's return type is computed for each).
template <class P, std::uint32_t I, class E>
constexpr bool check_node();

template <class P, std::uint32_t L, std::uint32_t K, std::uint32_t Count, class E>
constexpr bool check_items() {
    return []<std::uint32_t... N>(std::integer_sequence<std::uint32_t, N...>) {
        return (check_node<P, P::prog.lists[L + K + N], E>() && ...);
    }(std::make_integer_sequence<std::uint32_t, Count - K>{});
}

/// The statements of a list; a `set` of a name to a typed value types the name for the rest.
template <class P, std::uint32_t L, std::uint32_t K, std::uint32_t Count, class E>
constexpr bool check_list() {
    constexpr std::uint32_t J = next_set<P, L, K, Count>();
    []<std::uint32_t... N>(std::integer_sequence<std::uint32_t, N...>) {
        (check_node<P, P::prog.lists[L + K + N], E>(), ...);
    }(std::make_integer_sequence<std::uint32_t, J - K>{});
    if constexpr (J == Count) {
        return true;
    } else {
        constexpr std::uint32_t I = P::prog.lists[L + J];
        constexpr node x = P::prog.nodes[I];
        if constexpr (P::prog.nodes[x.a].kind == nk::name) {
            check_node<P, x.b, E>();
            return check_list<P, L, J + 1, Count, set_scope<P, I, E>>();
        } else {
            check_node<P, I, E>();
            return check_list<P, L, J + 1, Count, E>();
        }
    }
}

template <class P, std::uint32_t I, class E>
constexpr bool check_node() {
    if constexpr (I == none) {
        return true;
    } else {
        constexpr node x = P::prog.nodes[I];
        if constexpr (x.kind == nk::stmts) {
            return check_list<P, x.a, 0, x.b, E>();
        } else if constexpr (x.kind == nk::name || ((x.kind == nk::getattr || x.kind == nk::getitem) &&
                                                   is_string_key<P, I>())) {
            (void)sizeof(std::add_pointer_t<type_of<P, I, E>>);
            return true;
        } else if constexpr (x.kind == nk::test && (P::prog.sym_name(x.sym) == "defined" ||
                                                    P::prog.sym_name(x.sym) == "undefined")) {
            return true;  // a missing name is what `is defined` asks about
        } else if constexpr (x.kind == nk::filter && (P::prog.sym_name(x.sym) == "default" ||
                                                      P::prog.sym_name(x.sym) == "d")) {
            return check_node<P, x.b, E>();  // likewise for default()
        } else if constexpr (x.kind == nk::for_) {
            check_node<P, x.b, E>();
            using Seq = plain_t<type_of<P, x.b, E>>;
            if constexpr (items_loop<P, I, E>::ok) {
                // for k, v in m.items(): the key and the value typed
                check_node<P, x.c, typename items_scope<P, I, E>::type>();
                check_node<P, x.d, typename items_scope<P, I, E>::type>();
            } else if constexpr (P::prog.nodes[x.a].kind == nk::name && is_sequence<Seq>) {
                using Inner = typename loop_types<P, Seq, E>::template inner<P::prog.nodes[x.a].sym>;
                check_node<P, x.c, Inner>();
                check_node<P, x.d, Inner>();
            } else {
                // a target whose type is not known here: its names are unknown in the body
                check_node<P, x.c, bound<P::prog.nodes[x.a].kind == nk::name ? P::prog.nodes[x.a].sym : none, unknown_t, E>>();
                check_node<P, x.d, bound<P::prog.nodes[x.a].kind == nk::name ? P::prog.nodes[x.a].sym : none, unknown_t, E>>();
            }
            return check_node<P, x.e, E>();
        } else if constexpr (x.kind == nk::set) {
            return check_node<P, x.b, E>();
        } else if constexpr (x.kind == nk::text || x.kind == nk::k_str || x.kind == nk::k_int ||
                             x.kind == nk::k_bigint || x.kind == nk::k_float || x.kind == nk::k_true || x.kind == nk::k_false ||
                             x.kind == nk::k_none || x.kind == nk::break_ || x.kind == nk::continue_ ||
                             x.kind == nk::nsref || x.kind == nk::param) {
            return true;
        } else if constexpr (x.kind == nk::macro || x.kind == nk::call_block || x.kind == nk::with) {
            // parameters and `with` names are not typed, and may hide the context's members
            return true;
        } else if constexpr (x.kind == nk::concat || x.kind == nk::list || x.kind == nk::tuple ||
                             x.kind == nk::dict) {
            return check_items<P, x.a, 0, x.b, E>();
        } else if constexpr (x.kind == nk::compare) {
            return check_node<P, x.a, E>() && check_items<P, x.b, 0, x.c, E>();
        } else if constexpr (x.kind == nk::args) {
            return check_items<P, x.a, 0, x.b, E>() && check_items<P, x.c, 0, x.d, E>() && check_node<P, x.e, E>() &&
                   check_node<P, x.f, E>();
        } else {
            // the other kinds' children are a..f
            check_node<P, x.a, E>();
            check_node<P, x.b, E>();
            check_node<P, x.c, E>();
            check_node<P, x.d, E>();
            check_node<P, x.e, E>();
            check_node<P, x.f, E>();
            return true;
        }
    }
}

/// The run-time engine's parse of a compiled template's source with its options (one function
/// for every template, rather than one per template).
inline parsed_template parse_at_run_time(std::string_view source, const compile_options& options) {
    parley::jinja::options o;
    o.trim_blocks = options.trim_blocks;
    o.lstrip_blocks = options.lstrip_blocks;
    o.keep_trailing_newline = options.keep_trailing_newline;
    o.loop_controls = options.loop_controls;
    return environment(o).parse(source, "compiled template");
}

}  // namespace parley::jinja::detail::ct

#endif
