// Tests of parley/jinja/compiled.hpp: compile-time templates render as the run-time engine does
// (which the differential tests check against Python Jinja2), take the generated path where
// the template is in the compiled subset, and stop the compiler on a syntax error or a name
// path that does not fit the context type (compile-fail tests).
#include <parley/jinja/compiled.hpp>

#include "../harness/subprocess.hpp"

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ctt {

enum class mood { calm, curious };
BOOST_DESCRIBE_ENUM(mood, calm, curious)

struct message {
    std::string role;
    std::string content;
};
BOOST_DESCRIBE_STRUCT(message, (), (role, content))

struct person {
    std::string name;
    int age = 0;
    std::optional<std::string> nickname;
    std::vector<std::string> tags;
    mood state = mood::calm;
    double score = 0;
};
BOOST_DESCRIBE_STRUCT(person, (), (name, age, nickname, tags, state, score))

struct chat {
    std::vector<message> messages;
    bool add_generation_prompt = false;
    person user;
    std::map<std::string, int> counts;
    std::string system;
    std::variant<std::nullptr_t, std::string> flow;
};
BOOST_DESCRIBE_STRUCT(chat, (), (messages, add_generation_prompt, user, counts, system, flow))

chat sample(std::size_t n, bool prompt) {
    chat c;
    for (std::size_t i = 0; i < n; ++i)
        c.messages.push_back({i % 2 ? "assistant" : "user", "message " + std::to_string(i) + " with <b>&'\"</b>"});
    c.add_generation_prompt = prompt;
    c.user = {"Ada", 36, std::nullopt, {"math", "engines"}, mood::curious, 2.5};
    c.counts = {{"a", 1}, {"b", 2}};
    c.system = "Be brief.";
    if (n >= 2) c.flow = "transfer_money";
    return c;
}

}  // namespace ctt

using namespace parley::jinja::literals;
namespace pj = parley::jinja;

namespace {

// The compiled template's output for several contexts equals the run-time engine's on the
// same source (the same parse, rendered by the interpreter), and the expected path is taken.
template <class T>
void same_as_runtime(const T& t, bool compiled) {
    CHECK(T::template is_compiled_for<ctt::chat> == compiled);
    for (std::size_t n : {0u, 1u, 2u, 5u}) {
        for (bool prompt : {false, true}) {
            ctt::chat c = ctt::sample(n, prompt);
            if (n == 5) c.user.nickname = "Countess";
            INFO("source: " << T::source() << "\nmessages: " << n << ", prompt: " << prompt);
            const std::string expected = T::runtime().render(c);
            CHECK(t.render(c) == expected);
            std::string out = "prefix|";
            t.render_to(out, c);
            CHECK(out == "prefix|" + expected);
        }
    }
}

}  // namespace

TEST_CASE("compiled: the ChatML template takes the generated path and renders as the run-time engine") {
    same_as_runtime(pj::prompt<"{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + "
                               "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt "
                               "%}{{ '<|im_start|>assistant\n' }}{% endif %}">,
                    true);
}

TEST_CASE("compiled: the generated path covers loops, loop attributes, conditions, set and printing") {
    same_as_runtime("{% for m in messages %}{{ loop.index }}/{{ loop.length }} {{ loop.index0 }} {{ loop.revindex }} "
                    "{{ loop.revindex0 }} {{ m.role ~ ':' ~ m.content }}{% if loop.first %}^{% endif %}"
                    "{% if loop.last %}.{% else %}, {% endif %}{% else %}(none){% endfor %}"_prompt,
                    true);
    same_as_runtime("{{ user.name }} {{ user.age }} {{ user.nickname }} {{ user.state }} {{ user.score }} "
                    "{{ user.tags }} {{ counts }} {{ add_generation_prompt }} {{ none }} {{ 42 }} {{ true }}"_prompt,
                    true);
    same_as_runtime("{% if user.nickname is defined %}{{ user.nickname }}{% elif user.age == 36 %}36{% else %}?"
                    "{% endif %}{% if user.nope is defined %}x{% endif %}{% if user.name is not undefined %}n{% endif %}"
                    "{% if nothing is undefined %}u{% endif %}"_prompt,
                    true);
    same_as_runtime("{% if messages and not add_generation_prompt %}A{% endif %}{% if user.tags or system %}B{% endif %}"
                    "{% if 'eng' in user.tags[1] %}never{% endif %}{% if 'brief' in system %}C{% endif %}"
                    "{% if user.name != 'Ada' %}D{% endif %}{% if none is none %}E{% endif %}"
                    "{% if user.age is none %}F{% endif %}"_prompt,
                    false);  // 'eng' in user.tags[1]: `in` an element read by subscript is not compiled
    same_as_runtime("{% if 'brief' in system %}C{% endif %}{% if user.name != 'Ada' %}D{% endif %}"
                    "{% if none is none %}E{% endif %}{% if user.age is none %}F{% endif %}"
                    "{% if system not in 'x' %}G{% endif %}"_prompt,
                    true);
    same_as_runtime("{{ messages | length }} {{ system | length }} {{ user | length }} {{ counts | count }}"
                    "{% if messages | length > 2 %}many{% endif %}{% if user.age >= 36 and user.age < 40 %}30s{% endif %}"
                    "{% if 'b' > 'a' and 'é' > 'z' and not 'a' <= '' %}s{% endif %}{% if flow != None %}{{ flow }}"
                    "{% else %}no flow{% endif %}{% if flow is none %}N{% endif %}{% if user.nickname == None %}never"
                    "{% endif %}{% if none == flow %}={% endif %}{{ flow }} {{ 'héllo' | length }}"_prompt,
                    true);
    same_as_runtime("{% set greeting = 'Hi ' + user.name %}{% set who = user %}{{ greeting }}, {{ who.age }}"
                    "{% for m in messages %}{% set line = m.role + ': ' + m.content %}{{ line }};{% endfor %}"
                    "{{ 'yes' if add_generation_prompt else 'no' }}{{ 'only' if messages }}"_prompt,
                    true);
}

TEST_CASE("compiled: the generated path covers string filters and methods, default, join, % and //, odd, even, divisibleby") {
    same_as_runtime("{{ user.name | upper }} {{ user.name | lower }} {{ system | title }} {{ 'bOB smith' | capitalize }} "
                    "[{{ '  x y \t' | trim }}] {{ system | replace('e', 'E') }} {{ user.age | string }} "
                    "{{ add_generation_prompt | string }} {{ user.tags | join(', ') }} {{ user.tags | join }} "
                    "{{ user.tags | join(system) }} {{ 'ǆemal ÉCOLE' | title }} {{ 'ß' | upper }} "
                    "{{ user.name | upper | length }} {{ (user.tags | join('ü')) | length }}"
                    "{% for m in messages %}{{ m.content | replace('<b>', '[b]') | upper }};{% endfor %}"_prompt,
                    true);
    same_as_runtime("{{ user.nickname | default('none given') }} [{{ user.nickname | d }}] {{ user.missing | default('m') }} "
                    "{{ nothing | default(user.name) }} {{ user.age | default(1) }} {{ user.name | d('x') }} "
                    "[{{ nothing | default }}] {% set n = user.nickname | default('-') %}{{ n | length }}"_prompt,
                    true);
    same_as_runtime("{% for m in messages %}{{ loop.index0 % 2 }}{{ loop.index // 2 }}{% if loop.index is odd %}o{% endif %}"
                    "{% if loop.index0 is even %}e{% endif %}{% if loop.index is divisibleby 3 %}3{% endif %}"
                    "{% if loop.index is not divisibleby(2) %}n{% endif %}"
                    "{% if (m.role == 'user') != (loop.index0 % 2 == 0) %}!{% endif %};{% endfor %}"
                    "{{ -7 % 3 }} {{ -7 // 2 }} {{ 7 // 2 }} {{ -6 % 3 }} {% if -3 is odd %}odd{% endif %} {{ user.age % 5 }}"_prompt,
                    true);
    same_as_runtime("{% for m in messages %}[{{ m.content.strip() }}|{{ m.role.upper() }}|{{ m.role.lower() }}"
                    "{% if m.content.startswith('message') %}s{% endif %}{% if m.content.endswith('</b>') %}e{% endif %}"
                    "{% if m.role.startswith('') %}-{% endif %}]{% endfor %}[{{ ' a '.lstrip() }}|{{ ' a '.rstrip() }}|"
                    "{{ (system + ' \n').strip() }}]{% if 'math' in user.tags %}M{% endif %}"
                    "{% if 'x' not in user.tags %}X{% endif %}{% if 'mat' in user.tags %}never{% endif %}"_prompt,
                    true);
}

namespace {
// Renders with the compiled template (which must take the generated path) and with the
// run-time engine, each into a buffer holding "kept": the outputs and the error texts must be
// equal. Returns the error text (empty when the render succeeds).
template <class T, class Ctx>
std::string error_as_runtime(const T&, const Ctx& ctx) {
    CHECK(T::template is_compiled_for<Ctx>);
    std::string compiled = "kept", interpreted = "kept";
    std::string compiled_error, interpreted_error;
    try {
        T{}.render_to(compiled, ctx);
    } catch (const parley::template_error& e) {
        compiled_error = e.what();
    }
    try {
        T::runtime().render_to(interpreted, ctx);
    } catch (const parley::template_error& e) {
        interpreted_error = e.what();
    }
    INFO("source: " << T::source());
    CHECK(compiled == interpreted);
    CHECK(compiled_error == interpreted_error);
    return compiled_error;
}
}  // namespace

TEST_CASE("compiled: tojson takes the generated path, with the run-time engine's text and errors") {
    same_as_runtime("{{ messages | tojson }}|{{ counts | tojson(2) }}|{{ system | tojson }}|{{ user.age | tojson }}|"
                    "{{ user.tags | tojson(0) }}|{{ flow | tojson }}|{{ add_generation_prompt | tojson }}|"
                    "{% for m in messages %}{{ m | tojson }}{{ m.content | tojson }}{% endfor %}"
                    "{% set j = user.tags | tojson %}{{ j }}{% if j %}J{% endif %}{{ j ~ '<&>' }}"_prompt,
                    true);
    // tojson's text is Markup in the run-time engine: `+` escapes the other operand, which the
    // generated code leaves to the engine; an indent given otherwise than as a small literal too
    same_as_runtime("{{ (system | tojson) + '<b>' }}"_prompt, false);
    same_as_runtime("{{ user.tags | tojson(indent=2) }}{{ user.tags | tojson(1000) }}"_prompt, false);
    // an empty optional is undefined, which json.dumps refuses
    for (std::size_t n : {0u, 5u}) {
        ctt::chat c = ctt::sample(n, false);
        if (n == 5) c.user.nickname = "Countess";
        CHECK((error_as_runtime("{{ user.nickname | tojson }}"_prompt, c).find(":1:20: Object of type Undefined") !=
               std::string::npos) == (n == 0));
    }
}

namespace ctt {
struct schema {
    std::map<std::string, message> properties;
    std::map<std::string, std::string> empty;
};
BOOST_DESCRIBE_STRUCT(schema, (), (properties, empty))
}  // namespace ctt

TEST_CASE("compiled: for k, v in map.items() takes the generated path, with the key and the value typed") {
    same_as_runtime("{% for k, v in counts.items() %}{{ loop.index }}/{{ loop.length }} {{ k }}={{ v + 1 }}"
                    "{% if loop.last %}.{% else %}, {% endif %}{% else %}none{% endfor %}"_prompt,
                    true);
    constexpr auto t = "{% for name, p in properties.items() %}{{ name }}: {{ p.role }} {{ p['content'] | upper }};"
                       "{% endfor %}{% for k, v in empty.items() %}{{ k }}{% else %}(none){% endfor %}"_prompt;
    static_assert(decltype(t)::is_compiled_for<ctt::schema>);
    const ctt::schema s{{{"b", {"user", "hi"}}, {"a", {"system", "be brief"}}}, {}};
    CHECK(t.render(s) == decltype(t)::runtime().render(s));
    CHECK(t.render(s) == "a: system BE BRIEF;b: user HI;(none)");
}

TEST_CASE("compiled: namespace() of strings, integers and booleans, and integer + - *, take the generated path") {
    same_as_runtime("{% set ns = namespace(found=false, count=0, last='', total=user.age) %}{% for m in messages %}"
                    "{% if m.role == 'assistant' %}{% set ns.found = true %}{% endif %}{% set ns.count = ns.count + 1 %}"
                    "{% set ns.last = m.content %}{% set ns.total = ns.total + loop.index * 2 - 1 %}{% endfor %}"
                    "{{ ns.found }} {{ ns.count }} {{ ns.last }} {{ ns.total }} {{ ns.count + 1 + 2 }} {{ 3 - ns.count }} "
                    "{{ (ns.count * 10) if ns.found }} {{ ns.last ~ ns.count }}{% set empty = namespace() %}"
                    "{% set alias = ns %}{% set alias.count = 100 %} {{ ns.count }}{% set ns.last = ns.last %}"
                    "{% if ns.found and ns.count > 99 %}!{% endif %}"_prompt,
                    true);
    // a namespace the generated code does not type, or an assignment it does not follow
    same_as_runtime("{% set ns = namespace(items=[]) %}{{ ns.items }}"_prompt, false);
    same_as_runtime("{% set ns = namespace(n=0) %}{% set ns.n = 'x' %}{{ ns.n }}"_prompt, false);
    same_as_runtime("{% set ns = namespace(n=0) %}{% set ns.other = 1 %}{{ ns.other }}"_prompt, false);
    same_as_runtime("{% set ns = namespace(n=0) %}{{ ns.missing }}"_prompt, false);
    same_as_runtime("{% set ns = namespace(n=user.tags) %}{{ ns.n }}"_prompt, false);
}

namespace ctt {
struct wide {
    std::int64_t n = 0;
};
BOOST_DESCRIBE_STRUCT(wide, (), (n))
}  // namespace ctt

TEST_CASE("compiled: an integer result beyond 64 bits sends the render to the run-time engine, whose integers have any size") {
    // the output (and the caller's buffer) as the run-time engine's, which computes Python's result
    const auto both = [](const auto& t, std::int64_t n) {
        using T = std::remove_cvref_t<decltype(t)>;
        CHECK(T::template is_compiled_for<ctt::wide>);
        std::string compiled = "pre|", interpreted = "pre|";
        t.render_to(compiled, ctt::wide{n});
        T::runtime().render_to(interpreted, ctt::wide{n});
        INFO("source: " << T::source());
        CHECK(compiled == interpreted);
        CHECK(t.render(ctt::wide{n}) == interpreted.substr(4));
        return compiled.substr(4);
    };
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
    CHECK(both("{{ n + 1 }}"_prompt, max) == "9223372036854775808");
    CHECK(both("x\n  {{ 1 + n + 1 }}"_prompt, max) == "x\n  9223372036854775809");
    CHECK(both("{{ (1 + n + 1) ~ '' }}"_prompt, max) == "9223372036854775809");
    CHECK(both("{% set y = n * 2 %}{{ y // 4 }}"_prompt, max) == "4611686018427387903");
    CHECK(both("{{ 0 - n - 2 }}"_prompt, max) == "-9223372036854775809");
    CHECK(both("{% if n - 1 > 0 %}x{% endif %}y"_prompt, min) == "y");
    CHECK(both("{{ 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + n }}"_prompt, max) ==
          "9223372036854775943");
    CHECK(both("{{ -n }}"_prompt, min) == "9223372036854775808");
    CHECK(both("{{ n + 1 }} {{ -n }}"_prompt, 41) == "42 -41");
    // only a template with integer arithmetic carries the run-time engine for such renders: a `+`
    // chain with a string literal concatenates, a `*` of a string or list literal repeats
    namespace ct = pj::detail::ct;
    using pj::detail::ct_parsed;
    CHECK(ct::may_compute_big_int<ct_parsed<ct::literal_source<"{{ n + 1 }}">, pj::compile_options{}>>());
    CHECK(ct::may_compute_big_int<ct_parsed<ct::literal_source<"{{ -n }}">, pj::compile_options{}>>());
    CHECK(ct::may_compute_big_int<ct_parsed<ct::literal_source<"{{ n * 2 }}">, pj::compile_options{}>>());
    CHECK_FALSE(ct::may_compute_big_int<ct_parsed<ct::literal_source<"{{ -1 }}{{ n }}">, pj::compile_options{}>>());
    CHECK_FALSE(ct::may_compute_big_int<ct_parsed<ct::literal_source<"{{ '<' + n + '>' + m }}">, pj::compile_options{}>>());
    CHECK_FALSE(ct::may_compute_big_int<ct_parsed<ct::literal_source<"{{ '-' * n }}">, pj::compile_options{}>>());
}

TEST_CASE("compiled: seq[k] with an integer literal, seq | first and seq | last take the generated path; reading past the end fails as in the run-time engine") {
    same_as_runtime("{% if messages %}{{ messages[0].role }} {{ messages[-1]['content'] }} {{ messages[0] }}{% endif %}"
                    "[{{ user.tags[1] }}][{{ user.tags[7] }}][{{ user.tags[-2] }}][{{ messages[4] }}]"
                    "{% if user.tags[0] is defined %}d{% endif %}{% if messages[3] is not defined %}n{% endif %}"
                    "{% if messages[1] %}m1{% endif %}{% if messages and messages[0].role == 'user' %}u{% endif %}"
                    "{% set last = messages[-1] %}{% if last is defined %}{{ last.role }}{% endif %}"
                    "{{ user.tags[9] | default('none') }} {{ user.tags[0] | d('-') }} {{ user.tags[-9] | d }}"
                    "[{{ (messages | first).role if messages }}|{{ user.tags | first }}|{{ user.tags | last }}]"
                    "{% if (messages | last) is defined %}L{% endif %}{% set f = messages | first %}"
                    "{% if f %}{{ f['content'] }}{% endif %}"_prompt,
                    true);
    for (std::size_t n : {0u, 1u, 3u}) {
        const ctt::chat c = ctt::sample(n, false);
        CHECK((error_as_runtime("{{ messages[2].role }}"_prompt, c).find("list object has no element 2") !=
               std::string::npos) == (n < 3));
        CHECK((error_as_runtime("x\n{{ messages[-3]['content'] }}"_prompt, c).find(":2:16: list object has no element -3") !=
               std::string::npos) == (n < 3));
        CHECK((error_as_runtime("{{ (messages | first).role }}"_prompt, c).find(":1:23: No first item, sequence was empty.") !=
               std::string::npos) == (n == 0));
        CHECK((error_as_runtime("{% set l = messages | last %}{{ l.role }}"_prompt, c).find("No last item, sequence was empty.") !=
               std::string::npos) == (n == 0));
    }
}

TEST_CASE("compiled: templates outside the compiled subset render through the run-time engine") {
    // other filters, calls, macros, integer subscripts and a set inside an if fall back, with the same output
    same_as_runtime("{{ messages | length }} {{ user.name | upper }} {{ messages[0:1] }}"_prompt, false);
    same_as_runtime("{{ user.tags | sort | join(',') }} {{ user.name | center(9) }}"_prompt, false);
    same_as_runtime("{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(user.name) }}"_prompt, false);
    same_as_runtime("{% if messages %}{% set n = 1 %}{% endif %}{{ n }}"_prompt, false);
    same_as_runtime("{% for k in counts %}{{ k }};{% endfor %}{% for k, v in counts.items() if v > 1 %}{{ k }}{% endfor %}"_prompt,
                    false);
    // a default of another type than the optional's, keyword and counted arguments, a divisor
    // that is not a positive literal, a method with arguments the generated code does not take
    same_as_runtime("{{ user.nickname | default(user.age) }}"_prompt, false);
    same_as_runtime("{{ user.tags | join(d='-') }}"_prompt, false);
    same_as_runtime("{{ system | replace('e', 'E', 1) }}"_prompt, false);
    same_as_runtime("{{ user.age % (1 + 1) }}"_prompt, false);
    same_as_runtime("{{ user.age // -2 }}"_prompt, false);
    same_as_runtime("{{ system.strip('.') }}"_prompt, false);
    same_as_runtime("{{ system.startswith(('B', 'x')) }}"_prompt, false);
    same_as_runtime("{% if user.age is divisibleby(user.age) %}d{% endif %}"_prompt, false);
    same_as_runtime("{{ user.tags | join(', ') | upper }}{{ user.tags | reverse | join }}"_prompt, false);
    // a boost::json context always takes the run-time engine, with member checks at render time
    constexpr auto t = "{{ a.b }}"_prompt;
    CHECK(t.render(boost::json::parse(R"({"a": {"b": 7}})")) == "7");
    CHECK_FALSE(decltype(t)::is_compiled_for<boost::json::value>);
}

namespace {
struct source {
    static constexpr std::string_view value = "{% for m in messages %}\n  {{ m.role }}\n{% endfor %}\n";
};
}  // namespace

TEST_CASE("compiled: long templates come through a type carrying the source, with options") {
    constexpr pj::compiled_template<source> plain;
    constexpr pj::compiled_template<source, pj::compile_options{.trim_blocks = true, .lstrip_blocks = true}> trimmed;
    const ctt::chat c = ctt::sample(2, false);
    CHECK(plain.render(c) == pj::environment().parse(source::value).render(c));
    pj::options o;
    o.trim_blocks = true;
    o.lstrip_blocks = true;
    CHECK(trimmed.render(c) == pj::environment(o).parse(source::value).render(c));
    CHECK(plain.render(c) != trimmed.render(c));
    CHECK(decltype(trimmed)::is_compiled_for<ctt::chat>);
}

namespace ctt {
struct counter {
    std::string name;
    std::uint64_t count = 0;
};
BOOST_DESCRIBE_STRUCT(counter, (), (name, count))
struct holder {
    counter c;
    std::vector<std::uint64_t> counts;
};
BOOST_DESCRIBE_STRUCT(holder, (), (c, counts))
}  // namespace ctt

TEST_CASE("compiled: a value the generated code does not represent makes the template the run-time engine's; errors leave the caller's buffer as it was") {
    // An unsigned 64-bit integer may be beyond the signed 64-bit range: the run-time engine reads
    // it as a big integer. A template that reads (or prints a struct holding) such a value takes
    // the run-time engine.
    constexpr auto name_only = "{{ name }}!"_prompt;
    constexpr auto reads_count = "{{ name }}: {{ count }}"_prompt;
    constexpr auto prints_struct = "{{ c }}"_prompt;
    constexpr auto loops_counts = "{% for n in counts %}{{ loop.index }}:{{ n }} {% endfor %}"_prompt;
    constexpr auto interpreted = "{{ name }}: {{ count // 0 }}"_prompt;
    CHECK(decltype(name_only)::is_compiled_for<ctt::counter>);
    CHECK_FALSE(decltype(reads_count)::is_compiled_for<ctt::counter>);
    CHECK_FALSE(decltype(prints_struct)::is_compiled_for<ctt::holder>);
    CHECK_FALSE(decltype(loops_counts)::is_compiled_for<ctt::holder>);
    CHECK_FALSE(decltype(interpreted)::is_compiled_for<ctt::counter>);
    CHECK(reads_count.render(ctt::counter{"n", 7}) == "n: 7");
    CHECK(prints_struct.render(ctt::holder{{"n", 7}, {1, 2}}) ==
          decltype(prints_struct)::runtime().render(ctt::holder{{"n", 7}, {1, 2}}));
    CHECK(loops_counts.render(ctt::holder{{"n", 7}, {1, 2}}) == "1:1 2:2 ");
    const ctt::counter huge{"n", ~std::uint64_t{0}};
    CHECK(name_only.render(huge) == "n!");
    CHECK(reads_count.render(huge) == "n: 18446744073709551615");
    CHECK(prints_struct.render(ctt::holder{huge, {}}) == "{'name': 'n', 'count': 18446744073709551615}");
    CHECK(loops_counts.render(ctt::holder{{"n", 1}, {1, ~std::uint64_t{0}}}) == "1:1 2:18446744073709551615 ");
    std::string out = "kept";
    try {
        interpreted.render_to(out, ctt::counter{"n", 1});
        FAIL("no error");
    } catch (const parley::template_error& e) {
        CHECK(out == "kept");
        CHECK(std::string(e.what()).find("division") != std::string::npos);
    }
}

// ---- compile-fail tests -------------------------------------------------------------------------

namespace {

// Whether the snippets' compiler (subprocess::compiler(): PARLEY_CXX, or the family that built
// this test) is clang++, whose messages the expectations below are written for.
bool is_clang() { return subprocess::compiler_is_clang(); }

const char* const fail_prelude = R"(#include <parley/jinja/compiled.hpp>
#include <boost/describe/class.hpp>
#include <string>
#include <vector>
struct Person { std::string name; int age; };
BOOST_DESCRIBE_STRUCT(Person, (), (name, age))
struct Context { Person user; std::vector<Person> people; };
BOOST_DESCRIBE_STRUCT(Context, (), (user, people))
using namespace parley::jinja::literals;
)";

// Compiles the prelude and `code`; the compilation must fail and its output contain each text.
void must_not_compile(const std::string& code, const std::vector<std::string>& expected) {
    const subprocess::compile_result r = subprocess::compile_snippet(code + "\n", {}, fail_prelude);
    INFO("code: " << code << "\ncompiler output:\n" << r.output);
    CHECK_FALSE(r.compiled);
    for (const std::string& e : expected) {
        INFO("expected: " << e);
        CHECK(r.output.find(e) != std::string::npos);
    }
}

}  // namespace

TEST_CASE("compiled: a template on the generated path does not make the compiler emit the run-time engine") {
    // Most of what a compile-time template saves in compile time: the run-time engine's render
    // code is not instantiated, and the header alone emits none of it. The control (a filter
    // outside the subset) shows that the listing would show the engine. (At -O1: at -O0, g++ 14
    // also emits the constants of type traits instantiated for the engine's types, such as
    // std::__is_implicitly_default_constructible_v<render_state::stacks*>, which are no code.)
    const auto symbols = [](const std::string& prompt) {
        const subprocess::compile_result r = subprocess::compile_object_symbols(std::string(fail_prelude) + R"(
std::string f(const Context& c) {
    static constexpr auto t = )" + prompt + R"(_prompt;
    return t.render(c);
}
)", "-O1");
        INFO("compiler output and symbols:\n" << r.output);
        REQUIRE(r.compiled);
        return r.output;
    };
    const std::string generated = symbols(R"("{% for p in people %}{{ p.name }} ({{ p.age }}){% endfor %}")");
    CHECK(generated.find("render_state") == std::string::npos);
    CHECK(generated.find("parley::jinja::parsed_template") == std::string::npos);
    CHECK(generated.find("str_method") == std::string::npos);
    const std::string interpreted = symbols(R"("{{ user.name | center(9) }}")");
    CHECK(interpreted.find("render_state") != std::string::npos);
    CHECK(interpreted.find("parley::jinja::parsed_template") != std::string::npos);
}

TEST_CASE("compiled: a syntax error is a compile error naming the line, the column and what was expected") {
    if (is_clang()) {
        // the note on the call of template_syntax_error: its arguments (message, part, line,
        // column, text), after the template arguments from clang 19 on, before them in clang 14
        must_not_compile(R"(constexpr auto t = "Hello\n{{ user.name "_prompt;)",
                         {"template_syntax_error", "({0, -1, 2, 14, &\"", "unexpected end of template, expected '}}'"});
        must_not_compile(R"(constexpr auto t = "{% for x in %}{% endfor %}"_prompt;)",
                         {"template_syntax_error", "({0, -1, 1, 13, &\"", "expected an expression, got "});
    } else {
        must_not_compile(R"(constexpr auto t = "Hello\n{{ user.name "_prompt;)",
                         {"template_error_at_line<2>", "template_error_at_column<14>",
                          "{\"unexpected end of template, expected \\'}}\\'\"}"});
        must_not_compile(R"(constexpr auto t = "{% for x in %}{% endfor %}"_prompt;)",
                         {"template_error_at_line<1>", "template_error_at_column<13>",
                          "{\"expected an expression, got \"}"});
    }
}

TEST_CASE("compiled: a name path that does not fit the context type is a compile error naming the member and the type") {
    // what each compiler shows: g++ the whole sentence, clang++ the type, line and column
    auto said = [](const std::string& type, int line, int column, const std::string& sentence) {
        if (is_clang())
            return std::vector<std::string>{"error_not_a_member_of<" + type + ", " + std::to_string(line) + "U, " +
                                            std::to_string(column) + "U, "};
        std::string escaped;
        for (char c : sentence) escaped += c == '\'' ? std::string("\\'") : std::string(1, c);
        return std::vector<std::string>{"{\"parley: " + std::to_string(line) + ":" + std::to_string(column) + ": " +
                                        escaped + "\"}"};
    };
    must_not_compile(R"(constexpr auto t = "Hello {{ user.nme }}!"_prompt;
std::string f(const Context& c) { return t.render(c); })",
                     said("Person", 1, 15, "'nme' is not a member of Person (members: name, age)"));
    must_not_compile(R"(constexpr auto t = "{% for p in people %}\n{{ p['agee'] }}{% endfor %}"_prompt;
std::string f(const Context& c) { return t.render(c); })",
                     said("Person", 2, 5, "'agee' is not a member of Person (members: name, age)"));
    must_not_compile(R"(constexpr auto t = "{{ usr }}"_prompt;
std::string f(const Context& c) { return t.render(c); })",
                     said("Context", 1, 4, "'usr' is not a member of Context (members: user, people)"));
    // checked in templates the run-time engine renders, too
    must_not_compile(R"(constexpr auto t = "{{ user.name | upper }}{{ people | map(attribute='name') | join }}{{ user.agee | default(1) }}{{ f(user.nam) }}"_prompt;
std::string f(const Context& c) { return t.render(c); })",
                     said("Person", 1, 105, "'nam' is not a member of Person (members: name, age)"));
}

TEST_CASE("compiled: names the template may bind, and `is defined` probes, are not errors") {
    const subprocess::compile_result r = subprocess::compile_snippet(R"(
constexpr auto t = "{% if user.nme is defined or other is defined %}x{% endif %}{{ nothing | default('d') }}"
    "{% if user %}{% set later = 1 %}{% endif %}{{ later }}{% macro m(p) %}{{ p.anything }}{% endmacro %}"
    "{% for a, b in people %}{{ a.b }}{% endfor %}{{ range(3) | list }}"_prompt;
std::string f(const Context& c) { return t.render(c); }
)", {}, fail_prelude);
    INFO(r.output);
    CHECK(r.compiled);
}

TEST_CASE("compiled: the built-in filters and tests, and their argument counts, are Python Jinja2's and the run-time engine's") {
    // the names of the run-time engine's plain environment
    parley::jinja::detail::env_data runtime;
    parley::jinja::detail::install_builtins(runtime);
    std::set<std::string> filters, tests;
    for (const auto& b : pj::detail::ct::builtin_filters) filters.insert(std::string(b.name));
    for (const auto& b : pj::detail::ct::builtin_tests) tests.insert(std::string(b.name));
    std::set<std::string> runtime_filters, runtime_tests;
    for (const auto& [name, f] : runtime.filters) runtime_filters.insert(name);
    for (const auto& [name, t] : runtime.tests) runtime_tests.insert(name);
    CHECK(filters == runtime_filters);
    CHECK(tests == runtime_tests);

    // the counts, from the signatures of Python Jinja2's functions
    const auto file = subprocess::temp_path("signatures.txt");
    REQUIRE(subprocess::run_python("builtin_signatures.py", {file.string()}));
    std::ifstream in(file);
    std::set<std::tuple<std::string, std::string, int, int>> python, ours;
    std::string kind, name;
    int lo = 0, hi = 0;
    while (in >> kind >> name >> lo >> hi) python.insert({kind, name, lo, hi});
    std::filesystem::remove(file);
    for (const auto& b : pj::detail::ct::builtin_filters) ours.insert({"filter", std::string(b.name), b.min, b.max});
    for (const auto& b : pj::detail::ct::builtin_tests) ours.insert({"test", std::string(b.name), b.min, b.max});
    CHECK(python.size() > 80);
    CHECK(ours == python);
}

TEST_CASE("compiled: an unknown filter or test, or a wrong number of arguments, is a compile error") {
    auto said = [](int line, int column, const std::string& sentence) {
        if (is_clang())
            return std::vector<std::string>{"error_in_template<" + std::to_string(line) + "U, " +
                                            std::to_string(column) + "U, "};
        std::string escaped;
        for (char c : sentence) escaped += c == '\'' ? std::string("\\'") : std::string(1, c);
        return std::vector<std::string>{"{\"parley: " + std::to_string(line) + ":" + std::to_string(column) + ": " +
                                        escaped + "\"}"};
    };
    must_not_compile(R"(constexpr auto t = "{{ user.name | nope }}"_prompt;)", said(1, 16, "unknown filter 'nope'"));
    must_not_compile(R"(constexpr auto t = "{% if user is odd_one %}{% endif %}"_prompt;)",
                     said(1, 15, "unknown test 'odd_one'"));
    must_not_compile(R"(constexpr auto t = "{{ user.name | replace('a') }}"_prompt;)",
                     said(1, 16, "filter 'replace' takes 2 to 3 arguments (1 given)"));
    must_not_compile(R"(constexpr auto t = "{% if user.age is divisibleby %}{% endif %}"_prompt;)",
                     said(1, 19, "test 'divisibleby' takes 1 argument (0 given)"));
    must_not_compile(R"(constexpr auto t = "{{ user.name | upper(1) }}"_prompt;)",
                     said(1, 16, "filter 'upper' takes 0 arguments (1 given)"));
    const subprocess::compile_result fine = subprocess::compile_snippet(R"(
constexpr auto t = "{{ people | map('upper') | join(', ') | truncate(3, true, '', 0) }}{{ x | format(*args) }}"
    "{% if user.age is divisibleby(3) %}{% endif %}{{ user.name | replace('a', 'b', count=1) }}"_prompt;
)", {}, fail_prelude);
    INFO(fine.output);
    CHECK(fine.compiled);
}
