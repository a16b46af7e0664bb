// Tests of parley/provider/anthropic/common.hpp: API error objects and usage counts; and that
// parley/provider/anthropic.hpp gives the whole codec.
#include <parley/provider/anthropic/common.hpp>

#include <parley/provider/anthropic.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <type_traits>

using namespace parley;

static_assert(std::is_same_v<decltype(anthropic::encode_request(std::declval<const chat_request&>(), true)),
                             boost::json::object>);
static_assert(std::is_same_v<decltype(anthropic::decode_error(0, {}, "")), call_error>);
static_assert(std::is_same_v<decltype(std::declval<anthropic::stream_decoder&>().take_reply()), chat_reply>);
static_assert(std::is_base_of_v<wire_api, anthropic::messages_api>);

TEST_CASE("anthropic read_api_error: only error objects") {
    auto read = [](std::string_view json, call_error& e) {
        return anthropic::detail::read_api_error(boost::json::parse(json).as_object(), e);
    };
    call_error e;
    CHECK(read(R"({"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}, "request_id": "req_1"})", e));
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
    using parley::detail::wire::json_path;
    using parley::detail::wire::wire_failure;
    const json_path at{nullptr, "usage", 0};
    auto usage = [&](std::string_view json) { return anthropic::detail::read_usage(boost::json::parse(json).as_object(), at); };
    const token_usage u = usage(R"({"input_tokens": null, "output_tokens": 4})");
    CHECK(u.prompt_tokens == 0);
    CHECK(u.completion_tokens == 4);
    CHECK(u.total_tokens == 4);
    const auto huge = usage(R"({"input_tokens": 1000000000000000000, "cache_read_input_tokens": 1000000000000000000,)"
                            R"( "cache_creation_input_tokens": 1000000000000000000, "output_tokens": 1000000000000000000})");
    CHECK(huge.total_tokens == 4'000'000'000'000'000'000);
    CHECK(huge.cached_tokens() == 1'000'000'000'000'000'000);
    CHECK(huge.cache_creation_tokens() == 1'000'000'000'000'000'000);
    auto problem = [&](std::string_view json) {
        try {
            usage(json);
        } catch (const wire_failure& f) {
            return f.message;
        }
        return std::string("no failure");
    };
    CHECK(problem(R"({"input_tokens": 1000000000000000001})") ==
          "usage: input_tokens: expected a token count (an integer from 0 to 10^18), found an integer (1000000000000000001)");
    CHECK(problem(R"({"output_tokens": 1.5})") ==
          "usage: output_tokens: expected a token count (an integer from 0 to 10^18), found a number (1.5E0)");
    // the thinking tokens of SDK 1.x's usage
    CHECK(usage(R"({"input_tokens": 3, "output_tokens": 40, "output_tokens_details": {"thinking_tokens": 30}})")
              .reasoning_tokens() == 30);
}
