// parley/jinja/detail/json_view.hpp: boost::json values read in place as template values.
#ifndef PARLEY_JINJA_DETAIL_JSON_VIEW_HPP
#define PARLEY_JINJA_DETAIL_JSON_VIEW_HPP

#include <parley/jinja/arguments.hpp>
#include <parley/jinja/detail/pystr.hpp>
#include <parley/jinja/value.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace parley::jinja::detail {

value json_view(const boost::json::value& j);

/// The member `key` of a JSON object, or null.
PARLEY_ALWAYS_INLINE const boost::json::value* json_find(const boost::json::object& object, std::string_view key) noexcept {
    if (object.size() <= 8) {  // chat messages: a few keys, where a scan beats hashing the key
        for (const boost::json::key_value_pair& kv : object) {
            const boost::json::string_view k = kv.key();
            if (k.size() == key.size() && same_bytes(k.data(), key.data(), key.size())) return &kv.value();
        }
        return nullptr;
    }
    return object.if_contains(key);
}

struct json_array_adapter {
    static std::size_t size(const void* o) { return static_cast<const boost::json::array*>(o)->size(); }
    static value at(const void* o, std::size_t i) { return json_view((*static_cast<const boost::json::array*>(o))[i]); }
    static constexpr adapter instance{view_shape::sequence, "list", &size, &at, nullptr, nullptr, nullptr};
};

struct json_object_adapter {
    static const boost::json::object& obj(const void* o) { return *static_cast<const boost::json::object*>(o); }
    static std::size_t size(const void* o) { return obj(o).size(); }
    static value key_at(const void* o, std::size_t i) {
        const auto& kv = *(obj(o).begin() + static_cast<std::ptrdiff_t>(i));
        return value::view_of(std::string_view(kv.key()));
    }
    static value value_at(const void* o, std::size_t i) {
        return json_view((obj(o).begin() + static_cast<std::ptrdiff_t>(i))->value());
    }
    static bool find(const void* o, std::string_view key, value& out) {
        if (const boost::json::value* v = json_find(obj(o), key)) {
            out = json_view(*v);
            return true;
        }
        return false;
    }
    static constexpr adapter instance{view_shape::mapping, "dict", &size, &key_at, &value_at, &find, nullptr};
};

/// An unsigned integer as a template value: beyond the signed 64-bit range, a big integer.
inline value unsigned_int_value(std::uint64_t u) {
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return value(static_cast<long long>(u));
    return value::big(bigint::of_u64(u, false));
}

/// A template value viewing a JSON value (scalars are converted, strings and containers viewed).
inline value json_view(const boost::json::value& j) {
    switch (j.kind()) {
    case boost::json::kind::null: return value(nullptr);
    case boost::json::kind::bool_: return value(j.get_bool());
    case boost::json::kind::int64: return value(static_cast<long long>(j.get_int64()));
    case boost::json::kind::uint64: return unsigned_int_value(j.get_uint64());
    case boost::json::kind::double_: return value(j.get_double());
    case boost::json::kind::string: return value::view_of(std::string_view(j.get_string()));
    case boost::json::kind::array: return value::view_of(&j.get_array(), &json_array_adapter::instance);
    case boost::json::kind::object: return value::view_of(&j.get_object(), &json_object_adapter::instance);
    }
    return {};
}

inline value json_view(const boost::json::object& o) noexcept {
    return value::view_of(&o, &json_object_adapter::instance);
}
/// The JSON object a value views in place; null for any other value.
PARLEY_ALWAYS_INLINE const boost::json::object* json_object_of(const value& v) noexcept {
    if (!v.is_view() || v.view_adapter() != &json_object_adapter::instance) return nullptr;
    return static_cast<const boost::json::object*>(v.view_object());
}
/// The JSON array a value views in place; null for any other value.
PARLEY_ALWAYS_INLINE const boost::json::array* json_array_of(const value& v) noexcept {
    if (!v.is_view() || v.view_adapter() != &json_array_adapter::instance) return nullptr;
    return static_cast<const boost::json::array*>(v.view_object());
}
inline value json_view(const boost::json::array& a) noexcept {
    return value::view_of(&a, &json_array_adapter::instance);
}

}  // namespace parley::jinja::detail

#endif
