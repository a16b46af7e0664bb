// parley/jinja/detail/builtins/common.hpp: what the built-in filters, tests and globals share: the
// filters' helpers (soft_str, attribute getters...), argument checks, the random source.
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_COMMON_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_COMMON_HPP

#include <parley/jinja/detail/dump.hpp>
#include <parley/jinja/detail/render.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace parley::jinja::detail {

/// The random source of `random` and `lipsum()`: one generator per thread, seeded from
/// std::random_device, so concurrent renders never share state.
inline std::mt19937_64& random_engine() {
    thread_local std::mt19937_64 engine = [] {
        std::random_device device;
        std::seed_seq seed{device(), device(), device(), device()};
        return std::mt19937_64(seed);
    }();
    return engine;
}

/// Refuses arguments given to a filter or test that takes none besides its input.
inline void expect_no_arguments(const arguments& a, const char* name) {
    if (a.size() || !a.keywords().empty())
        type_error(std::string(name) + "() takes no arguments besides the value it is applied to");
}

namespace filters {

using F = value (*)(render_state&, const value&, arguments&);

// soft_str: str() that keeps Markup
inline value soft_str(const value& v) {
    if (v.is_string()) return v;
    return value(to_str(v));
}

/// Jinja's attribute getter: "a.b.0" walks getitem for each part (digits become integers).
inline value attr_path(render_state& st, const value& item, std::string_view path) {
    value cur = item;
    std::size_t b = 0;
    while (b <= path.size()) {
        std::size_t e = path.find('.', b);
        if (e == std::string_view::npos) e = path.size();
        const std::string_view part = path.substr(b, e - b);
        value key = (!part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos)
                        ? value(static_cast<long long>(std::stoll(std::string(part))))
                        : value(std::string(part));
        if (cur.is_undefined()) return cur;
        cur = get_item(cur, key, st.opt().sandboxed, st.strict(), st.user_methods());
        b = e + 1;
    }
    return cur;
}

/// Jinja2's attribute getter: a string is a dotted path, None (or no attribute) the item itself,
/// anything else one subscript.
inline value attribute_arg(render_state& st, const value& item, const value& attribute) {
    if (attribute.is_string()) return attr_path(st, item, attribute.as_string());
    if (attribute.is_undefined() || attribute.is_none()) return item;
    return get_item(item, attribute, st.opt().sandboxed, st.strict(), st.user_methods());
}

/// `reverse` of sort and dictsort, which Python's sorted() takes as an integer.
inline bool reverse_arg(const value& v) {
    if (!v.is_bool() && !v.is_integer())
        type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
    return truthy(v);
}

inline value ignore_case(const value& v, bool case_sensitive) {
    if (case_sensitive || !v.is_string()) return v;
    std::string s;
    py_lower(s, v.as_string());
    return value(std::move(s));
}

inline std::vector<value> items_of(const value& v) { return sequence(v).to_vector(); }

/// The lazy result of map/select/reject: a generator in Python.
inline value generator(std::vector<value> items) {
    value g = value::make_list(std::move(items));
    g.list().generator = true;
    return g;
}

}  // namespace filters

}  // namespace parley::jinja::detail

#endif
