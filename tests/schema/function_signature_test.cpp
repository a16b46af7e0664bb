// Tests of parley/schema/function_signature.hpp: {name, description, parameters} for tools.
#include <parley/schema/function_signature.hpp>

#include "../harness/schema_check.hpp"

#include <doctest/doctest.h>

#include <boost/describe/class.hpp>
#include <boost/json/serialize.hpp>

#include <optional>
#include <string>

namespace signature_test {

struct get_weather {
    std::string location;
    std::optional<std::string> unit;
};
BOOST_DESCRIBE_STRUCT(get_weather, (), (location, unit))
PARLEY_ANNOTATE(get_weather, "Fetches the weather in the given location",
                (location, "The location to get the weather for"), (unit, "The unit to return the temperature in"))

struct search_request {
    std::string query;
};
BOOST_DESCRIBE_STRUCT(search_request, (), (query))
PARLEY_ANNOTATE(search_request, name("web-search"))

template <class T>
struct wrapped {
    T value;
};
BOOST_DESCRIBE_STRUCT(wrapped<int>, (), (value))

struct a_name_that_is_far_too_long_to_be_a_function_name_for_openai_tools_x {
    int x;
};
BOOST_DESCRIBE_STRUCT(a_name_that_is_far_too_long_to_be_a_function_name_for_openai_tools_x, (), (x))

}  // namespace signature_test

namespace {

namespace st = signature_test;
using boost::json::value;
using schema_check::json;

// Default names are compile-time constants; an invalid one is detected at compile time.
static_assert(parley::function_name<st::get_weather> == "get_weather");
static_assert(parley::function_name<st::search_request> == "web-search");
static_assert(parley::type_name<st::wrapped<int>>() == "wrapped<int>");
static_assert(!parley::is_valid_function_name(parley::type_name<st::wrapped<int>>()));
static_assert(parley::type_name<st::a_name_that_is_far_too_long_to_be_a_function_name_for_openai_tools_x>().size() == 68);
static_assert(!parley::is_valid_function_name(
    parley::type_name<st::a_name_that_is_far_too_long_to_be_a_function_name_for_openai_tools_x>()));

static_assert(parley::is_valid_function_name("a"));
static_assert(parley::is_valid_function_name("get_weather-2"));
static_assert(parley::is_valid_function_name(std::string_view("0123456789012345678901234567890123456789012345678901234567890123")));
static_assert(!parley::is_valid_function_name(std::string_view("01234567890123456789012345678901234567890123456789012345678901234")));
static_assert(!parley::is_valid_function_name(""));
static_assert(!parley::is_valid_function_name("get weather"));
static_assert(!parley::is_valid_function_name("get.weather"));
static_assert(!parley::is_valid_function_name("caf\xc3\xa9"));

TEST_CASE("function_signature: name, description and parameters") {
    const boost::json::object sig = parley::function_signature<st::get_weather>();
    CHECK(value(sig) == json(R"({"name":"get_weather","description":"Fetches the weather in the given location",
        "parameters":{"type":"object","properties":{
            "location":{"type":"string","description":"The location to get the weather for"},
            "unit":{"type":"string","description":"The unit to return the temperature in"}},
        "required":["location"],"additionalProperties":false}})"));
    // keys in a readable order, "$schema" left out of the parameters
    const std::string text = boost::json::serialize(sig);
    CHECK(text.find("\"name\"") < text.find("\"description\""));
    CHECK(text.find("\"description\"") < text.find("\"parameters\""));
    CHECK(text.find("$schema") == std::string::npos);
    CHECK(text.find(R"("parameters":{"type":"object")") != std::string::npos);

    const boost::json::object other = parley::function_signature<st::search_request>("lookup");
    CHECK(other.at("name") == "lookup");
    CHECK(!other.contains("description"));  // no description annotation, no key
    CHECK(parley::function_signature<st::search_request>().at("name") == "web-search");
}

TEST_CASE("function_signature: the strict form") {
    const boost::json::object sig = parley::strict_function_signature<st::get_weather>();
    CHECK(sig.at("strict") == true);
    CHECK(sig.at("parameters").at("required") == json(R"(["location","unit"])"));
    CHECK(sig.at("parameters").at("properties").at("unit") ==
          json(R"({"anyOf":[{"type":"string"},{"type":"null"}],"description":"The unit to return the temperature in"})"));
    CHECK(!parley::function_signature<st::get_weather>().contains("strict"));
}

TEST_CASE("function_signature: a name given at run time is checked at run time") {
    // types whose C++ name is not a valid function name work with an explicit name
    CHECK(parley::function_signature<st::wrapped<int>>("wrapped_int").at("name") == "wrapped_int");
    CHECK(parley::function_signature<st::a_name_that_is_far_too_long_to_be_a_function_name_for_openai_tools_x>("short")
              .at("name") == "short");
    for (const char* bad : {"", "has space", "dotted.name", "slash/name", "caf\xc3\xa9",
                            "a12345678901234567890123456789012345678901234567890123456789012345"}) {
        INFO("name: ", bad);
        CHECK_THROWS_AS(parley::function_signature<st::get_weather>(bad), parley::error);
        CHECK_THROWS_AS(parley::strict_function_signature<st::get_weather>(bad), parley::error);
    }
    try {
        (void)parley::function_signature<st::get_weather>("bad name");
        FAIL("no exception");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::invalid_argument);
        CHECK(std::string(e.what()) == "invalid function name \"bad name\" (8 characters): expected ^[a-zA-Z0-9_-]{1,64}$");
    }
}

TEST_CASE("function_signature: parameters are valid schemas") {
    const auto results = schema_check::run({
        {"plain", parley::function_signature<st::get_weather>().at("parameters"),
         {json(R"({"location":"Paris"})"), json(R"({"unit":"C"})")}},
        {"strict", parley::strict_function_signature<st::get_weather>().at("parameters"),
         {json(R"({"location":"Paris","unit":null})"), json(R"({"location":"Paris"})")}},
    });
    REQUIRE(results.size() == 2);
    for (const auto& r : results) CHECK_MESSAGE(!r.schema_error, r.name);
    REQUIRE(results[0].valid.size() == 2);
    CHECK(results[0].valid[0]);
    CHECK(!results[0].valid[1]);
    REQUIRE(results[1].valid.size() == 2);
    CHECK(results[1].valid[0]);
    CHECK(!results[1].valid[1]);
}

}  // namespace
