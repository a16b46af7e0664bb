// parley/provider/openai/request.hpp: the body of an OpenAI chat-completions request (also what
// Ollama, llama.cpp, vLLM and other compatible servers accept) from request parameters, messages
// and function definitions, streamed or not, with the options older servers need; written
// straight into the body text (encode_request_text), or as a JSON tree (encode_request).
#ifndef PARLEY_PROVIDER_OPENAI_REQUEST_HPP
#define PARLEY_PROVIDER_OPENAI_REQUEST_HPP

#include <parley/provider/openai/options.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/error.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>
#include <parley/schema/detail/constexpr_json.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parley::openai {


/// The name of this API in messages.
inline constexpr std::string_view chat_api_name = "the OpenAI chat completions API";

namespace detail {

using parley::detail::append_json_string;

/// Appends an integer as Boost.JSON writes it.
inline void append_json_int(std::string& out, std::int64_t n) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    out.append(digits, static_cast<std::size_t>(end - digits));
}

/// Appends `,"key":` (without the comma for the first member of an object); `key` is written as
/// it is, so it must need no escaping.
inline void append_key(std::string& out, bool& first, std::string_view key) {
    if (!first) out.push_back(',');
    first = false;
    out.push_back('"');
    out.append(key);
    out.append("\":");
}

/// Appends a number with a fraction as Boost.JSON writes it (its own shortest form, 2E-1 for 0.2).
inline void append_json_double(std::string& out, double d) { out.append(boost::json::serialize(boost::json::value(d))); }

/// Appends `m` as a message of the chat completions API.
inline void append_message(std::string& out, const message& m, const encode_options& options) {
    out.append("{\"role\":");
    append_json_string(out, role_name(m.role));
    if (const auto* s = std::get_if<std::string>(&m.content)) {
        out.append(",\"content\":");
        append_json_string(out, *s);
    } else if (m.has_parts()) {
        out.append(",\"content\":[");
        bool first_part = true;
        for (const auto& p : m.parts()) {
            if (!first_part) out.push_back(',');
            first_part = false;
            if (p.type == content_part::kind::text) {
                out.append("{\"type\":\"text\",\"text\":");
                append_json_string(out, p.text);
                out.push_back('}');
            } else {
                out.append("{\"type\":\"image_url\",\"image_url\":{\"url\":");
                append_json_string(out, p.url);
                if (p.detail) {
                    out.append(",\"detail\":");
                    append_json_string(out, *p.detail);
                }
                out.append("}}");
            }
        }
        out.push_back(']');
    } else if (m.role == role::assistant) {
        out.append(",\"content\":null");
    }
    if (m.name) {
        out.append(",\"name\":");
        append_json_string(out, *m.name);
    }
    if (m.refusal) {
        out.append(",\"refusal\":");
        append_json_string(out, *m.refusal);
    }
    if (options.send_reasoning && !m.reasoning.empty()) {
        out.append(",\"reasoning_content\":");
        append_json_string(out, m.reasoning_text());
    }
    if (m.function_call) {
        out.append(",\"function_call\":{\"name\":");
        append_json_string(out, m.function_call->name);
        out.append(",\"arguments\":");
        append_json_string(out, m.function_call->arguments);
        out.push_back('}');
    }
    if (!m.tool_calls.empty()) {
        out.append(",\"tool_calls\":[");
        bool first_call = true;
        for (const auto& c : m.tool_calls) {
            if (!first_call) out.push_back(',');
            first_call = false;
            out.append("{\"id\":");
            append_json_string(out, c.id);
            out.append(",\"type\":\"function\",\"function\":{\"name\":");
            append_json_string(out, c.function.name);
            out.append(",\"arguments\":");
            append_json_string(out, c.function.arguments);
            out.append("}}");
        }
        out.push_back(']');
    }
    if (m.tool_call_id) {
        out.append(",\"tool_call_id\":");
        append_json_string(out, *m.tool_call_id);
    }
    out.push_back('}');
}

/// A body this encoder wrote, as a JSON tree (texts that are not UTF-8 are sent as they are).
inline boost::json::value parse_body(std::string_view body, boost::json::storage_ptr sp = {}) {
    boost::json::parse_options opt;
    opt.allow_invalid_utf8 = true;
    return boost::json::parse(boost::json::string_view(body.data(), body.size()), std::move(sp), opt);
}

/// Throws for the parameters this API does not have, or takes in another form.
inline void check_params(const request_params& p, const encode_options& options) {
    namespace dw = parley::detail::wire;
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    dw::refuse_params(chat_api_name,
        {{p.top_k.has_value(), "top_k"},
         {p.thinking.has_value(), "thinking"},
         {p.cache_control.has_value(), "cache_control"},
         {p.reasoning_summary.has_value(), "reasoning_summary"},
         {p.truncation.has_value(), "truncation"}},
        " (send it in 'extra' to a compatible server that takes it)");
    dw::check_word(p.service_tier, "service_tier", chat_api_name, {"auto", "default", "flex", "scale", "priority"});
    dw::check_one_limit(p);
    if (p.top_logprobs && !p.logprobs.value_or(false))
        throw error(errc::chat_invalid, "'top_logprobs' needs 'logprobs': true");
    dw::check_call_listed(p);
    if (options.legacy_functions && p.call_function && *p.call_function == "+" && p.functions && !p.functions->empty())
        throw error(errc::chat_invalid,
                    "'call_function' \"+\" (the model calls one of the functions) has no legacy form: turn legacy_functions off");
}

/// Appends the request parameters after `model` and `messages`, in the order of the struct;
/// tools and tool_choice are written apart.
inline void append_params(std::string& out, const request_params& p, const encode_options& options) {
    bool first = false;
    if (p.max_tokens && !options.max_completion_tokens) {
        append_key(out, first, "max_tokens");
        append_json_int(out, *p.max_tokens);
    }
    if (p.temperature) {
        append_key(out, first, "temperature");
        append_json_double(out, *p.temperature);
    }
    if (p.top_p) {
        append_key(out, first, "top_p");
        append_json_double(out, *p.top_p);
    }
    if (p.stop) {
        append_key(out, first, "stop");
        if (const auto* one = std::get_if<std::string>(&*p.stop)) {
            append_json_string(out, *one);
        } else {
            out.push_back('[');
            bool first_stop = true;
            for (const auto& s : std::get<std::vector<std::string>>(*p.stop)) {
                if (!first_stop) out.push_back(',');
                first_stop = false;
                append_json_string(out, s);
            }
            out.push_back(']');
        }
    }
    if (p.presence_penalty) {
        append_key(out, first, "presence_penalty");
        append_json_double(out, *p.presence_penalty);
    }
    if (p.frequency_penalty) {
        append_key(out, first, "frequency_penalty");
        append_json_double(out, *p.frequency_penalty);
    }
    if (p.logit_bias) {
        // As an object: a token given twice is one member, with its last bias in its first place.
        boost::json::object b;
        for (const auto& [token, bias] : *p.logit_bias) b[token] = bias;
        append_key(out, first, "logit_bias");
        out.append(boost::json::serialize(b));
    }
    if (p.seed) {
        append_key(out, first, "seed");
        append_json_int(out, *p.seed);
    }
    if (p.n) {
        append_key(out, first, "n");
        append_json_int(out, *p.n);
    }
    if (p.response_format) {
        append_key(out, first, "response_format");
        out.append(boost::json::serialize(*p.response_format));
    }
    const auto limit = p.max_completion_tokens ? p.max_completion_tokens : options.max_completion_tokens ? p.max_tokens : std::nullopt;
    if (limit) {
        append_key(out, first, "max_completion_tokens");
        append_json_int(out, *limit);
    }
    auto text = [&](std::string_view key, const std::optional<std::string>& v) {
        if (!v) return;
        append_key(out, first, key);
        append_json_string(out, *v);
    };
    auto flag = [&](std::string_view key, const std::optional<bool>& v) {
        if (!v) return;
        append_key(out, first, key);
        out.append(*v ? "true" : "false");
    };
    flag("logprobs", p.logprobs);
    if (p.top_logprobs) {
        append_key(out, first, "top_logprobs");
        append_json_int(out, *p.top_logprobs);
    }
    text("reasoning_effort", p.reasoning_effort);
    text("verbosity", p.verbosity);
    if (p.prediction) {
        append_key(out, first, "prediction");
        out.append("{\"type\":\"content\",\"content\":");
        append_json_string(out, *p.prediction);
        out.push_back('}');
    }
    text("service_tier", p.service_tier);
    flag("store", p.store);
    if (p.metadata) {
        append_key(out, first, "metadata");
        out.push_back('{');
        bool first_pair = true;
        for (const auto& [k, v] : *p.metadata) {
            if (!first_pair) out.push_back(',');
            first_pair = false;
            append_json_string(out, k);
            out.push_back(':');
            append_json_string(out, v);
        }
        out.push_back('}');
    }
    text("user", p.user);
    text("safety_identifier", p.safety_identifier);
    text("prompt_cache_key", p.prompt_cache_key);
    text("prompt_cache_retention", p.prompt_cache_retention);
}

/// The definition of function `name` in `definitions`; throws when there is none.
inline const function_definition& definition_of(const std::vector<function_definition>& definitions, const std::string& name) {
    for (const auto& d : definitions)
        if (d.name == name) return d;
    throw error(errc::chat_invalid, "function '" + name + "' is requested but has no definition");
}

/// Appends `tools` (or the legacy `functions`), `tool_choice` (`function_call`) and
/// `parallel_tool_calls` (sent with the tools only: a request without them makes no calls).
inline void append_tools(std::string& out, const request_params& p, const std::vector<function_definition>& definitions,
                         const encode_options& options) {
    if (!p.functions || p.functions->empty()) return;
    bool first = false;
    append_key(out, first, options.legacy_functions ? "functions" : "tools");
    out.push_back('[');
    bool first_tool = true;
    for (const auto& name : *p.functions) {
        const function_definition& def = definition_of(definitions, name);
        if (!first_tool) out.push_back(',');
        first_tool = false;
        if (!options.legacy_functions) out.append("{\"type\":\"function\",\"function\":");
        out.append("{\"name\":");
        append_json_string(out, def.name);
        if (!def.description.empty()) {
            out.append(",\"description\":");
            append_json_string(out, def.description);
        }
        out.append(",\"parameters\":");
        if (def.parameters.empty())
            out.append(def.strict ? "{\"type\":\"object\",\"properties\":{},\"required\":[],\"additionalProperties\":false}"
                                  : "{\"type\":\"object\",\"properties\":{}}");
        else out.append(boost::json::serialize(def.parameters));
        if (def.strict && !options.legacy_functions) out.append(",\"strict\":true");
        out.push_back('}');
        if (!options.legacy_functions) out.push_back('}');
    }
    out.push_back(']');
    if (p.call_function) {
        append_key(out, first, options.legacy_functions ? "function_call" : "tool_choice");
        if (p.call_function->empty()) {
            out.append("\"none\"");
        } else if (*p.call_function == "*") {
            out.append("\"auto\"");
        } else if (*p.call_function == "+") {
            out.append("\"required\"");
        } else {
            out.append(options.legacy_functions ? "{\"name\":" : "{\"type\":\"function\",\"function\":{\"name\":");
            append_json_string(out, *p.call_function);
            out.append(options.legacy_functions ? "}" : "}}");
        }
    }
    if (p.parallel_tool_calls && !options.legacy_functions) {
        append_key(out, first, "parallel_tool_calls");
        out.append(*p.parallel_tool_calls ? "true" : "false");
    }
}

}  // namespace detail

/// The JSON body of a chat call as text. Mapping:
/// - `model`, then `messages` (control messages are never sent; an assistant's `refusal` is sent
///   as the API's `refusal`, its reasoning as `reasoning_content` with options.send_reasoning);
/// - the parameters as the API names them, in the order of request_params: max_tokens (or
///   max_completion_tokens with options.max_completion_tokens), temperature, top_p, stop,
///   presence_penalty, frequency_penalty, logit_bias, seed, n, response_format,
///   max_completion_tokens, logprobs, top_logprobs, reasoning_effort, verbosity, prediction (as
///   `{"type": "content", "content": ...}`), service_tier, store, metadata, user,
///   safety_identifier, prompt_cache_key, prompt_cache_retention;
/// - `functions` become `tools` with their definitions (`"strict": true` for a strict
///   definition); `call_function` becomes `tool_choice` ("" -> "none", "*" -> "auto", "+" ->
///   "required", a name -> that function), and `parallel_tool_calls` follows them; with
///   `options.legacy_functions`, `functions` and `function_call` instead;
/// - `stream` adds `"stream": true` (and `"stream_options": {"include_usage": true}` unless
///   `options.stream_usage` is off);
/// - `extra` last: its members replace those of the same name or are added at the end.
/// Throws parley::error (errc::chat_invalid) when there is no model; for top_k, thinking,
/// cache_control, reasoning_summary and truncation (the API has none of them: send them through
/// `extra` to a server that takes them), a service_tier of "standard_only", both max_tokens and
/// max_completion_tokens, top_logprobs without logprobs; when a function named by the parameters
/// has no definition, `call_function` forces a call and none is listed, or "+" with
/// legacy_functions; for an `extra` member that would replace model, messages, input, stream or
/// tools.
inline std::string encode_request_text(const chat_request& r, bool stream, const encode_options& options = {}) {
    const request_params& p = r.params;
    detail::check_params(p, options);
    std::size_t estimate = 160 + p.model->size();
    for (const auto& m : r.messages) estimate += 48 + m.text().size();
    std::string out;
    out.reserve(estimate);
    out.append("{\"model\":");
    detail::append_json_string(out, *p.model);
    out.append(",\"messages\":[");
    bool first_message = true;
    for (const auto& m : r.messages) {
        if (is_control(m.role)) continue;
        if (!first_message) out.push_back(',');
        first_message = false;
        detail::append_message(out, m, options);
    }
    out.push_back(']');
    detail::append_params(out, p, options);
    detail::append_tools(out, p, r.functions, options);
    if (stream) {
        out.append(",\"stream\":true");
        if (options.stream_usage) out.append(",\"stream_options\":{\"include_usage\":true}");
    }
    out.push_back('}');
    if (p.extra) {
        boost::json::object body = detail::parse_body(out).as_object();
        parley::detail::wire::merge_extra(body, *p.extra);
        out = boost::json::serialize(body);
    }
    return out;
}

/// The body of encode_request_text as a JSON tree (the same members in the same order), in the
/// memory of `sp`. Throws as encode_request_text.
inline boost::json::object encode_request(const chat_request& r, bool stream, const encode_options& options = {},
                                          boost::json::storage_ptr sp = {}) {
    return detail::parse_body(encode_request_text(r, stream, options), std::move(sp)).as_object();
}

/// encode_request of these parameters, messages and definitions, not streamed.
inline boost::json::object encode_request(const request_params& p, const std::vector<message>& messages,
                                          const std::vector<function_definition>& definitions,
                                          const encode_options& options = {}, boost::json::storage_ptr sp = {}) {
    chat_request r;
    r.params = p;
    r.messages = messages;
    r.functions = definitions;
    return encode_request(r, false, options, std::move(sp));
}

}  // namespace parley::openai

#endif
