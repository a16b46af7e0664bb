// parley/jinja/detail/ct/calls.hpp: the string methods, filters and tests the generated code
// computes (with the run-time engine's functions), `is defined`, and Python truth.
#ifndef PARLEY_JINJA_DETAIL_CT_CALLS_HPP
#define PARLEY_JINJA_DETAIL_CT_CALLS_HPP

#include <parley/jinja/detail/ct/evaluation.hpp>

namespace parley::jinja::detail::ct {

/// The string methods the generated code computes (`s.strip()`, `s.startswith(p)`...), with the
/// run-time engine's functions.
template <class P, std::uint32_t I, class E>
decltype(auto) eval_method(const E& env) {
    constexpr node x = P::prog.nodes[I];
    constexpr node callee = P::prog.nodes[x.a];
    if constexpr (callee.kind == nk::name) {
        if constexpr (P::prog.sym_name(callee.sym) == "namespace" && name_state<P, callee.sym, E>() == 2 &&
                      !assigned_v<P>[callee.sym])
            return make_namespace<P, I>(env);
        else
            return unknown_t{};
    } else if constexpr (callee.kind != nk::getattr) {
        return unknown_t{};
    } else {
        using R = decltype(eval<P, callee.a>(std::declval<const E&>()));
        constexpr std::string_view name = P::prog.sym_name(callee.sym);
        constexpr int argc = positional_count<P, I>();
        if constexpr (!is_text<plain_t<R>>) {
            return unknown_t{};
        } else if constexpr (argc == 0 && (name == "strip" || name == "lstrip" || name == "rstrip")) {
            const auto& in = eval<P, callee.a>(env);
            const std::string_view r = py_strip(std::string_view(in), std::nullopt, name != "rstrip", name != "lstrip");
            // a view of the input when the input outlives the expression, else a copy
            if constexpr (std::is_reference_v<R> || std::is_same_v<plain_t<R>, std::string_view>) return r;
            else return std::string(r);
        } else if constexpr (argc == 0 && (name == "upper" || name == "lower")) {
            const auto& in = eval<P, callee.a>(env);
            std::string r;
            if constexpr (name == "upper") py_upper(r, std::string_view(in));
            else py_lower(r, std::string_view(in));
            return r;
        } else if constexpr (argc == 1 && (name == "startswith" || name == "endswith") && text_argument<P, I, E>()) {
            const auto& in = eval<P, callee.a>(env);
            const auto& affix = eval<P, arg_of<P, I, 0>>(env);
            const std::string_view s(in), a(affix);
            if constexpr (name == "startswith") return s.substr(0, a.size()) == a;
            else return s.size() >= a.size() && s.substr(s.size() - a.size()) == a;
        } else {
            return unknown_t{};
        }
    }
}

/// The filters the generated code computes, with the run-time engine's functions.
template <class P, std::uint32_t I, class E>
decltype(auto) eval_filter(const E& env) {
    constexpr node x = P::prog.nodes[I];
    constexpr std::string_view name = P::prog.sym_name(x.sym);
    constexpr int argc = positional_count<P, I>();
    if constexpr (name == "default" || name == "d") {
        return eval_default<P, I>(env);
    } else {
        using T = plain_t<type_of<P, x.a, E>>;
        if constexpr (argc == 0 && (name == "length" || name == "count")) {
            if constexpr (is_sequence<T> || is_string_map<T>::value) {
                return static_cast<std::int64_t>(std::size(eval<P, x.a>(env)));
            } else if constexpr (is_text<T>) {
                const auto& in = eval<P, x.a>(env);  // may be a string made by a filter: kept alive here
                std::int64_t n = 0;  // Python's len(): code points
                for (char c : std::string_view(in)) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
                return n;
            } else if constexpr (is_described_struct<T>) {
                return static_cast<std::int64_t>(boost::mp11::mp_size<members_of<T>>::value);
            } else {
                return unknown_t{};
            }
        } else if constexpr (argc == 0 && is_text<T> &&
                             (name == "upper" || name == "lower" || name == "capitalize" || name == "title" ||
                              name == "trim")) {
            const auto& in = eval<P, x.a>(env);
            const std::string_view s(in);
            std::string r;
            if constexpr (name == "upper") py_upper(r, s);
            else if constexpr (name == "lower") py_lower(r, s);
            else if constexpr (name == "capitalize") jinja_capitalize(r, s);
            else if constexpr (name == "title") jinja_title(r, s);
            else r.assign(py_strip(s, std::nullopt, true, true));
            return r;
        } else if constexpr (argc == 2 && name == "replace" && is_text<T>) {
            if constexpr (is_text_expr<P, arg_of<P, I, 0>, E>() && is_text_expr<P, arg_of<P, I, 1>, E>()) {
                const auto& in = eval<P, x.a>(env);
                const auto& from = eval<P, arg_of<P, I, 0>>(env);
                const auto& to = eval<P, arg_of<P, I, 1>>(env);
                std::string r;
                py_replace(r, std::string_view(in), std::string_view(from), std::string_view(to), -1);
                return r;
            } else {
                return unknown_t{};
            }
        } else if constexpr (argc == 0 && (name == "first" || name == "last") && is_sequence<T>) {
            // the first or last element, or Jinja's undefined with the run-time engine's message
            if constexpr (!is_readable_element<T>() || (name == "last" && !is_random_access_sequence<T>())) {
                return unknown_t{};
            } else if constexpr (name == "first") {
                return item_at(eval<P, x.a>(env), 0, "No first item, sequence was empty.");
            } else {
                return item_at(eval<P, x.a>(env), -1, "No last item, sequence was empty.");
            }
        } else if constexpr (name == "tojson" && is_printable<T>() && !std::is_same_v<T, json_markup> &&
                             small_indent<P, I>()) {
            // environment::plain()'s tojson: sorted keys, HTML-safe; an indent given as a literal
            dump_options o;
            o.sort_keys = true;
            if constexpr (argc == 1) {
                constexpr std::int64_t width = P::prog.nodes[arg_of<P, I, 0>].ival;
                o.indent = std::string(static_cast<std::size_t>(width < 0 ? 0 : width), ' ');
                o.item_sep = ",";
            }
            const auto& in = eval<P, x.a>(env);
            try {
                return json_markup{filters::tojson_plain(cpp_view(in), o, limits{}.max_output)};
            } catch (const eval_error& e) {
                raise_at<P, I>(e.code, e.message);  // what the run-time engine reports, where it does
            }
        } else if constexpr (argc == 0 && name == "string" && is_printable<T>()) {
            std::string r;
            put(r, eval<P, x.a>(env));
            return r;
        } else if constexpr ((argc == 0 || argc == 1) && name == "join" && is_sequence<T>) {
            if constexpr (!is_printable<elem_t<T>>() || raises_on_read<elem_t<T>>()) {
                return unknown_t{};
            } else if constexpr (argc == 1 && !text_argument<P, I, E>()) {
                return unknown_t{};
            } else {
                const auto& seq = eval<P, x.a>(env);
                std::string r;
                auto join_with = [&](std::string_view sep) {
                    bool first = true;
                    for (const auto& item : seq) {
                        if (!first) r.append(sep);
                        first = false;
                        put(r, item);
                    }
                };
                if constexpr (argc == 1) {
                    const auto& sep = eval<P, arg_of<P, I, 0>>(env);
                    join_with(std::string_view(sep));
                } else {
                    join_with({});
                }
                return r;
            }
        } else {
            return unknown_t{};
        }
    }
}

template <class P, std::uint32_t I, class E>
decltype(auto) eval(const E& env) {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::k_str) {
        return literal_chars<P, I>::view;
    } else if constexpr (x.kind == nk::k_int) {
        return std::int64_t{x.ival};
    } else if constexpr (x.kind == nk::k_bigint) {
        return unknown_t{};  // an integer literal beyond 64 bits: the run-time engine's
    } else if constexpr (x.kind == nk::k_true) {
        return true;
    } else if constexpr (x.kind == nk::k_false) {
        return false;
    } else if constexpr (x.kind == nk::k_none) {
        return nullptr;
    } else if constexpr (x.kind == nk::name) {
        return lookup<P, x.sym, I>(env);
    } else if constexpr ((x.kind == nk::getattr || x.kind == nk::getitem) && is_string_key<P, I>()) {
        using R = type_of<P, x.a, E>;
        if constexpr (is_unknown<R>) return unknown_t{};
        else return member_of<P, I>(eval<P, x.a>(env));
    } else if constexpr (is_int_subscript<P, I>()) {
        using T = plain_t<type_of<P, x.a, E>>;
        if constexpr (is_random_access_sequence<T>() && is_readable_element<T>()) return item_at(eval<P, x.a>(env), subscript_value<P, I>());
        else return unknown_t{};
    } else if constexpr (x.kind == nk::binop && (x.oper == op::add || x.oper == op::sub || x.oper == op::mul)) {
        if constexpr (x.oper == op::add && is_text_expr<P, x.a, E>() && is_text_expr<P, x.b, E>()) {
            const auto& left = eval<P, x.a>(env);
            const auto& right = eval<P, x.b>(env);
            const std::string_view a(left), b(right);
            std::string r;
            r.reserve(a.size() + b.size());
            r.append(a);
            r.append(b);
            return r;
        } else if constexpr (is_int<plain_t<type_of<P, x.a, E>>> && is_int<plain_t<type_of<P, x.b, E>>>) {
            return int_arith<P, I, I, false>(env);
        } else {
            (void)sizeof(type_of<P, x.a, E>);
            (void)sizeof(type_of<P, x.b, E>);
            return unknown_t{};
        }
    } else if constexpr (x.kind == nk::filter && x.a != none) {
        return eval_filter<P, I>(env);
    } else if constexpr (x.kind == nk::call) {
        return eval_method<P, I>(env);
    } else if constexpr (x.kind == nk::neg && P::prog.nodes[x.a].kind == nk::k_int && P::prog.nodes[x.a].ival >= 0) {
        return std::int64_t{-P::prog.nodes[x.a].ival};
    } else if constexpr (x.kind == nk::neg) {
        if constexpr (is_int<plain_t<type_of<P, x.a, E>>>) {
            const auto v = static_cast<std::int64_t>(eval<P, x.a>(env));
            if (PARLEY_UNLIKELY(v == std::numeric_limits<std::int64_t>::min())) int_result_beyond_64_bits<P, I>();
            return std::int64_t{-v};
        } else {
            return unknown_t{};
        }
    } else if constexpr (x.kind == nk::binop && (x.oper == op::mod || x.oper == op::floordiv)) {
        // by a positive integer literal: no error to raise (Python's floor division and modulo)
        using A = plain_t<type_of<P, x.a, E>>;
        constexpr node d = P::prog.nodes[x.b];
        if constexpr (is_int<A> && d.kind == nk::k_int && d.ival > 0) {
            const auto a = static_cast<std::int64_t>(eval<P, x.a>(env));
            std::int64_t q = a / d.ival, m = a % d.ival;
            if (m < 0) {
                m += d.ival;
                --q;
            }
            return std::int64_t{x.oper == op::mod ? m : q};
        } else {
            (void)sizeof(type_of<P, x.b, E>);
            return unknown_t{};
        }
    } else if constexpr (x.kind == nk::not_ || x.kind == nk::compare || x.kind == nk::test) {
        // (`a and b` and `a or b` are values of an operand, not booleans: only tests compute them)
        if constexpr (truth_ok<P, I, E>()) return truth<P, I>(env);
        else return unknown_t{};
    } else {
        return unknown_t{};
    }
}

/// Whether an expression in a test position (`if`, `and`, `not`...) is computed by the
/// generated code.
template <class P, std::uint32_t I, class E>
constexpr bool truth_ok() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::and_ || x.kind == nk::or_) {
        return truth_ok<P, x.a, E>() && truth_ok<P, x.b, E>();
    } else if constexpr (x.kind == nk::not_) {
        return truth_ok<P, x.a, E>();
    } else if constexpr (x.kind == nk::compare) {
        if constexpr (x.c != 1) {
            return false;
        } else {
            constexpr node o = P::prog.nodes[P::prog.lists[x.b + 0]];
            using A = plain_t<type_of<P, x.a, E>>;
            using B = plain_t<type_of<P, o.a, E>>;
            if constexpr (o.oper == op::eq || o.oper == op::ne) return comparable<A, B>;
            else if constexpr (o.oper == op::in || o.oper == op::notin) return is_text<A> && text_container<B>();
            else return ordered<A, B>;
        }
    } else if constexpr (x.kind == nk::test) {
        constexpr std::string_view name = P::prog.sym_name(x.sym);
        constexpr int argc = positional_count<P, I>();
        if constexpr (argc == 0 && (name == "defined" || name == "undefined")) {
            return defined_state<P, x.a, E>() != 3;
        } else if constexpr (argc == 0 && name == "none") {
            return is_value<plain_t<type_of<P, x.a, E>>>;
        } else if constexpr (argc == 0 && (name == "odd" || name == "even")) {
            return is_int<plain_t<type_of<P, x.a, E>>>;
        } else if constexpr (argc == 1 && name == "divisibleby") {
            // by a positive integer literal: no error to raise
            constexpr node d = P::prog.nodes[arg_of<P, I, 0>];
            return is_int<plain_t<type_of<P, x.a, E>>> && d.kind == nk::k_int && d.ival > 0;
        } else {
            return false;
        }
    } else {
        using T = plain_t<type_of<P, I, E>>;
        if constexpr (is_item_of<T>::value) return is_value<plain_t<decltype(*std::declval<T>().p)>>;
        else return is_value<T>;
    }
}

/// For `is defined`: 0 not defined, 1 defined, 2 defined when an optional holds a value (known
/// at run time), 3 not computed here. A missing name or member is not an error here.
template <class P, std::uint32_t I, class E>
constexpr int defined_state() {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::name) {
        constexpr int s = name_state<P, x.sym, E>();
        if constexpr (s == 0) return 0;
        else if constexpr (s == 2) return 3;
        else if constexpr (is_optional<plain_t<type_of<P, I, E>>>::value || is_item_of<plain_t<type_of<P, I, E>>>::value) return 2;
        else if constexpr (is_unknown<type_of<P, I, E>>) return 3;
        else return 1;
    } else if constexpr ((x.kind == nk::getattr || x.kind == nk::getitem) && is_string_key<P, I>()) {
        constexpr int up = defined_state<P, x.a, E>();
        if constexpr (up != 1) {
            return 3;  // an attribute of something undefined is an error in Jinja
        } else {
            using T = plain_t<type_of<P, x.a, E>>;
            constexpr std::string_view name = key_name<P>(x);
            if constexpr (!is_described_struct<T> || (x.kind == nk::getattr && is_dict_method_name(name))) return 3;
            else if constexpr (member_index<T>(name) == no_member) return 0;
            else if constexpr (is_optional<plain_t<type_of<P, I, E>>>::value) return 2;
            else return 1;
        }
    } else if constexpr (is_int_subscript<P, I>() ||
                         (x.kind == nk::filter && x.a != none && positional_count<P, I>() == 0 &&
                          (P::prog.sym_name(x.sym) == "first" || P::prog.sym_name(x.sym) == "last"))) {
        // seq[k], seq|first, seq|last: undefined when the sequence is too short
        if constexpr (defined_state<P, x.a, E>() == 1 && is_item_of<plain_t<type_of<P, I, E>>>::value) return 2;
        else return 3;
    } else {
        return 3;
    }
}

template <class P, std::uint32_t I, class E>
bool is_defined(const E& env) {
    constexpr int s = defined_state<P, I, E>();
    if constexpr (s == 0) return false;
    else if constexpr (s == 1) return true;
    else return eval<P, I>(env).has_value();
}

/// Python truth of a typed value.
template <class T>
bool truth_of(const T& v) {
    if constexpr (is_item_of<T>::value) return v.p && truth_of(*v.p);
    else if constexpr (std::is_same_v<T, json_markup>) return !v.text.empty();
    else if constexpr (std::is_same_v<T, bool>) return v;
    else if constexpr (is_int<T>) return v != 0;
    else if constexpr (is_text<T>) return !std::string_view(v).empty();
    else if constexpr (std::is_same_v<T, std::nullptr_t>) return false;
    else if constexpr (is_sequence<T>) return std::begin(v) != std::end(v);
    else return truthy(cpp_view(v));
}

template <class P, std::uint32_t I, class E>
bool truth(const E& env) {
    constexpr node x = P::prog.nodes[I];
    if constexpr (x.kind == nk::and_) {
        return truth<P, x.a>(env) && truth<P, x.b>(env);
    } else if constexpr (x.kind == nk::or_) {
        return truth<P, x.a>(env) || truth<P, x.b>(env);
    } else if constexpr (x.kind == nk::not_) {
        return !truth<P, x.a>(env);
    } else if constexpr (x.kind == nk::compare) {
        constexpr node o = P::prog.nodes[P::prog.lists[x.b + 0]];
        const auto& a = eval<P, x.a>(env);
        const auto& b = eval<P, o.a>(env);
        using A = plain_t<decltype(a)>;
        using B = plain_t<decltype(b)>;
        if constexpr (o.oper == op::in || o.oper == op::notin) {
            bool found = false;
            if constexpr (is_text<B>) {
                found = std::string_view(b).find(std::string_view(a)) != std::string_view::npos;
            } else {
                for (const auto& item : b) {
                    if (std::string_view(item) == std::string_view(a)) {
                        found = true;
                        break;
                    }
                }
            }
            return o.oper == op::in ? found : !found;
        } else if constexpr (o.oper == op::eq || o.oper == op::ne) {
            bool eq;
            if constexpr (std::is_same_v<B, std::nullptr_t>) eq = is_none_value(a);
            else if constexpr (std::is_same_v<A, std::nullptr_t>) eq = is_none_value(b);
            else if constexpr (is_text<A>) eq = std::string_view(a) == std::string_view(b);
            else if constexpr (is_int<A>) eq = std::cmp_equal(a, b);
            else eq = a == b;
            return o.oper == op::eq ? eq : !eq;
        } else {
            int c;  // -1, 0, 1
            if constexpr (is_text<A>) {
                const int r = std::string_view(a).compare(std::string_view(b));
                c = r < 0 ? -1 : r > 0 ? 1 : 0;
            } else {
                c = std::cmp_less(a, b) ? -1 : std::cmp_equal(a, b) ? 0 : 1;
            }
            if constexpr (o.oper == op::lt) return c < 0;
            else if constexpr (o.oper == op::lteq) return c <= 0;
            else if constexpr (o.oper == op::gt) return c > 0;
            else return c >= 0;
        }
    } else if constexpr (x.kind == nk::test) {
        constexpr std::string_view name = P::prog.sym_name(x.sym);
        bool r;
        if constexpr (name == "defined" || name == "undefined") {
            r = is_defined<P, x.a>(env);
            if constexpr (name == "undefined") r = !r;
        } else if constexpr (name == "odd" || name == "even") {
            const bool odd = static_cast<std::int64_t>(eval<P, x.a>(env)) % 2 != 0;
            r = name == "odd" ? odd : !odd;
        } else if constexpr (name == "divisibleby") {
            r = static_cast<std::int64_t>(eval<P, x.a>(env)) % P::prog.nodes[arg_of<P, I, 0>].ival == 0;
        } else {
            r = is_none_value(eval<P, x.a>(env));
        }
        return (x.flags & flag_negated) ? !r : r;
    } else {
        return truth_of(eval<P, I>(env));
    }
}

}  // namespace parley::jinja::detail::ct

#endif
