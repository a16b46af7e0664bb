// parley/type_name.hpp: the name of a C++ type, obtained at compile time.
//
// The name is read from the compiler's own spelling of a function template specialisation
// (__PRETTY_FUNCTION__ with g++ and clang++), so it is available in constant expressions and
// costs nothing at run time. Compilers spell some types differently (template arguments such
// as `3` or `3UL`, `{anonymous}` or `(anonymous namespace)`); names of plain classes and enums
// are the same everywhere.
#ifndef PARLEY_TYPE_NAME_HPP
#define PARLEY_TYPE_NAME_HPP

#include <parley/config.hpp>

#include <cstddef>
#include <string_view>

namespace parley {

namespace detail {

template <class T>
constexpr std::string_view pretty_function() noexcept {
#if defined(__clang__) || defined(__GNUC__)
    return __PRETTY_FUNCTION__;
#elif defined(_MSC_VER)
    return __FUNCSIG__;
#else
#error "parley::type_name needs __PRETTY_FUNCTION__ or __FUNCSIG__"
#endif
}

/// The type's spelling inside a pretty_function<T>() string.
constexpr std::string_view extract_type_name(std::string_view s) noexcept {
#if defined(__clang__) || defined(__GNUC__)
    // g++: "... pretty_function() [with T = NAME; std::string_view = ...]"
    // clang++: "... pretty_function() [T = NAME]"
    constexpr std::string_view marker = "T = ";
    const std::size_t start = s.find(marker);
    if (start == std::string_view::npos) return {};
    s.remove_prefix(start + marker.size());
    int depth = 0;
    for (std::size_t i = 0; i != s.size(); ++i) {
        const char c = s[i];
        if (c == '<' || c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == '>' || c == ')' || c == '}')
            --depth;
        else if (c == ']') {
            if (depth == 0) return s.substr(0, i);
            --depth;
        } else if (c == ';' && depth == 0) {
            return s.substr(0, i);
        }
    }
    return s;
#else
    // MSVC: "... pretty_function<NAME>(void) noexcept"
    const std::size_t start = s.find("pretty_function<");
    const std::size_t end = s.rfind(">(void)");
    if (start == std::string_view::npos || end == std::string_view::npos) return {};
    s = s.substr(start + 16, end - start - 16);
    for (std::string_view prefix : {"struct ", "class ", "enum ", "union "})
        if (s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
    return s;
#endif
}

/// The name without its qualification: what follows the last "::" outside template arguments
/// and parentheses.
constexpr std::string_view unqualify(std::string_view s) noexcept {
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
        const char c = s[i];
        if (c == '<' || c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == '>' || c == ')' || c == ']' || c == '}')
            --depth;
        else if (c == ':' && s[i + 1] == ':' && depth == 0) {
            start = i + 2;
            ++i;
        }
    }
    return s.substr(start);
}

template <class T>
inline constexpr std::string_view qualified_type_name_v = extract_type_name(pretty_function<T>());

}  // namespace detail

/// T's name with its namespaces and enclosing classes, as the compiler spells it:
/// `app::order`, `app::box<int>`. A constant expression.
template <class T>
constexpr std::string_view qualified_type_name() noexcept {
    return detail::qualified_type_name_v<T>;
}

/// T's unqualified name: `order` for `app::order`, `box<int>` for `app::box<int>` (template
/// arguments keep the compiler's spelling). A constant expression.
template <class T>
constexpr std::string_view type_name() noexcept {
    return detail::unqualify(detail::qualified_type_name_v<T>);
}

}  // namespace parley

#endif
