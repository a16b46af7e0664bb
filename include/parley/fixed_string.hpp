// parley/fixed_string.hpp: a string usable as a template argument.
#ifndef PARLEY_FIXED_STRING_HPP
#define PARLEY_FIXED_STRING_HPP

#include <parley/config.hpp>

#include <cstddef>
#include <string_view>

namespace parley {

/// A string literal held by value, so that it can be a non-type template argument:
/// `template <parley::fixed_string S> struct tag {};  tag<"hello"> t;`.
template <std::size_t N>
struct fixed_string {
    char data[N + 1] = {};

    constexpr fixed_string() = default;
    /// From a string literal (its terminating NUL is not part of the value).
    constexpr fixed_string(const char (&s)[N + 1]) noexcept {
        for (std::size_t i = 0; i != N; ++i) data[i] = s[i];
    }
    /// The number of characters.
    static constexpr std::size_t size() noexcept { return N; }
    /// The characters as a view.
    constexpr std::string_view view() const noexcept { return {data, N}; }
    constexpr operator std::string_view() const noexcept { return view(); }
    constexpr char operator[](std::size_t i) const noexcept { return data[i]; }
};

template <std::size_t M>
fixed_string(const char (&)[M]) -> fixed_string<M - 1>;

template <std::size_t A, std::size_t B>
constexpr bool operator==(const fixed_string<A>& a, const fixed_string<B>& b) noexcept {
    return a.view() == b.view();
}

}  // namespace parley

#endif
