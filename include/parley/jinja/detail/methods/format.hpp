// parley/jinja/detail/methods/format.hpp: str.format and str.format_map as Python (and Jinja2's
// sandbox) read their fields.
#ifndef PARLEY_JINJA_DETAIL_METHODS_FORMAT_HPP
#define PARLEY_JINJA_DETAIL_METHODS_FORMAT_HPP

#include <parley/jinja/detail/methods/arguments.hpp>

namespace parley::jinja::detail {

/// A field's `.name` or `[key]` in str.format outside the sandbox: Python's getattr (the methods
/// of str, list and dict, and the attributes of objects such as namespaces) and __getitem__.
inline value format_field_part(const value& v, std::string_view name, const value* key) {
    if (key) {
        bool found = false;
        value r = getitem_plain(v, *key, found);
        if (!found) raise(errc::template_value, "no item " + to_repr(*key) + " in " + std::string(type_name(v)) + " object");
        return r;
    }
    if (v.is_object()) {
        value r = v.object().getattr(name);
        if (r.is_defined()) return r;
    } else if (has_method(v, name)) {
        return get_attribute(v, name, false, false);
    }
    raise(errc::template_value, "'" + std::string(type_name(v)) + "' object has no attribute " + single_quoted(name));
}

/// The arguments of `s.format_map(mapping)`: format(**mapping), the fields looked up by name.
inline arguments format_map_arguments(const value& mapping) {
    if (!mapping.is_mapping_like()) type_error(std::string("'") + type_name(mapping) + "' object is not a mapping");
    arguments by_name;
    by_name.keep_alive(mapping);  // the names view its keys
    sequence keys(mapping);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        const value key = keys[k];
        if (!key.is_string()) continue;
        value v;
        mapping_find(mapping, key, v);
        by_name.keep_alive(key);
        by_name.push_keyword(key.as_string(), v);
    }
    return by_name;
}

/// `'...'.format(*args, **kwargs)`; with `escape_fields` (Markup.format), each field's text is
/// HTML-escaped unless the field's value is Markup, which takes no format specification. In the
/// sandbox a field's `.name` and `[key]` are read as the template reads them (attribute then item,
/// a missing one undefined, `strict` or not), as Jinja2's sandboxed formatter does; outside it as
/// Python's str.format reads them.
inline value str_format(const value& fmt, const arguments& args, bool sandboxed, bool escape_fields = false,
                        bool strict = false) {
    const std::string_view f = fmt.as_string();
    std::string out;
    std::size_t auto_index = 0;
    char numbering = 0;  // 'a': {} fields, 'm': {0} fields (Python refuses a mix)
    for (std::size_t i = 0; i < f.size(); ++i) {
        const char c = f[i];
        if (c == '}') {
            if (i + 1 < f.size() && f[i + 1] == '}') {
                out += '}';
                ++i;
                continue;
            }
            raise(errc::template_value, "Single '}' encountered in format string");
        }
        if (c != '{') {
            out += c;
            continue;
        }
        if (i + 1 < f.size() && f[i + 1] == '{') {
            out += '{';
            ++i;
            continue;
        }
        // find the matching '}' (nested {} in the spec are not supported)
        const std::size_t close = f.find('}', i);
        if (close == std::string_view::npos) raise(errc::template_value, "Single '{' encountered in format string");
        std::string_view field = f.substr(i + 1, close - i - 1);
        i = close;
        std::string_view spec, conv;
        if (auto colon = field.find(':'); colon != std::string_view::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
        }
        if (auto bang = field.find('!'); bang != std::string_view::npos) {
            conv = field.substr(bang + 1);
            field = field.substr(0, bang);
        }
        // first part: index or name
        std::size_t e = 0;
        while (e < field.size() && field[e] != '.' && field[e] != '[') ++e;
        const std::string_view head = field.substr(0, e);
        value v;
        if (head.empty()) {
            if (numbering == 'm')
                raise(errc::template_value, "cannot switch from manual field specification to automatic field numbering");
            numbering = 'a';
            if (auto_index >= args.size()) raise(errc::template_value, "Replacement index " + std::to_string(auto_index) + " out of range for positional args tuple");
            v = args[auto_index++];
        } else if (head.find_first_not_of("0123456789") == std::string_view::npos) {
            if (numbering == 'a')
                raise(errc::template_value, "cannot switch from automatic field numbering to manual field specification");
            numbering = 'm';
            const std::size_t k = std::stoul(std::string(head));
            if (k >= args.size()) raise(errc::template_value, "Replacement index " + std::to_string(k) + " out of range for positional args tuple");
            v = args[k];
        } else {
            v = args.keyword(head);
            if (v.is_undefined()) raise(errc::template_value, "KeyError: " + single_quoted(head));
        }
        // .attr and [key] chains
        while (e < field.size()) {
            if (v.is_undefined()) fail_undefined(v);  // a part of a missing part
            if (field[e] == '.') {
                std::size_t b = ++e;
                while (e < field.size() && field[e] != '.' && field[e] != '[') ++e;
                const std::string_view name = field.substr(b, e - b);
                v = sandboxed ? get_attribute(v, name, true, strict) : format_field_part(v, name, nullptr);
            } else {
                const std::size_t b = ++e;
                while (e < field.size() && field[e] != ']') ++e;
                const std::string_view key = field.substr(b, e - b);
                ++e;
                const value k = !key.empty() && key.find_first_not_of("0123456789") == std::string_view::npos
                                    ? value(static_cast<long long>(std::stoll(std::string(key))))
                                    : value(std::string(key));
                v = sandboxed ? get_item(v, k, true, strict) : format_field_part(v, {}, &k);
            }
        }
        if (conv == "r" || conv == "a") v = value(to_repr(v));
        else if (conv == "s") v = value(to_str(v));
        else if (!conv.empty()) raise(errc::template_value, "Unknown conversion specifier " + std::string(conv));
        if (!escape_fields) {
            format_value(out, v, spec);
        } else if (v.is_markup()) {
            if (!spec.empty()) raise(errc::template_value, "Unsupported format specification for Markup.");
            out += v.as_string();
        } else {
            std::string text;
            format_value(text, v, spec);
            html_escape(out, text);
        }
    }
    return value(std::move(out));
}

}  // namespace parley::jinja::detail

#endif
