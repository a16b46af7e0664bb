// parley/schema/validator.hpp: schema_validator, a JSON Schema given at run time (a file, a
// request) checked against values: the keywords of draft 2020-12 and draft-07 that structured
// output uses, verdicts and messages as Python's jsonschema gives them, patterns matched in
// linear time, and limits on the work. A keyword it does not implement is refused when the schema
// is read, never ignored. See docs/extraction.md, "Validating with a JSON Schema given at run time".
#ifndef PARLEY_SCHEMA_VALIDATOR_HPP
#define PARLEY_SCHEMA_VALIDATOR_HPP

#include <parley/error.hpp>
#include <parley/schema/detail/json_parser.hpp>
#include <parley/schema/detail/schema_eval.hpp>
#include <parley/schema/detail/schema_program.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/validation.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// A JSON Schema read once and applied to any number of values. Copies share the read schema;
/// a validator may be used from several threads at once.
///
/// Keywords: type (a name or an array of names), enum, const; properties, patternProperties,
/// additionalProperties, propertyNames, required, minProperties, maxProperties,
/// dependentRequired, dependentSchemas (draft-07: dependencies); items, prefixItems (draft-07:
/// items as an array, additionalItems), contains with minContains and maxContains, minItems,
/// maxItems, uniqueItems; minLength, maxLength (in code points), pattern; minimum, maximum,
/// exclusiveMinimum, exclusiveMaximum, multipleOf; allOf, anyOf, oneOf, not, if/then/else;
/// $ref to a JSON pointer inside the schema (`#/$defs/NAME`, `#/definitions/NAME`, `#`), and
/// the annotations (title, description, default, examples, format, $comment, deprecated,
/// readOnly, writeOnly, contentEncoding, contentMediaType; `format` is not checked, as
/// jsonschema does not by default). Patterns are ECMA-262's, less what ecma_regex.hpp refuses.
class schema_validator {
public:
    /// Reads `schema` (`$schema` chooses the draft, else options.dialect). Throws schema_error
    /// (errc::schema_invalid) naming the JSON pointer of what is malformed, beyond a limit, or
    /// not implemented (an unknown keyword, unevaluatedProperties, an anchor, a $ref out of the
    /// document, a pattern with a lookahead, a $ref cycle that never reaches into the value...).
    explicit schema_validator(boost::json::value schema, const schema_options& options = {}) {
        auto p = std::make_shared<detail::validation::program>();
        p->document = std::move(schema);
        p->dialect = options.dialect;
        p->limits = options.limits;
        detail::validation::compiler(*p).run();
        program_ = std::move(p);
    }

    /// Reads a schema from JSON text (numbers read exactly). Throws schema_error, also for text
    /// that is not JSON (with its line and column); `source` (a file name) begins the messages.
    static schema_validator from_text(std::string_view text, const schema_options& options = {}, std::string_view source = {}) {
        json_text_options parse;
        parse.max_depth = options.limits.max_depth + 1;  // one more: the validator names the limit itself
        parse.max_size = text.size() + 1;
        auto a = detail::json_text::parse_at(text, 0, text.size(), parse, true);
        if (a.error) throw schema_error("", "not valid JSON: " + a.error->message(), std::string(source));
        try {
            return schema_validator(std::move(*a.value), options);
        } catch (const schema_error& e) {
            if (source.empty()) throw;
            throw schema_error(e.pointer(), e.message(), std::string(source));
        }
    }

    /// Reads a schema from a JSON file. Throws schema_error naming the file.
    static schema_validator from_file(const std::string& path, const schema_options& options = {}) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw error(errc::invalid_argument, "cannot read the schema file " + path);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        return from_text(text, options, path);
    }

    /// Every way `instance` does not fit (at most limits().max_errors), in the order of the
    /// schema's keywords; empty when it fits. A value nested deeper than
    /// limits().max_instance_depth gives one violation that says so. Throws parley::error
    /// (errc::schema_limit) when the work passes max_steps or max_ref_depth.
    std::vector<schema_violation> validate(const boost::json::value& instance) const {
        std::vector<schema_violation> out;
        if (std::string where; too_deep(instance, 1, where)) {
            out.push_back({where, "", "", "the value is nested deeper than " + std::to_string(program_->limits.max_instance_depth) +
                                              " arrays and objects (schema_limits::max_instance_depth)", {}});
            return out;
        }
        detail::validation::evaluator(*program_).apply(0, instance, &out);
        return out;
    }

    /// Whether `instance` fits (stops at the first violation). Throws as validate.
    bool is_valid(const boost::json::value& instance) const {
        if (std::string where; too_deep(instance, 1, where)) return false;
        return detail::validation::evaluator(*program_).apply(0, instance, nullptr);
    }

    /// The schema, as read.
    const boost::json::value& schema() const noexcept { return program_->document; }
    /// The draft the schema is read as.
    schema_dialect dialect() const noexcept { return program_->dialect; }
    /// The limits it was read with.
    const schema_limits& limits() const noexcept { return program_->limits; }

private:
    bool too_deep(const boost::json::value& v, std::size_t depth, std::string& where) const {
        if (!v.is_array() && !v.is_object()) return false;
        if (depth > program_->limits.max_instance_depth) return true;
        const std::size_t mark = where.size();
        if (const auto* a = v.if_array()) {
            for (std::size_t i = 0; i < a->size(); ++i) {
                where += '/' + std::to_string(i);
                if (too_deep((*a)[i], depth + 1, where)) return true;
                where.resize(mark);
            }
        } else {
            for (const auto& m : v.get_object()) {
                where += '/';
                detail::validation::append_pointer_token(where, m.key());
                if (too_deep(m.value(), depth + 1, where)) return true;
                where.resize(mark);
            }
        }
        return false;
    }

    std::shared_ptr<const detail::validation::program> program_;
};

}  // namespace parley

#endif
