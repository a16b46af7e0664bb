// parley/jinja/detail/ct/scope.hpp: scopes of the generated code: the context, variables bound by
// `for` and `set`, `loop`, typed namespaces.
#ifndef PARLEY_JINJA_DETAIL_CT_SCOPE_HPP
#define PARLEY_JINJA_DETAIL_CT_SCOPE_HPP

#include <parley/fixed_string.hpp>
#include <parley/jinja.hpp>
#include <parley/jinja/detail/builtins.hpp>
#include <parley/jinja/detail/cpp_view.hpp>
#include <parley/jinja/detail/ct_program.hpp>
#include <parley/jinja/detail/ops.hpp>
#include <parley/type_name.hpp>

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace parley::jinja::detail::ct {

/// The result of an expression the generated code does not compute (it is not in the
/// compiled subset, or its type is only known at run time).
struct unknown_t {};

// ---- scopes (run time) ---------------------------------------------------------------------------

/// The outermost scope: the context object.
template <class Ctx>
struct root_scope {
    const Ctx& ctx;
};
/// A variable bound by `for` or `set`: symbol Sym is the object v.
template <std::uint32_t Sym, class T, class Up>
struct bound {
    static constexpr std::uint32_t sym = Sym;
    using type = T;
    const T& v;
    const Up& up;
};
/// What `loop` is in a compiled for loop.
struct loop_info {
    std::size_t index0;
    std::size_t length;
};

/// What `namespace(a=..., b=...)` is in the generated code: attribute Syms[k] holds a T[k]
/// (strings as std::string, integers as std::int64_t, booleans), changed by `set ns.a = ...`.
template <std::uint32_t... Syms>
struct attribute_symbols {};
template <class Attrs, class... T>
struct typed_namespace {
    mutable std::tuple<T...> values;
};
template <class T>
struct is_typed_namespace : std::false_type {};
template <class A, class... T>
struct is_typed_namespace<typed_namespace<A, T...>> : std::true_type {};

/// The index of attribute symbol S in a typed namespace, or -1.
template <std::uint32_t S, std::uint32_t... Syms>
constexpr int attribute_index(attribute_symbols<Syms...>) {
    constexpr std::uint32_t syms[] = {Syms..., none};
    for (std::size_t k = 0; k < sizeof...(Syms); ++k)
        if (syms[k] == S) return static_cast<int>(k);
    return -1;
}

/// `seq[k]` with an integer literal k: the element, or none when k is out of range (then it
/// is Jinja's undefined: printed as nothing, false, not defined, an error when read further).
template <class T>
struct item_of {
    using value_type = T;
    const T* p;
    std::int64_t index;  // as written, for the message of a read past the end
    const char* hint = nullptr;  // the message instead (`first` and `last` of an empty sequence)
    bool has_value() const noexcept { return p != nullptr; }
    const T& operator*() const noexcept { return *p; }
};
template <class T>
struct is_item_of : std::false_type {};
template <class T>
struct is_item_of<item_of<T>> : std::true_type {};

/// The text of `x | tojson`. The run-time engine makes it Markup, whose `+` would escape the
/// other operand: the generated code only prints it, binds it and tests its truth.
struct json_markup {
    std::string text;
};

template <class E>
struct is_bound : std::false_type {};
template <std::uint32_t S, class T, class U>
struct is_bound<bound<S, T, U>> : std::true_type {};

template <class E>
struct root_of {
    using type = E;
};
template <std::uint32_t S, class T, class U>
struct root_of<bound<S, T, U>> : root_of<U> {};

}  // namespace parley::jinja::detail::ct

#endif
