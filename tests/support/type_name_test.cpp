// Tests of parley/type_name.hpp: type names at compile time.
#include <parley/type_name.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <string_view>

namespace type_name_test {
struct order {};
template <class T, int N>
struct box {};
enum class colour { red };
struct outer {
    struct inner {};
};
namespace deeper::still {
struct thing {};
}  // namespace deeper::still
}  // namespace type_name_test

namespace {
struct hidden {};
}  // namespace

namespace {

namespace tn = type_name_test;

// Constant expressions, with the same spelling under g++ and clang++ for these types.
static_assert(parley::type_name<tn::order>() == "order");
static_assert(parley::qualified_type_name<tn::order>() == "type_name_test::order");
static_assert(parley::type_name<tn::colour>() == "colour");
static_assert(parley::type_name<tn::outer::inner>() == "inner");
static_assert(parley::qualified_type_name<tn::outer::inner>() == "type_name_test::outer::inner");
static_assert(parley::type_name<tn::deeper::still::thing>() == "thing");
static_assert(parley::type_name<tn::box<tn::order, 3>>() == "box<type_name_test::order, 3>");
static_assert(parley::type_name<hidden>() == "hidden");
static_assert(parley::type_name<int>() == "int");
static_assert(parley::type_name<std::map<int, int>>() == "map<int, int>");

static_assert(parley::detail::unqualify("a::b<c::d>::e") == "e");
static_assert(parley::detail::unqualify("a::b<c::d>") == "b<c::d>");
static_assert(parley::detail::unqualify("f()::<lambda()>::local") == "local");
static_assert(parley::detail::unqualify("(anonymous namespace)::x") == "x");
static_assert(parley::detail::unqualify("plain") == "plain");

TEST_CASE("type_name: usable at run time, pointing into static storage") {
    const std::string_view name = parley::type_name<tn::deeper::still::thing>();
    CHECK(std::string(name) == "thing");
    CHECK(parley::qualified_type_name<tn::deeper::still::thing>() == "type_name_test::deeper::still::thing");
    // the anonymous namespace is spelled differently by each compiler, but it is a qualifier
    const std::string_view q = parley::qualified_type_name<hidden>();
    CHECK(q.size() > std::string_view("hidden").size());
    CHECK(q.substr(q.size() - 8) == "::hidden");
}

}  // namespace
