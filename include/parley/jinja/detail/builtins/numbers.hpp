// parley/jinja/detail/builtins/numbers.hpp: the built-in filters of numbers: int, float, abs,
// round, filesizeformat.
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_NUMBERS_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_NUMBERS_HPP

#include <parley/jinja/detail/builtins/text.hpp>
#include <parley/jinja/detail/format.hpp>

#include <cstdint>
#include <limits>

namespace parley::jinja::detail {

namespace filters {

// ---- numbers ------------------------------------------------------------------------------------

inline value f_abs(render_state&, const value& v, arguments&) {
    if (v.is_float()) return value(std::fabs(v.as_float()));
    if (v.is_big_integer()) return make_int(v.big_integer().abs());
    if (v.is_integer() || v.is_bool()) {
        if (v.as_integer() == std::numeric_limits<std::int64_t>::min()) return make_int(bigint(v.as_integer()).abs());
        return value(static_cast<long long>(v.as_integer() < 0 ? -v.as_integer() : v.as_integer()));
    }
    type_error(std::string("bad operand type for abs(): '") + type_name(v) + "'");
}

/// `s` with its Unicode decimal digits as ASCII digits, as Python's int() and float() read them
/// (they take any decimal digit); other characters unchanged.
inline std::string ascii_digits(std::string_view s) {
    std::string r;
    r.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            r += s[i++];
            continue;
        }
        const utf8_char u = utf8_at(s, i);
        if (ident_flags(u.cp) & tables::ident_decimal) r += static_cast<char>('0' + decimal_value(u.cp));
        else r.append(s.substr(i, u.len));
        i += u.len;
    }
    return r;
}

inline bool parse_py_float(std::string_view s, double& out) {
    const std::string converted = ascii_digits(py_strip(s, std::nullopt, true, true));
    const std::string_view t = converted;
    std::string clean;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '_') {
            if (i == 0 || i + 1 == t.size() || !is_digit(t[i - 1]) || !is_digit(t[i + 1])) return false;
            continue;
        }
        clean += t[i];
    }
    if (clean.empty()) return false;
    std::string low;
    for (char c : clean) low += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    std::string_view body = low;
    bool neg = false;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
        neg = body[0] == '-';
        body.remove_prefix(1);
    }
    if (body == "inf" || body == "infinity") {
        out = neg ? -HUGE_VAL : HUGE_VAL;
        return true;
    }
    if (body == "nan") {
        out = std::nan("");
        return true;
    }
    const char* b = clean.data();
    const char* e = b + clean.size();
    if (*b == '+') ++b;
    auto r = std::from_chars(b, e, out);
    if (r.ec == std::errc::result_out_of_range && r.ptr == e) {
        // beyond a double's range: Python gives an infinity, or a zero when it is too small.
        // Which one: the power of ten of the first significant digit.
        const char* p = b;
        const bool minus = *p == '-';
        if (minus) ++p;
        long power = 0;
        bool seen = false;  // a significant digit
        for (bool fraction = false; p != e && *p != 'e' && *p != 'E'; ++p) {
            if (*p == '.') fraction = true;
            else if (*p != '0') seen = true;
            if (*p == '.' || (seen && fraction)) continue;
            if (fraction) --power;  // a zero before the first significant digit of the fraction
            else if (seen) ++power;
        }
        long exponent = 0;
        if (p != e && std::from_chars(p + 1 + (p[1] == '+'), e, exponent).ec != std::errc())
            exponent = p[1] == '-' ? -1000000 : 1000000;  // an exponent beyond a long's range
        const bool huge = power + exponent > 0;
        out = huge ? (minus ? -HUGE_VAL : HUGE_VAL) : (minus ? -0.0 : 0.0);
        return true;
    }
    return r.ec == std::errc() && r.ptr == e;
}

/// Python's int(s, base) (base 0 or 2 to 36): false where Python raises ValueError, among them a
/// text of more decimal digits than Python converts (max_int_str_digits).
inline bool parse_py_int(std::string_view s, int base, value& out) {
    if (base != 0 && (base < 2 || base > 36)) return false;
    const std::string converted = ascii_digits(py_strip(s, std::nullopt, true, true));
    std::string_view t = converted;
    bool neg = false;
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
        neg = t[0] == '-';
        t.remove_prefix(1);
    }
    if (t.size() > 2 && t[0] == '0') {
        const char x = static_cast<char>(t[1] | 0x20);
        const int pb = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 0;
        if (pb && (base == pb || base == 0)) {
            base = pb;
            t.remove_prefix(2);
            if (!t.empty() && t[0] == '_') t.remove_prefix(1);
        }
    }
    if (base == 0) base = 10;
    if (t.empty()) return false;
    std::uint64_t r = 0;
    const std::uint64_t limit = neg ? 0x8000000000000000ull : 0x7fffffffffffffffull;
    bool beyond = false;
    std::string digits;  // without the underscores, for a number beyond 64 bits
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '_') {
            if (i == 0 || i + 1 == t.size() || t[i + 1] == '_') return false;
            continue;
        }
        int d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? (c | 0x20) - 'a' + 10 : 99;
        if (d >= base) return false;
        digits += c;
        if (beyond || r > (limit - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) {
            beyond = true;  // the rest must still be digits for the text to be an integer
            continue;
        }
        r = r * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
    }
    if (!beyond) {
        out = value(static_cast<long long>(neg ? 0 - r : r));  // modulo 2^64: -2^63 included
        return true;
    }
    // Python refuses to read more decimal digits than its limit (bases that are powers of two
    // have none)
    if ((base & (base - 1)) != 0 && digits.size() > max_int_str_digits) return false;
    bigint n = bigint::of_digits(digits, base, neg);
    if (n.bit_length() > max_int_bits) int_too_large();
    out = make_int(std::move(n));
    return true;
}

inline value f_int(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"default", "base"};
    bound_args<2> b(a, "int", p);
    const value def = b.get(0, value(0));
    const long base = saturated_int_arg(b[1], 10, "base");  // (one beyond 36 is refused)
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_integer() || v.is_big_integer()) return v;
    if (v.is_bool()) return value(static_cast<long long>(v.as_integer()));
    // Jinja: int(value) (int(value, base) of a string), else int(float(value)), else the
    // default; int() of NaN is a ValueError (the default), of an infinity an OverflowError
    const auto of_float = [&](double d) {
        if (std::isnan(d)) return def;
        if (std::isinf(d)) raise(errc::template_value, "cannot convert float infinity to integer");
        return int_of_float(d);
    };
    if (v.is_float()) return of_float(v.as_float());
    if (v.is_string()) {
        value r;
        if (parse_py_int(v.as_string(), static_cast<int>(base), r)) return r;
        // int(float(s)): an infinity's OverflowError is caught there too (the default)
        double d;
        if (parse_py_float(v.as_string(), d)) return std::isinf(d) ? def : of_float(d);
    }
    return def;
}

inline value f_float(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"default"};
    bound_args<1> b(a, "float", p);
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_number()) return value(float_value(v));  // (Python's OverflowError is not caught)
    if (v.is_string()) {
        double d;
        if (parse_py_float(v.as_string(), d)) return value(d);
    }
    return b.get(0, value(0.0));
}

inline value f_round(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"precision", "method"};
    bound_args<2> b(a, "round", p);
    const bool no_precision = b.has(0) && b[0].is_none();  // Python's round(x, None): an int
    // (an ndigits beyond what a double has leaves a float as it is, or makes it zero)
    const long precision = no_precision ? 0 : std::clamp(saturated_int_arg(b[0], 0, "precision"), -100000L, 100000L);
    const std::string method = b.has(1) ? to_str(b[1]) : std::string("common");
    if (method != "common" && method != "ceil" && method != "floor")
        raise(errc::template_value, "method must be common, ceil or floor");
    if (!v.is_number()) type_error(std::string("type ") + type_name(v) + " doesn't define __round__ method");
    const auto int_of = [](double d) {  // Python's int(d) of math.ceil / math.floor / round
        if (std::isnan(d)) raise(errc::template_value, "cannot convert float NaN to integer");
        if (std::isinf(d)) raise(errc::template_value, "cannot convert float infinity to integer");
        return int_of_float(d);
    };
    if (no_precision) {
        if (method != "common") type_error("unsupported operand type(s) for ** or pow(): 'int' and 'NoneType'");
        if (v.is_big_integer()) return v;
        if (!v.is_float()) return value(static_cast<long long>(v.as_integer()));
        return int_of(std::nearbyint(v.as_float()));  // half to even
    }
    if (method == "common") {
        if (!v.is_float()) {
            // round(int, n) stays an int; negative n rounds half to even at 10**-n
            if (precision >= 0) return v.is_bool() ? value(static_cast<long long>(v.as_integer())) : v;
            bigint m;
            if (!bigint(10).pow(static_cast<std::uint64_t>(-precision), max_int_bits, m)) return value(0);  // (|v| < 10**-n)
            bigint q, r;
            bigint::divmod(big_of(v), m, q, r);
            const int half = compare(r + r, m);
            if (half > 0 || (half == 0 && (q.low_limb() & 1))) q = q + bigint(1);
            return make_int(q * m);
        }
        return value(py_round(v.as_float(), static_cast<int>(precision)));
    }
    // Jinja2: math.ceil / math.floor of value * 10**precision, divided by 10**precision (an int
    // when precision >= 0, so that an int value is scaled exactly and the division rounds once)
    const bool ceil = method == "ceil";
    if (precision >= 0) {
        bigint m;
        if (!bigint(10).pow(static_cast<std::uint64_t>(precision), max_int_bits, m)) int_too_large();
        bigint scaled;
        if (v.is_float()) {
            double md = 0;
            if (!m.to_double(md)) raise(errc::template_value, "int too large to convert to float");
            const double t = v.as_float() * md;
            scaled = big_of(int_of(ceil ? std::ceil(t) : std::floor(t)));
        } else {
            scaled = big_of(v) * m;
        }
        double d = 0;
        if (!bigint::true_divide(scaled, m, d)) raise(errc::template_value, "integer division result too large for a float");
        return value(d);
    }
    const double md = std::pow(10.0, static_cast<double>(precision));
    const double t = float_value(v) * md;
    const value c = int_of(ceil ? std::ceil(t) : std::floor(t));
    return value(float_value(c) / md);
}


// ---- filesizeformat -----------------------------------------------------------------------------

/// float(v) as Python computes it for filesizeformat.
inline double file_size_of(const value& v) {
    if (v.is_number()) return float_value(v);
    if (v.is_string()) {
        double d;
        if (parse_py_float(v.as_string(), d)) return d;
        raise(errc::template_value, "could not convert string to float: " + single_quoted(v.as_string()));
    }
    if (v.is_undefined()) fail_undefined(v);
    type_error(std::string("float() argument must be a string or a real number, not '") + type_name(v) + "'");
}

/// x < base**power, compared exactly as Python compares a float with an integer.
inline bool below_power(double x, bool binary, int power) {
    if (binary) return x < std::ldexp(1.0, 10 * power);
    // 1000**p = 2**(3p) * 5**(3p); 5**(3p) fits in 64 bits for every p used here (p <= 9)
    std::uint64_t five = 1;
    for (int k = 0; k < 3 * power; ++k) five *= 5;
    const double y = std::ldexp(x, -3 * power);
    if (!(y < 18446744073709551616.0)) return false;  // also NaN, below no power in Python
    if (y < 0) return true;
    return static_cast<std::uint64_t>(std::floor(y)) < five;
}

inline value f_filesizeformat(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"binary"};
    bound_args<1> b(a, "do_filesizeformat", p);
    const double bytes = file_size_of(v);
    const bool binary = b.has(0) && truthy(b[0]);
    const double base = binary ? 1024.0 : 1000.0;
    static constexpr const char* decimal[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    static constexpr const char* binary_units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    // base**2 .. base**9 as Python converts them to float (correctly rounded)
    static constexpr double decimal_units[] = {1e6, 1e9, 1e12, 1e15, 1e18, 1e21, 1e24, 1e27};
    if (bytes == 1) return value::view_of("1 Byte");
    std::string out;
    if (bytes < base) {
        if (!std::isfinite(bytes)) raise(errc::template_value, "cannot convert float infinity to integer");
        const double whole = std::trunc(bytes);
        if (whole == 0) out += '0';
        else c_format(out, "", -1, 0, 'f', whole);
        out += " Bytes";
        return value(std::move(out));
    }
    int i = 0;
    while (i < 7 && !below_power(bytes, binary, i + 2)) ++i;
    const double unit = binary ? std::ldexp(1.0, 10 * (i + 2)) : decimal_units[i];
    const double shown = base * bytes / unit;
    if (std::isnan(shown)) out += "nan";
    else c_format(out, "", -1, 1, 'f', shown);
    out += ' ';
    out += binary ? binary_units[i] : decimal[i];
    return value(std::move(out));
}

}  // namespace filters

}  // namespace parley::jinja::detail

#endif
