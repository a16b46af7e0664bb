// Tests of parley/bot/bot.hpp (and of the registry, the token counting and the in-process model
// it uses): every step of the bot algorithm against the scripted model, checking the requests
// it received (messages and parameters) and the conversation the run returns.
#include <parley/bot/bot.hpp>
#include <parley/bot.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/schema/annotations.hpp>

#include "../harness/jinja_oracle.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include "run_sync.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace asio = boost::asio;

namespace weather_app {

struct weather_query {
    std::string city;
    std::optional<std::string> unit;
};
BOOST_DESCRIBE_STRUCT(weather_query, (), (city, unit))
PARLEY_ANNOTATE(weather_query, "Which city's weather to look up", (city, "The city's name"))

struct weather {
    std::string city;
    int celsius = 0;
};
BOOST_DESCRIBE_STRUCT(weather, (), (city, celsius))

struct person {
    std::string persona;
    std::string question;
    std::string name;
};
BOOST_DESCRIBE_STRUCT(person, (), (persona, question, name))

}  // namespace weather_app

namespace {

using parley::message;
using parley::role;
using weather_app::weather;
using weather_app::weather_query;

using bot_tests::run_sync;

message msg(role r, std::string text) { return parley::make_message(r, std::move(text)); }

message control(role r, parley::request_params p = {}) {
    message m;
    m.role = r;
    m.params = std::move(p);
    return m;
}

message tool_result(std::string id, std::string content) {
    message m = msg(role::tool, std::move(content));
    m.tool_call_id = std::move(id);
    return m;
}

/// A tool result that reports a failure (is_error).
message failed_result(std::string id, std::string content) {
    message m = tool_result(std::move(id), std::move(content));
    m.is_error = true;
    return m;
}

message calling(std::vector<parley::tool_call> calls) {
    message m;
    m.role = role::assistant;
    m.tool_calls = std::move(calls);
    return m;
}

parley::tool_call call(std::string id, std::string name, std::string arguments) {
    return parley::tool_call{std::move(id), parley::function_call{std::move(name), std::move(arguments)}};
}

/// A conversation as JSON text (the chat layer's serialisation), for byte comparisons.
std::string dump(const std::vector<message>& conversation) {
    return boost::json::serialize(parley::conversation_to_json(conversation));
}

parley::template_set load(std::string_view yaml) {
    parley::yaml_options o;
    o.external_functions = {"get_weather", "get_weather_async", "forecast", "botSwitchTemplate", "fail_hard", "no_args"};
    return parley::load_template_set(yaml, "bot_test.yaml", o);
}

/// A bot over a scripted model, with the weather functions registered.
struct fixture {
    std::shared_ptr<parley::scripted_model> script = std::make_shared<parley::scripted_model>();
    std::shared_ptr<parley::in_process_model> model = std::make_shared<parley::in_process_model>(script);
    std::vector<weather_query> weather_calls;
    parley::bot bot;

    explicit fixture(std::string_view yaml, parley::bot_options options = {})
        : bot(load(yaml), model, std::move(options)) {
        bot.add_function("get_weather", "Current weather for a city", [this](weather_query q) -> weather {
            weather_calls.push_back(q);
            if (q.city == "Atlantis") throw parley::function_failure("no city named Atlantis");
            return weather{q.city, q.city == "Oslo" ? -3 : 21};
        });
        bot.add_function("get_weather_async", "", [this](weather_query q) -> asio::awaitable<weather> {
            weather_calls.push_back(q);
            co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
            co_return weather{q.city, 7};
        });
        bot.add_function("fail_hard", "Always throws", [](weather_query) -> std::string {
            throw std::runtime_error("the weather service is down");
        });
        bot.add_function("no_args", "Takes nothing", []() -> std::string { return "plain text"; });
    }

    template <class Input>
    std::vector<message> run(std::string name, Input input, std::vector<message> history = {},
                             parley::run_options opt = {}) {
        return run_sync(bot.run(std::move(name), std::move(input), std::move(history), std::move(opt)));
    }

    std::vector<parley::chat_request> requests() const { return script->requests(); }
};

boost::json::value json_input(std::string_view text) { return boost::json::parse(text); }

constexpr std::string_view simple_set = R"(
templates:
  main:
    messages:
      - role: system
        content: "You are {{ persona }}."
      - role: user
        content: "{{ question }}"
      - role: request
        model: model-a
        temperature: 0.5
      - role: assistant
        content: "Anything else, {{ name }}?"
  parts:
    messages:
      - role: user
      - role: request
        model: model-b
)";

}  // namespace

TEST_CASE("steps 1 and 2: the messages up to the request are rendered, sent and appended; the messages after it end with a request too") {
    fixture f(simple_set);
    f.script->push_text("Paris.");
    f.script->push_text("No, thanks.");
    const auto out = f.run("main", json_input(R"({"persona": "terse", "question": "Capital of France?", "name": "Ada"})"));

    const auto requests = f.requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].messages == std::vector<message>{msg(role::system, "You are terse."),
                                                       msg(role::user, "Capital of France?")});
    parley::request_params expected;
    expected.model = "model-a";
    expected.temperature = 0.5;
    CHECK(requests[0].params == expected);
    CHECK(requests[0].functions.empty());

    // the read after the request: its messages, then a request with the parameters of the nearest
    // default-request (none here: the bot's defaults), not those of the request message before
    CHECK(requests[1].messages == std::vector<message>{msg(role::system, "You are terse."),
                                                       msg(role::user, "Capital of France?"), msg(role::assistant, "Paris."),
                                                       msg(role::assistant, "Anything else, Ada?")});
    CHECK(requests[1].params == parley::request_params{});

    const std::vector<message> conversation{msg(role::system, "You are terse."), msg(role::user, "Capital of France?"),
                                            control(role::request, expected), msg(role::assistant, "Paris."),
                                            msg(role::assistant, "Anything else, Ada?"), msg(role::assistant, "No, thanks.")};
    CHECK(out == conversation);
}

TEST_CASE("step 1: a described struct as input, and the history before the template") {
    fixture f(simple_set);
    f.script->push_text("Blue.");
    f.script->push_text("No.");
    const std::vector<message> history{msg(role::user, "Hi"), msg(role::assistant, "Hello")};
    const auto out = f.run("main", weather_app::person{"kind", "Colour of the sky?", "Bo"}, history);
    REQUIRE(f.requests().size() == 2);
    CHECK(f.requests()[0].messages == std::vector<message>{msg(role::user, "Hi"), msg(role::assistant, "Hello"),
                                                           msg(role::system, "You are kind."),
                                                           msg(role::user, "Colour of the sky?")});
    REQUIRE(out.size() == 8);
    CHECK(std::vector<message>(out.begin(), out.begin() + 2) == history);
    CHECK(out[6] == msg(role::assistant, "Anything else, Bo?"));
    CHECK(out.back() == msg(role::assistant, "No."));
}

TEST_CASE("step 1: a user message without content takes the input's contentParts") {
    fixture f(simple_set);
    f.script->push_text("A cat.");
    const auto out = f.run("parts", json_input(R"({"contentParts": ["What is this?",
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "low"}}]})"));
    message user;
    user.role = role::user;
    user.content = std::vector<parley::content_part>{
        parley::content_part::make_text("What is this?"),
        parley::content_part::make_image("https://example.com/cat.png", std::string("low"))};
    REQUIRE(f.requests().size() == 1);
    CHECK(f.requests()[0].messages == std::vector<message>{user});
    REQUIRE(out.size() == 3);
    CHECK(out[0] == user);
    CHECK(out[2] == msg(role::assistant, "A cat."));
}

TEST_CASE("step 2: the nearest default-request, scanning backwards, overridden by the request") {
    constexpr std::string_view set = R"(
templates:
  plain:
    messages:
      - role: user
        content: "{{ q }}"
      - role: request
        max_tokens: 50
  own_default:
    messages:
      - role: default-request
        model: template-model
        seed: 7
      - role: user
        content: "{{ q }}"
      - role: request
        seed: 8
)";
    SUBCASE("from the history: the newest default-request wins") {
        fixture f(set);
        f.script->push_text("ok");
        parley::request_params older;
        older.model = "old-model";
        older.temperature = 1.5;
        parley::request_params newer;
        newer.model = "new-model";
        newer.top_p = 0.25;
        f.run("plain", json_input(R"({"q": "x"})"),
              {control(role::default_request, older), msg(role::user, "a"), control(role::default_request, newer),
               msg(role::assistant, "b")});
        parley::request_params expected = newer;
        expected.max_tokens = 50;
        REQUIRE(f.requests().size() == 1);
        CHECK(f.requests()[0].params == expected);
        // control messages are never sent
        CHECK(f.requests()[0].messages ==
              std::vector<message>{msg(role::user, "a"), msg(role::assistant, "b"), msg(role::user, "x")});
    }
    SUBCASE("the template's own default-request is nearer than the history's") {
        fixture f(set);
        f.script->push_text("ok");
        parley::request_params older;
        older.model = "old-model";
        f.run("own_default", json_input(R"({"q": "x"})"), {control(role::default_request, older)});
        parley::request_params expected;
        expected.model = "template-model";
        expected.seed = 8;
        REQUIRE(f.requests().size() == 1);
        CHECK(f.requests()[0].params == expected);
    }
    SUBCASE("without any default-request: the bot's configured defaults") {
        parley::bot_options o;
        o.defaults.model = "configured";
        o.defaults.max_tokens = 10;
        fixture f(set, o);
        f.script->push_text("ok");
        f.run("plain", json_input(R"({"q": "x"})"));
        parley::request_params expected;
        expected.model = "configured";
        expected.max_tokens = 50;
        REQUIRE(f.requests().size() == 1);
        CHECK(f.requests()[0].params == expected);
    }
}

TEST_CASE("step 3: a truncate message cuts what is sent, not what is kept") {
    constexpr std::string_view set = R"(
templates:
  fresh:
    messages:
      - role: truncate
      - role: user
        content: "{{ q }}"
      - role: request
        model: m
)";
    fixture f(set);
    f.script->push_text("new answer");
    const std::vector<message> history{msg(role::user, "old question"), msg(role::assistant, "old answer")};
    const auto out = f.run("fresh", json_input(R"({"q": "new question"})"), history);
    REQUIRE(f.requests().size() == 1);
    CHECK(f.requests()[0].messages == std::vector<message>{msg(role::user, "new question")});
    parley::request_params p;
    p.model = "m";
    CHECK(out == std::vector<message>{history[0], history[1], control(role::truncate), msg(role::user, "new question"),
                                      control(role::request, p), msg(role::assistant, "new answer")});
}

TEST_CASE("step 3: the newest whole turns that fit the context window; system messages and the current read always") {
    constexpr std::string_view set = R"(
templates:
  ask:
    messages:
      - role: user
        content: "{{ q }}"
      - role: request
        model: small-model
        max_tokens: 5
)";
    parley::bot_options o;
    o.count_tokens = [](const message&) -> std::size_t { return 10; };  // every message: 10 tokens
    const std::vector<message> history{msg(role::system, "s"),
                                       msg(role::user, "u1"),
                                       calling({call("c1", "get_weather", R"({"city":"Oslo"})"),
                                                call("c2", "get_weather", R"({"city":"Rome"})")}),
                                       tool_result("c1", "-3"),
                                       tool_result("c2", "21"),
                                       msg(role::assistant, "a1")};
    SUBCASE("room for everything") {
        o.models.set_context_window("small-", 75);  // 75 - 5 (max_tokens) = 70 tokens: 7 messages
        fixture f(set, o);
        f.script->push_text("ok");
        f.run("ask", json_input(R"({"q": "u2"})"), history);
        REQUIRE(f.requests().size() == 1);
        CHECK(f.requests()[0].messages.size() == 7);
    }
    SUBCASE("no room for the last turn whole: it is left out, the system message and the question stay") {
        o.models.set_context_window("small-", 74);
        fixture f(set, o);
        f.script->push_text("ok");
        f.run("ask", json_input(R"({"q": "u2"})"), history);
        REQUIRE(f.requests().size() == 1);
        CHECK(f.requests()[0].messages == std::vector<message>{msg(role::system, "s"), msg(role::user, "u2")});
    }
    SUBCASE("the window: the run's, else the bot's, else the longest prefix in the catalog, else the default") {
        o.models.set_context_window("small-", 1000).set_context_window("small-model", 25);  // 2 messages
        {
            fixture f(set, o);
            f.script->push_text("ok");
            f.run("ask", json_input(R"({"q": "u2"})"), history);
            CHECK(f.requests()[0].messages == std::vector<message>{msg(role::system, "s"), msg(role::user, "u2")});
            CHECK(f.bot.context_window("small-model-2") == 25);
            CHECK(f.bot.context_window("small-other") == 1000);
            CHECK(f.bot.context_window("unknown") == 8192);  // the documented default
        }
        {
            parley::bot_options bigger = o;
            bigger.context_window = 1000;  // the bot's own, for every model
            fixture f(set, bigger);
            f.script->push_text("ok");
            f.run("ask", json_input(R"({"q": "u2"})"), history);
            CHECK(f.requests()[0].messages.size() == 7);
            parley::run_options run;
            run.context_window = 25;  // the run's wins
            f.script->push_text("ok");
            f.run("ask", json_input(R"({"q": "u3"})"), history, run);
            CHECK(f.requests()[1].messages.size() == 2);
            CHECK(f.bot.context_window("small-model", run) == 25);
        }
        {
            parley::bot_options tiny = o;
            tiny.models = parley::model_catalog{};
            tiny.default_context_window = 25;  // a model nobody knows is never "no limit"
            fixture f(set, tiny);
            f.script->push_text("ok");
            f.run("ask", json_input(R"({"q": "u2"})"), history);
            CHECK(f.requests()[0].messages.size() == 2);
        }
    }
    SUBCASE("what may not be dropped does not fit: errc::bot_limit with the counts, nothing sent, history untouched") {
        o.models.set_context_window("small-", 24);
        fixture f(set, o);
        f.script->push_text("ok");
        std::vector<message> mine = history;
        const std::string before = dump(mine);
        try {
            mine = f.run("ask", json_input(R"({"q": "u2"})"), mine);
            FAIL("the run should fail");
        } catch (const parley::error& e) {
            CHECK(e.code() == parley::errc::bot_limit);
            CHECK(std::string(e.what()) ==
                  "the request does not fit the context window of 'small-model' (24 tokens): the messages that may not "
                  "be dropped take 20 tokens (1 message of the current read and after it: 10; 1 earlier system message: "
                  "10), max_tokens reserves 5: 25 in all");
        }
        CHECK(dump(mine) == before);
        CHECK(f.requests().empty());
    }
    SUBCASE("a counter configured for the model in the catalog wins over count_tokens") {
        o.models.set_context_window("small-", 35).set_counter("small-model", [](const message&) -> std::size_t { return 1; });
        fixture f(set, o);
        f.script->push_text("ok");
        f.run("ask", json_input(R"({"q": "u2"})"), history);
        CHECK(f.requests()[0].messages.size() == 7);
    }
}

TEST_CASE("step 3: the system prompt survives long conversations, and no turn is sent without its question") {
    // the case of a gpt-4 conversation (8192 tokens) with two runs of about 3,000 tokens each
    constexpr std::string_view set = R"(
templates:
  chat:
    messages:
      - role: default-request
        model: gpt-4
      - role: system
        content: You are a helpful assistant.
      - role: user
        content: "{{ q }}"
      - role: request
)";
    fixture f(set);
    const std::string long_question(8000, 'q');  // about 2,000 tokens by the estimate
    const std::string long_answer(8000, 'a');
    std::vector<message> history;
    for (int run = 0; run < 3; ++run) {
        f.script->push_text(long_answer);
        history = f.run("chat", boost::json::value{{"q", long_question + std::to_string(run)}}, history);
    }
    const auto requests = f.requests();
    REQUIRE(requests.size() == 3);
    // the third request: every system prompt so far, the newest whole turn that fits, the question
    const auto& third = requests[2].messages;
    REQUIRE(third.size() >= 4);
    CHECK(third[0] == msg(role::system, "You are a helpful assistant."));
    for (std::size_t i = 1; i + 1 < third.size(); ++i) {
        // after a system message comes a user message: no answer without its question
        if (third[i - 1].role == role::system && third[i].role != role::system) CHECK(third[i].role == role::user);
    }
    CHECK(third.back() == msg(role::user, long_question + "2"));
    std::size_t tokens = 0;
    for (const auto& m : third) tokens += parley::estimate_tokens(m);
    CHECK(tokens <= 8192);
    // the first run's turn did not fit any more; the second run's did
    CHECK(std::find(third.begin(), third.end(), msg(role::user, long_question + "0")) == third.end());
    CHECK(std::find(third.begin(), third.end(), msg(role::user, long_question + "1")) != third.end());
}

constexpr std::string_view weather_set = R"(
templates:
  weather:
    messages:
      - role: system
        content: Use the functions.
      - role: user
        content: "{{ q }}"
      - role: request
        model: m
        functions: [get_weather, get_weather_async]
        call_function: get_weather
      - role: user
        content: Thanks.
  weather_auto:
    messages:
      - role: user
        content: "{{ q }}"
      - role: request
        model: m
        functions: [get_weather, no_args, forecast]
        call_function: "*"
  weather_none:
    messages:
      - role: user
        content: "{{ q }}"
      - role: request
        model: m
        functions: [get_weather]
        call_function: ""
functions:
  - name: forecast
    description: A forecast, answered by the caller.
    parameters:
      type: object
      properties:
        days: {type: integer}
)";

TEST_CASE("step 4: the function loop, the forced call only on the first request") {
    fixture f(weather_set);
    f.script->push(parley::tool_call_reply({call("call_1", "get_weather", R"({"city": "Oslo"})")}));
    f.script->push(parley::tool_call_reply({call("call_2", "get_weather_async", R"({"city": "Rome", "unit": "C"})")}));
    f.script->push_text("Oslo is cold, Rome is mild.");
    f.script->push_text("You're welcome.");
    const auto out = f.run("weather", json_input(R"({"q": "Weather in Oslo and Rome?"})"));

    const auto requests = f.requests();
    REQUIRE(requests.size() == 4);
    parley::request_params first;
    first.model = "m";
    first.functions = std::vector<std::string>{"get_weather", "get_weather_async"};
    first.call_function = "get_weather";
    parley::request_params later = first;
    later.call_function = "*";
    CHECK(requests[0].params == first);
    CHECK(requests[1].params == later);
    CHECK(requests[2].params == later);

    // the read after the loop ("Thanks."): a request with the bot's default parameters
    CHECK(requests[3].params == parley::request_params{});
    CHECK(requests[3].functions.empty());
    CHECK(requests[3].messages.back() == msg(role::user, "Thanks."));

    // the definitions come from the schema layer
    for (std::size_t i = 0; i < 3; ++i) {
        const auto& r = requests[i];
        REQUIRE(r.functions.size() == 2);
        CHECK(r.functions[0].name == "get_weather");
        CHECK(r.functions[0].description == "Current weather for a city");
        CHECK(boost::json::value(r.functions[0].parameters) ==
              parley::function_signature<weather_query>("get_weather").at("parameters"));
        CHECK(r.functions[1].name == "get_weather_async");
        CHECK(r.functions[1].description == "Which city's weather to look up");  // the struct's annotation
    }
    CHECK(boost::json::value(requests[0].functions[0].parameters) == boost::json::parse(R"({
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city's name"}, "unit": {"type": "string"}},
        "required": ["city"], "additionalProperties": false})"));

    REQUIRE(f.weather_calls.size() == 2);
    CHECK(f.weather_calls[0].city == "Oslo");
    CHECK(!f.weather_calls[0].unit);
    CHECK(f.weather_calls[1].city == "Rome");
    CHECK(f.weather_calls[1].unit == "C");

    // the results, as JSON
    CHECK(requests[1].messages == std::vector<message>{out[0], out[1], out[3], out[4]});
    CHECK(requests[2].messages == std::vector<message>{out[0], out[1], out[3], out[4], out[5], out[6]});
    REQUIRE(out.size() == 10);
    const message assistant1 = calling({call("call_1", "get_weather", R"({"city": "Oslo"})")});
    CHECK(out[3] == assistant1);
    CHECK(out[4].role == role::tool);
    CHECK(out[4].tool_call_id == "call_1");
    CHECK(boost::json::parse(out[4].text()) == boost::json::parse(R"({"city": "Oslo", "celsius": -3})"));
    CHECK(out[6].tool_call_id == "call_2");
    CHECK(boost::json::parse(out[6].text()) == boost::json::parse(R"({"city": "Rome", "celsius": 7})"));
    CHECK(out[7] == msg(role::assistant, "Oslo is cold, Rome is mild."));
    CHECK(out[8] == msg(role::user, "Thanks."));  // the rest of the template, after the loop
    CHECK(out[9] == msg(role::assistant, "You're welcome."));
}

TEST_CASE("step 4: a legacy function call is answered by a function message") {
    fixture f(weather_set);
    parley::chat_reply legacy;
    parley::reply_choice c;
    c.message.role = role::assistant;
    c.message.function_call = parley::function_call{"get_weather", R"({"city": "Lima"})"};
    c.finish = parley::finish_reason::function_call;
    legacy.choices.push_back(c);
    f.script->push(legacy);
    f.script->push_text("Warm.");
    const auto out = f.run("weather_auto", json_input(R"({"q": "Lima?"})"));
    REQUIRE(out.size() == 5);
    CHECK(out[2] == c.message);
    CHECK(out[3].role == role::function);
    CHECK(out[3].name == "get_weather");
    CHECK(!out[3].tool_call_id);
    CHECK(boost::json::parse(out[3].text()) == boost::json::parse(R"({"city": "Lima", "celsius": 21})"));
    CHECK(out[4] == msg(role::assistant, "Warm."));
}

TEST_CASE("step 4: every call of a reply is answered, in order; a function without parameters; a string result as it is") {
    fixture f(weather_set);
    f.script->push(parley::tool_call_reply({call("a", "no_args", ""), call("b", "get_weather", R"({"city":"Oslo"})")}));
    f.script->push_text("done");
    const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"));
    REQUIRE(out.size() == 6);
    CHECK(out[3] == tool_result("a", "plain text"));
    CHECK(out[4].tool_call_id == "b");
    const auto requests = f.requests();
    REQUIRE(requests.size() == 2);
    REQUIRE(requests[0].functions.size() == 3);
    CHECK(requests[0].functions[1].name == "no_args");
    CHECK(boost::json::value(requests[0].functions[1].parameters) ==
          boost::json::parse(R"({"type": "object", "properties": {}})"));
    // the set's definition of `forecast`
    CHECK(requests[0].functions[2] == *f.bot.templates().function("forecast"));
    CHECK(requests[1].params.call_function == "*");
}

TEST_CASE("step 4: a call of a function the set defines but the bot does not run ends the loop") {
    fixture f(weather_set);
    f.script->push(parley::tool_call_reply({call("f1", "forecast", R"({"days": 3})")}));
    const auto out = f.run("weather_auto", json_input(R"({"q": "Forecast?"})"));
    CHECK(f.requests().size() == 1);
    REQUIRE(out.size() == 3);
    CHECK(out[2] == calling({call("f1", "forecast", R"({"days": 3})")}));  // left for the caller to answer
}

TEST_CASE("step 5: a reply without a function call goes on with the template") {
    fixture f(weather_set);
    f.script->push_text("No need for functions.");
    const auto out = f.run("weather_none", json_input(R"({"q": "Hi"})"));
    REQUIRE(f.requests().size() == 1);
    CHECK(f.requests()[0].params.call_function == "");
    REQUIRE(out.size() == 3);
    CHECK(out[2] == msg(role::assistant, "No need for functions."));
    CHECK(f.weather_calls.empty());
}

TEST_CASE("bad arguments: the tool message tells the model what is wrong, and the loop goes on") {
    fixture f(weather_set);
    SUBCASE("malformed JSON") {
        f.script->push(parley::tool_call_reply({call("c1", "get_weather", R"({"city": "Oslo")")}));
        f.script->push(parley::tool_call_reply({call("c2", "get_weather", R"({"city": "Oslo"})")}));
        f.script->push_text("Cold.");
        const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"));
        REQUIRE(out.size() == 7);
        CHECK(out[3].tool_call_id == "c1");
        CHECK(out[3].is_error);
        const std::string text(out[3].text());
        CHECK(text.find("Error: the arguments of get_weather do not fit its parameters:\nexpected valid JSON") == 0);
        // the schema layer's message for JSON cut short (docs/extraction.md)
        CHECK(text.find("expected valid JSON, found the end of the text at line 1, column 16, offset 15 "
                        "(incomplete JSON)") != std::string::npos);
        CHECK(f.weather_calls.size() == 1);
        CHECK(out[6] == msg(role::assistant, "Cold."));
        // the second request carries the error to the model
        REQUIRE(f.requests().size() == 3);
        CHECK(f.requests()[1].messages.back() == out[3]);
    }
    SUBCASE("arguments that do not fit the schema: every problem, by JSON pointer") {
        f.script->push(parley::tool_call_reply({call("c1", "get_weather", R"({"town": "Oslo", "unit": 5})")}));
        f.script->push_text("Sorry.");
        const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"));
        REQUIRE(out.size() == 5);
        CHECK(out[3].tool_call_id == "c1");
        CHECK(out[3].is_error);
        const std::string text(out[3].text());
        const std::string head = "Error: the arguments of get_weather do not fit its parameters:\n";
        const std::string tail = "\nCall get_weather again with arguments that fit its parameters.";
        CHECK(text.substr(0, head.size()) == head);
        CHECK(text.size() > tail.size());
        CHECK(text.substr(text.size() - tail.size()) == tail);
        // both problems, one line each (docs/extraction.md gives their wording)
        INFO(text);
        CHECK(text.find("\n/unit: expected a string or null, found 5\n") != std::string::npos);
        CHECK(text.find("\n/city: expected a string, found nothing (required member missing)\n") != std::string::npos);
        CHECK(std::count(text.begin(), text.end(), '\n') == 3);
        CHECK(f.weather_calls.empty());
    }
    SUBCASE("an unknown function") {
        f.script->push(parley::tool_call_reply({call("c1", "get_wether", R"({"city": "Oslo"})")}));
        f.script->push_text("Sorry.");
        const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"));
        REQUIRE(out.size() == 5);
        CHECK(out[3] == failed_result("c1", "Error: there is no function named 'get_wether'. The functions are: "
                                          "get_weather, get_weather_async, fail_hard, no_args, botSwitchTemplate."));
    }
    SUBCASE("a function that reports a failure with function_failure") {
        f.script->push(parley::tool_call_reply({call("c1", "get_weather", R"({"city": "Atlantis"})")}));
        f.script->push_text("No such city.");
        const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"));
        REQUIRE(out.size() == 5);
        CHECK(out[3] == failed_result("c1", "Error: no city named Atlantis"));
    }
}

TEST_CASE("bad arguments: a bounded number of such replies, then the run fails with every attempt's problems") {
    parley::bot_options o;
    o.max_bad_argument_turns = 2;
    fixture f(weather_set, o);
    f.script->push(parley::tool_call_reply({call("c1", "get_weather", "{")}));
    f.script->push(parley::tool_call_reply({call("c2", "get_weather", R"({"city": 1})")}));
    SUBCASE("a third bad reply fails the run") {
        f.script->push(parley::tool_call_reply({call("c3", "get_weather", R"({"place": "Oslo"})")}));
        f.script->push_text("never read");
        std::vector<message> history{msg(role::user, "before")};
        const std::string before = dump(history);
        try {
            history = f.run("weather_auto", json_input(R"({"q": "?"})"), history);
            FAIL("the run should fail");
        } catch (const parley::error& e) {
            CHECK(e.code() == parley::errc::bad_function_arguments);
            const std::string what = e.what();
            CHECK(what.find("in 3 replies (max_bad_argument_turns is 2)") != std::string::npos);
            CHECK(what.find("reply 1: get_weather: Error: the arguments of get_weather do not fit its parameters:\n"
                            "expected valid JSON") != std::string::npos);
            CHECK(what.find("reply 2: get_weather: Error: the arguments of get_weather do not fit its parameters:\n"
                            "/city: expected a string, found 1") != std::string::npos);
            CHECK(what.find("reply 3: get_weather: Error: the arguments of get_weather do not fit its parameters:\n"
                            "/city: expected a string, found nothing (required member missing)") != std::string::npos);
        }
        CHECK(dump(history) == before);
        CHECK(f.requests().size() == 3);
        CHECK(f.script->remaining() == 1);
    }
    SUBCASE("a good reply after two bad ones ends well") {
        f.script->push(parley::tool_call_reply({call("c3", "get_weather", R"({"city": "Oslo"})")}));
        f.script->push_text("Cold.");
        const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"));
        CHECK(out.back() == msg(role::assistant, "Cold."));
        CHECK(f.requests().size() == 4);
    }
    SUBCASE("with a bound of 0 the first bad reply fails the run") {
        f.bot.options().max_bad_argument_turns = 0;
        CHECK_THROWS_AS(f.run("weather_auto", json_input(R"({"q": "?"})")), parley::error);
        CHECK(f.requests().size() == 1);
    }
}

TEST_CASE("the function loop is bounded") {
    parley::bot_options o;
    o.max_function_rounds = 3;
    fixture f(weather_set, o);
    for (int i = 0; i < 4; ++i) f.script->push(parley::tool_call_reply({call("c", "get_weather", R"({"city": "Oslo"})")}));
    try {
        f.run("weather_auto", json_input(R"({"q": "?"})"));
        FAIL("the run should fail");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::bot_limit);
        CHECK(std::string(e.what()).find("after 3 requests (max_function_rounds)") != std::string::npos);
    }
    CHECK(f.requests().size() == 3);
}

constexpr std::string_view switch_set = R"(
templates:
  router:
    messages:
      - role: system
        content: Route the user.
      - role: user
        content: "{{ q }}"
      - role: request
        model: router-model
        functions: [botSwitchTemplate]
        call_function: botSwitchTemplate
      - role: assistant
        content: read when the template switched to ends
  booking:
    messages:
      - role: system
        content: "You book trips for {{ name }}."
      - role: request
        model: booking-model
      - role: assistant
        content: Booked.
)";

TEST_CASE("step 4: botSwitchTemplate suspends the template and continues with another one from its first message") {
    fixture f(switch_set);
    f.script->push(parley::tool_call_reply({call("s1", "botSwitchTemplate", R"({"name": "booking"})")}));
    f.script->push_text("Where to?");
    f.script->push_text("Lisbon, please.");
    f.script->push_text("Anything else?");
    const auto out = f.run("router", json_input(R"({"q": "Book a trip", "name": "Ada"})"));

    // the router's request, booking's, booking's read after it ("Booked."), the router's read
    // after its request, each ended by a request
    const auto requests = f.requests();
    REQUIRE(requests.size() == 4);
    // the built-in definition is sent
    REQUIRE(requests[0].functions.size() == 1);
    CHECK(requests[0].functions[0].name == "botSwitchTemplate");
    CHECK(boost::json::value(requests[0].functions[0].parameters) == boost::json::parse(R"({"type": "object",
        "properties": {"name": {"type": "string", "description": "The name of the template to continue with"}},
        "required": ["name"], "additionalProperties": false})"));
    parley::request_params booking;
    booking.model = "booking-model";
    CHECK(requests[1].params == booking);
    const message switch_call = calling({call("s1", "botSwitchTemplate", R"({"name": "booking"})")});
    const message switch_result = tool_result("s1", "Switched to template 'booking'.");
    CHECK(requests[1].messages == std::vector<message>{msg(role::system, "Route the user."), msg(role::user, "Book a trip"),
                                                       switch_call, switch_result,
                                                       msg(role::system, "You book trips for Ada.")});
    CHECK(requests[2].messages.back() == msg(role::assistant, "Booked."));
    CHECK(requests[3].messages.back() == msg(role::assistant, "read when the template switched to ends"));
    REQUIRE(out.size() == 12);
    CHECK(out[3] == switch_call);
    CHECK(out[4] == switch_result);
    CHECK(out[5] == msg(role::system, "You book trips for Ada."));
    CHECK(out[6] == control(role::request, booking));
    CHECK(out[7] == msg(role::assistant, "Where to?"));
    CHECK(out[8] == msg(role::assistant, "Booked."));
    CHECK(out[9] == msg(role::assistant, "Lisbon, please."));
    // booking has ended: the router goes on after its request
    CHECK(out[10] == msg(role::assistant, "read when the template switched to ends"));
    CHECK(out[11] == msg(role::assistant, "Anything else?"));
}

constexpr std::string_view resume_set = R"(
templates:
  router:
    messages:
      - role: system
        content: Route the user.
      - role: user
        content: "{{ q }}"
      - role: request
        model: router-model
        functions: [botSwitchTemplate]
        call_function: botSwitchTemplate
      - role: assistant
        content: "Back at the router, {{ name }}."
      - role: user
        content: "{{ followup }}"
      - role: request
        model: router-model
  booking:
    messages:
      - role: system
        content: "You book trips for {{ name }}."
      - role: request
        model: booking-model
        functions: [botSwitchTemplate]
      - role: assistant
        content: Booked.
  payment:
    messages:
      - role: system
        content: You take payments.
      - role: request
        model: payment-model
)";

TEST_CASE("botSwitchTemplate: the suspended template's messages after its request are read when the one switched to ends") {
    fixture f(resume_set);
    f.script->push(parley::tool_call_reply({call("s1", "botSwitchTemplate", R"({"name": "booking"})")}));
    f.script->push_text("Where to?");
    f.script->push_text("Enjoy Lisbon.");
    f.script->push_text("Nothing else here.");
    const auto out = f.run("router", json_input(R"({"q": "Book a trip", "name": "Ada", "followup": "Thanks"})"));

    parley::request_params router_forced;
    router_forced.model = "router-model";
    router_forced.functions = std::vector<std::string>{"botSwitchTemplate"};
    router_forced.call_function = "botSwitchTemplate";
    parley::request_params booking;
    booking.model = "booking-model";
    booking.functions = std::vector<std::string>{"botSwitchTemplate"};
    parley::request_params router_plain;
    router_plain.model = "router-model";

    const message switch_call = calling({call("s1", "botSwitchTemplate", R"({"name": "booking"})")});
    const message switch_result = tool_result("s1", "Switched to template 'booking'.");
    const std::vector<message> conversation{msg(role::system, "Route the user."),
                                            msg(role::user, "Book a trip"),
                                            control(role::request, router_forced),
                                            switch_call,
                                            switch_result,
                                            msg(role::system, "You book trips for Ada."),
                                            control(role::request, booking),
                                            msg(role::assistant, "Where to?"),
                                            msg(role::assistant, "Booked."),
                                            msg(role::assistant, "Enjoy Lisbon."),
                                            msg(role::assistant, "Back at the router, Ada."),
                                            msg(role::user, "Thanks"),
                                            control(role::request, router_plain),
                                            msg(role::assistant, "Nothing else here.")};
    CHECK(dump(out) == dump(conversation));
    CHECK(out == conversation);

    const auto requests = f.requests();
    REQUIRE(requests.size() == 4);
    CHECK(requests[0].params == router_forced);
    CHECK(requests[0].messages == std::vector<message>{msg(role::system, "Route the user."), msg(role::user, "Book a trip")});
    CHECK(requests[1].params == booking);
    CHECK(requests[1].messages == std::vector<message>{msg(role::system, "Route the user."), msg(role::user, "Book a trip"),
                                                       switch_call, switch_result,
                                                       msg(role::system, "You book trips for Ada.")});
    // booking's read after its request ("Booked."): a request of its own, without booking's
    // request parameters (the nearest default-request: none)
    CHECK(requests[2].params == parley::request_params{});
    CHECK(requests[2].messages.back() == msg(role::assistant, "Booked."));
    // the router's second request: everything so far, its messages after the first request last
    CHECK(requests[3].params == router_plain);
    CHECK(requests[3].functions.empty());
    CHECK(requests[3].messages == std::vector<message>{msg(role::system, "Route the user."), msg(role::user, "Book a trip"),
                                                       switch_call, switch_result,
                                                       msg(role::system, "You book trips for Ada."),
                                                       msg(role::assistant, "Where to?"), msg(role::assistant, "Booked."),
                                                       msg(role::assistant, "Enjoy Lisbon."),
                                                       msg(role::assistant, "Back at the router, Ada."),
                                                       msg(role::user, "Thanks")});
}

TEST_CASE("botSwitchTemplate: suspended templates go on innermost first") {
    fixture f(resume_set);
    f.script->push(parley::tool_call_reply({call("s1", "botSwitchTemplate", R"({"name": "booking"})")}));
    f.script->push(parley::tool_call_reply({call("s2", "botSwitchTemplate", R"({"name": "payment"})")}));
    f.script->push_text("Card number?");
    f.script->push_text("Paid and booked.");
    f.script->push_text("Bye.");
    const auto out = f.run("router", json_input(R"({"q": "Book and pay", "name": "Bo", "followup": "Done"})"));

    const auto requests = f.requests();
    REQUIRE(requests.size() == 5);
    CHECK(requests[0].params.model == "router-model");
    CHECK(requests[1].params.model == "booking-model");
    CHECK(requests[2].params.model == "payment-model");
    CHECK_FALSE(requests[3].params.model.has_value());  // booking's read after its request
    CHECK(requests[4].params.model == "router-model");
    // payment ends, then booking's rest, then the router's rest
    std::vector<message> tail(out.end() - 7, out.end());
    parley::request_params router_plain;
    router_plain.model = "router-model";
    CHECK(tail == std::vector<message>{msg(role::assistant, "Card number?"), msg(role::assistant, "Booked."),
                                       msg(role::assistant, "Paid and booked."),
                                       msg(role::assistant, "Back at the router, Bo."), msg(role::user, "Done"),
                                       control(role::request, router_plain), msg(role::assistant, "Bye.")});
    CHECK(std::count_if(out.begin(), out.end(), [](const message& m) { return m == msg(role::assistant, "Booked."); }) == 1);
}

TEST_CASE("botSwitchTemplate to an unknown template is a bad-argument reply") {
    fixture f(switch_set);
    f.script->push(parley::tool_call_reply({call("s1", "botSwitchTemplate", R"({"name": "bookings"})")}));
    f.script->push_text("Sorry.");
    f.script->push_text("Still here.");
    const auto out = f.run("router", json_input(R"({"q": "?", "name": "Ada"})"));
    REQUIRE(out.size() == 8);
    CHECK(out[4] == failed_result("s1", "Error: there is no template named 'bookings'. The templates are: router, booking."));
    CHECK(out[6] == msg(role::assistant, "read when the template switched to ends"));
    CHECK(out[7] == msg(role::assistant, "Still here."));
}

TEST_CASE("template switches are bounded") {
    parley::bot_options o;
    o.max_template_switches = 2;
    fixture f(switch_set, o);
    for (int i = 0; i < 3; ++i)
        f.script->push(parley::tool_call_reply({call("s", "botSwitchTemplate", R"({"name": "router"})")}));
    try {
        f.run("router", json_input(R"({"q": "?"})"));
        FAIL("the run should fail");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::bot_limit);
    }
    CHECK(f.requests().size() == 3);
}

TEST_CASE("rollback: an error at any step leaves the history byte-identical") {
    constexpr std::string_view set = R"(
templates:
  steps:
    messages:
      - role: user
        content: "{{ q }}{{ first.missing.deeper if fail_first else '' }}"
      - role: request
        model: m
        functions: [get_weather, fail_hard, botSwitchTemplate]
      - role: assistant
        content: "{{ second.missing.deeper if fail_rest else 'fine' }}"
  other:
    messages:
      - role: user
        content: "{{ third.missing.deeper }}"
)";
    const std::vector<message> original{msg(role::system, "Be brief."), msg(role::user, "Hi"), msg(role::assistant, "Hello")};
    const std::string before = dump(original);
    auto check_rollback = [&](fixture& f, std::string_view input, auto&& check_error) {
        std::vector<message> history = original;
        try {
            history = f.run("steps", json_input(input), history);
            FAIL("the run should fail");
        } catch (...) {
            check_error(std::current_exception());
        }
        CHECK(dump(history) == before);
        CHECK(history == original);
    };
    auto template_error = [](std::exception_ptr e) { CHECK_THROWS_AS(std::rethrow_exception(e), parley::template_error); };
    auto call_failed = [](std::exception_ptr e) {
        try {
            std::rethrow_exception(e);
        } catch (const parley::call_exception& c) {
            CHECK(c.detail().status == 429);
        }
    };
    parley::call_error rate_limited;
    rate_limited.code = parley::make_error_code(parley::errc::http_status);
    rate_limited.status = 429;

    SUBCASE("rendering the first messages") {
        fixture f(set);
        check_rollback(f, R"({"q": "x", "fail_first": true})", template_error);
        CHECK(f.requests().empty());
    }
    SUBCASE("the first call fails") {
        fixture f(set);
        f.script->push(rate_limited);
        check_rollback(f, R"({"q": "x"})", call_failed);
        CHECK(f.requests().size() == 1);
    }
    SUBCASE("a later call of the function loop fails") {
        fixture f(set);
        f.script->push(parley::tool_call_reply({call("c", "get_weather", R"({"city": "Oslo"})")}));
        f.script->push(rate_limited);
        check_rollback(f, R"({"q": "x"})", call_failed);
        CHECK(f.requests().size() == 2);
        CHECK(f.weather_calls.size() == 1);
    }
    SUBCASE("a function throws") {
        fixture f(set);
        f.script->push(parley::tool_call_reply({call("c", "fail_hard", R"({"city": "Oslo"})")}));
        check_rollback(f, R"({"q": "x"})", [](std::exception_ptr e) {
            try {
                std::rethrow_exception(e);
            } catch (const std::runtime_error& r) {
                CHECK(std::string(r.what()) == "the weather service is down");
            }
        });
    }
    SUBCASE("rendering the rest of the template after the reply") {
        fixture f(set);
        f.script->push_text("answer");
        check_rollback(f, R"({"q": "x", "fail_rest": true})", template_error);
        CHECK(f.requests().size() == 1);
    }
    SUBCASE("rendering the template switched to") {
        fixture f(set);
        f.script->push(parley::tool_call_reply({call("s", "botSwitchTemplate", R"({"name": "other"})")}));
        check_rollback(f, R"({"q": "x"})", template_error);
    }
    SUBCASE("a reply without choices") {
        fixture f(set);
        f.script->push(parley::chat_reply{});
        check_rollback(f, R"({"q": "x"})", [](std::exception_ptr e) {
            try {
                std::rethrow_exception(e);
            } catch (const parley::error& r) {
                CHECK(r.code() == parley::errc::protocol);
            }
        });
    }
    SUBCASE("step 2: the effective parameters break a rule (a forced function that `functions` does not list)") {
        fixture f(R"(
templates:
  steps:
    messages:
      - role: default-request
        model: m
        functions: [get_weather]
      - role: user
        content: hi
      - role: request
        call_function: no_args
)");
        check_rollback(f, "{}", [](std::exception_ptr e) {
            try {
                std::rethrow_exception(e);
            } catch (const parley::error& r) {
                CHECK(r.code() == parley::errc::chat_invalid);
                CHECK(std::string(r.what()).find("'call_function' forces 'no_args', which 'functions' does not list") !=
                      std::string::npos);
            }
        });
        CHECK(f.requests().empty());
    }
    SUBCASE("step 1: a user message without content and an input without contentParts") {
        fixture f(R"(
templates:
  steps:
    messages:
      - role: user
      - role: request
        model: m
)");
        check_rollback(f, R"({"q": "x"})", [](std::exception_ptr e) {
            try {
                std::rethrow_exception(e);
            } catch (const parley::error& r) {
                CHECK(r.code() == parley::errc::chat_invalid);
                CHECK(std::string(r.what()).find("contentParts") != std::string::npos);
            }
        });
    }
    SUBCASE("step 3: `functions` names a function nothing defines") {
        parley::yaml_options o;
        o.check_functions = false;
        auto script = std::make_shared<parley::scripted_model>();
        parley::bot bot(parley::load_template_set(R"(
templates:
  steps:
    messages:
      - role: user
        content: hi
      - role: request
        model: m
        functions: [nowhere]
)", "x.yaml", o),
                        std::make_shared<parley::in_process_model>(script));
        std::vector<message> history = original;
        try {
            history = run_sync(bot.run("steps", json_input("{}"), history));
            FAIL("the run should fail");
        } catch (const parley::error& e) {
            CHECK(e.code() == parley::errc::chat_invalid);
            CHECK(std::string(e.what()) ==
                  "'functions' names 'nowhere', which neither the template set defines nor the bot registers");
        }
        CHECK(dump(history) == before);
        CHECK(script->requests().empty());
    }
    SUBCASE("an unknown template") {
        fixture f(set);
        std::vector<message> history = original;
        CHECK_THROWS_AS(history = f.run("nope", json_input("{}"), history), parley::error);
        CHECK(dump(history) == before);
    }
}

TEST_CASE("streaming: the text arrives in deltas, in order") {
    fixture f(weather_set);
    f.model->set_piece_size(4);
    f.script->push(parley::tool_call_reply({call("c", "get_weather", R"({"city": "Oslo"})")}));
    f.script->push_text("It is cold in Oslo: -3 °C.");
    std::vector<std::string> deltas;
    std::size_t events = 0;
    parley::run_options opt;
    opt.on_text = [&](std::string_view d) { deltas.emplace_back(d); };
    opt.on_event = [&](const parley::stream_event&) { ++events; };
    const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"), {}, opt);
    std::string joined;
    for (const auto& d : deltas) {
        CHECK(d.size() <= 4 + 1);  // at most 4 bytes, or one whole UTF-8 character
        joined += d;
    }
    CHECK(joined == "It is cold in Oslo: -3 °C.");
    CHECK(deltas.size() >= 7);
    CHECK(deltas.front() == "It i");
    CHECK(out.back() == msg(role::assistant, "It is cold in Oslo: -3 °C."));
    CHECK(events > deltas.size());  // the tool call's and the finish events too
}

TEST_CASE("the registry") {
    parley::function_registry r;
    r.add("get_weather", "", [](weather_query q) { return q.city; });
    REQUIRE(r.find("get_weather"));
    CHECK(r.find("get_weather")->definition.description == "Which city's weather to look up");
    CHECK(r.names() == std::vector<std::string>{"get_weather"});
    CHECK_THROWS_AS(r.add("get_weather", "again", [](weather_query) { return 1; }), parley::error);
    CHECK_THROWS_AS(r.add("botSwitchTemplate", "", [](weather_query) { return 1; }), parley::error);
    CHECK_THROWS_AS(r.add("bad name", "", [](weather_query) { return 1; }), parley::error);
    CHECK(r.find("nothing") == nullptr);

    auto outcome = run_sync(r.find("get_weather")->invoke(R"({"city": "Oslo"})"));
    CHECK(outcome.status == parley::function_outcome::kind::ok);
    CHECK(outcome.content == "Oslo");
    outcome = run_sync(r.find("get_weather")->invoke(R"(["Oslo"])"));
    CHECK(outcome.status == parley::function_outcome::kind::bad_arguments);
    CHECK(outcome.content.find("expected an object") != std::string::npos);

    CHECK_THROWS_AS(parley::bot(parley::template_set{}, nullptr), parley::error);
}

TEST_CASE("check(): the functions a template names must be defined or registered") {
    fixture f(weather_set);
    CHECK_NOTHROW(f.bot.check());
    parley::yaml_options o;
    o.check_functions = false;
    parley::bot lonely(parley::load_template_set(weather_set, "x.yaml", o), f.model);
    CHECK_THROWS_AS(lonely.check(), parley::error);
    f.script->push_text("unused");
    CHECK_THROWS_AS(run_sync(lonely.run("weather", json_input(R"({"q": "?"})"), {})), parley::error);
}

namespace docs_example {

struct weather_query {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(weather_query, (), (city))

struct weather {
    std::string city;
    int celsius = 0;
};
BOOST_DESCRIBE_STRUCT(weather, (), (city, celsius))

constexpr std::string_view assistant_yaml = R"(
templates:
  weather:
    messages:
      - role: default-request
        model: gpt-4o-mini
      - role: system
        content: You answer questions about the weather in one sentence.
      - role: user
        content: "What is the weather in {{ city }}?"
      - role: request
        functions: [get_weather]
        call_function: get_weather
)";

asio::awaitable<std::vector<parley::message>> ask(parley::bot& bot, std::vector<parley::message> history) {
    history = co_await bot.run("weather", boost::json::parse(R"({"city": "Oslo"})"), std::move(history));
    co_return history;
}

}  // namespace docs_example

TEST_CASE("the example of docs/bot.md") {
    auto script = std::make_shared<parley::scripted_model>();
    script->push(parley::tool_call_reply({call("call_1", "get_weather", R"({"city": "Oslo"})")}));
    script->push_text("It is -3 °C in Oslo.");

    parley::yaml_options options;
    options.external_functions = {"get_weather"};
    parley::bot bot(parley::load_template_set(docs_example::assistant_yaml, "assistant.yaml", options),
                    std::make_shared<parley::in_process_model>(script));
    bot.add_function("get_weather", "Current weather for a city",
                     [](docs_example::weather_query q) {
                         return docs_example::weather{q.city, q.city == "Oslo" ? -3 : 20};
                     });
    const auto history = run_sync(docs_example::ask(bot, {}));

    // the conversation as docs/bot.md shows it
    CHECK(boost::json::value(parley::conversation_to_json(history)) == boost::json::parse(R"([
  {"role": "default-request", "model": "gpt-4o-mini"},
  {"role": "system", "content": "You answer questions about the weather in one sentence."},
  {"role": "user", "content": "What is the weather in Oslo?"},
  {"role": "request", "functions": ["get_weather"], "call_function": "get_weather"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
  {"role": "tool", "content": "{\"city\":\"Oslo\",\"celsius\":-3}", "tool_call_id": "call_1"},
  {"role": "assistant", "content": "It is -3 °C in Oslo."}
])"));
    // the two requests
    const auto requests = script->requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].params.call_function == "get_weather");
    CHECK(requests[1].params.call_function == "*");
    CHECK(requests[1].messages.size() == 4);
}

namespace {

/// A model of one's own: answers after a timer, and records what it was asked.
class slow_model final : public parley::chat_model {
public:
    explicit slow_model(std::chrono::milliseconds wait) : wait_(wait) {}
    asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request request, const parley::stream_handler*) override {
        asked.push_back(std::move(request));
        asio::steady_timer timer(co_await asio::this_coro::executor, wait_);
        co_await timer.async_wait(asio::use_awaitable);
        co_return parley::text_reply("late");
    }
    std::vector<parley::chat_request> asked;

private:
    std::chrono::milliseconds wait_;
};

}  // namespace

TEST_CASE("a model of one's own; a run abandoned before its end leaves the history as it was") {
    const std::vector<message> before{msg(role::user, "earlier")};
    std::vector<message> history = before;
    SUBCASE("a run that ends") {
        auto model = std::make_shared<slow_model>(std::chrono::milliseconds(1));
        parley::bot bot(load(simple_set), model);
        history = run_sync(bot.run("main", json_input(R"({"persona": "p", "question": "q", "name": "n"})"), history));
        REQUIRE(model->asked.size() == 2);
        CHECK(model->asked[0].messages.front() == before.front());
        CHECK(history.size() == 7);
    }
    SUBCASE("a run without a history starts an empty conversation") {
        auto model = std::make_shared<slow_model>(std::chrono::milliseconds(1));
        parley::bot bot(load(simple_set), model);
        const auto out = run_sync(bot.run("main", json_input(R"({"persona": "p", "question": "q", "name": "n"})")));
        REQUIRE(model->asked.size() == 2);
        CHECK(model->asked[0].messages == std::vector<message>{msg(role::system, "You are p."), msg(role::user, "q")});
        CHECK(out.size() == 6);
        CHECK(out[3] == msg(role::assistant, "late"));
    }
    SUBCASE("a run whose coroutine is destroyed while it waits for the model") {
        auto model = std::make_shared<slow_model>(std::chrono::hours(1));
        parley::bot bot(load(simple_set), model);
        {
            asio::io_context io;
            asio::co_spawn(io, bot.run("main", json_input(R"({"persona": "p", "question": "q", "name": "n"})"), history),
                           [&](std::exception_ptr, std::vector<message> result) { history = std::move(result); });
            io.run_for(std::chrono::milliseconds(20));
            CHECK(model->asked.size() == 1);
        }  // the io_context and the run's frame go
        CHECK(history == before);
    }
}

TEST_CASE("the bot's error codes have messages") {
    CHECK(parley::make_error_code(parley::errc::bad_function_arguments).message() ==
          "the model's function arguments did not fit, too many times");
    CHECK(parley::make_error_code(parley::errc::bot_limit).message() == "a bot's limit was reached");
}

TEST_CASE("a function registered under its own definition takes the arguments as JSON") {
    fixture f(weather_set);
    std::vector<boost::json::value> seen;
    f.bot.add_function(*f.bot.templates().function("forecast"), [&](const boost::json::value& args) -> std::string {
        seen.push_back(args);
        const auto* days = args.as_object().if_contains("days");
        if (!days || !days->is_int64()) throw parley::function_failure("'days' must be an integer");
        return std::to_string(days->as_int64()) + " days of sun";
    });
    f.script->push(parley::tool_call_reply({call("a", "forecast", R"({"days": 3})"), call("b", "forecast", "[1]"),
                                            call("c", "forecast", "nope"), call("d", "forecast", R"({"days": "3"})")}));
    f.script->push_text("Sunny.");
    const auto out = f.run("weather_auto", json_input(R"({"q": "?"})"));
    REQUIRE(out.size() == 8);
    CHECK(out[3] == tool_result("a", "3 days of sun"));
    CHECK(out[4] == failed_result("b", "Error: the arguments of forecast do not fit its parameters:\n"
                                     "expected an object, found [1]\n"
                                     "Call forecast again with arguments that fit its parameters."));
    // text without JSON: the schema layer's no_json problem (docs/extraction.md)
    CHECK(out[5] == failed_result("c", "Error: the arguments of forecast do not fit its parameters:\n"
                                     "expected a JSON value, found no JSON in the text\n"
                                     "Call forecast again with arguments that fit its parameters."));
    CHECK(out[6] == failed_result("d", "Error: 'days' must be an integer"));
    CHECK(out[7] == msg(role::assistant, "Sunny."));
    REQUIRE(seen.size() == 2);
    CHECK(seen[0] == boost::json::parse(R"({"days": 3})"));
    // the set's definition is the one sent
    REQUIRE(f.requests().size() == 2);
    CHECK(f.requests()[0].functions[2] == *f.bot.templates().function("forecast"));
    CHECK_THROWS_AS(f.bot.add_function(*f.bot.templates().function("forecast"), [](const boost::json::value&) { return 1; }),
                    parley::error);
}

TEST_CASE("step 1: the texts the bot sends are rendered as Python Jinja2 renders them") {
    // Text contents and text parts of a list content, with loops, filters, tests and Python's
    // formatting of values; the expected texts come from Python Jinja2 (the oracle).
    const std::string system_text = "{% for c in cities %}{{ loop.index }}. {{ c | title }}"
                                    "{% if not loop.last %}, {% endif %}{% endfor %}";
    const std::string part_text = "{{ n * 2.5 }} {{ flag }} {{ cities | length }} {{ 7 // 2 }} {{ none_value }} "
                                  "{{ cities[1:] }} {{ {'a': [1, 'b']} }}";
    const std::string assistant_text = "{{ '%-5s|' | format(cities[0]) }}{{ 'x' if flag is sameas true else 'y' }}";
    const std::string input_text =
        R"({"cities": ["oslo", "new york", "rome"], "n": 2, "flag": true, "none_value": null})";
    const boost::json::value input = boost::json::parse(input_text);
    const auto expected = jinja_oracle::render(
        {{system_text, input}, {part_text, input}, {assistant_text, input}});
    REQUIRE(expected.size() == 3);
    for (const auto& e : expected) REQUIRE_MESSAGE(e.output, e.error);

    auto quoted = [](const std::string& t) { return boost::json::serialize(boost::json::value(t)); };
    const std::string yaml = "templates:\n  t:\n    messages:\n"
                             "      - role: system\n        content: " + quoted(system_text) + "\n"
                             "      - role: user\n        content:\n"
                             "          - type: text\n            text: " + quoted(part_text) + "\n"
                             "          - type: image_url\n            image_url: {url: \"https://example.com/{{ n }}.png\"}\n"
                             "      - role: assistant\n        content: " + quoted(assistant_text) + "\n"
                             "      - role: request\n        model: m\n";
    fixture f(yaml);
    f.script->push_text("ok");
    f.run("t", input);
    REQUIRE(f.requests().size() == 1);
    const auto requests = f.requests();
    const auto& sent = requests[0].messages;
    REQUIRE(sent.size() == 3);
    CHECK(sent[0] == msg(role::system, *expected[0].output));
    REQUIRE(sent[1].parts().size() == 2);
    CHECK(sent[1].parts()[0] == parley::content_part::make_text(*expected[1].output));
    // image parts are not rendered
    CHECK(sent[1].parts()[1] == parley::content_part::make_image("https://example.com/{{ n }}.png"));
    CHECK(sent[2] == msg(role::assistant, *expected[2].output));
}

namespace {

constexpr std::string_view reads_set = R"(
templates:
  no_request:
    messages:
      - role: default-request
        model: gpt-4o-mini
      - role: system
        content: Answer briefly.
      - role: user
        content: "{{ input }}"
  ends_at_request:
    messages:
      - role: user
        content: "{{ input }}"
      - role: request
        model: m1
  trailing_control:
    messages:
      - role: user
        content: "{{ input }}"
      - role: request
        model: m1
      - role: default-request
        model: m2
  router:
    messages:
      - role: default-request
        model: router-model
      - role: user
        content: "{{ input }}"
      - role: request
        functions: [botSwitchTemplate]
        call_function: botSwitchTemplate
      - role: user
        content: Anything else?
  plain:
    messages:
      - role: system
        content: You answer plainly.
  middle:
    messages:
      - role: system
        content: You route again.
      - role: request
        functions: [botSwitchTemplate]
        call_function: botSwitchTemplate
      - role: assistant
        content: Back in the middle.
)";

std::vector<std::string> last_texts(const std::vector<parley::chat_request>& requests) {
    std::vector<std::string> out;
    for (const auto& r : requests) out.emplace_back(r.messages.empty() ? "" : std::string(r.messages.back().text()));
    return out;
}

}  // namespace

TEST_CASE("step 2: a template without a request message gets a reply") {
    fixture f(reads_set);
    f.script->push_text("Paris.");
    const auto out = f.run("no_request", json_input(R"({"input": "Capital of France?"})"));
    const auto requests = f.requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].params.model == "gpt-4o-mini");
    CHECK(requests[0].messages ==
          std::vector<message>{msg(role::system, "Answer briefly."), msg(role::user, "Capital of France?")});
    REQUIRE(out.size() == 4);
    CHECK(out[3] == msg(role::assistant, "Paris."));
}

TEST_CASE("step 2: a template that ends right after its request gets one reply, no more") {
    fixture f(reads_set);
    f.script->push_text("one");
    f.script->push_text("never asked for");
    const auto out = f.run("ends_at_request", json_input(R"({"input": "q"})"));
    CHECK(f.requests().size() == 1);
    CHECK(out.back() == msg(role::assistant, "one"));
    CHECK(f.script->remaining() == 1);
}

TEST_CASE("step 2: a read of default-request or truncate messages alone sends nothing") {
    fixture f(reads_set);
    f.script->push_text("one");
    const auto out = f.run("trailing_control", json_input(R"({"input": "q"})"));
    CHECK(f.requests().size() == 1);
    REQUIRE(out.size() == 4);
    CHECK(out[3].role == role::default_request);  // appended, for the next run
}

TEST_CASE("step 2: a template switched to without a request message gets a reply; nested switches") {
    SUBCASE("one switch") {
        fixture f(reads_set);
        f.script->push(parley::tool_call_reply({call("s1", "botSwitchTemplate", R"({"name": "plain"})")}));
        f.script->push_text("Plainly: yes.");
        f.script->push_text("Nothing, thanks.");
        const auto out = f.run("router", json_input(R"({"input": "Can you help?"})"));
        const auto requests = f.requests();
        // the router's request; plain's read (its system message) ends with one; the router's
        // read after its request ("Anything else?") ends with one
        REQUIRE(requests.size() == 3);
        CHECK(requests[0].params.call_function == "botSwitchTemplate");
        CHECK(requests[1].params.model == "router-model");  // the nearest default-request
        CHECK_FALSE(requests[1].params.functions.has_value());
        CHECK(requests[1].messages.back() == msg(role::system, "You answer plainly."));
        CHECK(requests[2].messages.back() == msg(role::user, "Anything else?"));
        CHECK(out.back() == msg(role::assistant, "Nothing, thanks."));
    }
    SUBCASE("a switch inside a switch: the innermost goes on first, every read ends with a request") {
        fixture f(reads_set);
        f.script->push(parley::tool_call_reply({call("s1", "botSwitchTemplate", R"({"name": "middle"})")}));
        f.script->push(parley::tool_call_reply({call("s2", "botSwitchTemplate", R"({"name": "plain"})")}));
        f.script->push_text("plain's reply");
        f.script->push_text("middle's second reply");
        f.script->push_text("router's second reply");
        const auto out = f.run("router", json_input(R"({"input": "Route me"})"));
        const auto requests = f.requests();
        REQUIRE(requests.size() == 5);
        CHECK(last_texts(requests) == std::vector<std::string>{"Route me", "You route again.", "You answer plainly.",
                                                               "Back in the middle.", "Anything else?"});
        CHECK(f.script->remaining() == 0);
        CHECK(out.back() == msg(role::assistant, "router's second reply"));
    }
}

namespace {

/// A gate two coroutines wait at: it opens when `expected` of them have arrived. Whoever waits
/// longer than `patience` gives up and says so (the calls did not run at once).
class meeting {
public:
    meeting(asio::any_io_executor ex, std::size_t expected) : timer_(ex, std::chrono::steady_clock::time_point::max()), expected_(expected) {}

    asio::awaitable<bool> arrive() {
        ++arrived_;
        if (arrived_ >= expected_) {
            timer_.cancel();
            co_return true;
        }
        timer_.expires_after(std::chrono::seconds(20));
        boost::system::error_code ec;
        co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        co_return arrived_ >= expected_;
    }
    std::size_t arrived() const noexcept { return arrived_; }

private:
    asio::steady_timer timer_;
    std::size_t expected_;
    std::size_t arrived_ = 0;
};

struct slow_args {
    std::string name;
};
BOOST_DESCRIBE_STRUCT(slow_args, (), (name))

constexpr std::string_view concurrent_set = R"(
templates:
  both:
    messages:
      - role: user
        content: go
      - role: request
        model: m
        functions: [meet, log_order]
)";

}  // namespace

TEST_CASE("step 4: the calls of one reply run at once; their results are appended in the calls' order") {
    auto script = std::make_shared<parley::scripted_model>();
    script->push(parley::tool_call_reply({call("c1", "meet", R"({"name": "first"})"), call("c2", "meet", R"({"name": "second"})")}));
    script->push_text("done");
    parley::yaml_options yo;
    yo.external_functions = {"meet", "log_order"};
    parley::bot bot(parley::load_template_set(concurrent_set, "c.yaml", yo), std::make_shared<parley::in_process_model>(script));
    std::unique_ptr<meeting> gate;
    std::vector<std::string> finished;
    bot.add_function("meet", "Waits for the other call", [&](slow_args a) -> asio::awaitable<std::string> {
        // both calls must have started before either can finish: proof that they overlap
        const bool met = co_await gate->arrive();
        if (!met) throw parley::function_failure("the other call never started");
        // the second finishes first
        if (a.name == "first") {
            for (int i = 0; i < 5; ++i) co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
        }
        finished.push_back(a.name);
        co_return "met by " + a.name;
    });
    bot.add_function("log_order", "", [](slow_args) { return std::string(); });

    asio::io_context io;
    gate = std::make_unique<meeting>(io.get_executor(), 2);
    auto result = asio::co_spawn(io, bot.run("both", json_input("{}")), asio::use_future);
    io.run();
    gate.reset();  // its timer goes before the io_context whose service it uses
    const auto out = result.get();
    CHECK(finished == std::vector<std::string>{"second", "first"});
    REQUIRE(out.size() == 6);
    CHECK(out[3] == tool_result("c1", "met by first"));
    CHECK(out[4] == tool_result("c2", "met by second"));
}

TEST_CASE("step 4: at most max_concurrent_calls calls run at once; a throwing function stops the rest and fails the run") {
    constexpr std::string_view set = R"(
templates:
  many:
    messages:
      - role: user
        content: go
      - role: request
        model: m
        functions: [work]
)";
    auto script = std::make_shared<parley::scripted_model>();
    std::vector<parley::tool_call> calls;
    for (int i = 0; i < 7; ++i) calls.push_back(call("c" + std::to_string(i), "work", R"({"name": ")" + std::to_string(i) + R"("})"));
    script->push(parley::tool_call_reply(calls));
    script->push_text("done");
    parley::yaml_options yo;
    yo.external_functions = {"work"};
    parley::bot_options bo;
    bo.max_concurrent_calls = 3;
    parley::bot bot(parley::load_template_set(set, "m.yaml", yo), std::make_shared<parley::in_process_model>(script), bo);
    std::size_t running = 0, most = 0, started = 0;
    bot.add_function("work", "", [&](slow_args a) -> asio::awaitable<std::string> {
        ++started;
        most = std::max(most, ++running);
        for (int i = 0; i < 3; ++i) co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
        --running;
        if (a.name == "fail") throw std::runtime_error("work failed");
        co_return a.name;
    });
    SUBCASE("the bound") {
        const auto out = run_sync(bot.run("many", json_input("{}")));
        CHECK(most == 3);
        CHECK(started == 7);
        for (int i = 0; i < 7; ++i) CHECK(out[static_cast<std::size_t>(3 + i)] == tool_result("c" + std::to_string(i), std::to_string(i)));
    }
    SUBCASE("one at a time") {
        bot.options().max_concurrent_calls = 1;
        const auto out = run_sync(bot.run("many", json_input("{}")));
        CHECK(most == 1);
        CHECK(started == 7);
        CHECK(out.size() == 11);
    }
    SUBCASE("a function that throws: the calls running finish, no more start, the first error in the calls' order is thrown") {
        auto failing = std::make_shared<parley::scripted_model>();
        std::vector<parley::tool_call> some;
        for (int i = 0; i < 7; ++i) some.push_back(call("c" + std::to_string(i), "work", i == 1 ? R"({"name": "fail"})" : R"({"name": "ok"})"));
        failing->push(parley::tool_call_reply(some));
        parley::bot b2(parley::load_template_set(set, "m.yaml", yo), std::make_shared<parley::in_process_model>(failing), bo);
        b2.add_function("work", "", [&](slow_args a) -> asio::awaitable<std::string> {
            ++started;
            for (int i = 0; i < 3; ++i) co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
            if (a.name == "fail") throw std::runtime_error("work failed");
            co_return a.name;
        });
        started = 0;
        CHECK_THROWS_WITH_AS(run_sync(b2.run("many", json_input("{}"))), "work failed", std::runtime_error);
        CHECK(started < 7);
    }
}

TEST_CASE("usage: a run adds every request's tokens and attempts, also when it fails") {
    fixture f(weather_set);
    auto with_usage = [](parley::chat_reply r, std::int64_t prompt, std::int64_t completion, std::int64_t cached) {
        parley::token_usage u;
        u.prompt_tokens = prompt;
        u.completion_tokens = completion;
        u.total_tokens = prompt + completion;
        u.details = boost::json::object{{"prompt_tokens_details", boost::json::object{{"cached_tokens", cached}}}};
        r.usage = u;
        return r;
    };
    f.script->push(with_usage(parley::tool_call_reply({call("c", "get_weather", R"({"city": "Oslo"})")}), 100, 10, 0));
    f.script->push(with_usage(parley::text_reply("Cold."), 130, 5, 100));
    parley::usage_summary usage;
    parley::run_options opt;
    opt.usage = &usage;
    f.run("weather_auto", json_input(R"({"q": "?"})"), {}, opt);
    REQUIRE(usage.models.size() == 1);
    CHECK(usage.models[0].model == "m");
    CHECK(usage.models[0].requests == 2);
    CHECK(usage.models[0].input_tokens == 230);
    CHECK(usage.models[0].output_tokens == 15);
    CHECK(usage.models[0].cached_input_tokens == 100);
    CHECK(usage.models[0].attempts == 2);

    // a run that fails after a reply: the reply's usage and the failed request are counted
    parley::call_error e;
    e.code = parley::make_error_code(parley::errc::http_status);
    e.status = 500;
    e.attempts = 3;
    f.script->push(with_usage(parley::tool_call_reply({call("c", "get_weather", R"({"city": "Oslo"})")}), 50, 5, 0));
    f.script->push(e);
    parley::usage_summary failed;
    opt.usage = &failed;
    CHECK_THROWS_AS(f.run("weather_auto", json_input(R"({"q": "?"})"), {}, opt), parley::call_exception);
    REQUIRE(failed.models.size() == 1);
    CHECK(failed.models[0].requests == 2);
    CHECK(failed.models[0].failed == 1);
    CHECK(failed.models[0].attempts == 4);
    CHECK(failed.models[0].input_tokens == 50);
}

TEST_CASE("a run destroyed while the calls of a reply are running leaves the history as it was") {
    auto script = std::make_shared<parley::scripted_model>();
    script->push(parley::tool_call_reply({call("c1", "meet", R"({"name": "a"})"), call("c2", "meet", R"({"name": "b"})")}));
    parley::yaml_options yo;
    yo.external_functions = {"meet", "log_order"};
    parley::bot bot(parley::load_template_set(concurrent_set, "c.yaml", yo), std::make_shared<parley::in_process_model>(script));
    std::size_t started = 0;
    bot.add_function("meet", "", [&](slow_args) -> asio::awaitable<std::string> {
        ++started;
        asio::steady_timer forever(co_await asio::this_coro::executor, std::chrono::hours(1));
        co_await forever.async_wait(asio::use_awaitable);
        co_return "never";
    });
    bot.add_function("log_order", "", [](slow_args) { return std::string(); });
    const std::vector<message> before{msg(role::user, "earlier")};
    std::vector<message> history = before;
    {
        asio::io_context io;
        asio::co_spawn(io, bot.run("both", json_input("{}"), history),
                       [&](std::exception_ptr, std::vector<message> result) { history = std::move(result); });
        io.run_for(std::chrono::milliseconds(50));
        CHECK(started == 2);  // both calls are waiting
    }  // the io_context, the run's frame and the calls' frames go
    CHECK(history == before);
}
