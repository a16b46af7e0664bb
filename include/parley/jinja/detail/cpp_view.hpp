// parley/jinja/detail/cpp_view.hpp: C++ objects read in place as template values: described
// structs and enums, standard containers, optionals, strings and numbers.
#ifndef PARLEY_JINJA_DETAIL_CPP_VIEW_HPP
#define PARLEY_JINJA_DETAIL_CPP_VIEW_HPP

#include <parley/jinja/detail/json_view.hpp>
#include <parley/jinja/value.hpp>

#include <boost/describe/enum_to_string.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace parley::jinja {

/// Specialise `view_traits<T>` to let templates read a type of your own in place: it has one
/// member, `static value view(const T& x)`, which returns a value that views `x` (for instance
/// `value::view_of(&x, &my_adapter)`). A specialisation takes precedence over every built-in view.
template <class T>
struct view_traits;

}  // namespace parley::jinja

namespace parley::jinja::detail {

template <class T>
value cpp_view(const T& x);

template <class T>
concept has_view_traits = requires(const T& x) {
    { view_traits<T>::view(x) } -> std::same_as<value>;
};

template <class T, class = void>
struct is_range : std::false_type {};
template <class T>
struct is_range<T, std::void_t<decltype(std::begin(std::declval<const T&>())), decltype(std::size(std::declval<const T&>()))>>
    : std::true_type {};

template <class T, class = void>
struct is_string_map : std::false_type {};
template <class T>
struct is_string_map<T, std::void_t<typename T::key_type, typename T::mapped_type>>
    : std::is_convertible<const typename T::key_type&, std::string_view> {};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
struct is_variant : std::false_type {};
template <class... T>
struct is_variant<std::variant<T...>> : std::true_type {};

template <class T>
constexpr bool is_described_struct = boost::describe::has_describe_members<T>::value && std::is_class_v<T>;

/// A member read in place; an empty std::optional member is undefined and named in messages.
template <class M>
value member_view(const M& member, const char* name) {
    value v = cpp_view(member);
    if (v.is_undefined()) return value::undefined(undefined_form::name, std::string_view(name));
    return v;
}

/// Adapter for a described struct: a mapping from member names to members. Listing them (keys and
/// values by position) goes through tables of the names and of a reader per member.
template <class T>
struct struct_adapter {
    using members = boost::describe::describe_members<T, boost::describe::mod_public | boost::describe::mod_inherited>;
    static constexpr std::size_t count = boost::mp11::mp_size<members>::value;
    using reader = value (*)(const T&);

    template <class D>
    static value read(const T& obj) {
        return member_view(obj.*D::pointer, D::name);
    }
    /// The members' names, in declaration order.
    static constexpr std::array<std::string_view, count> names = [] {
        std::array<std::string_view, count> a{};
        std::size_t k = 0;
        boost::mp11::mp_for_each<members>([&](auto D) { a[k++] = std::string_view(D.name); });
        return a;
    }();
    /// A reader of each member, in the same order.
    static constexpr std::array<reader, count> readers = [] {
        std::array<reader, count> a{};
        std::size_t k = 0;
        boost::mp11::mp_for_each<members>([&](auto D) { a[k++] = &read<decltype(D)>; });
        return a;
    }();

    static std::size_t size(const void*) { return count; }
    static value key_at(const void*, std::size_t i) {
        if (i >= count) return value();
        return value::view_of(names[i]);
    }
    static value value_at(const void* o, std::size_t i) {
        if (i >= count) return value();
        return readers[i](*static_cast<const T*>(o));
    }
    static bool find(const void* o, std::string_view key, value& out) {
        // the lookup a render makes for every member it reads: unrolled, the names' sizes known
        // at compile time (short names are compared as words, without a call to memcmp), and
        // the member read inline
        const T& obj = *static_cast<const T*>(o);
        bool found = false;
        boost::mp11::mp_for_each<members>([&](auto D) {
            constexpr std::string_view name = decltype(D)::name;
            if (!found && key.size() == name.size() && same_bytes(key.data(), name.data(), name.size())) {
                out = member_view(obj.*D.pointer, D.name);
                found = true;
            }
        });
        return found;
    }
    static constexpr adapter instance{view_shape::mapping, "dict", &size, &key_at, &value_at, &find, nullptr};
};

/// Adapter for a range of elements (vector, array, set, list, deque...).
template <class R>
struct range_adapter {
    static const R& get(const void* o) { return *static_cast<const R*>(o); }
    static std::size_t size(const void* o) { return static_cast<std::size_t>(std::size(get(o))); }
    static value at(const void* o, std::size_t i) {
        auto it = std::begin(get(o));
        std::advance(it, static_cast<std::ptrdiff_t>(i));
        return cpp_view(*it);
    }
    static void each(const void* o, void* ctx, void (*fn)(void*, const value&, const value&)) {
        for (const auto& x : get(o)) fn(ctx, cpp_view(x), value());
    }
    using iterator = decltype(std::begin(std::declval<const R&>()));
    static constexpr bool random_access =
        std::is_base_of_v<std::random_access_iterator_tag, typename std::iterator_traits<iterator>::iterator_category>;
    static constexpr adapter instance{view_shape::sequence, "list", &size, &at, nullptr, nullptr,
                                      random_access ? nullptr : &each};
};

/// Adapter for a map with string-like keys (std::map, std::unordered_map...).
template <class M>
struct map_adapter {
    static const M& get(const void* o) { return *static_cast<const M*>(o); }
    static std::size_t size(const void* o) { return get(o).size(); }
    static value key_at(const void* o, std::size_t i) {
        auto it = get(o).begin();
        std::advance(it, static_cast<std::ptrdiff_t>(i));
        return value::view_of(std::string_view(it->first));
    }
    static value value_at(const void* o, std::size_t i) {
        auto it = get(o).begin();
        std::advance(it, static_cast<std::ptrdiff_t>(i));
        return cpp_view(it->second);
    }
    static bool find(const void* o, std::string_view key, value& out) {
        const M& m = get(o);
        auto it = m.find(typename M::key_type(key));
        if (it == m.end()) return false;
        out = cpp_view(it->second);
        return true;
    }
    static void each(const void* o, void* ctx, void (*fn)(void*, const value&, const value&)) {
        for (const auto& [k, x] : get(o)) fn(ctx, value::view_of(std::string_view(k)), cpp_view(x));
    }
    static constexpr adapter instance{view_shape::mapping, "dict", &size, &key_at, &value_at, &find, &each};
};

/// A template value that reads `x` in place. `x` must outlive the value.
template <class T>
value cpp_view(const T& x) {
    if constexpr (std::is_same_v<T, value>) {
        return x;
    } else if constexpr (has_view_traits<T>) {
        return view_traits<T>::view(x);
    } else if constexpr (std::is_same_v<T, boost::json::value>) {
        return json_view(x);
    } else if constexpr (std::is_same_v<T, boost::json::object> || std::is_same_v<T, boost::json::array>) {
        return json_view(x);
    } else if constexpr (std::is_same_v<T, boost::json::string>) {
        return value::view_of(std::string_view(x));
    } else if constexpr (std::is_same_v<T, bool>) {
        return value(x);
    } else if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
            return unsigned_int_value(static_cast<std::uint64_t>(x));  // beyond INT64_MAX: a big integer
        } else {
            return value(static_cast<long long>(x));
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        return value(static_cast<double>(x));
    } else if constexpr (std::is_same_v<T, std::nullptr_t> || std::is_same_v<T, std::nullopt_t>) {
        return value(nullptr);
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
        if constexpr (std::is_pointer_v<T>) {
            if (x == nullptr) return value(nullptr);  // a null C string reads as None
        }
        return value::view_of(std::string_view(x));
    } else if constexpr (is_optional<T>::value) {
        if (!x) return value();
        return cpp_view(*x);
    } else if constexpr (is_variant<T>::value) {
        // the alternative it holds (std::nullptr_t or std::monostate read as None)
        return std::visit(
            [](const auto& alternative) -> value {
                if constexpr (std::is_same_v<std::remove_cvref_t<decltype(alternative)>, std::monostate>) return value(nullptr);
                else return cpp_view(alternative);
            },
            x);
    } else if constexpr (std::is_enum_v<T>) {
        static_assert(boost::describe::has_describe_enumerators<T>::value,
                      "parley: to use an enum in a template, describe it with BOOST_DESCRIBE_ENUM");
        const char* name = boost::describe::enum_to_string(x, nullptr);
        if (!name) return value(static_cast<long long>(x));
        return value::view_of(std::string_view(name));
    } else if constexpr (is_described_struct<T>) {
        return value::view_of(&x, &struct_adapter<T>::instance);
    } else if constexpr (is_string_map<T>::value) {
        return value::view_of(&x, &map_adapter<T>::instance);
    } else if constexpr (is_range<T>::value) {
        return value::view_of(&x, &range_adapter<T>::instance);
    } else {
        static_assert(sizeof(T) == 0,
                      "parley: this type cannot be read by a template: describe it with BOOST_DESCRIBE_STRUCT, "
                      "or pass a boost::json::value");
        return value();
    }
}

}  // namespace parley::jinja::detail

#endif
