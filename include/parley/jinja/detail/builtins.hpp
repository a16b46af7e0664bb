// parley/jinja/detail/builtins.hpp: the table that installs Jinja2's built-in filters, tests and
// global functions (parley/jinja/detail/builtins/, a file per kind) into an environment.
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_HPP

#include <parley/jinja/detail/builtins/globals.hpp>

namespace parley::jinja::detail {

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
