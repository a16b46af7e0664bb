// Tests of parley/bot/client_model.hpp: a bot that talks through a chat_client (here with the
// scripted API, so that the requests the client passed on can be read back), plain and streamed.
#include <parley/bot/client_model.hpp>
#include <parley/bot/bot.hpp>
#include <parley/chat/yaml.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;

namespace {

constexpr std::string_view set = R"(
templates:
  main:
    messages:
      - role: user
        content: "{{ q }}"
      - role: request
        temperature: 0.25
)";

template <class T>
T run_in(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

}  // namespace

TEST_CASE("a bot over a chat_client: the client's defaults under the bot's parameters, plain and streamed") {
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::scripted;
    config.defaults.model = "client-default";
    config.script->push_text("first answer");
    config.script->push_text("second answer");
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), config);
    parley::bot bot(parley::load_template_set(set), std::make_shared<parley::client_model>(client));

    auto history = run_in(io, bot.run("main", boost::json::parse(R"({"q": "one"})"), {}));
    std::string streamed;
    parley::run_options opt;
    opt.on_text = [&](std::string_view d) { streamed += d; };
    history = run_in(io, bot.run("main", boost::json::parse(R"({"q": "two"})"), history, opt));

    const auto requests = config.script->requests();
    REQUIRE(requests.size() == 2);
    parley::request_params expected;
    expected.model = "client-default";
    expected.temperature = 0.25;
    CHECK(requests[0].params == expected);
    CHECK(requests[1].params == expected);
    CHECK(requests[0].messages == std::vector<parley::message>{parley::make_message(parley::role::user, "one")});
    CHECK(requests[1].messages.size() == 3);
    CHECK(streamed == "second answer");
    REQUIRE(history.size() == 6);
    CHECK(history[2] == parley::make_message(parley::role::assistant, "first answer"));
    CHECK(history[5] == parley::make_message(parley::role::assistant, "second answer"));
}

TEST_CASE("a bot over a chat_client: a failed call is a call_exception and nothing is kept") {
    asio::io_context io;
    parley::client_config config;
    config.api = parley::api::scripted;
    parley::call_error e;
    e.code = parley::make_error_code(parley::errc::api_error);
    e.status = 500;
    e.message = "overloaded";
    config.script->push(e);
    parley::chat_client client(io.get_executor(), config);
    parley::bot bot(parley::load_template_set(set), std::make_shared<parley::client_model>(client));
    const std::vector<parley::message> before{parley::make_message(parley::role::user, "earlier")};
    std::vector<parley::message> history = before;
    try {
        history = run_in(io, bot.run("main", boost::json::parse(R"({"q": "x"})"), history));
        FAIL("the run should fail");
    } catch (const parley::call_exception& x) {
        CHECK(x.detail().status == 500);
        CHECK(x.detail().message == "overloaded");
    }
    CHECK(history == before);
}
