// parley/provider/anthropic_stream.hpp: the events of a streamed Anthropic Messages API reply
// (server-sent events), decoded one at a time into parley's stream events and an assembled reply.
#ifndef PARLEY_PROVIDER_ANTHROPIC_STREAM_HPP
#define PARLEY_PROVIDER_ANTHROPIC_STREAM_HPP

#include <parley/chat/message.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/anthropic_json.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

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
///   tool_use blocks from 0; other blocks (thinking, server tools) are skipped with their deltas;
/// - content_block_delta: `text_delta` -> a `text` event; `input_json_delta` -> a `tool_call`
///   event with the `partial_json` fragment (empty fragments give no event); other delta types
///   are skipped;
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
/// open, a text_delta for a tool_use block, a limit of decode_limits exceeded, ...) is a
/// call_error with errc::protocol. After any error the decoder is failed: feed returns the same
/// error again.
class stream_decoder {
public:
    /// A decoder for a stream received with HTTP status `status` and header fields `headers`
    /// (both kept in the reply and in errors).
    explicit stream_decoder(http_headers headers = {}, int status = 200, decode_limits limits = {}) : limits_(limits) {
        reply_.status = status;
        reply_.headers = std::move(headers);
        reply_.choices.emplace_back();
        reply_.choices.front().message.role = role::assistant;
    }

    /// Decodes one event: its `event:` name (may be empty: the data's `type` is then used) and
    /// its data. Appends the stream events it yields to `out`. Returns a call_error for an
    /// `error` event (errc::api_error) or malformed or unexpected data (errc::protocol); the
    /// decoder is failed afterwards.
    std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) {
        if (error_) return error_;
        if (taken_) {
            error_ = detail::anthropic::protocol_error(reply_.status, reply_.headers,
                                                       "stream_decoder::feed after take_reply()");
            return error_;
        }
        error_ = step(event, data, out);
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
    enum class block_kind : std::uint8_t { text, tool_use, other };
    struct block {
        block_kind kind = block_kind::other;
        std::size_t tool = 0;  // index in the message's tool calls
        bool open = true;
    };

    reply_choice& choice() noexcept { return reply_.choices.front(); }
    parley::message& message() noexcept { return choice().message; }

    call_error fail(std::string_view name, const std::string& what) const {
        return detail::anthropic::protocol_error(reply_.status, reply_.headers, "event '" + std::string(name) + "': " + what);
    }

    static stream_event make_event(stream_event::kind k) {
        stream_event e;
        e.type = k;
        return e;
    }

    // Counts `n` more assembled bytes; false when that exceeds the limit.
    bool add_bytes(std::size_t n) noexcept {
        bytes_ += n;
        return bytes_ <= limits_.max_assembled_bytes;
    }
    std::string too_many_bytes() const {
        return "the reply's text and tool arguments exceed the limit of " + std::to_string(limits_.max_assembled_bytes) +
               " bytes";
    }

    std::optional<call_error> step(std::string_view name, std::string_view data, std::vector<stream_event>& out) {
        namespace da = detail::anthropic;
        constexpr std::string_view known[] = {"message_start", "content_block_start", "content_block_delta",
                                              "content_block_stop", "message_delta", "message_stop", "ping", "error"};
        auto is_known = [&](std::string_view n) {
            for (auto k : known)
                if (k == n) return true;
            return false;
        };
        if (!name.empty() && !is_known(name)) return std::nullopt;
        if (name == "ping") return std::nullopt;
        const std::string_view label = name.empty() ? std::string_view("(unnamed)") : name;
        if (data.size() > limits_.max_body_bytes)
            return fail(label, "the data has " + std::to_string(data.size()) + " bytes, more than the limit of " +
                                   std::to_string(limits_.max_body_bytes));
        std::string problem;
        const auto parsed = da::parse_json(data, limits_.max_json_depth, problem);
        if (name == "error") return api_error(parsed, data);
        if (!parsed) return fail(label, "expected JSON data, found " + problem + ": " + da::excerpt(data));
        if (!parsed->is_object()) return fail(label, "expected a JSON object, found " + da::found(*parsed));
        const auto& o = parsed->get_object();
        const auto* type = o.if_contains("type");
        if (type && !type->is_string()) return fail(label, "expected 'type' to be a string, found " + da::found(*type));
        if (name.empty()) {
            if (!type) return fail(label, "an event without a name needs a 'type' in its data, found " + da::excerpt(data));
            name = type->get_string();
            if (!is_known(name) || name == "ping") return std::nullopt;
            if (name == "error") return api_error(parsed, data);
        } else if (type && type->get_string() != name) {
            return fail(name, "the data is of type '" + da::excerpt(type->get_string()) + "'");
        }

        if (name == "message_start") {
            if (started_) return fail(name, "a second message_start");
            started_ = true;
            return message_start(o);
        }
        if (!started_) return fail(name, "expected message_start first");
        if (stopped_) return fail(name, "the stream continues after message_stop");
        if (name == "content_block_start") return block_start(o, out);
        if (name == "content_block_delta") return block_delta(o, out);
        if (name == "content_block_stop") {
            const auto b = open_block(name, o);
            if (!b) return b.error();
            blocks_[*b].open = false;
            if (blocks_[*b].kind == block_kind::tool_use) finish_arguments(blocks_[*b].tool, out);
            return std::nullopt;
        }
        if (name == "message_delta") return message_delta(o, out);
        // message_stop: blocks left open are complete too
        for (auto& b : blocks_) {
            if (b.open && b.kind == block_kind::tool_use) finish_arguments(b.tool, out);
            b.open = false;
        }
        stopped_ = true;
        out.push_back(make_event(stream_event::kind::done));
        return std::nullopt;
    }

    call_error api_error(const std::optional<boost::json::value>& parsed, std::string_view data) const {
        namespace da = detail::anthropic;
        call_error e;
        e.status = reply_.status;
        e.headers = reply_.headers;
        if (!(parsed && parsed->is_object() && da::read_api_error(parsed->get_object(), e))) {
            e.code = make_error_code(errc::api_error);
            e.message = "the stream reported an error: " + da::excerpt(data);
        }
        return e;
    }

    std::optional<call_error> message_start(const boost::json::object& o) {
        namespace da = detail::anthropic;
        constexpr std::string_view name = "message_start";
        const auto* m = o.if_contains("message");
        if (!m || !m->is_object())
            return fail(name, "expected 'message' to be an object, found " + (m ? da::found(*m) : std::string("none")));
        const auto& msg = m->get_object();
        for (auto [key, target] : {std::pair<std::string_view, std::string*>{"id", &reply_.id}, {"model", &reply_.model}}) {
            const auto* v = msg.if_contains(key);
            if (!v) continue;
            if (!v->is_string())
                return fail(name, "expected 'message." + std::string(key) + "' to be a string, found " + da::found(*v));
            *target = da::bounded(v->get_string(), limits_.max_assembled_bytes);
        }
        if (const auto* role = msg.if_contains("role"); role && !(role->is_string() && role->get_string() == "assistant"))
            return fail(name, "expected the role 'assistant', found " + da::found(*role));
        if (const auto* usage = msg.if_contains("usage"); usage && !usage->is_null()) {
            if (!usage->is_object()) return fail(name, "expected 'message.usage' to be an object, found " + da::found(*usage));
            usage_ = usage->get_object();
            token_usage counts;
            std::string problem;
            if (!da::read_usage(usage_, counts, problem)) return fail(name, problem);
            reply_.usage = std::move(counts);
        }
        return std::nullopt;
    }

    // The `index` of an event: a non-negative integer.
    static std::optional<std::uint64_t> index_of(const boost::json::object& o) noexcept {
        const auto* index = o.if_contains("index");
        if (index && index->is_uint64()) return index->get_uint64();
        if (index && index->is_int64() && index->get_int64() >= 0) return static_cast<std::uint64_t>(index->get_int64());
        return std::nullopt;
    }
    static std::string found_index(const boost::json::object& o) {
        const auto* index = o.if_contains("index");
        return index ? detail::anthropic::found(*index) : std::string("none");
    }

    // The index of the block an event names, which must be open.
    boost::system::result<std::size_t, call_error> open_block(std::string_view name, const boost::json::object& o) const {
        const auto index = index_of(o);
        if (!index) return fail(name, "expected 'index' to be a content block index, found " + found_index(o));
        const std::uint64_t i = *index;
        if (i >= blocks_.size() || !blocks_[i].open)
            return fail(name, "content block " + std::to_string(i) + (i >= blocks_.size() ? " has not started" : " has stopped"));
        return static_cast<std::size_t>(i);
    }

    std::optional<call_error> block_start(const boost::json::object& o, std::vector<stream_event>& out) {
        namespace da = detail::anthropic;
        constexpr std::string_view name = "content_block_start";
        if (const auto index = index_of(o); !index || *index != blocks_.size())
            return fail(name, "expected 'index' to be " + std::to_string(blocks_.size()) + " (the next content block), found " +
                                  found_index(o));
        if (blocks_.size() >= limits_.max_content_blocks)
            return fail(name, "the reply has more content blocks than the limit of " +
                                  std::to_string(limits_.max_content_blocks));
        const auto* cb = o.if_contains("content_block");
        const auto* cb_type = cb && cb->is_object() ? cb->get_object().if_contains("type") : nullptr;
        if (!cb_type || !cb_type->is_string())
            return fail(name, "expected 'content_block' to be a content block with a 'type', found " +
                                  (cb ? da::found(*cb) : std::string("none")));
        const auto& content = cb->get_object();
        auto string_member = [&](std::string_view key, bool required, std::string& value) -> std::optional<call_error> {
            const auto* v = content.if_contains(key);
            if (!v && !required) return std::nullopt;
            if (!v || !v->is_string())
                return fail(name, "expected 'content_block." + std::string(key) + "' to be a string, found " +
                                      (v ? da::found(*v) : std::string("none")));
            if (!add_bytes(v->get_string().size())) return fail(name, too_many_bytes());
            value = v->get_string();
            return std::nullopt;
        };
        block b;
        if (cb_type->get_string() == "text") {
            b.kind = block_kind::text;
            std::string text;
            if (auto e = string_member("text", false, text)) return e;
            if (!message().has_text()) message().content = std::string();
            std::get<std::string>(message().content) += text;
            if (!text.empty()) {
                auto e = make_event(stream_event::kind::text);
                e.text = std::move(text);
                out.push_back(std::move(e));
            }
        } else if (cb_type->get_string() == "tool_use") {
            b.kind = block_kind::tool_use;
            b.tool = message().tool_calls.size();
            tool_call call;
            if (auto e = string_member("id", true, call.id)) return e;
            if (auto e = string_member("name", true, call.function.name)) return e;
            if (const auto* input = content.if_contains("input")) {
                if (!input->is_object())
                    return fail(name, "expected 'content_block.input' to be an object, found " + da::found(*input));
                if (!input->get_object().empty()) call.function.arguments = boost::json::serialize(*input);
                if (!add_bytes(call.function.arguments.size())) return fail(name, too_many_bytes());
            }
            auto e = make_event(stream_event::kind::tool_call);
            e.tool_index = b.tool;
            e.id = call.id;
            e.name = call.function.name;
            e.text = call.function.arguments;
            message().tool_calls.push_back(std::move(call));
            out.push_back(std::move(e));
        }
        blocks_.push_back(b);
        return std::nullopt;
    }

    std::optional<call_error> block_delta(const boost::json::object& o, std::vector<stream_event>& out) {
        namespace da = detail::anthropic;
        constexpr std::string_view name = "content_block_delta";
        const auto b = open_block(name, o);
        if (!b) return b.error();
        const auto* delta = o.if_contains("delta");
        const auto* delta_type = delta && delta->is_object() ? delta->get_object().if_contains("type") : nullptr;
        if (!delta_type || !delta_type->is_string())
            return fail(name, "expected 'delta' to be an object with a 'type', found " +
                                  (delta ? da::found(*delta) : std::string("none")));
        const block& target = blocks_[*b];
        auto fragment = [&](std::string_view key, block_kind kind, std::string_view kind_word) -> const boost::json::string* {
            if (target.kind != kind) {
                last_problem_ = "a " + std::string(delta_type->get_string()) + " for content block " + std::to_string(*b) +
                                ", which is not a " + std::string(kind_word) + " block";
                return nullptr;
            }
            const auto* v = delta->get_object().if_contains(key);
            if (!v || !v->is_string()) {
                last_problem_ = "expected 'delta." + std::string(key) + "' to be a string, found " +
                                (v ? da::found(*v) : std::string("none"));
                return nullptr;
            }
            if (!add_bytes(v->get_string().size())) {
                last_problem_ = too_many_bytes();
                return nullptr;
            }
            return &v->get_string();
        };
        if (delta_type->get_string() == "text_delta") {
            const auto* text = fragment("text", block_kind::text, "text");
            if (!text) return fail(name, last_problem_);
            std::get<std::string>(message().content) += std::string_view(*text);
            if (!text->empty()) {
                auto e = make_event(stream_event::kind::text);
                e.text = *text;
                out.push_back(std::move(e));
            }
        } else if (delta_type->get_string() == "input_json_delta") {
            const auto* json = fragment("partial_json", block_kind::tool_use, "tool_use");
            if (!json) return fail(name, last_problem_);
            message().tool_calls[target.tool].function.arguments += std::string_view(*json);
            if (!json->empty()) {
                auto e = make_event(stream_event::kind::tool_call);
                e.tool_index = target.tool;
                e.text = *json;
                out.push_back(std::move(e));
            }
        }
        return std::nullopt;
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
        std::string problem;
        if (auto v = detail::anthropic::parse_json(args, limits_.max_json_depth, problem); v && v->is_object())
            args = boost::json::serialize(*v);
    }

    std::optional<call_error> message_delta(const boost::json::object& o, std::vector<stream_event>& out) {
        namespace da = detail::anthropic;
        constexpr std::string_view name = "message_delta";
        if (const auto* delta = o.if_contains("delta")) {
            if (!delta->is_object()) return fail(name, "expected 'delta' to be an object, found " + da::found(*delta));
            if (const auto* stop = delta->get_object().if_contains("stop_reason"); stop && !stop->is_null()) {
                if (!stop->is_string())
                    return fail(name, "expected 'delta.stop_reason' to be a string or null, found " + da::found(*stop));
                choice().finish_text = da::bounded(stop->get_string(), 256);
                choice().finish = da::finish_of(choice().finish_text);
                auto e = make_event(stream_event::kind::finish);
                e.finish = choice().finish;
                e.finish_text = choice().finish_text;
                out.push_back(std::move(e));
            }
        }
        if (const auto* usage = o.if_contains("usage"); usage && !usage->is_null()) {
            if (!usage->is_object()) return fail(name, "expected 'usage' to be an object, found " + da::found(*usage));
            boost::json::object merged = usage_;
            for (const auto& field : usage->get_object()) merged[field.key()] = field.value();
            token_usage counts;
            std::string problem;
            if (!da::read_usage(merged, counts, problem)) return fail(name, problem);
            usage_ = std::move(merged);
            reply_.usage = std::move(counts);
            out.push_back(make_event(stream_event::kind::usage));
        }
        return std::nullopt;
    }

    decode_limits limits_;
    chat_reply reply_;
    std::vector<block> blocks_;
    boost::json::object usage_;  // the usage received so far, message_delta's fields over message_start's
    std::size_t bytes_ = 0;
    std::string last_problem_;
    std::optional<call_error> error_;
    bool started_ = false;
    bool stopped_ = false;
    bool taken_ = false;
};

}  // namespace parley::anthropic

#endif
