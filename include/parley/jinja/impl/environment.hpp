// parley/jinja/impl/environment.hpp: bodies of environment and parsed_template (inline, or compiled
// once under PARLEY_SEPARATE_COMPILATION: see config.hpp).
#ifndef PARLEY_JINJA_IMPL_ENVIRONMENT_HPP
#define PARLEY_JINJA_IMPL_ENVIRONMENT_HPP

#include <parley/jinja/detail/builtins.hpp>
#include <parley/jinja/detail/check.hpp>
#include <parley/jinja/detail/link.hpp>
#include <parley/jinja/detail/parser.hpp>
#include <parley/jinja/environment.hpp>

#include <algorithm>
#include <charconv>

namespace parley::jinja {

PARLEY_DECL environment::environment(options opt) : data_(std::make_shared<detail::env_data>()) {
    data_->opt = std::move(opt);
    detail::install_builtins(*data_);
}

PARLEY_DECL environment environment::hf() {
    options o;
    o.trim_blocks = true;
    o.lstrip_blocks = true;
    o.loop_controls = true;
    o.sandboxed = true;
    o.hf_tojson = true;
    environment e(o);
    detail::add_builtin_function(*e.data_, "raise_exception", detail::globals::g_raise_exception,
                                 detail::builtin_params::of("message", 1));
    detail::add_builtin_function(*e.data_, "strftime_now", detail::globals::g_strftime_now, detail::builtin_params::of("fmt", 1));
    return e;
}

PARLEY_DECL environment environment::named(std::string_view name) {
    if (name == "plain") return plain();
    if (name == "hf") return hf();
    throw error(errc::invalid_argument, "unknown environment '" + std::string(name) + "' (expected 'hf' or 'plain')");
}

PARLEY_DECL detail::env_data& environment::mutate() {
    if (data_.use_count() > 1) {
        auto copy = std::make_shared<detail::env_data>();
        copy->opt = data_->opt;
        copy->filters = data_->filters;
        copy->tests = data_->tests;
        copy->globals = data_->globals;
        copy->methods = data_->methods;
        for (auto& [k, f] : data_->functions) {
            auto o = std::make_unique<detail::function_obj>();
            o->name = f->name;
            o->builtin = f->builtin;
            o->params = f->params;
            o->user = f->user;
            copy->functions[k] = std::move(o);
        }
        data_ = std::move(copy);
    }
    return *data_;
}

PARLEY_DECL void environment::add_filter(std::string name, filter_function f) {
    auto& e = mutate().filters[std::move(name)];
    e.builtin = nullptr;
    e.user = std::move(f);
}

PARLEY_DECL void environment::add_test(std::string name, test_function t) {
    auto& e = mutate().tests[std::move(name)];
    e.builtin = nullptr;
    e.user = std::move(t);
}

PARLEY_DECL void environment::add_function(std::string name, global_function f) {
    auto o = std::make_unique<detail::function_obj>();
    o->name = name;
    o->user = std::move(f);
    auto& d = mutate();
    d.globals.erase(name);
    d.functions[std::move(name)] = std::move(o);
}

PARLEY_DECL void environment::add_method(std::string name, method_function f) {
    auto identifier_char = [](char c, bool first) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
    };
    bool ok = !name.empty() && name[0] != '_';
    for (std::size_t i = 0; ok && i < name.size(); ++i) ok = identifier_char(name[i], i == 0);
    if (!ok)
        throw error(errc::invalid_argument, "add_method: '" + name +
                                                "' is not a method name (an identifier that does not begin with '_')");
    mutate().methods[std::move(name)] = std::move(f);
}

PARLEY_DECL void environment::set_clock(std::function<std::chrono::system_clock::time_point()> clock) {
    mutate().opt.clock = std::move(clock);
}

PARLEY_DECL void environment::set_limits(const limits& l) {
    mutate().opt.limit = l;
}

PARLEY_DECL void environment::add_global(std::string name, boost::json::value v) {
    auto& d = mutate();
    d.functions.erase(name);
    d.globals[std::move(name)] = std::move(v);
}

namespace detail {

/// line, column (code points, from 1) and the text of the line of a source offset.
inline source_location locate(std::string_view src, std::uint32_t pos, std::string name, std::string_view& line) {
    if (pos > src.size()) pos = static_cast<std::uint32_t>(src.size());
    std::uint32_t ln = 1;
    std::size_t start = 0;
    for (std::size_t i = 0; i < pos; ++i)
        if (src[i] == '\n') {
            ++ln;
            start = i + 1;
        }
    std::size_t end = src.find('\n', start);
    if (end == std::string_view::npos) end = src.size();
    line = src.substr(start, end - start);
    const auto col = static_cast<std::uint32_t>(utf8_length(src.substr(start, pos - start)) + 1);
    return {std::move(name), ln, col};
}

}  // namespace detail

PARLEY_DECL void parsed_template::throw_error(errc code, std::string msg, std::uint32_t pos) const {
    std::string_view line;
    source_location where = detail::locate(source_, pos, name_, line);
    throw template_error(code, std::move(msg), std::move(where), line);
}

PARLEY_DECL parsed_template environment::parse(std::string_view source, std::string name) const {
    parsed_template t;
    t.name_ = std::move(name);
    t.env_ = data_;
    const options& o = data_->opt;
    if (detail::needs_normalising(source, o.keep_trailing_newline)) detail::normalise_source(source, o.keep_trailing_newline, t.source_);
    else t.source_.assign(source);
    if (t.source_.size() >= 0xffffffffu) throw error(errc::template_limit, "template source too large");
    detail::syntax_options so;
    so.trim_blocks = o.trim_blocks;
    so.lstrip_blocks = o.lstrip_blocks;
    so.keep_trailing_newline = o.keep_trailing_newline;
    so.loop_controls = o.loop_controls;
    const detail::syntax_error err = detail::parse_program(t.source_, so, t.prog_);
    if (err) {
        std::string msg = err.what;
        if (err.arg_len) {
            msg += '\'';
            msg.append(t.source_, err.arg_pos, err.arg_len);
            msg += '\'';
        }
        if (err.what2) msg += err.what2;
        t.throw_error(errc::template_syntax, std::move(msg), err.pos);
    }
    // link: float literals, filters and tests by symbol
    for (auto& nd : t.prog_.nodes) {
        if (nd.kind == detail::nk::k_float) {
            const std::string_view digits = t.prog_.str(nd.a, nd.b);
            double d = 0;
            auto r = std::from_chars(digits.data(), digits.data() + digits.size(), d);
            if (r.ec == std::errc::result_out_of_range) d = HUGE_VAL;
            nd.fval = d;
        }
    }
    t.special_ = {t.prog_.find_symbol("loop"), t.prog_.find_symbol("caller"), t.prog_.find_symbol("varargs"),
                  t.prog_.find_symbol("kwargs")};
    const std::size_t nsym = t.prog_.symbols.size();
    t.filters_.assign(nsym, nullptr);
    t.tests_.assign(nsym, nullptr);
    t.globals_.assign(nsym, {});
    for (std::size_t k = 0; k < nsym; ++k) {
        const std::string_view s = t.prog_.sym_name(static_cast<std::uint32_t>(k));
        if (auto it = data_->filters.find(s); it != data_->filters.end()) t.filters_[k] = &it->second;
        if (auto it = data_->tests.find(s); it != data_->tests.end()) t.tests_[k] = &it->second;
        if (auto it = data_->functions.find(s); it != data_->functions.end()) t.globals_[k].function = it->second.get();
        if (auto it = data_->globals.find(s); it != data_->globals.end()) t.globals_[k].value = &it->second;
    }
    if (const std::uint32_t deep = detail::find_too_deep_expression(t.prog_, detail::max_expression_depth); deep != detail::none)
        t.throw_error(errc::template_limit,
                      "expression nested too deeply (more than " + std::to_string(detail::max_expression_depth) +
                          " levels)",
                      t.prog_.nodes[deep].pos);
    // link `+` chains and loops for the renderer (after the depth check: mark_loops_using_loop
    // recurses through expressions)
    detail::link_bound_symbols(t.prog_, {t.special_.loop, t.special_.caller, t.special_.varargs, t.special_.kwargs});
    detail::link_members(t.prog_);
    detail::link_print_chains(t.prog_);
    detail::mark_loops_using_loop(t.prog_, t.special_.loop);
    detail::mark_defaults_naming_params(t.prog_);
    // Like Jinja2, an unknown filter or test is a parse error, except in an `if` or an inline
    // if-expression (see detail::name_checker), where it fails when it is used.
    const detail::unknown_name unknown = detail::find_unknown_name(
        t.prog_, [&](std::uint32_t sym) { return t.filters_[sym] != nullptr; },
        [&](std::uint32_t sym) { return t.tests_[sym] != nullptr; });
    if (unknown) {
        const detail::node& n = t.prog_.nodes[unknown.node];
        t.throw_error(errc::template_unknown_name,
                      std::string(unknown.is_filter ? "unknown filter '" : "unknown test '") +
                          std::string(t.prog_.sym_name(n.sym)) + "'",
                      n.pos);
    }
    return t;
}

PARLEY_DECL void parsed_template::render_value(std::string& out, const value& root) const {
    if (!root.is_mapping_like() && !root.is_undefined())
        throw error(errc::invalid_argument, "a template context must be a mapping (a JSON object, a described struct or a map)");
    const std::size_t start = out.size();
    const std::size_t expected = size_hint_.bytes.load(std::memory_order_relaxed);
    if (out.capacity() - start < expected) out.reserve(std::max(start + expected + expected / 8, 2 * out.capacity()));
    detail::render_state st(*this, out, root);
    try {
        const detail::render_scope scope(env_->opt.limit.max_stack, env_->opt.limit.max_loop_iterations,
                                         env_->opt.limit.max_output);
        st.run();
    } catch (const detail::eval_error& e) {
        out.resize(start);
        throw_error(e.code, e.message, 0);
    } catch (...) {
        out.resize(start);
        throw;
    }
    size_hint_.bytes.store(out.size() - start, std::memory_order_relaxed);
}

PARLEY_DECL std::string parsed_template::render() const {
    std::string out;
    render_value(out, value());
    return out;
}

}  // namespace parley::jinja

#endif
