// parley/provider/ollama/request.hpp: the body of a request to Ollama's native chat endpoint
// (POST /api/chat) from a chat request: messages with roles system, user, assistant and tool,
// images as base64 `images`, tool calls with their arguments as JSON objects, tools, `format`
// for structured output, the sampling parameters in `options`, `think`, `keep_alive`.
#ifndef PARLEY_PROVIDER_OLLAMA_REQUEST_HPP
#define PARLEY_PROVIDER_OLLAMA_REQUEST_HPP

#include <parley/provider/ollama/options.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/error.hpp>
#include <parley/provider/ollama/common.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parley::ollama {


namespace detail {

[[noreturn]] inline void invalid(std::string message) { throw error(errc::chat_invalid, std::move(message)); }

/// A number as written in an error message ("1.5", "3").
inline std::string number_text(double d) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
}

/// The base64 data of an image part: a `data:<media type>;base64,<data>` URL gives its data
/// (Ollama takes the image's bytes, base64-encoded, and finds the format in them). Any other URL
/// is refused: Ollama does not fetch images.
inline std::string image_data(const std::string& url) {
    const bool data_url = url.size() >= 5 && parley::detail::iequals(std::string_view(url).substr(0, 5), "data:");
    if (!data_url)
        invalid("Ollama takes an image as base64 data (a data: URL), found '" + excerpt(url, 60) +
                "': download it and send it as data:<media type>;base64,<data>");
    const std::size_t comma = url.find(',');
    const std::string_view meta = std::string_view(url).substr(5, comma == std::string::npos ? 0 : comma - 5);
    constexpr std::string_view base64 = ";base64";
    if (comma == std::string::npos || meta.size() < base64.size() ||
        !parley::detail::iequals(meta.substr(meta.size() - base64.size()), base64))
        invalid("an image data: URL must be base64-encoded (data:<media type>;base64,<data>), found '" + excerpt(url, 60) + "'");
    if (comma + 1 == url.size()) invalid("an image data: URL has no data after ';base64,'");
    return url.substr(comma + 1);
}

/// The text of a message (its content string, or its text parts joined with "\n") and, for a
/// user message, the base64 data of its image parts in order. Throws for an image part outside
/// a user message.
inline std::string text_and_images(const message& m, boost::json::array* images) {
    if (const auto* s = std::get_if<std::string>(&m.content)) return *s;
    std::string text;
    bool first = true;
    for (const auto& part : m.parts()) {
        if (part.type == content_part::kind::text) {
            if (!first) text += '\n';
            text += part.text;
            first = false;
        } else {
            if (m.role != role::user || !images) invalid(describe(chat_rule::image_outside_user, m.role, "content"));
            images->emplace_back(image_data(part.url));
        }
    }
    return text;
}

/// The `arguments` of a tool call: its arguments, which must be a JSON object ("" is {}).
inline boost::json::object call_arguments(const function_call& f, std::string_view id) {
    if (f.arguments.empty()) return {};
    std::optional<boost::json::value> args;
    try {
        args = parse_bounded(f.arguments, 64, "a JSON object");
    } catch (const wire_failure&) {
    }
    if (!args || !args->is_object())
        invalid("the arguments of " + (id.empty() ? std::string("the call") : "tool call '" + std::string(id) + "'") +
                " to '" + f.name + "' must be a JSON object (Ollama sends and takes them as one), found " +
                (args ? found(*args) : "'" + excerpt(f.arguments, 60) + "'"));
    return std::move(args->get_object());
}

/// True for an id parley made up for a call the server sent without one (not sent back).
inline bool generated_id(std::string_view id) noexcept { return id.substr(0, generated_id_prefix.size()) == generated_id_prefix; }

/// The name of the function of tool call `id`, from the assistant messages before `end`; empty
/// when none has that call.
inline std::string_view call_name(const std::vector<message>& messages, std::size_t end, std::string_view id) {
    for (std::size_t i = end; i-- > 0;)
        if (messages[i].role == role::assistant)
            for (const auto& c : messages[i].tool_calls)
                if (c.id == id) return c.function.name;
    return {};
}

/// Message `i` as Ollama takes it; null for a control message.
inline std::optional<boost::json::object> wire_message(const std::vector<message>& messages, std::size_t i) {
    const message& m = messages[i];
    boost::json::object o;
    switch (m.role) {
    case role::system:
        o["role"] = "system";
        o["content"] = text_and_images(m, nullptr);
        return o;
    case role::user: {
        if (m.content.index() == 0) invalid("a user message has no content");
        boost::json::array images;
        o["role"] = "user";
        o["content"] = text_and_images(m, &images);
        if (!images.empty()) o["images"] = std::move(images);
        return o;
    }
    case role::assistant: {
        o["role"] = "assistant";
        if (m.content.index() == 0 && m.refusal) o["content"] = *m.refusal;
        else o["content"] = text_and_images(m, nullptr);
        std::string thinking;
        for (const auto& r : m.reasoning)
            if (r.type == reasoning_part::kind::text || r.type == reasoning_part::kind::thinking) thinking += r.text;
        if (!thinking.empty()) o["thinking"] = std::move(thinking);
        boost::json::array calls;
        auto add_call = [&](const function_call& f, std::string_view id) {
            boost::json::object call{{"function", {{"name", f.name}, {"arguments", call_arguments(f, id)}}}};
            if (!id.empty() && !generated_id(id)) call["id"] = id;
            calls.emplace_back(std::move(call));
        };
        if (m.function_call) add_call(*m.function_call, {});
        for (const auto& c : m.tool_calls) add_call(c.function, c.id);
        if (!calls.empty()) o["tool_calls"] = std::move(calls);
        return o;
    }
    case role::tool: {
        if (!m.tool_call_id) invalid(describe(chat_rule::tool_needs_id, m.role));
        o["role"] = "tool";
        o["content"] = text_and_images(m, nullptr);
        if (const auto name = call_name(messages, i, *m.tool_call_id); !name.empty()) o["tool_name"] = name;
        if (!generated_id(*m.tool_call_id)) o["tool_call_id"] = *m.tool_call_id;
        return o;
    }
    case role::function:
        if (!m.name) invalid(describe(chat_rule::function_needs_name, m.role));
        o["role"] = "tool";
        o["content"] = text_and_images(m, nullptr);
        o["tool_name"] = *m.name;
        return o;
    case role::default_request:
    case role::request:
    case role::truncate: return std::nullopt;
    }
    return std::nullopt;
}

/// Throws for each request parameter Ollama's chat endpoint does not have.
inline void check_params(const request_params& p) {
    refuse_params(ollama_api_name,
        {{p.logit_bias.has_value(), "logit_bias"},
         {p.parallel_tool_calls.has_value(), "parallel_tool_calls"},
         {p.verbosity.has_value(), "verbosity"},
         {p.prediction.has_value(), "prediction"},
         {p.service_tier.has_value(), "service_tier"},
         {p.store.has_value(), "store"},
         {p.metadata.has_value(), "metadata"},
         {p.user.has_value(), "user"},
         {p.safety_identifier.has_value(), "safety_identifier"},
         {p.prompt_cache_key.has_value(), "prompt_cache_key"},
         {p.prompt_cache_retention.has_value(), "prompt_cache_retention"},
         {p.cache_control.has_value(), "cache_control"},
         {p.truncation.has_value(), "truncation"},
         {p.reasoning_summary.has_value(), "reasoning_summary"}},
        " (set other Ollama fields, such as options.num_ctx or keep_alive, through 'extra')");
    check_one_limit(p);
    if (p.n && *p.n != 1) invalid("'n' is " + std::to_string(*p.n) + ", but Ollama's chat endpoint gives one reply per request");
    if (p.max_tokens && *p.max_tokens < 1) invalid(describe(chat_rule::out_of_range, role::request, "max_tokens"));
    if (p.max_completion_tokens && *p.max_completion_tokens < 1)
        invalid(describe(chat_rule::out_of_range, role::request, "max_completion_tokens"));
    if (p.temperature && !(*p.temperature >= 0 && *p.temperature <= 2))
        invalid("'temperature' is " + number_text(*p.temperature) + ", but it is 0 to 2");
    if (p.top_p && !(*p.top_p >= 0 && *p.top_p <= 1)) invalid("'top_p' is " + number_text(*p.top_p) + ", but it is 0 to 1");
    if (p.top_k && *p.top_k < 0) invalid("'top_k' is " + std::to_string(*p.top_k) + ", but it is at least 0");
    if (p.top_logprobs && !p.logprobs.value_or(false)) invalid("'top_logprobs' needs 'logprobs': true");
    if (p.response_format) {
        const auto* type = p.response_format->if_contains("type");
        if (!type || !type->is_string() ||
            (type->get_string() != "text" && type->get_string() != "json_object" && type->get_string() != "json_schema"))
            invalid("'response_format' needs a 'type' of text, json_object or json_schema");
        if (type->get_string() == "json_schema") {
            const auto* spec = p.response_format->if_contains("json_schema");
            const auto* schema = spec && spec->is_object() ? spec->get_object().if_contains("schema") : nullptr;
            if (!schema || !schema->is_object())
                invalid("'response_format' of type json_schema needs 'json_schema': {\"schema\": {...}}");
        }
    }
    check_word(p.reasoning_effort, "reasoning_effort", ollama_api_name, {"none", "low", "medium", "high"});
    if (p.reasoning_effort && p.thinking)
        invalid("set 'reasoning_effort' or 'thinking' (both are Ollama's 'think'), not both");
}

/// The `think` of the parameters, if they set it.
inline std::optional<boost::json::value> think_of(const request_params& p) {
    if (p.reasoning_effort) {
        if (*p.reasoning_effort == "none") return boost::json::value(false);
        return boost::json::value(*p.reasoning_effort);
    }
    if (p.thinking) return boost::json::value(p.thinking->type != "disabled");
    return std::nullopt;
}

/// Merges `extra` into the body last: `options` (an object in both) is merged member by member;
/// any other member replaces the body's or is added. Throws parley::error (errc::chat_invalid)
/// for the members no API's extra may replace.
inline void merge_ollama_extra(boost::json::object& body, const boost::json::object& extra) {
    for (const auto& member : extra) {
        if (parley::detail::is_reserved_extra_key(member.key()))
            throw error(errc::chat_invalid, parley::detail::value_rule_sentence("extra") + ", found '" +
                                                std::string(member.key()) + "'");
        auto* mine = body.if_contains(member.key());
        if (member.key() == "options" && mine && mine->is_object() && member.value().is_object()) {
            for (const auto& inner : member.value().get_object()) mine->get_object()[inner.key()] = inner.value();
        } else {
            body[member.key()] = member.value();
        }
    }
}

}  // namespace detail

/// The JSON body of a POST /api/chat request. `stream` is always written (Ollama streams unless
/// told `"stream": false`). Mapping:
/// - Messages keep their order and roles: system, user, assistant; tool and function messages
///   are `tool` messages. Control messages are never sent; names are not sent.
/// - `content` is the message's text; a message of content parts has its text parts joined
///   with "\n", and a user message's image parts (base64 `data:` URLs) become its `images`, the
///   base64 data without the URL's media type (an image part's detail has no equivalent and is
///   not sent). An image given by another URL is refused: Ollama does not fetch images.
/// - An assistant message: `content` its text (a refusal without content as its text; "" when
///   it has none), `thinking` its reasoning text (reasoning parts of kind text or thinking,
///   joined), `tool_calls` its tool calls (and a legacy function call) as `{"function": {"name",
///   "arguments"}, "id"}`, `arguments` being the parsed arguments (a JSON object; "" is {}) and
///   `id` the call's id unless parley generated it.
/// - A tool message: `content` its text, `tool_name` the name of the function of the assistant
///   tool call with its tool_call_id (left out when no earlier message has that call),
///   `tool_call_id` the id unless parley generated it; a function message: `tool_name` its name.
/// - `functions` become `tools: [{"type": "function", "function": {name, description,
///   parameters}}]` (an empty schema is an object without properties). Ollama has no
///   tool_choice: `call_function` "" sends no tools (the model can call none), "*" and "+" send
///   every listed function, and a name sends that function alone; the model is then offered that
///   one function only, but nothing makes it call it.
/// - `format`: a json_object response_format is "json", a json_schema one its schema.
/// - `options`: temperature, top_p, top_k, num_predict (max_tokens or max_completion_tokens),
///   stop (always a list), seed, presence_penalty, frequency_penalty, and num_ctx from
///   `options.num_ctx`; `logprobs` and `top_logprobs` at the top level.
/// - `think`: reasoning_effort "none" is false, "low", "medium" and "high" are those words (the
///   levels of models such as gpt-oss); `thinking` of type enabled or adaptive is true, disabled
///   false (a budget has no equivalent and is not sent).
/// - `keep_alive` from `options.keep_alive`.
/// - `extra` is merged last, `options` member by member: `{"options": {"num_ctx": 32768,
///   "repeat_penalty": 1.1}}`, `{"keep_alive": "1h"}`, `{"think": "high"}`.
/// Throws parley::error (errc::chat_invalid) when there is no model; for logit_bias,
/// parallel_tool_calls, verbosity, prediction, service_tier, store, metadata, user,
/// safety_identifier, prompt_cache_key, prompt_cache_retention, cache_control, truncation and
/// reasoning_summary (Ollama has none of them), n other than 1, a temperature outside 0 to 2,
/// top_p outside 0 to 1, a negative top_k, top_logprobs without logprobs, reasoning_effort
/// minimal, xhigh or max, both reasoning_effort and thinking, both max_tokens and
/// max_completion_tokens; when a listed function has no definition or `call_function` forces a
/// function that is not listed; for tool call arguments that are not a JSON object, a tool
/// message without tool_call_id, a user message without content, an image outside a user
/// message or given by a URL other than a base64 data: URL, and an `extra` member that would
/// replace model, messages, input, stream or tools.
inline boost::json::object encode_request(const chat_request& r, bool stream, const encode_options& options = {}) {
    namespace dl = detail;
    const request_params& p = r.params;
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    dl::check_params(p);
    if (options.num_ctx && *options.num_ctx < 1)
        throw error(errc::chat_invalid, "ollama::encode_options::num_ctx is " + std::to_string(*options.num_ctx) +
                                            ", but it is at least 1");

    boost::json::object body;
    body["model"] = *p.model;
    boost::json::array messages;
    for (std::size_t i = 0; i < r.messages.size(); ++i)
        if (auto m = dl::wire_message(r.messages, i)) messages.emplace_back(std::move(*m));
    body["messages"] = std::move(messages);

    const bool listed = p.functions && !p.functions->empty();
    const bool forced = p.call_function && !p.call_function->empty() && *p.call_function != "*" && *p.call_function != "+";
    dl::check_call_listed(p);
    if (forced && std::find(p.functions->begin(), p.functions->end(), *p.call_function) == p.functions->end())
        throw error(errc::chat_invalid, describe(chat_rule::forced_function_not_listed, role::request, *p.call_function));
    if (listed) {
        boost::json::array tools;
        for (const auto& name : *p.functions) {
            const auto def = std::find_if(r.functions.begin(), r.functions.end(),
                                          [&](const function_definition& d) { return d.name == name; });
            if (def == r.functions.end())
                throw error(errc::chat_invalid, "function '" + name + "' is requested but has no definition");
            if (forced && name != *p.call_function) continue;
            boost::json::object f{{"name", def->name}};
            if (!def->description.empty()) f["description"] = def->description;
            f["parameters"] = dl::tool_parameters(def->parameters, false);
            tools.emplace_back(boost::json::object{{"type", "function"}, {"function", std::move(f)}});
        }
        if (!(p.call_function && p.call_function->empty())) body["tools"] = std::move(tools);
    }

    if (p.response_format) {
        const auto& type = p.response_format->at("type").get_string();
        if (type == "json_object") body["format"] = "json";
        else if (type == "json_schema") body["format"] = p.response_format->at("json_schema").at("schema");
    }

    boost::json::object o;
    if (p.temperature) o["temperature"] = *p.temperature;
    if (p.top_p) o["top_p"] = *p.top_p;
    if (p.top_k) o["top_k"] = *p.top_k;
    if (p.max_tokens) o["num_predict"] = *p.max_tokens;
    else if (p.max_completion_tokens) o["num_predict"] = *p.max_completion_tokens;
    if (p.stop) {
        boost::json::array stops;
        if (const auto* one = std::get_if<std::string>(&*p.stop)) stops.emplace_back(*one);
        else
            for (const auto& s : std::get<std::vector<std::string>>(*p.stop)) stops.emplace_back(s);
        o["stop"] = std::move(stops);
    }
    if (p.seed) o["seed"] = *p.seed;
    if (p.presence_penalty) o["presence_penalty"] = *p.presence_penalty;
    if (p.frequency_penalty) o["frequency_penalty"] = *p.frequency_penalty;
    if (options.num_ctx) o["num_ctx"] = *options.num_ctx;
    if (!o.empty()) body["options"] = std::move(o);

    body["stream"] = stream;
    if (auto think = dl::think_of(p)) body["think"] = std::move(*think);
    if (options.keep_alive) body["keep_alive"] = *options.keep_alive;
    if (p.logprobs) body["logprobs"] = *p.logprobs;
    if (p.top_logprobs) body["top_logprobs"] = *p.top_logprobs;
    if (p.extra) dl::merge_ollama_extra(body, *p.extra);
    return body;
}

}  // namespace parley::ollama

#endif
