// Tests of parley/net/retry.hpp: the SDKs' decision to retry, the server's requested wait in
// every header form (HTTP dates also against Python's email.utils, through
// tests/net/http_date_reference.py), and the exponential backoff with jitter.
#include <parley/net/retry.hpp>

#include "../harness/subprocess.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using parley::http_headers;
using parley::net::retry_delay;
using parley::net::retry_policy;
using parley::net::server_retry_after;
using parley::net::should_retry;
using std::chrono::milliseconds;
using std::chrono::system_clock;

namespace {

http_headers with(std::initializer_list<std::pair<const char*, const char*>> fields) {
    http_headers h;
    for (const auto& [name, value] : fields) h.add(name, value);
    return h;
}

system_clock::time_point at_seconds(std::int64_t s, std::int64_t ms = 0) {
    return system_clock::time_point(std::chrono::seconds(s) + milliseconds(ms));
}

// Sun, 06 Nov 1994 08:49:37 GMT is 784111777 s after the epoch: 24 years from 1970 with 6 leap
// days (1972 ... 1992) are 8766 days, January to October 1994 304 days, then 5 more days:
// 9075 days = 784080000 s, plus 8 h 49 min 37 s = 31777 s.
constexpr std::int64_t rfc_example = 784111777;

std::optional<milliseconds> wait_for(std::initializer_list<std::pair<const char*, const char*>> fields,
                                     system_clock::time_point now = at_seconds(rfc_example)) {
    return server_retry_after(with(fields), now);
}

}  // namespace

TEST_CASE("should_retry: 408, 409, 429 and 5xx, unless x-should-retry says otherwise") {
    const http_headers none;
    for (int status = 100; status < 700; ++status) {
        CAPTURE(status);
        const bool expected = status == 408 || status == 409 || status == 429 || status >= 500;
        CHECK(should_retry(status, none) == expected);
        CHECK(should_retry(status, with({{"x-should-retry", "true"}})));
        CHECK_FALSE(should_retry(status, with({{"X-Should-Retry", "false"}})));
        // Other values leave the decision to the status.
        CHECK(should_retry(status, with({{"x-should-retry", "TRUE"}})) == expected);
        CHECK(should_retry(status, with({{"x-should-retry", "1"}})) == expected);
        CHECK(should_retry(status, with({{"x-should-retry", ""}})) == expected);
    }
    CHECK(should_retry(400, with({{"x-should-retry", " true "}})));
    CHECK_FALSE(should_retry(503, with({{"x-should-retry", "\tfalse"}})));
    CHECK_FALSE(should_retry(400, with({{"retry-after", "1"}})));
}

TEST_CASE("server_retry_after: retry-after-ms, then retry-after in seconds") {
    CHECK_FALSE(wait_for({}));
    CHECK(wait_for({{"retry-after-ms", "1500"}}) == 1500ms);
    CHECK(wait_for({{"Retry-After-Ms", "250.25"}}) == 251ms);  // rounded up
    CHECK(wait_for({{"retry-after", "2"}}) == 2000ms);
    CHECK(wait_for({{"retry-after", "1.5"}}) == 1500ms);
    CHECK(wait_for({{"retry-after", "0.0015"}}) == 2ms);
    CHECK(wait_for({{"retry-after", "120"}}) == 120000ms);
    CHECK(wait_for({{"retry-after", "0"}}) == 0ms);
    CHECK(wait_for({{"retry-after", "-5"}}) == -5000ms);
    // retry-after-ms comes first...
    CHECK(wait_for({{"retry-after", "7"}, {"retry-after-ms", "300"}}) == 300ms);
    // ...unless it is 0, not a number, or empty: then retry-after is read, as in the SDK.
    CHECK(wait_for({{"retry-after-ms", "0"}, {"retry-after", "3"}}) == 3000ms);
    CHECK(wait_for({{"retry-after-ms", "soon"}, {"retry-after", "3"}}) == 3000ms);
    CHECK(wait_for({{"retry-after-ms", ""}, {"retry-after", "3"}}) == 3000ms);
    CHECK(wait_for({{"retry-after-ms", "0"}}) == 0ms);
    CHECK(wait_for({{"retry-after-ms", "0"}, {"retry-after", "soon"}}) == 0ms);
    // Numbers as JavaScript's parseFloat reads them: leading white space, a number prefix.
    CHECK(wait_for({{"retry-after", "  7"}}) == 7000ms);
    CHECK(wait_for({{"retry-after", "3 seconds"}}) == 3000ms);
    CHECK(wait_for({{"retry-after", "1e1"}}) == 10000ms);
    CHECK(wait_for({{"retry-after", "1e"}}) == 1000ms);
    CHECK(wait_for({{"retry-after", ".5"}}) == 500ms);
    CHECK(wait_for({{"retry-after", "5."}}) == 5000ms);
    CHECK(wait_for({{"retry-after", "+2"}}) == 2000ms);
    CHECK(wait_for({{"retry-after", "0x10"}}) == 0ms);
    CHECK(wait_for({{"retry-after", "Infinity"}}) == milliseconds(9'000'000'000'000'000'000));
    CHECK(wait_for({{"retry-after", "1e400"}}) == milliseconds(9'000'000'000'000'000'000));
    CHECK(wait_for({{"retry-after", "-1e400"}}) == milliseconds(-9'000'000'000'000'000'000));
    // Unreadable: nothing.
    for (const char* bad : {"", "soon", ".", "-", "e5", "inf", "NaN", "Sun, 06 Nov 1994 25:49:37 GMT"}) {
        CAPTURE(std::string(bad));
        CHECK_FALSE(wait_for({{"retry-after", bad}}));
        CHECK_FALSE(wait_for({{"retry-after-ms", bad}}));
    }
}

TEST_CASE("server_retry_after: retry-after as an HTTP date in its three forms") {
    const auto now = at_seconds(rfc_example - 30);  // 08:49:07, 30 s before the dates
    CHECK(wait_for({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, now) == 30000ms);
    CHECK(wait_for({{"retry-after", "Sunday, 06-Nov-94 08:49:37 GMT"}}, now) == 30000ms);
    CHECK(wait_for({{"retry-after", "Sun Nov  6 08:49:37 1994"}}, now) == 30000ms);
    CHECK(wait_for({{"retry-after", "  sun, 06 NOV 1994 08:49:37 gmt "}}, now) == 30000ms);
    // Relative to a `now` with milliseconds.
    CHECK(wait_for({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, at_seconds(rfc_example - 30, 250)) == 29750ms);
    // In the past: negative.
    CHECK(wait_for({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, at_seconds(rfc_example + 10)) == -10000ms);
    // The day name is not checked against the date (the RFC's example with another day).
    CHECK(wait_for({{"retry-after", "Mon, 06 Nov 1994 08:49:37 GMT"}}, now) == 30000ms);

    for (const char* bad : {"Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
                            "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                            "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
                            "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49:37 94", "Sun, 06 Nov 1994 08:49:37 GMT x",
                            "Xyz, 06 Nov 1994 08:49:37 GMT"}) {
        CAPTURE(std::string(bad));
        CHECK_FALSE(wait_for({{"retry-after", bad}}, now));
    }
    // A text that starts with a number is that number of seconds (parseFloat, as in the SDK).
    CHECK(wait_for({{"retry-after", "06 Nov 1994 08:49:37 GMT"}}, now) == 6000ms);
    // Years the clock's ticks cannot hold (1678 to 2261): its first or last time, a wait of
    // centuries either way, not an overflow.
    CHECK(*wait_for({{"retry-after", "Sun, 06 Nov 3885 08:49:37 GMT"}}, now) > milliseconds(200LL * 365 * 86400 * 1000));
    CHECK(*wait_for({{"retry-after", "Sun, 06 Nov 0100 08:49:37 GMT"}}, now) < milliseconds(-200LL * 365 * 86400 * 1000));
    CHECK(*wait_for({{"retry-after", "Fri, 31 Dec 9999 23:59:59 GMT"}}, now) > 0ms);
}

TEST_CASE("server_retry_after: RFC 850 two-digit years, more than 50 years ahead means the century before") {
    // now = 2024-01-01T00:00:00Z = 1704067200 s (19723 days: 54 years with 13 leap days).
    const auto now = at_seconds(1704067200);
    // 2074-01-01 is 50 years ahead: kept (50 years with 13 leap days, 2024 ... 2072: 18263 days =
    // 1577923200 s later).
    CHECK(wait_for({{"retry-after", "Monday, 01-Jan-74 00:00:00 GMT"}}, now) == milliseconds(1577923200LL * 1000));
    // 2075-01-01 would be 51 years ahead: it is 1975-01-01 (157766400 s after the epoch).
    CHECK(wait_for({{"retry-after", "Wednesday, 01-Jan-75 00:00:00 GMT"}}, now) ==
          milliseconds((157766400LL - 1704067200LL) * 1000));
}

TEST_CASE("server_retry_after: HTTP dates as Python's email.utils reads them") {
    // Python takes two-digit years 69..99 as 19xx and 00..68 as 20xx; from 2024 the RFC's rule
    // agrees except for 69..74, which are left out.
    const std::vector<std::string> dates = {
        "Sun, 06 Nov 1994 08:49:37 GMT",    "Sunday, 06-Nov-94 08:49:37 GMT",  "Sun Nov  6 08:49:37 1994",
        "Thu, 01 Jan 1970 00:00:00 GMT",    "Tue, 29 Feb 2028 23:59:59 GMT",   "Friday, 31-Dec-99 23:59:59 GMT",
        "Wednesday, 01-Jan-25 00:00:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT",  "Mon Jan 15 13:05:09 2024",
        "Sat Dec 31 23:59:59 2033",          "Fri, 01 Mar 2024 12:00:00 GMT",  "Thu, 29 Feb 2024 00:00:01 GMT",
        "Mon, 01 Jan 2024 00:00:30 GMT",     "Tuesday, 15-Jun-38 04:05:06 GMT", "Thu Feb 29 12:34:56 2024",
        "Sat, 01 Jan 2000 00:00:00 GMT",     "Thursday, 30-Apr-26 19:00:59 GMT"};
    const auto in = subprocess::temp_path("http-dates.txt");
    const auto out = subprocess::temp_path("http-dates-epoch.txt");
    {
        std::ofstream f(in);
        for (const auto& d : dates) f << d << '\n';
    }
    const char* env_python = std::getenv("PARLEY_PYTHON");
    const std::string python = env_python && *env_python ? env_python : "python3";
    const std::string cmd = subprocess::shell_quote(python) + " " +
                            subprocess::shell_quote(subprocess::source_dir() + "/tests/net/http_date_reference.py") +
                            " " + subprocess::shell_quote(in.string()) + " " + subprocess::shell_quote(out.string());
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "failed: " << cmd);
    std::ifstream answers(out);
    const std::int64_t now = 1704067200;  // 2024-01-01T00:00:00Z
    for (const auto& d : dates) {
        CAPTURE(d);
        std::string epoch;
        REQUIRE(std::getline(answers, epoch));
        REQUIRE(epoch != "none");
        const auto wait = server_retry_after(with({{"retry-after", d.c_str()}}), at_seconds(now));
        REQUIRE(wait);
        CHECK(wait->count() == (std::stoll(epoch) - now) * 1000);
    }
    std::filesystem::remove(in);
    std::filesystem::remove(out);
}

TEST_CASE("retry_delay: 0.5 s doubling to 8 s, minus up to 25% of jitter") {
    const retry_policy p;
    CHECK(p.max_retries == 2);
    CHECK(p.initial_delay == 500ms);
    CHECK(p.max_delay == 8000ms);
    CHECK(p.jitter == 0.25);
    const auto now = at_seconds(rfc_example);
    const std::vector<milliseconds> no_jitter = {500ms, 1000ms, 2000ms, 4000ms, 8000ms, 8000ms};
    const std::vector<milliseconds> most_jitter = {375ms, 750ms, 1500ms, 3000ms, 6000ms, 6000ms};
    for (unsigned retry = 0; retry < no_jitter.size(); ++retry) {
        CAPTURE(retry);
        CHECK(retry_delay(p, retry, nullptr, 0.0, now) == no_jitter[retry]);
        CHECK(retry_delay(p, retry, nullptr, 1.0, now) == most_jitter[retry]);
        for (double r = 0; r <= 1.0; r += 0.0625) {
            const auto d = retry_delay(p, retry, nullptr, r, now);
            CHECK(d <= no_jitter[retry]);
            CHECK(d >= most_jitter[retry]);
        }
    }
    CHECK(retry_delay(p, 0, nullptr, 0.5, now) == 438ms);  // 500 × 0.875 = 437.5, rounded
    CHECK(retry_delay(p, 100, nullptr, 0.0, now) == 8000ms);
    CHECK(retry_delay(p, 4000000000u, nullptr, 1.0, now) == 6000ms);
    // random01 and jitter outside [0, 1] are clamped: the delay never grows nor goes below 0.
    CHECK(retry_delay(p, 0, nullptr, -3.0, now) == 500ms);
    CHECK(retry_delay(p, 0, nullptr, 7.0, now) == 375ms);
    CHECK(retry_delay(retry_policy{2, 500ms, 8000ms, 4.0}, 0, nullptr, 1.0, now) == 0ms);
    // Other policies.
    const retry_policy quick{5, 100ms, 1000ms, 0.0};
    const std::vector<milliseconds> quick_sequence = {100ms, 200ms, 400ms, 800ms, 1000ms, 1000ms};
    for (unsigned retry = 0; retry < quick_sequence.size(); ++retry) {
        CAPTURE(retry);
        CHECK(retry_delay(quick, retry, nullptr, 1.0, now) == quick_sequence[retry]);
    }
}

TEST_CASE("retry_delay: the server's wait when it is above 0 and below 60 s") {
    const retry_policy p;
    const auto now = at_seconds(rfc_example - 30);
    auto delay = [&](std::initializer_list<std::pair<const char*, const char*>> fields, unsigned retry = 1) {
        const http_headers h = with(fields);
        return retry_delay(p, retry, &h, 0.0, now);
    };
    CHECK(delay({{"retry-after", "2"}}) == 2000ms);
    CHECK(delay({{"retry-after", "2"}}, 4) == 2000ms);
    CHECK(delay({{"retry-after-ms", "1500"}}) == 1500ms);
    CHECK(delay({{"retry-after-ms", "0.25"}}) == 1ms);
    CHECK(delay({{"retry-after", "59.999"}}) == 59999ms);
    CHECK(delay({{"retry-after-ms", "59999.5"}}) == 60000ms);  // below 60 s before rounding up
    CHECK(delay({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}) == 30000ms);
    CHECK(delay({{"retry-after-ms", "0"}, {"retry-after", "3"}}) == 3000ms);
    // 60 s or more, 0, negative, a date in the past, unreadable, absent: the computed delay
    // (1000 ms for retry 1 without jitter).
    for (const char* wait : {"60", "60.5", "3600", "0", "-1", "soon", "Infinity", "Sun, 06 Nov 1994 08:48:00 GMT",
                             "Sun, 06 Nov 1994 08:50:37 GMT"}) {
        CAPTURE(std::string(wait));
        CHECK(delay({{"retry-after", wait}}) == 1000ms);
    }
    CHECK(delay({{"retry-after-ms", "60000"}}) == 1000ms);
    CHECK(delay({{"retry-after-ms", "-200"}}) == 1000ms);
    CHECK(delay({}) == 1000ms);
    CHECK(delay({{"x-should-retry", "true"}}) == 1000ms);
}

TEST_CASE("worth_retrying: transient failures, time-outs and the retryable statuses") {
    parley::call_error e;
    e.code = std::make_error_code(std::errc::connection_refused);
    CHECK_FALSE(parley::net::worth_retrying(e));
    e.transient = true;
    CHECK(parley::net::worth_retrying(e));
    parley::call_error timeout;
    timeout.code = parley::make_error_code(parley::errc::timeout);
    timeout.status = 200;  // the total time passed while the body was read
    CHECK(parley::net::worth_retrying(timeout));
    parley::call_error status;
    status.code = parley::make_error_code(parley::errc::api_error);
    for (int s : {408, 409, 429, 500, 503, 529}) {
        status.status = s;
        CHECK(parley::net::worth_retrying(status));
    }
    for (int s : {200, 400, 401, 404, 422}) {
        status.status = s;
        CHECK_FALSE(parley::net::worth_retrying(status));
    }
    status.status = 429;
    status.headers.add("x-should-retry", "false");
    CHECK_FALSE(parley::net::worth_retrying(status));
    parley::call_error cut;
    cut.code = parley::make_error_code(parley::errc::protocol);
    cut.status = 200;
    CHECK_FALSE(parley::net::worth_retrying(cut));  // a malformed reply: not again
    cut.transient = true;  // a stream cut short
    CHECK(parley::net::worth_retrying(cut));
}
