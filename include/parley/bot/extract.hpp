// parley/bot/extract.hpp: extract<T>, a described struct from a model's reply (a forced tool
// call, strict response_format json_schema, or JSON in text), re-asking with the list of problems
// until the reply fits; partial values while it streams; action lists read into commands. See
// docs/bot.md, "ai-style calls".
#ifndef PARLEY_BOT_EXTRACT_HPP
#define PARLEY_BOT_EXTRACT_HPP

#include <parley/bot/ask.hpp>
#include <parley/bot/functions.hpp>
#include <parley/bot/model.hpp>
#include <parley/chat/conversation_template.hpp>
#include <parley/error.hpp>
#include <parley/schema/commands.hpp>
#include <parley/schema/from_json.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/json_schema.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/partial.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// How extract<T> asks for a T.
enum class extract_mode : std::uint8_t {
    tool_call,  ///< a forced call of a function whose parameters are T (json_schema<T>())
    json_schema,  ///< `response_format: {type: json_schema, strict: true}` with strict_json_schema<T>()
    json_text,  ///< the schema in the prompt, JSON found in the reply's text (models without tools)
};


/// What receives extract<T>'s partial values while a reply streams in: a callable of
/// `(const parley::partial<T>&)` or of `(const parley::partial<T>&, unsigned attempt)`, where
/// `attempt` is 0 for the first reply and goes up by one with each re-ask (the partial values of
/// a new reply start again from what little of it has arrived).
template <class T>
class partial_handler {
public:
    /// No handler: the calls are not streamed.
    partial_handler() noexcept = default;
    /// No handler.
    partial_handler(std::nullptr_t) noexcept {}
    /// A callable of `(const parley::partial<T>&, unsigned)` or `(const parley::partial<T>&)`;
    /// an empty std::function or null function pointer is no handler.
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, partial_handler>)
    partial_handler(F f) {
        if constexpr (requires { static_cast<bool>(f); })
            if (!static_cast<bool>(f)) return;
        if constexpr (std::is_invocable_v<F&, const partial<T>&, unsigned>) {
            f_ = std::move(f);
        } else if constexpr (std::is_invocable_v<F&, const partial<T>&>) {
            f_ = [g = std::move(f)](const partial<T>& p, unsigned) mutable { g(p); };
        } else {
            static_assert(detail::conv::dependent_false<F>,
                          "extract_options<T>::on_partial takes a callable of (const parley::partial<T>&) or "
                          "(const parley::partial<T>&, unsigned attempt): the value so far is p.value(), and "
                          "p.state(&T::member) says how much of each member has arrived");
        }
    }

    /// Whether there is a handler.
    explicit operator bool() const noexcept { return static_cast<bool>(f_); }
    /// Gives the handler a partial value of the reply to request `attempt` (0 for the first).
    void operator()(const partial<T>& p, unsigned attempt) const { f_(p, attempt); }

private:
    std::function<void(const partial<T>&, unsigned)> f_;
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
    /// When set, the calls are streamed and this receives the part of a T that has arrived
    /// (parley::partial<T>: the value so far, and what has arrived of each member), each time
    /// what has arrived changes, the whole value last; for every reply, those that then do not
    /// fit included. See partial_handler.
    partial_handler<T> on_partial;
    /// When not null, the usage of every request (the re-asks included) is added to it, also
    /// when the extraction fails.
    usage_summary* usage = nullptr;
};


namespace detail::calls {

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
    co_return co_await ask<T>(model, std::move(request), {}, opt.max_retries, std::move(read), {}, commands_reask, opt.usage);
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
    piece_handler on_piece;
    if (opt.on_partial) {
        auto reader = std::make_shared<partial_reader<T>>(in_text ? partial_input::text : partial_input::json);
        auto reading_attempt = std::make_shared<unsigned>(0);
        on_piece = [reader, reading_attempt, tool_mode = !tool.empty(), on_partial = opt.on_partial](
                       std::string_view so_far, unsigned attempt, bool whole) {
            if (attempt != *reading_attempt) {  // a new reply
                reader->reset();
                *reading_attempt = attempt;
            }
            // arguments of only white space are read as {} (see bot_engine::read_arguments)
            if (whole && tool_mode && so_far.find_first_not_of(" \t\r\n") == std::string_view::npos) so_far = "{}";
            if (const parley::partial<T>* p = reader->update(so_far)) on_partial(*p, attempt);
        };
    }
    co_return co_await ask<T>(model, std::move(request), tool, opt.max_retries, std::move(read), std::move(on_piece),
                              text_reask, opt.usage);
}

/// extract of an action list or of a described struct, as T is.
template <class T>
boost::asio::awaitable<extract_result<T>> extract(chat_model& model, chat_request request, extract_options<T> opt) {
    if constexpr (command_vector<T>::value) {
        request.params.functions.reset();
        request.params.call_function.reset();
        return extract_commands<T>(model, std::move(request), std::move(opt));
    } else {
        return extract_struct<T>(model, std::move(request), std::move(opt));
    }
}

}  // namespace detail::calls

// The options' default argument is `extract_options<T>()`, not `{}`: g++ 12 destroys twice an
// argument initialised as an aggregate (`{}`, `{.max_retries = 1}`) in an expression that awaits,
// such as `co_await parley::extract<T>(...)`; a value-initialised one is destroyed once.

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
                                                  extract_options<T> opt = extract_options<T>()) {
    chat_request request = detail::calls::prompt_request(prompt, data, opt.params);
    return detail::calls::extract<T>(model, std::move(request), std::move(opt));
}

/// The same with a conversation template as the prompt.
template <class T, class Data>
boost::asio::awaitable<extract_result<T>> extract(chat_model& model, const conversation_template& prompt, const Data& data,
                                                  extract_options<T> opt = extract_options<T>()) {
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
                                                  extract_options<T> opt = extract_options<T>()) {
    chat_request request = detail::calls::prompt_request(conversation, opt.params);
    return detail::calls::extract<T>(model, std::move(request), std::move(opt));
}

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
