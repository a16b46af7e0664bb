// parley/bot/functions.hpp: C++ functions a model can call. A function takes a described struct
// (or nothing) and returns a value, or an awaitable of one; its definition (name, description,
// JSON schema of the parameters) comes from the schema layer, and the model's arguments are read
// with from_text, whose error list goes back to the model when they do not fit.
#ifndef PARLEY_BOT_FUNCTIONS_HPP
#define PARLEY_BOT_FUNCTIONS_HPP

#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>
#include <parley/schema/from_json.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/to_json.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// The name of the built-in function that switches templates (step 4 of the bot algorithm). Its
/// one parameter, `name`, is the template to continue with.
inline constexpr std::string_view switch_template_function = "botSwitchTemplate";

/// Thrown by a registered function to tell the model that the call could not be done ("no city
/// named Atlantis"): its what() is sent to the model as the function's result and the run goes
/// on. Any other exception fails the run.
class function_failure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// What calling a registered function with a model's arguments gave.
struct function_outcome {
    enum class kind : std::uint8_t {
        ok,  ///< `content` is the result (JSON text, or the function's string as it is)
        bad_arguments,  ///< `content` tells the model what is wrong with its arguments
        failed,  ///< the function threw function_failure; `content` is its message
    };
    kind status = kind::ok;
    std::string content;
};

/// A function of the registry: its definition as the model sees it, and how to call it with the
/// arguments' JSON text.
struct registered_function {
    function_definition definition;
    std::function<boost::asio::awaitable<function_outcome>(std::string arguments)> invoke;
};

namespace detail::bot_engine {

template <class F>
struct callable : callable<decltype(&F::operator())> {};
template <class R, class... A>
struct callable<R (*)(A...)> {
    using result = R;
    using args = std::tuple<A...>;
};
template <class R, class... A>
struct callable<R (*)(A...) noexcept> : callable<R (*)(A...)> {};
template <class R, class... A>
struct callable<R(A...)> : callable<R (*)(A...)> {};
template <class R, class... A>
struct callable<R(A...) noexcept> : callable<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable<R (C::*)(A...)> : callable<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable<R (C::*)(A...) const> : callable<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable<R (C::*)(A...) noexcept> : callable<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable<R (C::*)(A...) const noexcept> : callable<R (*)(A...)> {};

template <class T>
struct awaited {
    static constexpr bool is_awaitable = false;
    using type = T;
};
template <class T, class E>
struct awaited<boost::asio::awaitable<T, E>> {
    static constexpr bool is_awaitable = true;
    using type = T;
};

/// A function's result as the text of its function message: strings as they are, JSON values
/// serialised, other types through to_json; `void` is `null`.
template <class R>
std::string result_text(const R& r) {
    if constexpr (std::is_convertible_v<const R&, std::string_view>) return std::string(std::string_view(r));
    else if constexpr (std::is_same_v<R, boost::json::value> || std::is_same_v<R, boost::json::object> ||
                       std::is_same_v<R, boost::json::array>)
        return boost::json::serialize(r);
    else return boost::json::serialize(to_json(r));
}

/// The message for a model whose arguments to `name` do not fit.
inline std::string bad_arguments_text(std::string_view name, const std::string& problems) {
    return "Error: the arguments of " + std::string(name) + " do not fit its parameters:\n" + problems + "\nCall " +
           std::string(name) + " again with arguments that fit its parameters.";
}

/// The model's arguments as a `T`, or the message that says what is wrong with them. Empty
/// arguments (white space only) are read as `{}`.
template <class T>
from_json_result<T> read_arguments(std::string_view arguments) {
    const auto first = arguments.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return from_json<T>(boost::json::value(boost::json::object()));
    return from_text<T>(arguments);
}

template <class F>
boost::asio::awaitable<function_outcome> invoke(std::shared_ptr<F> f, std::string name, std::string arguments) {
    using traits = callable<F>;
    using result = typename traits::result;
    using value = typename awaited<result>::type;
    static_assert(std::tuple_size_v<typename traits::args> <= 1,
                  "a function registered with a bot takes one described struct (its parameters), or nothing");
    function_outcome out;
    try {
        if constexpr (std::tuple_size_v<typename traits::args> == 1) {
            using arg = std::remove_cvref_t<std::tuple_element_t<0, typename traits::args>>;
            auto parsed = read_arguments<arg>(arguments);
            if (!parsed) {
                out.status = function_outcome::kind::bad_arguments;
                out.content = bad_arguments_text(name, parsed.error_text());
                co_return out;
            }
            if constexpr (std::is_same_v<arg, boost::json::value>) {
                if (!parsed->is_object()) {
                    json_problem p;
                    p.expected = "an object";
                    p.found = boost::json::serialize(*parsed).substr(0, 80);
                    out.status = function_outcome::kind::bad_arguments;
                    out.content = bad_arguments_text(name, p.message());
                    co_return out;
                }
            }
            if constexpr (awaited<result>::is_awaitable) {
                if constexpr (std::is_void_v<value>) {
                    co_await (*f)(std::move(*parsed));
                    out.content = "null";
                } else {
                    out.content = result_text(co_await (*f)(std::move(*parsed)));
                }
            } else if constexpr (std::is_void_v<value>) {
                (*f)(std::move(*parsed));
                out.content = "null";
            } else {
                out.content = result_text((*f)(std::move(*parsed)));
            }
        } else {
            if constexpr (awaited<result>::is_awaitable) {
                if constexpr (std::is_void_v<value>) {
                    co_await (*f)();
                    out.content = "null";
                } else {
                    out.content = result_text(co_await (*f)());
                }
            } else if constexpr (std::is_void_v<value>) {
                (*f)();
                out.content = "null";
            } else {
                out.content = result_text((*f)());
            }
        }
    } catch (const function_failure& e) {
        out.status = function_outcome::kind::failed;
        out.content = std::string("Error: ") + e.what();
    }
    co_return out;
}

/// The definition of a function whose parameters are `Args` (a described struct, or nothing);
/// with `Strict`, in the strict form (strict_function_signature), marked strict.
template <class Args, bool Strict = false>
function_definition definition_of(std::string name, std::string description) {
    function_definition d;
    d.strict = Strict;
    if constexpr (std::tuple_size_v<Args> == 1) {
        using arg = std::remove_cvref_t<std::tuple_element_t<0, Args>>;
        boost::json::object signature = Strict ? strict_function_signature<arg>(name) : function_signature<arg>(name);
        if (description.empty())
            if (const auto* own = signature.if_contains("description"); own && own->is_string())
                description = std::string(own->as_string());
        d.parameters = std::move(signature.at("parameters").as_object());
    } else {
        check_function_name(name);
        d.parameters["type"] = "object";
        d.parameters["properties"] = boost::json::object();
        if (Strict) {
            d.parameters["required"] = boost::json::array();
            d.parameters["additionalProperties"] = false;
        }
    }
    d.name = std::move(name);
    d.description = std::move(description);
    return d;
}

}  // namespace detail::bot_engine

/// The C++ functions of a bot, by name, in the order they were added.
class function_registry {
public:
    /// Registers `f` as the function `name`. `f` takes a struct described with
    /// BOOST_DESCRIBE_STRUCT (the function's parameters: json_schema of it, as in
    /// function_signature) or nothing, and returns a string (sent as it is), a JSON value, any
    /// type to_json writes, or void (`null`); or an awaitable (boost::asio::awaitable<R>) of one
    /// of these. An empty `description` takes the struct's annotation. Throws parley::error
    /// (errc::invalid_argument) for a name that is invalid (^[a-zA-Z0-9_-]{1,64}$), taken, or
    /// the built-in botSwitchTemplate.
    template <class F>
    void add(std::string name, std::string description, F f) {
        add_described<false>(std::move(name), std::move(description), std::move(f));
    }

    /// Registers `f` as `add` does, with the parameters in the strict form
    /// (strict_function_signature: every member required, no other properties): the definition
    /// is strict, and the wire APIs hold the model's arguments to it (`"strict": true`). The
    /// struct must have a strict schema (no maps, no boost::json::value members).
    template <class F>
    void add_strict(std::string name, std::string description, F f) {
        using args = typename detail::bot_engine::callable<std::decay_t<F>>::args;
        if constexpr (std::tuple_size_v<args> == 1)
            static_assert(detail::strict_expressible_v<std::remove_cvref_t<std::tuple_element_t<0, args>>>,
                          "add_strict needs parameters with a strict schema (no maps, no boost::json::value members): use add");
        add_described<true>(std::move(name), std::move(description), std::move(f));
    }

    /// Registers `f` under a definition given as it is (written by hand, or read from a template
    /// set's functions), for functions whose parameters no C++ struct describes. `f` takes the
    /// arguments as a `boost::json::value` (always an object: other JSON, like text that is not
    /// JSON, is a bad call the model is told about) or nothing, and returns what `add` accepts.
    /// The arguments are not checked against `definition.parameters`: `f` throws
    /// function_failure to tell the model what is wrong. Throws parley::error
    /// (errc::invalid_argument) as `add` does, and for a strict definition whose parameters are
    /// not in the strict form.
    template <class F>
    void add(function_definition definition, F f) {
        using args = typename detail::bot_engine::callable<std::decay_t<F>>::args;
        static_assert(std::tuple_size_v<args> == 0 ||
                          std::is_same_v<std::remove_cvref_t<std::tuple_element_t<0, args>>, boost::json::value>,
                      "a function registered with its own definition takes its arguments as a boost::json::value");
        check_new(definition.name);
        if (definition.strict)
            if (const std::string problem = detail::strict_schema_problem(definition.parameters); !problem.empty())
                throw error(errc::invalid_argument,
                            "function '" + definition.name + "' is strict, but its parameters at " + problem);
        registered_function r;
        r.definition = std::move(definition);
        auto shared = std::make_shared<std::decay_t<F>>(std::move(f));
        r.invoke = [shared, name = r.definition.name](std::string arguments) {
            return detail::bot_engine::invoke(shared, name, std::move(arguments));
        };
        functions_.push_back(std::move(r));
    }

private:
    template <bool Strict, class F>
    void add_described(std::string name, std::string description, F f) {
        using args = typename detail::bot_engine::callable<std::decay_t<F>>::args;
        check_new(name);
        registered_function r;
        r.definition = detail::bot_engine::definition_of<args, Strict>(name, std::move(description));
        auto shared = std::make_shared<std::decay_t<F>>(std::move(f));
        r.invoke = [shared, name](std::string arguments) {
            return detail::bot_engine::invoke(shared, name, std::move(arguments));
        };
        functions_.push_back(std::move(r));
    }

public:
    /// The function named `name`, or null.
    const registered_function* find(std::string_view name) const noexcept {
        for (const auto& f : functions_)
            if (f.definition.name == name) return &f;
        return nullptr;
    }

    /// Every registered function, in the order added.
    const std::vector<registered_function>& functions() const noexcept { return functions_; }

    /// The names of the registered functions, in the order added.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        out.reserve(functions_.size());
        for (const auto& f : functions_) out.push_back(f.definition.name);
        return out;
    }

private:
    void check_new(const std::string& name) const {
        if (name == switch_template_function)
            throw error(errc::invalid_argument, "'" + name + "' is the bot's built-in function; choose another name");
        detail::check_function_name(name);
        if (find(name)) throw error(errc::invalid_argument, "function '" + name + "' is registered twice");
    }

    std::vector<registered_function> functions_;
};

/// The definition of botSwitchTemplate as the model sees it.
inline function_definition switch_template_definition() {
    function_definition d;
    d.name = std::string(switch_template_function);
    d.description = "Continue the conversation with another conversation template.";
    boost::json::object name;
    name["type"] = "string";
    name["description"] = "The name of the template to continue with";
    boost::json::object properties;
    properties["name"] = std::move(name);
    d.parameters["type"] = "object";
    d.parameters["properties"] = std::move(properties);
    d.parameters["required"] = boost::json::array{"name"};
    d.parameters["additionalProperties"] = false;
    return d;
}

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
