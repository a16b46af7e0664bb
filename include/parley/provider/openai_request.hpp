// parley/provider/openai_request.hpp: the body of an OpenAI chat-completions request (also what
// Ollama, llama.cpp, vLLM and other compatible servers accept) from request parameters, messages
// and function definitions, streamed or not, with the options older servers need; as a JSON tree
// (encode_request) or written straight into the body text (encode_request_text).
#ifndef PARLEY_PROVIDER_OPENAI_REQUEST_HPP
#define PARLEY_PROVIDER_OPENAI_REQUEST_HPP

#include <parley/chat/json.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>
#include <parley/provider/reply.hpp>
#include <parley/schema/detail/constexpr_json.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parley::openai {

/// How a request body is written for servers that differ from the current OpenAI API.
struct encode_options {
    /// Writes the legacy `functions` (definitions) and `function_call` ("none", "auto" or
    /// `{"name": ...}`) instead of `tools` and `tool_choice`, for servers that only know the old form.
    bool legacy_functions = false;
    /// Writes `max_tokens` as `max_completion_tokens`. OpenAI deprecated `max_tokens` and its
    /// reasoning models (o1, o3, ...) reject it; most compatible servers (Ollama, llama.cpp, vLLM,
    /// older proxies) know only `max_tokens`, which is therefore the default.
    bool max_completion_tokens = false;
    /// With a stream, asks for the final usage chunk (`"stream_options": {"include_usage": true}`).
    /// Turn it off for a server that rejects `stream_options`.
    bool stream_usage = true;
};

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

/// Which parameters append_params leaves out (those the body writes in another form).
struct params_skipped {
    bool model = false;
    bool max_tokens = false;
    bool functions = false;  ///< `functions` and `call_function`
};

/// Appends the members that write_params gives for `p`, in its order, after the members
/// already written; without those `skip` names.
inline void append_params(std::string& out, bool& first, const request_params& p, params_skipped skip = {}) {
    if (p.model && !skip.model) {
        append_key(out, first, "model");
        append_json_string(out, *p.model);
    }
    if (p.max_tokens && !skip.max_tokens) {
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
    if (skip.functions) return;
    if (p.functions) {
        append_key(out, first, "functions");
        out.push_back('[');
        bool first_name = true;
        for (const auto& f : *p.functions) {
            if (!first_name) out.push_back(',');
            first_name = false;
            append_json_string(out, f);
        }
        out.push_back(']');
    }
    if (p.call_function) {
        append_key(out, first, "call_function");
        append_json_string(out, *p.call_function);
    }
}

/// Appends `m` as message_to_json writes it.
inline void append_message(std::string& out, const message& m) {
    out.append("{\"role\":");
    append_json_string(out, role_name(m.role));
    bool first = false;
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
    append_params(out, first, m.params);
    out.push_back('}');
}

}  // namespace detail

/// The JSON body of a chat-completions request. `functions` named by the parameters become
/// `tools` with their definitions from `definitions`; `call_function` becomes `tool_choice`
/// ("" -> "none", "*" -> "auto", a name -> that function); with `options.legacy_functions` they
/// become `functions` and `function_call` instead. `response_format`, `n`, `stop`, `seed`,
/// `logit_bias` and the sampling parameters are written as set. Control messages are never sent.
/// Throws parley::error (errc::chat_invalid) when there is no model, a function named by the
/// parameters has no definition, or `call_function` forces a function and none is listed.
/// The object and everything in it use the memory of `sp`.
inline boost::json::object encode_request(const request_params& p, const std::vector<message>& messages,
                                          const std::vector<function_definition>& definitions,
                                          const encode_options& options = {}, boost::json::storage_ptr sp = {}) {
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    boost::json::object body(sp);
    body["model"] = *p.model;
    boost::json::array wire(sp);
    for (const auto& m : messages)
        if (!is_control(m.role)) wire.emplace_back(message_to_json(m, sp));
    body["messages"] = std::move(wire);
    request_params rest = p;
    rest.model.reset();
    rest.functions.reset();
    rest.call_function.reset();
    if (options.max_completion_tokens) rest.max_tokens.reset();
    write_params(body, rest);
    if (options.max_completion_tokens && p.max_tokens) body["max_completion_tokens"] = *p.max_tokens;
    const bool forced = p.call_function && !p.call_function->empty() && *p.call_function != "*";
    if (forced && (!p.functions || p.functions->empty()))
        throw error(errc::chat_invalid, "'call_function' forces '" + *p.call_function + "', but the request lists no functions");
    if (p.functions && !p.functions->empty()) {
        boost::json::array tools;
        for (const auto& name : *p.functions) {
            const function_definition* def = nullptr;
            for (const auto& d : definitions)
                if (d.name == name) def = &d;
            if (!def) throw error(errc::chat_invalid, "function '" + name + "' is requested but has no definition");
            boost::json::object fn{{"name", def->name}};
            if (!def->description.empty()) fn["description"] = def->description;
            fn["parameters"] = def->parameters.empty() ? boost::json::object{{"type", "object"}, {"properties", boost::json::object{}}}
                                                       : def->parameters;
            if (options.legacy_functions) tools.push_back(std::move(fn));
            else tools.push_back(boost::json::object{{"type", "function"}, {"function", std::move(fn)}});
        }
        body[options.legacy_functions ? "functions" : "tools"] = std::move(tools);
        if (p.call_function) {
            boost::json::value choice;
            if (p.call_function->empty()) choice = "none";
            else if (*p.call_function == "*") choice = "auto";
            else if (options.legacy_functions) choice = boost::json::object{{"name", *p.call_function}};
            else choice = boost::json::object{{"type", "function"}, {"function", {{"name", *p.call_function}}}};
            body[options.legacy_functions ? "function_call" : "tool_choice"] = std::move(choice);
        }
    }
    return body;
}

/// The JSON body of a chat call: encode_request of its parameters, messages and definitions;
/// `stream` adds `"stream": true` (and `"stream_options": {"include_usage": true}` unless
/// `options.stream_usage` is off). Throws as the overload above.
inline boost::json::object encode_request(const chat_request& r, bool stream, const encode_options& options = {},
                                          boost::json::storage_ptr sp = {}) {
    boost::json::object body = encode_request(r.params, r.messages, r.functions, options, std::move(sp));
    if (stream) {
        body["stream"] = true;
        if (options.stream_usage) body["stream_options"] = {{"include_usage", true}};
    }
    return body;
}

/// The JSON body of a chat call as text, byte for byte what `boost::json::serialize` writes for
/// encode_request(r, stream, options) (the same members in the same order, the same escaping and
/// numbers), written straight into the string without building the JSON tree. Throws as
/// encode_request.
inline std::string encode_request_text(const chat_request& r, bool stream, const encode_options& options = {}) {
    const request_params& p = r.params;
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
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
        detail::append_message(out, m);
    }
    out.push_back(']');
    bool first = false;
    detail::append_params(out, first, p, {true, options.max_completion_tokens, true});
    if (options.max_completion_tokens && p.max_tokens) {
        detail::append_key(out, first, "max_completion_tokens");
        detail::append_json_int(out, *p.max_tokens);
    }
    const bool forced = p.call_function && !p.call_function->empty() && *p.call_function != "*";
    if (forced && (!p.functions || p.functions->empty()))
        throw error(errc::chat_invalid, "'call_function' forces '" + *p.call_function + "', but the request lists no functions");
    if (p.functions && !p.functions->empty()) {
        detail::append_key(out, first, options.legacy_functions ? "functions" : "tools");
        out.push_back('[');
        bool first_tool = true;
        for (const auto& name : *p.functions) {
            const function_definition* def = nullptr;
            for (const auto& d : r.functions)
                if (d.name == name) def = &d;
            if (!def) throw error(errc::chat_invalid, "function '" + name + "' is requested but has no definition");
            if (!first_tool) out.push_back(',');
            first_tool = false;
            if (!options.legacy_functions) out.append("{\"type\":\"function\",\"function\":");
            out.append("{\"name\":");
            detail::append_json_string(out, def->name);
            if (!def->description.empty()) {
                out.append(",\"description\":");
                detail::append_json_string(out, def->description);
            }
            out.append(",\"parameters\":");
            if (def->parameters.empty()) out.append("{\"type\":\"object\",\"properties\":{}}");
            else out.append(boost::json::serialize(def->parameters));
            out.push_back('}');
            if (!options.legacy_functions) out.push_back('}');
        }
        out.push_back(']');
        if (p.call_function) {
            detail::append_key(out, first, options.legacy_functions ? "function_call" : "tool_choice");
            if (p.call_function->empty()) {
                out.append("\"none\"");
            } else if (*p.call_function == "*") {
                out.append("\"auto\"");
            } else {
                out.append(options.legacy_functions ? "{\"name\":" : "{\"type\":\"function\",\"function\":{\"name\":");
                detail::append_json_string(out, *p.call_function);
                out.append(options.legacy_functions ? "}" : "}}");
            }
        }
    }
    if (stream) {
        out.append(",\"stream\":true");
        if (options.stream_usage) out.append(",\"stream_options\":{\"include_usage\":true}");
    }
    out.push_back('}');
    return out;
}

}  // namespace parley::openai

#endif
