// Tests of parley/jinja/value.hpp: the value model (kinds, ownership, views, undefined values)
// and the adapter interface through which templates read C++ objects in place.
#include <parley/jinja/value.hpp>

#include <parley/jinja.hpp>

#include <boost/json/object.hpp>
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace pj = parley::jinja;
using pj::value;
using pj::value_kind;

// An object whose destruction is observable, to follow reference counts.
struct probe_obj final : pj::detail::object_obj {
    int* destroyed;
    explicit probe_obj(int* d) : destroyed(d) {}
    ~probe_obj() override { ++*destroyed; }
    const char* type_name() const noexcept override { return "probe"; }
};

// A hand-written adapter: a point read as the mapping {"x": .., "y": ..}.
struct point {
    int x = 0;
    int y = 0;
};
struct point_adapter {
    static const point& get(const void* o) { return *static_cast<const point*>(o); }
    static std::size_t size(const void*) { return 2; }
    static value key_at(const void*, std::size_t i) { return value::view_of(i == 0 ? "x" : "y"); }
    static value value_at(const void* o, std::size_t i) { return value(i == 0 ? get(o).x : get(o).y); }
    static bool find(const void* o, std::string_view key, value& out) {
        if (key == "x") out = value(get(o).x);
        else if (key == "y") out = value(get(o).y);
        else return false;
        return true;
    }
};
constexpr pj::adapter make_point_view() {
    pj::adapter a{};  // fields this test does not set stay null
    a.shape = pj::view_shape::mapping;
    a.type_name = "point";
    a.size = &point_adapter::size;
    a.at = &point_adapter::key_at;
    a.value_at = &point_adapter::value_at;
    a.find = &point_adapter::find;
    return a;
}
constexpr pj::adapter point_view = make_point_view();

// A hand-written sequence adapter: the squares 0, 1, 4, ... of a count, computed on demand.
struct squares {
    std::size_t count = 0;
    mutable std::size_t reads = 0;  // how many elements the template asked for
};
struct squares_adapter {
    static const squares& get(const void* o) { return *static_cast<const squares*>(o); }
    static std::size_t size(const void* o) { return get(o).count; }
    static value at(const void* o, std::size_t i) {
        ++get(o).reads;
        return value(static_cast<long long>(i * i));
    }
};
constexpr pj::adapter make_squares_view() {
    pj::adapter a{};
    a.shape = pj::view_shape::sequence;
    a.type_name = "squares";
    a.size = &squares_adapter::size;
    a.at = &squares_adapter::at;
    return a;
}
constexpr pj::adapter squares_view = make_squares_view();

}  // namespace

TEST_CASE("value: a value is 24 bytes and copying never throws") {
    CHECK(sizeof(value) == 24);
    static_assert(std::is_nothrow_copy_constructible_v<value>);
    static_assert(std::is_nothrow_move_constructible_v<value>);
    static_assert(std::is_nothrow_copy_assignable_v<value>);
    static_assert(std::is_nothrow_move_assignable_v<value>);
}

TEST_CASE("value: each constructor gives its Python kind") {
    CHECK(value().kind() == value_kind::undefined);
    CHECK(value().is_undefined());
    CHECK_FALSE(value().is_defined());
    CHECK(value(nullptr).kind() == value_kind::none);
    CHECK(value(nullptr).is_none());
    CHECK(value(nullptr).is_defined());

    CHECK(value(true).kind() == value_kind::boolean);
    CHECK(value(true).as_bool());
    CHECK_FALSE(value(false).as_bool());

    CHECK(value(42).kind() == value_kind::integer);
    CHECK(value(42).as_integer() == 42);
    CHECK(value(-7L).as_integer() == -7);
    CHECK(value(9'000'000'000LL).as_integer() == 9'000'000'000LL);
    CHECK(value(4000000000u).as_integer() == 4000000000LL);

    CHECK(value(2.5).kind() == value_kind::floating);
    CHECK(value(2.5).as_float() == 2.5);

    CHECK(value("text").kind() == value_kind::string);
    CHECK(value("text").as_string() == "text");
    CHECK(value(std::string("owned")).as_string() == "owned");
    CHECK_FALSE(value("text").is_markup());
}

TEST_CASE("value: numbers follow Python's numbers.Number (bool is a number)") {
    CHECK(value(true).is_number());
    CHECK(value(1).is_number());
    CHECK(value(1.5).is_number());
    CHECK_FALSE(value("1").is_number());
    CHECK_FALSE(value(nullptr).is_number());
    CHECK_FALSE(value().is_number());

    CHECK(value(true).as_number() == 1.0);
    CHECK(value(3).as_number() == 3.0);
    CHECK(value(0.25).as_number() == 0.25);

    CHECK(value(1).is_integer());
    CHECK_FALSE(value(1).is_float());
    CHECK_FALSE(value(true).is_integer());
    CHECK(value(true).is_bool());
}

TEST_CASE("value: an owned string outlives the std::string it came from; copies share it") {
    value a;
    {
        std::string s(100, 'x');
        a = value(s);
        s.assign(100, 'y');  // the value holds its own characters
    }
    CHECK(a.as_string() == std::string(100, 'x'));

    const value b = a;  // a copy shares the characters
    CHECK(b.as_string().data() == a.as_string().data());
    a = value(1);  // the first owner goes away
    CHECK(b.as_string() == std::string(100, 'x'));
}

TEST_CASE("value: view_of(string_view) reads the characters in place") {
    const std::string s = "in place";
    const value v = value::view_of(std::string_view(s));
    CHECK(v.is_string());
    CHECK(v.as_string().data() == s.data());
    CHECK(v.as_string().size() == s.size());
    const value copy = v;
    CHECK(copy.as_string().data() == s.data());
}

TEST_CASE("value: substr shares the storage and keeps an owned string alive") {
    value part;
    const char* base = nullptr;
    {
        const value whole(std::string("hello world"));
        base = whole.as_string().data();
        part = whole.substr(6, 5);
    }
    CHECK(part.as_string() == "world");
    CHECK(part.as_string().data() == base + 6);

    const std::string s = "abcdef";
    const value viewed = value::view_of(std::string_view(s)).substr(1, 3);
    CHECK(viewed.as_string() == "bcd");
    CHECK(viewed.as_string().data() == s.data() + 1);
}

TEST_CASE("value: markup is a flag on a string; with_markup changes it without copying") {
    const value m = value::markup("<b>");
    CHECK(m.is_string());
    CHECK(m.is_markup());
    CHECK(m.as_string() == "<b>");

    const value plain = m.with_markup(false);
    CHECK_FALSE(plain.is_markup());
    CHECK(plain.as_string().data() == m.as_string().data());

    const value again = plain.with_markup(true);
    CHECK(again.is_markup());
    CHECK(again.as_string().data() == m.as_string().data());
    CHECK_FALSE(value(1).is_markup());
}

TEST_CASE("value: undefined values remember why they are undefined; as_strict marks them") {
    const value u = value::undefined(pj::detail::undefined_form::attribute, "title", "dict");
    CHECK(u.is_undefined());
    CHECK(u.undefined_form() == pj::detail::undefined_form::attribute);
    CHECK(u.undefined_name() == "title");
    CHECK(std::string_view(u.undefined_type()) == "dict");
    CHECK_FALSE(u.is_strict_undefined());

    const value s = u.as_strict();
    CHECK(s.is_undefined());
    CHECK(s.is_strict_undefined());
    CHECK(s.undefined_form() == pj::detail::undefined_form::attribute);
    CHECK(s.undefined_name() == "title");
    CHECK_FALSE(u.is_strict_undefined());  // as_strict returns a new value

    CHECK(value().undefined_form() == pj::detail::undefined_form::plain);
    CHECK_FALSE(value().is_strict_undefined());
    CHECK_FALSE(value(1).is_strict_undefined());
}

TEST_CASE("value: lists and tuples own their items") {
    const value l = value::make_list({value(1), value("a")});
    CHECK(l.kind() == value_kind::list);
    CHECK(l.is_list());
    CHECK(l.is_sequence_like());
    CHECK_FALSE(l.is_mapping_like());
    REQUIRE(l.list().items.size() == 2);
    CHECK(l.list().items[0].as_integer() == 1);
    CHECK(l.list().items[1].as_string() == "a");
    CHECK_FALSE(l.list().tuple);

    const value t = value::make_list({value(1)}, true);
    CHECK(t.list().tuple);

    const value copy = l;  // a copy is the same list, not a new one
    CHECK(&copy.list() == &l.list());
}

TEST_CASE("value: dicts are mapping-like and copies share them") {
    const value d = value::make_dict();
    CHECK(d.kind() == value_kind::dict);
    CHECK(d.is_dict());
    CHECK(d.is_mapping_like());
    CHECK_FALSE(d.is_sequence_like());
    CHECK(d.dict().items.empty());
    d.dict().items.emplace_back(value("k"), value(1));
    const value copy = d;
    CHECK(&copy.dict() == &d.dict());
    CHECK(copy.dict().items.size() == 1);
}

TEST_CASE("value: objects are reference counted and destroyed with their last value") {
    int destroyed = 0;
    auto* o = new probe_obj(&destroyed);
    {
        value a = value::make_object(o);
        CHECK(a.is_object());
        CHECK(a.kind() == value_kind::object);
        CHECK(o->refs == 1);
        {
            value b = a;
            CHECK(o->refs == 2);
            value c = std::move(b);
            CHECK(o->refs == 2);
            CHECK(b.is_undefined());  // a moved-from value is undefined
            const value& same = c;
            c = same;  // self-assignment keeps the count
            CHECK(o->refs == 2);
        }
        CHECK(o->refs == 1);
        CHECK(destroyed == 0);
        a = value(nullptr);  // assignment releases the old object
        CHECK(destroyed == 1);
    }
    CHECK(destroyed == 1);
}

TEST_CASE("value: move assignment transfers ownership; copy assignment retains the new target") {
    int destroyed_first = 0;
    int destroyed_second = 0;
    value first = value::make_object(new probe_obj(&destroyed_first));
    value second = value::make_object(new probe_obj(&destroyed_second));
    first = second;  // first's object loses its only owner
    CHECK(destroyed_first == 1);
    CHECK(destroyed_second == 0);
    CHECK(&first.object() == &second.object());

    value third;
    third = std::move(second);
    CHECK(second.is_undefined());  // a moved-from value is undefined
    first = value();
    CHECK(destroyed_second == 0);  // third still owns it
    third = value();
    CHECK(destroyed_second == 1);
}

TEST_CASE("value: borrowed objects are not reference counted") {
    int destroyed = 0;
    {
        const probe_obj o(&destroyed);
        {
            const value a = value::borrow_object(&o);
            const value b = a;
            CHECK(a.is_object());
            CHECK(&b.object() == &o);
            CHECK(o.refs == 0);
        }
        CHECK(destroyed == 0);  // the values did not delete the borrowed object
    }
    CHECK(destroyed == 1);  // it is destroyed by its owner
}

TEST_CASE("value: a view points at the C++ object through its adapter") {
    const point p{3, 4};
    const value v = value::view_of(&p, &point_view);
    CHECK(v.is_view());
    CHECK(v.kind() == value_kind::view);
    CHECK(v.view_object() == &p);
    CHECK(v.view_adapter() == &point_view);
    CHECK(v.is_mapping_like());
    CHECK_FALSE(v.is_sequence_like());

    const squares sq{5};
    const value s = value::view_of(&sq, &squares_view);
    CHECK(s.is_sequence_like());
    CHECK_FALSE(s.is_mapping_like());
}

TEST_CASE("adapter: a hand-written mapping adapter is a template context, read in place") {
    point p{3, 4};
    const auto t = pj::environment::plain().parse("{{ x }},{{ y }} {{ x + y }}", "point");
    // the context is the view itself; every render reads the object as it is then
    const value ctx = value::view_of(&p, &point_view);
    CHECK(t.render(ctx) == "3,4 7");
    p.x = 10;
    CHECK(t.render(ctx) == "10,4 14");
}

TEST_CASE("adapter: a mapping adapter iterates its keys, and its type name appears in messages") {
    const point p{1, 2};
    boost::json::object ctx;
    pj::environment env;
    env.add_filter("point", [&p](const value&, const pj::arguments&) { return value::view_of(&p, &point_view); });
    const auto t = env.parse("{% set q = none|point %}{% for k in q %}{{ k }}={{ q[k] }};{% endfor %}"
                             "{{ q|length }} {{ q.y }} {{ q is mapping }}");
    CHECK(t.render(ctx) == "x=1;y=2;2 2 True");

    const auto bad = env.parse("{% set q = none|point %}{{ q.z.w }}", "bad");
    try {
        (void)bad.render(ctx);
        FAIL("rendering succeeded");
    } catch (const parley::template_error& e) {
        CHECK(e.code() == parley::errc::template_undefined);
        CHECK(e.message() == "'point object' has no attribute 'z'");
    }
}

TEST_CASE("adapter: a sequence adapter is asked only for the elements a template reads") {
    squares sq{6};
    pj::environment env;
    env.add_filter("squares", [&sq](const value&, const pj::arguments&) { return value::view_of(&sq, &squares_view); });
    CHECK(env.parse("{% set s = none|squares %}{{ s|length }} {{ s[4] }} {{ s[-1] }}").render(boost::json::object{}) ==
          "6 16 25");
    CHECK(sq.reads == 2);
    sq.reads = 0;
    CHECK(env.parse("{{ (none|squares)|sum }} {{ (none|squares)|list }}").render(boost::json::object{}) ==
          "55 [0, 1, 4, 9, 16, 25]");
    CHECK(sq.reads == 12);
}
