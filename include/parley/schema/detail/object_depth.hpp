// parley/schema/detail/object_depth.hpp: levels of object nesting in a schema, for OpenAI's
// limit.
#ifndef PARLEY_SCHEMA_DETAIL_OBJECT_DEPTH_HPP
#define PARLEY_SCHEMA_DETAIL_OBJECT_DEPTH_HPP

#include <parley/config.hpp>
#include <parley/schema/traits.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace parley::detail {

template <std::size_t N>
constexpr std::size_t depth_from(std::size_t i, const std::array<std::array<bool, N>, N>& edge,
                                 std::array<std::size_t, N>& memo, std::array<bool, N>& on_path) {
    if (memo[i] != 0) return memo[i];
    on_path[i] = true;
    std::size_t deepest = 0;
    for (std::size_t j = 0; j != N; ++j) {
        if (edge[i][j] && !on_path[j]) {
            const std::size_t d = depth_from(j, edge, memo, on_path);
            if (d > deepest) deepest = d;
        }
    }
    on_path[i] = false;
    memo[i] = deepest + 1;
    return memo[i];
}

/// Levels of object nesting from the first struct of the mp11 list Structs (a struct closure,
/// see struct_closure_t), that struct being level 1: a member that is (or holds, through
/// optionals, arrays and variants) a described struct adds a level. A struct reached again
/// through recursion adds none (the recursion is not unrolled). Linear in the number of
/// member-to-struct edges.
template <class Structs>
constexpr std::size_t object_depth() {
    constexpr std::size_t n = boost::mp11::mp_size<Structs>::value;
    if constexpr (n == 0) {
        return 0;
    } else {
        std::array<std::array<bool, n>, n> edge{};
        boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto i) {
            using S = boost::mp11::mp_at_c<Structs, i>;
            boost::mp11::mp_for_each<boost::mp11::mp_transform<std::add_pointer_t, member_structs_t<S>>>([&](auto* t) {
                using U = std::remove_pointer_t<decltype(t)>;
                edge[i][boost::mp11::mp_find<Structs, U>::value] = true;
            });
        });
        std::array<std::size_t, n> memo{};
        std::array<bool, n> on_path{};
        return depth_from(0, edge, memo, on_path);
    }
}

}  // namespace parley::detail

#endif
