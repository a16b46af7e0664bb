// Tests of parley/batch/governor.hpp: the reset fields as OpenAI (Go durations) and Anthropic
// (RFC 3339 times) write them, the report of a reply's fields, and the governor's rules on an
// injected clock.
#include <parley/batch/governor.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <string>

using namespace std::chrono_literals;

namespace {

parley::http_headers fields(std::initializer_list<std::pair<const char*, const char*>> list) {
    parley::http_headers h;
    for (const auto& [n, v] : list) h.add(n, v);
    return h;
}

}  // namespace

TEST_CASE("parse_reset_duration reads OpenAI's reset fields") {
    using parley::parse_reset_duration;
    // the forms OpenAI's rate-limit documentation shows, and Go's other units
    CHECK(parse_reset_duration("1s") == 1000ms);
    CHECK(parse_reset_duration("6m0s") == 360'000ms);
    CHECK(parse_reset_duration("20ms") == 20ms);
    CHECK(parse_reset_duration("1h2m3.5s") == 3'723'500ms);
    CHECK(parse_reset_duration("0.5s") == 500ms);
    CHECK(parse_reset_duration("12.1ms") == 13ms);  // rounded up to a whole millisecond
    CHECK(parse_reset_duration("1500us") == 2ms);
    CHECK(parse_reset_duration("2") == 2000ms);  // a plain number: seconds
    CHECK(parse_reset_duration(" 3s ") == 3000ms);
    CHECK_FALSE(parse_reset_duration(""));
    CHECK_FALSE(parse_reset_duration("s"));
    CHECK_FALSE(parse_reset_duration("-1s"));
    CHECK_FALSE(parse_reset_duration("1m30"));
    CHECK_FALSE(parse_reset_duration("1d"));
    CHECK_FALSE(parse_reset_duration("1.s5"));
    CHECK_FALSE(parse_reset_duration("25h"));  // more than a day
}

TEST_CASE("parse_rfc3339 reads Anthropic's reset times") {
    using namespace std::chrono;
    const auto base = sys_days(year(2024) / 5 / 1);
    CHECK(parley::parse_rfc3339("2024-05-01T12:00:30Z") == base + 12h + 30s);
    CHECK(parley::parse_rfc3339("2024-05-01T14:00:30+02:00") == base + 12h + 30s);
    CHECK(parley::parse_rfc3339("2024-05-01T12:00:30.25Z") == base + 12h + 30s + 250ms);
    CHECK(parley::parse_rfc3339("2024-04-30T23:30:00-01:00") == base + 30min);
    CHECK_FALSE(parley::parse_rfc3339("2024-02-30T00:00:00Z"));
    CHECK_FALSE(parley::parse_rfc3339("2024-05-01 12:00:30Z"));
    CHECK_FALSE(parley::parse_rfc3339("2024-05-01T12:00:30"));
    CHECK_FALSE(parley::parse_rfc3339("2024-05-01T12:00:30.Z"));
    CHECK_FALSE(parley::parse_rfc3339("2024-05-01T24:00:00Z"));
    // beyond the years the clock's ticks hold (1678 to 2261): its last or first time, not an overflow
    CHECK(parley::parse_rfc3339("2424-05-01T12:00:30.25+02:00") == system_clock::time_point::max());
    CHECK(parley::parse_rfc3339("0100-05-01T12:00:30Z") == system_clock::time_point::min());
    const auto far = parley::read_rate_limits(fields({{"anthropic-ratelimit-requests-remaining", "0"},
                                                      {"anthropic-ratelimit-requests-reset", "9999-12-31T23:59:59Z"}}),
                                              steady_clock::time_point(1000s), sys_days(year(2024) / 5 / 1));
    CHECK(far.requests.reset == steady_clock::time_point(1000s) + 24h);  // at most a day ahead
    const auto past = parley::read_rate_limits(fields({{"anthropic-ratelimit-requests-remaining", "0"},
                                                       {"anthropic-ratelimit-requests-reset", "0001-01-01T00:00:00Z"}}),
                                               steady_clock::time_point(1000s), sys_days(year(2024) / 5 / 1));
    CHECK(past.requests.reset == steady_clock::time_point(1000s));
}

TEST_CASE("read_rate_limits reads both families of fields") {
    const auto now = std::chrono::steady_clock::time_point(1000s);
    const auto wall = std::chrono::sys_days(std::chrono::year(2024) / 5 / 1) + 12h;
    SUBCASE("OpenAI") {
        const auto r = parley::read_rate_limits(fields({{"x-ratelimit-remaining-requests", "42"},
                                                        {"x-ratelimit-reset-requests", "34s"},
                                                        {"x-ratelimit-remaining-tokens", "18000"},
                                                        {"x-ratelimit-reset-tokens", "6m0s"},
                                                        {"retry-after", "2"}}),
                                                 now, wall);
        CHECK(r.requests.remaining == 42);
        CHECK(r.requests.reset == now + 34s);
        CHECK(r.tokens.remaining == 18000);
        CHECK(r.tokens.reset == now + 6min);
        CHECK(r.retry_after == 2000ms);
    }
    SUBCASE("Anthropic: the token family with the fewest left") {
        const auto r = parley::read_rate_limits(fields({{"anthropic-ratelimit-requests-remaining", "0"},
                                                        {"anthropic-ratelimit-requests-reset", "2024-05-01T12:00:05Z"},
                                                        {"anthropic-ratelimit-tokens-remaining", "9000"},
                                                        {"anthropic-ratelimit-tokens-reset", "2024-05-01T12:01:00Z"},
                                                        {"anthropic-ratelimit-input-tokens-remaining", "500"},
                                                        {"anthropic-ratelimit-input-tokens-reset", "2024-05-01T12:00:10Z"},
                                                        {"anthropic-ratelimit-output-tokens-remaining", "7000"}}),
                                                 now, wall);
        CHECK(r.requests.remaining == 0);
        CHECK(r.requests.reset == now + 5s);
        CHECK(r.tokens.remaining == 500);
        CHECK(r.tokens.reset == now + 10s);
        CHECK_FALSE(r.retry_after);
    }
    SUBCASE("fields that do not parse are ignored") {
        const auto r = parley::read_rate_limits(fields({{"x-ratelimit-remaining-requests", "many"},
                                                        {"x-ratelimit-reset-requests", "soon"},
                                                        {"anthropic-ratelimit-tokens-reset", "tomorrow"}}),
                                                 now, wall);
        CHECK_FALSE(r.requests.remaining);
        CHECK_FALSE(r.requests.reset);
        CHECK_FALSE(r.tokens.reset);
    }
}

TEST_CASE("rate_governor: retry-after closes the gate for every worker") {
    parley::rate_governor g;
    const auto t0 = std::chrono::steady_clock::time_point(100s);
    CHECK(g.admit(t0) == t0);
    g.observe(fields({{"retry-after-ms", "300"}}), 429, t0);
    // every worker that asks before the end of the pause is told to wait until then
    CHECK(g.admit(t0 + 1ms) == t0 + 300ms);
    CHECK(g.admit(t0 + 299ms) == t0 + 300ms);
    CHECK(g.admit(t0 + 300ms) == t0 + 300ms);  // open again
    CHECK(g.stats().pauses == 1);
    CHECK(g.stats().paused == 300ms);
    // a later, shorter pause does not shorten it
    g.observe(fields({{"retry-after-ms", "1000"}}), 503, t0 + 400ms);
    g.observe(fields({{"retry-after-ms", "10"}}), 503, t0 + 410ms);
    CHECK(g.admit(t0 + 500ms) == t0 + 1400ms);
}

TEST_CASE("rate_governor: a bare 429 pauses every worker briefly") {
    parley::governor_options o;
    o.pause_after_bare_429 = 250ms;
    parley::rate_governor g(o);
    const auto t0 = std::chrono::steady_clock::time_point(5s);
    g.observe({}, 429, t0);
    CHECK(g.admit(t0) == t0 + 250ms);
    // a 429 whose limits say when they reset: held until the reset, not for the bare pause
    parley::rate_governor h(o);
    h.observe(fields({{"x-ratelimit-remaining-requests", "0"}, {"x-ratelimit-reset-requests", "2s"}}), 429, t0);
    CHECK(h.admit(t0 + 1ms) == t0 + 2s);
}

TEST_CASE("rate_governor: the remaining requests are a budget until the reset") {
    parley::rate_governor g;
    const auto t0 = std::chrono::steady_clock::time_point(50s);
    g.observe(fields({{"x-ratelimit-remaining-requests", "2"}, {"x-ratelimit-reset-requests", "1s"}}), 200, t0);
    CHECK(g.admit(t0) == t0);
    CHECK(g.admit(t0) == t0);
    CHECK(g.admit(t0 + 10ms) == t0 + 1s);  // used up: wait for the reset
    CHECK(g.remaining_requests() == 0);
    // a reply to an older request, with more left in the same window, does not reopen it
    g.observe(fields({{"x-ratelimit-remaining-requests", "5"}, {"x-ratelimit-reset-requests", "990ms"}}), 200, t0 + 10ms);
    CHECK(g.admit(t0 + 20ms) == t0 + 1s);
    // after the reset the budget is unknown until a reply reports again
    CHECK(g.admit(t0 + 1s) == t0 + 1s);
    CHECK_FALSE(g.remaining_requests());
}

TEST_CASE("rate_governor: a new window is whole when the limit is known") {
    parley::rate_governor g;
    const auto t0 = std::chrono::steady_clock::time_point(60s);
    g.observe(fields({{"x-ratelimit-limit-requests", "3"}, {"x-ratelimit-remaining-requests", "0"},
                      {"x-ratelimit-reset-requests", "100ms"}}),
              429, t0);
    CHECK(g.admit(t0) == t0 + 100ms);
    // the window ended: three requests, then wait for the replies to say when the next one ends
    CHECK(g.admit(t0 + 100ms) == t0 + 100ms);
    CHECK(g.admit(t0 + 100ms) == t0 + 100ms);
    CHECK(g.admit(t0 + 100ms) == t0 + 100ms);
    CHECK(g.admit(t0 + 100ms) > t0 + 100ms);
    // a reply to the first of them says 2 left: the two admitted since still count
    g.observe(fields({{"x-ratelimit-remaining-requests", "2"}, {"x-ratelimit-reset-requests", "99ms"}}), 200, t0 + 101ms);
    CHECK(g.remaining_requests() == 0);
    CHECK(g.admit(t0 + 102ms) == t0 + 200ms);
}

TEST_CASE("rate_governor: no request while fewer tokens are left than one takes") {
    parley::rate_governor g;
    const auto t0 = std::chrono::steady_clock::time_point(7s);
    g.count_tokens(300);
    g.count_tokens(500);  // a request takes 400 tokens on average
    g.observe(fields({{"x-ratelimit-remaining-tokens", "900"}, {"x-ratelimit-reset-tokens", "3s"}}), 200, t0);
    CHECK(g.admit(t0) == t0);  // 900 left
    CHECK(g.admit(t0) == t0);  // 500 left
    CHECK(g.admit(t0) == t0 + 3s);  // 100 left: less than a request
    CHECK(g.admit(t0 + 3s) == t0 + 3s);
}

TEST_CASE("rate_governor: a used-up limit without reset time pauses for pause_without_reset") {
    parley::governor_options o;
    o.pause_without_reset = 400ms;
    parley::rate_governor g(o);
    const auto t0 = std::chrono::steady_clock::time_point(9s);
    g.observe(fields({{"x-ratelimit-remaining-requests", "0"}}), 200, t0);
    CHECK(g.admit(t0 + 1ms) == t0 + 400ms);
    CHECK(g.admit(t0 + 400ms) == t0 + 400ms);
}

TEST_CASE("rate_governor: a pause is cut to max_pause") {
    parley::governor_options o;
    o.max_pause = 2s;
    parley::rate_governor g(o);
    const auto t0 = std::chrono::steady_clock::time_point(11s);
    g.observe(fields({{"retry-after", "3600"}}), 429, t0);
    CHECK(g.admit(t0) == t0 + 2s);
}
