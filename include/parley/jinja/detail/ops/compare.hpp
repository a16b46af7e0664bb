// parley/jinja/detail/ops/compare.hpp: Python's comparisons of template values: ==, <, <=, >, >=
// and `in`, across ints of any size, floats, strings and sequences.
#ifndef PARLEY_JINJA_DETAIL_OPS_COMPARE_HPP
#define PARLEY_JINJA_DETAIL_OPS_COMPARE_HPP

#include <parley/jinja/detail/ops/sequence.hpp>

namespace parley::jinja::detail {

// ---- comparison ---------------------------------------------------------------------------------

inline bool is_num(const value& v) noexcept { return v.is_number(); }

bool equals(const value& a, const value& b);

inline bool seq_equals(const value& a, const value& b) {
    check_stack();
    sequence x(a), y(b);
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!equals(x[i], y[i])) return false;
    return true;
}

/// Looks a key up in a mapping-like value with Python equality.
inline bool mapping_find(const value& m, const value& key, value& out) {
    if (m.is_dict()) {
        for (auto& [k, x] : m.dict().items)
            if (equals(k, key)) {
                out = x;
                return true;
            }
        return false;
    }
    if (!key.is_string()) {
        // viewed mappings have string keys only
        return false;
    }
    return m.view_adapter()->find(m.view_object(), key.as_string(), out);
}

/// An int (any size) or bool `i` against a float `d` (not NaN), exactly as Python compares
/// them: -1, 0 or 1.
inline int compare_int_float(const value& i, double d) {
    if (i.is_big_integer()) return compare(i.big_integer(), d);
    const std::int64_t x = i.as_integer();
    if (x >= -(std::int64_t{1} << 53) && x <= (std::int64_t{1} << 53)) {  // exact as a double
        const double xd = static_cast<double>(x);
        return xd < d ? -1 : xd > d ? 1 : 0;
    }
    if (d >= 9223372036854775808.0) return -1;  // (an infinity too)
    if (d < -9223372036854775808.0) return 1;
    const double t = std::trunc(d);
    const auto ti = static_cast<std::int64_t>(t);
    if (x != ti) return x < ti ? -1 : 1;
    return d > t ? -1 : d < t ? 1 : 0;
}

/// Two numbers (ints of any size, bools, floats) compared exactly, as Python does: -1, 0 or 1,
/// or 2 when a NaN leaves them unordered.
inline int compare_numbers(const value& a, const value& b) {
    const bool af = a.is_float(), bf = b.is_float();
    if (af && bf) {
        const double x = a.as_float(), y = b.as_float();
        return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
    }
    if (af || bf) {
        const double d = af ? a.as_float() : b.as_float();
        if (std::isnan(d)) return 2;
        const int c = compare_int_float(af ? b : a, d);
        return af ? -c : c;
    }
    if (a.is_big_integer() || b.is_big_integer()) return compare(big_of(a), big_of(b));
    return a.as_integer() < b.as_integer() ? -1 : a.as_integer() > b.as_integer() ? 1 : 0;
}

/// Python ==.
inline bool equals(const value& a, const value& b) {
    check_strict(a);
    check_strict(b);
    if (is_num(a) && is_num(b)) {
        if (a.kind() == b.kind() && !a.is_float() && !a.is_big_integer()) return a.as_integer() == b.as_integer();
        return compare_numbers(a, b) == 0;
    }
    if (a.is_string() && b.is_string()) return a.as_string() == b.as_string();
    if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
    if (a.is_undefined() || b.is_undefined()) return a.is_undefined() && b.is_undefined();
    // a list, tuple or dict equals itself, as in Python, whose comparison of items starts with
    // their identity
    if ((a.is_list() && b.is_list() && &a.list() == &b.list()) || (a.is_dict() && b.is_dict() && &a.dict() == &b.dict()))
        return true;
    if (a.is_sequence_like() && b.is_sequence_like()) {
        if (same_sequence_type(a, b)) return seq_equals(a, b);
        if (!a.is_list() || !b.is_list()) return false;
        const list_obj &x = a.list(), &y = b.list();
        // keys and items views compare as sets; values views and generators by identity
        if (x.view_name && x.view_name == y.view_name && std::string_view(x.view_name) != "dict_values") {
            if (x.items.size() != y.items.size()) return false;
            for (const value& item : x.items)
                if (std::none_of(y.items.begin(), y.items.end(), [&](const value& other) { return equals(item, other); }))
                    return false;
            return true;
        }
        return &x == &y;
    }
    if (a.is_mapping_like() && b.is_mapping_like()) {
        if (length(a) != length(b)) return false;
        check_stack();
        bool same = true;
        for_each_item(a, [&](const value& k, const value& x) {
            if (!same) return;
            value y;
            if (!mapping_find(b, k, y) || !equals(x, y)) same = false;
        });
        return same;
    }
    if (a.is_object() && b.is_object()) return &a.object() == &b.object();
    return false;
}

inline const char* op_symbol(op o) noexcept {
    switch (o) {
    case op::add: return "+";
    case op::sub: return "-";
    case op::mul: return "*";
    case op::div: return "/";
    case op::floordiv: return "//";
    case op::mod: return "%";
    case op::pow: return "**";
    case op::eq: return "==";
    case op::ne: return "!=";
    case op::lt: return "<";
    case op::lteq: return "<=";
    case op::gt: return ">";
    case op::gteq: return ">=";
    case op::in: return "in";
    case op::notin: return "not in";
    }
    return "?";
}

/// Three-way comparison for <, <=, >, >= and sorting; TypeError where Python has one.
inline int compare(const value& a, const value& b, op o) {
    check_strict(a);
    check_strict(b);
    if (is_num(a) && is_num(b)) {
        const int c = compare_numbers(a, b);
        return c == 2 ? 0 : c;  // (unordered: as before)
    }
    if (a.is_string() && b.is_string()) {
        const int c = a.as_string().compare(b.as_string());
        return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    if (a.is_sequence_like() && b.is_sequence_like() && same_sequence_type(a, b)) {
        check_stack();
        sequence x(a), y(b);
        const std::size_t n = std::min(x.size(), y.size());
        for (std::size_t i = 0; i < n; ++i) {
            if (!equals(x[i], y[i])) return compare(x[i], y[i], o);
        }
        return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
    }
    type_error(std::string("'") + op_symbol(o) + "' not supported between instances of '" + type_name(a) + "' and '" +
               type_name(b) + "'");
}

inline bool compare_holds_general(const value& a, const value& b, op o);

/// Python's a < b, a <= b, a > b or a >= b (`o`): false for every one of them when a NaN leaves
/// two numbers unordered (also as items of two sequences); TypeError where Python has one.
PARLEY_ALWAYS_INLINE bool compare_holds(const value& a, const value& b, op o) {
    if (a.is_integer() && b.is_integer()) {  // the common case, inline
        const std::int64_t x = a.as_integer(), y = b.as_integer();
        switch (o) {
        case op::lt: return x < y;
        case op::lteq: return x <= y;
        case op::gt: return x > y;
        default: return x >= y;
        }
    }
    return compare_holds_general(a, b, o);
}

inline bool compare_holds_general(const value& a, const value& b, op o) {
    int c = 0;
    if (is_num(a) && is_num(b)) {
        c = compare_numbers(a, b);
        if (c == 2) return false;
    } else if (a.is_sequence_like() && b.is_sequence_like() && same_sequence_type(a, b)) {
        check_strict(a);
        check_strict(b);
        check_stack();
        sequence x(a), y(b);
        const std::size_t n = std::min(x.size(), y.size());
        for (std::size_t i = 0; i < n; ++i)
            if (!equals(x[i], y[i])) return compare_holds(x[i], y[i], o);
        c = x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
    } else {
        c = compare(a, b, o);
    }
    switch (o) {
    case op::lt: return c < 0;
    case op::lteq: return c <= 0;
    case op::gt: return c > 0;
    default: return c >= 0;
    }
}

/// Whether `v` is, or holds through lists, dicts and objects, the object `target`. Putting `v`
/// into `target` would then make a cycle, which reference counting never frees: the methods
/// and assignments that change a list, a dict or a namespace refuse it (hold_check). Walks
/// each object once, without recursion; the walks of one render share a budget
/// (limits::max_loop_iterations objects), so that changing a deeply nested value in a loop
/// fails rather than taking quadratic time.
inline bool holds(const value& v, const heap_object* target) {
    std::vector<const value*> todo{&v};
    std::unordered_set<const heap_object*> seen;
    while (!todo.empty()) {
        const value& x = *todo.back();
        todo.pop_back();
        const heap_object* h = x.is_list() ? static_cast<const heap_object*>(&x.list())
                               : x.is_dict()   ? static_cast<const heap_object*>(&x.dict())
                               : x.is_object() ? static_cast<const heap_object*>(&x.object())
                                               : nullptr;
        if (!h) continue;
        if (h == target) return true;
        if (!seen.insert(h).second) continue;
        if (hold_steps_left == 0)
            raise(errc::template_limit, "the checks that no list, dict or namespace holds itself walked more values "
                                        "than the render's limit (limits::max_loop_iterations)");
        --hold_steps_left;
        if (x.is_list()) {
            for (const value& item : x.list().items) todo.push_back(&item);
        } else if (x.is_dict()) {
            for (const auto& [k, item] : x.dict().items) {
                todo.push_back(&k);
                todo.push_back(&item);
            }
        } else {
            x.object().each_held([](void* ctx, const value& item) { static_cast<std::vector<const value*>*>(ctx)->push_back(&item); },
                                 &todo);
        }
    }
    return false;
}

/// Raises errc::template_limit when putting `v` into `target` (a list, dict or namespace,
/// named `what` in the message) would make `target` hold itself. Python allows such cycles
/// (its garbage collector frees them); parley's reference-counted values cannot.
inline void hold_check(const value& v, const heap_object* target, const char* what) {
    if ((v.is_list() || v.is_dict() || v.is_object()) && holds(v, target))
        raise(errc::template_limit, std::string("a ") + what +
                                        " cannot hold itself, directly or through what it holds (parley's values are "
                                        "reference counted, and such a cycle would never be freed)");
}

/// `item in container`.
inline bool contains(const value& container, const value& item) {
    check_strict(container);
    if (container.is_string()) {
        if (!item.is_string())
            type_error(std::string("'in <string>' requires string as left operand, not ") + type_name(item));
        return container.as_string().find(item.as_string()) != std::string_view::npos;
    }
    if (container.is_mapping_like()) {
        // a key is hashed first: a list or a mapping cannot be one
        if (item.is_dict() || item.is_view() || (item.is_sequence_like() && sequence_type(item) == seq_type::list))
            type_error(std::string("unhashable type: '") + type_name(item) + "'");
        value tmp;
        return mapping_find(container, item, tmp);
    }
    if (container.is_undefined()) return false;
    if (container.is_list() && !container.list().generator) {  // (a template list: its items in place)
        if (item.is_string()) {  // (`key in ['name', 'type']`: strings compared without the general equals)
            const std::string_view s = item.as_string();
            for (const value& x : container.list().items)
                if (x.is_string() ? same_text(x.as_string(), s) : equals(x, item)) return true;
            return false;
        }
        for (const value& x : container.list().items)
            if (equals(x, item)) return true;
        return false;
    }
    if (container.is_sequence_like()) {
        sequence s(container);
        for (std::size_t i = 0; i < s.size(); ++i)
            if (equals(s[i], item)) return true;
        return false;
    }
    type_error(std::string("argument of type '") + type_name(container) + "' is not iterable");
}

}  // namespace parley::jinja::detail

#endif
