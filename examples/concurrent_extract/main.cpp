// 1000 extractions at once on one thread: one io_context, 1000 coroutines co_spawned on it, each
// awaiting extract<ticket> through one chat_client, whose connection pool keeps at most 256
// connections to the server open and queues the other calls. The model is parley's fake server
// on 127.0.0.1 (it serves on a thread of its own), scripted with 1000 different replies: the
// program checks that every reply was read exactly once and prints the wall time.
//
//   concurrent_extract [N]    N extractions (default 1000)
#include <parley/bot/client_model.hpp>  // a chat_client as a chat_model (link parley::net)
#include <parley/bot/extract.hpp>
#include <parley/testing/fake_server.hpp>  // the fake model server (link parley::testing)

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/describe/class.hpp>

#include <chrono>
#include <exception>
#include <iostream>
#include <memory>
#include <set>
#include <string>

namespace asio = boost::asio;

struct ticket {
    std::string customer;
    std::string topic;
    int urgency = 0;
};
BOOST_DESCRIBE_STRUCT(ticket, (), (customer, topic, urgency))
PARLEY_ANNOTATE(ticket, "A support ticket", (customer, "The customer's name"), (topic, "What the message is about"),
                (urgency, "1 (whenever) to 5 (now)", minimum(1), maximum(5)))

struct tally {
    std::size_t succeeded = 0;
    std::set<std::string> customers;  // each scripted reply names another customer
    std::string first_failure;
};

// One extraction. The data and the options are locals: the coroutine frame holds them while the
// call is under way.
asio::awaitable<void> extract_one(parley::chat_model& model, std::size_t n, tally& t) {
    const boost::json::value data = {{"n", n}};
    parley::extract_options<ticket> opt;
    opt.params.model = "gpt-4o-mini";
    auto result = co_await parley::extract<ticket>(model, "Support message {{ n }}: my parcel has not arrived.", data, opt);
    if (result) {
        ++t.succeeded;
        t.customers.insert(result->customer);
    } else if (t.first_failure.empty()) {
        t.first_failure = result.error().what();
    }
}

int main(int argc, char** argv) try {
    const std::size_t count = argc > 1 ? std::stoul(argv[1]) : 1000;

    parley::testing::fake_server server;
    for (std::size_t i = 0; i < count; ++i)
        server.push(parley::testing::fake_step::tool_calls(
            {{"call_" + std::to_string(i), "ticket",
              R"({"customer": "customer )" + std::to_string(i) + R"(", "topic": "late delivery", "urgency": )" +
                  std::to_string(i % 5 + 1) + "}"}}));

    asio::io_context io;  // the one thread: main's, in io.run()
    parley::client_config config;
    config.api = parley::api::openai;
    config.base_url = server.url("/v1");
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), std::move(config));
    parley::client_model model(client);

    std::cout << count << " extractions of ticket at once, on one thread, through one chat_client (at most 256 connections)\n";
    tally t;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < count; ++i)
        asio::co_spawn(io, extract_one(model, i, t), [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);  // a request that cannot be encoded; not expected here
        });
    io.run();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);

    std::cout << "succeeded: " << t.succeeded << " of " << count << '\n'
              << "distinct customers: " << t.customers.size() << '\n'
              << "requests the server received: " << server.request_count() << '\n';
    if (!t.first_failure.empty()) std::cout << "first failure: " << t.first_failure << '\n';
    std::cout << "wall time: " << ms.count() << " ms over " << server.connections_accepted() << " connections\n";
    return t.succeeded == count && t.customers.size() == count ? 0 : 1;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
}
