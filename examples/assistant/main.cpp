// A travel assistant: a YAML template set (travel.yaml) run by parley::bot, with two C++
// functions the model calls, a switch from one template to another, and the itinerary the
// conversation agreed on extracted into a C++ struct at the end.
//
// Offline (nothing set), the model is parley's fake server on 127.0.0.1, answering over HTTP from
// fake-server-script.json: the program prints the same conversation every time. With
// OPENAI_BASE_URL and/or OPENAI_API_KEY set, the same code talks to that server (OpenAI or any
// compatible one: Ollama, llama.cpp, vLLM...), with the model OPENAI_MODEL (default gpt-4o-mini).
//
//   assistant [DIR]    DIR holds travel.yaml and fake-server-script.json (default: this folder)
#include <parley/bot.hpp>
#include <parley/bot/client_model.hpp>     // a chat_client as the bot's model (Beast: link parley::net)
#include <parley/chat/yaml.hpp>            // the YAML loader (link parley::yaml)
#include <parley/testing/fake_server.hpp>  // the fake model server (link parley::testing)

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/describe/class.hpp>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace asio = boost::asio;

// ---- The functions the model may call. Each takes one described struct: the model's JSON
// arguments are read into it, and its description (PARLEY_ANNOTATE) tells the model what to send.

struct weather_query {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(weather_query, (), (city))
PARLEY_ANNOTATE(weather_query, "A city to look the weather up for", (city, "The city's name, e.g. Lisbon"))

struct weather {
    std::string city;
    int celsius = 0;
    std::string sky;
};
BOOST_DESCRIBE_STRUCT(weather, (), (city, celsius, sky))

struct flight_search {
    std::string from;
    std::string to;
    std::string date;
};
BOOST_DESCRIBE_STRUCT(flight_search, (), (from, to, date))
PARLEY_ANNOTATE(flight_search, "A one-way flight search", (from, "City of departure"), (to, "City of arrival"),
                (date, "Day of travel as the traveller said it, e.g. 14 March"))

struct flight {
    std::string number;
    std::string from;
    std::string to;
    std::string date;
    std::string departs;
    std::string arrives;
    int price_eur = 0;
};
BOOST_DESCRIBE_STRUCT(flight, (), (number, from, to, date, departs, arrives, price_eur))
PARLEY_ANNOTATE(flight, "A flight", (number, "Flight number, e.g. NW 101"), (departs, "Local time, HH:MM"),
                (arrives, "Local time, HH:MM"))

// A demo weather service: a few cities, the same answer every time.
weather get_weather(weather_query q) {
    static const std::map<std::string, weather, std::less<>> known = {
        {"Lisbon", {"Lisbon", 19, "sunny"}}, {"Oslo", {"Oslo", -3, "snow"}}, {"Paris", {"Paris", 11, "cloudy"}}};
    if (q.city.empty()) throw parley::function_failure("a city is needed");  // the model sees this and can retry
    if (auto it = known.find(q.city); it != known.end()) return it->second;
    return {q.city, 15, "cloudy"};
}

// A demo flight search: two direct flights on every route.
std::vector<flight> search_flights(flight_search q) {
    if (q.from.empty() || q.to.empty()) throw parley::function_failure("both 'from' and 'to' are needed");
    return {{"NW 101", q.from, q.to, q.date, "07:05", "11:20", 129}, {"NW 245", q.from, q.to, q.date, "13:40", "17:55", 164}};
}

// ---- What the conversation should end with, as a C++ value.

struct itinerary {
    std::string traveller;
    ::flight flight;
    std::optional<std::string> weather;
};
BOOST_DESCRIBE_STRUCT(itinerary, (), (traveller, flight, weather))
PARLEY_ANNOTATE(itinerary, "The trip the traveller agreed to", (traveller, "The traveller's first name"),
                (flight, "The flight the traveller chose"), (weather, "The weather at the destination, if known"))

// ---- The input each run's texts are rendered with ({{ traveller }}, {{ message }}).

struct turn {
    std::string traveller;
    std::string message;
};
BOOST_DESCRIBE_STRUCT(turn, (), (traveller, message))

// ---- Printing the conversation as it goes.

// `text` wrapped at 100 columns, continuation lines indented to the text column.
std::string wrapped(std::string_view text, std::size_t indent) {
    constexpr std::size_t width = 100;
    std::string out;
    std::size_t column = indent;
    while (!text.empty()) {
        const std::size_t space = text.find(' ');
        const std::string_view word = text.substr(0, space);
        text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
        if (column > indent && column + 1 + word.size() > width) {
            out += '\n' + std::string(indent, ' ');
            column = indent;
        } else if (column > indent) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
    }
    return out;
}

// `text` cut after about `n` bytes (never inside a UTF-8 character).
std::string shortened(std::string_view text, std::size_t n = 89) {
    if (text.size() <= n) return std::string(text);
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    return std::string(text.substr(0, n)) + " ...";
}

// A chat_model that prints what goes to the model and what comes back, then passes the call on.
// Each request carries the whole conversation: the messages not printed yet are the new ones
// (the user's message, the results of the functions, the system text of a template switched to).
class transcript final : public parley::chat_model {
public:
    explicit transcript(std::shared_ptr<parley::chat_model> model) : model_(std::move(model)) {}

    asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request request, const parley::stream_handler* on_event) override {
        std::size_t common = 0;
        while (common < shown_.size() && common < request.messages.size() && shown_[common] == request.messages[common])
            ++common;
        for (std::size_t i = common; i < request.messages.size(); ++i) print(request.messages[i]);
        shown_ = request.messages;
        auto reply = co_await model_->chat(std::move(request), on_event);
        if (reply && !reply->choices.empty()) {
            print(reply->message());
            shown_.push_back(reply->message());
        }
        co_return reply;
    }

private:
    // One line per message or call, the role in the first column; texts are wrapped, JSON is
    // shortened.
    static void line(std::string_view who, std::string_view text, bool wrap = true) {
        std::cout << who << std::string(who.size() < 11 ? 11 - who.size() : 1, ' ')
                  << (wrap ? wrapped(text, 11) : shortened(text)) << '\n';
    }

    void print(const parley::message& m) {
        using parley::role;
        if (m.role == role::tool || m.role == role::function) {
            const std::string name = m.name ? *m.name : called_[m.tool_call_id.value_or("")];
            line("function", name + " -> " + std::string(m.text()), false);
            return;
        }
        if (m.has_text() && !m.text().empty()) line(parley::role_name(m.role), m.text());
        for (const parley::tool_call& c : m.tool_calls) {
            called_[c.id] = c.function.name;
            line(m.has_text() && !m.text().empty() ? "" : "assistant", "calls " + c.function.name + ' ' + c.function.arguments,
                 false);
        }
    }

    std::shared_ptr<parley::chat_model> model_;
    std::vector<parley::message> shown_;
    std::map<std::string, std::string> called_;  // tool call id -> function name
};

void print_itinerary(const itinerary& it) {
    const flight& f = it.flight;
    std::cout << "\nitinerary (a C++ struct, read from the model's call of the function 'itinerary'):\n"
              << "  traveller  " << it.traveller << '\n'
              << "  flight     " << f.number << ", " << f.from << " " << f.departs << " -> " << f.to << " " << f.arrives
              << ", " << f.date << ", " << f.price_eur << " EUR\n"
              << "  weather    " << it.weather.value_or("(not known)") << '\n';
}

// ---- The conversation.

asio::awaitable<int> converse(const parley::bot& bot, parley::chat_model& model) {
    const std::string traveller = "Ada";
    std::vector<parley::message> history;

    std::cout << "== bot.run(\"front_desk\")\n";
    const turn first{traveller, "Hi, I'm Ada. I'd like to fly from Oslo to Lisbon on 14 March. Is it warm there?"};
    history = co_await bot.run("front_desk", first, std::move(history));

    std::cout << "\n== bot.run(\"reply\")\n";
    const turn second{traveller, "NW 101, please."};
    history = co_await bot.run("reply", second, std::move(history));

    // The whole conversation is the prompt; the model is made to call a function whose
    // parameters are the itinerary's JSON schema, and its arguments are read into the struct
    // (with the problems sent back and the question asked again while they do not fit).
    std::cout << "\n== extract<itinerary>\n";
    auto question = history;
    question.push_back(parley::make_message(parley::role::user, "Write down the itinerary we agreed on."));
    parley::extract_options<itinerary> opt;
    opt.params = bot.options().defaults;
    auto plan = co_await parley::extract<itinerary>(model, question, opt);
    if (!plan) {
        std::cout << "no itinerary: " << plan.error().what() << '\n';
        co_return 1;
    }
    print_itinerary(*plan);
    co_return 0;
}

std::string environment(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

int main(int argc, char** argv) try {
    const std::filesystem::path dir = argc > 1 ? argv[1] : PARLEY_ASSISTANT_DIR;

    // The model: a real OpenAI-compatible server when the environment names one, else the fake
    // server, on its own thread, answering from the script.
    parley::client_config config = parley::config_from_environment(parley::api::openai);
    std::unique_ptr<parley::testing::fake_server> offline;
    std::string model_name = environment("OPENAI_MODEL");
    if (model_name.empty()) model_name = "gpt-4o-mini";
    if (config.base_url.empty() && config.api_key.empty()) {
        parley::testing::fake_server_options o;
        o.script = parley::testing::fake_script_from_file(dir / "fake-server-script.json");
        offline = std::make_unique<parley::testing::fake_server>(std::move(o));
        config.base_url = offline->url("/v1");
        std::cout << "offline: parley's fake model server on 127.0.0.1 answers from fake-server-script.json\n"
                     "(set OPENAI_BASE_URL and/or OPENAI_API_KEY to talk to a real model)\n\n";
    } else {
        std::cout << "using the model " << model_name << " at "
                  << (config.base_url.empty() ? std::string(parley::openai_base_url) : config.base_url)
                  << " (from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL)\n\n";
    }

    asio::io_context io;
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), std::move(config));
    auto model = std::make_shared<transcript>(std::make_shared<parley::client_model>(client));

    // The bot: the template set, the model, the request parameters of every request (the YAML
    // file could set them too, with a default-request message), and the C++ functions.
    parley::yaml_options yaml;
    yaml.external_functions = {"get_weather", "search_flights", "botSwitchTemplate"};
    parley::bot_options options;
    options.defaults.model = model_name;
    options.defaults.temperature = 0;
    parley::bot bot(parley::load_template_set_file(dir / "travel.yaml", yaml), model, options);
    bot.add_function("get_weather", "The current weather in a city", get_weather);
    bot.add_function("search_flights", "Direct flights between two cities on a day", search_flights);
    bot.check();  // every function the templates name exists

    int status = 1;
    asio::co_spawn(io, converse(bot, *model), [&](std::exception_ptr e, int s) {
        if (e) std::rethrow_exception(e);  // a failed call (call_exception), a template error...
        status = s;
    });
    io.run();
    return status;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
}
