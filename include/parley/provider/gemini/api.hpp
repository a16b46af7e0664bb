// parley/provider/gemini/api.hpp: the Google Gemini API as a wire_api (POST
// {base}/models/{model}:generateContent, :streamGenerateContent?alt=sse for streams,
// :embedContent and :batchEmbedContents for embeddings; `x-goog-api-key: KEY`).
#ifndef PARLEY_PROVIDER_GEMINI_API_HPP
#define PARLEY_PROVIDER_GEMINI_API_HPP

#include <parley/provider/gemini/common.hpp>
#include <parley/provider/gemini/embeddings.hpp>
#include <parley/provider/gemini/reply.hpp>
#include <parley/provider/gemini/request.hpp>
#include <parley/provider/gemini/stream.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/json/serialize.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace parley::gemini {

/// The Gemini API (generateContent) with these options and limits.
class gemini_api final : public wire_api {
public:
    explicit gemini_api(encode_options options = {}, reply_limits limits = {})
        : options_(std::move(options)), limits_(limits) {}

    std::string_view name() const noexcept override { return "gemini"; }
    std::string_view default_base_url() const noexcept override { return base_url; }
    /// "/models": every call's path depends on its model (chat_target).
    std::string_view chat_path() const noexcept override { return "/models"; }
    void add_auth(http_headers& fields, const std::string& api_key) const override {
        if (!api_key.empty()) fields.add("x-goog-api-key", api_key);
    }
    /// `/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` for a stream (a
    /// model named `models/x` or `tunedModels/x` as given). Throws parley::error
    /// (errc::chat_invalid) for a request without a model or with a name that cannot be a path
    /// segment.
    std::string chat_target(const chat_request& request, bool stream) const override {
        if (!request.params.model || request.params.model->empty())
            throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
        return "/" + model_resource(*request.params.model) +
               (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
    }
    std::string encode(const chat_request& request, bool stream) const override {
        return boost::json::serialize(encode_request(request, stream, options_));
    }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        return gemini::decode_reply(status, std::move(headers), body, limits_);
    }
    call_error decode_error(int status, http_headers headers, std::string_view body) const override {
        return gemini::decode_error(status, std::move(headers), body, limits_);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const override {
        return std::make_unique<gemini::stream_decoder>(std::move(headers), status, limits_);
    }
    /// The `retryDelay` of a RetryInfo detail of a Google error body (a 429's "retry in 34.4s").
    std::optional<std::chrono::milliseconds> retry_after(const http_headers& headers, std::string_view body) const override {
        static_cast<void>(headers);
        return retry_info_delay(body, limits_);
    }
    /// The stream has no end mark of its own: it ends with its body, after the last candidate's
    /// finishReason.
    std::string_view end_mark() const noexcept override { return "a finishReason for every candidate"; }
    std::string embed_target(const embedding_request& request) const override { return embed_path(request); }
    std::string encode_embedding(const embedding_request& request) const override {
        return boost::json::serialize(encode_embedding_request(request));
    }
    boost::system::result<embedding_reply, call_error> decode_embedding(int status, http_headers headers,
                                                                        std::string_view body) const override {
        return decode_embedding_reply(status, std::move(headers), body, limits_);
    }

private:
    encode_options options_;
    reply_limits limits_;
};

}  // namespace parley::gemini

#endif
