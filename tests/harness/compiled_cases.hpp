// The generated differential tests of the compile-time engine (tests/jinja/compiled_cases_gen.py):
// each generated case is an `entry` (its template compiled for a described struct holding its
// context), checked against the run-time engine's render of the same template on the case's
// JSON context. The generated sources include this header (its functions are inline: each
// generated translation unit builds the run-time engine anyway).
#ifndef PARLEY_TESTS_HARNESS_COMPILED_CASES_HPP
#define PARLEY_TESTS_HARNESS_COMPILED_CASES_HPP

#include <parley/error.hpp>
#include <parley/jinja.hpp>
#include <parley/jinja/compiled.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace compiled_cases {

/// What a render gave: the output, or the error (its what() and code).
struct outcome {
    bool rendered = false;
    std::string text;  ///< the output, or the error's what()
    std::error_code code;  ///< a template_error's code
    bool other_exception = false;  ///< an exception that is not a parley::template_error
    /// render_to with a non-empty string appended the output (or, on an error, left it as it was)
    bool appended_in_place = true;
};

/// Whether the compiled render is expected to match the run-time engine's.
enum class expect { same, differs };

/// One generated case.
struct entry {
    const char* name;
    const char* origin;  ///< case file and line
    std::string_view source;
    std::string_view context_json;  ///< the case's context, as JSON
    bool undefined_names;  ///< names the context lacks are empty std::optional members
    bool compiled;  ///< `is_compiled_for` the context type: the generated code renders
    expect expected;
    outcome (*render)();  ///< renders with the compiled template and the typed context
    const parley::jinja::parsed_template& (*runtime)();  ///< the compiled template's own run-time parse
};

/// Adds an entry to the list the summary test reads.
struct registrar {
    explicit registrar(const entry& e);
};

/// Checks an entry: the compiled render against the run-time engine's on the JSON context.
void check(const entry& e);

/// Checks that every generated case registered, and that at least `floor` of them take the
/// generated path; prints the counts.
void check_summary(std::size_t generated, std::size_t floor, const char* generator_summary);

/// A compiled template's two ways of rendering with one context type, behind plain functions.
struct renderers {
    std::string (*render)(const void* ctx);
    void (*render_to)(std::string& out, const void* ctx);
};

/// Renders with `r` and the context at `ctx` (render, and render_to after a prefix).
inline outcome render_with(const renderers& r, const void* ctx) {
    outcome o;
    try {
        o.text = r.render(ctx);
        o.rendered = true;
    } catch (const parley::template_error& e) {
        o.text = e.what();
        o.code = e.code();
    } catch (const std::exception& e) {
        o.text = e.what();
        o.other_exception = true;
    }
    const std::string prefix = "prefix|";
    std::string out = prefix;
    try {
        r.render_to(out, ctx);
        o.appended_in_place = o.rendered && out == prefix + o.text;
    } catch (const std::exception&) {
        o.appended_in_place = !o.rendered && out == prefix;
    }
    return o;
}

/// Renders with compiled template T and context ctx (render, and render_to after a prefix).
template <class T, class Ctx>
outcome render_compiled(const Ctx& ctx) {
    static constexpr renderers r{
        [](const void* c) { return T{}.render(*static_cast<const Ctx*>(c)); },
        [](std::string& out, const void* c) { T{}.render_to(out, *static_cast<const Ctx*>(c)); }};
    return render_with(r, &ctx);
}

namespace detail {

inline std::vector<const entry*>& registry() {
    static std::vector<const entry*> r;
    return r;
}

// The run-time engine's render of the case's template on its JSON context, parsed under the
// name the compiled template gives its own run-time parse (error messages begin with it).
inline outcome render_runtime(const entry& e) {
    outcome r;
    try {
        const boost::json::value context = boost::json::parse(e.context_json);
        const parley::jinja::parsed_template t =
            parley::jinja::environment(parley::jinja::options{}).parse(e.source, e.runtime().name());
        r.text = t.render(context);
        r.rendered = true;
    } catch (const parley::template_error& x) {
        r.text = x.what();
        r.code = x.code();
    } catch (const std::exception& x) {
        r.text = x.what();
        r.other_exception = true;
    }
    return r;
}

inline std::string describe(const outcome& o) {
    if (o.rendered) return "output: \"" + o.text + "\"";
    return std::string(o.other_exception ? "exception (not a template_error): " : "template_error: ") + o.text;
}

}  // namespace detail

inline registrar::registrar(const entry& e) { detail::registry().push_back(&e); }

inline void check(const entry& e) {
    // (strings as std::string: doctest shows a const char* logged by INFO as a pointer)
    INFO("case " << std::string(e.name) << " (" << std::string(e.origin) << ")\ntemplate: " << std::string(e.source)
                 << "\ncontext: " << std::string(e.context_json)
                 << "\npath: " << std::string(e.compiled ? "generated code" : "run-time engine"));
    const outcome expected = detail::render_runtime(e);
    const outcome got = e.render();
    INFO("run-time engine, JSON context: " << detail::describe(expected)
                                           << "\ncompiled, typed context: " << detail::describe(got));
    CHECK_FALSE(expected.other_exception);
    CHECK_FALSE(got.other_exception);
    const bool same = expected.rendered == got.rendered && expected.text == got.text && expected.code == got.code;
    if (e.expected == expect::same) {
        CHECK(same);
    } else {
        // listed in compiled_cases_gen.py's EXPECTED_TO_DIFFER: a fixed bug must leave the list
        CHECK_MESSAGE(!same, "listed as expected to differ, but the outputs are the same");
    }
    CHECK_MESSAGE(got.appended_in_place, "render_to did not append the output to the caller's string (or, on an "
                                         "error, did not leave it as it was)");
}

inline void check_summary(std::size_t generated, std::size_t floor, const char* generator_summary) {
    const std::vector<const entry*>& all = detail::registry();
    std::size_t compiled = 0, with_undefined = 0, differ = 0;
    for (const entry* e : all) {
        compiled += e->compiled;
        with_undefined += e->undefined_names;
        differ += e->expected == expect::differs;
    }
    MESSAGE(std::string(generator_summary) << "\n"
                                           << all.size() << " generated case(s) registered: " << compiled
                                           << " take the generated path, " << all.size() - compiled
                                           << " the run-time engine; " << with_undefined
                                           << " with names the context lacks (empty optional members); " << differ
                                           << " expected to differ from the run-time engine");
    CHECK(all.size() == generated);
    CHECK(compiled >= floor);
}

}  // namespace compiled_cases

#endif
