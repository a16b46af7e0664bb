// Tests of parley/jinja/environment.hpp: parsing and rendering through an environment; the exact
// text of errors (name:line:col, source line, caret) and their codes; strict undefined; limits
// for untrusted templates; user filters, tests, functions, globals and clock; parse once and
// render many times, also from several threads.
#include <parley/jinja/environment.hpp>

#include <parley/jinja.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace pj = parley::jinja;
using parley::errc;

boost::json::value sample_context() {
    return boost::json::parse(R"({"x": 1, "zero": 0, "s": "str", "items": [1, 2, 3], "user": {"name": "Ann"}})");
}

// Parses and renders; returns the template_error thrown, or nothing (and fails) when none was.
std::optional<parley::template_error> error_of(const pj::environment& env, std::string_view src,
                                               const boost::json::value& ctx = sample_context(),
                                               std::string name = "t.j2") {
    try {
        const std::string out = env.parse(src, std::move(name)).render(ctx);
        FAIL_CHECK("no error; the output was: ", out);
    } catch (const parley::template_error& e) {
        return e;
    }
    return std::nullopt;
}

// The full text of the error a template gives in the plain environment.
std::string what_of(std::string_view src, const pj::environment& env = pj::environment::plain()) {
    const auto e = error_of(env, src);
    return e ? std::string(e->what()) : std::string("<no error>");
}

errc code_of(std::string_view src, const pj::environment& env = pj::environment::plain()) {
    const auto e = error_of(env, src);
    return e ? static_cast<errc>(e->code().value()) : errc{};
}

pj::environment strict_env() {
    pj::options o;
    o.undefined = pj::undefined_behavior::strict;
    return pj::environment(o);
}

pj::environment limited_env() {
    pj::options o;
    o.limit.max_output = 100;
    o.limit.max_loop_iterations = 50;
    o.limit.max_call_depth = 10;
    o.limit.max_range = 20;
    return pj::environment(o);
}

std::string render(const pj::environment& env, std::string_view src,
                   const boost::json::value& ctx = sample_context()) {
    return env.parse(src, "t.j2").render(ctx);
}

}  // namespace

// ---- syntax errors ----------------------------------------------------------------------------

TEST_CASE("errors: an unexpected token names the token and points at it") {
    CHECK(what_of("{{ x + }}") ==
          "t.j2:1:8: unexpected '}}'\n"
          "  {{ x + }}\n"
          "         ^");
    CHECK(what_of("{{ 1 2 }}") ==
          "t.j2:1:6: expected '}}', got '2'\n"
          "  {{ 1 2 }}\n"
          "       ^");
    CHECK(what_of("{{ }}") ==
          "t.j2:1:4: expected an expression, got '}}'\n"
          "  {{ }}\n"
          "     ^");
    CHECK(what_of("{{ a ] }}") ==
          "t.j2:1:6: unexpected ']'\n"
          "  {{ a ] }}\n"
          "       ^");
    CHECK(what_of("{{ x|default(1, }}") ==
          "t.j2:1:17: unexpected '}', a bracket is not closed\n"
          "  {{ x|default(1, }}\n"
          "                  ^");
    CHECK(what_of("{% for x on y %}{% endfor %}") ==
          "t.j2:1:10: expected 'in', got 'on'\n"
          "  {% for x on y %}{% endfor %}\n"
          "           ^");
    CHECK(what_of("{{ @ }}") ==
          "t.j2:1:4: unexpected character '@'\n"
          "  {{ @ }}\n"
          "     ^");
}

TEST_CASE("errors: a missing end tag is reported at the end of the template and names the tag") {
    CHECK(what_of("{% for i in items %}{{ i }}") ==
          "t.j2:1:28: unexpected end of template, expected 'endfor'\n"
          "  {% for i in items %}{{ i }}\n"
          "                             ^");
    CHECK(what_of("{% if x %}a") ==
          "t.j2:1:12: unexpected end of template, expected 'endif'\n"
          "  {% if x %}a\n"
          "             ^");
    CHECK(what_of("{% macro m() %}body") ==
          "t.j2:1:20: unexpected end of template, expected 'endmacro'\n"
          "  {% macro m() %}body\n"
          "                     ^");
    CHECK(what_of("{{ x") ==
          "t.j2:1:5: unexpected end of template, expected '}}'\n"
          "  {{ x\n"
          "      ^");
    CHECK(what_of("{% if x") ==
          "t.j2:1:8: unexpected end of template, expected '%}'\n"
          "  {% if x\n"
          "         ^");
}

TEST_CASE("errors: unclosed strings, comments and raw blocks point at where they open") {
    CHECK(what_of("{{ 'abc }}") ==
          "t.j2:1:4: unterminated string literal\n"
          "  {{ 'abc }}\n"
          "     ^");
    CHECK(what_of("Hi {# note") ==
          "t.j2:1:4: missing end of comment tag\n"
          "  Hi {# note\n"
          "     ^");
    CHECK(what_of("a {% raw %} b") ==
          "t.j2:1:3: missing end of raw directive\n"
          "  a {% raw %} b\n"
          "    ^");
}

TEST_CASE("errors: arguments a built-in filter does not take are named, at the filter") {
    CHECK(what_of("{{ 'a' | upper(1) }}") ==
          "t.j2:1:10: filter 'upper' takes no arguments (1 given)\n"
          "  {{ 'a' | upper(1) }}\n"
          "           ^");
    CHECK(what_of("{{ 'a' | center(3, 4) }}").rfind("t.j2:1:10: filter 'center' takes at most 1 argument(s) (2 given)\n", 0) == 0);
    CHECK(what_of("{{ 'a' | replace }}").rfind("t.j2:1:10: filter 'replace' is missing its required argument 'old'\n", 0) == 0);
    CHECK(what_of("{{ 'a' | replace('a') }}").rfind("t.j2:1:10: filter 'replace' is missing its required argument 'new'\n", 0) == 0);
    CHECK(what_of("{{ 'a' | center(nope=1) }}").rfind("t.j2:1:10: filter 'center' got an unexpected keyword argument 'nope'\n", 0) == 0);
    CHECK(what_of("{{ 'a' | center(3, width=2) }}").rfind("t.j2:1:10: filter 'center' got multiple values for argument 'width'\n", 0) == 0);
    CHECK(code_of("{{ 'a' | upper(1) }}") == errc::template_type);
    // the same checks when a filter is applied by name at run time
    CHECK(what_of("{{ ['a'] | map('upper', 1) | list }}").find("filter 'upper' takes no arguments (1 given)") != std::string::npos);
    // parameters given by keyword, required ones included, are accepted
    CHECK(render(pj::environment::plain(), "{{ 'aa' | replace(old='a', new='b', count=1) }} {{ [1, 2, 3] | batch(linecount=2) | list }}") ==
          "ba [[1, 2], [3]]");
    // a filter of one's own of the same name takes any arguments (it checks them itself)
    pj::environment own = pj::environment::plain();
    own.add_filter("upper", [](const pj::value& v, const pj::arguments& a) {
        return pj::value(std::string(v.as_string()) + std::to_string(a.size()));
    });
    CHECK(render(own, "{{ 'a' | upper(1, 2) }}") == "a2");
}

TEST_CASE("errors: arguments a built-in test, function or method does not take are named, at the call") {
    CHECK(what_of("{{ 4 is odd(1) }}") ==
          "t.j2:1:9: test 'odd' takes no arguments (1 given)\n"
          "  {{ 4 is odd(1) }}\n"
          "          ^");
    CHECK(what_of("{{ 4 is divisibleby }}").rfind("t.j2:1:9: test 'divisibleby' is missing its required argument 'num'\n", 0) == 0);
    CHECK(what_of("{{ 4 is divisibleby(1, 2) }}").rfind("t.j2:1:9: test 'divisibleby' takes at most 1 argument(s) (2 given)\n", 0) == 0);
    CHECK(what_of("{{ 4 is eq(b=4) }}").rfind("t.j2:1:9: test 'eq' takes no keyword arguments\n", 0) == 0);
    CHECK(what_of("{{ 4 is sameas(nope=4) }}").rfind("t.j2:1:9: test 'sameas' got an unexpected keyword argument 'nope'\n", 0) == 0);
    CHECK(what_of("{{ [1] | select('odd', 1) | list }}").find("test 'odd' takes no arguments (1 given)") != std::string::npos);
    CHECK(what_of("{{ range(1, 2, 3, 4) }}").rfind("t.j2:1:9: function 'range' takes at most 3 argument(s) (4 given)\n", 0) == 0);
    CHECK(what_of("{{ range(stop=2) }}").rfind("t.j2:1:9: function 'range' takes no keyword arguments\n", 0) == 0);
    CHECK(what_of("{{ lipsum(nope=1) }}").rfind("t.j2:1:10: function 'lipsum' got an unexpected keyword argument 'nope'\n", 0) == 0);
    CHECK(what_of("{% set c = cycler(1) %}{{ c.next(1) }}").find("method 'Cycler.next' takes no arguments (1 given)") != std::string::npos);
    CHECK(what_of("{{ 'a'.strip('a', 'b') }}").rfind("t.j2:1:13: method 'str.strip' takes at most 1 argument(s) (2 given)\n", 0) == 0);
    CHECK(what_of("{{ 'ab'.startswith(prefix='a') }}").rfind("t.j2:1:19: method 'str.startswith' takes no keyword arguments\n", 0) == 0);
    CHECK(what_of("{{ 'a'.replace('a') }}").rfind("t.j2:1:15: method 'str.replace' is missing its required argument 'new'\n", 0) == 0);
    CHECK(what_of("{{ [1].sort(1) }}").rfind("t.j2:1:12: method 'list.sort' takes no positional arguments (1 given)\n", 0) == 0);
    CHECK(what_of("{{ {}.get() }}").rfind("t.j2:1:10: method 'dict.get' is missing its required argument 'key'\n", 0) == 0);
    CHECK(code_of("{{ 4 is odd(1) }}") == errc::template_type);
    CHECK(code_of("{{ range(stop=2) }}") == errc::template_type);
    CHECK(code_of("{{ 'a'.strip(nope) }}") == errc::template_type);
    CHECK(code_of("{{ {}.get([1]) }}") == errc::template_type);
    // parameters Python lets one name are accepted by keyword
    CHECK(render(pj::environment::plain(), "{{ 4 is divisibleby(num=2) }} {{ 4 is in(seq=[4]) }} {{ 'a b'.split(sep=' ') }} "
                                           "{{ 'a'.expandtabs(tabsize=2) }} {{ joiner(sep='-')() }}") ==
          "True True ['a', 'b'] a ");
    CHECK(render(pj::environment::hf(), "{{ strftime_now(fmt='%Y') }}").size() == 4);
    // a test or function of one's own of the same name takes any arguments (it checks them itself)
    pj::environment own = pj::environment::plain();
    own.add_test("odd", [](const pj::value&, const pj::arguments& a) { return a.size() == 2; });
    own.add_function("range", [](const pj::arguments& a) { return pj::value(static_cast<long long>(a.size())); });
    CHECK(render(own, "{{ 1 is odd(1, 2) }} {{ range(1, 2, 3, 4) }}") == "True 4");
}

TEST_CASE("errors: an unknown tag is named") {
    CHECK(what_of("{% foo %}") ==
          "t.j2:1:4: unknown tag 'foo'\n"
          "  {% foo %}\n"
          "     ^");
    CHECK(what_of("{% endfor %}") ==
          "t.j2:1:4: unknown tag 'endfor'\n"
          "  {% endfor %}\n"
          "     ^");
    CHECK(what_of("{% include 'header.j2' %}") ==
          "t.j2:1:4: tag 'include' needs a template loader, which this environment does not have\n"
          "  {% include 'header.j2' %}\n"
          "     ^");
    // loop controls are tags only where enabled
    CHECK(what_of("{% break %}") ==
          "t.j2:1:4: unknown tag 'break'\n"
          "  {% break %}\n"
          "     ^");
    CHECK(what_of("{% break %}", pj::environment::hf()) ==
          "t.j2:1:4: 'break' outside of a loop\n"
          "  {% break %}\n"
          "     ^");
}

TEST_CASE("errors: other syntax errors name the construct") {
    CHECK(what_of("{% macro m(a=1, b) %}{% endmacro %}") ==
          "t.j2:1:17: non-default argument follows default argument\n"
          "  {% macro m(a=1, b) %}{% endmacro %}\n"
          "                  ^");
    CHECK(what_of("{% set 1 = 2 %}") ==
          "t.j2:1:8: cannot assign to this expression\n"
          "  {% set 1 = 2 %}\n"
          "         ^");
    CHECK(what_of("{{ f(a=1, a=2) }}") ==
          "t.j2:1:11: keyword argument repeated: 'a'\n"
          "  {{ f(a=1, a=2) }}\n"
          "            ^");
    CHECK(what_of("{{ x is defined is defined }}") ==
          "t.j2:1:17: you cannot chain multiple tests with 'is'\n"
          "  {{ x is defined is defined }}\n"
          "                  ^");
    CHECK(what_of("{% block a %}{% endblock b %}") ==
          "t.j2:1:26: mismatched block name 'b'\n"
          "  {% block a %}{% endblock b %}\n"
          "                           ^");
    CHECK(what_of("{{ x + a\u00b2 }}") ==
          "t.j2:1:8: invalid character in identifier 'a\u00b2'\n"
          "  {{ x + a\u00b2 }}\n"
          "         ^");
    CHECK(what_of("{{ x + \U0001F40D }}") ==
          "t.j2:1:8: unexpected character '\U0001F40D'\n"
          "  {{ x + \U0001F40D }}\n"
          "         ^");
    CHECK(what_of("{% block a %}{% endblock %}{% block a %}{% endblock %}") ==
          "t.j2:1:37: block defined twice: 'a'\n"
          "  {% block a %}{% endblock %}{% block a %}{% endblock %}\n"
          "                                      ^");
    CHECK(what_of(R"({{ '\x4' }})") ==
          "t.j2:1:4: truncated \\xXX escape in string literal\n"
          "  {{ '\\x4' }}\n"
          "     ^");
}

TEST_CASE("errors: syntax errors are thrown by parse, with errc::template_syntax") {
    const auto env = pj::environment::plain();
    try {
        (void)env.parse("{{ x + }}", "p.j2");
        FAIL("parse succeeded");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == errc::template_syntax);
        CHECK(e.message() == "unexpected '}}'");
        CHECK(e.where().name == "p.j2");
        CHECK(e.where().line == 1);
        CHECK(e.where().column == 8);
    }
}

TEST_CASE("errors: an unnamed template reads <template>") {
    try {
        (void)pj::environment::plain().parse("{% foo %}");
        FAIL("parse succeeded");
    } catch (const parley::template_error& e) {
        CHECK(std::string(e.what()) == "<template>:1:4: unknown tag 'foo'\n  {% foo %}\n     ^");
    }
}

// ---- unknown filters and tests ------------------------------------------------------------------

TEST_CASE("errors: an unknown filter or test is a parse error naming it, at its position") {
    CHECK(what_of("{{ items|lenght }}") ==
          "t.j2:1:10: unknown filter 'lenght'\n"
          "  {{ items|lenght }}\n"
          "           ^");
    CHECK(what_of("{% for i in items %}{{ i is fooo }}{% endfor %}") ==
          "t.j2:1:29: unknown test 'fooo'\n"
          "  {% for i in items %}{{ i is fooo }}{% endfor %}\n"
          "                              ^");
    try {
        (void)pj::environment::plain().parse("line 1\n{{ x|lenght }}", "p.j2");
        FAIL("parse accepted an unknown filter");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == errc::template_unknown_name);
        CHECK(e.where().line == 2);
        CHECK(e.where().column == 6);
    }
    CHECK(code_of("{{ x is fooo }}") == errc::template_unknown_name);
}

TEST_CASE("errors: as in Jinja2, inside an if an unknown filter or test fails only when used") {
    const auto t = pj::environment::plain().parse("{% if x %}{{ x|lenght }}{% endif %}", "soft.j2");
    CHECK(t.render(boost::json::parse(R"({"x": 0})")) == "");
    CHECK(what_of("{% if x %}{{ x|lenght }}{% endif %}") ==
          "t.j2:1:16: unknown filter 'lenght'\n"
          "  {% if x %}{{ x|lenght }}{% endif %}\n"
          "                 ^");
    CHECK(what_of("{% if x is fooo %}{% endif %}") ==
          "t.j2:1:12: unknown test 'fooo'\n"
          "  {% if x is fooo %}{% endif %}\n"
          "             ^");
    // names given as strings are only known at run time
    CHECK(what_of("{{ items|map('shout')|list }}") ==
          "t.j2:1:10: unknown filter 'shout'\n"
          "  {{ items|map('shout')|list }}\n"
          "           ^");
    CHECK(what_of("{{ items|select('big')|list }}") ==
          "t.j2:1:10: unknown test 'big'\n"
          "  {{ items|select('big')|list }}\n"
          "           ^");
    CHECK(code_of("{{ items|map('shout')|list }}") == errc::template_unknown_name);
}

// ---- render errors ------------------------------------------------------------------------------

TEST_CASE("errors: calling something that is not callable") {
    CHECK(what_of("{{ x() }}") ==
          "t.j2:1:5: 'int' object is not callable\n"
          "  {{ x() }}\n"
          "      ^");
    CHECK(what_of("{{ s('a') }}") ==
          "t.j2:1:5: 'str' object is not callable\n"
          "  {{ s('a') }}\n"
          "      ^");
    CHECK(code_of("{{ x() }}") == errc::template_type);
}

TEST_CASE("errors: division by zero points at the operator") {
    CHECK(what_of("{{ x / zero }}") ==
          "t.j2:1:6: division by zero\n"
          "  {{ x / zero }}\n"
          "       ^");
    CHECK(what_of("{{ x // zero }}") ==
          "t.j2:1:6: integer division or modulo by zero\n"
          "  {{ x // zero }}\n"
          "       ^");
    CHECK(what_of("{{ x % zero }}") ==
          "t.j2:1:6: integer division or modulo by zero\n"
          "  {{ x % zero }}\n"
          "       ^");
    CHECK(what_of("{{ 1.5 / zero }}") ==
          "t.j2:1:8: float division by zero\n"
          "  {{ 1.5 / zero }}\n"
          "         ^");
    CHECK(code_of("{{ x / zero }}") == errc::template_value);
}

TEST_CASE("errors: type errors name both types") {
    CHECK(what_of("{{ s + 1 }}") ==
          "t.j2:1:6: can only concatenate str (not \"int\") to str\n"
          "  {{ s + 1 }}\n"
          "       ^");
    CHECK(what_of("{{ x + s }}") ==
          "t.j2:1:6: unsupported operand type(s) for +: 'int' and 'str'\n"
          "  {{ x + s }}\n"
          "       ^");
    CHECK(what_of("{{ 2 ** 100000 }}") ==
          "t.j2:1:6: integer result too large (more than 65536 bits)\n"
          "  {{ 2 ** 100000 }}\n"
          "       ^");
    CHECK(what_of("{% set a, b = [1, 2, 3] %}") ==
          "t.j2:1:8: too many values to unpack (expected 2)\n"
          "  {% set a, b = [1, 2, 3] %}\n"
          "         ^");
    CHECK(what_of("{{ s.upper(1) }}") ==
          "t.j2:1:11: method 'str.upper' takes no arguments (1 given)\n"
          "  {{ s.upper(1) }}\n"
          "            ^");
    CHECK(what_of("{{ items|join(',', 'a', 'b') }}") ==
          "t.j2:1:10: filter 'join' takes at most 2 argument(s) (3 given)\n"
          "  {{ items|join(',', 'a', 'b') }}\n"
          "           ^");
    CHECK(code_of("{{ s + 1 }}") == errc::template_type);
}

TEST_CASE("errors: an attribute of an undefined value is an undefined error naming the value") {
    // message and line only: the column of an undefined-value error (the point of use or the
    // undefined name) is not pinned here
    const auto e = error_of(pj::environment::plain(), "{{ missing.attr }}");
    REQUIRE(e);
    CHECK(e->code() == errc::template_undefined);
    CHECK(e->message() == "'missing' is undefined");
    CHECK(e->where().line == 1);

    const auto nested = error_of(pj::environment::plain(), "{{ user.name.first.x }}");
    REQUIRE(nested);
    CHECK(nested->code() == errc::template_undefined);
    CHECK(nested->message() == "'str object' has no attribute 'first'");

    // printing an undefined value is not an error in the default environment
    CHECK(render(pj::environment::plain(), "[{{ missing }}][{{ user.nope }}][{{ items[10] }}]") == "[][][]");
}

TEST_CASE("errors: raise_exception in the hf environment gives the template's message") {
    CHECK(what_of("{{ raise_exception('bad input') }}", pj::environment::hf()) ==
          "t.j2:1:19: bad input\n"
          "  {{ raise_exception('bad input') }}\n"
          "                    ^");
    CHECK(code_of("{{ raise_exception('bad input') }}", pj::environment::hf()) == errc::template_raised);
    CHECK(what_of("{% if true %}{{ raise_exception() }}{% endif %}", pj::environment::hf()) ==
          "t.j2:1:32: function 'raise_exception' is missing its required argument 'message'\n"
          "  {% if true %}{{ raise_exception() }}{% endif %}\n"
          "                                 ^");
    // a call without the message is Python's TypeError, as for Jinja2's raise_exception(message)
    CHECK(code_of("{{ raise_exception() }}", pj::environment::hf()) == errc::template_type);
    CHECK(code_of("{{ raise_exception(message='bad input') }}", pj::environment::hf()) == errc::template_raised);
    // the plain environment has no raise_exception
    const auto e = error_of(pj::environment::plain(), "{{ raise_exception('x') }}");
    REQUIRE(e);
    CHECK(e->code() == errc::template_undefined);
    CHECK(e->message() == "'raise_exception' is undefined");
}

TEST_CASE("errors: the hf sandbox refuses methods that mutate lists and dicts") {
    CHECK(what_of("{{ items.append(4) }}", pj::environment::hf()) ==
          "t.j2:1:16: access to attribute 'append' of 'list' object is unsafe.\n"
          "  {{ items.append(4) }}\n"
          "                 ^");
    CHECK(code_of("{{ items.append(4) }}", pj::environment::hf()) == errc::template_security);
    CHECK(code_of("{% set d = {} %}{{ d.update({'a': 1}) }}", pj::environment::hf()) == errc::template_security);
    // the plain environment is not sandboxed
    CHECK(render(pj::environment::plain(), "{% set l = [1] %}{{ l.append(2) }}{{ l }}") == "None[1, 2]");
}

TEST_CASE("errors: the line, column and excerpt are those of the error in a multi-line template") {
    CHECK(what_of("line one\nline two\n  {{ x + }}\nline four") ==
          "t.j2:3:10: unexpected '}}'\n"
          "    {{ x + }}\n"
          "           ^");
    CHECK(what_of("{% for i in items %}\n{{ i }}\n{{ i // zero }}\n{% endfor %}") ==
          "t.j2:3:6: integer division or modulo by zero\n"
          "  {{ i // zero }}\n"
          "       ^");
    CHECK(what_of("{% macro m(v) %}\n\n  {{ v() }}\n{% endmacro %}\n{{ m(x) }}") ==
          "t.j2:3:7: 'int' object is not callable\n"
          "    {{ v() }}\n"
          "        ^");
    CHECK(what_of("a\nb\n{% for i in items %}\n{{ i }}") ==
          "t.j2:4:8: unexpected end of template, expected 'endfor'\n"
          "  {{ i }}\n"
          "         ^");
    // \r\n line ends count as one line end
    CHECK(what_of("one\r\ntwo\r\n{{ x + }}") ==
          "t.j2:3:8: unexpected '}}'\n"
          "  {{ x + }}\n"
          "         ^");
    CHECK(what_of("{% if x %}\n  {% for i in items %}\n    {{ i + }}\n  {% endfor %}\n{% endif %}") ==
          "t.j2:3:12: unexpected '}}'\n"
          "      {{ i + }}\n"
          "             ^");
}

TEST_CASE("errors: columns count code points, not bytes") {
    // "é" and "€" are 2 and 3 bytes; the caret stays under the operator
    CHECK(what_of("é€ {{ x / zero }}") ==
          "t.j2:1:9: division by zero\n"
          "  é€ {{ x / zero }}\n"
          "          ^");
}

TEST_CASE("errors: every error condition has its own code") {
    CHECK(code_of("{% for %}") == errc::template_syntax);
    CHECK(code_of("{{ x|nope }}") == errc::template_unknown_name);
    CHECK(code_of("{{ x is nope }}") == errc::template_unknown_name);
    CHECK(code_of("{{ missing.a }}") == errc::template_undefined);
    CHECK(code_of("{{ x + s }}") == errc::template_type);
    CHECK(code_of("{{ x / zero }}") == errc::template_value);
    CHECK(code_of("{{ 'a' * 10**9 }}") == errc::template_limit);
    CHECK(code_of("{{ raise_exception('no') }}", pj::environment::hf()) == errc::template_raised);
    CHECK(code_of("{{ items.pop() }}", pj::environment::hf()) == errc::template_security);
}

// ---- strict undefined ---------------------------------------------------------------------------

TEST_CASE("strict undefined: every use of an undefined value is an error") {
    const auto env = strict_env();
    struct use {
        std::string_view src;
        std::string_view message;
    };
    const use uses[] = {
        {"{{ missing }}", "'missing' is undefined"},
        {"{{ missing ~ 'a' }}", "'missing' is undefined"},
        {"{{ missing + 1 }}", "'missing' is undefined"},
        {"{{ missing|upper }}", "'missing' is undefined"},
        {"{{ missing|length }}", "'missing' is undefined"},
        {"{{ missing.attr }}", "'missing' is undefined"},
        {"{{ missing == 1 }}", "'missing' is undefined"},
        {"{% if missing %}{% endif %}", "'missing' is undefined"},
        {"{% for i in missing %}{% endfor %}", "'missing' is undefined"},
        {"{{ [missing] }}", "'missing' is undefined"},
        {"{{ user.nope }}", "'dict object' has no attribute 'nope'"},
        {"{% set y = missing %}{{ y }}", "'missing' is undefined"},
    };
    for (const auto& u : uses) {
        CAPTURE(u.src);
        const auto e = error_of(env, u.src);
        REQUIRE(e);
        CHECK(e->code() == errc::template_undefined);
        CHECK(e->message() == u.message);
        CHECK(e->where().name == "t.j2");
        CHECK(e->where().line == 1);
    }
}

TEST_CASE("strict undefined: is defined, default and assignment do not use the value") {
    const auto env = strict_env();
    CHECK(render(env, "{{ missing is defined }} {{ missing is undefined }} {{ user.nope is defined }}") ==
          "False True False");
    CHECK(render(env, "{{ missing|default('d') }} {{ missing|d('e') }} {{ user.nope|default(1) }}") == "d e 1");
    CHECK(render(env, "{% set y = missing %}ok") == "ok");
    CHECK(render(env, "{{ user.name }} {{ x }}") == "Ann 1");
}

TEST_CASE("strict undefined: the same templates are fine in the default (lenient) environment") {
    const auto env = pj::environment::plain();
    CHECK(render(env, "[{{ missing }}][{{ missing ~ 'a' }}][{{ missing|upper }}][{{ missing|length }}]") ==
          "[][a][][0]");
    CHECK(render(env, "{% if missing %}yes{% else %}no{% endif %}{% for i in missing %}x{% endfor %}") == "no");
    CHECK(render(env, "{{ missing == 1 }} {{ user.nope }}") == "False ");
}

// ---- limits -------------------------------------------------------------------------------------

TEST_CASE("limits: output size") {
    const auto env = limited_env();
    CHECK(what_of("{% for i in range(20) %}{{ i }}-----{% endfor %}", env) ==
          "t.j2:1:32: output size limit reached (100 bytes)\n"
          "  {% for i in range(20) %}{{ i }}-----{% endfor %}\n"
          "                                 ^");
    CHECK(code_of("{% for i in range(20) %}{{ i }}-----{% endfor %}", env) == errc::template_limit);
    // captured blocks count too
    const auto e = error_of(env, "{% set s %}{% for i in range(20) %}xxxxxxxxx{% endfor %}{% endset %}ok");
    REQUIRE(e);
    CHECK(e->code() == errc::template_limit);
    CHECK(e->message() == "output size limit reached (100 bytes)");
    // exactly at the limit is fine
    CHECK(render(env, "{{ 'ab' * 50 }}").size() == 100);
}

TEST_CASE("limits: output size in a loop that prints members of JSON objects") {
    // A loop over a JSON array whose body is one `{{ }}` of literals and members of the loop
    // variable is written without binding the variable (render_state::print_members_loop); the limit
    // stops it at the same print, with the same error, as the general path, which takes the same
    // messages held in a template list.
    const auto env = limited_env();  // max_output 100
    const std::string loop = "{% for m in messages %}{{ '<' + m.role + '>' + m.content }}{% endfor %}";
    const auto messages = [](int n) {
        boost::json::array a;
        for (int i = 0; i < n; ++i) a.push_back(boost::json::object{{"role", "user"}, {"content", std::string(30, 'x')}});
        return boost::json::value{{"messages", std::move(a)}};
    };
    const auto fused = error_of(env, loop, messages(4));
    REQUIRE(fused);
    CHECK(std::string(fused->what()) ==
          "t.j2:1:24: output size limit reached (100 bytes)\n"
          "  " + loop + "\n"
          "                         ^");
    const auto general = error_of(env, "{% set messages = [{'role': 'user', 'content': 'x' * 30}] * 4 %}\n" + loop);
    REQUIRE(general);
    CHECK(std::string(general->what()) ==
          "t.j2:2:24: output size limit reached (100 bytes)\n"
          "  " + loop + "\n"
          "                         ^");
    // 2 messages of 36 bytes and one of 28: exactly at the limit
    auto at_limit = messages(3);
    at_limit.at("messages").at(2).at("content") = std::string(22, 'x');
    CHECK(render(env, loop, at_limit).size() == 100);
    // the limit reached in a loop captured by `set`
    const auto captured = error_of(env, "{% set s %}" + loop + "{% endset %}ok", messages(4));
    REQUIRE(captured);
    CHECK(captured->message() == "output size limit reached (100 bytes)");
    // A chain that ends with a literal: the loop copies it to its buffer with the message, and it
    // counts against the limit like the rest. 37 bytes a message: 100 in all fits, 101 does not.
    const std::string tailed = "{% for m in messages %}{{ '<' + m.role + '>' + m.content + '|' }}{% endfor %}";
    auto fits = messages(3);
    fits.at("messages").at(2).at("content") = std::string(19, 'x');
    CHECK(render(env, tailed, fits) == std::string("<user>") + std::string(30, 'x') + "|<user>" + std::string(30, 'x') +
                                           "|<user>" + std::string(19, 'x') + "|");
    auto over = messages(3);
    over.at("messages").at(2).at("content") = std::string(20, 'x');
    const auto over_error = error_of(env, tailed, over);
    REQUIRE(over_error);
    CHECK(std::string(over_error->what()).rfind("t.j2:1:24: output size limit reached (100 bytes)\n", 0) == 0);
}

TEST_CASE("render: an unsigned JSON integer beyond the signed 64-bit range in a loop over a JSON object's items") {
    // `for k, v in d|items` over a JSON object reads its members in place, one at a time; an
    // unsigned integer beyond INT64_MAX is a big integer there, as everywhere
    const auto ctx = boost::json::parse(R"({"big": {"a": 1, "x": 18446744073709551615}})");
    CHECK(pj::environment::plain().parse("{% for k, v in big|items %}{{ k }}={{ v + 1 }};{% endfor %}").render(ctx) ==
          "a=2;x=18446744073709551616;");
}

TEST_CASE("errors: a strict undefined value in a condition, at the operator that takes its truth") {
    // `a and b` is b when a is true: the truth of b is taken where the whole is used (the `if`
    // statement, the loop's filter), the truth of a at the operator, and `not` takes its
    // operand's at itself.
    const auto env = strict_env();
    const boost::json::value ctx = {{"s", "x"}};
    const auto position = [&](std::string_view src) {
        const auto e = error_of(env, src, ctx, "t");
        REQUIRE(e);
        CHECK(e->message() == "'nothing' is undefined");
        const std::string what = e->what();
        return what.substr(0, what.find(':', 4));
    };
    CHECK(position("{% if s and nothing %}a{% endif %}") == "t:1:4");
    CHECK(position("{% if nothing and s %}a{% endif %}") == "t:1:15");
    CHECK(position("{% if not (s and nothing) %}a{% endif %}") == "t:1:7");
    CHECK(position("{% for i in [1] if i and nothing %}{% endfor %}") == "t:1:4");
}

TEST_CASE("limits: tojson printed in place") {
    // A printed `v|tojson` (`|safe`) of the Hugging Face environment is written into the output
    // in place; its limits give the messages and positions of the filter's result.
    pj::options o = pj::environment::hf().opts();
    o.limit.max_output = 100;
    const pj::environment env(o);
    const boost::json::value ctx = {{"big", std::string(120, 'x')}, {"mid", std::string(60, 'y')}};
    const auto e1 = error_of(env, "{{ 'a' ~ (big | tojson | safe) }}", ctx);
    REQUIRE(e1);
    CHECK(std::string(e1->what()).rfind("t.j2:1:17: the result of filter 'tojson' exceeds the output size limit (100 bytes)\n", 0) == 0);
    const auto e2 = error_of(env, "{{ mid ~ (mid | tojson) }}", ctx);
    REQUIRE(e2);
    CHECK(std::string(e2->what()).rfind("t.j2:1:1: output size limit reached (100 bytes)\n", 0) == 0);
    CHECK(render(env, "{{ mid | tojson }}", ctx) == "\"" + std::string(60, 'y') + "\"");
}

TEST_CASE("limits: output size crossed inside a printed macro call") {
    // A macro called by `{{ m() }}` writes where it is printed: the limit is reported at the
    // print inside the body where the output passed it.
    const auto env = limited_env();  // max_output 100
    const auto e = error_of(env, "{{ 'a' * 60 }}{% macro m() %}\n{{ 'b' * 30 }}{{ 'c' * 30 }}{% endmacro %}\n{{ m() }}");
    REQUIRE(e);
    CHECK(std::string(e->what()).rfind("t.j2:2:", 0) == 0);
    CHECK(e->message() == "output size limit reached (100 bytes)");
    // within the limit, the same macro prints its whole body
    CHECK(render(env, "{{ 'a' * 30 }}{% macro m() %}{{ 'b' * 30 }}{{ 'c' * 30 }}{% endmacro %}{{ m() }}").size() == 90);
}

TEST_CASE("limits: string and list repetition and concatenation") {
    CHECK(what_of("{{ 'a' * 10**9 }}") ==
          "t.j2:1:8: string repetition would exceed the output size limit (67108864 bytes)\n"
          "  {{ 'a' * 10**9 }}\n"
          "         ^");
    const auto env = limited_env();
    CHECK(what_of("{{ 'ab' * 51 }}", env) ==
          "t.j2:1:9: string repetition would exceed the output size limit (100 bytes)\n"
          "  {{ 'ab' * 51 }}\n"
          "          ^");
    CHECK(what_of("{% set s = ('ab' * 40) ~ ('ab' * 40) %}ok", env) ==
          "t.j2:1:12: string concatenation would exceed the output size limit\n"
          "  {% set s = ('ab' * 40) ~ ('ab' * 40) %}ok\n"
          "             ^");
    CHECK(code_of("{{ [1] * 10**9 }}") == errc::template_limit);
    // a replace that multiplies a string (60 bytes, within the limit, into 480)
    CHECK(code_of("{{ ('a' * 60)|replace('a', 'aaaaaaaa')|length }}", env) == errc::template_limit);
    CHECK(render(env, "{{ ('a' * 12)|replace('a', 'aaaaaaaa')|length }}") == "96");
}

TEST_CASE("limits: texts that filters, methods and printed values build") {
    // A filter, method or function may build a text far longer than its input; each result is
    // held to the output size limit, and those that repeat a piece per line or item check it as
    // they grow.
    const auto env = limited_env();  // max_output 100
    CHECK(what_of("{{ ('a\\n' * 20)|indent(10)|length }}", env)
              .rfind("t.j2:1:17: indent result exceeds the output size limit\n", 0) == 0);
    CHECK(what_of("{{ 'a a a a a a'|wordwrap(1, wrapstring='-' * 30)|length }}", env)
              .rfind("t.j2:1:18: wordwrap result exceeds the output size limit\n", 0) == 0);
    CHECK(what_of("{{ ('<' * 40)|escape|length }}", env)
              .rfind("t.j2:1:15: the result of filter 'escape' exceeds the output size limit (100 bytes)\n", 0) == 0);
    CHECK(what_of("{{ ('<' * 40).replace('<', '<<<')|length }}", env)
              .rfind("t.j2:1:22: the result of method 'replace' exceeds the output size limit (100 bytes)\n", 0) == 0);
    // expandtabs counts its result before building it: a huge tab size fails without the memory
    CHECK(what_of("{{ ('\t' * 20).expandtabs(8)|length }}", env)
              .rfind("t.j2:1:25: the result of method 'expandtabs' exceeds the output size limit (100 bytes)\n", 0) == 0);
    CHECK(render(env, "{{ ('\t' * 12).expandtabs(8)|length }}") == "96");
    CHECK(code_of("{{ '\t\t'.expandtabs(100000000000000) }}", pj::environment::plain()) == errc::template_limit);
    CHECK(what_of("{% set f = ('<' * 40).replace %}{{ f('<', '<<<')|length }}", env)
              .find(": the result of the call exceeds the output size limit (100 bytes)\n") != std::string::npos);
    CHECK(what_of("{{ (['x' * 30] * 5)|string|length }}", env)
              .rfind("t.j2:1:21: the text of a value exceeds the output size limit (100 bytes)\n", 0) == 0);
    CHECK(what_of("{{ (['x' * 30] * 5)|tojson|length }}", env).find("output size limit") != std::string::npos);
    CHECK(what_of("{{ (['x' * 30] * 5)|pprint|length }}", env).find("output size limit") != std::string::npos);
    // within the limit
    CHECK(render(env, "{{ ('a\\n' * 4)|indent(10)|length }} {{ ('<' * 20)|escape|length }} {{ (['x' * 30] * 2)|string|length }}") ==
          "38 80 68");  // as Python Jinja2
}

TEST_CASE("limits: loop iterations, counted over all loops of a render") {
    const auto env = limited_env();
    CHECK(what_of("{% for i in range(5) %}{% for j in range(20) %}{% endfor %}{% endfor %}", env) ==
          "t.j2:1:27: loop iteration limit reached (50 loop iterations and macro calls)\n"
          "  {% for i in range(5) %}{% for j in range(20) %}{% endfor %}{% endfor %}\n"
          "                            ^");
    // 5 + 5 * 9 = 50 iterations is within the limit
    CHECK(render(env, "{% for i in range(5) %}{% for j in range(9) %}{% endfor %}{% endfor %}done") == "done");
    CHECK(code_of("{% for c in 'x' * 60 %}{% endfor %}", env) == errc::template_limit);
    // items a loop's filter skips count too, and a list that grows as it is iterated (Python
    // visits the items appended) is stopped by the limit rather than running on
    CHECK(code_of("{% for c in 'x' * 60 if false %}{% endfor %}", env) == errc::template_limit);
    CHECK(render(env, "{% for c in 'x' * 50 if false %}{% endfor %}done") == "done");
    CHECK(what_of("{% set l = [1] %}{% for x in l %}{{ l.append(x) or '' }}{% endfor %}", env)
              .find("loop iteration limit reached (50 loop iterations and macro calls)") != std::string::npos);
    CHECK(what_of("{% set l = [1] %}{% for x in l if l.append(x) %}{% endfor %}", env)
              .find("loop iteration limit reached (50 loop iterations and macro calls)") != std::string::npos);
    // the count starts again with every render
    const auto t = env.parse("{% for i in range(20) %}{% endfor %}{% for i in range(20) %}{% endfor %}ok");
    for (int k = 0; k < 3; ++k) CHECK(t.render(boost::json::object{}) == "ok");
}

TEST_CASE("limits: macro call depth and recursive loops") {
    const auto env = limited_env();
    CHECK(what_of("{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}", env) ==
          "t.j2:1:21: macro recursion limit reached (10 nested calls)\n"
          "  {% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}\n"
          "                      ^");
    // ten nested calls are allowed, eleven are not
    CHECK(render(env, "{% macro r(n) %}{% if n < 10 %}{{ r(n + 1) }}{% endif %}{{ n }}{% endmacro %}{{ r(1) }}") ==
          "10987654321");
    CHECK(code_of("{% macro r(n) %}{% if n < 11 %}{{ r(n + 1) }}{% endif %}{% endmacro %}{{ r(1) }}", env) ==
          errc::template_limit);
    CHECK(what_of("{% for a in [1] recursive %}{{ loop([1]) }}{% endfor %}", env) ==
          "t.j2:1:36: recursive loop depth limit reached (10)\n"
          "  {% for a in [1] recursive %}{{ loop([1]) }}{% endfor %}\n"
          "                                     ^");
    // the default limit stops runaway recursion too
    CHECK(code_of("{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}") == errc::template_limit);
}

TEST_CASE("limits: the stack a render may use") {
    // Nested expressions inside recursive macro calls: each level of the parser's limits is
    // allowed, but together they would overflow the stack (a crash before limits::max_stack).
    std::string chain = "{% macro m(n) %}{% if n > 0 %}{{ m(n - 1)";
    for (int i = 0; i < 190; ++i) chain += "|abs";
    chain += " }}{% else %}0{% endif %}{% endmacro %}{{ m(190) }}";
    const auto deep = error_of(pj::environment::plain(), chain);  // 190 x 190 levels: more than 4 MiB
    REQUIRE(deep);
    CHECK(static_cast<errc>(deep->code().value()) == errc::template_limit);
    CHECK(std::string(deep->what()).find("nested too deeply: the render used its stack budget (limits::max_stack)") !=
          std::string::npos);
    // a smaller budget stops shallower recursion, with the same error; the default allows it
    const std::string recursion = "{% macro r(n) %}{% if n > 0 %}{{ r(n - 1) }}{% endif %}{{ n }}{% endmacro %}{{ r(40) }}";
    pj::options small;
    small.limit.max_stack = 16 * 1024;
    CHECK(code_of(recursion, pj::environment(small)) == errc::template_limit);
    std::string counted;
    for (int n = 0; n <= 40; ++n) counted += std::to_string(n);
    CHECK(render(pj::environment::plain(), recursion) == counted);
    // values nested deeper than the stack allows fail when printed or compared
    pj::options tiny;
    tiny.limit.max_stack = 8 * 1024;
    const std::string nested =
        "{% set ns = namespace(x=1, y=1) %}{% for i in range(300) %}{% set ns.x = [ns.x] %}{% set ns.y = [ns.y] %}"
        "{% endfor %}";
    CHECK(what_of(nested + "{{ ns.x }}", pj::environment(tiny)).find("nested too deeply") != std::string::npos);
    CHECK(what_of(nested + "{{ ns.x == ns.y }}", pj::environment(tiny)).find("nested too deeply") != std::string::npos);
    CHECK(what_of(nested + "{{ ns.x < ns.y }}", pj::environment(tiny)).find("nested too deeply") != std::string::npos);
    CHECK(render(pj::environment::plain(), nested + "{{ ns.x == ns.y }} {{ ns.x|string|length }}") == "True 601");
}

TEST_CASE("limits: a list, dict or namespace cannot hold itself") {
    // Python allows such cycles; reference counting would never free them, so they are errors.
    const std::string message = "cannot hold itself, directly or through what it holds";
    CHECK(what_of("{% set l = [] %}{% set _ = l.append(l) %}")
              .rfind("t.j2:1:36: a list cannot hold itself, directly or through what it holds (parley's values are "
                     "reference counted, and such a cycle would never be freed)\n",
                     0) == 0);
    for (const char* src : {
             "{% set l = [] %}{% set _ = l.append([1, {'a': [l]}]) %}",
             "{% set l = [] %}{% set _ = l.extend([[l]]) %}",
             "{% set l = [] %}{% set _ = l.insert(0, (l,)) %}",
             "{% set l = [] %}{% set f = l.append %}{% set _ = l.append(f) %}",
             "{% set l = [] %}{% set c = cycler(l) %}{% set _ = l.append(c) %}",
             "{% set l = [] %}{% set j = joiner(l) %}{% set _ = l.append(j) %}",
             "{% set d = {} %}{% set _ = d.update({'a': [d]}) %}",
             "{% set d = {} %}{% set _ = d.update(a=d) %}",
             "{% set d = {} %}{% set _ = d.update([('a', [d])]) %}",
             "{% set d = {} %}{% set _ = d.setdefault('a', d) %}",
             "{% set ns = namespace() %}{% set ns.me = {'x': ns} %}",
             "{% set ns = namespace(a=[]) %}{% set _ = ns.a.append(ns) %}",
             "{% set l = [] %}{% for x in [l] %}{% set _ = l.append(loop) %}{% endfor %}",
             "{% for x in [1] %}{{ loop.changed([loop]) }}{% endfor %}",
         }) {
        INFO(src);
        const auto e = error_of(pj::environment::plain(), src);
        REQUIRE(e);
        CHECK(static_cast<errc>(e->code().value()) == errc::template_limit);
        CHECK(std::string(e->what()).find(message) != std::string::npos);
    }
    // sharing without a cycle is fine
    CHECK(render(pj::environment::plain(),
                 "{% set a = [1] %}{% set l = [] %}{% set _ = l.append(a) %}{% set _ = l.append(a) %}"
                 "{% set ns = namespace(x=l) %}{% set ns.y = l %}{{ l }} {{ ns.x == ns.y }}") == "[[1], [1]] True");
    // changing a deeply nested value in a loop fails once the checks have walked
    // limits::max_loop_iterations values, instead of taking quadratic time
    pj::options walk;
    walk.limit.max_loop_iterations = 100000;
    CHECK(what_of("{% set ns = namespace(x=1) %}{% for i in range(1000) %}{% set ns.x = [ns.x] %}{% endfor %}",
                  pj::environment(walk))
              .find("walked more values than the render's limit (limits::max_loop_iterations)") != std::string::npos);
    CHECK(render(pj::environment(walk),
                 "{% set ns = namespace(x=1) %}{% for i in range(300) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x|length }}") ==
          "1");
}

TEST_CASE("values nested a million levels deep are freed without recursion") {
    pj::value v = pj::value::make_list({1});
    for (int i = 0; i < 1'000'000; ++i) v = pj::value::make_list({v});
    CHECK(v.list().items.size() == 1);
    v = pj::value(nullptr);  // frees the million lists; recursing would overflow the stack
    CHECK(v.is_none());
}

TEST_CASE("limits: range size") {
    const auto env = limited_env();
    CHECK(what_of("{{ range(21)|length }}", env) ==
          "t.j2:1:9: range too big: it would have 21 items (limit 20)\n"
          "  {{ range(21)|length }}\n"
          "          ^");
    CHECK(render(env, "{{ range(20)|length }} {{ range(0, 100, 5)|length }}") == "20 20");
    CHECK(what_of("{% for i in range(100000000) %}{% endfor %}") ==
          "t.j2:1:18: range too big: it would have 100000000 items (limit 10000000)\n"
          "  {% for i in range(100000000) %}{% endfor %}\n"
          "                   ^");
    // the hf sandbox allows at most 100000
    CHECK(what_of("{{ range(100001)|length }}", pj::environment::hf()) ==
          "t.j2:1:9: range too big: it would have 100001 items (limit 100000)\n"
          "  {{ range(100001)|length }}\n"
          "          ^");
    CHECK(render(pj::environment::hf(), "{{ range(100000)|length }}") == "100000");
}

TEST_CASE("limits: deep nesting in the parser is an error, not a stack overflow") {
    const std::string parens = "{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}";
    const auto p = error_of(pj::environment::plain(), parens);
    REQUIRE(p);
    CHECK(p->message() == "brackets nested too deeply");
    CHECK(p->where().line == 1);
    CHECK(p->where().column == 68);  // the first bracket beyond the limit

    const std::string brackets = "{{ " + std::string(100000, '[') + std::string(100000, ']') + " }}";
    const auto b = error_of(pj::environment::plain(), brackets);
    REQUIRE(b);
    CHECK(b->message() == "brackets nested too deeply");

    std::string nots = "{{ ";
    for (int i = 0; i < 100000; ++i) nots += "not ";
    nots += "x }}";
    const auto n = error_of(pj::environment::plain(), nots);
    REQUIRE(n);
    CHECK(n->message() == "expression nested too deeply");
    CHECK(n->where().column == 800);  // the 200th 'not'

    std::string negs = "{{ ";
    for (int i = 0; i < 100000; ++i) negs += "-";
    negs += "1 }}";
    const auto m = error_of(pj::environment::plain(), negs);
    REQUIRE(m);
    CHECK(m->message() == "expression nested too deeply");

    std::string blocks;
    for (int i = 0; i < 100000; ++i) blocks += "{% if x %}";
    CHECK_THROWS_AS((void)pj::environment::plain().parse(blocks), parley::template_error);

    // nesting within the limits parses and renders
    std::string loops;
    for (int i = 0; i < 100; ++i) loops += "{% for a in [1] %}";
    loops += "deep";
    for (int i = 0; i < 100; ++i) loops += "{% endfor %}";
    CHECK(render(pj::environment::plain(), loops) == "deep");
}

namespace {

// "64 MiB", "10 000 000", "1 MiB (4 MiB in AddressSanitizer builds, ...)": the number at `at`
// (its digits may be grouped by spaces) times its unit; nullopt when there is none.
std::optional<std::uint64_t> documented_amount(std::string_view cell, std::size_t at = 0) {
    std::uint64_t n = 0;
    bool digits = false;
    while (at < cell.size() && (std::isdigit(static_cast<unsigned char>(cell[at])) ||
                                (digits && cell[at] == ' ' && at + 1 < cell.size() &&
                                 std::isdigit(static_cast<unsigned char>(cell[at + 1]))))) {
        if (cell[at] != ' ') {
            n = n * 10 + static_cast<std::uint64_t>(cell[at] - '0');
            digits = true;
        }
        ++at;
    }
    if (!digits) return std::nullopt;
    const std::string_view unit = cell.substr(at);
    if (unit.starts_with(" MiB")) return n << 20;
    if (unit.starts_with(" KiB")) return n << 10;
    return n;
}

}  // namespace

TEST_CASE("limits: the defaults are those the documentation's table gives") {
    // docs/template-language.md, "Limits": | `NAME` | DEFAULT | what it counts |
    std::ifstream doc(std::string(PARLEY_TEST_SOURCE_DIR) + "/docs/template-language.md");
    REQUIRE(doc);
    std::vector<std::pair<std::string, std::string>> rows;
    for (std::string line; std::getline(doc, line);) {
        if (!line.starts_with("| `max_")) continue;
        const auto name_end = line.find('`', 3);
        const auto cell_begin = line.find("| ", name_end) + 2;
        const auto cell_end = line.find(" |", cell_begin);
        REQUIRE(cell_end != std::string::npos);
        rows.emplace_back(line.substr(3, name_end - 3), line.substr(cell_begin, cell_end - cell_begin));
    }
    const pj::limits defaults;
    const pj::limits in_plain = pj::environment::plain().opts().limit;
    std::vector<std::string> names;
    for (const auto& row : rows) {
        const std::string& name = row.first;  // not a structured binding: CAPTURE takes it into a lambda
        const std::string& cell = row.second;
        CAPTURE(name);
        CAPTURE(cell);
        names.push_back(name);
        const auto amount = documented_amount(cell);
        REQUIRE(amount.has_value());
        if (name == "max_output") {
            CHECK(defaults.max_output == *amount);
            CHECK(in_plain.max_output == *amount);
        } else if (name == "max_call_depth") {
            CHECK(defaults.max_call_depth == *amount);
        } else if (name == "max_loop_iterations") {
            CHECK(defaults.max_loop_iterations == *amount);
        } else if (name == "max_range") {
            CHECK(static_cast<std::uint64_t>(defaults.max_range) == *amount);
        } else if (name == "max_stack") {
            // "1 MiB (4 MiB in AddressSanitizer builds, ...)"
            const auto sanitized = documented_amount(cell, cell.find('(') + 1);
            REQUIRE(sanitized.has_value());
            CHECK((defaults.max_stack == *amount || defaults.max_stack == *sanitized));
        } else {
            FAIL_CHECK("the documentation lists a limit that parley::jinja::limits does not have");
        }
    }
    // every member of limits is in the table
    CHECK(names == std::vector<std::string>{"max_output", "max_call_depth", "max_loop_iterations", "max_range", "max_stack"});
}

// ---- extension points ---------------------------------------------------------------------------

TEST_CASE("extensions: a user filter receives the input, positional and keyword arguments") {
    pj::environment env;
    env.add_filter("shout", [](const pj::value& in, const pj::arguments& a) {
        std::string s(in.as_string());
        for (auto& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        const std::int64_t n = a.size() ? a[0].as_integer() : 1;
        s.append(static_cast<std::size_t>(n), '!');
        if (const pj::value p = a.keyword("prefix"); p.is_defined()) s = std::string(p.as_string()) + s;
        return pj::value(std::move(s));
    });
    CHECK(render(env, "{{ 'hi'|shout }} {{ 'hi'|shout(3) }} {{ 'hi'|shout(2, prefix='>') }}") == "HI! HI!!! >HI!!");
    CHECK(render(env, "{{ ['a', 'b']|map('shout')|join(',') }}") == "A!,B!");
    CHECK(render(env, "{% filter shout %}block{% endfilter %}") == "BLOCK!");
    // keywords arrive in the order written, with **kwargs expanded
    pj::environment kw;
    kw.add_filter("keys", [](const pj::value&, const pj::arguments& a) {
        std::string s;
        for (const auto& [k, v] : a.keywords()) s += std::string(k) + "=" + std::to_string(v.as_integer()) + ";";
        return pj::value(std::move(s));
    });
    CHECK(render(kw, "{{ 0|keys(b=2, a=1) }}|{{ 0|keys(**{'z': 26}) }}") == "b=2;a=1;|z=26;");
}

TEST_CASE("extensions: a filter that renders a template inside a render") {
    // Each render has scope stacks of its own (kept on the thread between renders): a render
    // inside another, which binds the same names, leaves the outer one's variables, loop and
    // macro as they were, after it returns and after it fails.
    pj::environment env;
    env.add_filter("fail_on_x", [](const pj::value& in, const pj::arguments&) {
        if (in.is_string() && in.as_string() == "x") throw std::runtime_error("x is refused");
        return pj::value("");
    });
    const pj::parsed_template inner =
        env.parse("{% set a = 'in' %}{% for k in [1, 2] %}{{ a }}{{ k }}{{ v }}{% endfor %}{{ v|fail_on_x }}", "inner.j2");
    env.add_filter("inner", [&inner](const pj::value& in, const pj::arguments&) {
        boost::json::object ctx;
        ctx["v"] = std::string(in.as_string());
        return pj::value(inner.render(ctx));
    });
    const std::string outer =
        "{% macro m(x) %}[{{ x }}]{% endmacro %}{% set a = 'out' %}"
        "{% for msg in ['p', 'q'] %}{{ msg|inner }}{{ a }}{{ m(loop.index) }}{% endfor %}{{ a }}";
    const std::string expected = "in1pin2pout[1]in1qin2qout[2]out";
    CHECK(render(env, outer) == expected);
    // the inner render fails on the second item: the outer one fails with its message
    const auto failed = error_of(env, "{% set a = 'out' %}{% for msg in ['p', 'x'] %}{{ msg|inner }}{{ a }}{% endfor %}");
    REQUIRE(failed);
    CHECK(failed->message().find("inner.j2:1:") != std::string::npos);
    CHECK(failed->message().find("x is refused") != std::string::npos);
    // and the renders after it start from clean stacks
    CHECK(render(env, outer) == expected);
    CHECK(render(env, "{{ a is defined }}{% for k in [1] %}{{ k }}{% endfor %}") == "False1");
}

TEST_CASE("list literals: a list that a function of one's own keeps is not taken by a later literal") {
    // list literals reuse the lists of the thread that nothing holds any more: a list a filter
    // keeps beyond the render holds its items through later renders and literals
    pj::environment env;
    std::vector<pj::value> kept;
    env.add_filter("keep", [&kept](const pj::value& in, const pj::arguments&) {
        kept.push_back(in);
        return pj::value("");
    });
    env.add_function("kept", [&kept](const pj::arguments& a) { return kept.at(static_cast<std::size_t>(a[0].as_integer())); });
    // (the kept strings view the template's text: the template outlives them)
    const pj::parsed_template keeper =
        env.parse("{{ [1, 'a']|keep }}{% for i in range(3) %}{% set l = [i, (i,)] %}{{ l|keep }}{% endfor %}", "t.j2");
    CHECK(keeper.render(sample_context()) == "");
    CHECK(render(env, "{% for i in range(20) %}{{ [i, i] }}{{ (i,) }}{% endfor %}|{{ kept(0) }}") ==
          "[0, 0](0,)[1, 1](1,)[2, 2](2,)[3, 3](3,)[4, 4](4,)[5, 5](5,)[6, 6](6,)[7, 7](7,)[8, 8](8,)[9, 9](9,)"
          "[10, 10](10,)[11, 11](11,)[12, 12](12,)[13, 13](13,)[14, 14](14,)[15, 15](15,)[16, 16](16,)"
          "[17, 17](17,)[18, 18](18,)[19, 19](19,)|[1, 'a']");
    REQUIRE(kept.size() == 4);
    CHECK(render(env, "{{ kept(0) }} {{ kept(1) }} {{ kept(2) }} {{ kept(3) }} {{ kept(1) is sameas kept(2) }}") ==
          "[1, 'a'] [0, (0,)] [1, (1,)] [2, (2,)] False");
}

TEST_CASE("extensions: a user filter replaces a built-in one of the same name") {
    pj::environment env;
    env.add_filter("upper", [](const pj::value& in, const pj::arguments&) {
        return pj::value("U(" + std::string(in.as_string()) + ")");
    });
    CHECK(render(env, "{{ 'x'|upper }}") == "U(x)");
    CHECK(render(pj::environment::plain(), "{{ 'x'|upper }}") == "X");
}

TEST_CASE("extensions: user tests, also through select and reject") {
    pj::environment env;
    env.add_test("short", [](const pj::value& in, const pj::arguments& a) {
        const std::size_t max = a.size() ? static_cast<std::size_t>(a[0].as_integer()) : 4;
        return in.as_string().size() < max;
    });
    CHECK(render(env, "{{ 'abc' is short }} {{ 'abcdef' is short }} {{ 'abcdef' is short(10) }} "
                      "{{ 'abc' is not short }}") == "True False True False");
    CHECK(render(env, "{{ ['ab', 'abcdef']|select('short')|list }} {{ ['ab', 'abcdef']|reject('short')|list }}") ==
          "['ab'] ['abcdef']");
    CHECK(render(env, "{% if 'a' is short %}yes{% endif %}") == "yes");
}

TEST_CASE("extensions: user functions are callable globals") {
    pj::environment env;
    int calls = 0;
    env.add_function("add", [&calls](const pj::arguments& a) {
        ++calls;
        return pj::value(a[0].as_integer() + a[1].as_integer());
    });
    CHECK(render(env, "{{ add(2, 3) }} {{ add(x, 10) }} {{ add is callable }}") == "5 11 True");
    CHECK(calls == 2);
    CHECK(render(env, "{{ add }}") == "<function add>");
}

TEST_CASE("extensions: globals are JSON values; the context hides them; add_global replaces a function") {
    pj::environment env;
    env.add_global("site", boost::json::parse(R"({"name": "parley", "tags": ["a", "b"]})"));
    CHECK(render(env, "{{ site.name }} {{ site.tags|join(',') }}") == "parley a,b");
    CHECK(render(env, "{{ site }}", boost::json::parse(R"({"site": "from context"})")) == "from context");

    env.add_function("thing", [](const pj::arguments&) { return pj::value("function"); });
    CHECK(render(env, "{{ thing() }}") == "function");
    env.add_global("thing", boost::json::value("global"));
    CHECK(render(env, "{{ thing }}") == "global");
    env.add_function("thing", [](const pj::arguments&) { return pj::value("function again"); });
    CHECK(render(env, "{{ thing() }}") == "function again");
}

TEST_CASE("extensions: set_clock drives strftime_now in the hf environment") {
    auto env = pj::environment::hf();
    env.set_clock([] { return std::chrono::system_clock::time_point(std::chrono::seconds(1721952000)); });
    CHECK(render(env, "{{ strftime_now('%Y-%m-%d %H:%M:%S') }}|{{ strftime_now('%d %B %Y') }}") ==
          "2024-07-26 00:00:00|26 July 2024");
    env.set_clock([] { return std::chrono::system_clock::time_point(std::chrono::seconds(0)); });
    CHECK(render(env, "{{ strftime_now('%Y') }}") == "1970");
    CHECK(what_of("{{ strftime_now() }}", env) ==
          "t.j2:1:16: function 'strftime_now' is missing its required argument 'fmt'\n"
          "  {{ strftime_now() }}\n"
          "                 ^");
    // strftime_now belongs to the hf environment
    const auto e = error_of(pj::environment::plain(), "{{ strftime_now('%Y') }}");
    REQUIRE(e);
    CHECK(e->message() == "'strftime_now' is undefined");
}

TEST_CASE("extensions: environments copy on write; templates keep the environment they were parsed with") {
    pj::environment a;
    a.add_global("who", boost::json::value("a"));
    const auto before = a.parse("{{ who }}{{ 'x'|upper }}");
    pj::environment b = a;
    b.add_global("who", boost::json::value("b"));
    a.add_filter("upper", [](const pj::value&, const pj::arguments&) { return pj::value("+"); });
    a.add_global("who", boost::json::value("a2"));

    CHECK(render(b, "{{ who }}{{ 'x'|upper }}") == "bX");
    CHECK(render(a, "{{ who }}{{ 'x'|upper }}") == "a2+");
    // `before` was parsed before the changes to `a`
    CHECK(before.render(boost::json::object{}) == "aX");
}

TEST_CASE("extensions: a parsed template outlives its environment") {
    std::optional<pj::parsed_template> t;
    {
        pj::environment env;
        env.add_function("twice", [](const pj::arguments& a) { return pj::value(2 * a[0].as_integer()); });
        env.add_global("base", boost::json::value(20));
        t.emplace(env.parse("{{ twice(base + x) }}", "kept"));
    }
    CHECK(t->render(sample_context()) == "42");
    CHECK(t->name() == "kept");
}

TEST_CASE("environment: named environments and their options") {
    CHECK(pj::environment::named("hf").opts().trim_blocks);
    CHECK(pj::environment::named("hf").opts().sandboxed);
    CHECK_FALSE(pj::environment::named("plain").opts().trim_blocks);
    try {
        (void)pj::environment::named("django");
        FAIL("an unknown environment name was accepted");
    } catch (const parley::error& e) {
        CHECK(e.code() == errc::invalid_argument);
        CHECK(std::string(e.what()) == "unknown environment 'django' (expected 'hf' or 'plain')");
    }
}

// ---- parse once, render many --------------------------------------------------------------------

TEST_CASE("parsed_template: keeps its name and normalised source") {
    const auto t = pj::environment::plain().parse("a\r\nb\rc\n", "n.j2");
    CHECK(t.name() == "n.j2");
    CHECK(t.source() == "a\nb\nc");
    CHECK(t.render() == "a\nb\nc");
    pj::options keep;
    keep.keep_trailing_newline = true;
    CHECK(pj::environment(keep).parse("a\r\n").source() == "a\n");
}

TEST_CASE("parsed_template: parse once, render many times with different contexts") {
    const auto t = pj::environment::plain().parse(
        "{% macro item(i) %}<{{ i }}>{% endmacro %}{% set ns = namespace(total=0) %}"
        "{% for i in items %}{{ item(i) }}{% set ns.total = ns.total + i %}{% endfor %}={{ ns.total }}",
        "many");
    for (int n = 0; n < 200; ++n) {
        boost::json::array items;
        std::string expected;
        int total = 0;
        for (int i = 0; i <= n % 7; ++i) {
            items.emplace_back(i * n);
            expected += "<" + std::to_string(i * n) + ">";
            total += i * n;
        }
        expected += "=" + std::to_string(total);
        boost::json::object ctx;
        ctx["items"] = std::move(items);
        CHECK(t.render(ctx) == expected);
    }
    // an error in one render does not affect the next
    const auto fragile = pj::environment::plain().parse("{{ 10 // d }}");
    CHECK_THROWS_AS((void)fragile.render(boost::json::parse(R"({"d": 0})")), parley::template_error);
    CHECK(fragile.render(boost::json::parse(R"({"d": 5})")) == "2");
}

TEST_CASE("parsed_template: render_to appends to the string it is given") {
    const auto t = pj::environment::plain().parse("{{ x }}");
    std::string out = "x=";
    t.render_to(out, sample_context());
    t.render_to(out, sample_context());
    CHECK(out == "x=11");
}

TEST_CASE("parsed_template: on an error, render_to leaves the string as it was") {
    const auto t = pj::environment::plain().parse("partial output {{ 1 // zero }} more");
    std::string out = "kept";
    CHECK_THROWS_AS(t.render_to(out, sample_context()), parley::template_error);
    CHECK(out == "kept");
}

TEST_CASE("parsed_template: rendered concurrently from 4 threads, the output is the same as from one") {
    auto env = pj::environment::hf();
    env.add_filter("wrap", [](const pj::value& in, const pj::arguments&) {
        return pj::value("[" + std::string(in.as_string()) + "]");
    });
    env.add_global("greeting", boost::json::value("hello"));
    env.set_clock([] { return std::chrono::system_clock::time_point(std::chrono::seconds(1721952000)); });
    const auto t = env.parse(
        "{%- macro row(m) -%}{{ m.role|upper }}: {{ m.content|trim|wrap }}\n{%- endmacro -%}\n"
        "{{ greeting }} {{ strftime_now('%Y') }}\n"
        "{%- set ns = namespace(chars=0) %}\n"
        "{%- for m in messages %}\n"
        "{{ row(m) }}\n"
        "{%- set ns.chars = ns.chars + m.content|length %}\n"
        "{%- endfor %}\n"
        "{{ ns.chars }} {{ messages|map(attribute='role')|unique|list|tojson }}",
        "concurrent");

    std::vector<boost::json::value> contexts;
    for (int c = 0; c < 4; ++c) {
        boost::json::array messages;
        for (int i = 0; i < 20 + c; ++i) {
            boost::json::object m;
            m["role"] = i % 2 ? "assistant" : "user";
            m["content"] = " message " + std::to_string(c) + "." + std::to_string(i) + " ";
            messages.emplace_back(std::move(m));
        }
        boost::json::object ctx;
        ctx["messages"] = std::move(messages);
        contexts.emplace_back(std::move(ctx));
    }
    std::vector<std::string> expected;
    for (const auto& ctx : contexts) expected.push_back(t.render(ctx));
    REQUIRE(expected[0].starts_with("hello 2024USER: [message 0.0]ASSISTANT: [message 0.1]USER: [message 0.2]"));
    REQUIRE(expected[0].ends_with("ASSISTANT: [message 0.19]270 [\"user\", \"assistant\"]"));
    REQUIRE(expected[0] != expected[1]);

    constexpr int rounds = 200;
    std::vector<std::vector<std::string>> outputs(4);
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k) {
        threads.emplace_back([&, k] {
            // every thread renders every context, in a different order from its neighbours
            for (int r = 0; r < rounds; ++r) outputs[k].push_back(t.render(contexts[(k + r) % 4]));
        });
    }
    for (auto& th : threads) th.join();
    for (int k = 0; k < 4; ++k) {
        REQUIRE(outputs[k].size() == rounds);
        int mismatches = 0;
        for (int r = 0; r < rounds; ++r)
            if (outputs[k][r] != expected[(k + r) % 4]) ++mismatches;
        CHECK(mismatches == 0);
    }
}

TEST_CASE("parsed_template: concurrent renders that fail report their own errors") {
    const auto t = pj::environment::plain().parse("{% for i in items %}{{ 100 // i }},{% endfor %}", "div");
    const boost::json::value good = boost::json::parse(R"({"items": [1, 2, 4]})");
    const boost::json::value bad = boost::json::parse(R"({"items": [1, 0]})");
    std::vector<std::string> results(4);
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k) {
        threads.emplace_back([&, k] {
            std::string r;
            for (int n = 0; n < 100; ++n) {
                try {
                    r = t.render(k % 2 ? bad : good);
                } catch (const parley::template_error& e) {
                    r = e.message();
                }
                if (r != (k % 2 ? "integer division or modulo by zero" : "100,50,25,")) break;
            }
            results[static_cast<std::size_t>(k)] = r;
        });
    }
    for (auto& th : threads) th.join();
    CHECK(results[0] == "100,50,25,");
    CHECK(results[1] == "integer division or modulo by zero");
    CHECK(results[2] == "100,50,25,");
    CHECK(results[3] == "integer division or modulo by zero");
}

TEST_CASE("extension: an exception from a C++ filter, test or function is an error of the template at the call") {
    pj::environment env = pj::environment::plain();
    env.add_filter("boom", [](const pj::value&, const pj::arguments&) -> pj::value { throw std::runtime_error("no fuel"); });
    env.add_test("fragile", [](const pj::value&, const pj::arguments&) -> bool {
        throw parley::error(errc::template_value, "bad input");
    });
    env.add_function("fail", [](const pj::arguments&) -> pj::value { throw std::out_of_range("index 7"); });
    CHECK(what_of("a\n{{ 1 | boom }}", env) == "t.j2:2:8: no fuel\n  {{ 1 | boom }}\n         ^");
    CHECK(code_of("{{ 1 | boom }}", env) == errc::template_callback);
    CHECK(what_of("{{ 1 is fragile }}", env) == "t.j2:1:9: bad input\n  {{ 1 is fragile }}\n          ^");
    CHECK(code_of("{{ 1 is fragile }}", env) == errc::template_value);  // a parley::error keeps its code
    CHECK(what_of("{{ fail() }}", env) == "t.j2:1:8: index 7\n  {{ fail() }}\n         ^");  // at the call
    CHECK(code_of("{{ fail() }}", env) == errc::template_callback);
    // a render_to that fails leaves the caller's string as it was
    std::string out = "kept";
    CHECK_THROWS_AS(env.parse("x{{ 1 | boom }}", "t.j2").render_to(out, boost::json::object()), parley::template_error);
    CHECK(out == "kept");
}

TEST_CASE("limits: chains nested beyond the expression depth limit and wide macro recursion are refused") {
    std::string chain = "{{ 1";
    for (int i = 0; i < 20000; ++i) chain += " + 1";
    chain += " }}";
    CHECK(code_of(chain) == errc::template_limit);
    std::string attrs = "{{ x";
    for (int i = 0; i < 20000; ++i) attrs += ".a";
    attrs += " }}";
    CHECK(code_of(attrs) == errc::template_limit);
    std::string fine = "{{ 1";
    for (int i = 0; i < 200; ++i) fine += " + 1";
    fine += " }}";
    CHECK(render(pj::environment::plain(), fine) == "201");
    // 2**40 calls, none deeper than 41: stopped by the shared iteration budget
    pj::options o;
    o.limit.max_loop_iterations = 1000;
    CHECK(what_of("{% macro r(n) %}{% if n < 40 %}{{ r(n + 1) }}{{ r(n + 1) }}{% endif %}{% endmacro %}{{ r(0) }}",
                  pj::environment(o))
              .find("loop iteration limit reached (1000 loop iterations and macro calls)") != std::string::npos);
}

// ---- methods of one's own (add_method) ----------------------------------------------------------

namespace {

// `n.times(k=2, plus=0)`: a method of integers only; every other receiver has no such method.
pj::environment with_times(pj::environment env = pj::environment::plain(), int* calls = nullptr) {
    env.add_method("times", [calls](const pj::value& self, const pj::arguments& a) -> std::optional<pj::value> {
        if (!self.is_integer()) return std::nullopt;
        if (calls) ++*calls;
        const std::int64_t k = a.size() ? a[0].as_integer() : 2;
        const pj::value plus = a.keyword("plus");
        return pj::value(self.as_integer() * k + (plus.is_defined() ? plus.as_integer() : 0));
    });
    return env;
}

}  // namespace

TEST_CASE("methods: a method of one's own receives the receiver, positional and keyword arguments") {
    int calls = 0;
    const pj::environment env = with_times(pj::environment::plain(), &calls);
    CHECK(render(env, "{{ x.times() }} {{ x.times(5) }} {{ 7 .times(3, plus=1) }} {{ (x + 2).times(plus=10) }}") ==
          "2 5 22 16");
    CHECK(calls == 4);
    // on values viewed in place and on values the template made
    CHECK(render(env, "{% for n in items %}{{ n.times(10) }},{% endfor %}{{ [4][0].times() }}") == "10,20,30,8");
    // templates keep the environment they were parsed with
    pj::environment late = pj::environment::plain();
    const auto before = late.parse("{{ x.times() }}");
    late = with_times(late);
    CHECK(late.parse("{{ x.times() }}").render(sample_context()) == "2");
    CHECK_THROWS_AS(before.render(sample_context()), parley::template_error);
}

TEST_CASE("methods: a receiver the method refuses gives the usual attribute error") {
    const pj::environment env = with_times();
    CHECK(what_of("{{ s.times() }}", env) ==
          "t.j2:1:11: 'str object' has no attribute 'times'\n"
          "  {{ s.times() }}\n"
          "            ^");
    CHECK(code_of("{{ s.times() }}", env) == errc::template_undefined);
    CHECK(what_of("{{ user.times() }}", env) ==
          "t.j2:1:14: 'dict object' has no attribute 'times'\n"
          "  {{ user.times() }}\n"
          "               ^");
    // an undefined receiver is an undefined error, the method is not asked
    CHECK(what_of("{{ nothing.times() }}", env) ==
          "t.j2:1:17: 'nothing' is undefined\n"
          "  {{ nothing.times() }}\n"
          "                  ^");
    // without the method, the same error
    CHECK(what_of("{{ s.times() }}") ==
          "t.j2:1:11: 'str object' has no attribute 'times'\n"
          "  {{ s.times() }}\n"
          "            ^");
}

TEST_CASE("methods: a key missing from a JSON object, read as an attribute, is a method of one's own when there is one") {
    // (read without the call: `user.times` is the bound method, whatever receivers it accepts)
    CHECK(render(with_times(), "{{ user.times is defined }} {{ user.nope is defined }} {{ x.times is defined }}") ==
          "True False True");
    CHECK(render(pj::environment::plain(), "{{ user.times is defined }} [{{ user.times }}]") == "False []");
}

TEST_CASE("methods: the built-in methods of str, list and dict win; so do a receiver's own keys") {
    pj::environment env = pj::environment::plain();
    env.add_method("upper", [](const pj::value& self, const pj::arguments&) -> std::optional<pj::value> {
        return pj::value(std::string("own upper of ") + (self.is_string() ? "str" : self.is_sequence_like() ? "list" : "other"));
    });
    env.add_method("name", [](const pj::value&, const pj::arguments&) -> std::optional<pj::value> {
        return pj::value("method");
    });
    CHECK(render(env, "{{ s.upper() }}|{{ items.upper() }}|{{ 3 .upper() }}") == "STR|own upper of list|own upper of other");
    // `user` has a key `name`: it wins as an attribute and as an item; a call calls what the key holds
    CHECK(render(env, "{{ user.name }}|{{ user['name'] }}|{{ items.name() }}|{{ {'a': 1}.name() }}") ==
          "Ann|Ann|method|method");
    CHECK(what_of("{{ user.name() }}", env) ==
          "t.j2:1:13: 'str' object is not callable\n"
          "  {{ user.name() }}\n"
          "              ^");
    // a dict method wins over a method of one's own
    env.add_method("keys", [](const pj::value&, const pj::arguments&) -> std::optional<pj::value> {
        return pj::value("own keys");
    });
    CHECK(render(env, "{{ user.keys()|list }}|{{ items.keys() }}") == "['name']|own keys");
}

TEST_CASE("methods: reachable as attributes, like bound methods") {
    const pj::environment env = with_times();
    CHECK(render(env, "{% set f = x.times %}{{ f() }} {{ f(4) }} {{ f is callable }}") == "2 4 True");
    CHECK(render(env, "{{ x['times'](3) }} {{ (x|attr('times'))(6) }} {{ x.times }}") ==
          "3 6 <built-in method times>");
    CHECK(render(env, "{{ items|map(attribute='times')|map('string')|join(',') }}") ==
          "<built-in method times>,<built-in method times>,<built-in method times>");
    // taken from a receiver the method refuses, the bound method fails when it is called
    CHECK(what_of("{% set f = s.times %}{{ f() }}", env) ==
          "t.j2:1:26: 'str' object has no attribute 'times'\n"
          "  {% set f = s.times %}{{ f() }}\n"
          "                           ^");
    // a key of the same name wins over the method as an attribute
    pj::environment named = pj::environment::plain();
    named.add_method("name", [](const pj::value&, const pj::arguments&) -> std::optional<pj::value> {
        return pj::value("method");
    });
    CHECK(render(named, "{{ user.name }} {{ user|attr('name') }} {{ (items|attr('name'))() }}") ==
          "Ann <built-in method name> method");
}

TEST_CASE("methods: in the sandbox, in strict mode, and an exception from the method") {
    const pj::environment hf = with_times(pj::environment::hf());
    CHECK(render(hf, "{{ x.times(3) }}") == "3");
    // the sandbox still refuses the built-in methods that change lists
    CHECK(code_of("{{ items.append(4) }}", hf) == errc::template_security);
    pj::environment strict = with_times(strict_env());
    CHECK(render(strict, "{{ x.times() }}") == "2");
    CHECK(code_of("{{ s.times() }}", strict) == errc::template_undefined);
    CHECK(code_of("{{ x.other }}", strict) == errc::template_undefined);

    pj::environment env = pj::environment::plain();
    env.add_method("explode", [](const pj::value&, const pj::arguments&) -> std::optional<pj::value> {
        throw parley::error(errc::template_value, "explode() needs fuel");
    });
    CHECK(what_of("{{ x.explode() }}", env) ==
          "t.j2:1:13: explode() needs fuel\n"
          "  {{ x.explode() }}\n"
          "              ^");
    CHECK(code_of("{{ x.explode() }}", env) == errc::template_value);
    env.add_method("explode", [](const pj::value&, const pj::arguments&) -> std::optional<pj::value> {
        throw std::runtime_error("boom");
    });
    CHECK(code_of("{{ x.explode() }}", env) == errc::template_callback);
    CHECK(code_of("{% set f = x.explode %}{{ f() }}", env) == errc::template_callback);
}

TEST_CASE("methods: names are identifiers not beginning with '_'; environments copy on write") {
    pj::environment env = pj::environment::plain();
    auto none = [](const pj::value&, const pj::arguments&) -> std::optional<pj::value> { return std::nullopt; };
    for (const char* bad : {"", "_private", "__class__", "two words", "1st", "a-b", "a.b"}) {
        try {
            env.add_method(bad, none);
            FAIL_CHECK("no error for ", bad);
        } catch (const parley::error& e) {
            CHECK(static_cast<errc>(e.code().value()) == errc::invalid_argument);
            CHECK(std::string(e.what()) == "add_method: '" + std::string(bad) +
                                               "' is not a method name (an identifier that does not begin with '_')");
        }
    }
    env.add_method("ok_2", none);

    const pj::environment a = with_times();
    pj::environment b = a;
    b.add_method("times", [](const pj::value&, const pj::arguments&) -> std::optional<pj::value> {
        return pj::value("b");
    });
    CHECK(render(a, "{{ x.times() }}") == "2");
    CHECK(render(b, "{{ x.times() }}|{{ s.times() }}") == "b|b");
}
