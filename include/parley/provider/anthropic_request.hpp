// parley/provider/anthropic_request.hpp: the body of an Anthropic Messages API request
// (POST /v1/messages) from a chat request: system messages hoisted to `system`, turns of one role
// merged so that user and assistant alternate, images, tool calls and tool results as content
// blocks, functions as tools.
#ifndef PARLEY_PROVIDER_ANTHROPIC_REQUEST_HPP
#define PARLEY_PROVIDER_ANTHROPIC_REQUEST_HPP

#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/error.hpp>
#include <parley/provider/anthropic_json.hpp>
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

/// The value of the `anthropic-version` header field this codec is written for.
inline constexpr std::string_view api_version = "2023-06-01";

/// Options of encode_request.
struct encode_options {
    /// The `max_tokens` sent when the request parameters leave it unset: the Messages API requires
    /// the field, and parley's parameters make it optional. At least 1.
    std::int64_t default_max_tokens = 4096;
};

}  // namespace parley::anthropic

namespace parley::detail::anthropic {

/// True when `s` starts with `prefix`, ignoring ASCII case.
inline bool starts_with_nocase(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
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
            !iequals(meta.substr(meta.size() - base64.size()), base64))
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
    std::string problem;
    auto input = parse_json(call.function.arguments, 64, problem);
    if (!input || !input->is_object())
        invalid("the arguments of tool call '" + call.id + "' to '" + call.function.name +
                "' must be a JSON object, found " + (input ? found(*input) : "'" + excerpt(call.function.arguments, 60) + "'"));
    return {{"type", "tool_use"}, {"id", call.id}, {"name", call.function.name}, {"input", std::move(*input)}};
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
    case role::assistant:
        wire_role = "assistant";
        if (m.function_call)
            invalid("an assistant message's legacy 'function_call' has no equivalent in the Anthropic Messages API "
                    "(a tool_use block needs an id): use 'tool_calls'");
        if (m.content.index() == 0 && m.tool_calls.empty()) invalid("an assistant message has no content and no tool calls");
        append_content(m, blocks, !m.tool_calls.empty());
        for (const auto& call : m.tool_calls) blocks.emplace_back(tool_use_block(call));
        plain = m.has_text() && m.tool_calls.empty();
        break;
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

/// Throws for each request parameter the Messages API does not have or accepts in a narrower range.
inline void check_params(const request_params& p) {
    auto unsupported = [](std::string_view name, std::string_view hint = {}) {
        invalid("'" + std::string(name) + "' is not supported by the Anthropic Messages API" + std::string(hint));
    };
    if (p.presence_penalty) unsupported("presence_penalty");
    if (p.frequency_penalty) unsupported("frequency_penalty");
    if (p.logit_bias) unsupported("logit_bias");
    if (p.seed) unsupported("seed");
    if (p.response_format) unsupported("response_format", " (force a function call to get structured output)");
    if (p.n && *p.n != 1)
        invalid("'n' is " + std::to_string(*p.n) + ", but the Anthropic Messages API returns one choice (n must be 1)");
    if (p.max_tokens && *p.max_tokens < 1) invalid(describe(chat_rule::out_of_range, role::request, "max_tokens"));
    if (p.temperature && !(*p.temperature >= 0 && *p.temperature <= 1))
        invalid("'temperature' is " + number_text(*p.temperature) + ", but the Anthropic Messages API accepts 0 to 1");
    if (p.top_p && !(*p.top_p >= 0 && *p.top_p <= 1))
        invalid("'top_p' is " + number_text(*p.top_p) + ", but the Anthropic Messages API accepts 0 to 1");
}

}  // namespace parley::detail::anthropic

namespace parley::anthropic {

/// The JSON body of a Messages API request (send it with the `anthropic-version` header set to
/// api_version). Mapping:
/// - `model` is required; `max_tokens` is the parameter's or `options.default_max_tokens`;
///   `temperature` and `top_p` are copied (both 0 to 1); `stop` becomes `stop_sequences`, always
///   a list; `stream` adds `"stream": true`.
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
/// - An assistant's tool calls become `tool_use` blocks after its text (an empty text is then
///   left out), `input` being the parsed arguments; a tool message becomes a `tool_result` block
///   (`tool_use_id` = tool_call_id, `content` = its text or text blocks, none when it has no
///   content) in a user turn, before any other block of that turn.
/// - `functions` become `tools` ({name, description, input_schema}) with their definitions from
///   `r.functions`; `call_function` becomes `tool_choice`: "" -> {"type":"none"}, "*" ->
///   {"type":"auto"}, a name -> {"type":"tool","name":...} (only when functions are listed).
/// Throws parley::error (errc::chat_invalid) when there is no model; for presence_penalty,
/// frequency_penalty, logit_bias, seed, response_format and n other than 1 (the API has none of
/// them), and for a temperature or top_p above 1; when a listed function has no definition or
/// `call_function` forces a function that is not listed; for legacy `function` messages and
/// `function_call`s (a tool result needs the id of its call, which they lack); for tool call
/// arguments that are not a JSON object, a tool message without tool_call_id, a user message
/// without content, an assistant message with neither content nor tool calls, an image outside a
/// user message, or an image URL that is neither http(s) nor a base64 data: URL. Throws
/// parley::error (errc::invalid_argument) when `options.default_max_tokens` is below 1.
inline boost::json::object encode_request(const chat_request& r, bool stream, const encode_options& options = {}) {
    namespace da = detail::anthropic;
    const request_params& p = r.params;
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    if (options.default_max_tokens < 1)
        throw error(errc::invalid_argument, "encode_options::default_max_tokens must be at least 1, found " +
                                                std::to_string(options.default_max_tokens));
    da::check_params(p);

    std::vector<da::wire_turn> turns;
    std::vector<std::string> system;
    for (const auto& m : r.messages) da::add_message(m, turns, system);

    boost::json::object body;
    body["model"] = *p.model;
    body["max_tokens"] = p.max_tokens.value_or(options.default_max_tokens);
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
    if (p.stop) {
        boost::json::array stops;
        if (const auto* one = std::get_if<std::string>(&*p.stop)) stops.emplace_back(*one);
        else
            for (const auto& s : std::get<std::vector<std::string>>(*p.stop)) stops.emplace_back(s);
        body["stop_sequences"] = std::move(stops);
    }

    const bool listed = p.functions && !p.functions->empty();
    const bool forced = p.call_function && !p.call_function->empty() && *p.call_function != "*";
    if (forced && !listed)
        throw error(errc::chat_invalid, "'call_function' forces '" + *p.call_function + "', but the request lists no functions");
    if (forced && std::find(p.functions->begin(), p.functions->end(), *p.call_function) == p.functions->end())
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
            tool["input_schema"] = def->parameters.empty()
                                       ? boost::json::object{{"type", "object"}, {"properties", boost::json::object{}}}
                                       : def->parameters;
            tools.emplace_back(std::move(tool));
        }
        body["tools"] = std::move(tools);
        if (p.call_function) {
            if (p.call_function->empty()) body["tool_choice"] = {{"type", "none"}};
            else if (*p.call_function == "*") body["tool_choice"] = {{"type", "auto"}};
            else body["tool_choice"] = {{"type", "tool"}, {"name", *p.call_function}};
        }
    }
    if (stream) body["stream"] = true;
    return body;
}

}  // namespace parley::anthropic

#endif
