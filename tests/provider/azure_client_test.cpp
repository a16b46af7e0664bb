// Tests of chat_client with api::azure and api::azure_responses against the fake server, which
// answers an Azure request (one with ?api-version=) as Azure OpenAI does: the deployment paths,
// the api-key header, Azure's filter results in replies and its first streamed chunk, the
// content filter's 400, a finish by the content filter; and Azure's environment variables.
#include <parley/provider/chat_client.hpp>

#include <parley/testing/fake_server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

namespace zasio = boost::asio;

template <class T>
T azure_run(zasio::io_context& io, zasio::awaitable<T> a) {
    auto f = zasio::co_spawn(io, std::move(a), zasio::use_future);
    io.restart();
    io.run();
    return f.get();
}

constexpr const char* azure_key = "azure-test-key-0123456789";

parley::client_config azure_config(const parley::testing::fake_server& s, parley::api which = parley::api::azure) {
    parley::client_config c;
    c.api = which;
    c.base_url = s.url("/openai");
    c.api_key = azure_key;
    c.azure.api_version = "2024-10-21";
    c.net.retry.initial_delay = 1ms;
    c.net.retry.max_delay = 5ms;
    c.net.timeouts.total = 30s;
    return c;
}

parley::chat_request azure_ask(std::string text) {
    parley::chat_request r;
    r.params.model = "gpt-4o-deploy";
    r.messages.push_back(parley::make_message(parley::role::user, std::move(text)));
    return r;
}

zasio::awaitable<std::pair<parley::chat_reply, std::optional<parley::call_error>>> azure_stream_all(
    parley::chat_client& c, parley::chat_request r, std::string* text) {
    auto s = co_await c.stream(std::move(r));
    if (!s) co_return std::pair{parley::chat_reply{}, std::optional<parley::call_error>(s.error())};
    for (;;) {
        auto e = co_await s->next();
        if (!e) co_return std::pair{parley::chat_reply{}, std::optional<parley::call_error>(e.error())};
        if (e->type == parley::stream_event::kind::text) *text += e->text;
        if (e->type == parley::stream_event::kind::done) break;
    }
    co_return std::pair{s->take_reply(), std::optional<parley::call_error>()};
}

}  // namespace

TEST_CASE("azure client: chat completions through a deployment, api-version and api-key; whole and streamed") {
    parley::testing::fake_server_options o;
    o.api_key = azure_key;
    parley::testing::fake_server server(o);
    server.push(parley::testing::fake_step::text("Hello from Azure"));
    server.push(parley::testing::fake_step::text("Streamed from Azure"));
    zasio::io_context io;
    parley::chat_client client(io.get_executor(), azure_config(server));
    auto r = azure_run(io, client.chat(azure_ask("Hi")));
    REQUIRE(r.has_value());
    CHECK(r->text() == "Hello from Azure");
    CHECK(r->model == "gpt-4o-deploy");
    CHECK(r->choices[0].finish == parley::finish_reason::stop);
    auto req = server.last_request();
    CHECK(req.target == "/openai/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21");
    CHECK(req.header("api-key") == azure_key);
    CHECK_FALSE(req.has_header("authorization"));
    CHECK(req.json().at("model") == "gpt-4o-deploy");

    std::string text;
    const auto streamed = azure_run(io, azure_stream_all(client, azure_ask("Hi"), &text));
    REQUIRE_FALSE(streamed.second.has_value());
    CHECK(text == "Streamed from Azure");
    CHECK(streamed.first.text() == "Streamed from Azure");
    CHECK(streamed.first.id.rfind("chatcmpl-fake-", 0) == 0);  // Azure's first chunk, with an empty id, does not stay
    CHECK(server.last_request().json().at("stream") == true);

    // a wrong key: Azure's 401, not retried
    auto wrong = azure_config(server);
    wrong.api_key = "azure-wrong-key-000000000";
    parley::chat_client other(io.get_executor(), wrong);
    auto denied = azure_run(io, other.chat(azure_ask("x")));
    REQUIRE_FALSE(denied.has_value());
    CHECK(denied.error().status == 401);
    CHECK(denied.error().api_code == "401");
    CHECK(denied.error().message.rfind("Access denied due to invalid subscription key", 0) == 0);
    CHECK(denied.error().attempts == 1);
    // a configured deployment in place of the model
    auto fixed = azure_config(server);
    fixed.azure.deployment = "prod-gpt";
    parley::chat_client pinned(io.get_executor(), fixed);
    auto p = azure_run(io, pinned.chat(azure_ask("pinned")));
    REQUIRE(p.has_value());
    CHECK(server.last_request().target == "/openai/deployments/prod-gpt/chat/completions?api-version=2024-10-21");
}

TEST_CASE("azure client: the content filter: a refused prompt (400) and a reply cut by the filter") {
    parley::testing::fake_server server;
    parley::testing::fake_step filtered = parley::testing::fake_step::http_status(400);
    filtered.error.type = "content_filter";
    server.push(filtered);
    server.push(parley::testing::fake_step::text("It was a dark", "content_filter"));
    server.push(parley::testing::fake_step::text("It was a dark", "content_filter"));
    zasio::io_context io;
    parley::chat_client client(io.get_executor(), azure_config(server));
    auto refused = azure_run(io, client.chat(azure_ask("something bad")));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == parley::errc::api_error);
    CHECK(refused.error().status == 400);
    CHECK(refused.error().type == "content_filter");
    CHECK(refused.error().api_code == "content_filter");
    CHECK(refused.error().param == "prompt");
    CHECK(refused.error().message.ends_with("(Azure content filter: violence (medium); ResponsibleAIPolicyViolation)"));
    CHECK(refused.error().attempts == 1);
    auto cut = azure_run(io, client.chat(azure_ask("a story")));
    REQUIRE(cut.has_value());
    CHECK(cut->choices[0].finish == parley::finish_reason::content_filter);
    CHECK(cut->choices[0].finish_text == "content_filter");
    std::string text;
    const auto streamed = azure_run(io, azure_stream_all(client, azure_ask("a story"), &text));
    REQUIRE_FALSE(streamed.second.has_value());
    CHECK(text == "It was a dark");
    CHECK(streamed.first.choices[0].finish == parley::finish_reason::content_filter);
}

TEST_CASE("azure client: the Responses API at /openai/responses; embeddings through a deployment") {
    parley::testing::fake_server_options o;
    o.api_key = azure_key;
    parley::testing::fake_server server(o);
    server.push(parley::testing::fake_step::text("Hello from the Responses API"));
    server.push(parley::testing::fake_step::text("Streamed responses"));
    zasio::io_context io;
    auto config = azure_config(server, parley::api::azure_responses);
    config.azure.api_version = "2025-04-01-preview";
    parley::chat_client client(io.get_executor(), config);
    auto r = azure_run(io, client.chat(azure_ask("Hi")));
    REQUIRE(r.has_value());
    CHECK(r->text() == "Hello from the Responses API");
    CHECK(server.last_request().target == "/openai/responses?api-version=2025-04-01-preview");
    CHECK(server.last_request().header("api-key") == azure_key);
    CHECK(server.last_request().json().at("model") == "gpt-4o-deploy");
    std::string text;
    const auto streamed = azure_run(io, azure_stream_all(client, azure_ask("Hi"), &text));
    REQUIRE_FALSE(streamed.second.has_value());
    CHECK(text == "Streamed responses");

    parley::embedding_request e;
    e.model = "embed-deploy";
    e.input = {"hello", "world"};
    e.dimensions = 8;
    auto v = azure_run(io, client.embed(e));
    REQUIRE(v.has_value());
    REQUIRE(v->data.size() == 2);
    CHECK(v->data[0].size() == 8);
    CHECK(server.last_request().target == "/openai/deployments/embed-deploy/embeddings?api-version=2025-04-01-preview");
}

TEST_CASE("azure client: what a configuration needs; Azure's environment variables") {
    zasio::io_context io;
    parley::client_config c;
    c.api = parley::api::azure;
    c.base_url = "https://res.openai.azure.com/openai";
    CHECK_THROWS_WITH_AS(parley::chat_client(io.get_executor(), c),
                         "Azure OpenAI needs an API version (the api-version query): set client_config::azure.api_version or "
                         "OPENAI_API_VERSION, for instance 2024-10-21",
                         parley::error);
    c.azure.api_version = "2024-10-21";
    c.base_url.clear();
    CHECK_THROWS_WITH_AS(parley::chat_client(io.get_executor(), c),
                         "the azure API has no default base URL: set client_config::base_url to the resource's "
                         "https://RESOURCE.openai.azure.com/openai (or set AZURE_OPENAI_ENDPOINT)",
                         parley::error);
    // a path without the api-version query is Azure's 404
    parley::testing::fake_server server;
    parley::client_config openai_form;
    openai_form.api = parley::api::openai;
    openai_form.base_url = server.url("/openai/deployments/gpt-4o-deploy");
    parley::chat_client plain(io.get_executor(), openai_form);
    auto nf = azure_run(io, plain.chat(azure_ask("x")));
    REQUIRE_FALSE(nf.has_value());
    CHECK(nf.error().status == 404);
    CHECK(nf.error().message == "Resource not found");

    std::map<std::string, std::string> env;
    parley::environment_options options;
    options.getenv = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    env["AZURE_OPENAI_API_KEY"] = "azure-key";
    env["AZURE_OPENAI_ENDPOINT"] = "https://res.openai.azure.com//";
    env["OPENAI_API_VERSION"] = "2024-10-21";
    auto a = parley::config_from_environment(std::nullopt, options);
    CHECK(a.api == parley::api::azure);
    CHECK(a.api_key == "azure-key");
    CHECK(a.base_url == "https://res.openai.azure.com/openai");
    CHECK(a.azure.api_version == "2024-10-21");
    auto ar = parley::config_from_environment(parley::api::azure_responses, options);
    CHECK(ar.api == parley::api::azure_responses);
    CHECK(ar.base_url == "https://res.openai.azure.com/openai");
    env.erase("AZURE_OPENAI_ENDPOINT");
    env["OPENAI_BASE_URL"] = "https://proxy.example/openai";  // the SDK's baseURL: the API becomes OpenAI's when unnamed
    CHECK(parley::config_from_environment(std::nullopt, options).api == parley::api::openai);
    CHECK(parley::config_from_environment(parley::api::azure, options).base_url == "https://proxy.example/openai");
    CHECK(parley::api_from_name("azure") == parley::api::azure);
    CHECK(parley::api_from_name("azure-responses") == parley::api::azure_responses);
    CHECK(parley::api_name(parley::api::azure_responses) == "azure-responses");
}
