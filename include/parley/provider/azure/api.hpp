// parley/provider/azure/api.hpp: Azure OpenAI as two wire_apis, over the OpenAI codecs: chat
// completions at {base}/deployments/{deployment}/chat/completions?api-version=V, the Responses
// API at {base}/responses?api-version=V (base: the resource's `{endpoint}/openai`), embeddings at
// {base}/deployments/{deployment}/embeddings?api-version=V; the key as `api-key: KEY`. The paths
// are those the official SDKs' AzureOpenAI clients request.
#ifndef PARLEY_PROVIDER_AZURE_API_HPP
#define PARLEY_PROVIDER_AZURE_API_HPP

#include <parley/provider/azure/common.hpp>
#include <parley/provider/openai/embeddings.hpp>
#include <parley/provider/openai/reply.hpp>
#include <parley/provider/openai/request.hpp>
#include <parley/provider/openai/stream.hpp>
#include <parley/provider/responses/reply.hpp>
#include <parley/provider/responses/request.hpp>
#include <parley/provider/responses/stream.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/json/serialize.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace parley::azure {

namespace detail {

/// What both Azure wire APIs share: no default base URL (each resource has its own), the
/// api-key header, the api-version query (checked when the API is made), embeddings through a
/// deployment, and the errors of the content filter.
class azure_base : public wire_api {
public:
    azure_base(options o, reply_limits limits) : options_(std::move(o)), limits_(limits), query_(api_version_query(options_.api_version)) {}

    /// None: the configuration gives the resource's `https://RESOURCE.openai.azure.com/openai`.
    std::string_view default_base_url() const noexcept override { return {}; }
    /// `api-key: KEY` (a Microsoft Entra ID token goes in the configuration's header fields
    /// instead, as `Authorization: Bearer TOKEN`, with the key left empty).
    void add_auth(http_headers& fields, const std::string& api_key) const override {
        if (!api_key.empty()) fields.add("api-key", api_key);
    }
    call_error decode_error(int status, http_headers headers, std::string_view body) const override {
        return azure::decode_error(status, std::move(headers), body, limits_);
    }
    std::string embed_target(const embedding_request& request) const override {
        return deployment_path(options_, request.model, errc::invalid_argument) + "/embeddings" + query_;
    }
    std::string encode_embedding(const embedding_request& request) const override {
        return boost::json::serialize(openai::encode_embedding_request(request));
    }
    boost::system::result<embedding_reply, call_error> decode_embedding(int status, http_headers headers,
                                                                        std::string_view body) const override {
        if (status < 200 || status > 299) return azure::decode_error(status, std::move(headers), body, limits_);
        return openai::decode_embedding_reply(status, std::move(headers), body, limits_);
    }

protected:
    options options_;
    reply_limits limits_;
    std::string query_;  ///< "?api-version=V"
};

}  // namespace detail

/// Azure OpenAI's chat completions: the OpenAI chat completions codec (openai::encode_options
/// applies; the body keeps `model`), the deployment in the path. Throws parley::error
/// (errc::invalid_argument) when made without an API version or with one that cannot be a query
/// value.
class chat_api final : public detail::azure_base {
public:
    explicit chat_api(options o, openai::encode_options encode = {}, reply_limits limits = {})
        : azure_base(std::move(o), limits), encode_(encode) {}

    std::string_view name() const noexcept override { return "azure"; }
    std::string_view chat_path() const noexcept override { return "/chat/completions"; }
    /// `/deployments/{deployment}/chat/completions?api-version=V`. Throws parley::error
    /// (errc::chat_invalid) for a request without a model (and no configured deployment) or a
    /// deployment name that cannot be a path segment.
    std::string chat_target(const chat_request& request, bool) const override {
        return deployment_path(options_, request.params.model.value_or("")) + "/chat/completions" + query_;
    }
    std::string encode(const chat_request& request, bool stream) const override {
        return openai::encode_request_text(request, stream, encode_);
    }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        if (status < 200 || status > 299) return azure::decode_error(status, std::move(headers), body, limits_);
        return openai::decode_reply(status, std::move(headers), body, limits_);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const override {
        return std::make_unique<parley::detail::data_event_decoder<openai::stream_decoder>>(std::move(headers), status, limits_);
    }
    std::string_view end_mark() const noexcept override { return "data: [DONE]"; }

private:
    openai::encode_options encode_;
};

/// Azure OpenAI's Responses API: the Responses API codec (responses::encode_options applies;
/// the model, a deployment's name, goes in the body), at `/responses?api-version=V`. Throws
/// parley::error (errc::invalid_argument) when made without an API version or with one that
/// cannot be a query value.
class responses_api final : public detail::azure_base {
public:
    explicit responses_api(options o, responses::encode_options encode = {}, reply_limits limits = {})
        : azure_base(std::move(o), limits), encode_(encode) {}

    std::string_view name() const noexcept override { return "azure-responses"; }
    std::string_view chat_path() const noexcept override { return "/responses"; }
    /// `/responses?api-version=V`.
    std::string chat_target(const chat_request&, bool) const override { return "/responses" + query_; }
    std::string encode(const chat_request& request, bool stream) const override {
        return boost::json::serialize(responses::encode_request(request, stream, encode_));
    }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        if (status < 200 || status > 299) return azure::decode_error(status, std::move(headers), body, limits_);
        return responses::decode_reply(status, std::move(headers), body, limits_);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const override {
        return std::make_unique<parley::detail::named_event_decoder<responses::stream_decoder>>(std::move(headers), status,
                                                                                               limits_);
    }
    std::string_view end_mark() const noexcept override { return "event: response.completed"; }

private:
    responses::encode_options encode_;
};

}  // namespace parley::azure

#endif
