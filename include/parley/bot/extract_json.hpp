// parley/bot/extract_json.hpp: extract_json, a JSON value that fits a JSON Schema given at run
// time (a schema_validator) from a model's reply: asked for as a forced tool call, as the
// provider's structured output, or as JSON in the reply's text, and re-asked with the
// validator's violations until it fits, as extract<T> does for a described struct. See
// docs/extraction.md, "Extraction into a schema given at run time".
#ifndef PARLEY_BOT_EXTRACT_JSON_HPP
#define PARLEY_BOT_EXTRACT_JSON_HPP

#include <parley/bot/ask.hpp>
#include <parley/bot/extract.hpp>
#include <parley/bot/functions.hpp>
#include <parley/bot/model.hpp>
#include <parley/chat/conversation_template.hpp>
#include <parley/error.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/validator.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// Options of extract_json.
struct extract_json_options {
    /// How the value is asked for: a forced call of a function whose parameters are the schema
    /// (the schema's root must be an object schema), `response_format` json_schema (each wire
    /// API's structured output: OpenAI's response_format, the Responses API's text.format,
    /// Anthropic's output_config.format, Gemini's responseJsonSchema), or the schema in the
    /// prompt and JSON found in the reply's text.
    extract_mode mode = extract_mode::tool_call;
    /// Re-asks after the first reply: at most 1 + max_retries requests are sent.
    unsigned max_retries = 2;
    /// Request parameters, as for generate. The extraction sets `functions`, `call_function`
    /// (tool_call) or `response_format` (json_schema) itself.
    request_params params;
    /// The function's name (tool_call) or the schema's name (json_schema); empty: "extract".
    std::string name;
    /// The function's or the schema's description; empty: the schema's own "description".
    std::string description;
    /// json_schema mode: `"strict": true` (OpenAI then holds the reply to the schema, but takes
    /// only schemas of its strict subset: every property required, additionalProperties false).
    bool strict = false;
    /// Checks a value that fits the schema; a message rejects it and is sent back to the model.
    std::function<std::optional<std::string>(const boost::json::value&)> validate;
    /// When not null, the usage of every request (the re-asks included) is added to it, also
    /// when the extraction fails.
    usage_summary* usage = nullptr;
    /// When not null, receives the violations of the last reply read (empty when it was not
    /// JSON, or fitted).
    std::vector<schema_violation>* violations = nullptr;
};

namespace detail::calls {

/// The schema as a function's parameters or a response format's schema: without the members
/// that name the document (`$schema`, `$id`), which some APIs refuse there.
inline boost::json::object schema_on_the_wire(const boost::json::value& schema) {
    boost::json::object o = schema.get_object();
    o.erase("$schema");
    o.erase("$id");
    return o;
}

/// extract_json of a request made from a prompt.
inline boost::asio::awaitable<extract_result<boost::json::value>> extract_json(chat_model& model, chat_request request,
                                                                              schema_validator schema, extract_json_options opt) {
    const std::string name = opt.name.empty() ? std::string("extract") : opt.name;
    check_function_name(name);
    const boost::json::value& document = schema.schema();
    std::string description = opt.description;
    if (description.empty() && document.is_object())
        if (const auto* d = document.get_object().if_contains("description"); d && d->is_string())
            description = std::string(d->get_string());
    std::string tool;
    request.params.functions.reset();
    request.params.call_function.reset();
    request.params.response_format.reset();
    switch (opt.mode) {
    case extract_mode::tool_call: {
        const auto* type = document.is_object() ? document.get_object().if_contains("type") : nullptr;
        if (!type || *type != "object")
            throw error(errc::invalid_argument, "extract_mode::tool_call needs a schema whose root is an object schema "
                                                "(\"type\": \"object\"): a function's parameters are an object; json_schema "
                                                "and json_text modes take any schema");
        function_definition d;
        d.name = name;
        if (!description.empty()) d.description = description;
        d.parameters = schema_on_the_wire(document);
        request.functions.push_back(std::move(d));
        request.params.functions = std::vector<std::string>{name};
        request.params.call_function = name;
        tool = name;
        break;
    }
    case extract_mode::json_schema: {
        boost::json::object spec;
        spec["name"] = name;
        if (!description.empty()) spec["description"] = description;
        spec["strict"] = opt.strict;
        spec["schema"] = document.is_object() ? boost::json::value(schema_on_the_wire(document)) : document;
        request.params.response_format = boost::json::object{{"type", "json_schema"}, {"json_schema", std::move(spec)}};
        break;
    }
    case extract_mode::json_text: request.messages.push_back(make_message(role::user, schema_instructions(document))); break;
    }
    auto read = [schema, tool, validate = opt.validate, violations = opt.violations](std::string_view answer) {
        reading<boost::json::value> r;
        if (violations) violations->clear();
        std::optional<boost::json::value> value;
        if (!tool.empty()) {
            from_json_result<boost::json::value> parsed = bot_engine::read_arguments<boost::json::value>(answer);
            if (!parsed) {
                r.problems = bot_engine::bad_arguments_text(tool, parsed.error_text());
                return r;
            }
            value = std::move(*parsed);
        } else {
            json_text_result parsed = parse_json_from_text(answer);
            if (!parsed) {
                r.problems = parsed.error().message();
                return r;
            }
            value = std::move(parsed).value();
        }
        std::vector<schema_violation> found = schema.validate(*value);
        if (!found.empty()) {
            const std::string text = violations_text(found);
            r.problems = tool.empty() ? text : bot_engine::bad_arguments_text(tool, text);
            if (violations) *violations = std::move(found);
            return r;
        }
        if (validate)
            if (std::optional<std::string> why = validate(*value)) {
                r.problems = tool.empty() ? *why : rejected_text(tool, *why);
                return r;
            }
        r.value = std::move(value);
        return r;
    };
    co_return co_await ask<boost::json::value>(model, std::move(request), tool, opt.max_retries, std::move(read), {}, text_reask,
                                               opt.usage);
}

}  // namespace detail::calls

// The options' default argument is `extract_json_options()`, not `{}` (see extract.hpp).

/// A JSON value that fits `schema` from the model's reply to `prompt` (rendered with `data`),
/// asked for as `opt.mode` says. A reply that does not fit (not JSON, a value with violations,
/// rejected by `opt.validate`) is answered with its problems (the violations one per line,
/// schema_violation::text) and the model asked again, at most `opt.max_retries` times; then the
/// result's error lists every attempt (errc::conversion). A failed call is the result's error
/// at once. Throws parley::template_error (when called) for a prompt that does not render, and
/// (when awaited) parley::error: errc::invalid_argument for an invalid name or tool_call mode
/// with a schema whose root is not an object schema, errc::schema_limit when a validation passes
/// the validator's work limits. `model` must outlive the call.
template <class Data>
boost::asio::awaitable<extract_result<boost::json::value>> extract_json(chat_model& model, std::string_view prompt, const Data& data,
                                                                       schema_validator schema,
                                                                       extract_json_options opt = extract_json_options()) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::extract_json(model, std::move(request), std::move(schema), std::move(opt));
}

/// The same with a conversation template as the prompt (its messages up to its first request
/// message, with that request's parameters).
template <class Data>
boost::asio::awaitable<extract_result<boost::json::value>> extract_json(chat_model& model, const conversation_template& prompt,
                                                                       const Data& data, schema_validator schema,
                                                                       extract_json_options opt = extract_json_options()) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::extract_json(model, std::move(request), std::move(schema), std::move(opt));
}

/// The same with a conversation as the prompt (as extract<T> takes one).
inline boost::asio::awaitable<extract_result<boost::json::value>> extract_json(chat_model& model, const std::vector<message>& conversation,
                                                                              schema_validator schema,
                                                                              extract_json_options opt = extract_json_options()) {
    chat_request request = detail::calls::prompt_request(conversation, opt.params);
    return detail::calls::extract_json(model, std::move(request), std::move(schema), std::move(opt));
}

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
