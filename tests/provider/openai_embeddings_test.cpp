// Tests of parley/provider/openai/embeddings.hpp: the request body, replies with float and base64
// vectors, ordering by index, errors and limits.
#include <parley/provider/openai/embeddings.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace parley;

TEST_CASE("openai::encode_embedding_request") {
    openai::embedding_request r;
    r.model = "text-embedding-3-small";
    r.input = {"The food was delicious and the waiter...", "second"};
    CHECK(openai::encode_embedding_request(r) ==
          boost::json::parse(R"({"model":"text-embedding-3-small","input":["The food was delicious and the waiter...","second"]})"));
    r.dimensions = 256;
    r.encoding_format = "float";
    r.user = "user-1234";
    CHECK(openai::encode_embedding_request(r) ==
          boost::json::parse(R"({"model":"text-embedding-3-small","input":["The food was delicious and the waiter...","second"],)"
                             R"("dimensions":256,"encoding_format":"float","user":"user-1234"})"));

    auto bad = r;
    bad.model.clear();
    CHECK_THROWS_WITH_AS(openai::encode_embedding_request(bad), "the embeddings request has no model", parley::error);
    bad = r;
    bad.input.clear();
    CHECK_THROWS_WITH_AS(openai::encode_embedding_request(bad), "the embeddings request has no input", parley::error);
    bad = r;
    bad.input[1].clear();
    CHECK_THROWS_WITH_AS(openai::encode_embedding_request(bad), "input 1 of the embeddings request is empty", parley::error);
    bad = r;
    bad.dimensions = 0;
    CHECK_THROWS_WITH_AS(openai::encode_embedding_request(bad), "'dimensions' of an embeddings request is at least 1, found 0",
                         parley::error);
    bad = r;
    bad.encoding_format = "int8";
    CHECK_THROWS_WITH_AS(openai::encode_embedding_request(bad), "'encoding_format' is \"float\" or \"base64\", found \"int8\"",
                         parley::error);
}

TEST_CASE("openai::decode_embedding_reply: the API reference's shape") {
    http_headers h;
    h.add("x-request-id", "req_e");
    const auto r = openai::decode_embedding_reply(200, h, R"({
  "object": "list",
  "data": [
    {"object": "embedding", "embedding": [0.0023064255, -0.009327292, -0.0028842222], "index": 0}
  ],
  "model": "text-embedding-ada-002",
  "usage": {"prompt_tokens": 8, "total_tokens": 8}
})");
    REQUIRE_MESSAGE(r.has_value(), r.error().what());
    CHECK(r->model == "text-embedding-ada-002");
    REQUIRE(r->data.size() == 1);
    CHECK(r->data[0] == std::vector<float>{0.0023064255f, -0.009327292f, -0.0028842222f});
    REQUIRE(r->usage);
    CHECK(r->usage->prompt_tokens == 8);
    CHECK(r->usage->total_tokens == 8);
    CHECK(r->usage->completion_tokens == 0);
    CHECK(r->status == 200);
    CHECK(r->headers.request_id() == "req_e");
}

TEST_CASE("openai::decode_embedding_reply: base64 vectors, order by index") {
    // Made with Node as the official SDK reads them back (toFloat32Array):
    // Buffer.from(new Float32Array([0.5, -1.25, 0.003, 1e10]).buffer).toString('base64')
    const auto r = openai::decode_embedding_reply(200, {}, R"({"object":"list","model":"m","data":[
        {"object":"embedding","index":1,"embedding":"AACAPgAAAEA="},
        {"object":"embedding","index":0,"embedding":"AAAAPwAAoL+mm0Q7+QIVUA=="}]})");
    REQUIRE_MESSAGE(r.has_value(), r.error().what());
    REQUIRE(r->data.size() == 2);
    CHECK(r->data[0] == std::vector<float>{0.5f, -1.25f, 0.003f, 1e10f});
    CHECK(r->data[1] == std::vector<float>{0.25f, 2.0f});
    CHECK_FALSE(r->usage);
}

TEST_CASE("openai::decode_embedding_reply: errors and limits") {
    auto failure = [](std::string_view body, const reply_limits& l = {}) {
        auto r = openai::decode_embedding_reply(200, {}, body, l);
        REQUIRE_FALSE(r.has_value());
        return r.error();
    };
    const auto api = openai::decode_embedding_reply(
        400, {}, R"({"error":{"message":"'$.input' is invalid.","type":"invalid_request_error","param":null,"code":null}})");
    REQUIRE_FALSE(api.has_value());
    CHECK(api.error().code == errc::api_error);
    CHECK(api.error().message == "'$.input' is invalid.");

    CHECK(failure(R"({"data":{}})").message == "embeddings list: data: expected an array, found an object");
    CHECK(failure(R"({"data":[{"index":0,"embedding":[1,"x"]}]})").message ==
          "embeddings list: data[0].embedding[1]: expected a number, found a string (\"x\")");
    CHECK(failure(R"({"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]})").message ==
          "embeddings list: data[1].index: expected each index once, found 0 twice");
    CHECK(failure(R"({"data":[{"index":3,"embedding":[1]}]})").message ==
          "embeddings list: data[0].index: expected an index below 1, found 3");
    CHECK(failure(R"({"data":[{"index":0,"embedding":"AAA"}]})").message ==
          "embeddings list: data[0].embedding: expected base64 of float32 values (a multiple of 4 bytes), found 3 base64 characters");
    CHECK(failure(R"({"data":[{"index":0,"embedding":"AAA*AA=="}]})").message ==
          "embeddings list: data[0].embedding: expected base64, found the character '*'");
    CHECK(failure(R"({"data":[{"index":0}]})").message ==
          "embeddings list: data[0].embedding: expected an array of numbers or a base64 string, found nothing");

    reply_limits l;
    l.max_embeddings = 1;
    CHECK(failure(R"({"data":[{"embedding":[1]},{"embedding":[2]}]})", l).message ==
          "embeddings list: data: expected at most max_embeddings (1), found 2");
    l = {};
    l.max_embedding_dimensions = 2;
    CHECK(failure(R"({"data":[{"embedding":[1,2,3]}]})", l).message ==
          "embeddings list: data[0].embedding: expected at most max_embedding_dimensions (2) numbers, found 3");
    CHECK(failure(R"({"data":[{"embedding":"AAAAPwAAoL+mm0Q7"}]})", l).message ==
          "embeddings list: data[0].embedding: expected at most max_embedding_dimensions (2) numbers, found 3");
}
