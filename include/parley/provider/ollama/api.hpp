// parley/provider/ollama/api.hpp: Ollama's native API as a wire_api (POST {base}/api/chat, JSON
// lines for streams; POST {base}/api/embed for embeddings; no key, or a key as
// `Authorization: Bearer KEY` for a server behind one, such as ollama.com).
#ifndef PARLEY_PROVIDER_OLLAMA_API_HPP
#define PARLEY_PROVIDER_OLLAMA_API_HPP

#include <parley/provider/ollama/common.hpp>
#include <parley/provider/ollama/embeddings.hpp>
#include <parley/provider/ollama/reply.hpp>
#include <parley/provider/ollama/request.hpp>
#include <parley/provider/ollama/stream.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/json/serialize.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace parley::ollama {

/// Ollama's native chat API with these options and limits.
class ollama_api final : public wire_api {
public:
    explicit ollama_api(encode_options options = {}, reply_limits limits = {})
        : options_(std::move(options)), limits_(limits) {}

    std::string_view name() const noexcept override { return "ollama"; }
    std::string_view default_base_url() const noexcept override { return base_url; }
    std::string_view chat_path() const noexcept override { return "/api/chat"; }
    /// A local Ollama takes no key; a key, when given, is sent as `Authorization: Bearer KEY`
    /// (as ollama.com and the proxies in front of a server take it).
    void add_auth(http_headers& fields, const std::string& api_key) const override {
        if (!api_key.empty()) fields.add("Authorization", "Bearer " + api_key);
    }
    std::string encode(const chat_request& request, bool stream) const override {
        return boost::json::serialize(encode_request(request, stream, options_));
    }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        return ollama::decode_reply(status, std::move(headers), body, limits_);
    }
    call_error decode_error(int status, http_headers headers, std::string_view body) const override {
        return ollama::decode_error(status, std::move(headers), body, limits_);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const override {
        return std::make_unique<ollama::stream_decoder>(std::move(headers), status, limits_);
    }
    std::string_view end_mark() const noexcept override { return "a line with \"done\": true"; }
    /// JSON lines (application/x-ndjson).
    stream_framing framing() const noexcept override { return stream_framing::ndjson; }
    std::string embed_target(const embedding_request&) const override { return "/api/embed"; }
    std::string encode_embedding(const embedding_request& request) const override {
        return boost::json::serialize(encode_embedding_request(request, options_));
    }
    boost::system::result<embedding_reply, call_error> decode_embedding(int status, http_headers headers,
                                                                        std::string_view body) const override {
        return decode_embedding_reply(status, std::move(headers), body, limits_);
    }

private:
    encode_options options_;
    reply_limits limits_;
};

}  // namespace parley::ollama

#endif
