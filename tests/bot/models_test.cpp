// Tests of parley/bot/models.hpp: the model catalog (context windows, prices and counters by
// model-name prefix), its JSON format and its errors, and the built-in catalog.
#include <parley/bot/models.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace models_tests {

std::string catalog_error(std::string_view json) {
    try {
        (void)parley::model_catalog::from_json_text(json, "mine.json");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::invalid_argument);
        return e.what();
    }
    return "(no error)";
}

}  // namespace models_tests

using namespace models_tests;

TEST_CASE("model_catalog: the longest prefix that has a figure gives it, case-insensitively, also after a '/'") {
    const auto c = parley::model_catalog::from_json_text(R"({"read": "2026-01-02", "models": {
        "gpt-4o": {"context_window": 128000, "input": 2.5, "cached_input": 1.25, "output": 10},
        "gpt-4o-mini": {"input": 0.15, "output": 0.6},
        "llama3.1": {"context_window": 131072},
        "llama3": {"context_window": 8192}}})",
                                                         "test");
    CHECK(c.read_on() == "2026-01-02");
    CHECK(c.context_window("gpt-4o-2024-08-06") == 128000u);
    // gpt-4o-mini has prices of its own, and takes its window from gpt-4o
    CHECK(c.context_window("gpt-4o-mini-2024-07-18") == 128000u);
    CHECK(c.prices("gpt-4o-mini-2024-07-18")->input == 0.15);
    CHECK(c.prices("GPT-4o")->cached_input == 1.25);
    CHECK(c.prices("openai/gpt-4o")->output == 10);
    CHECK(c.context_window("llama3.1:8b") == 131072u);
    CHECK(c.context_window("llama3:8b") == 8192u);
    CHECK(c.context_window("meta/LLAMA3.1-70b") == 131072u);
    CHECK_FALSE(c.context_window("mistral").has_value());
    CHECK_FALSE(c.prices("llama3.1").has_value());
    CHECK_FALSE(c.counter("gpt-4o").has_value());
}

TEST_CASE("model_catalog: set_*, counters, merge") {
    parley::model_catalog c;
    c.set_context_window("My-Model", 4096).set_prices("my-model", {1, std::nullopt, std::nullopt, 2});
    c.set_counter("my-", [](const parley::message&) -> std::size_t { return 7; });
    CHECK(c.context_window("my-model-q4") == 4096u);
    REQUIRE(c.counter("my-model-q4").has_value());
    CHECK((*c.counter("my-model-q4"))(parley::make_message(parley::role::user, "x")) == 7);
    CHECK(c.entries().size() == 2);

    auto merged = parley::model_catalog::builtin();
    const auto before = merged.entries().size();
    merged.merge(c);
    CHECK(merged.entries().size() == before + 2);
    CHECK(merged.context_window("my-model") == 4096u);
    // a prefix both have: the figures `over` gives replace, the others stay
    parley::model_catalog over;
    over.set_prices("my-model", {3, 0.5, std::nullopt, 4});
    c.merge(over);
    CHECK(c.context_window("my-model") == 4096u);
    CHECK(c.prices("my-model")->input == 3);
    CHECK(c.prices("my-model")->cached_input == 0.5);
}

TEST_CASE("model_catalog: JSON errors name the source and the JSON pointer") {
    CHECK(catalog_error("[1]") == "mine.json: /: expected an object with \"models\", found an array");
    CHECK(catalog_error(R"({"models": {"x": {"input": 1}}})") ==
          "mine.json: /models/x: prices need both \"input\" and \"output\"; \"output\" is missing");
    CHECK(catalog_error(R"({"models": {"x": {"input": 1, "outptu": 2}}})") ==
          "mine.json: /models/x/outptu: unknown member (expected context_window, input, cached_input, cache_write or "
          "output)");
    CHECK(catalog_error(R"({"models": {"x": {"input": -1, "output": 2}}})") ==
          "mine.json: /models/x/input: expected a price (a number of dollars per million tokens, at least 0), found "
          "-1.000000");
    CHECK(catalog_error(R"({"models": {"a/b": {"context_window": 0}}})") ==
          "mine.json: /models/a~1b/context_window: expected a number of tokens (an integer of at least 1), found 0");
    CHECK(catalog_error(R"({"models": {"x": {"context_window": "big"}}})") ==
          "mine.json: /models/x/context_window: expected a number of tokens (an integer of at least 1), found a string");
    CHECK(catalog_error(R"({"models": {"X": {}, "x": {}}})") ==
          "mine.json: /models/x: the prefix 'x' is listed twice (names are compared case-insensitively)");
    CHECK(catalog_error(R"({"model": {}})") ==
          "mine.json: /model: unknown member (expected \"read\", \"sources\", \"comment\" or \"models\")");
    CHECK(catalog_error(R"({"models": {"x": {"input": 1,}}})").find("mine.json: not valid JSON: ") == 0);
    CHECK_THROWS_WITH_AS(parley::model_catalog::from_file("/nonexistent/models.json"),
                         "cannot read the model catalog /nonexistent/models.json", parley::error);
}

TEST_CASE("model_catalog::builtin: current models of every family the bot documents, with a date") {
    const auto& b = parley::model_catalog::builtin();
    CHECK(b.read_on().size() == 10);  // YYYY-MM-DD
    CHECK(b.read_on() == parley::model_catalog::builtin_read_on());
    for (const auto& e : b.entries()) {
        CAPTURE(e.prefix);
        CHECK_FALSE(e.prefix.empty());
        CHECK((e.context_window || e.prices));
        if (e.prices) {
            CHECK(e.prices->output >= e.prices->input);
            if (e.prices->cached_input) CHECK(*e.prices->cached_input <= e.prices->input);
        }
    }
    // every family has at least one entry with a window (docs/bot.md lists them)
    for (const char* model : {"gpt-4o", "gpt-4o-mini", "claude-"}) {
        CAPTURE(model);
        CHECK(b.context_window(model).has_value());
    }
    // OpenAI and Anthropic models have prices
    CHECK(b.prices("gpt-4o-mini").has_value());
}

TEST_CASE("model_catalog::from_file reads a user's file") {
    const std::string path = "parley-models-test.json";
    {
        std::ofstream out(path);
        out << R"({"read": "2026-11-01", "models": {"local-llm": {"context_window": 2048}}})";
    }
    const auto c = parley::model_catalog::from_file(path);
    std::remove(path.c_str());
    CHECK(c.context_window("local-llm-7b") == 2048u);
    CHECK(c.read_on() == "2026-11-01");
}
