// parley/net/detail/pool_counters.hpp: the clock of the HTTP client's time limits and the
// counters of its connection pool (light: no Asio, for the client's declaration).
#ifndef PARLEY_NET_DETAIL_POOL_COUNTERS_HPP
#define PARLEY_NET_DETAIL_POOL_COUNTERS_HPP

#include <chrono>
#include <cstddef>

namespace parley::net::detail {

using clock = std::chrono::steady_clock;

/// Counters of a pool, for tests and monitoring.
struct pool_counters {
    std::size_t opened = 0;  ///< connections made
    std::size_t reused = 0;  ///< calls served by a kept-alive connection
    std::size_t discarded_idle = 0;  ///< kept-alive connections found dead (when taken, or by their request)
    std::size_t open = 0;  ///< connections open now (idle or in use)
    std::size_t idle = 0;  ///< connections kept alive now
    std::size_t waiting = 0;  ///< calls waiting for a connection slot now
};

}  // namespace parley::net::detail

#endif
