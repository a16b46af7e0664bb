// parley/provider/ollama/stream.hpp: a streamed reply of Ollama's chat endpoint (JSON lines,
// application/x-ndjson: one ChatResponse object per line, the last with `"done": true`), decoded
// one line at a time into parley's stream events and an assembled reply.
#ifndef PARLEY_PROVIDER_OLLAMA_STREAM_HPP
#define PARLEY_PROVIDER_OLLAMA_STREAM_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/ollama/common.hpp>
#include <parley/provider/ollama/reply.hpp>
#include <parley/provider/reply.hpp>
#include <parley/provider/wire_api.hpp>

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::ollama {

/// Decodes a streamed reply, one line at a time. Each line is a ChatResponse object, read as
/// decode_reply reads a whole reply (the lines' texts add up): `message.content` gives `text`
/// events, `message.thinking` `reasoning` events, each tool call (they come whole) a `tool_call`
/// event with its id, name and whole arguments; the line with `"done": true` gives a `finish`
/// event (its done_reason), a `usage` event (prompt_eval_count, eval_count) and `done`, after
/// which the reply is complete. A line `{"error": "..."}` (Ollama's report of a failure after
/// the stream began, such as a model that stopped running) gives errc::api_error with that
/// message, never text. Malformed JSON, a line of another shape, a line after the last one or
/// a limit exceeded give errc::protocol naming the line and the member. After any error the
/// decoder is failed: feed returns the same error again.
class stream_decoder final : public wire_stream_decoder {
public:
    /// A decoder for a stream received with HTTP status `status` and header fields `headers`.
    explicit stream_decoder(http_headers headers = {}, int status = 200, const reply_limits& limits = {})
        : limits_(limits), assembler_(limits) {
        assembler_.reply().status = status;
        assembler_.reply().headers = std::move(headers);
    }

    /// Decodes one line (`event` is not used: JSON lines have no event names). Appends the
    /// stream events it yields to `out`; on an error `out` keeps none of the failing line's
    /// events.
    std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) override {
        static_cast<void>(event);
        if (error_) return error_;
        const std::size_t first_new = out.size();
        ++lines_;
        const std::string name = "line " + std::to_string(lines_);
        const detail::json_path at{nullptr, name, 0};
        try {
            if (taken_) throw detail::wire_failure{"stream_decoder::feed after take_reply()"};
            if (data.size() > limits_.max_body_bytes)
                detail::fail_with(at, "expected a line of at most max_body_bytes (" + std::to_string(limits_.max_body_bytes) +
                                          " bytes), found " + std::to_string(data.size()));
            detail::json_scratch scratch;
            boost::json::value v;
            try {
                v = detail::parse_bounded(data, limits_.max_json_depth, "a ChatResponse line", scratch.storage());
            } catch (const detail::wire_failure& f) {
                detail::fail_with(at, f.message);
            }
            call_error api;
            if (detail::read_error(v, api)) {
                api.status = reply().status;
                api.headers = reply().headers;
                error_ = std::move(api);
            } else {
                assembler_.apply(detail::as_object(v, at), at, &out);
            }
        } catch (const detail::wire_failure& f) {
            error_ = detail::protocol_failure(reply().status, reply().headers, f.message);
        }
        if (error_) out.resize(first_new);
        return error_;
    }

    /// True once the line with `"done": true` was decoded.
    bool done() const noexcept override { return assembler_.finished() && !error_; }
    /// True once feed has returned an error.
    bool failed() const noexcept { return error_.has_value(); }
    const chat_reply& reply() const noexcept override { return assembler_.reply(); }
    chat_reply take_reply() override {
        taken_ = true;
        return std::move(assembler_.reply());
    }

private:
    reply_limits limits_;
    detail::reply_assembler assembler_;
    std::optional<call_error> error_;
    std::size_t lines_ = 0;
    bool taken_ = false;
};

}  // namespace parley::ollama

#endif
