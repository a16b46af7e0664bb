// parley/schema/function_signature.hpp: a described struct as the definition of a function a
// model can call: {"name", "description", "parameters"}.
//
// Names must match ^[a-zA-Z0-9_-]{1,64}$ (OpenAI's rule for function and response-format
// names). The default name is known at compile time (the struct's name(...) annotation, or its
// unqualified C++ name), so an invalid default is a compile error (static_assert); a name given
// at run time is checked at run time and an invalid one throws parley::error with
// errc::invalid_argument.
#ifndef PARLEY_SCHEMA_FUNCTION_SIGNATURE_HPP
#define PARLEY_SCHEMA_FUNCTION_SIGNATURE_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/schema/detail/annotation_check.hpp>
#include <parley/schema/json_schema.hpp>
#include <parley/type_name.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace parley {

/// True when name is a valid function name: ^[a-zA-Z0-9_-]{1,64}$.
constexpr bool is_valid_function_name(std::string_view name) noexcept { return detail::is_valid_function_name(name); }

namespace detail {

template <class T>
constexpr std::string_view checked_function_name() {
    static_assert(json_kind_v<T> == json_kind::object,
                  "function signatures take their parameters from a struct described with BOOST_DESCRIBE_STRUCT");
    constexpr const annotation& self = annotations_v<T>.self;
    constexpr std::string_view name = self.has_name() ? self.name : type_name<T>();
    static_assert(is_valid_function_name(name),
                  "the C++ name of this type is not a valid function name (^[a-zA-Z0-9_-]{1,64}$): give it "
                  "name(\"...\") in PARLEY_ANNOTATE, or pass a name to function_signature");
    return name;
}

inline void check_function_name(std::string_view name) {
    if (is_valid_function_name(name)) return;
    std::string shown(name.substr(0, 80));
    if (name.size() > 80) shown += "...";
    throw error(errc::invalid_argument, "invalid function name \"" + shown + "\" (" + std::to_string(name.size()) +
                                            " characters): expected ^[a-zA-Z0-9_-]{1,64}$");
}

template <class T>
boost::json::object make_signature(std::string_view name, const boost::json::value& parameters, bool strict) {
    check_function_name(name);
    boost::json::object signature;
    signature["name"] = name;
    constexpr const annotation& self = annotations_v<T>.self;
    if constexpr (self.has_description()) signature["description"] = self.description;
    // the schema without "$schema" and without the struct's description, which is the
    // function's (not repeated in the parameters)
    boost::json::object params;
    params.reserve(parameters.as_object().size());
    for (const auto& entry : parameters.as_object())
        if (entry.key() != "$schema" && entry.key() != "description") params.emplace(entry.key(), entry.value());
    signature["parameters"] = std::move(params);
    if (strict) signature["strict"] = true;
    return signature;
}

}  // namespace detail

/// The default function name of T (a described struct): its name(...) annotation or its
/// unqualified C++ name. Not a valid name is a compile error.
template <class T>
inline constexpr std::string_view function_name = detail::checked_function_name<std::remove_cvref_t<T>>();

/// {"name", "description", "parameters"} for a function whose parameters are the members of T;
/// "parameters" is json_schema<T>() without "$schema" and without its top-level description,
/// which is the function's "description" (the annotation of T, left out when there is none).
/// Throws parley::error (errc::invalid_argument) when name does not match ^[a-zA-Z0-9_-]{1,64}$.
template <class T>
boost::json::object function_signature(std::string_view name) {
    static_assert(detail::json_kind_v<T> == detail::json_kind::object,
                  "function signatures take their parameters from a struct described with BOOST_DESCRIBE_STRUCT");
    return detail::make_signature<T>(name, json_schema<T>(), false);
}

/// function_signature<T>(function_name<T>).
template <class T>
boost::json::object function_signature() {
    return function_signature<T>(function_name<T>);
}

/// The same with strict_json_schema<T>() as parameters and "strict": true, for
/// `tools[].function` with OpenAI's strict mode. Throws parley::error (errc::invalid_argument)
/// for an invalid name.
template <class T>
boost::json::object strict_function_signature(std::string_view name) {
    return detail::make_signature<T>(name, strict_json_schema<T>(), true);
}

/// strict_function_signature<T>(function_name<T>).
template <class T>
boost::json::object strict_function_signature() {
    return strict_function_signature<T>(function_name<T>);
}

}  // namespace parley

#endif
