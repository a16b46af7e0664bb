// Tests of parley/bot/mcp_tools.hpp: the tools of the reference MCP server as a bot's functions:
// their definitions as the model sees them, a bot run where the (scripted) model calls one and
// gets its result, an isError result told to the model as a failure.
#include <parley/bot/mcp_tools.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/mcp/stdio.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <string>

namespace mcp_bot_tests {

namespace asio = boost::asio;
namespace mcp = parley::mcp;

/// Runs `a` on `io` until it ends (the client's reads keep the io_context busy: run() would not return).
template <class T>
T run_until_done(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "the test took more than a minute");
        io.run_for(std::chrono::milliseconds(50));
    }
    return f.get();
}

constexpr std::string_view set_yaml = R"(
templates:
  main:
    messages:
      - role: default-request
        model: m
      - role: user
        content: "{{ q }}"
      - role: request
        functions: [everything_echo, everything_get-sum]
)";

}  // namespace mcp_bot_tests

TEST_CASE("mcp tools as a bot's functions: definitions, a call and its result, an isError result") {
    using namespace mcp_bot_tests;
    const auto js = std::filesystem::path(PARLEY_NODE_PEERS) / "mcp" / "node_modules" / "@modelcontextprotocol" /
                    "server-everything" / "dist" / "index.js";
    REQUIRE_MESSAGE(std::filesystem::exists(js), "the reference MCP server is not installed at " << js.string());
    mcp::server_config config;
    config.name = "everything";
    config.command = "node";
    config.args = {js.string(), "stdio"};

    asio::io_context io;
    auto server = run_until_done(io, mcp::connect_stdio(config, mcp::client_options()));
    REQUIRE_MESSAGE(server.has_value(), (server ? "" : server.error().what()));

    auto script = std::make_shared<parley::scripted_model>();
    script->push(parley::tool_call_reply({parley::tool_call{"c1", parley::function_call{"everything_echo", R"({"message": "hi"})"}},
                                          parley::tool_call{"c2", parley::function_call{"everything_get-sum", R"({"a": "x"})"}}}));
    script->push_text("The server said hi.");
    parley::yaml_options yo;
    yo.external_functions = {"everything_echo", "everything_get-sum"};
    parley::bot bot(parley::load_template_set(set_yaml, "mcp.yaml", yo), std::make_shared<parley::in_process_model>(script));
    mcp::bot_tool_options opt;
    opt.prefix = "everything_";
    opt.allowed = {"echo", "get-sum"};
    const auto names = mcp::add_tools(bot, *server, opt);
    CHECK(names == std::vector<std::string>{"everything_echo", "everything_get-sum"});
    CHECK_NOTHROW(bot.check());

    const auto out = run_until_done(io, bot.run("main", boost::json::value{{"q", "Say hi through the server"}}));
    // the definitions sent are the tools' own
    const auto requests = script->requests();
    REQUIRE(requests.size() == 2);
    REQUIRE(requests[0].functions.size() == 2);
    CHECK(requests[0].functions[0].name == "everything_echo");
    CHECK(boost::json::value(requests[0].functions[0].parameters) ==
          boost::json::value((*server)->find_tool("echo")->input_schema));
    CHECK(requests[0].functions[0].description == (*server)->find_tool("echo")->description);
    // the call ran on the server; the refused arguments came back as a failure the model sees
    REQUIRE(out.size() == 7);
    CHECK(out[4].tool_call_id == "c1");
    CHECK(out[4].text() == "Echo: hi");
    CHECK_FALSE(out[4].is_error);
    CHECK(out[5].tool_call_id == "c2");
    CHECK(out[5].is_error);
    CHECK(out[5].text().rfind("Error: ", 0) == 0);
    CHECK(out[6].text() == "The server said hi.");

    CHECK_THROWS_AS(mcp::add_tools(bot, *server, opt), parley::error);  // the names are taken
    mcp::bot_tool_options unknown;
    unknown.allowed = {"no-such-tool"};
    CHECK_THROWS_WITH_AS(mcp::add_tools(bot, *server, unknown), "the MCP server 'everything' has no tool named 'no-such-tool'",
                         parley::error);

    run_until_done(io, (*server)->close());
}

TEST_CASE("mcp tool names follow the chat APIs' rule") {
    CHECK(parley::mcp::function_name_for("fs_", "read.file") == "fs_read_file");
    CHECK(parley::mcp::function_name_for("", "a b/c:d") == "a_b_c_d");
    CHECK(parley::mcp::function_name_for("x_", std::string(100, 'n')).size() == 64);
}
