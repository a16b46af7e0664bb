// parley/chat/impl/yaml_write.hpp: the YAML dumper (included by parley/chat/yaml.hpp). It needs
// no YAML library: it writes block-style YAML and chooses each string's style itself.
#ifndef PARLEY_CHAT_IMPL_YAML_WRITE_HPP
#define PARLEY_CHAT_IMPL_YAML_WRITE_HPP

#include <parley/chat/detail/request_fields_json.hpp>
#include <parley/chat/detail/yaml_plain.hpp>
#include <parley/chat/yaml.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace parley {
namespace detail {

/// The code point at `s[i]` and its length in bytes; length 0 for a byte that does not start a
/// valid UTF-8 sequence.
inline std::pair<std::uint32_t, std::size_t> yaml_code_point(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return {0, 0};
    std::uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return {0, 0};
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    static constexpr std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
    return {cp, n};
}

/// True for a code point YAML lets a file hold as it is (line breaks and tab aside).
constexpr bool yaml_printable(std::uint32_t cp) noexcept {
    if (cp < 0x20 || cp == 0x7F) return false;
    if (cp >= 0x80 && cp <= 0x9F) return false;  // C1 controls, NEL among them
    if (cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF) return false;
    return true;
}

/// Writes YAML in block style.
class yaml_writer {
public:
    std::string out;

    // --- strings ----------------------------------------------------------------------------

    /// What a string's text is made of.
    struct string_traits {
        bool printable = true;  // valid UTF-8, printable, no line break (tabs allowed)
        bool has_break = false;  // \n
        bool block_safe = true;  // valid UTF-8, printable except \n and \t
        bool has_visible = false;  // a character other than space, tab and \n
    };
    static string_traits traits(std::string_view s) {
        string_traits t;
        for (std::size_t i = 0; i < s.size();) {
            const auto [cp, n] = yaml_code_point(s, i);
            if (n == 0) {
                t.printable = t.block_safe = false;
                ++i;
                continue;
            }
            i += n;
            if (cp == '\n') {
                t.has_break = true;
                t.printable = false;
            } else if (cp == '\t') {
            } else if (!yaml_printable(cp)) {
                t.printable = t.block_safe = false;
            }
            if (cp != ' ' && cp != '\t' && cp != '\n') t.has_visible = true;
        }
        return t;
    }

    /// True when `s` may be written unquoted and reads back as the same string, in this reader
    /// and in other YAML readers (1.1 or 1.2): no indicator first, no `: ` or ` #`, nothing
    /// that reads as null, a boolean or a number.
    static bool plain_safe(std::string_view s, const string_traits& t) {
        if (s.empty() || !t.printable) return false;
        if (s.find('\t') != std::string_view::npos) return false;
        if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
        if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos) return false;
        if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) return false;
        if (!std::holds_alternative<std::string_view>(resolve_plain(s))) return false;
        const char c = s.front();
        if ((c >= '0' && c <= '9') || ((c == '+' || c == '.') && s.size() > 1 &&
                                       ((s[1] >= '0' && s[1] <= '9') || s[1] == '.')))
            return false;  // numbers of other schemas (1_000, 1:20, 0b1, ...)
        static constexpr std::string_view yaml11[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                                      "on", "On", "ON", "off", "Off", "OFF", "=", "<<"};
        for (std::string_view w : yaml11)
            if (s == w) return false;
        return true;
    }

    static std::string single_quoted(std::string_view s) {
        std::string q = "'";
        for (char c : s) {
            if (c == '\'') q += '\'';
            q += c;
        }
        return q += '\'';
    }

    /// Any string, escaped (bytes that are not UTF-8 are kept as they are: the YAML parser
    /// passes them through).
    static std::string double_quoted(std::string_view s) {
        static constexpr char hex[] = "0123456789ABCDEF";
        std::string q = "\"";
        for (std::size_t i = 0; i < s.size();) {
            const auto [cp, n] = yaml_code_point(s, i);
            if (n == 0) {
                q += s[i++];
                continue;
            }
            switch (cp) {
            case '"': q += "\\\""; break;
            case '\\': q += "\\\\"; break;
            case '\n': q += "\\n"; break;
            case '\t': q += "\\t"; break;
            case '\r': q += "\\r"; break;
            case 0: q += "\\0"; break;
            default:
                if (yaml_printable(cp)) {
                    q.append(s.substr(i, n));
                } else {
                    q += "\\u";
                    for (int shift = 12; shift >= 0; shift -= 4) q += hex[(cp >> shift) & 0xF];
                }
            }
            i += n;
        }
        return q += '"';
    }

    /// A string as a map key (never a block scalar).
    static std::string key(std::string_view s) {
        const string_traits t = traits(s);
        if (plain_safe(s, t)) return std::string(s);
        if (t.printable) return single_quoted(s);
        return double_quoted(s);
    }

    /// A string value after `key:` or `- ` (the text begins with the separating space or
    /// newline); block scalar lines are indented by `indent`.
    void string_value(std::string_view s, std::size_t indent) {
        const string_traits t = traits(s);
        if (t.has_break && t.block_safe && t.has_visible) {
            literal(s, indent);
            return;
        }
        out += ' ';
        if (plain_safe(s, t)) out.append(s);
        else if (t.printable) out += single_quoted(s);
        else out += double_quoted(s);
        out += '\n';
    }

    /// A literal block scalar: the chomping indicator keeps the trailing newlines as they are
    /// (`|-` none, `|` one, `|+` more); an indentation indicator when the first line begins
    /// with white space (the reader would otherwise take it for indentation).
    void literal(std::string_view s, std::size_t indent) {
        std::size_t trailing = 0;
        while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
        const std::string_view body = s.substr(0, s.size() - trailing);
        std::size_t first = 0;
        while (first < body.size() && body[first] == '\n') ++first;
        out += " |";
        if (first < body.size() && (body[first] == ' ' || body[first] == '\t')) out += '2';
        out += trailing == 0 ? "-" : trailing == 1 ? "" : "+";
        out += '\n';
        std::size_t start = 0;
        while (start <= body.size()) {
            std::size_t end = body.find('\n', start);
            if (end == std::string_view::npos) end = body.size();
            if (end > start) out.append(indent, ' ').append(body.substr(start, end - start));
            out += '\n';
            start = end + 1;
        }
        for (std::size_t k = 1; k < trailing; ++k) out += '\n';
    }

    // --- JSON values ------------------------------------------------------------------------

    /// A JSON value after `key:` or `- `; nested entries are indented by `indent`.
    void json_value(const boost::json::value& v, std::size_t indent) {
        switch (v.kind()) {
        case boost::json::kind::null: out += " null\n"; break;
        case boost::json::kind::bool_: out += v.get_bool() ? " true\n" : " false\n"; break;
        case boost::json::kind::int64: out += ' ' + std::to_string(v.get_int64()) + '\n'; break;
        case boost::json::kind::uint64: out += ' ' + std::to_string(v.get_uint64()) + '\n'; break;
        case boost::json::kind::double_: out += ' ' + yaml_double(v.get_double()) + '\n'; break;
        case boost::json::kind::string: string_value(v.get_string(), indent); break;
        case boost::json::kind::array:
            if (v.get_array().empty()) {
                out += " []\n";
            } else {
                out += '\n';
                for (const auto& item : v.get_array()) {
                    out.append(indent, ' ') += '-';
                    if (item.is_object() && !item.get_object().empty()) {
                        out += ' ';  // `- key: value`, the other keys under the first
                        json_entries(item.get_object(), indent + 2, true);
                    } else {
                        json_value(item, indent + 2);
                    }
                }
            }
            break;
        case boost::json::kind::object:
            if (v.get_object().empty()) {
                out += " {}\n";
            } else {
                out += '\n';
                json_entries(v.get_object(), indent);
            }
            break;
        }
    }
    void json_entries(const boost::json::object& o, std::size_t indent, bool first_inline = false) {
        for (const auto& kv : o) {
            if (!first_inline) out.append(indent, ' ');
            first_inline = false;
            out += key(kv.key()) + ':';
            json_value(kv.value(), indent + 2);
        }
    }

    // --- the chat model -----------------------------------------------------------------------

    // `key:` at `indent` (the entry of a message map)
    void entry(std::string_view k, std::size_t indent) { out.append(indent, ' ').append(k) += ':'; }
    void string_entry(std::string_view k, std::string_view s, std::size_t indent) {
        entry(k, indent);
        string_value(s, indent + 2);
    }
    void string_list(const std::vector<std::string>& list, std::size_t indent) {
        if (list.empty()) {
            out += " []\n";
            return;
        }
        out += '\n';
        for (const auto& s : list) {
            out.append(indent, ' ') += '-';
            string_value(s, indent + 2);
        }
    }
    void call(const function_call& c, std::size_t indent) {
        out += '\n';
        string_entry("name", c.name, indent);
        string_entry("arguments", c.arguments, indent);
    }

    void params(const request_params& p, std::size_t indent) {
        auto number = [&](std::string_view k, const std::optional<double>& v) {
            if (v) entry(k, indent), out += ' ' + yaml_double(*v) + '\n';
        };
        auto integer = [&](std::string_view k, const std::optional<std::int64_t>& v) {
            if (v) entry(k, indent), out += ' ' + std::to_string(*v) + '\n';
        };
        if (p.model) string_entry("model", *p.model, indent);
        integer("max_tokens", p.max_tokens);
        number("temperature", p.temperature);
        number("top_p", p.top_p);
        if (p.stop) {
            entry("stop", indent);
            if (const auto* one = std::get_if<std::string>(&*p.stop)) string_value(*one, indent + 2);
            else string_list(std::get<std::vector<std::string>>(*p.stop), indent + 2);
        }
        number("presence_penalty", p.presence_penalty);
        number("frequency_penalty", p.frequency_penalty);
        if (p.logit_bias) {
            entry("logit_bias", indent);
            if (p.logit_bias->empty()) out += " {}\n";
            else out += '\n';
            for (const auto& [token, bias] : *p.logit_bias)
                out.append(indent + 2, ' ') += key(token) + ": " + std::to_string(bias) + '\n';
        }
        integer("seed", p.seed);
        integer("n", p.n);
        if (p.response_format) {
            entry("response_format", indent);
            json_value(*p.response_format, indent + 2);
        }
        if (p.functions) {
            entry("functions", indent);
            string_list(*p.functions, indent + 2);
        }
        if (p.call_function) string_entry("call_function", *p.call_function, indent);
        detail::for_each_request_field(p, [&](std::string_view k, const boost::json::value& v) {
            entry(k, indent);
            json_value(v, indent + 2);
        });
    }

    /// A message as an item of a list at `indent` (`- role: ...`).
    void message_item(const message& m, std::size_t indent) {
        const std::size_t in = indent + 2;
        out.append(indent, ' ') += "- role: ";
        out.append(role_name(m.role)) += '\n';
        if (m.name) string_entry("name", *m.name, in);
        if (const auto* s = std::get_if<std::string>(&m.content)) {
            string_entry("content", *s, in);
        } else if (m.has_parts()) {
            entry("content", in);
            if (m.parts().empty()) out += " []\n";
            else out += '\n';
            for (const content_part& p : m.parts()) {
                if (p.type == content_part::kind::text) {
                    out.append(in + 2, ' ') += "- type: text\n";
                    string_entry("text", p.text, in + 4);
                } else {
                    out.append(in + 2, ' ') += "- type: image_url\n";
                    entry("image_url", in + 4);
                    out += '\n';
                    string_entry("url", p.url, in + 6);
                    if (p.detail) string_entry("detail", *p.detail, in + 6);
                }
            }
        }
        if (m.function_call) {
            entry("function_call", in);
            call(*m.function_call, in + 2);
        }
        if (!m.tool_calls.empty()) {
            entry("tool_calls", in);
            out += '\n';
            for (const tool_call& c : m.tool_calls) {
                out.append(in + 2, ' ') += "- id:";
                string_value(c.id, in + 6);
                out.append(in + 4, ' ') += "type: function\n";
                entry("function", in + 4);
                call(c.function, in + 6);
            }
        }
        if (m.tool_call_id) string_entry("tool_call_id", *m.tool_call_id, in);
        if (m.refusal) string_entry("refusal", *m.refusal, in);
        if (!m.reasoning.empty()) {
            entry("reasoning", in);
            json_value(detail::reasoning_to_json(m.reasoning), in + 2);
        }
        params(m.params, in);
    }

    /// A template's metadata and messages as the entries of a map at `indent`.
    void template_entries(const conversation_template& t, std::size_t indent) {
        const template_info& info = t.info();
        if (!info.description.empty()) string_entry("description", info.description, indent);
        if (!info.version.empty()) string_entry("version", info.version, indent);
        if (!info.variables.empty()) {
            entry("variables", indent);
            string_list(info.variables, indent + 2);
        }
        entry("messages", indent);
        messages(t.messages(), indent + 2);
    }
    void messages(const std::vector<message>& list, std::size_t indent) {
        if (list.empty()) {
            out += " []\n";
            return;
        }
        out += '\n';
        for (const message& m : list) message_item(m, indent);
    }
};

}  // namespace detail

inline std::string dump_yaml(const template_set& set) {
    detail::yaml_writer w;
    if (set.templates().empty()) {
        w.out += "templates: {}\n";
    } else {
        w.out += "templates:\n";
        for (const conversation_template& t : set.templates()) {
            w.out += "  " + detail::yaml_writer::key(t.name()) + ":\n";
            w.template_entries(t, 4);
        }
    }
    if (!set.functions().empty()) {
        w.out += "functions:\n";
        for (const function_definition& f : set.functions()) {
            w.out += "  - name:";
            w.string_value(f.name, 6);
            if (!f.description.empty()) w.string_entry("description", f.description, 4);
            if (!f.parameters.empty()) {
                w.entry("parameters", 4);
                w.json_value(f.parameters, 6);
            }
            if (f.strict) w.out += "    strict: true\n";
            if (const function_command* c = set.command(f.name)) {
                w.string_entry("command", c->command, 4);
                if (c->timeout > 0) w.out += "    timeout: " + detail::yaml_double(c->timeout) + '\n';
            }
        }
    }
    if (!set.mcp_servers().empty()) {
        w.out += "mcp_servers:\n";
        auto pairs = [&](std::string_view k, const std::vector<std::pair<std::string, std::string>>& list) {
            if (list.empty()) return;
            w.entry(k, 4);
            w.out += '\n';
            for (const auto& [name, value] : list) {
                w.out += "      " + detail::yaml_writer::key(name) + ':';
                w.string_value(value, 8);
            }
        };
        for (const mcp_server& s : set.mcp_servers()) {
            w.out += "  " + detail::yaml_writer::key(s.name) + ":\n";
            if (!s.command.empty()) w.string_entry("command", s.command, 4);
            if (!s.args.empty()) {
                w.entry("args", 4);
                w.string_list(s.args, 6);
            }
            pairs("env", s.env);
            if (!s.cwd.empty()) w.string_entry("cwd", s.cwd, 4);
            if (!s.url.empty()) w.string_entry("url", s.url, 4);
            pairs("headers", s.headers);
            if (!s.tools.empty()) {
                w.entry("tools", 4);
                w.string_list(s.tools, 6);
            }
            if (s.prefix) w.string_entry("prefix", *s.prefix, 4);
            if (s.timeout > 0) w.out += "    timeout: " + detail::yaml_double(s.timeout) + '\n';
        }
    }
    return std::move(w.out);
}

inline std::string dump_yaml(const conversation_template& t) {
    detail::yaml_writer w;
    const template_info& info = t.info();
    if (info.description.empty() && info.version.empty() && info.variables.empty()) {
        if (t.messages().empty()) w.out += "[]\n";
        for (const message& m : t.messages()) w.message_item(m, 0);
    } else {
        w.template_entries(t, 0);
    }
    return std::move(w.out);
}

}  // namespace parley

#endif
