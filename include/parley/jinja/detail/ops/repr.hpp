// parley/jinja/detail/ops/repr.hpp: Python's repr() (and pprint's order of keys), len() and truth
// of template values.
#ifndef PARLEY_JINJA_DETAIL_OPS_REPR_HPP
#define PARLEY_JINJA_DETAIL_OPS_REPR_HPP

#include <parley/jinja/detail/ops/values.hpp>

namespace parley::jinja::detail {

/// Python repr(v).
/// Raises errc::template_limit when the text of a value being printed has passed the render's
/// output size limit.
inline void check_text_size(const std::string& out) {
    if (out.size() > text_limit) [[unlikely]]
        raise(errc::template_limit, "the text of a value exceeds the output size limit (" + std::to_string(text_limit) +
                                        " bytes)");
}

int compare(const value& a, const value& b, op o = op::lt);

/// The (key, value) pairs of a mapping; with `sorted_keys`, in the order pprint writes them:
/// sorted when the keys are all strings or all numbers, otherwise as they come.
inline std::vector<std::pair<value, value>> mapping_items(const value& v, bool sorted_keys) {
    std::vector<std::pair<value, value>> items;
    bool strings = true, numbers = true;
    for_each_item(v, [&](const value& k, const value& x) {
        strings = strings && k.is_string();
        numbers = numbers && k.is_number();
        items.emplace_back(k, x);
    });
    if (sorted_keys && (strings || numbers)) {
        std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
            return strings ? a.first.as_string() < b.first.as_string() : compare(a.first, b.first) < 0;
        });
    }
    return items;
}

/// repr(v); with `sorted_keys`, as pprint writes it: the keys of each mapping in order when they
/// are all strings or all numbers (pprint sorts them), otherwise as they come.
inline void append_repr(std::string& out, const value& v, bool sorted_keys) {
    switch (v.kind()) {
    case value_kind::undefined:  // Undefined.__repr__ (a list holding one prints [Undefined])
        check_strict(v);
        out += "Undefined";
        return;
    case value_kind::none: out += "None"; return;
    case value_kind::boolean: out += v.as_bool() ? "True" : "False"; return;
    case value_kind::integer: append_int(out, v.as_integer()); return;
    case value_kind::big_integer: append_big_int(out, v.big_integer()); return;
    case value_kind::floating: py_float_repr(out, v.as_float()); return;
    case value_kind::string:
        if (v.is_markup()) {
            out += "Markup(";
            py_str_repr(out, v.as_string());
            out += ')';
        } else {
            py_str_repr(out, v.as_string());
        }
        return;
    case value_kind::list: {
        const auto& l = v.list();
        if (l.generator) {
            out += "<generator object>";
            return;
        }
        check_stack();
        if (l.view_name) {
            out += l.view_name;
            out += '(';
        }
        out += l.tuple ? '(' : '[';
        for (std::size_t i = 0; i < l.items.size(); ++i) {
            if (i) out += ", ";
            append_repr(out, l.items[i], sorted_keys);
            check_text_size(out);
        }
        if (l.tuple && l.items.size() == 1) out += ',';
        out += l.tuple ? ')' : ']';
        if (l.view_name) out += ')';
        return;
    }
    case value_kind::view:
        check_stack();
        if (v.view_adapter()->shape == view_shape::sequence) {
            const adapter* ad = v.view_adapter();
            out += '[';
            bool first = true;
            auto item = [&](const value& x, const value&) {
                if (!first) out += ", ";
                first = false;
                append_repr(out, x, sorted_keys);
                check_text_size(out);
            };
            if (ad->each) {
                adapter_each(ad, v.view_object(), item);
            } else {
                const std::size_t n = ad->size(v.view_object());
                for (std::size_t i = 0; i < n; ++i) item(ad->at(v.view_object(), i), value());
            }
            out += ']';
            return;
        }
        [[fallthrough]];
    case value_kind::dict: {
        check_stack();
        const auto items = mapping_items(v, sorted_keys);
        out += '{';
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) out += ", ";
            append_repr(out, items[i].first, sorted_keys);
            out += ": ";
            append_repr(out, items[i].second, sorted_keys);
            check_text_size(out);
        }
        out += '}';
        return;
    }
    case value_kind::object: v.object().repr(out); return;
    }
}

inline std::string to_repr(const value& v) {
    std::string s;
    append_repr(s, v);
    return s;
}

/// len(v); undefined has length 0.
inline std::size_t length(const value& v) {
    switch (v.kind()) {
    case value_kind::string: return utf8_length(v.as_string());
    case value_kind::list:
        if (v.list().generator) type_error("object of type 'generator' has no len()");
        return v.list().items.size();
    case value_kind::dict: return v.dict().items.size();
    case value_kind::view: return v.view_adapter()->size(v.view_object());
    case value_kind::undefined: check_strict(v); return 0;
    default: type_error(std::string("object of type '") + type_name(v) + "' has no len()");
    }
}

/// Python truth value.
inline bool truthy(const value& v) {
    switch (v.kind()) {
    case value_kind::undefined: check_strict(v); return false;
    case value_kind::none: return false;
    case value_kind::boolean:
    case value_kind::integer: return v.as_integer() != 0;
    case value_kind::floating: return v.as_float() != 0.0;
    case value_kind::string: return v.as_string().size() != 0;
    case value_kind::list: return v.list().generator || !v.list().items.empty();
    case value_kind::dict: return !v.dict().items.empty();
    case value_kind::view: return v.view_adapter()->size(v.view_object()) != 0;
    case value_kind::object: return true;
    case value_kind::big_integer: return true;  // (never zero)
    }
    return false;
}

}  // namespace parley::jinja::detail

#endif
