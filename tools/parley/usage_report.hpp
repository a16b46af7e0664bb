// What `parley chat --usage` and `parley run --usage` print: the tokens, requests and cost of
// the work, on standard error.
#ifndef PARLEY_TOOLS_USAGE_REPORT_HPP
#define PARLEY_TOOLS_USAGE_REPORT_HPP

#include <parley/bot/usage.hpp>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>

namespace parley_cli {

/// `n` with a comma every three digits (12,345).
inline std::string grouped(std::int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

/// Dollars with four significant digits after the leading zeros of a small amount ($0.001234).
inline std::string dollars(double d) {
    char text[64];
    if (d == 0) return "$0";
    if (d >= 1) std::snprintf(text, sizeof text, "$%.2f", d);
    else if (d >= 0.01) std::snprintf(text, sizeof text, "$%.4f", d);
    else std::snprintf(text, sizeof text, "$%.6f", d);
    return text;
}

/// One line per model and, when there are several, a total line:
/// `usage: gpt-4o-mini: 2 requests, 1,234 input tokens (1,024 cached), 56 output tokens; $0.000441`.
inline void print_usage(std::ostream& out, const parley::usage_summary& usage, const parley::model_catalog& catalog) {
    auto line = [&](const parley::model_usage& u, const std::string& name, std::optional<double> cost, bool priced) {
        out << "usage: " << name << ": " << u.requests << (u.requests == 1 ? " request" : " requests");
        if (u.failed != 0) out << " (" << u.failed << " failed)";
        if (u.attempts > u.requests) out << ", " << u.attempts << " attempts";
        out << ", " << grouped(u.input_tokens) << (u.input_tokens == 1 ? " input token" : " input tokens");
        if (u.cached_input_tokens != 0 || u.cache_write_tokens != 0) {
            out << " (";
            if (u.cached_input_tokens != 0) out << grouped(u.cached_input_tokens) << " cached";
            if (u.cached_input_tokens != 0 && u.cache_write_tokens != 0) out << ", ";
            if (u.cache_write_tokens != 0) out << grouped(u.cache_write_tokens) << " written to the cache";
            out << ")";
        }
        out << ", " << grouped(u.output_tokens) << (u.output_tokens == 1 ? " output token" : " output tokens");
        if (u.reasoning_tokens != 0) out << " (" << grouped(u.reasoning_tokens) << " reasoning)";
        if (u.unreported != 0) out << "; " << u.unreported << (u.unreported == 1 ? " reply" : " replies") << " without counts";
        if (cost) out << "; " << dollars(*cost);
        else if (!priced) out << "; no price known";
        out << '\n';
    };
    for (const auto& u : usage.models) {
        const auto prices = catalog.prices(u.model);
        const bool counted = u.input_tokens != 0 || u.output_tokens != 0;
        line(u, u.model.empty() ? std::string("(no model name)") : u.model,
             prices ? std::optional<double>(parley::cost_of(u, *prices)) : std::nullopt, prices.has_value() || !counted);
    }
    if (usage.models.size() > 1) {
        const auto cost = usage.cost(catalog);
        line(usage.total(), "total", cost.dollars, true);
        if (!cost.complete()) out << "usage: the total leaves out the models without a price\n";
    }
    if (usage.models.empty()) out << "usage: no requests\n";
    else if (!catalog.read_on().empty()) out << "usage: prices as published on " << catalog.read_on() << '\n';
}

}  // namespace parley_cli

#endif
