// parley/chat/request.hpp: the request parameters that default-request and request messages set.
#ifndef PARLEY_CHAT_REQUEST_HPP
#define PARLEY_CHAT_REQUEST_HPP

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace parley {

/// Stop sequences: one string or a list (kept as given, so that a template round-trips).
using stop_sequences = std::variant<std::string, std::vector<std::string>>;

/// Parameters of a chat request. Every field is optional: a `request` message overrides the
/// fields it sets on top of the nearest `default-request`.
struct request_params {
    std::optional<std::string> model;
    std::optional<std::int64_t> max_tokens;  ///< at least 1
    std::optional<double> temperature;  ///< 0 to 2
    std::optional<double> top_p;  ///< 0 to 1
    std::optional<stop_sequences> stop;  ///< up to 4 non-empty sequences
    std::optional<double> presence_penalty;  ///< -2 to 2
    std::optional<double> frequency_penalty;  ///< -2 to 2
    /// token id (decimal digits) -> bias from -100 to 100, in the order given
    std::optional<std::vector<std::pair<std::string, std::int64_t>>> logit_bias;
    std::optional<std::int64_t> seed;
    std::optional<std::int64_t> n;  ///< 1 to 128
    /// `{"type": "text"}`, `{"type": "json_object"}` or `{"type": "json_schema", "json_schema": {...}}`
    std::optional<boost::json::object> response_format;
    /// names of the functions the model may call (definitions live in the template set)
    std::optional<std::vector<std::string>> functions;
    /// "" calls none, "*" lets the model choose, a name forces that function
    std::optional<std::string> call_function;

    /// True when no field is set.
    bool empty() const noexcept { return *this == request_params{}; }

    /// Sets every field that `over` sets (fields `over` leaves unset keep their value).
    void override_with(const request_params& over) {
        auto take = [](auto& mine, const auto& theirs) {
            if (theirs) mine = theirs;
        };
        take(model, over.model);
        take(max_tokens, over.max_tokens);
        take(temperature, over.temperature);
        take(top_p, over.top_p);
        take(stop, over.stop);
        take(presence_penalty, over.presence_penalty);
        take(frequency_penalty, over.frequency_penalty);
        take(logit_bias, over.logit_bias);
        take(seed, over.seed);
        take(n, over.n);
        take(response_format, over.response_format);
        take(functions, over.functions);
        take(call_function, over.call_function);
    }

    friend bool operator==(const request_params&, const request_params&) = default;
};

/// Names of the request parameters as written in YAML and JSON, in the order of the struct.
inline constexpr std::string_view request_param_names[] = {
    "model", "max_tokens", "temperature", "top_p",  "stop",      "presence_penalty", "frequency_penalty",
    "logit_bias", "seed", "n",           "response_format", "functions", "call_function"};

/// True when `key` names a request parameter.
constexpr bool is_request_param(std::string_view key) noexcept {
    for (auto n : request_param_names)
        if (n == key) return true;
    return false;
}

/// The name of the first parameter `p` sets, in the order of request_param_names; empty when none.
inline std::string_view first_set_param(const request_params& p) noexcept {
    const bool set[] = {p.model.has_value(),      p.max_tokens.has_value(),       p.temperature.has_value(),
                        p.top_p.has_value(),      p.stop.has_value(),             p.presence_penalty.has_value(),
                        p.frequency_penalty.has_value(), p.logit_bias.has_value(), p.seed.has_value(),
                        p.n.has_value(),          p.response_format.has_value(), p.functions.has_value(),
                        p.call_function.has_value()};
    static_assert(std::size(set) == std::size(request_param_names));
    for (std::size_t i = 0; i < std::size(set); ++i)
        if (set[i]) return request_param_names[i];
    return {};
}

}  // namespace parley

#endif
