// Fault injection for parley/bot/bot.hpp: a run of a template set that calls two functions,
// switches templates and streams its replies is repeated with one fault injected at each point
// where something can fail (each request, each function call, each stream event). Each faulty
// run must fail with an error that names the fault, and leave the caller's history exactly as it
// was; the run without faults is the control that the points are all reached.
#include <parley/bot/bot.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/yaml.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/describe/class.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace fault_app {

struct city_query {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(city_query, (), (city))

}  // namespace fault_app

namespace asio = boost::asio;

namespace {

// Where the fault goes: the n-th model call (1-based), the n-th function call, or the n-th
// stream event of the whole run; 0 for none.
struct fault_plan {
    enum class kind { none, request, function, stream_event } where = kind::none;
    std::size_t n = 0;
};

std::string fault_name(const fault_plan& f) {
    switch (f.where) {
    case fault_plan::kind::request: return "injected fault: request " + std::to_string(f.n);
    case fault_plan::kind::function: return "injected fault: function call " + std::to_string(f.n);
    case fault_plan::kind::stream_event: return "injected fault: stream event " + std::to_string(f.n);
    case fault_plan::kind::none: break;
    }
    return "no fault";
}

/// A model that replies from a script and fails where the plan says: a request fails before
/// any event, a stream event fault delivers the events before it and then fails the call.
class faulty_model final : public parley::chat_model {
public:
    faulty_model(std::vector<parley::chat_reply> replies, fault_plan plan) : replies_(std::move(replies)), plan_(plan) {}

    asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request, const parley::stream_handler* on_event) override {
        ++requests;
        if (plan_.where == fault_plan::kind::request && plan_.n == requests) co_return failure();
        if (requests > replies_.size()) co_return failure("the script has no reply left");
        const parley::chat_reply& reply = replies_[requests - 1];
        if (on_event && *on_event) {
            for (const parley::stream_event& e : parley::events_of(reply, 8)) {
                ++events;
                if (plan_.where == fault_plan::kind::stream_event && plan_.n == events) co_return failure();
                (*on_event)(e);
            }
        }
        co_return reply;
    }

    std::size_t requests = 0;
    std::size_t events = 0;

private:
    parley::call_error failure(std::string text = {}) const {
        parley::call_error e;
        e.code = make_error_code(parley::errc::protocol);
        e.message = text.empty() ? fault_name(plan_) : std::move(text);
        e.attempts = 1;
        return e;
    }

    std::vector<parley::chat_reply> replies_;
    fault_plan plan_;
};

parley::chat_reply reply_calling(std::string id, std::string name, std::string arguments) {
    parley::chat_reply r;
    parley::reply_choice c;
    c.message.role = parley::role::assistant;
    c.message.tool_calls.push_back(parley::tool_call{std::move(id), parley::function_call{std::move(name), std::move(arguments)}});
    c.finish = parley::finish_reason::tool_calls;
    r.choices.push_back(std::move(c));
    return r;
}

constexpr std::string_view fault_yaml = R"(
templates:
  travel:
    - role: system
      content: You plan trips.
    - role: user
      content: "{{ question }}"
    - role: request
      functions: [weather, botSwitchTemplate]
  booking:
    - role: user
      content: Book the warmer of the two cities.
    - role: request
      functions: [weather]
    - role: assistant
      content: Booking done for {{ question | length }} characters of question.
)";

struct outcome {
    std::vector<parley::message> conversation;
    std::string error;  // empty when the run succeeded
    std::size_t requests = 0, events = 0, function_calls = 0;
};

outcome run_with(fault_plan plan, const std::vector<parley::message>& history) {
    parley::yaml_options yo;
    yo.external_functions = {"weather", "botSwitchTemplate"};
    std::vector<parley::chat_reply> script = {
        reply_calling("c1", "weather", R"({"city":"Oslo"})"),
        reply_calling("c2", "botSwitchTemplate", R"({"name":"booking"})"),
        reply_calling("c3", "weather", R"({"city":"Rome"})"),
        parley::text_reply("Rome is warmer: booked."),
        parley::text_reply("Anything else for the trip?"),  // the reply to booking's read after its request
    };
    auto model = std::make_shared<faulty_model>(std::move(script), plan);
    parley::bot bot(parley::load_template_set(fault_yaml, "fault_test.yaml", yo), model);
    std::size_t calls = 0;
    bot.add_function("weather", "Current temperature of a city", [&](fault_app::city_query q) -> std::string {
        ++calls;
        if (plan.where == fault_plan::kind::function && plan.n == calls) throw std::runtime_error(fault_name(plan));
        return q.city == "Oslo" ? "-3 C" : "21 C";
    });
    parley::run_options opt;
    std::string streamed;
    opt.on_text = [&](std::string_view t) { streamed += t; };

    boost::json::object input{{"question", "Oslo or Rome this weekend?"}};
    outcome out;
    asio::io_context io;
    auto f = asio::co_spawn(io, bot.run("travel", input, history, std::move(opt)), asio::use_future);
    io.run();
    try {
        out.conversation = f.get();
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    out.requests = model->requests;
    out.events = model->events;
    out.function_calls = calls;
    return out;
}

std::string dump_history(const std::vector<parley::message>& conversation) {
    return boost::json::serialize(parley::conversation_to_json(conversation));
}

}  // namespace

TEST_CASE("fault injection: a fault at any request, function call or stream event fails the run and leaves the history as it was") {
    const std::vector<parley::message> history = {
        parley::make_message(parley::role::user, "An earlier question"),
        parley::make_message(parley::role::assistant, "An earlier answer"),
    };
    const std::string before = dump_history(history);

    // The control: without faults the run succeeds and reaches every point.
    const outcome clean = run_with({}, history);
    REQUIRE_MESSAGE(clean.error.empty(), clean.error);
    CHECK(clean.requests == 5);
    CHECK(clean.function_calls == 2);
    REQUIRE(clean.events > 4);
    CHECK(clean.conversation.size() > history.size());
    CHECK(dump_history(history) == before);

    std::vector<fault_plan> plans;
    for (std::size_t n = 1; n <= clean.requests; ++n) plans.push_back({fault_plan::kind::request, n});
    for (std::size_t n = 1; n <= clean.function_calls; ++n) plans.push_back({fault_plan::kind::function, n});
    for (std::size_t n = 1; n <= clean.events; ++n) plans.push_back({fault_plan::kind::stream_event, n});

    for (const fault_plan& plan : plans) {
        std::vector<parley::message> copy = history;
        const outcome faulty = run_with(plan, copy);
        INFO(fault_name(plan));
        // The error names the fault that was injected (and nothing else failed first).
        CHECK(faulty.error.find(fault_name(plan)) != std::string::npos);
        CHECK(faulty.conversation.empty());
        // The history given to the run is byte-identical, messages and serialisation.
        CHECK(dump_history(copy) == before);
        CHECK(copy == history);
    }
}
