// Tests of parley/schema/traits.hpp: classification of types, the described structs a type
// reaches, and describability.
#include <parley/schema/traits.hpp>

#include <doctest/doctest.h>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <cstdint>
#include <type_traits>

namespace traits_test {

enum class colour { red, green };
BOOST_DESCRIBE_ENUM(colour, red, green)

enum class plain_enum { a, b };

struct leaf {
    int x = 0;
};
BOOST_DESCRIBE_STRUCT(leaf, (), (x))

struct closure_tree {
    std::string name;
    std::vector<closure_tree> children;
    std::optional<leaf> extra;
};
BOOST_DESCRIBE_STRUCT(closure_tree, (), (name, children))

struct with_variant {
    std::variant<leaf, closure_tree, std::monostate> v;
    std::map<std::string, colour> tags;
};
BOOST_DESCRIBE_STRUCT(with_variant, (), (v, tags))

struct not_described {
    int x;
};

struct holds_undescribed {
    int a;
    std::vector<not_described> items;
};
BOOST_DESCRIBE_STRUCT(holds_undescribed, (), (a, items))

struct holds_char {
    char c;
};
BOOST_DESCRIBE_STRUCT(holds_char, (), (c))

struct deep_bad {
    std::optional<holds_char> inner;
};
BOOST_DESCRIBE_STRUCT(deep_bad, (), (inner))

struct base {
    int b = 0;
};
BOOST_DESCRIBE_STRUCT(base, (), (b))
struct derived : base {
    leaf l;
};
BOOST_DESCRIBE_STRUCT(derived, (base), (l))

}  // namespace traits_test

namespace {

using namespace traits_test;
using parley::detail::json_kind;
using parley::detail::json_kind_v;
namespace mp = boost::mp11;

static_assert(json_kind_v<bool> == json_kind::boolean);
static_assert(json_kind_v<std::int8_t> == json_kind::integer);
static_assert(json_kind_v<unsigned long long> == json_kind::integer);
static_assert(json_kind_v<char> == json_kind::unsupported);
static_assert(json_kind_v<char32_t> == json_kind::unsupported);
static_assert(json_kind_v<float> == json_kind::number);
static_assert(json_kind_v<std::string> == json_kind::string);
static_assert(json_kind_v<std::string_view> == json_kind::string);
static_assert(json_kind_v<const char*> == json_kind::unsupported);
static_assert(json_kind_v<colour> == json_kind::enumeration);
static_assert(json_kind_v<plain_enum> == json_kind::unsupported);
static_assert(json_kind_v<std::optional<int>> == json_kind::optional);
static_assert(json_kind_v<std::vector<int>> == json_kind::array);
static_assert(json_kind_v<std::list<int>> == json_kind::array);
static_assert(json_kind_v<std::array<int, 3>> == json_kind::array);
static_assert(json_kind_v<std::set<int>> == json_kind::array);
static_assert(json_kind_v<std::map<std::string, int>> == json_kind::map);
static_assert(json_kind_v<std::map<int, int>> == json_kind::unsupported);
static_assert(json_kind_v<std::variant<int, bool>> == json_kind::variant);
static_assert(json_kind_v<boost::json::value> == json_kind::any);
static_assert(json_kind_v<leaf> == json_kind::object);
static_assert(json_kind_v<not_described> == json_kind::unsupported);

static_assert(parley::detail::is_set_v<std::unordered_set<std::string>>);
static_assert(parley::detail::std_array_traits<std::array<int, 7>>::size == 7);
static_assert(std::is_same_v<parley::detail::array_item_t<std::set<colour>>, colour>);

// The closure lists every reachable struct once, the root first; recursion terminates.
static_assert(std::is_same_v<parley::detail::struct_closure_t<closure_tree>, mp::mp_list<closure_tree>>);
static_assert(std::is_same_v<parley::detail::struct_closure_t<std::vector<with_variant>>,
                             mp::mp_list<with_variant, leaf, closure_tree>>);
static_assert(std::is_same_v<parley::detail::struct_closure_t<int>, mp::mp_list<>>);
static_assert(std::is_same_v<parley::detail::struct_closure_t<derived>, mp::mp_list<derived, leaf>>);
static_assert(std::is_same_v<parley::detail::member_types_t<derived>, mp::mp_list<int, leaf>>);

static_assert(parley::describable<closure_tree>);
static_assert(parley::describable<with_variant>);
static_assert(parley::describable<const std::vector<std::optional<closure_tree>>&>);
static_assert(parley::describable<std::map<std::string, std::variant<std::monostate, colour>>>);
static_assert(!parley::describable<not_described>);
static_assert(!parley::describable<holds_undescribed>);
static_assert(!parley::describable<deep_bad>);
static_assert(!parley::describable<std::vector<char>>);
static_assert(!parley::describable<std::variant<int, const char*>>);

// The type named in error messages is the culprit, found however deep it is.
static_assert(std::is_same_v<parley::detail::first_unsupported_t<holds_undescribed>, not_described>);
static_assert(std::is_same_v<parley::detail::first_unsupported_t<deep_bad>, char>);
static_assert(std::is_same_v<parley::detail::first_unsupported_t<std::variant<int, const char*>>, const char*>);
static_assert(std::is_same_v<parley::detail::first_unsupported_t<closure_tree>, void>);

// The search behind first_unsupported_t (and the strict form's check), with another predicate:
// the type expression first, through optionals, items, map values and alternatives, then the
// members of each struct reached, in order.
template <class T>
using is_enumeration = std::bool_constant<json_kind_v<T> == json_kind::enumeration>;
static_assert(std::is_same_v<parley::detail::first_offender_t<is_enumeration, std::optional<std::vector<colour>>>, colour>);
static_assert(std::is_same_v<parley::detail::first_offender_t<is_enumeration, with_variant>, colour>);
static_assert(std::is_same_v<parley::detail::first_offender_t<is_enumeration, std::vector<with_variant>>, colour>);
static_assert(std::is_void_v<parley::detail::first_offender_t<is_enumeration, closure_tree>>);
static_assert(std::is_same_v<parley::detail::first_offender_t<std::is_floating_point, std::variant<int, std::vector<double>>>,
                             double>);
static_assert(std::is_same_v<parley::detail::first_offender_t<std::is_floating_point, std::map<std::string, float>>, float>);

TEST_CASE("traits: classification is usable at run time too") {
    CHECK(parley::detail::classify<std::vector<int>>() == json_kind::array);
    CHECK(parley::detail::classify<double>() == json_kind::number);
    CHECK(parley::detail::classify<wchar_t>() == json_kind::unsupported);
}

}  // namespace
