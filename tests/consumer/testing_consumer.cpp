// A program of a project whose tests use parley's fake model server through parley::testing,
// built by the find_package consumer project: the installed <parley/testing/fake_server.hpp>,
// header-only, with OpenSSL and threads from parley::testing. One request, written with Beast
// alone, on loopback.
#include <parley/testing/fake_server.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>

#include <cstdio>
#include <string>

int main() {
    namespace http = boost::beast::http;
    int failures = 0;
    const auto expect = [&](bool ok, const char* what) {
        if (!ok) {
            std::fprintf(stderr, "testing consumer check failed: %s\n", what);
            ++failures;
        }
    };

    parley::testing::fake_server server;  // 127.0.0.1, a free port
    server.push(parley::testing::fake_step::text("pong"));

    boost::asio::io_context io;
    boost::asio::ip::tcp::socket socket(io);
    boost::asio::ip::tcp::resolver resolver(io);
    boost::asio::connect(socket, resolver.resolve(server.host(), std::to_string(server.port())));
    http::request<http::string_body> request{http::verb::post, "/v1/chat/completions", 11};
    request.set(http::field::host, server.host());
    request.set(http::field::content_type, "application/json");
    request.body() = R"({"model": "gpt-test", "messages": [{"role": "user", "content": "ping"}]})";
    request.prepare_payload();
    http::write(socket, request);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(socket, buffer, response);

    expect(response.result_int() == 200, "status 200");
    const auto reply = boost::json::parse(response.body());
    expect(reply.at("object") == "chat.completion", "a chat completion");
    expect(reply.at("choices").at(0).at("message").at("content") == "pong", "the scripted text");
    expect(server.request_count() == 1 && server.pending_steps() == 0, "one request, the step taken");
    expect(server.last_request().json().at("model") == "gpt-test", "the request recorded");

    server.stop();
    if (failures == 0) std::puts("parley testing consumer: ok");
    return failures == 0 ? 0 : 1;
}
