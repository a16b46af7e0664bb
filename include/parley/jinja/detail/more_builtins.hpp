// parley/jinja/detail/more_builtins.hpp: the filters filesizeformat, xmlattr, urlize and random,
// the tests `filter` and `test`, and the global lipsum(), with Python Jinja2's semantics.
#ifndef PARLEY_JINJA_DETAIL_MORE_BUILTINS_HPP
#define PARLEY_JINJA_DETAIL_MORE_BUILTINS_HPP

#include <parley/jinja/detail/filters.hpp>
#include <parley/jinja/detail/format.hpp>
#include <parley/jinja/detail/lipsum.hpp>
#include <parley/jinja/detail/urlize.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

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

// ---- filesizeformat -----------------------------------------------------------------------------

/// float(v) as Python computes it for filesizeformat.
inline double file_size_of(const value& v) {
    if (v.is_number()) return float_value(v);
    if (v.is_string()) {
        double d;
        if (parse_py_float(v.as_string(), d)) return d;
        raise(errc::template_value, "could not convert string to float: " + single_quoted(v.as_string()));
    }
    if (v.is_undefined()) fail_undefined(v);
    type_error(std::string("float() argument must be a string or a real number, not '") + type_name(v) + "'");
}

/// x < base**power, compared exactly as Python compares a float with an integer.
inline bool below_power(double x, bool binary, int power) {
    if (binary) return x < std::ldexp(1.0, 10 * power);
    // 1000**p = 2**(3p) * 5**(3p); 5**(3p) fits in 64 bits for every p used here (p <= 9)
    std::uint64_t five = 1;
    for (int k = 0; k < 3 * power; ++k) five *= 5;
    const double y = std::ldexp(x, -3 * power);
    if (!(y < 18446744073709551616.0)) return false;  // also NaN, below no power in Python
    if (y < 0) return true;
    return static_cast<std::uint64_t>(std::floor(y)) < five;
}

inline value f_filesizeformat(render_state&, const value& v, arguments& a) {
    static constexpr std::string_view p[] = {"binary"};
    bound_args<1> b(a, "do_filesizeformat", p);
    const double bytes = file_size_of(v);
    const bool binary = b.has(0) && truthy(b[0]);
    const double base = binary ? 1024.0 : 1000.0;
    static constexpr const char* decimal[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    static constexpr const char* binary_units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    // base**2 .. base**9 as Python converts them to float (correctly rounded)
    static constexpr double decimal_units[] = {1e6, 1e9, 1e12, 1e15, 1e18, 1e21, 1e24, 1e27};
    if (bytes == 1) return value::view_of("1 Byte");
    std::string out;
    if (bytes < base) {
        if (!std::isfinite(bytes)) raise(errc::template_value, "cannot convert float infinity to integer");
        const double whole = std::trunc(bytes);
        if (whole == 0) out += '0';
        else c_format(out, "", -1, 0, 'f', whole);
        out += " Bytes";
        return value(std::move(out));
    }
    int i = 0;
    while (i < 7 && !below_power(bytes, binary, i + 2)) ++i;
    const double unit = binary ? std::ldexp(1.0, 10 * (i + 2)) : decimal_units[i];
    const double shown = base * bytes / unit;
    if (std::isnan(shown)) out += "nan";
    else c_format(out, "", -1, 1, 'f', shown);
    out += ' ';
    out += binary ? binary_units[i] : decimal[i];
    return value(std::move(out));
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

namespace tests {

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

namespace globals {

/// A bound of lipsum()'s word count, as randrange() takes it: an int, or a float with an
/// integral value, which may lie beyond the 64-bit range.
struct word_bound {
    std::int64_t i = 0;
    int beyond = 0;  ///< +1 above the 64-bit range, -1 below it (then d holds the value)
    double d = 0;

    bool operator<=(const word_bound& o) const noexcept {
        if (beyond && o.beyond) return d <= o.d;
        if (beyond) return beyond < 0;
        if (o.beyond) return o.beyond > 0;
        return i <= o.i;
    }
    std::int64_t saturated() const noexcept {
        if (beyond) return beyond > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
        return i;
    }
};

inline word_bound randrange_arg(const value& v) {
    word_bound w;
    if (v.is_integer() || v.is_bool()) {
        w.i = v.as_integer();
        return w;
    }
    if (v.is_big_integer()) {
        w.beyond = v.big_integer().negative() ? -1 : 1;
        w.d = float_value(v);
        return w;
    }
    if (v.is_float()) {
        const double d = v.as_float();
        if (!std::isfinite(d) || d != std::trunc(d)) raise(errc::template_value, "non-integer arg for randrange()");
        if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
            w.beyond = d > 0 ? 1 : -1;
            w.d = d;
        } else {
            w.i = static_cast<std::int64_t>(d);
        }
        return w;
    }
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_string()) raise(errc::template_value, "non-integer arg for randrange()");
    type_error(std::string("int() argument must be a string, a bytes-like object or a real number, not '") +
               type_name(v) + "'");
}

/// Sets the request's word range from lipsum()'s min and max. Bounds beyond 64 bits are
/// saturated once the empty-range error is decided: a maximum of at most 1 gives empty
/// paragraphs whatever the minimum, and a larger range reaching past 64 bits differs from
/// Python's only in how unlikely a gigantic (size-limited) paragraph is.
inline void set_word_range(lorem_ipsum_request& r, const word_bound& lo, const word_bound& hi) {
    if (hi <= lo) raise(errc::template_value, "empty range for randrange()");
    word_bound one;
    one.i = 1;
    if (hi <= one) {
        r.min_words = 0;
        r.max_words = 1;
        return;
    }
    r.min_words = lo.saturated();
    r.max_words = hi.saturated();
}

inline value g_lipsum(render_state& st, arguments& a) {
    static constexpr std::string_view p[] = {"n", "html", "min", "max"};
    bound_args<4> b(a, "generate_lorem_ipsum", p);
    std::int64_t n = 5;
    if (b.has(0)) {
        if (b[0].is_big_integer()) raise(errc::template_limit, "lipsum: too many paragraphs");
        if (!b[0].is_integer() && !b[0].is_bool()) {
            if (b[0].is_undefined()) check_strict(b[0]);
            type_error(std::string("'") + type_name(b[0]) + "' object cannot be interpreted as an integer");
        }
        n = b[0].as_integer();
    }
    lorem_ipsum_request r;
    r.paragraphs = n;
    if (n > 0) {
        word_bound lo, hi;
        lo.i = 20;
        hi.i = 100;
        if (b.has(2)) lo = randrange_arg(b[2]);
        if (b.has(3) && b[3].is_none()) {  // randrange(min): from 0 to min
            hi = lo;
            lo = word_bound();
        } else if (b.has(3)) {
            hi = randrange_arg(b[3]);
        }
        set_word_range(r, lo, hi);
    }
    r.max_size = st.max_size();
    const auto paragraphs = lorem_ipsum_paragraphs(r, random_engine());
    const bool html = !b.has(1) || truthy(b[1]);
    std::string text = lorem_ipsum_join(paragraphs, html);
    return html ? value::markup(std::move(text)) : value(std::move(text));
}

}  // namespace globals

}  // namespace parley::jinja::detail

#endif
