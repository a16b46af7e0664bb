// parley/chat/dialogue.hpp: a conversation written out as a dialogue (`User: ...`,
// `Assistant: ...`): extract_dialogue in C++, the filter and the method of templates.
// See docs/chat-prompts.md, "The conversation as a dialogue: `extract_dialogue`".
#ifndef PARLEY_CHAT_DIALOGUE_HPP
#define PARLEY_CHAT_DIALOGUE_HPP

#include <parley/error.hpp>
#include <parley/jinja.hpp>
#include <parley/jinja/detail/cpp_view.hpp>
#include <parley/jinja/detail/ops.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace parley {

/// The prefixes and the delimiter of extract_dialogue, with the defaults of the Qute extension.
struct dialogue_format {
    std::string_view user_prefix = "User: ";  ///< before the text of each user message
    std::string_view assistant_prefix = "Assistant: ";  ///< before the text of each assistant message
    std::string_view delimiter = "\n";  ///< between two entries (not after the last)
};

namespace detail::dialogue {

namespace pj = parley::jinja;

[[noreturn]] inline void fail(errc code, std::string message) { throw error(code, std::move(message)); }

/// Throws the error the template engine gives for using an undefined value.
[[noreturn]] inline void fail_undefined(const pj::value& v) {
    try {
        pj::detail::fail_undefined(v);
    } catch (const pj::detail::eval_error& e) {
        fail(e.code, e.message);
    }
}

inline std::string item_name(std::size_t i) { return "message " + std::to_string(i); }

/// The field `key` of a message, or undefined when it has none.
inline pj::value field(const pj::value& message, std::string_view key) {
    pj::value out;
    if (pj::detail::mapping_find(message, pj::value::view_of(key), out)) return out;
    return {};
}

/// chatMessageToText on a message's content: the text of a string content or of a content made
/// of exactly one text part; nothing for every other content (no content, several parts, an
/// image). Malformed content is an error.
inline std::optional<std::string_view> text_of(const pj::value& content, std::string_view who, std::size_t index) {
    if (content.is_undefined() || content.is_none()) return std::nullopt;
    if (content.is_string()) return content.as_string();
    if (!content.is_sequence_like())
        fail(errc::template_type, std::string(who) + ": " + item_name(index) +
                                      ": content must be a string, a list of content parts or none, found '" +
                                      pj::detail::type_name(content) + "'");
    const pj::detail::sequence parts(content);
    std::optional<std::string_view> single;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const pj::value part = parts[k];
        const std::string where = std::string(who) + ": " + item_name(index) + ", content part " + std::to_string(k);
        if (!part.is_mapping_like())
            fail(errc::template_type, where + " must be a mapping with a type, found '" +
                                          pj::detail::type_name(part) + "'");
        const pj::value type = field(part, "type");
        if (!type.is_string()) fail(errc::template_type, where + " has no type (a string such as 'text')");
        if (type.as_string() != "text") continue;
        const pj::value text = field(part, "text");
        if (!text.is_string()) fail(errc::template_type, where + " is of type 'text' but has no text (a string)");
        if (parts.size() == 1) single = text.as_string();
    }
    return single;
}

/// Whether an assistant message requests tool executions (tool_calls, or a legacy function_call).
inline bool requests_tools(const pj::value& message) {
    const pj::value calls = field(message, "tool_calls");
    if (calls.is_sequence_like() && pj::detail::sequence(calls).size() > 0) return true;
    const pj::value call = field(message, "function_call");
    return call.is_defined() && !call.is_none();
}

/// The dialogue of `messages` (a list of message mappings, none, or undefined). `who` names the
/// filter, method or function in messages.
inline std::string extract(const pj::value& messages, const dialogue_format& format, std::string_view who) {
    if (messages.is_undefined()) {
        if (messages.is_strict_undefined()) fail_undefined(messages);
        return {};  // like an empty list, as Jinja2's lenient undefined iterates
    }
    if (messages.is_none()) return {};  // the Java code's null list
    if (!messages.is_sequence_like())
        fail(errc::template_type, std::string(who) + ": expected a list of messages, found '" +
                                      pj::detail::type_name(messages) + "'");
    const pj::detail::sequence items(messages);
    std::string out;
    bool first = true;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const pj::value m = items[i];
        if (!m.is_mapping_like())
            fail(errc::template_type, std::string(who) + ": " + item_name(i) +
                                          " must be a mapping with a role and a content, found '" +
                                          pj::detail::type_name(m) + "'");
        const pj::value role = field(m, "role");
        if (!role.is_string())
            fail(errc::template_type, std::string(who) + ": " + item_name(i) +
                                          (role.is_undefined() ? std::string(" has no role")
                                                               : std::string(": role must be a string, found '") +
                                                                     pj::detail::type_name(role) + "'"));
        std::string_view prefix;
        if (role.as_string() == "user") prefix = format.user_prefix;
        else if (role.as_string() == "assistant" && !requests_tools(m)) prefix = format.assistant_prefix;
        else continue;  // system, tool and function results, assistant tool requests, other roles
        const std::optional<std::string_view> text = text_of(field(m, "content"), who, i);
        if (!first) out += format.delimiter;
        first = false;
        out += prefix;
        out += text ? *text : std::string_view("null");
    }
    return out;
}

/// The text of a prefix or delimiter argument; nothing for none (the default).
inline std::optional<std::string_view> text_argument(const pj::value& v, std::string_view who, const char* what) {
    if (v.is_none()) return std::nullopt;
    if (v.is_undefined()) fail(errc::template_undefined, std::string(who) + "(): the " + what + " is undefined");
    if (!v.is_string())
        fail(errc::template_type, std::string(who) + "(): the " + what + " must be a string or none, found '" +
                                      pj::detail::type_name(v) + "'");
    return v.as_string();
}

/// The format given by a template's arguments: (), (delimiter) or (user_prefix,
/// assistant_prefix, delimiter), positional only as in the Qute extension.
inline dialogue_format format_of(const pj::arguments& a, std::string_view who) {
    if (!a.keywords().empty())
        fail(errc::template_type, std::string(who) + "() takes no keyword arguments (found " +
                                      std::string(a.keywords().front().first) +
                                      "=): give (), (delimiter) or (user_prefix, assistant_prefix, delimiter)");
    dialogue_format f;
    auto set = [&](std::string_view& target, const pj::value& v, const char* what) {
        if (auto t = text_argument(v, who, what)) target = *t;
    };
    switch (a.size()) {
    case 0: break;
    case 1: set(f.delimiter, a[0], "delimiter"); break;
    case 3:
        set(f.user_prefix, a[0], "user prefix");
        set(f.assistant_prefix, a[1], "assistant prefix");
        set(f.delimiter, a[2], "delimiter");
        break;
    default:
        fail(errc::template_type, std::string(who) + "() takes 0, 1 or 3 arguments: (), (delimiter) or (user_prefix, "
                                                     "assistant_prefix, delimiter); " +
                                      std::to_string(a.size()) + " given");
    }
    return f;
}

}  // namespace detail::dialogue

/// The dialogue of a conversation: `User: ` + text for each user message and `Assistant: ` +
/// text for each assistant message that requests no tool, joined with newlines (or the
/// prefixes and delimiter of `format`). `messages` is a list of messages in their JSON shape: a
/// boost::json::value, a jinja::value or anything a template can read. None gives "".
/// @throws parley::error with errc::template_type for something that is not a list of messages
/// (or a message that is not a mapping with a role and a well-formed content), and with
/// errc::template_undefined for a strict undefined value.
template <class Messages>
std::string extract_dialogue(const Messages& messages, const dialogue_format& format = {}) {
    return detail::dialogue::extract(jinja::detail::cpp_view(messages), format, "extract_dialogue");
}

/// Registers, in `env`, the filter `extract_dialogue` (`{{ chat_memory | extract_dialogue }}`,
/// `| extract_dialogue('|')`, `| extract_dialogue('U: ', 'A: ', '|')`) and the method
/// `extractDialogue` of lists (`{{ chat_memory.extractDialogue() }}`, with the same three
/// argument forms), both giving extract_dialogue's text. Arguments are positional; none stands
/// for the default. The method is not one of mappings, which may have a key of that name.
/// Rendering a call of them throws what extract_dialogue throws, and parley::error
/// (errc::template_type, errc::template_undefined) for wrong arguments.
inline void add_chat_extensions(jinja::environment& env) {
    namespace pj = parley::jinja;
    env.add_filter("extract_dialogue", [](const pj::value& input, const pj::arguments& args) {
        const dialogue_format f = detail::dialogue::format_of(args, "extract_dialogue");
        return pj::value(detail::dialogue::extract(input, f, "extract_dialogue"));
    });
    env.add_method("extractDialogue", [](const pj::value& self, const pj::arguments& args) -> std::optional<pj::value> {
        if (self.is_mapping_like() || self.is_object()) return std::nullopt;
        if (!self.is_sequence_like())
            detail::dialogue::fail(errc::template_type, std::string("extractDialogue() is a method of a list of messages, "
                                                                    "not of '") +
                                                            pj::detail::type_name(self) + "'");
        const dialogue_format f = detail::dialogue::format_of(args, "extractDialogue");
        return pj::value(detail::dialogue::extract(self, f, "extractDialogue"));
    });
}

}  // namespace parley

#endif
