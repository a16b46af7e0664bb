// Tests of parley/jinja/detail/cpp_view.hpp: C++ objects as template contexts, read in place:
// described structs (nested, inherited), described enums, std::optional, std::vector and other
// ranges, maps with string keys, strings, numbers, and boost::json values inside them.
#include <parley/jinja/detail/cpp_view.hpp>

#include <parley/jinja.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

namespace pj = parley::jinja;

enum class role { system, user, assistant };
BOOST_DESCRIBE_ENUM(role, system, user, assistant)

// Counts every copy, so that a test can prove the renderer never made one.
struct counted {
    static inline int copies = 0;
    std::string label;
    int weight = 0;
    counted() = default;
    counted(std::string l, int w) : label(std::move(l)), weight(w) {}
    counted(const counted& o) : label(o.label), weight(o.weight) { ++copies; }
    counted(counted&&) noexcept = default;
    counted& operator=(const counted& o) {
        label = o.label;
        weight = o.weight;
        ++copies;
        return *this;
    }
    counted& operator=(counted&&) noexcept = default;
    ~counted() = default;
};
BOOST_DESCRIBE_STRUCT(counted, (), (label, weight))

struct address {
    std::string city;
    std::optional<std::string> zip;
};
BOOST_DESCRIBE_STRUCT(address, (), (city, zip))

// A context that cannot be copied at all: rendering it compiles only if the engine takes it by
// reference all the way down.
struct customer {
    std::string name;
    role kind = role::user;
    address home;
    std::vector<counted> orders;
    std::optional<counted> favourite;
    std::map<std::string, counted> by_code;
    std::map<std::string, int> scores;
    customer() = default;
    customer(const customer&) = delete;
    customer& operator=(const customer&) = delete;
    customer(customer&&) = delete;
    customer& operator=(customer&&) = delete;
    ~customer() = default;
};
BOOST_DESCRIBE_STRUCT(customer, (), (name, kind, home, orders, favourite, by_code, scores))
static_assert(!std::is_copy_constructible_v<customer>);

void fill(customer& c) {
    c.name = "Ada";
    c.kind = role::assistant;
    c.home.city = "London";
    c.orders.emplace_back("tea", 2);
    c.orders.emplace_back("cake", 1);
    c.orders.emplace_back("jam", 3);
    c.favourite.emplace("scone", 5);
    c.by_code.emplace("B2", counted("bread", 4));
    c.by_code.emplace("A1", counted("apple", 7));
    c.scores = {{"math", 90}, {"art", 75}};
    counted::copies = 0;
}

// The address a value reads from: the viewed object, or the characters of a string.
pj::environment address_env(pj::options opt = {}) {
    pj::environment env(opt);
    env.add_filter("address", [](const pj::value& v, const pj::arguments&) {
        const void* p = nullptr;
        if (v.is_view()) p = v.view_object();
        else if (v.is_string()) p = v.as_string().data();
        return pj::value(std::to_string(reinterpret_cast<std::uintptr_t>(p)));
    });
    return env;
}

std::string address_of(const void* p) { return std::to_string(reinterpret_cast<std::uintptr_t>(p)); }

template <class Context>
std::string render_view(std::string_view source, const Context& ctx, const pj::environment& env = pj::environment::plain()) {
    return env.parse(source, "view").render(ctx);
}

struct maybe {
    std::optional<int> empty;
    std::optional<int> full = 3;
    const char* no_text = nullptr;
};
BOOST_DESCRIBE_STRUCT(maybe, (), (empty, full, no_text))

struct base_part {
    int id = 0;
};
BOOST_DESCRIBE_STRUCT(base_part, (), (id))
struct derived_part : base_part {
    std::string title;
};
BOOST_DESCRIBE_STRUCT(derived_part, (base_part), (title))

class secretive {
public:
    std::string shown = "shown";
    BOOST_DESCRIBE_CLASS(secretive, (), (shown), (), (hidden))

private:
    std::string hidden = "hidden";
};

struct numbers {
    bool flag = true;
    short small = -3;
    unsigned big = 4000000000u;
    std::uint64_t wide = std::uint64_t(1) << 40;
    float ratio = 0.5f;
    double pi = 3.25;
    std::string_view sv = "view";
    const char* cstr = "chars";
};
BOOST_DESCRIBE_STRUCT(numbers, (), (flag, small, big, wide, ratio, pi, sv, cstr))

struct containers {
    std::array<int, 3> arr{1, 2, 3};
    std::set<std::string> tags{"b", "a", "c"};
    std::list<int> linked{4, 5};
    std::deque<double> dq{1.5, 2.5};
    std::vector<std::vector<int>> grid{{1, 2}, {3}};
    std::vector<std::string_view> words{"x", "y"};
    std::unordered_map<std::string, int> one{{"only", 1}};
    std::map<std::string, std::vector<std::string>> groups{{"g", {"p", "q"}}};
    std::vector<std::optional<int>> gaps{1, std::nullopt, 3};
    boost::json::value meta = boost::json::parse(R"({"k": [1, {"deep": "yes"}]})");
};
BOOST_DESCRIBE_STRUCT(containers, (), (arr, tags, linked, dq, grid, words, one, groups, gaps, meta))

// A type of the user's own, not described: view_traits tells templates how to read it.
struct celsius {
    double degrees = 0;
};

}  // namespace

template <>
struct parley::jinja::view_traits<celsius> {
    static value view(const celsius& c) { return value(c.degrees * 9 / 5 + 32); }
};

TEST_CASE("cpp_view: view_traits lets templates read a type of one's own, also inside containers") {
    const std::map<std::string, celsius> temps{{"oslo", {-5}}, {"rome", {20}}};
    CHECK(render_view("{{ oslo }} {{ rome + 1 }} {{ rome is number }}", temps) == "23.0 69.0 True");
    const std::vector<celsius> days{{0}, {100}};
    CHECK(render_view("{{ d|map('string')|join(' ') }}", std::map<std::string, std::vector<celsius>>{{"d", days}}) ==
          "32.0 212.0");
}

TEST_CASE("cpp_view: a described struct is a mapping of its members; nested structs are mappings too") {
    customer c;
    fill(c);
    CHECK(render_view("{{ name }} lives in {{ home.city }}; {{ home['city'] }}", c) == "Ada lives in London; London");
    CHECK(render_view("{{ home is mapping }} {{ home|length }} {{ home.keys()|list }}", c) ==
          "True 2 ['city', 'zip']");
    CHECK(render_view("{% for k in home %}{{ k }};{% endfor %}", c) == "city;zip;");
}

TEST_CASE("cpp_view: printed chains read members of structs as they read members of the same data in JSON") {
    // The chain's members are read through the struct's adapter here and in place from the JSON
    // object there (which the differential tests check against Jinja2): same text, same errors.
    customer c;
    fill(c);
    const boost::json::value j = boost::json::parse(R"({
        "name": "Ada", "kind": "assistant", "home": {"city": "London", "zip": null},
        "orders": [{"label": "tea", "weight": 2}, {"label": "cake", "weight": 1}, {"label": "jam", "weight": 3}],
        "favourite": {"label": "scone", "weight": 5}})");
    const pj::environment env = pj::environment::hf();
    for (const std::string_view source : {
             "{% for o in orders %}{{ '<' + o.label + '|' + o['label'] + '>' }}{% endfor %}",
             "{% for o in orders %}{{ o.label ~ ':' ~ o.weight ~ ':' ~ o.missing ~ ';' }}{% endfor %}",
             "{{ name + ' is ' + kind + ' in ' + home.city }}",
             "{{ favourite.label + '!' + favourite['label'] }}",
             "{% set o = orders[0] %}{{ o.label + o.label }}{{ o.items is defined }}",
             "{% set k = 'label' %}{% for o in orders %}{{ '<' + o[k] + '>' + o[k] }}{% endfor %}",
             "{% set k = 'weight' %}{{ orders[0][k] ~ '|' ~ home[k] ~ '|' }}",
         }) {
        CAPTURE(source);
        CHECK(render_view(source, c, env) == render_view(source, j, env));
    }
    for (const std::string_view source : {"{{ 'w' + orders[0].weight }}", "{% for o in orders %}{{ o.label + o.weight }}{% endfor %}",
                                          "{{ home.city + home.zip }}"}) {
        CAPTURE(source);
        CHECK_THROWS_AS(render_view(source, c, env), parley::template_error);
        CHECK_THROWS_AS(render_view(source, j, env), parley::template_error);
    }
}

TEST_CASE("cpp_view: described enums read as the enumerator's name; other values as integers") {
    customer c;
    fill(c);
    CHECK(render_view("{{ kind }} {{ kind == 'assistant' }} {{ kind is string }}", c) == "assistant True True");
    c.kind = role::system;
    CHECK(render_view("{% if kind == 'system' %}sys{% else %}other{% endif %}", c) == "sys");
    c.kind = static_cast<role>(7);
    CHECK(render_view("{{ kind }} {{ kind is integer }}", c) == "7 True");
}

TEST_CASE("cpp_view: std::vector of structs is a sequence: loops, indexing, filters") {
    customer c;
    fill(c);
    CHECK(render_view("{% for o in orders %}{{ loop.index }}:{{ o.label }}x{{ o.weight }} {% endfor %}", c) ==
          "1:teax2 2:cakex1 3:jamx3 ");
    CHECK(render_view("{{ orders|length }} {{ orders[1].label }} {{ orders[-1]['label'] }}", c) == "3 cake jam");
    CHECK(render_view("{{ orders|map(attribute='weight')|sum }}", c) == "6");
    CHECK(render_view("{{ orders|sort(attribute='weight')|map(attribute='label')|join(',') }}", c) == "cake,tea,jam");
    CHECK(render_view("{{ orders|selectattr('weight', 'gt', 1)|map(attribute='label')|list }}", c) == "['tea', 'jam']");
    CHECK(render_view("{{ orders[1:]|map(attribute='label')|join }}", c) == "cakejam");
}

TEST_CASE("cpp_view: std::optional is its value when engaged and undefined when empty") {
    customer c;
    fill(c);
    CHECK(render_view("{{ favourite.label }} {{ favourite is defined }}", c) == "scone True");
    CHECK(render_view("{{ home.zip is defined }} [{{ home.zip }}] {{ home.zip|default('no zip') }}", c) ==
          "False [] no zip");
    c.home.zip = "NW1";
    CHECK(render_view("{{ home.zip is defined }} {{ home.zip }}", c) == "True NW1");
    c.favourite.reset();
    CHECK(render_view("{{ favourite is defined }} [{{ favourite }}]", c) == "False []");
    // as in Jinja, an attribute of an undefined value is an error even before `default`
    try {
        (void)render_view("{{ favourite.label|default('none') }}", c);
        FAIL("an attribute of an empty optional was read");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_undefined);
        CHECK(e.where().line == 1);
    }
}

TEST_CASE("cpp_view: std::map<std::string, T> is a mapping in key order") {
    customer c;
    fill(c);
    CHECK(render_view("{{ by_code['A1'].label }} {{ by_code.B2.weight }} {{ by_code|length }}", c) == "apple 4 2");
    CHECK(render_view("{% for code in by_code %}{{ code }}={{ by_code[code].label }};{% endfor %}", c) ==
          "A1=apple;B2=bread;");
    CHECK(render_view("{% for code, item in by_code.items() %}{{ code }}:{{ item.weight }} {% endfor %}", c) ==
          "A1:7 B2:4 ");
    CHECK(render_view("{{ scores|dictsort(by='value')|list }} {{ 'art' in scores }} {{ 'law' in scores }}", c) ==
          "[('art', 75), ('math', 90)] True False");
    CHECK(render_view("{{ scores|tojson }}", c) == "{\"art\": 75, \"math\": 90}");
    CHECK(render_view("{{ by_code.Z9 is defined }}", c) == "False");
}

TEST_CASE("cpp_view: a context that cannot be copied is rendered, and no element is ever copied") {
    customer c;
    fill(c);
    const auto t = pj::environment::plain().parse(
        "{{ name }}|{% for o in orders %}{{ o.label }}{% endfor %}|{{ favourite.label }}|"
        "{% for k, v in by_code.items() %}{{ v.label }}{% endfor %}|{{ orders|map(attribute='label')|join }}|"
        "{{ orders|sort(attribute='weight')|first }}|{{ by_code|dictsort|last }}|{{ orders|list|length }}",
        "no-copy");
    CHECK(t.render(c) == "Ada|teacakejam|scone|applebread|teacakejam|"
                         "{'label': 'cake', 'weight': 1}|('B2', {'label': 'bread', 'weight': 4})|3");
    CHECK(counted::copies == 0);
    std::string out = "prefix:";
    t.render_to(out, c);
    CHECK(out.starts_with("prefix:Ada|"));
    CHECK(counted::copies == 0);
}

TEST_CASE("cpp_view: templates read the very objects of the context (same addresses)") {
    customer c;
    fill(c);
    const auto env = address_env();
    CHECK(render_view("{{ orders|address }}", c, env) == address_of(&c.orders));
    CHECK(render_view("{{ home|address }}", c, env) == address_of(&c.home));
    CHECK(render_view("{{ by_code|address }}", c, env) == address_of(&c.by_code));
    CHECK(render_view("{{ favourite|address }}", c, env) == address_of(&*c.favourite));
    CHECK(render_view("{{ name|address }}", c, env) == address_of(c.name.data()));
    CHECK(render_view("{{ home.city|address }}", c, env) == address_of(c.home.city.data()));
    CHECK(render_view("{% for o in orders %}{{ o|address }},{% endfor %}", c, env) ==
          address_of(&c.orders[0]) + "," + address_of(&c.orders[1]) + "," + address_of(&c.orders[2]) + ",");
    CHECK(render_view("{% for o in orders %}{{ o.label|address }},{% endfor %}", c, env) ==
          address_of(c.orders[0].label.data()) + "," + address_of(c.orders[1].label.data()) + "," +
              address_of(c.orders[2].label.data()) + ",");
    CHECK(render_view("{{ by_code['A1']|address }}", c, env) == address_of(&c.by_code.at("A1")));
    CHECK(counted::copies == 0);
}

TEST_CASE("cpp_view: a parsed template sees changes made to the context between renders") {
    customer c;
    fill(c);
    const auto t = pj::environment::plain().parse("{{ name }}:{{ orders|length }}:{{ orders[0].label }}");
    CHECK(t.render(c) == "Ada:3:tea");
    c.name = "Grace";
    c.orders[0].label = "coffee";
    c.orders.emplace_back("pie", 1);
    CHECK(t.render(c) == "Grace:4:coffee");
}

TEST_CASE("cpp_view: inherited members are visible; private members are not") {
    derived_part d;
    d.id = 9;
    d.title = "gear";
    CHECK(render_view("{{ id }} {{ title }} {{ id is integer }}", d) == "9 gear True");

    const secretive s;
    CHECK(render_view("{{ shown }} {{ hidden is defined }}", s) == "shown False");
}

TEST_CASE("cpp_view: numbers, booleans and string types") {
    const numbers n;
    CHECK(render_view("{{ flag }} {{ small }} {{ big }} {{ ratio }} {{ pi }} {{ sv }} {{ cstr }}", n) ==
          "True -3 4000000000 0.5 3.25 view chars");
    CHECK(render_view("{{ wide is integer }} {{ wide }}", n) == "True 1099511627776");
    CHECK(render_view("{{ small + 1 }} {{ big // 2 }} {{ flag + 1 }} {{ sv|upper }}", n) == "-2 2000000000 2 VIEW");
}

TEST_CASE("cpp_view: standard containers inside a struct") {
    const containers k;
    CHECK(render_view("{{ arr }} {{ arr|sum }} {{ arr[2] }}", k) == "[1, 2, 3] 6 3");
    CHECK(render_view("{{ tags|join(',') }} {{ 'b' in tags }}", k) == "a,b,c True");
    CHECK(render_view("{{ linked|list }} {{ linked[1] }}", k) == "[4, 5] 5");
    CHECK(render_view("{{ dq|sum }} {{ dq|max }}", k) == "4.0 2.5");
    CHECK(render_view("{{ grid }} {{ grid[0][1] }} {{ grid|map('length')|list }}", k) == "[[1, 2], [3]] 2 [2, 1]");
    CHECK(render_view("{{ words|join('-') }}", k) == "x-y");
    CHECK(render_view("{{ one.only }} {{ one|list }}", k) == "1 ['only']");
    CHECK(render_view("{{ groups.g|join }} {{ groups['g'][1] }}", k) == "pq q");
    CHECK(render_view("{% for g in gaps %}{{ g is defined }} {% endfor %}", k) == "True False True ");
    CHECK(render_view("{{ meta.k[1].deep }} {{ meta.k|length }} {{ meta|tojson }}", k) ==
          "yes 2 {\"k\": [1, {\"deep\": \"yes\"}]}");
}

TEST_CASE("cpp_view: standard maps with string keys are contexts too") {
    const std::map<std::string, int> m{{"b", 2}, {"a", 1}};
    CHECK(render_view("{{ a }}+{{ b }}={{ a + b }}", m) == "1+2=3");

    const std::unordered_map<std::string, std::vector<std::string>> u{{"names", {"x", "y"}}};
    CHECK(render_view("{{ names|join(',') }}", u) == "x,y");

    const std::map<std::string, boost::json::value> j{{"cfg", boost::json::parse(R"({"on": true})")}};
    CHECK(render_view("{{ cfg.on }}", j) == "True");
}

TEST_CASE("cpp_view: a boost::json context is read in place") {
    const boost::json::value ctx = boost::json::parse(R"({"user": {"name": "Ann", "tags": ["a", "b"]}})");
    const auto env = address_env();
    const auto& user = ctx.at("user").as_object();
    CHECK(render_view("{{ user|address }}", ctx, env) == address_of(&user));
    CHECK(render_view("{{ user.tags|address }}", ctx, env) == address_of(&user.at("tags").as_array()));
    CHECK(render_view("{{ user.name|address }}", ctx, env) == address_of(user.at("name").as_string().data()));
    CHECK(render_view("{{ user.name }} {{ user.tags|join }}", ctx.as_object()) == "Ann ab");
}

TEST_CASE("cpp_view: the context must be a mapping") {
    const std::vector<int> v{1, 2};
    const auto t = pj::environment::plain().parse("{{ 1 }}");
    try {
        (void)t.render(v);
        FAIL("rendering with a list context succeeded");
    } catch (const parley::template_error&) {
        FAIL("a bad context is not a template error");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::invalid_argument);
        CHECK(std::string(e.what()) ==
              "a template context must be a mapping (a JSON object, a described struct or a map)");
    }
    CHECK_THROWS_AS((void)t.render(boost::json::value(3)), parley::error);
    CHECK(t.render() == "1");  // no context at all is fine
}

TEST_CASE("cpp_view: strict undefined applies to missing members; is defined and default still work") {
    customer c;
    fill(c);
    pj::options o;
    o.undefined = pj::undefined_behavior::strict;
    const pj::environment strict(o);
    CHECK(render_view("{{ home.zip is defined }} {{ home.zip|default('-') }}", c, strict) == "False -");
    try {
        (void)render_view("{{ home.nope }}", c, strict);
        FAIL("strict undefined was printed");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_undefined);
        CHECK(e.message() == "'dict object' has no attribute 'nope'");
    }
}

TEST_CASE("cpp_view: cpp_view itself returns views, not copies") {
    customer c;
    fill(c);
    const pj::value v = pj::detail::cpp_view(c);
    CHECK(v.is_view());
    CHECK(v.view_object() == &c);
    CHECK(std::string_view(v.view_adapter()->type_name) == "dict");
    const pj::value orders = pj::detail::cpp_view(c.orders);
    CHECK(orders.is_sequence_like());
    CHECK(orders.view_adapter()->size(orders.view_object()) == 3);
    const pj::value name = pj::detail::cpp_view(c.name);
    CHECK(name.as_string().data() == c.name.data());
    CHECK(pj::detail::cpp_view(role::user).as_string() == "user");
    CHECK(pj::detail::cpp_view(std::optional<int>{}).is_undefined());
    CHECK(pj::detail::cpp_view(std::optional<int>{4}).as_integer() == 4);
    CHECK(counted::copies == 0);
}

TEST_CASE("cpp_view: an empty optional member is a named undefined, strict in strict mode; a null C string is None") {
    const maybe m;
    const pj::environment lenient = pj::environment::plain();
    pj::options o;
    o.undefined = pj::undefined_behavior::strict;
    const pj::environment strict(o);
    const char* tests = "{{ full }}|{{ empty is defined }}|{{ empty | default(7) }}|{{ no_text }}|{{ no_text is none }}";
    CHECK(lenient.parse(tests).render(m) == "3|False|7|None|True");
    CHECK(strict.parse(tests).render(m) == "3|False|7|None|True");
    CHECK(lenient.parse("[{{ empty }}]").render(m) == "[]");
    CHECK_THROWS_WITH_AS(strict.parse("[{{ empty }}]", "t").render(m), "t:1:2: 'empty' is undefined\n  [{{ empty }}]\n   ^",
                         parley::template_error);
    CHECK_THROWS_WITH_AS(lenient.parse("{{ empty.x }}", "t").render(m), "t:1:10: 'empty' is undefined\n  {{ empty.x }}\n           ^",
                         parley::template_error);
    CHECK_THROWS_AS(strict.parse("{{ m.empty }}").render(boost::json::object{}), parley::template_error);
}
