// Tests of parley/jinja/arguments.hpp: the arguments a filter, test or function receives, and the
// Python-style binding of positional and keyword arguments to named parameters.
#include <parley/jinja/arguments.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>

namespace {

namespace pj = parley::jinja;
using pj::value;

// The error a callable raises, as code and message; empty when it raises none.
template <class F>
pj::detail::eval_error raised_by(F&& f) {
    try {
        f();
    } catch (const pj::detail::eval_error& e) {
        return e;
    }
    return {parley::errc{}, {}};
}

constexpr std::string_view truncate_params[] = {"s", "length", "killwords", "end"};

}  // namespace

TEST_CASE("arguments: positional and keyword arguments in the order given") {
    pj::arguments a;
    CHECK(a.size() == 0);
    a.push(value(1));
    a.push(value("two"));
    a.push_keyword("sep", value(","));
    a.push_keyword("end", value(3));
    CHECK(a.size() == 2);
    CHECK(a.positional().size() == 2);
    CHECK(a[0].as_integer() == 1);
    CHECK(a[1].as_string() == "two");
    REQUIRE(a.keywords().size() == 2);
    CHECK(a.keywords()[0].first == "sep");
    CHECK(a.keywords()[1].first == "end");
    CHECK(a.keyword("sep").as_string() == ",");
    CHECK(a.keyword("end").as_integer() == 3);
    CHECK(a.keyword("missing").is_undefined());

    a.positional_mut().push_back(value(nullptr));
    CHECK(a.size() == 3);
    a.clear();
    CHECK(a.size() == 0);
    CHECK(a.keywords().empty());
}

TEST_CASE("arguments: keep_alive keeps the storage of keyword names alive") {
    pj::arguments a;
    {
        const value owner(std::string("width"));
        a.push_keyword(owner.as_string(), value(80));
        a.keep_alive(owner);
    }
    CHECK(a.keywords()[0].first == "width");
    CHECK(a.keyword("width").as_integer() == 80);
}

TEST_CASE("bound_args: positional first, then keywords; missing parameters are undefined") {
    pj::arguments a;
    a.push(value("text"));
    a.push(value(10));
    a.push_keyword("end", value("..."));
    const pj::detail::bound_args<4> b(a, "truncate", truncate_params);
    CHECK(b.has(0));
    CHECK(b.has(1));
    CHECK_FALSE(b.has(2));
    CHECK(b.has(3));
    CHECK(b[0].as_string() == "text");
    CHECK(b[1].as_integer() == 10);
    CHECK(b[2].is_undefined());
    CHECK(b[3].as_string() == "...");
    CHECK(b.get(2, value(false)).is_bool());
    CHECK(b.get(1, value(255)).as_integer() == 10);
}

TEST_CASE("bound_args: skip leaves the first parameters to the caller (the filtered value)") {
    pj::arguments a;
    a.push(value(5));
    a.push_keyword("end", value("!"));
    const pj::detail::bound_args<4> b(a, "truncate", truncate_params, 1);
    CHECK_FALSE(b.has(0));
    CHECK(b[1].as_integer() == 5);
    CHECK(b[3].as_string() == "!");
}

TEST_CASE("bound_args: Python's errors for too many, unknown and repeated arguments") {
    pj::arguments many;
    for (int i = 0; i < 4; ++i) many.push(value(i));
    auto e = raised_by([&] { (void)pj::detail::bound_args<4>(many, "truncate", truncate_params, 1); });
    CHECK(e.code == parley::errc::template_type);
    CHECK(e.message == "truncate() takes at most 3 argument(s) (4 given)");

    pj::arguments unknown;
    unknown.push_keyword("width", value(1));
    e = raised_by([&] { (void)pj::detail::bound_args<4>(unknown, "truncate", truncate_params); });
    CHECK(e.code == parley::errc::template_type);
    CHECK(e.message == "truncate() got an unexpected keyword argument 'width'");

    // a skipped parameter cannot be given by keyword either
    pj::arguments skipped;
    skipped.push_keyword("s", value("x"));
    e = raised_by([&] { (void)pj::detail::bound_args<4>(skipped, "truncate", truncate_params, 1); });
    CHECK(e.message == "truncate() got an unexpected keyword argument 's'");

    pj::arguments twice;
    twice.push(value("x"));
    twice.push(value(3));
    twice.push_keyword("length", value(4));
    e = raised_by([&] { (void)pj::detail::bound_args<4>(twice, "truncate", truncate_params); });
    CHECK(e.code == parley::errc::template_type);
    CHECK(e.message == "truncate() got multiple values for argument 'length'");
}

TEST_CASE("detail::raise throws an eval_error with the code and message") {
    const auto e = raised_by([] { pj::detail::raise(parley::errc::template_value, "bad width"); });
    CHECK(e.code == parley::errc::template_value);
    CHECK(e.message == "bad width");
}
