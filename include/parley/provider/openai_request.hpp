// parley/provider/openai_request.hpp: the body of an OpenAI chat-completions request (also what
// Ollama, llama.cpp, vLLM and other compatible servers accept) from request parameters, messages
// and function definitions.
#ifndef PARLEY_PROVIDER_OPENAI_REQUEST_HPP
#define PARLEY_PROVIDER_OPENAI_REQUEST_HPP

#include <parley/chat/json.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace parley::openai {

/// The JSON body of a chat-completions request. `functions` named by the parameters become
/// `tools` with their definitions from `definitions`; `call_function` becomes `tool_choice`
/// ("" -> "none", "*" -> "auto", a name -> that function). Control messages are never sent.
/// Throws parley::error (errc::chat_invalid) when there is no model, a function named by the
/// parameters has no definition, or `call_function` forces a function and none is listed.
inline boost::json::object encode_request(const request_params& p, const std::vector<message>& messages,
                                          const std::vector<function_definition>& definitions) {
    if (!p.model || p.model->empty())
        throw error(errc::chat_invalid, "the request has no model: set 'model' in a default-request or request message");
    boost::json::object body;
    body["model"] = *p.model;
    boost::json::array wire;
    for (const auto& m : messages)
        if (!is_control(m.role)) wire.emplace_back(message_to_json(m));
    body["messages"] = std::move(wire);
    request_params rest = p;
    rest.model.reset();
    rest.functions.reset();
    rest.call_function.reset();
    write_params(body, rest);
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
            tools.push_back(boost::json::object{{"type", "function"}, {"function", std::move(fn)}});
        }
        body["tools"] = std::move(tools);
        if (p.call_function) {
            if (p.call_function->empty()) body["tool_choice"] = "none";
            else if (*p.call_function == "*") body["tool_choice"] = "auto";
            else body["tool_choice"] = {{"type", "function"}, {"function", {{"name", *p.call_function}}}};
        }
    }
    return body;
}

}  // namespace parley::openai

#endif
