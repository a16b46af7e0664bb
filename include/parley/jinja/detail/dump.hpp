// parley/jinja/detail/dump.hpp: Python's json.dumps of template values (for `tojson`).
#ifndef PARLEY_JINJA_DETAIL_DUMP_HPP
#define PARLEY_JINJA_DETAIL_DUMP_HPP

#include <parley/jinja/detail/ops.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parley::jinja::detail {

struct dump_options {
    std::optional<std::string> indent;  ///< none: one line
    std::string item_sep = ", ";
    std::string key_sep = ": ";
    bool sort_keys = false;
    bool ensure_ascii = true;
    std::size_t max_depth = 512;
};

/// json.dumps(v, ensure_ascii=False): the hf environment's `tojson` without arguments.
inline const dump_options& hf_tojson_defaults() {
    static const dump_options o = [] {
        dump_options d;
        d.ensure_ascii = false;
        return d;
    }();
    return o;
}

inline void dump_key(std::string& out, const value& k, bool ensure_ascii) {
    if (k.is_string()) json_string(out, k.as_string(), ensure_ascii);
    else if (k.is_integer() || k.is_big_integer()) {
        out += '"';
        append_str(out, k);
        out += '"';
    } else if (k.is_float()) {
        out += '"';
        json_float(out, k.as_float());
        out += '"';
    } else if (k.is_bool()) out += k.as_bool() ? "\"true\"" : "\"false\"";
    else if (k.is_none()) out += "\"null\"";
    else type_error(std::string("keys must be str, int, float, bool or None, not ") + type_name(k));
}

inline void dump_value(std::string& out, const value& v, const dump_options& o, std::size_t depth, std::size_t max_size) {
    if (depth > o.max_depth) raise(errc::template_limit, "value nested too deeply for tojson");
    check_stack();
    if (out.size() > max_size) raise(errc::template_limit, "tojson output exceeds the output size limit");
    auto newline = [&](std::size_t level) {
        if (!o.indent) return;
        out += '\n';
        for (std::size_t i = 0; i < level; ++i) out += *o.indent;
    };
    switch (v.kind()) {
    case value_kind::none: out += "null"; return;
    case value_kind::boolean: out += v.as_bool() ? "true" : "false"; return;
    case value_kind::integer: append_int(out, v.as_integer()); return;
    case value_kind::big_integer: append_big_int(out, v.big_integer()); return;
    case value_kind::floating: json_float(out, v.as_float()); return;
    case value_kind::string: json_string(out, v.as_string(), o.ensure_ascii); return;
    case value_kind::list:
        if (sequence_type(v) == seq_type::other)
            type_error(std::string("Object of type ") + type_name(v) + " is not JSON serializable");
        [[fallthrough]];
    case value_kind::view:
        if (v.is_sequence_like()) {
            sequence items(v);
            if (items.size() == 0) {
                out += "[]";
                return;
            }
            out += '[';
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i) out += o.item_sep;
                newline(depth + 1);
                dump_value(out, items[i], o, depth + 1, max_size);
            }
            newline(depth);
            out += ']';
            return;
        }
        [[fallthrough]];
    case value_kind::dict: {
        std::vector<std::pair<value, value>> items;
        for_each_item(v, [&](const value& k, const value& x) { items.emplace_back(k, x); });
        if (items.empty()) {
            out += "{}";
            return;
        }
        if (o.sort_keys)
            std::stable_sort(items.begin(), items.end(),
                             [](const auto& a, const auto& b) { return compare(a.first, b.first) < 0; });
        out += '{';
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) out += o.item_sep;
            newline(depth + 1);
            dump_key(out, items[i].first, o.ensure_ascii);
            out += o.key_sep;
            dump_value(out, items[i].second, o, depth + 1, max_size);
        }
        newline(depth);
        out += '}';
        return;
    }
    case value_kind::undefined:
        check_strict(v);
        type_error("Object of type Undefined is not JSON serializable");
    case value_kind::object: break;
    }
    type_error(std::string("Object of type ") + type_name(v) + " is not JSON serializable");
}

}  // namespace parley::jinja::detail

#endif
