// Tests of parley/provider/azure/: the paths, query and header of Azure OpenAI's chat
// completions, Responses API and embeddings, as the official `openai` npm package's AzureOpenAI
// client requests them (its source: `{endpoint}/openai` as the base URL, `/deployments/{model}`
// before /chat/completions and /embeddings but not /responses, `api-version` in every query,
// `api-key` in place of Authorization), and the decoding of Azure's replies: the content filter's
// error body (HTTP 400, code content_filter, innererror.content_filter_result) as Azure OpenAI's
// documentation shows it, `finish_reason: content_filter`, `prompt_filter_results` and
// `content_filter_results`, and the first streamed chunk Azure sends (no choices, empty id).
#include <parley/provider/azure.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace parley;

namespace {

azure::options azure_opts(std::string version = "2024-10-21", std::string deployment = {}) {
    azure::options o;
    o.api_version = std::move(version);
    o.deployment = std::move(deployment);
    return o;
}

chat_request azure_request(std::string model = "gpt-4o-deploy") {
    chat_request r;
    r.params.model = std::move(model);
    r.messages.push_back(make_message(role::user, "Hello"));
    return r;
}

const char* const azure_filter_error = R"({"error": {
"message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
"type": null, "param": "prompt",
"code": "content_filter", "status": 400, "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": {
"hate": {"filtered": false, "severity": "safe"}, "jailbreak": {"filtered": true, "detected": true},
"self_harm": {"filtered": false, "severity": "safe"}, "sexual": {"filtered": false, "severity": "safe"},
"violence": {"filtered": true, "severity": "medium"}}}}})";

}  // namespace

TEST_CASE("azure: the paths, api-version and api-key of the SDK's AzureOpenAI client") {
    azure::chat_api chat(azure_opts());
    CHECK(chat.name() == "azure");
    CHECK(chat.default_base_url().empty());
    CHECK(chat.chat_target(azure_request(), false) == "/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21");
    CHECK(chat.chat_target(azure_request(), true) == "/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21");
    embedding_request e;
    e.model = "embed-deploy";
    e.input = {"x"};
    CHECK(chat.embed_target(e) == "/deployments/embed-deploy/embeddings?api-version=2024-10-21");
    http_headers h;
    chat.add_auth(h, "azure-key-0123456789");
    CHECK(h.get("api-key") == "azure-key-0123456789");
    CHECK(h.get("authorization").empty());
    http_headers none;
    chat.add_auth(none, "");
    CHECK(none.fields().empty());
    // the body is OpenAI's, model included
    CHECK(boost::json::parse(chat.encode(azure_request(), false)) ==
          boost::json::parse(R"({"model": "gpt-4o-deploy", "messages": [{"role": "user", "content": "Hello"}]})"));

    // a configured deployment in place of the model
    azure::chat_api fixed(azure_opts("2025-04-01-preview", "prod-gpt"));
    CHECK(fixed.chat_target(azure_request("gpt-4o"), false) ==
          "/deployments/prod-gpt/chat/completions?api-version=2025-04-01-preview");

    azure::responses_api responses(azure_opts("2025-04-01-preview"));
    CHECK(responses.name() == "azure-responses");
    CHECK(responses.chat_target(azure_request(), true) == "/responses?api-version=2025-04-01-preview");
    CHECK(responses.embed_target(e) == "/deployments/embed-deploy/embeddings?api-version=2025-04-01-preview");
    CHECK(boost::json::parse(responses.encode(azure_request(), true)).at("model") == "gpt-4o-deploy");

    // the API version is required, and goes into the query as it is
    CHECK_THROWS_WITH_AS(azure::chat_api(azure_opts("")),
                         "Azure OpenAI needs an API version (the api-version query): set client_config::azure.api_version or "
                         "OPENAI_API_VERSION, for instance 2024-10-21",
                         parley::error);
    CHECK_THROWS_AS(azure::responses_api(azure_opts("2024-10-21&x=1")), parley::error);
    // a deployment name is a path segment
    CHECK_THROWS_WITH_AS(chat.chat_target(azure_request("../admin"), false),
                         "the Azure OpenAI deployment name '../admin' has a character other than letters, digits and -._ "
                         "(it is part of the request path)",
                         parley::error);
    CHECK_THROWS_AS(chat.chat_target(azure_request(""), false), parley::error);
    e.model = "a/b";
    CHECK_THROWS_AS(chat.embed_target(e), parley::error);
}

TEST_CASE("azure::decode_error: the content filter's 400, with the filtered categories named") {
    const auto e = azure::decode_error(400, {}, azure_filter_error);
    CHECK(e.code == errc::api_error);
    CHECK(e.status == 400);
    CHECK(e.api_code == "content_filter");
    CHECK(e.type == "content_filter");
    CHECK(e.param == "prompt");
    CHECK(e.message.rfind("The response was filtered due to the prompt triggering", 0) == 0);
    CHECK(e.message.ends_with(
        " (Azure content filter: jailbreak (detected), violence (medium); ResponsibleAIPolicyViolation)"));
    // through the wire APIs, for a non-streamed call and for an embeddings call
    azure::chat_api chat(azure_opts());
    auto r = chat.decode_reply(400, {}, azure_filter_error);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message == e.message);
    azure::responses_api responses(azure_opts());
    CHECK(responses.decode_error(400, {}, azure_filter_error).message == e.message);
    CHECK(chat.decode_embedding(400, {}, azure_filter_error).error().type == "content_filter");
    // other errors stay as OpenAI's; Azure's gateway errors have a code and a message
    const auto denied = azure::decode_error(401, {}, R"({"error": {"code": "401",
        "message": "Access denied due to invalid subscription key or wrong API endpoint."}})");
    CHECK(denied.code == errc::api_error);
    CHECK(denied.api_code == "401");
    CHECK(denied.type.empty());
    CHECK(denied.message.rfind("Access denied", 0) == 0);
    const auto nf = azure::decode_error(404, {}, R"({"error": {"code": "DeploymentNotFound",
        "message": "The API deployment for this resource does not exist."}})");
    CHECK(nf.api_code == "DeploymentNotFound");
    // a filter error without an innererror still says so
    const auto bare = azure::decode_error(400, {}, R"({"error": {"code": "content_filter", "message": "Filtered."}})");
    CHECK(bare.message == "Filtered. (Azure content filter)");
}

TEST_CASE("azure: replies with Azure's filter results; finish_reason content_filter; the first streamed chunk") {
    azure::chat_api chat(azure_opts());
    auto r = chat.decode_reply(200, {}, R"({"choices": [{"content_filter_results": {"hate": {"filtered": false,
        "severity": "safe"}, "violence": {"filtered": true, "severity": "medium"}}, "finish_reason": "content_filter",
        "index": 0, "logprobs": null, "message": {"content": "It was a dark", "refusal": null, "role": "assistant"}}],
        "created": 1730000000, "id": "chatcmpl-azure1", "model": "gpt-4o-2024-11-20", "object": "chat.completion",
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {"hate": {"filtered": false,
        "severity": "safe"}}}], "system_fingerprint": "fp_azure", "usage": {"completion_tokens": 4, "prompt_tokens": 9,
        "total_tokens": 13}})");
    REQUIRE(r.has_value());
    CHECK(r->text() == "It was a dark");
    CHECK(r->choices[0].finish == finish_reason::content_filter);
    CHECK(r->choices[0].finish_text == "content_filter");
    CHECK(r->model == "gpt-4o-2024-11-20");

    auto decoder = chat.stream_decoder({}, 200);
    std::vector<stream_event> out;
    for (const char* data :
         {R"({"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]})",
          R"({"choices":[{"content_filter_results":{},"delta":{"content":"","refusal":null,"role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],"created":1730000001,"id":"chatcmpl-azure2","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk","system_fingerprint":"fp_azure"})",
          R"({"choices":[{"content_filter_results":{"violence":{"filtered":false,"severity":"safe"}},"delta":{"content":"Hi"},"finish_reason":null,"index":0,"logprobs":null}],"created":1730000001,"id":"chatcmpl-azure2","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk"})",
          R"({"choices":[{"content_filter_results":{"violence":{"filtered":true,"severity":"high"}},"delta":{},"finish_reason":"content_filter","index":0,"logprobs":null}],"created":1730000001,"id":"chatcmpl-azure2","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk"})",
          "[DONE]"}) {
        REQUIRE_FALSE(decoder->feed("", data, out).has_value());
    }
    CHECK(decoder->done());
    const chat_reply streamed = decoder->take_reply();
    CHECK(streamed.id == "chatcmpl-azure2");
    CHECK(streamed.model == "gpt-4o-2024-11-20");
    CHECK(streamed.text() == "Hi");
    CHECK(streamed.choices[0].finish == finish_reason::content_filter);
}
