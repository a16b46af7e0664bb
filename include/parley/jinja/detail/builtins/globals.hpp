// parley/jinja/detail/builtins/globals.hpp: Jinja2's global functions: range, dict, namespace,
// cycler, joiner, lipsum, raise_exception, strftime_now.
#ifndef PARLEY_JINJA_DETAIL_BUILTINS_GLOBALS_HPP
#define PARLEY_JINJA_DETAIL_BUILTINS_GLOBALS_HPP

#include <parley/jinja/detail/builtins/tests.hpp>
#include <parley/jinja/detail/lipsum.hpp>

#include <chrono>
#include <ctime>

namespace parley::jinja::detail {

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
