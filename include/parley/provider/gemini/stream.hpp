// parley/provider/gemini/stream.hpp: a streamed Gemini API reply (streamGenerateContent with
// alt=sse: server-sent events whose data are GenerateContentResponse chunks, without an end
// mark), decoded one event at a time into parley's stream events and an assembled reply.
#ifndef PARLEY_PROVIDER_GEMINI_STREAM_HPP
#define PARLEY_PROVIDER_GEMINI_STREAM_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/gemini/common.hpp>
#include <parley/provider/gemini/reply.hpp>
#include <parley/provider/reply.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::gemini {

/// Decodes a streamed reply, one server-sent event at a time. Each event's data is a
/// GenerateContentResponse chunk, read as decode_reply reads a whole reply (the chunks' parts
/// add up): text parts give `text` events, thought parts `reasoning` events, each functionCall
/// part (they come whole) a `tool_call` event with its id, name and whole arguments, a
/// candidate's finishReason a `finish` event, a usageMetadata with new counts a `usage` event
/// (the counts are running totals: the last one is kept). The stream has no end mark: it ends
/// with the body, and end_of_body() completes the reply (a `done` event) when every candidate
/// has its finishReason; a stream cut before that is an error of the client (errc::protocol). A
/// chunk with `{"error": {...}}` gives errc::api_error with the Google error's fields; a chunk
/// with promptFeedback.blockReason gives the prompt_blocked error of decode_reply. Malformed
/// data, a candidate that goes on after its finishReason or a limit exceeded give errc::protocol
/// naming the chunk and the member. After any error the decoder is failed: feed returns the
/// same error again.
class stream_decoder final : public wire_stream_decoder {
public:
    /// A decoder for a stream received with HTTP status `status` and header fields `headers`.
    explicit stream_decoder(http_headers headers = {}, int status = 200, const reply_limits& limits = {})
        : limits_(limits), assembler_(limits) {
        assembler_.reply().status = status;
        assembler_.reply().headers = std::move(headers);
    }

    /// Decodes one event (its name is not used: the API's events have none). Appends the stream
    /// events it yields to `out`; on an error `out` keeps none of the failing event's events.
    std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) override {
        static_cast<void>(event);
        if (error_) return error_;
        const std::size_t first_new = out.size();
        ++chunks_;
        const std::string name = "chunk " + std::to_string(chunks_);
        const detail::json_path at{nullptr, name, 0};
        try {
            if (taken_) throw detail::wire_failure{"stream_decoder::feed after take_reply()"};
            if (data.size() > limits_.max_body_bytes)
                detail::fail_with(at, "expected data of at most max_body_bytes (" + std::to_string(limits_.max_body_bytes) +
                                          " bytes), found " + std::to_string(data.size()));
            detail::json_scratch scratch;
            boost::json::value v;
            try {
                v = detail::parse_bounded(data, limits_.max_json_depth, "a GenerateContentResponse chunk", scratch.storage());
            } catch (const detail::wire_failure& f) {
                detail::fail_with(at, f.message);
            }
            call_error api;
            if (detail::read_google_error(v, api)) {
                fail(std::move(api));
            } else if (auto blocked = assembler_.apply(detail::as_object(v, at), at, &out)) {
                fail(std::move(*blocked));
            }
        } catch (const detail::wire_failure& f) {
            error_ = detail::protocol_failure(reply().status, reply().headers, f.message);
        }
        if (error_) out.resize(first_new);
        return error_;
    }

    /// False: the stream has no end mark; end_of_body() completes it.
    bool done() const noexcept override { return done_; }
    /// True once feed has returned an error.
    bool failed() const noexcept { return error_.has_value(); }
    const chat_reply& reply() const noexcept override { return assembler_.reply(); }
    chat_reply take_reply() override {
        taken_ = true;
        return std::move(assembler_.reply());
    }
    /// The body ended: the reply is complete (a `done` event, true) when every candidate has its
    /// finishReason; false otherwise (the stream was cut short).
    bool end_of_body(std::vector<stream_event>& out) override {
        if (error_ || !assembler_.finished()) return false;
        done_ = true;
        stream_event e;
        e.type = stream_event::kind::done;
        out.push_back(std::move(e));
        return true;
    }

private:
    void fail(call_error e) {
        e.status = reply().status;
        e.headers = reply().headers;
        error_ = std::move(e);
    }

    reply_limits limits_;
    detail::reply_assembler assembler_;
    std::optional<call_error> error_;
    std::size_t chunks_ = 0;
    bool done_ = false;
    bool taken_ = false;
};

}  // namespace parley::gemini

#endif
