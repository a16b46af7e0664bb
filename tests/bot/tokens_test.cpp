// Tests of parley/bot/tokens.hpp: the token counter and fit_to_window (what a request carries in
// a context window: system messages and the current read always, whole turns of the history
// from the newest, an error with the counts when what may not be dropped does not fit).
#include <parley/bot/tokens.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tokens_tests {

using parley::message;
using parley::role;

message m(role r, std::string text) { return parley::make_message(r, std::move(text)); }

message calls(std::string id) {
    message c;
    c.role = role::assistant;
    c.tool_calls.push_back(parley::tool_call{std::move(id), parley::function_call{"f", "{}"}});
    return c;
}

message result(std::string id) {
    message r = m(role::tool, "r");
    r.tool_call_id = std::move(id);
    return r;
}

/// Every message: 10 tokens.
const parley::token_counter ten = [](const message&) -> std::size_t { return 10; };

std::vector<std::string> texts(const std::vector<message>& ms) {
    std::vector<std::string> out;
    for (const auto& x : ms) out.emplace_back(x.tool_calls.empty() ? std::string(x.text()) : "call:" + x.tool_calls[0].id);
    return out;
}

}  // namespace tokens_tests

using namespace tokens_tests;

TEST_CASE("fit_to_window: system messages and the current read are always sent; whole turns from the newest") {
    // system, turn 1 (u1 a1), turn 2 (u2, call, result, a2), the current read (u3)
    const std::vector<message> conv{m(role::system, "s"), m(role::user, "u1"), m(role::assistant, "a1"),
                                    m(role::user, "u2"),   calls("c"),          result("c"),
                                    m(role::assistant, "a2"), m(role::user, "u3")};
    const std::size_t keep_from = 7;
    SUBCASE("everything fits") {
        const auto fit = parley::fit_to_window(conv, keep_from, 80, {}, ten);
        CHECK(fit.messages == conv);
        CHECK(fit.message_tokens == 80);
        CHECK(fit.dropped == 0);
    }
    SUBCASE("room for the newest turn only: the older one is dropped whole, the system message stays") {
        const auto fit = parley::fit_to_window(conv, keep_from, 79, {}, ten);
        CHECK(texts(fit.messages) == std::vector<std::string>{"s", "u2", "call:c", "r", "a2", "u3"});
        CHECK(fit.dropped == 2);
        CHECK(fit.message_tokens == 60);
    }
    SUBCASE("the newest turn does not fit whole: nothing of the history is sent (no turn is cut)") {
        const auto fit = parley::fit_to_window(conv, keep_from, 59, {}, ten);
        CHECK(texts(fit.messages) == std::vector<std::string>{"s", "u3"});
        CHECK(fit.dropped == 6);
    }
    SUBCASE("the first turn that does not fit ends the choice, even when an older one would fit") {
        // turn 1: 20 tokens, turn 2: 40; the window leaves 30
        const auto fit = parley::fit_to_window(conv, keep_from, 50, {}, ten);
        CHECK(texts(fit.messages) == std::vector<std::string>{"s", "u3"});
    }
    SUBCASE("the reserve counts: max_tokens, functions, per request") {
        parley::window_reserve r;
        r.reply = 5;
        r.functions = 3;
        r.per_request = 2;
        CHECK(r.total() == 10);
        CHECK(parley::fit_to_window(conv, keep_from, 90, r, ten).dropped == 0);
        CHECK(parley::fit_to_window(conv, keep_from, 89, r, ten).dropped == 2);
    }
    SUBCASE("what may not be dropped does not fit: an error with the counts, before anything is sent") {
        parley::window_reserve r;
        r.reply = 5;
        try {
            (void)parley::fit_to_window(conv, keep_from, 24, r, ten, "tiny-model");
            FAIL("expected an error");
        } catch (const parley::error& e) {
            CHECK(e.code() == parley::errc::bot_limit);
            CHECK(std::string(e.what()) ==
                  "the request does not fit the context window of 'tiny-model' (24 tokens): the messages that may not be "
                  "dropped take 20 tokens (1 message of the current read and after it: 10; 1 earlier system message: "
                  "10), max_tokens reserves 5: 25 in all");
        }
        CHECK(parley::fit_to_window(conv, keep_from, 25, r, ten).messages.size() == 2);
    }
}

TEST_CASE("fit_to_window: a current read that starts inside a turn keeps the start of that turn") {
    // the template goes on after a reply with an assistant message: u1 and a1 belong to its turn
    const std::vector<message> conv{m(role::user, "u0"), m(role::assistant, "a0"), m(role::user, "u1"),
                                    m(role::assistant, "a1"), m(role::assistant, "more")};
    const auto fit = parley::fit_to_window(conv, 4, 30, {}, ten);
    CHECK(texts(fit.messages) == std::vector<std::string>{"u1", "a1", "more"});
    CHECK(fit.dropped == 2);
    // and that turn may not be dropped either
    CHECK_THROWS_AS((void)parley::fit_to_window(conv, 4, 29, {}, ten), parley::error);
    // a read that starts with system messages, then a user message: the turn starts with the read
    const std::vector<message> conv2{m(role::user, "u0"), m(role::assistant, "a0"), m(role::system, "s"),
                                     m(role::user, "u1")};
    CHECK(texts(parley::fit_to_window(conv2, 2, 20, {}, ten).messages) == std::vector<std::string>{"s", "u1"});
}

TEST_CASE("fit_to_window: history before the first user message is a block of its own; calls stay with results") {
    const std::vector<message> conv{m(role::assistant, "greeting"), m(role::user, "u1"), calls("c1"), result("c1"),
                                    m(role::user, "u2")};
    CHECK(texts(parley::fit_to_window(conv, 4, 40, {}, ten).messages) ==
          std::vector<std::string>{"u1", "call:c1", "r", "u2"});
    CHECK(texts(parley::fit_to_window(conv, 4, 39, {}, ten).messages) == std::vector<std::string>{"u2"});
    CHECK(parley::fit_to_window(conv, 4, 50, {}, ten).messages.size() == 5);
    // the function loop: the current read and the replies and results since are kept
    CHECK(texts(parley::fit_to_window(conv, 1, 40, {}, ten).messages) ==
          std::vector<std::string>{"u1", "call:c1", "r", "u2"});
}

TEST_CASE("token_counter: parley's estimate by default, a callable of one's own, functions and per request") {
    parley::token_counter estimate;
    CHECK(estimate.is_estimate());
    CHECK(estimate(m(role::user, "abcde")) == parley::estimate_tokens(m(role::user, "abcde")));
    parley::function_definition f{"get_weather", "Weather", boost::json::object{{"type", "object"}}};
    // 11 + 7 + 17 bytes of JSON ({"type":"object"}) = 35, a token per 4 rounded up
    CHECK(estimate.function(f) == 9);
    CHECK(estimate.per_request() == 0);

    parley::token_counter own = [](const message& x) -> std::size_t { return x.text().size(); };
    CHECK_FALSE(own.is_estimate());
    CHECK(own(m(role::user, "abcde")) == 5);
    CHECK(own.function(f) == 9);  // functions still estimated

    parley::token_counter exact([](const message&) -> std::size_t { return 3; },
                                [](const parley::function_definition&) -> std::size_t { return 40; }, 3);
    CHECK(exact(m(role::user, "x")) == 3);
    CHECK(exact.function(f) == 40);
    CHECK(exact.per_request() == 3);

    // 4 framing tokens plus one token per 4 bytes, rounded up; 85 per image
    CHECK(parley::estimate_tokens(m(role::user, "")) == 4);
    CHECK(parley::estimate_tokens(m(role::user, "abcd")) == 5);
    CHECK(parley::estimate_tokens(m(role::user, "abcde")) == 6);
    message image;
    image.content = std::vector<parley::content_part>{parley::content_part::make_image("u"),
                                                      parley::content_part::make_text("abcdefgh")};
    CHECK(parley::estimate_tokens(image) == 4 + 2 + 85);
}
