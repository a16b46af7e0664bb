// parley/schema/commands.hpp: parse_commands, action lists (`StartFlow(transfer_money)`, one
// action per line) read into typed commands.
// See docs/extraction.md, "Action lists: `parse_commands`".
#ifndef PARLEY_SCHEMA_COMMANDS_HPP
#define PARLEY_SCHEMA_COMMANDS_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/command_line.hpp>
#include <parley/schema/detail/json_reader.hpp>
#include <parley/schema/from_json_result.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/traits.hpp>

#include <boost/describe/members.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace parley {

/// Limits for reading action lists from outside.
struct command_options {
    std::size_t max_size = std::size_t{1} << 20;  ///< longest text read, in bytes
    std::size_t max_commands = 1000;  ///< most commands read; further calls are one problem
};

/// Something in an action list that did not become a command, or that was skipped.
struct command_problem {
    std::size_t line = 0;  ///< 1-based line of the text; 0 for the whole text (longer than max_size)
    std::string source;  ///< the call or text as written
    std::string message;  ///< what is wrong, e.g. `unknown command "Foo" (the commands are ...)`

    /// `line 3: Foo(x): unknown command "Foo" (the commands are StartFlow, SetSlot)`; without
    /// `line N: ` for the whole text.
    std::string text() const {
        std::string s = line == 0 ? std::string() : "line " + std::to_string(line) + ": ";
        if (!source.empty()) s += std::string(source) + ": ";
        return s + message;
    }

    /// Equal when line, source and message are.
    friend bool operator==(const command_problem&, const command_problem&) = default;
};

/// The commands read from an action list, and what went wrong. Truthy when nothing did.
template <class... Cs>
struct command_list {
    std::vector<std::variant<Cs...>> commands;  ///< in the order written
    std::vector<command_problem> problems;  ///< calls that could not be read
    std::vector<command_problem> ignored;  ///< lines and text that are not calls (prose, fences)

    /// True when every call was read.
    explicit operator bool() const noexcept { return problems.empty(); }
    /// Every problem, one per line (its text()), ready to be sent back to the model.
    std::string error_text() const {
        std::string s;
        for (const command_problem& p : problems) {
            if (!s.empty()) s += '\n';
            s += p.text();
        }
        return s;
    }
};

namespace detail::commands {

template <class T>
inline constexpr bool is_scalar_argument =
    json_kind_v<T> == json_kind::boolean || json_kind_v<T> == json_kind::integer ||
    json_kind_v<T> == json_kind::number || (json_kind_v<T> == json_kind::string && std::is_same_v<T, std::string>) ||
    json_kind_v<T> == json_kind::enumeration;

template <class T>
constexpr bool is_single_argument() {
    if constexpr (is_optional_v<T>)
        return is_scalar_argument<typename optional_traits<T>::value_type>;
    else
        return is_scalar_argument<T>;
}

template <class T>
constexpr bool is_rest_argument() {
    if constexpr ((is_sequence_v<T> || is_set_v<T>) && !is_std_array_v<T>)
        return is_scalar_argument<array_item_t<T>>;
    else
        return false;
}

/// Whether C's members make a command: single arguments, and a list only as the last.
template <class C>
constexpr bool valid_command() {
    if constexpr (json_kind_v<C> != json_kind::object) {
        return false;
    } else {
        using types = member_types_t<C>;
        constexpr std::size_t n = boost::mp11::mp_size<types>::value;
        bool ok = true;
        std::size_t i = 0;
        boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, types>>([&](auto t) {
            using M = typename decltype(t)::type;
            bool last = i + 1 == n;
            if (!(is_single_argument<M>() || (last && is_rest_argument<M>()))) ok = false;
            ++i;
        });
        return ok;
    }
}

template <class... Cs>
constexpr bool distinct_names() {
    const std::string_view names[] = {function_name<Cs>...};
    for (std::size_t i = 0; i < sizeof...(Cs); ++i)
        for (std::size_t j = i + 1; j < sizeof...(Cs); ++j)
            if (names[i] == names[j]) return false;
    return true;
}

/// The JSON value an argument stands for, given the C++ type it fills.
template <class T>
boost::json::value argument_value(const argument& a) {
    constexpr json_kind kind = json_kind_v<T>;
    const std::string& s = a.text;
    if constexpr (kind == json_kind::integer || kind == json_kind::number) {
        const char* end = s.data() + s.size();
        std::int64_t i = 0;
        if (auto r = std::from_chars(s.data(), end, i); r.ec == std::errc() && r.ptr == end) return i;
        std::uint64_t u = 0;
        if (auto r = std::from_chars(s.data(), end, u); r.ec == std::errc() && r.ptr == end) return u;
        double d = 0;
        if (auto r = std::from_chars(s.data(), end, d); r.ec == std::errc() && r.ptr == end) return d;
    } else if constexpr (kind == json_kind::boolean) {
        if (s == "true" || s == "True") return true;
        if (s == "false" || s == "False") return false;
    }
    return boost::json::string(s);
}

inline std::string describe_parameters(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return s;
}

/// Fills `out` from the call's arguments; on failure `why` says what is wrong.
template <class C>
bool bind(const call& c, C& out, std::string& why) {
    using types = member_types_t<C>;
    constexpr std::size_t n = boost::mp11::mp_size<types>::value;
    std::size_t required = 0;
    bool takes_rest = false;
    std::vector<std::string> names;
    boost::mp11::mp_for_each<described_members<C>>([&](auto D) {
        using M = member_type_t<C, decltype(D)>;
        if constexpr (is_rest_argument<M>()) {
            takes_rest = true;
            names.push_back(std::string(D.name) + "...");
        } else if constexpr (is_optional_v<M>) {
            names.push_back("[" + std::string(D.name) + "]");
        } else {
            required = names.size() + 1;
            names.push_back(D.name);
        }
    });
    const std::size_t given = c.arguments.size();
    if (given < required || (!takes_rest && given > n)) {
        std::string count;
        if (takes_rest)
            count = "at least " + std::to_string(required);
        else if (required == n)
            count = std::to_string(n);
        else
            count = std::to_string(required) + " to " + std::to_string(n);
        why = std::string(function_name<C>) + " takes " + count + ((takes_rest ? required : n) == 1 ? " argument" : " arguments");
        if (n != 0) why += " (" + describe_parameters(names) + ")";
        why += ", found " + std::to_string(given);
        return false;
    }
    from_json_options options;
    std::size_t steps = 0;
    std::size_t index = 0;
    bool ok = true;
    auto report = [&](const std::string& label, const conv::reader& r) {
        ok = false;
        if (!why.empty()) why += "; ";
        why += label + ": expected " + r.errors.front().expected + ", found " + r.errors.front().found;
    };
    // Reads one argument into target, then checks the bounds of `note` (the member's
    // annotation, or nullptr) on it.
    auto read_one = [&](const argument& a, auto& target, const std::string& label, const annotation* note) {
        using T = std::remove_cvref_t<decltype(target)>;
        conv::reader r{options, steps, {}, {}, {}, 0, 0, false, true, false, {}};
        boost::json::value v;
        if constexpr (is_optional_v<T>) {
            if (!a.quoted && (a.text == "None" || a.text == "null")) v = nullptr;
            else v = argument_value<typename optional_traits<T>::value_type>(a);
        } else {
            v = argument_value<T>(a);
        }
        if (conv::read(v, target, r) && (note == nullptr || conv::check_annotation(target, *note, r))) return;
        report(label, r);
    };
    boost::mp11::mp_for_each<described_members<C>>([&](auto D) {
        using M = member_type_t<C, decltype(D)>;
        constexpr const annotation* note = annotations_v<C>.find(decltype(D)::name);
        auto& member = out.*D.pointer;
        if constexpr (is_rest_argument<M>()) {
            for (; index < given; ++index) {
                array_item_t<M> item{};
                read_one(c.arguments[index], item,
                         "argument " + std::to_string(index + 1) + " (" + std::string(D.name) + ")", nullptr);
                if constexpr (is_sequence_v<M>)
                    member.push_back(std::move(item));
                else
                    member.insert(std::move(item));
            }
            if constexpr (note != nullptr) {  // min_items, max_items
                conv::reader r{options, steps, {}, {}, {}, 0, 0, false, true, false, {}};
                if (!conv::check_annotation(member, *note, r)) report("arguments (" + std::string(D.name) + "...)", r);
            }
        } else if (index < given) {
            read_one(c.arguments[index], member,
                     "argument " + std::to_string(index + 1) + " (" + std::string(D.name) + ")", note);
            ++index;
        }
    });
    return ok;
}

template <class V, class C>
bool try_command(const call& c, std::vector<V>& out, std::string& why, bool& known) {
    if (known || c.name != function_name<C>) return false;
    known = true;
    C command{};
    if (!bind(c, command, why)) return false;
    out.emplace_back(std::in_place_type<C>, std::move(command));
    return true;
}

inline bool same_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
    return true;
}

/// parse_commands without its compile-time checks.
template <class... Cs>
command_list<Cs...> parse(std::string_view text, const command_options& options) {
    namespace d = detail::commands;
    using V = std::variant<Cs...>;
    command_list<Cs...> result;
    if (text.size() > options.max_size) {
        result.problems.push_back({0, {}, "the text is " + std::to_string(text.size()) + " bytes long, more than the " +
                                              std::to_string(options.max_size) + " bytes read"});
        return result;
    }
    const std::string_view names[] = {function_name<Cs>...};
    auto is_bare = [&](std::string_view name) {
        for (std::string_view n : names)
            if (n == name) return true;
        return false;
    };
    std::size_t line_no = 0;
    std::size_t calls = 0;
    for (std::size_t pos = 0; pos <= text.size();) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        ++line_no;
        std::string_view rest;
        std::vector<d::call> found = d::split_line(line, is_bare, rest);
        if (found.empty()) {
            std::string_view shown = d::trim(line);
            if (!shown.empty()) result.ignored.push_back({line_no, std::string(shown), "not an action"});
            continue;
        }
        for (const d::call& c : found) {
            if (++calls > options.max_commands) {
                result.problems.push_back(
                    {line_no, std::string(c.source), "more than " + std::to_string(options.max_commands) + " commands"});
                return result;
            }
            if (!c.error.empty()) {
                result.problems.push_back({line_no, std::string(c.source), c.error});
                continue;
            }
            std::string why;
            bool known = false;
            bool read = (d::try_command<V, Cs>(c, result.commands, why, known) || ...);
            if (read) continue;
            if (!known) {
                why = "unknown command \"" + std::string(c.name) + "\"";
                std::string_view close;
                for (std::string_view n : names)
                    if (d::same_ignoring_case(n, c.name)) close = n;
                if (!close.empty()) {
                    why += " (did you mean " + std::string(close) + "?)";
                } else {
                    why += " (the commands are ";
                    for (std::size_t i = 0; i < sizeof...(Cs); ++i) why += (i ? ", " : "") + std::string(names[i]);
                    why += ")";
                }
            }
            result.problems.push_back({line_no, std::string(c.source), std::move(why)});
        }
        if (!rest.empty()) result.ignored.push_back({line_no, std::string(rest), "text after the commands"});
    }
    return result;
}

}  // namespace detail::commands

/// Reads an action list into commands of the types Cs, each a described struct whose name
/// (function_name) is the command's name and whose members are its arguments. Bad input is
/// never thrown: every problem is in the result, with its line. Command types that cannot be
/// read are compile errors.
/// @throws std::bad_alloc only.
template <class... Cs>
command_list<Cs...> parse_commands(std::string_view text, const command_options& options = {}) {
    static_assert(sizeof...(Cs) > 0, "parse_commands needs at least one command type");
    constexpr bool valid = (detail::commands::valid_command<Cs>() && ...);
    static_assert(valid,
                  "a command is a struct described with BOOST_DESCRIBE_STRUCT whose members are bool, integers, "
                  "floating-point numbers, std::string, described enums or std::optional of those, the last "
                  "one possibly a std::vector (or another sequence or set) of those that takes the remaining "
                  "arguments");
    if constexpr (valid) {
        constexpr bool constructible = (std::is_default_constructible_v<Cs> && ...);
        static_assert(constructible, "parse_commands builds a command member by member: give each command type a "
                                     "default constructor");
        static_assert(detail::commands::distinct_names<Cs...>(), "two command types have the same command name");
        if constexpr (constructible) {
            [[maybe_unused]] constexpr bool annotations_checked = (detail::check_reachable_annotations<Cs>() && ...);
            return detail::commands::parse<Cs...>(text, options);
        }
    }
    return {};
}

}  // namespace parley

#endif
