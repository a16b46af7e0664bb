// parley/jinja/detail/ct/execution.hpp: output and statements in the generated code: `{{ }}`, `if`,
// `for` (loop variables, items()), `set`, lists of statements.
#ifndef PARLEY_JINJA_DETAIL_CT_EXECUTION_HPP
#define PARLEY_JINJA_DETAIL_CT_EXECUTION_HPP

#include <parley/jinja/detail/ct/calls.hpp>

namespace parley::jinja::detail::ct {

// ---- output -------------------------------------------------------------------------------------

/// Whether node I is a `+` of two strings.
template <class P, std::uint32_t I, class E>
constexpr bool is_text_add() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::binop && x.oper == op::add) return is_text_expr<P, x.a, E>() && is_text_expr<P, x.b, E>();
    else return false;
}

/// Whether node I is a `+` of integers whose chain `{{ }}` folds as the run-time engine does.
template <class P, std::uint32_t I, class E>
constexpr bool is_int_add_chain() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::binop && x.oper == op::add && add_chain_length<P, I>() <= 15)
        return std::is_same_v<type_of<P, I, E>, std::int64_t>;
    else return false;
}

/// Whether `{{ e }}` is written by the generated code.
template <class P, std::uint32_t I, class E>
constexpr bool print_ok() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (is_text_add<P, I, E>()) {
        return print_ok<P, x.a, E>() && print_ok<P, x.b, E>();
    } else if constexpr (x.kind == nk::concat) {
        return []<std::uint32_t... K>(std::integer_sequence<std::uint32_t, K...>) {
            return (print_ok<P, P::prog.lists[P::prog.nodes[I].a + K], E>() && ...);
        }(std::make_integer_sequence<std::uint32_t, P::prog.nodes[I].b>{});
    } else if constexpr (x.kind == nk::condexpr) {
        if constexpr (x.c == none) return truth_ok<P, x.a, E>() && print_ok<P, x.b, E>();
        else return truth_ok<P, x.a, E>() && print_ok<P, x.b, E>() && print_ok<P, x.c, E>();
    } else {
        using T = plain_t<type_of<P, I, E>>;
        if constexpr (is_item_of<T>::value) return is_printable<plain_t<decltype(*std::declval<T>().p)>>();
        else if constexpr (is_value<T>) return !raises_when_printed<T>();
        else return false;
    }
}

template <class P, std::uint32_t I, class E>
PARLEY_ALWAYS_INLINE void print(std::string& out, const E& env) {
    constexpr node x = P::prog.nodes[I];
    if constexpr (is_text_add<P, I, E>()) {
        print<P, x.a>(out, env);
        print<P, x.b>(out, env);
    } else if constexpr (x.kind == nk::concat) {
        [&]<std::uint32_t... K>(std::integer_sequence<std::uint32_t, K...>) {
            (print<P, P::prog.lists[P::prog.nodes[I].a + K]>(out, env), ...);
        }(std::make_integer_sequence<std::uint32_t, P::prog.nodes[I].b>{});
    } else if constexpr (x.kind == nk::condexpr) {
        if (truth<P, x.a>(env)) print<P, x.b>(out, env);
        else if constexpr (x.c != none) print<P, x.c>(out, env);
    } else {
        put(out, eval<P, I>(env));
    }
}

// ---- statements ---------------------------------------------------------------------------------

template <class P, std::uint32_t I, class E>
constexpr bool stmt_ok();
template <class P, std::uint32_t I, class E>
void exec(std::string& out, const E& env);

/// The scope after a `set` of symbol S to an expression of type T.
template <class P, std::uint32_t I, class E>
using set_scope = bound<P::prog.nodes[P::prog.nodes[I].a].sym, plain_t<type_of<P, P::prog.nodes[I].b, E>>, E>;

/// The position of the first `set` in list items [K, Count), or Count.
template <class P, std::uint32_t L, std::uint32_t K, std::uint32_t Count>
constexpr std::uint32_t next_set() {
    for (std::uint32_t k = K; k < Count; ++k)
        if (P::prog.nodes[P::prog.lists[L + k]].kind == nk::set) return k;
    return Count;
}

/// `set ns.attr = value` (statement I) where ns is a typed namespace with attribute attr, and
/// value is of the attribute's kind (string, integer, boolean).
template <class P, std::uint32_t I, class E>
constexpr bool assign_ok() {
    constexpr node x = P::prog.nodes[I];
    constexpr node target = P::prog.nodes[x.a];
    using NS = plain_t<decltype(lookup<P, target.sym, x.a>(std::declval<const E&>()))>;
    if constexpr (!is_typed_namespace<NS>::value) {
        return false;
    } else {
        constexpr int k = namespace_attribute<NS, target.sym2>();
        if constexpr (k < 0) {
            return false;
        } else {
            using S = std::tuple_element_t<k, decltype(NS::values)>;
            using V = plain_t<type_of<P, x.b, E>>;
            if constexpr (std::is_same_v<S, std::string>) return is_text<V>;
            else if constexpr (std::is_same_v<S, bool>) return std::is_same_v<V, bool>;
            else return is_int<V>;
        }
    }
}

template <class P, std::uint32_t I, class E>
void assign_attribute(const E& env) {
    constexpr node x = P::prog.nodes[I];
    constexpr node target = P::prog.nodes[x.a];
    const auto& ns = lookup<P, target.sym, x.a>(env);
    auto& slot = std::get<namespace_attribute<plain_t<decltype(ns)>, target.sym2>()>(ns.values);
    const auto& v = eval<P, x.b>(env);
    if constexpr (std::is_same_v<plain_t<decltype(slot)>, std::string>) slot.assign(std::string_view(v));
    else slot = static_cast<plain_t<decltype(slot)>>(v);
}

/// Statements L[K..Count) of a list, in scope E (each `set` opens the scope of the rest).
template <class P, std::uint32_t L, std::uint32_t K, std::uint32_t Count, class E>
constexpr bool list_ok() {
    // the statements before the next `set` in one fold (one instantiation, not one per statement)
    constexpr std::uint32_t J = next_set<P, L, K, Count>();
    constexpr bool head = []<std::uint32_t... N>(std::integer_sequence<std::uint32_t, N...>) {
        return (stmt_ok<P, P::prog.lists[L + K + N], E>() && ...);
    }(std::make_integer_sequence<std::uint32_t, J - K>{});
    if constexpr (!head || J == Count) {
        return head;
    } else {
        constexpr std::uint32_t I = P::prog.lists[L + J];
        constexpr node x = P::prog.nodes[I];
        if constexpr (P::prog.nodes[x.a].kind == nk::nsref) return assign_ok<P, I, E>() && list_ok<P, L, J + 1, Count, E>();
        else if constexpr (P::prog.nodes[x.a].kind != nk::name) return false;
        else {
            using T = plain_t<type_of<P, x.b, E>>;
            if constexpr (is_unknown<T> || is_json<T>) return false;
            else return list_ok<P, L, J + 1, Count, set_scope<P, I, E>>();
        }
    }
}

template <class P, std::uint32_t L, std::uint32_t K, std::uint32_t Count, class E>
void run_list(std::string& out, const E& env) {
    constexpr std::uint32_t J = next_set<P, L, K, Count>();
    [&]<std::uint32_t... N>(std::integer_sequence<std::uint32_t, N...>) {
        (exec<P, P::prog.lists[L + K + N]>(out, env), ...);
    }(std::make_integer_sequence<std::uint32_t, J - K>{});
    if constexpr (J < Count) {
        constexpr std::uint32_t I = P::prog.lists[L + J];
        constexpr node x = P::prog.nodes[I];
        if constexpr (P::prog.nodes[x.a].kind == nk::nsref) {
            assign_attribute<P, I>(env);
            run_list<P, L, J + 1, Count>(out, env);
        } else {
            using T = plain_t<type_of<P, x.b, E>>;
            const T& v = eval<P, x.b>(env);
            const set_scope<P, I, E> inner{v, env};
            run_list<P, L, J + 1, Count>(out, inner);
        }
    }
}

template <class P, std::uint32_t I, class E>
constexpr bool body_ok() {
    if constexpr (I == none) return true;
    else return list_ok<P, P::prog.nodes[I].a, 0, P::prog.nodes[I].b, E>();
}
template <class P, std::uint32_t I, class E>
void run_body(std::string& out, const E& env) {
    if constexpr (I != none) run_list<P, P::prog.nodes[I].a, 0, P::prog.nodes[I].b>(out, env);
}

/// Whether a list contains a `set` at its own level (a set in an if's branch is visible after
/// the `endif` in Jinja, which the generated code's scopes do not model).
template <class P, std::uint32_t I>
constexpr bool has_set() {
    constexpr node x = P::prog.nodes[I];
    for (std::uint32_t k = 0; k < x.b; ++k) {
        const node& item = P::prog.nodes[P::prog.lists[x.a + k]];
        if (item.kind == nk::set_block || (item.kind == nk::set && P::prog.nodes[item.a].kind != nk::nsref)) return true;
    }
    return false;
}

template <class P, std::uint32_t I, class E>
constexpr bool branch_ok() {
    if constexpr (I == none) return true;
    else if constexpr (P::prog.nodes[I].kind == nk::if_)
        return truth_ok<P, P::prog.nodes[I].a, E>() && branch_ok<P, P::prog.nodes[I].b, E>() &&
               branch_ok<P, P::prog.nodes[I].c, E>();
    else return !has_set<P, I>() && body_ok<P, I, E>();
}

template <class P, std::uint32_t I, class E>
void run_branch(std::string& out, const E& env) {
    if constexpr (I != none) {
        if constexpr (P::prog.nodes[I].kind == nk::if_) exec<P, I>(out, env);
        else run_body<P, I>(out, env);
    }
}

template <class P, class Seq, class E>
struct loop_types {
    using elem = plain_t<decltype(*std::begin(std::declval<const Seq&>()))>;
    static constexpr std::uint32_t loop_sym = P::prog.find_symbol("loop");
    using with_loop = std::conditional_t<loop_sym == none, E, bound<loop_sym, loop_info, E>>;
    template <std::uint32_t Target>
    using inner = bound<Target, elem, with_loop>;
};

/// `for k, v in m.items()` (statement I) over a std::map or unordered_map with string keys:
/// the two names, typed as the key and the value. `ok` is false for any other loop.
template <class P, std::uint32_t I, class E>
struct items_loop {
    static constexpr node x = P::prog.nodes[I];
    static constexpr node target = P::prog.nodes[x.a];
    static constexpr node call = P::prog.nodes[x.b];
    // (target and call are only read for a `for`: the other statements' a and b may be none)
    // (one step at a time: clang warns of a constant index out of range even where && stops)
    static constexpr bool shape_of() {
        if constexpr (x.kind != nk::for_) {
            return false;
        } else if constexpr (!(target.kind == nk::tuple && target.b == 2 && call.kind == nk::call)) {
            return false;
        } else if constexpr (!(P::prog.nodes[P::prog.lists[target.a]].kind == nk::name &&
                               P::prog.nodes[P::prog.lists[target.a + 1]].kind == nk::name)) {
            return false;
        } else {
            return P::prog.nodes[call.a].kind == nk::getattr && P::prog.sym_name(P::prog.nodes[call.a].sym) == "items";
        }
    }
    static constexpr bool shape = shape_of();
    static constexpr bool typed_map() {
        if constexpr (!shape) {
            return false;
        } else if constexpr (positional_count<P, x.b>() != 0) {
            return false;
        } else {
            using M = plain_t<type_of<P, P::prog.nodes[call.a].a, E>>;
            if constexpr (!is_string_map<M>::value) return false;
            else return !raises_on_read<typename M::mapped_type>() && !is_optional<typename M::mapped_type>::value;
        }
    }
    static constexpr bool ok = typed_map();
};

/// The scope of the body of an items() loop: loop (when the template names it), then the key and
/// the value.
template <class P, std::uint32_t I, class E>
struct items_scope {
    using loop = items_loop<P, I, E>;
    using map = plain_t<type_of<P, P::prog.nodes[loop::call.a].a, E>>;
    static constexpr std::uint32_t loop_sym = P::prog.find_symbol("loop");
    using with_loop = std::conditional_t<loop_sym == none, E, bound<loop_sym, loop_info, E>>;
    static constexpr std::uint32_t key_sym = P::prog.nodes[P::prog.lists[loop::target.a]].sym;
    static constexpr std::uint32_t value_sym = P::prog.nodes[P::prog.lists[loop::target.a + 1]].sym;
    using with_key = bound<key_sym, plain_t<typename map::key_type>, with_loop>;
    using type = bound<value_sym, typename map::mapped_type, with_key>;
};

template <class P, std::uint32_t I, class E>
constexpr bool stmt_ok() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::text) {
        return true;
    } else if constexpr (x.kind == nk::print) {
        return print_ok<P, x.a, E>();
    } else if constexpr (x.kind == nk::if_) {
        return branch_ok<P, I, E>();
    } else if constexpr (x.kind == nk::for_ && items_loop<P, I, E>::ok) {
        if constexpr (x.c != none || (x.flags & flag_recursive)) return false;
        else return body_ok<P, x.d, typename items_scope<P, I, E>::type>() && branch_ok<P, x.e, E>();
    } else if constexpr (x.kind == nk::for_) {
        using Seq = plain_t<type_of<P, x.b, E>>;
        if constexpr (P::prog.nodes[x.a].kind != nk::name || x.c != none || (x.flags & flag_recursive) ||
                      !is_sequence<Seq>) {
            return false;
        } else {
            using L = loop_types<P, Seq, E>;
            using Inner = typename L::template inner<P::prog.nodes[x.a].sym>;
            if constexpr (raises_on_read<typename L::elem>()) return false;
            else return body_ok<P, x.d, Inner>() && branch_ok<P, x.e, E>();
        }
    } else {
        return false;
    }
}

template <class P, std::uint32_t I, class E>
void exec(std::string& out, const E& env) {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::text) {
        // a view of the written source (or of the program when it holds its own source)
        static constexpr std::string_view text = P::prog.text(x.a, x.b);
        out.append(text);
    } else if constexpr (x.kind == nk::print) {
        if constexpr (is_int_add_chain<P, x.a, E>()) {
            // the run-time engine prints a `+` chain of up to 15 operands by folding it itself,
            // and reports an overflow at the top of the chain
            put(out, int_arith<P, x.a, x.a, true>(env));
        } else {
            print<P, x.a>(out, env);
        }
    } else if constexpr (x.kind == nk::if_) {
        if (truth<P, x.a>(env)) run_body<P, x.b>(out, env);
        else run_branch<P, x.c>(out, env);
    } else if constexpr (x.kind == nk::for_ && items_loop<P, I, E>::ok) {
        using S = items_scope<P, I, E>;
        const auto& m = eval<P, P::prog.nodes[items_loop<P, I, E>::call.a].a>(env);
        if constexpr (S::loop_sym == none) {
            for (const auto& [key, value] : m) {
                const typename S::with_key k{key, env};
                run_body<P, x.d>(out, typename S::type{value, k});
            }
        } else {
            loop_info info{0, static_cast<std::size_t>(std::size(m))};
            const typename S::with_loop with_loop{info, env};
            for (const auto& [key, value] : m) {
                const typename S::with_key k{key, with_loop};
                run_body<P, x.d>(out, typename S::type{value, k});
                ++info.index0;
            }
        }
        if constexpr (x.e != none) {
            if (std::begin(m) == std::end(m)) run_body<P, x.e>(out, env);
        }
    } else if constexpr (x.kind == nk::for_) {
        const auto& seq = eval<P, x.b>(env);
        using Seq = plain_t<decltype(seq)>;
        using L = loop_types<P, Seq, E>;
        constexpr std::uint32_t target = P::prog.nodes[x.a].sym;
        if constexpr (L::loop_sym == none) {
            for (const auto& item : seq) run_body<P, x.d>(out, bound<target, typename L::elem, E>{item, env});
        } else {
            const std::size_t length = static_cast<std::size_t>(std::size(seq));
            loop_info info{0, length};
            using with_loop_t = typename L::with_loop;
            const with_loop_t with_loop{info, env};
            for (const auto& item : seq) {
                run_body<P, x.d>(out, bound<target, typename L::elem, with_loop_t>{item, with_loop});
                ++info.index0;
            }
        }
        if constexpr (x.e != none) {
            if (std::begin(seq) == std::end(seq)) run_body<P, x.e>(out, env);
        }
    }
}

}  // namespace parley::jinja::detail::ct

#endif
