// parley/jinja/compiled.hpp: templates parsed while the program compiles, checked against the
// context type, and rendered by code generated for them.
//
//     using namespace parley::jinja::literals;
//     constexpr auto greet = "Hello {{ user.name }}!"_prompt;
//     std::string s = greet.render(ctx);      // ctx: a described struct (or boost::json::value)
//
// Long templates come through a type that carries the source, which keeps symbol names short:
//
//     struct system_prompt { static constexpr std::string_view value = R"(...)"; };
//     constexpr parley::jinja::compiled_template<system_prompt> sys;
//
// The source is parsed by the run-time engine's constexpr parser; a syntax error is a compile
// error naming the line and the column. Rendering with a described struct checks every name
// path against the struct while compiling (`'nme' is not a member of person (members: name,
// age)`), and, when every statement and expression of the template is in the compiled subset
// (see docs/template-language.md), renders through code generated for this template and this
// context type: members are read directly, strings appended without an intermediate value.
// Any other template (or a boost::json context) renders through the run-time engine, parsed
// once on first use from the same source: the output is the same either way.
// `compiled_template<S>::is_compiled_for<Ctx>` says which of the two a render uses.
#ifndef PARLEY_JINJA_COMPILED_HPP
#define PARLEY_JINJA_COMPILED_HPP

#include <parley/fixed_string.hpp>
#include <parley/jinja.hpp>
#include <parley/jinja/detail/cpp_view.hpp>
#include <parley/jinja/detail/ct_program.hpp>
#include <parley/jinja/detail/builtins.hpp>
#include <parley/jinja/detail/ops.hpp>
#include <parley/type_name.hpp>

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace parley::jinja {

namespace detail::ct {

/// The result of an expression the generated code does not compute (it is not in the
/// compiled subset, or its type is only known at run time).
struct unknown_t {};

// ---- scopes (run time) ---------------------------------------------------------------------------

/// The outermost scope: the context object.
template <class Ctx>
struct root_scope {
    const Ctx& ctx;
};
/// A variable bound by `for` or `set`: symbol Sym is the object v.
template <std::uint32_t Sym, class T, class Up>
struct bound {
    static constexpr std::uint32_t sym = Sym;
    using type = T;
    const T& v;
    const Up& up;
};
/// What `loop` is in a compiled for loop.
struct loop_info {
    std::size_t index0;
    std::size_t length;
};

/// What `namespace(a=..., b=...)` is in the generated code: attribute Syms[k] holds a T[k]
/// (strings as std::string, integers as std::int64_t, booleans), changed by `set ns.a = ...`.
template <std::uint32_t... Syms>
struct attribute_symbols {};
template <class Attrs, class... T>
struct typed_namespace {
    mutable std::tuple<T...> values;
};
template <class T>
struct is_typed_namespace : std::false_type {};
template <class A, class... T>
struct is_typed_namespace<typed_namespace<A, T...>> : std::true_type {};

/// The index of attribute symbol S in a typed namespace, or -1.
template <std::uint32_t S, std::uint32_t... Syms>
constexpr int attribute_index(attribute_symbols<Syms...>) {
    constexpr std::uint32_t syms[] = {Syms..., none};
    for (std::size_t k = 0; k < sizeof...(Syms); ++k)
        if (syms[k] == S) return static_cast<int>(k);
    return -1;
}

/// `seq[k]` with an integer literal k: the element, or none when k is out of range (then it
/// is Jinja's undefined: printed as nothing, false, not defined, an error when read further).
template <class T>
struct item_of {
    using value_type = T;
    const T* p;
    std::int64_t index;  // as written, for the message of a read past the end
    const char* hint = nullptr;  // the message instead (`first` and `last` of an empty sequence)
    bool has_value() const noexcept { return p != nullptr; }
    const T& operator*() const noexcept { return *p; }
};
template <class T>
struct is_item_of : std::false_type {};
template <class T>
struct is_item_of<item_of<T>> : std::true_type {};

/// The text of `x | tojson`. The run-time engine makes it Markup, whose `+` would escape the
/// other operand: the generated code only prints it, binds it and tests its truth.
struct json_markup {
    std::string text;
};

template <class E>
struct is_bound : std::false_type {};
template <std::uint32_t S, class T, class U>
struct is_bound<bound<S, T, U>> : std::true_type {};

template <class E>
struct root_of {
    using type = E;
};
template <std::uint32_t S, class T, class U>
struct root_of<bound<S, T, U>> : root_of<U> {};

// ---- types --------------------------------------------------------------------------------------

template <class T>
using plain_t = std::remove_cvref_t<T>;

template <class T>
constexpr bool is_unknown = std::is_same_v<plain_t<T>, unknown_t>;

template <class T>
constexpr bool is_text = std::is_convertible_v<const T&, std::string_view> && !std::is_pointer_v<T> &&
                         !std::is_array_v<T> && !std::is_same_v<T, std::nullptr_t>;

template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
                        !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t> &&
                        !std::is_same_v<T, wchar_t> && (std::is_signed_v<T> || sizeof(T) < sizeof(std::int64_t));

template <class T>
constexpr bool is_json = std::is_same_v<T, boost::json::value> || std::is_same_v<T, boost::json::object> ||
                         std::is_same_v<T, boost::json::array> || std::is_same_v<T, boost::json::string>;

/// A typed value the generated code prints and tests (loop itself is only read through its
/// attributes).
template <class T>
constexpr bool is_value = !std::is_same_v<T, unknown_t> && !is_json<T> && !std::is_same_v<T, loop_info> &&
                          !is_typed_namespace<T>::value && !is_item_of<T>::value;

/// A sequence the generated code iterates: a range that is not a string, a mapping or JSON.
template <class T>
constexpr bool is_sequence = is_range<T>::value && !is_text<T> && !is_string_map<T>::value && !is_described_struct<T> &&
                             !is_json<T> && !has_view_traits<T>;

/// The element type of a sequence.
template <class Seq>
using elem_t = plain_t<decltype(*std::begin(std::declval<const Seq&>()))>;

template <class T>
using members_of = boost::describe::describe_members<T, boost::describe::mod_public | boost::describe::mod_inherited>;

// The generated code computes with 64-bit integers, and leaves to the run-time engine the
// templates that read a value it does not represent (an unsigned integer beyond the signed
// 64-bit range, a big integer there) or whose reads may raise an error (JSON, types with
// view_traits of their own). The only errors it raises itself are a read past the end of a
// sequence and tojson of a value JSON cannot hold (raise_at, with the run-time engine's message
// and position); a render whose integer arithmetic passes 64 bits is done again by the run-time
// engine, which only templates with such arithmetic carry (may_compute_big_int): the run-time
// engine is not even instantiated for the other templates that take the generated path.

/// Reading a T (a member, an element, a variable) may give a value the generated code does not
/// represent, or raise an error, in the run-time engine.
template <class T>
constexpr bool raises_on_read() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        return std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t);
    } else if constexpr (is_optional<T>::value) {
        return raises_on_read<typename T::value_type>();
    } else if constexpr (is_variant<T>::value) {
        return []<class... A>(std::type_identity<std::variant<A...>>) {
            return (raises_on_read<A>() || ...);
        }(std::type_identity<T>{});
    } else {
        return is_json<T> || has_view_traits<T>;
    }
}

/// Printing a T (Python's str of a list, a dict, an object) may raise: it reads everything
/// inside. Seen lists the types being visited (a recursive type adds nothing new).
template <class T, class... Seen>
constexpr bool raises_when_printed() {
    if constexpr ((std::is_same_v<T, Seen> || ...)) {
        return false;
    } else if constexpr (raises_on_read<T>()) {
        return true;
    } else if constexpr (is_optional<T>::value) {
        return raises_when_printed<typename T::value_type, T, Seen...>();
    } else if constexpr (is_variant<T>::value) {
        return []<class... A>(std::type_identity<std::variant<A...>>) {
            return (raises_when_printed<A, T, Seen...>() || ...);
        }(std::type_identity<T>{});
    } else if constexpr (is_described_struct<T>) {
        return []<template <class...> class L, class... D>(L<D...>) {
            return (raises_when_printed<plain_t<decltype(std::declval<const T&>().*D::pointer)>, T, Seen...>() || ...);
        }(members_of<T>{});
    } else if constexpr (is_string_map<T>::value) {
        return raises_when_printed<typename T::mapped_type, T, Seen...>();
    } else if constexpr (is_range<T>::value && !is_text<T>) {
        return raises_when_printed<plain_t<decltype(*std::begin(std::declval<const T&>()))>, T, Seen...>();
    } else {
        return false;
    }
}

inline constexpr std::size_t no_member = static_cast<std::size_t>(-1);

template <class T>
constexpr std::size_t member_index(std::string_view name) {
    std::size_t found = no_member, k = 0;
    boost::mp11::mp_for_each<members_of<T>>([&](auto d) {
        if (found == no_member && name == std::string_view(d.name)) found = k;
        ++k;
    });
    return found;
}

/// Reading member M of T (a member index, or no_member) may raise an error in the run-time engine.
template <class T, std::size_t M>
constexpr bool member_raises_on_read() {
    if constexpr (M == no_member) return false;
    else return raises_on_read<plain_t<decltype(std::declval<const T&>().*boost::mp11::mp_at_c<members_of<T>, M>::pointer)>>();
}

constexpr bool is_dict_method_name(std::string_view n) {
    constexpr std::string_view names[] = {"clear", "copy", "fromkeys", "get",    "items", "keys",
                                          "pop",   "popitem", "setdefault", "update", "values"};
    for (std::string_view m : names)
        if (m == n) return true;
    return false;
}

/// Names of the plain environment's global functions and the names the engine gives a meaning.
constexpr bool is_global_name(std::string_view n) {
    constexpr std::string_view names[] = {"range",  "dict",    "namespace", "cycler", "joiner",
                                          "lipsum", "loop",    "caller",    "varargs", "kwargs"};
    for (std::string_view m : names)
        if (m == n) return true;
    return false;
}

// ---- compile errors -----------------------------------------------------------------------------

/// A name path that does not fit the context type stops the compiler here. g++ shows Message
/// in full; both compilers show the type, the line and the column as template arguments.
template <class Type, std::uint32_t Line, std::uint32_t Column, fixed_string Message>
constexpr void error_not_a_member_of() {
    static_assert(Message.size() == 0,
                  "parley: a compile-time template names a member its context type does not have (the message, "
                  "line and column are the template arguments above)");
}

template <class T>
constexpr ct_text member_list() {
    ct_text t;
    bool first = true;
    boost::mp11::mp_for_each<members_of<T>>([&](auto d) {
        if (!first) t << ", ";
        first = false;
        t << std::string_view(d.name);
    });
    return t;
}

template <class P, std::uint32_t I, class T>
constexpr ct_text not_a_member_text(std::string_view name) {
    const ct_position at = position_of(P::prog.source_view(), P::prog.nodes[I].pos);
    ct_text t;
    t << "parley: " << at.line << ":" << at.column << ": '" << name << "' is not a member of "
      << parley::type_name<T>() << " (members: ";
    const ct_text list = member_list<T>();
    t << std::string_view(list.data, list.size) << ")";
    return t;
}

template <class P, std::uint32_t I, class T, ct_text Text>
constexpr void report_not_a_member() {
    constexpr ct_position at = position_of(P::prog.source_view(), P::prog.nodes[I].pos);
    error_not_a_member_of<T, at.line, at.column, to_fixed_string<Text>()>();
}

/// Any other fault of a compile-time template (an unknown filter or test, a wrong number of
/// arguments) stops the compiler here; g++ shows Message in full, both compilers the line and
/// the column.
template <std::uint32_t Line, std::uint32_t Column, fixed_string Message>
constexpr void error_in_template() {
    static_assert(Message.size() == 0,
                  "parley: a compile-time template calls an unknown filter or test, or passes it a wrong number "
                  "of arguments (the message, line and column are the template arguments above)");
}

/// A built-in filter or test of environment::plain() and how many arguments it takes besides
/// its input (`many`: any number). tests/jinja/compiled_test.cpp checks the list against the
/// run-time engine's.
struct builtin_signature {
    std::string_view name;
    std::uint8_t min = 0, max = 0;
};
inline constexpr std::uint8_t many = 255;

inline constexpr builtin_signature builtin_filters[] = {
    {"abs", 0, 0},        {"attr", 1, 1},        {"batch", 1, 2},       {"capitalize", 0, 0}, {"center", 0, 1},
    {"count", 0, 0},      {"d", 0, 2},           {"default", 0, 2},     {"dictsort", 0, 3},   {"e", 0, 0},
    {"escape", 0, 0},     {"filesizeformat", 0, 1}, {"first", 0, 0},    {"float", 0, 1},      {"forceescape", 0, 0},
    {"format", 0, many},  {"groupby", 1, 3},     {"indent", 0, 3},      {"int", 0, 2},        {"items", 0, 0},
    {"join", 0, 2},       {"last", 0, 0},        {"length", 0, 0},      {"list", 0, 0},       {"lower", 0, 0},
    {"map", 0, many},     {"max", 0, 2},         {"min", 0, 2},         {"pprint", 0, 0},     {"random", 0, 0},
    {"reject", 0, many},  {"rejectattr", 0, many}, {"replace", 2, 3},   {"reverse", 0, 0},    {"round", 0, 2},
    {"safe", 0, 0},       {"select", 0, many},   {"selectattr", 0, many}, {"slice", 1, 2},    {"sort", 0, 3},
    {"string", 0, 0},     {"striptags", 0, 0},   {"sum", 0, 2},         {"title", 0, 0},      {"tojson", 0, 1},
    {"trim", 0, 1},       {"truncate", 0, 4},    {"unique", 0, 2},      {"upper", 0, 0},      {"urlencode", 0, 0},
    {"urlize", 0, 5},     {"wordcount", 0, 0},   {"wordwrap", 0, 4},    {"xmlattr", 0, 1},
};
inline constexpr builtin_signature builtin_tests[] = {
    {"!=", 1, 1},         {"<", 1, 1},           {"<=", 1, 1},          {"==", 1, 1},         {">", 1, 1},
    {">=", 1, 1},         {"boolean", 0, 0},     {"callable", 0, 0},    {"defined", 0, 0},    {"divisibleby", 1, 1},
    {"eq", 1, 1},         {"equalto", 1, 1},     {"escaped", 0, 0},     {"even", 0, 0},       {"false", 0, 0},
    {"filter", 0, 0},     {"float", 0, 0},       {"ge", 1, 1},          {"greaterthan", 1, 1}, {"gt", 1, 1},
    {"in", 1, 1},         {"integer", 0, 0},     {"iterable", 0, 0},    {"le", 1, 1},         {"lessthan", 1, 1},
    {"lower", 0, 0},      {"lt", 1, 1},          {"mapping", 0, 0},     {"ne", 1, 1},         {"none", 0, 0},
    {"number", 0, 0},     {"odd", 0, 0},         {"sameas", 1, 1},      {"sequence", 0, 0},   {"string", 0, 0},
    {"test", 0, 0},       {"true", 0, 0},        {"undefined", 0, 0},   {"upper", 0, 0},
};

template <std::size_t N>
constexpr const builtin_signature* find_builtin(const builtin_signature (&list)[N], std::string_view name) {
    for (const builtin_signature& b : list)
        if (b.name == name) return &b;
    return nullptr;
}

/// The first filter or test of a program that is unknown or called with a wrong number of
/// arguments, and the message; node `none` when there is none.
struct call_fault {
    std::uint32_t node = none;
    ct_text text;
};

template <class P>
constexpr call_fault find_call_fault() {
    constexpr auto& p = P::prog;
    for (std::uint32_t i = 0; i < p.node_count; ++i) {
        const node& x = p.nodes[i];
        if (x.kind != nk::filter && x.kind != nk::test) continue;
        const bool is_filter = x.kind == nk::filter;
        const std::string_view kind = is_filter ? "filter" : "test";
        const std::string_view name = p.sym_name(x.sym);
        const builtin_signature* b = is_filter ? find_builtin(builtin_filters, name) : find_builtin(builtin_tests, name);
        call_fault f;
        // the position is found only for a fault: position_of scans the source from its start
        auto located = [&]() -> ct_text& {
            const ct_position at = position_of(p.source_view(), x.pos);
            f.node = i;
            return f.text << "parley: " << at.line << ":" << at.column << ": ";
        };
        if (!b) {
            located() << "unknown " << kind << " '" << name << "'";
            return f;
        }
        std::uint32_t given = 0;
        bool spread = false;  // *args or **kwargs: the count is known at render time
        if (x.b != none) {
            const node& a = p.nodes[x.b];
            given = a.b + a.d;
            spread = a.e != none || a.f != none;
        }
        if (!spread && (given < b->min || (b->max != many && given > b->max))) {
            located() << kind << " '" << name << "' takes ";
            if (b->min == b->max) f.text << std::uint32_t{b->min};
            else if (b->max == many) f.text << "at least " << std::uint32_t{b->min};
            else f.text << std::uint32_t{b->min} << " to " << std::uint32_t{b->max};
            f.text << (b->max == 1 && b->min == 1 ? " argument" : " arguments") << " (" << given << " given)";
            return f;
        }
    }
    return {};
}

template <class P>
inline constexpr call_fault call_fault_v = find_call_fault<P>();

/// True when every filter and test of the program is known and given a number of arguments it
/// takes; a compile error otherwise.
template <class P>
constexpr bool check_calls() {
    if constexpr (call_fault_v<P>.node != none) {
        constexpr ct_position at = position_of(P::prog.source_view(), P::prog.nodes[call_fault_v<P>.node].pos);
        error_in_template<at.line, at.column, to_fixed_string<call_fault_v<P>.text>()>();
        return false;
    } else {
        return true;
    }
}

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

}  // namespace detail::ct

/// A template parsed at compile time from `Source::value` (a `static constexpr
/// std::string_view`). An empty class: copy it freely, use it as a constant.
template <class Source, compile_options Options = compile_options{}>
class compiled_template {
    using parsed = detail::ct_parsed<Source, Options>;

    template <class Ctx>
    using scope = detail::ct::root_scope<Ctx>;

    // The size of the latest output of render() with a Ctx: a relaxed atomic, as it is only a hint.
    // A function's constant-initialised static (no guard) rather than a static data member
    // template, on which g++ 13 stops with an internal compiler error (in retrieve_specialization).
    template <class Ctx>
    static std::atomic<std::size_t>& size_hint() noexcept {
        static constinit std::atomic<std::size_t> hint{0};
        return hint;
    }

    template <class Ctx>
    static constexpr bool check() {
        return detail::ct::check_node<parsed, parsed::prog.root, scope<Ctx>>();
    }

public:
    /// Parses the template (at compile time when the object is a constant: a syntax error is
    /// then a compile error).
    constexpr compiled_template() noexcept {
        static_cast<void>(parsed::prog.root);
        static_assert(detail::ct::check_calls<parsed>());
    }

    /// True when rendering with a Ctx runs the code generated for this template (every
    /// statement and expression is in the compiled subset); false when it runs the run-time
    /// engine. Either way the output is the same.
    template <class Ctx>
    static constexpr bool is_compiled_for = [] {
        if constexpr (detail::is_described_struct<Ctx>) return detail::ct::body_ok<parsed, parsed::prog.root, scope<Ctx>>();
        else return false;
    }();

    /// The source as parsed (line ends normalised).
    static constexpr std::string_view source() noexcept { return parsed::prog.source_view(); }
    /// The source as written (`Source::value`).
    static constexpr std::string_view written_source() noexcept { return Source::value; }
    /// The options it is parsed with.
    static constexpr compile_options options = Options;
    /// True for Jinja2's default options, those of the conversation templates: the constexpr
    /// builders of parley/chat/builder.hpp take such a template as a message's text
    /// (`parley::user{greet}`, `parley::text_part{greet}`).
    static constexpr bool has_default_options = !Options.trim_blocks && !Options.lstrip_blocks &&
                                                !Options.keep_trailing_newline && !Options.loop_controls;

    /// The source as written, for the builders' text parts.
    constexpr operator std::string_view() const noexcept
        requires has_default_options
    {
        return Source::value;
    }

    /// Renders with a context: a described struct (checked at compile time), a
    /// boost::json::value or object, or anything the run-time engine accepts. Throws
    /// template_error on a render error.
    template <class Ctx>
    std::string render(const Ctx& ctx) const {
        std::string out;
        if constexpr (is_compiled_for<Ctx>) {
            // allocated once, at the size of the previous output with this context type (the
            // run-time engine keeps the same hint)
            out.reserve(size_hint<Ctx>().load(std::memory_order_relaxed));
            render_to(out, ctx);
            size_hint<Ctx>().store(out.size(), std::memory_order_relaxed);
        } else {
            render_to(out, ctx);
        }
        return out;
    }

    /// Appends the output to `out`; on an error, `out` is left as it was.
    template <class Ctx>
    void render_to(std::string& out, const Ctx& ctx) const {
        if constexpr (detail::is_described_struct<Ctx>) static_assert(check<Ctx>());
        if constexpr (is_compiled_for<Ctx>) {
            // The generated code raises the run-time engine's read past the end of a sequence
            // and tojson of what JSON cannot hold (the templates whose values could raise another
            // take the run-time engine); they and std::bad_alloc leave `out` as it was. A render
            // whose integers pass the 64-bit range is done again by the run-time engine.
            const std::size_t size = out.size();
            try {
                detail::ct::run_body<parsed, parsed::prog.root>(out, scope<Ctx>{ctx});
            } catch (const detail::ct::int_beyond_64_bits&) {
                out.resize(size);
                if constexpr (detail::ct::may_compute_big_int<parsed>()) runtime().render_to(out, ctx);
            } catch (...) {
                out.resize(size);
                throw;
            }
        } else {
            runtime().render_to(out, ctx);
        }
    }

    /// The same template parsed by the run-time engine (on first use), for the renders the
    /// generated code does not do.
    static const parsed_template& runtime() {
        static const parsed_template t = detail::ct::parse_at_run_time(Source::value, Options);
        return t;
    }
};

namespace detail::ct {
template <fixed_string S>
struct literal_source {
    static constexpr std::string_view value = S.view();
};
}  // namespace detail::ct

/// A compile-time template written inline: `parley::jinja::prompt<"Hello {{ name }}!">`.
template <fixed_string S, compile_options Options = compile_options{}>
inline constexpr compiled_template<detail::ct::literal_source<S>, Options> prompt{};

namespace literals {
/// `"Hello {{ name }}!"_prompt`: a compile-time template.
template <fixed_string S>
constexpr auto operator""_prompt() noexcept {
    return prompt<S>;
}
}  // namespace literals

}  // namespace parley::jinja

#endif
