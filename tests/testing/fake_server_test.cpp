// Tests of parley/testing/fake_server.hpp and tests/harness/test_tls.hpp: the fake model server
// seen through a small Beast client written here (every operation with a timeout): each route's
// JSON and stream shapes, replays, chunking, faults, keep-alive, TLS, CONNECT proxying, request
// recording and scripts read from JSON.
#include <parley/testing/fake_server.hpp>
#include "../harness/test_tls.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using namespace parley::testing;
using namespace parley::test;  // test_tls.hpp
using namespace std::chrono_literals;

namespace {

std::string fixtures_dir() {
#if defined(PARLEY_TEST_SHARED_DIR)
    return std::string(PARLEY_TEST_SHARED_DIR) + "/fixtures/openai-sse";
#else
    return "../shared/fixtures/openai-sse";
#endif
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot read " << path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// What the client saw of one exchange.
struct exchange_result {
    boost::system::error_code ec;  // the first error (writing or reading), if any
    unsigned status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::vector<std::uint64_t> chunk_sizes;  // sizes of the HTTP chunks, for a chunked body
    int interim = 0;                         // 1xx replies read before this one

    std::string header(std::string_view name) const {
        for (const auto& [n, v] : headers)
            if (parley::testing::detail::iequals(n, name)) return v;
        return {};
    }
    bool has_header(std::string_view name) const {
        for (const auto& [n, v] : headers)
            if (parley::testing::detail::iequals(n, name)) return true;
        return false;
    }
    json::value json_body() const { return json::parse(body); }
};

template <class T>
T run(asio::io_context& ioc, asio::awaitable<T> work) {
    auto done = asio::co_spawn(ioc, std::move(work), asio::use_future);
    ioc.restart();
    ioc.run();
    return done.get();
}

/// One request and its reply on `stream`: writing and reading the reply's header are limited by
/// `timeout`, reading its body by `body_timeout`.
template <class Stream>
asio::awaitable<exchange_result> exchange(Stream& stream, beast::flat_buffer& buffer, http::request<http::string_body> req,
                                          std::chrono::milliseconds timeout, std::chrono::milliseconds body_timeout) {
    exchange_result r;
    req.prepare_payload();
    beast::get_lowest_layer(stream).expires_after(timeout);
    auto [wec, wn] = co_await http::async_write(stream, req, asio::as_tuple(asio::use_awaitable));
    (void)wn;
    if (wec) {
        r.ec = wec;
        co_return r;
    }
    std::optional<http::response_parser<http::string_body>> slot;
    std::vector<std::uint64_t> sizes;
    auto on_chunk = [&sizes](std::uint64_t size, beast::string_view, boost::system::error_code&) {
        if (size) sizes.push_back(size);
    };
    for (;;) {
        slot.emplace();
        slot->body_limit(boost::none);
        slot->on_chunk_header(on_chunk);
        beast::get_lowest_layer(stream).expires_after(timeout);
        auto [hec, hn] = co_await http::async_read_header(stream, buffer, *slot, asio::as_tuple(asio::use_awaitable));
        (void)hn;
        r.ec = hec;
        if (hec) break;
        if (slot->get().result_int() / 100 == 1) {
            ++r.interim;  // 100 Continue: the reply follows
            continue;
        }
        if (!slot->is_done()) {
            beast::get_lowest_layer(stream).expires_after(body_timeout);
            auto [bec, bn] = co_await http::async_read(stream, buffer, *slot, asio::as_tuple(asio::use_awaitable));
            (void)bn;
            r.ec = bec;
        }
        break;
    }
    auto& parser = *slot;
    if (parser.is_header_done()) {
        const auto& res = parser.get();
        r.status = res.result_int();
        for (const auto& f : res) r.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
        r.body = res.body();
    }
    r.chunk_sizes = std::move(sizes);
    co_return r;
}

http::request<http::string_body> make_request(http::verb verb, std::string target, std::string body = {},
                                              std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "localhost");
    if (!body.empty()) req.set(http::field::content_type, "application/json");
    for (const auto& [n, v] : headers) req.set(n, v);
    req.body() = std::move(body);
    return req;
}

/// A client connection to a fake server, plain or TLS (directly or through a CONNECT proxy).
class test_client {
public:
    std::chrono::milliseconds timeout = 5s;       // writing, reading a reply's header
    std::chrono::milliseconds body_timeout = 5s;  // reading a reply's body

    /// Connects in plain text to 127.0.0.1:port.
    boost::system::error_code connect(unsigned short port) {
        plain_.emplace(ioc_);
        return run(ioc_, connect_tcp(*plain_, port));
    }
    /// Connects to 127.0.0.1:port with TLS, verifying the certificate for `host_name`.
    boost::system::error_code connect_tls(unsigned short port, asio::ssl::context& ctx, const std::string& host_name) {
        beast::tcp_stream tcp(ioc_);
        if (auto ec = run(ioc_, connect_tcp(tcp, port))) return ec;
        return handshake(std::move(tcp), ctx, host_name);
    }
    /// Connects to the proxy at proxy_port, asks it for `authority` with CONNECT; returns the
    /// proxy's status (0 on error) and keeps the tunnel as a plain connection.
    unsigned connect_via_proxy(unsigned short proxy_port, const std::string& authority, const std::string& proxy_auth = {}) {
        plain_.emplace(ioc_);
        if (run(ioc_, connect_tcp(*plain_, proxy_port))) return 0;
        return run(ioc_, send_connect(*plain_, authority, proxy_auth));
    }
    /// TLS over the tunnel made by connect_via_proxy.
    boost::system::error_code start_tls(asio::ssl::context& ctx, const std::string& host_name) {
        beast::tcp_stream tcp = std::move(*plain_);
        plain_.reset();
        return handshake(std::move(tcp), ctx, host_name);
    }

    /// One request and its reply on this connection.
    exchange_result send(http::request<http::string_body> req) {
        if (tls_) return run(ioc_, exchange(*tls_, buffer_, std::move(req), timeout, body_timeout));
        return run(ioc_, exchange(*plain_, buffer_, std::move(req), timeout, body_timeout));
    }
    exchange_result post(std::string target, std::string body, std::vector<std::pair<std::string, std::string>> headers = {}) {
        return send(make_request(http::verb::post, std::move(target), std::move(body), std::move(headers)));
    }
    exchange_result get(std::string target) { return send(make_request(http::verb::get, std::move(target))); }

private:
    static asio::awaitable<boost::system::error_code> connect_tcp(beast::tcp_stream& s, unsigned short port) {
        s.expires_after(5s);
        auto [ec] = co_await s.async_connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                                             asio::as_tuple(asio::use_awaitable));
        co_return ec;
    }
    static asio::awaitable<unsigned> send_connect(beast::tcp_stream& s, std::string authority, std::string proxy_auth) {
        http::request<http::empty_body> req{http::verb::connect, authority, 11};
        req.set(http::field::host, authority);
        if (!proxy_auth.empty()) req.set(http::field::proxy_authorization, proxy_auth);
        s.expires_after(5s);
        auto [wec, wn] = co_await http::async_write(s, req, asio::as_tuple(asio::use_awaitable));
        (void)wn;
        if (wec) co_return 0u;
        http::response_parser<http::empty_body> parser;
        parser.skip(true);  // a reply to CONNECT has no body
        beast::flat_buffer buffer;
        auto [rec, rn] = co_await http::async_read_header(s, buffer, parser, asio::as_tuple(asio::use_awaitable));
        (void)rn;
        if (rec) co_return 0u;
        co_return parser.get().result_int();
    }
    boost::system::error_code handshake(beast::tcp_stream tcp, asio::ssl::context& ctx, const std::string& host_name) {
        tls_.emplace(std::move(tcp), ctx);
        SSL_set_tlsext_host_name(tls_->native_handle(), host_name.c_str());
        tls_->set_verify_mode(asio::ssl::verify_peer);
        tls_->set_verify_callback(asio::ssl::host_name_verification(host_name));
        return run(ioc_, [](beast::ssl_stream<beast::tcp_stream>& s) -> asio::awaitable<boost::system::error_code> {
            beast::get_lowest_layer(s).expires_after(5s);
            auto [ec] = co_await s.async_handshake(asio::ssl::stream_base::client, asio::as_tuple(asio::use_awaitable));
            co_return ec;
        }(*tls_));
    }

    asio::io_context ioc_;
    std::optional<beast::tcp_stream> plain_;
    std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
    beast::flat_buffer buffer_;
};

/// One exchange on a new plain connection.
exchange_result post_once(const fake_server& server, std::string target, std::string body,
                          std::vector<std::pair<std::string, std::string>> headers = {},
                          std::chrono::milliseconds timeout = 5s) {
    test_client c;
    c.timeout = c.body_timeout = timeout;
    const auto ec = c.connect(server.port());
    REQUIRE_FALSE(ec);
    return c.post(std::move(target), std::move(body), std::move(headers));
}

struct sse_event {
    std::string event;  // the `event:` field, "" when absent
    std::string data;
};

/// The events of an SSE body (events end with a blank line; `data:` lines are joined with \n).
std::vector<sse_event> parse_sse(std::string_view body) {
    std::vector<sse_event> events;
    sse_event current;
    bool any = false;
    std::size_t i = 0;
    while (i < body.size()) {
        std::size_t end = body.find('\n', i);
        if (end == std::string_view::npos) end = body.size();
        const std::string_view line = body.substr(i, end - i);
        i = end + 1;
        if (line.empty()) {
            if (any) events.push_back(current);
            current = {};
            any = false;
            continue;
        }
        any = true;
        auto value = [&](std::string_view field) {
            std::string_view v = line.substr(field.size());
            if (!v.empty() && v.front() == ' ') v.remove_prefix(1);
            return std::string(v);
        };
        if (line.rfind("event:", 0) == 0)
            current.event = value("event:");
        else if (line.rfind("data:", 0) == 0)
            current.data += (current.data.empty() ? "" : "\n") + value("data:");
    }
    if (any) events.push_back(current);
    return events;
}

std::string chat_body(std::string text, bool stream = false, std::string extra = {}) {
    return R"({"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":)" +
           parley::testing::detail::json_string(text) + "}]" + (stream ? R"(,"stream":true)" : "") + extra + "}";
}

std::string anthropic_body(std::string text, bool stream = false) {
    return R"({"model":"claude-3-5-sonnet-latest","max_tokens":100,"system":"Be brief.","messages":[{"role":"user","content":)" +
           parley::testing::detail::json_string(text) + "}]" + (stream ? R"(,"stream":true)" : "") + "}";
}

const std::vector<std::pair<std::string, std::string>> anthropic_headers{{"anthropic-version", "2023-06-01"},
                                                                        {"x-api-key", "sk-ant-test"}};

std::string str(const json::value& v) { return std::string(v.as_string()); }

/// The assembled OpenAI stream: per choice index, content, refusal, tool calls (by index) and
/// finish reason; checks the shape of every chunk on the way.
struct openai_assembled {
    std::map<std::int64_t, std::string> content, refusal, finish;
    std::map<std::int64_t, std::map<std::int64_t, fake_tool_call>> calls;
    std::map<std::int64_t, std::map<std::int64_t, int>> argument_pieces;
    std::optional<json::value> usage;
    bool done = false;
    int chunks = 0;
};

openai_assembled assemble_openai(const std::string& body, bool usage_null_expected) {
    openai_assembled a;
    const auto events = parse_sse(body);
    REQUIRE(!events.empty());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        CHECK(e.event.empty());
        if (e.data == "[DONE]") {
            CHECK(i + 1 == events.size());
            a.done = true;
            continue;
        }
        const json::value v = json::parse(e.data);
        const auto& o = v.as_object();
        ++a.chunks;
        CHECK(str(o.at("object")) == "chat.completion.chunk");
        CHECK(str(o.at("id")).rfind("chatcmpl-", 0) == 0);
        CHECK(o.at("created").is_int64());
        CHECK(str(o.at("model")) == "gpt-4o-mini");
        const auto& choices = o.at("choices").as_array();
        if (choices.empty()) {
            a.usage = o.at("usage");
            continue;
        }
        if (usage_null_expected)
            CHECK(o.at("usage").is_null());
        else
            CHECK_FALSE(o.contains("usage"));
        REQUIRE(choices.size() == 1);
        const auto& c = choices[0].as_object();
        const auto index = c.at("index").as_int64();
        const auto& delta = c.at("delta").as_object();
        CHECK(c.at("logprobs").is_null());
        if (!a.content.count(index) && !a.refusal.count(index) && !a.calls.count(index)) {
            // the first delta of a choice carries the role
            CHECK(str(delta.at("role")) == "assistant");
            a.content[index];
        } else {
            CHECK_FALSE(delta.contains("role"));
        }
        if (const auto* t = delta.if_contains("content"); t && t->is_string()) a.content[index] += str(*t);
        if (const auto* t = delta.if_contains("refusal"); t && t->is_string()) a.refusal[index] += str(*t);
        if (const auto* tc = delta.if_contains("tool_calls")) {
            for (const auto& call : tc->as_array()) {
                const auto& co = call.as_object();
                const auto k = co.at("index").as_int64();
                const auto& f = co.at("function").as_object();
                auto& slot = a.calls[index][k];
                if (co.contains("id")) {
                    CHECK(slot.id.empty());  // id and name come once, in the first delta of the call
                    slot.id = str(co.at("id"));
                    CHECK(str(co.at("type")) == "function");
                    slot.name = str(f.at("name"));
                } else {
                    CHECK_FALSE(slot.id.empty());
                    CHECK_FALSE(f.contains("name"));
                }
                const std::string piece = str(f.at("arguments"));
                slot.arguments += piece;
                if (!piece.empty()) ++a.argument_pieces[index][k];
            }
        }
        if (!c.at("finish_reason").is_null()) {
            CHECK(delta.empty());
            CHECK_FALSE(a.finish.count(index));
            a.finish[index] = str(c.at("finish_reason"));
        }
    }
    return a;
}

asio::ssl::context client_tls_context(const test_certificates& certs) {
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.add_certificate_authority(asio::buffer(certs.ca_certificate_pem));
    return ctx;
}

fake_server_options tls_options(const test_certificates& certs) {
    fake_server_options o;
    o.tls_certificate_chain_pem = certs.server_chain_pem();
    o.tls_private_key_pem = certs.server_private_key_pem;
    return o;
}

const test_certificates& certificates() {
    static const test_certificates certs = make_test_certificates({"DNS:localhost", "IP:127.0.0.1"});
    return certs;
}

}  // namespace

TEST_CASE("OpenAI chat completion: the chat.completion object of a scripted reply") {
    fake_server server;
    fake_step step = fake_step::text("Hello!");
    step.reply->usage = fake_usage{9, 2, 0, 0, 0};
    step.headers = {{"x-ratelimit-remaining-requests", "99"}};
    server.push(step);
    const auto r = post_once(server, "/v1/chat/completions", chat_body("Hi"));
    REQUIRE_FALSE(r.ec);
    CHECK(r.status == 200);
    CHECK(r.header("content-type") == "application/json");
    CHECK(r.header("x-ratelimit-remaining-requests") == "99");
    CHECK(r.header("x-request-id").rfind("req_", 0) == 0);
    CHECK_FALSE(r.has_header("transfer-encoding"));
    const auto v = r.json_body();
    const auto& o = v.as_object();
    CHECK(str(o.at("object")) == "chat.completion");
    CHECK(str(o.at("model")) == "gpt-4o-mini");
    const auto& choices = o.at("choices").as_array();
    REQUIRE(choices.size() == 1);
    const auto& c = choices[0].as_object();
    CHECK(c.at("index").as_int64() == 0);
    CHECK(str(c.at("finish_reason")) == "stop");
    const auto& m = c.at("message").as_object();
    CHECK(str(m.at("role")) == "assistant");
    CHECK(str(m.at("content")) == "Hello!");
    CHECK(m.at("refusal").is_null());
    CHECK_FALSE(m.contains("tool_calls"));
    const auto& u = o.at("usage").as_object();
    CHECK(u.at("prompt_tokens").as_int64() == 9);
    CHECK(u.at("completion_tokens").as_int64() == 2);
    CHECK(u.at("total_tokens").as_int64() == 11);
    CHECK(server.pending_steps() == 0);
}

TEST_CASE("OpenAI chat completion: tool calls, several choices and the finish reasons") {
    fake_server server;
    server.push(fake_step::tool_calls({{"call_1", "get_weather", R"({"city":"Oslo"})"}, {"", "get_time", "{}"}}));
    fake_step two;
    two.reply = fake_reply{};
    two.reply->choices = {{"a", {}, "length", {}, {}, false}, {"", {}, "", "I can't.", {}, false}};
    server.push(two);

    auto r = post_once(server, "/v1/chat/completions", chat_body("Weather?"));
    REQUIRE(r.status == 200);
    auto v = r.json_body();
    const auto& c = v.at("choices").at(0);
    CHECK(str(c.at("finish_reason")) == "tool_calls");
    CHECK(c.at("message").at("content").is_null());
    const auto& calls = c.at("message").at("tool_calls").as_array();
    REQUIRE(calls.size() == 2);
    CHECK(str(calls[0].at("id")) == "call_1");
    CHECK(str(calls[0].at("type")) == "function");
    CHECK(str(calls[0].at("function").at("name")) == "get_weather");
    CHECK(str(calls[0].at("function").at("arguments")) == R"({"city":"Oslo"})");
    CHECK_FALSE(str(calls[1].at("id")).empty());
    CHECK(str(calls[1].at("function").at("name")) == "get_time");

    r = post_once(server, "/v1/chat/completions", chat_body("Two?"));
    REQUIRE(r.status == 200);
    v = r.json_body();
    const auto& choices = v.at("choices").as_array();
    REQUIRE(choices.size() == 2);
    CHECK(str(choices[0].at("message").at("content")) == "a");
    CHECK(str(choices[0].at("finish_reason")) == "length");
    CHECK(choices[1].at("index").as_int64() == 1);
    CHECK(choices[1].at("message").at("content").is_null());
    CHECK(str(choices[1].at("message").at("refusal")) == "I can't.");
}

TEST_CASE("OpenAI stream: chunks as the API sends them, text reassembled, usage chunk, [DONE]") {
    fake_server server;
    const std::string text = "Hello, world! Ünïcödé — and a longer sentence to cut in pieces.";
    fake_step step = fake_step::text(text);
    step.reply->usage = fake_usage{12, 7, 0, 0, 0};
    server.push(step);
    server.push(fake_step::text(text));
    for (bool include_usage : {true, false}) {
        CAPTURE(include_usage);
        const auto r = post_once(server, "/v1/chat/completions",
                                 chat_body("Hi", true, include_usage ? R"(,"stream_options":{"include_usage":true})" : ""));
        REQUIRE_FALSE(r.ec);
        CHECK(r.status == 200);
        CHECK(r.header("content-type").rfind("text/event-stream", 0) == 0);
        CHECK(r.header("transfer-encoding") == "chunked");
        CHECK(r.chunk_sizes.size() > 5);  // one HTTP chunk per event
        const auto a = assemble_openai(r.body, include_usage);
        CHECK(a.done);
        CHECK(a.content.at(0) == text);
        CHECK(a.chunks > 10);  // the text came in pieces
        CHECK(a.finish.at(0) == "stop");
        if (include_usage) {
            REQUIRE(a.usage.has_value());
            CHECK(a.usage->at("prompt_tokens").as_int64() == 12);
            CHECK(a.usage->at("completion_tokens").as_int64() == 7);
            CHECK(a.usage->at("total_tokens").as_int64() == 19);
        } else {
            CHECK_FALSE(a.usage.has_value());
        }
    }
}

TEST_CASE("OpenAI stream: tool calls with id and name first and the arguments over several chunks") {
    fake_server server;
    const std::string args1 = R"({"city":"Oslo","units":"metric"})";
    const std::string args2 = R"({"ticker":"NASDAQ:AAPL"})";
    server.push(fake_step::tool_calls({{"call_1", "get_weather", args1}, {"call_2", "get_stock_price", args2}}));
    const auto r = post_once(server, "/v1/chat/completions", chat_body("Weather and stock?", true));
    REQUIRE(r.status == 200);
    const auto a = assemble_openai(r.body, false);
    CHECK(a.done);
    REQUIRE(a.calls.count(0));
    const auto& calls = a.calls.at(0);
    REQUIRE(calls.size() == 2);
    CHECK(calls.at(0).id == "call_1");
    CHECK(calls.at(0).name == "get_weather");
    CHECK(calls.at(0).arguments == args1);
    CHECK(calls.at(1).id == "call_2");
    CHECK(calls.at(1).name == "get_stock_price");
    CHECK(calls.at(1).arguments == args2);
    CHECK(a.argument_pieces.at(0).at(0) > 2);
    CHECK(a.argument_pieces.at(0).at(1) > 2);
    CHECK(a.content.at(0).empty());
    CHECK(a.finish.at(0) == "tool_calls");
    // the first chunk says content null, as the API does for a tool call
    const auto first = json::parse(parse_sse(r.body).front().data);
    CHECK(first.at("choices").at(0).at("delta").at("content").is_null());
}

TEST_CASE("OpenAI stream: several choices interleaved by index") {
    fake_server server;
    fake_step step;
    step.reply = fake_reply{};
    step.reply->choices = {{"first answer", {}, {}, {}, {}, false}, {"second answer", {}, "length", {}, {}, false},
                           {"", {}, {}, "No.", {}, false}};
    server.push(step);
    const auto r = post_once(server, "/v1/chat/completions", chat_body("Three?", true));
    REQUIRE(r.status == 200);
    const auto a = assemble_openai(r.body, false);
    CHECK(a.content.at(0) == "first answer");
    CHECK(a.content.at(1) == "second answer");
    CHECK(a.refusal.at(2) == "No.");
    CHECK(a.finish.at(0) == "stop");
    CHECK(a.finish.at(1) == "length");
    CHECK(a.finish.at(2) == "stop");
    // interleaved: each choice's first delta (the role) comes before any choice's text
    const auto events = parse_sse(r.body);
    std::vector<std::int64_t> order;
    for (const auto& e : events)
        if (e.data != "[DONE]") order.push_back(json::parse(e.data).at("choices").at(0).at("index").as_int64());
    CHECK(order[0] == 0);
    CHECK(order[1] == 1);
    CHECK(order[2] == 2);
}

TEST_CASE("Anthropic message: content blocks, stop_reason, usage") {
    fake_server server;
    fake_step step = fake_step::text("Let me check.");
    step.reply->choices[0].tool_calls = {{"toolu_1", "get_weather", R"({"city":"Oslo"})"}};
    step.reply->usage = fake_usage{20, 5, 0, 0, 0};
    server.push(step);
    server.push(fake_step::text("Done.", "length"));
    auto r = post_once(server, "/v1/messages", anthropic_body("Weather?"), anthropic_headers);
    REQUIRE(r.status == 200);
    CHECK(r.header("request-id").rfind("req_", 0) == 0);
    auto v = r.json_body();
    CHECK(str(v.at("type")) == "message");
    CHECK(str(v.at("role")) == "assistant");
    CHECK(str(v.at("model")) == "claude-3-5-sonnet-latest");
    CHECK(str(v.at("id")).rfind("msg_", 0) == 0);
    const auto& content = v.at("content").as_array();
    REQUIRE(content.size() == 2);
    CHECK(str(content[0].at("type")) == "text");
    CHECK(str(content[0].at("text")) == "Let me check.");
    CHECK(str(content[1].at("type")) == "tool_use");
    CHECK(str(content[1].at("id")) == "toolu_1");
    CHECK(str(content[1].at("name")) == "get_weather");
    CHECK(content[1].at("input") == json::parse(R"({"city":"Oslo"})"));
    CHECK(str(v.at("stop_reason")) == "tool_use");
    CHECK(v.at("stop_sequence").is_null());
    CHECK(v.at("usage").at("input_tokens").as_int64() == 20);
    CHECK(v.at("usage").at("output_tokens").as_int64() == 5);

    r = post_once(server, "/anthropic/v1/messages", anthropic_body("More?"), anthropic_headers);
    REQUIRE(r.status == 200);
    v = r.json_body();
    CHECK(str(v.at("stop_reason")) == "max_tokens");  // "length" in OpenAI's terms
    CHECK(str(v.at("content").at(0).at("text")) == "Done.");
}

TEST_CASE("Anthropic stream: message_start, content blocks with text and input_json deltas, message_delta, message_stop") {
    fake_server server;
    const std::string text = "Let me look that up for you.";
    const std::string args = R"({"city":"Oslo","days":3})";
    fake_step step = fake_step::text(text);
    step.reply->choices[0].tool_calls = {{"toolu_9", "get_weather", args}};
    step.reply->usage = fake_usage{30, 11, 0, 0, 0};
    server.push(step);
    const auto r = post_once(server, "/v1/messages", anthropic_body("Weather?", true), anthropic_headers);
    REQUIRE(r.status == 200);
    CHECK(r.header("content-type").rfind("text/event-stream", 0) == 0);
    const auto events = parse_sse(r.body);
    REQUIRE(events.size() > 6);
    std::vector<std::string> names;
    std::map<std::int64_t, std::string> block_type, texts, inputs;
    std::map<std::int64_t, int> pieces;
    std::string stop_reason;
    for (const auto& e : events) {
        const auto v = json::parse(e.data);
        CHECK(str(v.at("type")) == e.event);  // the event name repeats the data's type
        names.push_back(e.event);
        if (e.event == "message_start") {
            const auto& m = v.at("message");
            CHECK(str(m.at("role")) == "assistant");
            CHECK(m.at("content").as_array().empty());
            CHECK(m.at("stop_reason").is_null());
            CHECK(m.at("usage").at("input_tokens").as_int64() == 30);
        } else if (e.event == "content_block_start") {
            const auto i = v.at("index").as_int64();
            block_type[i] = str(v.at("content_block").at("type"));
            if (block_type[i] == "tool_use") {
                CHECK(str(v.at("content_block").at("id")) == "toolu_9");
                CHECK(str(v.at("content_block").at("name")) == "get_weather");
                CHECK(v.at("content_block").at("input").as_object().empty());
            }
        } else if (e.event == "content_block_delta") {
            const auto i = v.at("index").as_int64();
            const auto& d = v.at("delta");
            if (str(d.at("type")) == "text_delta") {
                CHECK(block_type.at(i) == "text");
                texts[i] += str(d.at("text"));
            } else {
                CHECK(str(d.at("type")) == "input_json_delta");
                CHECK(block_type.at(i) == "tool_use");
                inputs[i] += str(d.at("partial_json"));
                ++pieces[i];
            }
        } else if (e.event == "message_delta") {
            stop_reason = str(v.at("delta").at("stop_reason"));
            CHECK(v.at("usage").at("output_tokens").as_int64() == 11);
        }
    }
    CHECK(names.front() == "message_start");
    CHECK(names.back() == "message_stop");
    CHECK(names[names.size() - 2] == "message_delta");
    CHECK(std::count(names.begin(), names.end(), "content_block_start") == 2);
    CHECK(std::count(names.begin(), names.end(), "content_block_stop") == 2);
    CHECK(texts[0] == text);
    CHECK(inputs[1] == args);
    CHECK(pieces[1] > 2);
    CHECK(stop_reason == "tool_use");
}

TEST_CASE("requests the real APIs refuse get a 400 and leave the script alone") {
    fake_server server;
    server.push(fake_step::text("kept"));
    auto r = post_once(server, "/v1/messages", anthropic_body("Hi"));  // no anthropic-version
    CHECK(r.status == 400);
    CHECK(str(r.json_body().at("error").at("type")) == "invalid_request_error");
    CHECK(str(r.json_body().at("type")) == "error");
    r = post_once(server, "/v1/messages",
                  R"({"model":"m","max_tokens":5,"messages":[{"role":"system","content":"x"}]})", anthropic_headers);
    CHECK(r.status == 400);
    CHECK(str(r.json_body().at("error").at("message")).find("top-level 'system'") != std::string::npos);
    r = post_once(server, "/v1/messages", R"({"model":"m","messages":[{"role":"user","content":"x"}]})", anthropic_headers);
    CHECK(r.status == 400);
    r = post_once(server, "/v1/chat/completions", "{not json");
    CHECK(r.status == 400);
    CHECK(str(r.json_body().at("error").at("message")).find("not valid JSON") != std::string::npos);
    r = post_once(server, "/v1/chat/completions", R"({"model":"m","messages":[]})");
    CHECK(r.status == 400);
    CHECK(server.pending_steps() == 1);
    r = post_once(server, "/v1/chat/completions", chat_body("now"));
    CHECK(r.status == 200);
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "kept");
}

TEST_CASE("the default reply echoes the last user message's text, on every chat route") {
    fake_server server;
    auto r = post_once(server, "/v1/chat/completions",
                       R"({"model":"gpt-4o-mini","n":2,"messages":[{"role":"user","content":"first"},)"
                       R"({"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"second "},)"
                       R"({"type":"image_url","image_url":{"url":"data:,"}},{"type":"text","text":"part"}]}]})");
    REQUIRE(r.status == 200);
    const auto v = r.json_body();
    REQUIRE(v.at("choices").as_array().size() == 2);  // n is honoured
    CHECK(str(v.at("choices").at(1).at("message").at("content")) == "second part");
    r = post_once(server, "/chat/completions", chat_body("plain path", true));
    CHECK(assemble_openai(r.body, false).content.at(0) == "plain path");
    r = post_once(server, "/v1/messages",
                  R"({"model":"claude","max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"blocks"}]}]})",
                  anthropic_headers);
    CHECK(str(r.json_body().at("content").at(0).at("text")) == "blocks");
}

TEST_CASE("embeddings, models, unknown paths and methods") {
    fake_server server;
    auto r = post_once(server, "/v1/embeddings", R"({"model":"text-embedding-3-small","input":["a","b","a"]})");
    REQUIRE(r.status == 200);
    auto v = r.json_body();
    CHECK(str(v.at("object")) == "list");
    const auto& data = v.at("data").as_array();
    REQUIRE(data.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(str(data[i].at("object")) == "embedding");
        CHECK(data[i].at("index").as_int64() == static_cast<std::int64_t>(i));
        const auto& e = data[i].at("embedding").as_array();
        CHECK(e.size() == 16);
        double norm = 0;
        for (const auto& x : e) norm += x.to_number<double>() * x.to_number<double>();
        CHECK(norm == doctest::Approx(1.0).epsilon(1e-6));
    }
    CHECK(data[0].at("embedding") == data[2].at("embedding"));  // same text, same vector
    CHECK(data[0].at("embedding") != data[1].at("embedding"));
    CHECK(v.at("usage").at("prompt_tokens").is_int64());

    fake_step dims;
    dims.route = fake_route::embeddings;
    dims.reply = fake_reply{};
    dims.reply->dimensions = 5;
    server.push(dims);
    r = post_once(server, "/v1/embeddings", R"({"model":"m","input":"x"})");
    CHECK(r.json_body().at("data").at(0).at("embedding").as_array().size() == 5);
    r = post_once(server, "/v1/embeddings", R"({"model":"m","input":"x","dimensions":3,"encoding_format":"base64"})");
    // 3 float32 = 12 bytes = 16 base64 characters
    CHECK(str(r.json_body().at("data").at(0).at("embedding")).size() == 16);

    test_client c;
    REQUIRE_FALSE(c.connect(server.port()));
    r = c.get("/v1/models");
    REQUIRE(r.status == 200);
    v = r.json_body();
    CHECK(str(v.at("object")) == "list");
    CHECK(v.at("data").as_array().size() >= 2);
    CHECK(str(v.at("data").at(0).at("object")) == "model");
    r = c.get("/v1/chat/completions");
    CHECK(r.status == 405);
    r = c.post("/v1/nothing", "{}");
    CHECK(r.status == 404);
    CHECK(str(r.json_body().at("error").at("message")).find("/v1/nothing") != std::string::npos);
    CHECK(server.connections_accepted() == 4);
}

TEST_CASE("replay: the body is the recorded file byte for byte, however it is cut") {
    fake_server server;
    const std::vector<std::string> files = {"tool-call.sse", "parallel-tool-calls-with-usage.sse",
                                            "json-schema-three-choices.sse", "plain-text.sse"};
    for (const auto& name : files) {
        const std::string path = fixtures_dir() + "/" + name;
        const std::string expected = read_all(path);
        for (std::uint64_t seed : {1u, 2u, 3u}) {
            CAPTURE(name);
            CAPTURE(seed);
            fake_chunking chunking;
            chunking.random = true;
            chunking.seed = seed;
            chunking.random_max = 300;
            server.push(fake_step::replay_file(path, chunking));
            const auto r = post_once(server, "/v1/chat/completions", chat_body("x", true));
            REQUIRE_FALSE(r.ec);
            CHECK(r.header("content-type").rfind("text/event-stream", 0) == 0);
            CHECK(r.body == expected);
            CHECK(r.chunk_sizes.size() > 1);
            CHECK(*std::max_element(r.chunk_sizes.begin(), r.chunk_sizes.end()) <= 300);
        }
    }
    // fixed sizes: every chunk has that size but the last
    fake_chunking seven;
    seven.size = 7;
    server.push(fake_step::replay_file(fixtures_dir() + "/tool-call.sse", seven));
    auto r = post_once(server, "/v1/messages", anthropic_body("x"), anthropic_headers);  // any route
    const std::string expected = read_all(fixtures_dir() + "/tool-call.sse");
    CHECK(r.body == expected);
    REQUIRE(r.chunk_sizes.size() == (expected.size() + 6) / 7);
    for (std::size_t i = 0; i + 1 < r.chunk_sizes.size(); ++i) CHECK(r.chunk_sizes[i] == 7);
    // by default, one HTTP chunk per event
    server.push(fake_step::replay_file(fixtures_dir() + "/tool-call.sse"));
    r = post_once(server, "/v1/chat/completions", chat_body("x", true));
    CHECK(r.body == expected);
    CHECK(r.chunk_sizes.size() == parse_sse(expected).size());
}

TEST_CASE("chunk_size cuts a scripted stream into writes of that size") {
    fake_server server;
    fake_step step = fake_step::text("a text long enough to be cut into several small chunks");
    step.chunking.size = 5;
    server.push(step);
    fake_step random = fake_step::text("a text long enough to be cut into several small chunks");
    random.chunking.random = true;
    random.chunking.seed = 42;
    random.chunking.random_max = 16;
    random.chunk_delay = 1ms;
    server.push(random);
    auto r = post_once(server, "/v1/chat/completions", chat_body("x", true));
    REQUIRE(r.chunk_sizes.size() > 10);
    for (std::size_t i = 0; i + 1 < r.chunk_sizes.size(); ++i) CHECK(r.chunk_sizes[i] == 5);
    CHECK(assemble_openai(r.body, false).content.at(0) == "a text long enough to be cut into several small chunks");
    r = post_once(server, "/v1/chat/completions", chat_body("x", true));
    CHECK(assemble_openai(r.body, false).content.at(0) == "a text long enough to be cut into several small chunks");
    for (auto s : r.chunk_sizes) CHECK(s <= 16);
}

TEST_CASE("status replies: status, header fields and body as scripted, or an error body for the route") {
    fake_server server;
    server.push(fake_step::http_status(429, {{"retry-after", "0"}, {"retry-after-ms", "10"}, {"x-should-retry", "true"}},
                                       R"({"error":{"type":"rate_limit_error","message":"slow down"}})"));
    server.push(fake_step::http_status(503));
    fake_step anthropic = fake_step::http_status(529);
    anthropic.route = fake_route::anthropic;
    server.push(anthropic);
    test_client c;
    REQUIRE_FALSE(c.connect(server.port()));
    auto r = c.post("/v1/chat/completions", chat_body("x"));
    CHECK(r.status == 429);
    CHECK(r.header("retry-after") == "0");
    CHECK(r.header("retry-after-ms") == "10");
    CHECK(r.header("x-should-retry") == "true");
    CHECK(str(r.json_body().at("error").at("message")) == "slow down");
    r = c.post("/v1/chat/completions", chat_body("x"));  // the same connection stays usable
    CHECK(r.status == 503);
    CHECK(str(r.json_body().at("error").at("type")) == "server_error");  // OpenAI's type for every 5xx
    r = c.post("/v1/messages", anthropic_body("x"), anthropic_headers);
    CHECK(r.status == 529);
    CHECK(str(r.json_body().at("type")) == "error");
    CHECK(str(r.json_body().at("error").at("type")) == "overloaded_error");
    CHECK(server.connections_accepted() == 1);
}

TEST_CASE("fault slow_headers: nothing comes before the delay") {
    fake_server server;
    fake_step slow = fake_step::with_fault(fake_fault::slow_headers);
    slow.delay = 3000ms;
    server.push(slow);
    auto r = post_once(server, "/v1/chat/completions", chat_body("x"), {}, 200ms);
    CHECK(r.ec == beast::error::timeout);
    CHECK(r.status == 0);
    fake_step short_delay = fake_step::with_fault(fake_fault::slow_headers);
    short_delay.delay = 50ms;
    server.push(short_delay);
    r = post_once(server, "/v1/chat/completions", chat_body("after the wait"));
    CHECK(r.status == 200);
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "after the wait");
}

TEST_CASE("fault stall: some bytes of the stream, then nothing while the connection stays open") {
    fake_server server;
    const std::string text = "a reply that is long enough to stall in the middle of it";
    server.push(fake_step::text(text));
    fake_step stall = fake_step::text(text);
    stall.fault = fake_fault::stall;
    stall.after_bytes = 100;
    server.push(stall);
    const auto whole = post_once(server, "/v1/chat/completions", chat_body("x", true));
    REQUIRE(whole.body.size() > 100);
    test_client c;
    c.body_timeout = 300ms;  // the headers and the first bytes come at once; the rest never
    REQUIRE_FALSE(c.connect(server.port()));
    const auto r = c.post("/v1/chat/completions", chat_body("x", true));
    CHECK(r.ec == beast::error::timeout);
    CHECK(r.status == 200);
    CHECK(r.body.size() == 100);
    CHECK(r.body.substr(0, 25) == whole.body.substr(0, 25));  // the same stream, cut (the ids differ)
    // without after_bytes: not even the headers
    server.push(fake_step::with_fault(fake_fault::stall));
    const auto nothing = post_once(server, "/v1/chat/completions", chat_body("x"), {}, 200ms);
    CHECK(nothing.ec == beast::error::timeout);
    CHECK(nothing.status == 0);
}

TEST_CASE("fault disconnect: the connection closes before the end of the body") {
    fake_server server;
    server.push(fake_step::with_fault(fake_fault::disconnect, 100));
    server.push(fake_step::with_fault(fake_fault::disconnect));
    fake_step plain = fake_step::with_fault(fake_fault::disconnect, 10);
    server.push(plain);
    auto r = post_once(server, "/v1/chat/completions", chat_body("a long enough text to be cut after a hundred bytes", true));
    CHECK(r.ec);
    CHECK(r.ec != beast::error::timeout);
    CHECK(r.status == 200);
    CHECK(r.body.size() == 100);
    r = post_once(server, "/v1/chat/completions", chat_body("x"));
    CHECK(r.ec);
    CHECK(r.status == 0);
    r = post_once(server, "/v1/chat/completions", chat_body("a text longer than ten bytes"));  // Content-Length body
    CHECK(r.ec == http::error::partial_message);
    CHECK(r.status == 200);
}

TEST_CASE("fault malformed_json: a body, or one stream event, that is not JSON") {
    fake_server server;
    server.push(fake_step::with_fault(fake_fault::malformed_json));
    server.push(fake_step::with_fault(fake_fault::malformed_json));
    fake_step forced = fake_step::with_fault(fake_fault::malformed_json);
    forced.variant = "event";
    forced.route = fake_route::anthropic;
    server.push(forced);
    auto r = post_once(server, "/v1/chat/completions", chat_body("x"));
    CHECK(r.status == 200);
    CHECK(r.header("content-type") == "application/json");
    boost::system::error_code ec;
    (void)json::parse(r.body, ec);
    CHECK(ec);

    r = post_once(server, "/v1/chat/completions", chat_body("some text", true));
    CHECK(r.status == 200);
    auto events = parse_sse(r.body);
    int bad = 0;
    for (const auto& e : events) {
        if (e.data == "[DONE]") continue;
        (void)json::parse(e.data, ec);
        if (ec) ++bad;
    }
    CHECK(bad == 1);
    CHECK(events.back().data == "[DONE]");  // the rest of the stream follows

    r = post_once(server, "/v1/messages", anthropic_body("x"), anthropic_headers);  // not streamed, yet events
    CHECK(r.header("content-type").rfind("text/event-stream", 0) == 0);
    events = parse_sse(r.body);
    bad = 0;
    for (const auto& e : events) {
        (void)json::parse(e.data, ec);
        if (ec) ++bad;
    }
    CHECK(bad == 1);
}

TEST_CASE("fault error_event: the stream ends with an error event after N events") {
    fake_server server;
    fake_step openai = fake_step::with_fault(fake_fault::error_event);
    openai.after_events = 2;
    server.push(openai);
    fake_step anthropic = fake_step::with_fault(fake_fault::error_event);
    anthropic.after_events = 3;
    anthropic.error = {"overloaded_error", "Overloaded"};
    server.push(anthropic);
    server.push(fake_step::with_fault(fake_fault::error_event));
    auto r = post_once(server, "/v1/chat/completions", chat_body("some text to stream", true));
    REQUIRE_FALSE(r.ec);
    auto events = parse_sse(r.body);
    REQUIRE(events.size() == 3);
    CHECK(str(json::parse(events[1].data).at("object")) == "chat.completion.chunk");
    const auto err = json::parse(events[2].data);
    CHECK(str(err.at("error").at("type")) == "server_error");
    CHECK_FALSE(str(err.at("error").at("message")).empty());

    r = post_once(server, "/v1/messages", anthropic_body("some text to stream", true), anthropic_headers);
    events = parse_sse(r.body);
    REQUIRE(events.size() == 4);
    CHECK(events[3].event == "error");
    CHECK(str(json::parse(events[3].data).at("error").at("type")) == "overloaded_error");
    CHECK(str(json::parse(events[3].data).at("type")) == "error");

    r = post_once(server, "/v1/chat/completions", chat_body("not streamed"));  // a 200 carrying the error
    CHECK(r.status == 200);
    CHECK(r.json_body().as_object().contains("error"));
}

TEST_CASE("fault wrong_content_type: a 200 of HTML") {
    fake_server server;
    server.push(fake_step::with_fault(fake_fault::wrong_content_type));
    const auto r = post_once(server, "/v1/chat/completions", chat_body("x", true));
    CHECK(r.status == 200);
    CHECK(r.header("content-type").rfind("text/html", 0) == 0);
    CHECK(r.body.rfind("<!DOCTYPE html>", 0) == 0);
}

TEST_CASE("fault close_idle: a normal reply, then the kept-alive connection is dead") {
    fake_server server;
    server.push(fake_step::with_fault(fake_fault::close_idle));
    test_client c;
    REQUIRE_FALSE(c.connect(server.port()));
    auto r = c.post("/v1/chat/completions", chat_body("first"));
    REQUIRE_FALSE(r.ec);
    CHECK(r.status == 200);
    CHECK_FALSE(r.has_header("connection"));
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "first");
    r = c.post("/v1/chat/completions", chat_body("second"));
    CHECK(r.ec);
    CHECK(r.ec != beast::error::timeout);
    CHECK(r.status == 0);
    CHECK(server.request_count() == 1);
}

TEST_CASE("keep-alive: several requests on one connection; Connection: close is honoured") {
    fake_server server;
    test_client c;
    REQUIRE_FALSE(c.connect(server.port()));
    for (int i = 0; i < 3; ++i) {
        const auto r = c.post("/v1/chat/completions", chat_body("n" + std::to_string(i), i == 1));
        REQUIRE_FALSE(r.ec);
        CHECK(r.status == 200);
    }
    CHECK(server.connections_accepted() == 1);
    const auto records = server.requests();
    REQUIRE(records.size() == 3);
    for (const auto& rec : records) CHECK(rec.connection == 1);
    auto r = c.post("/v1/chat/completions", chat_body("last"), {{"connection", "close"}});
    CHECK(r.status == 200);
    CHECK(r.header("connection") == "close");
    r = c.post("/v1/chat/completions", chat_body("after close"));
    CHECK(r.ec);
}

TEST_CASE("Expect: 100-continue gets its interim reply") {
    fake_server server;
    test_client c;
    REQUIRE_FALSE(c.connect(server.port()));
    auto r = c.post("/v1/chat/completions", chat_body("continued"), {{"expect", "100-continue"}});
    REQUIRE_FALSE(r.ec);
    CHECK(r.interim == 1);
    CHECK(r.status == 200);
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "continued");
    r = c.post("/v1/chat/completions", chat_body("plain"));
    CHECK(r.interim == 0);
    CHECK(r.status == 200);
}

TEST_CASE("request recording: method, target, header fields, body, connection") {
    fake_server server;
    const std::string body = chat_body("recorded");
    (void)post_once(server, "/v1/chat/completions?api-version=1", body, {{"Authorization", "Bearer sk-test"}, {"X-Custom", "1"}});
    (void)post_once(server, "/v1/messages", anthropic_body("second"), anthropic_headers);
    CHECK(server.request_count() == 2);
    const auto first = server.requests().at(0);
    CHECK(first.method == "POST");
    CHECK(first.target == "/v1/chat/completions?api-version=1");
    CHECK(first.header("authorization") == "Bearer sk-test");
    CHECK(first.header("x-custom") == "1");
    CHECK(first.has_header("Content-Type"));
    CHECK_FALSE(first.has_header("x-api-key"));
    CHECK(first.body == body);
    CHECK(str(first.json().at("messages").at(1).at("content")) == "recorded");
    CHECK_FALSE(first.tls);
    CHECK(first.connection == 1);
    CHECK(server.last_request().header("anthropic-version") == "2023-06-01");
    CHECK(server.last_request().connection == 2);
    server.clear_requests();
    CHECK(server.requests().empty());
    CHECK_THROWS_AS(server.last_request(), std::logic_error);
}

TEST_CASE("api_key: requests without the key get a 401") {
    fake_server_options o;
    o.api_key = "sk-right";
    fake_server server(o);
    CHECK(post_once(server, "/v1/chat/completions", chat_body("x")).status == 401);
    CHECK(post_once(server, "/v1/chat/completions", chat_body("x"), {{"authorization", "Bearer sk-wrong"}}).status == 401);
    CHECK(post_once(server, "/v1/chat/completions", chat_body("x"), {{"authorization", "Bearer sk-right"}}).status == 200);
    CHECK(post_once(server, "/v1/messages", anthropic_body("x"), {{"anthropic-version", "2023-06-01"}}).status == 401);
    CHECK(post_once(server, "/v1/messages", anthropic_body("x"), {{"anthropic-version", "2023-06-01"}, {"x-api-key", "sk-right"}})
              .status == 200);
}

TEST_CASE("the script: routes, order, repeat, replaced and appended while the server runs") {
    fake_server server;
    fake_step for_anthropic = fake_step::text("to anthropic");
    for_anthropic.route = fake_route::anthropic;
    server.set_script({{for_anthropic, fake_step::text("to anyone")}, false});
    auto r = post_once(server, "/v1/chat/completions", chat_body("x"));
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "to anyone");
    CHECK(server.pending_steps() == 1);
    r = post_once(server, "/v1/messages", anthropic_body("x"), anthropic_headers);
    CHECK(str(r.json_body().at("content").at(0).at("text")) == "to anthropic");
    CHECK(server.pending_steps() == 0);
    server.push({fake_step::text("one"), fake_step::text("two")});
    server.set_repeat(true);
    std::vector<std::string> seen;
    for (int i = 0; i < 5; ++i)
        seen.push_back(str(post_once(server, "/v1/chat/completions", chat_body("x")).json_body().at("choices").at(0).at("message").at(
            "content")));
    CHECK(seen == std::vector<std::string>{"one", "two", "one", "two", "one"});
    server.set_script({});
    CHECK(server.pending_steps() == 0);
    r = post_once(server, "/v1/chat/completions", chat_body("echoed"));
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "echoed");
    CHECK_THROWS_AS(server.push(fake_step::replay_file("/nonexistent/file.sse")), std::runtime_error);
}

TEST_CASE("the script: a step with match answers only a request whose body holds its text") {
    fake_server server;
    fake_step for_b1 = fake_step::text("b, first");
    for_b1.match = "conversation b";
    fake_step for_a = fake_step::text("a");
    for_a.match = "conversation a";
    fake_step for_b2 = fake_step::text("b, second");
    for_b2.match = "conversation b";
    server.set_script({{for_b1, for_a, for_b2}, false});
    auto content = [&](const char* text) {
        return str(post_once(server, "/v1/chat/completions", chat_body(text)).json_body().at("choices").at(0).at("message").at("content"));
    };
    CHECK(content("conversation b, turn 1") == "b, first");
    CHECK(content("conversation b, turn 2") == "b, second");  // the step for a is passed by
    CHECK(server.pending_steps() == 1);
    CHECK(content("conversation c") == "conversation c");  // no step matches: the default reply
    CHECK(server.pending_steps() == 1);
    CHECK(content("conversation a") == "a");
    CHECK(server.pending_steps() == 0);
    // from JSON, with a route
    const auto script = fake_script_from_json(json::parse(R"([{"match": "x\"y", "route": "anthropic", "reply": {"text": "t"}}])"));
    CHECK(script.steps.at(0).match == "x\"y");
    CHECK(script.steps.at(0).route == fake_route::anthropic);
}

TEST_CASE("scripts from JSON: every kind of step, and mistakes named by place") {
    const auto script = fake_script_from_json(json::parse(R"({"steps": [
        {"reply": {"text": "Hello!", "finish": "stop", "usage": {"prompt": 9, "completion": 2}}},
        {"reply": {"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"},
                                  {"name": "f", "arguments": {"a": 1}}]}, "chunk_size": 7},
        {"reply": {"choices": [{"text": "a"}, {"text": "b", "finish": "length"}], "model": "m", "delta_size": 2}},
        {"replay": "recording.sse", "chunk_sizes": "random", "seed": 3},
        {"status": 429, "headers": {"retry-after": "0", "retry-after-ms": 5}, "body": {"error": {"type": "rate_limit_error", "message": "slow down"}}},
        {"fault": "slow_headers", "delay_ms": 2000},
        {"fault": "stall", "after_bytes": 100},
        {"fault": "disconnect", "after_bytes": 100},
        {"fault": "malformed_json", "variant": "event"},
        {"fault": "error_event", "after_events": 2, "error": {"type": "overloaded_error", "message": "busy"}},
        {"fault": "wrong_content_type"},
        {"fault": "close_idle", "route": "anthropic"},
        {"route": "embeddings", "reply": {"embeddings": [[0.5, 1]], "dimensions": 2}}
    ], "repeat": true})"),
                                              "/base");
    CHECK(script.repeat);
    REQUIRE(script.steps.size() == 13);
    const auto& s = script.steps;
    REQUIRE(s[0].reply);
    CHECK(s[0].reply->choices.at(0).text == "Hello!");
    CHECK(s[0].reply->usage->prompt == 9);
    CHECK(s[1].reply->choices.at(0).tool_calls.at(0).arguments == R"({"city":"Oslo"})");
    CHECK(s[1].reply->choices.at(0).tool_calls.at(1).arguments == R"({"a":1})");
    CHECK(s[1].chunking.size == 7);
    CHECK(s[2].reply->choices.size() == 2);
    CHECK(s[2].reply->choices[1].finish == "length");
    CHECK(s[2].reply->delta_size == 2);
    CHECK(s[3].replay == "/base/recording.sse");
    CHECK(s[3].chunking.random);
    CHECK(s[3].chunking.seed == 3);
    CHECK(s[4].status == 429);
    CHECK(s[4].headers.at(1) == std::pair<std::string, std::string>{"retry-after-ms", "5"});
    CHECK(str(json::parse(*s[4].body).at("error").at("message")) == "slow down");
    CHECK(s[5].fault == fake_fault::slow_headers);
    CHECK(s[5].delay == 2000ms);
    CHECK(s[6].fault == fake_fault::stall);
    CHECK(s[6].after_bytes == 100u);
    CHECK(s[7].fault == fake_fault::disconnect);
    CHECK(s[8].variant == "event");
    CHECK(s[9].after_events == 2);
    CHECK(s[9].error.message == "busy");
    CHECK(s[10].fault == fake_fault::wrong_content_type);
    CHECK(s[11].route == fake_route::anthropic);
    CHECK(s[12].reply->embeddings.at(0) == std::vector<double>{0.5, 1.0});

    auto error_of = [](const char* text) {
        try {
            (void)fake_script_from_json(json::parse(text));
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error_of(R"({"steps": [{"reply": {"text": "a"}}, {"reply": {"txt": "b"}}]})") ==
          "fake server script: steps[1].reply: unknown key \"txt\" (known: text, refusal, reasoning, tool_calls, finish, choices, "
          "usage, model, delta_size, embeddings, dimensions, block_reason)");
    CHECK(error_of(R"([{"fault": "explode"}])").find("steps[0].fault: unknown fault \"explode\"") != std::string::npos);
    CHECK(error_of(R"([{"status": 200, "reply": {}}])") ==
          "fake server script: steps[0]: 'reply', 'replay' and 'status' exclude each other");
    CHECK(error_of(R"([{"reply": {"tool_calls": [{"arguments": "{}"}]}}])") ==
          "fake server script: steps[0].reply.tool_calls[0]: 'name' is required");
    CHECK(error_of(R"([{"chunk_size": "big"}])") == "fake server script: steps[0].chunk_size: must be a number of bytes or \"random\"");
    CHECK(error_of(R"([{"route": "bard"}])") ==
          "fake server script: steps[0].route: must be \"openai\", \"responses\", \"anthropic\", \"embeddings\", \"models\", "
          "\"count_tokens\", \"gemini\", \"gemini_embeddings\", \"ollama\" or \"ollama_embeddings\", not \"bard\"");
    CHECK(error_of(R"([{"route": "gemini", "reply": {"block_reason": "SAFETY"}}, {"route": "gemini_embeddings"}])") == "no error");
    CHECK(error_of(R"([{"route": "ollama", "reply": {"text": "x"}}, {"route": "ollama_embeddings"}])") == "no error");
    CHECK(error_of(R"([{"reply": {"block_reason": ""}}])") == "fake server script: steps[0].reply.block_reason: must not be empty");
    CHECK(error_of(R"({"step": []})").find("unknown key \"step\"") != std::string::npos);
    CHECK(error_of(R"([{"after_bytes": -1}])") == "fake server script: steps[0].after_bytes: must not be negative");
    CHECK(error_of(R"([{"match": 5}])").find("steps[0].match") != std::string::npos);

    // a script file drives a server
    temp_file file(R"({"steps": [{"reply": {"text": "from the file"}}]})", ".json");
    fake_server_options o;
    o.script = fake_script_from_file(file.path());
    fake_server server(o);
    const auto r = post_once(server, "/v1/chat/completions", chat_body("x"));
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "from the file");
}

TEST_CASE("TLS: a certificate made at run time verifies for localhost, not for another name") {
    const auto& certs = certificates();
    CHECK(certs.ca_certificate_pem.rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
    CHECK(certs.server_private_key_pem.find("PRIVATE KEY-----") != std::string::npos);
    fake_server server(tls_options(certs));
    CHECK(server.tls());
    CHECK(server.base_url() == "https://127.0.0.1:" + std::to_string(server.port()));

    // the CA from a file, as a user would give it
    temp_file ca_file(certs.ca_certificate_pem);
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.load_verify_file(ca_file.path().string());
    test_client good;
    REQUIRE_FALSE(good.connect_tls(server.port(), ctx, "localhost"));
    const auto r = good.post("/v1/chat/completions", chat_body("over TLS"));
    CHECK(r.status == 200);
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "over TLS");
    CHECK(server.last_request().tls);

    test_client wrong_host;
    const auto ec = wrong_host.connect_tls(server.port(), ctx, "example.com");
    CHECK(ec);
    CHECK(ec.category() == asio::error::get_ssl_category());

    // a client that does not know the CA fails too
    asio::ssl::context bare(asio::ssl::context::tls_client);
    test_client unknown_ca;
    CHECK(unknown_ca.connect_tls(server.port(), bare, "localhost"));

    // plain text on the TLS port is not served
    test_client plain;
    REQUIRE_FALSE(plain.connect(server.port()));
    plain.timeout = 2s;
    CHECK(plain.post("/v1/chat/completions", chat_body("x")).status == 0);
}

TEST_CASE("CONNECT proxy: a tunnel to a TLS server, with and without Proxy-Authorization") {
    const auto& certs = certificates();
    fake_server target(tls_options(certs));
    target.push(fake_step::text("through the tunnel"));
    fake_server_options po;
    po.proxy = true;
    fake_server proxy(po);
    const std::string authority = "127.0.0.1:" + std::to_string(target.port());

    auto ctx = client_tls_context(certs);
    test_client c;
    REQUIRE(c.connect_via_proxy(proxy.port(), authority) == 200);
    REQUIRE_FALSE(c.start_tls(ctx, "localhost"));
    auto r = c.post("/v1/chat/completions", chat_body("x"));
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "through the tunnel");
    r = c.post("/v1/chat/completions", chat_body("again"));  // keep-alive inside the tunnel
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "again");
    const auto connects = proxy.connect_requests();
    REQUIRE(connects.size() == 1);
    CHECK(connects[0].method == "CONNECT");
    CHECK(connects[0].target == authority);
    CHECK_FALSE(connects[0].has_header("proxy-authorization"));
    CHECK(target.request_count() == 2);
    CHECK(target.last_request().tls);

    // a proxy that wants credentials
    po.proxy_authorization = "Basic dXNlcjpwYXNz";
    fake_server strict(po);
    test_client refused;
    CHECK(refused.connect_via_proxy(strict.port(), authority) == 407);
    test_client wrong;
    CHECK(wrong.connect_via_proxy(strict.port(), authority, "Basic d3Jvbmc6d3Jvbmc=") == 407);
    test_client allowed;
    REQUIRE(allowed.connect_via_proxy(strict.port(), authority, "Basic dXNlcjpwYXNz") == 200);
    REQUIRE_FALSE(allowed.start_tls(ctx, "localhost"));
    CHECK(allowed.post("/v1/chat/completions", chat_body("with credentials")).status == 200);
    const auto seen = strict.connect_requests();
    REQUIRE(seen.size() == 3);
    CHECK(seen[2].header("proxy-authorization") == "Basic dXNlcjpwYXNz");

    // nothing listens there: 502
    test_client nowhere;
    CHECK(nowhere.connect_via_proxy(proxy.port(), "127.0.0.1:1") == 502);
    // a server that is not a proxy refuses CONNECT
    fake_server not_a_proxy;
    test_client refused_connect;
    CHECK(refused_connect.connect_via_proxy(not_a_proxy.port(), authority) == 405);
}

TEST_CASE("one TLS server as its own proxy; absolute-form requests are served") {
    const auto& certs = certificates();
    auto o = tls_options(certs);
    o.proxy = true;
    fake_server server(o);
    auto ctx = client_tls_context(certs);
    test_client c;
    REQUIRE(c.connect_via_proxy(server.port(), "localhost:" + std::to_string(server.port())) == 200);
    REQUIRE_FALSE(c.start_tls(ctx, "localhost"));
    CHECK(c.post("/v1/chat/completions", chat_body("self")).status == 200);
    CHECK(server.connections_accepted() == 2);
    CHECK(server.connect_requests().size() == 1);
    CHECK(server.last_request().tls);

    fake_server_options po;
    po.proxy = true;
    fake_server plain_proxy(po);
    test_client abs;
    REQUIRE_FALSE(abs.connect(plain_proxy.port()));
    const auto r = abs.post("http://api.example.com/v1/chat/completions", chat_body("absolute"));
    CHECK(str(r.json_body().at("choices").at(0).at("message").at("content")) == "absolute");
    CHECK(plain_proxy.last_request().target == "http://api.example.com/v1/chat/completions");
}

TEST_CASE("1000 concurrent streamed requests, each on its own connection, to a server of two threads") {
    fake_server_options o;
    o.threads = 2;
    o.record = false;
    fake_server server(o);
    constexpr int count = 1000;
    asio::io_context ioc;
    std::vector<int> ok(count, 0);
    auto one = [&](int i) -> asio::awaitable<void> {
        beast::tcp_stream s(co_await asio::this_coro::executor);
        s.expires_after(60s);
        auto [cec] = co_await s.async_connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()),
                                              asio::as_tuple(asio::use_awaitable));
        if (cec) co_return;
        beast::flat_buffer buffer;
        const std::string text = "request " + std::to_string(i);
        auto r = co_await exchange(s, buffer, make_request(http::verb::post, "/v1/chat/completions", chat_body(text, true)), 60s, 60s);
        if (r.ec || r.status != 200) co_return;
        std::string content;
        for (const auto& e : parse_sse(r.body)) {
            boost::system::error_code ec;
            const auto v = json::parse(e.data, ec);
            if (ec || !v.is_object() || !v.as_object().contains("choices")) continue;
            const auto* c = v.at_pointer("/choices/0/delta").as_object().if_contains("content");
            if (c && c->is_string()) content += std::string(c->get_string());
        }
        ok[static_cast<std::size_t>(i)] = content == text;
    };
    for (int i = 0; i < count; ++i) asio::co_spawn(ioc, one(i), asio::detached);
    ioc.run();
    CHECK(std::count(ok.begin(), ok.end(), 1) == count);
    CHECK(server.connections_accepted() == count);
    CHECK(server.request_count() == count);
    CHECK(server.requests().empty());  // record = false
}

TEST_CASE("stop closes the connections; start serves again on the same port") {
    fake_server server;
    const auto port = server.port();
    server.push(fake_step::with_fault(fake_fault::stall, 0));
    test_client c;
    c.timeout = c.body_timeout = 10s;
    REQUIRE_FALSE(c.connect(port));
    std::thread stopper([&] {
        for (int i = 0; i < 5000 && server.request_count() == 0; ++i) std::this_thread::sleep_for(1ms);
        server.stop();
    });
    const auto r = c.post("/v1/chat/completions", chat_body("x", true));
    stopper.join();
    CHECK(r.ec);
    CHECK(r.ec != beast::error::timeout);  // the stop ended the stall, not the client's patience
    CHECK_FALSE(server.running());
    server.start();
    CHECK(server.port() == port);
    CHECK(post_once(server, "/v1/chat/completions", chat_body("back")).status == 200);
}

TEST_CASE("usage details: cached and reasoning tokens on OpenAI, cache reads and writes on Anthropic") {
    fake_server server;
    fake_step openai_step = fake_step::text("Counted.");
    openai_step.reply->usage = fake_usage{1200, 30, 1024, 0, 12};
    server.push(openai_step);
    auto r = post_once(server, "/v1/chat/completions", chat_body("Hi"));
    REQUIRE(r.status == 200);
    auto v = r.json_body();
    // the shape of OpenAI's usage object, details included
    CHECK(v.at("usage") == json::parse(R"({"prompt_tokens": 1200, "completion_tokens": 30, "total_tokens": 1230,
        "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 12, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                      "rejected_prediction_tokens": 0}})"));

    fake_step anthropic_step = fake_step::text("Counted.");
    anthropic_step.reply->usage = fake_usage{2510, 40, 500, 2000, 0};
    server.push(anthropic_step);
    r = post_once(server, "/v1/messages", anthropic_body("Hi"), anthropic_headers);
    REQUIRE(r.status == 200);
    v = r.json_body();
    // Anthropic's input_tokens leave out what was read from and written to the cache
    CHECK(v.at("usage") == json::parse(R"({"input_tokens": 10, "cache_creation_input_tokens": 2000,
        "cache_read_input_tokens": 500, "cache_creation": {"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 40, "output_tokens_details": {"thinking_tokens": 0}, "server_tool_use": null,
        "service_tier": "standard", "inference_geo": null, "speed": null})"));
}

TEST_CASE("batch APIs: their routes, a multipart upload, a batch through its states, the script's batch options") {
    CHECK(fake_route_of_path("/v1/files") == fake_route::files);
    CHECK(fake_route_of_path("/v1/files/file-1") == fake_route::files);
    CHECK(fake_route_of_path("/v1/files/file-1/content") == fake_route::files);
    CHECK(fake_route_of_path("/v1/batches") == fake_route::batches);
    CHECK(fake_route_of_path("/v1/batches/batch_1/cancel") == fake_route::batches);
    CHECK(fake_route_of_path("/v1/messages/batches") == fake_route::message_batches);
    CHECK(fake_route_of_path("/v1/messages/batches/m1?x=1") == fake_route::message_batches);
    CHECK(fake_route_of_path("/v1/messages/batches/m1/results") == fake_route::message_batches);
    CHECK(fake_route_of_path("/v1/messages") == fake_route::anthropic);
    CHECK(fake_route_of_path("/batches/chat/completions") == fake_route::openai);

    const auto script = fake_script_from_json(json::parse(R"({"steps": [{"reply": {"text": "A"}}],
        "batch": {"polls": 0, "per_poll": 2, "expire": true, "max_requests": 5, "max_bytes": 100}})"));
    CHECK(script.batch.polls == 0);
    CHECK(script.batch.per_poll == 2);
    CHECK(script.batch.expire);
    CHECK(script.batch.max_requests == 5);
    CHECK(script.batch.max_bytes == 100);
    CHECK_THROWS_WITH_AS((void)fake_script_from_json(json::parse(R"({"steps": [], "batch": {"poll": 1}})")),
                         "fake server script: batch: unknown key \"poll\" (known: polls, per_poll, expire, max_requests, max_bytes)",
                         std::invalid_argument);

    fake_server_options o;
    o.script = fake_script_from_json(json::parse(R"({"steps": [{"reply": {"text": "A"}}], "batch": {"polls": 0}})"));
    fake_server server(o);
    test_client c;
    REQUIRE_FALSE(c.connect(server.port()));
    const std::string line = R"({"custom_id":"x","method":"POST","url":"/v1/chat/completions","body":)" + chat_body("hi") + "}\n";
    auto r = c.post("/v1/files",
                    "--B0\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n" +
                        line + "\r\n--B0\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--B0--\r\n",
                    {{"content-type", "multipart/form-data; boundary=B0"}});
    REQUIRE(r.status == 200);
    const std::string file_id = str(r.json_body().at("id"));
    CHECK(r.json_body().at("bytes").as_int64() == static_cast<std::int64_t>(line.size()));
    r = c.get("/v1/files/" + file_id + "/content");
    CHECK(r.body == line);
    r = c.post("/v1/files", "{}", {});
    CHECK(r.status == 400);
    r = c.post("/v1/batches", R"({"input_file_id":")" + file_id + R"(","endpoint":"/v1/chat/completions","completion_window":"24h"})");
    REQUIRE(r.status == 200);
    const std::string batch = str(r.json_body().at("id"));
    CHECK(str(r.json_body().at("status")) == "validating");
    r = c.get("/v1/batches/" + batch);
    CHECK(str(r.json_body().at("status")) == "completed");
    r = c.get("/v1/files/" + str(r.json_body().at("output_file_id")) + "/content");
    const auto out = json::parse(r.body);
    CHECK(str(out.at("custom_id")) == "x");
    CHECK(str(out.at("response").at("body").at("choices").at(0).at("message").at("content")) == "A");
    CHECK(c.get("/v1/batches/" + batch + "/cancel").status == 405);
    CHECK(c.get("/v1/batches/" + batch + "/other").status == 404);

    // Anthropic's: anthropic-version required; the results URL names the host the request named
    r = c.post("/v1/messages/batches", R"({"requests":[]})");
    CHECK(r.status == 400);
    const std::vector<std::pair<std::string, std::string>> version{{"anthropic-version", "2023-06-01"}};
    r = c.post("/v1/messages/batches",
               R"({"requests":[{"custom_id":"a","params":{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"yo"}]}}]})",
               version);
    REQUIRE(r.status == 200);
    const std::string id = str(r.json_body().at("id"));
    http::request<http::string_body> get{http::verb::get, "/v1/messages/batches/" + id, 11};
    get.set(http::field::host, "localhost");
    get.set("anthropic-version", "2023-06-01");
    r = c.send(get);
    CHECK(str(r.json_body().at("processing_status")) == "ended");
    CHECK(str(r.json_body().at("results_url")) == "http://localhost/v1/messages/batches/" + id + "/results");
    get.target("/v1/messages/batches/" + id + "/results");
    r = c.send(get);
    const auto result = json::parse(r.body);
    CHECK(str(result.at("result").at("type")) == "succeeded");
    CHECK(str(result.at("result").at("message").at("content").at(0).at("text")) == "yo");
}
