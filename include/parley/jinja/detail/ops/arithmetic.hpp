// parley/jinja/detail/ops/arithmetic.hpp: Python's arithmetic on template values: + - * / // % **
// and unary minus, with ints of any size.
#ifndef PARLEY_JINJA_DETAIL_OPS_ARITHMETIC_HPP
#define PARLEY_JINJA_DETAIL_OPS_ARITHMETIC_HPP

#include <parley/jinja/detail/ops/compare.hpp>

namespace parley::jinja::detail {

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

}  // namespace parley::jinja::detail

#endif
