// parley/jinja/detail/builtins/json.hpp: the built-in filters that serialise: tojson (Jinja2's and
// Hugging Face's) and pprint.
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_JSON_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_JSON_HPP

#include <parley/jinja/detail/builtins/sequences.hpp>

namespace parley::jinja::detail {

namespace filters {

// ---- serialisation ------------------------------------------------------------------------------

/// Python's pprint.pformat (width 80, indent 1, keys sorted): a list, tuple or mapping whose repr
/// does not fit in the width left is written an item per line, a string as several literals cut
/// after line ends and spaces; anything else as its repr.
class pretty_printer {
public:
    explicit pretty_printer(std::size_t max_size) : max_size_(max_size) {}
    std::string out;

    void format(const value& v, long indent, long allowance, int level) {
        check_stack();
        std::string rep;
        append_repr(rep, v, true);
        if (static_cast<long>(utf8_length(rep)) > width - indent - allowance) {
            if (v.is_mapping_like() && !v.is_object()) return mapping(v, indent, allowance, level + 1);
            if (v.is_sequence_like() && sequence_type(v) != seq_type::other)
                return items(v, indent, allowance, level + 1);
            if (v.is_string() && !v.is_markup()) return text(v.as_string(), indent, allowance, level + 1);
        }
        out += rep;
        check();
    }

private:
    static constexpr long width = 80;
    std::size_t max_size_;

    void check() const {
        if (out.size() > max_size_) raise(errc::template_limit, "pprint result exceeds the output size limit");
    }
    static std::string repr_of(std::string_view s) {
        std::string r;
        py_str_repr(r, s);
        return r;
    }
    static long length_of(std::string_view s) { return static_cast<long>(utf8_length(s)); }

    void mapping(const value& v, long indent, long allowance, int level) {
        const auto entries = mapping_items(v, true);
        out += '{';
        indent += 1;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const bool last = i + 1 == entries.size();
            std::string key;
            append_repr(key, entries[i].first, true);
            out += key;
            out += ": ";
            format(entries[i].second, indent + length_of(key) + 2, last ? allowance + 1 : 1, level);
            if (!last) {
                out += ",\n";
                out.append(static_cast<std::size_t>(indent), ' ');
            }
        }
        out += '}';
    }

    void items(const value& v, long indent, long allowance, int level) {
        const bool tuple = v.is_list() && v.list().tuple;
        const sequence seq(v);
        const char* end = !tuple ? "]" : seq.size() == 1 ? ",)" : ")";
        out += tuple ? '(' : '[';
        allowance += static_cast<long>(std::strlen(end));
        indent += 1;
        for (std::size_t i = 0; i < seq.size(); ++i) {
            const bool last = i + 1 == seq.size();
            if (i) {
                out += ",\n";
                out.append(static_cast<std::size_t>(indent), ' ');
            }
            format(seq[i], indent, last ? allowance : 1, level);
        }
        out += end;
    }

    void text(std::string_view s, long indent, long allowance, int level) {
        if (s.empty()) {
            out += "''";
            return;
        }
        std::vector<std::string> chunks;
        const std::vector<std::string_view> lines = py_splitlines(s, true);
        if (level == 1) {
            indent += 1;
            allowance += 1;
        }
        long max_width1 = width - indent;
        const long max_width = width - indent;
        std::string rep;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            rep = repr_of(lines[i]);
            if (i + 1 == lines.size()) max_width1 -= allowance;
            if (length_of(rep) <= max_width1) {
                chunks.push_back(rep);
                continue;
            }
            // the line as runs of non-spaces each followed by its spaces (re.findall(r'\S*\s*'))
            std::vector<std::string_view> parts;
            const std::string_view line = lines[i];
            for (std::size_t b = 0; b < line.size();) {
                std::size_t e = b;
                bool in_space = false;
                while (e < line.size()) {
                    std::size_t next = e;
                    const bool space = py_isspace(utf8_decode(line, next));
                    if (!space && in_space) break;
                    in_space = in_space || space;
                    e = next;
                }
                parts.push_back(line.substr(b, e - b));
                b = e;
            }
            long max_width2 = max_width;
            std::string current;
            for (std::size_t j = 0; j < parts.size(); ++j) {
                std::string candidate = current + std::string(parts[j]);
                if (j + 1 == parts.size() && i + 1 == lines.size()) max_width2 -= allowance;
                if (length_of(repr_of(candidate)) > max_width2) {
                    if (!current.empty()) chunks.push_back(repr_of(current));
                    current = std::string(parts[j]);
                } else {
                    current = std::move(candidate);
                }
            }
            if (!current.empty()) chunks.push_back(repr_of(current));
        }
        if (chunks.size() == 1) {
            out += rep;
            return check();
        }
        if (level == 1) out += '(';
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            if (i) {
                out += '\n';
                out.append(static_cast<std::size_t>(indent), ' ');
            }
            out += chunks[i];
            check();
        }
        if (level == 1) out += ')';
    }
};

inline value f_pprint(render_state& st, const value& v, arguments&) {
    pretty_printer p(st.max_size());
    p.format(v, 0, 0, 0);
    return value(std::move(p.out));
}

/// Jinja2's default tojson: json.dumps with sorted keys, with <, >, & and ' written as JSON
/// escapes (u003c, u003e, u0026, u0027) so that the text is safe in HTML. Compile-time
/// templates compute their tojson with it too.
inline std::string tojson_plain(const value& v, const dump_options& o, std::size_t max_size) {
    std::string s;
    dump_value(s, v, o, 0, max_size);
    std::string r;
    r.reserve(s.size());
    for (char c : s) {
        if (c == '<') r += "\\u003c";
        else if (c == '>') r += "\\u003e";
        else if (c == '&') r += "\\u0026";
        else if (c == '\'') r += "\\u0027";
        else r += c;
    }
    return r;
}

inline value f_tojson_plain(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"indent"};
    bound_args<1> b(a, "tojson", p);
    dump_options o;
    o.sort_keys = true;
    if (b.has(0) && !b[0].is_none()) {
        o.indent = b[0].is_string() ? std::string(b[0].as_string())
                                    : std::string(static_cast<std::size_t>(std::max(0L, int_arg(b[0], 0, "indent"))), ' ');
        o.item_sep = ",";
    }
    return value::markup(tojson_plain(v, o, st.max_size()));
}

inline value f_tojson_hf(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"ensure_ascii", "indent", "separators", "sort_keys"};
    bound_args<4> b(a, "tojson", p);
    dump_options o = hf_tojson_defaults();
    if (b.has(0)) o.ensure_ascii = truthy(b[0]);
    o.sort_keys = b.has(3) && truthy(b[3]);
    if (b.has(1) && !b[1].is_none()) {
        o.indent = b[1].is_string() ? std::string(b[1].as_string())
                                    : std::string(static_cast<std::size_t>(std::max(0L, int_arg(b[1], 0, "indent"))), ' ');
        o.item_sep = ",";
    }
    if (b.has(2) && !b[2].is_none()) {
        sequence seps(b[2]);
        if (seps.size() != 2) raise(errc::template_value, "separators must be a pair of strings");
        o.item_sep = to_str(seps[0]);
        o.key_sep = to_str(seps[1]);
    }
    std::string s;
    dump_value(s, v, o, 0, st.max_size());
    return value(std::move(s));
}

}  // namespace filters

}  // namespace parley::jinja::detail

#endif
