// The name of a JSON value's kind for error messages, one wording for every layer that reads JSON.
#ifndef PARLEY_DETAIL_JSON_KIND_HPP
#define PARLEY_DETAIL_JSON_KIND_HPP

#include <boost/json/value.hpp>

namespace parley::detail {

/// "null", "a boolean", "an integer", "a number" (with a fraction), "a string", "an array" or
/// "an object".
inline const char* json_kind_name(const boost::json::value& v) noexcept {
    switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "an integer";
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
    }
    return "a value";
}

}  // namespace parley::detail

#endif
