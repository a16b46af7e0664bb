// parley/jinja/detail/builtins/text.hpp: the built-in filters of text: case, trim, center, replace,
// escape, striptags, wordcount, indent, truncate, wordwrap, urlencode, format, xmlattr, urlize.
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_TEXT_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_TEXT_HPP

#include <parley/jinja/detail/builtins/common.hpp>
#include <parley/jinja/detail/urlize.hpp>

namespace parley::jinja::detail {

namespace filters {

// ---- strings ------------------------------------------------------------------------------------

/// `s` as the result of a filter that Jinja computes with a method of soft_str(input): Markup
/// when the input is Markup (markupsafe's methods keep it), a str otherwise.
inline value like_input(const value& input, std::string s) {
    return input.is_markup() ? value::markup(std::move(s)) : value(std::move(s));
}
inline value f_upper(render_state&, const value& v, arguments&) {
    std::string s;
    py_upper(s, to_str(v));
    return like_input(v, std::move(s));
}
inline value f_lower(render_state&, const value& v, arguments&) {
    std::string s;
    py_lower(s, to_str(v));
    return like_input(v, std::move(s));
}
inline value f_capitalize(render_state&, const value& v, arguments&) {
    std::string s;
    jinja_capitalize(s, to_str(v));
    return like_input(v, std::move(s));
}
inline value f_title(render_state&, const value& v, arguments&) {
    std::string s;
    jinja_title(s, to_str(v));
    return value(std::move(s));
}
inline value f_trim(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"chars"};
    bound_args<1> b(a, "trim", p);
    if (b.has(0) && b[0].is_undefined()) type_error("strip arg must be None or str");  // str.strip(Undefined)
    const auto chars = opt_str(b[0], "trim");
    if (v.is_string()) {  // a part of the same text (Markup stays Markup)
        const std::string_view s = v.as_string();
        const std::string_view r = py_strip(s, chars, true, true);
        return v.substr(static_cast<std::size_t>(r.data() - s.data()), r.size());
    }
    const std::string s = to_str(v);
    return value(std::string(py_strip(s, chars, true, true)));
}
/// A width or count that sizes a result: beyond `bound` it is refused before anything is built.
inline long bounded(long n, std::size_t bound, const char* what) {
    if (n > 0 && static_cast<unsigned long>(n) > bound)
        raise(errc::template_limit, std::string(what) + " too large (limit " + std::to_string(bound) + ")");
    return n;
}

inline value f_center(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"width"};
    bound_args<1> b(a, "center", p);
    std::string s;
    py_center(s, to_str(v), bounded(int_arg(b[0], 80, "width"), st.max_size(), "center width"), U' ');
    return like_input(v, std::move(s));
}
inline value f_replace(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"old", "new", "count"};
    bound_args<3> b(a, "replace", p);
    const long count = b[2].is_none() ? -1 : int_arg(b[2], -1, "count");
    // Jinja2: str(s).replace(str(old), str(new)) without autoescaping; with it, s is escaped
    // when `old` is safe (or `new` is and s is not), and a safe s escapes the arguments
    // (Markup.replace)
    const auto escaped = [](const value& x) {
        if (x.is_markup()) return std::string(x.as_string());
        std::string e;
        html_escape(e, to_str(x));
        return e;
    };
    const bool safe = st.autoescape() && (v.is_markup() || b[0].is_markup() || b[1].is_markup());
    std::string s;
    if (safe) py_replace(s, escaped(v), escaped(b[0]), escaped(b[1]), count);
    else py_replace(s, to_str(v), to_str(b[0]), to_str(b[1]), count);
    if (s.size() > st.max_size()) raise(errc::template_limit, "replace result exceeds the output size limit");
    return safe ? value::markup(std::move(s)) : value(std::move(s));
}
inline value f_escape(render_state&, const value& v, arguments&) {
    if (v.is_markup()) return v;
    std::string s;
    html_escape(s, to_str(v));
    return value::markup(std::move(s));
}
inline value f_forceescape(render_state&, const value& v, arguments&) {
    std::string s;
    html_escape(s, to_str(v));
    return value::markup(std::move(s));
}
inline value f_safe(render_state&, const value& v, arguments&) {
    if (v.is_markup()) return v;
    return value::markup(to_str(v));
}
inline value f_string(render_state&, const value& v, arguments&) { return soft_str(v); }
inline value f_striptags(render_state&, const value& v, arguments&) {
    std::string s;
    jinja_striptags(s, to_str(v));
    return value(std::move(s));
}
inline value f_wordcount(render_state&, const value& v, arguments&) {
    return value(static_cast<long long>(jinja_wordcount(to_str(v))));
}
inline value f_indent(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"width", "first", "blank"};
    bound_args<3> b(a, "indent", p);
    std::string indention;
    if (b[0].is_string()) indention = std::string(b[0].as_string());
    else indention = std::string(static_cast<std::size_t>(std::max(0L, bounded(int_arg(b[0], 4, "width"), st.max_size(), "indent width"))), ' ');
    const bool first = b.has(1) && truthy(b[1]);
    const bool blank = b.has(2) && truthy(b[2]);
    if (!v.is_string()) {  // Jinja adds "\n" to the value first
        if (v.is_undefined()) fail_undefined(v);
        type_error(std::string("unsupported operand type(s) for +=: '") + type_name(v) + "' and 'str'");
    }
    std::string s = to_str(v) + "\n";  // jinja: s += newline; then splitlines
    // Jinja: if blank: rv = (newline + indention).join(lines) else: lines[1:] indented unless blank
    std::vector<std::string_view> lines = py_splitlines(s, false);
    std::string rv;
    // the indentation is repeated on every line: check the size as the text grows
    const auto check = [&] {
        if (rv.size() > st.max_size()) raise(errc::template_limit, "indent result exceeds the output size limit");
    };
    if (blank) {
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (i) rv += "\n" + indention;
            rv += lines[i];
            check();
        }
    } else {
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (i) {
                rv += "\n";
                if (!lines[i].empty()) rv += indention;
            }
            rv += lines[i];
            check();
        }
    }
    if (first) rv = indention + rv;
    return v.is_markup() ? value::markup(std::move(rv)) : value(std::move(rv));
}
inline value f_truncate(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"length", "killwords", "end", "leeway"};
    bound_args<4> b(a, "truncate", p);
    const long length = saturated_int_arg(b[0], 255, "length");
    const bool killwords = b.has(1) && truthy(b[1]);
    const std::string end = b.has(2) ? to_str(b[2]) : std::string("...");
    const long given_leeway = b.has(3) && !b[3].is_none() ? saturated_int_arg(b[3], 5, "leeway") : 5;
    if (length < static_cast<long>(utf8_length(end)))
        raise(errc::template_value, "expected length >= " + std::to_string(utf8_length(end)) + ", got " + to_str(b.get(0, value(255))));
    if (given_leeway < 0) raise(errc::template_value, "expected leeway >= 0, got " + to_str(b[3]));
    // length + leeway, which no text reaches once it passes what a long holds
    const long leeway = length > std::numeric_limits<long>::max() - given_leeway ? std::numeric_limits<long>::max() - length : given_leeway;
    if (!v.is_string()) {
        // Jinja measures the value with len(): an undefined value has length 0, a list or a
        // mapping short enough comes back as it is, and anything longer cannot be cut as a text
        if (v.is_undefined()) {
            check_strict(v);
            return v;
        }
        if (!v.is_sequence_like() && !v.is_mapping_like())
            type_error(std::string("object of type '") + type_name(v) + "' has no len()");
        if (static_cast<long>(detail::length(v)) <= length + leeway) return v;
        type_error(std::string("can only concatenate ") + type_name(v) + " (not \"str\") to " + type_name(v));
    }
    const std::string_view in = v.as_string();
    if (static_cast<long>(utf8_length(in)) <= length + leeway) return v;
    std::string s;
    jinja_truncate(s, in, length, killwords, end, leeway);
    if (!v.is_markup()) return value(std::move(s));
    // a part of the Markup text + the end: Markup's + escapes an end that is not Markup itself
    if (!b[2].is_markup()) {
        s.resize(s.size() - end.size());
        html_escape(s, end);
    }
    return value::markup(std::move(s));
}
inline value f_wordwrap(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"width", "break_long_words", "wrapstring", "break_on_hyphens"};
    bound_args<4> b(a, "wordwrap", p);
    const long width = saturated_int_arg(b[0], 79, "width");
    const bool blw = b.has(1) ? truthy(b[1]) : true;
    const std::string wrap = b.has(2) && !b[2].is_none() ? to_str(b[2]) : std::string("\n");
    const bool boh = b.has(3) ? truthy(b[3]) : true;
    if (!v.is_string()) {  // Jinja calls the value's splitlines()
        if (v.is_undefined()) fail_undefined(v);
        type_error(std::string("'") + type_name(v) + "' object has no attribute 'splitlines'");
    }
    std::string s;
    try {
        jinja_wordwrap(s, to_str(v), width, blw, wrap, boh, st.max_size());
    } catch (const std::invalid_argument& e) {
        raise(errc::template_value, e.what());
    } catch (const std::length_error& e) {
        raise(errc::template_limit, e.what());
    }
    return value(std::move(s));
}
inline value f_urlencode(render_state&, const value& v, arguments&) {
    auto quote = [](std::string& out, const value& x, bool for_qs) {
        const std::string s = to_str(x);
        std::string q;
        url_quote(q, s, for_qs ? "" : "/");
        if (for_qs) {
            std::size_t pos = 0;
            while ((pos = q.find("%20", pos)) != std::string::npos) {
                q.replace(pos, 3, "+");
                pos += 1;
            }
        }
        out += q;
    };
    std::string out;
    if (v.is_string() || (!v.is_sequence_like() && !v.is_mapping_like() && !v.is_undefined())) {
        quote(out, v, false);  // a string, or what is not iterable (a number, none...): its text
        return value(std::move(out));
    }
    std::vector<std::pair<value, value>> pairs;
    if (v.is_mapping_like()) {
        for_each_item(v, [&](const value& k, const value& x) { pairs.emplace_back(k, x); });
    } else {
        sequence s(v);
        for (std::size_t i = 0; i < s.size(); ++i) {
            sequence kv(s[i]);
            if (kv.size() != 2) raise(errc::template_value, "urlencode expects pairs");
            pairs.emplace_back(kv[0], kv[1]);
        }
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        if (i) out += '&';
        quote(out, pairs[i].first, true);
        out += '=';
        quote(out, pairs[i].second, true);
    }
    return value(std::move(out));
}
inline value f_format(render_state& st, const value& v, arguments& a) {
    if (a.size() && !a.keywords().empty())
        raise(errc::template_value, "can't handle positional and keyword arguments at the same time");
    value args;
    if (!a.keywords().empty()) {
        args = value::make_dict();
        for (auto& [k, x] : a.keywords()) dict_set(args.dict(), value(std::string(k)), x);
    } else {
        args = value::make_list(a.positional(), true);
    }
    return percent_format_impl(soft_str(v), args, st.max_size());
}


// ---- xmlattr ------------------------------------------------------------------------------------

/// markupsafe.escape(v) appended to out: Markup as it is, anything else as str() escaped.
inline void append_escaped(std::string& out, const value& v) {
    if (v.is_markup()) out += v.as_string();
    else html_escape(out, to_str(v));
}

inline value f_xmlattr(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"autospace"};
    bound_args<1> b(a, "do_xmlattr", p);
    const bool autospace = !b.has(0) || truthy(b[0]);
    if (v.is_undefined()) fail_undefined(v);
    if (!v.is_mapping_like()) type_error(std::string("'") + type_name(v) + "' object has no attribute 'items'");
    std::string rv;
    for_each_item(v, [&](const value& key, const value& x) {
        if (x.is_none() || x.is_undefined()) return;
        if (!key.is_string()) type_error("expected string or bytes-like object, got '" + std::string(type_name(key)) + "'");
        const std::string_view k = key.as_string();
        for (char c : k)
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '/' || c == '>' ||
                c == '=')
                raise(errc::template_value, "Invalid character in attribute name: " + single_quoted(k));
        if (!rv.empty()) rv += ' ';
        append_escaped(rv, key);
        rv += "=\"";
        append_escaped(rv, x);
        rv += '"';
        if (rv.size() > st.max_size()) raise(errc::template_limit, "xmlattr result exceeds the output size limit");
    });
    if (autospace && !rv.empty()) rv.insert(rv.begin(), ' ');
    return st.autoescape() ? value::markup(std::move(rv)) : value(std::move(rv));
}

// ---- urlize -------------------------------------------------------------------------------------

inline url_trim url_trim_of(const value& limit) {
    url_trim t;
    if (limit.is_undefined()) {
        // an undefined limit fails when it is compared with a length (only once a link is made)
        t.how = url_trim::kind::invalid;
        t.type = "Undefined";
    } else if (limit.is_none()) {
        t.how = url_trim::kind::none;
    } else if (limit.is_integer() || limit.is_bool()) {
        t.how = url_trim::kind::integer;
        t.count = limit.as_integer();
    } else if (limit.is_big_integer()) {  // compared with lengths and used as a slice bound: saturated
        t.how = url_trim::kind::integer;
        t.count = limit.big_integer().negative() ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    } else if (limit.is_float()) {
        t.how = url_trim::kind::real;
        t.real_limit = limit.as_float();
    } else {
        t.how = url_trim::kind::invalid;
        t.type = type_name(limit);
    }
    return t;
}

inline value f_urlize(render_state& st, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"trim_url_limit", "nofollow", "target", "rel", "extra_schemes"};
    bound_args<5> b(a, "do_urlize", p);
    urlize_options o;
    if (b.has(0)) o.trim = url_trim_of(b[0]);

    // rel: the given words, plus nofollow, plus the default policy's noopener; sorted, unique
    std::vector<std::string> rel;
    if (b.has(3) && truthy(b[3])) {
        if (!b[3].is_string()) type_error(std::string("'") + type_name(b[3]) + "' object has no attribute 'split'");
        for (auto w : py_split(b[3].as_string(), std::nullopt, -1)) rel.emplace_back(w);
    }
    if (b.has(1) && truthy(b[1])) rel.emplace_back("nofollow");
    rel.emplace_back("noopener");
    std::sort(rel.begin(), rel.end());
    rel.erase(std::unique(rel.begin(), rel.end()), rel.end());
    std::string joined;
    for (auto& w : rel) {
        if (!joined.empty()) joined += ' ';
        joined += w;
    }
    o.rel_attr = " rel=\"";
    html_escape(o.rel_attr, joined);
    o.rel_attr += '"';

    if (b.has(2) && truthy(b[2])) {
        o.target_attr = " target=\"";
        append_escaped(o.target_attr, b[2]);
        o.target_attr += '"';
    }

    if (b.has(4) && !b[4].is_none()) {
        const bool once = b[4].is_list() && b[4].list().generator;  // a generator is spent by the check
        sequence schemes(b[4]);
        for (std::size_t i = 0; i < schemes.size(); ++i) {
            const value s = schemes[i];
            if (!s.is_string()) type_error("expected string or bytes-like object, got '" + std::string(type_name(s)) + "'");
            if (!is_uri_scheme_prefix(s.as_string()))
                raise(errc::template_value, single_quoted(s.as_string()) + " is not a valid URI scheme prefix.");
            if (!once) o.extra_schemes.emplace_back(s.as_string());
        }
    }

    std::string escaped;
    append_escaped(escaped, v);
    std::string out;
    jinja_urlize(out, escaped, o);
    if (out.size() > st.max_size()) raise(errc::template_limit, "urlize result exceeds the output size limit");
    return st.autoescape() ? value::markup(std::move(out)) : value(std::move(out));
}

}  // namespace filters

}  // namespace parley::jinja::detail

#endif
