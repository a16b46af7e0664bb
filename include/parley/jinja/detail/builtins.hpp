// parley/jinja/detail/builtins.hpp: Jinja2's built-in tests and global functions, and the
// table that installs them (with the filters) into an environment.
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_HPP

#include <parley/jinja/detail/filters.hpp>
#include <parley/jinja/detail/more_builtins.hpp>

#include <chrono>
#include <ctime>

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
}  // namespace tests

namespace globals {

/// range() over Python ints of any size (the bounds or the count beyond 64 bits).
inline value big_range(const bigint& start, const bigint& stop, const bigint& step, std::int64_t limit) {
    bigint count;  // ceil((stop - start) / step) when positive
    const bigint span = stop - start;
    if (!span.is_zero() && span.negative() == step.negative()) {
        bigint r;
        bigint::divmod(span.abs() + step.abs() - bigint(1), step.abs(), count, r);
    }
    if (compare(count, bigint(limit)) > 0)
        raise(errc::template_limit, "range too big: it would have " + count.to_string() + " items (limit " +
                                        std::to_string(limit) + ")");
    std::vector<value> r;
    bigint x = start;
    for (bigint i; compare(i, count) < 0; i = i + bigint(1)) {
        r.push_back(make_int(x));
        x = x + step;
    }
    return value::make_list(std::move(r));
}

inline value g_range(render_state& st, arguments& a) {  // one to three arguments (function_obj::call checks)
    for (const value& v : a.positional())
        if (!is_int_like(v)) type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
    const std::int64_t limit = st.opt().sandboxed ? std::min<std::int64_t>(100000, st.opt().limit.max_range)
                                                  : st.opt().limit.max_range;
    const value zero(0);
    const value& start_v = a.size() == 1 ? zero : a[0];
    const value& stop_v = a.size() == 1 ? a[0] : a[1];
    const value one(1);
    const value& step_v = a.size() == 3 ? a[2] : one;
    if (!step_v.is_big_integer() && step_v.as_integer() == 0) raise(errc::template_value, "range() arg 3 must not be zero");
    const auto big = [](const value& v) { return v.is_big_integer(); };
    std::int64_t start = 0, stop = 0, step = 1, count = 0;
    bool beyond = big(start_v) || big(stop_v) || big(step_v) ||
                  step_v.as_integer() == std::numeric_limits<std::int64_t>::min();
    if (!beyond) {
        start = start_v.as_integer();
        stop = stop_v.as_integer();
        step = step_v.as_integer();
        std::int64_t span = 0;
        if (step > 0 && stop > start) beyond = __builtin_sub_overflow(stop, start, &span) || __builtin_add_overflow(span, step - 1, &span);
        if (step < 0 && stop < start) beyond = __builtin_sub_overflow(start, stop, &span) || __builtin_sub_overflow(span, step + 1, &span);
        if (!beyond && span > 0) count = span / (step > 0 ? step : -step);
    }
    if (beyond) return big_range(big_of(start_v), big_of(stop_v), big_of(step_v), limit);
    if (count > limit)
        raise(errc::template_limit, "range too big: it would have " + std::to_string(count) + " items (limit " +
                                        std::to_string(limit) + ")");
    std::vector<value> r;
    r.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) r.push_back(value(static_cast<long long>(start + i * step)));
    return value::make_list(std::move(r));
}

inline value g_dict(render_state&, arguments& a) {
    value d = value::make_dict();
    if (a.size() > 1) type_error("dict expected at most 1 argument, got " + std::to_string(a.size()));
    if (a.size() == 1) {
        if (a[0].is_undefined()) fail_undefined(a[0]);  // Python asks it for keys()
        if (a[0].is_mapping_like()) for_each_item(a[0], [&](const value& k, const value& x) { dict_set(d.dict(), k, x); });
        else {
            sequence pairs(a[0]);
            for (std::size_t i = 0; i < pairs.size(); ++i) {
                sequence kv(pairs[i]);
                if (kv.size() != 2) raise(errc::template_value, "dictionary update sequence element has wrong length");
                dict_set(d.dict(), kv[0], kv[1]);
            }
        }
    }
    for (auto& [k, x] : a.keywords()) dict_set(d.dict(), value(std::string(k)), x);
    return d;
}

struct namespace_obj final : object_obj {
    value attrs = value::make_dict();
    const char* type_name() const noexcept override { return "Namespace"; }
    value getattr(std::string_view name) const override {
        value out;
        if (mapping_find(attrs, value::view_of(name), out)) return out;
        return {};
    }
    value getitem(const value& key) const override {
        value out;
        if (mapping_find(attrs, key, out)) return out;
        return {};
    }
    bool setattr(std::string_view name, const value& v) override {
        hold_check(v, this, "namespace");
        dict_set(attrs.dict(), value(std::string(name)), v);
        return true;
    }
    bool is_namespace() const noexcept override { return true; }
    void each_held(void (*fn)(void*, const value&), void* ctx) const override { fn(ctx, attrs); }
    void repr(std::string& out) const override {
        out += "<Namespace ";
        append_repr(out, attrs);
        out += '>';
    }
};

inline value g_namespace(render_state& st, arguments& a) {
    auto* ns = new namespace_obj();
    value v = value::make_object(ns);
    value init = g_dict(st, a);
    ns->attrs = init;
    return v;
}

struct cycler_obj final : object_obj {
    std::vector<value> items;
    std::size_t pos = 0;
    const char* type_name() const noexcept override { return "Cycler"; }
    value getattr(std::string_view name) const override {
        if (name == "current") return items[pos];
        return {};
    }
    bool method(render_state&, std::string_view name, arguments& args, value& result) override {
        if (name == "next" || name == "__next__" || name == "reset") check_arguments({}, "method", name, args, "Cycler");
        if (name == "next" || name == "__next__") {
            result = items[pos];
            pos = (pos + 1) % items.size();
            return true;
        }
        if (name == "reset") {
            pos = 0;
            result = value(nullptr);
            return true;
        }
        return false;
    }
    bool has_method(std::string_view name) const noexcept override { return name == "next" || name == "reset"; }
    void repr(std::string& out) const override { out += "<Cycler>"; }
    void each_held(void (*fn)(void*, const value&), void* ctx) const override {
        for (const value& x : items) fn(ctx, x);
    }
};

inline value g_cycler(render_state&, arguments& a) {
    if (!a.keywords().empty()) type_error("function 'cycler' takes no keyword arguments");
    if (a.size() == 0) type_error("at least one item has to be provided");
    auto* c = new cycler_obj();
    value v = value::make_object(c);
    c->items = a.positional();
    return v;
}

struct joiner_obj final : object_obj {
    value sep;
    mutable bool used = false;
    const char* type_name() const noexcept override { return "Joiner"; }
    bool callable() const noexcept override { return true; }
    value call(render_state&, arguments& args) const override {
        check_arguments({}, "method", "__call__", args, "Joiner");
        if (!used) {
            used = true;
            return value::view_of("");
        }
        return sep;
    }
    void repr(std::string& out) const override { out += "<Joiner>"; }
    void each_held(void (*fn)(void*, const value&), void* ctx) const override { fn(ctx, sep); }
};

inline value g_joiner(render_state&, arguments& a) {
    auto* j = new joiner_obj();
    value v = value::make_object(j);
    j->sep = a.size() ? a[0] : a.keyword("sep").is_defined() ? a.keyword("sep") : value::view_of(", ");
    return v;
}

inline value g_raise_exception(render_state&, arguments& a) {
    raise(errc::template_raised, to_str(a.size() ? a[0] : a.keyword("message")));
}

inline value g_strftime_now(render_state& st, arguments& a) {
    const value f = a.size() ? a[0] : a.keyword("fmt");
    if (!f.is_string()) type_error(std::string("strftime() argument 1 must be str, not ") + type_name(f));
    const auto now = st.opt().clock ? st.opt().clock() : std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    const std::string fmt(f.as_string());
    std::string buf(256, '\0');
    for (int attempt = 0; attempt < 6; ++attempt) {
        const std::size_t n = std::strftime(buf.data(), buf.size(), fmt.c_str(), &tm);
        if (n || fmt.empty()) {
            buf.resize(n);
            return value(std::move(buf));
        }
        buf.resize(buf.size() * 4);
    }
    return value(std::string());
}

}  // namespace globals

inline value function_obj::call(render_state& st, arguments& args) const {
    if (builtin) {
        if (!params.any) check_arguments(params, "function", name, args);
        return builtin(st, args);
    }
    return render_state::run_user([&] { return user(args); });
}

inline value bound_method_obj::call(render_state& st, arguments& args) const {
    value r;
    if (user) {
        const std::optional<value> u = render_state::run_user([&] { return (*user)(self, args); });
        if (u) return *u;
    } else if (call_method(st, self, name, args, r, st.opt().sandboxed, st.strict())) {
        return r;
    }
    type_error("'" + std::string(detail::type_name(self)) + "' object has no attribute " + single_quoted(name));
}

inline bool call_user_method(render_state&, const value& self, std::string_view name, const arguments& args,
                             value& result, const method_table* user) {
    const method_function* f = find_user_method(user, name);
    // an undefined receiver fails as in Jinja2 (by the caller's attribute lookup)
    if (!f || self.is_undefined() || has_own_attribute(self, name)) return false;
    std::optional<value> r = render_state::run_user([&] { return (*f)(self, args); });
    if (!r) return false;
    result = std::move(*r);
    return true;
}

inline value render_state::percent_format(const value& fmt, const value& args) {
    return percent_format_impl(fmt, args, max_size());
}

/// Adds (or replaces) the built-in global function `name` of an environment.
inline void add_builtin_function(env_data& e, const char* name, value (*f)(render_state&, arguments&),
                                 builtin_params params) {
    auto o = std::make_unique<function_obj>();
    o->name = name;
    o->builtin = f;
    o->params = params;
    e.functions[name] = std::move(o);
}

inline void install_builtins(env_data& e) {
    using namespace filters;
    const std::pair<const char*, builtin_filter> fs[] = {
        {"abs", f_abs}, {"attr", f_attr}, {"batch", f_batch}, {"capitalize", f_capitalize}, {"center", f_center},
        {"count", f_length}, {"d", f_default}, {"default", f_default}, {"dictsort", f_dictsort}, {"e", f_escape},
        {"escape", f_escape}, {"first", f_first}, {"float", f_float}, {"forceescape", f_forceescape},
        {"format", f_format}, {"groupby", f_groupby}, {"indent", f_indent}, {"int", f_int}, {"items", f_items},
        {"join", f_join}, {"last", f_last}, {"length", f_length}, {"list", f_list}, {"lower", f_lower},
        {"map", f_map}, {"max", f_max}, {"min", f_min}, {"pprint", f_pprint}, {"reject", f_reject},
        {"rejectattr", f_rejectattr}, {"replace", f_replace}, {"reverse", f_reverse}, {"round", f_round},
        {"safe", f_safe}, {"select", f_select}, {"selectattr", f_selectattr}, {"slice", f_slice}, {"sort", f_sort},
        {"string", f_string}, {"striptags", f_striptags}, {"sum", f_sum}, {"title", f_title},
        {"tojson", e.opt.hf_tojson ? f_tojson_hf : f_tojson_plain}, {"trim", f_trim}, {"truncate", f_truncate},
        {"unique", f_unique}, {"upper", f_upper}, {"urlencode", f_urlencode}, {"wordcount", f_wordcount},
        {"wordwrap", f_wordwrap}, {"filesizeformat", f_filesizeformat}, {"xmlattr", f_xmlattr},
        {"urlize", f_urlize}, {"random", f_random},
    };
    for (auto& [name, fn] : fs) e.filters[name].builtin = fn;
    // Jinja2's parameters of each filter after its input (the first `required` without default)
    using P = builtin_params;
    const struct {
        const char* filters;  // separated by spaces
        builtin_params params;
    } signatures[] = {
        {"attr", P::of("name", 1)},
        {"batch", P::of("linecount fill_with", 1)},
        {"center", P::of("width", 0)},
        {"d default", P::of("default_value boolean", 0)},
        {"dictsort", P::of("case_sensitive by reverse", 0)},
        {"float", P::of("default", 0)},
        {"groupby", P::of("attribute default case_sensitive", 1)},
        {"indent", P::of("width first blank", 0)},
        {"int", P::of("default base", 0)},
        {"join", P::of("d attribute", 0)},
        {"max min", P::of("case_sensitive attribute", 0)},
        {"replace", P::of("old new count", 2)},
        {"round", P::of("precision method", 0)},
        {"slice", P::of("slices fill_with", 1)},
        {"sort", P::of("reverse case_sensitive attribute", 0)},
        {"sum", P::of("attribute start", 0)},
        {"tojson", P::of(e.opt.hf_tojson ? "ensure_ascii indent separators sort_keys" : "indent", 0)},
        {"trim", P::of("chars", 0)},
        {"truncate", P::of("length killwords end leeway", 0)},
        {"unique", P::of("case_sensitive attribute", 0)},
        {"wordwrap", P::of("width break_long_words wrapstring break_on_hyphens", 0)},
        {"filesizeformat", P::of("binary", 0)},
        {"xmlattr", P::of("autospace", 0)},
        {"urlize", P::of("trim_url_limit nofollow target rel extra_schemes", 0)},
        // these check their arguments themselves (*args, **kwargs)
        {"format map select reject selectattr rejectattr", P::unchecked()},
    };
    for (const auto& s : signatures)
        for_each_word(s.filters, [&](std::string_view filter) { e.filters[std::string(filter)].params = s.params; });
    using namespace tests;
    const std::pair<const char*, builtin_test> ts[] = {
        {"defined", t_defined}, {"undefined", t_undefined}, {"none", t_none}, {"boolean", t_boolean},
        {"true", t_true}, {"false", t_false}, {"integer", t_integer}, {"float", t_float}, {"number", t_number},
        {"string", t_string}, {"mapping", t_mapping}, {"iterable", t_iterable}, {"sequence", t_sequence},
        {"callable", t_callable}, {"odd", t_odd}, {"even", t_even}, {"divisibleby", t_divisibleby},
        {"eq", t_eq}, {"equalto", t_eq}, {"==", t_eq}, {"ne", t_ne}, {"!=", t_ne}, {"lt", t_lt},
        {"lessthan", t_lt}, {"<", t_lt}, {"le", t_le}, {"<=", t_le}, {"gt", t_gt}, {"greaterthan", t_gt},
        {">", t_gt}, {"ge", t_ge}, {">=", t_ge}, {"in", t_in}, {"lower", t_lower}, {"upper", t_upper},
        {"sameas", t_sameas}, {"escaped", t_escaped}, {"filter", t_filter}, {"test", t_test},
    };
    for (auto& [name, fn] : ts) e.tests[name].builtin = fn;
    // the tests with a parameter after their input (the others take none); Python's operator
    // functions behind the comparisons take theirs by position only
    const struct {
        const char* tests;
        builtin_params params;
    } test_signatures[] = {
        {"divisibleby", P::of("num", 1)},
        {"in", P::of("seq", 1)},
        {"sameas", P::of("other", 1)},
        {"eq equalto == ne != lt lessthan < le <= gt greaterthan > ge >=", P::of("b", 1, false)},
    };
    for (const auto& s : test_signatures)
        for_each_word(s.tests, [&](std::string_view test) { e.tests[std::string(test)].params = s.params; });
    using namespace globals;
    // Python's range() takes its arguments by position only; dict(), namespace() and cycler()
    // take *args (and dict() and namespace() **kwargs): they check them themselves
    add_builtin_function(e, "range", g_range, P::of("start stop step", 1, false));
    add_builtin_function(e, "dict", g_dict, P::unchecked());
    add_builtin_function(e, "namespace", g_namespace, P::unchecked());
    add_builtin_function(e, "cycler", g_cycler, P::unchecked());
    add_builtin_function(e, "joiner", g_joiner, P::of("sep", 0));
    add_builtin_function(e, "lipsum", g_lipsum, P::of("n html min max", 0));
}

}  // namespace parley::jinja::detail

#endif
