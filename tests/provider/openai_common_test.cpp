// Tests of parley/provider/openai/common.hpp: decode_error on the error bodies of the OpenAI API
// and of compatible servers, bounded excerpts, redaction, JSON depth.
#include <parley/provider/openai/common.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace parley;

TEST_CASE("openai::decode_error: the API's error object") {
    http_headers h;
    h.add("x-request-id", "req_abc");
    h.add("retry-after", "20");
    SUBCASE("401, as the API answers a wrong key (the key masked by the server)") {
        const auto e = openai::decode_error(
            401, h,
            R"({"error":{"message":"Incorrect API key provided: sk-proj-************************************GDYA. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})");
        CHECK(e.code == errc::api_error);
        CHECK(e.status == 401);
        CHECK(e.type == "invalid_request_error");
        CHECK(e.api_code == "invalid_api_key");
        CHECK(e.param.empty());
        CHECK(e.message ==
              "Incorrect API key provided: sk-proj-************************************GDYA. You can find your API key at "
              "https://platform.openai.com/account/api-keys.");
        CHECK(e.headers.request_id() == "req_abc");
        CHECK(e.headers.get("retry-after") == "20");
        CHECK(e.what() ==
              "error reported by the model API (HTTP 401) [invalid_request_error]: " + e.message + " (code 'invalid_api_key')");
    }
    SUBCASE("400 with a param") {
        const auto e = openai::decode_error(
            400, {},
            R"({"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})");
        CHECK(e.code == errc::api_error);
        CHECK(e.param == "messages");
        CHECK(e.api_code == "context_length_exceeded");
    }
    SUBCASE("429 with a numeric code, and a code that is a number") {
        const auto e = openai::decode_error(
            429, {}, R"({"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":429}})");
        CHECK(e.code == errc::api_error);
        CHECK(e.type == "requests");
        CHECK(e.api_code == "429");
    }
    SUBCASE("a bare error string (Ollama)") {
        const auto e = openai::decode_error(404, {}, R"({"error":"model \"llama9\" not found, try pulling it first"})");
        CHECK(e.code == errc::api_error);
        CHECK(e.message == "model \"llama9\" not found, try pulling it first");
        CHECK(e.type.empty());
    }
    SUBCASE("an error object without a message: the object itself, as the SDK words it") {
        const auto e = openai::decode_error(500, {}, R"({"error":{"type":"server_error"}})");
        CHECK(e.code == errc::api_error);
        CHECK(e.message == R"({"type":"server_error"})");
    }
}

TEST_CASE("openai::decode_error: bodies that are not an error object") {
    SUBCASE("HTML from a proxy") {
        const auto e = openai::decode_error(502, {}, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n</html>");
        CHECK(e.code == errc::http_status);
        CHECK(e.status == 502);
        CHECK(e.message == "<html> <head><title>502 Bad Gateway</title></head> </html>");
        CHECK(e.type.empty());
    }
    SUBCASE("JSON of another shape") {
        const auto e = openai::decode_error(404, {}, R"({"detail":"Not Found"})");
        CHECK(e.code == errc::http_status);
        CHECK(e.message == R"({"detail":"Not Found"})");
    }
    SUBCASE("an empty body") {
        const auto e = openai::decode_error(503, {}, "");
        CHECK(e.code == errc::http_status);
        CHECK(e.message.empty());
        CHECK(e.what() == "HTTP error status (HTTP 503)");
    }
    SUBCASE("a long body is cut at a character boundary") {
        std::string body(151, 'a');
        for (int i = 0; i < 100; ++i) body += "\xC3\xA9";  // é
        const auto e = openai::decode_error(500, {}, body);
        CHECK(e.message.size() == 199 + 3);  // 151 + 24 two-byte characters, then "..."
        CHECK(e.message.substr(e.message.size() - 5) == "\xC3\xA9...");
    }
    SUBCASE("JSON nested too deep") {
        const auto e = openai::decode_error(500, {}, std::string(150, '[') + std::string(150, ']'));
        CHECK(e.code == errc::http_status);
        CHECK(e.message.size() == 200 + 3);
    }
}

TEST_CASE("openai::decode_error: what looks like a key is redacted") {
    const auto e = openai::decode_error(
        401, {}, R"({"error":{"message":"bad key sk-proj-AbCdEfGhIjKlMnOpQrStUv0123 sent as Bearer abcdefghijkl","type":"x"}})");
    CHECK(e.message == "bad key sk-[redacted] sent as Bearer [redacted]");
    const auto plain = openai::decode_error(401, {}, "unauthorized: sk-0123456789abcdefghij");
    CHECK(plain.message == "unauthorized: sk-[redacted]");
    // a key that the excerpt's bound would cut short is redacted all the same
    const auto near_end = openai::decode_error(500, {}, std::string(190, 'x') + " sk-0123456789abcdefghijklmnop and more");
    CHECK(near_end.message == std::string(190, 'x') + " sk-[redac...");
    CHECK(near_end.message.find("0123") == std::string::npos);
    // short words after "sk-" are not keys
    CHECK(openai::decode_error(400, {}, "task-sk-ab").message == "task-sk-ab");
}
