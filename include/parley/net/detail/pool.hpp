// parley/net/detail/pool.hpp: connections kept open per (scheme, host, port, proxy), a cap on
// how many are open at once, and the leases that hand one to a call.
#ifndef PARLEY_NET_DETAIL_POOL_HPP
#define PARLEY_NET_DETAIL_POOL_HPP

#include <parley/net/detail/pool_counters.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace parley::net::detail {


class connection;

/// The time limit of a connection's I/O. One timer per connection: each read or write only
/// records its deadline (`watch_io`), and the timer, when it fires, closes the socket if the I/O
/// under way has passed its deadline, or waits again until the current one. The timer is armed
/// only when the wait pending (if any) ends later than the new deadline: deadlines of successive
/// reads grow, so a wait armed by an earlier read, or by an earlier call on the same connection,
/// rarely needs moving. (Arming Asio's earliest timer is a timerfd_settime system call.) When
/// the connection goes back to the pool (`park_watch`), the pending wait is cancelled after the
/// handler under way returns, if the connection is still idle then: a call that takes it at once
/// (the next call of a loop) keeps the wait, and an idle connection keeps no wait pending (an
/// io_context with nothing else to do returns from run()). Shared with the pending wait and the
/// pending check, which may outlive the connection.
struct io_watch {
    explicit io_watch(const boost::asio::any_io_executor& ex) : timer(ex) {}
    boost::asio::steady_timer timer;
    connection* owner = nullptr;  ///< null once the connection is gone
    clock::time_point armed_for = clock::time_point::max();  ///< when the pending wait ends; max: none
    clock::time_point deadline = clock::time_point::max();  ///< of the I/O under way; max: none
    std::uint64_t generation = 0;  ///< of the pending wait; a wait replaced by an earlier one is ignored
    bool expired = false;  ///< the I/O under way passed its deadline and the socket was closed
    bool parked = false;  ///< the connection is idle in the pool: its pending wait is to be cancelled
    bool check_posted = false;  ///< a check that cancels the wait of a parked connection is pending

    /// Cancels the pending wait, if any; its handler then does nothing.
    void stop() noexcept {
        deadline = clock::time_point::max();
        if (armed_for == clock::time_point::max()) return;
        armed_for = clock::time_point::max();
        ++generation;
        try {
            timer.cancel();
        } catch (...) {
        }
    }
};

/// One HTTP/1.1 connection. Plain connections use the TCP stream under the (unused) TLS layer,
/// so that one type serves both.
class connection {
public:
    connection(const boost::asio::any_io_executor& ex, boost::asio::ssl::context& ctx)
        : stream(ex, ctx), watch_(std::make_shared<io_watch>(ex)) {
        watch_->owner = this;
    }
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;
    ~connection() {
        watch_->owner = nullptr;
        stop_watch();
    }

    boost::beast::ssl_stream<boost::beast::tcp_stream> stream;
    boost::beast::flat_buffer buffer;  ///< bytes read and not yet parsed
    std::string head;  ///< the request line and header fields of the request being sent
    bool tls = false;
    bool reused = false;  ///< it has carried a request before
    clock::time_point returned_at{};  ///< when it was last given back to the pool
    std::string verify_problem;  ///< why the server's certificate was refused, when it was

    boost::beast::tcp_stream& tcp() noexcept { return stream.next_layer(); }

    /// Starts the time limit of one read or write: past `deadline`, the socket is closed (the
    /// I/O then fails, and `io_expired` says why).
    void watch_io(clock::time_point deadline) {
        auto& w = *watch_;
        w.deadline = deadline;
        w.expired = false;
        if (deadline < w.armed_for) arm(watch_, deadline);
    }
    /// Ends the time limit of the I/O started last.
    void unwatch_io() noexcept { watch_->deadline = clock::time_point::max(); }
    /// True when the last I/O was stopped by its deadline.
    bool io_expired() const noexcept { return watch_->expired; }
    /// When the pending wait of the time limits ends; time_point::max() when none is pending.
    clock::time_point watch_armed_for() const noexcept { return watch_->armed_for; }
    /// Cancels the pending wait of the time limits at once (the connection is closed).
    void stop_watch() noexcept { watch_->stop(); }
    /// The connection goes back to the pool: no I/O is under way, and the pending wait of the
    /// time limits is cancelled after the handler under way returns, unless a call has taken the
    /// connection again by then (`unpark_watch`).
    void park_watch() {
        auto& w = *watch_;
        w.deadline = clock::time_point::max();
        w.parked = true;
        if (w.armed_for == clock::time_point::max() || w.check_posted) return;
        w.check_posted = true;
        boost::asio::post(w.timer.get_executor(), parked_check{watch_});
    }
    /// A call takes the connection from the pool: a wait still pending is kept for its I/O.
    void unpark_watch() noexcept { watch_->parked = false; }

    /// True when an idle connection can carry a request: the peer has not closed it and has sent
    /// nothing unasked (a TLS close_notify, a stray byte). Never blocks.
    bool looks_alive() noexcept {
        auto& socket = tcp().socket();
        if (!socket.is_open()) return false;
        char byte = 0;
        const auto n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }

    void close() noexcept {
        stop_watch();
        boost::system::error_code ignored;
        tcp().socket().shutdown(boost::asio::socket_base::shutdown_both, ignored);
        tcp().socket().close(ignored);
    }

private:
    struct parked_check {
        std::shared_ptr<io_watch> w;
        void operator()() const {
            w->check_posted = false;
            if (w->parked) w->stop();
        }
    };

    struct watch_fired {
        std::shared_ptr<io_watch> w;
        std::uint64_t generation;
        void operator()(const boost::system::error_code&) const {
            if (generation != w->generation) return;  // replaced by an earlier deadline
            w->armed_for = clock::time_point::max();
            if (!w->owner || w->deadline == clock::time_point::max()) return;  // gone, or no I/O under way
            if (clock::now() >= w->deadline) {
                w->expired = true;
                w->owner->close();
            } else {
                arm(w, w->deadline);
            }
        }
    };

    static void arm(const std::shared_ptr<io_watch>& w, clock::time_point at) {
        w->armed_for = at;
        w->timer.expires_at(at);  // cancels a pending wait, whose handler then sees a newer generation
        w->timer.async_wait(watch_fired{w, ++w->generation});
    }

    std::shared_ptr<io_watch> watch_;
};

/// The shared state of a pool. Leases hold it by shared_ptr, so a connection can be returned
/// after the client that made it is gone.
class pool_state {
public:
    explicit pool_state(std::size_t cap) : cap_(cap == 0 ? 1 : cap) {}

    struct waiter {
        explicit waiter(const boost::asio::any_io_executor& ex) : timer(ex) {}
        boost::asio::steady_timer timer;
        bool woken = false;
    };

    /// What `try_take` found: a kept-alive connection, a free slot for a new one, or neither
    /// (then `wait` holds a waiter to wait on).
    struct take_result {
        std::unique_ptr<connection> idle;
        bool slot = false;
        std::shared_ptr<waiter> wait;
    };

    /// A kept-alive connection for `key`, when one is idle and alive (the dead ones found on the
    /// way are closed); null otherwise.
    std::unique_ptr<connection> take_idle(const std::string& key) {
        std::lock_guard lock(mutex_);
        return take_idle(hosts_[key]);
    }

    take_result try_take(const std::string& key, const boost::asio::any_io_executor& ex) {
        std::lock_guard lock(mutex_);
        auto& h = hosts_[key];
        take_result r;
        if ((r.idle = take_idle(h))) return r;
        if (h.open < cap_) {
            ++h.open;
            ++counters_.opened;
            r.slot = true;
            return r;
        }
        r.wait = std::make_shared<waiter>(ex);
        r.wait->timer.expires_at(boost::asio::steady_timer::time_point::max());
        h.waiters.push_back(r.wait);
        return r;
    }

    /// Removes a waiter that gave up (cancelled); passes on a wake-up it had already received.
    void forget(const std::string& key, const std::shared_ptr<waiter>& w) {
        std::lock_guard lock(mutex_);
        auto& h = hosts_[key];
        for (auto it = h.waiters.begin(); it != h.waiters.end(); ++it)
            if (*it == w) {
                h.waiters.erase(it);
                return;
            }
        if (w->woken) wake_one(h);
    }

    /// A kept-alive connection turned out dead when its request was sent: it did not serve the call.
    void count_dead_reused() {
        std::lock_guard lock(mutex_);
        ++counters_.discarded_idle;
        if (counters_.reused != 0) --counters_.reused;
    }

    /// A healthy connection goes back to the idle list.
    void give_back(const std::string& key, std::unique_ptr<connection> c) {
        std::lock_guard lock(mutex_);
        auto& h = hosts_[key];
        c->reused = true;
        c->park_watch();
        c->returned_at = clock::now();
        h.idle.push_back(std::move(c));
        wake_one(h);
    }

    /// A connection (or a slot that never became one) is gone.
    void release_slot(const std::string& key) {
        std::lock_guard lock(mutex_);
        auto& h = hosts_[key];
        --h.open;
        wake_one(h);
    }

    pool_counters counters() const {
        std::lock_guard lock(mutex_);
        pool_counters c = counters_;
        c.open = c.idle = c.waiting = 0;
        for (const auto& [key, h] : hosts_) {
            c.open += h.open;
            c.idle += h.idle.size();
            c.waiting += h.waiters.size();
        }
        return c;
    }

    /// Closes every idle connection.
    void close_idle() {
        std::lock_guard lock(mutex_);
        for (auto& [key, h] : hosts_) {
            for (auto& c : h.idle) c->close();
            h.open -= h.idle.size();
            h.idle.clear();
            while (!h.waiters.empty() && h.open < cap_) wake_one(h);
        }
    }

private:
    struct host {
        std::vector<std::unique_ptr<connection>> idle;
        std::size_t open = 0;
        std::deque<std::shared_ptr<waiter>> waiters;
    };

    std::unique_ptr<connection> take_idle(host& h) {
        while (!h.idle.empty()) {
            auto c = std::move(h.idle.back());
            h.idle.pop_back();
            // One given back moments ago is taken as it is (servers keep idle connections for
            // seconds): should it have died, its request fails before any reply and is made
            // again on a new connection, without counting as a retry.
            if (clock::now() - c->returned_at < std::chrono::seconds(1) || c->looks_alive()) {
                ++counters_.reused;
                c->unpark_watch();
                return c;
            }
            c->close();
            --h.open;
            ++counters_.discarded_idle;
        }
        return nullptr;
    }

    void wake_one(host& h) {
        if (h.waiters.empty()) return;
        auto w = std::move(h.waiters.front());
        h.waiters.pop_front();
        w->woken = true;
        auto ex = w->timer.get_executor();
        boost::asio::post(ex, [w = std::move(w)] { w->timer.cancel(); });
    }

    mutable std::mutex mutex_;
    std::unordered_map<std::string, host> hosts_;
    std::size_t cap_;
    pool_counters counters_;
};

/// The right to use one connection slot of a pool: a connection to use (kept-alive or new) or
/// a slot to fill. Dropping a lease closes its connection and frees the slot; `give_back`
/// keeps the connection for the next call.
class lease {
public:
    lease() = default;
    lease(std::shared_ptr<pool_state> pool, std::string key, std::unique_ptr<connection> c)
        : pool_(std::move(pool)), key_(std::move(key)), conn_(std::move(c)) {}
    lease(lease&& o) noexcept = default;
    lease& operator=(lease&& o) noexcept {
        if (this != &o) {
            drop();
            pool_ = std::move(o.pool_);
            key_ = std::move(o.key_);
            conn_ = std::move(o.conn_);
        }
        return *this;
    }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    ~lease() { drop(); }

    explicit operator bool() const noexcept { return pool_ != nullptr; }
    connection& conn() noexcept { return *conn_; }
    bool has_connection() const noexcept { return conn_ != nullptr; }
    void set_connection(std::unique_ptr<connection> c) { conn_ = std::move(c); }

    /// Returns a connection that finished a reply cleanly and may be reused.
    void give_back() {
        if (!pool_) return;
        pool_->give_back(key_, std::move(conn_));
        pool_.reset();
    }
    /// Closes the connection and frees the slot.
    void drop() noexcept {
        if (!pool_) return;
        if (conn_) conn_->close();
        conn_.reset();
        try {
            pool_->release_slot(key_);
        } catch (...) {
        }
        pool_.reset();
    }

private:
    std::shared_ptr<pool_state> pool_;
    std::string key_;
    std::unique_ptr<connection> conn_;
};

}  // namespace parley::net::detail

#endif
