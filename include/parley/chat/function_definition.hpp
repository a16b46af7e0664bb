// parley/chat/function_definition.hpp: a function the model may call, as the chat layer, the
// wire APIs and the token counters describe it to the model.
#ifndef PARLEY_CHAT_FUNCTION_DEFINITION_HPP
#define PARLEY_CHAT_FUNCTION_DEFINITION_HPP

#include <boost/json/object.hpp>

#include <string>

namespace parley {

/// A function the model may call: `{name, description, parameters}` (parameters is a JSON schema).
struct function_definition {
    std::string name;
    std::string description;
    boost::json::object parameters;
    /// The parameters follow the strict form (every property required, no other properties, as
    /// strict_json_schema<T>() writes it): the model's arguments are held to the schema, and the
    /// wire APIs are sent `"strict": true`.
    bool strict = false;
    friend bool operator==(const function_definition&, const function_definition&) = default;
};

}  // namespace parley

#endif
