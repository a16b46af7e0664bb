// parley/chat/template_set.hpp: named conversation templates plus the definitions of the
// functions their requests refer to by name.
#ifndef PARLEY_CHAT_TEMPLATE_SET_HPP
#define PARLEY_CHAT_TEMPLATE_SET_HPP

#include <parley/chat/conversation_template.hpp>
#include <parley/chat/detail/strict_schema.hpp>
#include <parley/error.hpp>
#include <parley/schema/function_signature.hpp>

#include <boost/json/object.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// A function the model may call: `{name, description, parameters}` (parameters is a JSON schema).
struct function_definition {
    std::string name;
    std::string description;
    boost::json::object parameters;
    /// The parameters follow the strict form (every property required, no other properties, as
    /// strict_json_schema<T>() writes it): the model's arguments are held to the schema, and the
    /// wire APIs are sent `"strict": true`.
    bool strict = false;
    friend bool operator==(const function_definition&, const function_definition&) = default;
};

/// How a program runs a function of a set itself (YAML `command` and `timeout` of a function
/// definition; `parley run` follows it, see docs/yaml-format.md). Not part of the definition the
/// model sees.
struct function_command {
    std::string command;  ///< a shell command (`/bin/sh -c`); the arguments are its standard input
    double timeout = 0;  ///< seconds the command may take; 0: the runner's default
    friend bool operator==(const function_command&, const function_command&) = default;
};

/// Named conversation templates (in the order they were added) and function definitions.
class template_set {
public:
    /// Adds a template; throws parley::error (errc::chat_invalid) when its name is empty or taken.
    void add(conversation_template t) {
        if (t.name().empty()) throw error(errc::chat_invalid, "a template of a set needs a name");
        if (find(t.name())) throw error(errc::chat_invalid, "template '" + t.name() + "' is defined twice");
        templates_.push_back(std::move(t));
    }
    /// Adds a function definition; throws parley::error (errc::chat_invalid) when its name is
    /// invalid (^[a-zA-Z0-9_-]{1,64}$) or taken, or when it is strict and its parameters are not
    /// in the strict form (detail::strict_schema_problem).
    void add(function_definition f) {
        if (!is_valid_function_name(f.name))
            throw error(errc::chat_invalid, describe(chat_rule::bad_function_name, role::assistant, f.name));
        if (function(f.name)) throw error(errc::chat_invalid, "function '" + f.name + "' is defined twice");
        if (f.strict)
            if (const std::string problem = detail::strict_schema_problem(f.parameters); !problem.empty())
                throw error(errc::chat_invalid, "function '" + f.name + "' is strict, but its parameters at " + problem);
        functions_.push_back(std::move(f));
    }

    /// Says how function `name` of the set runs as a command; throws parley::error
    /// (errc::chat_invalid) when the set does not define `name`, when `c.command` is empty or when
    /// `c.timeout` is negative or not finite.
    void set_command(std::string_view name, function_command c) {
        if (!function(name))
            throw error(errc::chat_invalid, "a command for function '" + std::string(name) + "', which the set does not define");
        if (c.command.empty()) throw error(errc::chat_invalid, "the command of function '" + std::string(name) + "' is empty");
        if (!(c.timeout >= 0) || c.timeout > 1e9)
            throw error(errc::chat_invalid, "the timeout of function '" + std::string(name) +
                                                "' must be a number of seconds from 0 to 1e9");
        for (auto& [n, existing] : commands_)
            if (n == name) {
                existing = std::move(c);
                return;
            }
        commands_.emplace_back(std::string(name), std::move(c));
    }
    /// The command of function `name`, or null when it has none.
    const function_command* command(std::string_view name) const noexcept {
        for (const auto& [n, c] : commands_)
            if (n == name) return &c;
        return nullptr;
    }

    const std::vector<conversation_template>& templates() const noexcept { return templates_; }
    const std::vector<function_definition>& functions() const noexcept { return functions_; }

    /// The template named `name`, or null.
    const conversation_template* find(std::string_view name) const noexcept {
        for (const auto& t : templates_)
            if (t.name() == name) return &t;
        return nullptr;
    }
    /// The template named `name`; throws parley::error (errc::chat_invalid) listing the names
    /// there are when there is none.
    const conversation_template& at(std::string_view name) const {
        if (const auto* t = find(name)) return *t;
        std::string names;
        for (const auto& t : templates_) names += (names.empty() ? "" : ", ") + t.name();
        throw error(errc::chat_invalid, "no template named '" + std::string(name) + "' (the set has: " +
                                            (names.empty() ? std::string("none") : names) + ")");
    }
    /// The function definition named `name`, or null.
    const function_definition* function(std::string_view name) const noexcept {
        for (const auto& f : functions_)
            if (f.name == name) return &f;
        return nullptr;
    }

    /// The templates whose name or description contains `keyword`, ignoring ASCII case, in
    /// set order; every template for an empty keyword.
    std::vector<const conversation_template*> search(std::string_view keyword) const {
        std::vector<const conversation_template*> out;
        for (const auto& t : templates_)
            if (contains(t.name(), keyword) || contains(t.info().description, keyword)) out.push_back(&t);
        return out;
    }

    /// Throws parley::error (errc::chat_invalid) when a request of a template names a function
    /// (in `functions` or as `call_function`) that is neither defined in the set nor in `external`
    /// (functions provided from elsewhere, such as C++ functions registered with a bot).
    void check_functions(const std::vector<std::string>& external = {}) const {
        auto known = [&](const std::string& n) {
            return function(n) || std::find(external.begin(), external.end(), n) != external.end();
        };
        for (const auto& t : templates_) {
            for (std::size_t i = 0; i < t.messages().size(); ++i) {
                const request_params& p = t.messages()[i].params;
                auto fail = [&](const std::string& what) {
                    throw error(errc::chat_invalid, t.name() + ", message " + std::to_string(i) + ": " + what);
                };
                if (p.functions)
                    for (const auto& f : *p.functions)
                        if (!known(f)) fail(undefined_function("functions", f));
                if (p.call_function && !p.call_function->empty() && *p.call_function != "*" && !known(*p.call_function))
                    fail(undefined_function("call_function", *p.call_function));
            }
        }
    }

    /// The sentence check_functions reports for function `name` that request parameter `param`
    /// ("functions" or "call_function") names and nothing defines.
    static std::string undefined_function(std::string_view param, std::string_view name) {
        return "'" + std::string(param) + "' names '" + std::string(name) + "', which the set does not define";
    }

    friend bool operator==(const template_set&, const template_set&) = default;

private:
    static bool contains(std::string_view text, std::string_view keyword) {
        auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
        if (keyword.empty()) return true;
        if (keyword.size() > text.size()) return false;
        for (std::size_t i = 0; i + keyword.size() <= text.size(); ++i) {
            std::size_t k = 0;
            while (k < keyword.size() && lower(text[i + k]) == lower(keyword[k])) ++k;
            if (k == keyword.size()) return true;
        }
        return false;
    }

    std::vector<conversation_template> templates_;
    std::vector<function_definition> functions_;
    std::vector<std::pair<std::string, function_command>> commands_;  ///< by function name, in the order set
};

}  // namespace parley

#endif
