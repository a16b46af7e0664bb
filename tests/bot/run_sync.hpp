// A coroutine of the bot tests run to its end on a fresh io_context (shared by the test files,
// which may be compiled together in one unity translation unit).
#ifndef PARLEY_TESTS_BOT_RUN_SYNC_HPP
#define PARLEY_TESTS_BOT_RUN_SYNC_HPP

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <utility>

namespace bot_tests {

/// Runs `a` on a fresh io_context (one thread) and returns its result, or throws its exception.
template <class T>
T run_sync(boost::asio::awaitable<T> a) {
    boost::asio::io_context io;
    auto f = boost::asio::co_spawn(io, std::move(a), boost::asio::use_future);
    io.run();
    return f.get();
}

}  // namespace bot_tests

#endif
