// parley/chat/detail/strict_schema.hpp: whether a JSON schema is in the strict form that
// function definitions marked strict promise (OpenAI's strict mode, Anthropic's strict tools):
// every object lists all its properties in `required` and has `"additionalProperties": false`.
#ifndef PARLEY_CHAT_DETAIL_STRICT_SCHEMA_HPP
#define PARLEY_CHAT_DETAIL_STRICT_SCHEMA_HPP

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace parley::detail {

/// Where `schema` leaves the strict form, as "POINTER: what is wrong" (POINTER a JSON pointer
/// into the schema, "" for its root); empty when it follows it. Subschemas of `properties`,
/// `items`, `anyOf`, `$defs` and `definitions` are checked too, to a depth of 64.
inline std::string strict_schema_problem(const boost::json::object& schema, const std::string& at = {}, std::size_t depth = 0) {
    if (depth > 64) return at + ": nested deeper than 64 levels";
    const auto* type = schema.if_contains("type");
    const auto* properties = schema.if_contains("properties");
    const bool object_type =
        (type && type->is_string() && type->get_string() == "object") ||
        (type && type->is_array() && [&] {
            for (const auto& t : type->get_array())
                if (t == "object") return true;
            return false;
        }());
    if (object_type || properties) {
        const auto* extra = schema.if_contains("additionalProperties");
        if (!extra || !extra->is_bool() || extra->get_bool())
            return (at.empty() ? "/" : at) + ": an object of a strict schema needs \"additionalProperties\": false";
        if (properties && properties->is_object()) {
            const auto* required = schema.if_contains("required");
            for (const auto& p : properties->get_object()) {
                bool listed = false;
                if (required && required->is_array())
                    for (const auto& r : required->get_array()) listed = listed || (r.is_string() && r.get_string() == p.key());
                if (!listed)
                    return (at.empty() ? "/" : at) + ": property '" + std::string(p.key()) +
                           "' is not in \"required\" (a strict schema requires every property)";
                if (p.value().is_object())
                    if (auto problem = strict_schema_problem(p.value().get_object(), at + "/properties/" + std::string(p.key()), depth + 1);
                        !problem.empty())
                        return problem;
            }
        }
    }
    if (const auto* items = schema.if_contains("items"); items && items->is_object())
        if (auto problem = strict_schema_problem(items->get_object(), at + "/items", depth + 1); !problem.empty()) return problem;
    if (const auto* any = schema.if_contains("anyOf"); any && any->is_array())
        for (std::size_t i = 0; i < any->get_array().size(); ++i)
            if (const auto& s = any->get_array()[i]; s.is_object())
                if (auto problem = strict_schema_problem(s.get_object(), at + "/anyOf/" + std::to_string(i), depth + 1);
                    !problem.empty())
                    return problem;
    for (std::string_view defs : {"$defs", "definitions"})
        if (const auto* d = schema.if_contains(defs); d && d->is_object())
            for (const auto& kv : d->get_object())
                if (kv.value().is_object())
                    if (auto problem = strict_schema_problem(kv.value().get_object(),
                                                             at + "/" + std::string(defs) + "/" + std::string(kv.key()), depth + 1);
                        !problem.empty())
                        return problem;
    return {};
}

}  // namespace parley::detail

#endif
