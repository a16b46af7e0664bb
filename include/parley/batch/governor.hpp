// parley/batch/governor.hpp: the rate-limit governor of a batch run. Every reply's header fields
// (successes and failures) tell it what the server allows: `retry-after` / `retry-after-ms`, and
// the remaining requests and tokens with the time they reset (`x-ratelimit-remaining-requests`,
// `x-ratelimit-reset-requests`... as OpenAI and compatible servers send them,
// `anthropic-ratelimit-requests-remaining`, `anthropic-ratelimit-requests-reset`... as Anthropic
// does). Every worker asks it before a request starts, so that one 429 or one exhausted limit
// slows every worker down, not only the one that saw it.
#ifndef PARLEY_BATCH_GOVERNOR_HPP
#define PARLEY_BATCH_GOVERNOR_HPP

#include <parley/net/headers.hpp>
#include <parley/net/retry.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// What one reply says of one limit (requests or tokens): how much of it remains, and when it
/// is whole again.
struct rate_window {
    std::optional<std::int64_t> remaining;  ///< requests or tokens left in the window
    std::optional<std::chrono::steady_clock::time_point> reset;  ///< when the window is whole again
    std::optional<std::int64_t> limit;  ///< requests or tokens of a whole window
};

/// The rate-limit fields of one reply, read by read_rate_limits.
struct rate_limit_report {
    /// The wait the server asks for (`retry-after-ms`, else `retry-after` in seconds or as an
    /// HTTP date), as net::server_retry_after reads it.
    std::optional<std::chrono::milliseconds> retry_after;
    rate_window requests;  ///< the request limit
    /// The token limit; with Anthropic's separate input and output limits, the one with the
    /// fewest tokens left.
    rate_window tokens;
};

namespace detail::governor {

inline bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

inline std::string_view trimmed(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// A whole number of at most 18 digits (a limit's remaining count); none otherwise.
inline std::optional<std::int64_t> count(std::string_view s) noexcept {
    s = trimmed(s);
    if (s.empty() || s.size() > 18) return std::nullopt;
    std::int64_t n = 0;
    for (char c : s) {
        if (!digit(c)) return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

/// A decimal number at the start of `s` ("1", "2.5"); advances `s` past it.
inline std::optional<double> decimal(std::string_view& s) noexcept {
    std::size_t i = 0;
    double v = 0;
    std::size_t digits = 0;
    for (; i < s.size() && digit(s[i]) && digits < 18; ++i, ++digits) v = v * 10 + (s[i] - '0');
    if (i < s.size() && s[i] == '.') {
        double scale = 0.1;
        for (++i; i < s.size() && digit(s[i]); ++i, ++digits, scale /= 10) v += (s[i] - '0') * scale;
    }
    if (digits == 0 || (i < s.size() && digit(s[i]))) return std::nullopt;
    s.remove_prefix(i);
    return v;
}

}  // namespace detail::governor

/// A reset time as OpenAI and compatible servers write it: a duration in Go's notation ("1s",
/// "6m0s", "20ms", "1h2m3.5s", units h, m, s, ms, us/µs, ns), or a plain number of seconds
/// ("2", "0.5"). None for anything else, a negative duration, or one of more than a day.
inline std::optional<std::chrono::milliseconds> parse_reset_duration(std::string_view text) noexcept {
    std::string_view s = detail::governor::trimmed(text);
    if (s.empty()) return std::nullopt;
    double ms = 0;
    bool any = false;
    while (!s.empty()) {
        const auto v = detail::governor::decimal(s);
        if (!v) return std::nullopt;
        double unit = 0;
        if (s.empty()) {
            if (any) return std::nullopt;  // "1m30": a number without unit after a unit
            unit = 1000;  // a plain number: seconds
        } else if (s.starts_with("ms")) unit = 1, s.remove_prefix(2);
        else if (s.starts_with("us")) unit = 1e-3, s.remove_prefix(2);
        else if (s.starts_with("\xc2\xb5s")) unit = 1e-3, s.remove_prefix(3);
        else if (s.starts_with("ns")) unit = 1e-6, s.remove_prefix(2);
        else if (s.front() == 'h') unit = 3'600'000, s.remove_prefix(1);
        else if (s.front() == 'm') unit = 60'000, s.remove_prefix(1);
        else if (s.front() == 's') unit = 1000, s.remove_prefix(1);
        else return std::nullopt;
        ms += *v * unit;
        any = true;
    }
    if (!(ms <= 86'400'000.0)) return std::nullopt;
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(ms)));
}

/// A time in RFC 3339's form ("2024-05-01T12:00:30Z", "2024-05-01T14:00:30.25+02:00"), as
/// Anthropic writes its reset times; none for anything else.
inline std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) noexcept {
    using namespace std::chrono;
    const std::string_view s = detail::governor::trimmed(text);
    std::size_t pos = 0;
    auto number = [&](std::size_t width, int& out) {
        if (s.size() - pos < width) return false;
        out = 0;
        for (std::size_t k = 0; k < width; ++k) {
            if (!detail::governor::digit(s[pos + k])) return false;
            out = out * 10 + (s[pos + k] - '0');
        }
        pos += width;
        return true;
    };
    auto lit = [&](char a, char b = 0) {
        if (pos < s.size() && (s[pos] == a || (b && s[pos] == b))) return ++pos, true;
        return false;
    };
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!(number(4, year) && lit('-') && number(2, month) && lit('-') && number(2, day) && lit('T', 't') &&
          number(2, hour) && lit(':') && number(2, minute) && lit(':') && number(2, second)))
        return std::nullopt;
    double fraction = 0;
    if (lit('.')) {
        double scale = 0.1;
        const std::size_t start = pos;
        for (; pos < s.size() && detail::governor::digit(s[pos]); ++pos, scale /= 10) fraction += (s[pos] - '0') * scale;
        if (pos == start) return std::nullopt;
    }
    int offset_minutes = 0;
    if (!lit('Z', 'z')) {
        const bool minus = pos < s.size() && s[pos] == '-';
        int oh = 0, om = 0;
        if (!(lit('+', '-') && number(2, oh) && lit(':') && number(2, om)) || oh > 23 || om > 59) return std::nullopt;
        offset_minutes = (minus ? -1 : 1) * (oh * 60 + om);
    }
    if (pos != s.size() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
    const year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                              std::chrono::day(static_cast<unsigned>(day))};
    if (!date.ok()) return std::nullopt;
    // in seconds first: the clock's ticks hold the years 1678 to 2261 only (beyond: its first or last time)
    const sys_seconds at = sys_days(date) + hours(hour) + minutes(minute) + seconds(second) - minutes(offset_minutes);
    if (at >= floor<seconds>(system_clock::time_point::max())) return system_clock::time_point::max();
    if (at <= ceil<seconds>(system_clock::time_point::min())) return system_clock::time_point::min();
    return time_point_cast<system_clock::duration>(at) + duration_cast<system_clock::duration>(duration<double>(fraction));
}

/// The rate-limit fields of a reply's header: `retry-after-ms` / `retry-after`;
/// `x-ratelimit-remaining-requests` and `x-ratelimit-reset-requests` (a duration, see
/// parse_reset_duration), the same for `-tokens`; `anthropic-ratelimit-requests-remaining` and
/// `anthropic-ratelimit-requests-reset` (an RFC 3339 time), the same for `-tokens`,
/// `-input-tokens` and `-output-tokens`. Fields that do not parse are ignored. Times are turned
/// into steady-clock times with `now` and `wall`, the two clocks' readings at the same moment.
inline rate_limit_report read_rate_limits(const http_headers& headers, std::chrono::steady_clock::time_point now,
                                          std::chrono::system_clock::time_point wall) {
    rate_limit_report r;
    if (auto wait = net::server_retry_after(headers, wall)) r.retry_after = std::max(*wait, std::chrono::milliseconds(0));
    auto relative = [&](std::string_view name) -> std::optional<std::chrono::steady_clock::time_point> {
        if (auto v = headers.find(name))
            if (auto d = parse_reset_duration(*v)) return now + *d;
        return std::nullopt;
    };
    auto absolute = [&](std::string_view name) -> std::optional<std::chrono::steady_clock::time_point> {
        if (auto v = headers.find(name))
            if (auto t = parse_rfc3339(*v)) {
                // without subtracting a time in the past (the clock's first time would overflow)
                const auto ahead = *t <= wall ? std::chrono::system_clock::duration(0)
                                              : std::min<std::chrono::system_clock::duration>(*t - wall, std::chrono::hours(24));
                return now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(ahead);
            }
        return std::nullopt;
    };
    auto remaining = [&](std::string_view name) -> std::optional<std::int64_t> {
        if (auto v = headers.find(name)) return detail::governor::count(*v);
        return std::nullopt;
    };
    // the window of the two with the fewest left (an exhausted one wins, whatever the other says)
    auto fewer = [](rate_window a, const rate_window& b) {
        if (!b.remaining) return a;
        if (!a.remaining || *b.remaining < *a.remaining) return b;
        return a;
    };
    r.requests = rate_window{remaining("x-ratelimit-remaining-requests"), relative("x-ratelimit-reset-requests"),
                             remaining("x-ratelimit-limit-requests")};
    r.tokens = rate_window{remaining("x-ratelimit-remaining-tokens"), relative("x-ratelimit-reset-tokens"),
                           remaining("x-ratelimit-limit-tokens")};
    r.requests = fewer(r.requests, rate_window{remaining("anthropic-ratelimit-requests-remaining"),
                                               absolute("anthropic-ratelimit-requests-reset"),
                                               remaining("anthropic-ratelimit-requests-limit")});
    for (std::string_view kind : {"tokens", "input-tokens", "output-tokens"}) {
        const std::string prefix = "anthropic-ratelimit-" + std::string(kind);
        r.tokens = fewer(r.tokens, rate_window{remaining(prefix + "-remaining"), absolute(prefix + "-reset"), remaining(prefix + "-limit")});
    }
    return r;
}

/// How a rate_governor reacts.
struct governor_options {
    /// The longest pause a reply can impose (a longer `retry-after` or reset is cut to this).
    std::chrono::milliseconds max_pause{std::chrono::minutes(5)};
    /// The pause of every worker after a 429 that says neither how long to wait nor when a limit
    /// resets.
    std::chrono::milliseconds pause_after_bare_429{500};
    /// The pause when a limit is used up and its reply gave no reset time.
    std::chrono::milliseconds pause_without_reset{1000};
};

/// What a governor has done so far.
struct governor_stats {
    std::size_t pauses = 0;  ///< times every worker was held back (a retry-after, a limit used up)
    std::chrono::milliseconds paused{0};  ///< wall-clock time the gate was closed, in all
};

/// The gate every request of a batch passes (one executor: not thread-safe). `admit(now)` says
/// when the next request may start and takes its share of the limits, `release()` ends it, and
/// `observe` reads a reply's fields. The rules:
/// - a `retry-after` (on any reply) closes the gate for that long (at most `max_pause`); so does
///   a 429 without it, for `pause_after_bare_429`, unless it says a limit is used up;
/// - the remaining requests a reply reports, less the other requests in flight (the server may
///   not have counted them yet), are a budget that each admitted request uses; within a window
///   the smallest such figure holds, since replies come back out of order. When the budget is
///   used up, no request starts before the reset time; then a new window begins, as large as
///   the limit the replies gave (`x-ratelimit-limit-requests`), or unknown;
/// - the remaining tokens likewise, each request taking the mean tokens of the requests so far
///   (count_tokens): no request starts while fewer tokens are left than one takes;
/// - a limit reported used up without a reset time holds for `pause_without_reset`.
class rate_governor {
public:
    using clock = std::chrono::steady_clock;

    explicit rate_governor(governor_options options = {}) : options_(options) {}

    /// Reads the rate-limit fields of a reply with HTTP status `status` (0: no reply), received at
    /// `now` (steady clock) and `wall` (system clock).
    void observe(const http_headers& headers, int status, clock::time_point now = clock::now(),
                 std::chrono::system_clock::time_point wall = std::chrono::system_clock::now()) {
        if (headers.empty() && status != 429) return;
        const rate_limit_report r = read_rate_limits(headers, now, wall);
        bool closed = false;
        if (r.retry_after) {
            close_until(now + std::min(*r.retry_after, options_.max_pause), now);
            closed = true;
        }
        // the other requests in flight may have reached the server after this reply's count
        const auto others = static_cast<std::int64_t>(in_flight_ > 0 ? in_flight_ - 1 : 0);
        take(requests_, r.requests, others, now);
        take(tokens_, r.tokens, others * static_cast<std::int64_t>(std::ceil(mean_tokens_)), now);
        const bool exhausted = (r.requests.remaining && *r.requests.remaining <= 0) || (r.tokens.remaining && *r.tokens.remaining <= 0);
        // a 429 with a used-up limit is held by the budgets until their reset
        if (status == 429 && !closed && !exhausted) close_until(now + options_.pause_after_bare_429, now);
    }

    /// Counts the tokens (input + output) one request used: the estimate of a request's tokens is
    /// their running mean.
    void count_tokens(std::int64_t tokens) noexcept {
        if (tokens <= 0) return;
        ++counted_;
        mean_tokens_ += (static_cast<double>(tokens) - mean_tokens_) / static_cast<double>(counted_);
    }

    /// When the next request may start (`now` or earlier: at once). When that is now, the request
    /// is admitted and takes its share of the budgets; otherwise call again at that time.
    clock::time_point admit(clock::time_point now) {
        if (now < closed_until_) return closed_until_;
        forget_if_reset(requests_, now);
        forget_if_reset(tokens_, now);
        clock::time_point until = now;
        if (requests_.remaining && *requests_.remaining <= 0) until = std::max(until, hold(requests_, now));
        const std::int64_t estimate = static_cast<std::int64_t>(std::ceil(mean_tokens_));
        if (tokens_.remaining && (*tokens_.remaining <= 0 || (counted_ > 0 && *tokens_.remaining < estimate)))
            until = std::max(until, hold(tokens_, now));
        if (until > now) return until;
        if (requests_.remaining) --*requests_.remaining;
        if (tokens_.remaining) *tokens_.remaining -= estimate;
        ++in_flight_;
        return now;
    }

    /// Ends a request admit() admitted (its reply, or its failure, is in): a reply's report does
    /// not count the requests still in flight, which the budgets take off it.
    void release() noexcept {
        if (in_flight_ > 0) --in_flight_;
    }

    /// Requests admitted and not released.
    std::size_t in_flight() const noexcept { return in_flight_; }

    /// Waits until the governor admits a request, on the calling coroutine's executor.
    boost::asio::awaitable<void> wait() {
        for (;;) {
            const auto now = clock::now();
            const auto at = admit(now);
            if (at <= now) co_return;
            boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, at);
            co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        }
    }

    /// The time before which no request starts (in the past when the gate is open).
    clock::time_point closed_until() const noexcept { return closed_until_; }
    /// The requests left of the last reported budget, when one is known.
    std::optional<std::int64_t> remaining_requests() const noexcept { return requests_.remaining; }
    /// The tokens left of the last reported budget, when one is known.
    std::optional<std::int64_t> remaining_tokens() const noexcept { return tokens_.remaining; }
    const governor_stats& stats() const noexcept { return stats_; }
    const governor_options& options() const noexcept { return options_; }

private:
    struct budget {
        std::optional<std::int64_t> remaining;  ///< after the requests admitted since the last report
        std::optional<clock::time_point> reset;  ///< the end of the current window, when a reply said it
        std::optional<std::int64_t> limit;  ///< a whole window's, when a reply said it
    };

    void close_until(clock::time_point until, clock::time_point now) {
        if (until <= closed_until_) return;
        const auto from = std::max(now, closed_until_);
        ++stats_.pauses;
        stats_.paused += std::chrono::duration_cast<std::chrono::milliseconds>(until - from);
        closed_until_ = until;
    }

    /// When a used-up budget may admit again: its reset (a pause of every worker), or, in a
    /// window whose end no reply has said yet, a moment later (the replies on their way say it).
    clock::time_point hold(const budget& b, clock::time_point now) {
        if (!b.reset) return now + std::chrono::milliseconds(10);
        const auto until = std::min(*b.reset, now + options_.max_pause);
        close_until(until, now);
        return until;
    }

    /// A window that has ended: a new one begins, whole when its size is known.
    static void forget_if_reset(budget& b, clock::time_point now) {
        if (b.reset && now >= *b.reset) {
            b.remaining = b.limit;
            b.reset.reset();
        }
    }

    void take(budget& b, const rate_window& w, std::int64_t in_flight, clock::time_point now) {
        if (w.limit) b.limit = w.limit;
        if (!w.remaining) return;
        forget_if_reset(b, now);
        std::optional<clock::time_point> reset = w.reset;
        if (!reset && *w.remaining <= 0) reset = now + options_.pause_without_reset;  // used up, no reset said
        if (reset) reset = std::min(*reset, now + options_.max_pause);
        // replies come back out of order, each counting the requests before it: within a window
        // the smallest report holds (and the requests admitted since count against it)
        const std::int64_t left = *w.remaining - in_flight;
        b.remaining = b.remaining ? std::min(*b.remaining, left) : left;
        if (reset) b.reset = b.reset ? std::max(*b.reset, *reset) : *reset;
    }

    governor_options options_;
    clock::time_point closed_until_{};
    budget requests_;
    budget tokens_;
    double mean_tokens_ = 0;
    std::int64_t counted_ = 0;
    std::size_t in_flight_ = 0;
    governor_stats stats_;
};

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
