// parley/provider/anthropic/request.hpp: the body of an Anthropic Messages API request
// (POST /v1/messages) from a chat request: system messages hoisted to `system`, turns of one role
// merged so that user and assistant alternate, images, thinking blocks, tool calls and tool
// results as content blocks, functions as tools.
#ifndef PARLEY_PROVIDER_ANTHROPIC_REQUEST_HPP
#define PARLEY_PROVIDER_ANTHROPIC_REQUEST_HPP

#include <parley/provider/anthropic/options.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/error.hpp>
#include <parley/provider/anthropic/common.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parley::anthropic {


namespace detail {

/// True when `s` starts with `prefix`, ignoring ASCII case.
inline bool starts_with_nocase(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && parley::detail::iequals(s.substr(0, prefix.size()), prefix);
}

/// A number as written in an error message ("1.5", "3").
inline std::string number_text(double d) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
}

[[noreturn]] inline void invalid(std::string message) { throw error(errc::chat_invalid, message); }

/// An image block from an image part's URL: a base64 `data:` URL becomes a base64 source, an
/// http(s) URL a url source.
inline boost::json::object image_block(const std::string& url) {
    boost::json::object source;
    if (starts_with_nocase(url, "data:")) {
        const std::size_t comma = url.find(',');
        const std::string_view meta = std::string_view(url).substr(5, comma == std::string::npos ? 0 : comma - 5);
        constexpr std::string_view base64 = ";base64";
        if (comma == std::string::npos || meta.size() < base64.size() ||
            !parley::detail::iequals(meta.substr(meta.size() - base64.size()), base64))
            invalid("an image data: URL must be base64-encoded (data:<media type>;base64,<data>), found '" +
                    excerpt(url, 60) + "'");
        const std::string_view media_type = meta.substr(0, meta.find(';'));
        if (media_type.empty())
            invalid("an image data: URL needs a media type (data:image/png;base64,...), found '" + excerpt(url, 60) + "'");
        if (comma + 1 == url.size()) invalid("an image data: URL has no data after ';base64,'");
        source = {{"type", "base64"}, {"media_type", media_type}, {"data", std::string_view(url).substr(comma + 1)}};
    } else if (starts_with_nocase(url, "http://") || starts_with_nocase(url, "https://")) {
        source = {{"type", "url"}, {"url", url}};
    } else {
        invalid("an image URL is an http(s) URL or a base64 data: URL, found '" + excerpt(url, 60) + "'");
    }
    return {{"type", "image"}, {"source", std::move(source)}};
}

/// A text block.
inline boost::json::object text_block(std::string_view text) { return {{"type", "text"}, {"text", text}}; }

/// The content blocks of a message's text and parts. Image parts are refused outside user
/// messages (the chat model's rule, which the Messages API shares for system and assistant turns).
inline void append_content(const message& m, boost::json::array& blocks, bool skip_empty_text) {
    if (const auto* s = std::get_if<std::string>(&m.content)) {
        if (!(skip_empty_text && s->empty())) blocks.emplace_back(text_block(*s));
        return;
    }
    for (const auto& part : m.parts()) {
        if (part.type == content_part::kind::text) {
            blocks.emplace_back(text_block(part.text));
        } else {
            if (m.role != role::user) invalid(describe(chat_rule::image_outside_user, m.role, "content"));
            blocks.emplace_back(image_block(part.url));
        }
    }
}

/// A tool_use block from a tool call; its arguments must be a JSON object.
inline boost::json::object tool_use_block(const tool_call& call) {
    std::optional<boost::json::value> input;
    try {
        input = parse_bounded(call.function.arguments, 64, "a JSON object");
    } catch (const wire_failure&) {
    }
    if (!input || !input->is_object())
        invalid("the arguments of tool call '" + call.id + "' to '" + call.function.name +
                "' must be a JSON object, found " + (input ? found(*input) : "'" + excerpt(call.function.arguments, 60) + "'"));
    return {{"type", "tool_use"}, {"id", call.id}, {"name", call.function.name}, {"input", std::move(*input)}};
}

/// The thinking blocks of an assistant message's reasoning (Anthropic's own kinds; reasoning of
/// other APIs is not sent: this API cannot check it).
inline void append_thinking(const message& m, boost::json::array& blocks) {
    for (const auto& r : m.reasoning) {
        if (r.type == reasoning_part::kind::thinking)
            blocks.emplace_back(boost::json::object{{"type", "thinking"}, {"thinking", r.text}, {"signature", r.signature}});
        else if (r.type == reasoning_part::kind::redacted)
            blocks.emplace_back(boost::json::object{{"type", "redacted_thinking"}, {"data", r.data}});
    }
}

/// A turn of the conversation on the wire: a role and content blocks. `plain` while the turn is
/// one message whose content is a string (sent as a string, as the API's examples write it).
struct wire_turn {
    std::string_view role;
    boost::json::array blocks;
    bool plain = false;
};

/// Adds message `m` to the turns (merging it into the last turn when the roles match) or to the
/// system texts.
inline void add_message(const message& m, std::vector<wire_turn>& turns, std::vector<std::string>& system) {
    boost::json::array blocks;
    std::string_view wire_role = "user";
    bool plain = false;
    switch (m.role) {
    case role::system:
        if (const auto* s = std::get_if<std::string>(&m.content)) system.push_back(*s);
        for (const auto& part : m.parts()) {
            if (part.type != content_part::kind::text)
                invalid(describe(chat_rule::image_outside_user, m.role, "content"));
            system.push_back(part.text);
        }
        return;
    case role::user:
        if (m.content.index() == 0) invalid("a user message has no content");
        append_content(m, blocks, false);
        plain = m.has_text();
        break;
    case role::assistant: {
        wire_role = "assistant";
        if (m.function_call)
            invalid("an assistant message's legacy 'function_call' has no equivalent in the Anthropic Messages API "
                    "(a tool_use block needs an id): use 'tool_calls'");
        append_thinking(m, blocks);
        const std::size_t thinking = blocks.size();
        if (m.content.index() == 0 && m.refusal) blocks.emplace_back(text_block(*m.refusal));  // the refusal is its text
        else append_content(m, blocks, !m.tool_calls.empty());
        for (const auto& call : m.tool_calls) blocks.emplace_back(tool_use_block(call));
        if (blocks.size() == thinking) invalid("an assistant message has no content and no tool calls");
        plain = (m.has_text() || (m.content.index() == 0 && m.refusal)) && m.tool_calls.empty() && thinking == 0;
        break;
    }
    case role::tool: {
        if (!m.tool_call_id) invalid(describe(chat_rule::tool_needs_id, m.role));
        boost::json::object result{{"type", "tool_result"}, {"tool_use_id", *m.tool_call_id}};
        if (m.is_error) result["is_error"] = true;
        if (const auto* s = std::get_if<std::string>(&m.content)) {
            result["content"] = *s;
        } else if (m.has_parts()) {
            boost::json::array inner;
            append_content(m, inner, false);
            result["content"] = std::move(inner);
        }
        blocks.emplace_back(std::move(result));
        break;
    }
    case role::function:
        invalid("a function message has no equivalent in the Anthropic Messages API (a tool_result block needs the "
                "id of its tool call): use tool calls and tool messages");
    case role::default_request:
    case role::request:
    case role::truncate: return;
    }
    if (!turns.empty() && turns.back().role == wire_role) {
        auto& last = turns.back();
        for (auto& b : blocks) last.blocks.emplace_back(std::move(b));
        last.plain = false;
        return;
    }
    turns.push_back({wire_role, std::move(blocks), plain});
}

/// The `messages` array. In a user turn, tool_result blocks come before the other blocks (the
/// API wants a turn's tool results first); the order is otherwise kept.
inline boost::json::array wire_messages(std::vector<wire_turn>& turns) {
    boost::json::array out;
    for (auto& t : turns) {
        boost::json::object m{{"role", t.role}};
        if (t.plain) {
            m["content"] = t.blocks.front().as_object().at("text");
        } else {
            if (t.role == "user")
                std::stable_partition(t.blocks.begin(), t.blocks.end(),
                                      [](const boost::json::value& b) { return b.as_object().at("type") == "tool_result"; });
            m["content"] = std::move(t.blocks);
        }
        out.emplace_back(std::move(m));
    }
    return out;
}

/// Throws for each request parameter the Messages API does not have or takes in a narrower range.
inline void check_params(const request_params& p) {
    refuse_params(messages_api_name,
        {{p.presence_penalty.has_value(), "presence_penalty"},
         {p.frequency_penalty.has_value(), "frequency_penalty"},
         {p.logit_bias.has_value(), "logit_bias"},
         {p.seed.has_value(), "seed"},
         {p.logprobs.has_value(), "logprobs"},
         {p.top_logprobs.has_value(), "top_logprobs"},
         {p.reasoning_summary.has_value(), "reasoning_summary"},
         {p.verbosity.has_value(), "verbosity"},
         {p.prediction.has_value(), "prediction"},
         {p.store.has_value(), "store"},
         {p.metadata.has_value(), "metadata"},
         {p.safety_identifier.has_value(), "safety_identifier"},
         {p.prompt_cache_key.has_value(), "prompt_cache_key"},
         {p.prompt_cache_retention.has_value(), "prompt_cache_retention"},
         {p.truncation.has_value(), "truncation"}});
    if (p.response_format) {
        const auto* type = p.response_format->if_contains("type");
        if (!(type && type->is_string() && (type->get_string() == "json_schema" || type->get_string() == "text")))
            invalid("'response_format' of type json_object is not supported by the Anthropic Messages API (ask for a "
                    "json_schema, or force a function call to get structured output)");
        if (type->get_string() == "json_schema") {
            const auto* spec = p.response_format->if_contains("json_schema");
            const auto* schema = spec && spec->is_object() ? spec->get_object().if_contains("schema") : nullptr;
            if (!schema || !schema->is_object())
                invalid("'response_format' of type json_schema needs 'json_schema': {\"schema\": {...}}");
        }
    }
    if (p.n && *p.n != 1)
        invalid("'n' is " + std::to_string(*p.n) + ", but the Anthropic Messages API returns one choice (n must be 1)");
    if (p.max_tokens && *p.max_tokens < 1) invalid(describe(chat_rule::out_of_range, role::request, "max_tokens"));
    check_one_limit(p);
    if (p.temperature && !(*p.temperature >= 0 && *p.temperature <= 1))
        invalid("'temperature' is " + number_text(*p.temperature) + ", but the Anthropic Messages API accepts 0 to 1");
    if (p.top_p && !(*p.top_p >= 0 && *p.top_p <= 1))
        invalid("'top_p' is " + number_text(*p.top_p) + ", but the Anthropic Messages API accepts 0 to 1");
    check_word(p.reasoning_effort, "reasoning_effort", messages_api_name, {"low", "medium", "high", "xhigh", "max"});
    check_word(p.service_tier, "service_tier", messages_api_name, {"auto", "standard_only"});
}

/// The `tool_choice` of the parameters; null when none is sent.
inline boost::json::value tool_choice(const request_params& p) {
    const bool one_at_a_time = p.parallel_tool_calls && !*p.parallel_tool_calls;
    boost::json::object choice;
    if (!p.call_function || *p.call_function == "*") {
        if (!p.call_function && !one_at_a_time) return nullptr;
        choice["type"] = "auto";
    } else if (p.call_function->empty()) {
        choice["type"] = "none";
        return choice;  // no calls: nothing to make parallel
    } else if (*p.call_function == "+") {
        choice["type"] = "any";
    } else {
        choice["type"] = "tool";
        choice["name"] = *p.call_function;
    }
    if (one_at_a_time) choice["disable_parallel_tool_use"] = true;
    return choice;
}

}  // namespace detail

/// The JSON body of a Messages API request (send it with the `anthropic-version` header set to
/// api_version). Mapping:
/// - `model` is required; `max_tokens` is the parameter's, or max_completion_tokens, or
///   `options.default_max_tokens`; `temperature` and `top_p` are copied (both 0 to 1), `top_k`
///   too; `stop` becomes `stop_sequences`, always a list; `thinking` is sent as it is (with
///   "enabled", its budget_tokens must be below max_tokens); `reasoning_effort` becomes
///   `output_config.effort` (low, medium, high, xhigh or max) and a json_schema
///   `response_format` `output_config.format` (`{"type": "json_schema", "schema": ...}`);
///   `service_tier` is "auto" or "standard_only"; `user` becomes `metadata.user_id`;
///   `cache_control` is the top-level breakpoint; `stream` adds `"stream": true`; `extra` is
///   merged last.
/// - System messages, wherever they are in the conversation, are hoisted to the top-level
///   `system` in order: one system text is sent as a string, several as a list of text blocks
///   (one per message, or per text part), so nothing is joined with an invented separator.
/// - User and assistant messages become turns; consecutive messages of one role (a tool message
///   counts as a user turn) are merged into one turn with several content blocks, since the API
///   wants user and assistant to alternate. A turn made of one message with string content is
///   sent with string content. Control messages are never sent.
/// - Content parts: text parts are text blocks; an image given as a base64 `data:` URL becomes
///   `{"type":"image","source":{"type":"base64","media_type":...,"data":...}}`, an http(s) URL
///   `{"type":"image","source":{"type":"url","url":...}}`. An image part's `detail` has no
///   equivalent and is not sent. Message `name`s are not sent (the API has no speaker names).
/// - An assistant's reasoning of Anthropic's kinds comes first, as the `thinking` blocks (with
///   their signatures) and `redacted_thinking` blocks the API returned, which it needs back when
///   tool use goes on with thinking enabled; then its text (a refusal without content is sent as
///   its text); then its tool calls as `tool_use` blocks (an empty text is then left out),
///   `input` being the parsed arguments; a tool message becomes a `tool_result` block
///   (`tool_use_id` = tool_call_id, `content` = its text or text blocks, none when it has no
///   content, `is_error` for a failure) in a user turn, before any other block of that turn.
/// - `functions` become `tools` ({name, description, input_schema, and `"strict": true` for a
///   strict definition}) with their definitions from `r.functions`; `call_function` becomes
///   `tool_choice`: "" -> {"type":"none"}, "*" -> {"type":"auto"}, "+" -> {"type":"any"}, a name
///   -> {"type":"tool","name":...} (only when functions are listed); `parallel_tool_calls: false`
///   adds `disable_parallel_tool_use: true` to it.
/// Throws parley::error (errc::chat_invalid) when there is no model; for presence_penalty,
/// frequency_penalty, logit_bias, seed, logprobs, top_logprobs, reasoning_summary, verbosity,
/// prediction, store, metadata, safety_identifier, prompt_cache_key, prompt_cache_retention,
/// truncation, a json_object response_format and n other than 1 (the API has none of them), for
/// a temperature or top_p above 1, words the API does not take, both max_tokens and
/// max_completion_tokens, a thinking budget not below max_tokens; when a listed function has no
/// definition or `call_function` forces a function that is not listed; for legacy `function`
/// messages and `function_call`s (a tool result needs the id of its call, which they lack); for
/// tool call arguments that are not a JSON object, a tool message without tool_call_id, a user
/// message without content, an assistant message with neither content nor tool calls, an image
/// outside a user message, an image URL that is neither http(s) nor a base64 data: URL, and an
/// `extra` member that would replace model, messages, stream or tools. Throws parley::error
/// (errc::invalid_argument) when `options.default_max_tokens` is below 1.
inline boost::json::object encode_request(const chat_request& r, bool stream, const encode_options& options = {}) {
    namespace da = detail;
    const request_params& p = r.params;
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    if (options.default_max_tokens < 1)
        throw error(errc::invalid_argument, "encode_options::default_max_tokens must be at least 1, found " +
                                                std::to_string(options.default_max_tokens));
    da::check_params(p);
    const std::int64_t max_tokens = p.max_tokens ? *p.max_tokens
                                    : p.max_completion_tokens ? *p.max_completion_tokens
                                                              : options.default_max_tokens;
    if (p.thinking && p.thinking->budget_tokens && *p.thinking->budget_tokens >= max_tokens)
        da::invalid("the thinking budget (" + std::to_string(*p.thinking->budget_tokens) +
                    " tokens) must be below max_tokens (" + std::to_string(max_tokens) + ")");

    std::vector<da::wire_turn> turns;
    std::vector<std::string> system;
    for (const auto& m : r.messages) da::add_message(m, turns, system);

    boost::json::object body;
    body["model"] = *p.model;
    body["max_tokens"] = max_tokens;
    if (system.size() == 1) {
        body["system"] = system.front();
    } else if (!system.empty()) {
        boost::json::array blocks;
        for (const auto& s : system) blocks.emplace_back(da::text_block(s));
        body["system"] = std::move(blocks);
    }
    body["messages"] = da::wire_messages(turns);
    if (p.temperature) body["temperature"] = *p.temperature;
    if (p.top_p) body["top_p"] = *p.top_p;
    if (p.top_k) body["top_k"] = *p.top_k;
    if (p.stop) {
        boost::json::array stops;
        if (const auto* one = std::get_if<std::string>(&*p.stop)) stops.emplace_back(*one);
        else
            for (const auto& s : std::get<std::vector<std::string>>(*p.stop)) stops.emplace_back(s);
        body["stop_sequences"] = std::move(stops);
    }
    if (p.thinking) {
        boost::json::object t{{"type", p.thinking->type}};
        if (p.thinking->budget_tokens) t["budget_tokens"] = *p.thinking->budget_tokens;
        if (p.thinking->display) t["display"] = *p.thinking->display;
        body["thinking"] = std::move(t);
    }
    boost::json::object output;
    if (p.reasoning_effort) output["effort"] = *p.reasoning_effort;
    if (p.response_format && p.response_format->at("type") == "json_schema")
        output["format"] = {{"type", "json_schema"}, {"schema", p.response_format->at("json_schema").at("schema")}};
    if (!output.empty()) body["output_config"] = std::move(output);
    if (p.service_tier) body["service_tier"] = *p.service_tier;
    if (p.user) body["metadata"] = {{"user_id", *p.user}};
    if (p.cache_control) {
        boost::json::object c{{"type", p.cache_control->type}};
        if (p.cache_control->ttl) c["ttl"] = *p.cache_control->ttl;
        body["cache_control"] = std::move(c);
    }

    const bool listed = p.functions && !p.functions->empty();
    const bool forced = p.call_function && !p.call_function->empty() && *p.call_function != "*";
    if (forced && !listed)
        throw error(errc::chat_invalid, "'call_function' forces '" + *p.call_function + "', but the request lists no functions");
    if (forced && *p.call_function != "+" &&
        std::find(p.functions->begin(), p.functions->end(), *p.call_function) == p.functions->end())
        throw error(errc::chat_invalid, describe(chat_rule::forced_function_not_listed, role::request, *p.call_function));
    if (listed) {
        boost::json::array tools;
        for (const auto& name : *p.functions) {
            const auto def = std::find_if(r.functions.begin(), r.functions.end(),
                                          [&](const function_definition& d) { return d.name == name; });
            if (def == r.functions.end())
                throw error(errc::chat_invalid, "function '" + name + "' is requested but has no definition");
            boost::json::object tool{{"name", def->name}};
            if (!def->description.empty()) tool["description"] = def->description;
            tool["input_schema"] = da::tool_parameters(def->parameters, def->strict);
            if (def->strict) tool["strict"] = true;
            tools.emplace_back(std::move(tool));
        }
        body["tools"] = std::move(tools);
        if (boost::json::value choice = da::tool_choice(p); !choice.is_null()) body["tool_choice"] = std::move(choice);
    }
    if (stream) body["stream"] = true;
    if (p.extra) da::merge_extra(body, *p.extra);
    return body;
}

}  // namespace parley::anthropic

#endif
