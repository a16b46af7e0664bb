// parley/schema/detail/expectations.hpp: what a value of a C++ type must look like in JSON, as
// the problems of from_json say it ("an integer from 0 to 255", "one of "red", "green"").
#ifndef PARLEY_SCHEMA_DETAIL_EXPECTATIONS_HPP
#define PARLEY_SCHEMA_DETAIL_EXPECTATIONS_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/conversion.hpp>
#include <parley/schema/traits.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace parley::detail::conv {

template <class T>
std::string expected_of();

template <class T>
std::string integer_expectation() {
    std::string s = "an integer from ";
    if constexpr (std::is_signed_v<T>)
        s += std::to_string(static_cast<std::int64_t>(std::numeric_limits<T>::min()));
    else
        s += '0';
    s += " to ";
    s += std::to_string(static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
    return s;
}

template <class... Ts>
std::string alternatives_expectation() {
    std::vector<std::string> parts;
    auto add = [&](std::string e) {
        for (const std::string& p : parts)
            if (p == e) return;
        parts.push_back(std::move(e));
    };
    (add(expected_of<Ts>()), ...);
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i != 0) s += i + 1 == parts.size() ? " or " : ", ";
        s += parts[i];
    }
    return s;
}

template <class T>
struct variant_expectation;
template <class... Ts>
struct variant_expectation<std::variant<Ts...>> {
    static std::string get() { return alternatives_expectation<Ts...>(); }
};

/// What a value of type T must look like, as messages say it: `an integer from 0 to 255`.
template <class T>
std::string expected_of() {
    constexpr json_kind kind = json_kind_v<T>;
    if constexpr (kind == json_kind::boolean)
        return "a boolean";
    else if constexpr (kind == json_kind::integer)
        return integer_expectation<T>();
    else if constexpr (kind == json_kind::number)
        return "a number";
    else if constexpr (kind == json_kind::string)
        return "a string";
    else if constexpr (kind == json_kind::any)
        return "any JSON value";
    else if constexpr (kind == json_kind::null)
        return "null";
    else if constexpr (kind == json_kind::enumeration)
        return "one of " + enumerator_list<T>();
    else if constexpr (kind == json_kind::optional)
        return expected_of<typename T::value_type>() + " or null";
    else if constexpr (is_std_array_v<T>)
        return "an array of " + std::to_string(std_array_traits<T>::size) + " items";
    else if constexpr (kind == json_kind::array)
        return "an array";
    else if constexpr (kind == json_kind::map || kind == json_kind::object)
        return "an object";
    else if constexpr (kind == json_kind::variant)
        return variant_expectation<T>::get();
    else
        return "a value of an unsupported type";
}

}  // namespace parley::detail::conv

#endif
