// parley/jinja/detail/bigint.hpp: integers beyond 64 bits, with Python's int semantics.
#ifndef PARLEY_JINJA_DETAIL_BIGINT_HPP
#define PARLEY_JINJA_DETAIL_BIGINT_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::jinja::detail {

/// The largest integer a template may compute, in bits: a result beyond it is an error
/// (errc::template_limit) rather than minutes of arithmetic on untrusted input.
inline constexpr std::size_t max_int_bits = 65536;

/// Python's limit on the decimal digits of an int converted to or from text (Python 3.11's
/// default sys.get_int_max_str_digits()).
inline constexpr std::size_t max_int_str_digits = 4300;

/// An integer of any size: a sign and a magnitude in 32-bit limbs, least significant first, with
/// no leading zero limb (zero has none and is never negative). Template values hold one only for
/// integers outside the 64-bit range; the operations below work for any value.
class bigint {
public:
    bigint() = default;
    explicit bigint(std::int64_t v) {
        neg_ = v < 0;
        set_u64(neg_ ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v));
    }
    /// `mag` with the sign `neg`.
    static bigint of_u64(std::uint64_t mag, bool neg) {
        bigint r;
        r.set_u64(mag);
        r.neg_ = neg && !r.mag_.empty();
        return r;
    }
    /// The integral part of a finite double, exactly (Python's int(d)).
    static bigint of_double(double d) {
        bigint r;
        d = std::trunc(d);
        if (d == 0) return r;
        const bool neg = d < 0;
        int e = 0;
        const double m = std::frexp(std::fabs(d), &e);  // |d| = m * 2^e, 0.5 <= m < 1
        const auto top = static_cast<std::uint64_t>(std::ldexp(m, 64));  // m * 2^64, exact (53 bits)
        r.set_u64(top);
        r = e >= 64 ? r.shifted_left(static_cast<std::size_t>(e - 64)) : r.shifted_right(static_cast<std::size_t>(64 - e));
        r.neg_ = neg && !r.mag_.empty();
        return r;
    }
    /// The digits `s` (each valid in `base`, 2..36, no sign, separator or prefix), with a sign.
    static bigint of_digits(std::string_view s, int base, bool neg) {
        bigint r;
        // chunks of digits that fit in 32 bits
        std::uint32_t chunk_len = 1;
        std::uint64_t chunk_mul = static_cast<std::uint64_t>(base);
        while (chunk_mul * static_cast<std::uint64_t>(base) <= 0xffffffffull) {
            chunk_mul *= static_cast<std::uint64_t>(base);
            ++chunk_len;
        }
        std::size_t i = 0;
        while (i < s.size()) {
            std::uint64_t mul = 1, val = 0;
            for (std::uint32_t k = 0; k < chunk_len && i < s.size(); ++k, ++i) {
                val = val * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit_value(s[i]));
                mul *= static_cast<std::uint64_t>(base);
            }
            r.mul_add_small(static_cast<std::uint32_t>(mul), static_cast<std::uint32_t>(val));
        }
        r.neg_ = neg && !r.mag_.empty();
        return r;
    }

    bool is_zero() const noexcept { return mag_.empty(); }
    bool negative() const noexcept { return neg_; }
    /// Python's int.bit_length() of the magnitude.
    std::size_t bit_length() const noexcept {
        if (mag_.empty()) return 0;
        return (mag_.size() - 1) * 32 + (32 - static_cast<std::size_t>(__builtin_clz(mag_.back())));
    }
    /// The value when it fits in 64 bits (signed).
    bool to_int64(std::int64_t& out) const noexcept {
        if (mag_.size() > 2) return false;
        const std::uint64_t m = low_u64();
        if (neg_) {
            if (m > 0x8000000000000000ull) return false;
            out = static_cast<std::int64_t>(0 - m);
        } else {
            if (m > 0x7fffffffffffffffull) return false;
            out = static_cast<std::int64_t>(m);
        }
        return true;
    }
    /// The magnitude when it fits in 64 bits.
    bool magnitude_u64(std::uint64_t& out) const noexcept {
        if (mag_.size() > 2) return false;
        out = low_u64();
        return true;
    }
    /// The lowest 32 bits of the magnitude.
    std::uint32_t low_limb() const noexcept { return mag_.empty() ? 0 : mag_[0]; }

    bigint negated() const {
        bigint r = *this;
        r.neg_ = !neg_ && !mag_.empty();
        return r;
    }
    bigint abs() const {
        bigint r = *this;
        r.neg_ = false;
        return r;
    }

    /// -1, 0 or 1 as a <, ==, > b.
    friend int compare(const bigint& a, const bigint& b) noexcept {
        if (a.neg_ != b.neg_) return a.neg_ ? -1 : 1;
        const int m = compare_mag(a.mag_, b.mag_);
        return a.neg_ ? -m : m;
    }
    /// -1, 0 or 1 as a <, ==, > d, exactly (d not NaN), as Python compares an int and a float.
    friend int compare(const bigint& a, double d) {
        if (std::isinf(d)) return d > 0 ? -1 : 1;
        const double t = std::trunc(d);
        const int c = compare(a, of_double(t));
        if (c != 0) return c;
        return d > t ? -1 : d < t ? 1 : 0;
    }

    friend bigint operator+(const bigint& a, const bigint& b) {
        if (a.neg_ == b.neg_) {
            bigint r;
            r.mag_ = add_mag(a.mag_, b.mag_);
            r.neg_ = a.neg_;
            return r;
        }
        return signed_difference(a.mag_, a.neg_, b.mag_);
    }
    friend bigint operator-(const bigint& a, const bigint& b) {
        if (a.neg_ != b.neg_) {
            bigint r;
            r.mag_ = add_mag(a.mag_, b.mag_);
            r.neg_ = a.neg_;
            return r;
        }
        return signed_difference(a.mag_, a.neg_, b.mag_);
    }
    friend bigint operator*(const bigint& a, const bigint& b) {
        bigint r;
        if (a.mag_.empty() || b.mag_.empty()) return r;
        r.mag_.assign(a.mag_.size() + b.mag_.size(), 0);
        for (std::size_t i = 0; i < a.mag_.size(); ++i) {
            std::uint64_t carry = 0;
            const std::uint64_t x = a.mag_[i];
            for (std::size_t j = 0; j < b.mag_.size(); ++j) {
                const std::uint64_t t = x * b.mag_[j] + r.mag_[i + j] + carry;
                r.mag_[i + j] = static_cast<std::uint32_t>(t);
                carry = t >> 32;
            }
            r.mag_[i + b.mag_.size()] = static_cast<std::uint32_t>(carry);
        }
        r.trim();
        r.neg_ = a.neg_ != b.neg_;
        return r;
    }

    /// Python's divmod(a, b): the floor of the quotient and the remainder with b's sign. b != 0.
    static void divmod(const bigint& a, const bigint& b, bigint& q, bigint& r) {
        bigint uq, ur;
        divmod_mag(a.mag_, b.mag_, uq.mag_, ur.mag_);
        uq.neg_ = (a.neg_ != b.neg_) && !uq.mag_.empty();
        ur.neg_ = a.neg_ && !ur.mag_.empty();
        if (!ur.mag_.empty() && a.neg_ != b.neg_) {  // truncated toward zero: step to the floor
            uq = uq - bigint(1);
            ur = ur + b;
        }
        q = std::move(uq);
        r = std::move(ur);
    }

    /// this ** exp, exp >= 0; false (nothing computed) when the result would pass max_bits.
    bool pow(std::uint64_t exp, std::size_t max_bits, bigint& out) const {
        const std::size_t bits = bit_length();
        if (mag_.empty() || exp == 0 || (bits == 1)) {  // 0, 1, -1 and 2**k without the loop
            if (exp == 0) {
                out = bigint(1);
                return true;
            }
            if (mag_.empty()) {
                out = bigint();
                return true;
            }
            out = bigint(1);
            out.neg_ = neg_ && (exp & 1);
            return true;
        }
        // |this| >= 2: the result has at least (bits - 1) * exp + 1 bits
        if (exp > max_bits || (bits - 1) * exp + 1 > max_bits) return false;
        bigint result(1), base = *this;
        for (std::uint64_t e = exp;;) {
            if (e & 1) result = result * base;
            e >>= 1;
            if (!e) break;
            base = base * base;
        }
        if (result.bit_length() > max_bits) return false;
        out = std::move(result);
        return true;
    }

    /// The nearest double (ties to even), as Python's float(int); false when it would be
    /// infinite (Python's OverflowError).
    bool to_double(double& out) const { return rounded_double(*this, 0, false, out); }

    /// a / b correctly rounded, as Python's int / int; false when the quotient is too large for
    /// a double (Python's OverflowError). b != 0.
    static bool true_divide(const bigint& a, const bigint& b, double& out) {
        if (a.mag_.empty()) {
            out = (a.neg_ != b.neg_) ? -0.0 : 0.0;
            return true;
        }
        // q = |a| * 2^-shift / |b| with 55 to 56 bits (a sticky bit says whether a remainder was cut)
        const long long shift = static_cast<long long>(a.bit_length()) - static_cast<long long>(b.bit_length()) - 55;
        const bigint num = shift < 0 ? a.abs().shifted_left(static_cast<std::size_t>(-shift)) : a.abs();
        const bigint den = shift > 0 ? b.abs().shifted_left(static_cast<std::size_t>(shift)) : b.abs();
        bigint q, r;
        divmod_mag(num.mag_, den.mag_, q.mag_, r.mag_);
        q.neg_ = a.neg_ != b.neg_;
        return rounded_double(q, shift, !r.mag_.empty(), out);
    }

    /// The digits in `base` (2, 8, 10 or 16; lower case), with a '-' for a negative value.
    std::string to_string(int base = 10) const {
        if (mag_.empty()) return "0";
        std::string digits;
        if (base == 10) {
            std::vector<std::uint32_t> m = mag_;
            while (!m.empty()) {  // nine digits at a time
                std::uint64_t rem = 0;
                for (std::size_t i = m.size(); i-- > 0;) {
                    const std::uint64_t cur = (rem << 32) | m[i];
                    m[i] = static_cast<std::uint32_t>(cur / 1000000000u);
                    rem = cur % 1000000000u;
                }
                while (!m.empty() && m.back() == 0) m.pop_back();
                for (int k = 0; k < 9 && (rem || !m.empty()); ++k) {
                    digits += static_cast<char>('0' + rem % 10);
                    rem /= 10;
                }
            }
        } else {
            const int bits = base == 2 ? 1 : base == 8 ? 3 : 4;
            const std::size_t total = bit_length();
            for (std::size_t pos = 0; pos < total; pos += static_cast<std::size_t>(bits)) {
                unsigned v = 0;
                for (int k = 0; k < bits; ++k) v |= static_cast<unsigned>(bit(pos + static_cast<std::size_t>(k))) << k;
                digits += "0123456789abcdef"[v];
            }
        }
        if (neg_) digits += '-';
        std::reverse(digits.begin(), digits.end());
        return digits;
    }
    /// The number of decimal digits of the magnitude (for Python's text conversion limit).
    std::size_t decimal_digits() const {
        const std::string s = abs().to_string(10);
        return s.size();
    }

    friend bool operator==(const bigint& a, const bigint& b) noexcept { return a.neg_ == b.neg_ && a.mag_ == b.mag_; }

private:
    static int digit_value(char c) noexcept {
        if (c >= '0' && c <= '9') return c - '0';
        return (c | 0x20) - 'a' + 10;
    }
    void set_u64(std::uint64_t m) {
        mag_.clear();
        if (m) mag_.push_back(static_cast<std::uint32_t>(m));
        if (m >> 32) mag_.push_back(static_cast<std::uint32_t>(m >> 32));
    }
    std::uint64_t low_u64() const noexcept {
        std::uint64_t m = 0;
        if (!mag_.empty()) m = mag_[0];
        if (mag_.size() > 1) m |= static_cast<std::uint64_t>(mag_[1]) << 32;
        return m;
    }
    bool bit(std::size_t i) const noexcept {
        const std::size_t limb = i / 32;
        return limb < mag_.size() && ((mag_[limb] >> (i % 32)) & 1u);
    }
    void trim() {
        while (!mag_.empty() && mag_.back() == 0) mag_.pop_back();
        if (mag_.empty()) neg_ = false;
    }
    // this = this * mul + add (magnitudes)
    void mul_add_small(std::uint32_t mul, std::uint32_t add) {
        std::uint64_t carry = add;
        for (std::uint32_t& limb : mag_) {
            const std::uint64_t t = static_cast<std::uint64_t>(limb) * mul + carry;
            limb = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
        if (carry) mag_.push_back(static_cast<std::uint32_t>(carry));
    }
    bigint shifted_left(std::size_t n) const {
        bigint r;
        if (mag_.empty()) return r;
        const std::size_t limbs = n / 32, bits = n % 32;
        r.mag_.assign(limbs, 0);
        std::uint32_t carry = 0;
        for (std::uint32_t limb : mag_) {
            r.mag_.push_back(bits ? (limb << bits) | carry : limb);
            carry = bits ? limb >> (32 - bits) : 0;
        }
        if (carry) r.mag_.push_back(carry);
        r.neg_ = neg_;
        return r;
    }
    bigint shifted_right(std::size_t n) const {  // of the magnitude (truncates)
        bigint r;
        const std::size_t limbs = n / 32, bits = n % 32;
        if (limbs >= mag_.size()) return r;
        for (std::size_t i = limbs; i < mag_.size(); ++i) {
            std::uint32_t v = mag_[i] >> bits;
            if (bits && i + 1 < mag_.size()) v |= mag_[i + 1] << (32 - bits);
            r.mag_.push_back(v);
        }
        r.neg_ = neg_;
        r.trim();
        return r;
    }
    static int compare_mag(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) noexcept {
        if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
        for (std::size_t i = a.size(); i-- > 0;)
            if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
        return 0;
    }
    static std::vector<std::uint32_t> add_mag(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
        const std::vector<std::uint32_t>& x = a.size() >= b.size() ? a : b;
        const std::vector<std::uint32_t>& y = a.size() >= b.size() ? b : a;
        std::vector<std::uint32_t> r(x.size() + 1, 0);
        std::uint64_t carry = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const std::uint64_t t = static_cast<std::uint64_t>(x[i]) + (i < y.size() ? y[i] : 0) + carry;
            r[i] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
        r[x.size()] = static_cast<std::uint32_t>(carry);
        while (!r.empty() && r.back() == 0) r.pop_back();
        return r;
    }
    // a - b for a >= b (magnitudes)
    static std::vector<std::uint32_t> sub_mag(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
        std::vector<std::uint32_t> r(a.size(), 0);
        std::int64_t borrow = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            std::int64_t t = static_cast<std::int64_t>(a[i]) - (i < b.size() ? b[i] : 0) - borrow;
            borrow = t < 0;
            if (t < 0) t += std::int64_t{1} << 32;
            r[i] = static_cast<std::uint32_t>(t);
        }
        while (!r.empty() && r.back() == 0) r.pop_back();
        return r;
    }
    // (sign a) |a| - |b|
    static bigint signed_difference(const std::vector<std::uint32_t>& a, bool a_neg, const std::vector<std::uint32_t>& b) {
        bigint r;
        const int c = compare_mag(a, b);
        if (c == 0) return r;
        if (c > 0) {
            r.mag_ = sub_mag(a, b);
            r.neg_ = a_neg;
        } else {
            r.mag_ = sub_mag(b, a);
            r.neg_ = !a_neg;
        }
        return r;
    }
    // Knuth's algorithm D on magnitudes: q = a / b, r = a % b (b not zero)
    static void divmod_mag(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                           std::vector<std::uint32_t>& q, std::vector<std::uint32_t>& r) {
        q.clear();
        r.clear();
        if (compare_mag(a, b) < 0) {
            r = a;
            return;
        }
        if (b.size() == 1) {
            q.assign(a.size(), 0);
            std::uint64_t rem = 0;
            for (std::size_t i = a.size(); i-- > 0;) {
                const std::uint64_t cur = (rem << 32) | a[i];
                q[i] = static_cast<std::uint32_t>(cur / b[0]);
                rem = cur % b[0];
            }
            while (!q.empty() && q.back() == 0) q.pop_back();
            if (rem) r.push_back(static_cast<std::uint32_t>(rem));
            return;
        }
        const int s = __builtin_clz(b.back());  // normalise: the divisor's top bit set
        std::vector<std::uint32_t> v(b.size()), u(a.size() + 1);
        for (std::size_t i = b.size(); i-- > 0;)
            v[i] = (b[i] << s) | (s && i ? b[i - 1] >> (32 - s) : 0);
        u[a.size()] = s ? a.back() >> (32 - s) : 0;
        for (std::size_t i = a.size(); i-- > 0;)
            u[i] = (a[i] << s) | (s && i ? a[i - 1] >> (32 - s) : 0);
        const std::size_t n = v.size(), m = a.size() - n;
        q.assign(m + 1, 0);
        const std::uint64_t base = std::uint64_t{1} << 32;
        for (std::size_t j = m + 1; j-- > 0;) {
            const std::uint64_t num = (static_cast<std::uint64_t>(u[j + n]) << 32) | u[j + n - 1];
            std::uint64_t qhat = num / v[n - 1], rhat = num % v[n - 1];
            while (qhat >= base || qhat * v[n - 2] > ((rhat << 32) | u[j + n - 2])) {
                --qhat;
                rhat += v[n - 1];
                if (rhat >= base) break;
            }
            std::int64_t borrow = 0;
            std::uint64_t carry = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint64_t p = qhat * v[i] + carry;
                carry = p >> 32;
                const std::int64_t t = static_cast<std::int64_t>(u[i + j]) - borrow - static_cast<std::int64_t>(p & 0xffffffffu);
                u[i + j] = static_cast<std::uint32_t>(t);
                borrow = t < 0 ? 1 : 0;
            }
            const std::int64_t t = static_cast<std::int64_t>(u[j + n]) - borrow - static_cast<std::int64_t>(carry);
            u[j + n] = static_cast<std::uint32_t>(t);
            if (t < 0) {  // qhat was one too large: add the divisor back
                --qhat;
                std::uint64_t c = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const std::uint64_t sum = static_cast<std::uint64_t>(u[i + j]) + v[i] + c;
                    u[i + j] = static_cast<std::uint32_t>(sum);
                    c = sum >> 32;
                }
                u[j + n] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(u[j + n]) + c);
            }
            q[j] = static_cast<std::uint32_t>(qhat);
        }
        while (!q.empty() && q.back() == 0) q.pop_back();
        r.resize(n);
        for (std::size_t i = 0; i < n; ++i) r[i] = (u[i] >> s) | (s && i + 1 < u.size() ? static_cast<std::uint32_t>(static_cast<std::uint64_t>(u[i + 1]) << (32 - s)) : 0);
        while (!r.empty() && r.back() == 0) r.pop_back();
    }
    // m * 2^shift rounded to a double (ties to even), `sticky` when bits below m were cut:
    // false when the result is infinite.
    static bool rounded_double(const bigint& m, long long shift, bool sticky, double& out) {
        if (m.mag_.empty()) {
            out = m.neg_ ? -0.0 : 0.0;
            return true;
        }
        const long long bits = static_cast<long long>(m.bit_length());
        const long long top = bits + shift;  // the value is in [2^(top-1), 2^top)
        if (top > 1024) return false;
        // bits kept: 53, fewer for a subnormal result (the lowest bit of a double weighs 2^-1074)
        const long long keep = std::min<long long>(53, top + 1074);
        if (keep < 0) {  // below half the smallest double
            out = m.neg_ ? -0.0 : 0.0;
            return true;
        }
        const long long drop = bits - keep;
        std::uint64_t kept = 0;
        if (drop <= 0) {
            kept = m.low_u64();
        } else {
            const bigint hi = m.shifted_right(static_cast<std::size_t>(drop));
            kept = hi.low_u64();
            const bool half = m.bit(static_cast<std::size_t>(drop - 1));
            bool below = sticky;
            for (long long i = 0; i < drop - 1 && !below; ++i) below = m.bit(static_cast<std::size_t>(i));
            if (half && (below || (kept & 1))) ++kept;  // may carry into a 54th bit: still exact
        }
        const double d = std::ldexp(static_cast<double>(kept), static_cast<int>(shift + std::max<long long>(drop, 0)));
        if (std::isinf(d)) return false;
        out = m.neg_ ? -d : d;
        return true;
    }

    bool neg_ = false;
    std::vector<std::uint32_t> mag_;
};

}  // namespace parley::jinja::detail

#endif
