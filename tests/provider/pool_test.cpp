// Tests of parley/net/detail/pool.hpp: the time limit of a connection's I/O (one timer, armed
// only when the wait pending ends later than the new deadline) across the pool's give-back and
// take, on loopback connections whose peer never sends a byte.
#include <parley/net/detail/pool.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <doctest/doctest.h>

#include <optional>

using namespace std::chrono_literals;

namespace {

namespace pool_asio = boost::asio;
using parley::net::detail::clock;
using parley::net::detail::connection;

/// A connection to a loopback listener that accepts it and never sends anything.
struct silent_peer {
    explicit silent_peer(pool_asio::io_context& io)
        : acceptor(io, {pool_asio::ip::make_address("127.0.0.1"), 0}),
          accepted(io),
          conn(std::make_unique<connection>(io.get_executor(), ctx)) {
        conn->tcp().socket().connect(acceptor.local_endpoint());
        acceptor.accept(accepted);
    }
    pool_asio::ip::tcp::acceptor acceptor;
    pool_asio::ip::tcp::socket accepted;
    pool_asio::ssl::context ctx{pool_asio::ssl::context::tls_client};
    std::unique_ptr<connection> conn;
};

/// A read that only the connection's time limit can end: when, and with what error.
struct limited_read {
    char byte = 0;
    std::optional<clock::time_point> ended;
    boost::system::error_code ec;

    void start(connection& c) {
        c.tcp().socket().async_read_some(pool_asio::buffer(&byte, 1),
                                         [this, &c](const boost::system::error_code& e, std::size_t) {
                                             ec = e;
                                             ended = clock::now();
                                             c.unwatch_io();
                                         });
    }
};

constexpr auto no_wait = clock::time_point::max();

}  // namespace

TEST_CASE("pool: the wait of a connection given back is cancelled once it is idle, so run() returns") {
    pool_asio::io_context io;
    silent_peer peer(io);
    auto& c = *peer.conn;
    c.watch_io(clock::now() + 10s);
    c.unwatch_io();
    REQUIRE(c.watch_armed_for() != no_wait);
    c.park_watch();
    CHECK(c.watch_armed_for() != no_wait);  // kept until the handler under way returns
    const auto start = clock::now();
    io.run_for(20s);
    CHECK(clock::now() - start < 5s);  // not the 10 s of the wait
    CHECK(c.watch_armed_for() == no_wait);
}

TEST_CASE("pool: given back, taken and given back again before the check runs: the wait is still cancelled") {
    pool_asio::io_context io;
    silent_peer peer(io);
    auto& c = *peer.conn;
    c.watch_io(clock::now() + 10s);
    c.unwatch_io();
    c.park_watch();
    c.unpark_watch();
    c.watch_io(clock::now() + 20s);
    c.unwatch_io();
    c.park_watch();
    const auto start = clock::now();
    io.run_for(30s);
    CHECK(clock::now() - start < 5s);
    CHECK(c.watch_armed_for() == no_wait);
}

TEST_CASE("pool: a call that takes a connection at once keeps its pending wait, and its limit still ends its read") {
    pool_asio::io_context io;
    silent_peer peer(io);
    auto pool = std::make_shared<parley::net::detail::pool_state>(1);
    REQUIRE(pool->try_take("k", io.get_executor()).slot);
    connection* c = peer.conn.get();
    parley::net::detail::lease held(pool, "k", nullptr);
    held.set_connection(std::move(peer.conn));

    const auto first = clock::now() + 200ms;
    c->watch_io(first);
    c->unwatch_io();
    held.give_back();
    auto again = pool->try_take("k", io.get_executor());
    REQUIRE(again.idle.get() == c);

    // The next read's deadline is later than the wait pending: no new wait is armed. The wait
    // ends first, finds the read's deadline not passed, and waits again until it.
    const auto second = clock::now() + 400ms;
    c->watch_io(second);
    CHECK(c->watch_armed_for() == first);
    limited_read read;
    read.start(*c);
    io.run_for(10s);
    REQUIRE(read.ended);
    CHECK(read.ec);
    CHECK(c->io_expired());
    CHECK(*read.ended >= second);
    CHECK(*read.ended - second < 3s);
}

TEST_CASE("pool: a wait pending for a later time is moved for a nearer deadline, which ends the read in time") {
    pool_asio::io_context io;
    silent_peer peer(io);
    auto& c = *peer.conn;
    c.watch_io(clock::now() + 30s);
    c.unwatch_io();
    c.park_watch();
    c.unpark_watch();
    const auto near = clock::now() + 100ms;
    c.watch_io(near);
    CHECK(c.watch_armed_for() == near);
    limited_read read;
    read.start(c);
    io.run_for(20s);
    REQUIRE(read.ended);
    CHECK(read.ec);
    CHECK(c.io_expired());
    CHECK(*read.ended >= near);
    CHECK(*read.ended - near < 3s);  // not the 30 s of the wait first armed
}
