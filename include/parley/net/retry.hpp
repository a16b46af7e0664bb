// parley/net/retry.hpp: when to retry a failed call and how long to wait first, as the official
// OpenAI and Anthropic SDKs decide (x-should-retry, the retryable statuses, retry-after-ms,
// retry-after as seconds or as an HTTP date, exponential backoff with jitter).
#ifndef PARLEY_NET_RETRY_HPP
#define PARLEY_NET_RETRY_HPP

#include <parley/net/call_error.hpp>
#include <parley/net/headers.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

namespace parley::net {

/// How many times to retry a call and how long to wait between tries. The defaults are the
/// SDKs': 2 retries, 0.5 s doubling up to 8 s, minus up to 25% of jitter.
struct retry_policy {
    unsigned max_retries = 2;  ///< retries after the first try (0: never retry)
    std::chrono::milliseconds initial_delay{500};  ///< the wait before the first retry
    std::chrono::milliseconds max_delay{8000};  ///< the longest computed wait
    double jitter = 0.25;  ///< the delay is multiplied by (1 - jitter * random01)
};

namespace detail {

/// JavaScript's parseFloat: after white space, the longest prefix that is a decimal number
/// (with sign, fraction and exponent) or "Infinity"; none when there is no such prefix.
inline std::optional<double> js_parse_float(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\v' || s[i] == '\f' || s[i] == '\r'))
        ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    constexpr double infinity = std::numeric_limits<double>::infinity();
    if (s.substr(i, 8) == "Infinity") return negative ? -infinity : infinity;
    auto digit = [&](std::size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
    const std::size_t start = i;
    std::size_t digits = 0;
    for (; digit(i); ++i) ++digits;
    if (i < s.size() && s[i] == '.') {
        std::size_t k = i + 1;
        for (; digit(k); ++k) ++digits;
        if (digits > 0) i = k;
    }
    if (digits == 0) return std::nullopt;
    bool negative_exponent = false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t k = i + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) negative_exponent = s[k++] == '-';
        if (digit(k)) {
            while (digit(k)) ++k;
            i = k;
        } else {
            negative_exponent = false;
        }
    }
    double value = 0;
    const auto r = std::from_chars(s.data() + start, s.data() + i, value, std::chars_format::general);
    if (r.ec == std::errc::result_out_of_range) value = negative_exponent ? 0.0 : infinity;
    else if (r.ec != std::errc()) return std::nullopt;
    return negative ? -value : value;
}

/// An HTTP date (RFC 9110 section 5.6.7) in any of its three forms, as a time in UTC:
/// IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT" (a
/// two-digit year more than 50 years after `now`'s year is taken in the century before) and
/// asctime "Sun Nov  6 08:49:37 1994". Names of days and months in any case; the day name is not
/// checked against the date.
inline std::optional<std::chrono::system_clock::time_point> parse_http_date(
    std::string_view s, std::chrono::system_clock::time_point now) noexcept {
    using namespace std::chrono;
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    static constexpr std::string_view day_names[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
    static constexpr std::string_view long_day_names[] = {"monday", "tuesday", "wednesday", "thursday",
                                                     "friday", "saturday", "sunday"};
    static constexpr std::string_view month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                  "jul", "aug", "sep", "oct", "nov", "dec"};
    std::size_t pos = 0;
    auto lit = [&](std::string_view text) {
        if (s.size() - pos < text.size()) return false;
        for (std::size_t k = 0; k < text.size(); ++k)
            if (parley::detail::ascii_lower(s[pos + k]) != text[k]) return false;
        pos += text.size();
        return true;
    };
    auto one_of = [&](const std::string_view* names, std::size_t count) -> int {
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t saved = pos;
            if (lit(names[k])) return static_cast<int>(k);
            pos = saved;
        }
        return -1;
    };
    auto number = [&](std::size_t width, int& out) {
        if (s.size() - pos < width) return false;
        out = 0;
        for (std::size_t k = 0; k < width; ++k) {
            const char c = s[pos + k];
            if (c < '0' || c > '9') return false;
            out = out * 10 + (c - '0');
        }
        pos += width;
        return true;
    };
    int day = 0, month = 0, year = 0, hour = 0, minute = 0, second = 0;
    auto time_of_day = [&] {
        return number(2, hour) && lit(":") && number(2, minute) && lit(":") && number(2, second) && hour <= 23 &&
               minute <= 59 && second <= 60;
    };
    bool ok = false;
    if (one_of(day_names, 7) >= 0 && lit(", ")) {  // IMF-fixdate
        ok = number(2, day) && lit(" ") && (month = one_of(month_names, 12)) >= 0 && lit(" ") && number(4, year) &&
             lit(" ") && time_of_day() && lit(" gmt");
    } else if ((pos = 0, one_of(long_day_names, 7) >= 0) && lit(", ")) {  // RFC 850
        ok = number(2, day) && lit("-") && (month = one_of(month_names, 12)) >= 0 && lit("-") && number(2, year) &&
             lit(" ") && time_of_day() && lit(" gmt");
        if (ok) {
            const int now_year = static_cast<int>(year_month_day(floor<std::chrono::days>(now)).year());
            year += now_year - now_year % 100;
            if (year > now_year + 50) year -= 100;
        }
    } else if ((pos = 0, one_of(day_names, 7) >= 0) && lit(" ")) {  // asctime
        ok = (month = one_of(month_names, 12)) >= 0 && lit(" ");
        if (ok) {
            if (pos < s.size() && s[pos] == ' ') {
                ++pos;
                ok = number(1, day);
            } else {
                ok = number(2, day);
            }
        }
        ok = ok && lit(" ") && time_of_day() && lit(" ") && number(4, year);
    }
    if (!ok || pos != s.size()) return std::nullopt;
    const year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month + 1)),
                              std::chrono::day(static_cast<unsigned>(day))};
    if (!date.ok()) return std::nullopt;
    // in seconds first: the clock's ticks hold the years 1678 to 2261 only, a date may be
    // anything from year 0 to 9999 (beyond the clock: its first or last time)
    const sys_seconds at = sys_days(date) + hours(hour) + minutes(minute) + seconds(second);
    if (at >= ceil<seconds>(system_clock::time_point::max())) return system_clock::time_point::max();
    if (at <= floor<seconds>(system_clock::time_point::min())) return system_clock::time_point::min();
    return time_point_cast<system_clock::duration>(at);
}

/// The server's requested wait in milliseconds, unrounded, read as the SDKs read it:
/// retry-after-ms as a number (JavaScript's parseFloat); when that is absent, not a number, or
/// 0, retry-after as a number of seconds, or else as an HTTP date minus `now`.
inline std::optional<double> server_wait_ms(const http_headers& headers, std::chrono::system_clock::time_point now) noexcept {
    std::optional<double> wait;
    if (const auto ms = headers.find("retry-after-ms"); ms && !ms->empty()) wait = js_parse_float(*ms);
    if (const auto after = headers.find("retry-after"); after && !after->empty() && (!wait || *wait == 0)) {
        if (const auto s = js_parse_float(*after)) {
            wait = *s * 1000;
        } else if (const auto date = parse_http_date(*after, now)) {
            // apart, in doubles: a date at the end of the clock is farther from now than its ticks reach
            wait = std::chrono::duration<double, std::milli>(date->time_since_epoch()).count() -
                   std::chrono::duration<double, std::milli>(now.time_since_epoch()).count();
        }
    }
    return wait;
}

}  // namespace detail

/// Whether a reply with HTTP status `status` is worth retrying, as the SDKs decide: the server's
/// `x-should-retry` header when it is "true" or "false" (exactly; surrounding white space
/// ignored); otherwise yes for 408 (request timeout), 409 (lock timeout), 429 (rate limit) and
/// every status from 500 on.
inline bool should_retry(int status, const http_headers& headers) noexcept {
    if (auto v = headers.find("x-should-retry")) {
        std::string_view s = *v;
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
        if (s == "true") return true;
        if (s == "false") return false;
    }
    return status == 408 || status == 409 || status == 429 || status >= 500;
}

/// Whether another attempt of a failed call, with time limits of its own, may succeed: a
/// transient failure of the transport (`transient`: a connection refused or broken, a body or
/// stream cut short), a time-out (errc::timeout, also of the call's total time), or a reply
/// whose HTTP status (not 2xx) should_retry accepts.
inline bool worth_retrying(const call_error& e) noexcept {
    if (e.transient || e.code == make_error_code(errc::timeout)) return true;
    if (e.status == 0 || (e.status >= 200 && e.status <= 299)) return false;
    return should_retry(e.status, e.headers);
}

/// The wait the server asks for, relative to `now`: `retry-after-ms` (milliseconds, may be
/// fractional), else `retry-after` as seconds (may be fractional) or as an HTTP date
/// (IMF-fixdate, RFC 850, asctime; all UTC). Numbers are read as JavaScript's parseFloat reads
/// them ("1.5", " 2", "3 seconds" is 3); a `retry-after-ms` of 0 defers to `retry-after`, as in
/// the SDK. Rounded up to a whole millisecond; may be 0 or negative (a date in the past) and
/// saturates at the limits of `milliseconds`. Empty when neither header is present and readable.
inline std::optional<std::chrono::milliseconds> server_retry_after(const http_headers& headers,
                                                                   std::chrono::system_clock::time_point now) {
    const auto wait = detail::server_wait_ms(headers, now);
    if (!wait || std::isnan(*wait)) return std::nullopt;
    constexpr double most = 9.0e18;  // below the largest std::int64_t
    const double ms = std::ceil(std::clamp(*wait, -most, most));
    return std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(ms));
}

/// The wait before retry number `retry` (0 for the first retry). With `headers`, the server's
/// wait (see `server_retry_after`) when it is more than 0 and less than 60 s, as the SDKs take it
/// (a wait of 0, a date in the past or a wait of a minute or more gives the computed delay
/// instead); otherwise min(initial_delay × 2^retry, max_delay) × (1 − jitter × random01), rounded
/// to the nearest millisecond. `random01` is a number from [0, 1] (clamped), `jitter` is
/// clamped to [0, 1].
inline std::chrono::milliseconds retry_delay(const retry_policy& p, unsigned retry, const http_headers* headers,
                                             double random01, std::chrono::system_clock::time_point now) {
    if (headers) {
        if (const auto wait = detail::server_wait_ms(*headers, now); wait && *wait > 0 && *wait < 60000.0)
            return std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(std::ceil(*wait)));
    }
    const double initial = static_cast<double>(std::max<std::chrono::milliseconds::rep>(p.initial_delay.count(), 0));
    const double longest = static_cast<double>(std::max<std::chrono::milliseconds::rep>(p.max_delay.count(), 0));
    const double backoff = std::min(std::ldexp(initial, static_cast<int>(std::min(retry, 1000u))), longest);
    const double r = std::isnan(random01) ? 0.0 : std::clamp(random01, 0.0, 1.0);
    const double j = std::isnan(p.jitter) ? 0.0 : std::clamp(p.jitter, 0.0, 1.0);
    return std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(std::llround(backoff * (1.0 - j * r))));
}

}  // namespace parley::net

#endif
