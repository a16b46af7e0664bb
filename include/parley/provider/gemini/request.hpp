// parley/provider/gemini/request.hpp: the body of a Gemini API request (POST
// /models/{model}:generateContent or :streamGenerateContent) from a chat request: system messages
// hoisted to `systemInstruction`, turns as `contents` with roles user and model, images as
// `inlineData` or `fileData` parts, tool calls and results as `functionCall` and
// `functionResponse` parts, functions as `tools.functionDeclarations`, the sampling parameters,
// structured output and thinking in `generationConfig`.
#ifndef PARLEY_PROVIDER_GEMINI_REQUEST_HPP
#define PARLEY_PROVIDER_GEMINI_REQUEST_HPP

#include <parley/provider/gemini/options.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/error.hpp>
#include <parley/provider/gemini/common.hpp>
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

namespace parley::gemini {


namespace detail {

[[noreturn]] inline void invalid(std::string message) { throw error(errc::chat_invalid, message); }

/// A number as written in an error message ("1.5", "3").
inline std::string number_text(double d) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
}

/// True when `s` starts with `prefix`, ignoring ASCII case.
inline bool starts_with_nocase(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && parley::detail::iequals(s.substr(0, prefix.size()), prefix);
}

/// The part of an image URL: a base64 `data:` URL becomes `inlineData` {mimeType, data}; a
/// Cloud Storage URI (gs://) or a Files API URI (https://generativelanguage.googleapis.com/...)
/// becomes `fileData` {fileUri}. Any other URL is refused: the API does not fetch images.
inline boost::json::object image_part(const std::string& url) {
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
        return {{"inlineData", {{"mimeType", media_type}, {"data", std::string_view(url).substr(comma + 1)}}}};
    }
    if (starts_with_nocase(url, "gs://") || starts_with_nocase(url, "https://generativelanguage.googleapis.com/"))
        return {{"fileData", {{"fileUri", url}}}};
    invalid("the Gemini API takes an image as a base64 data: URL (inlineData) or as a gs:// or Files API URI "
            "(fileData), found '" + excerpt(url, 60) + "': download it and send it as a data: URL");
}

/// The parts of a message's text and content parts (image parts only in user and tool turns).
inline void append_content(const message& m, boost::json::array& parts, bool skip_empty_text) {
    if (const auto* s = std::get_if<std::string>(&m.content)) {
        if (!(skip_empty_text && s->empty())) parts.emplace_back(boost::json::object{{"text", *s}});
        return;
    }
    for (const auto& part : m.parts()) {
        if (part.type == content_part::kind::text) {
            parts.emplace_back(boost::json::object{{"text", part.text}});
        } else {
            if (m.role != role::user) invalid(describe(chat_rule::image_outside_user, m.role, "content"));
            parts.emplace_back(image_part(part.url));
        }
    }
}

/// The `args` of a function call: its arguments, which must be a JSON object ("" is {}).
inline boost::json::object call_args(const function_call& f, std::string_view id) {
    if (f.arguments.empty()) return {};
    std::optional<boost::json::value> args;
    try {
        args = parse_bounded(f.arguments, 64, "a JSON object");
    } catch (const wire_failure&) {
    }
    if (!args || !args->is_object())
        invalid("the arguments of " + (id.empty() ? std::string("the call") : "tool call '" + std::string(id) + "'") +
                " to '" + f.name + "' must be a JSON object, found " +
                (args ? found(*args) : "'" + excerpt(f.arguments, 60) + "'"));
    return std::move(args->get_object());
}

/// True for an id parley made up for a call the API sent without one (not sent back).
inline bool generated_id(std::string_view id) noexcept { return id.substr(0, generated_id_prefix.size()) == generated_id_prefix; }

/// The `response` of a functionResponse part from a tool or function message's text: a JSON
/// object as it is; for a result that reports a failure, {"error": value}; any other text or
/// JSON value {"output": value} (the keys the API's documentation names).
inline boost::json::object function_response(const message& m) {
    std::string text;
    if (const auto* s = std::get_if<std::string>(&m.content)) text = *s;
    for (const auto& part : m.parts()) {
        if (part.type != content_part::kind::text)
            invalid("a " + std::string(role_name(m.role)) +
                    " message's image parts have no place in a Gemini functionResponse: send its text");
        text += part.text;
    }
    boost::json::value value(boost::json::string_view(text.data(), text.size()));
    try {
        boost::json::value v = parse_bounded(text, 64, "JSON");
        if (v.is_object() && !m.is_error) return std::move(v.get_object());
        value = std::move(v);
    } catch (const wire_failure&) {
    }
    return {{m.is_error ? "error" : "output", std::move(value)}};
}

/// The name of the function of tool call `id`, from the assistant messages before `end`.
inline std::string_view call_name(const std::vector<message>& messages, std::size_t end, std::string_view id) {
    for (std::size_t i = end; i-- > 0;)
        if (messages[i].role == role::assistant)
            for (const auto& c : messages[i].tool_calls)
                if (c.id == id) return c.function.name;
    invalid("tool message with tool_call_id '" + std::string(id) +
            "' answers no tool call of an earlier assistant message (the Gemini API needs the function's name)");
}

/// A turn on the wire: a role and its parts.
struct wire_turn {
    std::string_view role;
    boost::json::array parts;
};

/// The parts of an assistant message: its thoughts (reasoning parts of kind thinking with text)
/// as `thought` parts, its text (a refusal without content as its text), its calls as
/// `functionCall` parts; the signatures kept in reasoning parts without text go back on its
/// function calls in order, or else on its last text part.
inline boost::json::array model_parts(const message& m) {
    boost::json::array parts;
    std::vector<const reasoning_part*> signatures;
    for (const auto& r : m.reasoning) {
        if (r.type != reasoning_part::kind::thinking) continue;  // other APIs' reasoning: not sent
        if (r.text.empty()) {
            if (!r.signature.empty()) signatures.push_back(&r);
            continue;
        }
        boost::json::object p{{"text", r.text}, {"thought", true}};
        if (!r.signature.empty()) p["thoughtSignature"] = r.signature;
        parts.emplace_back(std::move(p));
    }
    const std::size_t thoughts = parts.size();
    if (m.content.index() == 0 && m.refusal) parts.emplace_back(boost::json::object{{"text", *m.refusal}});
    else append_content(m, parts, !m.tool_calls.empty() || m.function_call.has_value());
    const std::size_t texts_end = parts.size();
    std::size_t next_signature = 0;
    auto add_call = [&](const function_call& f, std::string_view id) {
        boost::json::object call{{"name", f.name}, {"args", call_args(f, id)}};
        if (!id.empty() && !generated_id(id)) call["id"] = id;
        boost::json::object p{{"functionCall", std::move(call)}};
        if (next_signature < signatures.size()) p["thoughtSignature"] = signatures[next_signature++]->signature;
        parts.emplace_back(std::move(p));
    };
    if (m.function_call) add_call(*m.function_call, {});
    for (const auto& c : m.tool_calls) add_call(c.function, c.id);
    if (next_signature < signatures.size() && texts_end > thoughts)
        parts[texts_end - 1].as_object()["thoughtSignature"] = signatures[next_signature]->signature;
    if (parts.empty()) invalid("an assistant message has no content and no tool calls");
    return parts;
}

/// Adds message `i` to the turns (merging it into the last turn when the roles match) or to the
/// system texts.
inline void add_message(const std::vector<message>& messages, std::size_t i, std::vector<wire_turn>& turns,
                        boost::json::array& system, const encode_options& options) {
    const message& m = messages[i];
    boost::json::array parts;
    std::string_view wire_role = "user";
    switch (m.role) {
    case role::system:
        if (const auto* s = std::get_if<std::string>(&m.content)) system.emplace_back(boost::json::object{{"text", *s}});
        for (const auto& part : m.parts()) {
            if (part.type != content_part::kind::text) invalid(describe(chat_rule::image_outside_user, m.role, "content"));
            system.emplace_back(boost::json::object{{"text", part.text}});
        }
        return;
    case role::user:
        if (m.content.index() == 0) invalid("a user message has no content");
        append_content(m, parts, false);
        break;
    case role::assistant:
        wire_role = "model";
        parts = model_parts(m);
        break;
    case role::tool: {
        if (!m.tool_call_id) invalid(describe(chat_rule::tool_needs_id, m.role));
        wire_role = options.function_response_role;
        boost::json::object response{{"name", call_name(messages, i, *m.tool_call_id)}, {"response", function_response(m)}};
        if (!generated_id(*m.tool_call_id)) response["id"] = *m.tool_call_id;
        parts.emplace_back(boost::json::object{{"functionResponse", std::move(response)}});
        break;
    }
    case role::function:
        if (!m.name) invalid(describe(chat_rule::function_needs_name, m.role));
        wire_role = options.function_response_role;
        parts.emplace_back(boost::json::object{
            {"functionResponse", {{"name", *m.name}, {"response", function_response(m)}}}});
        break;
    case role::default_request:
    case role::request:
    case role::truncate: return;
    }
    if (!turns.empty() && turns.back().role == wire_role) {
        for (auto& p : parts) turns.back().parts.emplace_back(std::move(p));
        return;
    }
    turns.push_back({wire_role, std::move(parts)});
}

/// Throws for each request parameter the Gemini API does not have or takes in a narrower range.
inline void check_params(const request_params& p) {
    refuse_params(gemini_api_name,
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
         {p.truncation.has_value(), "truncation"}},
        " (set other Gemini fields through 'extra')");
    check_one_limit(p);
    if (p.max_tokens && *p.max_tokens < 1) invalid(describe(chat_rule::out_of_range, role::request, "max_tokens"));
    if (p.temperature && !(*p.temperature >= 0 && *p.temperature <= 2))
        invalid("'temperature' is " + number_text(*p.temperature) + ", but the Gemini API accepts 0 to 2");
    if (p.top_p && !(*p.top_p >= 0 && *p.top_p <= 1))
        invalid("'top_p' is " + number_text(*p.top_p) + ", but the Gemini API accepts 0 to 1");
    if (p.n && (*p.n < 1 || *p.n > 8))
        invalid("'n' is " + std::to_string(*p.n) + ", but the Gemini API's candidateCount is 1 to 8");
    if (p.top_logprobs && !p.logprobs.value_or(false))
        invalid("'top_logprobs' needs 'logprobs': true (the Gemini API's responseLogprobs)");
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
    check_word(p.reasoning_effort, "reasoning_effort", gemini_api_name, {"none", "minimal", "low", "medium", "high"});
    check_word(p.reasoning_summary, "reasoning_summary", gemini_api_name, {"auto", "concise", "detailed"});
    if (p.reasoning_effort && p.thinking)
        invalid("set 'reasoning_effort' (the Gemini API's thinkingLevel) or 'thinking' (its thinkingBudget), not both");
}

/// The thinkingConfig of the parameters; empty when none is sent.
inline boost::json::object thinking_config(const request_params& p) {
    boost::json::object t;
    if (p.thinking) {
        const auto& k = *p.thinking;
        if (k.type == "enabled" && k.budget_tokens) t["thinkingBudget"] = *k.budget_tokens;
        else if (k.type == "adaptive") t["thinkingBudget"] = -1;
        else if (k.type == "disabled") t["thinkingBudget"] = 0;
        if (k.type != "disabled") t["includeThoughts"] = k.display.value_or("summarized") != "omitted";
    }
    if (p.reasoning_effort) {
        if (*p.reasoning_effort == "none") {
            t["thinkingBudget"] = 0;
        } else {
            std::string level = *p.reasoning_effort;
            for (char& c : level) c = static_cast<char>(c - 'a' + 'A');
            t["thinkingLevel"] = level;
        }
    }
    if (p.reasoning_summary && !t.contains("includeThoughts")) t["includeThoughts"] = true;
    return t;
}

/// The toolConfig of the parameters; empty when none is sent.
inline boost::json::object tool_config(const request_params& p) {
    if (!p.call_function) return {};
    boost::json::object config;
    const std::string& c = *p.call_function;
    if (c.empty()) {
        config["mode"] = "NONE";
    } else if (c == "*") {
        config["mode"] = "AUTO";
    } else if (c == "+") {
        config["mode"] = "ANY";
    } else {
        config["mode"] = "ANY";
        config["allowedFunctionNames"] = boost::json::array{boost::json::value(c)};
    }
    return {{"functionCallingConfig", std::move(config)}};
}

/// Merges `extra` into the body last: a member whose value and the body's are both objects
/// (generationConfig, toolConfig...) is merged member by member; any other replaces the body's
/// member or is added. Throws parley::error (errc::chat_invalid) for `contents` and the members
/// no API's extra may replace.
inline void merge_gemini_extra(boost::json::object& body, const boost::json::object& extra) {
    for (const auto& member : extra) {
        if (member.key() == "contents")
            invalid("'extra' may not replace 'contents' (the messages parley sends)");
        if (parley::detail::is_reserved_extra_key(member.key()))
            throw error(errc::chat_invalid, parley::detail::value_rule_sentence("extra") + ", found '" +
                                                std::string(member.key()) + "'");
        auto* mine = body.if_contains(member.key());
        if (mine && mine->is_object() && member.value().is_object()) {
            for (const auto& inner : member.value().get_object()) mine->get_object()[inner.key()] = inner.value();
        } else {
            body[member.key()] = member.value();
        }
    }
}

}  // namespace detail

/// The JSON body of a generateContent / streamGenerateContent request (the model goes into the
/// path: see gemini_api::chat_target; `stream` changes nothing in the body). Mapping:
/// - System messages, wherever they are, are hoisted in order into `systemInstruction`
///   ({"parts": [{"text"}, ...]}, one part per message or text part).
/// - User messages are `user` turns, assistant messages `model` turns, tool and function
///   messages `functionResponse` parts in `user` turns (options.function_response_role);
///   consecutive messages of one role are merged into one turn (the parallel calls' results are
///   the parts of one turn). Control messages are never sent; names are not sent.
/// - Content parts: text parts are `{"text"}`; an image given as a base64 `data:` URL becomes
///   `{"inlineData": {"mimeType", "data"}}`, a gs:// or Files API URI (https://
///   generativelanguage.googleapis.com/...) `{"fileData": {"fileUri"}}`; an image part's detail
///   has no equivalent and is not sent.
/// - An assistant message: its reasoning parts of kind thinking with text become `{"text",
///   "thought": true, "thoughtSignature"}` parts; its text (a refusal without content as its
///   text; an empty text left out when it has calls); its tool calls (and a legacy function
///   call) `{"functionCall": {"name", "args", "id"}}` parts, `args` being the parsed arguments
///   (a JSON object; "" is {}) and `id` the call's id unless parley generated it. Reasoning parts
///   of kind thinking without text carry the signatures the API put on other parts: they go back
///   as `thoughtSignature` on the function calls in order, or else on the last text part.
/// - A tool message becomes `{"functionResponse": {"name", "response", "id"}}`, the name taken
///   from the assistant tool call with its tool_call_id, `response` its text when that is a JSON
///   object, else {"output": value} ({"error": value} for a result that reports a failure); a
///   function message the same with its `name` and no id.
/// - `functions` become `tools: [{"functionDeclarations": [{name, description,
///   parametersJsonSchema}]}]`: the definitions' JSON Schemas are sent as they are
///   (`parametersJsonSchema`, which takes JSON Schema, rather than `parameters`, the API's
///   OpenAPI subset); a function without parameters has none. `call_function` becomes
///   `toolConfig.functionCallingConfig`: "" -> NONE, "*" -> AUTO, "+" -> ANY, a name -> ANY
///   with `allowedFunctionNames: [name]`.
/// - `generationConfig`: temperature (0 to 2), topP, topK, maxOutputTokens (max_tokens or
///   max_completion_tokens), stopSequences (always a list), candidateCount (n, 1 to 8), seed,
///   presencePenalty, frequencyPenalty, responseLogprobs (logprobs) and logprobs (top_logprobs);
///   a json_object response_format gives `responseMimeType: "application/json"`, a json_schema
///   one also `responseJsonSchema` (its schema as it is); `thinkingConfig`: `thinking` enabled
///   with a budget -> thinkingBudget, adaptive -> -1 (the model decides), disabled -> 0, and
///   includeThoughts unless its display is "omitted"; `reasoning_effort` none -> thinkingBudget
///   0, minimal, low, medium or high -> thinkingLevel MINIMAL... HIGH; `reasoning_summary` ->
///   includeThoughts true.
/// - `extra` is merged last, objects member by member (`{"safetySettings": [...]}`,
///   `{"generationConfig": {"responseModalities": ["TEXT"]}}`, `{"cachedContent": "..."}`).
/// Throws parley::error (errc::chat_invalid) when there is no model or its name cannot be a path
/// segment; for logit_bias, parallel_tool_calls, verbosity, prediction, service_tier, store,
/// metadata, user, safety_identifier, prompt_cache_key, prompt_cache_retention, cache_control
/// and truncation (the API has none of them); for a temperature above 2, top_p above 1, n
/// outside 1 to 8, top_logprobs without logprobs, reasoning_effort xhigh or max, both
/// reasoning_effort and thinking, both max_tokens and max_completion_tokens; when a listed
/// function has no definition or `call_function` forces a function that is not listed; for
/// tool call arguments that are not a JSON object, a tool message whose call is not found, a
/// user message without content, an assistant message with nothing to send, an image outside a
/// user message or an image URL the API cannot take, and an `extra` member that would replace
/// model, messages, contents, stream or tools.
inline boost::json::object encode_request(const chat_request& r, bool stream, const encode_options& options = {}) {
    static_cast<void>(stream);
    namespace dg = detail;
    const request_params& p = r.params;
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    static_cast<void>(model_resource(*p.model));
    dg::check_params(p);

    std::vector<dg::wire_turn> turns;
    boost::json::array system;
    for (std::size_t i = 0; i < r.messages.size(); ++i) dg::add_message(r.messages, i, turns, system, options);

    boost::json::object body;
    boost::json::array contents;
    for (auto& t : turns) contents.emplace_back(boost::json::object{{"role", t.role}, {"parts", std::move(t.parts)}});
    body["contents"] = std::move(contents);
    if (!system.empty()) body["systemInstruction"] = {{"parts", std::move(system)}};

    const bool listed = p.functions && !p.functions->empty();
    const bool forced = p.call_function && !p.call_function->empty() && *p.call_function != "*";
    if (forced && !listed) dg::check_call_listed(p);
    if (forced && *p.call_function != "+" &&
        std::find(p.functions->begin(), p.functions->end(), *p.call_function) == p.functions->end())
        throw error(errc::chat_invalid, describe(chat_rule::forced_function_not_listed, role::request, *p.call_function));
    if (listed) {
        boost::json::array declarations;
        for (const auto& name : *p.functions) {
            const auto def = std::find_if(r.functions.begin(), r.functions.end(),
                                          [&](const function_definition& d) { return d.name == name; });
            if (def == r.functions.end())
                throw error(errc::chat_invalid, "function '" + name + "' is requested but has no definition");
            boost::json::object d{{"name", def->name}};
            if (!def->description.empty()) d["description"] = def->description;
            if (!def->parameters.empty()) d["parametersJsonSchema"] = def->parameters;
            declarations.emplace_back(std::move(d));
        }
        body["tools"] = boost::json::array{boost::json::object{{"functionDeclarations", std::move(declarations)}}};
        if (auto config = dg::tool_config(p); !config.empty()) body["toolConfig"] = std::move(config);
    }

    boost::json::object g;
    if (p.temperature) g["temperature"] = *p.temperature;
    if (p.top_p) g["topP"] = *p.top_p;
    if (p.top_k) g["topK"] = *p.top_k;
    if (p.n) g["candidateCount"] = *p.n;
    if (p.max_tokens) g["maxOutputTokens"] = *p.max_tokens;
    else if (p.max_completion_tokens) g["maxOutputTokens"] = *p.max_completion_tokens;
    if (p.stop) {
        boost::json::array stops;
        if (const auto* one = std::get_if<std::string>(&*p.stop)) stops.emplace_back(*one);
        else
            for (const auto& s : std::get<std::vector<std::string>>(*p.stop)) stops.emplace_back(s);
        g["stopSequences"] = std::move(stops);
    }
    if (p.presence_penalty) g["presencePenalty"] = *p.presence_penalty;
    if (p.frequency_penalty) g["frequencyPenalty"] = *p.frequency_penalty;
    if (p.seed) g["seed"] = *p.seed;
    if (p.logprobs) g["responseLogprobs"] = *p.logprobs;
    if (p.top_logprobs) g["logprobs"] = *p.top_logprobs;
    if (p.response_format) {
        const auto& type = p.response_format->at("type").get_string();
        if (type == "json_object" || type == "json_schema") g["responseMimeType"] = "application/json";
        if (type == "json_schema") g["responseJsonSchema"] = p.response_format->at("json_schema").at("schema");
    }
    if (auto thinking = dg::thinking_config(p); !thinking.empty()) g["thinkingConfig"] = std::move(thinking);
    if (!g.empty()) body["generationConfig"] = std::move(g);
    if (p.extra) dg::merge_gemini_extra(body, *p.extra);
    return body;
}

}  // namespace parley::gemini

#endif
