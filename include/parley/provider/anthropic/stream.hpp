// parley/provider/anthropic/stream.hpp: the events of a streamed Anthropic Messages API reply
// (server-sent events), decoded one at a time into parley's stream events and an assembled reply.
#ifndef PARLEY_PROVIDER_ANTHROPIC_STREAM_HPP
#define PARLEY_PROVIDER_ANTHROPIC_STREAM_HPP

#include <parley/chat/message.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/anthropic/common.hpp>
#include <parley/provider/anthropic/reply.hpp>
#include <parley/provider/detail/utf16.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::anthropic {

/// Decodes a streamed reply, one server-sent event at a time (the transport splits the stream
/// into events). The events are message_start, then for each content block content_block_start,
/// content_block_delta events and content_block_stop, then message_delta and message_stop; ping
/// events may come anywhere. What each gives:
/// - message_start: the reply's id, model and usage;
/// - content_block_start of a `text` block: its text, if any, as a `text` event; of a `tool_use`
///   block: a `tool_call` event carrying the call's `id` and `name`, `tool_index` counting
///   tool_use blocks from 0; of a `thinking` block: a reasoning part of kind thinking (its text,
///   if any, as a `reasoning` event); of a `redacted_thinking` block: a reasoning part of kind
///   redacted with its data; other blocks (server tools) are skipped with their deltas;
/// - content_block_delta: `text_delta` -> a `text` event; `thinking_delta` -> a `reasoning`
///   event; `signature_delta` completes the thinking block's signature (no event);
///   `input_json_delta` -> a `tool_call` event with the `partial_json` fragment (empty fragments
///   give no event); other delta types are skipped. A text split in the middle of a UTF-16
///   surrogate pair across two deltas is joined (see parley/provider/detail/utf16.hpp);
/// - content_block_stop of a tool_use block: its arguments are complete. A call whose input
///   streamed nothing gets "{}" (and a `tool_call` event with the text "{}"); arguments that form
///   a JSON object are re-serialised as decode_reply writes them, so that the assembled reply
///   equals decode_reply's for the same message; others are kept as received;
/// - message_delta: `stop_reason` -> a `finish` event (mapped as decode_reply does); `usage`
///   (whose counts are cumulative) updates the usage -> a `usage` event;
/// - message_stop: the reply is complete -> a `done` event;
/// - error: a call_error with errc::api_error and the error's type and message;
/// - event types this decoder does not know are ignored (the API may add new ones).
/// Malformed or unexpected data (an event before message_start, a delta for a block that is not
/// open, a text_delta for a tool_use block, a limit of reply_limits exceeded, ...) is a
/// call_error with errc::protocol naming the event and the member. After any error the decoder
/// is failed: feed returns the same error again.
class stream_decoder {
public:
    /// A decoder for a stream received with HTTP status `status` and header fields `headers`
    /// (both kept in the reply and in errors).
    explicit stream_decoder(http_headers headers = {}, int status = 200, const reply_limits& limits = {})
        : limits_(limits), bytes_(limits.max_assembled_bytes) {
        reply_.status = status;
        reply_.headers = std::move(headers);
        reply_.choices.emplace_back();
        reply_.choices.front().message.role = role::assistant;
    }

    /// Decodes one event: its `event:` name (may be empty: the data's `type` is then used) and
    /// its data. Appends the stream events it yields to `out`. Returns a call_error for an
    /// `error` event (errc::api_error) or malformed or unexpected data (errc::protocol); the
    /// decoder is failed afterwards, and `out` keeps none of the failing event's events.
    std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) {
        if (error_) return error_;
        const std::size_t first_new = out.size();
        try {
            if (taken_) throw detail::wire_failure{"stream_decoder::feed after take_reply()"};
            step(event, data, out);
        } catch (const detail::wire_failure& f) {
            error_ = detail::protocol_failure(reply_.status, reply_.headers, f.message);
        } catch (const reported_error&) {
            // error_ holds the error event's call_error
        }
        if (error_) out.resize(first_new);
        return error_;
    }

    /// True once message_stop has been decoded: the assembled reply is complete.
    bool done() const noexcept { return stopped_; }
    /// True once feed has returned an error.
    bool failed() const noexcept { return error_.has_value(); }
    /// The reply assembled so far (one choice, index 0).
    const chat_reply& reply() const noexcept { return reply_; }
    /// Moves the assembled reply out; the decoder takes no more events afterwards.
    chat_reply take_reply() {
        taken_ = true;
        return std::move(reply_);
    }

private:
    /// Thrown by api_error once error_ holds an error event's call_error.
    struct reported_error {};

    enum class block_kind : std::uint8_t { text, tool_use, thinking, other };
    struct block {
        block_kind kind = block_kind::other;
        std::size_t item = 0;  // index in the message's tool calls, or in its reasoning
        bool open = true;
    };

    reply_choice& choice() noexcept { return reply_.choices.front(); }
    parley::message& message() noexcept { return choice().message; }

    static stream_event make_event(stream_event::kind k) {
        stream_event e;
        e.type = k;
        return e;
    }

    static bool is_known(std::string_view n) noexcept {
        constexpr std::string_view known[] = {"message_start", "content_block_start", "content_block_delta",
                                              "content_block_stop", "message_delta", "message_stop", "ping", "error"};
        for (auto k : known)
            if (k == n) return true;
        return false;
    }

    void step(std::string_view name, std::string_view data, std::vector<stream_event>& out) {
        namespace da = detail;
        if (!name.empty() && !is_known(name)) return;
        if (name == "ping") return;
        const da::json_path label{nullptr, name.empty() ? std::string_view("(unnamed event)") : name, 0};
        if (data.size() > limits_.max_body_bytes)
            da::fail_with(label, "expected data of at most max_body_bytes (" + std::to_string(limits_.max_body_bytes) +
                                     " bytes), found " + std::to_string(data.size()));
        if (name == "error") api_error(data);
        da::json_scratch scratch;
        boost::json::value v;
        try {
            v = da::parse_event(data, limits_.max_json_depth, "JSON data", scratch.storage(), repaired_);
        } catch (const da::wire_failure& f) {
            da::fail_with(label, f.message);
        }
        const auto& o = da::as_object(v, label);
        const auto type = da::opt_string(o, "type", label);
        if (name.empty()) {
            if (!type) da::fail_with(label, "an event without a name needs a 'type' in its data, found " + da::excerpt(data));
            name = *type;
            if (!is_known(name) || name == "ping") return;
            if (name == "error") api_error(data);
        } else if (type && *type != name) {
            da::fail_at(label.member("type"), "\"" + std::string(name) + "\"", boost::json::value(*type));
        }
        const da::json_path at{nullptr, name, 0};
        if (name == "message_start") {
            if (started_) da::fail_with(at, "a second message_start");
            started_ = true;
            message_start(o, at);
            return;
        }
        if (!started_) da::fail_with(at, "expected message_start first");
        if (stopped_) da::fail_with(at, "the stream continues after message_stop");
        if (name == "content_block_start") return block_start(o, at, out);
        if (name == "content_block_delta") return block_delta(o, at, out);
        if (name == "content_block_stop") {
            block& b = open_block(o, at);
            b.open = false;
            if (b.kind == block_kind::tool_use) finish_arguments(b.item, out);
            return;
        }
        if (name == "message_delta") return message_delta(o, at, out);
        // message_stop: blocks left open are complete too
        for (auto& b : blocks_) {
            if (b.open && b.kind == block_kind::tool_use) finish_arguments(b.item, out);
            b.open = false;
        }
        stopped_ = true;
        if (repaired_) seal_reply();
        out.push_back(make_event(stream_event::kind::done));
    }

    /// An `error` event: throws its call_error (errc::api_error).
    [[noreturn]] void api_error(std::string_view data) {
        call_error e;
        bool read = false;
        try {
            const boost::json::value v = detail::parse_bounded(data, limits_.max_json_depth, "an error event");
            read = v.is_object() && detail::read_api_error(v.get_object(), e);
        } catch (const detail::wire_failure&) {
        }
        if (!read) {
            e.code = make_error_code(errc::api_error);
            e.message = "the stream reported an error: " + detail::excerpt(data);
        }
        e.status = reply_.status;
        e.headers = reply_.headers;
        error_ = std::move(e);
        throw reported_error{};
    }

    void message_start(const boost::json::object& o, const detail::json_path& at) {
        namespace da = detail;
        const auto mat = at.member("message");
        const auto& msg = da::req_object(o, "message", at);
        if (const auto id = da::opt_string(msg, "id", mat)) reply_.id = da::cut(*id, limits_.max_assembled_bytes);
        if (const auto model = da::opt_string(msg, "model", mat)) reply_.model = da::cut(*model, limits_.max_assembled_bytes);
        if (const auto r = da::opt_string(msg, "role", mat); r && *r != "assistant")
            da::fail_at(mat.member("role"), "\"assistant\"", boost::json::value(*r));
        if (const auto* usage = da::opt_object(msg, "usage", mat)) {
            reply_.usage = da::read_usage(*usage, mat.member("usage"));
            usage_ = *usage;
        }
    }

    // The `index` of an event: a content block index.
    static std::uint64_t index_of(const boost::json::object& o, const detail::json_path& at) {
        const auto* index = o.if_contains("index");
        if (index && index->is_uint64()) return index->get_uint64();
        if (index && index->is_int64() && index->get_int64() >= 0) return static_cast<std::uint64_t>(index->get_int64());
        detail::fail_at(at.member("index"), "a content block index", detail::found(index));
    }

    // The block an event names, which must be open.
    block& open_block(const boost::json::object& o, const detail::json_path& at) {
        const std::uint64_t i = index_of(o, at);
        if (i >= blocks_.size() || !blocks_[i].open)
            detail::fail_with(at.member("index"),
                              "content block " + std::to_string(i) + (i >= blocks_.size() ? " has not started" : " has stopped"));
        return blocks_[static_cast<std::size_t>(i)];
    }

    void block_start(const boost::json::object& o, const detail::json_path& at, std::vector<stream_event>& out) {
        namespace da = detail;
        if (index_of(o, at) != blocks_.size())
            da::fail_at(at.member("index"), std::to_string(blocks_.size()) + " (the next content block)",
                        da::found(o.if_contains("index")));
        if (blocks_.size() >= limits_.max_content_blocks)
            da::fail_with(at, "expected at most max_content_blocks (" + std::to_string(limits_.max_content_blocks) +
                                  ") content blocks, found more");
        const auto cat = at.member("content_block");
        const auto& content = da::req_object(o, "content_block", at);
        const std::string_view type = da::req_string(content, "type", cat);
        block b;
        if (type == "text") {
            b.kind = block_kind::text;
            const std::string_view text = da::opt_string(content, "text", cat).value_or("");
            bytes_.add(text.size());
            if (!message().has_text()) message().content = std::string();
            emit(out, stream_event::kind::text, da::append_piece(std::get<std::string>(message().content), text));
        } else if (type == "tool_use") {
            b.kind = block_kind::tool_use;
            b.item = message().tool_calls.size();
            tool_call call;
            call.id = std::string(da::req_string(content, "id", cat));
            call.function.name = std::string(da::req_string(content, "name", cat));
            bytes_.add(call.id.size() + call.function.name.size());
            if (const auto* input = da::opt_object(content, "input", cat)) {
                if (!input->empty()) call.function.arguments = boost::json::serialize(*input);
                bytes_.add(call.function.arguments.size());
            }
            auto e = make_event(stream_event::kind::tool_call);
            e.tool_index = b.item;
            e.id = call.id;
            e.name = call.function.name;
            e.text = call.function.arguments;
            message().tool_calls.push_back(std::move(call));
            out.push_back(std::move(e));
        } else if (type == "thinking") {
            b.kind = block_kind::thinking;
            b.item = message().reasoning.size();
            reasoning_part& r = message().reasoning.emplace_back();
            r.type = reasoning_part::kind::thinking;
            const std::string_view text = da::opt_string(content, "thinking", cat).value_or("");
            r.signature = std::string(da::opt_string(content, "signature", cat).value_or(""));
            bytes_.add(text.size() + r.signature.size());
            emit(out, stream_event::kind::reasoning, da::append_piece(r.text, text));
        } else if (type == "redacted_thinking") {
            reasoning_part& r = message().reasoning.emplace_back();
            r.type = reasoning_part::kind::redacted;
            r.data = std::string(da::req_string(content, "data", cat));
            bytes_.add(r.data.size());
        }
        blocks_.push_back(b);
    }

    void block_delta(const boost::json::object& o, const detail::json_path& at, std::vector<stream_event>& out) {
        namespace da = detail;
        const block& target = open_block(o, at);
        const auto dat = at.member("delta");
        const auto& delta = da::req_object(o, "delta", at);
        const std::string_view type = da::req_string(delta, "type", dat);
        auto fragment = [&](std::string_view key, block_kind kind, std::string_view kind_word) -> std::string_view {
            if (target.kind != kind)
                da::fail_with(dat.member("type"), "a " + std::string(type) + " for content block " +
                                                      std::to_string(index_of(o, at)) + ", which is not a " +
                                                      std::string(kind_word) + " block");
            const std::string_view text = da::req_string(delta, key, dat);
            bytes_.add(text.size());
            return text;
        };
        if (type == "text_delta") {
            const std::string_view text = fragment("text", block_kind::text, "text");
            emit(out, stream_event::kind::text, da::append_piece(std::get<std::string>(message().content), text));
        } else if (type == "thinking_delta") {
            const std::string_view text = fragment("thinking", block_kind::thinking, "thinking");
            emit(out, stream_event::kind::reasoning, da::append_piece(message().reasoning[target.item].text, text));
        } else if (type == "signature_delta") {
            message().reasoning[target.item].signature += fragment("signature", block_kind::thinking, "thinking");
        } else if (type == "input_json_delta") {
            const std::string_view json = fragment("partial_json", block_kind::tool_use, "tool_use");
            std::string text = da::append_piece(message().tool_calls[target.item].function.arguments, json);
            if (!text.empty()) {
                auto e = make_event(stream_event::kind::tool_call);
                e.tool_index = target.item;
                e.text = std::move(text);
                out.push_back(std::move(e));
            }
        }
    }

    static void emit(std::vector<stream_event>& out, stream_event::kind k, std::string text) {
        if (text.empty()) return;
        auto e = make_event(k);
        e.text = std::move(text);
        out.push_back(std::move(e));
    }

    // The arguments of tool call `k` are complete: "{}" when nothing came, a JSON object
    // re-serialised as decode_reply writes it, anything else kept as received.
    void finish_arguments(std::size_t k, std::vector<stream_event>& out) {
        std::string& args = message().tool_calls[k].function.arguments;
        if (args.empty()) {
            args = "{}";
            auto e = make_event(stream_event::kind::tool_call);
            e.tool_index = k;
            e.text = args;
            out.push_back(std::move(e));
            return;
        }
        try {
            const boost::json::value v = detail::parse_bounded(args, limits_.max_json_depth, "arguments");
            if (v.is_object()) args = boost::json::serialize(v);
        } catch (const detail::wire_failure&) {
            // kept as received
        }
    }

    void message_delta(const boost::json::object& o, const detail::json_path& at, std::vector<stream_event>& out) {
        namespace da = detail;
        if (const auto* delta = da::opt_object(o, "delta", at)) {
            if (da::opt_string(*delta, "stop_reason", at.member("delta"))) {
                da::read_stop(*delta, "stop_reason", at.member("delta"), choice());
                auto e = make_event(stream_event::kind::finish);
                e.finish = choice().finish;
                e.finish_text = choice().finish_text;
                out.push_back(std::move(e));
            }
        }
        if (const auto* usage = da::opt_object(o, "usage", at)) {
            boost::json::object merged = usage_;
            for (const auto& field : *usage) merged[field.key()] = field.value();
            reply_.usage = da::read_usage(merged, at.member("usage"));
            usage_ = std::move(merged);
            out.push_back(make_event(stream_event::kind::usage));
        }
    }

    // After a repaired event, what is left of lone surrogates in the assembled texts is U+FFFD.
    void seal_reply() {
        if (auto* s = std::get_if<std::string>(&message().content)) detail::seal(*s);
        for (auto& r : message().reasoning) detail::seal(r.text);
        for (auto& t : message().tool_calls) detail::seal(t.function.arguments);
    }

    reply_limits limits_;
    detail::byte_budget bytes_;
    chat_reply reply_;
    std::vector<block> blocks_;
    boost::json::object usage_;  // the usage received so far, message_delta's fields over message_start's
    std::optional<call_error> error_;
    bool started_ = false;
    bool stopped_ = false;
    bool taken_ = false;
    bool repaired_ = false;  // an event was read again with its lone surrogates repaired
};

}  // namespace parley::anthropic

#endif
