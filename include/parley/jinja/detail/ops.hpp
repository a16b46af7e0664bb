// parley/jinja/detail/ops.hpp: Python semantics of values: str/repr, truth, comparison,
// arithmetic, length, iteration and subscription.
#ifndef PARLEY_JINJA_DETAIL_OPS_HPP
#define PARLEY_JINJA_DETAIL_OPS_HPP

#include <parley/jinja/arguments.hpp>
#include <parley/jinja/detail/ast.hpp>
#include <parley/jinja/detail/pystr.hpp>
#include <parley/jinja/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace parley::jinja::detail {

/// Python type name of a value, for messages.
inline const char* type_name(const value& v) noexcept {
    switch (v.kind()) {
    case value_kind::undefined: return "Undefined";
    case value_kind::none: return "NoneType";
    case value_kind::boolean: return "bool";
    case value_kind::integer: return "int";
    case value_kind::floating: return "float";
    case value_kind::string: return v.is_markup() ? "Markup" : "str";
    case value_kind::list:
        if (v.list().view_name) return v.list().view_name;
        return v.list().generator ? "generator" : v.list().tuple ? "tuple" : "list";
    case value_kind::dict: return "dict";
    case value_kind::view: return v.view_adapter()->type_name;
    case value_kind::object: return v.object().type_name();
    case value_kind::big_integer: return "int";
    }
    return "object";
}

/// Python's type of a sequence, as far as operators care: `+`, `*`, `<` and `==` between
/// sequences only mix lists with lists and tuples with tuples; a generator or a dict view
/// (`other`) takes part in none of them.
enum class seq_type { list, tuple, other };
inline seq_type sequence_type(const value& v) noexcept {
    if (!v.is_list()) return seq_type::list;  // viewed sequences (JSON arrays, vectors) are lists
    const list_obj& l = v.list();
    if (l.generator || l.view_name) return seq_type::other;
    return l.tuple ? seq_type::tuple : seq_type::list;
}
/// `a` and `b` are sequences of the same type, lists or tuples.
inline bool same_sequence_type(const value& a, const value& b) noexcept {
    const seq_type t = sequence_type(a);
    return t != seq_type::other && t == sequence_type(b);
}

inline std::string single_quoted(std::string_view s) {
    std::string r;
    py_str_repr(r, s);
    return r;
}

/// Raises the error an undefined value gives when it is used.
[[noreturn]] inline void fail_undefined(const value& u) {
    std::string m;
    const std::string_view name = u.undefined_name();
    switch (u.undefined_form()) {
    case undefined_form::name: m = single_quoted(name) + " is undefined"; break;
    case undefined_form::attribute:
        m = "'" + std::string(u.undefined_type() ? u.undefined_type() : "object") + " object' has no attribute " +
            single_quoted(name);
        break;
    case undefined_form::item:
        m = std::string(u.undefined_type() ? u.undefined_type() : "object") + " object has no element " +
            std::to_string(u.undefined_index());
        break;
    case undefined_form::hint: m = std::string(name); break;
    default: m = "undefined value"; break;
    }
    raise(errc::template_undefined, std::move(m));
}

inline void check_strict(const value& v) {
    if (v.is_strict_undefined()) fail_undefined(v);
}

[[noreturn]] inline void type_error(std::string m) { raise(errc::template_type, std::move(m)); }

void append_repr(std::string& out, const value& v, bool sorted_keys = false);

inline void append_int(std::string& out, std::int64_t i) {
    char buf[24];
    char* e = buf + sizeof buf;
    char* p = e;
    std::uint64_t u = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
    } while (u);
    if (i < 0) *--p = '-';
    out.append(p, static_cast<std::size_t>(e - p));
}

// ---- integers beyond 64 bits ---------------------------------------------------------------------

/// The template value of an integer: an `integer` within the 64-bit range, else a big_integer.
inline value make_int(bigint n) {
    std::int64_t i = 0;
    if (n.to_int64(i)) return value(static_cast<long long>(i));
    if (n.bit_length() > max_int_bits)
        raise(errc::template_limit, "integer result too large (more than " + std::to_string(max_int_bits) + " bits)");
    return value::big(std::move(n));
}

/// An int, a bool or a big integer as a bigint.
inline bigint big_of(const value& v) {
    if (v.is_big_integer()) return v.big_integer();
    return bigint(v.as_integer());
}

/// Whether v is an int (any size) or a bool: Python's int.
inline bool is_int_like(const value& v) noexcept { return v.is_integer() || v.is_bool() || v.is_big_integer(); }

/// Python's float(v) of a number; an int too large for a double is Python's OverflowError.
inline double float_value(const value& v) {
    if (!v.is_big_integer()) return v.as_number();
    double d = 0;
    if (!v.big_integer().to_double(d)) raise(errc::template_value, "int too large to convert to float");
    return d;
}

/// The decimal digits of a big integer, as Python's str(); past Python's limit on the digits of
/// an int converted to text, its ValueError.
inline void append_big_int(std::string& out, const bigint& n) {
    const std::string digits = n.to_string(10);
    if (digits.size() - (n.negative() ? 1 : 0) > max_int_str_digits)
        raise(errc::template_value, "Exceeds the limit (" + std::to_string(max_int_str_digits) +
                                        " digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit");
    out += digits;
}

/// Python str(v).
inline void append_str(std::string& out, const value& v) {
    switch (v.kind()) {
    case value_kind::string: out += v.as_string(); return;
    case value_kind::undefined: check_strict(v); return;
    case value_kind::integer: append_int(out, v.as_integer()); return;
    case value_kind::big_integer: append_big_int(out, v.big_integer()); return;
    case value_kind::floating: py_float_repr(out, v.as_float()); return;
    default: append_repr(out, v); return;
    }
}

inline std::string to_str(const value& v) {
    std::string s;
    append_str(s, v);
    return s;
}

/// Calls fn(a, b) for every entry of a viewed container through its adapter's `each`.
template <class F>
void adapter_each(const adapter* ad, const void* o, F& fn) {
    ad->each(o, &fn, [](void* ctx, const value& a, const value& b) { (*static_cast<F*>(ctx))(a, b); });
}

/// Calls fn(key, value) for each entry of a mapping-like value, in order.
template <class F>
void for_each_item(const value& m, F&& fn) {
    if (m.is_dict()) {
        for (auto& [k, x] : m.dict().items) fn(k, x);
    } else {
        const adapter* ad = m.view_adapter();
        const void* o = m.view_object();
        if (ad->each) {
            adapter_each(ad, o, fn);
            return;
        }
        const std::size_t n = ad->size(o);
        for (std::size_t i = 0; i < n; ++i) fn(ad->at(o, i), ad->value_at(o, i));
    }
}

/// Python repr(v).
/// Raises errc::template_limit when the text of a value being printed has passed the render's
/// output size limit.
inline void check_text_size(const std::string& out) {
    if (out.size() > text_limit) [[unlikely]]
        raise(errc::template_limit, "the text of a value exceeds the output size limit (" + std::to_string(text_limit) +
                                        " bytes)");
}

int compare(const value& a, const value& b, op o = op::lt);

/// The (key, value) pairs of a mapping; with `sorted_keys`, in the order pprint writes them:
/// sorted when the keys are all strings or all numbers, otherwise as they come.
inline std::vector<std::pair<value, value>> mapping_items(const value& v, bool sorted_keys) {
    std::vector<std::pair<value, value>> items;
    bool strings = true, numbers = true;
    for_each_item(v, [&](const value& k, const value& x) {
        strings = strings && k.is_string();
        numbers = numbers && k.is_number();
        items.emplace_back(k, x);
    });
    if (sorted_keys && (strings || numbers)) {
        std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
            return strings ? a.first.as_string() < b.first.as_string() : compare(a.first, b.first) < 0;
        });
    }
    return items;
}

/// repr(v); with `sorted_keys`, as pprint writes it: the keys of each mapping in order when they
/// are all strings or all numbers (pprint sorts them), otherwise as they come.
inline void append_repr(std::string& out, const value& v, bool sorted_keys) {
    switch (v.kind()) {
    case value_kind::undefined:  // Undefined.__repr__ (a list holding one prints [Undefined])
        check_strict(v);
        out += "Undefined";
        return;
    case value_kind::none: out += "None"; return;
    case value_kind::boolean: out += v.as_bool() ? "True" : "False"; return;
    case value_kind::integer: append_int(out, v.as_integer()); return;
    case value_kind::big_integer: append_big_int(out, v.big_integer()); return;
    case value_kind::floating: py_float_repr(out, v.as_float()); return;
    case value_kind::string:
        if (v.is_markup()) {
            out += "Markup(";
            py_str_repr(out, v.as_string());
            out += ')';
        } else {
            py_str_repr(out, v.as_string());
        }
        return;
    case value_kind::list: {
        const auto& l = v.list();
        if (l.generator) {
            out += "<generator object>";
            return;
        }
        check_stack();
        if (l.view_name) {
            out += l.view_name;
            out += '(';
        }
        out += l.tuple ? '(' : '[';
        for (std::size_t i = 0; i < l.items.size(); ++i) {
            if (i) out += ", ";
            append_repr(out, l.items[i], sorted_keys);
            check_text_size(out);
        }
        if (l.tuple && l.items.size() == 1) out += ',';
        out += l.tuple ? ')' : ']';
        if (l.view_name) out += ')';
        return;
    }
    case value_kind::view:
        check_stack();
        if (v.view_adapter()->shape == view_shape::sequence) {
            const adapter* ad = v.view_adapter();
            out += '[';
            bool first = true;
            auto item = [&](const value& x, const value&) {
                if (!first) out += ", ";
                first = false;
                append_repr(out, x, sorted_keys);
                check_text_size(out);
            };
            if (ad->each) {
                adapter_each(ad, v.view_object(), item);
            } else {
                const std::size_t n = ad->size(v.view_object());
                for (std::size_t i = 0; i < n; ++i) item(ad->at(v.view_object(), i), value());
            }
            out += ']';
            return;
        }
        [[fallthrough]];
    case value_kind::dict: {
        check_stack();
        const auto items = mapping_items(v, sorted_keys);
        out += '{';
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) out += ", ";
            append_repr(out, items[i].first, sorted_keys);
            out += ": ";
            append_repr(out, items[i].second, sorted_keys);
            check_text_size(out);
        }
        out += '}';
        return;
    }
    case value_kind::object: v.object().repr(out); return;
    }
}

inline std::string to_repr(const value& v) {
    std::string s;
    append_repr(s, v);
    return s;
}

/// len(v); undefined has length 0.
inline std::size_t length(const value& v) {
    switch (v.kind()) {
    case value_kind::string: return utf8_length(v.as_string());
    case value_kind::list:
        if (v.list().generator) type_error("object of type 'generator' has no len()");
        return v.list().items.size();
    case value_kind::dict: return v.dict().items.size();
    case value_kind::view: return v.view_adapter()->size(v.view_object());
    case value_kind::undefined: check_strict(v); return 0;
    default: type_error(std::string("object of type '") + type_name(v) + "' has no len()");
    }
}

/// Python truth value.
inline bool truthy(const value& v) {
    switch (v.kind()) {
    case value_kind::undefined: check_strict(v); return false;
    case value_kind::none: return false;
    case value_kind::boolean:
    case value_kind::integer: return v.as_integer() != 0;
    case value_kind::floating: return v.as_float() != 0.0;
    case value_kind::string: return v.as_string().size() != 0;
    case value_kind::list: return v.list().generator || !v.list().items.empty();
    case value_kind::dict: return !v.dict().items.empty();
    case value_kind::view: return v.view_adapter()->size(v.view_object()) != 0;
    case value_kind::object: return true;
    case value_kind::big_integer: return true;  // (never zero)
    }
    return false;
}

/// A value to iterate over: lists and viewed sequences by index, everything else listed once.
class sequence {
public:
    explicit sequence(const value& v) : src_(v) {
        switch (v.kind()) {
        case value_kind::list:
            list_ = &v.list();
            n_ = list_->items.size();
            if (list_->generator) {
                if (list_->consumed) n_ = 0;
                list_->consumed = true;
            }
            return;
        case value_kind::view:
            if (v.view_adapter()->shape == view_shape::sequence) {
                const adapter* ad = v.view_adapter();
                if (ad->each) {  // no random access: collect the elements in one pass
                    auto add = [&](const value& x, const value&) { own_.push_back(x); };
                    adapter_each(ad, v.view_object(), add);
                    n_ = own_.size();
                    return;
                }
                ad_ = ad;
                n_ = ad_->size(v.view_object());
                return;
            }
            break;
        case value_kind::undefined: check_strict(v); return;
        case value_kind::string: {
            const std::string_view s = v.as_string();
            for (std::size_t i = 0; i < s.size();) {
                const std::size_t b = i;
                utf8_decode(s, i);
                own_.push_back(v.substr(b, i - b).with_markup(false));  // a Markup string iterates as str
            }
            n_ = own_.size();
            return;
        }
        case value_kind::dict:
            break;
        case value_kind::object:
            if (v.object().callable()) break;
            [[fallthrough]];
        default:
            type_error(std::string("'") + type_name(v) + "' object is not iterable");
        }
        if (!v.is_mapping_like()) type_error(std::string("'") + type_name(v) + "' object is not iterable");
        if (v.is_dict()) {  // the keys, without the values
            own_.reserve(v.dict().items.size());
            for (const auto& kv : v.dict().items) own_.push_back(kv.first);
        } else if (const adapter* ad = v.view_adapter(); !ad->each) {
            const std::size_t n = ad->size(v.view_object());
            own_.reserve(n);
            for (std::size_t i = 0; i < n; ++i) own_.push_back(ad->at(v.view_object(), i));
        } else {
            for_each_item(v, [&](const value& k, const value&) { own_.push_back(k); });
        }
        n_ = own_.size();
    }
    std::size_t size() const noexcept { return list_ ? std::min(n_, list_->items.size()) : n_; }
    /// Whether the items are read in place from a C++ or JSON sequence (which a render cannot
    /// change) rather than from a template list or a copy.
    bool views_in_place() const noexcept { return ad_ != nullptr; }
    value operator[](std::size_t i) const {
        if (list_) return list_->items[i];
        if (ad_) return ad_->at(src_.view_object(), i);
        return own_[i];
    }
    /// The items as a vector (copies the values, not the data they view).
    std::vector<value> to_vector() const {
        if (!own_.empty() || (!list_ && !ad_)) return own_;  // a copy: to_vector() may be called again
        std::vector<value> r;
        const std::size_t n = size();
        r.reserve(n);
        for (std::size_t i = 0; i < n; ++i) r.push_back((*this)[i]);
        return r;
    }

private:
    value src_;
    const list_obj* list_ = nullptr;
    const adapter* ad_ = nullptr;
    std::size_t n_ = 0;
    std::vector<value> own_;
};

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

// ---- arithmetic ---------------------------------------------------------------------------------

[[noreturn]] inline void operand_error(op o, const value& a, const value& b) {
    type_error(std::string("unsupported operand type(s) for ") + op_symbol(o) + ": '" + type_name(a) + "' and '" +
               type_name(b) + "'");
}

inline value float_result(double d) { return value(d); }

/// Python's float floor division and modulo.
inline void float_divmod(double x, double y, double& div, double& mod) {
    if (y == 0.0) raise(errc::template_value, "float division by zero");
    mod = std::fmod(x, y);
    div = (x - mod) / y;
    if (mod != 0.0) {
        if ((y < 0) != (mod < 0)) {
            mod += y;
            div -= 1.0;
        }
    } else {
        mod = std::copysign(0.0, y);
    }
    if (div != 0.0) {
        const double f = std::floor(div);
        div = (div - f > 0.5) ? f + 1.0 : f;
    } else {
        div = std::copysign(0.0, x / y);
    }
}

/// int(d) of a finite float: Python's int, of any size.
inline value int_of_float(double d) {
    if (d < 9223372036854775808.0 && d >= -9223372036854775808.0) return value(static_cast<long long>(d));
    return make_int(bigint::of_double(d));
}

[[noreturn]] inline void int_too_large() {
    raise(errc::template_limit, "integer result too large (more than " + std::to_string(max_int_bits) + " bits)");
}

/// Python's float ** float for the operands of a negative integer power.
inline value float_pow(double x, double y) {
    if (x == 0.0 && y < 0) raise(errc::template_value, "0.0 cannot be raised to a negative power");
    if (x < 0 && y != std::floor(y)) raise(errc::template_value, "complex results are not supported");
    const double r = std::pow(x, y);
    if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) raise(errc::template_value, "numerical result out of range");
    return value(r);
}

/// base ** exp of Python ints of any size (a negative exponent gives a float).
inline value big_pow(const bigint& base, const bigint& exp) {
    if (exp.negative()) {
        double x = 0;
        if (!base.to_double(x)) raise(errc::template_value, "int too large to convert to float");
        double y = 0;
        if (!exp.to_double(y)) raise(errc::template_value, "int too large to convert to float");
        return float_pow(x, y);
    }
    std::uint64_t e = 0;
    if (!exp.magnitude_u64(e)) {  // only 0, 1 and -1 have such powers within the limit
        if (base.is_zero() || base.bit_length() == 1) {
            bigint r;
            base.pow(exp.low_limb() & 1 ? 1 : 2, max_int_bits, r);  // ±1 ** e keeps the sign of an odd e
            return make_int(base.is_zero() ? bigint() : r);
        }
        int_too_large();
    }
    bigint r;
    if (!base.pow(e, max_int_bits, r)) int_too_large();
    return make_int(std::move(r));
}

inline value int_pow(std::int64_t base, std::int64_t exp) {
    if (exp < 0) {
        if (base == 0) raise(errc::template_value, "0.0 cannot be raised to a negative power");
        return value(std::pow(static_cast<double>(base), static_cast<double>(exp)));
    }
    std::int64_t result = 1;
    std::int64_t b = base;
    for (std::int64_t e = exp; e;) {
        if ((e & 1) && __builtin_mul_overflow(result, b, &result)) return big_pow(bigint(base), bigint(exp));
        e >>= 1;
        if (e && __builtin_mul_overflow(b, b, &b)) return big_pow(bigint(base), bigint(exp));
    }
    return value(result);
}

/// a <op> b for + - * / // % ** of Python ints of any size.
inline value big_arith(op o, const bigint& x, const bigint& y) {
    switch (o) {
    case op::add: return make_int(x + y);
    case op::sub: return make_int(x - y);
    case op::mul:
        if (x.bit_length() + y.bit_length() > max_int_bits + 1) int_too_large();
        return make_int(x * y);
    case op::div: {
        if (y.is_zero()) raise(errc::template_value, "division by zero");
        double d = 0;
        if (!bigint::true_divide(x, y, d)) raise(errc::template_value, "integer division result too large for a float");
        return value(d);
    }
    case op::floordiv:
    case op::mod: {
        if (y.is_zero()) raise(errc::template_value, "integer division or modulo by zero");
        bigint q, r;
        bigint::divmod(x, y, q, r);
        return make_int(o == op::mod ? std::move(r) : std::move(q));
    }
    case op::pow: return big_pow(x, y);
    default: break;
    }
    type_error("unsupported operation on int");
}

/// Concatenation of two strings; Markup escapes the other operand.
inline value concat_strings(const value& a, const value& b) {
    std::string s;
    s.reserve(a.as_string().size() + b.as_string().size());
    const bool markup = a.is_markup() || b.is_markup();
    if (markup && !a.is_markup()) html_escape(s, a.as_string());
    else s += a.as_string();
    if (markup && !b.is_markup()) html_escape(s, b.as_string());
    else s += b.as_string();
    return markup ? value::markup(std::move(s)) : value(std::move(s));
}

/// a * n for strings and lists; `max_size` bounds the result.
inline value repeat(const value& seq, std::int64_t n, std::size_t max_size);
/// a * n for strings and lists, n an int of any size (Python's OverflowError beyond 64 bits).
inline value repeat(const value& seq, const value& n, std::size_t max_size) {
    if (n.is_big_integer()) raise(errc::template_value, "cannot fit 'int' into an index-sized integer");
    return repeat(seq, n.as_integer(), max_size);
}
inline value repeat(const value& seq, std::int64_t n, std::size_t max_size) {
    if (n < 0) n = 0;
    if (seq.is_string()) {
        const std::size_t len = seq.as_string().size();
        if (len && static_cast<std::uint64_t>(n) > max_size / len)
            raise(errc::template_limit, "string repetition would exceed the output size limit (" +
                                            std::to_string(max_size) + " bytes)");
        std::string s;
        s.reserve(len * static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) s += seq.as_string();
        return seq.is_markup() ? value::markup(std::move(s)) : value(std::move(s));
    }
    sequence items(seq);
    const std::size_t len = items.size();
    if (len && static_cast<std::uint64_t>(n) > max_size / 16 / len)
        raise(errc::template_limit, "list repetition would exceed the size limit");
    std::vector<value> r;
    r.reserve(len * static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < len; ++k) r.push_back(items[k]);
    return value::make_list(std::move(r), seq.is_list() && seq.list().tuple);
}

/// a <op> b for + - * / // % **; `%` with a string left operand is formatting and handled by the caller.
inline value arith(op o, const value& a, const value& b, std::size_t max_size) {
    if (a.is_undefined()) fail_undefined(a);
    if (b.is_undefined()) fail_undefined(b);
    if (is_num(a) && is_num(b)) {
        const bool fl = a.is_float() || b.is_float();
        if (!fl && (a.is_big_integer() || b.is_big_integer())) return big_arith(o, big_of(a), big_of(b));
        if (!fl) {
            const std::int64_t x = a.as_integer(), y = b.as_integer();
            std::int64_t r = 0;
            switch (o) {
            case op::add:
                if (__builtin_add_overflow(x, y, &r)) break;
                return value(r);
            case op::sub:
                if (__builtin_sub_overflow(x, y, &r)) break;
                return value(r);
            case op::mul:
                if (__builtin_mul_overflow(x, y, &r)) break;
                return value(r);
            case op::div:
                if (y == 0) raise(errc::template_value, "division by zero");
                return value(static_cast<double>(x) / static_cast<double>(y));
            case op::floordiv:
            case op::mod: {
                if (y == 0) raise(errc::template_value, "integer division or modulo by zero");
                if (x == std::numeric_limits<std::int64_t>::min() && y == -1) break;
                std::int64_t q = x / y, m = x % y;
                if (m != 0 && ((m < 0) != (y < 0))) {
                    m += y;
                    --q;
                }
                return value(o == op::mod ? m : q);
            }
            case op::pow: return int_pow(x, y);
            default: break;
            }
            return big_arith(o, bigint(x), bigint(y));  // beyond 64 bits
        }
        const double x = float_value(a), y = float_value(b);
        switch (o) {
        case op::add: return value(x + y);
        case op::sub: return value(x - y);
        case op::mul: return value(x * y);
        case op::div:
            if (y == 0.0) raise(errc::template_value, "float division by zero");
            return value(x / y);
        case op::floordiv:
        case op::mod: {
            double d, m;
            float_divmod(x, y, d, m);
            return value(o == op::mod ? m : d);
        }
        case op::pow: return float_pow(x, y);
        default: break;
        }
    }
    if (o == op::add) {
        if (a.is_string() && b.is_string()) {
            if (a.as_string().size() + b.as_string().size() > max_size)
                raise(errc::template_limit, "string concatenation would exceed the output size limit");
            return concat_strings(a, b);
        }
        if (a.is_sequence_like() && b.is_sequence_like() && same_sequence_type(a, b)) {
            const bool at = sequence_type(a) == seq_type::tuple;
            sequence x(a), y(b);
            std::vector<value> r;
            r.reserve(x.size() + y.size());
            for (std::size_t i = 0; i < x.size(); ++i) r.push_back(x[i]);
            for (std::size_t i = 0; i < y.size(); ++i) r.push_back(y[i]);
            return value::make_list(std::move(r), at);
        }
        if (a.is_string())
            type_error(std::string("can only concatenate str (not \"") + type_name(b) + "\") to str");
    }
    if (o == op::mul) {
        const auto repeatable = [](const value& v) {
            return v.is_string() || (v.is_sequence_like() && sequence_type(v) != seq_type::other);
        };
        if (repeatable(a) && is_int_like(b)) return repeat(a, b, max_size);
        if (repeatable(b) && is_int_like(a)) return repeat(b, a, max_size);
    }
    operand_error(o, a, b);
}

inline value negate(const value& a) {
    if (a.is_undefined()) fail_undefined(a);
    if (a.is_float()) return value(-a.as_float());
    if (a.is_big_integer()) return make_int(a.big_integer().negated());
    if (a.is_integer() || a.is_bool()) {
        if (a.as_integer() == std::numeric_limits<std::int64_t>::min()) return make_int(bigint(a.as_integer()).negated());
        return value(-a.as_integer());
    }
    type_error(std::string("bad operand type for unary -: '") + type_name(a) + "'");
}

inline value unary_plus(const value& a) {
    if (a.is_undefined()) fail_undefined(a);
    if (a.is_float() || a.is_big_integer()) return a;
    if (a.is_integer() || a.is_bool()) return value(a.as_integer());
    type_error(std::string("bad operand type for unary +: '") + type_name(a) + "'");
}

// ---- subscription -------------------------------------------------------------------------------

/// Python slice bounds for a sequence of length n.
inline void slice_indices(std::int64_t n, const value& start, const value& stop, const value& step, std::int64_t& b,
                          std::int64_t& e, std::int64_t& st) {
    auto as_index = [](const value& v) -> std::int64_t {
        if (v.is_integer() || v.is_bool()) return v.as_integer();
        if (v.is_big_integer())  // clamped, as Python clamps a slice's bounds
            return v.big_integer().negative() ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
        type_error("slice indices must be integers or None or have an __index__ method");  // (an undefined one too)
    };
    st = step.is_none() ? 1 : as_index(step);
    if (st == std::numeric_limits<std::int64_t>::min()) st = -std::numeric_limits<std::int64_t>::max();
    if (st == 0) raise(errc::template_value, "slice step cannot be zero");
    const std::int64_t lo = st < 0 ? -1 : 0, hi = st < 0 ? n - 1 : n;
    auto clamp = [&](const value& v, std::int64_t def) {
        if (v.is_none()) return def;
        std::int64_t i = as_index(v);
        if (i < 0) {
            i += n;
            if (i < lo) i = lo;
        } else if (i > hi) {
            i = hi;
        }
        return i;
    };
    b = clamp(start, st < 0 ? hi : lo);
    e = clamp(stop, st < 0 ? lo : hi);
}

/// The positions of a slice, in order: count of them, the k-th at first + k * step.
struct slice_range {
    std::int64_t first = 0, step = 1;
    std::size_t count = 0;
    std::size_t operator[](std::size_t k) const noexcept {
        return static_cast<std::size_t>(first + static_cast<std::int64_t>(k) * step);
    }
};
inline slice_range slice_positions(std::int64_t n, const value& start, const value& stop, const value& step) {
    std::int64_t b, e, st;
    slice_indices(n, start, stop, step, b, e, st);
    // (the stride as unsigned: -st of the most negative step would overflow)
    const std::uint64_t stride = st < 0 ? 0 - static_cast<std::uint64_t>(st) : static_cast<std::uint64_t>(st);
    const std::int64_t span = st > 0 ? e - b : b - e;  // both ends within [-1, n]
    const std::size_t count = span > 0 ? static_cast<std::size_t>((static_cast<std::uint64_t>(span) - 1) / stride + 1) : 0;
    return {b, st, count};
}

/// v[start:stop:step] for strings (by code point) and sequences.
inline value slice(const value& v, const value& start, const value& stop, const value& step) {
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_string()) {
        const std::string_view s = v.as_string();
        const bool ascii = is_ascii(s);
        const std::int64_t n = static_cast<std::int64_t>(ascii ? s.size() : utf8_length(s));
        std::int64_t b, e, st;
        slice_indices(n, start, stop, step, b, e, st);
        if (st == 1) {
            if (e <= b) return v.substr(0, 0);
            const std::size_t bo = ascii ? static_cast<std::size_t>(b) : utf8_offset(s, static_cast<std::size_t>(b));
            const std::size_t eo = ascii ? static_cast<std::size_t>(e) : utf8_offset(s, static_cast<std::size_t>(e));
            return v.substr(bo, eo - bo);
        }
        // general step: collect code points
        std::vector<std::pair<std::size_t, std::size_t>> cps;  // (offset, length)
        for (std::size_t i = 0; i < s.size();) {
            const std::size_t o = i;
            utf8_decode(s, i);
            cps.emplace_back(o, i - o);
        }
        std::string r;
        const slice_range at = slice_positions(static_cast<std::int64_t>(cps.size()), start, stop, step);
        for (std::size_t k = 0; k < at.count; ++k) r.append(s.substr(cps[at[k]].first, cps[at[k]].second));
        return v.is_markup() ? value::markup(std::move(r)) : value(std::move(r));
    }
    if (v.is_sequence_like() && sequence_type(v) != seq_type::other) {
        sequence items(v);
        const slice_range at = slice_positions(static_cast<std::int64_t>(items.size()), start, stop, step);
        std::vector<value> r;
        r.reserve(at.count);
        for (std::size_t k = 0; k < at.count; ++k) r.push_back(items[at[k]]);
        return value::make_list(std::move(r), v.is_list() && v.list().tuple);
    }
    type_error(std::string("'") + type_name(v) + "' object is not subscriptable");
}

/// v[key] for an integer or string key. Returns undefined (with a reason) when missing;
/// `found` tells whether the item existed.
inline value getitem_plain(const value& v, const value& key, bool& found) {
    found = true;
    if (v.is_mapping_like()) {
        value out;
        if (mapping_find(v, key, out)) return out;
        found = false;
        return {};
    }
    if (sequence_type(v) == seq_type::other) {  // Python's TypeError, which Jinja2 turns into an undefined
        found = false;
        return {};
    }
    if (v.is_sequence_like() || v.is_string()) {
        if (!key.is_integer() && !key.is_bool()) {
            found = false;
            return {};
        }
        std::int64_t i = key.as_integer();
        if (v.is_string()) {
            const std::string_view s = v.as_string();
            const bool ascii = is_ascii(s);
            const std::int64_t n = static_cast<std::int64_t>(ascii ? s.size() : utf8_length(s));
            if (i < 0) i += n;
            if (i < 0 || i >= n) {
                found = false;
                return {};
            }
            if (ascii) return v.substr(static_cast<std::size_t>(i), 1);
            const std::size_t b = utf8_offset(s, static_cast<std::size_t>(i));
            std::size_t e = b;
            utf8_decode(s, e);
            return v.substr(b, e - b);
        }
        const std::int64_t n = static_cast<std::int64_t>(length(v));
        if (i < 0) i += n;
        if (i < 0 || i >= n) {
            found = false;
            return {};
        }
        if (v.is_list()) return v.list().items[static_cast<std::size_t>(i)];
        return v.view_adapter()->at(v.view_object(), static_cast<std::size_t>(i));
    }
    if (v.is_object()) {
        value r = v.object().getitem(key);
        found = r.is_defined();
        return r;
    }
    found = false;
    return {};
}

}  // namespace parley::jinja::detail

#endif
