// Tests of parley/mcp/jsonrpc.hpp: reading JSON-RPC 2.0 messages and batches (with the error
// each kind of bad message gives), the limits, writing messages, and the stdio line framing.
#include <parley/mcp/jsonrpc.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace jsonrpc_tests {

std::string decode_error(std::string_view text, const parley::mcp::message_limits& limits = parley::mcp::message_limits()) {
    auto r = parley::mcp::decode(text, limits);
    return r ? std::string("(no error)") : r.error();
}

}  // namespace jsonrpc_tests

TEST_CASE("jsonrpc: requests, notifications, results and errors are read with their members") {
    using parley::mcp::rpc_message;
    auto one = parley::mcp::decode(R"({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo"}})");
    REQUIRE(one.has_value());
    REQUIRE(one->size() == 1);
    CHECK(one->front().type == rpc_message::kind::request);
    CHECK(one->front().id == 7);
    CHECK(one->front().method == "tools/call");
    CHECK(one->front().params == boost::json::parse(R"({"name": "echo"})"));

    auto batch = parley::mcp::decode(R"([{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}},
        {"jsonrpc": "2.0", "id": "a", "result": {"tools": []}},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "no such method", "data": [1]}}])");
    REQUIRE(batch.has_value());
    REQUIRE(batch->size() == 3);
    CHECK((*batch)[0].type == rpc_message::kind::notification);
    CHECK((*batch)[1].type == rpc_message::kind::result);
    CHECK((*batch)[1].id == "a");
    CHECK((*batch)[2].type == rpc_message::kind::error);
    CHECK((*batch)[2].error_code == -32601);
    CHECK((*batch)[2].error_message == "no such method");
    CHECK((*batch)[2].error_data == boost::json::parse("[1]"));
}

TEST_CASE("jsonrpc: what is not a message is an error that says why") {
    using jsonrpc_tests::decode_error;
    CHECK(decode_error("nope").find("not a JSON message (") == 0);
    CHECK(decode_error("[]") == "an empty batch");
    CHECK(decode_error("5") == "expected a JSON-RPC message (an object), found an integer");
    CHECK(decode_error(R"({"id": 1, "result": {}})") == "expected \"jsonrpc\": \"2.0\", found nothing");
    CHECK(decode_error(R"({"jsonrpc": "1.0", "id": 1, "result": {}})") == "expected \"jsonrpc\": \"2.0\", found \"1.0\"");
    CHECK(decode_error(R"({"jsonrpc": "2.0", "id": 1.5, "result": {}})") ==
          "expected \"id\" to be a string or an integer, found a number");
    CHECK(decode_error(R"({"jsonrpc": "2.0", "method": 3})") == "expected \"method\" to be a string, found an integer");
    CHECK(decode_error(R"({"jsonrpc": "2.0", "method": "m", "params": "x"})") ==
          "expected \"params\" of m to be an object or an array, found a string");
    CHECK(decode_error(R"({"jsonrpc": "2.0", "result": {}})") == "a message without \"method\" is a response and needs an \"id\"");
    CHECK(decode_error(R"({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}})") ==
          "a response has either \"result\" or \"error\", not both");
    CHECK(decode_error(R"({"jsonrpc": "2.0", "id": 1})") == "a response needs \"result\" or \"error\"");
    CHECK(decode_error(R"({"jsonrpc": "2.0", "id": 1, "error": {"message": "x"}})") == "expected \"error.code\" to be an integer");
    CHECK(decode_error(R"([{"jsonrpc": "2.0", "method": "a"}, 7])") ==
          "batch message 1: expected a JSON-RPC message (an object), found an integer");

    parley::mcp::message_limits small;
    small.max_message = 40;
    small.max_depth = 3;
    small.max_batch = 1;
    CHECK(decode_error(std::string(41, ' '), small) == "a message of 41 bytes, more than the limit of 40");
    CHECK(decode_error(R"([[[[1]]]])", small).find("not a JSON message (") == 0);
    CHECK(decode_error(R"([{"jsonrpc":"2.0","method":"a"},{}])", small) == "a batch of 2 messages, more than the limit of 1");
}

TEST_CASE("jsonrpc: messages written read back the same") {
    auto r = parley::mcp::decode(parley::mcp::encode_request(4, "tools/list", boost::json::object{{"cursor", "c"}}));
    REQUIRE(r.has_value());
    CHECK(r->front().id == 4);
    CHECK(r->front().params == boost::json::parse(R"({"cursor": "c"})"));
    CHECK(parley::mcp::encode_notification("notifications/initialized", nullptr) ==
          R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    CHECK(parley::mcp::encode_result("s1", boost::json::object()) == R"({"jsonrpc":"2.0","id":"s1","result":{}})");
    CHECK(parley::mcp::encode_error(9, -32601, "no") == R"({"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"no"}})");
}

TEST_CASE("jsonrpc: line_reader splits at newlines, across feeds, and stops at a line beyond its limit") {
    parley::mcp::line_reader lines(10);
    std::vector<std::string> got;
    auto keep = [&](std::string_view l) { got.emplace_back(l); };
    CHECK_FALSE(lines.feed("ab", keep));
    CHECK_FALSE(lines.feed("c\r\n\n12", keep));
    CHECK(lines.pending() == 2);
    CHECK_FALSE(lines.feed("3\nxy\n", keep));
    CHECK(got == std::vector<std::string>{"abc", "123", "xy"});
    const auto too_long = lines.feed("0123456789X", keep);
    REQUIRE(too_long);
    CHECK(*too_long == "a line of more than 10 bytes (the limit of one message)");
    CHECK(lines.feed("\n", keep));  // nothing more is read
    CHECK(got.size() == 3);
}
