// parley/provider/openai/api.hpp: the OpenAI chat completions API as a wire_api (POST
// {base}/chat/completions, `Authorization: Bearer KEY`).
#ifndef PARLEY_PROVIDER_OPENAI_API_HPP
#define PARLEY_PROVIDER_OPENAI_API_HPP

#include <parley/provider/openai/options.hpp>
#include <parley/provider/openai/embeddings.hpp>
#include <parley/provider/openai/reply.hpp>
#include <parley/provider/openai/request.hpp>
#include <parley/provider/openai/stream.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/json/serialize.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace parley::openai {


/// The chat completions API (OpenAI, and Ollama, llama.cpp, vLLM, OpenRouter, Groq and every
/// compatible server) with these options and limits.
class chat_api final : public wire_api {
public:
    explicit chat_api(encode_options options = {}, reply_limits limits = {}) : options_(options), limits_(limits) {}

    std::string_view name() const noexcept override { return "openai"; }
    std::string_view default_base_url() const noexcept override { return base_url; }
    std::string_view chat_path() const noexcept override { return "/chat/completions"; }
    void add_auth(http_headers& fields, const std::string& api_key) const override {
        if (!api_key.empty()) fields.add("Authorization", "Bearer " + api_key);
    }
    std::string encode(const chat_request& request, bool stream) const override {
        return encode_request_text(request, stream, options_);
    }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        return openai::decode_reply(status, std::move(headers), body, limits_);
    }
    call_error decode_error(int status, http_headers headers, std::string_view body) const override {
        return openai::decode_error(status, std::move(headers), body, limits_);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const override {
        return std::make_unique<parley::detail::data_event_decoder<openai::stream_decoder>>(std::move(headers), status, limits_);
    }
    std::string_view end_mark() const noexcept override { return "data: [DONE]"; }
    std::string embed_target(const embedding_request&) const override { return "/embeddings"; }
    std::string encode_embedding(const embedding_request& request) const override {
        return boost::json::serialize(openai::encode_embedding_request(request));
    }
    boost::system::result<embedding_reply, call_error> decode_embedding(int status, http_headers headers,
                                                                        std::string_view body) const override {
        return openai::decode_embedding_reply(status, std::move(headers), body, limits_);
    }

private:
    encode_options options_;
    reply_limits limits_;
};

}  // namespace parley::openai

#endif
