// parley/jinja/detail/format.hpp: Python's `%` formatting and `str.format`.
#ifndef PARLEY_JINJA_DETAIL_FORMAT_HPP
#define PARLEY_JINJA_DETAIL_FORMAT_HPP

#include <parley/jinja/detail/ops.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

namespace parley::jinja::detail {

inline void pad_to(std::string& out, std::string_view s, std::size_t width, char align, char32_t fill) {
    const std::size_t len = utf8_length(s);
    if (len >= width) {
        out += s;
        return;
    }
    const std::size_t pad = width - len;
    std::size_t left = 0;
    if (align == '>' ) left = pad;
    else if (align == '^') left = pad / 2;
    for (std::size_t i = 0; i < left; ++i) utf8_append(out, fill);
    out += s;
    for (std::size_t i = left; i < pad; ++i) utf8_append(out, fill);
}

/// Python's int(v) of a number for %d: an int of any size.
inline value int_of(const value& v, const char* what) {
    if (v.is_integer() || v.is_big_integer()) return v;
    if (v.is_bool()) return value(static_cast<long long>(v.as_integer()));
    if (v.is_float()) {
        const double d = v.as_float();
        if (!std::isfinite(d)) raise(errc::template_value, "cannot convert float infinity or NaN to integer");
        return int_of_float(d);
    }
    type_error(std::string(what) + " format: a real number is required, not " + type_name(v));
}

/// A `*` width or precision: an int in C's int range.
inline int star_arg(const value& v) {
    if (!v.is_integer() && !v.is_bool()) {
        if (v.is_big_integer()) raise(errc::template_value, "Python int too large to convert to C int");
        type_error("* wants int");
    }
    const std::int64_t i = v.as_integer();
    if (i > std::numeric_limits<int>::max() || i < -std::numeric_limits<int>::max())
        raise(errc::template_value, "Python int too large to convert to C int");
    return static_cast<int>(i);
}

inline double float_of(const value& v, const char* what) {
    if (v.is_number()) return float_value(v);
    type_error(std::string(what) + " format: a real number is required, not " + type_name(v));
}

/// The digits of the magnitude of an int of any size (or a bool) in base 2, 8, 10 or 16
/// (`upper`: A-F); `negative` says its sign. Python's limit on decimal digits applies.
inline std::string int_digits(const value& v, int base, bool upper, bool& negative) {
    std::string d;
    if (v.is_big_integer()) {
        const bigint& n = v.big_integer();
        negative = n.negative();
        if (base == 10) {
            append_big_int(d, n.abs());
        } else {
            d = n.abs().to_string(base);
        }
    } else {
        const std::int64_t x = v.as_integer();
        negative = x < 0;
        std::uint64_t u = negative ? 0 - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x);
        do {
            d += "0123456789abcdef"[u % static_cast<unsigned>(base)];
            u /= static_cast<unsigned>(base);
        } while (u);
        std::reverse(d.begin(), d.end());
    }
    if (upper)
        for (char& c : d)
            if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    return d;
}

/// `%c` of an int: the character, Python's OverflowError outside range(0x110000).
inline char32_t char_of_int(const value& v) {
    if (v.is_big_integer() || v.as_integer() < 0 || v.as_integer() >= 0x110000)
        raise(errc::template_value, "%c arg not in range(0x110000)");
    return static_cast<char32_t>(v.as_integer());
}

// C printf for one number conversion: flags, width, precision as given.
template <class T>
void c_format(std::string& out, std::string_view flags, int width, int precision, char conv, T x) {
    char spec[32];
    std::size_t k = 0;
    spec[k++] = '%';
    for (char f : flags)
        if (k < 10) spec[k++] = f;
    spec[k] = 0;
    std::string s(spec);
    if (width >= 0) s += std::to_string(width);
    if (precision >= 0) s += "." + std::to_string(precision);
    if constexpr (std::is_integral_v<T>) s += "ll";
    s += conv;
    const int n = std::snprintf(nullptr, 0, s.c_str(), x);
    if (n < 0) raise(errc::template_value, "bad format");
    std::string buf(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(buf.data(), buf.size(), s.c_str(), x);
    buf.resize(static_cast<std::size_t>(n));
    out += buf;
}

/// `fmt % args` with Python's printf-style rules; a Markup `fmt` escapes what %s, %r and %a
/// insert (markupsafe's Markup.__mod__), and gives Markup.
inline value percent_format_impl(const value& fmt, const value& args, std::size_t max_size) {
    const std::string_view f = fmt.as_string();
    const bool tuple_args = args.is_list() && args.list().tuple;
    std::size_t next_arg = 0;
    const std::size_t nargs = tuple_args ? args.list().items.size() : 1;
    bool used_mapping = false;
    auto take = [&]() -> value {
        if (next_arg >= nargs) type_error("not enough arguments for format string");
        return tuple_args ? args.list().items[next_arg++] : (next_arg++, args);
    };
    std::string out;
    for (std::size_t i = 0; i < f.size(); ++i) {
        if (f[i] != '%') {
            out += f[i];
            continue;
        }
        if (++i >= f.size()) raise(errc::template_value, "incomplete format");
        value arg;
        bool have_arg = false;
        if (f[i] == '(') {
            const std::size_t close = f.find(')', i);
            if (close == std::string_view::npos) raise(errc::template_value, "incomplete format key");
            if (!args.is_mapping_like()) type_error("format requires a mapping");
            value key = value::view_of(f.substr(i + 1, close - i - 1));
            if (!mapping_find(args, key, arg)) raise(errc::template_value, "KeyError: " + single_quoted(key.as_string()));
            have_arg = true;
            used_mapping = true;
            i = close + 1;
        }
        std::string flags;
        while (i < f.size() && (f[i] == '-' || f[i] == '+' || f[i] == ' ' || f[i] == '#' || f[i] == '0')) {
            if (flags.find(f[i]) == std::string::npos) flags += f[i];
            ++i;
        }
        int width = -1, precision = -1;
        if (i < f.size() && f[i] == '*') {
            width = star_arg(take());
            if (width < 0) {
                flags += '-';
                width = -width;
            }
            ++i;
        } else {
            // digits past the limit stop counting (the limit's error follows): no int overflow
            while (i < f.size() && f[i] >= '0' && f[i] <= '9')
                width = std::min((width < 0 ? 0 : width) * 10 + (f[i++] - '0'), 1000000);
        }
        if (i < f.size() && f[i] == '.') {
            ++i;
            precision = 0;
            if (i < f.size() && f[i] == '*') {
                precision = std::max(star_arg(take()), 0);
                ++i;
            } else {
                while (i < f.size() && f[i] >= '0' && f[i] <= '9')
                    precision = std::min(precision * 10 + (f[i++] - '0'), 1000000);
            }
        }
        while (i < f.size() && (f[i] == 'h' || f[i] == 'l' || f[i] == 'L')) ++i;
        if (i >= f.size()) raise(errc::template_value, "incomplete format");
        const char conv = f[i];
        if (width > 100000 || precision > 100000) raise(errc::template_limit, "format width or precision too large");
        if (conv == '%') {
            out += '%';
            continue;
        }
        if (!have_arg) arg = take();
        switch (conv) {
        case 's':
        case 'r':
        case 'a': {
            std::string s = conv == 's' ? to_str(arg) : to_repr(arg);
            if (fmt.is_markup() && !(conv == 's' && arg.is_markup())) {  // Markup % args escapes the texts
                std::string escaped;
                html_escape(escaped, s);
                s = std::move(escaped);
            }
            if (precision >= 0) s.resize(utf8_offset(s, static_cast<std::size_t>(precision)));
            pad_to(out, s, width < 0 ? 0 : static_cast<std::size_t>(width), flags.find('-') != std::string::npos ? '<' : '>', U' ');
            break;
        }
        case 'd':
        case 'i':
        case 'u':
        case 'o':
        case 'x':
        case 'X': {
            const bool decimal = conv == 'd' || conv == 'i' || conv == 'u';
            if (!decimal && !is_int_like(arg))
                type_error(std::string("%") + conv + " format: an integer is required, not " + type_name(arg));
            // Python prints the sign and the magnitude (at least `precision` digits); '#' gives
            // 0o / 0x / 0X
            bool negative = false;
            std::string digits = int_digits(decimal ? int_of(arg, "%d") : arg, decimal ? 10 : conv == 'o' ? 8 : 16, conv == 'X', negative);
            if (precision > 0 && digits.size() < static_cast<std::size_t>(precision))
                digits.insert(0, static_cast<std::size_t>(precision) - digits.size(), '0');
            std::string prefix = negative ? "-" : flags.find('+') != std::string::npos ? "+" : flags.find(' ') != std::string::npos ? " " : "";
            if (!decimal && flags.find('#') != std::string::npos) prefix += conv == 'o' ? "0o" : conv == 'x' ? "0x" : "0X";
            std::string body = prefix + digits;
            if (width > 0 && body.size() < static_cast<std::size_t>(width)) {
                const std::size_t pad = static_cast<std::size_t>(width) - body.size();
                if (flags.find('-') != std::string::npos) body += std::string(pad, ' ');
                else if (flags.find('0') != std::string::npos) body = prefix + std::string(pad, '0') + digits;
                else body = std::string(pad, ' ') + body;
            }
            out += body;
            break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G': c_format(out, flags, width, precision, conv, float_of(arg, "%f")); break;
        case 'c': {
            if (arg.is_string() && utf8_length(arg.as_string()) == 1) {
                pad_to(out, arg.as_string(), width < 0 ? 0 : static_cast<std::size_t>(width), flags.find('-') != std::string::npos ? '<' : '>', U' ');
            } else if (arg.is_integer() || arg.is_big_integer()) {
                std::string s;
                utf8_append(s, char_of_int(arg));
                pad_to(out, s, width < 0 ? 0 : static_cast<std::size_t>(width), flags.find('-') != std::string::npos ? '<' : '>', U' ');
            } else {
                type_error("%c requires int or char");
            }
            break;
        }
        default:
            raise(errc::template_value, std::string("unsupported format character '") + conv + "'");
        }
        if (out.size() > max_size) raise(errc::template_limit, "formatted string exceeds the output size limit");
    }
    // Python checks that every argument was used unless the argument, not a tuple, has
    // __getitem__ (a mapping, a list, an undefined value; not a string)
    const bool has_getitem = args.is_mapping_like() || args.is_undefined() ||
                             (args.is_sequence_like() && sequence_type(args) != seq_type::other);
    if (!used_mapping && next_arg < nargs && (tuple_args || next_arg == 0) && !(has_getitem && !tuple_args))
        type_error("not all arguments converted during string formatting");
    return fmt.is_markup() ? value::markup(std::move(out)) : value(std::move(out));
}

// ---- str.format ---------------------------------------------------------------------------------

struct format_spec {
    char32_t fill = U' ';
    bool fill_given = false;
    char align = 0;
    char sign = 0;
    bool alt = false;
    bool zero = false;
    long width = -1;
    char grouping = 0;
    long precision = -1;
    char type = 0;
};

inline format_spec parse_spec(std::string_view s) {
    format_spec f;
    std::size_t i = 0;
    // [[fill]align]
    if (!s.empty()) {
        std::size_t j = 0;
        const char32_t c = utf8_decode(s, j);
        if (j < s.size() && (s[j] == '<' || s[j] == '>' || s[j] == '^' || s[j] == '=')) {
            f.fill = c;
            f.fill_given = true;
            f.align = s[j];
            i = j + 1;
        } else if (s[0] == '<' || s[0] == '>' || s[0] == '^' || s[0] == '=') {
            f.align = s[0];
            i = 1;
        }
    }
    if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) f.sign = s[i++];
    if (i < s.size() && s[i] == '#') {
        f.alt = true;
        ++i;
    }
    if (i < s.size() && s[i] == '0') {  // a fill of '0' unless one was given
        f.zero = true;
        if (!f.fill_given) f.fill = U'0';
        ++i;
    }
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        f.width = (f.width < 0 ? 0 : f.width) * 10 + (s[i++] - '0');
        if (f.width > 100000) raise(errc::template_limit, "format width too large");
    }
    if (i < s.size() && (s[i] == ',' || s[i] == '_')) f.grouping = s[i++];
    if (i < s.size() && s[i] == '.') {
        ++i;
        f.precision = 0;
        bool any = false;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            f.precision = f.precision * 10 + (s[i++] - '0');
            any = true;
            if (f.precision > 100000) raise(errc::template_limit, "format precision too large");
        }
        if (!any) raise(errc::template_value, "Format specifier missing precision");
    }
    if (i < s.size()) f.type = s[i++];
    if (i != s.size()) raise(errc::template_value, "Invalid format specifier");
    return f;
}

/// The digits of an integer part with `sep` between groups of `group` (from the right), padded
/// with grouped zeros to at least `min_width` characters, as Python's format() writes a number
/// padded with zeros (_PyUnicode_InsertThousandsGrouping).
inline std::string group_digits(std::string_view digits, std::size_t group, char sep, long min_width) {
    std::string r;  // backwards
    long remaining = static_cast<long>(digits.size());
    std::size_t pos = digits.size();
    bool use_sep = false;
    for (;;) {
        const long len = std::min(static_cast<long>(group), std::max(std::max(remaining, min_width), 1L));
        const long zeros = std::max(0L, len - remaining), chars = std::max(0L, std::min(remaining, len));
        if (use_sep && sep) r += sep;
        for (long k = 0; k < chars; ++k) r += digits[--pos];
        r.append(static_cast<std::size_t>(zeros), '0');
        use_sep = true;
        remaining -= chars;
        min_width -= len;
        if (remaining <= 0 && min_width <= 0) break;
        if (sep) min_width -= 1;
    }
    std::reverse(r.begin(), r.end());
    return r;
}

inline void format_number(std::string& out, const value& v, const format_spec& f) {
    std::string body;  // without sign
    bool negative = false;
    char type = f.type;
    // numbers: the '0' flag without an alignment is `=` (after the sign), and the zero padding
    // of `=` goes into the digits (grouped with them)
    const char align = f.align ? f.align : (f.zero ? '=' : '>');
    const char32_t fill = f.fill;
    const bool zero_padded = align == '=' && fill == U'0';
    const auto sign_of = [&](bool neg) -> std::string { return neg ? "-" : f.sign == '+' ? "+" : f.sign == ' ' ? " " : ""; };
    if (is_int_like(v) && (type == 0 || type == 'd' || type == 'n' || type == 'b' || type == 'o' || type == 'x' ||
                           type == 'X' || type == 'c')) {
        if (f.precision >= 0) raise(errc::template_value, "Precision not allowed in integer format specifier");
        if (f.grouping && (type == 'c' || type == 'n' || (f.grouping == ',' && type != 0 && type != 'd')))
            raise(errc::template_value, std::string("Cannot specify '") + f.grouping + "' with '" + type + "'.");
        if (type == 'c') {
            if (f.sign) raise(errc::template_value, "Sign not allowed with integer format specifier 'c'");
            if (f.alt) raise(errc::template_value, "Alternate form (#) not allowed with integer format specifier 'c'");
            utf8_append(body, char_of_int(v));
        } else {
            const int base = type == 'b' ? 2 : type == 'o' ? 8 : (type == 'x' || type == 'X') ? 16 : 10;
            const std::string digits = int_digits(v, base, type == 'X', negative);
            const std::string prefix = !f.alt || base == 10 ? "" : type == 'b' ? "0b" : type == 'o' ? "0o" : type == 'x' ? "0x" : "0X";
            const long min_width = zero_padded && f.width > 0
                                       ? f.width - static_cast<long>(sign_of(negative).size() + prefix.size())
                                       : 0;
            if (f.grouping || min_width > 0)
                body = prefix + group_digits(digits, base == 10 ? 3 : 4, f.grouping, min_width);
            else
                body = prefix + digits;
            if (zero_padded) {  // the padding is in the digits
                out += sign_of(negative);
                out += body;
                return;
            }
        }
    } else {
        const double d = float_of(v, "format");
        negative = std::signbit(d) && !std::isnan(d);
        const double a = std::fabs(d);
        if (type == 0 && f.precision < 0) {
            py_float_repr(body, a);
        } else {
            char t = type == 0 ? 'g' : type == 'n' ? 'g' : type;
            if (std::string_view("eEfFgG%").find(t) == std::string_view::npos)  // never handed to snprintf
                raise(errc::template_value,
                      std::string("Unknown format code '") + t + "' for object of type '" + type_name(v) + "'");
            const long prec = f.precision < 0 ? 6 : f.precision;
            if (t == '%') {
                c_format(body, f.alt ? "#" : "", -1, static_cast<int>(prec), 'f', a * 100.0);
                body += '%';
            } else {
                c_format(body, f.alt ? "#" : "", -1, static_cast<int>(prec), t, a);
                if (type == 0 && body.find_first_of(".einf") == std::string::npos) body += ".0";
            }
        }
        const std::size_t e = body.find_first_not_of("0123456789");
        if (e != 0 && (f.grouping || (zero_padded && f.width > 0))) {  // (not inf or nan)
            const std::string ip = body.substr(0, e), rest = e == std::string::npos ? "" : body.substr(e);
            const long min_width =
                zero_padded && f.width > 0 ? f.width - static_cast<long>(sign_of(negative).size() + utf8_length(rest)) : 0;
            body = group_digits(ip, 3, f.grouping, min_width) + rest;
            if (zero_padded) {
                out += sign_of(negative);
                out += body;
                return;
            }
        }
    }
    std::string sign = sign_of(negative);
    const std::size_t width = f.width < 0 ? 0 : static_cast<std::size_t>(f.width);
    const std::size_t len = utf8_length(sign) + utf8_length(body);
    if (align == '=' && len < width) {
        out += sign;
        for (std::size_t i = len; i < width; ++i) utf8_append(out, fill);
        out += body;
        return;
    }
    pad_to(out, sign + body, width, align, fill);
}

inline void format_value(std::string& out, const value& v, std::string_view spec_text) {
    if (spec_text.empty()) {
        append_str(out, v);
        return;
    }
    const format_spec f = parse_spec(spec_text);
    if (v.is_number() && !(v.is_bool() && f.type == 0 && f.width < 0 && !f.sign)) {
        if (f.type == 's') raise(errc::template_value, std::string("Unknown format code 's' for object of type '") + type_name(v) + "'");
        format_number(out, v, f);
        return;
    }
    if (v.is_string()) {
        if (f.type && f.type != 's')
            raise(errc::template_value, std::string("Unknown format code '") + f.type + "' for object of type 'str'");
        std::string_view s = v.as_string();
        if (f.precision >= 0) s = s.substr(0, utf8_offset(s, static_cast<std::size_t>(f.precision)));
        pad_to(out, s, f.width < 0 ? 0 : static_cast<std::size_t>(f.width), f.align ? f.align : '<', f.fill);
        return;
    }
    type_error(std::string("unsupported format string passed to ") + type_name(v) + ".__format__");
}

}  // namespace parley::jinja::detail

#endif
