// parley/chat/builder.hpp: conversation templates and template sets written in C++, checked at
// compile time.
//
//     constexpr auto ask = parley::conversation(
//         parley::metadata{.name = "ask", .variables = {"ask"}},
//         parley::default_request{.model = "gpt-4o-mini"},
//         parley::system{"You are brief."},
//         parley::user{"# Question\n\n{{ ask }}"},
//         parley::request{.temperature = 0.2});
//     parley::rendered_request r = parley::render(ask.to_template(), data);
//
// Each message is an aggregate named after its role whose members are the keys of the YAML
// form (docs/builders.md shows them side by side); request parameters are designated
// initializers. Everything is a literal type holding std::string_view and fixed arrays, so a
// builder can be `constexpr`; then every rule of parley/chat/rules.hpp and the syntax of every
// text are checked while it is compiled, and a broken rule is a compile error that names it (see
// parley/chat/detail/builder_check.hpp). A builder that is not constexpr is checked when it is
// made and throws parley::error (or parley::template_error for a text) instead.
//
// The names system and truncate are also C library functions in the global namespace:
// write them qualified (`parley::system`), not through `using namespace parley`.
#ifndef PARLEY_CHAT_BUILDER_HPP
#define PARLEY_CHAT_BUILDER_HPP

#include <parley/chat/conversation_template.hpp>
#include <parley/chat/detail/builder_check.hpp>
#include <parley/chat/detail/builder_json.hpp>
#include <parley/chat/detail/builder_runtime.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/message_builders.hpp>
#include <parley/chat/render.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/json_schema.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace parley {

/// A conversation template made in C++: optional metadata, then messages. Made `constexpr`, it
/// is checked at compile time (a broken rule or a text that does not parse is a compile error
/// that names it); otherwise it is checked when made and throws parley::error (errc::chat_invalid)
/// for a broken rule, parley::template_error for a text that does not parse.
template <message_builder... Messages>
class conversation {
public:
    /// Messages without metadata; checks them (see the class).
    constexpr conversation(Messages... messages) : conversation(metadata{}, messages...) {}
    /// Metadata, then messages; checks them (see the class).
    constexpr conversation(metadata info, Messages... messages) : info_(info), messages_(messages...) {
        detail::check_count(info_.variables, &detail::error_builder_metadata_lists_at_most_32_variables,
                            {detail::no_message, role::system, "variables", info_.name});
        check(std::index_sequence_for<Messages...>{});
    }

    /// The name, description, version and variables.
    constexpr const metadata& info() const noexcept { return info_; }
    /// The metadata's name.
    constexpr std::string_view name() const noexcept { return info_.name; }
    /// The number of messages.
    static constexpr std::size_t size() noexcept { return sizeof...(Messages); }
    /// Message I, as written.
    template <std::size_t I>
    constexpr const auto& get() const noexcept {
        return std::get<I>(messages_);
    }
    /// The messages, as written.
    constexpr const std::tuple<Messages...>& messages() const noexcept { return messages_; }

    /// The messages as the runtime model has them (texts not rendered).
    std::vector<message> to_messages() const {
        return std::apply([](const auto&... m) { return std::vector<message>{detail::runtime_message(m)...}; },
                          messages_);
    }
    /// The metadata as the runtime model has it.
    template_info to_info() const {
        return template_info{std::string(info_.name), std::string(info_.description), std::string(info_.version),
                             std::vector<std::string>(info_.variables.begin(), info_.variables.end())};
    }
    /// The runtime template (parsed with `env`; the compile-time check used the default
    /// environment's syntax). Throws what conversation_template's constructor throws.
    conversation_template to_template(
        const jinja::environment& env = conversation_template::default_environment()) const {
        return conversation_template(to_info(), to_messages(), env);
    }
    /// to_template() with the default environment.
    explicit operator conversation_template() const { return to_template(); }

private:
    template <std::size_t... I>
    constexpr void check(std::index_sequence<I...>) const {
        (detail::check_message<I>(std::get<I>(messages_), info_.name), ...);
    }

    metadata info_;
    std::tuple<Messages...> messages_;
};

template <message_builder... Messages>
conversation(Messages...) -> conversation<Messages...>;
template <message_builder... Messages>
conversation(metadata, Messages...) -> conversation<Messages...>;

/// The definition of a function requests can name (YAML `functions: [{name, description,
/// parameters}]`); `parameters` is the JSON schema text of the arguments object.
struct function_def {
    std::string_view name = {};
    std::string_view description = {};
    std::string_view parameters = {};
    /// Set by function_def_of<T> (strict_function_def_of<T>): the schema layer's
    /// function_signature<T>() (strict_function_signature<T>()), whose parameters the runtime
    /// definition takes.
    boost::json::object (*signature)() = nullptr;
};

namespace detail {
template <class T>
boost::json::object signature_of() {
    return function_signature<T>();
}
template <class T>
boost::json::object strict_signature_of() {
    return strict_function_signature<T>();
}
template <class T>
constexpr std::string_view description_of() {
    constexpr const annotation& self = annotations_v<T>.self;
    if constexpr (self.has_description()) return self.description;
    else return {};
}
}  // namespace detail

/// The definition of the function whose parameters are the members of T (a described struct):
/// named function_name<T>, described by T's description, parameters as function_signature<T>()
/// has them. `parameters` holds json_schema_text<T>, the whole schema, for reading at compile
/// time; the runtime definition leaves out its "$schema" and its description (the function's).
template <class T>
inline constexpr function_def function_def_of{function_name<T>, detail::description_of<T>(), json_schema_text<T>,
                                              &detail::signature_of<T>};

/// The same with the parameters of strict_function_signature<T>() (OpenAI's strict form: every
/// member required, no other properties); `parameters` holds strict_json_schema_text<T>. The
/// runtime definition is strict (function_definition::strict): the wire APIs are sent
/// `"strict": true`.
template <class T>
inline constexpr function_def strict_function_def_of{function_name<T>, detail::description_of<T>(),
                                                     strict_json_schema_text<T>, &detail::strict_signature_of<T>};

namespace detail {
template <class T>
struct strict_format {
    static constexpr std::array<std::string_view, 5> parts = {
        R"({"type":"json_schema","json_schema":{"name":")", function_name<T>, R"(","strict":true,"schema":)",
        strict_json_schema_text<T>, "}}"};
    static constexpr std::size_t size = parts[0].size() + parts[1].size() + parts[2].size() + parts[3].size() +
                                        parts[4].size();
    static constexpr std::array<char, size> chars = [] {
        std::array<char, size> out{};
        std::size_t i = 0;
        for (std::string_view p : parts)
            for (char c : p) out[i++] = c;
        return out;
    }();
};
}  // namespace detail

/// `response_format` text asking for JSON that follows strict_json_schema_text<T> (OpenAI's
/// structured outputs), named function_name<T>.
template <class T>
inline constexpr std::string_view strict_response_format{detail::strict_format<T>::chars.data(),
                                                         detail::strict_format<T>::size};

/// `response_format` text asking for any JSON object.
inline constexpr std::string_view json_object_format = R"({"type":"json_object"})";

template <class T>
inline constexpr bool is_conversation_builder = false;
template <class... M>
inline constexpr bool is_conversation_builder<conversation<M...>> = true;

/// A type templates(...) accepts: a function_def or a conversation.
template <class T>
concept set_item = std::same_as<T, function_def> || is_conversation_builder<T>;

/// A template set made in C++ (YAML `templates:` and `functions:`): function definitions and
/// named conversations, in any order. Made `constexpr`, it is checked at compile time: each
/// template has a name, no name is used twice, function names are valid and defined once,
/// parameters are JSON objects.
template <set_item... Items>
class templates {
public:
    /// Checks the items (see the class).
    constexpr templates(Items... items) : items_(items...) {
        check_templates(std::index_sequence_for<Items...>{});
        check_functions(std::index_sequence_for<Items...>{});
    }

    /// The number of items (templates and functions).
    static constexpr std::size_t size() noexcept { return sizeof...(Items); }
    /// Item I (a function_def or a conversation), as written.
    template <std::size_t I>
    constexpr const auto& get() const noexcept {
        return std::get<I>(items_);
    }

    /// The first function that a request of a template names (in `functions` or as a forced
    /// `call_function`) and the set does not define; empty when there is none. Functions may
    /// also come from elsewhere (C++ functions registered with a bot), so this is not a rule:
    /// `static_assert(set.undefined_function().empty())` makes it one.
    constexpr std::string_view undefined_function() const {
        std::string_view found;
        std::apply([&](const auto&... item) { (undefined_in(item, found), ...); }, items_);
        return found;
    }

    /// The runtime template set; templates are parsed with `env`.
    template_set to_set(const jinja::environment& env = conversation_template::default_environment()) const {
        template_set set;
        std::apply(
            [&](const auto&... item) {
                auto add = [&](const auto& it) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(it)>, function_def>) {
                        function_definition f{std::string(it.name), std::string(it.description), {}};
                        if (it.signature) {
                            boost::json::object signature = it.signature();
                            f.parameters = std::move(signature["parameters"].as_object());
                            const auto* strict = signature.if_contains("strict");
                            f.strict = strict && strict->is_bool() && strict->get_bool();
                        } else {
                            boost::json::value v = boost::json::parse(it.parameters);
                            if (!v.is_object())
                                throw error(errc::chat_invalid, "the parameters of function '" + f.name +
                                                                    "' are not a JSON object");
                            f.parameters = std::move(v.as_object());
                        }
                        set.add(std::move(f));
                    } else {
                        set.add(it.to_template(env));
                    }
                };
                (add(item), ...);
            },
            items_);
        return set;
    }
    /// to_set() with the default environment.
    explicit operator template_set() const { return to_set(); }

private:
    template <class T>
    static constexpr std::string_view name_of(const T& item) {
        if constexpr (std::is_same_v<T, function_def>) return item.name;
        else return item.name();
    }
    template <class T>
    static constexpr bool is_function = std::is_same_v<T, function_def>;

    template <std::size_t... I>
    constexpr void check_templates(std::index_sequence<I...>) const {
        (check_template<I>(), ...);
    }
    template <std::size_t I>
    constexpr void check_template() const {
        using T = std::tuple_element_t<I, std::tuple<Items...>>;
        if constexpr (!is_function<T>) {
            const std::string_view name = std::get<I>(items_).name();
            detail::builder_site at{detail::no_message, role::system, name, name};
            if (name.empty()) detail::error_a_template_of_a_set_needs_a_name(at);
            std::size_t same = 0;
            std::apply([&](const auto&... item) {
                ((same += !is_function<std::decay_t<decltype(item)>> && name_of(item) == name), ...);
            }, items_);
            if (same > 1) detail::error_two_templates_of_a_set_have_the_same_name(at);
        }
    }
    template <std::size_t... I>
    constexpr void check_functions(std::index_sequence<I...>) const {
        (check_function<I>(), ...);
    }
    template <std::size_t I>
    constexpr void check_function() const {
        using T = std::tuple_element_t<I, std::tuple<Items...>>;
        if constexpr (is_function<T>) {
            const function_def& f = std::get<I>(items_);
            detail::builder_site at{detail::no_message, role::system, f.name, {}};
            detail::report(check_function_name(f.name), at);
            std::size_t same = 0;
            std::apply([&](const auto&... item) {
                ((same += is_function<std::decay_t<decltype(item)>> && name_of(item) == f.name), ...);
            }, items_);
            if (same > 1) detail::error_a_function_is_defined_twice_in_a_set(at);
            if (!f.signature && !detail::scan_json_object(f.parameters).is_object)
                detail::error_the_parameters_of_a_function_are_not_a_json_object(at);
        }
    }

    constexpr bool defines(std::string_view name) const {
        bool found = false;
        std::apply([&](const auto&... item) {
            ((found = found || (is_function<std::decay_t<decltype(item)>> && name_of(item) == name)), ...);
        }, items_);
        return found;
    }
    template <class T>
    constexpr void undefined_in(const T& item, std::string_view& found) const {
        if constexpr (!is_function<T>) {
            std::apply([&](const auto&... m) { (undefined_in_message(m, found), ...); }, item.messages());
        }
    }
    template <class M>
    constexpr void undefined_in_message(const M& m, std::string_view& found) const {
        if constexpr (std::is_same_v<M, default_request> || std::is_same_v<M, request>) {
            for (std::string_view f : m.functions)
                if (found.empty() && !defines(f)) found = f;
            if (m.call_function && found.empty() && !m.call_function->empty() && *m.call_function != "*" &&
                !defines(*m.call_function))
                found = *m.call_function;
        }
    }

    std::tuple<Items...> items_;
};

template <set_item... Items>
templates(Items...) -> templates<Items...>;

}  // namespace parley

#endif
