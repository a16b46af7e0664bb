#include <parley/fixed_string.hpp>

#include <doctest/doctest.h>

#include <string_view>
#include <type_traits>

namespace {

template <parley::fixed_string S>
struct tag {
    static constexpr std::string_view value = S;
};

}  // namespace

TEST_CASE("fixed_string: deduction from a literal drops the terminating NUL") {
    constexpr parley::fixed_string s = "hello";
    static_assert(std::is_same_v<std::remove_const_t<decltype(s)>, parley::fixed_string<5>>);
    static_assert(s.size() == 5);
    static_assert(s.view() == "hello");
    static_assert(s[1] == 'e');

    constexpr parley::fixed_string empty = "";
    static_assert(empty.size() == 0);
    static_assert(empty.view().empty());

    CHECK(std::string_view(s) == "hello");
    CHECK(s.data[5] == '\0');
}

TEST_CASE("fixed_string: == compares contents, also across lengths") {
    constexpr parley::fixed_string a = "abc";
    constexpr parley::fixed_string b = "abc";
    constexpr parley::fixed_string c = "abd";
    constexpr parley::fixed_string d = "ab";
    static_assert(a == b);
    static_assert(!(a == c));
    static_assert(!(a == d));
    static_assert(a != c);
    CHECK(a == b);
    CHECK_FALSE(a == d);
}

TEST_CASE("fixed_string: usable as a template argument") {
    static_assert(tag<"user">::value == "user");
    static_assert(std::is_same_v<tag<"user">, tag<"user">>);
    static_assert(!std::is_same_v<tag<"user">, tag<"system">>);
    CHECK(tag<"assistant">::value.size() == 9);
}
