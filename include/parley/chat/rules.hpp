// parley/chat/rules.hpp: the rules of the chat model, in one place for the four ways messages
// are made: C++ at run time (`check`, `validate`, conversation_template's constructor), YAML
// files (the loader, which adds file:line:col), JSON histories (conversation_from_json, which adds
// the JSON pointer) and the constexpr builders (which turn a broken rule into a compile error).
#ifndef PARLEY_CHAT_RULES_HPP
#define PARLEY_CHAT_RULES_HPP

#include <parley/chat/detail/request_fields.hpp>
#include <parley/chat/detail/suggest.hpp>
#include <parley/chat/message.hpp>
#include <parley/error.hpp>
#include <parley/schema/function_signature.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace parley {

/// A rule of the chat model. `none` means no rule is broken.
enum class chat_rule : std::uint8_t {
    none,
    unknown_key,  ///< a key that no message has (a typo such as `temprature`)
    param_outside_request,  ///< a request parameter in a message that is not default-request/request
    field_in_control,  ///< content, name or a call in a default-request/request message
    key_in_truncate,  ///< any key but `role` in a truncate message
    assistant_only,  ///< function_call or tool_calls outside an assistant message
    tool_only,  ///< tool_call_id outside a tool message
    function_needs_name,  ///< a function message without a name
    tool_needs_id,  ///< a tool message without tool_call_id
    empty_default_request,  ///< a default-request message that sets no parameter
    image_outside_user,  ///< an image part outside a user message
    bad_detail,  ///< an image detail other than auto, low or high
    empty_call_name,  ///< a function call or tool call without a function name
    empty_tool_call_id,  ///< a tool call without an id
    out_of_range,  ///< a numeric request parameter outside its range
    too_many_stops,  ///< more than 4 stop sequences
    empty_stop,  ///< an empty stop sequence
    bad_logit_bias_key,  ///< a logit_bias key that is not a token id
    bad_function_name,  ///< a name in `functions` that does not match ^[a-zA-Z0-9_-]{1,64}$
    duplicate_function,  ///< a name listed twice in `functions`
    forced_function_not_listed,  ///< call_function names a function that `functions` does not list
    bad_response_format,  ///< response_format without a type of text, json_object or json_schema
    bad_value,  ///< a value a request parameter does not take (a word not in its list, a thinking budget below 1024, ...)
    needs_content,  ///< a system, function or tool message, or an assistant message without calls, without content
    empty_field,  ///< an empty `name` or `tool_call_id` (leave it out, or give it a value)
    result_only,  ///< `is_error` (a result that reports a failure) outside a tool or function message
};

/// The keys a message may have, as written in YAML and JSON (request parameters aside).
inline constexpr std::string_view message_keys[] = {"role",         "name",    "content",  "function_call",
                                                    "tool_calls",   "tool_call_id", "refusal", "reasoning"};

/// The rule broken by key `key` in a message of role `r` (`none` when the key is allowed there).
constexpr chat_rule check_key(role r, std::string_view key) noexcept {
    if (key == "role") return chat_rule::none;
    if (is_request_param(key)) {
        if (r == role::truncate) return chat_rule::key_in_truncate;
        return is_control(r) ? chat_rule::none : chat_rule::param_outside_request;
    }
    bool known = false;
    for (auto k : message_keys) known = known || k == key;
    if (!known) return chat_rule::unknown_key;
    if (r == role::truncate) return chat_rule::key_in_truncate;
    if (is_control(r)) return chat_rule::field_in_control;
    if ((key == "function_call" || key == "tool_calls" || key == "refusal" || key == "reasoning") && r != role::assistant)
        return chat_rule::assistant_only;
    if (key == "tool_call_id" && r != role::tool) return chat_rule::tool_only;
    return chat_rule::none;
}

/// True when a message of role `r` must have content: system, function and tool messages, and
/// assistant messages without calls (`calls`: a function_call or a tool call). A user message
/// may leave it out (it then takes the input's contentParts); control messages have none.
constexpr bool content_required(role r, bool calls) noexcept {
    switch (r) {
    case role::system:
    case role::function:
    case role::tool: return true;
    case role::assistant: return !calls;
    default: return false;
    }
}

/// What a message has, for check_required (an empty text or an empty list is content given).
struct message_shape {
    bool name = false;  ///< a name is given
    bool tool_call_id = false;  ///< a tool_call_id is given
    bool content = false;  ///< content is given
    bool calls = false;  ///< a function_call or at least one tool call
    bool params = false;  ///< at least one request parameter is set
};

/// The rule broken by a message of role `r` that lacks something it needs: a function message's
/// name, a tool message's tool_call_id, the content (content_required), a default-request's
/// parameters. Checked in that order.
constexpr chat_rule check_required(role r, const message_shape& has) noexcept {
    if (r == role::function && !has.name) return chat_rule::function_needs_name;
    if (r == role::tool && !has.tool_call_id) return chat_rule::tool_needs_id;
    if (content_required(r, has.calls) && !has.content) return chat_rule::needs_content;
    if (r == role::default_request && !has.params) return chat_rule::empty_default_request;
    return chat_rule::none;
}

/// `empty_field` when a `name` or `tool_call_id` that is given is empty.
constexpr chat_rule check_not_empty(std::string_view value) noexcept {
    return value.empty() ? chat_rule::empty_field : chat_rule::none;
}

/// Bounds of a numeric request parameter.
struct param_range {
    double min, max;
};

/// The range of numeric request parameter `name` (for parameters without one, the whole line).
constexpr param_range range_of(std::string_view name) noexcept {
    if (name == "temperature") return {0, 2};
    if (name == "top_p") return {0, 1};
    if (name == "presence_penalty" || name == "frequency_penalty") return {-2, 2};
    if (name == "max_tokens" || name == "max_completion_tokens") return {1, 1e18};
    if (name == "top_k") return {0, 1e18};
    if (name == "top_logprobs") return {0, 20};
    if (name == "n") return {1, 128};
    if (name == "logit_bias") return {-100, 100};
    return {-1e300, 1e300};
}

/// `out_of_range` when `v` is outside the range of parameter `name` (NaN is outside every range).
constexpr chat_rule check_number(std::string_view name, double v) noexcept {
    const param_range r = range_of(name);
    return (v >= r.min && v <= r.max) ? chat_rule::none : chat_rule::out_of_range;
}

/// `bad_logit_bias_key` unless `key` is a token id (1 to 10 decimal digits).
constexpr chat_rule check_logit_bias_key(std::string_view key) noexcept {
    if (key.empty() || key.size() > 10) return chat_rule::bad_logit_bias_key;
    for (char c : key)
        if (c < '0' || c > '9') return chat_rule::bad_logit_bias_key;
    return chat_rule::none;
}

/// `bad_detail` unless `detail` is auto, low or high.
constexpr chat_rule check_detail(std::string_view detail) noexcept {
    return detail == "auto" || detail == "low" || detail == "high" ? chat_rule::none : chat_rule::bad_detail;
}

/// The rule broken by an image part in a message of role `r` (`has_detail` false: no detail given).
constexpr chat_rule check_image(role r, bool has_detail, std::string_view detail) noexcept {
    if (r != role::user) return chat_rule::image_outside_user;
    return has_detail ? check_detail(detail) : chat_rule::none;
}

/// The rule broken by a function call (the legacy `function_call`, or a tool call's function).
constexpr chat_rule check_function_call(std::string_view name) noexcept {
    return name.empty() ? chat_rule::empty_call_name : chat_rule::none;
}

/// The rule broken by a tool call.
constexpr chat_rule check_tool_call(std::string_view id, std::string_view function_name) noexcept {
    return id.empty() ? chat_rule::empty_tool_call_id : check_function_call(function_name);
}

/// The most stop sequences a request may have.
inline constexpr std::size_t max_stop_sequences = 4;

/// The rule broken by a list of stop sequences (any range of strings).
template <class Strings>
constexpr chat_rule check_stop_list(const Strings& stops) noexcept {
    if (static_cast<std::size_t>(std::distance(std::begin(stops), std::end(stops))) > max_stop_sequences)
        return chat_rule::too_many_stops;
    for (const auto& s : stops)
        if (std::string_view(s).empty()) return chat_rule::empty_stop;
    return chat_rule::none;
}

/// `bad_function_name` unless `name` matches ^[a-zA-Z0-9_-]{1,64}$.
constexpr chat_rule check_function_name(std::string_view name) noexcept {
    return is_valid_function_name(name) ? chat_rule::none : chat_rule::bad_function_name;
}

/// A broken rule and the index of the item that breaks it.
struct rule_at {
    chat_rule rule = chat_rule::none;
    std::size_t index = 0;
};

/// The first rule a `functions` list (any range of strings) breaks: an invalid name, or a name
/// listed twice (the index is then that of the second).
template <class Strings>
constexpr rule_at check_function_list(const Strings& names) noexcept {
    std::size_t i = 0;
    for (auto it = std::begin(names); it != std::end(names); ++it, ++i) {
        const std::string_view name(*it);
        if (check_function_name(name) != chat_rule::none) return {chat_rule::bad_function_name, i};
        for (auto earlier = std::begin(names); earlier != it; ++earlier)
            if (std::string_view(*earlier) == name) return {chat_rule::duplicate_function, i};
    }
    return {};
}

/// The rule broken by `call_function` given the `functions` list (null when the request has
/// none, and then any valid name may be forced): "", "*" and "+" break none.
template <class Strings>
constexpr chat_rule check_call_function(std::string_view call, const Strings* functions) noexcept {
    if (call.empty() || call == "*" || call == "+") return chat_rule::none;
    if (check_function_name(call) != chat_rule::none) return chat_rule::bad_function_name;
    if (!functions) return chat_rule::none;
    for (const auto& f : *functions)
        if (std::string_view(f) == call) return chat_rule::none;
    return chat_rule::forced_function_not_listed;
}

/// `bad_response_format` unless `type` is "text", "json_object" or "json_schema".
constexpr chat_rule check_response_format_type(std::string_view type) noexcept {
    return type == "text" || type == "json_object" || type == "json_schema" ? chat_rule::none
                                                                            : chat_rule::bad_response_format;
}

/// A sentence saying what is wrong: `key` is the offending key or parameter (may be empty). An
/// unknown key close to a known one adds "; did you mean 'KEY'?".
inline std::string describe(chat_rule rule, role r, std::string_view key = {}) {
    const std::string q = "'" + std::string(key) + "'";
    const std::string_view rn = role_name(r);
    const std::string who = (rn[0] == 'a' ? "an " : "a ") + std::string(rn) + " message";
    switch (rule) {
    case chat_rule::none: return "no rule is broken";
    case chat_rule::unknown_key: {
        std::vector<std::string_view> known(std::begin(message_keys), std::end(message_keys));
        known.insert(known.end(), std::begin(request_param_names), std::end(request_param_names));
        return "unknown key " + q + " in " + who + detail::did_you_mean(key, known);
    }
    case chat_rule::param_outside_request:
        return q + " is a request parameter: only default-request and request messages set it, not " + who;
    case chat_rule::field_in_control: return who + " sets request parameters only; it has no " + q;
    case chat_rule::key_in_truncate: return "a truncate message has no key but 'role', found " + q;
    case chat_rule::assistant_only: return q + " belongs to assistant messages, not to " + who;
    case chat_rule::tool_only: return q + " belongs to tool messages, not to " + who;
    case chat_rule::function_needs_name: return "a function message needs a 'name' (the function's name)";
    case chat_rule::tool_needs_id: return "a tool message needs a 'tool_call_id' (the id of the call it answers)";
    case chat_rule::empty_default_request: return "a default-request message must set at least one request parameter";
    case chat_rule::image_outside_user: return "image parts belong to user messages, not to " + who;
    case chat_rule::bad_detail: return "an image detail is 'auto', 'low' or 'high', found " + q;
    case chat_rule::empty_call_name: return "a function call needs the function's 'name'";
    case chat_rule::empty_tool_call_id: return "a tool call needs an 'id'";
    case chat_rule::out_of_range: {
        const param_range range = range_of(key);
        auto num = [](double d) {
            std::string s = std::to_string(static_cast<long long>(d));
            return s;
        };
        if (key == "max_tokens" || key == "max_completion_tokens") return q + " must be at least 1";
        if (key == "top_k") return q + " must be at least 0";
        return q + " must be between " + num(range.min) + " and " + num(range.max);
    }
    case chat_rule::too_many_stops: return "'stop' has at most 4 sequences";
    case chat_rule::empty_stop: return "a 'stop' sequence cannot be empty";
    case chat_rule::bad_logit_bias_key: return "a 'logit_bias' key is a token id (decimal digits), found " + q;
    case chat_rule::bad_function_name:
        return "a function name matches ^[a-zA-Z0-9_-]{1,64}$, found " + q;
    case chat_rule::duplicate_function: return "function " + q + " is listed twice in 'functions'";
    case chat_rule::forced_function_not_listed:
        return "'call_function' forces " + q + ", which 'functions' does not list";
    case chat_rule::bad_response_format:
        return "'response_format' needs a 'type' of \"text\", \"json_object\" or \"json_schema\"";
    case chat_rule::bad_value: return detail::value_rule_sentence(key);
    case chat_rule::needs_content:
        if (r == role::assistant)
            return "an assistant message needs 'content' unless it has 'tool_calls', a 'function_call' or a 'refusal'";
        return who + " needs 'content' (only a user message may leave it out)";
    case chat_rule::empty_field: return q + " cannot be empty";
    case chat_rule::result_only:
        return q + " belongs to tool and function messages (a result that reports a failure), not to " + who;
    }
    return "unknown rule";
}

/// A broken rule, the key or value its sentence names, and where it is in the message.
struct rule_violation {
    chat_rule rule = chat_rule::none;
    std::string key;  ///< what describe() names: the key, parameter or value concerned (may be empty)
    /// Where the rule is broken, as a JSON pointer relative to the message ("/temperature",
    /// "/tool_calls/1", "/content/0/image_url/detail"); empty for the message itself (for what
    /// it lacks). The YAML loader turns it into a line and column, JSON histories append it to
    /// the message's pointer.
    std::string pointer;
    bool at_key = false;  ///< the key at `pointer` is what is wrong (a misplaced key, a logit_bias key), not its value
    explicit operator bool() const noexcept { return rule != chat_rule::none; }
};

namespace detail {

/// `token` as one step of a JSON pointer: "/" then the token with `~` written `~0` and `/`
/// written `~1` (RFC 6901).
inline std::string pointer_step(std::string_view token) {
    std::string s = "/";
    for (char c : token) {
        if (c == '~') s += "~0";
        else if (c == '/') s += "~1";
        else s += c;
    }
    return s;
}
inline std::string pointer_step(std::size_t index) { return "/" + std::to_string(index); }

}  // namespace detail

/// The first rule that request parameters `p` break (their values only: which message may set
/// them is check_key's business). The pointer names the parameter as a key of the message.
inline rule_violation check(const request_params& p) {
    using detail::pointer_step;
    auto number = [](std::string_view name, const auto& v) -> rule_violation {
        if (v && check_number(name, static_cast<double>(*v)) != chat_rule::none)
            return {chat_rule::out_of_range, std::string(name), pointer_step(name)};
        return {};
    };
    for (auto r : {number("max_tokens", p.max_tokens), number("temperature", p.temperature),
                   number("top_p", p.top_p), number("presence_penalty", p.presence_penalty),
                   number("frequency_penalty", p.frequency_penalty), number("n", p.n),
                   number("max_completion_tokens", p.max_completion_tokens), number("top_k", p.top_k),
                   number("top_logprobs", p.top_logprobs)})
        if (r) return r;
    if (p.stop) {
        if (const auto* one = std::get_if<std::string>(&*p.stop)) {
            if (one->empty()) return {chat_rule::empty_stop, "stop", "/stop"};
        } else {
            const auto& list = std::get<std::vector<std::string>>(*p.stop);
            if (const chat_rule broken = check_stop_list(list); broken == chat_rule::too_many_stops)
                return {broken, "stop", "/stop"};
            for (std::size_t i = 0; i < list.size(); ++i)
                if (list[i].empty()) return {chat_rule::empty_stop, "stop", "/stop" + pointer_step(i)};
        }
    }
    if (p.logit_bias) {
        for (const auto& [token, bias] : *p.logit_bias) {
            if (check_logit_bias_key(token) != chat_rule::none)
                return {chat_rule::bad_logit_bias_key, token, "/logit_bias" + pointer_step(token), true};
            if (check_number("logit_bias", static_cast<double>(bias)) != chat_rule::none)
                return {chat_rule::out_of_range, "logit_bias", "/logit_bias" + pointer_step(token)};
        }
    }
    if (p.response_format) {
        const auto* type = p.response_format->if_contains("type");
        if (!type || !type->is_string() ||
            check_response_format_type(std::string_view(type->get_string())) != chat_rule::none)
            return {chat_rule::bad_response_format, "response_format", "/response_format"};
    }
    if (p.functions) {
        if (const rule_at broken = check_function_list(*p.functions); broken.rule != chat_rule::none)
            return {broken.rule, (*p.functions)[broken.index], "/functions" + pointer_step(broken.index)};
    }
    if (p.call_function) {
        const std::vector<std::string>* listed = p.functions ? &*p.functions : nullptr;
        if (const chat_rule broken = check_call_function(*p.call_function, listed); broken != chat_rule::none)
            return {broken, *p.call_function, "/call_function"};
    }
    if (const std::string_view bad = detail::first_bad_value(p); !bad.empty()) return {chat_rule::bad_value, std::string(bad), pointer_step(bad)};
    return {};
}

/// The first rule that message `m` breaks, checked in this order (the YAML loader, JSON
/// histories and the constexpr builders apply the same rules in the same order):
/// 1. keys the role does not take (content, a call or a name in a control message, a call
///    outside an assistant message, a tool_call_id outside a tool message, a request parameter
///    outside default-request and request, anything in a truncate message, is_error outside tool
///    and function messages);
/// 2. an empty `name` or `tool_call_id`;
/// 3. what the role needs (check_required): a function's name, a tool message's tool_call_id,
///    content (only user messages, and assistant messages with calls, may leave it out), a
///    default-request's parameters;
/// 4. image parts (user messages only) and their detail (auto, low or high);
/// 5. calls: a function name, and an id for each tool call;
/// 6. the request parameters' values (check(request_params)).
inline rule_violation check(const message& m) {
    using detail::pointer_step;
    const role r = m.role;
    auto key = [&](bool present, std::string_view k) -> rule_violation {
        if (!present) return {};
        const chat_rule broken = check_key(r, k);
        if (broken != chat_rule::none) return {broken, std::string(k), pointer_step(k), true};
        return {};
    };
    for (auto v : {key(m.name.has_value(), "name"), key(m.content.index() != 0, "content"),
                   key(m.function_call.has_value(), "function_call"), key(!m.tool_calls.empty(), "tool_calls"),
                   key(m.tool_call_id.has_value(), "tool_call_id"), key(m.refusal.has_value(), "refusal"),
                   key(!m.reasoning.empty(), "reasoning")})
        if (v) return v;
    if (!m.params.empty() && (!is_control(r) || r == role::truncate)) {
        const std::string_view first = first_set_param(m.params);
        return {check_key(r, first), std::string(first), pointer_step(first), true};
    }
    if (m.is_error && r != role::tool && r != role::function)  // a JSON key only (templates hold no results' failures)
        return {chat_rule::result_only, "is_error", "/is_error", true};
    if (m.name && check_not_empty(*m.name) != chat_rule::none) return {chat_rule::empty_field, "name", "/name"};
    if (m.tool_call_id && check_not_empty(*m.tool_call_id) != chat_rule::none)
        return {chat_rule::empty_field, "tool_call_id", "/tool_call_id"};
    // an assistant's refusal stands for its content (OpenAI's form: content null, the refusal beside it)
    const message_shape has{m.name.has_value(), m.tool_call_id.has_value(), m.content.index() != 0 || m.refusal.has_value(),
                            m.function_call.has_value() || !m.tool_calls.empty(), !m.params.empty()};
    if (const chat_rule broken = check_required(r, has); broken != chat_rule::none) return {broken, {}, {}};
    for (std::size_t j = 0; j < m.parts().size(); ++j) {
        const content_part& part = m.parts()[j];
        if (part.type != content_part::kind::image_url) continue;
        const std::string_view detail = part.detail ? std::string_view(*part.detail) : std::string_view();
        const chat_rule broken = check_image(r, part.detail.has_value(), detail);
        if (broken == chat_rule::image_outside_user) return {broken, "content", "/content" + pointer_step(j)};
        if (broken != chat_rule::none)
            return {broken, *part.detail, "/content" + pointer_step(j) + "/image_url/detail"};
    }
    if (m.function_call && check_function_call(m.function_call->name) != chat_rule::none)
        return {chat_rule::empty_call_name, "function_call", "/function_call"};
    for (std::size_t k = 0; k < m.tool_calls.size(); ++k) {
        const tool_call& call = m.tool_calls[k];
        if (const chat_rule broken = check_tool_call(call.id, call.function.name); broken != chat_rule::none)
            return {broken, "tool_calls", "/tool_calls" + pointer_step(k)};
    }
    return check(m.params);
}

/// Throws parley::error (errc::chat_invalid) with describe()'s sentence when `m` breaks a rule.
inline void validate(const message& m) {
    if (const rule_violation v = check(m)) throw error(errc::chat_invalid, describe(v.rule, m.role, v.key));
}

/// Throws parley::error (errc::chat_invalid) when a message of `conversation` breaks a rule:
/// "message I: " and describe()'s sentence, for the first such message I.
inline void validate(const std::vector<message>& conversation) {
    for (std::size_t i = 0; i < conversation.size(); ++i)
        if (const rule_violation v = check(conversation[i]))
            throw error(errc::chat_invalid,
                        "message " + std::to_string(i) + ": " + describe(v.rule, conversation[i].role, v.key));
}

/// A model's reply (an assistant message as a provider decoded it) as a message a history keeps:
/// what real APIs send is kept, made to follow the rules so that the conversation can be sent
/// again and reads back from JSON. A reply with neither content nor calls gets as its content
/// the text of `refusal` (by default the reply's own `refusal`, when the model refused), else the
/// empty text (an empty reply); a tool call without an id (some OpenAI-compatible servers send `"id": ""`) gets
/// "call_P_K", P being `position` (the index the reply takes in its conversation) and K the
/// call's index, so that its result can name it. Throws parley::error (errc::protocol) with
/// describe()'s sentence when the reply breaks a rule no API may break (a call without a
/// function name).
inline message reply_for_history(message reply, std::size_t position,
                                 const std::optional<std::string>& refusal = std::nullopt) {
    if (reply.role == role::assistant && reply.content.index() == 0 && !reply.function_call && reply.tool_calls.empty())
        reply.content = refusal ? *refusal : reply.refusal.value_or(std::string());
    for (std::size_t k = 0; k < reply.tool_calls.size(); ++k) {
        if (!reply.tool_calls[k].id.empty()) continue;
        std::string id = "call_" + std::to_string(position) + "_" + std::to_string(k);
        auto taken = [&](const std::string& candidate) {
            for (const tool_call& c : reply.tool_calls)
                if (c.id == candidate) return true;
            return false;
        };
        while (taken(id)) id += "_";
        reply.tool_calls[k].id = std::move(id);
    }
    if (const rule_violation v = check(reply))
        throw error(errc::protocol, "the model's reply breaks a rule of the chat model" +
                                        (v.pointer.empty() ? std::string() : " at " + v.pointer) + ": " +
                                        describe(v.rule, reply.role, v.key));
    return reply;
}

}  // namespace parley

#endif
