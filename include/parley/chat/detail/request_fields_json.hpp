// parley/chat/detail/request_fields_json.hpp: the request parameters of today's models and the
// reasoning of assistant messages as JSON, read and written in one place for JSON histories
// (parley/chat/json.hpp) and YAML files (the YAML loader and writer take the same values).
#ifndef PARLEY_CHAT_DETAIL_REQUEST_FIELDS_JSON_HPP
#define PARLEY_CHAT_DETAIL_REQUEST_FIELDS_JSON_HPP

#include <parley/chat/detail/request_fields.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/request.hpp>
#include <parley/chat/rules.hpp>
#include <parley/detail/json_kind.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::detail {

/// A value that does not fit a field: where it is, as a JSON pointer relative to the field's
/// value ("" for the value itself, "/budget_tokens"), and the sentence that says what is wrong.
struct field_value_error {
    std::string pointer;
    std::string message;
};

/// Reads the fields of request_params added for today's models from JSON values (the YAML
/// loader gives its values as JSON too). Throws field_value_error.
class request_field_reader {
public:
    /// Reads field `key` into `p`; false when `key` is not one of these fields.
    bool read(request_params& p, std::string_view key, const boost::json::value& v) const {
        if (key == "max_completion_tokens") p.max_completion_tokens = integer(v);
        else if (key == "top_k") p.top_k = integer(v);
        else if (key == "top_logprobs") p.top_logprobs = integer(v);
        else if (key == "logprobs") p.logprobs = boolean(v);
        else if (key == "parallel_tool_calls") p.parallel_tool_calls = boolean(v);
        else if (key == "store") p.store = boolean(v);
        else if (key == "reasoning_effort") p.reasoning_effort = word(key, v);
        else if (key == "reasoning_summary") p.reasoning_summary = word(key, v);
        else if (key == "verbosity") p.verbosity = word(key, v);
        else if (key == "service_tier") p.service_tier = word(key, v);
        else if (key == "prompt_cache_retention") p.prompt_cache_retention = word(key, v);
        else if (key == "truncation") p.truncation = word(key, v);
        else if (key == "prediction") p.prediction = string(v);
        else if (key == "user") p.user = string(v);
        else if (key == "safety_identifier") p.safety_identifier = string(v);
        else if (key == "prompt_cache_key") p.prompt_cache_key = string(v);
        else if (key == "thinking") p.thinking = thinking(v);
        else if (key == "cache_control") p.cache_control = cache(v);
        else if (key == "metadata") p.metadata = metadata(v);
        else if (key == "extra") p.extra = extra(v);
        else return false;
        return true;
    }

    /// "a string", "an integer", ... for messages.
    static const char* kind(const boost::json::value& v) noexcept { return parley::detail::json_kind_name(v); }

private:
    [[noreturn]] static void fail(std::string message, std::string pointer = {}) {
        throw field_value_error{std::move(pointer), std::move(message)};
    }
    [[noreturn]] static void expected(const char* what, const boost::json::value& v, std::string pointer = {}) {
        fail(std::string("expected ") + what + ", found " + kind(v), std::move(pointer));
    }
    static std::string string(const boost::json::value& v, std::string pointer = {}) {
        if (!v.is_string()) expected("a string", v, std::move(pointer));
        return std::string(v.get_string());
    }
    static bool boolean(const boost::json::value& v) {
        if (!v.is_bool()) expected("true or false", v);
        return v.get_bool();
    }
    static std::int64_t integer(const boost::json::value& v, std::string pointer = {}) {
        if (v.is_int64()) return v.get_int64();
        if (v.is_double() && std::trunc(v.get_double()) == v.get_double() && std::abs(v.get_double()) < 9e15)
            return static_cast<std::int64_t>(v.get_double());
        if (v.is_uint64()) fail("integer out of range", std::move(pointer));
        expected("an integer", v, std::move(pointer));
    }
    std::string word(std::string_view key, const boost::json::value& v) const {
        std::string w = string(v);
        if (!is_choice(key, w)) fail(value_rule_sentence(key) + ", found '" + w + "'");
        return w;
    }
    static const boost::json::object& object(const boost::json::value& v, const char* what) {
        if (!v.is_object()) expected(what, v);
        return v.get_object();
    }
    static thinking_config thinking(const boost::json::value& v) {
        thinking_config t;
        bool has_type = false;
        for (const auto& kv : object(v, "an object such as {type: enabled, budget_tokens: 2048}")) {
            const std::string at = "/" + std::string(kv.key());
            if (kv.key() == "type") {
                t.type = string(kv.value(), at);
                has_type = true;
            } else if (kv.key() == "budget_tokens") {
                t.budget_tokens = integer(kv.value(), at);
            } else if (kv.key() == "display") {
                t.display = string(kv.value(), at);
            } else {
                fail("unknown key '" + std::string(kv.key()) + "' in 'thinking' (expected type, budget_tokens and display)", at);
            }
        }
        if (!has_type) fail("'thinking' needs a 'type' (enabled, adaptive or disabled)");
        if (!thinking_ok(t.type, t.budget_tokens.has_value(), t.budget_tokens.value_or(0), t.display.has_value(),
                         t.display.value_or(std::string())))
            fail(value_rule_sentence("thinking"));
        return t;
    }
    static prompt_cache_control cache(const boost::json::value& v) {
        prompt_cache_control c;
        bool has_type = false;
        for (const auto& kv : object(v, "an object such as {type: ephemeral, ttl: 1h}")) {
            const std::string at = "/" + std::string(kv.key());
            if (kv.key() == "type") {
                c.type = string(kv.value(), at);
                has_type = true;
            } else if (kv.key() == "ttl") {
                c.ttl = string(kv.value(), at);
            } else {
                fail("unknown key '" + std::string(kv.key()) + "' in 'cache_control' (expected type and ttl)", at);
            }
        }
        if (!has_type) fail("'cache_control' needs a 'type' (ephemeral)");
        if (!cache_control_ok(c.type, c.ttl.has_value(), c.ttl.value_or(std::string()))) fail(value_rule_sentence("cache_control"));
        return c;
    }
    static std::vector<std::pair<std::string, std::string>> metadata(const boost::json::value& v) {
        std::vector<std::pair<std::string, std::string>> pairs;
        const auto& o = object(v, "an object of strings");
        if (o.size() > max_metadata_pairs) fail(value_rule_sentence("metadata") + ", found " + std::to_string(o.size()) + " pairs");
        for (const auto& kv : o) {
            const std::string at = "/" + std::string(kv.key());
            std::string value = string(kv.value(), at);
            if (!metadata_pair_ok(kv.key(), value)) fail(value_rule_sentence("metadata"), at);
            pairs.emplace_back(std::string(kv.key()), std::move(value));
        }
        return pairs;
    }
    static boost::json::object extra(const boost::json::value& v) {
        const auto& o = object(v, "an object of request body members");
        for (const auto& kv : o)
            if (is_reserved_extra_key(kv.key())) fail(value_rule_sentence("extra") + ", found '" + std::string(kv.key()) + "'", "/" + std::string(kv.key()));
        return o;
    }
};

/// Calls `f(name, value)` for each field of today's models that `p` sets, in the order of the
/// struct, with its JSON value.
template <class F>
void for_each_request_field(const request_params& p, F&& f) {
    if (p.max_completion_tokens) f("max_completion_tokens", boost::json::value(*p.max_completion_tokens));
    if (p.top_k) f("top_k", boost::json::value(*p.top_k));
    if (p.logprobs) f("logprobs", boost::json::value(*p.logprobs));
    if (p.top_logprobs) f("top_logprobs", boost::json::value(*p.top_logprobs));
    if (p.parallel_tool_calls) f("parallel_tool_calls", boost::json::value(*p.parallel_tool_calls));
    if (p.reasoning_effort) f("reasoning_effort", boost::json::value(*p.reasoning_effort));
    if (p.reasoning_summary) f("reasoning_summary", boost::json::value(*p.reasoning_summary));
    if (p.verbosity) f("verbosity", boost::json::value(*p.verbosity));
    if (p.thinking) {
        boost::json::object t;
        t["type"] = p.thinking->type;
        if (p.thinking->budget_tokens) t["budget_tokens"] = *p.thinking->budget_tokens;
        if (p.thinking->display) t["display"] = *p.thinking->display;
        f("thinking", boost::json::value(std::move(t)));
    }
    if (p.prediction) f("prediction", boost::json::value(*p.prediction));
    if (p.service_tier) f("service_tier", boost::json::value(*p.service_tier));
    if (p.store) f("store", boost::json::value(*p.store));
    if (p.metadata) {
        boost::json::object m;
        for (const auto& [k, v] : *p.metadata) m[k] = v;
        f("metadata", boost::json::value(std::move(m)));
    }
    if (p.user) f("user", boost::json::value(*p.user));
    if (p.safety_identifier) f("safety_identifier", boost::json::value(*p.safety_identifier));
    if (p.prompt_cache_key) f("prompt_cache_key", boost::json::value(*p.prompt_cache_key));
    if (p.prompt_cache_retention) f("prompt_cache_retention", boost::json::value(*p.prompt_cache_retention));
    if (p.cache_control) {
        boost::json::object c;
        c["type"] = p.cache_control->type;
        if (p.cache_control->ttl) c["ttl"] = *p.cache_control->ttl;
        f("cache_control", boost::json::value(std::move(c)));
    }
    if (p.truncation) f("truncation", boost::json::value(*p.truncation));
    if (p.extra) f("extra", boost::json::value(*p.extra));
}

/// The name of a reasoning part's kind in JSON: "text", "thinking", "redacted_thinking", "reasoning".
constexpr std::string_view reasoning_kind_name(reasoning_part::kind k) noexcept {
    switch (k) {
    case reasoning_part::kind::text: return "text";
    case reasoning_part::kind::thinking: return "thinking";
    case reasoning_part::kind::redacted: return "redacted_thinking";
    case reasoning_part::kind::item: return "reasoning";
    }
    return "text";
}

/// An assistant message's reasoning as JSON: `{"type": "text", "text"}`, `{"type": "thinking",
/// "thinking", "signature"}`, `{"type": "redacted_thinking", "data"}`, `{"type": "reasoning",
/// "id", "summary": [texts], "text", "encrypted_content"}` (empty members left out).
inline boost::json::array reasoning_to_json(const std::vector<reasoning_part>& parts, boost::json::storage_ptr sp = {}) {
    boost::json::array a(sp);
    for (const auto& r : parts) {
        boost::json::object o(sp);
        o["type"] = reasoning_kind_name(r.type);
        switch (r.type) {
        case reasoning_part::kind::text: o["text"] = r.text; break;
        case reasoning_part::kind::thinking:
            o["thinking"] = r.text;
            o["signature"] = r.signature;
            break;
        case reasoning_part::kind::redacted: o["data"] = r.data; break;
        case reasoning_part::kind::item: {
            o["id"] = r.id;
            boost::json::array summary(sp);
            for (const auto& s : r.summary) summary.emplace_back(s);
            o["summary"] = std::move(summary);
            if (!r.text.empty()) o["text"] = r.text;
            if (!r.data.empty()) o["encrypted_content"] = r.data;
            break;
        }
        }
        a.emplace_back(std::move(o));
    }
    return a;
}

/// Reads reasoning_to_json's form; throws field_value_error naming the place of a mistake.
inline std::vector<reasoning_part> reasoning_from_json(const boost::json::value& v) {
    using reader = request_field_reader;
    if (!v.is_array()) throw field_value_error{"", std::string("expected an array of reasoning parts, found ") + reader::kind(v)};
    std::vector<reasoning_part> out;
    const auto& a = v.get_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string at = "/" + std::to_string(i);
        if (!a[i].is_object())
            throw field_value_error{at, std::string("expected a reasoning part (an object), found ") + reader::kind(a[i])};
        const auto& o = a[i].get_object();
        const auto* type = o.if_contains("type");
        if (!type || !type->is_string())
            throw field_value_error{at, "a reasoning part needs a 'type' (text, thinking, redacted_thinking or reasoning)"};
        reasoning_part r;
        std::string_view allowed[4];
        std::size_t n = 0;
        if (*type == "text") {
            r.type = reasoning_part::kind::text;
            allowed[n++] = "text";
        } else if (*type == "thinking") {
            r.type = reasoning_part::kind::thinking;
            allowed[n++] = "thinking";
            allowed[n++] = "signature";
        } else if (*type == "redacted_thinking") {
            r.type = reasoning_part::kind::redacted;
            allowed[n++] = "data";
        } else if (*type == "reasoning") {
            r.type = reasoning_part::kind::item;
            allowed[n++] = "id";
            allowed[n++] = "summary";
            allowed[n++] = "text";
            allowed[n++] = "encrypted_content";
        } else {
            throw field_value_error{at + "/type", "unknown reasoning part type '" + std::string(type->get_string()) +
                                                      "' (expected text, thinking, redacted_thinking or reasoning)"};
        }
        for (const auto& kv : o) {
            const std::string key(kv.key());
            if (key == "type") continue;
            bool known = false;
            for (std::size_t k = 0; k < n; ++k) known = known || allowed[k] == key;
            if (!known) throw field_value_error{at + "/" + key, "unknown key '" + key + "' in a " + std::string(type->get_string()) + " reasoning part"};
            auto text = [&]() -> std::string {
                if (!kv.value().is_string())
                    throw field_value_error{at + "/" + key, std::string("expected a string, found ") + reader::kind(kv.value())};
                return std::string(kv.value().get_string());
            };
            if (key == "text" || key == "thinking") r.text = text();
            else if (key == "signature") r.signature = text();
            else if (key == "data" || key == "encrypted_content") r.data = text();
            else if (key == "id") r.id = text();
            else if (key == "summary") {
                if (!kv.value().is_array())
                    throw field_value_error{at + "/summary", std::string("expected an array of strings, found ") + reader::kind(kv.value())};
                const auto& list = kv.value().get_array();
                for (std::size_t k = 0; k < list.size(); ++k) {
                    if (!list[k].is_string())
                        throw field_value_error{at + "/summary/" + std::to_string(k),
                                                std::string("expected a string, found ") + reader::kind(list[k])};
                    r.summary.emplace_back(list[k].get_string());
                }
            }
        }
        if (r.type == reasoning_part::kind::item && r.id.empty())
            throw field_value_error{at, "a reasoning item needs its 'id'"};
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace parley::detail

#endif
