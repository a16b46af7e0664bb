#include <parley/string_list.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

std::vector<std::string> strings_of(parley::string_list list) { return std::move(list).strings(); }

}  // namespace

TEST_CASE("string_list: a brace list gives one string per element, in order") {
    const std::string owned = "second";
    std::string moved = "third, a string long enough not to fit in the small-string buffer";
    CHECK(strings_of({"first", owned, std::move(moved)}) ==
          std::vector<std::string>{"first", "second", "third, a string long enough not to fit in the small-string buffer"});
    CHECK(strings_of({"only"}) == std::vector<std::string>{"only"});
    CHECK(strings_of({}).empty());
    CHECK(strings_of({std::string_view("a view") == "a view" ? "yes" : "no", ""}) == std::vector<std::string>{"yes", ""});
}

TEST_CASE("string_list: a vector is taken as it is") {
    const std::vector<std::string> choices = {"positive", "negative"};
    CHECK(strings_of(choices) == choices);
    std::vector<std::string> texts = {"x", "y", "z"};
    const parley::string_list list(std::move(texts));
    CHECK(list.size() == 3);
    CHECK_FALSE(list.empty());
    CHECK(list.strings() == std::vector<std::string>{"x", "y", "z"});
    CHECK(parley::string_list().empty());
}

// What converts to a string_list: what a std::vector<std::string> parameter takes, and the
// elements of a brace list one by one, as constructor arguments (tests/bot/calls_test.cpp awaits
// classify with a brace list: g++ 12 compiles no std::initializer_list there).
static_assert(std::is_convertible_v<std::vector<std::string>, parley::string_list>);
static_assert(std::is_convertible_v<const std::vector<std::string>&, parley::string_list>);
static_assert(std::is_constructible_v<parley::string_list, const char*, std::string, const char (&)[3]>);
static_assert(!std::is_constructible_v<parley::string_list, int>);
static_assert(!std::is_constructible_v<parley::string_list, const char*, int>);
