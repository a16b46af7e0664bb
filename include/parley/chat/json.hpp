// parley/chat/json.hpp: messages and conversations as JSON in the OpenAI wire shape; control
// messages as their YAML form (`{"role": "default-request", "model": "...", "temperature": 0.2}`).
#ifndef PARLEY_CHAT_JSON_HPP
#define PARLEY_CHAT_JSON_HPP

#include <parley/chat/detail/request_fields_json.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/detail/json_kind.hpp>
#include <parley/error.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/json/value_from.hpp>
#include <boost/json/value_to.hpp>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace parley {

/// Request parameters as a JSON object (only the fields that are set, in declaration order).
inline void write_params(boost::json::object& o, const request_params& p) {
    if (p.model) o["model"] = *p.model;
    if (p.max_tokens) o["max_tokens"] = *p.max_tokens;
    if (p.temperature) o["temperature"] = *p.temperature;
    if (p.top_p) o["top_p"] = *p.top_p;
    if (p.stop) {
        if (const auto* one = std::get_if<std::string>(&*p.stop)) {
            o["stop"] = *one;
        } else {
            boost::json::array a;
            for (const auto& s : std::get<std::vector<std::string>>(*p.stop)) a.emplace_back(s);
            o["stop"] = std::move(a);
        }
    }
    if (p.presence_penalty) o["presence_penalty"] = *p.presence_penalty;
    if (p.frequency_penalty) o["frequency_penalty"] = *p.frequency_penalty;
    if (p.logit_bias) {
        boost::json::object b;
        for (const auto& [token, bias] : *p.logit_bias) b[token] = bias;
        o["logit_bias"] = std::move(b);
    }
    if (p.seed) o["seed"] = *p.seed;
    if (p.n) o["n"] = *p.n;
    if (p.response_format) o["response_format"] = *p.response_format;
    if (p.functions) {
        boost::json::array a;
        for (const auto& f : *p.functions) a.emplace_back(f);
        o["functions"] = std::move(a);
    }
    if (p.call_function) o["call_function"] = *p.call_function;
    detail::for_each_request_field(p, [&](std::string_view key, boost::json::value v) { o[key] = std::move(v); });
}

/// A message as a JSON object. An assistant message without content has `"content": null`
/// (as the OpenAI API writes it); other messages without content have no `content` key.
inline boost::json::object message_to_json(const message& m, boost::json::storage_ptr sp = {}) {
    boost::json::object o(sp);
    o["role"] = role_name(m.role);
    if (const auto* s = std::get_if<std::string>(&m.content)) {
        o["content"] = *s;
    } else if (m.has_parts()) {
        boost::json::array parts(sp);
        for (const auto& p : m.parts()) {
            boost::json::object jp(sp);
            if (p.type == content_part::kind::text) {
                jp["type"] = "text";
                jp["text"] = p.text;
            } else {
                jp["type"] = "image_url";
                boost::json::object img(sp);
                img["url"] = p.url;
                if (p.detail) img["detail"] = *p.detail;
                jp["image_url"] = std::move(img);
            }
            parts.emplace_back(std::move(jp));
        }
        o["content"] = std::move(parts);
    } else if (m.role == role::assistant) {
        o["content"] = nullptr;
    }
    if (m.name) o["name"] = *m.name;
    if (m.function_call) o["function_call"] = {{"name", m.function_call->name}, {"arguments", m.function_call->arguments}};
    if (!m.tool_calls.empty()) {
        boost::json::array calls(sp);
        for (const auto& c : m.tool_calls)
            calls.push_back(boost::json::object(
                {{"id", c.id},
                 {"type", "function"},
                 {"function", {{"name", c.function.name}, {"arguments", c.function.arguments}}}},
                sp));
        o["tool_calls"] = std::move(calls);
    }
    if (m.tool_call_id) o["tool_call_id"] = *m.tool_call_id;
    if (m.is_error) o["is_error"] = true;
    if (m.refusal) o["refusal"] = *m.refusal;
    if (!m.reasoning.empty()) o["reasoning"] = detail::reasoning_to_json(m.reasoning, sp);
    write_params(o, m.params);
    return o;
}

/// A conversation as a JSON array of messages.
inline boost::json::array conversation_to_json(const std::vector<message>& messages) {
    boost::json::array a;
    a.reserve(messages.size());
    for (const auto& m : messages) a.emplace_back(message_to_json(m));
    return a;
}

namespace detail {

/// Reads JSON into chat types; every error names the JSON pointer of the offending value.
struct chat_json_reader {
    std::string path;
    /// The pointer of the value the last error was about (kept once the steps are undone).
    mutable std::string failed_at;

    [[noreturn]] void fail(const std::string& what) const {
        failed_at = path.empty() ? std::string("/") : path;
        throw error(errc::chat_invalid, failed_at + ": " + what);
    }
    struct step {
        chat_json_reader& r;
        std::size_t size;
        step(chat_json_reader& reader, std::string_view key) : r(reader), size(reader.path.size()) {
            r.path += pointer_step(key);
        }
        step(chat_json_reader& reader, std::size_t index) : step(reader, std::to_string(index)) {}
        ~step() { r.path.resize(size); }
        step(const step&) = delete;
        step& operator=(const step&) = delete;
    };

    static const char* kind(const boost::json::value& v) noexcept { return parley::detail::json_kind_name(v); }
    void expected(const char* what, const boost::json::value& found) const {
        fail(std::string("expected ") + what + ", found " + kind(found));
    }
    std::string string(const boost::json::value& v) const {
        if (!v.is_string()) expected("a string", v);
        return std::string(v.get_string());
    }
    const boost::json::object& object(const boost::json::value& v) const {
        if (!v.is_object()) expected("an object", v);
        return v.get_object();
    }
    const boost::json::array& array(const boost::json::value& v) const {
        if (!v.is_array()) expected("an array", v);
        return v.get_array();
    }
    double number(const boost::json::value& v) const {
        if (v.is_int64()) return static_cast<double>(v.get_int64());
        if (v.is_uint64()) return static_cast<double>(v.get_uint64());
        if (v.is_double()) return v.get_double();
        expected("a number", v);
        return 0;
    }
    std::int64_t integer(const boost::json::value& v) const {
        if (v.is_int64()) return v.get_int64();
        if (v.is_double() && std::trunc(v.get_double()) == v.get_double() && std::abs(v.get_double()) < 9e15)
            return static_cast<std::int64_t>(v.get_double());
        if (v.is_uint64()) fail("integer out of range");
        expected("an integer", v);
        return 0;
    }
    // Reads the request parameter `key` (its type; the rules are check's); true when `key` is one.
    bool param(request_params& p, std::string_view key, const boost::json::value& v) {
        if (!is_request_param(key)) return false;
        step s(*this, key);
        if (key == "model") p.model = string(v);
        else if (key == "max_tokens") p.max_tokens = integer(v);
        else if (key == "temperature") p.temperature = number(v);
        else if (key == "top_p") p.top_p = number(v);
        else if (key == "presence_penalty") p.presence_penalty = number(v);
        else if (key == "frequency_penalty") p.frequency_penalty = number(v);
        else if (key == "seed") p.seed = integer(v);
        else if (key == "n") p.n = integer(v);
        else if (key == "stop") {
            if (v.is_string()) {
                p.stop = std::string(v.get_string());
            } else {
                std::vector<std::string> list;
                const auto& a = array(v);
                for (std::size_t i = 0; i < a.size(); ++i) {
                    step e(*this, i);
                    list.push_back(string(a[i]));
                }
                p.stop = std::move(list);
            }
        } else if (key == "logit_bias") {
            std::vector<std::pair<std::string, std::int64_t>> bias;
            for (const auto& kv : object(v)) {
                step e(*this, kv.key());
                bias.emplace_back(std::string(kv.key()), integer(kv.value()));
            }
            p.logit_bias = std::move(bias);
        } else if (key == "response_format") {
            p.response_format = object(v);
        } else if (key == "functions") {
            std::vector<std::string> names;
            const auto& a = array(v);
            for (std::size_t i = 0; i < a.size(); ++i) {
                step e(*this, i);
                names.push_back(string(a[i]));
            }
            p.functions = std::move(names);
        } else if (key == "call_function") {
            p.call_function = string(v);
        } else {
            try {
                request_field_reader().read(p, key, v);
            } catch (const field_value_error& e) {
                path += e.pointer;
                fail(e.message);
            }
        }
        return true;
    }

    // Fails unless `key` is one of `known` (the YAML loader's sentence).
    template <std::size_t N>
    void check_known(std::string_view key, const std::string_view (&known)[N], std::string_view where) const {
        for (std::string_view k : known)
            if (k == key) return;
        fail(unknown_key_sentence(key, where, known));
    }

    function_call call(const boost::json::value& v) {
        function_call c;
        static constexpr std::string_view keys[] = {"name", "arguments"};
        for (const auto& kv : object(v)) {
            step s(*this, kv.key());
            check_known(kv.key(), keys, "in a function call");
            if (kv.key() == "name") c.name = string(kv.value());
            else c.arguments = string(kv.value());
        }
        return c;
    }

    content_part part(const boost::json::value& v) {
        const auto& o = object(v);
        const auto* type = o.if_contains("type");
        if (!type) fail("a content part needs a 'type' (\"text\" or \"image_url\")");
        std::string t;
        {
            step s(*this, "type");
            t = string(*type);
            static constexpr std::string_view types[] = {"text", "image_url"};
            if (t != "text" && t != "image_url")
                fail("unknown content part type '" + t + "' (expected \"text\" or \"image_url\")" +
                     did_you_mean(t, types));
        }
        static constexpr std::string_view text_keys[] = {"type", "text"};
        static constexpr std::string_view image_keys[] = {"type", "image_url"};
        static constexpr std::string_view url_keys[] = {"url", "detail"};
        content_part p;
        for (const auto& kv : o) {
            step s(*this, kv.key());
            if (t == "text") check_known(kv.key(), text_keys, "in a text content part");
            else check_known(kv.key(), image_keys, "in an image_url content part");
            if (kv.key() == "type") continue;
            if (t == "text") {
                p.text = string(kv.value());
                continue;
            }
            p.type = content_part::kind::image_url;
            bool has_url = false;
            for (const auto& ik : object(kv.value())) {
                step i(*this, ik.key());
                check_known(ik.key(), url_keys, "in an image_url");
                if (ik.key() == "url") {
                    p.url = string(ik.value());
                    has_url = true;
                } else {
                    p.detail = string(ik.value());
                }
            }
            if (!has_url) fail("an image_url needs a 'url'");
        }
        if (t == "text" && !o.contains("text")) fail("a text content part needs a 'text'");
        if (t == "image_url" && !o.contains("image_url")) fail("an image_url content part needs an 'image_url'");
        return p;
    }

    // Reads a message's keys with their types, then checks the rules of the chat model
    // (parley::check), naming the JSON pointer of what breaks one.
    message read_message(const boost::json::value& v) {
        const auto& o = object(v);
        message m;
        std::vector<std::string_view> roles;
        for (role each : all_roles) roles.push_back(role_name(each));
        const std::string expected_roles = "(expected " + or_list(roles) + ")";
        const auto* r = o.if_contains("role");
        if (!r) fail("a message needs a 'role' " + expected_roles);
        {
            step s(*this, "role");
            const std::string name = string(*r);
            const auto found = role_from_name(name);
            if (!found) fail("unknown role '" + name + "' " + expected_roles + did_you_mean(name, roles));
            m.role = *found;
        }
        for (const auto& kv : o) {
            const std::string_view key = kv.key();
            if (key == "role") continue;
            if (key == "is_error") {  // a result that reports a failure (not a YAML key)
                step s(*this, key);
                if (!kv.value().is_bool()) fail("expected 'is_error' to be true or false");
                m.is_error = kv.value().get_bool();
                continue;
            }
            if (const chat_rule broken = check_key(m.role, key); broken != chat_rule::none) {
                step s(*this, key);
                fail(describe(broken, m.role, key));
            }
            // `"content": null` is how the wire says "no content"
            if (key == "content" && kv.value().is_null()) continue;
            if (param(m.params, key, kv.value())) continue;
            step s(*this, key);
            const auto& val = kv.value();
            if (key == "name") {
                m.name = string(val);
            } else if (key == "content") {
                if (val.is_string()) {
                    m.content = std::string(val.get_string());
                } else {
                    std::vector<content_part> parts;
                    const auto& a = array(val);
                    for (std::size_t i = 0; i < a.size(); ++i) {
                        step e(*this, i);
                        parts.push_back(part(a[i]));
                    }
                    m.content = std::move(parts);
                }
            } else if (key == "function_call") {
                m.function_call = call(val);
            } else if (key == "tool_calls") {
                const auto& a = array(val);
                for (std::size_t i = 0; i < a.size(); ++i) {
                    step e(*this, i);
                    tool_call tc;
                    static constexpr std::string_view call_keys[] = {"id", "type", "function"};
                    for (const auto& ck : object(a[i])) {
                        step c(*this, ck.key());
                        check_known(ck.key(), call_keys, "in a tool call");
                        if (ck.key() == "id") tc.id = string(ck.value());
                        else if (ck.key() == "type") {
                            if (string(ck.value()) != "function") fail("a tool call's type is \"function\"");
                        } else {
                            tc.function = call(ck.value());
                        }
                    }
                    m.tool_calls.push_back(std::move(tc));
                }
            } else if (key == "tool_call_id") {
                m.tool_call_id = string(val);
            } else if (key == "refusal") {
                m.refusal = string(val);
            } else if (key == "reasoning") {
                try {
                    m.reasoning = reasoning_from_json(val);
                } catch (const field_value_error& e) {
                    path += e.pointer;
                    fail(e.message);
                }
            }
        }
        if (const rule_violation broken = check(m)) {
            const std::string at = path + broken.pointer;
            failed_at = at.empty() ? std::string("/") : at;
            throw error(errc::chat_invalid, failed_at + ": " + describe(broken.rule, m.role, broken.key));
        }
        return m;
    }
};

}  // namespace detail

/// Reads a message written by message_to_json (or by the OpenAI API). Throws parley::error
/// (errc::chat_invalid) naming the JSON pointer of the first problem: a value of the wrong type,
/// an unknown role or key, or a broken rule of the chat model (parley::check: a key the role does
/// not take, a missing or empty field, a parameter out of range...), with describe()'s sentence.
inline message message_from_json(const boost::json::value& v) {
    detail::chat_json_reader r;
    return r.read_message(v);
}

/// Reads a conversation (a JSON array of messages); errors as message_from_json, with the
/// message's index in the pointer (`/3/role`).
inline std::vector<message> conversation_from_json(const boost::json::value& v) {
    detail::chat_json_reader r;
    std::vector<message> out;
    const auto& a = r.array(v);
    out.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        detail::chat_json_reader::step s(r, i);
        out.push_back(r.read_message(a[i]));
    }
    return out;
}

/// Boost.JSON customisation: `boost::json::value_from(message)` and `value_to<message>(v)`.
inline void tag_invoke(boost::json::value_from_tag, boost::json::value& v, const message& m) {
    v = message_to_json(m);
}
inline message tag_invoke(boost::json::value_to_tag<message>, const boost::json::value& v) {
    return message_from_json(v);
}

}  // namespace parley

#endif
