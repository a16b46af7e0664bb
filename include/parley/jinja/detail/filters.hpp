// parley/jinja/detail/filters.hpp: Jinja2's built-in filters, with Python's semantics.
#ifndef PARLEY_JINJA_DETAIL_FILTERS_HPP
#define PARLEY_JINJA_DETAIL_FILTERS_HPP

#include <parley/jinja/detail/dump.hpp>
#include <parley/jinja/detail/render.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace parley::jinja::detail::filters {

using F = value (*)(render_state&, const value&, arguments&);

// soft_str: str() that keeps Markup
inline value soft_str(const value& v) {
    if (v.is_string()) return v;
    return value(to_str(v));
}

/// Jinja's attribute getter: "a.b.0" walks getitem for each part (digits become integers).
inline value attr_path(render_state& st, const value& item, std::string_view path) {
    value cur = item;
    std::size_t b = 0;
    while (b <= path.size()) {
        std::size_t e = path.find('.', b);
        if (e == std::string_view::npos) e = path.size();
        const std::string_view part = path.substr(b, e - b);
        value key = (!part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos)
                        ? value(static_cast<long long>(std::stoll(std::string(part))))
                        : value(std::string(part));
        if (cur.is_undefined()) return cur;
        cur = get_item(cur, key, st.opt().sandboxed, st.strict(), st.user_methods());
        b = e + 1;
    }
    return cur;
}

/// Jinja2's attribute getter: a string is a dotted path, None (or no attribute) the item itself,
/// anything else one subscript.
inline value attribute_arg(render_state& st, const value& item, const value& attribute) {
    if (attribute.is_string()) return attr_path(st, item, attribute.as_string());
    if (attribute.is_undefined() || attribute.is_none()) return item;
    return get_item(item, attribute, st.opt().sandboxed, st.strict(), st.user_methods());
}

/// `reverse` of sort and dictsort, which Python's sorted() takes as an integer.
inline bool reverse_arg(const value& v) {
    if (!v.is_bool() && !v.is_integer())
        type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
    return truthy(v);
}

inline value ignore_case(const value& v, bool case_sensitive) {
    if (case_sensitive || !v.is_string()) return v;
    std::string s;
    py_lower(s, v.as_string());
    return value(std::move(s));
}

inline std::vector<value> items_of(const value& v) { return sequence(v).to_vector(); }

/// The lazy result of map/select/reject: a generator in Python.
inline value generator(std::vector<value> items) {
    value g = value::make_list(std::move(items));
    g.list().generator = true;
    return g;
}

// ---- strings ------------------------------------------------------------------------------------

/// `s` as the result of a filter that Jinja computes with a method of soft_str(input): Markup
/// when the input is Markup (markupsafe's methods keep it), a str otherwise.
inline value like_input(const value& input, std::string s) {
    return input.is_markup() ? value::markup(std::move(s)) : value(std::move(s));
}
inline value f_upper(render_state&, const value& v, arguments&) {
    std::string s;
    py_upper(s, to_str(v));
    return like_input(v, std::move(s));
}
inline value f_lower(render_state&, const value& v, arguments&) {
    std::string s;
    py_lower(s, to_str(v));
    return like_input(v, std::move(s));
}
inline value f_capitalize(render_state&, const value& v, arguments&) {
    std::string s;
    jinja_capitalize(s, to_str(v));
    return like_input(v, std::move(s));
}
inline value f_title(render_state&, const value& v, arguments&) {
    std::string s;
    jinja_title(s, to_str(v));
    return value(std::move(s));
}
inline value f_trim(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"chars"};
    bound_args<1> b(a, "trim", p);
    if (b.has(0) && b[0].is_undefined()) type_error("strip arg must be None or str");  // str.strip(Undefined)
    const auto chars = opt_str(b[0], "trim");
    if (v.is_string()) {  // a part of the same text (Markup stays Markup)
        const std::string_view s = v.as_string();
        const std::string_view r = py_strip(s, chars, true, true);
        return v.substr(static_cast<std::size_t>(r.data() - s.data()), r.size());
    }
    const std::string s = to_str(v);
    return value(std::string(py_strip(s, chars, true, true)));
}
/// A width or count that sizes a result: beyond `bound` it is refused before anything is built.
inline long bounded(long n, std::size_t bound, const char* what) {
    if (n > 0 && static_cast<unsigned long>(n) > bound)
        raise(errc::template_limit, std::string(what) + " too large (limit " + std::to_string(bound) + ")");
    return n;
}

inline value f_center(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"width"};
    bound_args<1> b(a, "center", p);
    std::string s;
    py_center(s, to_str(v), bounded(int_arg(b[0], 80, "width"), st.max_size(), "center width"), U' ');
    return like_input(v, std::move(s));
}
inline value f_replace(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"old", "new", "count"};
    bound_args<3> b(a, "replace", p);
    const long count = b[2].is_none() ? -1 : int_arg(b[2], -1, "count");
    // Jinja2: str(s).replace(str(old), str(new)) without autoescaping; with it, s is escaped
    // when `old` is safe (or `new` is and s is not), and a safe s escapes the arguments
    // (Markup.replace)
    const auto escaped = [](const value& x) {
        if (x.is_markup()) return std::string(x.as_string());
        std::string e;
        html_escape(e, to_str(x));
        return e;
    };
    const bool safe = st.autoescape() && (v.is_markup() || b[0].is_markup() || b[1].is_markup());
    std::string s;
    if (safe) py_replace(s, escaped(v), escaped(b[0]), escaped(b[1]), count);
    else py_replace(s, to_str(v), to_str(b[0]), to_str(b[1]), count);
    if (s.size() > st.max_size()) raise(errc::template_limit, "replace result exceeds the output size limit");
    return safe ? value::markup(std::move(s)) : value(std::move(s));
}
inline value f_escape(render_state&, const value& v, arguments&) {
    if (v.is_markup()) return v;
    std::string s;
    html_escape(s, to_str(v));
    return value::markup(std::move(s));
}
inline value f_forceescape(render_state&, const value& v, arguments&) {
    std::string s;
    html_escape(s, to_str(v));
    return value::markup(std::move(s));
}
inline value f_safe(render_state&, const value& v, arguments&) {
    if (v.is_markup()) return v;
    return value::markup(to_str(v));
}
inline value f_string(render_state&, const value& v, arguments&) { return soft_str(v); }
inline value f_striptags(render_state&, const value& v, arguments&) {
    std::string s;
    jinja_striptags(s, to_str(v));
    return value(std::move(s));
}
inline value f_wordcount(render_state&, const value& v, arguments&) {
    return value(static_cast<long long>(jinja_wordcount(to_str(v))));
}
inline value f_indent(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"width", "first", "blank"};
    bound_args<3> b(a, "indent", p);
    std::string indention;
    if (b[0].is_string()) indention = std::string(b[0].as_string());
    else indention = std::string(static_cast<std::size_t>(std::max(0L, bounded(int_arg(b[0], 4, "width"), st.max_size(), "indent width"))), ' ');
    const bool first = b.has(1) && truthy(b[1]);
    const bool blank = b.has(2) && truthy(b[2]);
    if (!v.is_string()) {  // Jinja adds "\n" to the value first
        if (v.is_undefined()) fail_undefined(v);
        type_error(std::string("unsupported operand type(s) for +=: '") + type_name(v) + "' and 'str'");
    }
    std::string s = to_str(v) + "\n";  // jinja: s += newline; then splitlines
    // Jinja: if blank: rv = (newline + indention).join(lines) else: lines[1:] indented unless blank
    std::vector<std::string_view> lines = py_splitlines(s, false);
    std::string rv;
    // the indentation is repeated on every line: check the size as the text grows
    const auto check = [&] {
        if (rv.size() > st.max_size()) raise(errc::template_limit, "indent result exceeds the output size limit");
    };
    if (blank) {
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (i) rv += "\n" + indention;
            rv += lines[i];
            check();
        }
    } else {
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (i) {
                rv += "\n";
                if (!lines[i].empty()) rv += indention;
            }
            rv += lines[i];
            check();
        }
    }
    if (first) rv = indention + rv;
    return v.is_markup() ? value::markup(std::move(rv)) : value(std::move(rv));
}
inline value f_truncate(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"length", "killwords", "end", "leeway"};
    bound_args<4> b(a, "truncate", p);
    const long length = saturated_int_arg(b[0], 255, "length");
    const bool killwords = b.has(1) && truthy(b[1]);
    const std::string end = b.has(2) ? to_str(b[2]) : std::string("...");
    const long given_leeway = b.has(3) && !b[3].is_none() ? saturated_int_arg(b[3], 5, "leeway") : 5;
    if (length < static_cast<long>(utf8_length(end)))
        raise(errc::template_value, "expected length >= " + std::to_string(utf8_length(end)) + ", got " + to_str(b.get(0, value(255))));
    if (given_leeway < 0) raise(errc::template_value, "expected leeway >= 0, got " + to_str(b[3]));
    // length + leeway, which no text reaches once it passes what a long holds
    const long leeway = length > std::numeric_limits<long>::max() - given_leeway ? std::numeric_limits<long>::max() - length : given_leeway;
    if (!v.is_string()) {
        // Jinja measures the value with len(): an undefined value has length 0, a list or a
        // mapping short enough comes back as it is, and anything longer cannot be cut as a text
        if (v.is_undefined()) {
            check_strict(v);
            return v;
        }
        if (!v.is_sequence_like() && !v.is_mapping_like())
            type_error(std::string("object of type '") + type_name(v) + "' has no len()");
        if (static_cast<long>(detail::length(v)) <= length + leeway) return v;
        type_error(std::string("can only concatenate ") + type_name(v) + " (not \"str\") to " + type_name(v));
    }
    const std::string_view in = v.as_string();
    if (static_cast<long>(utf8_length(in)) <= length + leeway) return v;
    std::string s;
    jinja_truncate(s, in, length, killwords, end, leeway);
    if (!v.is_markup()) return value(std::move(s));
    // a part of the Markup text + the end: Markup's + escapes an end that is not Markup itself
    if (!b[2].is_markup()) {
        s.resize(s.size() - end.size());
        html_escape(s, end);
    }
    return value::markup(std::move(s));
}
inline value f_wordwrap(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"width", "break_long_words", "wrapstring", "break_on_hyphens"};
    bound_args<4> b(a, "wordwrap", p);
    const long width = saturated_int_arg(b[0], 79, "width");
    const bool blw = b.has(1) ? truthy(b[1]) : true;
    const std::string wrap = b.has(2) && !b[2].is_none() ? to_str(b[2]) : std::string("\n");
    const bool boh = b.has(3) ? truthy(b[3]) : true;
    if (!v.is_string()) {  // Jinja calls the value's splitlines()
        if (v.is_undefined()) fail_undefined(v);
        type_error(std::string("'") + type_name(v) + "' object has no attribute 'splitlines'");
    }
    std::string s;
    try {
        jinja_wordwrap(s, to_str(v), width, blw, wrap, boh, st.max_size());
    } catch (const std::invalid_argument& e) {
        raise(errc::template_value, e.what());
    } catch (const std::length_error& e) {
        raise(errc::template_limit, e.what());
    }
    return value(std::move(s));
}
inline value f_urlencode(render_state&, const value& v, arguments&) {
    auto quote = [](std::string& out, const value& x, bool for_qs) {
        const std::string s = to_str(x);
        std::string q;
        url_quote(q, s, for_qs ? "" : "/");
        if (for_qs) {
            std::size_t pos = 0;
            while ((pos = q.find("%20", pos)) != std::string::npos) {
                q.replace(pos, 3, "+");
                pos += 1;
            }
        }
        out += q;
    };
    std::string out;
    if (v.is_string() || (!v.is_sequence_like() && !v.is_mapping_like() && !v.is_undefined())) {
        quote(out, v, false);  // a string, or what is not iterable (a number, none...): its text
        return value(std::move(out));
    }
    std::vector<std::pair<value, value>> pairs;
    if (v.is_mapping_like()) {
        for_each_item(v, [&](const value& k, const value& x) { pairs.emplace_back(k, x); });
    } else {
        sequence s(v);
        for (std::size_t i = 0; i < s.size(); ++i) {
            sequence kv(s[i]);
            if (kv.size() != 2) raise(errc::template_value, "urlencode expects pairs");
            pairs.emplace_back(kv[0], kv[1]);
        }
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        if (i) out += '&';
        quote(out, pairs[i].first, true);
        out += '=';
        quote(out, pairs[i].second, true);
    }
    return value(std::move(out));
}
inline value f_format(render_state& st, const value& v, arguments& a) {
    if (a.size() && !a.keywords().empty())
        raise(errc::template_value, "can't handle positional and keyword arguments at the same time");
    value args;
    if (!a.keywords().empty()) {
        args = value::make_dict();
        for (auto& [k, x] : a.keywords()) dict_set(args.dict(), value(std::string(k)), x);
    } else {
        args = value::make_list(a.positional(), true);
    }
    return percent_format_impl(soft_str(v), args, st.max_size());
}

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

// ---- sequences ----------------------------------------------------------------------------------

inline value f_length(render_state&, const value& v, arguments&) { return value(static_cast<long long>(length(v))); }
inline value f_list(render_state&, const value& v, arguments&) { return value::make_list(items_of(v)); }

inline value f_first(render_state&, const value& v, arguments&) {
    sequence s(v);
    if (s.size() == 0) return value::undefined(undefined_form::hint, "No first item, sequence was empty.");
    return s[0];
}
inline value f_last(render_state&, const value& v, arguments&) {
    if (!v.is_sequence_like() && !v.is_string()) {
        if (v.is_undefined()) return value::undefined(undefined_form::hint, "No last item, sequence was empty.");
    }
    sequence s(v);
    if (s.size() == 0) return value::undefined(undefined_form::hint, "No last item, sequence was empty.");
    // Python's reversed() indexes: the last character of a Markup string is Markup, where
    // iteration (`first`) gives a str
    return s[s.size() - 1].with_markup(v.is_markup());
}
inline value f_join(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"d", "attribute"};
    bound_args<2> b(a, "join", p);
    const value sep = b.get(0, value::view_of(""));
    sequence s(v);
    std::string out;
    // with autoescaping, a Markup separator or item makes the result Markup (the other parts
    // escaped); otherwise Jinja joins the texts
    bool markup = st.autoescape() && sep.is_markup();
    std::vector<value> parts;
    parts.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        value it = s[i];
        if (b.has(1)) it = attribute_arg(st, it, b[1]);
        if (it.is_markup() && st.autoescape()) markup = true;
        parts.push_back(std::move(it));
    }
    const std::string sep_s = to_str(sep);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) {
            if (markup && !sep.is_markup()) html_escape(out, sep_s);
            else out += sep_s;
        }
        if (markup && !parts[i].is_markup()) html_escape(out, to_str(parts[i]));
        else append_str(out, parts[i]);
        if (out.size() > st.max_size()) raise(errc::template_limit, "join result exceeds the output size limit");
    }
    return markup ? value::markup(std::move(out)) : value(std::move(out));
}
inline value f_reverse(render_state&, const value& v, arguments&) {
    if (v.is_string()) {
        std::vector<std::pair<std::size_t, std::size_t>> cps;
        const std::string_view s = v.as_string();
        for (std::size_t i = 0; i < s.size();) {
            const std::size_t b = i;
            utf8_decode(s, i);
            cps.emplace_back(b, i - b);
        }
        std::string r;
        r.reserve(s.size());
        for (auto it = cps.rbegin(); it != cps.rend(); ++it) r.append(s.substr(it->first, it->second));
        return like_input(v, std::move(r));
    }
    auto items = items_of(v);
    std::reverse(items.begin(), items.end());
    return value::make_list(std::move(items));
}
inline value f_sort(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"reverse", "case_sensitive", "attribute"};
    bound_args<3> b(a, "sort", p);
    const bool rev = b.has(0) && reverse_arg(b[0]);
    const bool cs = b.has(1) && truthy(b[1]);
    auto items = items_of(v);
    std::vector<std::pair<value, value>> keyed;
    const bool several = b.has(2) && b[2].is_string() && b[2].as_string().find(',') != std::string_view::npos;
    for (auto& it : items) {
        if (several) {
            // "a,b": sort by a tuple of attributes
            std::vector<value> parts;
            const std::string_view spec = b[2].as_string();
            for (std::size_t s0 = 0; s0 <= spec.size();) {
                std::size_t e = spec.find(',', s0);
                if (e == std::string_view::npos) e = spec.size();
                parts.push_back(ignore_case(attr_path(st, it, py_strip(spec.substr(s0, e - s0), std::nullopt, true, true)), cs));
                s0 = e + 1;
            }
            keyed.emplace_back(value::make_list(std::move(parts), true), it);
        } else {
            keyed.emplace_back(ignore_case(b.has(2) ? attribute_arg(st, it, b[2]) : it, cs), it);
        }
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        return rev ? compare(y.first, x.first) < 0 : compare(x.first, y.first) < 0;
    });
    std::vector<value> r;
    for (auto& kv : keyed) r.push_back(kv.second);
    return value::make_list(std::move(r));
}
inline value f_dictsort(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"case_sensitive", "by", "reverse"};
    bound_args<3> b(a, "dictsort", p);
    const bool cs = b.has(0) && truthy(b[0]);
    const std::string by = b.has(1) ? to_str(b[1]) : std::string("key");
    const bool rev = b.has(2) && reverse_arg(b[2]);
    if (by != "key" && by != "value") raise(errc::template_value, "You can only sort by either \"key\" or \"value\"");
    if (!v.is_mapping_like()) type_error(std::string("'") + type_name(v) + "' object has no attribute 'items'");
    std::vector<std::pair<value, value>> items;
    for_each_item(v, [&](const value& k, const value& x) { items.emplace_back(k, x); });
    std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) {
        const value& kx = by == "key" ? x.first : x.second;
        const value& ky = by == "key" ? y.first : y.second;
        const value a1 = ignore_case(kx, cs), b1 = ignore_case(ky, cs);
        return rev ? compare(b1, a1) < 0 : compare(a1, b1) < 0;
    });
    std::vector<value> r;
    for (auto& [k, x] : items) r.push_back(value::make_list({k, x}, true));
    return value::make_list(std::move(r));
}
inline value f_unique(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"case_sensitive", "attribute"};
    bound_args<2> b(a, "unique", p);
    const bool cs = b.has(0) && truthy(b[0]);
    std::vector<value> seen, r;
    for (auto& it : items_of(v)) {
        value key = ignore_case(b.has(1) ? attribute_arg(st, it, b[1]) : it, cs);
        bool dup = false;
        for (auto& s : seen)
            if (equals(s, key)) {
                dup = true;
                break;
            }
        if (!dup) {
            seen.push_back(key);
            r.push_back(it);
        }
    }
    return value::make_list(std::move(r));
}
inline value min_max(render_state& st, const value& v, arguments& a, bool want_max) {
    static constexpr std::string_view p[] = {"case_sensitive", "attribute"};
    bound_args<2> b(a, want_max ? "max" : "min", p);
    const bool cs = b.has(0) && truthy(b[0]);
    auto items = items_of(v);
    if (items.empty()) return value::undefined(undefined_form::hint, want_max ? "No aggregated item, sequence was empty." : "No aggregated item, sequence was empty.");
    std::size_t best = 0;
    value bestkey = ignore_case(b.has(1) ? attribute_arg(st, items[0], b[1]) : items[0], cs);
    for (std::size_t i = 1; i < items.size(); ++i) {
        value k = ignore_case(b.has(1) ? attribute_arg(st, items[i], b[1]) : items[i], cs);
        const int c = compare(k, bestkey);
        if (want_max ? c > 0 : c < 0) {
            best = i;
            bestkey = k;
        }
    }
    return items[best];
}
inline value f_max(render_state& st, const value& v, arguments& a) { return min_max(st, v, a, true); }
inline value f_min(render_state& st, const value& v, arguments& a) { return min_max(st, v, a, false); }
inline value f_sum(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"attribute", "start"};
    bound_args<2> b(a, "sum", p);
    value total = b.get(1, value(0));
    for (auto& it : items_of(v)) total = arith(op::add, total, b.has(0) ? attribute_arg(st, it, b[0]) : it, st.max_size());
    return total;
}
inline value f_batch(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"linecount", "fill_with"};
    bound_args<2> b(a, "batch", p);
    if (!b.has(0)) raise(errc::template_type, "do_batch() missing 1 required positional argument: 'linecount'");
    // Jinja2: a batch ends when its length == linecount (compared as Python compares: 2.0 is 2,
    // and a linecount no length equals makes one batch); the last is filled when shorter
    const value& linecount = b[0];
    std::vector<value> r, cur;
    for (auto& it : items_of(v)) {
        if (equals(value(static_cast<long long>(cur.size())), linecount)) {
            r.push_back(value::make_list(std::move(cur)));
            cur.clear();
        }
        cur.push_back(it);
    }
    if (!cur.empty()) {
        if (b.has(1) && !b[1].is_none() && compare_holds(value(static_cast<long long>(cur.size())), linecount, op::lt)) {
            // [fill_with] * (linecount - len(tmp))
            const value missing = arith(op::sub, linecount, value(static_cast<long long>(cur.size())), st.max_size());
            if (!is_int_like(missing))
                type_error(std::string("can't multiply sequence by non-int of type '") + type_name(missing) + "'");
            bounded(missing.is_big_integer() ? std::numeric_limits<long>::max() : static_cast<long>(missing.as_integer()),
                    static_cast<std::size_t>(st.opt().limit.max_range), "batch size with fill_with");
            for (std::int64_t k = 0; k < missing.as_integer(); ++k) cur.push_back(b[1]);
        }
        r.push_back(value::make_list(std::move(cur)));
    }
    return value::make_list(std::move(r));
}
inline value f_slice(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"slices", "fill_with"};
    bound_args<2> b(a, "slice", p);
    const long slices = bounded(int_arg(b[0], 1, "slices"), static_cast<std::size_t>(st.opt().limit.max_range), "slices");
    if (slices <= 0) raise(errc::template_value, "slices must be positive");
    auto seq = items_of(v);
    const long length = static_cast<long>(seq.size());
    const long items_per = length / slices, extra = length % slices;
    long offset = 0;
    std::vector<value> r;
    for (long i = 0; i < slices; ++i) {
        const long start = offset + i * items_per;
        if (i < extra) ++offset;
        const long end = offset + (i + 1) * items_per;
        std::vector<value> tmp(seq.begin() + start, seq.begin() + end);
        if (b.has(1) && !b[1].is_none() && i >= extra) tmp.push_back(b[1]);
        r.push_back(value::make_list(std::move(tmp)));
    }
    return value::make_list(std::move(r));
}
inline value f_items(render_state&, const value& v, arguments&) {
    if (v.is_undefined()) return value::make_list({});
    if (!v.is_mapping_like()) type_error("Can only get item pairs from a mapping.");
    std::vector<value> r;
    r.reserve(length(v));
    for_each_item(v, [&](const value& k, const value& x) { r.push_back(value::make_list({k, x}, true)); });
    return value::make_list(std::move(r));
}
inline value f_attr(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"name"};
    bound_args<1> b(a, "attr", p);
    if (!b[0].is_string()) type_error(std::string("attribute name must be string, not '") + type_name(b[0]) + "'");
    const std::string_view name = b[0].as_string();
    if (v.is_undefined()) fail_undefined(v);
    const method_function* own = find_user_method(st.user_methods(), name);
    if (v.is_object()) {
        value r = v.object().getattr(name);
        if (r.is_defined() || !own) return r;
    } else if (has_method(v, name)) {
        return get_attribute(v, name, st.opt().sandboxed, st.strict());
    }
    if (own) return bind_user_method(v, name, own);
    return value();  // attr() does not fall back to items
}
inline value f_default(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"default_value", "boolean"};
    bound_args<2> b(a, "default", p);
    const bool boolean = b.has(1) && truthy(b[1]);
    if (v.is_undefined() || (boolean && !truthy(v))) return b.get(0, value::view_of(""));
    return v;
}
inline value f_groupby(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"attribute", "default", "case_sensitive"};
    bound_args<3> b(a, "groupby", p);
    const bool cs = b.has(2) && truthy(b[2]);
    auto items = items_of(v);
    std::vector<std::pair<value, value>> keyed;  // (sort key, item)
    for (auto& it : items) {
        value k = attribute_arg(st, it, b[0]);
        if (k.is_undefined() && b.has(1)) k = b[1];
        keyed.emplace_back(ignore_case(k, cs), it);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return compare(x.first, y.first) < 0; });
    std::vector<value> groups;
    for (std::size_t i = 0; i < keyed.size();) {
        std::size_t j = i;
        std::vector<value> members;
        while (j < keyed.size() && equals(keyed[j].first, keyed[i].first)) members.push_back(keyed[j++].second);
        value grouper = keyed[i].first;
        if (!cs) {
            // the group's key as it appears in its first item
            value k = attribute_arg(st, keyed[i].second, b[0]);
            if (k.is_undefined() && b.has(1)) k = b[1];
            grouper = k;
        }
        value gt = value::make_list({grouper, value::make_list(std::move(members))}, true);
        gt.list().group = true;
        groups.push_back(std::move(gt));
        i = j;
    }
    return value::make_list(std::move(groups));
}

inline value f_map(render_state& st, const value& v, arguments& a) {
    if (!truthy(v)) return generator({});
    auto items = items_of(v);
    std::vector<value> r;
    r.reserve(items.size());
    const value attribute = a.keyword("attribute");
    if (a.size() == 0 && attribute.is_defined()) {
        const value def = a.keyword("default");
        for (auto& it : items) {
            value x = attribute_arg(st, it, attribute);
            if (x.is_undefined() && def.is_defined()) x = def;
            r.push_back(x);
        }
        return generator(std::move(r));
    }
    if (a.size() == 0) type_error("map requires a filter argument");
    const std::string name = to_str(a[0]);
    arguments rest;
    for (std::size_t i = 1; i < a.size(); ++i) rest.push(a[i]);
    for (auto& [k, x] : a.keywords()) rest.push_keyword(k, x);
    for (auto& it : items) r.push_back(st.apply_filter(name, it, rest));
    return generator(std::move(r));
}

inline value select_impl(render_state& st, const value& v, arguments& a, bool by_attr, bool keep) {
    if (!truthy(v)) return generator({});
    auto items = items_of(v);
    std::size_t first = 0;
    value attribute;
    if (by_attr) {
        if (a.size() == 0) type_error("Missing parameter for attribute name");
        attribute = a[0];
        first = 1;
    }
    std::string test;
    arguments rest;
    const bool has_test = a.size() > first;
    if (has_test) {
        test = to_str(a[first]);
        for (std::size_t i = first + 1; i < a.size(); ++i) rest.push(a[i]);
        for (auto& [k, x] : a.keywords()) rest.push_keyword(k, x);
    }
    std::vector<value> r;
    for (auto& it : items) {
        const value x = by_attr ? attribute_arg(st, it, attribute) : it;
        const bool ok = has_test ? st.apply_test(test, x, rest) : truthy(x);
        if (ok == keep) r.push_back(it);
    }
    return generator(std::move(r));
}
inline value f_select(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, false, true); }
inline value f_reject(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, false, false); }
inline value f_selectattr(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, true, true); }
inline value f_rejectattr(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, true, false); }

// ---- serialisation ------------------------------------------------------------------------------

/// Python's pprint.pformat (width 80, indent 1, keys sorted): a list, tuple or mapping whose repr
/// does not fit in the width left is written an item per line, a string as several literals cut
/// after line ends and spaces; anything else as its repr.
class pretty_printer {
public:
    explicit pretty_printer(std::size_t max_size) : max_size_(max_size) {}
    std::string out;

    void format(const value& v, long indent, long allowance, int level) {
        check_stack();
        std::string rep;
        append_repr(rep, v, true);
        if (static_cast<long>(utf8_length(rep)) > width - indent - allowance) {
            if (v.is_mapping_like() && !v.is_object()) return mapping(v, indent, allowance, level + 1);
            if (v.is_sequence_like() && sequence_type(v) != seq_type::other)
                return items(v, indent, allowance, level + 1);
            if (v.is_string() && !v.is_markup()) return text(v.as_string(), indent, allowance, level + 1);
        }
        out += rep;
        check();
    }

private:
    static constexpr long width = 80;
    std::size_t max_size_;

    void check() const {
        if (out.size() > max_size_) raise(errc::template_limit, "pprint result exceeds the output size limit");
    }
    static std::string repr_of(std::string_view s) {
        std::string r;
        py_str_repr(r, s);
        return r;
    }
    static long length_of(std::string_view s) { return static_cast<long>(utf8_length(s)); }

    void mapping(const value& v, long indent, long allowance, int level) {
        const auto entries = mapping_items(v, true);
        out += '{';
        indent += 1;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const bool last = i + 1 == entries.size();
            std::string key;
            append_repr(key, entries[i].first, true);
            out += key;
            out += ": ";
            format(entries[i].second, indent + length_of(key) + 2, last ? allowance + 1 : 1, level);
            if (!last) {
                out += ",\n";
                out.append(static_cast<std::size_t>(indent), ' ');
            }
        }
        out += '}';
    }

    void items(const value& v, long indent, long allowance, int level) {
        const bool tuple = v.is_list() && v.list().tuple;
        const sequence seq(v);
        const char* end = !tuple ? "]" : seq.size() == 1 ? ",)" : ")";
        out += tuple ? '(' : '[';
        allowance += static_cast<long>(std::strlen(end));
        indent += 1;
        for (std::size_t i = 0; i < seq.size(); ++i) {
            const bool last = i + 1 == seq.size();
            if (i) {
                out += ",\n";
                out.append(static_cast<std::size_t>(indent), ' ');
            }
            format(seq[i], indent, last ? allowance : 1, level);
        }
        out += end;
    }

    void text(std::string_view s, long indent, long allowance, int level) {
        if (s.empty()) {
            out += "''";
            return;
        }
        std::vector<std::string> chunks;
        const std::vector<std::string_view> lines = py_splitlines(s, true);
        if (level == 1) {
            indent += 1;
            allowance += 1;
        }
        long max_width1 = width - indent;
        const long max_width = width - indent;
        std::string rep;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            rep = repr_of(lines[i]);
            if (i + 1 == lines.size()) max_width1 -= allowance;
            if (length_of(rep) <= max_width1) {
                chunks.push_back(rep);
                continue;
            }
            // the line as runs of non-spaces each followed by its spaces (re.findall(r'\S*\s*'))
            std::vector<std::string_view> parts;
            const std::string_view line = lines[i];
            for (std::size_t b = 0; b < line.size();) {
                std::size_t e = b;
                bool in_space = false;
                while (e < line.size()) {
                    std::size_t next = e;
                    const bool space = py_isspace(utf8_decode(line, next));
                    if (!space && in_space) break;
                    in_space = in_space || space;
                    e = next;
                }
                parts.push_back(line.substr(b, e - b));
                b = e;
            }
            long max_width2 = max_width;
            std::string current;
            for (std::size_t j = 0; j < parts.size(); ++j) {
                std::string candidate = current + std::string(parts[j]);
                if (j + 1 == parts.size() && i + 1 == lines.size()) max_width2 -= allowance;
                if (length_of(repr_of(candidate)) > max_width2) {
                    if (!current.empty()) chunks.push_back(repr_of(current));
                    current = std::string(parts[j]);
                } else {
                    current = std::move(candidate);
                }
            }
            if (!current.empty()) chunks.push_back(repr_of(current));
        }
        if (chunks.size() == 1) {
            out += rep;
            return check();
        }
        if (level == 1) out += '(';
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            if (i) {
                out += '\n';
                out.append(static_cast<std::size_t>(indent), ' ');
            }
            out += chunks[i];
            check();
        }
        if (level == 1) out += ')';
    }
};

inline value f_pprint(render_state& st, const value& v, arguments&) {
    pretty_printer p(st.max_size());
    p.format(v, 0, 0, 0);
    return value(std::move(p.out));
}

/// Jinja2's default tojson: json.dumps with sorted keys, with <, >, & and ' written as JSON
/// escapes (u003c, u003e, u0026, u0027) so that the text is safe in HTML. Compile-time
/// templates compute their tojson with it too.
inline std::string tojson_plain(const value& v, const dump_options& o, std::size_t max_size) {
    std::string s;
    dump_value(s, v, o, 0, max_size);
    std::string r;
    r.reserve(s.size());
    for (char c : s) {
        if (c == '<') r += "\\u003c";
        else if (c == '>') r += "\\u003e";
        else if (c == '&') r += "\\u0026";
        else if (c == '\'') r += "\\u0027";
        else r += c;
    }
    return r;
}

inline value f_tojson_plain(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"indent"};
    bound_args<1> b(a, "tojson", p);
    dump_options o;
    o.sort_keys = true;
    if (b.has(0) && !b[0].is_none()) {
        o.indent = b[0].is_string() ? std::string(b[0].as_string())
                                    : std::string(static_cast<std::size_t>(std::max(0L, int_arg(b[0], 0, "indent"))), ' ');
        o.item_sep = ",";
    }
    return value::markup(tojson_plain(v, o, st.max_size()));
}

inline value f_tojson_hf(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"ensure_ascii", "indent", "separators", "sort_keys"};
    bound_args<4> b(a, "tojson", p);
    dump_options o = hf_tojson_defaults();
    if (b.has(0)) o.ensure_ascii = truthy(b[0]);
    o.sort_keys = b.has(3) && truthy(b[3]);
    if (b.has(1) && !b[1].is_none()) {
        o.indent = b[1].is_string() ? std::string(b[1].as_string())
                                    : std::string(static_cast<std::size_t>(std::max(0L, int_arg(b[1], 0, "indent"))), ' ');
        o.item_sep = ",";
    }
    if (b.has(2) && !b[2].is_none()) {
        sequence seps(b[2]);
        if (seps.size() != 2) raise(errc::template_value, "separators must be a pair of strings");
        o.item_sep = to_str(seps[0]);
        o.key_sep = to_str(seps[1]);
    }
    std::string s;
    dump_value(s, v, o, 0, st.max_size());
    return value(std::move(s));
}

}  // namespace parley::jinja::detail::filters

#endif
