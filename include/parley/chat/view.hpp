// parley/chat/view.hpp: messages read in place by templates, in their JSON shape: `m.role`,
// `m.content` (a string, or a list of parts with `type`, `text`, `image_url.url`...), `m.name`,
// `m.tool_calls[0].function.arguments`... Only the fields a message has are keys.
#ifndef PARLEY_CHAT_VIEW_HPP
#define PARLEY_CHAT_VIEW_HPP

#include <parley/chat/message.hpp>
#include <parley/jinja/detail/cpp_view.hpp>

#include <array>
#include <cstddef>
#include <string_view>

// Declared before any use, defined at the end of this header.
template <>
struct parley::jinja::view_traits<parley::message> {
    static value view(const parley::message& m);
};
template <>
struct parley::jinja::view_traits<parley::content_part> {
    static value view(const parley::content_part& p);
};
template <>
struct parley::jinja::view_traits<parley::tool_call> {
    static value view(const parley::tool_call& c);
};
template <>
struct parley::jinja::view_traits<parley::function_call> {
    static value view(const parley::function_call& c);
};

namespace parley::detail {

namespace pj = parley::jinja;

/// A mapping adapter over an object of type T whose keys are listed by `T_keys::list(obj)`.
/// `Fields` has `static std::size_t keys(const T&, std::array<std::string_view, 8>&)` and
/// `static pj::value get(const T&, std::string_view key)`.
template <class T, class Fields>
struct fields_adapter {
    static const T& obj(const void* o) { return *static_cast<const T*>(o); }
    static std::size_t size(const void* o) {
        std::array<std::string_view, 8> k;
        return Fields::keys(obj(o), k);
    }
    static pj::value key_at(const void* o, std::size_t i) {
        std::array<std::string_view, 8> k;
        const std::size_t n = Fields::keys(obj(o), k);
        return i < n ? pj::value::view_of(k[i]) : pj::value();
    }
    static pj::value value_at(const void* o, std::size_t i) {
        std::array<std::string_view, 8> k;
        const std::size_t n = Fields::keys(obj(o), k);
        return i < n ? Fields::get(obj(o), k[i]) : pj::value();
    }
    static bool find(const void* o, std::string_view key, pj::value& out) {
        std::array<std::string_view, 8> k;
        const std::size_t n = Fields::keys(obj(o), k);
        for (std::size_t i = 0; i < n; ++i) {
            if (k[i] == key) {
                out = Fields::get(obj(o), key);
                return true;
            }
        }
        return false;
    }
    static constexpr pj::adapter instance{pj::view_shape::mapping, "dict", &size, &key_at, &value_at, &find, nullptr};
    static pj::value view(const T& x) { return pj::value::view_of(&x, &instance); }
};

struct function_call_fields {
    static std::size_t keys(const function_call&, std::array<std::string_view, 8>& k) {
        k[0] = "name";
        k[1] = "arguments";
        return 2;
    }
    static pj::value get(const function_call& c, std::string_view key) {
        return pj::value::view_of(std::string_view(key == "name" ? c.name : c.arguments));
    }
};

struct tool_call_fields {
    static std::size_t keys(const tool_call&, std::array<std::string_view, 8>& k) {
        k[0] = "id";
        k[1] = "type";
        k[2] = "function";
        return 3;
    }
    static pj::value get(const tool_call& c, std::string_view key) {
        if (key == "id") return pj::value::view_of(std::string_view(c.id));
        if (key == "type") return pj::value::view_of(std::string_view("function"));
        return fields_adapter<function_call, function_call_fields>::view(c.function);
    }
};

/// The `image_url` object of an image part: `{url, detail}`.
struct image_url_fields {
    static std::size_t keys(const content_part& p, std::array<std::string_view, 8>& k) {
        k[0] = "url";
        if (!p.detail) return 1;
        k[1] = "detail";
        return 2;
    }
    static pj::value get(const content_part& p, std::string_view key) {
        return pj::value::view_of(std::string_view(key == "url" ? p.url : *p.detail));
    }
};

struct content_part_fields {
    static std::size_t keys(const content_part& p, std::array<std::string_view, 8>& k) {
        k[0] = "type";
        k[1] = p.type == content_part::kind::text ? "text" : "image_url";
        return 2;
    }
    static pj::value get(const content_part& p, std::string_view key) {
        if (key == "type") return pj::value::view_of(p.type == content_part::kind::text ? "text" : "image_url");
        if (key == "text") return pj::value::view_of(std::string_view(p.text));
        return fields_adapter<content_part, image_url_fields>::view(p);
    }
};

struct message_fields {
    static std::size_t keys(const message& m, std::array<std::string_view, 8>& k) {
        std::size_t n = 0;
        k[n++] = "role";
        if (m.content.index() != 0 || m.role == role::assistant) k[n++] = "content";  // as message_to_json
        if (m.name) k[n++] = "name";
        if (m.function_call) k[n++] = "function_call";
        if (!m.tool_calls.empty()) k[n++] = "tool_calls";
        if (m.tool_call_id) k[n++] = "tool_call_id";
        return n;
    }
    static pj::value get(const message& m, std::string_view key) {
        if (key == "role") return pj::value::view_of(role_name(m.role));
        if (key == "content") {
            if (const auto* s = std::get_if<std::string>(&m.content)) return pj::value::view_of(std::string_view(*s));
            if (const auto* p = std::get_if<std::vector<content_part>>(&m.content)) return pj::detail::cpp_view(*p);
            return pj::value(nullptr);
        }
        if (key == "name") return pj::value::view_of(std::string_view(*m.name));
        if (key == "function_call") return fields_adapter<function_call, function_call_fields>::view(*m.function_call);
        if (key == "tool_calls") return pj::detail::cpp_view(m.tool_calls);
        return pj::value::view_of(std::string_view(*m.tool_call_id));
    }
};

}  // namespace parley::detail

inline parley::jinja::value parley::jinja::view_traits<parley::message>::view(const parley::message& m) {
    return parley::detail::fields_adapter<parley::message, parley::detail::message_fields>::view(m);
}
inline parley::jinja::value parley::jinja::view_traits<parley::content_part>::view(const parley::content_part& p) {
    return parley::detail::fields_adapter<parley::content_part, parley::detail::content_part_fields>::view(p);
}
inline parley::jinja::value parley::jinja::view_traits<parley::tool_call>::view(const parley::tool_call& c) {
    return parley::detail::fields_adapter<parley::tool_call, parley::detail::tool_call_fields>::view(c);
}
inline parley::jinja::value parley::jinja::view_traits<parley::function_call>::view(const parley::function_call& c) {
    return parley::detail::fields_adapter<parley::function_call, parley::detail::function_call_fields>::view(c);
}

#endif
