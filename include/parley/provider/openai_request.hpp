// parley/provider/openai_request.hpp: the body of an OpenAI chat-completions request (also what
// Ollama, llama.cpp, vLLM and other compatible servers accept) from request parameters, messages
// and function definitions, streamed or not, with the options older servers need.
#ifndef PARLEY_PROVIDER_OPENAI_REQUEST_HPP
#define PARLEY_PROVIDER_OPENAI_REQUEST_HPP

#include <parley/chat/json.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
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

}  // namespace parley::openai

#endif
