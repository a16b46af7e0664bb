// parley/jinja/detail/builtins/tests.hpp: Jinja2's built-in tests (defined, none, number,
// divisibleby, sameas, in, filter, test...).
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_TESTS_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_TESTS_HPP

#include <parley/jinja/detail/builtins/json.hpp>

namespace parley::jinja::detail {

namespace tests {

inline bool t_defined(render_state&, const value& v, arguments&) { return v.is_defined(); }
inline bool t_undefined(render_state&, const value& v, arguments&) { return v.is_undefined(); }
inline bool t_none(render_state&, const value& v, arguments&) { return v.is_none(); }
inline bool t_boolean(render_state&, const value& v, arguments&) { return v.is_bool(); }
inline bool t_true(render_state&, const value& v, arguments&) { return v.is_bool() && v.as_bool(); }
inline bool t_false(render_state&, const value& v, arguments&) { return v.is_bool() && !v.as_bool(); }
inline bool t_integer(render_state&, const value& v, arguments&) { return v.is_integer() || v.is_big_integer(); }
inline bool t_float(render_state&, const value& v, arguments&) { return v.is_float(); }
inline bool t_number(render_state&, const value& v, arguments&) { return v.is_number(); }
inline bool t_string(render_state&, const value& v, arguments&) { return v.is_string(); }
inline bool t_mapping(render_state&, const value& v, arguments&) { return v.is_mapping_like(); }
inline bool t_iterable(render_state&, const value& v, arguments&) {
    return v.is_string() || v.is_sequence_like() || v.is_mapping_like() || v.is_undefined();
}
inline bool t_sequence(render_state&, const value& v, arguments&) {
    // Jinja2's Undefined has a length and items (StrictUndefined fails on both)
    if (v.is_undefined()) return !v.is_strict_undefined();
    if (sequence_type(v) == seq_type::other) return false;  // generators and dict views have no __getitem__
    return v.is_string() || v.is_sequence_like() || v.is_mapping_like();
}
inline bool t_callable(render_state&, const value& v, arguments&) {
    return v.is_undefined() || (v.is_object() && v.object().callable());  // an Undefined can be called (to fail)
}
inline bool t_escaped(render_state&, const value& v, arguments&) { return v.is_markup(); }
// Python's value % x: for a string, printf-style formatting ('%d' % 2 is '2', 'abc' % [1] is 'abc')
inline value modulo(render_state& st, const value& v, const value& x) {
    return v.is_string() ? percent_format_impl(v, x, st.max_size()) : arith(op::mod, v, x, st.max_size());
}
// Jinja: value % 2 == 1 and value % 2 == 0 (2.5 is neither)
inline bool t_odd(render_state& st, const value& v, arguments&) { return equals(modulo(st, v, value(2)), value(1)); }
inline bool t_even(render_state& st, const value& v, arguments&) { return equals(modulo(st, v, value(2)), value(0)); }
// the tests below with parameters run after check_arguments: what they need is there
inline bool t_divisibleby(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"num"};
    bound_args<1> b(a, "divisibleby", p);
    return equals(modulo(st, v, b[0]), value(0));
}
inline bool t_eq(render_state&, const value& v, arguments& a) { return equals(v, a[0]); }
inline bool t_ne(render_state&, const value& v, arguments& a) { return !equals(v, a[0]); }
inline bool t_lt(render_state&, const value& v, arguments& a) { return compare_holds(v, a[0], op::lt); }
inline bool t_le(render_state&, const value& v, arguments& a) { return compare_holds(v, a[0], op::lteq); }
inline bool t_gt(render_state&, const value& v, arguments& a) { return compare_holds(v, a[0], op::gt); }
inline bool t_ge(render_state&, const value& v, arguments& a) { return compare_holds(v, a[0], op::gteq); }
inline bool t_in(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"seq"};
    bound_args<1> b(a, "test_in", p);
    return contains(b[0], v);
}
inline bool t_lower(render_state&, const value& v, arguments&) { return py_str_islower(to_str(v)); }
inline bool t_upper(render_state&, const value& v, arguments&) { return py_str_isupper(to_str(v)); }
inline bool t_sameas(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"other"};
    bound_args<1> b(a, "test_sameas", p);
    const value& o = b[0];
    if (v.kind() != o.kind()) return false;
    switch (v.kind()) {
    case value_kind::none:
    case value_kind::undefined: return true;
    case value_kind::boolean:
    case value_kind::integer: return v.as_integer() == o.as_integer();
    case value_kind::floating: return false;
    case value_kind::string: return v.as_string().data() == o.as_string().data() && v.as_string().size() == o.as_string().size();
    case value_kind::list: return &v.list() == &o.list();
    case value_kind::dict: return &v.dict() == &o.dict();
    case value_kind::view: return v.view_object() == o.view_object();
    case value_kind::object: return &v.object() == &o.object();
    case value_kind::big_integer: return &v.big_integer() == &o.big_integer();
    }
    return false;
}


/// Whether the environment has a filter (or a test) of that name; false for a value that is
/// not a string, an error for one Python cannot hash.
inline bool known_name(const value& v, bool filters, const env_data& e) {
    if (!hashable(v)) type_error(std::string("unhashable type: '") + type_name(v) + "'");
    if (!v.is_string()) return false;
    return filters ? e.filters.find(v.as_string()) != e.filters.end() : e.tests.find(v.as_string()) != e.tests.end();
}
inline bool t_filter(render_state& st, const value& v, arguments& a) {
    expect_no_arguments(a, "test_filter");
    return known_name(v, true, st.env());
}
inline bool t_test(render_state& st, const value& v, arguments& a) {
    expect_no_arguments(a, "test_test");
    return known_name(v, false, st.env());
}

}  // namespace tests

}  // namespace parley::jinja::detail

#endif
