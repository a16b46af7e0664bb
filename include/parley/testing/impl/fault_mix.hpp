// parley/testing/impl/fault_mix.hpp: the fake server's load-test faults: the fault mix (a share
// of the chat requests answered by a fault drawn at random) and the request limit with the real
// APIs' rate-limit header fields. Included by impl/fake_server.hpp, which calls fault_injector
// from its answer.
#ifndef PARLEY_TESTING_IMPL_FAULT_MIX_HPP
#define PARLEY_TESTING_IMPL_FAULT_MIX_HPP

#include <parley/testing/fake_server.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace parley::testing {

PARLEY_DECL std::vector<fake_step> fake_standard_faults() {
    std::vector<fake_step> f;
    f.push_back(fake_step::http_status(429, {{"retry-after-ms", "20"},
                                             {"x-ratelimit-remaining-requests", "0"},
                                             {"x-ratelimit-reset-requests", "20ms"}}));
    f.push_back(fake_step::http_status(500));
    f.push_back(fake_step::http_status(503));
    f.push_back(fake_step::with_fault(fake_fault::disconnect));
    f.push_back(fake_step::with_fault(fake_fault::disconnect, 24));
    f.push_back(fake_step::with_fault(fake_fault::stall));
    f.push_back(fake_step::with_fault(fake_fault::stall, 24));
    return f;
}

namespace detail {

/// splitmix64: the draws of a fault mix, from its seed and a request's rank.
inline std::uint64_t mix_bits(std::uint64_t x) noexcept {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/// An RFC 3339 time in UTC with milliseconds ("2025-01-02T03:04:05.678Z").
inline std::string rfc3339(std::chrono::system_clock::time_point t) {
    using namespace std::chrono;
    const auto ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    ::gmtime_r(&secs, &tm);
    char text[96];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
    return text;
}

/// The fault mix and the request limit of a script, consulted before each chat request takes a
/// step. Thread-safe.
class fault_injector {
public:
    using entry_ptr = std::shared_ptr<script_entry>;
    using header_list = std::vector<std::pair<std::string, std::string>>;

    /// Takes the mix and the limit of `script`; `make` turns a step into an entry.
    template <class Make>
    void configure(const fake_script& script, Make&& make) {
        auto mix = std::make_shared<mix_state>();
        mix->rate = std::clamp(script.fault_mix.rate, 0.0, 1.0);
        mix->seed = script.fault_mix.seed;
        if (mix->rate > 0) {
            std::vector<fake_step> steps = script.fault_mix.faults.empty() ? fake_standard_faults() : script.fault_mix.faults;
            for (auto& s : steps) mix->faults.push_back(make(std::move(s)));
        }
        if (script.rate_limit.requests > 0) mix->over_limit = make(fake_step::http_status(429));
        std::lock_guard lock(mutex_);
        if (mix->rate > 0 || mix->over_limit) mix_ = std::move(mix);
        else mix_ = nullptr;  // nothing to do: requests do not take the lock
        limit_ = script.rate_limit;
        window_end_ = {};
        used_ = 0;
        rank_ = 0;
        active_.store(mix_ != nullptr, std::memory_order_release);
    }

    /// For a request on a chat route: an entry that answers it instead of the script (the
    /// limit's 429, or a drawn fault), or null. Appends the limit's header fields to `fields`
    /// (the fields of a 429 of the limit go into `fields` too, under the step's own).
    entry_ptr before_step(bool anthropic, header_list& fields) {
        if (!active_.load(std::memory_order_acquire)) return nullptr;
        std::shared_ptr<const mix_state> mix;
        bool over = false;
        std::uint64_t rank = 0;
        {
            std::lock_guard lock(mutex_);
            mix = mix_;
            if (!mix) return nullptr;
            rank = rank_++;
            if (limit_.requests > 0) {
                const auto now = std::chrono::steady_clock::now();
                if (now >= window_end_) {
                    window_end_ = now + limit_.window;
                    used_ = 0;
                }
                over = used_ >= limit_.requests;
                if (!over) ++used_;
                // rounded up: a client that waits this long finds the window over
                const auto left = std::chrono::ceil<std::chrono::milliseconds>(window_end_ - now);
                const std::string remaining = std::to_string(limit_.requests - used_);
                const std::string limit = std::to_string(limit_.requests);
                if (anthropic) {
                    fields.emplace_back("anthropic-ratelimit-requests-limit", limit);
                    fields.emplace_back("anthropic-ratelimit-requests-remaining", remaining);
                    fields.emplace_back("anthropic-ratelimit-requests-reset",
                                        rfc3339(std::chrono::system_clock::now() + left));
                } else {
                    fields.emplace_back("x-ratelimit-limit-requests", limit);
                    fields.emplace_back("x-ratelimit-remaining-requests", remaining);
                    fields.emplace_back("x-ratelimit-reset-requests", std::to_string(left.count()) + "ms");
                }
                if (over && limit_.retry_after) fields.emplace_back("retry-after-ms", std::to_string(std::max<std::int64_t>(1, left.count())));
            }
        }
        if (over) return mix->over_limit;
        if (mix->rate <= 0 || mix->faults.empty()) return nullptr;
        const std::uint64_t bits = mix_bits(mix->seed ^ mix_bits(rank));
        const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
        if (u >= mix->rate) return nullptr;
        const std::uint64_t pick = mix_bits(bits) % mix->faults.size();
        return mix->faults[static_cast<std::size_t>(pick)];
    }

private:
    struct mix_state {
        double rate = 0;
        std::uint64_t seed = 1;
        std::vector<entry_ptr> faults;
        entry_ptr over_limit;
    };

    std::atomic<bool> active_{false};
    std::mutex mutex_;
    std::shared_ptr<const mix_state> mix_;
    fake_rate_limit limit_;
    std::chrono::steady_clock::time_point window_end_{};
    std::size_t used_ = 0;
    std::uint64_t rank_ = 0;
};

}  // namespace detail

}  // namespace parley::testing

#endif
