// parley/provider/anthropic/api.hpp: the Anthropic Messages API as a wire_api (POST
// {base}/v1/messages, `x-api-key: KEY`, `anthropic-version`).
#ifndef PARLEY_PROVIDER_ANTHROPIC_API_HPP
#define PARLEY_PROVIDER_ANTHROPIC_API_HPP

#include <parley/provider/anthropic/options.hpp>
#include <parley/provider/anthropic/reply.hpp>
#include <parley/provider/anthropic/request.hpp>
#include <parley/provider/anthropic/stream.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/json/serialize.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace parley::anthropic {


/// The Messages API with these options and limits.
class messages_api final : public wire_api {
public:
    explicit messages_api(encode_options options = {}, reply_limits limits = {}) : options_(options), limits_(limits) {}

    std::string_view name() const noexcept override { return "anthropic"; }
    std::string_view default_base_url() const noexcept override { return base_url; }
    std::string_view chat_path() const noexcept override { return "/v1/messages"; }
    void add_auth(http_headers& fields, const std::string& api_key) const override {
        if (!api_key.empty()) fields.add("x-api-key", api_key);
        fields.add("anthropic-version", std::string(api_version));
    }
    std::string encode(const chat_request& request, bool stream) const override {
        return boost::json::serialize(encode_request(request, stream, options_));
    }
    boost::system::result<chat_reply, call_error> decode_reply(int status, http_headers headers,
                                                               std::string_view body) const override {
        return anthropic::decode_reply(status, std::move(headers), body, limits_);
    }
    call_error decode_error(int status, http_headers headers, std::string_view body) const override {
        return anthropic::decode_error(status, std::move(headers), body, limits_);
    }
    std::unique_ptr<wire_stream_decoder> stream_decoder(http_headers headers, int status) const override {
        return std::make_unique<parley::detail::named_event_decoder<anthropic::stream_decoder>>(std::move(headers), status,
                                                                                               limits_);
    }
    std::string_view end_mark() const noexcept override { return "event: message_stop"; }

private:
    encode_options options_;
    reply_limits limits_;
};

}  // namespace parley::anthropic

#endif
