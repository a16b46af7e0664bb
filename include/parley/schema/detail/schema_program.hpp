// parley/schema/detail/schema_program.hpp: a JSON Schema read once into what the validator runs:
// one node per schema (object or boolean), each a list of steps, one per keyword that checks
// something, in the schema's order (the order of Python jsonschema's errors); its patterns
// compiled; its `$ref`s resolved to nodes. Everything the schema says is checked on the way (the
// types of the keywords' values, as the draft's meta-schema says them), and a keyword the
// validator does not implement is refused by name.
#ifndef PARLEY_SCHEMA_DETAIL_SCHEMA_PROGRAM_HPP
#define PARLEY_SCHEMA_DETAIL_SCHEMA_PROGRAM_HPP

#include <parley/detail/json_kind.hpp>
#include <parley/schema/detail/ecma_regex.hpp>
#include <parley/schema/detail/schema_values.hpp>
#include <parley/schema/validation.hpp>

#include <boost/json/value.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace parley::detail::validation {

inline constexpr std::uint32_t no_node = 0xFFFFFFFFu;

/// The keywords that check something (annotations, `$defs`, `then`, `else`, `minContains`...
/// are read into the steps of others, or checked and left out).
enum class keyword : std::uint8_t {
    type, enum_, const_,
    properties, pattern_properties, additional_properties, property_names, required,
    min_properties, max_properties, dependent_required, dependent_schemas, dependencies,
    items, items_each, items_array, prefix_items, additional_items, contains, contains_draft7,
    min_items, max_items, unique_items,
    min_length, max_length, pattern,
    minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of,
    all_of, any_of, one_of, not_, if_, ref,
};

enum type_bit : std::uint8_t {
    t_null = 1, t_boolean = 2, t_integer = 4, t_number = 8, t_string = 16, t_array = 32, t_object = 64,
};

/// One keyword of a schema, ready to run.
struct step {
    keyword k = keyword::type;
    std::string_view name;  ///< the keyword as the schema writes it
    const boost::json::value* value = nullptr;  ///< the keyword's value
    std::uint8_t types = 0;  ///< type
    std::uint64_t count = 0;  ///< minItems, maxLength...
    std::uint32_t child = no_node;  ///< the subschema of additionalProperties, items, not, if, $ref...
    std::uint32_t then_child = no_node;  ///< if
    std::uint32_t else_child = no_node;  ///< if
    std::vector<std::uint32_t> children;  ///< allOf, anyOf, oneOf, prefixItems, draft-07's items array
    /// properties, patternProperties, dependentSchemas, dependencies (no_node: a list of names)
    std::vector<std::pair<std::string_view, std::uint32_t>> members;
    std::vector<std::uint32_t> regexes;  ///< pattern; patternProperties; additionalProperties (its siblings')
    const boost::json::object* properties = nullptr;  ///< additionalProperties: its sibling properties
    bool has_pattern_properties = false;  ///< additionalProperties: a sibling patternProperties
    std::vector<std::string_view> pattern_names;  ///< additionalProperties: the sibling patterns, sorted
    std::uint64_t prefix = 0;  ///< items: prefixItems' length; additionalItems: the items array's length
    std::uint64_t min_contains = 1;
    bool has_max_contains = false;
    std::uint64_t max_contains = 0;
};

/// One schema: a boolean, or an object's steps.
struct node {
    const boost::json::value* schema = nullptr;
    std::string pointer;  ///< where it is in the document
    std::vector<step> steps;
};

/// A schema read and ready: the document (which the nodes point into), its nodes (the root
/// first) and patterns.
struct program {
    boost::json::value document;
    schema_dialect dialect = schema_dialect::draft2020_12;
    schema_limits limits;
    std::vector<node> nodes;
    std::vector<ecma_regex::regex> regexes;
};

inline constexpr std::string_view dialect_2020_12 = "https://json-schema.org/draft/2020-12/schema";
inline constexpr std::string_view dialect_draft7 = "http://json-schema.org/draft-07/schema";

/// Reads a program's document into its nodes. Throws schema_error.
class compiler {
public:
    explicit compiler(program& p) : p_(p) {}

    void run() {
        measure();
        const boost::json::value& doc = p_.document;
        if (const auto* o = doc.if_object()) {
            if (const auto* id = o->if_contains("$id"); id && id->is_string()) {
                root_id_ = std::string(id->get_string());
                if (const auto hash = root_id_.find('#'); hash != std::string::npos) root_id_.resize(hash);
            }
            if (const auto* s = o->if_contains("$schema")) {
                if (!s->is_string()) expected("/$schema", "a string (the URI of a draft)", *s);
                std::string_view uri = s->get_string();
                if (uri.ends_with('#')) uri.remove_suffix(1);
                if (uri == dialect_2020_12) p_.dialect = schema_dialect::draft2020_12;
                else if (uri == dialect_draft7) p_.dialect = schema_dialect::draft7;
                else
                    fail("/$schema", "the dialect \"" + std::string(s->get_string()) + "\" is not supported (draft 2020-12, \"" +
                                         std::string(dialect_2020_12) + "\", and draft-07, \"" + std::string(dialect_draft7) +
                                         "#\", are)");
            }
        }
        compile(doc, "", true);
        for (std::size_t i = 0; i < pending_.size(); ++i) {
            const pending_ref r = pending_[i];  // a copy: compiling the target may add refs
            const std::uint32_t target = resolve(r);
            p_.nodes[r.node].steps[r.step].child = target;
        }
        check_cycles();
    }

private:
    struct pending_ref {
        std::uint32_t node;
        std::size_t step;
        std::string ref;
        std::string pointer;  // of the $ref keyword
    };

    [[noreturn]] static void fail(const std::string& pointer, std::string message) { throw schema_error(pointer, std::move(message)); }

    static std::string found(const boost::json::value& v) {
        std::string s = parley::detail::json_kind_name(v);
        if (v.is_string() || v.is_number() || v.is_bool()) s += " (" + repr(v, 60) + ")";
        return s;
    }
    [[noreturn]] static void expected(const std::string& pointer, const std::string& what, const boost::json::value& v) {
        fail(pointer, "expected " + what + ", found " + found(v));
    }

    static std::string join(const std::string& pointer, std::string_view token) {
        std::string s = pointer;
        s += '/';
        append_pointer_token(s, token);
        return s;
    }

    /// The size and depth of the document, before anything else reads it.
    void measure() {
        struct item {
            const boost::json::value* v;
            std::size_t depth;
        };
        std::vector<item> stack{{&p_.document, 0}};
        std::size_t values = 0;
        while (!stack.empty()) {
            const item it = stack.back();
            stack.pop_back();
            if (++values > p_.limits.max_values)
                fail("", "the schema has more than " + std::to_string(p_.limits.max_values) + " JSON values (schema_limits::max_values)");
            if (it.v->is_array() || it.v->is_object()) {
                if (it.depth + 1 > p_.limits.max_depth)
                    fail("", "the schema is nested deeper than " + std::to_string(p_.limits.max_depth) +
                                 " arrays and objects (schema_limits::max_depth)");
                if (const auto* a = it.v->if_array())
                    for (const auto& e : *a) stack.push_back({&e, it.depth + 1});
                else
                    for (const auto& m : it.v->get_object()) stack.push_back({&m.value(), it.depth + 1});
            }
        }
    }

    static std::uint64_t count_of(const std::string& pointer, const boost::json::value& v) {
        if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
        if (v.is_uint64()) return v.get_uint64();
        if (v.is_double() && is_integer(v) && v.get_double() >= 0)
            return v.get_double() >= 18446744073709551615.0 ? std::numeric_limits<std::uint64_t>::max()
                                                            : static_cast<std::uint64_t>(v.get_double());
        expected(pointer, "a whole number of at least 0", v);
    }

    static void unique_strings(const std::string& pointer, const boost::json::value& v) {
        if (!v.is_array()) expected(pointer, "an array of property names", v);
        std::unordered_set<std::string_view> seen;
        std::size_t i = 0;
        for (const auto& e : v.get_array()) {
            if (!e.is_string()) expected(join(pointer, std::to_string(i)), "a property name (a string)", e);
            if (!seen.insert(std::string_view(e.get_string())).second)
                fail(join(pointer, std::to_string(i)), "the name " + repr(e, 60) + " is in the list twice (its items must be unique)");
            ++i;
        }
    }

    std::uint32_t regex_of(const std::string& pointer, std::string_view source) {
        if (auto it = regexes_.find(std::string(source)); it != regexes_.end()) return it->second;
        if (source.size() > p_.limits.max_pattern_length)
            fail(pointer, "a pattern of " + std::to_string(source.size()) + " bytes, above the limit of " +
                              std::to_string(p_.limits.max_pattern_length) + " (schema_limits::max_pattern_length)");
        try {
            p_.regexes.push_back(ecma_regex::regex::compile(source, p_.limits.max_pattern_states));
        } catch (const ecma_regex::pattern_error& e) {
            fail(pointer, "the pattern " + repr(source, 120) + " is not supported: " + e.what());
        }
        const auto index = static_cast<std::uint32_t>(p_.regexes.size() - 1);
        regexes_.emplace(std::string(source), index);
        return index;
    }

    std::uint32_t schema_at(const boost::json::value& v, const std::string& pointer) { return compile(v, pointer, false); }

    std::vector<std::uint32_t> schema_list(const boost::json::value& v, const std::string& pointer) {
        if (!v.is_array() || v.get_array().empty()) expected(pointer, "a non-empty array of schemas", v);
        std::vector<std::uint32_t> out;
        std::size_t i = 0;
        for (const auto& e : v.get_array()) out.push_back(schema_at(e, join(pointer, std::to_string(i++))));
        return out;
    }

    std::vector<std::pair<std::string_view, std::uint32_t>> schema_map(const boost::json::value& v, const std::string& pointer) {
        if (!v.is_object()) expected(pointer, "an object of schemas", v);
        std::vector<std::pair<std::string_view, std::uint32_t>> out;
        for (const auto& m : v.get_object()) out.emplace_back(std::string_view(m.key()), schema_at(m.value(), join(pointer, m.key())));
        return out;
    }

    static std::uint8_t type_bit_of(std::string_view name) {
        if (name == "null") return t_null;
        if (name == "boolean") return t_boolean;
        if (name == "integer") return t_integer;
        if (name == "number") return t_number;
        if (name == "string") return t_string;
        if (name == "array") return t_array;
        if (name == "object") return t_object;
        return 0;
    }

    static std::uint8_t types_of(const std::string& pointer, const boost::json::value& v) {
        const char* what = "a type name (null, boolean, integer, number, string, array, object) or a non-empty array of them";
        if (v.is_string()) {
            const std::uint8_t b = type_bit_of(v.get_string());
            if (!b) expected(pointer, what, v);
            return b;
        }
        if (!v.is_array() || v.get_array().empty()) expected(pointer, what, v);
        std::uint8_t bits = 0;
        std::size_t i = 0;
        for (const auto& e : v.get_array()) {
            const std::string at = join(pointer, std::to_string(i++));
            const std::uint8_t b = e.is_string() ? type_bit_of(e.get_string()) : 0;
            if (!b) expected(at, "a type name (null, boolean, integer, number, string, array, object)", e);
            if (bits & b) fail(at, "the type " + repr(e, 40) + " is in the list twice (its items must be unique)");
            bits |= b;
        }
        return bits;
    }

    /// Why a keyword is refused, or "" when it is one the dialect has.
    std::string refusal(std::string_view key) const {
        static const std::unordered_set<std::string_view> not_implemented = {
            "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor", "$vocabulary",
            "unevaluatedProperties", "unevaluatedItems", "contentSchema"};
        if (not_implemented.contains(key))
            return "the keyword \"" + std::string(key) + "\" is not implemented by parley's validator";
        const bool draft7 = p_.dialect == schema_dialect::draft7;
        if (!draft7 && (key == "additionalItems" || key == "dependencies"))
            return "\"" + std::string(key) + "\" is a keyword of draft-07, not of draft 2020-12 (" +
                   (key == "dependencies" ? "which splits it into dependentRequired and dependentSchemas"
                                          : "where items applies to the items after prefixItems") +
                   "); a schema written for draft-07 says so with \"$schema\": \"" + std::string(dialect_draft7) + "#\"";
        if (draft7 && (key == "prefixItems" || key == "dependentRequired" || key == "dependentSchemas" || key == "minContains" ||
                       key == "maxContains"))
            return "\"" + std::string(key) + "\" is a keyword of draft 2020-12, not of draft-07 (this schema's $schema)";
        return {};
    }

    std::uint32_t compile(const boost::json::value& v, const std::string& pointer, bool root) {
        if (auto it = by_pointer_.find(pointer); it != by_pointer_.end()) return it->second;
        if (!v.is_object() && !v.is_bool()) expected(pointer, "a schema (an object or a boolean)", v);
        const auto index = static_cast<std::uint32_t>(p_.nodes.size());
        p_.nodes.push_back(node{&v, pointer, {}});
        by_pointer_.emplace(pointer, index);
        if (v.is_bool()) return index;

        const bool draft7 = p_.dialect == schema_dialect::draft7;
        std::vector<step> steps;
        const boost::json::object* properties = nullptr;
        const boost::json::value* pattern_properties = nullptr;
        std::vector<std::uint32_t> pattern_regexes;
        const boost::json::value* prefix_items = nullptr;
        const boost::json::value* items = nullptr;
        const boost::json::value* min_contains = nullptr;
        const boost::json::value* max_contains = nullptr;
        std::uint32_t then_child = no_node, else_child = no_node;
        bool has_ref = false;
        for (const auto& m : v.get_object()) {
            const std::string_view key = m.key();
            const boost::json::value& val = m.value();
            const std::string at = join(pointer, key);
            step s;
            s.name = key;
            s.value = &val;
            if (std::string r = refusal(key); !r.empty()) fail(at, r);
            if (key == "type") {
                s.k = keyword::type;
                s.types = types_of(at, val);
            } else if (key == "enum") {
                if (!val.is_array()) expected(at, "an array of values", val);
                s.k = keyword::enum_;
            } else if (key == "const") {
                s.k = keyword::const_;
            } else if (key == "properties") {
                s.k = keyword::properties;
                s.members = schema_map(val, at);
                properties = &val.get_object();
            } else if (key == "patternProperties") {
                s.k = keyword::pattern_properties;
                if (!val.is_object()) expected(at, "an object of schemas whose names are patterns", val);
                for (const auto& p : val.get_object()) s.regexes.push_back(regex_of(join(at, p.key()), p.key()));
                s.members = schema_map(val, at);
                pattern_properties = &val;
                pattern_regexes = s.regexes;
            } else if (key == "additionalProperties") {
                s.k = keyword::additional_properties;
                s.child = schema_at(val, at);
            } else if (key == "propertyNames") {
                s.k = keyword::property_names;
                s.child = schema_at(val, at);
            } else if (key == "required") {
                s.k = keyword::required;
                unique_strings(at, val);
            } else if (key == "minProperties" || key == "maxProperties") {
                s.k = key == "minProperties" ? keyword::min_properties : keyword::max_properties;
                s.count = count_of(at, val);
            } else if (key == "dependentRequired") {
                s.k = keyword::dependent_required;
                if (!val.is_object()) expected(at, "an object of arrays of property names", val);
                for (const auto& d : val.get_object()) unique_strings(join(at, d.key()), d.value());
            } else if (key == "dependentSchemas") {
                s.k = keyword::dependent_schemas;
                s.members = schema_map(val, at);
            } else if (key == "dependencies") {
                s.k = keyword::dependencies;
                if (!val.is_object()) expected(at, "an object of schemas or arrays of property names", val);
                for (const auto& d : val.get_object()) {
                    if (d.value().is_array()) {
                        unique_strings(join(at, d.key()), d.value());
                        s.members.emplace_back(std::string_view(d.key()), no_node);
                    } else {
                        s.members.emplace_back(std::string_view(d.key()), schema_at(d.value(), join(at, d.key())));
                    }
                }
            } else if (key == "items") {
                items = &val;
                if (draft7 && val.is_array()) {
                    s.k = keyword::items_array;
                    s.children = schema_list(val, at);
                } else {
                    if (!draft7 && val.is_array())
                        fail(at, "in draft 2020-12, items takes one schema (for the items after prefixItems); an array of "
                                 "schemas, one per position, is prefixItems");
                    s.k = draft7 ? keyword::items_each : keyword::items;
                    s.child = schema_at(val, at);
                }
            } else if (key == "prefixItems") {
                s.k = keyword::prefix_items;
                s.children = schema_list(val, at);
                prefix_items = &val;
            } else if (key == "additionalItems") {
                s.k = keyword::additional_items;
                s.child = schema_at(val, at);
            } else if (key == "contains") {
                s.k = draft7 ? keyword::contains_draft7 : keyword::contains;
                s.child = schema_at(val, at);
            } else if (key == "minContains" || key == "maxContains") {
                count_of(at, val);
                (key == "minContains" ? min_contains : max_contains) = &val;
                continue;
            } else if (key == "minItems" || key == "maxItems" || key == "minLength" || key == "maxLength") {
                s.k = key == "minItems" ? keyword::min_items
                    : key == "maxItems" ? keyword::max_items
                    : key == "minLength" ? keyword::min_length
                                         : keyword::max_length;
                s.count = count_of(at, val);
            } else if (key == "uniqueItems") {
                if (!val.is_bool()) expected(at, "a boolean", val);
                if (!val.get_bool()) continue;
                s.k = keyword::unique_items;
            } else if (key == "pattern") {
                if (!val.is_string()) expected(at, "a pattern (a string)", val);
                s.k = keyword::pattern;
                s.regexes.push_back(regex_of(at, val.get_string()));
            } else if (key == "minimum" || key == "maximum" || key == "exclusiveMinimum" || key == "exclusiveMaximum") {
                if (!is_number(val)) expected(at, "a number", val);
                s.k = key == "minimum" ? keyword::minimum
                    : key == "maximum" ? keyword::maximum
                    : key == "exclusiveMinimum" ? keyword::exclusive_minimum
                                                : keyword::exclusive_maximum;
            } else if (key == "multipleOf") {
                if (!is_number(val) || to_double(val) <= 0) expected(at, "a number above 0", val);
                s.k = keyword::multiple_of;
            } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
                s.k = key == "allOf" ? keyword::all_of : key == "anyOf" ? keyword::any_of : keyword::one_of;
                s.children = schema_list(val, at);
            } else if (key == "not") {
                s.k = keyword::not_;
                s.child = schema_at(val, at);
            } else if (key == "if") {
                s.k = keyword::if_;
                s.child = schema_at(val, at);
            } else if (key == "then" || key == "else") {
                (key == "then" ? then_child : else_child) = schema_at(val, at);
                continue;
            } else if (key == "$ref") {
                if (!val.is_string()) expected(at, "a reference (a string)", val);
                s.k = keyword::ref;
                has_ref = true;
                pending_.push_back({index, steps.size(), std::string(val.get_string()), at});
            } else if (key == "$defs" || key == "definitions") {
                schema_map(val, at);
                continue;
            } else if (key == "format" || key == "title" || key == "description" || key == "$comment" ||
                       key == "contentEncoding" || key == "contentMediaType") {
                if (!val.is_string()) expected(at, "a string", val);
                continue;  // annotations; formats are not checked (as jsonschema by default)
            } else if (key == "deprecated" || key == "readOnly" || key == "writeOnly") {
                if (!val.is_bool()) expected(at, "a boolean", val);
                continue;
            } else if (key == "default") {
                continue;
            } else if (key == "examples") {
                if (!val.is_array()) expected(at, "an array", val);
                continue;
            } else if (key == "$schema" || key == "$id") {
                if (!root)
                    fail(at, key == "$id" ? "\"$id\" inside a schema (an embedded resource) is not supported"
                                          : "\"$schema\" inside a schema (a second dialect) is not supported");
                if (!val.is_string()) expected(at, "a string", val);
                continue;
            } else {
                fail(at, "unknown keyword \"" + std::string(key) +
                             "\" (parley's validator refuses the keywords it does not implement rather than ignore them)");
            }
            steps.push_back(std::move(s));
        }
        // what a keyword reads of its siblings
        for (step& s : steps) {
            switch (s.k) {
            case keyword::additional_properties:
                s.properties = properties;
                s.has_pattern_properties = pattern_properties != nullptr;
                s.regexes = pattern_regexes;
                if (pattern_properties)
                    for (const auto& p : pattern_properties->get_object()) s.pattern_names.push_back(p.key());
                std::sort(s.pattern_names.begin(), s.pattern_names.end());
                break;
            case keyword::items: s.prefix = prefix_items ? prefix_items->get_array().size() : 0; break;
            case keyword::additional_items: s.prefix = items && items->is_array() ? items->get_array().size() : 0; break;
            case keyword::contains:
                if (min_contains) s.min_contains = count_of(pointer + "/minContains", *min_contains);
                if (max_contains) {
                    s.has_max_contains = true;
                    s.max_contains = count_of(pointer + "/maxContains", *max_contains);
                }
                break;
            case keyword::if_:
                s.then_child = then_child;
                s.else_child = else_child;
                break;
            default: break;
            }
        }
        // draft-07's additionalItems applies only after an array of items
        std::erase_if(steps, [&](const step& s) { return s.k == keyword::additional_items && !(items && items->is_array()); });
        if (draft7 && has_ref) {
            // draft-07: a $ref's siblings are ignored
            std::size_t at = 0;
            for (std::size_t i = 0; i < steps.size(); ++i)
                if (steps[i].k == keyword::ref) at = i;
            step r = std::move(steps[at]);
            steps.clear();
            steps.push_back(std::move(r));
            for (pending_ref& pr : pending_)
                if (pr.node == index) pr.step = 0;
        } else if (has_ref) {
            for (pending_ref& pr : pending_)
                if (pr.node == index)
                    for (std::size_t i = 0; i < steps.size(); ++i)
                        if (steps[i].k == keyword::ref) pr.step = i;
        }
        p_.nodes[index].steps = std::move(steps);
        return index;
    }

    /// The node a $ref names (compiled when it is not yet).
    std::uint32_t resolve(const pending_ref& r) {
        std::string_view ref = r.ref;
        if (!root_id_.empty() && ref.starts_with(root_id_)) ref.remove_prefix(root_id_.size());
        const std::size_t hash = ref.find('#');
        if (ref.substr(0, hash).size() != 0)
            fail(r.pointer, "a $ref to \"" + r.ref + "\": only references inside this schema (\"#\", \"#/$defs/NAME\", a JSON pointer) are supported");
        const std::string_view fragment = hash == std::string_view::npos ? std::string_view() : ref.substr(hash + 1);
        if (!fragment.empty() && fragment.front() != '/')
            fail(r.pointer, "a $ref to the anchor \"#" + std::string(fragment) + "\": anchors are not supported (use a JSON pointer, \"#/$defs/NAME\")");
        // percent-decoding (a URI fragment), then the pointer's tokens
        std::string decoded;
        for (std::size_t i = 0; i < fragment.size(); ++i) {
            if (fragment[i] != '%') {
                decoded += fragment[i];
                continue;
            }
            auto hex = [&](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
            if (i + 2 >= fragment.size() || hex(fragment[i + 1]) < 0 || hex(fragment[i + 2]) < 0)
                fail(r.pointer, "a $ref with a bad percent-escape: \"" + r.ref + "\"");
            decoded += static_cast<char>(hex(fragment[i + 1]) * 16 + hex(fragment[i + 2]));
            i += 2;
        }
        const boost::json::value* at = &p_.document;
        std::string canonical;
        std::size_t pos = 0;
        while (pos < decoded.size()) {
            const std::size_t next = decoded.find('/', pos + 1);
            const std::string raw = decoded.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
            pos = next == std::string::npos ? decoded.size() : next;
            std::string token;
            for (std::size_t i = 0; i < raw.size(); ++i) {
                if (raw[i] != '~') {
                    token += raw[i];
                } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
                    token += raw[i + 1] == '0' ? '~' : '/';
                    ++i;
                } else {
                    fail(r.pointer, "a $ref whose JSON pointer has a ~ that is not ~0 or ~1: \"" + r.ref + "\"");
                }
            }
            const boost::json::value* next_value = nullptr;
            if (const auto* o = at->if_object()) {
                next_value = o->if_contains(token);
            } else if (const auto* a = at->if_array()) {
                std::size_t index = 0;
                bool digits = !token.empty() && (token == "0" || token.front() != '0');
                for (char c : token) {
                    if (c < '0' || c > '9' || index > a->size()) digits = false;
                    else index = index * 10 + static_cast<std::size_t>(c - '0');
                }
                if (digits && index < a->size()) next_value = &(*a)[index];
            }
            if (!next_value) fail(r.pointer, "the $ref \"" + r.ref + "\" points to nothing in the schema");
            at = next_value;
            canonical = join(canonical, token);
        }
        return compile(*at, canonical, canonical.empty());
    }

    /// Refuses `$ref`s that lead back to where they started without going into a property or an
    /// item (they would apply a schema to the same value without end).
    void check_cycles() {
        const std::size_t n = p_.nodes.size();
        std::vector<std::uint8_t> state(n, 0);  // 0 new, 1 on the path, 2 done
        auto edges = [&](std::uint32_t at) {
            std::vector<std::uint32_t> out;
            for (const step& s : p_.nodes[at].steps) {
                switch (s.k) {
                case keyword::all_of:
                case keyword::any_of:
                case keyword::one_of: out.insert(out.end(), s.children.begin(), s.children.end()); break;
                case keyword::not_:
                case keyword::ref: out.push_back(s.child); break;
                case keyword::if_:
                    out.push_back(s.child);
                    if (s.then_child != no_node) out.push_back(s.then_child);
                    if (s.else_child != no_node) out.push_back(s.else_child);
                    break;
                case keyword::dependent_schemas:
                case keyword::dependencies:
                    for (const auto& m : s.members)
                        if (m.second != no_node) out.push_back(m.second);
                    break;
                default: break;
                }
            }
            return out;
        };
        struct frame {
            std::uint32_t node;
            std::vector<std::uint32_t> next;
            std::size_t i;
        };
        for (std::uint32_t start = 0; start < n; ++start) {
            if (state[start]) continue;
            std::vector<frame> path;
            path.push_back({start, edges(start), 0});
            state[start] = 1;
            while (!path.empty()) {
                frame& f = path.back();
                if (f.i == f.next.size()) {
                    state[f.node] = 2;
                    path.pop_back();
                    continue;
                }
                const std::uint32_t to = f.next[f.i++];
                if (state[to] == 1) {
                    std::string chain;
                    bool on = false;
                    for (const frame& g : path) {
                        on = on || g.node == to;
                        if (on) chain += "#" + p_.nodes[g.node].pointer + " -> ";
                    }
                    chain += "#" + p_.nodes[to].pointer;
                    fail(p_.nodes[to].pointer, "a $ref cycle that applies a schema to the same value without end (" + chain + ")");
                }
                if (state[to] == 0) {
                    state[to] = 1;
                    path.push_back({to, edges(to), 0});
                }
            }
        }
    }

    program& p_;
    std::string root_id_;
    std::unordered_map<std::string, std::uint32_t> by_pointer_;
    std::unordered_map<std::string, std::uint32_t> regexes_;
    std::vector<pending_ref> pending_;
};

}  // namespace parley::detail::validation

#endif
