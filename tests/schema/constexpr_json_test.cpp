// Tests of parley/schema/detail/constexpr_json.hpp: JSON text written and checked in constant
// expressions.
#include <parley/schema/detail/constexpr_json.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>

namespace {

namespace pd = parley::detail;

struct small_text {
    char data[64] = {};
    std::size_t size = 0;
    constexpr std::string_view view() const { return {data, size}; }
};

template <class F>
constexpr small_text write(F f) {
    pd::text_buffer b;
    f(b);
    small_text t;
    for (char c : b.view()) t.data[t.size++] = c;
    return t;
}

constexpr small_text number(double v) {
    return write([v](pd::text_buffer& b) { pd::append_double(b, v); });
}
constexpr small_text string(std::string_view s) {
    return write([s](pd::text_buffer& b) { pd::append_json_string(b, s); });
}
constexpr small_text integer(std::int64_t v) {
    return write([v](pd::text_buffer& b) { pd::append_signed(b, v); });
}

// Doubles: the shortest decimal that reads back exactly, a ".0" on whole numbers.
static_assert(number(0.1).view() == "0.1");
static_assert(number(0.5).view() == "0.5");
static_assert(number(-2.75).view() == "-2.75");
static_assert(number(9.99).view() == "9.99");
static_assert(number(100.5).view() == "100.5");
static_assert(number(1e-3).view() == "0.001");
static_assert(number(1.5e-8).view() == "1.5e-8");
static_assert(number(123456.789).view() == "123456.789");
static_assert(number(3.14159).view() == "3.14159");
static_assert(number(0.3).view() == "0.3");
static_assert(number(0.1 + 0.2).view() == "0.30000000000000004");
static_assert(number(0.0).view() == "0.0");
static_assert(number(-0.0).view() == "0.0");
static_assert(number(1e6).view() == "1000000.0");
static_assert(number(-42.0).view() == "-42.0");
static_assert(number(1e22).view() == "1e22");
// outside the exact range: 17 significant digits (correct, not always the shortest)
static_assert(number(1e300).view() == "1.0000000000000001e300");
static_assert(number(5e-324).view() == "4.9406564584124654e-324");
static_assert(number(1.7976931348623157e308).view() == "1.7976931348623157e308");

static_assert(integer(0).view() == "0");
static_assert(integer(-9223372036854775807 - 1).view() == "-9223372036854775808");
static_assert(write([](pd::text_buffer& b) { pd::append_unsigned(b, 18446744073709551615u); }).view() ==
              "18446744073709551615");

static_assert(string("plain").view() == R"("plain")");
static_assert(string("q\"b\\n\nt\tc\x01").view() == R"("q\"b\\n\nt\tc\u0001")");
static_assert(string("caf\xc3\xa9").view() == "\"caf\xc3\xa9\"");

// Growth past the first allocation keeps every character.
static_assert([] {
    pd::text_buffer b;
    for (int i = 0; i < 1000; ++i) b.append("abc");
    b.truncate(2999);
    return b.size() == 2999 && b.view().substr(2994) == "abcab";
}());

static_assert(pd::is_json_text("null"));
static_assert(pd::is_json_text(" {\"a\" : [1, -2.5e+3, true, false, null, \"\\u00e9\\n\"]} "));
static_assert(pd::is_json_text("[]"));
static_assert(pd::is_json_text("0"));
static_assert(!pd::is_json_text(""));
static_assert(!pd::is_json_text("01"));
static_assert(!pd::is_json_text("[1,]"));
static_assert(!pd::is_json_text("{\"a\"}"));
static_assert(!pd::is_json_text("\"unterminated"));
static_assert(!pd::is_json_text("\"bad \\x escape\""));
static_assert(!pd::is_json_text("tru"));
static_assert(!pd::is_json_text("1."));
static_assert(!pd::is_json_text("[1] [2]"));

TEST_CASE("constexpr_json: doubles read back exactly") {
    std::mt19937_64 rng(20240726);
    std::uniform_int_distribution<std::uint64_t> bits;
    std::uniform_int_distribution<int> digits(1, 9);
    int checked = 0;
    for (int i = 0; i < 20000; ++i) {
        double v;
        if (i % 2 == 0) {
            // any finite double
            const std::uint64_t b = bits(rng);
            std::memcpy(&v, &b, sizeof v);
            if (!std::isfinite(v)) continue;
        } else {
            // a short decimal, the common case for bounds and examples
            v = static_cast<double>(bits(rng) % 100000) / std::pow(10.0, digits(rng));
        }
        const small_text t = number(v);
        const std::string text(t.view());
        const double back = std::strtod(text.c_str(), nullptr);
        INFO("value ", v, " written as ", text);
        CHECK(back == v);
        if (i % 2 == 1) {
            // a short decimal comes back as short as %.15g writes it (or shorter)
            char shortest[64];
            std::snprintf(shortest, sizeof shortest, "%.15g", v);
            CHECK(text.size() <= std::strlen(shortest) + 2);
        }
        ++checked;
    }
    CHECK(checked > 15000);
}

}  // namespace
