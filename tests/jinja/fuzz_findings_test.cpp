// Regression tests of the run-time engine for inputs found by the fuzz targets (fuzz/, see
// docs/reliability.md): each failed under the sanitizers, or gave a wrong result, before its fix.
#include <parley/jinja.hpp>

#include <parley/jinja/detail/ct_program.hpp>

#include <boost/json/object.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace {

std::string fuzz_finding_render(std::string_view source) {
    return parley::jinja::environment::plain().parse(source, "finding").render(boost::json::object{});
}

}  // namespace

TEST_CASE("fuzz finding: a list that grows while a filtered loop reads it stops at the iteration limit") {
    // Python never ends this loop (each item appends one that passes the filter); the render ends
    // at max_loop_iterations, set on the hf environment with set_limits, which keeps the rest of
    // the environment (its sandbox refuses append, so the plain one runs the loop).
    const std::string_view source =
        "{% set l = [1, 2, 3] %}{% for x in l if x < 3 %}{{ x }}{% if 1 %}{{ l.append(0) or '' }}{% endif %}{% endfor %}";
    parley::jinja::environment env = parley::jinja::environment::plain();
    parley::jinja::limits l;
    l.max_loop_iterations = 1000;
    env.set_limits(l);
    std::string out = "kept";
    try {
        env.parse(source, "finding").render_to(out, boost::json::object{});
        FAIL("the loop ended without the limit");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_limit);
        CHECK(std::string(e.what()).find("loop iteration limit reached (1000 loop iterations and macro calls)") !=
              std::string::npos);
    }
    CHECK(out == "kept");
    parley::jinja::environment hf = parley::jinja::environment::hf();
    hf.set_limits(l);
    CHECK(hf.opts().limit.max_loop_iterations == 1000);
    CHECK(hf.opts().trim_blocks);
    CHECK(hf.opts().sandboxed);
    CHECK(hf.parse("{% for i in range(5) %}{{ i }}{% endfor %}{{ strftime_now('%Y')|length }}").render() == "012344");
    CHECK_THROWS_AS(hf.parse("{% for i in range(2000) %}{% endfor %}").render(), parley::template_error);
}

TEST_CASE("fuzz finding: filesizeformat of NaN and infinity is in the largest unit, as in Python") {
    // The unit search converted NaN to an integer (undefined behaviour) and picked the smallest
    // unit; Python's comparisons with NaN are all false, so it ends with the last unit.
    CHECK(fuzz_finding_render("{{ 'nan'|filesizeformat }}") == "nan YB");
    CHECK(fuzz_finding_render("{{ '-nan'|filesizeformat(true) }}") == "nan YiB");
    CHECK(fuzz_finding_render("{{ 'inf'|filesizeformat }}|{{ 'Infinity'|filesizeformat(true) }}") ==
          "inf YB|inf YiB");
}

TEST_CASE("fuzz finding: the compile-time front end places a syntax error after invalid UTF-8 where the run-time "
          "engine does") {
    // An overlong sequence and a stray continuation byte in the text before the error: four code
    // points (U+FFFD each) for the run-time engine, as for Python; the compile-time front end
    // counted the bytes that are not continuation bytes (one). (Inside a tag, such bytes are
    // themselves the error: U+FFFD is no character of a name, as in Jinja2.)
    const std::string_view source = "[\xe0\x82\x82\xa7{{ ''[{{ \"\"}} a {% if x";
    std::uint32_t runtime_column = 0, ct_column = 0;
    try {
        parley::jinja::environment::plain().parse(source, "finding");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_syntax);
        runtime_column = e.where().column;
    }
    try {
        parley::jinja::detail::parse_or_report(source, {}, "finding");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_syntax);
        ct_column = e.where().column;
    }
    CHECK(runtime_column == 29);
    CHECK(ct_column == runtime_column);
    // the position of a compile-time template's other errors (unknown filters, calls)
    CHECK(parley::jinja::detail::position_of(source, 28).column == 29);
    CHECK(parley::jinja::detail::position_of("a\n\xc3\xa9\xff|", 5).column == 3);
}

TEST_CASE("fuzz finding: recursion within every limit but beyond the stack is an error, not a stack overflow") {
    // Found by fuzz-jinja built at -O0 under AddressSanitizer, whose stack frames are large: 200
    // nested macro calls (the default limit), each a few expressions deep, overflowed the 8 MiB
    // stack. Renders now stop at limits::max_stack bytes of stack (1 MiB by default, 4 MiB under
    // AddressSanitizer); with smaller frames the macro recursion limit comes first. Either way:
    // errc::template_limit. (The condition reads `néß1`, an undefined name: the macro always
    // recurses.)
    const std::string_view source =
        "{% macro fact(n) %}{% if n\xc3\xa9\xc3\x9f" "1 %}1{% else %}{{ n * fact(n - 1)|int }}{% endif %}{% endmacro %}"
        "{{ fact(5) }}";
    try {
        fuzz_finding_render(source);
        FAIL("no error");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_limit);
    }
}

TEST_CASE("fuzz finding: the type error of a string method's argument names the method alone") {
    // The method's name, a view into the template text, was passed on as a C string: the message
    // took the text after it up to the end of the template (a heap-buffer-overflow under
    // AddressSanitizer: `'\3y '.lstrip( 1 )`).
    try {
        fuzz_finding_render("{{ 'y '.lstrip( 1 ) }} and more text");
        FAIL("no error");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_type);
        const std::string what = e.what();
        CHECK(what.find(": lstrip arg must be None or str\n") != std::string::npos);
    }
}

TEST_CASE("fuzz finding: a printf width or precision of many digits is the limit's error, not an int overflow") {
    // The digits were accumulated in an int without a bound (undefined behaviour past 2^31).
    CHECK_THROWS_WITH_AS(fuzz_finding_render("{{ '%22222222222222222.3s'|format('abcdef') }}"),
                         doctest::Contains("format width or precision too large"), parley::template_error);
    CHECK_THROWS_WITH_AS(fuzz_finding_render("{{ '%.99999999999999999999s' % 'abc' }}"),
                         doctest::Contains("format width or precision too large"), parley::template_error);
    CHECK(fuzz_finding_render("{{ '%5.2s|' % 'abc' }}") == "   ab|");
}

TEST_CASE("fuzz finding: a str.format type code no number takes is an error, not a printf conversion") {
    // '{:V}' reached snprintf as "%.6V" (AddressSanitizer's printf check failed on it).
    CHECK_THROWS_WITH_AS(fuzz_finding_render("{{ '{:V}'.format(1.5) }}"),
                         doctest::Contains("Unknown format code 'V' for object of type 'float'"), parley::template_error);
    CHECK_THROWS_WITH_AS(fuzz_finding_render("{{ '{:j}'.format(1234567) }}"),
                         doctest::Contains("Unknown format code 'j' for object of type 'int'"), parley::template_error);
    CHECK(fuzz_finding_render("{{ '{:e}|{:.2f}|{:G}|{:%}'.format(1.5, 2, 1e20, 0.25) }}") ==
          "1.500000e+00|2.00|1E+20|25.000000%");
}
