// parley/bot/models.hpp: what parley knows of models by name: their context windows, their
// prices and the token counters configured for them. A catalog is a list of model-name prefixes;
// a model takes each figure from the longest prefix of its name that has it. parley ships a
// catalog of current models (model_catalog::builtin()); a JSON file of one's own extends or
// overrides it.
#ifndef PARLEY_BOT_MODELS_HPP
#define PARLEY_BOT_MODELS_HPP

#include <parley/bot/detail/builtin_models.hpp>
#include <parley/bot/tokens.hpp>
#include <parley/error.hpp>
#include <parley/schema/json_text.hpp>

#include <boost/json/value.hpp>

#include <cmath>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// The prices of a model's tokens, in US dollars per million tokens.
struct model_prices {
    double input = 0;  ///< input tokens (those not read from or written to a prompt cache)
    std::optional<double> cached_input;  ///< input tokens read from the prompt cache; none: `input`
    std::optional<double> cache_write;  ///< input tokens written to the prompt cache (Anthropic); none: `input`
    double output = 0;  ///< output tokens, reasoning tokens included
    friend bool operator==(const model_prices&, const model_prices&) = default;
};

/// What a catalog says of the models whose name starts with `prefix`.
struct model_entry {
    std::string prefix;  ///< lower case
    std::optional<std::size_t> context_window;  ///< tokens
    std::optional<model_prices> prices;
    std::optional<token_counter> counter;
};

namespace detail::models {

inline char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string lowered(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = lower(c);
    return out;
}

/// True when `prefix` (lower case) starts `name`, compared case-insensitively.
inline bool starts(std::string_view name, std::string_view prefix) noexcept {
    if (prefix.size() > name.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (lower(name[i]) != prefix[i]) return false;
    return true;
}

[[noreturn]] inline void bad(std::string_view source, const std::string& pointer, const std::string& what) {
    throw error(errc::invalid_argument,
                (source.empty() ? std::string("model catalog") : std::string(source)) + ": " + (pointer.empty() ? "/" : pointer) + ": " + what);
}

inline std::string found(const boost::json::value& v) {
    switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return v.get_bool() ? "true" : "false";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
    default: return "a number";
    }
}

/// A JSON pointer token (RFC 6901 escapes).
inline std::string pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

inline double price(const boost::json::value& v, std::string_view source, const std::string& pointer) {
    if (!v.is_number()) bad(source, pointer, "expected a price (a number of dollars per million tokens, at least 0), found " + found(v));
    const double d = v.to_number<double>();
    if (!(d >= 0) || !std::isfinite(d))
        bad(source, pointer, "expected a price (a number of dollars per million tokens, at least 0), found " + std::to_string(d));
    return d;
}

}  // namespace detail::models

/// Model names to context windows, prices and token counters. A figure of a model comes from
/// the longest prefix of its name that has that figure: "gpt-4o-mini-2024-07-18" takes the
/// figures of "gpt-4o-mini", and those it lacks from "gpt-4o" if that is listed. Names are
/// compared case-insensitively, whole and from after their last '/' ("openai/gpt-4o",
/// "meta-llama/Llama-3.1-8B-Instruct"). Copies are independent; a catalog that is not changed
/// may be read from several threads at once.
class model_catalog {
public:
    /// An empty catalog.
    model_catalog() = default;

    /// The catalog parley ships: the context windows of current OpenAI, Anthropic, Gemini,
    /// Llama, Qwen, DeepSeek and Mistral models and the prices of the OpenAI and Anthropic ones,
    /// as published on the providers' pages on builtin_read_on() (docs/bot.md lists the sources).
    static const model_catalog& builtin() {
        static const model_catalog shipped = from_json_text(detail::builtin_models_json, "parley's built-in model catalog");
        return shipped;
    }

    /// The date the figures of the built-in catalog were read (YYYY-MM-DD).
    static std::string_view builtin_read_on() { return builtin().read_on(); }

    /// A catalog from JSON: `{"read": "YYYY-MM-DD", "models": {"PREFIX": {"context_window": N,
    /// "input": X, "cached_input": X, "cache_write": X, "output": X}, ...}}` (prices in dollars
    /// per million tokens; every member optional, but a price needs both "input" and "output").
    /// Throws parley::error (errc::invalid_argument) naming `source` and the JSON pointer of what
    /// is wrong (an unknown member is an error: a misspelt price is not silently ignored).
    static model_catalog from_json(const boost::json::value& v, std::string_view source = {}) {
        namespace dm = detail::models;
        model_catalog c;
        if (!v.is_object()) dm::bad(source, "", "expected an object with \"models\", found " + dm::found(v));
        for (const auto& member : v.get_object()) {
            const std::string key(member.key());
            if (key == "read") {
                if (!member.value().is_string()) dm::bad(source, "/read", "expected a date (a string), found " + dm::found(member.value()));
                c.read_on_ = std::string(member.value().get_string());
            } else if (key == "sources" || key == "comment") {
                // free text for the reader of the file
            } else if (key == "models") {
                if (!member.value().is_object()) dm::bad(source, "/models", "expected an object of model-name prefixes, found " + dm::found(member.value()));
                for (const auto& m : member.value().get_object())
                    c.read_entry(std::string(m.key()), m.value(), source, "/models/" + dm::pointer_token(m.key()));
            } else {
                dm::bad(source, "/" + dm::pointer_token(key), "unknown member (expected \"read\", \"sources\", \"comment\" or \"models\")");
            }
        }
        return c;
    }

    /// The same from JSON text; a syntax error names its line and column.
    static model_catalog from_json_text(std::string_view text, std::string_view source = {}) {
        auto a = detail::json_text::parse_at(text, 0, text.size(), {}, true);
        if (a.error)
            throw error(errc::invalid_argument,
                        (source.empty() ? std::string("model catalog") : std::string(source)) + ": not valid JSON: " + a.error->message());
        return from_json(*a.value, source);
    }

    /// The catalog of a JSON file (see from_json). Throws parley::error naming the file.
    static model_catalog from_file(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw error(errc::invalid_argument, "cannot read the model catalog " + path);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        return from_json_text(text, path);
    }

    /// Adds the entries of `over`: a prefix both have takes the figures `over` gives, and keeps
    /// the others. Returns *this.
    model_catalog& merge(const model_catalog& over) {
        for (const model_entry& e : over.entries_) {
            model_entry& mine = entry(e.prefix);
            if (e.context_window) mine.context_window = e.context_window;
            if (e.prices) mine.prices = e.prices;
            if (e.counter) mine.counter = e.counter;
        }
        if (!over.read_on_.empty()) read_on_ = over.read_on_;
        return *this;
    }

    /// Sets the context window of the models whose name starts with `prefix`.
    model_catalog& set_context_window(std::string_view prefix, std::size_t tokens) {
        entry(prefix).context_window = tokens;
        return *this;
    }
    /// Sets the prices of the models whose name starts with `prefix`.
    model_catalog& set_prices(std::string_view prefix, model_prices prices) {
        entry(prefix).prices = prices;
        return *this;
    }
    /// Sets the token counter of the models whose name starts with `prefix` (an exact
    /// tokenizer's, for instance): the bot counts their requests with it.
    model_catalog& set_counter(std::string_view prefix, token_counter counter) {
        entry(prefix).counter = std::move(counter);
        return *this;
    }

    /// The context window of `model`, if a prefix of its name has one.
    std::optional<std::size_t> context_window(std::string_view model) const {
        const model_entry* e = best(model, [](const model_entry& x) { return x.context_window.has_value(); });
        return e ? e->context_window : std::nullopt;
    }
    /// The prices of `model`, if a prefix of its name has them.
    std::optional<model_prices> prices(std::string_view model) const {
        const model_entry* e = best(model, [](const model_entry& x) { return x.prices.has_value(); });
        return e ? e->prices : std::nullopt;
    }
    /// The token counter configured for `model`, if a prefix of its name has one.
    std::optional<token_counter> counter(std::string_view model) const {
        const model_entry* e = best(model, [](const model_entry& x) { return x.counter.has_value(); });
        return e ? e->counter : std::nullopt;
    }

    const std::vector<model_entry>& entries() const noexcept { return entries_; }
    /// The date the figures were read, as the JSON's "read" says ("" when it does not).
    const std::string& read_on() const noexcept { return read_on_; }

private:
    model_entry& entry(std::string_view prefix) {
        const std::string key = detail::models::lowered(prefix);
        for (model_entry& e : entries_)
            if (e.prefix == key) return e;
        entries_.push_back(model_entry{key, std::nullopt, std::nullopt, std::nullopt});
        return entries_.back();
    }

    template <class Has>
    const model_entry* best(std::string_view model, Has has) const {
        std::string_view tail = model;
        if (const std::size_t slash = model.rfind('/'); slash != std::string_view::npos) tail = model.substr(slash + 1);
        const model_entry* found = nullptr;
        for (const model_entry& e : entries_) {
            if (!has(e)) continue;
            if (!detail::models::starts(model, e.prefix) && !detail::models::starts(tail, e.prefix)) continue;
            if (!found || e.prefix.size() > found->prefix.size()) found = &e;
        }
        return found;
    }

    void read_entry(std::string prefix, const boost::json::value& v, std::string_view source, const std::string& at) {
        namespace dm = detail::models;
        if (prefix.empty()) dm::bad(source, at, "a model-name prefix may not be empty");
        if (!v.is_object()) dm::bad(source, at, "expected an object (context_window, input, cached_input, cache_write, output), found " + dm::found(v));
        model_entry e{dm::lowered(prefix), std::nullopt, std::nullopt, std::nullopt};
        std::optional<double> input, output, cached, write;
        for (const auto& f : v.get_object()) {
            const std::string key(f.key());
            const std::string where = at + "/" + dm::pointer_token(key);
            if (key == "context_window") {
                const auto* n = f.value().if_int64();
                const auto* u = f.value().if_uint64();
                if ((!n || *n < 1) && (!u || *u < 1))
                    dm::bad(source, where, "expected a number of tokens (an integer of at least 1), found " +
                                               (f.value().is_number() ? boost::json::serialize(f.value()) : dm::found(f.value())));
                e.context_window = n ? static_cast<std::size_t>(*n) : static_cast<std::size_t>(*u);
            } else if (key == "input") input = dm::price(f.value(), source, where);
            else if (key == "output") output = dm::price(f.value(), source, where);
            else if (key == "cached_input") cached = dm::price(f.value(), source, where);
            else if (key == "cache_write") write = dm::price(f.value(), source, where);
            else
                dm::bad(source, where, "unknown member (expected context_window, input, cached_input, cache_write or output)");
        }
        if (input || output || cached || write) {
            if (!input || !output)
                dm::bad(source, at, std::string("prices need both \"input\" and \"output\"; \"") + (input ? "output" : "input") + "\" is missing");
            e.prices = model_prices{*input, cached, write, *output};
        }
        for (const model_entry& x : entries_)
            if (x.prefix == e.prefix) dm::bad(source, at, "the prefix '" + e.prefix + "' is listed twice (names are compared case-insensitively)");
        entries_.push_back(std::move(e));
    }

    std::vector<model_entry> entries_;
    std::string read_on_;
};

}  // namespace parley

#endif
