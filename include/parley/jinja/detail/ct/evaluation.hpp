// parley/jinja/detail/ct/evaluation.hpp: expressions in the generated code: lookups, attributes and
// subscripts, literals, comparisons, Python str of typed values, integers beyond 64 bits handed to
// the run-time engine.
#ifndef PARLEY_JINJA_DETAIL_CT_EVALUATION_HPP
#define PARLEY_JINJA_DETAIL_CT_EVALUATION_HPP

#include <parley/jinja/detail/ct/analysis.hpp>

namespace parley::jinja::detail::ct {

// ---- expressions --------------------------------------------------------------------------------

template <class P, std::uint32_t I, class E>
decltype(auto) eval(const E& env);

/// Looks symbol S up: the innermost binding, else the context's member.
template <class P, std::uint32_t S, std::uint32_t I, class E>
decltype(auto) lookup(const E& env) {
    if constexpr (is_bound<E>::value) {
        if constexpr (E::sym == S) return (env.v);
        else return lookup<P, S, I>(env.up);
    } else {
        using Ctx = plain_t<decltype(env.ctx)>;
        constexpr std::string_view name = P::prog.sym_name(S);
        if constexpr (is_described_struct<Ctx>) {
            constexpr std::size_t m = member_index<Ctx>(name);
            if constexpr (member_raises_on_read<Ctx, m>()) {
                return unknown_t{};  // left to the run-time engine, which raises its error
            } else if constexpr (m != no_member) {
                return (env.ctx.*boost::mp11::mp_at_c<members_of<Ctx>, m>::pointer);
            } else {
                if constexpr (!assigned_v<P>[S] && !is_global_name(name))
                    report_not_a_member<P, I, Ctx, not_a_member_text<P, I, Ctx>(name)>();
                return unknown_t{};
            }
        } else {
            return unknown_t{};
        }
    }
}

/// True when symbol S is bound or a member of the context (the context is a described struct).
template <class P, std::uint32_t S, class E>
constexpr int name_state() {
    if constexpr (is_bound<E>::value) {
        if constexpr (E::sym == S) return 1;
        else return name_state<P, S, typename std::remove_cvref_t<decltype(std::declval<E>().up)>>();
    } else {
        using Ctx = plain_t<decltype(std::declval<E>().ctx)>;
        if constexpr (is_described_struct<Ctx>) {
            if constexpr (member_index<Ctx>(P::prog.sym_name(S)) != no_member) return 1;
            else if constexpr (assigned_v<P>[S] || is_global_name(P::prog.sym_name(S))) return 2;
            else return 0;
        } else {
            return 2;
        }
    }
}

/// The name an attribute node reads, or the string key of a subscript node.
template <class P>
constexpr std::string_view key_name(const node& x) {
    if (x.kind == nk::getattr) return P::prog.sym_name(x.sym);
    const node& k = P::prog.nodes[x.b];
    return P::prog.str(k.a, k.b);
}

/// Where node I is, for an error the generated code raises: line, column and the text of the
/// line, computed while compiling (the program is not read at run time).
template <class P, std::uint32_t I>
struct error_site {
    static constexpr std::string_view source = P::prog.source_view();
    static constexpr std::uint32_t pos = P::prog.nodes[I].pos < source.size() ? P::prog.nodes[I].pos
                                                                               : static_cast<std::uint32_t>(source.size());
    static constexpr ct_position at = position_of(source, pos);
    static constexpr std::size_t begin = [] {
        std::size_t b = pos;
        while (b > 0 && source[b - 1] != '\n') --b;
        return b;
    }();
    static constexpr std::size_t end = [] {
        std::size_t e = pos;
        while (e < source.size() && source[e] != '\n') ++e;
        return e;
    }();
    static constexpr std::array<char, end - begin + 1> line = [] {
        std::array<char, end - begin + 1> a{};
        for (std::size_t k = begin; k < end; ++k) a[k - begin] = source[k];
        return a;
    }();
};

/// Throws the run-time engine's error for node I (its message, at its position), so that a
/// render fails the same way on either path.
template <class P, std::uint32_t I>
[[noreturn]] void raise_at(errc code, std::string message) {
    using site = error_site<P, I>;
    throw template_error(code, std::move(message), source_location{"compiled template", site::at.line, site::at.column},
                         std::string_view(site::line.data(), site::line.size() - 1));
}

/// Thrown by the generated code when an integer + - * or negation passes the 64-bit range: the
/// render is then done again by the run-time engine, whose integers have no size limit.
struct int_beyond_64_bits {};

/// Whether a node of P may compute an integer + - * or a negation (the generated code's only
/// integer operations that can pass the 64-bit range): a `+` chain with a string literal, or a
/// `*` with a string or list literal, concatenates or repeats; anything else may be integers.
/// Only such templates carry the run-time engine for the renders whose integers get that large.
template <class P>
constexpr bool may_compute_big_int() {
    const auto is_text_literal = [](std::uint32_t k) { return P::prog.nodes[k].kind == nk::k_str; };
    for (std::uint32_t k = 0; k < P::prog.node_count; ++k) {
        const node& x = P::prog.nodes[k];
        if (x.kind == nk::neg) {
            const node& operand = P::prog.nodes[x.a];
            if (!(operand.kind == nk::k_int && operand.ival >= 0)) return true;
        } else if (x.kind == nk::binop && x.oper == op::add) {
            bool text = is_text_literal(x.b);
            std::uint32_t i = x.a;
            for (; !text && P::prog.nodes[i].kind == nk::binop && P::prog.nodes[i].oper == op::add; i = P::prog.nodes[i].a)
                text = is_text_literal(P::prog.nodes[i].b);
            if (!text && !is_text_literal(i)) return true;
        } else if (x.kind == nk::binop && (x.oper == op::sub || x.oper == op::mul)) {
            const auto literal_seq = [&](std::uint32_t i) { return is_text_literal(i) || P::prog.nodes[i].kind == nk::list; };
            if (x.oper == op::sub || !(literal_seq(x.a) || literal_seq(x.b))) return true;
        }
    }
    return false;
}

/// An integer result beyond the 64-bit range at node At: the run-time engine takes the render.
template <class P, std::uint32_t At>
[[noreturn]] void int_result_beyond_64_bits() {
    if constexpr (may_compute_big_int<P>()) throw int_beyond_64_bits{};
    else raise_at<P, At>(errc::template_limit, "integer result too large");  // (not reached: such nodes are found above)
}

/// A sequence whose elements are reached by index.
template <class T>
constexpr bool is_random_access_sequence() {
    if constexpr (!is_sequence<T>) return false;
    else return std::is_base_of_v<std::random_access_iterator_tag,
                                  typename std::iterator_traits<decltype(std::begin(std::declval<const T&>()))>::iterator_category>;
}

/// An element the generated code reads by reference from a sequence of type T.
template <class T>
constexpr bool is_readable_element() {
    if constexpr (!is_sequence<T>) {
        return false;
    } else {
        using Elem = elem_t<T>;
        return !raises_on_read<Elem>() && !is_optional<Elem>::value &&
               std::is_lvalue_reference_v<decltype(*std::begin(std::declval<const T&>()))>;
    }
}

/// Element `written` of seq (negative: from the end), or none past the end, as Jinja's getitem
/// reads it; `hint` is the message of a read past the end, when not the getitem's own.
template <class Seq>
item_of<elem_t<Seq>> item_at(const Seq& seq, std::int64_t written, const char* hint = nullptr) {
    const auto n = static_cast<std::int64_t>(std::size(seq));
    const std::int64_t k = written < 0 ? written + n : written;
    if (k < 0 || k >= n) return {nullptr, written, hint};
    return {&*std::next(std::begin(seq), k), written, hint};
}

/// The integer literal a subscript node I reads (`k` or `-k`), and whether it is one.
template <class P, std::uint32_t I>
constexpr bool is_int_subscript() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind != nk::getitem) {
        return false;
    } else {
        constexpr node k = P::prog.nodes[x.b];
        if constexpr (k.kind == nk::k_int) return true;
        else if constexpr (k.kind == nk::neg) return P::prog.nodes[k.a].kind == nk::k_int && P::prog.nodes[k.a].ival >= 0;
        else return false;
    }
}
template <class P, std::uint32_t I>
constexpr std::int64_t subscript_value() {
    constexpr node k = P::prog.nodes[P::prog.nodes[I].b];
    if constexpr (k.kind == nk::k_int) return k.ival;
    else return -P::prog.nodes[k.a].ival;
}

/// The index of attribute symbol S in typed namespace type T, or -1.
template <class T, std::uint32_t S>
constexpr int namespace_attribute() {
    return []<class A, class... V>(std::type_identity<typed_namespace<A, V...>>) {
        return attribute_index<S>(A{});
    }(std::type_identity<T>{});
}

/// An attribute or a string key of a typed object.
template <class P, std::uint32_t I, class T>
decltype(auto) member_of(const T& obj) {
    constexpr node x = P::prog.nodes[I];
    constexpr std::string_view name = key_name<P>(x);
    if constexpr (std::is_same_v<T, loop_info> && x.kind == nk::getattr) {
        if constexpr (name == "index") return static_cast<std::int64_t>(obj.index0 + 1);
        else if constexpr (name == "index0") return static_cast<std::int64_t>(obj.index0);
        else if constexpr (name == "revindex") return static_cast<std::int64_t>(obj.length - obj.index0);
        else if constexpr (name == "revindex0") return static_cast<std::int64_t>(obj.length - obj.index0 - 1);
        else if constexpr (name == "first") return obj.index0 == 0;
        else if constexpr (name == "last") return obj.index0 + 1 == obj.length;
        else if constexpr (name == "length") return static_cast<std::int64_t>(obj.length);
        else return unknown_t{};
    } else if constexpr (is_item_of<T>::value) {
        using R = decltype(member_of<P, I>(*obj.p));
        if constexpr (is_unknown<R>) {
            return unknown_t{};
        } else {
            if (PARLEY_UNLIKELY(!obj.p))
                raise_at<P, I>(errc::template_undefined,
                               obj.hint ? std::string(obj.hint) : "list object has no element " + std::to_string(obj.index));
            return member_of<P, I>(*obj.p);
        }
    } else if constexpr (is_typed_namespace<T>::value) {
        constexpr int k = x.kind == nk::getattr ? namespace_attribute<T, x.sym>() : -1;
        if constexpr (k < 0) return unknown_t{};
        else return std::as_const(std::get<k>(obj.values));
    } else if constexpr (is_described_struct<T>) {
        constexpr std::size_t m = member_index<T>(name);
        if constexpr (x.kind == nk::getattr && is_dict_method_name(name)) {
            return unknown_t{};  // Jinja's getattr finds the dict method first
        } else if constexpr (member_raises_on_read<T, m>()) {
            return unknown_t{};  // left to the run-time engine, which raises its error
        } else if constexpr (m != no_member) {
            return (obj.*boost::mp11::mp_at_c<members_of<T>, m>::pointer);
        } else {
            report_not_a_member<P, I, T, not_a_member_text<P, I, T>(name)>();
            return unknown_t{};
        }
    } else {
        return unknown_t{};
    }
}

template <class P, std::uint32_t I>
constexpr bool is_string_key() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::getattr) return true;
    else if constexpr (x.kind == nk::getitem) return P::prog.nodes[x.b].kind == nk::k_str;
    else return false;
}

template <class P, std::uint32_t I, class E>
using type_of = decltype(eval<P, I>(std::declval<const E&>()));

/// The type an expression prints as, for `+` on strings.
template <class P, std::uint32_t I, class E>
constexpr bool is_text_expr() {
    return is_text<plain_t<type_of<P, I, E>>>;
}

template <class P, std::uint32_t I, class E>
bool truth(const E& env);

template <class P, std::uint32_t I, class E>
constexpr bool truth_ok();

template <class P, std::uint32_t I, class E>
constexpr int defined_state();

/// Python's `a == b` for the pairs the generated code compares (and `x == none` for any x).
template <class A, class B>
constexpr bool comparable = (is_text<A> && is_text<B>) || (is_int<A> && is_int<B>) ||
                            (std::is_same_v<A, bool> && std::is_same_v<B, bool>) ||
                            (std::is_same_v<B, std::nullptr_t> && is_value<A>) ||
                            (std::is_same_v<A, std::nullptr_t> && is_value<B>);
/// What `text in b` searches in the generated code: a string, or a sequence of strings.
template <class B>
constexpr bool text_container() {
    if constexpr (is_text<B>) return true;
    else if constexpr (is_sequence<B>) return is_text<elem_t<B>> && !raises_on_read<elem_t<B>>();
    else return false;
}
/// The pairs `<`, `<=`, `>`, `>=` compare in the generated code.
template <class A, class B>
constexpr bool ordered = (is_text<A> && is_text<B>) || (is_int<A> && is_int<B>);

/// Whether a typed value reads as None (an empty std::optional is undefined, not None).
template <class T>
bool is_none_value(const T& v) {
    if constexpr (std::is_same_v<T, std::nullptr_t>) {
        return true;
    } else if constexpr (std::is_pointer_v<T>) {
        return v == nullptr;
    } else if constexpr (is_optional<T>::value) {
        return v.has_value() && is_none_value(*v);
    } else if constexpr (is_variant<T>::value) {
        return std::visit(
            [](const auto& a) {
                using A = plain_t<decltype(a)>;
                if constexpr (std::is_same_v<A, std::monostate>) return true;
                else return is_none_value(a);
            },
            v);
    } else {
        return false;
    }
}

/// The characters of string literal I, in an array of their own: the generated code reads
/// them, not the program (which then stays a compile-time object, never written into the binary).
template <class P, std::uint32_t I>
struct literal_chars {
    static constexpr std::uint32_t size = P::prog.nodes[I].b;
    static constexpr std::array<char, size + 1> chars = [] {
        std::array<char, size + 1> a{};
        for (std::uint32_t k = 0; k < size; ++k) a[k] = P::prog.pool[P::prog.nodes[I].a + k];
        return a;
    }();
    static constexpr std::string_view view{chars.data(), size};
};

/// Python's str(v) of a typed value, appended.
template <class T>
PARLEY_ALWAYS_INLINE void put(std::string& out, const T& v) {
    if constexpr (is_item_of<T>::value) {
        if (v.p) put(out, *v.p);  // Jinja's undefined prints as nothing
    } else if constexpr (std::is_same_v<T, json_markup>) out.append(v.text);
    else if constexpr (is_text<T>) out.append(std::string_view(v));
    else if constexpr (std::is_same_v<T, bool>) out.append(v ? "True" : "False");
    else if constexpr (is_int<T>) append_int(out, static_cast<std::int64_t>(v));
    else append_str(out, cpp_view(v));
}

/// a + b, a - b, a * b of integers in the 64-bit range; a result beyond it sends the render to
/// the run-time engine (int_result_beyond_64_bits). At is the operation's own node, or (Chain)
/// the top of the `+` chain a `{{ }}` prints.
template <class P, std::uint32_t I, std::uint32_t At, bool Chain, class E>
std::int64_t int_arith(const E& env) {
    constexpr node x = P::prog.nodes[I];
    std::int64_t a;
    if constexpr (Chain && P::prog.nodes[x.a].kind == nk::binop && P::prog.nodes[x.a].oper == op::add)
        a = int_arith<P, x.a, At, true>(env);
    else
        a = static_cast<std::int64_t>(eval<P, x.a>(env));
    const auto b = static_cast<std::int64_t>(eval<P, x.b>(env));
    std::int64_t r;
    bool overflow;
    if constexpr (x.oper == op::add) overflow = __builtin_add_overflow(a, b, &r);
    else if constexpr (x.oper == op::sub) overflow = __builtin_sub_overflow(a, b, &r);
    else overflow = __builtin_mul_overflow(a, b, &r);
    if (PARLEY_UNLIKELY(overflow)) int_result_beyond_64_bits<P, At>();
    return r;
}

/// The number of `+` nodes down the left side of node I.
template <class P, std::uint32_t I>
constexpr std::uint32_t add_chain_length() {
    std::uint32_t n = 0;
    for (std::uint32_t i = I; P::prog.nodes[i].kind == nk::binop && P::prog.nodes[i].oper == op::add; i = P::prog.nodes[i].a) ++n;
    return n;
}

/// How a namespace attribute holds a value of type V.
template <class V>
using stored_t = std::conditional_t<is_text<V>, std::string, std::conditional_t<std::is_same_v<V, bool>, bool, std::int64_t>>;

template <class S, class V>
S store(const V& v) {
    if constexpr (std::is_same_v<S, std::string>) return S(std::string_view(v));
    else return static_cast<S>(v);
}

/// The number of arguments filter or test node I passes when all are positional; -1 when it
/// passes a keyword, *args or **kwargs (those calls are left to the run-time engine).
template <class P, std::uint32_t I>
constexpr int positional_count() {
    constexpr std::uint32_t a = P::prog.nodes[I].b;
    if constexpr (a == none) {
        return 0;
    } else {
        constexpr node args = P::prog.nodes[a];
        if constexpr (args.d != 0 || args.e != none || args.f != none) return -1;
        else return static_cast<int>(args.b);
    }
}

/// Argument K of filter or test node I.
template <class P, std::uint32_t I, std::uint32_t K>
inline constexpr std::uint32_t arg_of = P::prog.lists[P::prog.nodes[P::prog.nodes[I].b].a + K];

/// The kind of argument K of filter or test node I, or nk::kwarg when there is no such argument.
template <class P, std::uint32_t I, std::uint32_t K>
constexpr nk arg_kind() {
    if constexpr (positional_count<P, I>() <= static_cast<int>(K)) return nk::kwarg;
    else return P::prog.nodes[arg_of<P, I, K>].kind;
}

/// A typed value that Python's str() prints without a chance of error.
template <class T>
constexpr bool is_printable() {
    if constexpr (is_value<T>) return !raises_when_printed<T>();
    else return false;
}

/// Text, an integer or a boolean: what `default` passes through or gives.
template <class T>
constexpr bool is_scalar = is_text<T> || is_int<T> || std::is_same_v<T, bool>;

/// `tojson` with no argument, or an indent given as an integer literal of at most 64.
template <class P, std::uint32_t I>
constexpr bool small_indent() {
    if constexpr (positional_count<P, I>() == 0) return true;
    else if constexpr (positional_count<P, I>() != 1 || arg_kind<P, I, 0>() != nk::k_int) return false;
    else return P::prog.nodes[arg_of<P, I, 0>].ival <= 64;
}

/// Whether the first argument of filter node I is an expression of text.
template <class P, std::uint32_t I, class E>
constexpr bool text_argument() {
    if constexpr (positional_count<P, I>() < 1) return false;
    else return is_text_expr<P, arg_of<P, I, 0>, E>();
}

/// `x | default(d)` (or `d`) with no second argument: x when it is defined, else d (or '').
/// Computed when x and d are text, integers or booleans, and d has no effect when unused.
template <class P, std::uint32_t I, class E>
decltype(auto) eval_default(const E& env) {
    constexpr node x = P::prog.nodes[I];
    constexpr int argc = positional_count<P, I>();
    if constexpr (argc != 0 && argc != 1) {
        return unknown_t{};
    } else {
        constexpr int state = defined_state<P, x.a, E>();
        constexpr bool arg_ok = [] {
            if constexpr (argc == 0) return true;
            else return is_scalar<plain_t<type_of<P, arg_of<P, I, 0>, E>>>;
        }();
        if constexpr (!arg_ok || state == 3) {
            return unknown_t{};
        } else if constexpr (state == 0) {
            if constexpr (argc == 0) return std::string_view{};
            else return eval<P, arg_of<P, I, 0>>(env);
        } else if constexpr (state == 1) {
            if constexpr (is_scalar<plain_t<type_of<P, x.a, E>>>) return eval<P, x.a>(env);
            else return unknown_t{};
        } else {
            // an optional member, or seq[k] / first / last: its value or the default, as one type
            using V = typename plain_t<type_of<P, x.a, E>>::value_type;
            constexpr nk given = argc == 0 ? nk::k_str : arg_kind<P, I, 0>();
            if constexpr (is_text<V> && given == nk::k_str) {
                const auto& o = eval<P, x.a>(env);
                if (o.has_value()) return std::string_view(*o);
                if constexpr (argc == 0) return std::string_view{};
                else return std::string_view(literal_chars<P, arg_of<P, I, 0>>::view);
            } else if constexpr (is_int<V> && given == nk::k_int) {
                const auto& o = eval<P, x.a>(env);
                return o.has_value() ? static_cast<std::int64_t>(*o) : std::int64_t{P::prog.nodes[arg_of<P, I, 0>].ival};
            } else {
                return unknown_t{};
            }
        }
    }
}

/// The value of keyword argument K of a call whose keywords start at list item C.
template <class P, std::uint32_t C, std::uint32_t K>
inline constexpr std::uint32_t keyword_value = P::prog.nodes[P::prog.lists[C + K]].a;

template <class P, std::uint32_t C, class E, std::uint32_t... K>
decltype(auto) make_namespace_of(const E& env, std::integer_sequence<std::uint32_t, K...>) {
    if constexpr ((is_scalar<plain_t<type_of<P, keyword_value<P, C, K>, E>>> && ...)) {
        using ns = typed_namespace<attribute_symbols<P::prog.nodes[P::prog.lists[C + K]].sym...>,
                                   stored_t<plain_t<type_of<P, keyword_value<P, C, K>, E>>>...>;
        return ns{{store<stored_t<plain_t<type_of<P, keyword_value<P, C, K>, E>>>>(eval<P, keyword_value<P, C, K>>(env))...}};
    } else {
        return unknown_t{};
    }
}

/// `namespace(a=x, b=y)` with strings, integers or booleans: a typed namespace.
template <class P, std::uint32_t I, class E>
decltype(auto) make_namespace(const E& env) {
    constexpr std::uint32_t a = P::prog.nodes[I].b;
    if constexpr (a == none) {
        return typed_namespace<attribute_symbols<>>{};
    } else {
        constexpr node args = P::prog.nodes[a];
        if constexpr (args.b != 0 || args.e != none || args.f != none) return unknown_t{};
        else return make_namespace_of<P, args.c>(env, std::make_integer_sequence<std::uint32_t, args.d>{});
    }
}

}  // namespace parley::jinja::detail::ct

#endif
