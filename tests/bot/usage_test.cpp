// Tests of parley/bot/usage.hpp: a usage summary from replies in the shapes of the OpenAI and
// Anthropic usage objects, failed requests, sums, and the cost at a catalog's prices.
#include <parley/bot/usage.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>

namespace usage_tests {

parley::chat_reply reply_with(std::string model, std::string_view usage_json, std::int64_t prompt, std::int64_t completion,
                              unsigned attempts = 1) {
    parley::chat_reply r;
    r.model = std::move(model);
    parley::token_usage u;
    u.prompt_tokens = prompt;
    u.completion_tokens = completion;
    u.total_tokens = prompt + completion;
    u.details = boost::json::parse(usage_json).as_object();
    r.usage = u;
    r.attempts = attempts;
    return r;
}

}  // namespace usage_tests

using namespace usage_tests;

TEST_CASE("token_usage: cached, cache-creation and reasoning tokens from the OpenAI and Anthropic usage objects") {
    const auto openai = reply_with("gpt-4o", R"({"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
        "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 128}})",
                                   1200, 300);
    CHECK(openai.usage->cached_tokens() == 1024);
    CHECK(openai.usage->reasoning_tokens() == 128);
    CHECK(openai.usage->cache_creation_tokens() == 0);
    const auto anthropic = reply_with("claude-x", R"({"input_tokens": 10, "cache_creation_input_tokens": 2000,
        "cache_read_input_tokens": 500, "output_tokens": 40})",
                                      2510, 40);
    CHECK(anthropic.usage->cached_tokens() == 500);
    CHECK(anthropic.usage->cache_creation_tokens() == 2000);
    CHECK(anthropic.usage->reasoning_tokens() == 0);
    // a provider that says nothing more, or says it wrongly
    const auto bare = reply_with("m", R"({"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": -3}})", 5, 1);
    CHECK(bare.usage->cached_tokens() == 0);
    CHECK(bare.usage->reasoning_tokens() == 0);
}

TEST_CASE("usage_summary: per model, failures and attempts, sums") {
    parley::usage_summary s;
    s.add(reply_with("gpt-4o-2024-08-06", R"({"prompt_tokens_details": {"cached_tokens": 1000},
        "completion_tokens_details": {"reasoning_tokens": 50}})",
                     2000, 200, 2),
          "gpt-4o");
    s.add(reply_with("", "{}", 100, 10), "gpt-4o");  // no model in the reply: the request's
    parley::chat_reply silent;  // a reply without counts
    s.add(silent, "local");
    parley::call_error e;
    e.attempts = 3;
    s.add(e, "gpt-4o");
    REQUIRE(s.models.size() == 3);
    CHECK(s.models[0].model == "gpt-4o-2024-08-06");
    CHECK(s.models[0].input_tokens == 2000);
    CHECK(s.models[0].cached_input_tokens == 1000);
    CHECK(s.models[0].reasoning_tokens == 50);
    CHECK(s.models[0].attempts == 2);
    CHECK(s.models[1].model == "gpt-4o");
    CHECK(s.models[1].requests == 2);
    CHECK(s.models[1].failed == 1);
    CHECK(s.models[1].attempts == 4);
    CHECK(s.models[2].unreported == 1);
    const auto t = s.total();
    CHECK(t.input_tokens == 2100);
    CHECK(t.output_tokens == 210);
    CHECK(t.requests == 4);
    CHECK(t.attempts == 7);

    parley::usage_summary more;
    more.add(reply_with("gpt-4o", "{}", 1, 1), "gpt-4o");
    s += more;
    CHECK(s.models.size() == 3);
    CHECK(s.models[1].input_tokens == 101);
}

TEST_CASE("usage_summary::cost: input, cached input, cache writes and output at the catalog's prices") {
    parley::model_catalog c;
    // per million tokens: input 3, cache read 0.3, cache write 3.75, output 15
    c.set_prices("claude-x", {3, 0.3, 3.75, 15});
    c.set_prices("gpt-x", {2, 0.5, std::nullopt, 8});
    parley::usage_summary s;
    // Anthropic: 10 plain + 2000 written + 500 read = 2510 input tokens, 40 output
    s.add(reply_with("claude-x-1", R"({"input_tokens": 10, "cache_creation_input_tokens": 2000,
        "cache_read_input_tokens": 500, "output_tokens": 40})",
                     2510, 40),
          "claude-x");
    // OpenAI: 1000 input of which 400 cached, 100 output
    s.add(reply_with("gpt-x", R"({"prompt_tokens_details": {"cached_tokens": 400}})", 1000, 100), "gpt-x");
    s.add(reply_with("unknown-model", "{}", 5, 5), "unknown-model");
    const auto cost = s.cost(c);
    const double claude = (10 * 3 + 2000 * 3.75 + 500 * 0.3 + 40 * 15) / 1e6;
    const double gpt = (600 * 2 + 400 * 0.5 + 100 * 8) / 1e6;
    CHECK(cost.dollars == doctest::Approx(claude + gpt).epsilon(1e-12));
    CHECK_FALSE(cost.complete());
    CHECK(cost.unpriced == std::vector<std::string>{"unknown-model"});
    // no cached price: cached tokens at the input price
    parley::model_usage u;
    u.input_tokens = 100;
    u.cached_input_tokens = 50;
    CHECK(parley::cost_of(u, {1, std::nullopt, std::nullopt, 0}) == doctest::Approx(100 / 1e6));
}
