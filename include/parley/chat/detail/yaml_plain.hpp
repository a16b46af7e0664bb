// parley/chat/detail/yaml_plain.hpp: what an unquoted YAML scalar means (YAML 1.2's core schema:
// null, boolean, integer, float or string), and numbers written so that they read back equal.
#ifndef PARLEY_CHAT_DETAIL_YAML_PLAIN_HPP
#define PARLEY_CHAT_DETAIL_YAML_PLAIN_HPP

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>

namespace parley::detail {

/// The value of a plain scalar under the core schema.
struct plain_null {};
using plain_value = std::variant<plain_null, bool, std::int64_t, std::uint64_t, double, std::string_view>;

constexpr bool yaml_digits(std::string_view s, int base) noexcept {
    if (s.empty()) return false;
    for (char c : s) {
        const bool ok = base == 8    ? (c >= '0' && c <= '7')
                        : base == 10 ? (c >= '0' && c <= '9')
                                     : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
        if (!ok) return false;
    }
    return true;
}

/// True when `s` matches the core schema's float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
constexpr bool yaml_float_syntax(std::string_view s) noexcept {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t int_digits = 0, frac_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++int_digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++frac_digits;
        if (int_digits == 0 && frac_digits == 0) return false;
    } else if (int_digits == 0) {
        return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t exp_digits = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
        if (exp_digits == 0) return false;
    }
    return i == s.size();
}

/// What the plain scalar `s` means. Integers too large for 64 bits become doubles (as in JSON).
inline plain_value resolve_plain(std::string_view s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return plain_null{};
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    const std::string_view unsigned_part = (s[0] == '+' || s[0] == '-') ? s.substr(1) : s;
    if (yaml_digits(unsigned_part, 10)) {
        std::int64_t i = 0;
        const char* first = s[0] == '+' ? s.data() + 1 : s.data();
        if (auto r = std::from_chars(first, s.data() + s.size(), i); r.ec == std::errc() && r.ptr == s.data() + s.size())
            return i;
        std::uint64_t u = 0;
        if (s[0] != '-')
            if (auto r = std::from_chars(first, s.data() + s.size(), u);
                r.ec == std::errc() && r.ptr == s.data() + s.size())
                return u;
    }
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
        const int base = s[1] == 'o' ? 8 : 16;
        if (yaml_digits(s.substr(2), base)) {
            std::uint64_t u = 0;
            if (auto r = std::from_chars(s.data() + 2, s.data() + s.size(), u, base); r.ec == std::errc()) {
                if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                    return static_cast<std::int64_t>(u);
                return u;
            }
            return s;  // too large: a string
        }
    }
    if (yaml_float_syntax(s)) {
        double d = 0;
        const char* first = s[0] == '+' ? s.data() + 1 : s.data();
        const auto r = std::from_chars(first, s.data() + s.size(), d);
        if (r.ec == std::errc::result_out_of_range) return (s[0] == '-' ? -1.0 : 1.0) * HUGE_VAL;
        return d;
    }
    for (std::string_view inf : {".inf", ".Inf", ".INF"}) {
        if (s == inf || (s.size() == 5 && s[0] == '+' && s.substr(1) == inf)) return HUGE_VAL;
        if (s.size() == 5 && s[0] == '-' && s.substr(1) == inf) return -HUGE_VAL;
    }
    if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();
    return s;
}

/// A double written so that it reads back as the same double, and as a float (never as an
/// integer): the shortest decimal form, with `.0` added where it has no point or exponent.
inline std::string yaml_double(double d) {
    if (std::isnan(d)) return ".nan";
    if (std::isinf(d)) return d < 0 ? "-.inf" : ".inf";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    std::string s(buf, r.ptr);
    const std::size_t e = s.find_first_of("eE");
    if (s.find('.') == std::string::npos) s.insert(e == std::string::npos ? s.size() : e, ".0");
    return s;
}

}  // namespace parley::detail

#endif
