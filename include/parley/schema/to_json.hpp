// parley/schema/to_json.hpp: a C++ value described with Boost.Describe written as a JSON value,
// in the shape from_json reads back.
#ifndef PARLEY_SCHEMA_TO_JSON_HPP
#define PARLEY_SCHEMA_TO_JSON_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/schema/detail/annotation_check.hpp>
#include <parley/schema/detail/conversion.hpp>
#include <parley/schema/traits.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace parley {

namespace detail::conv {

struct writer {
    std::string path;  // JSON pointer of the value being written, for messages

    [[noreturn]] void fail(const std::string& what) const {
        throw error(errc::conversion, "to_json: " + (path.empty() ? std::string() : path + ": ") + what);
    }

    template <class Key>
    std::size_t push(const Key& key) {
        std::size_t size = path.size();
        append_segment(path, key);
        return size;
    }

    template <class T>
    boost::json::value write(const T& x) {
        constexpr json_kind kind = json_kind_v<T>;
        if constexpr (kind == json_kind::boolean) {
            return x;
        } else if constexpr (kind == json_kind::integer) {
            if constexpr (std::is_signed_v<T>)
                return static_cast<std::int64_t>(x);
            else
                return static_cast<std::uint64_t>(x);
        } else if constexpr (kind == json_kind::number) {
            if (!std::isfinite(x)) fail("a NaN or infinite number has no JSON form");
            auto d = static_cast<double>(x);
            if (!std::isfinite(d)) fail("a number beyond the range of double has no JSON form");
            return d;
        } else if constexpr (kind == json_kind::string) {
            return boost::json::string(std::string_view(x));
        } else if constexpr (kind == json_kind::any) {
            return x;
        } else if constexpr (kind == json_kind::null) {
            return nullptr;
        } else if constexpr (kind == json_kind::enumeration) {
            const char* name = nullptr;
            boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>([&](auto D) {
                if (!name && x == D.value) name = D.name;
            });
            if (!name)
                fail("the value " + std::to_string(static_cast<std::int64_t>(x)) + " of an enum has no enumerator name");
            return boost::json::string(name);
        } else if constexpr (kind == json_kind::optional) {
            if (!x) return nullptr;
            return write(*x);
        } else if constexpr (kind == json_kind::array) {
            boost::json::array a;
            a.reserve(x.size());
            std::size_t i = 0;
            for (const auto& item : x) {
                std::size_t size = push(i++);
                a.push_back(write(item));
                path.resize(size);
            }
            return a;
        } else if constexpr (kind == json_kind::map) {
            boost::json::object o;
            o.reserve(x.size());
            for (const auto& [key, item] : x) {
                std::size_t size = push(std::string_view(key));
                o.insert_or_assign(key, write(item));
                path.resize(size);
            }
            return o;
        } else if constexpr (kind == json_kind::variant) {
            return std::visit([&](const auto& alternative) { return write(alternative); }, x);
        } else if constexpr (kind == json_kind::object) {
            boost::json::object o;
            boost::mp11::mp_for_each<described_members<T>>([&](auto D) {
                const auto& member = x.*D.pointer;
                if constexpr (is_optional_v<std::remove_cvref_t<decltype(member)>>) {
                    if (!member) return;  // a disengaged optional member is left out
                }
                std::size_t size = push(std::string_view(D.name));
                o.insert_or_assign(D.name, write(member));
                path.resize(size);
            });
            return o;
        } else {
            static_assert(dependent_false<T>,
                          "to_json cannot write this type (named in the instantiation notes): use bool, an integer "
                          "type, float/double, std::string(_view), an enum described with BOOST_DESCRIBE_ENUM, "
                          "std::optional, std::vector/deque/list, std::array, std::set, std::map<std::string, T>, "
                          "std::variant, boost::json::value, or a struct described with BOOST_DESCRIBE_STRUCT");
            return nullptr;
        }
    }
};

}  // namespace detail::conv

/// Writes `x` as JSON: structs as objects with their members in declaration order (a disengaged
/// `std::optional` member is left out; elsewhere it is `null`), enums as their names, sequences,
/// sets and arrays as arrays, maps with string keys as objects, a variant as its active
/// alternative (`std::monostate` as null). Types are those of parley/schema/traits.hpp.
/// `from_json<T>(to_json(x))` gives back `x`. Throws `parley::error` (`errc::conversion`,
/// naming the JSON pointer) for a NaN or infinite number and for an enum value without a name.
/// A type outside that table, or a mistake in the annotations of a type T reaches, is a
/// compile error.
template <class T>
boost::json::value to_json(const T& x) {
    if constexpr (describable<T>) {
        [[maybe_unused]] constexpr bool annotations_checked = detail::check_reachable_annotations<T>();
    }
    detail::conv::writer w;
    return w.write(x);
}

}  // namespace parley

#endif
