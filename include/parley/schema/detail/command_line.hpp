// parley/schema/detail/command_line.hpp: the text side of action lists: one line split into
// calls `Name(arg, "quoted, arg", ...)`, after list bullets and numbering.
#ifndef PARLEY_SCHEMA_DETAIL_COMMAND_LINE_HPP
#define PARLEY_SCHEMA_DETAIL_COMMAND_LINE_HPP

#include <parley/config.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace parley::detail::commands {

/// One argument as written: its text (quotes and escapes removed) and whether it was quoted.
struct argument {
    std::string text;
    bool quoted = false;
};

/// One call found on a line.
struct call {
    std::string_view name;
    std::vector<argument> arguments;
    bool parenthesised = false;  // `Name(...)` rather than a bare `Name`
    std::string_view source;  // the call as written
    std::string error;  // why the call is malformed (unclosed parenthesis or quote); empty if fine
};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
inline bool is_name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
inline bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-'; }

inline std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

/// The line without list markers: `- `, `* `, `+ `, `• `, `1. `, `1) `, `(1) `, and the backticks of
/// inline code around it.
inline std::string_view strip_markers(std::string_view line) {
    line = trim(line);
    for (bool again = true; again && !line.empty();) {
        again = false;
        if (line.substr(0, 3) == "\xe2\x80\xa2") {  // •
            line = trim(line.substr(3));
            again = true;
        } else if ((line[0] == '-' || line[0] == '*' || line[0] == '+') && line.size() > 1 && is_space(line[1])) {
            line = trim(line.substr(1));
            again = true;
        } else {
            std::size_t i = line[0] == '(' ? 1 : 0;
            std::size_t digits = i;
            while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
            if (digits > i && digits < line.size() &&
                ((i == 0 && (line[digits] == '.' || line[digits] == ')')) || (i == 1 && line[digits] == ')'))) {
                line = trim(line.substr(digits + 1));
                again = true;
            }
        }
    }
    while (line.size() >= 2 && line.front() == '`' && line.back() == '`') line = trim(line.substr(1, line.size() - 2));
    return line;
}

/// The name at the start of `s` (letters, digits, `_`, `-`; not starting with a digit), or "".
inline std::string_view name_at(std::string_view s) {
    if (s.empty() || !is_name_start(s[0])) return {};
    std::size_t n = 1;
    while (n < s.size() && is_name_char(s[n])) ++n;
    return s.substr(0, n);
}

/// Reads the arguments after the `(` at `s[open]`; returns the position after the `)`, or
/// s.size() with `c.error` set when the call is not closed.
inline std::size_t read_arguments(std::string_view s, std::size_t open, call& c) {
    std::size_t i = open + 1;
    argument current;
    bool after_quote = false;  // a quoted argument ended; only white space may follow it
    int depth = 0;  // parentheses inside an unquoted argument
    auto finish = [&] {
        if (!current.quoted) {
            std::string_view t = trim(current.text);
            current.text = std::string(t);
        }
        c.arguments.push_back(std::move(current));
        current = argument{};
        after_quote = false;
    };
    while (i < s.size()) {
        char ch = s[i];
        if (ch == '"' || ch == '\'') {
            if (!current.quoted && trim(current.text).empty() && !after_quote) {
                // A quoted argument: up to the same quote, with backslash escapes.
                current.text.clear();
                current.quoted = true;
                std::size_t j = i + 1;
                for (; j < s.size() && s[j] != ch; ++j) {
                    if (s[j] == '\\' && j + 1 < s.size()) {
                        ++j;
                        current.text += s[j] == 'n' ? '\n' : s[j] == 't' ? '\t' : s[j];
                    } else {
                        current.text += s[j];
                    }
                }
                if (j == s.size()) {
                    c.error = "a quoted argument is not closed";
                    return s.size();
                }
                i = j + 1;
                after_quote = true;
                continue;
            }
        }
        if (depth == 0 && (ch == ',' || ch == ')')) {
            finish();
            if (ch == ')') {
                // `Name()` has no arguments rather than one empty one.
                if (c.arguments.size() == 1 && !c.arguments[0].quoted && c.arguments[0].text.empty())
                    c.arguments.clear();
                return i + 1;
            }
            ++i;
            continue;
        }
        if (after_quote) {
            if (!is_space(ch)) {
                c.error = "text after a quoted argument";
                return s.size();
            }
        } else {
            if (ch == '(') ++depth;
            if (ch == ')') --depth;
            current.text += ch;
        }
        ++i;
    }
    c.error = "the parenthesis is not closed";
    return s.size();
}

/// The calls on a line that starts with one: `StartFlow(x), SetSlot(a, 1)`. A bare name counts
/// as a call when `is_bare_command(name)` says so. `rest` gets the text after the last call
/// that is not another call (a comment, a period...). An empty result means the line is not an
/// action line (prose).
template <class IsBare>
std::vector<call> split_line(std::string_view line, IsBare&& is_bare_command, std::string_view& rest) {
    std::vector<call> calls;
    std::string_view s = strip_markers(line);
    std::size_t i = 0;
    rest = {};
    while (i < s.size()) {
        std::string_view name = name_at(s.substr(i));
        if (name.empty()) break;
        std::size_t after = i + name.size();
        std::size_t open = after;  // no space before the parenthesis: "Note (x)" is prose
        call c;
        c.name = name;
        if (open < s.size() && s[open] == '(') {
            c.parenthesised = true;
            std::size_t end = read_arguments(s, open, c);
            c.source = s.substr(i, end - i);
            i = end;
        } else if (is_bare_command(name)) {
            c.source = name;
            i = after;
        } else {
            break;
        }
        bool malformed = !c.error.empty();
        calls.push_back(std::move(c));
        if (malformed) break;
        // Separators between calls, and a full stop after the last one.
        while (i < s.size() && (is_space(s[i]) || s[i] == ',' || s[i] == ';' || s[i] == '.')) ++i;
    }
    if (!calls.empty() && i < s.size()) rest = trim(s.substr(i));
    return calls;
}

}  // namespace parley::detail::commands

#endif
