// parley/bot/calls.hpp: one-shot calls of a chat_model, without a template set: `generate` (a
// prompt's reply as text), `extract<T>` (a described struct, re-asking the model with the list
// of problems until its reply fits), `classify` (one of a list of labels). A prompt is a string
// rendered as a template with the data (one user message), or a conversation template. See
// docs/bot.md, "ai-style calls".
#ifndef PARLEY_BOT_CALLS_HPP
#define PARLEY_BOT_CALLS_HPP

#include <parley/bot/functions.hpp>
#include <parley/bot/model.hpp>
#include <parley/chat/conversation_template.hpp>
#include <parley/chat/render.hpp>
#include <parley/error.hpp>
#include <parley/schema/commands.hpp>
#include <parley/schema/from_json.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/json_schema.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/partial_json.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

// g++ 12 reports a false -Wmismatched-new-delete where it inlines the allocation and the release
// of an Asio coroutine frame, which both go through Asio's aligned allocator.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace parley {

/// How extract<T> asks for a T.
enum class extract_mode : std::uint8_t {
    tool_call,  ///< a forced call of a function whose parameters are T (json_schema<T>())
    json_schema,  ///< `response_format: {type: json_schema, strict: true}` with strict_json_schema<T>()
    json_text,  ///< the schema in the prompt, JSON found in the reply's text (models without tools)
};

/// One reply that did not give a value: what the model sent and what was wrong with it.
struct extraction_attempt {
    std::string reply;  ///< the call's arguments (tool_call mode) or the reply's text
    std::string problems;  ///< the problems, one per line, as sent back to the model
    friend bool operator==(const extraction_attempt&, const extraction_attempt&) = default;
};

/// Why extract<T> or classify gave no value: every attempt's problems, or the call that failed.
struct extraction_failure {
    /// errc::conversion when no reply fitted; the call's code when a call failed;
    /// errc::protocol for a reply without choices.
    std::error_code code;
    std::vector<extraction_attempt> attempts;  ///< the replies that did not fit, oldest first
    std::optional<call_error> call;  ///< the call that failed, if one did

    /// Every attempt, numbered, with its problems; or the failed call's what().
    std::string what() const {
        std::string s;
        if (call) s = "the call failed: " + call->what();
        else if (!attempts.empty())
            s = "no reply fitted in " + std::to_string(attempts.size()) + (attempts.size() == 1 ? " attempt" : " attempts");
        else s = code.message();
        for (std::size_t i = 0; i < attempts.size(); ++i)
            s += "\nattempt " + std::to_string(i + 1) + ": " + attempts[i].problems;
        return s;
    }
};

/// The exception `result<T, extraction_failure>::value()` throws: a parley::error with the
/// failure's code and message, and the whole failure.
class extraction_exception : public error {
public:
    explicit extraction_exception(extraction_failure f) : error(f.code, f.what()), detail_(std::move(f)) {}
    const extraction_failure& detail() const noexcept { return detail_; }

private:
    extraction_failure detail_;
};

/// Found by ADL from boost::system::result<T, extraction_failure>::value().
[[noreturn]] inline void throw_exception_from_error(const extraction_failure& f, const auto& /*location*/) {
    throw extraction_exception(f);
}

/// A value of an extraction, or why there is none.
template <class T>
using extract_result = boost::system::result<T, extraction_failure>;

/// Options of generate.
struct generate_options {
    /// Request parameters (model, temperature, ...). For a conversation template they apply when
    /// the template has no default-request; its request message overrides them.
    request_params params;
    /// When set, the call is streamed and the text arrives here as it comes.
    std::function<void(std::string_view)> on_text;
};

/// Options of extract<T>.
template <class T>
struct extract_options {
    extract_mode mode = extract_mode::tool_call;
    /// Re-asks after the first reply: at most 1 + max_retries requests are sent.
    unsigned max_retries = 2;
    /// Request parameters, as for generate. The extraction sets `functions`, `call_function`
    /// (tool_call) or `response_format` (json_schema) itself.
    request_params params;
    /// The function's name (tool_call) or the schema's name (json_schema); empty: function_name<T>.
    std::string name;
    /// The function's description; empty: T's annotated description.
    std::string description;
    /// Checks a value that fits the schema; a message rejects it and is sent back to the model.
    std::function<std::optional<std::string>(const T&)> validate;
    /// When set, the calls are streamed and this receives the part of a T that has arrived, each
    /// time it grows (of every attempt, the replies that do not fit included).
    std::function<void(const T&)> on_partial;
};

/// How classify asks.
enum class classify_mode : std::uint8_t {
    tool_call,  ///< a forced call of `classify` with one parameter `choice`, an enum of the choices
    logit_bias,  ///< numbered choices, `max_tokens: 1` and `logit_bias` on the numbers' token ids
};

/// Options of classify.
struct classify_options {
    classify_mode mode = classify_mode::tool_call;
    unsigned max_retries = 2;  ///< as for extract
    request_params params;  ///< as for generate
    /// The first line of the prompt, as it is (not a template); the choices and the text follow.
    std::string instructions = "Classify the text below. Answer with one of the choices.";
    /// logit_bias mode: the token ids (decimal) of "1", "2", ... in the model's tokenizer, one per
    /// choice (at most 9 choices).
    std::vector<std::string> label_token_ids;
};

namespace detail::calls {

/// The request a prompt string gives: one user message, rendered with `data`.
template <class Data>
chat_request prompt_request(std::string_view prompt, const Data& data, const request_params& params) {
    const conversation_template t("prompt", {make_message(role::user, std::string(prompt))});
    rendered_request r = render(t, data, {}, render_options{params, 0});
    return chat_request{std::move(r.params), std::move(r.messages), {}};
}

/// The request a conversation template gives (read up to its first request message).
template <class Data>
chat_request prompt_request(const conversation_template& t, const Data& data, const request_params& params) {
    rendered_request r = render(t, data, {}, render_options{params, 0});
    return chat_request{std::move(r.params), std::move(r.messages), {}};
}

/// The request a conversation gives: its system, user, assistant, function and tool messages
/// after its last truncate, with the parameters of its nearest default-request (`params` when it
/// has none).
inline chat_request prompt_request(const std::vector<message>& conversation, const request_params& params) {
    static const conversation_template none("conversation", {});
    rendered_request r = render(none, boost::json::value(), conversation, render_options{params, 0});
    return chat_request{std::move(r.params), std::move(r.messages), {}};
}

/// What one attempt read: a value, or the problems to send back.
template <class R>
struct reading {
    std::optional<R> value;
    std::string problems;
};

/// The piece of a stream event that belongs to the answer being read: the text (text modes) or
/// the arguments of the first tool call (tool mode).
inline bool answer_piece(const stream_event& e, bool tool_mode, std::string& into) {
    if (e.choice != 0) return false;
    if (tool_mode) {
        if (e.type != stream_event::kind::tool_call || e.tool_index != 0 || e.text.empty()) return false;
    } else if (e.type != stream_event::kind::text) {
        return false;
    }
    into += e.text;
    return true;
}

/// The text of a user message that re-asks in the text modes.
inline std::string text_reask(const std::string& problems) {
    return "Your reply does not fit the requested JSON:\n" + problems + "\nReply again with JSON that fits.";
}

/// The text of a tool message that answers a call whose value was read but rejected.
inline std::string rejected_text(std::string_view name, const std::string& problems) {
    return "Error: the arguments of " + std::string(name) + " were rejected:\n" + problems + "\nCall " +
           std::string(name) + " again with arguments that fit.";
}

/// The retry loop. `read` turns an answer's text (arguments or content) into a value or problems;
/// `tool` is the forced function's name in tool mode (empty in the text modes); `on_piece` (may
/// be empty) receives the answer's text so far while it streams; `reask` writes the user message
/// that sends the problems back in the text modes.
template <class R>
boost::asio::awaitable<boost::system::result<R, extraction_failure>> ask(
    chat_model& model, chat_request request, std::string tool, unsigned max_retries,
    std::function<reading<R>(std::string_view answer)> read, std::function<void(std::string_view so_far)> on_piece,
    std::string (*reask)(const std::string& problems)) {
    extraction_failure failure;
    for (unsigned attempt = 0; attempt <= max_retries; ++attempt) {
        std::string so_far;
        stream_handler handler;
        if (on_piece)
            handler = [&](const stream_event& e) {
                if (answer_piece(e, !tool.empty(), so_far)) on_piece(so_far);
            };
        auto reply = co_await model.chat(request, on_piece ? &handler : nullptr);
        if (!reply) {
            failure.code = reply.error().code;
            failure.call = reply.error();
            co_return failure;
        }
        if (reply->choices.empty()) {
            failure.code = make_error_code(errc::protocol);
            co_return failure;
        }
        message answer = std::move(reply->choices.front().message);
        const std::optional<std::string>& refusal = reply->choices.front().refusal;
        std::string shown;
        reading<R> r;
        if (refusal) {
            r.problems = "the model refused: " + *refusal;
            shown = *refusal;
        } else if (!tool.empty()) {
            if (answer.tool_calls.empty() && answer.function_call) {
                // the legacy form of a call (a client with legacy_functions)
                shown = answer.function_call->arguments;
                if (answer.function_call->name == tool) r = read(shown);
                else
                    r.problems = "expected a call of " + tool + ", found a call of \"" +
                                 answer.function_call->name.substr(0, 80) + "\"";
            } else if (answer.tool_calls.empty()) {
                shown = answer.has_text() ? answer.text() : std::string();
                r.problems = "expected a call of " + tool + ", found " +
                             (shown.empty() ? std::string("no call") : "the text \"" + shown.substr(0, 200) + "\"");
            } else if (answer.tool_calls.front().function.name != tool) {
                shown = answer.tool_calls.front().function.arguments;
                r.problems = "expected a call of " + tool + ", found a call of \"" +
                             answer.tool_calls.front().function.name.substr(0, 80) + "\"";
            } else {
                shown = answer.tool_calls.front().function.arguments;
                r = read(shown);
            }
        } else {
            shown = answer.has_text() ? answer.text() : std::string();
            r = read(shown);
        }
        if (r.value) co_return std::move(*r.value);
        failure.attempts.push_back({shown, r.problems});
        if (attempt == max_retries) break;
        // re-ask: the reply, then what was wrong with it
        const std::vector<tool_call> calls = answer.tool_calls;
        const bool legacy_call = calls.empty() && answer.function_call.has_value();
        request.messages.push_back(std::move(answer));
        if (!tool.empty() && legacy_call) {
            message m = make_message(role::function, r.problems);
            m.name = request.messages.back().function_call->name;
            request.messages.push_back(std::move(m));
        } else if (!tool.empty() && !calls.empty()) {
            for (std::size_t i = 0; i < calls.size(); ++i) {
                message m = make_message(role::tool, i == 0 ? r.problems : "Error: only the first call is read.");
                m.tool_call_id = calls[i].id;
                request.messages.push_back(std::move(m));
            }
        } else {
            request.messages.push_back(make_message(role::user, tool.empty() ? reask(r.problems) : r.problems));
        }
    }
    failure.code = make_error_code(errc::conversion);
    co_return failure;
}

/// The user message of json_text mode: the schema the reply's JSON must follow.
inline std::string schema_instructions(const boost::json::value& schema) {
    return "Reply with one JSON value that follows this JSON Schema, in a ```json code block:\n" +
           boost::json::serialize(schema);
}

/// Whether T is a list of commands (std::vector<std::variant<Cs...>>), read from an action list.
template <class T>
struct command_vector : std::false_type {};
template <class... Cs>
struct command_vector<std::vector<std::variant<Cs...>>> : std::true_type {
    static command_list<Cs...> parse(std::string_view text) { return parse_commands<Cs...>(text); }
};

/// The text of a user message that re-asks for an action list.
inline std::string commands_reask(const std::string& problems) {
    return "Your list of commands does not fit:\n" + problems +
           "\nReply again with the whole list of commands, one per line.";
}

/// extract of an action list: the reply's text read with parse_commands.
template <class T>
boost::asio::awaitable<extract_result<T>> extract_commands(chat_model& model, chat_request request, extract_options<T> opt) {
    auto validate = opt.validate;
    auto read = [validate](std::string_view answer) {
        reading<T> r;
        auto list = command_vector<T>::parse(answer);
        if (!list) {
            r.problems = list.error_text();
            return r;
        }
        if (validate)
            if (std::optional<std::string> why = validate(list.commands)) {
                r.problems = *why;
                return r;
            }
        r.value = std::move(list.commands);
        return r;
    };
    co_return co_await ask<T>(model, std::move(request), {}, opt.max_retries, std::move(read), {}, commands_reask);
}

/// extract of a described struct, in one of the three modes.
template <class T>
boost::asio::awaitable<extract_result<T>> extract_struct(chat_model& model, chat_request request, extract_options<T> opt) {
    static_assert(detail::json_kind_v<T> == detail::json_kind::object,
                  "extract<T> takes a struct described with BOOST_DESCRIBE_STRUCT");
    std::string name = opt.name.empty() ? std::string(function_name<T>) : opt.name;
    check_function_name(name);
    std::string tool;
    // the extraction owns these (a conversation's default-request may set them)
    request.params.functions.reset();
    request.params.call_function.reset();
    request.params.response_format.reset();
    switch (opt.mode) {
    case extract_mode::tool_call: {
        boost::json::object signature = function_signature<T>(name);
        function_definition d;
        d.name = name;
        if (!opt.description.empty()) d.description = opt.description;
        else if (const auto* own = signature.if_contains("description"); own && own->is_string())
            d.description = std::string(own->as_string());
        d.parameters = std::move(signature.at("parameters").as_object());
        request.functions.push_back(std::move(d));
        request.params.functions = std::vector<std::string>{name};
        request.params.call_function = name;
        tool = name;
        break;
    }
    case extract_mode::json_schema: {
        if constexpr (detail::strict_expressible_v<T>) {
            boost::json::object format;
            format["type"] = "json_schema";
            boost::json::object spec;
            spec["name"] = name;
            if (!opt.description.empty()) spec["description"] = opt.description;
            spec["strict"] = true;
            spec["schema"] = strict_json_schema<T>();
            format["json_schema"] = std::move(spec);
            request.params.response_format = std::move(format);
        } else {
            throw error(errc::invalid_argument,
                        "extract_mode::json_schema needs a type with a strict schema (no maps, no boost::json::value)");
        }
        break;
    }
    case extract_mode::json_text: request.messages.push_back(make_message(role::user, schema_instructions(json_schema<T>()))); break;
    }
    const bool in_text = opt.mode == extract_mode::json_text;
    auto validate = opt.validate;
    auto read = [validate, tool](std::string_view answer) {
        reading<T> r;
        from_json_result<T> parsed = tool.empty() ? from_text<T>(answer) : bot_engine::read_arguments<T>(answer);
        if (!parsed) {
            r.problems = tool.empty() ? parsed.error_text() : bot_engine::bad_arguments_text(tool, parsed.error_text());
            return r;
        }
        if (validate)
            if (std::optional<std::string> why = validate(*parsed)) {
                r.problems = tool.empty() ? *why : rejected_text(tool, *why);
                return r;
            }
        r.value = std::move(*parsed);
        return r;
    };
    std::function<void(std::string_view)> on_piece;
    if (opt.on_partial) {
        auto last = std::make_shared<std::optional<boost::json::value>>();
        on_piece = [in_text, last, on_partial = opt.on_partial](std::string_view so_far) {
            json_text_result json = in_text ? parse_partial_json_from_text(so_far) : parse_partial_json(so_far);
            if (!json || json.length() == 0 || !json.value().is_object()) return;
            if (*last && **last == json.value()) return;
            *last = json.value();
            from_json_options partial;
            partial.partial = true;
            from_json_result<T> value = from_json<T>(json.value(), partial);
            if (value) on_partial(*value);
        };
    }
    co_return co_await ask<T>(model, std::move(request), tool, opt.max_retries, std::move(read), std::move(on_piece),
                              text_reask);
}

template <class T>
boost::asio::awaitable<extract_result<T>> extract(chat_model& model, chat_request request, extract_options<T> opt) {
    if constexpr (command_vector<T>::value) {
        request.params.functions.reset();
        request.params.call_function.reset();
        return extract_commands<T>(model, std::move(request), std::move(opt));
    }
    else return extract_struct<T>(model, std::move(request), std::move(opt));
}

inline std::string choice_list(const std::vector<std::string>& choices, bool numbered) {
    std::string s;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        s += numbered ? "\n" + std::to_string(i + 1) + ". " : std::string("\n- ");
        s += choices[i];
    }
    return s;
}

inline boost::asio::awaitable<extract_result<std::string>> classify(chat_model& model, std::string text,
                                                                    std::vector<std::string> choices,
                                                                    classify_options opt) {
    if (choices.empty()) throw error(errc::invalid_argument, "classify needs at least one choice");
    const bool by_bias = opt.mode == classify_mode::logit_bias;
    if (by_bias && (choices.size() > 9 || opt.label_token_ids.size() != choices.size()))
        throw error(errc::invalid_argument, "classify_mode::logit_bias takes at most 9 choices and one token id per choice (" +
                                                std::to_string(choices.size()) + " choices, " +
                                                std::to_string(opt.label_token_ids.size()) + " token ids)");
    chat_request request;
    request.params = opt.params;
    std::string prompt = opt.instructions + "\n\nChoices:" + choice_list(choices, by_bias);
    if (by_bias) prompt += "\n\nAnswer with the number of the choice only.";
    prompt += "\n\nText:\n" + text;
    request.messages.push_back(make_message(role::user, std::move(prompt)));
    std::string tool;
    if (by_bias) {
        std::vector<std::pair<std::string, std::int64_t>> bias;
        for (const std::string& id : opt.label_token_ids) bias.emplace_back(id, 100);
        request.params.logit_bias = std::move(bias);
        request.params.max_tokens = 1;
    } else {
        tool = "classify";
        function_definition d;
        d.name = tool;
        d.description = "Gives the text's class: one of the choices.";
        boost::json::array labels;
        for (const auto& c : choices) labels.emplace_back(c);
        d.parameters = boost::json::object{
            {"type", "object"},
            {"properties", {{"choice", {{"type", "string"}, {"enum", std::move(labels)}}}}},
            {"required", boost::json::array{"choice"}},
            {"additionalProperties", false}};
        request.functions.push_back(std::move(d));
        request.params.functions = std::vector<std::string>{tool};
        request.params.call_function = tool;
    }
    auto read = [by_bias, choices, tool](std::string_view answer) {
        reading<std::string> r;
        std::string found;
        if (by_bias) {
            const auto b = answer.find_first_not_of(" \t\r\n.");
            const auto e = answer.find_last_not_of(" \t\r\n.");
            found = b == std::string_view::npos ? std::string() : std::string(answer.substr(b, e - b + 1));
            for (std::size_t i = 0; i < choices.size(); ++i)
                if (found == std::to_string(i + 1) || found == choices[i]) {
                    r.value = choices[i];
                    return r;
                }
        } else {
            json_text_result json = parse_json_from_text(answer);
            const boost::json::value* choice = nullptr;
            if (json && json.value().is_object()) choice = json.value().as_object().if_contains("choice");
            if (choice && choice->is_string()) {
                found = std::string(choice->as_string());
                for (const auto& c : choices)
                    if (c == found) {
                        r.value = c;
                        return r;
                    }
            } else {
                r.problems = bot_engine::bad_arguments_text(
                    tool, "/choice: expected one of the choices, found " +
                              (json ? boost::json::serialize(json.value()).substr(0, 200) : std::string("no JSON")));
                return r;
            }
        }
        std::string list;
        for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
        r.problems = "expected one of " + list + ", found \"" + found.substr(0, 200) + "\"";
        if (!tool.empty()) r.problems = bot_engine::bad_arguments_text(tool, "/choice: " + r.problems);
        return r;
    };
    co_return co_await ask<std::string>(model, std::move(request), tool, opt.max_retries, std::move(read), {}, text_reask);
}

inline boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(chat_model& model,
                                                                                        chat_request request,
                                                                                        std::function<void(std::string_view)> on_text) {
    stream_handler handler;
    if (on_text)
        handler = [&](const stream_event& e) {
            if (e.choice == 0 && e.type == stream_event::kind::text) on_text(e.text);
        };
    auto reply = co_await model.chat(std::move(request), on_text ? &handler : nullptr);
    if (!reply) co_return reply.error();
    if (reply->choices.empty()) {
        call_error e;
        e.code = make_error_code(errc::protocol);
        e.message = "the reply has no choices";
        e.attempts = 1;
        co_return e;
    }
    const message& m = reply->choices.front().message;
    co_return m.has_text() ? m.text() : std::string();
}

}  // namespace detail::calls

/// The text of the model's reply to `prompt` (a template rendered with `data`, sent as one user
/// message). Throws parley::template_error (when it is called, before any request) for a prompt
/// that does not render; a call that fails is the result's error (a reply without choices:
/// errc::protocol). `model` must outlive the call.
template <class Data>
boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(chat_model& model, std::string_view prompt,
                                                                                 const Data& data, generate_options opt = {}) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::generate(model, std::move(request), std::move(opt.on_text));
}

/// The same with a conversation template, read up to its first request message and rendered with
/// `data` (its default-request and request parameters apply).
template <class Data>
boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(chat_model& model,
                                                                                 const conversation_template& prompt,
                                                                                 const Data& data, generate_options opt = {}) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::generate(model, std::move(request), std::move(opt.on_text));
}

/// The same with a conversation as the prompt, sent as extract sends one (below).
inline boost::asio::awaitable<boost::system::result<std::string, call_error>> generate(
    chat_model& model, const std::vector<message>& conversation, generate_options opt = {}) {
    chat_request request = detail::calls::prompt_request(conversation, opt.params);
    return detail::calls::generate(model, std::move(request), std::move(opt.on_text));
}

/// A T (a described struct) from the model's reply to `prompt` (rendered with `data`), asked for
/// as `opt.mode` says. A reply that does not fit (not JSON, not a T, rejected by
/// `opt.validate`) is answered with its problems and the model asked again, at most
/// `opt.max_retries` times; then the result's error lists every attempt (errc::conversion). A
/// failed call is the result's error at once. For T = std::vector<std::variant<Cs...>> of
/// command types (see parse_commands), the reply's text is read as an action list, and the
/// problems of the calls that could not be read (or the validator's message) are sent back in a
/// user message; `mode`, `name`, `description` and `on_partial` do not apply. Throws
/// parley::template_error (when called) for a prompt that does not render, and (when awaited)
/// parley::error (errc::invalid_argument) for an invalid name or json_schema mode with a type
/// that has no strict schema. `model` must outlive the call.
template <class T, class Data>
boost::asio::awaitable<extract_result<T>> extract(chat_model& model, std::string_view prompt, const Data& data,
                                                  extract_options<T> opt = {}) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::extract<T>(model, std::move(request), std::move(opt));
}

/// The same with a conversation template as the prompt.
template <class T, class Data>
boost::asio::awaitable<extract_result<T>> extract(chat_model& model, const conversation_template& prompt, const Data& data,
                                                  extract_options<T> opt = {}) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::extract<T>(model, std::move(request), std::move(opt));
}

/// The same with a conversation as the prompt (the history a bot run returned, with a last
/// user message that asks for the T, for instance): its system, user, assistant, function and
/// tool messages after its last truncate are sent, with the parameters of its nearest
/// default-request (`opt.params` when it has none); the extraction sets `functions`,
/// `call_function` and `response_format` itself.
template <class T>
boost::asio::awaitable<extract_result<T>> extract(chat_model& model, const std::vector<message>& conversation,
                                                  extract_options<T> opt = {}) {
    chat_request request = detail::calls::prompt_request(conversation, opt.params);
    return detail::calls::extract<T>(model, std::move(request), std::move(opt));
}

/// Which of `choices` `text` belongs to, asked for as `opt.mode` says, with retries as for
/// extract. Throws parley::error (errc::invalid_argument) for no choices, or logit_bias mode
/// with more than 9 choices or not one token id per choice. `model` must outlive the call.
inline boost::asio::awaitable<extract_result<std::string>> classify(chat_model& model, std::string text,
                                                                    std::vector<std::string> choices,
                                                                    classify_options opt = {}) {
    return detail::calls::classify(model, std::move(text), std::move(choices), std::move(opt));
}

}  // namespace parley

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif
