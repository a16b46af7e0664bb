// Tests of parley/schema/from_json_result.hpp: problem messages, their rendering as one text,
// and the result type of conversions.
#include <parley/schema/from_json_result.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using parley::json_problem;
using parley::json_problem_kind;

TEST_CASE("json_problem: one line per problem, the path left out for the whole value") {
    CHECK(json_problem{json_problem_kind::wrong_type, "/items/2/price", "a number", "\"12 EUR\"", ""}.message() ==
          "/items/2/price: expected a number, found \"12 EUR\"");
    CHECK(json_problem{json_problem_kind::wrong_type, "", "an object", "[]", ""}.message() ==
          "expected an object, found []");
    CHECK(json_problem{json_problem_kind::missing_member, "/a", "a string", "nothing", "required member missing"}
              .message() == "/a: expected a string, found nothing (required member missing)");
}

TEST_CASE("format_problems: every message on its own line, then what was left out") {
    std::vector<json_problem> list = {{json_problem_kind::wrong_type, "/a", "a number", "true", ""},
                                      {json_problem_kind::out_of_range, "/b", "an integer from 0 to 255", "256", ""}};
    CHECK(parley::format_problems(list) ==
          "/a: expected a number, found true\n/b: expected an integer from 0 to 255, found 256");
    CHECK(parley::format_problems(list, 1) ==
          "/a: expected a number, found true\n/b: expected an integer from 0 to 255, found 256\n(and 1 more problem)");
    CHECK(parley::format_problems({}, 3) == "(and 3 more problems)");
    CHECK(parley::format_problems({}).empty());
}

TEST_CASE("from_json_result: a value with warnings, or problems") {
    parley::from_json_result<int> ok(7, {{json_problem_kind::unknown_member, "/x", "one of the members", "?", ""}});
    REQUIRE(ok);
    CHECK(ok.has_value());
    CHECK(*ok == 7);
    CHECK(ok.value() == 7);
    CHECK(ok.warnings().size() == 1);
    CHECK(ok.errors().empty());
    CHECK(ok.error_text().empty());

    parley::from_json_result<std::string> bad({{json_problem_kind::wrong_type, "", "a string", "1", ""}}, {}, 2);
    CHECK(!bad);
    CHECK(bad.omitted_errors() == 2);
    CHECK(bad.error_text() == "expected a string, found 1\n(and 2 more problems)");
    CHECK_THROWS_AS((void)bad.value(), parley::conversion_error);
    try {
        (void)bad.value();
    } catch (const parley::conversion_error& e) {
        CHECK(std::string(e.what()) ==
              "the JSON value does not fit the type:\nexpected a string, found 1\n(and 2 more problems)");
        CHECK(e.problems().size() == 1);
    }
}
