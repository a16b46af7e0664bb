// parley/provider/openai/reply_sax.hpp: the fast path of decode_reply: a chat.completion body
// read by Boost.JSON's basic_parser straight into a chat_reply, without building a DOM.
//
// The handler takes only bodies that the DOM path (detail::decode_reply_dom) decodes without
// error, and gives up on anything else: a member of another kind, a member it reads given twice
// (a DOM keeps the last), a non-null "error", more choices or tool calls than the limits allow, a
// choice index given twice, a body that does not parse. decode_reply then decodes the body
// through the DOM path, which gives the error naming the member (or the reply, for a repeated
// member). So the fast path needs no error messages of its own, and a reply it returns is the
// one the DOM path returns: the same members read the same way (null taken as missing, integers
// as opt_integer and to_count read them), `usage` and `logprobs` built as Boost.JSON values by a
// value_stack as boost::json::parser builds them, the same grammar, depth limit and size limits.
#ifndef PARLEY_PROVIDER_OPENAI_REPLY_SAX_HPP
#define PARLEY_PROVIDER_OPENAI_REPLY_SAX_HPP

#include <parley/provider/openai/common.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <boost/json/value_stack.hpp>
#include <boost/system/errc.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

namespace parley::openai::detail {

/// opt_integer's reading of a non-null value, without the throw: false where it would throw.
inline bool integer_of(const boost::json::value& v, std::int64_t& out) noexcept {
    if (v.is_int64()) {
        out = v.get_int64();
        return true;
    }
    if (v.is_uint64()) {
        if (v.get_uint64() > static_cast<std::uint64_t>(INT64_MAX)) return false;
        out = static_cast<std::int64_t>(v.get_uint64());
        return true;
    }
    if (v.is_double()) {
        const double d = v.get_double();
        if (!(d >= 0 && d < 9e15 && static_cast<double>(static_cast<std::uint64_t>(d)) == d)) return false;
        out = static_cast<std::int64_t>(static_cast<std::uint64_t>(d));
        return true;
    }
    return false;
}

/// to_count without the throw: false where it would throw.
inline bool count_of(const boost::json::value& v, std::uint64_t& out) noexcept {
    if (v.is_int64() && v.get_int64() >= 0) {
        out = static_cast<std::uint64_t>(v.get_int64());
        return true;
    }
    if (v.is_uint64()) {
        out = v.get_uint64();
        return true;
    }
    if (v.is_double() && v.get_double() >= 0 && v.get_double() < 9e15 &&
        static_cast<double>(static_cast<std::uint64_t>(v.get_double())) == v.get_double()) {
        out = static_cast<std::uint64_t>(v.get_double());
        return true;
    }
    return false;
}

/// opt_integer(o, key, ...).value_or(0) without the throw: false where it would throw.
inline bool integer_member(const boost::json::object& o, std::string_view key, std::int64_t& out) noexcept {
    const auto* v = member(o, key);
    if (!v) {
        out = 0;
        return true;
    }
    return integer_of(*v, out);
}

/// The basic_parser handler of the fast path. Every event either fills the reply or calls
/// give_up(), which stops the parser.
class completion_handler {
public:
    // the limits of boost::json::parser's own handler, so that a body too large for the DOM path
    // is too large here
    static constexpr std::size_t max_object_size = boost::json::object::max_size();
    static constexpr std::size_t max_array_size = boost::json::array::max_size();
    static constexpr std::size_t max_key_size = boost::json::string::max_size();
    static constexpr std::size_t max_string_size = boost::json::string::max_size();

    using error_code = boost::system::error_code;
    using string_view = boost::json::string_view;

    /// `temp` is the first memory of the value_stack that builds `usage` and `logprobs`.
    completion_handler(chat_reply& reply, const reply_limits& limits, unsigned char* temp, std::size_t temp_size) noexcept
        : reply_(reply), limits_(limits), values_(boost::json::storage_ptr(), temp, temp_size) {}

    /// Whether the handler gave up (the body must be decoded by the DOM path).
    bool gave_up() const noexcept { return gave_up_; }

    bool on_document_begin(error_code&) noexcept { return true; }
    bool on_document_end(error_code&) noexcept { return true; }
    bool on_comment_part(string_view, error_code&) noexcept { return true; }
    bool on_comment(string_view, error_code&) noexcept { return true; }

    bool on_object_begin(error_code& ec) {
        if (value_depth_ || skip_depth_) return enter();
        switch (value_slot()) {
        case slot::document: return push(frame::root, ec);
        case slot::choice: {
            if (reply_.choices.size() >= limits_.max_choices) return give_up(ec);
            auto& c = reply_.choices.emplace_back();
            c.index = reply_.choices.size() - 1;
            c.message.role = role::assistant;
            return push(frame::choice, ec);
        }
        case slot::call: {
            auto& calls = choice().message.tool_calls;
            if (calls.size() >= limits_.max_tool_calls) return give_up(ec);
            calls.emplace_back();
            return push(frame::call, ec);
        }
        case slot::message: return push(frame::message, ec);
        case slot::function_call:
            choice().message.function_call.emplace();
            return push(frame::function_call, ec);
        case slot::call_function: return push(frame::call_function, ec);
        case slot::reasoning:  // a `reasoning` that is not text is no reasoning text (the DOM skips it)
            skip_depth_ = 1;
            return true;
        case slot::usage:
        case slot::logprobs:
            values_.reset();
            value_slot_ = slot_;
            value_depth_ = 1;
            return true;
        case slot::other:
            skip_depth_ = 1;
            return true;
        default: return give_up(ec);
        }
    }

    bool on_object_end(std::size_t n, error_code& ec) {
        if (value_depth_) {
            values_.push_object(n);
            return --value_depth_ ? true : value_done(ec);
        }
        if (skip_depth_) {
            --skip_depth_;
            return true;
        }
        const auto& f = frames_[depth_ - 1];
        // the members the DOM path requires (a null one has already given up)
        if ((f.kind == frame::root && !f.has(slot::choices)) || (f.kind == frame::choice && !f.has(slot::message)) ||
            (f.kind == frame::call && !f.has(slot::call_function)))
            return give_up(ec);
        --depth_;
        return true;
    }

    bool on_array_begin(error_code& ec) {
        if (value_depth_ || skip_depth_) return enter();
        switch (value_slot()) {
        case slot::choices: return push(frame::choices, ec);
        case slot::tool_calls: return push(frame::tool_calls, ec);
        case slot::other:
        case slot::reasoning:
            skip_depth_ = 1;
            return true;
        default: return give_up(ec);
        }
    }

    bool on_array_end(std::size_t n, error_code& ec) {
        if (value_depth_) {
            values_.push_array(n);
            return --value_depth_ ? true : value_done(ec);
        }
        if (skip_depth_) {
            --skip_depth_;
            return true;
        }
        --depth_;
        return true;
    }

    // `n` is the length of the name so far: a name in parts (escapes) is put together in key_
    bool on_key_part(string_view s, std::size_t n, error_code&) {
        if (value_depth_) values_.push_chars(s);
        else if (skip_depth_) return true;
        else if (n == s.size()) key_.assign(s.data(), s.size());
        else key_.append(s.data(), s.size());
        return true;
    }

    bool on_key(string_view s, std::size_t n, error_code& ec) {
        if (value_depth_) {
            values_.push_key(s);
            return true;
        }
        if (skip_depth_) return true;
        std::string_view k(s.data(), s.size());
        if (n != s.size()) {
            key_.append(s.data(), s.size());
            k = key_;
        }
        auto& f = frames_[depth_ - 1];
        slot_ = find_slot(f.kind, k);
        if (slot_ == slot::other) return true;
        if (f.has(slot_)) return give_up(ec);  // the DOM keeps the last of repeated members
        // the DOM prefers reasoning_content to reasoning
        if ((slot_ == slot::reasoning && f.has(slot::reasoning_content)) ||
            (slot_ == slot::reasoning_content && f.has(slot::reasoning)))
            return give_up(ec);
        f.seen |= bit(slot_);
        return true;
    }

    bool on_string_part(string_view s, std::size_t, error_code& ec) {
        if (value_depth_) {
            values_.push_chars(s);
            return true;
        }
        if (skip_depth_) return true;
        if (!in_string_ && !begin_string(ec)) return false;
        if (text_) text_->append(s.data(), s.size());
        return true;
    }

    bool on_string(string_view s, std::size_t, error_code& ec) {
        if (value_depth_) {
            values_.push_string(s);
            return true;
        }
        if (skip_depth_) return true;
        if (!in_string_ && !begin_string(ec)) return false;
        in_string_ = false;
        if (!text_) return true;
        text_->append(s.data(), s.size());
        text_ = nullptr;
        switch (string_slot_) {
        case slot::role: return word_ == "assistant" ? true : give_up(ec);
        case slot::call_type: return word_ == "function" ? true : give_up(ec);
        case slot::reasoning_content:
        case slot::reasoning:
            // an empty reasoning text is none, as the DOM reads it
            if (choice().message.reasoning.back().text.empty()) choice().message.reasoning.pop_back();
            return true;
        case slot::finish: choice().finish = finish_from_word(choice().finish_text); return true;
        default: return true;
        }
    }

    bool on_number_part(string_view, error_code&) noexcept { return true; }

    bool on_int64(std::int64_t i, string_view, error_code& ec) {
        if (value_depth_) {
            values_.push_int64(i);
            return true;
        }
        return skip_depth_ || number(boost::json::value(i), ec);
    }
    bool on_uint64(std::uint64_t u, string_view, error_code& ec) {
        if (value_depth_) {
            values_.push_uint64(u);
            return true;
        }
        return skip_depth_ || number(boost::json::value(u), ec);
    }
    bool on_double(double d, string_view, error_code& ec) {
        if (value_depth_) {
            values_.push_double(d);
            return true;
        }
        return skip_depth_ || number(boost::json::value(d), ec);
    }

    bool on_bool(bool b, error_code& ec) {
        if (value_depth_) {
            values_.push_bool(b);
            return true;
        }
        return skip_depth_ || value_slot() == slot::other || value_slot() == slot::reasoning || give_up(ec);
    }

    bool on_null(error_code& ec) {
        if (value_depth_) {
            values_.push_null();
            return true;
        }
        if (skip_depth_) return true;
        switch (value_slot()) {
        // read with if_contains: null is of the wrong kind
        case slot::choices:
        case slot::message:
        case slot::call_function:
        case slot::choice:
        case slot::call:
        case slot::document: return give_up(ec);
        // every other member is read with member(): null is as if missing (a null "error" too)
        default: return true;
        }
    }

private:
    enum class frame : std::uint8_t { root, choices, choice, message, function_call, tool_calls, call, call_function };
    /// What the next value is, from the member name (or the array) it belongs to.
    enum class slot : std::uint8_t {
        other,  // a member that is not read: skipped whatever it holds
        id, model, fingerprint, created, choices, usage, error,  // of the reply
        index, message, logprobs, finish,  // of a choice
        role, content, refusal, function_call, tool_calls, reasoning_content, reasoning,  // of a message
        name, arguments,  // of a function call
        call_id, call_type, call_function,  // of a tool call
        choice, call,  // an element of choices, of tool_calls
        document,  // the whole body
    };
    static constexpr std::uint32_t bit(slot s) noexcept { return std::uint32_t{1} << static_cast<unsigned>(s); }

    struct frame_state {
        frame kind = frame::root;
        std::uint32_t seen = 0;  // the members read so far
        bool has(slot s) const noexcept { return (seen & bit(s)) != 0; }
    };
    // root, choices, choice, message, tool_calls, call, call_function: the deepest object read
    static constexpr std::size_t max_frames = 8;

    /// `k` (of the literal's length) is the literal; a comparison the compiler writes inline.
    template <std::size_t N>
    static bool is(std::string_view k, const char (&literal)[N]) noexcept {
        return std::memcmp(k.data(), literal, N - 1) == 0;
    }

    /// The slot of member `k` of an object of kind `f`, by length first.
    static slot find_slot(frame f, std::string_view k) noexcept {
        switch (f) {
        case frame::root:
            switch (k.size()) {
            case 2: return is(k, "id") ? slot::id : slot::other;
            case 5: return is(k, "model") ? slot::model : is(k, "usage") ? slot::usage : is(k, "error") ? slot::error : slot::other;
            case 7: return is(k, "choices") ? slot::choices : is(k, "created") ? slot::created : slot::other;
            case 18: return is(k, "system_fingerprint") ? slot::fingerprint : slot::other;
            default: return slot::other;
            }
        case frame::choice:
            switch (k.size()) {
            case 5: return is(k, "index") ? slot::index : slot::other;
            case 7: return is(k, "message") ? slot::message : slot::other;
            case 8: return is(k, "logprobs") ? slot::logprobs : slot::other;
            case 13: return is(k, "finish_reason") ? slot::finish : slot::other;
            default: return slot::other;
            }
        case frame::message:
            switch (k.size()) {
            case 4: return is(k, "role") ? slot::role : slot::other;
            case 7: return is(k, "content") ? slot::content : is(k, "refusal") ? slot::refusal : slot::other;
            case 9: return is(k, "reasoning") ? slot::reasoning : slot::other;
            case 10: return is(k, "tool_calls") ? slot::tool_calls : slot::other;
            case 13: return is(k, "function_call") ? slot::function_call : slot::other;
            case 17: return is(k, "reasoning_content") ? slot::reasoning_content : slot::other;
            default: return slot::other;
            }
        case frame::function_call:
        case frame::call_function:
            switch (k.size()) {
            case 4: return is(k, "name") ? slot::name : slot::other;
            case 9: return is(k, "arguments") ? slot::arguments : slot::other;
            default: return slot::other;
            }
        case frame::call:
            switch (k.size()) {
            case 2: return is(k, "id") ? slot::call_id : slot::other;
            case 4: return is(k, "type") ? slot::call_type : slot::other;
            case 8: return is(k, "function") ? slot::call_function : slot::other;
            default: return slot::other;
            }
        case frame::choices:
        case frame::tool_calls: break;
        }
        return slot::other;
    }

    /// What the value now beginning is: an array's element, or the member last named.
    slot value_slot() const noexcept {
        if (depth_ == 0) return slot::document;
        switch (frames_[depth_ - 1].kind) {
        case frame::choices: return slot::choice;
        case frame::tool_calls: return slot::call;
        default: return slot_;
        }
    }

    bool give_up(error_code& ec) noexcept {
        gave_up_ = true;
        ec = boost::system::errc::make_error_code(boost::system::errc::operation_canceled);
        return false;
    }

    /// A container inside one that is skipped or built as a value.
    bool enter() noexcept {
        if (value_depth_) ++value_depth_;
        else ++skip_depth_;
        return true;
    }

    bool push(frame f, error_code& ec) noexcept {
        if (depth_ == max_frames) return give_up(ec);
        frames_[depth_++] = frame_state{f, 0};
        return true;
    }

    reply_choice& choice() noexcept { return reply_.choices.back(); }
    function_call& function() noexcept {
        if (frames_[depth_ - 1].kind == frame::function_call) return *choice().message.function_call;
        return choice().message.tool_calls.back().function;
    }

    /// Where the string now beginning goes (null: nowhere); gives up when a string is not
    /// what the slot holds.
    bool begin_string(error_code& ec) {
        string_slot_ = value_slot();
        switch (string_slot_) {
        case slot::id: text_ = &reply_.id; break;
        case slot::model: text_ = &reply_.model; break;
        case slot::fingerprint: text_ = &reply_.system_fingerprint; break;
        case slot::finish: text_ = &choice().finish_text; break;
        case slot::content: text_ = &choice().message.content.emplace<std::string>(); break;
        case slot::refusal: text_ = &choice().message.refusal.emplace(); break;
        case slot::reasoning_content:
        case slot::reasoning: text_ = &choice().message.reasoning.emplace_back().text; break;
        case slot::name: text_ = &function().name; break;
        case slot::arguments: text_ = &function().arguments; break;
        case slot::call_id: text_ = &choice().message.tool_calls.back().id; break;
        case slot::role:
        case slot::call_type:
            word_.clear();
            text_ = &word_;
            break;
        case slot::other: text_ = nullptr; break;
        default: return give_up(ec);
        }
        in_string_ = true;
        return true;
    }

    bool number(const boost::json::value& v, error_code& ec) {
        switch (value_slot()) {
        case slot::created: return integer_of(v, reply_.created) || give_up(ec);
        case slot::reasoning: return true;
        case slot::index: {
            std::uint64_t index = 0;
            if (!count_of(v, index) || index >= limits_.max_choices) return give_up(ec);
            choice().index = static_cast<std::size_t>(index);
            return true;
        }
        case slot::other: return true;
        default: return give_up(ec);
        }
    }

    /// `usage` or `logprobs` has been read whole.
    bool value_done(error_code& ec) {
        boost::json::value v = values_.release();
        if (value_slot_ == slot::logprobs) {
            choice().logprobs = std::move(v);
            return true;
        }
        token_usage& u = reply_.usage.emplace();
        const auto& o = v.get_object();
        if (!integer_member(o, "prompt_tokens", u.prompt_tokens) || !integer_member(o, "completion_tokens", u.completion_tokens) ||
            !integer_member(o, "total_tokens", u.total_tokens))
            return give_up(ec);
        u.details = std::move(v.get_object());
        return true;
    }

    chat_reply& reply_;
    const reply_limits& limits_;
    boost::json::value_stack values_;  // usage or logprobs, while value_depth_ > 0
    frame_state frames_[max_frames];
    std::size_t depth_ = 0;  // frames in use
    std::size_t value_depth_ = 0;  // nesting inside usage or logprobs
    std::size_t skip_depth_ = 0;  // nesting inside a member that is not read
    slot slot_ = slot::other;  // the member last named
    slot value_slot_ = slot::other;  // usage or logprobs
    slot string_slot_ = slot::other;
    bool in_string_ = false;
    bool gave_up_ = false;
    std::string* text_ = nullptr;  // where the string under way goes
    std::string key_;  // a member name that comes in parts
    std::string word_;  // a role or a tool call's type
};

/// Decodes a chat.completion body into `r` (which must be empty) without a DOM; false when the
/// body needs the DOM path (an error, or anything the fast path does not read), `r` then holding
/// a part of the reply to be thrown away. The status and header fields are not set.
inline bool decode_reply_sax(std::string_view body, const reply_limits& limits, chat_reply& r) {
    boost::json::parse_options opt;
    opt.max_depth = limits.max_json_depth;
    unsigned char temp[1024];
    boost::json::basic_parser<completion_handler> p(opt, r, limits, temp, sizeof temp);
    boost::system::error_code ec;
    try {
        const std::size_t n = p.write_some(false, body.data(), body.size(), ec);
        if (ec || n != body.size() || p.handler().gave_up()) return false;
    } catch (const std::exception&) {
        return false;  // out of memory or too long: the DOM path says what
    }
    const auto by_index = [](const reply_choice& a, const reply_choice& b) { return a.index < b.index; };
    if (!std::is_sorted(r.choices.begin(), r.choices.end(), by_index))
        std::stable_sort(r.choices.begin(), r.choices.end(), by_index);
    for (std::size_t i = 1; i < r.choices.size(); ++i)
        if (r.choices[i].index == r.choices[i - 1].index) return false;
    return true;
}

}  // namespace parley::openai::detail

#endif
