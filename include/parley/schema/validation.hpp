// parley/schema/validation.hpp: what the run-time JSON Schema validator (schema_validator, in
// validator.hpp) takes and gives: its dialects, limits and options, the violations it reports
// (located in the instance and in the schema, phrased as Python's jsonschema phrases them), and
// the exception of a schema it refuses. See docs/extraction.md, "Validating with a JSON Schema
// given at run time".
#ifndef PARLEY_SCHEMA_VALIDATION_HPP
#define PARLEY_SCHEMA_VALIDATION_HPP

#include <parley/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace parley {

/// The JSON Schema drafts the validator reads. A schema's `$schema` chooses; without one,
/// schema_options::dialect does.
enum class schema_dialect : std::uint8_t {
    draft2020_12,  ///< https://json-schema.org/draft/2020-12/schema
    draft7,  ///< http://json-schema.org/draft-07/schema#
};

/// Bounds on the work a schema and an instance can cause. Both may come from outside (a schema
/// file, a model's reply).
struct schema_limits {
    std::size_t max_values = 100000;  ///< JSON values in the schema document
    std::size_t max_depth = 64;  ///< nesting of the schema document's arrays and objects
    std::size_t max_instance_depth = 64;  ///< nesting of an instance's arrays and objects
    std::size_t max_pattern_length = 4096;  ///< bytes of one `pattern` or `patternProperties` key
    std::size_t max_pattern_states = 10000;  ///< states of one pattern's automaton
    std::size_t max_ref_depth = 256;  ///< `$ref`s followed inside one another by one validation
    std::size_t max_steps = 10000000;  ///< subschemas applied to values by one validation
    std::size_t max_errors = 100;  ///< violations reported by one validation (and in each context)
    std::size_t max_value_text = 200;  ///< bytes of a value quoted in a message (longer ones end in `...`)
};

/// How a schema is read.
struct schema_options {
    /// The draft of a schema without `$schema`.
    schema_dialect dialect = schema_dialect::draft2020_12;
    schema_limits limits;
};

/// One way an instance does not fit a schema.
struct schema_violation {
    /// JSON pointer (RFC 6901) of the value in the instance: `/items/2/price`; "" for the whole.
    std::string instance_path;
    /// JSON pointer of the keyword in the schema, through the `$ref`s followed to reach it:
    /// `/properties/items/items/$ref/properties/price/minimum`.
    std::string schema_path;
    /// The keyword (`type`, `required`...); "" for a `false` schema.
    std::string keyword;
    /// What is wrong, as Python's jsonschema says it: `-1 is less than the minimum of 0`,
    /// `'name' is a required property`.
    std::string message;
    /// For anyOf and oneOf: the violations of each alternative.
    std::vector<schema_violation> context;

    /// One line: `/items/2/price: -1 is less than the minimum of 0` (the message alone for the
    /// whole instance).
    std::string text() const {
        if (instance_path.empty()) return message;
        return instance_path + ": " + message;
    }

    friend bool operator==(const schema_violation&, const schema_violation&) = default;
};

/// The violations one per line (schema_violation::text), as a model is told them.
inline std::string violations_text(const std::vector<schema_violation>& violations) {
    std::string s;
    for (const schema_violation& v : violations) {
        if (!s.empty()) s += '\n';
        s += v.text();
    }
    return s;
}

/// A schema the validator refuses (errc::schema_invalid): malformed, beyond a limit, or using a
/// keyword or pattern it does not implement. `what()` reads `schema at #/POINTER: message`,
/// after `SOURCE: ` when the schema came from a file.
class schema_error : public error {
public:
    schema_error(std::string pointer, std::string message, std::string source = {})
        : error(errc::schema_invalid, (source.empty() ? std::string() : source + ": ") + "schema at #" + pointer + ": " + message),
          pointer_(std::move(pointer)),
          message_(std::move(message)),
          source_(std::move(source)) {}

    /// JSON pointer of the place in the schema ("" for the whole schema).
    const std::string& pointer() const noexcept { return pointer_; }
    /// The message alone.
    const std::string& message() const noexcept { return message_; }
    /// Where the schema came from (a file name), or "".
    const std::string& source() const noexcept { return source_; }

private:
    std::string pointer_;
    std::string message_;
    std::string source_;
};

}  // namespace parley

#endif
