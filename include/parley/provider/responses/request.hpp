// parley/provider/responses/request.hpp: the body of an OpenAI Responses API request
// (POST /responses) from a chat request: the conversation as input items (messages, function
// calls and their outputs, images, reasoning items sent back), functions as tools, parameters
// under the names this API gives them.
#ifndef PARLEY_PROVIDER_RESPONSES_REQUEST_HPP
#define PARLEY_PROVIDER_RESPONSES_REQUEST_HPP

#include <parley/provider/responses/options.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/error.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parley::responses {

/// The name of this API in messages.
inline constexpr std::string_view api_title = "the OpenAI Responses API";


namespace detail {

using namespace parley::detail::wire;

[[noreturn]] inline void invalid(std::string message) { throw error(errc::chat_invalid, std::move(message)); }

/// The content of a user or system message as input content: a string, or input_text and
/// input_image parts.
inline boost::json::value input_content(const message& m) {
    if (const auto* s = std::get_if<std::string>(&m.content)) return boost::json::value(*s);
    boost::json::array parts;
    for (const auto& p : m.parts()) {
        if (p.type == content_part::kind::text) {
            parts.emplace_back(boost::json::object{{"type", "input_text"}, {"text", p.text}});
        } else {
            if (m.role != role::user) invalid(describe(chat_rule::image_outside_user, m.role, "content"));
            parts.emplace_back(boost::json::object{
                {"type", "input_image"}, {"image_url", p.url}, {"detail", p.detail ? *p.detail : std::string("auto")}});
        }
    }
    return parts;
}

/// The text of an assistant message as sent back: its content's text, or its refusal.
inline std::string assistant_text(const message& m) {
    if (const auto* s = std::get_if<std::string>(&m.content)) return *s;
    std::string text;
    for (const auto& p : m.parts())
        if (p.type == content_part::kind::text) text += p.text;
    if (text.empty() && m.refusal) return *m.refusal;
    return text;
}

/// Appends the input items of message `m`.
inline void add_items(const message& m, boost::json::array& input) {
    switch (m.role) {
    case role::system:
    case role::user:
        if (m.content.index() == 0) invalid("a " + std::string(role_name(m.role)) + " message has no content");
        input.emplace_back(boost::json::object{{"role", role_name(m.role)}, {"content", input_content(m)}});
        return;
    case role::assistant: {
        if (m.function_call)
            invalid("an assistant message's legacy 'function_call' has no equivalent in the OpenAI Responses API (a "
                    "function_call item needs a call_id): use 'tool_calls'");
        // reasoning items first, as the API returned them: with store false they carry their
        // encrypted_content, and the function calls that follow need them
        for (const auto& r : m.reasoning) {
            if (r.type != reasoning_part::kind::item) continue;
            boost::json::array summary;
            for (const auto& s : r.summary) summary.emplace_back(boost::json::object{{"type", "summary_text"}, {"text", s}});
            boost::json::object item{{"type", "reasoning"}, {"id", r.id}, {"summary", std::move(summary)}};
            if (!r.text.empty())
                item["content"] = boost::json::array{boost::json::object{{"type", "reasoning_text"}, {"text", r.text}}};
            if (!r.data.empty()) item["encrypted_content"] = r.data;
            input.emplace_back(std::move(item));
        }
        const std::string text = assistant_text(m);
        if (!text.empty() || m.tool_calls.empty())
            input.emplace_back(boost::json::object{{"role", "assistant"}, {"content", text}});
        for (const auto& call : m.tool_calls)
            input.emplace_back(boost::json::object{{"type", "function_call"},
                                                   {"call_id", call.id},
                                                   {"name", call.function.name},
                                                   {"arguments", call.function.arguments}});
        return;
    }
    case role::tool: {
        if (!m.tool_call_id) invalid(describe(chat_rule::tool_needs_id, m.role));
        boost::json::value output;
        if (const auto* s = std::get_if<std::string>(&m.content)) output = *s;
        else if (m.has_parts()) output = input_content(m);
        else output = "";
        input.emplace_back(
            boost::json::object{{"type", "function_call_output"}, {"call_id", *m.tool_call_id}, {"output", std::move(output)}});
        return;
    }
    case role::function:
        invalid("a function message has no equivalent in the OpenAI Responses API (a function_call_output needs the "
                "call_id of its call): use tool calls and tool messages");
    case role::default_request:
    case role::request:
    case role::truncate: return;
    }
}

/// Throws for each request parameter this API does not have or takes in another form.
inline void check_params(const request_params& p) {
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    refuse_params(api_title,
                  {{p.stop.has_value(), "stop"},
                   {p.presence_penalty.has_value(), "presence_penalty"},
                   {p.frequency_penalty.has_value(), "frequency_penalty"},
                   {p.logit_bias.has_value(), "logit_bias"},
                   {p.seed.has_value(), "seed"},
                   {p.top_k.has_value(), "top_k"},
                   {p.thinking.has_value(), "thinking"},
                   {p.prediction.has_value(), "prediction"},
                   {p.cache_control.has_value(), "cache_control"}});
    if (p.n && *p.n != 1) invalid("'n' is " + std::to_string(*p.n) + ", but the OpenAI Responses API returns one output (n must be 1)");
    check_one_limit(p);
    check_word(p.service_tier, "service_tier", api_title, {"auto", "default", "flex", "scale", "priority"});
    if (p.top_logprobs && !p.logprobs.value_or(false)) invalid("'top_logprobs' needs 'logprobs': true");
    if (p.response_format) {
        const auto& type = p.response_format->at("type");
        if (type == "json_schema") {
            const auto* spec = p.response_format->if_contains("json_schema");
            const auto* name = spec && spec->is_object() ? spec->get_object().if_contains("name") : nullptr;
            const auto* schema = spec && spec->is_object() ? spec->get_object().if_contains("schema") : nullptr;
            if (!name || !name->is_string() || !schema || !schema->is_object())
                invalid("'response_format' of type json_schema needs 'json_schema': {\"name\": ..., \"schema\": {...}}");
        }
    }
}

/// The `text` configuration: the format of response_format, and the verbosity.
inline boost::json::object text_config(const request_params& p) {
    boost::json::object text;
    if (p.response_format) {
        const auto& rf = *p.response_format;
        boost::json::object format{{"type", rf.at("type")}};
        if (rf.at("type") == "json_schema")
            for (const auto& kv : rf.at("json_schema").as_object()) format[kv.key()] = kv.value();
        text["format"] = std::move(format);
    }
    if (p.verbosity) text["verbosity"] = *p.verbosity;
    return text;
}

}  // namespace detail

/// The JSON body of a Responses API request. Mapping:
/// - `model`; `instructions`: the conversation's first message when it is its only system
///   message (with options.instructions); `input`: the other messages as items. User and system
///   messages are `{"role", "content"}` (a string, or `input_text` and `input_image` parts, an
///   image's detail "auto" unless given); an assistant message is its reasoning items (id,
///   summary, reasoning text, encrypted_content, as the API returned them), then
///   `{"role": "assistant", "content": its text}` (a refusal without content is sent as its
///   text; no text and calls: left out), then a `function_call` item per tool call (`call_id`,
///   `name`, `arguments`); a tool message is a `function_call_output` item (`call_id` =
///   tool_call_id, `output` = its text or parts). Control messages are never sent.
/// - `functions` become function tools (`{"type": "function", "name", "description",
///   "parameters", "strict"}`: the API holds a tool to its schema unless told `"strict": false`,
///   so every tool says which it is); `call_function` becomes `tool_choice` ("" -> "none",
///   "*" -> "auto", "+" -> "required", a name -> `{"type": "function", "name"}`);
///   `parallel_tool_calls` is sent with the tools.
/// - `max_tokens` or `max_completion_tokens` becomes `max_output_tokens`; `temperature`,
///   `top_p`, `top_logprobs`, `store`, `metadata`, `user`, `safety_identifier`,
///   `prompt_cache_key`, `prompt_cache_retention`, `service_tier` and `truncation` are sent
///   under their names; `reasoning_effort` and `reasoning_summary` become `reasoning.effort` and
///   `reasoning.summary`; `response_format` becomes `text.format` (a json_schema's name, schema,
///   strict and description flattened into it) and `verbosity` `text.verbosity`; `include`
///   asks for `reasoning.encrypted_content` when `store` is false (stateless use keeps reasoning
///   that way) and for `message.output_text.logprobs` with `logprobs`.
/// - `stream` adds `"stream": true`; `extra` is merged last.
/// Throws parley::error (errc::chat_invalid) when there is no model; for stop,
/// presence_penalty, frequency_penalty, logit_bias, seed, top_k, thinking, prediction,
/// cache_control and n other than 1 (the API has none of them), a service_tier of
/// "standard_only", both max_tokens and max_completion_tokens, top_logprobs without logprobs, a
/// json_schema response_format without name and schema; when a function named by the
/// parameters has no definition or `call_function` forces a call and none is listed; for legacy
/// `function` messages and `function_call`s, a tool message without tool_call_id, a user or
/// system message without content, an image outside a user message; for an `extra` member that
/// would replace model, input, stream or tools.
inline boost::json::object encode_request(const chat_request& r, bool stream, const encode_options& options = {}) {
    namespace dr = detail;
    const request_params& p = r.params;
    dr::check_params(p);
    boost::json::object body;
    body["model"] = *p.model;
    std::size_t first = 0;
    // skip the control messages before the first message sent
    while (first < r.messages.size() && is_control(r.messages[first].role)) ++first;
    std::size_t systems = 0;
    for (const auto& m : r.messages) systems += m.role == role::system ? 1 : 0;
    const bool instructions = options.instructions && first < r.messages.size() && r.messages[first].role == role::system &&
                              systems == 1 && r.messages[first].has_text();
    if (instructions) body["instructions"] = r.messages[first].text();
    boost::json::array input;
    for (std::size_t i = instructions ? first + 1 : 0; i < r.messages.size(); ++i) dr::add_items(r.messages[i], input);
    body["input"] = std::move(input);
    if (const auto limit = p.max_tokens ? p.max_tokens : p.max_completion_tokens) body["max_output_tokens"] = *limit;
    if (p.temperature) body["temperature"] = *p.temperature;
    if (p.top_p) body["top_p"] = *p.top_p;
    if (p.top_logprobs) body["top_logprobs"] = *p.top_logprobs;
    boost::json::object reasoning;
    if (p.reasoning_effort) reasoning["effort"] = *p.reasoning_effort;
    if (p.reasoning_summary) reasoning["summary"] = *p.reasoning_summary;
    if (!reasoning.empty()) body["reasoning"] = std::move(reasoning);
    if (boost::json::object text = dr::text_config(p); !text.empty()) body["text"] = std::move(text);
    boost::json::array include;
    if (p.store && !*p.store) include.emplace_back("reasoning.encrypted_content");
    if (p.logprobs && *p.logprobs) include.emplace_back("message.output_text.logprobs");
    if (!include.empty()) body["include"] = std::move(include);
    if (p.store) body["store"] = *p.store;
    if (p.metadata) {
        boost::json::object m;
        for (const auto& [k, v] : *p.metadata) m[k] = v;
        body["metadata"] = std::move(m);
    }
    if (p.user) body["user"] = *p.user;
    if (p.safety_identifier) body["safety_identifier"] = *p.safety_identifier;
    if (p.prompt_cache_key) body["prompt_cache_key"] = *p.prompt_cache_key;
    if (p.prompt_cache_retention) body["prompt_cache_retention"] = *p.prompt_cache_retention;
    if (p.service_tier) body["service_tier"] = *p.service_tier;
    if (p.truncation) body["truncation"] = *p.truncation;

    const bool listed = p.functions && !p.functions->empty();
    dr::check_call_listed(p);
    if (listed) {
        boost::json::array tools;
        for (const auto& name : *p.functions) {
            const auto def = std::find_if(r.functions.begin(), r.functions.end(),
                                          [&](const function_definition& d) { return d.name == name; });
            if (def == r.functions.end())
                throw error(errc::chat_invalid, "function '" + name + "' is requested but has no definition");
            boost::json::object tool{{"type", "function"}, {"name", def->name}};
            if (!def->description.empty()) tool["description"] = def->description;
            tool["parameters"] = dr::tool_parameters(def->parameters, def->strict);
            tool["strict"] = def->strict;
            tools.emplace_back(std::move(tool));
        }
        body["tools"] = std::move(tools);
        if (p.call_function) {
            if (p.call_function->empty()) body["tool_choice"] = "none";
            else if (*p.call_function == "*") body["tool_choice"] = "auto";
            else if (*p.call_function == "+") body["tool_choice"] = "required";
            else body["tool_choice"] = {{"type", "function"}, {"name", *p.call_function}};
        }
        if (p.parallel_tool_calls) body["parallel_tool_calls"] = *p.parallel_tool_calls;
    }
    if (stream) body["stream"] = true;
    if (p.extra) dr::merge_extra(body, *p.extra);
    return body;
}

}  // namespace parley::responses

#endif
