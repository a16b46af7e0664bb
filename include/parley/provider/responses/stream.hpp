// parley/provider/responses/stream.hpp: the semantic events of a streamed Responses API reply,
// decoded one server-sent event at a time into parley's stream events and an assembled reply.
#ifndef PARLEY_PROVIDER_RESPONSES_STREAM_HPP
#define PARLEY_PROVIDER_RESPONSES_STREAM_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/detail/utf16.hpp>
#include <parley/provider/reply.hpp>
#include <parley/provider/responses/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::responses {

/// Decodes a streamed Responses API reply: feed it each server-sent event's name (may be empty:
/// the data's `type` is then used) and data, in order. What the events give:
/// - `response.created`, `response.in_progress`: the reply's id, model and creation time;
/// - `response.output_item.added` of a `function_call`: a tool call (`call_id`, `name`) and a
///   `tool_call` event carrying them (`tool_index` counts the function calls from 0); of a
///   `reasoning` item: a reasoning part of kind item (its id);
/// - `response.output_text.delta` -> a `text` event (and its `logprobs`, kept on the choice);
///   `response.refusal.delta` -> a `refusal` event; `response.function_call_arguments.delta`
///   -> a `tool_call` event with the fragment; `response.reasoning_summary_text.delta` and
///   `response.reasoning_text.delta` -> `reasoning` events. A text split in the middle of a
///   UTF-16 surrogate pair across two deltas is joined;
/// - `response.output_item.done`: the item as it ended (a call's whole arguments, a reasoning
///   item's summary and encrypted_content) replaces what the deltas gave;
/// - `response.completed` and `response.incomplete`: the final Response, which replaces the
///   assembled reply when it lists output items (so that it equals decode_reply's for the same
///   response), then a `finish` event, a `usage` event when there is a usage, and `done`;
/// - `response.failed`: its error, as errc::api_error; an `error` event: a call_error with
///   errc::api_error and the event's code and message;
/// - other events (`response.content_part.added`, `response.output_text.done`, annotations,
///   built-in tools' progress, events added later) are skipped.
/// Malformed or unexpected data (an event of the wrong shape, a delta for an item that was not
/// added, data after the end, a limit of reply_limits exceeded) is a call_error with
/// errc::protocol naming the event and the member. After an error the decoder is failed: feed
/// returns the same error again.
class stream_decoder {
public:
    /// A decoder for a stream received with HTTP status `status` and header fields `headers`.
    explicit stream_decoder(http_headers headers = {}, int status = 200, const reply_limits& limits = {})
        : limits_(limits), bytes_(limits.max_assembled_bytes) {
        reply_.status = status;
        reply_.headers = std::move(headers);
        reply_.choices.emplace_back();
        reply_.choices.front().message.role = role::assistant;
        reply_.choices.front().logprobs = nullptr;
    }

    /// Decodes one event and appends the stream events it yields to `out`. Returns a call_error
    /// for an error or a failed response (errc::api_error) or malformed data (errc::protocol);
    /// the decoder is failed afterwards, and `out` keeps none of the failing event's events.
    std::optional<call_error> feed(std::string_view event, std::string_view data, std::vector<stream_event>& out) {
        if (error_) return error_;
        const std::size_t first_new = out.size();
        try {
            step(event, data, out);
        } catch (const detail::wire_failure& f) {
            error_ = detail::protocol_failure(reply_.status, reply_.headers, f.message);
        }
        if (error_) out.resize(first_new);
        return error_;
    }

    /// True once `response.completed` or `response.incomplete` was decoded.
    bool done() const noexcept { return done_; }
    /// True after feed returned an error.
    bool failed() const noexcept { return error_.has_value(); }
    /// The reply assembled so far (one choice, index 0).
    const chat_reply& reply() const noexcept { return reply_; }
    /// Moves the assembled reply out; the decoder then holds an empty reply.
    chat_reply take_reply() { return std::exchange(reply_, chat_reply{}); }

private:
    enum class item_kind : std::uint8_t { none, message, call, reasoning, other };
    struct item_slot {
        item_kind kind = item_kind::none;
        std::size_t index = 0;  // in the message's tool calls or reasoning
    };

    reply_choice& choice() noexcept { return reply_.choices.front(); }
    parley::message& message() noexcept { return choice().message; }

    static void emit(std::vector<stream_event>& out, stream_event::kind k, std::string text, std::size_t tool = 0) {
        if (text.empty()) return;
        stream_event e;
        e.type = k;
        e.tool_index = tool;
        e.text = std::move(text);
        out.push_back(std::move(e));
    }

    void step(std::string_view name, std::string_view data, std::vector<stream_event>& out) {
        namespace dr = detail;
        const auto first = data.find_first_not_of(" \t\r\n");
        if (first == std::string_view::npos) return;
        const dr::json_path label{nullptr, name.empty() ? std::string_view("(unnamed event)") : name, 0};
        if (done_) dr::fail_with(label, "expected nothing after the response ended, found \"" + dr::excerpt(data, 60) + "\"");
        if (data.size() > limits_.max_body_bytes)
            dr::fail_with(label, "expected data of at most max_body_bytes (" + std::to_string(limits_.max_body_bytes) +
                                     " bytes), found " + std::to_string(data.size()));
        dr::json_scratch scratch;
        boost::json::value v;
        try {
            v = dr::parse_event(data, limits_.max_json_depth, "JSON data", scratch.storage(), repaired_);
        } catch (const dr::wire_failure& f) {
            dr::fail_with(label, f.message);
        }
        const auto& o = dr::as_object(v, label);
        const auto type = dr::opt_string(o, "type", label);
        if (!type && name.empty()) dr::fail_with(label, "an event without a name needs a 'type' in its data");
        const std::string_view t = type ? *type : name;
        const dr::json_path at{nullptr, t, 0};
        if (t == "error") {
            call_error e;
            e.code = make_error_code(errc::api_error);
            e.status = reply_.status;
            e.headers = reply_.headers;
            e.api_code = dr::error_text(o.if_contains("code"), 256);
            e.param = dr::error_text(o.if_contains("param"), 256);
            e.message = dr::error_text(o.if_contains("message"), dr::max_error_text);
            if (const auto* err = dr::member(o, "error")) dr::read_error_member(*err, e);
            error_ = std::move(e);
            return;
        }
        if (t == "response.created" || t == "response.in_progress" || t == "response.queued") {
            const auto& r = dr::req_object(o, "response", at);
            const auto rat = at.member("response");
            if (const auto id = dr::opt_string(r, "id", rat)) reply_.id = dr::cut(*id, limits_.max_assembled_bytes);
            if (const auto model = dr::opt_string(r, "model", rat)) reply_.model = dr::cut(*model, limits_.max_assembled_bytes);
            if (const auto created = dr::opt_integer(r, "created_at", rat)) reply_.created = *created;
        } else if (t == "response.output_item.added") {
            item_added(o, at, out);
        } else if (t == "response.output_item.done") {
            item_done(o, at);
        } else if (t == "response.output_text.delta") {
            const std::string_view delta = text_delta(o, at, item_kind::message);
            if (!message().has_text()) message().content = std::string();
            emit(out, stream_event::kind::text, dr::append_piece(std::get<std::string>(message().content), delta));
            if (const auto* lp = dr::opt_array(o, "logprobs", at); lp && !lp->empty()) {
                bytes_.add(data.size());
                dr::add_logprobs(choice(), *lp);
            }
        } else if (t == "response.refusal.delta") {
            const std::string_view delta = text_delta(o, at, item_kind::message);
            if (!message().refusal) message().refusal.emplace();
            emit(out, stream_event::kind::refusal, dr::append_piece(*message().refusal, delta));
        } else if (t == "response.function_call_arguments.delta") {
            const std::string_view delta = text_delta(o, at, item_kind::call);
            const std::size_t k = slot(o, at).index;
            emit(out, stream_event::kind::tool_call, dr::append_piece(message().tool_calls[k].function.arguments, delta), k);
        } else if (t == "response.reasoning_summary_text.delta") {
            const std::string_view delta = text_delta(o, at, item_kind::reasoning);
            reasoning_part& r = message().reasoning[slot(o, at).index];
            const std::uint64_t part = dr::to_count(o.contains("summary_index") ? o.at("summary_index") : boost::json::value(0),
                                                    at.member("summary_index"));
            if (part > r.summary.size()) dr::fail_with(at.member("summary_index"), "expected the next summary part, found " + std::to_string(part));
            if (part == r.summary.size()) r.summary.emplace_back();
            emit(out, stream_event::kind::reasoning, dr::append_piece(r.summary[part], delta));
        } else if (t == "response.reasoning_text.delta") {
            const std::string_view delta = text_delta(o, at, item_kind::reasoning);
            emit(out, stream_event::kind::reasoning, dr::append_piece(message().reasoning[slot(o, at).index].text, delta));
        } else if (t == "response.completed" || t == "response.incomplete") {
            completed(o, at, out);
        } else if (t == "response.failed") {
            const auto& r = dr::req_object(o, "response", at);
            error_ = dr::failed_response(r, reply_.status, reply_.headers);
        }
    }

    // The slot of the event's output_index, which must have been added.
    item_slot& slot(const boost::json::object& o, const detail::json_path& at) {
        const auto* iv = o.if_contains("output_index");
        if (!iv) detail::fail_at(at.member("output_index"), "an output index", std::string_view("nothing"));
        const std::uint64_t i = detail::to_count(*iv, at.member("output_index"));
        if (i >= items_.size() || items_[i].kind == item_kind::none)
            detail::fail_with(at.member("output_index"), "output item " + std::to_string(i) + " has not been added");
        return items_[static_cast<std::size_t>(i)];
    }

    // The `delta` of a delta event for an item of kind `kind`.
    std::string_view text_delta(const boost::json::object& o, const detail::json_path& at, item_kind kind) {
        const item_slot& s = slot(o, at);
        if (s.kind != kind)
            detail::fail_with(at.member("output_index"), "this event does not belong to the kind of item at this index");
        const std::string_view delta = detail::req_string(o, "delta", at);
        bytes_.add(delta.size());
        return delta;
    }

    void item_added(const boost::json::object& o, const detail::json_path& at, std::vector<stream_event>& out) {
        namespace dr = detail;
        const std::uint64_t i = dr::to_count(o.contains("output_index") ? o.at("output_index") : boost::json::value(nullptr),
                                             at.member("output_index"));
        if (i != items_.size())
            dr::fail_at(at.member("output_index"), std::to_string(items_.size()) + " (the next output item)",
                        boost::json::value(i));
        if (items_.size() >= limits_.max_content_blocks)
            dr::fail_with(at, "expected at most max_content_blocks (" + std::to_string(limits_.max_content_blocks) +
                                  ") output items, found more");
        const auto iat = at.member("item");
        const auto& item = dr::req_object(o, "item", at);
        const std::string_view type = dr::req_string(item, "type", iat);
        item_slot s;
        if (type == "message") {
            s.kind = item_kind::message;
        } else if (type == "function_call") {
            if (message().tool_calls.size() >= limits_.max_tool_calls)
                dr::fail_with(at, "expected at most max_tool_calls (" + std::to_string(limits_.max_tool_calls) +
                                      ") function calls, found more");
            s.kind = item_kind::call;
            s.index = message().tool_calls.size();
            tool_call call;
            call.id = std::string(dr::req_string(item, "call_id", iat));
            call.function.name = std::string(dr::req_string(item, "name", iat));
            call.function.arguments = std::string(dr::opt_string(item, "arguments", iat).value_or(""));
            bytes_.add(call.id.size() + call.function.name.size() + call.function.arguments.size());
            stream_event e;
            e.type = stream_event::kind::tool_call;
            e.tool_index = s.index;
            e.id = call.id;
            e.name = call.function.name;
            e.text = call.function.arguments;
            message().tool_calls.push_back(std::move(call));
            out.push_back(std::move(e));
        } else if (type == "reasoning") {
            s.kind = item_kind::reasoning;
            s.index = message().reasoning.size();
            message().reasoning.push_back(dr::read_reasoning(item, iat, bytes_));
        } else {
            s.kind = item_kind::other;
        }
        items_.push_back(s);
    }

    void item_done(const boost::json::object& o, const detail::json_path& at) {
        namespace dr = detail;
        const item_slot& s = slot(o, at);
        const auto iat = at.member("item");
        const auto& item = dr::req_object(o, "item", at);
        if (s.kind == item_kind::call) {
            if (const auto args = dr::opt_string(item, "arguments", iat)) message().tool_calls[s.index].function.arguments = *args;
        } else if (s.kind == item_kind::reasoning) {
            message().reasoning[s.index] = dr::read_reasoning(item, iat, bytes_);
        }
    }

    void completed(const boost::json::object& o, const detail::json_path& at, std::vector<stream_event>& out) {
        namespace dr = detail;
        const auto rat = at.member("response");
        const auto& r = dr::req_object(o, "response", at);
        auto whole = dr::read_response(r, rat, reply_.status, limits_);
        if (!whole) {
            error_ = whole.error();
            error_->headers = reply_.headers;
            return;
        }
        reply_choice& c = choice();
        if (!whole->choices.front().message.reasoning.empty() || !whole->choices.front().message.tool_calls.empty() ||
            whole->choices.front().message.content.index() != 0 || whole->choices.front().message.refusal)
            c = std::move(whole->choices.front());
        else {
            c.finish = whole->choices.front().finish;
            c.finish_text = whole->choices.front().finish_text;
            if (c.finish == finish_reason::stop && !c.message.tool_calls.empty()) c.finish = finish_reason::tool_calls;
        }
        if (repaired_) {  // what is left of lone surrogates in the texts is U+FFFD
            if (auto* s = std::get_if<std::string>(&c.message.content)) dr::seal(*s);
            if (c.message.refusal) dr::seal(*c.message.refusal);
            for (auto& part : c.message.reasoning) {
                dr::seal(part.text);
                for (auto& s : part.summary) dr::seal(s);
            }
            for (auto& call : c.message.tool_calls) {
                dr::seal(call.id);
                dr::seal(call.function.name);
                dr::seal(call.function.arguments);
            }
        }
        if (!whole->id.empty()) reply_.id = std::move(whole->id);
        if (!whole->model.empty()) reply_.model = std::move(whole->model);
        if (whole->created) reply_.created = whole->created;
        stream_event fin;
        fin.type = stream_event::kind::finish;
        fin.finish = c.finish;
        fin.finish_text = c.finish_text;
        out.push_back(std::move(fin));
        if (whole->usage) {
            reply_.usage = std::move(whole->usage);
            stream_event u;
            u.type = stream_event::kind::usage;
            out.push_back(std::move(u));
        }
        done_ = true;
        stream_event done;
        done.type = stream_event::kind::done;
        out.push_back(std::move(done));
    }

    reply_limits limits_;
    detail::byte_budget bytes_;
    chat_reply reply_;
    std::vector<item_slot> items_;  // by output_index
    std::optional<call_error> error_;
    bool done_ = false;
    bool repaired_ = false;  // an event was read again with its lone surrogates repaired
};

}  // namespace parley::responses

#endif
