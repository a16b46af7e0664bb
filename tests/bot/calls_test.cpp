// Tests of parley/bot/calls.hpp: generate, extract<T> (tool call, strict json_schema, JSON in
// text), its retries with the problems sent back (tool messages answering the call's id, user
// messages in the text modes), the validator, streamed partial values and classify, against the
// in-process scripted and echo models, checking the requests they received.
#include <parley/bot/calls.hpp>
#include <parley/tokens/tokenizer.hpp>
#include <parley/chat/command_prompt.hpp>
#include <parley/schema/rasa_commands.hpp>
#include <parley/schema/annotations.hpp>

#include "../harness/partial_cases.hpp"
#include "../harness/schema_check.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include "run_sync.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;

namespace kitchen {

struct food {
    std::string name;
    int calories = 0;
    std::vector<std::string> ingredients;
};
BOOST_DESCRIBE_STRUCT(food, (), (name, calories, ingredients))
PARLEY_ANNOTATE(food, "A food and what it is made of", (calories, "Kilocalories per serving"))

struct Add {
    std::string product;
    std::optional<int> quantity;
};
BOOST_DESCRIBE_STRUCT(Add, (), (product, quantity))
struct Remove {
    std::string product;
};
BOOST_DESCRIBE_STRUCT(Remove, (), (product))

}  // namespace kitchen

namespace {

using kitchen::food;
using parley::message;
using parley::role;

using bot_tests::run_sync;

parley::chat_reply call_reply(std::string id, std::string name, std::string arguments) {
    return parley::tool_call_reply({parley::tool_call{std::move(id), {std::move(name), std::move(arguments)}}});
}

struct scripted {
    std::shared_ptr<parley::scripted_model> script = std::make_shared<parley::scripted_model>();
    std::shared_ptr<parley::in_process_model> model = std::make_shared<parley::in_process_model>(script);
};

const boost::json::value data = boost::json::parse(R"({"dish": "apple pie"})");
constexpr std::string_view prompt = "Describe {{ dish }} as food.";

const char* const good_pie = R"({"name": "apple pie", "calories": 300, "ingredients": ["apples", "flour"]})";

}  // namespace

TEST_CASE("extract: a forced tool call, a wrong reply corrected on the retry") {
    scripted s;
    const std::string wrong = R"({"name": "apple pie", "calories": "many"})";
    s.script->push(call_reply("call_1", "food", wrong));
    s.script->push(call_reply("call_2", "food", good_pie));
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data));
    REQUIRE(r.has_value());
    CHECK(r->name == "apple pie");
    CHECK(r->calories == 300);
    CHECK(r->ingredients == std::vector<std::string>{"apples", "flour"});

    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    // the first request: the rendered prompt, the function forced, its definition from the schema layer
    const auto& first = requests[0];
    REQUIRE(first.messages.size() == 1);
    CHECK(first.messages[0] == parley::make_message(role::user, "Describe apple pie as food."));
    CHECK(first.params.functions == std::vector<std::string>{"food"});
    CHECK(first.params.call_function == std::optional<std::string>("food"));
    CHECK(!first.params.response_format);
    REQUIRE(first.functions.size() == 1);
    CHECK(first.functions[0].name == "food");
    CHECK(first.functions[0].description == "A food and what it is made of");
    CHECK(first.functions[0].parameters == parley::function_signature<food>("food").at("parameters").as_object());
    // the re-ask: the same function still forced, the call answered under its id with the problems
    const auto& second = requests[1];
    CHECK(second.params == first.params);
    REQUIRE(second.messages.size() == 3);
    CHECK(second.messages[0] == first.messages[0]);
    CHECK(second.messages[1].role == role::assistant);
    REQUIRE(second.messages[1].tool_calls.size() == 1);
    CHECK(second.messages[1].tool_calls[0].id == "call_1");
    CHECK(second.messages[1].tool_calls[0].function.arguments == wrong);
    CHECK(second.messages[2].role == role::tool);
    CHECK(second.messages[2].tool_call_id == std::optional<std::string>("call_1"));
    const std::string problems = parley::from_text<food>(wrong).error_text();
    // the text docs/bot.md shows
    CHECK(problems == "/calories: expected an integer from -2147483648 to 2147483647, found \"many\"\n"
                      "/ingredients: expected an array, found nothing (required member missing)");
    CHECK(second.messages[2].text() == "Error: the arguments of food do not fit its parameters:\n" + problems +
                                           "\nCall food again with arguments that fit its parameters.");
}

TEST_CASE("extract: the schema sent accepts the corrected arguments and rejects the wrong ones (Python jsonschema)") {
    scripted s;
    s.script->push(call_reply("call_1", "food", good_pie));
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data));
    REQUIRE(r.has_value());
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    REQUIRE(requests[0].functions.size() == 1);
    schema_check::check_case c{"food parameters", boost::json::value(requests[0].functions[0].parameters),
                               {boost::json::parse(good_pie), boost::json::parse(R"({"name": "apple pie", "calories": "many"})")}};
    auto results = schema_check::run({c});
    REQUIRE(results.size() == 1);
    CHECK_MESSAGE(!results[0].schema_error, results[0].schema_error.value_or(""));
    REQUIRE(results[0].valid.size() == 2);
    CHECK_MESSAGE(results[0].valid[0], results[0].errors[0]);
    CHECK(!results[0].valid[1]);
}

TEST_CASE("extract: three wrong replies give an error listing all three attempts") {
    scripted s;
    const std::vector<std::string> replies = {"not json at all", R"({"name": 7, "calories": 1, "ingredients": []})",
                                              R"({"name": "pie", "ingredients": []})"};
    for (std::size_t i = 0; i < replies.size(); ++i)
        s.script->push(call_reply("call_" + std::to_string(i + 1), "food", replies[i]));
    s.script->push(call_reply("call_4", "food", good_pie));  // never asked for: max_retries is 2
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data));
    REQUIRE(r.has_error());
    CHECK(s.script->requests().size() == 3);
    CHECK(s.script->remaining() == 1);
    const parley::extraction_failure& f = r.error();
    CHECK(f.code == make_error_code(parley::errc::conversion));
    CHECK(!f.call);
    REQUIRE(f.attempts.size() == 3);
    std::string expected_what = "no reply fitted in 3 attempts";
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(f.attempts[i].reply == replies[i]);
        CHECK(f.attempts[i].problems == parley::detail::bot_engine::bad_arguments_text(
                                            "food", parley::from_text<food>(replies[i]).error_text()));
        expected_what += "\nattempt " + std::to_string(i + 1) + ": " + f.attempts[i].problems;
    }
    CHECK(f.attempts[0].problems.find("expected a JSON value, found no JSON in the text") != std::string::npos);
    CHECK(f.attempts[1].problems.find("/name: expected a string, found 7") != std::string::npos);
    CHECK(f.attempts[2].problems.find("/calories") != std::string::npos);
    CHECK(f.what() == expected_what);
    // each re-ask answers the newest call under its id
    const auto requests = s.script->requests();
    CHECK(requests[2].messages.size() == 5);
    CHECK(requests[2].messages[4].tool_call_id == std::optional<std::string>("call_2"));
    CHECK(requests[2].messages[4].text() == f.attempts[1].problems);
    // value() throws the failure
    try {
        (void)r.value();
        FAIL("value() did not throw");
    } catch (const parley::extraction_exception& e) {
        CHECK(e.code() == make_error_code(parley::errc::conversion));
        CHECK(e.detail().attempts == f.attempts);
        CHECK(std::string(e.what()) == expected_what);
    }
}

TEST_CASE("extract: max_retries bounds the requests") {
    scripted s;
    s.script->push(call_reply("call_1", "food", "{}"));
    s.script->push(call_reply("call_2", "food", good_pie));
    parley::extract_options<food> opt;
    opt.max_retries = 0;
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
    REQUIRE(r.has_error());
    CHECK(r.error().attempts.size() == 1);
    CHECK(s.script->requests().size() == 1);
}

TEST_CASE("extract: a validator's rejection is sent back and the next reply is taken") {
    scripted s;
    const std::string negative = R"({"name": "ice", "calories": -5, "ingredients": ["water"]})";
    s.script->push(call_reply("call_1", "food", negative));
    s.script->push(call_reply("call_2", "food", R"({"name": "ice", "calories": 0, "ingredients": ["water"]})"));
    parley::extract_options<food> opt;
    int checked = 0;
    opt.validate = [&](const food& f) -> std::optional<std::string> {
        ++checked;
        if (f.calories < 0) return "/calories: expected a number of at least 0, found " + std::to_string(f.calories);
        return std::nullopt;
    };
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
    REQUIRE(r.has_value());
    CHECK(r->calories == 0);
    CHECK(checked == 2);
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    REQUIRE(requests[1].messages.size() == 3);
    CHECK(requests[1].messages[2].tool_call_id == std::optional<std::string>("call_1"));
    CHECK(requests[1].messages[2].text() ==
          "Error: the arguments of food were rejected:\n/calories: expected a number of at least 0, found -5\n"
          "Call food again with arguments that fit.");
}

TEST_CASE("extract: a reply without the call, or calling another function, is re-asked") {
    scripted s;
    s.script->push_text("I think it is a pie.");
    s.script->push(call_reply("call_2", "recipe", "{}"));
    s.script->push(call_reply("call_3", "food", good_pie));
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data));
    REQUIRE(r.has_value());
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 3);
    // no call to answer: the problems come as a user message
    REQUIRE(requests[1].messages.size() == 3);
    CHECK(requests[1].messages[2] ==
          parley::make_message(role::user, "expected a call of food, found the text \"I think it is a pie.\""));
    REQUIRE(requests[2].messages.size() == 5);
    CHECK(requests[2].messages[4].tool_call_id == std::optional<std::string>("call_2"));
    CHECK(requests[2].messages[4].text() == "expected a call of food, found a call of \"recipe\"");
}

TEST_CASE("extract: strict response_format json_schema, the re-ask a user message") {
    scripted s;
    s.script->push_text(R"({"name": "apple pie", "calories": 300})");
    s.script->push_text(good_pie);
    parley::extract_options<food> opt;
    opt.mode = parley::extract_mode::json_schema;
    opt.params.model = "gpt-4o-mini";
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
    REQUIRE(r.has_value());
    CHECK(r->ingredients.size() == 2);
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].params.model == std::optional<std::string>("gpt-4o-mini"));
    CHECK(!requests[0].params.functions);
    CHECK(!requests[0].params.call_function);
    CHECK(requests[0].functions.empty());
    REQUIRE(requests[0].params.response_format);
    const boost::json::object expected_format{
        {"type", "json_schema"},
        {"json_schema", {{"name", "food"}, {"strict", true}, {"schema", parley::strict_json_schema<food>()}}}};
    CHECK(*requests[0].params.response_format == expected_format);
    REQUIRE(requests[1].messages.size() == 3);
    CHECK(requests[1].messages[1] == parley::make_message(role::assistant, R"({"name": "apple pie", "calories": 300})"));
    const std::string problems = parley::from_text<food>(R"({"name": "apple pie", "calories": 300})").error_text();
    CHECK(problems.find("/ingredients") != std::string::npos);
    CHECK(requests[1].messages[2] ==
          parley::make_message(role::user, "Your reply does not fit the requested JSON:\n" + problems +
                                               "\nReply again with JSON that fits."));
}

TEST_CASE("extract: JSON in text, the schema in the prompt, JSON found in prose") {
    scripted s;
    s.script->push_text("Sure! Here it is:\n```json\n{\"name\": \"apple pie\", \"calories\": 300, \"ingredients\": "
                        "[\"apples\"]}\n```\nEnjoy your meal.");
    parley::extract_options<food> opt;
    opt.mode = parley::extract_mode::json_text;
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
    REQUIRE(r.has_value());
    CHECK(r->name == "apple pie");
    CHECK(r->ingredients == std::vector<std::string>{"apples"});
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].functions.empty());
    CHECK(!requests[0].params.response_format);
    REQUIRE(requests[0].messages.size() == 2);
    CHECK(requests[0].messages[1] ==
          parley::make_message(role::user, "Reply with one JSON value that follows this JSON Schema, in a ```json code block:\n" +
                                               boost::json::serialize(parley::json_schema<food>())));
}

TEST_CASE("extract: JSON in text, prose without JSON is re-asked") {
    scripted s;
    s.script->push_text("An apple pie is a pie with apples.");
    s.script->push_text(std::string("Here: ") + good_pie);
    parley::extract_options<food> opt;
    opt.mode = parley::extract_mode::json_text;
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
    REQUIRE(r.has_value());
    CHECK(r->calories == 300);
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    REQUIRE(requests[1].messages.size() == 4);
    CHECK(requests[1].messages[3].role == role::user);
    CHECK(requests[1].messages[3].text().find("expected") != std::string::npos);
    CHECK(requests[1].messages[3].text().rfind("Your reply does not fit the requested JSON:\n", 0) == 0);
}

TEST_CASE("extract: streaming gives growing partial values") {
    for (auto mode : {parley::extract_mode::tool_call, parley::extract_mode::json_schema, parley::extract_mode::json_text}) {
        CAPTURE(static_cast<int>(mode));
        scripted s;
        s.model->set_piece_size(5);
        if (mode == parley::extract_mode::tool_call) s.script->push(call_reply("call_1", "food", good_pie));
        else if (mode == parley::extract_mode::json_schema) s.script->push_text(good_pie);
        else s.script->push_text(std::string("Here you are: ") + good_pie + " That is all.");
        parley::extract_options<food> opt;
        opt.mode = mode;
        std::vector<food> partials;
        opt.on_partial = [&](const parley::partial<food>& p) { partials.push_back(p.value()); };
        auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
        REQUIRE(r.has_value());
        REQUIRE(partials.size() >= 4);
        // each partial value grows out of the one before: its name starts with the previous name
        for (std::size_t i = 1; i < partials.size(); ++i) {
            CHECK(partials[i].name.rfind(partials[i - 1].name, 0) == 0);
            CHECK(partials[i].ingredients.size() >= partials[i - 1].ingredients.size());
        }
        CHECK(partials.front().name.size() < std::string("apple pie").size());
        CHECK(partials.back().name == "apple pie");
        CHECK(partials.back().calories == 300);
        CHECK(partials.back().ingredients == r->ingredients);
        // some value was seen with a cut name, and one with the name whole but not yet the calories
        bool cut_name = false, name_only = false;
        for (const food& f : partials) {
            if (!f.name.empty() && f.name != "apple pie") cut_name = true;
            if (f.name == "apple pie" && f.calories == 0) name_only = true;
        }
        CHECK(cut_name);
        CHECK(name_only);
    }
}

namespace calls_partial {

// The value and the states of a partial value, as one JSON value, for comparisons.
template <class T>
boost::json::value shown(const parley::partial<T>& p) {
    return boost::json::object{{"value", parley::to_json(p.value())}, {"states", partial_cases::states_json(p)}};
}

// extract<T> in `mode`, the reply streamed in pieces of every size from 1 byte to the whole:
// on_partial gets the reference's value at each cut where what has arrived changed, and only
// then; the states never go back; the last value is the result, whole.
template <class T>
void check_every_cut(parley::extract_mode mode) {
    const auto& table = partial_cases::reference<PARLEY_PARTIAL_CASE_TYPES>();
    const auto docs = partial_cases::cases_of<T>::documents();
    const std::string before = "Here you are:\n```json\n";
    for (std::size_t d = 0; d < docs.size(); ++d) {
        const std::string name = partial_cases::case_name<T>(d);
        CAPTURE(name);
        auto found = table.find(name);
        REQUIRE(found != table.end());
        const auto& expected = found->second;
        const std::string& doc = docs[d];
        REQUIRE(expected.size() == doc.size() + 1);
        const bool in_text = mode == parley::extract_mode::json_text;
        const bool tool = mode == parley::extract_mode::tool_call;
        const std::string stream = in_text ? before + doc + "\n```\nThat is all." : doc;
        const std::size_t offset = in_text ? before.size() : 0;
        const parley::chat_reply reply =
            tool ? call_reply("call_1", std::string(parley::function_name<T>), doc) : parley::text_reply(stream);
        const bool fits = parley::from_text<T>(doc).has_value();
        std::size_t runs = 0;
        for (std::size_t piece = 1; piece <= stream.size(); ++piece) {
            CAPTURE(piece);
            // where the in-process model cuts the stream (never inside a UTF-8 character)
            std::vector<std::size_t> cuts;
            std::size_t at = 0;
            for (const parley::stream_event& e : parley::events_of(reply, piece))
                if (!e.text.empty() && e.type == (tool ? parley::stream_event::kind::tool_call : parley::stream_event::kind::text))
                    cuts.push_back(at += e.text.size());
            REQUIRE(!cuts.empty());
            REQUIRE(cuts.back() == stream.size());
            std::vector<boost::json::value> want;
            for (std::size_t cut : cuts) {
                const std::size_t json = cut <= offset ? 0 : std::min(cut - offset, doc.size());
                if (expected[json].what != partial_cases::expected::kind::value) continue;
                boost::json::value v = boost::json::object{{"value", expected[json].value}, {"states", expected[json].states}};
                if (want.empty() || want.back() != v) want.push_back(std::move(v));
            }
            scripted s;
            s.model->set_piece_size(piece);
            s.script->push(reply);
            parley::extract_options<T> opt;
            opt.mode = mode;
            opt.max_retries = 0;
            std::vector<parley::partial<T>> got;
            std::vector<unsigned> attempts;
            opt.on_partial = [&](const parley::partial<T>& p, unsigned attempt) {
                got.push_back(p);
                attempts.push_back(attempt);
            };
            auto r = run_sync(parley::extract<T>(*s.model, "Give me one.", boost::json::value(), opt));
            // a document that lacks a required member does not fit: its partial values come all the same
            REQUIRE_MESSAGE(r.has_value() == fits, (r ? std::string() : r.error().what()));
            REQUIRE(got.size() == want.size());
            for (std::size_t k = 0; k < got.size(); ++k) {
                CAPTURE(k);
                CHECK(shown(got[k]) == want[k]);
                CHECK(attempts[k] == 0);
                if (k == 0) continue;
                std::string why;
                CHECK_MESSAGE(partial_cases::follows(got[k - 1], got[k], why), why);
                CHECK(shown(got[k - 1]) != shown(got[k]));
            }
            CHECK(got.back().complete());
            if (r) CHECK(parley::to_json(got.back().value()) == parley::to_json(*r));
            ++runs;
        }
        CHECK(runs == stream.size());
    }
}

template <class T>
void check_every_cut_all_modes() {
    check_every_cut<T>(parley::extract_mode::tool_call);
    check_every_cut<T>(parley::extract_mode::json_text);
    if constexpr (parley::detail::strict_expressible_v<T>) check_every_cut<T>(parley::extract_mode::json_schema);
}

}  // namespace calls_partial

TEST_CASE("extract: partial values of a stream cut at every byte, against the Python reference") {
    calls_partial::check_every_cut_all_modes<partial_cases::ticket>();
    calls_partial::check_every_cut_all_modes<partial_cases::recipe>();
    calls_partial::check_every_cut_all_modes<partial_cases::text_sample>();
    calls_partial::check_every_cut_all_modes<partial_cases::measurements>();
    calls_partial::check_every_cut_all_modes<partial_cases::switches>();
    calls_partial::check_every_cut_all_modes<partial_cases::settings>();
}

namespace calls_partial {

// The ticket of docs/bot.md's streaming example.
struct docs_ticket {
    std::string title;
    partial_cases::ticket_kind kind = partial_cases::ticket_kind::other;
    int ref = 0;
};
BOOST_DESCRIBE_STRUCT(docs_ticket, (), (title, kind, ref))

}  // namespace calls_partial

TEST_CASE("extract: the streamed ticket of docs/bot.md") {
    using calls_partial::docs_ticket;
    scripted s;
    s.model->set_piece_size(10);
    s.script->push(call_reply("call_1", "ticket", R"({"title": "Crash on save", "kind": "bug", "ref": 4711})"));
    parley::extract_options<docs_ticket> opt;
    opt.name = "ticket";
    std::vector<std::string> rows;
    opt.on_partial = [&](const parley::partial<docs_ticket>& p) {
        rows.push_back(boost::json::serialize(parley::to_json(p.value())) + " " +
                       std::string(parley::to_string(p.state(&docs_ticket::title))) + ", " +
                       std::string(parley::to_string(p.state(&docs_ticket::kind))) + ", " +
                       std::string(parley::to_string(p.state(&docs_ticket::ref))));
    };
    auto r = run_sync(parley::extract<docs_ticket>(*s.model, "File this.", boost::json::value(), opt));
    REQUIRE(r.has_value());
    const std::vector<std::string> want = {
        R"({"title":"","kind":"other","ref":0} missing, missing, missing)",
        R"({"title":"Crash on ","kind":"other","ref":0} arriving, missing, missing)",
        R"({"title":"Crash on save","kind":"other","ref":0} complete, missing, missing)",
        R"({"title":"Crash on save","kind":"bug","ref":0} complete, complete, missing)",
        R"({"title":"Crash on save","kind":"bug","ref":4} complete, complete, arriving)",
        R"({"title":"Crash on save","kind":"bug","ref":4711} complete, complete, complete)",
    };
    CHECK(rows == want);
}

TEST_CASE("extract: partial values say what has arrived, and start again with a re-ask") {
    using partial_cases::ticket;
    using parley::arrival;
    // The first reply has no title and a ref that is no number; the second one fits.
    const std::string wrong = R"({"kind": "bug", "ref": "x"})";
    const std::string right = R"({"title": "Crash", "kind": "bug", "ref": 12, "labels": [], "urgent": false})";
    for (std::size_t piece : {std::size_t{1}, std::size_t{5}, std::size_t{16}}) {
        CAPTURE(piece);
        scripted s;
        s.model->set_piece_size(piece);
        s.script->push(call_reply("call_1", "ticket", wrong));
        s.script->push(call_reply("call_2", "ticket", right));
        parley::extract_options<ticket> opt;
        std::vector<std::pair<unsigned, parley::partial<ticket>>> got;
        opt.on_partial = [&](const parley::partial<ticket>& p, unsigned attempt) { got.emplace_back(attempt, p); };
        auto r = run_sync(parley::extract<ticket>(*s.model, "A ticket, please.", boost::json::value(), opt));
        REQUIRE(r.has_value());
        CHECK(r->ref == 12);
        REQUIRE(!got.empty());
        CHECK(got.front().first == 0);
        CHECK(got.back().first == 1);
        // within each reply the states go forward; the second reply starts again
        std::size_t second = 0;
        for (std::size_t k = 1; k < got.size(); ++k) {
            CHECK(got[k].first >= got[k - 1].first);
            if (got[k].first != got[k - 1].first) {
                second = k;
                CHECK(!got[k].second.has(&ticket::kind));
                CHECK(!got[k].second.complete());
                continue;
            }
            std::string why;
            CHECK_MESSAGE(partial_cases::follows(got[k - 1].second, got[k].second, why), why);
        }
        REQUIRE(second > 0);
        // the first reply: kind arrived, ref never read as a number (those prefixes give nothing)
        const parley::partial<ticket>& first_last = got[second - 1].second;
        CHECK(first_last.complete(&ticket::kind));
        CHECK(first_last.value().kind == partial_cases::ticket_kind::bug);
        CHECK(!first_last.has(&ticket::ref));
        CHECK(first_last.value().ref == 0);
        CHECK(!first_last.has(&ticket::title));
        // the value a reply had before ref arrived: kind whole, the rest missing with defaults
        bool seen = false;
        for (const auto& [attempt, p] : got) {
            if (attempt != 1 || !p.complete(&ticket::title) || p.has(&ticket::kind)) continue;
            seen = true;
            CHECK(p.value().kind == partial_cases::ticket_kind::other);  // its default
            CHECK(p.state(&ticket::kind) == arrival::missing);
        }
        CHECK(seen == (piece < 16));  // pieces of 16 bytes bring the title's end and the kind together
        CHECK(got.back().second.complete());
        CHECK(parley::to_json(got.back().second.value()) == parley::to_json(*r));
    }
}

TEST_CASE("extract: on_partial takes a handler of the partial value alone, and arguments that are empty") {
    // a handler of the value alone
    scripted s;
    s.model->set_piece_size(4);
    s.script->push(call_reply("call_1", "food", good_pie));
    parley::extract_options<food> opt;
    std::vector<std::string> names;
    opt.on_partial = [&](const parley::partial<food>& p) { names.push_back(p.value().name); };
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
    REQUIRE(r.has_value());
    REQUIRE(!names.empty());
    CHECK(names.back() == "apple pie");
    // an empty std::function is no handler: the call is not streamed
    opt.on_partial = std::function<void(const parley::partial<food>&)>();
    CHECK(!opt.on_partial);
    // a call with no arguments is read as {}: the whole value is delivered, complete
    scripted e;
    e.script->push(call_reply("call_1", "person", "  "));
    parley::extract_options<partial_cases::person> popt;
    std::vector<parley::partial<partial_cases::person>> got;
    popt.on_partial = [&](const parley::partial<partial_cases::person>& p) { got.push_back(p); };
    popt.max_retries = 0;
    auto pr = run_sync(parley::extract<partial_cases::person>(*e.model, "Who?", boost::json::value(), popt));
    CHECK(!pr.has_value());  // name is required
    REQUIRE(got.size() == 1);
    CHECK(got[0].complete());
    CHECK(!got[0].has(&partial_cases::person::name));
}

TEST_CASE("extract: a failed call is the error at once, without retries") {
    scripted s;
    parley::call_error e;
    e.code = make_error_code(parley::errc::http_status);
    e.status = 429;
    e.message = "slow down";
    s.script->push(e);
    s.script->push(call_reply("call_1", "food", good_pie));
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data));
    REQUIRE(r.has_error());
    CHECK(r.error().code == make_error_code(parley::errc::http_status));
    REQUIRE(r.error().call);
    CHECK(r.error().call->status == 429);
    CHECK(r.error().attempts.empty());
    CHECK(s.script->requests().size() == 1);
}

TEST_CASE("extract: a conversation template as the prompt, its parameters applied") {
    scripted s;
    s.script->push(call_reply("call_1", "food", good_pie));
    parley::request_params defaults;
    defaults.model = "small-model";
    defaults.temperature = 0.5;
    message dr;
    dr.role = role::default_request;
    dr.params = defaults;
    const parley::conversation_template t(
        "food", {dr, parley::make_message(role::system, "You know food."), parley::make_message(role::user, "Tell me about {{ dish }}.")});
    auto r = run_sync(parley::extract<food>(*s.model, t, data));
    REQUIRE(r.has_value());
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].params.model == std::optional<std::string>("small-model"));
    CHECK(requests[0].params.temperature == std::optional<double>(0.5));
    CHECK(requests[0].params.call_function == std::optional<std::string>("food"));
    REQUIRE(requests[0].messages.size() == 2);
    CHECK(requests[0].messages[1] == parley::make_message(role::user, "Tell me about apple pie."));
}

TEST_CASE("classify: a forced call with an enum of the choices; a wrong choice is re-asked") {
    scripted s;
    s.script->push(call_reply("call_1", "classify", R"({"choice": "angry"})"));
    s.script->push(call_reply("call_2", "classify", R"({"choice": "negative"})"));
    const std::vector<std::string> choices = {"positive", "negative", "neutral"};
    auto r = run_sync(parley::classify(*s.model, "The soup was cold.", choices));
    REQUIRE(r.has_value());
    CHECK(*r == "negative");
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].params.call_function == std::optional<std::string>("classify"));
    REQUIRE(requests[0].functions.size() == 1);
    CHECK(requests[0].functions[0].parameters ==
          boost::json::parse(R"({"type": "object", "properties": {"choice": {"type": "string",
              "enum": ["positive", "negative", "neutral"]}}, "required": ["choice"], "additionalProperties": false})"));
    REQUIRE(requests[0].messages.size() == 1);
    CHECK(requests[0].messages[0].text() ==
          "Classify the text below. Answer with one of the choices.\n\nChoices:\n- positive\n- negative\n- neutral\n\n"
          "Text:\nThe soup was cold.");
    REQUIRE(requests[1].messages.size() == 3);
    CHECK(requests[1].messages[2].tool_call_id == std::optional<std::string>("call_1"));
    CHECK(requests[1].messages[2].text() ==
          "Error: the arguments of classify do not fit its parameters:\n/choice: expected one of positive, negative, "
          "neutral, found \"angry\"\nCall classify again with arguments that fit its parameters.");
}

TEST_CASE("classify: awaited with a brace list of choices and the default options") {
    // Two g++ 12 bugs in an expression that awaits: it cannot compile a std::initializer_list
    // there ("array used as initializer"; parley::string_list takes the strings of the brace list
    // as constructor arguments), and it destroys twice an argument initialised as an aggregate
    // (a default `classify_options opt = {}` freed its `instructions` twice; the default is
    // `classify_options()`).
    scripted s;
    s.script->push(call_reply("call_1", "classify", R"({"choice": "negative"})"));
    auto r = run_sync([](parley::chat_model& model) -> boost::asio::awaitable<parley::extract_result<std::string>> {
        co_return co_await parley::classify(model, "The soup was cold.", {"positive", "negative", "neutral"});
    }(*s.model));
    REQUIRE(r.has_value());
    CHECK(*r == "negative");
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    REQUIRE(requests[0].functions.size() == 1);
    CHECK(requests[0].functions[0].parameters.at("properties").at("choice").at("enum") ==
          boost::json::array{"positive", "negative", "neutral"});
}

TEST_CASE("classify: logit_bias on the numbers' tokens and max_tokens 1") {
    scripted s;
    s.script->push_text("2");
    parley::classify_options opt;
    opt.mode = parley::classify_mode::logit_bias;
    opt.label_token_ids = {"16", "17", "18"};
    const std::vector<std::string> choices = {"positive", "negative", "neutral"};
    auto r = run_sync(parley::classify(*s.model, "The soup was cold.", choices, opt));
    REQUIRE(r.has_value());
    CHECK(*r == "negative");
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].params.max_tokens == std::optional<std::int64_t>(1));
    using bias = std::vector<std::pair<std::string, std::int64_t>>;
    CHECK(requests[0].params.logit_bias == std::optional<bias>(bias{{"16", 100}, {"17", 100}, {"18", 100}}));
    CHECK(!requests[0].params.functions);
    CHECK(requests[0].functions.empty());
    CHECK(requests[0].messages[0].text().find("\n1. positive\n2. negative\n3. neutral\n") != std::string::npos);

    opt.label_token_ids.pop_back();
    CHECK_THROWS_AS(run_sync(parley::classify(*s.model, "x", choices, opt)), parley::error);
}

namespace {

/// A tokenizer of every byte and the words given, as an o200k_base rank file.
parley::tokens::tokenizer words_tokenizer(const std::vector<std::string>& words) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    auto b64 = [](const std::string& s) {
        std::string out;
        std::size_t i = 0;
        for (; i + 2 < s.size(); i += 3) {
            const unsigned v = (unsigned char)s[i] << 16 | (unsigned char)s[i + 1] << 8 | (unsigned char)s[i + 2];
            out += {a[v >> 18], a[(v >> 12) & 63], a[(v >> 6) & 63], a[v & 63]};
        }
        if (s.size() - i == 1) out += {a[(unsigned char)s[i] >> 2], a[((unsigned char)s[i] & 3) << 4], '=', '='};
        if (s.size() - i == 2) {
            const unsigned v = (unsigned char)s[i] << 8 | (unsigned char)s[i + 1];
            out += {a[v >> 10], a[(v >> 4) & 63], a[(v << 2) & 63], '='};
        }
        return out;
    };
    std::string file;
    int rank = 0;
    for (int b = 0; b < 256; ++b) file += b64(std::string(1, char(b))) + " " + std::to_string(rank++) + "\n";
    for (const auto& w : words) file += b64(w) + " " + std::to_string(rank++) + "\n";
    return parley::tokens::tokenizer::from_tiktoken(file, parley::tokens::tiktoken_encoding::o200k_base);
}

}  // namespace

TEST_CASE("classify: logit_bias with a tokenizer biases the choices' own tokens, and refuses choices of several tokens") {
    scripted s;
    s.script->push_text("negative");
    parley::classify_options opt;
    opt.mode = parley::classify_mode::logit_bias;
    opt.tokenizer = words_tokenizer({"positive", "negative", "neutral"});
    auto r = run_sync(parley::classify(*s.model, "The soup was cold.", {"positive", "negative", "neutral"}, opt));
    REQUIRE(r.has_value());
    CHECK(*r == "negative");
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].params.max_tokens == std::optional<std::int64_t>(1));
    using bias = std::vector<std::pair<std::string, std::int64_t>>;
    CHECK(requests[0].params.logit_bias == std::optional<bias>(bias{{"256", 100}, {"257", 100}, {"258", 100}}));
    CHECK(requests[0].messages[0].text().find("\n- positive\n- negative\n- neutral\n\nAnswer with the choice only.") != std::string::npos);
    try {
        (void)run_sync(parley::classify(*s.model, "x", {"positive", "very positive", "meh"}, opt));
        FAIL("no error");
    } catch (const parley::error& e) {
        CHECK(std::string(e.what()) == "classify_mode::logit_bias biases one token per choice, and these choices are not one token in "
                                       "o200k_base: \"very positive\" (13 tokens), \"meh\" (3 tokens)");
    }
}

TEST_CASE("classify: an answer that names no choice, every time, is an error") {
    scripted s;
    for (int i = 0; i < 3; ++i) s.script->push_text("7");
    parley::classify_options opt;
    opt.mode = parley::classify_mode::logit_bias;
    opt.label_token_ids = {"16", "17"};
    auto r = run_sync(parley::classify(*s.model, "x", {"yes", "no"}, opt));
    REQUIRE(r.has_error());
    REQUIRE(r.error().attempts.size() == 3);
    CHECK(r.error().attempts[2].problems == "expected one of yes, no, found \"7\"");
}

TEST_CASE("generate: a prompt rendered with the data; the reply's text; streamed") {
    auto echo = std::make_shared<parley::echo_model>();
    parley::in_process_model model(echo);
    model.set_piece_size(3);
    auto r = run_sync(parley::generate(model, "Say hello to {{ name }}!", boost::json::parse(R"({"name": "Ada"})")));
    REQUIRE(r.has_value());
    CHECK(*r == "Say hello to Ada!");

    std::string streamed;
    int pieces = 0;
    parley::generate_options opt;
    opt.params.model = "m";
    opt.on_text = [&](std::string_view t) {
        streamed += t;
        ++pieces;
    };
    auto s = run_sync(parley::generate(model, "Bye {{ name }}.", boost::json::parse(R"({"name": "Bob"})"), opt));
    REQUIRE(s.has_value());
    CHECK(*s == "Bye Bob.");
    CHECK(streamed == "Bye Bob.");
    CHECK(pieces == 3);
    const auto requests = echo->requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[1].params.model == std::optional<std::string>("m"));

    CHECK_THROWS_AS((void)parley::generate(model, "{{ name", boost::json::value()), parley::template_error);
}

TEST_CASE("generate: a failed call is the result's error") {
    scripted s;
    parley::call_error e;
    e.code = make_error_code(parley::errc::timeout);
    s.script->push(e);
    auto r = run_sync(parley::generate(*s.model, "hi", boost::json::value()));
    REQUIRE(r.has_error());
    CHECK(r.error().code == make_error_code(parley::errc::timeout));
}

TEST_CASE("extract: an action list read into commands; the calls that could not be read are re-asked") {
    using commands = std::vector<std::variant<kitchen::Add, kitchen::Remove>>;
    scripted s;
    const std::string first = "The customer wants tea.\n- Add(tea, lots)\n- Pay(card)";
    s.script->push_text(first);
    s.script->push_text("Add(tea, 2)\nRemove(muffin)");
    auto r = run_sync(parley::extract<commands>(*s.model, "Order: {{ dish }}", data));
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 2);
    REQUIRE(std::holds_alternative<kitchen::Add>((*r)[0]));
    CHECK(std::get<kitchen::Add>((*r)[0]).product == "tea");
    CHECK(std::get<kitchen::Add>((*r)[0]).quantity == std::optional<int>(2));
    REQUIRE(std::holds_alternative<kitchen::Remove>((*r)[1]));
    CHECK(std::get<kitchen::Remove>((*r)[1]).product == "muffin");
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].functions.empty());
    CHECK(!requests[0].params.response_format);
    REQUIRE(requests[0].messages.size() == 1);
    CHECK(requests[0].messages[0].text() == "Order: apple pie");
    REQUIRE(requests[1].messages.size() == 3);
    CHECK(requests[1].messages[1] == parley::make_message(role::assistant, first));
    const std::string problems = parley::parse_commands<kitchen::Add, kitchen::Remove>(first).error_text();
    CHECK(problems.find("line 2: Add(tea, lots)") != std::string::npos);
    CHECK(problems.find("line 3: Pay(card): unknown command \"Pay\"") != std::string::npos);
    CHECK(requests[1].messages[2] ==
          parley::make_message(role::user, "Your list of commands does not fit:\n" + problems +
                                               "\nReply again with the whole list of commands, one per line."));
}

TEST_CASE("extract: a validator rejects an action list") {
    using commands = std::vector<std::variant<kitchen::Add, kitchen::Remove>>;
    scripted s;
    s.script->push_text("Remove(tea)");
    s.script->push_text("Add(tea)");
    parley::extract_options<commands> opt;
    opt.max_retries = 1;
    opt.validate = [](const commands& c) -> std::optional<std::string> {
        if (c.empty() || !std::holds_alternative<kitchen::Add>(c.front())) return "start with Add";
        return std::nullopt;
    };
    auto r = run_sync(parley::extract<commands>(*s.model, "Order", data, opt));
    REQUIRE(r.has_value());
    CHECK(r->size() == 1);
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[1].messages[2].text() ==
          "Your list of commands does not fit:\nstart with Add\nReply again with the whole list of commands, one per line.");
}

TEST_CASE("extract: Rasa commands from parley's command-generator prompt") {
    scripted s;
    s.script->push_text("StartFlow(transfer_money)\nSetSlot(recipient, Freddy)");
    const boost::json::value context = boost::json::parse(R"({
        "available_flows": [{"name": "transfer_money", "description": "Send money to someone",
                             "slots": [{"name": "recipient", "description": "Who gets the money"}]}],
        "current_conversation": "USER: send 50 to Freddy",
        "user_message": "send 50 to Freddy"})");
    auto r = run_sync(parley::extract<std::vector<parley::rasa::command>>(*s.model, parley::command_generator_prompt, context));
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 2);
    REQUIRE(std::holds_alternative<parley::rasa::StartFlow>((*r)[0]));
    CHECK(std::get<parley::rasa::StartFlow>((*r)[0]).flow == "transfer_money");
    REQUIRE(std::holds_alternative<parley::rasa::SetSlot>((*r)[1]));
    CHECK(std::get<parley::rasa::SetSlot>((*r)[1]).value == "Freddy");
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    REQUIRE(requests[0].messages.size() == 1);
    CHECK(requests[0].messages[0].text() == parley::jinja::render(parley::command_generator_prompt, context));
    CHECK(requests[0].messages[0].text().find("- transfer_money: Send money to someone") != std::string::npos);
}

TEST_CASE("extract: a legacy function_call is read, and answered with a function message") {
    auto legacy = [](std::string arguments) {
        parley::chat_reply r = parley::text_reply("");
        r.choices[0].message.content = std::monostate{};
        r.choices[0].message.function_call = parley::function_call{"food", std::move(arguments)};
        r.choices[0].finish = parley::finish_reason::function_call;
        return r;
    };
    scripted s;
    s.script->push(legacy(R"({"name": "pie"})"));
    s.script->push(legacy(good_pie));
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data));
    REQUIRE(r.has_value());
    CHECK(r->calories == 300);
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    REQUIRE(requests[1].messages.size() == 3);
    CHECK(requests[1].messages[1].function_call == std::optional<parley::function_call>(parley::function_call{"food", R"({"name": "pie"})"}));
    CHECK(requests[1].messages[2].role == role::function);
    CHECK(requests[1].messages[2].name == std::optional<std::string>("food"));
    CHECK(requests[1].messages[2].text() ==
          parley::detail::bot_engine::bad_arguments_text("food", parley::from_text<food>(R"({"name": "pie"})").error_text()));
}

TEST_CASE("extract: a conversation as the prompt, after its last truncate, with its default-request") {
    scripted s;
    s.script->push(call_reply("call_9", "food", good_pie));
    parley::request_params old_params;
    old_params.model = "old-model";
    parley::request_params params;
    params.model = "trip-model";
    params.functions = std::vector<std::string>{"get_weather"};
    params.call_function = "*";
    message old_defaults;
    old_defaults.role = role::default_request;
    old_defaults.params = old_params;
    message defaults;
    defaults.role = role::default_request;
    defaults.params = params;
    message cut;
    cut.role = role::truncate;
    message call = parley::make_message(role::assistant, "");
    call.content = std::monostate{};
    call.tool_calls = {parley::tool_call{"call_1", {"get_weather", R"({"city": "Oslo"})"}}};
    message result = parley::make_message(role::tool, "-3");
    result.tool_call_id = "call_1";
    const std::vector<message> history = {old_defaults,
                                          parley::make_message(role::user, "forgotten"),
                                          cut,
                                          defaults,
                                          parley::make_message(role::system, "You plan trips."),
                                          call,
                                          result,
                                          parley::make_message(role::user, "Which food fits a cold day?")};
    auto r = run_sync(parley::extract<food>(*s.model, history));
    REQUIRE(r.has_value());
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].params.model == std::optional<std::string>("trip-model"));
    CHECK(requests[0].params.functions == std::vector<std::string>{"food"});
    CHECK(requests[0].params.call_function == std::optional<std::string>("food"));
    const std::vector<message> sent = {history[4], history[5], history[6], history[7]};
    CHECK(requests[0].messages == sent);

    // the text modes send no functions, even though the default-request lists some
    s.script->push_text(good_pie);
    parley::extract_options<food> opt;
    opt.mode = parley::extract_mode::json_schema;
    auto t = run_sync(parley::extract<food>(*s.model, history, opt));
    REQUIRE(t.has_value());
    const auto again = s.script->requests();
    REQUIRE(again.size() == 2);
    CHECK(!again[1].params.functions);
    CHECK(!again[1].params.call_function);
    CHECK(again[1].params.response_format);

    // generate sends the conversation as it is, with its parameters
    auto echo = std::make_shared<parley::echo_model>();
    parley::in_process_model model(echo);
    auto g = run_sync(parley::generate(model, history));
    REQUIRE(g.has_value());
    CHECK(*g == "Which food fits a cold day?");
    REQUIRE(echo->requests().size() == 1);
    CHECK(echo->requests()[0].messages == sent);
    CHECK(echo->requests()[0].params == params);
}

TEST_CASE("extract: a refusal counts as a reply that does not fit; a reply without choices is a protocol error") {
    scripted s;
    parley::chat_reply refused = parley::text_reply("");
    refused.choices[0].message.content = std::monostate{};
    refused.choices[0].message.refusal = "I cannot help with that.";
    s.script->push(refused);
    s.script->push_text(good_pie);
    parley::extract_options<food> opt;
    opt.mode = parley::extract_mode::json_schema;
    auto r = run_sync(parley::extract<food>(*s.model, prompt, data, opt));
    REQUIRE(r.has_value());
    const auto requests = s.script->requests();
    REQUIRE(requests.size() == 2);
    REQUIRE(requests[1].messages.size() == 3);
    // the assistant message sent back holds the refusal's text (it needs a content), and the refusal
    parley::message refusal_sent = parley::make_message(role::assistant, "I cannot help with that.");
    refusal_sent.refusal = "I cannot help with that.";
    CHECK(requests[1].messages[1] == refusal_sent);
    CHECK(requests[1].messages[2].text() ==
          "Your reply does not fit the requested JSON:\nthe model refused: I cannot help with that.\n"
          "Reply again with JSON that fits.");

    s.script->push(parley::chat_reply{});
    auto e = run_sync(parley::extract<food>(*s.model, prompt, data));
    REQUIRE(e.has_error());
    CHECK(e.error().code == make_error_code(parley::errc::protocol));
    CHECK(e.error().attempts.empty());
}
