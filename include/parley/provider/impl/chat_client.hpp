// parley/provider/impl/chat_client.hpp: the coroutines of chat_client, chat_stream and
// blocking_client (inline, or compiled once under PARLEY_SEPARATE_COMPILATION: see config.hpp).
#ifndef PARLEY_PROVIDER_IMPL_CHAT_CLIENT_HPP
#define PARLEY_PROVIDER_IMPL_CHAT_CLIENT_HPP

#include <parley/provider/anthropic/api.hpp>
#include <parley/provider/azure/api.hpp>
#include <parley/provider/gemini/api.hpp>
#include <parley/provider/ollama/api.hpp>
#include <parley/provider/openai/api.hpp>
#include <parley/provider/responses/api.hpp>

#include <cstdlib>

namespace parley {

PARLEY_NET_DECL std::shared_ptr<const wire_api> wire_api_of(const client_config& config) {
    if (config.wire) return config.wire;
    switch (config.api) {
    case api::openai: return std::make_shared<openai::chat_api>(config.openai, config.limits);
    case api::anthropic: return std::make_shared<anthropic::messages_api>(config.anthropic, config.limits);
    case api::responses: return std::make_shared<responses::responses_api>(config.responses, config.limits);
    case api::gemini: return std::make_shared<gemini::gemini_api>(config.gemini, config.limits);
    case api::ollama: return std::make_shared<ollama::ollama_api>(config.ollama, config.limits);
    case api::azure: return std::make_shared<azure::chat_api>(config.azure, config.openai, config.limits);
    case api::azure_responses: return std::make_shared<azure::responses_api>(config.azure, config.responses, config.limits);
    case api::echo:
    case api::scripted: return nullptr;
    }
    return nullptr;
}

PARLEY_NET_DECL client_config config_from_environment(std::optional<api> which, const environment_options& options) {
    auto env = [&](const char* name) -> std::string {
        const char* v = options.getenv ? options.getenv(name) : std::getenv(name);
        return v ? std::string(v) : std::string();
    };
    client_config c;
    if (!which) {
        if (!env("OPENAI_API_KEY").empty() || !env("OPENAI_BASE_URL").empty()) which = api::openai;
        else if (!env("ANTHROPIC_API_KEY").empty() || !env("ANTHROPIC_BASE_URL").empty()) which = api::anthropic;
        else if (!env("GOOGLE_API_KEY").empty() || !env("GEMINI_API_KEY").empty() || !env("GOOGLE_GEMINI_BASE_URL").empty())
            which = api::gemini;
        else if (!env("AZURE_OPENAI_API_KEY").empty() || !env("AZURE_OPENAI_ENDPOINT").empty()) which = api::azure;
        else if (!env("OLLAMA_HOST").empty()) which = api::ollama;
        else if (options.fallback) which = options.fallback;
        else
            throw error(errc::invalid_argument,
                        "no model API is configured: set OPENAI_API_KEY or OPENAI_BASE_URL (OpenAI and compatible "
                        "servers), ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL (Anthropic), GEMINI_API_KEY, "
                        "GOOGLE_API_KEY or GOOGLE_GEMINI_BASE_URL (Gemini), AZURE_OPENAI_API_KEY or "
                        "AZURE_OPENAI_ENDPOINT with OPENAI_API_VERSION (Azure OpenAI), or OLLAMA_HOST (Ollama)");
    }
    c.api = *which;
    if (c.api == api::openai || c.api == api::responses) {
        c.api_key = env("OPENAI_API_KEY");
        c.base_url = env("OPENAI_BASE_URL");
    } else if (c.api == api::anthropic) {
        c.api_key = env("ANTHROPIC_API_KEY");
        c.base_url = env("ANTHROPIC_BASE_URL");
    } else if (c.api == api::gemini) {
        c.api_key = env("GOOGLE_API_KEY");
        if (c.api_key.empty()) c.api_key = env("GEMINI_API_KEY");
        if (std::string base = env("GOOGLE_GEMINI_BASE_URL"); !base.empty()) {
            while (!base.empty() && base.back() == '/') base.pop_back();
            c.base_url = base + "/v1beta";
        }
    } else if (c.api == api::azure || c.api == api::azure_responses) {
        c.api_key = env("AZURE_OPENAI_API_KEY");
        c.azure.api_version = env("OPENAI_API_VERSION");
        c.base_url = env("OPENAI_BASE_URL");
        if (std::string endpoint = env("AZURE_OPENAI_ENDPOINT"); c.base_url.empty() && !endpoint.empty()) {
            while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
            c.base_url = endpoint + "/openai";
        }
    } else if (c.api == api::ollama) {
        c.base_url = ollama::host_url(env("OLLAMA_HOST"));
    }
    return c;
}


PARLEY_NET_DECL boost::system::result<chat_reply, call_error> blocking_client::chat(chat_request request) {
    return run(client_.chat(std::move(request)));
}

PARLEY_NET_DECL boost::system::result<chat_reply, call_error> blocking_client::stream(
    chat_request request, std::function<void(const stream_event&)> on_event) {
    return run(stream_all(client_, std::move(request), std::move(on_event)));
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<chat_reply, call_error>> blocking_client::stream_all(
    chat_client& c, chat_request request, std::function<void(const stream_event&)> on_event) {
    auto s = co_await c.stream(std::move(request));
    if (!s) co_return s.error();
    for (;;) {
        auto e = co_await s->next();
        if (!e) co_return e.error();
        if (on_event) on_event(*e);
        if (e->type == stream_event::kind::done) break;
    }
    co_return s->take_reply();
}

// The work before and after the HTTP call is done by plain functions: a coroutine keeps its
// locals and temporaries in its frame, which is allocated per call.
PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat_client::chat(chat_request request) {
    return chat_call(std::make_unique<chat_request>(std::move(request)));
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<chat_reply, call_error>> chat_client::chat_call(
    std::unique_ptr<chat_request> request) {
    apply_defaults(*request);
    if (!wire_) co_return in_process_reply(*request);
    auto sent = send_chat(*request);  // the body is encoded: the request is no longer needed
    request.reset();
    auto response = co_await std::move(sent);
    co_return reply_of(std::move(response));  // a statement of its own: its temporaries stay out of the frame
}

PARLEY_NET_DECL boost::system::result<chat_reply, call_error> chat_client::in_process_reply(const chat_request& request) const {
    if (config_.api == api::echo) return config_.echo->answer(request);
    auto step = config_.script->answer(request);
    if (auto* e = std::get_if<call_error>(&step)) return *e;
    return std::get<chat_reply>(std::move(step));
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<net::http_response, call_error>> chat_client::send_chat(
    const chat_request& request) {
    const std::string endpoint = chat_endpoint(request, false);
    return http_.send(http_request_for(endpoint, wire_->encode(request, false), false));
}

PARLEY_NET_DECL boost::system::result<chat_reply, call_error> chat_client::reply_of(
    boost::system::result<net::http_response, call_error>&& response) const {
    if (!response) return detail::redacted(response.error(), *key_);
    auto& r = *response;
    if (r.status < 200 || r.status > 299) return decode_error(r.status, std::move(r.headers), r.body, r.attempts);
    if (const auto type = r.headers.get("content-type"); !detail::media_type_is(type, "application/json")) {
        std::string message = "expected a JSON reply (Content-Type application/json), found Content-Type '" +
                              std::string(type) + "': " + detail::wire::excerpt(r.body);
        return detail::redacted(detail::protocol_error(std::move(message), r.status, std::move(r.headers), r.attempts), *key_);
    }
    // One result, returned on every path below (no move of the reply on its way out).
    auto reply = wire_->decode_reply(r.status, std::move(r.headers), r.body);
    if (!reply) {
        auto e = reply.error();
        e.attempts = r.attempts;
        reply = detail::redacted(std::move(e), *key_);
    } else {
        reply->attempts = r.attempts == 0 ? 1 : r.attempts;
    }
    return reply;
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<chat_stream, call_error>> chat_client::stream(chat_request request) {
    return stream_call(std::make_unique<chat_request>(std::move(request)));
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<chat_stream, call_error>> chat_client::stream_call(
    std::unique_ptr<chat_request> request) {
    apply_defaults(*request);
    chat_stream s;
    s.key_ = key_;
    if (!wire_) {
        auto reply = in_process_reply(*request);
        if (!reply) co_return reply.error();
        s.deliver(std::move(*reply));
        co_return s;
    }
    const std::string endpoint = chat_endpoint(*request, true);
    auto opening = http_.open(http_request_for(endpoint, wire_->encode(*request, true), true));
    request.reset();  // encoded: no longer needed
    auto opened = co_await std::move(opening);
    if (!opened) co_return detail::redacted(opened.error(), *key_);
    auto& h = *opened;
    const int status = h.status();
    if (status < 200 || status > 299) {
        auto body = co_await h.read_all(config_.net.limits.max_body_bytes);
        if (!body) co_return detail::redacted(body.error(), *key_);
        co_return decode_error(status, h.headers(), *body, h.attempts());
    }
    const auto content_type = h.headers().get("content-type");
    if (detail::media_type_is(content_type, "application/json")) {
        // A server that answered a streamed call with a whole reply: delivered as events.
        auto body = co_await h.read_all(config_.net.limits.max_body_bytes);
        if (!body) co_return detail::redacted(body.error(), *key_);
        auto reply = wire_->decode_reply(status, h.headers(), *body);
        if (!reply) {
            auto e = reply.error();
            e.attempts = h.attempts();
            co_return detail::redacted(std::move(e), *key_);
        }
        reply->attempts = h.attempts() == 0 ? 1 : h.attempts();
        s.deliver(std::move(*reply));
        co_return s;
    }
    const bool lines = wire_->framing() == stream_framing::ndjson;
    const std::string_view stream_type = lines ? "application/x-ndjson" : "text/event-stream";
    if (!detail::media_type_is(content_type, stream_type)) {
        auto body = co_await h.read_all(4096);
        co_return detail::redacted(
            detail::protocol_error(std::string(lines ? "expected JSON lines" : "expected an event stream") + " (Content-Type " +
                                       std::string(stream_type) + "), found Content-Type '" + std::string(content_type) +
                                       "'" + (body ? ": " + detail::wire::excerpt(*body) : std::string()),
                                   status, h.headers(), h.attempts()),
            *key_);
    }
    s.decoder_ = wire_->stream_decoder(h.headers(), status);
    s.end_mark_ = wire_->end_mark();
    if (lines) s.ndjson_ = std::make_unique<net::ndjson_reader>(config_.sse.max_line);
    else s.sse_ = std::make_unique<net::sse_reader>(config_.sse);
    s.limits_ = config_.sse;
    s.http_ = std::move(h);
    co_return s;
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<embedding_reply, call_error>> chat_client::embed(
    embedding_request request) {
    const std::string endpoint = wire_ ? wire_->embed_target(request) : std::string();
    if (endpoint.empty()) {
        call_error e;
        e.code = make_error_code(errc::invalid_argument);
        e.message = "embeddings need an API with an embeddings endpoint; this client speaks " +
                    std::string(wire_ ? wire_->name() : api_name(config_.api));
        co_return e;
    }
    auto response = co_await http_.send(http_request_for(endpoint, wire_->encode_embedding(request), false));
    if (!response) co_return detail::redacted(response.error(), *key_);
    auto& r = *response;
    auto reply = wire_->decode_embedding(r.status, std::move(r.headers), r.body);
    if (!reply) {
        auto e = reply.error();
        e.attempts = r.attempts;
        co_return detail::redacted(std::move(e), *key_);
    }
    co_return std::move(*reply);
}

PARLEY_NET_DECL const chat_reply& chat_stream::reply() const noexcept {
    if (decoder_) return decoder_->reply();
    return reply_;
}

PARLEY_NET_DECL chat_reply chat_stream::take_reply() {
    if (!decoder_) return std::move(reply_);
    chat_reply r = decoder_->take_reply();
    r.attempts = http_.attempts() == 0 ? 1 : http_.attempts();
    return r;
}

PARLEY_NET_DECL boost::asio::awaitable<std::optional<call_error>> chat_stream::fill() {
    pending_.clear();
    next_ = 0;
    while (pending_.empty()) {
        if (decoder_done()) co_return std::nullopt;
        auto bytes = co_await http_.read_some();
        if (!bytes) co_return detail::redacted(bytes.error(), *key_);
        std::optional<call_error> failure;
        if (bytes->empty()) {
            // The body ended: a last JSON line without its line end is read; then either the
            // decoder completes the reply (a stream that ends with its body) or the stream was
            // cut before the API's end mark ([DONE], message_stop, ...).
            if (ndjson_ && ndjson_->pending()) failure = decoder_->feed(std::string_view(), ndjson_->take_pending(), pending_);
            if (!failure && !decoder_->done() && !decoder_->end_of_body(pending_)) {
                call_error cut = detail::protocol_error("the stream ended before its end mark (" + std::string(end_mark_) + ")",
                                                        http_.status(), http_.headers(), http_.attempts());
                cut.transient = true;  // a stream cut short: another attempt may get it whole
                co_return cut;
            }
            if (failure) {
                failure->attempts = http_.attempts();
                co_return detail::redacted(std::move(*failure), *key_);
            }
            if (pending_.empty()) pending_.push_back(detail::done_event());
            break;
        }
        std::error_code ec;
        if (ndjson_) {
            ec = ndjson_->feed(*bytes, [&](std::string_view line) {
                failure = decoder_->feed(std::string_view(), line, pending_);
                return !failure && !decoder_->done();
            });
        } else {
            ec = sse_->feed(*bytes, [&](const net::sse_event& ev) {
                failure = decoder_->feed(ev.event, ev.data, pending_);
                return !failure && !decoder_->done();
            });
        }
        if (failure) {
            failure->attempts = http_.attempts();
            co_return detail::redacted(std::move(*failure), *key_);
        }
        if (ec) {
            std::string what = ndjson_ ? "the JSON lines exceed their limit (" + ndjson_->failure() + ")"
                                       : "the event stream exceeds its limits (lines of at most " +
                                             std::to_string(limits_.max_line) + " bytes, events of at most " +
                                             std::to_string(limits_.max_event) + " bytes)";
            co_return detail::protocol_error(std::move(what), http_.status(), http_.headers(), http_.attempts());
        }
    }
    co_return std::nullopt;
}

PARLEY_NET_DECL boost::asio::awaitable<void> chat_stream::drain() {
    // What follows the end mark (the end of the chunked body) is read, so that the connection
    // goes back to the pool; a server that keeps sending loses its connection instead.
    std::size_t budget = 64 * 1024;
    while (http_.status() != 0 && !http_.done()) {
        auto bytes = co_await http_.read_some();
        if (!bytes || bytes->empty() || bytes->size() > budget) break;
        budget -= bytes->size();
    }
    http_ = net::http_stream();
}

PARLEY_NET_DECL boost::asio::awaitable<boost::system::result<stream_event, call_error>> chat_stream::next() {
    if (failed_) {
        call_error e;
        e.code = make_error_code(errc::invalid_argument);
        e.message = "the stream failed before: nothing more to read";
        co_return e;
    }
    if (next_ == pending_.size()) {
        if (done_) co_return detail::done_event();
        if (auto failure = co_await fill()) {
            failed_ = true;
            http_ = net::http_stream();
            co_return std::move(*failure);
        }
        if (pending_.empty()) pending_.push_back(detail::done_event());
    }
    stream_event e = std::move(pending_[next_++]);
    if (e.type == stream_event::kind::done) {
        done_ = true;
        co_await drain();
    }
    co_return e;
}

}  // namespace parley

#endif
