// parley/jinja/detail/ct/diagnostics.hpp: compile errors of compile-time templates: a name path
// that does not fit the context type, unknown filters and tests, wrong argument counts (the table
// of built-in signatures).
#ifndef PARLEY_JINJA_DETAIL_CT_DIAGNOSTICS_HPP
#define PARLEY_JINJA_DETAIL_CT_DIAGNOSTICS_HPP

#include <parley/jinja/detail/ct/traits.hpp>

namespace parley::jinja::detail::ct {

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

}  // namespace parley::jinja::detail::ct

#endif
