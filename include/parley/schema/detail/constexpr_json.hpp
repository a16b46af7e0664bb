// parley/schema/detail/constexpr_json.hpp: writing and checking JSON text in constant
// expressions (the schema text is built by the compiler).
#ifndef PARLEY_SCHEMA_DETAIL_CONSTEXPR_JSON_HPP
#define PARLEY_SCHEMA_DETAIL_CONSTEXPR_JSON_HPP

#include <parley/config.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace parley::detail {

/// A growable character buffer usable in constant expressions (std::string is not, with
/// clang 14 and libstdc++ 12).
class text_buffer {
public:
    constexpr text_buffer() = default;
    text_buffer(const text_buffer&) = delete;
    text_buffer& operator=(const text_buffer&) = delete;
    constexpr ~text_buffer() { delete[] data_; }

    constexpr void push_back(char c) {
        if (size_ == capacity_) grow(size_ + 1);
        data_[size_++] = c;
    }
    constexpr void append(std::string_view s) {
        if (size_ + s.size() > capacity_) grow(size_ + s.size());
#if defined(__clang__)
        // one evaluation step whatever the length (clang limits the steps of an evaluation)
        if (!s.empty()) __builtin_memcpy(data_ + size_, s.data(), s.size());
#else
        char* out = data_ + size_;
        for (std::size_t i = 0, n = s.size(); i != n; ++i) out[i] = s[i];
#endif
        size_ += s.size();
    }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr std::string_view view() const noexcept { return {data_, size_}; }
    /// Drops the characters after the first n.
    constexpr void truncate(std::size_t n) noexcept {
        if (n < size_) size_ = n;
    }

private:
    constexpr void grow(std::size_t needed) {
        std::size_t capacity = capacity_ ? capacity_ * 2 : 256;
        while (capacity < needed) capacity *= 2;
        // value-initialised, so that every character is alive for plain assignment
        char* data = new char[capacity]();
        for (std::size_t i = 0; i != size_; ++i) data[i] = data_[i];
        delete[] data_;
        data_ = data;
        capacity_ = capacity;
    }

    char* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

/// A NUL-terminated string (a descriptor's name) as a string_view, measured by the compiler's
/// builtin: char_traits would count it one character per evaluation step.
constexpr std::string_view c_string(const char* s) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return {s, __builtin_strlen(s)};
#else
    return s;
#endif
}

/// Appends s as a JSON string literal, escaped as Boost.JSON's serializer escapes it: `"` and
/// `\`, \b \f \n \r \t, the other control characters as \u00xx; every other byte (UTF-8
/// included) as it is. `Text` is a text_buffer in constant expressions, or a std::string.
template <class Text>
constexpr void append_json_string(Text& out, std::string_view s) {
    constexpr char hex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t plain_start = 0;  // characters that need no escape are copied in runs
    for (std::size_t i = 0, n = s.size(); i != n; ++i) {
        const char c = s[i];
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.substr(plain_start, i - plain_start));
        plain_start = i + 1;
        switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        default:
            out.append("\\u00");
            out.push_back(hex[u >> 4]);
            out.push_back(hex[u & 15]);
        }
    }
    out.append(s.substr(plain_start));
    out.push_back('"');
}

constexpr void append_unsigned(text_buffer& out, std::uint64_t v) {
    char digits[20] = {};
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n != 0) out.push_back(digits[--n]);
}

constexpr void append_signed(text_buffer& out, std::int64_t v) {
    if (v < 0) {
        out.push_back('-');
        // -(v + 1) + 1 avoids overflowing on the smallest value
        append_unsigned(out, static_cast<std::uint64_t>(-(v + 1)) + 1);
    } else {
        append_unsigned(out, static_cast<std::uint64_t>(v));
    }
}

/// 10^n as a double, exact for n <= 22.
constexpr double power_of_ten(int n) {
    double p = 1;
    for (int i = 0; i < n; ++i) p *= 10;
    return p;
}

/// 10^n as a long double, by squaring (few roundings).
constexpr long double long_power_of_ten(int n) {
    long double result = 1;
    long double base = 10;
    while (n != 0) {
        if (n & 1) result *= base;
        base *= base;
        n >>= 1;
    }
    return result;
}

/// Appends a finite double as a JSON number that reads back as exactly v: the shortest decimal
/// of at most 15 significant digits when there is one (0.1 gives "0.1"), found and verified
/// with exact operations only; otherwise 17 significant digits (0.1 + 0.2 gives
/// "0.30000000000000004"). Whole numbers keep a ".0" so that they read back as floating point.
constexpr void append_double(text_buffer& out, double v) {
    if (v < 0) {
        out.push_back('-');
        v = -v;
    }
    if (v == 0) {
        out.append("0.0");
        return;
    }
    if (v < 9007199254740992.0 && static_cast<double>(static_cast<std::uint64_t>(v)) == v) {
        append_unsigned(out, static_cast<std::uint64_t>(v));
        out.append(".0");
        return;
    }
    // decimal exponent of the leading digit (possibly off by one; verification makes that safe)
    int e = 0;
    for (double x = v; x >= 10; x /= 10) ++e;
    for (double x = v; x < 1; x *= 10) --e;

    std::uint64_t mantissa = 0;
    int exponent = 0;  // v == mantissa * 10^exponent
    bool found = false;
    for (int digits = 1; digits <= 15 && !found; ++digits) {
        const int k = e - digits + 1;
        if (k > 22 || k < -22) break;
        const double scaled = k >= 0 ? v / power_of_ten(k) : v * power_of_ten(-k);
        const auto m = static_cast<std::uint64_t>(scaled + 0.5);
        for (std::uint64_t candidate : {m == 0 ? m : m - 1, m, m + 1}) {
            // one correctly rounded operation on exact operands: the nearest double to the decimal
            const double back = k >= 0 ? static_cast<double>(candidate) * power_of_ten(k)
                                       : static_cast<double>(candidate) / power_of_ten(-k);
            if (back == v) {
                mantissa = candidate;
                exponent = k;
                found = true;
                break;
            }
        }
    }
    if (!found) {
        // 17 significant digits, which identify any double, scaled in long double: with its
        // wider mantissa (x86-64) the scaling error stays far below the margin 17 digits leave
        constexpr std::uint64_t low = 10000000000000000u;  // 10^16
        exponent = e - 16;
        for (int attempt = 0; attempt < 3; ++attempt) {
            const long double p = long_power_of_ten(exponent >= 0 ? exponent : -exponent);
            const long double scaled = exponent >= 0 ? static_cast<long double>(v) / p : static_cast<long double>(v) * p;
            mantissa = static_cast<std::uint64_t>(scaled + 0.5L);
            if (mantissa >= 10 * low)
                ++exponent;  // the leading digit's exponent was underestimated
            else if (mantissa < low)
                --exponent;
            else
                break;
        }
    }
    while (mantissa % 10 == 0 && mantissa != 0) {
        mantissa /= 10;
        ++exponent;
    }
    char digits[20] = {};
    int count = 0;
    for (std::uint64_t m = mantissa; m != 0; m /= 10) digits[count++] = static_cast<char>('0' + m % 10);
    // digits[] is reversed; point = how many digits come before the decimal point
    const int point = count + exponent;
    if (point > -4 && point <= 16) {
        if (point <= 0) {
            out.append("0.");
            for (int i = point; i < 0; ++i) out.push_back('0');
            for (int i = count - 1; i >= 0; --i) out.push_back(digits[i]);
        } else if (point >= count) {
            for (int i = count - 1; i >= 0; --i) out.push_back(digits[i]);
            for (int i = count; i < point; ++i) out.push_back('0');
            out.append(".0");
        } else {
            for (int i = count - 1; i >= 0; --i) {
                out.push_back(digits[i]);
                if (count - i == point) out.push_back('.');
            }
        }
    } else {
        out.push_back(digits[count - 1]);
        if (count > 1) {
            out.push_back('.');
            for (int i = count - 2; i >= 0; --i) out.push_back(digits[i]);
        }
        out.push_back('e');
        append_signed(out, point - 1);
    }
}

/// Called (and not constexpr) when JSON text cannot be written: the compiler stops there.
inline void json_writer_error(const char* /*message*/) {}

/// Writes JSON text into a text_buffer with commas where they belong: open() an object or
/// array, key() each member or separate() each item, close() it.
class json_writer {
public:
    constexpr explicit json_writer(text_buffer& out) : out_(out) {}

    constexpr void open(char c) {
        out_.push_back(c);
        if (++level_ == static_cast<int>(first_.size())) json_writer_error("JSON nested too deeply");
        first_[static_cast<std::size_t>(level_)] = true;
    }
    constexpr void close(char c) {
        out_.push_back(c);
        --level_;
    }
    /// Before an array item.
    constexpr void separate() {
        auto& first = first_[static_cast<std::size_t>(level_)];
        if (!first) out_.push_back(',');
        first = false;
    }
    /// Before an object member's value. k needs no escaping (a keyword or a C++ name).
    constexpr void key(std::string_view k) {
        separate();
        name(k);
        out_.push_back(':');
    }
    /// A string value, escaped.
    constexpr void string(std::string_view s) { append_json_string(out_, s); }
    /// A string value that needs no escaping: a keyword or a C++ name (no quote, backslash or
    /// control character), copied without looking at each character.
    constexpr void name(std::string_view s) {
        out_.push_back('"');
        out_.append(s);
        out_.push_back('"');
    }

protected:
    text_buffer& out_;

private:
    std::array<bool, 256> first_{};
    int level_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Checking JSON text

class json_text_checker {
public:
    constexpr explicit json_text_checker(std::string_view s) : s_(s) {}

    /// True when the whole text is one JSON value (surrounding whitespace allowed).
    constexpr bool valid() {
        skip_space();
        if (!value(0)) return false;
        skip_space();
        return pos_ == s_.size();
    }

private:
    static constexpr int max_depth = 64;

    constexpr bool at_end() const { return pos_ >= s_.size(); }
    constexpr char peek() const { return at_end() ? '\0' : s_[pos_]; }
    constexpr void skip_space() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
    }
    constexpr bool literal(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }
    static constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
    static constexpr bool is_hex(char c) {
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
    constexpr bool digits() {
        if (!is_digit(peek())) return false;
        while (is_digit(peek())) ++pos_;
        return true;
    }
    constexpr bool number() {
        if (peek() == '-') ++pos_;
        if (peek() == '0')
            ++pos_;
        else if (!digits())
            return false;
        if (peek() == '.') {
            ++pos_;
            if (!digits()) return false;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!digits()) return false;
        }
        return true;
    }
    constexpr bool string() {
        ++pos_;  // opening quote
        while (!at_end()) {
            const char c = s_[pos_++];
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return false;
            if (c == '\\') {
                const char e = peek();
                ++pos_;
                if (e == 'u') {
                    for (int i = 0; i < 4; ++i, ++pos_)
                        if (!is_hex(peek())) return false;
                } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                    return false;
                }
            }
        }
        return false;
    }
    constexpr bool value(int depth) {
        if (depth > max_depth) return false;
        switch (peek()) {
        case '{': {
            ++pos_;
            skip_space();
            if (peek() == '}') return ++pos_, true;
            for (;;) {
                skip_space();
                if (peek() != '"' || !string()) return false;
                skip_space();
                if (peek() != ':') return false;
                ++pos_;
                skip_space();
                if (!value(depth + 1)) return false;
                skip_space();
                if (peek() == '}') return ++pos_, true;
                if (peek() != ',') return false;
                ++pos_;
            }
        }
        case '[': {
            ++pos_;
            skip_space();
            if (peek() == ']') return ++pos_, true;
            for (;;) {
                skip_space();
                if (!value(depth + 1)) return false;
                skip_space();
                if (peek() == ']') return ++pos_, true;
                if (peek() != ',') return false;
                ++pos_;
            }
        }
        case '"': return string();
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        default: return number();
        }
    }

    std::string_view s_;
    std::size_t pos_ = 0;
};

/// True when s is exactly one JSON value.
constexpr bool is_json_text(std::string_view s) { return json_text_checker(s).valid(); }

}  // namespace parley::detail

#endif
