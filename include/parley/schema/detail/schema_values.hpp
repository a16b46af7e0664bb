// parley/schema/detail/schema_values.hpp: what the JSON Schema validator needs of JSON values:
// numbers compared exactly across integers and doubles, JSON Schema's equality (1 and 1.0 are
// equal, true and 1 are not) and uniqueness, and the values written as Python writes them
// (`repr`), for messages phrased as Python's jsonschema phrases them.
#ifndef PARLEY_SCHEMA_DETAIL_SCHEMA_VALUES_HPP
#define PARLEY_SCHEMA_DETAIL_SCHEMA_VALUES_HPP

#include <parley/schema/detail/ecma_regex.hpp>

#include <boost/json/value.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace parley::detail::validation {

inline bool is_number(const boost::json::value& v) noexcept {
    return v.is_int64() || v.is_uint64() || v.is_double();
}

/// JSON Schema's integer: an integer, or a number without a fraction (1.0).
inline bool is_integer(const boost::json::value& v) noexcept {
    if (v.is_int64() || v.is_uint64()) return true;
    if (!v.is_double()) return false;
    const double d = v.get_double();
    return std::isfinite(d) && std::trunc(d) == d;
}

/// -1, 0 or 1 as `i` is below, equal to or above `d` (exactly, not after a conversion).
inline int compare_int_double(std::int64_t i, double d) noexcept {
    if (d >= 9223372036854775808.0) return -1;
    if (d < -9223372036854775808.0) return 1;
    const double t = std::trunc(d);
    const auto ti = static_cast<std::int64_t>(t);
    if (i != ti) return i < ti ? -1 : 1;
    const double frac = d - t;
    return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

inline int compare_uint_double(std::uint64_t u, double d) noexcept {
    if (d < 0) return 1;
    if (d >= 18446744073709551616.0) return -1;
    const double t = std::trunc(d);
    const auto tu = static_cast<std::uint64_t>(t);
    if (u != tu) return u < tu ? -1 : 1;
    return d - t > 0 ? -1 : 0;
}

/// -1, 0 or 1 as the number `a` is below, equal to or above the number `b`, exactly.
inline int compare_numbers(const boost::json::value& a, const boost::json::value& b) noexcept {
    auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
    if (a.is_double() && b.is_double()) return sign(a.get_double(), b.get_double());
    if (a.is_double()) return -(b.is_int64() ? compare_int_double(b.get_int64(), a.get_double()) : compare_uint_double(b.get_uint64(), a.get_double()));
    if (b.is_double()) return a.is_int64() ? compare_int_double(a.get_int64(), b.get_double()) : compare_uint_double(a.get_uint64(), b.get_double());
    if (a.is_int64() && b.is_int64()) return sign(a.get_int64(), b.get_int64());
    if (a.is_uint64() && b.is_uint64()) return sign(a.get_uint64(), b.get_uint64());
    if (a.is_int64()) return a.get_int64() < 0 ? -1 : sign(static_cast<std::uint64_t>(a.get_int64()), b.get_uint64());
    return b.get_int64() < 0 ? 1 : sign(a.get_uint64(), static_cast<std::uint64_t>(b.get_int64()));
}

inline double to_double(const boost::json::value& v) noexcept {
    if (v.is_double()) return v.get_double();
    if (v.is_int64()) return static_cast<double>(v.get_int64());
    return static_cast<double>(v.get_uint64());
}

/// JSON Schema's equality of instances (enum, const, uniqueItems): numbers by value, strings,
/// arrays and objects member by member, a boolean equal only to the same boolean.
inline bool json_equal(const boost::json::value& a, const boost::json::value& b) {
    if (is_number(a) && is_number(b)) return compare_numbers(a, b) == 0;
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case boost::json::kind::null: return true;
    case boost::json::kind::bool_: return a.get_bool() == b.get_bool();
    case boost::json::kind::string: return a.get_string() == b.get_string();
    case boost::json::kind::array: {
        const auto& x = a.get_array();
        const auto& y = b.get_array();
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!json_equal(x[i], y[i])) return false;
        return true;
    }
    case boost::json::kind::object: {
        const auto& x = a.get_object();
        const auto& y = b.get_object();
        if (x.size() != y.size()) return false;
        for (const auto& m : x) {
            const auto* other = y.if_contains(m.key());
            if (!other || !json_equal(m.value(), *other)) return false;
        }
        return true;
    }
    default: return false;
    }
}

/// A hash that equal values (json_equal) share.
inline std::size_t json_hash(const boost::json::value& v) {
    auto mix = [](std::size_t h, std::size_t x) { return h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); };
    if (is_number(v)) {
        double d = to_double(v);  // equal numbers have equal doubles
        if (d == 0) d = 0;  // -0.0
        return mix(3, std::hash<double>{}(d));
    }
    switch (v.kind()) {
    case boost::json::kind::null: return 1;
    case boost::json::kind::bool_: return v.get_bool() ? 2 : 5;
    case boost::json::kind::string: return mix(7, std::hash<std::string_view>{}(std::string_view(v.get_string())));
    case boost::json::kind::array: {
        std::size_t h = 11;
        for (const auto& e : v.get_array()) h = mix(h, json_hash(e));
        return h;
    }
    case boost::json::kind::object: {
        std::size_t h = 13;  // independent of the members' order
        for (const auto& m : v.get_object())
            h += mix(std::hash<std::string_view>{}(std::string_view(m.key())), json_hash(m.value()));
        return h;
    }
    default: return 0;
    }
}

/// Whether no two items of `a` are equal (json_equal).
inline bool unique_items(const boost::json::array& a) {
    std::unordered_multimap<std::size_t, std::size_t> seen;
    seen.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::size_t h = json_hash(a[i]);
        auto [lo, hi] = seen.equal_range(h);
        for (auto it = lo; it != hi; ++it)
            if (json_equal(a[it->second], a[i])) return false;
        seen.emplace(h, i);
    }
    return true;
}

/// A double as Python's repr writes it: the shortest digits that read back, fixed notation for
/// exponents from -4 to 15 (`0.0001`, `100.0`), else `1e+16`, `1.5e-05`.
inline std::string python_float(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
    std::string out;
    if (s.front() == '-') {
        out += '-';
        s.remove_prefix(1);
    }
    const std::size_t e = s.find('e');
    std::string digits;
    for (char c : s.substr(0, e))
        if (c != '.') digits += c;
    const int exponent = std::atoi(std::string(s.substr(e + 1)).c_str());
    const int decpt = exponent + 1;  // value = 0.DIGITS x 10^decpt
    const int n = static_cast<int>(digits.size());
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) out += "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
        else if (decpt >= n) out += digits + std::string(static_cast<std::size_t>(decpt - n), '0') + ".0";
        else out += digits.substr(0, static_cast<std::size_t>(decpt)) + "." + digits.substr(static_cast<std::size_t>(decpt));
    } else {
        out += digits.substr(0, 1);
        if (n > 1) out += "." + digits.substr(1);
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
        out += exp;
    }
    return out;
}

/// A number as Python writes it (an integer in decimal, a double by python_float).
inline std::string python_number(const boost::json::value& v) {
    if (v.is_int64()) return std::to_string(v.get_int64());
    if (v.is_uint64()) return std::to_string(v.get_uint64());
    return python_float(v.get_double());
}

/// Whether Python's str.isprintable() holds for a code point outside ASCII (an approximation:
/// the controls, spaces other than ' ', format characters, separators, surrogates and private
/// use are not printable; unassigned code points are taken as printable).
inline bool python_printable(char32_t c) noexcept {
    if (c < 0xA1) return false;  // C1 controls and the no-break space
    if (c == 0xAD || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x1680 || c == 0x180E || c == 0xFEFF) return false;
    if (c >= 0x600 && c <= 0x605) return false;
    if (c >= 0x2000 && c <= 0x200F) return false;
    if (c >= 0x2028 && c <= 0x202F) return false;
    if (c >= 0x205F && c <= 0x206F) return false;
    if (c == 0x3000 || (c >= 0xFFF9 && c <= 0xFFFB)) return false;
    if (c >= 0xD800 && c <= 0xF8FF) return false;  // surrogates, private use
    if (c >= 0xF0000) return false;
    return true;
}

/// A string as Python's repr writes it: 'text', or "text" when it holds ' and no ".
inline void python_string(std::string& out, std::string_view s) {
    const bool double_quotes = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
    const char quote = double_quotes ? '"' : '\'';
    out += quote;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t from = i;
        const char32_t c = ecma_regex::next_code_point(s, i);
        char esc[16];
        if (c == static_cast<char32_t>(quote) || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7F) {
            std::snprintf(esc, sizeof esc, "\\x%02x", static_cast<unsigned>(c));
            out += esc;
        } else if (c < 0x7F) {
            out += static_cast<char>(c);
        } else if (!python_printable(c)) {
            if (c <= 0xFF) std::snprintf(esc, sizeof esc, "\\x%02x", static_cast<unsigned>(c));
            else if (c <= 0xFFFF) std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(c));
            else std::snprintf(esc, sizeof esc, "\\U%08x", static_cast<unsigned>(c));
            out += esc;
        } else {
            out.append(s.substr(from, i - from));
        }
    }
    out += quote;
}

/// Appends Python's repr of `v` (None, True, 1, 1.5, 'text', [...], {...}) to `out`, stopping
/// once `out` is longer than `limit` bytes (the caller then cuts it).
inline void python_repr(std::string& out, const boost::json::value& v, std::size_t limit) {
    if (out.size() > limit) return;
    switch (v.kind()) {
    case boost::json::kind::null: out += "None"; return;
    case boost::json::kind::bool_: out += v.get_bool() ? "True" : "False"; return;
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: out += python_number(v); return;
    case boost::json::kind::string: python_string(out, v.get_string()); return;
    case boost::json::kind::array: {
        out += '[';
        bool first = true;
        for (const auto& e : v.get_array()) {
            if (out.size() > limit) return;
            if (!first) out += ", ";
            first = false;
            python_repr(out, e, limit);
        }
        out += ']';
        return;
    }
    case boost::json::kind::object: {
        out += '{';
        bool first = true;
        for (const auto& m : v.get_object()) {
            if (out.size() > limit) return;
            if (!first) out += ", ";
            first = false;
            python_string(out, m.key());
            out += ": ";
            python_repr(out, m.value(), limit);
        }
        out += '}';
        return;
    }
    }
}

/// Cuts `s` to at most `limit` bytes (not inside a UTF-8 character) and marks the cut with `...`.
inline std::string shortened(std::string s, std::size_t limit) {
    if (s.size() <= limit) return s;
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s.resize(cut);
    s += "...";
    return s;
}

/// Python's repr of `v`, cut after `limit` bytes.
inline std::string repr(const boost::json::value& v, std::size_t limit) {
    std::string out;
    python_repr(out, v, limit);
    return shortened(std::move(out), limit);
}

/// Python's repr of a string, cut after `limit` bytes.
inline std::string repr(std::string_view s, std::size_t limit) {
    std::string out;
    python_string(out, s);
    return shortened(std::move(out), limit);
}

/// A JSON pointer token: `~` as `~0`, `/` as `~1`.
inline void append_pointer_token(std::string& out, std::string_view token) {
    for (char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
}

/// The number of code points of UTF-8 text (as Python's len of a str).
inline std::size_t code_points(std::string_view s) noexcept {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
}

}  // namespace parley::detail::validation

#endif
