// parley/chat/detail/request_fields.hpp: the rules of the request parameters of today's models
// (reasoning_effort, thinking, metadata, extra, ...), in one place for rules.hpp (parley::check),
// the JSON and YAML readers and the constexpr builders: the words each takes, their sizes, and
// the sentence that says what a field takes.
#ifndef PARLEY_CHAT_DETAIL_REQUEST_FIELDS_HPP
#define PARLEY_CHAT_DETAIL_REQUEST_FIELDS_HPP

#include <parley/chat/request.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace parley::detail {

/// Words of the fields that take one of a list.
inline constexpr std::string_view reasoning_effort_words[] = {"none", "minimal", "low", "medium", "high", "xhigh", "max"};
inline constexpr std::string_view reasoning_summary_words[] = {"auto", "concise", "detailed"};
inline constexpr std::string_view verbosity_words[] = {"low", "medium", "high"};
inline constexpr std::string_view service_tier_words[] = {"auto", "default", "flex", "scale", "priority", "standard_only"};
inline constexpr std::string_view prompt_cache_retention_words[] = {"in_memory", "24h"};
inline constexpr std::string_view truncation_words[] = {"auto", "disabled"};
inline constexpr std::string_view thinking_type_words[] = {"enabled", "adaptive", "disabled"};
inline constexpr std::string_view thinking_display_words[] = {"summarized", "omitted"};
inline constexpr std::string_view cache_ttl_words[] = {"5m", "1h"};

/// The members `extra` may not set: they are the request parley builds.
inline constexpr std::string_view reserved_extra_keys[] = {"model", "messages", "input", "stream", "tools"};

/// The limits of `metadata` (OpenAI's).
inline constexpr std::size_t max_metadata_pairs = 16;
inline constexpr std::size_t max_metadata_key = 64;
inline constexpr std::size_t max_metadata_value = 512;
/// The smallest budget of Anthropic's extended thinking.
inline constexpr std::int64_t min_thinking_budget = 1024;

/// A list of words.
struct word_list {
    const std::string_view* first = nullptr;
    std::size_t size = 0;
    constexpr const std::string_view* begin() const noexcept { return first; }
    constexpr const std::string_view* end() const noexcept { return first + size; }
    constexpr bool contains(std::string_view w) const noexcept {
        for (auto x : *this)
            if (x == w) return true;
        return false;
    }
};
template <std::size_t N>
constexpr word_list words_of(const std::string_view (&a)[N]) noexcept {
    return {a, N};
}

/// The words parameter `key` takes; empty for a parameter that is not one of a list.
constexpr word_list choices_of(std::string_view key) noexcept {
    if (key == "reasoning_effort") return words_of(reasoning_effort_words);
    if (key == "reasoning_summary") return words_of(reasoning_summary_words);
    if (key == "verbosity") return words_of(verbosity_words);
    if (key == "service_tier") return words_of(service_tier_words);
    if (key == "prompt_cache_retention") return words_of(prompt_cache_retention_words);
    if (key == "truncation") return words_of(truncation_words);
    return {};
}

/// True when `value` is a word parameter `key` takes.
constexpr bool is_choice(std::string_view key, std::string_view value) noexcept { return choices_of(key).contains(value); }

/// "\"a\", \"b\" or \"c\"".
inline std::string quoted_words(word_list words) {
    std::string s;
    for (std::size_t i = 0; i < words.size; ++i) {
        if (i) s += i + 1 == words.size ? " or " : ", ";
        s += '"';
        s += words.first[i];
        s += '"';
    }
    return s;
}

/// True when `key` may not be set by `extra`.
constexpr bool is_reserved_extra_key(std::string_view key) noexcept {
    for (auto k : reserved_extra_keys)
        if (k == key) return true;
    return false;
}

/// True when a thinking configuration follows its rules.
constexpr bool thinking_ok(std::string_view type, bool has_budget, std::int64_t budget, bool has_display,
                           std::string_view display) noexcept {
    if (!words_of(thinking_type_words).contains(type)) return false;
    if ((type == "enabled") != has_budget) return false;
    if (has_budget && budget < min_thinking_budget) return false;
    if (has_display && (type == "disabled" || !words_of(thinking_display_words).contains(display))) return false;
    return true;
}

/// True when a cache_control follows its rules.
constexpr bool cache_control_ok(std::string_view type, bool has_ttl, std::string_view ttl) noexcept {
    return type == "ephemeral" && (!has_ttl || words_of(cache_ttl_words).contains(ttl));
}

/// True when one metadata pair follows the rules (the count is checked apart).
constexpr bool metadata_pair_ok(std::string_view key, std::string_view value) noexcept {
    return !key.empty() && key.size() <= max_metadata_key && value.size() <= max_metadata_value;
}

/// The sentence of a value a field does not take (chat_rule::bad_value).
inline std::string value_rule_sentence(std::string_view key) {
    const std::string q = "'" + std::string(key) + "'";
    if (const word_list w = choices_of(key); w.size) return q + " is " + quoted_words(w);
    if (key == "thinking")
        return "'thinking' is {type: enabled, budget_tokens: N} with N at least 1024, {type: adaptive} or "
               "{type: disabled}; 'display' (not with disabled) is \"summarized\" or \"omitted\"";
    if (key == "cache_control") return "'cache_control' is {type: ephemeral}, with an optional 'ttl' of \"5m\" or \"1h\"";
    if (key == "metadata")
        return "'metadata' has at most 16 pairs, each a key of 1 to 64 characters (given once) and a string value of at "
               "most 512";
    if (key == "extra")
        return "'extra' may not set 'model', 'messages', 'input', 'stream' or 'tools' (parley builds them from the request)";
    return q + " takes another value";
}

/// The first of the fields of today's models in `p` whose value breaks its rule (words, the
/// thinking configuration, cache_control, metadata, extra); empty when none. Numbers are
/// range_of's business (rules.hpp).
inline std::string_view first_bad_value(const request_params& p) {
    for (auto [key, value] : {std::pair<std::string_view, const std::optional<std::string>*>{"reasoning_effort", &p.reasoning_effort},
                              {"reasoning_summary", &p.reasoning_summary},
                              {"verbosity", &p.verbosity},
                              {"service_tier", &p.service_tier},
                              {"prompt_cache_retention", &p.prompt_cache_retention},
                              {"truncation", &p.truncation}})
        if (*value && !is_choice(key, **value)) return key;
    if (p.thinking &&
        !thinking_ok(p.thinking->type, p.thinking->budget_tokens.has_value(), p.thinking->budget_tokens.value_or(0),
                     p.thinking->display.has_value(), p.thinking->display.value_or(std::string())))
        return "thinking";
    if (p.cache_control &&
        !cache_control_ok(p.cache_control->type, p.cache_control->ttl.has_value(), p.cache_control->ttl.value_or(std::string())))
        return "cache_control";
    if (p.metadata) {
        if (p.metadata->size() > max_metadata_pairs) return "metadata";
        for (std::size_t i = 0; i < p.metadata->size(); ++i) {
            const auto& [k, v] = (*p.metadata)[i];
            if (!metadata_pair_ok(k, v)) return "metadata";
            for (std::size_t j = 0; j < i; ++j)
                if ((*p.metadata)[j].first == k) return "metadata";
        }
    }
    if (p.extra)
        for (const auto& member : *p.extra)
            if (is_reserved_extra_key(member.key())) return "extra";
    return {};
}

}  // namespace parley::detail

#endif
