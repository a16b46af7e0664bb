// parley/bot/usage.hpp: the tokens, requests and cost of a whole run: every ai-style call and
// every bot run adds the usage of each request it makes to a usage_summary (options' `usage`),
// and a model catalog's prices turn it into dollars.
#ifndef PARLEY_BOT_USAGE_HPP
#define PARLEY_BOT_USAGE_HPP

#include <parley/bot/models.hpp>
#include <parley/provider/reply.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley {

/// The usage of one model over the requests of a run.
struct model_usage {
    std::string model;  ///< the model's name as the replies give it (the request's when they do not)
    std::int64_t input_tokens = 0;  ///< every input token, cached ones included
    std::int64_t cached_input_tokens = 0;  ///< input tokens read from the prompt cache
    std::int64_t cache_write_tokens = 0;  ///< input tokens written to the prompt cache (Anthropic)
    std::int64_t output_tokens = 0;  ///< every output token, reasoning ones included
    std::int64_t reasoning_tokens = 0;  ///< output tokens spent on reasoning
    std::size_t requests = 0;  ///< requests made, failed ones included
    std::size_t failed = 0;  ///< requests that failed (no reply)
    std::size_t attempts = 0;  ///< HTTP attempts, retries included (in-process models: one per request)
    std::size_t unreported = 0;  ///< replies that carried no token counts

    /// Adds the counts of `other` (not its name).
    model_usage& operator+=(const model_usage& other) noexcept {
        input_tokens += other.input_tokens;
        cached_input_tokens += other.cached_input_tokens;
        cache_write_tokens += other.cache_write_tokens;
        output_tokens += other.output_tokens;
        reasoning_tokens += other.reasoning_tokens;
        requests += other.requests;
        failed += other.failed;
        attempts += other.attempts;
        unreported += other.unreported;
        return *this;
    }
    friend bool operator==(const model_usage&, const model_usage&) = default;
};

/// What a run's usage costs.
struct usage_cost {
    double dollars = 0;  ///< the cost of the models that have prices
    std::vector<std::string> unpriced;  ///< models with tokens but no price in the catalog
    /// True when every model with tokens has a price.
    bool complete() const noexcept { return unpriced.empty(); }
};

/// The dollars `u` costs at `p` (per million tokens; cached and cache-written input at their own
/// prices when given, else at the input price).
inline double cost_of(const model_usage& u, const model_prices& p) noexcept {
    const std::int64_t plain = u.input_tokens - u.cached_input_tokens - u.cache_write_tokens;
    double c = static_cast<double>(plain > 0 ? plain : 0) * p.input;
    c += static_cast<double>(u.cached_input_tokens) * p.cached_input.value_or(p.input);
    c += static_cast<double>(u.cache_write_tokens) * p.cache_write.value_or(p.input);
    c += static_cast<double>(u.output_tokens) * p.output;
    return c / 1e6;
}

/// The tokens, requests and cost of a run, per model. Not thread-safe: one summary per run (or
/// guard it when runs on several threads share one).
struct usage_summary {
    std::vector<model_usage> models;  ///< in the order the models were first used

    /// Adds a reply to a request for `requested_model`: its token counts (OpenAI's
    /// `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`,
    /// Anthropic's `cache_read_input_tokens` and `cache_creation_input_tokens`) and attempts.
    void add(const chat_reply& reply, std::string_view requested_model) {
        model_usage& u = of(reply.model.empty() ? requested_model : std::string_view(reply.model));
        ++u.requests;
        u.attempts += reply.attempts == 0 ? 1 : reply.attempts;
        if (!reply.usage) {
            ++u.unreported;
            return;
        }
        const token_usage& t = *reply.usage;
        u.input_tokens += t.prompt_tokens;
        u.output_tokens += t.completion_tokens;
        u.cached_input_tokens += t.cached_tokens();
        u.cache_write_tokens += t.cache_creation_tokens();
        u.reasoning_tokens += t.reasoning_tokens();
    }

    /// Adds a request for `requested_model` that failed.
    void add(const call_error& e, std::string_view requested_model) {
        model_usage& u = of(requested_model);
        ++u.requests;
        ++u.failed;
        u.attempts += e.attempts == 0 ? 1 : e.attempts;
    }

    /// Adds every model of `other`.
    usage_summary& operator+=(const usage_summary& other) {
        for (const model_usage& m : other.models) of(m.model) += m;
        return *this;
    }

    /// The sum over every model (its `model` is empty).
    model_usage total() const noexcept {
        model_usage t;
        for (const model_usage& m : models) t += m;
        return t;
    }

    /// The cost at the catalog's prices.
    usage_cost cost(const model_catalog& catalog = model_catalog::builtin()) const {
        usage_cost c;
        for (const model_usage& m : models) {
            if (m.input_tokens == 0 && m.output_tokens == 0) continue;
            if (const auto p = catalog.prices(m.model)) c.dollars += cost_of(m, *p);
            else c.unpriced.push_back(m.model.empty() ? std::string("(unnamed model)") : m.model);
        }
        return c;
    }

    bool empty() const noexcept { return models.empty(); }
    friend bool operator==(const usage_summary&, const usage_summary&) = default;

private:
    model_usage& of(std::string_view model) {
        for (model_usage& m : models)
            if (m.model == model) return m;
        models.push_back(model_usage{});
        models.back().model = std::string(model);
        return models.back();
    }
};

namespace detail {

/// Adds the outcome of one request to `*usage` when it is not null.
template <class Result>
void count_usage(usage_summary* usage, const Result& reply, std::string_view requested_model) {
    if (!usage) return;
    if (reply) usage->add(*reply, requested_model);
    else usage->add(reply.error(), requested_model);
}

}  // namespace detail

}  // namespace parley

#endif
