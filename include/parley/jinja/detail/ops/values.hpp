// parley/jinja/detail/ops/values.hpp: Python's view of template values: type names, sequence types,
// undefined values used, integers of any size as values, str().
#ifndef PARLEY_JINJA_DETAIL_OPS_VALUES_HPP
#define PARLEY_JINJA_DETAIL_OPS_VALUES_HPP

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

}  // namespace parley::jinja::detail

#endif
