// parley/chat/pretty_json.hpp: JSON text for people: indented, numbers written as Python's
// json.dumps writes them (0.2, not Boost.JSON's 2E-1), non-ASCII characters as they are.
#ifndef PARLEY_CHAT_PRETTY_JSON_HPP
#define PARLEY_CHAT_PRETTY_JSON_HPP

#include <parley/jinja/detail/pystr.hpp>
#include <parley/schema/detail/conversion.hpp>

#include <boost/json/value.hpp>

#include <cmath>
#include <string>
#include <string_view>

namespace parley {

namespace detail {

inline void pretty_json_to(std::string& out, const boost::json::value& v, int indent, int depth) {
    auto newline = [&](int d) {
        if (indent <= 0) return;
        out += '\n';
        out.append(static_cast<std::size_t>(indent * d), ' ');
    };
    const char* comma = indent > 0 ? "," : ", ";
    switch (v.kind()) {
    case boost::json::kind::null: out += "null"; break;
    case boost::json::kind::bool_: out += v.get_bool() ? "true" : "false"; break;
    case boost::json::kind::int64: out += std::to_string(v.get_int64()); break;
    case boost::json::kind::uint64: out += std::to_string(v.get_uint64()); break;
    case boost::json::kind::double_: {
        const double d = v.get_double();
        if (std::isnan(d)) out += "NaN";  // as Python writes it (not strict JSON)
        else if (std::isinf(d)) out += d < 0 ? "-Infinity" : "Infinity";
        else jinja::detail::py_float_repr(out, d);
        break;
    }
    case boost::json::kind::string: conv::append_quoted(out, v.get_string()); break;
    case boost::json::kind::array: {
        const auto& a = v.get_array();
        if (a.empty()) {
            out += "[]";
            break;
        }
        out += '[';
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i) out += comma;
            newline(depth + 1);
            pretty_json_to(out, a[i], indent, depth + 1);
        }
        newline(depth);
        out += ']';
        break;
    }
    case boost::json::kind::object: {
        const auto& o = v.get_object();
        if (o.empty()) {
            out += "{}";
            break;
        }
        out += '{';
        bool first = true;
        for (const auto& kv : o) {
            if (!first) out += comma;
            first = false;
            newline(depth + 1);
            conv::append_quoted(out, kv.key());
            out += ": ";
            pretty_json_to(out, kv.value(), indent, depth + 1);
        }
        newline(depth);
        out += '}';
        break;
    }
    }
}

}  // namespace detail

/// `v` as JSON text, keys in their order, indented by `indent` spaces per level (0: one line,
/// with ", " and ": " separators as Python's json.dumps). Doubles are written in the shortest
/// form that reads back equal, with a fractional part or exponent (`1.0`, `0.2`, `1e+22`).
inline std::string pretty_json(const boost::json::value& v, int indent = 2) {
    std::string out;
    detail::pretty_json_to(out, v, indent, 0);
    return out;
}

}  // namespace parley

#endif
