// Tests of parley/provider/anthropic_json.hpp: excerpts of untrusted text, bounded strings, API
// error objects and usage counts; and that parley/provider/anthropic.hpp gives the whole codec.
#include <parley/provider/anthropic_json.hpp>

#include <parley/provider/anthropic.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <type_traits>

using namespace parley;
namespace da = parley::detail::anthropic;

static_assert(std::is_same_v<decltype(anthropic::encode_request(std::declval<const chat_request&>(), true)),
                             boost::json::object>);
static_assert(std::is_same_v<decltype(anthropic::decode_error(0, {}, "")), call_error>);
static_assert(std::is_same_v<decltype(std::declval<anthropic::stream_decoder&>().take_reply()), chat_reply>);

TEST_CASE("anthropic excerpt: white space collapsed, invalid UTF-8 shown as '?', cuts at a character boundary") {
    CHECK(da::excerpt("  a \r\n\t b  ") == "a b");
    CHECK(da::excerpt("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    // a lone continuation byte, an overlong '/', a UTF-16 surrogate, a truncated sequence
    CHECK(da::excerpt("a\x80" "b\xC0\xAF" "c\xED\xA0\x80" "d\xE2\x82") == "a?b??c???d??");
    CHECK(da::excerpt("abcdef", 4) == "abcd...");
    CHECK(da::excerpt("ab\xE2\x82\xAC", 4) == "ab...");
    CHECK(da::excerpt("ab\x01\x7F" "cd", 10) == "ab cd");
    CHECK(da::excerpt("") == "");
}

TEST_CASE("anthropic bounded: cut at a character boundary") {
    CHECK(da::bounded("abc", 3) == "abc");
    CHECK(da::bounded("abcd", 3) == "abc...");
    CHECK(da::bounded("a\xC3\xA9z", 2) == "a...");
}

TEST_CASE("anthropic read_api_error: only error objects") {
    auto read = [](std::string_view json, call_error& e) {
        return da::read_api_error(boost::json::parse(json).as_object(), e);
    };
    call_error e;
    CHECK(read(R"({"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}})", e));
    CHECK(e.code == make_error_code(errc::api_error));
    CHECK(e.type == "rate_limit_error");
    CHECK(e.message == "Slow down");
    call_error s;
    CHECK(read(R"({"error": "upstream timeout"})", s));
    CHECK(s.message == "upstream timeout");
    CHECK(s.type.empty());
    call_error n;
    CHECK_FALSE(read(R"({"type": "message", "error": {"type": "x", "message": "y"}})", n));
    CHECK_FALSE(read(R"({"error": {"code": 7}})", n));
    CHECK_FALSE(read(R"({"error": 7})", n));
    CHECK_FALSE(read(R"({"detail": "Not Found"})", n));
    CHECK_FALSE(n.code);
}

TEST_CASE("anthropic read_usage: counts, their sum, their bounds") {
    token_usage u;
    std::string problem;
    CHECK(da::read_usage(boost::json::parse(R"({"input_tokens": null, "output_tokens": 4})").as_object(), u, problem));
    CHECK(u.prompt_tokens == 0);
    CHECK(u.completion_tokens == 4);
    CHECK(u.total_tokens == 4);
    const auto huge = R"({"input_tokens": 1000000000000000000, "cache_read_input_tokens": 1000000000000000000,)"
                      R"( "cache_creation_input_tokens": 1000000000000000000, "output_tokens": 1000000000000000000})";
    CHECK(da::read_usage(boost::json::parse(huge).as_object(), u, problem));
    CHECK(u.total_tokens == 4'000'000'000'000'000'000);
    CHECK_FALSE(da::read_usage(boost::json::parse(R"({"input_tokens": 1000000000000000001})").as_object(), u, problem));
    CHECK(problem == "expected 'usage.input_tokens' to be a token count (an integer from 0 to 10^18), found a number "
                     "(1000000000000000001)");
    CHECK_FALSE(da::read_usage(boost::json::parse(R"({"output_tokens": 1.5})").as_object(), u, problem));
    CHECK(problem == "expected 'usage.output_tokens' to be a token count (an integer from 0 to 10^18), found a number (1.5E0)");
}
