// parley/schema.hpp: the schema layer (JSON Schema from described C++ types, annotations; the
// run-time JSON Schema validator).
#ifndef PARLEY_SCHEMA_HPP
#define PARLEY_SCHEMA_HPP

#include <parley/schema/annotations.hpp>
#include <parley/schema/arrival.hpp>
#include <parley/schema/commands.hpp>
#include <parley/schema/from_json.hpp>
#include <parley/schema/from_json_result.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/json_schema.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/partial.hpp>
#include <parley/schema/partial_json.hpp>
#include <parley/schema/rasa_commands.hpp>
#include <parley/schema/to_json.hpp>
#include <parley/schema/traits.hpp>
#include <parley/schema/validation.hpp>
#include <parley/schema/validator.hpp>
#include <parley/type_name.hpp>

// The macros that describe the structs and enums the schema layer reads.
#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#endif
