// parley/schema/detail/conversion.hpp: what from_json and to_json share: JSON pointer segments,
// number and string formatting, and the short rendering of a found value in messages. Types are
// classified by parley/schema/traits.hpp.
#ifndef PARLEY_SCHEMA_DETAIL_CONVERSION_HPP
#define PARLEY_SCHEMA_DETAIL_CONVERSION_HPP

#include <parley/config.hpp>
#include <parley/schema/traits.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace parley::detail::conv {

template <class>
inline constexpr bool dependent_false = false;

/// Appends one JSON pointer segment (`/` then the key, `~` written `~0` and `/` written `~1`).
inline void append_segment(std::string& path, std::string_view key) {
    path += '/';
    for (char c : key) {
        if (c == '~')
            path += "~0";
        else if (c == '/')
            path += "~1";
        else
            path += c;
    }
}

/// Appends an array index as a JSON pointer segment.
inline void append_segment(std::string& path, std::size_t index) {
    path += '/';
    path += std::to_string(index);
}

/// Writes a double the shortest way that reads back the same ("1.5", "1e+300").
inline void append_double(std::string& out, double d) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    out.append(buf, r.ptr);
}

/// Writes `s` as a JSON string literal: quotes, backslash escapes, `\u00XX` for control characters.
inline void append_quoted(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                constexpr char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[static_cast<unsigned char>(c) >> 4];
                out += hex[static_cast<unsigned char>(c) & 0xF];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

// Writes v as compact JSON until out passes `limit` bytes; returns false once it has.
inline bool append_compact(std::string& out, const boost::json::value& v, std::size_t limit) {
    if (out.size() > limit) return false;
    switch (v.kind()) {
    case boost::json::kind::null: out += "null"; break;
    case boost::json::kind::bool_: out += v.get_bool() ? "true" : "false"; break;
    case boost::json::kind::int64: out += std::to_string(v.get_int64()); break;
    case boost::json::kind::uint64: out += std::to_string(v.get_uint64()); break;
    case boost::json::kind::double_: append_double(out, v.get_double()); break;
    case boost::json::kind::string: {
        std::string_view s = v.get_string();
        // Only the part of a long string that can be shown is escaped.
        append_quoted(out, s.substr(0, limit - out.size() + 1));
        break;
    }
    case boost::json::kind::array: {
        out += '[';
        bool first = true;
        for (const boost::json::value& item : v.get_array()) {
            if (!first) out += ',';
            first = false;
            if (!append_compact(out, item, limit)) return false;
        }
        out += ']';
        break;
    }
    case boost::json::kind::object: {
        out += '{';
        bool first = true;
        for (const auto& kv : v.get_object()) {
            if (!first) out += ',';
            first = false;
            append_quoted(out, std::string_view(kv.key()).substr(0, limit));
            out += ':';
            if (!append_compact(out, kv.value(), limit)) return false;
        }
        out += '}';
        break;
    }
    }
    return out.size() <= limit;
}

/// How many bytes of a found value messages show before cutting it short with "...".
inline constexpr std::size_t found_limit = 60;

/// A found value as it appears in messages: compact JSON, cut after `found_limit` bytes (at a
/// UTF-8 character boundary) and then followed by "...".
inline std::string found_text(const boost::json::value& v) {
    std::string out;
    if (append_compact(out, v, found_limit) && out.size() <= found_limit) return out;
    std::size_t cut = found_limit;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "...";
    return out;
}

/// The names of a described enum's enumerators as a message lists them: `"red", "green"`.
template <class E>
std::string enumerator_list() {
    std::string s;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto D) {
        if (!s.empty()) s += ", ";
        append_quoted(s, D.name);
    });
    return s;
}

}  // namespace parley::detail::conv

#endif
