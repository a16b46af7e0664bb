// parley/jinja/detail/py/truncate.hpp: Jinja's truncate filter.
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_TRUNCATE_HPP
#define PARLEY_JINJA_DETAIL_PY_TRUNCATE_HPP

#include <parley/jinja/detail/py/html.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace parley::jinja::detail {

/// Jinja's truncate filter: s unchanged when len(s) <= length + leeway; otherwise the first
/// length - len(end) code points (cut back to the last ' ' unless killwords) followed by end.
/// Throws std::invalid_argument when length < len(end) or leeway < 0 (Jinja's assertions).
inline void jinja_truncate(std::string& out, std::string_view s, long length, bool killwords, std::string_view end,
                           long leeway) {
    const long end_len = static_cast<long>(utf8_length(end));
    if (length < end_len)
        throw std::invalid_argument("expected length >= " + std::to_string(end_len) + ", got " +
                                    std::to_string(length));
    if (leeway < 0) throw std::invalid_argument("expected leeway >= 0, got " + std::to_string(leeway));
    const long len = static_cast<long>(utf8_length(s));
    if (len - leeway <= length) {
        out += s;
        return;
    }
    std::string_view head = s.substr(0, utf8_offset(s, static_cast<std::size_t>(length - end_len)));
    if (!killwords) {
        const std::size_t space = head.rfind(' ');
        if (space != std::string_view::npos) head = head.substr(0, space);
    }
    out += head;
    out += end;
}

/// round(v, ndigits) for a float: the exact binary value rounded half to even at ndigits
/// decimal places (negative ndigits round to tens, hundreds, ...). Throws std::overflow_error
/// when the result is too large to represent, as Python raises OverflowError.
inline double py_round(double v, int ndigits) {
    if (!std::isfinite(v) || v == 0.0) return v;
    if (ndigits > 323) return v;              // NDIGITS_MAX: every double is unchanged
    if (ndigits < -308) return 0.0 * v;       // NDIGITS_MIN: rounds to a signed zero
    // Exact decimal expansion: v = m * 2**e2 with m odd has max(0, -e2) fractional digits.
    int e = 0;
    const double frac = std::frexp(std::fabs(v), &e);
    auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));
    int e2 = e - 53;
    while ((m & 1) == 0) {
        m >>= 1;
        ++e2;
    }
    const int precision = e2 < 0 ? -e2 : 0;
    char buf[1500];
    const auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::fixed, precision);
    // D = all digits; ip = number of integer digits.
    char digits[1500];
    std::size_t nd = 0;
    std::size_t ip = 0;
    bool seen_point = false;
    for (const char* p = buf; p != res.ptr; ++p) {
        if (*p == '.') {
            seen_point = true;
            continue;
        }
        digits[nd++] = *p;
        if (!seen_point) ++ip;
    }
    const long keep = static_cast<long>(ip) + ndigits;
    if (keep >= static_cast<long>(nd)) return v;  // already exact at that many places
    std::string kept;
    if (keep >= 0) {
        kept.assign(digits, static_cast<std::size_t>(keep));
        const char first_dropped = digits[keep];
        bool rest_nonzero = false;
        for (std::size_t k = static_cast<std::size_t>(keep) + 1; k < nd && !rest_nonzero; ++k)
            rest_nonzero = digits[k] != '0';
        const bool last_odd = !kept.empty() && ((kept.back() - '0') & 1);
        const bool up = first_dropped > '5' || (first_dropped == '5' && (rest_nonzero || last_odd));
        if (up) {
            std::size_t k = kept.size();
            while (k > 0 && kept[k - 1] == '9') kept[--k] = '0';
            if (k == 0)
                kept.insert(kept.begin(), '1');
            else
                ++kept[k - 1];
        }
    }
    if (kept.find_first_not_of('0') == std::string::npos) return std::signbit(v) ? -0.0 : 0.0;
    kept += 'e';
    kept += std::to_string(-ndigits);
    double r = 0.0;
    const auto conv = std::from_chars(kept.data(), kept.data() + kept.size(), r);
    if (conv.ec == std::errc::result_out_of_range) throw std::overflow_error("rounded value too large to represent");
    return std::signbit(v) ? -r : r;
}

} // namespace parley::jinja::detail

#endif
