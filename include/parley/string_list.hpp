// parley/string_list.hpp: a list of strings as a function argument, written as a brace list even
// in an expression that awaits (`co_await parley::classify(model, text, {"yes", "no"})`).
#ifndef PARLEY_STRING_LIST_HPP
#define PARLEY_STRING_LIST_HPP

#include <concepts>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace parley {

/// A list of strings taken by value: a std::vector<std::string>, or a brace list of strings
/// (string literals, std::string, anything convertible to std::string), one string per element,
/// in order. A brace list is taken as constructor arguments, not as a std::initializer_list:
/// g++ 12 cannot compile the array of an initializer_list in an expression that contains
/// co_await ("array used as initializer"), and this type makes none, so
/// `co_await parley::classify(model, text, {"positive", "negative"})` compiles with every
/// compiler.
class string_list {
public:
    /// No strings.
    string_list() = default;
    /// The strings of `strings`, moved in.
    string_list(std::vector<std::string> strings) noexcept : strings_(std::move(strings)) {}
    /// One string per argument, in order: the elements of a brace list.
    template <class... S>
        requires(sizeof...(S) > 0 && (std::convertible_to<S &&, std::string> && ...))
    string_list(S&&... strings) {
        strings_.reserve(sizeof...(S));
        (strings_.emplace_back(std::forward<S>(strings)), ...);
    }

    /// The strings.
    const std::vector<std::string>& strings() const& noexcept { return strings_; }
    /// The strings, moved out.
    std::vector<std::string> strings() && noexcept { return std::move(strings_); }
    /// The number of strings.
    std::size_t size() const noexcept { return strings_.size(); }
    /// True when there is no string.
    bool empty() const noexcept { return strings_.empty(); }

private:
    std::vector<std::string> strings_;
};

}  // namespace parley

#endif
