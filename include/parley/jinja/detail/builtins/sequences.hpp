// parley/jinja/detail/builtins/sequences.hpp: the built-in filters of sequences and mappings:
// length, first, last, join, sort, dictsort, unique, sum, batch, groupby, map, select, attr,
// default, random...
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_SEQUENCES_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_SEQUENCES_HPP

#include <parley/jinja/detail/builtins/numbers.hpp>

namespace parley::jinja::detail {

namespace filters {

// ---- sequences ----------------------------------------------------------------------------------

inline value f_length(render_state&, const value& v, arguments&) { return value(static_cast<long long>(length(v))); }
inline value f_list(render_state&, const value& v, arguments&) { return value::make_list(items_of(v)); }

inline value f_first(render_state&, const value& v, arguments&) {
    sequence s(v);
    if (s.size() == 0) return value::undefined(undefined_form::hint, "No first item, sequence was empty.");
    return s[0];
}
inline value f_last(render_state&, const value& v, arguments&) {
    if (!v.is_sequence_like() && !v.is_string()) {
        if (v.is_undefined()) return value::undefined(undefined_form::hint, "No last item, sequence was empty.");
    }
    sequence s(v);
    if (s.size() == 0) return value::undefined(undefined_form::hint, "No last item, sequence was empty.");
    // Python's reversed() indexes: the last character of a Markup string is Markup, where
    // iteration (`first`) gives a str
    return s[s.size() - 1].with_markup(v.is_markup());
}
inline value f_join(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"d", "attribute"};
    bound_args<2> b(a, "join", p);
    const value sep = b.get(0, value::view_of(""));
    sequence s(v);
    std::string out;
    // with autoescaping, a Markup separator or item makes the result Markup (the other parts
    // escaped); otherwise Jinja joins the texts
    bool markup = st.autoescape() && sep.is_markup();
    std::vector<value> parts;
    parts.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        value it = s[i];
        if (b.has(1)) it = attribute_arg(st, it, b[1]);
        if (it.is_markup() && st.autoescape()) markup = true;
        parts.push_back(std::move(it));
    }
    const std::string sep_s = to_str(sep);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) {
            if (markup && !sep.is_markup()) html_escape(out, sep_s);
            else out += sep_s;
        }
        if (markup && !parts[i].is_markup()) html_escape(out, to_str(parts[i]));
        else append_str(out, parts[i]);
        if (out.size() > st.max_size()) raise(errc::template_limit, "join result exceeds the output size limit");
    }
    return markup ? value::markup(std::move(out)) : value(std::move(out));
}
inline value f_reverse(render_state&, const value& v, arguments&) {
    if (v.is_string()) {
        std::vector<std::pair<std::size_t, std::size_t>> cps;
        const std::string_view s = v.as_string();
        for (std::size_t i = 0; i < s.size();) {
            const std::size_t b = i;
            utf8_decode(s, i);
            cps.emplace_back(b, i - b);
        }
        std::string r;
        r.reserve(s.size());
        for (auto it = cps.rbegin(); it != cps.rend(); ++it) r.append(s.substr(it->first, it->second));
        return like_input(v, std::move(r));
    }
    auto items = items_of(v);
    std::reverse(items.begin(), items.end());
    return value::make_list(std::move(items));
}
inline value f_sort(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"reverse", "case_sensitive", "attribute"};
    bound_args<3> b(a, "sort", p);
    const bool rev = b.has(0) && reverse_arg(b[0]);
    const bool cs = b.has(1) && truthy(b[1]);
    auto items = items_of(v);
    std::vector<std::pair<value, value>> keyed;
    const bool several = b.has(2) && b[2].is_string() && b[2].as_string().find(',') != std::string_view::npos;
    for (auto& it : items) {
        if (several) {
            // "a,b": sort by a tuple of attributes
            std::vector<value> parts;
            const std::string_view spec = b[2].as_string();
            for (std::size_t s0 = 0; s0 <= spec.size();) {
                std::size_t e = spec.find(',', s0);
                if (e == std::string_view::npos) e = spec.size();
                parts.push_back(ignore_case(attr_path(st, it, py_strip(spec.substr(s0, e - s0), std::nullopt, true, true)), cs));
                s0 = e + 1;
            }
            keyed.emplace_back(value::make_list(std::move(parts), true), it);
        } else {
            keyed.emplace_back(ignore_case(b.has(2) ? attribute_arg(st, it, b[2]) : it, cs), it);
        }
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        return rev ? compare(y.first, x.first) < 0 : compare(x.first, y.first) < 0;
    });
    std::vector<value> r;
    for (auto& kv : keyed) r.push_back(kv.second);
    return value::make_list(std::move(r));
}
inline value f_dictsort(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"case_sensitive", "by", "reverse"};
    bound_args<3> b(a, "dictsort", p);
    const bool cs = b.has(0) && truthy(b[0]);
    const std::string by = b.has(1) ? to_str(b[1]) : std::string("key");
    const bool rev = b.has(2) && reverse_arg(b[2]);
    if (by != "key" && by != "value") raise(errc::template_value, "You can only sort by either \"key\" or \"value\"");
    if (!v.is_mapping_like()) type_error(std::string("'") + type_name(v) + "' object has no attribute 'items'");
    std::vector<std::pair<value, value>> items;
    for_each_item(v, [&](const value& k, const value& x) { items.emplace_back(k, x); });
    std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) {
        const value& kx = by == "key" ? x.first : x.second;
        const value& ky = by == "key" ? y.first : y.second;
        const value a1 = ignore_case(kx, cs), b1 = ignore_case(ky, cs);
        return rev ? compare(b1, a1) < 0 : compare(a1, b1) < 0;
    });
    std::vector<value> r;
    for (auto& [k, x] : items) r.push_back(value::make_list({k, x}, true));
    return value::make_list(std::move(r));
}
inline value f_unique(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"case_sensitive", "attribute"};
    bound_args<2> b(a, "unique", p);
    const bool cs = b.has(0) && truthy(b[0]);
    std::vector<value> seen, r;
    for (auto& it : items_of(v)) {
        value key = ignore_case(b.has(1) ? attribute_arg(st, it, b[1]) : it, cs);
        bool dup = false;
        for (auto& s : seen)
            if (equals(s, key)) {
                dup = true;
                break;
            }
        if (!dup) {
            seen.push_back(key);
            r.push_back(it);
        }
    }
    return value::make_list(std::move(r));
}
inline value min_max(render_state& st, const value& v, arguments& a, bool want_max) {
    static constexpr std::string_view p[] = {"case_sensitive", "attribute"};
    bound_args<2> b(a, want_max ? "max" : "min", p);
    const bool cs = b.has(0) && truthy(b[0]);
    auto items = items_of(v);
    if (items.empty()) return value::undefined(undefined_form::hint, want_max ? "No aggregated item, sequence was empty." : "No aggregated item, sequence was empty.");
    std::size_t best = 0;
    value bestkey = ignore_case(b.has(1) ? attribute_arg(st, items[0], b[1]) : items[0], cs);
    for (std::size_t i = 1; i < items.size(); ++i) {
        value k = ignore_case(b.has(1) ? attribute_arg(st, items[i], b[1]) : items[i], cs);
        const int c = compare(k, bestkey);
        if (want_max ? c > 0 : c < 0) {
            best = i;
            bestkey = k;
        }
    }
    return items[best];
}
inline value f_max(render_state& st, const value& v, arguments& a) { return min_max(st, v, a, true); }
inline value f_min(render_state& st, const value& v, arguments& a) { return min_max(st, v, a, false); }
inline value f_sum(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"attribute", "start"};
    bound_args<2> b(a, "sum", p);
    value total = b.get(1, value(0));
    for (auto& it : items_of(v)) total = arith(op::add, total, b.has(0) ? attribute_arg(st, it, b[0]) : it, st.max_size());
    return total;
}
inline value f_batch(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"linecount", "fill_with"};
    bound_args<2> b(a, "batch", p);
    if (!b.has(0)) raise(errc::template_type, "do_batch() missing 1 required positional argument: 'linecount'");
    // Jinja2: a batch ends when its length == linecount (compared as Python compares: 2.0 is 2,
    // and a linecount no length equals makes one batch); the last is filled when shorter
    const value& linecount = b[0];
    std::vector<value> r, cur;
    for (auto& it : items_of(v)) {
        if (equals(value(static_cast<long long>(cur.size())), linecount)) {
            r.push_back(value::make_list(std::move(cur)));
            cur.clear();
        }
        cur.push_back(it);
    }
    if (!cur.empty()) {
        if (b.has(1) && !b[1].is_none() && compare_holds(value(static_cast<long long>(cur.size())), linecount, op::lt)) {
            // [fill_with] * (linecount - len(tmp))
            const value missing = arith(op::sub, linecount, value(static_cast<long long>(cur.size())), st.max_size());
            if (!is_int_like(missing))
                type_error(std::string("can't multiply sequence by non-int of type '") + type_name(missing) + "'");
            bounded(missing.is_big_integer() ? std::numeric_limits<long>::max() : static_cast<long>(missing.as_integer()),
                    static_cast<std::size_t>(st.opt().limit.max_range), "batch size with fill_with");
            for (std::int64_t k = 0; k < missing.as_integer(); ++k) cur.push_back(b[1]);
        }
        r.push_back(value::make_list(std::move(cur)));
    }
    return value::make_list(std::move(r));
}
inline value f_slice(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"slices", "fill_with"};
    bound_args<2> b(a, "slice", p);
    const long slices = bounded(int_arg(b[0], 1, "slices"), static_cast<std::size_t>(st.opt().limit.max_range), "slices");
    if (slices <= 0) raise(errc::template_value, "slices must be positive");
    auto seq = items_of(v);
    const long length = static_cast<long>(seq.size());
    const long items_per = length / slices, extra = length % slices;
    long offset = 0;
    std::vector<value> r;
    for (long i = 0; i < slices; ++i) {
        const long start = offset + i * items_per;
        if (i < extra) ++offset;
        const long end = offset + (i + 1) * items_per;
        std::vector<value> tmp(seq.begin() + start, seq.begin() + end);
        if (b.has(1) && !b[1].is_none() && i >= extra) tmp.push_back(b[1]);
        r.push_back(value::make_list(std::move(tmp)));
    }
    return value::make_list(std::move(r));
}
inline value f_items(render_state&, const value& v, arguments&) {
    if (v.is_undefined()) return value::make_list({});
    if (!v.is_mapping_like()) type_error("Can only get item pairs from a mapping.");
    std::vector<value> r;
    r.reserve(length(v));
    for_each_item(v, [&](const value& k, const value& x) { r.push_back(value::make_list({k, x}, true)); });
    return value::make_list(std::move(r));
}
inline value f_attr(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"name"};
    bound_args<1> b(a, "attr", p);
    if (!b[0].is_string()) type_error(std::string("attribute name must be string, not '") + type_name(b[0]) + "'");
    const std::string_view name = b[0].as_string();
    if (v.is_undefined()) fail_undefined(v);
    const method_function* own = find_user_method(st.user_methods(), name);
    if (v.is_object()) {
        value r = v.object().getattr(name);
        if (r.is_defined() || !own) return r;
    } else if (has_method(v, name)) {
        return get_attribute(v, name, st.opt().sandboxed, st.strict());
    }
    if (own) return bind_user_method(v, name, own);
    return value();  // attr() does not fall back to items
}
inline value f_default(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"default_value", "boolean"};
    bound_args<2> b(a, "default", p);
    const bool boolean = b.has(1) && truthy(b[1]);
    if (v.is_undefined() || (boolean && !truthy(v))) return b.get(0, value::view_of(""));
    return v;
}
inline value f_groupby(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"attribute", "default", "case_sensitive"};
    bound_args<3> b(a, "groupby", p);
    const bool cs = b.has(2) && truthy(b[2]);
    auto items = items_of(v);
    std::vector<std::pair<value, value>> keyed;  // (sort key, item)
    for (auto& it : items) {
        value k = attribute_arg(st, it, b[0]);
        if (k.is_undefined() && b.has(1)) k = b[1];
        keyed.emplace_back(ignore_case(k, cs), it);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return compare(x.first, y.first) < 0; });
    std::vector<value> groups;
    for (std::size_t i = 0; i < keyed.size();) {
        std::size_t j = i;
        std::vector<value> members;
        while (j < keyed.size() && equals(keyed[j].first, keyed[i].first)) members.push_back(keyed[j++].second);
        value grouper = keyed[i].first;
        if (!cs) {
            // the group's key as it appears in its first item
            value k = attribute_arg(st, keyed[i].second, b[0]);
            if (k.is_undefined() && b.has(1)) k = b[1];
            grouper = k;
        }
        value gt = value::make_list({grouper, value::make_list(std::move(members))}, true);
        gt.list().group = true;
        groups.push_back(std::move(gt));
        i = j;
    }
    return value::make_list(std::move(groups));
}

inline value f_map(render_state& st, const value& v, arguments& a) {
    if (!truthy(v)) return generator({});
    auto items = items_of(v);
    std::vector<value> r;
    r.reserve(items.size());
    const value attribute = a.keyword("attribute");
    if (a.size() == 0 && attribute.is_defined()) {
        const value def = a.keyword("default");
        for (auto& it : items) {
            value x = attribute_arg(st, it, attribute);
            if (x.is_undefined() && def.is_defined()) x = def;
            r.push_back(x);
        }
        return generator(std::move(r));
    }
    if (a.size() == 0) type_error("map requires a filter argument");
    const std::string name = to_str(a[0]);
    arguments rest;
    for (std::size_t i = 1; i < a.size(); ++i) rest.push(a[i]);
    for (auto& [k, x] : a.keywords()) rest.push_keyword(k, x);
    for (auto& it : items) r.push_back(st.apply_filter(name, it, rest));
    return generator(std::move(r));
}

inline value select_impl(render_state& st, const value& v, arguments& a, bool by_attr, bool keep) {
    if (!truthy(v)) return generator({});
    auto items = items_of(v);
    std::size_t first = 0;
    value attribute;
    if (by_attr) {
        if (a.size() == 0) type_error("Missing parameter for attribute name");
        attribute = a[0];
        first = 1;
    }
    std::string test;
    arguments rest;
    const bool has_test = a.size() > first;
    if (has_test) {
        test = to_str(a[first]);
        for (std::size_t i = first + 1; i < a.size(); ++i) rest.push(a[i]);
        for (auto& [k, x] : a.keywords()) rest.push_keyword(k, x);
    }
    std::vector<value> r;
    for (auto& it : items) {
        const value x = by_attr ? attribute_arg(st, it, attribute) : it;
        const bool ok = has_test ? st.apply_test(test, x, rest) : truthy(x);
        if (ok == keep) r.push_back(it);
    }
    return generator(std::move(r));
}
inline value f_select(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, false, true); }
inline value f_reject(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, false, false); }
inline value f_selectattr(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, true, true); }
inline value f_rejectattr(render_state& st, const value& v, arguments& a) { return select_impl(st, v, a, true, false); }


// ---- random -------------------------------------------------------------------------------------

inline value f_random(render_state&, const value& v, arguments& a) {
    expect_no_arguments(a, "do_random");
    const std::size_t n = length(v);
    if (n == 0) return value::undefined(undefined_form::hint, "No random item, sequence was empty.");
    if (v.is_list() && v.list().view_name) type_error(std::string("'") + type_name(v) + "' object is not subscriptable");
    const std::size_t i = std::uniform_int_distribution<std::size_t>(0, n - 1)(random_engine());
    if (v.is_mapping_like()) {
        // random.choice indexes the mapping with an integer position
        value out;
        if (mapping_find(v, value(static_cast<long long>(i)), out)) return out;
        raise(errc::template_value, "KeyError: " + std::to_string(i));
    }
    return sequence(v)[i];
}

}  // namespace filters

}  // namespace parley::jinja::detail

#endif
