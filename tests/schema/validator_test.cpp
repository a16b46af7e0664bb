// Tests of parley/schema/validator.hpp (and validation.hpp).
//
// The reference is Python's jsonschema, asked at test time by tests/schema/validator_reference.py:
// - the hand-written table tests/schema/validator_cases.json (every keyword, both drafts, $refs,
//   patterns, numbers at the edges, Python's way of writing values in messages; schemas refused
//   by name, and malformed ones that jsonschema's meta-schema check refuses too);
// - random schemas and instances made by the script from a seed (PARLEY_SCHEMA_SEED and
//   PARLEY_SCHEMA_CASES choose others for a longer run).
// For each instance the verdict and every violation (instance pointer, schema pointer, keyword,
// message, and the context of anyOf and oneOf) must be jsonschema's; jsonschema's schema paths
// leave out the $refs they went through, so ours are compared without them, and it places the
// violation of a `false` subschema at the keyword that applied it (see to_jsonschema_place).
#include <parley/schema/validator.hpp>

#include "../harness/subprocess.hpp"

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace validator_test {

boost::json::value read_json(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    const std::string s = text.str();
    parley::json_text_options options;
    options.max_depth = 1000;
    options.max_size = s.size() + 1;
    auto a = parley::detail::json_text::parse_at(s, 0, s.size(), options, true);
    REQUIRE_MESSAGE(a.value.has_value(), path.string() << " is not JSON");
    return std::move(*a.value);
}

/// jsonschema's results for `args` (cases IN, or random SEED N), as the script writes them.
boost::json::value reference(std::vector<std::string> args) {
    const auto out = subprocess::temp_path("validator-reference.json");
    args.push_back(out.string());
    boost::json::value v;
    if (subprocess::run_python("../schema/validator_reference.py", args)) v = read_json(out);
    std::filesystem::remove(out);
    return v;
}

std::string without_refs(std::string path) {
    for (std::size_t at; (at = path.find("/$ref")) != std::string::npos && (at + 5 == path.size() || path[at + 5] == '/');)
        path.erase(at, 5);
    return path;
}

/// The tokens of a JSON pointer (still escaped).
std::vector<std::string> tokens_of(const std::string& pointer) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < pointer.size();) {
        const std::size_t next = pointer.find('/', at + 1);
        out.push_back(pointer.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
        at = next == std::string::npos ? pointer.size() : next;
    }
    return out;
}

std::string pointer_of(const std::vector<std::string>& tokens) {
    std::string s;
    for (const auto& t : tokens) s += "/" + t;
    return s;
}

/// jsonschema reports the violation of a `false` subschema at the place of the keyword that
/// applied it: its `descend` yields the error before adding the property, item, alternative...
/// (parley gives the subschema's own place, as the specification's keywordLocation is). Moves
/// our paths to where jsonschema puts them, to compare the rest.
void to_jsonschema_place(std::string& instance_path, std::string& schema_path) {
    std::vector<std::string> schema = tokens_of(schema_path), instance = tokens_of(instance_path);
    // which tokens are arguments of a keyword (a property name, an index)
    static const std::vector<std::string> with_argument = {"properties", "patternProperties", "$defs", "definitions",
                                                           "dependentSchemas", "dependencies", "allOf", "anyOf", "oneOf", "prefixItems"};
    auto digits = [](const std::string& t) { return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos; };
    std::vector<bool> argument(schema.size(), false);
    for (std::size_t i = 0; i < schema.size();) {
        const bool takes = std::find(with_argument.begin(), with_argument.end(), schema[i]) != with_argument.end() ||
                           (schema[i] == "items" && i + 1 < schema.size() && digits(schema[i + 1]));
        if (takes && i + 1 < schema.size()) {
            argument[i + 1] = true;
            i += 2;
        } else {
            ++i;
        }
    }
    if (schema.empty()) return;
    const std::string last = schema.back();
    auto drop_instance = [&] {
        if (!instance.empty()) instance.pop_back();
    };
    if (argument.back()) {
        const std::string& keyword = schema[schema.size() - 2];
        if (keyword == "properties" || keyword == "patternProperties" || keyword == "prefixItems" || keyword == "items") drop_instance();
        schema.pop_back();
    } else if (last == "items" || last == "additionalItems" || last == "additionalProperties") {
        drop_instance();
    } else if (last == "then" || last == "else") {
        schema.pop_back();
    }
    schema_path = pointer_of(schema);
    instance_path = pointer_of(instance);
}

/// A violation as the script writes an error, its context sorted, in a canonical text.
boost::json::value as_json(const parley::schema_violation& v);

std::vector<std::string> sorted_texts(const boost::json::array& errors) {
    std::vector<std::string> out;
    for (const auto& e : errors) out.push_back(boost::json::serialize(e));
    std::sort(out.begin(), out.end());
    return out;
}

boost::json::value canonical(const boost::json::value& error) {
    boost::json::object o;
    o["instance_path"] = error.at("instance_path");
    o["schema_path"] = error.at("schema_path");
    o["keyword"] = error.at("keyword");
    o["message"] = error.at("message");
    boost::json::array context;
    for (const std::string& t : sorted_texts(error.at("context").as_array())) context.push_back(boost::json::parse(t));
    boost::json::array canonical_context;
    for (const auto& c : context) canonical_context.push_back(canonical(c));
    o["context"] = std::move(canonical_context);
    return o;
}

boost::json::value as_json(const parley::schema_violation& v) {
    boost::json::array context;
    for (const auto& c : v.context) context.push_back(as_json(c));
    std::string instance_path = v.instance_path, schema_path = v.schema_path;
    if (v.keyword.empty()) to_jsonschema_place(instance_path, schema_path);
    return boost::json::object{{"instance_path", instance_path},
                               {"schema_path", without_refs(schema_path)},
                               {"keyword", v.keyword},
                               {"message", v.message},
                               {"context", std::move(context)}};
}

std::vector<std::string> ours(const std::vector<parley::schema_violation>& violations) {
    boost::json::array a;
    for (const auto& v : violations) a.push_back(canonical(as_json(v)));
    return sorted_texts(a);
}

std::vector<std::string> theirs(const boost::json::array& errors) {
    boost::json::array a;
    for (const auto& e : errors) a.push_back(canonical(e));
    return sorted_texts(a);
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += "\n  " + l;
    return s;
}

/// Options that show whole values, so that messages compare with jsonschema's.
parley::schema_options whole_values() {
    parley::schema_options o;
    o.limits.max_value_text = 100000;
    o.limits.max_errors = 100000;
    return o;
}

struct tally {
    std::size_t cases = 0, instances = 0, valid = 0, violations = 0, refused = 0;
};

/// Compares every case of jsonschema's report with the validator's answers.
void compare(const boost::json::value& report, tally& t) {
    for (const auto& c : report.at("cases").as_array()) {
        const std::string name(c.at("name").as_string());
        const std::string schema_text = boost::json::serialize(c.at("schema"));
        CAPTURE(name);
        CAPTURE(schema_text);
        ++t.cases;
        const bool meta_invalid = !c.at("schema_error").is_null();
        if (const auto* refused = c.as_object().if_contains("refused")) {
            ++t.refused;
            try {
                parley::schema_validator v(c.at("schema"), whole_values());
                FAIL_CHECK("the schema was not refused; expected: " << refused->as_string());
            } catch (const parley::schema_error& e) {
                CHECK(e.code() == parley::errc::schema_invalid);
                CHECK_MESSAGE(std::string(e.what()).find(refused->as_string()) != std::string::npos,
                              "refused with: " << e.what() << "\nexpected: " << refused->as_string());
            }
            const bool expect_meta = c.as_object().contains("meta_invalid");
            CHECK_MESSAGE(meta_invalid == expect_meta, "jsonschema's meta-schema check: "
                                                           << (meta_invalid ? c.at("schema_error").as_string().c_str() : "passes"));
            continue;
        }
        REQUIRE_MESSAGE(!meta_invalid, "jsonschema refuses the schema: " << c.at("schema_error").as_string());
        std::optional<parley::schema_validator> v;
        try {
            v.emplace(c.at("schema"), whole_values());
        } catch (const parley::error& e) {
            FAIL_CHECK("refused: " << e.what());
            continue;
        }
        const auto& instances = c.at("instances").as_array();
        const auto& results = c.at("results").as_array();
        REQUIRE(instances.size() == results.size());
        for (std::size_t i = 0; i < instances.size(); ++i) {
            const std::string instance_text = boost::json::serialize(instances[i]);
            CAPTURE(instance_text);
            ++t.instances;
            const bool expected_valid = results[i].at("valid").as_bool();
            t.valid += expected_valid;
            const std::vector<parley::schema_violation> got = v->validate(instances[i]);
            CHECK(got.empty() == expected_valid);
            CHECK(v->is_valid(instances[i]) == expected_valid);
            const std::vector<std::string> mine = ours(got), reference_errors = theirs(results[i].at("errors").as_array());
            t.violations += reference_errors.size();
            CHECK_MESSAGE(mine == reference_errors, "parley:" << joined(mine) << "\njsonschema:" << joined(reference_errors));
        }
    }
}

std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

}  // namespace validator_test

TEST_CASE("schema_validator: the hand-written cases, as jsonschema judges them") {
    using namespace validator_test;
    const std::string cases = subprocess::source_dir() + "/tests/schema/validator_cases.json";
    const boost::json::value report = reference({"cases", cases});
    if (report.is_null()) return;  // run_python failed the test already
    tally t;
    compare(report, t);
    MESSAGE(t.cases << " cases (" << t.refused << " refused), " << t.instances << " instances (" << t.valid << " valid), "
                    << t.violations << " violations compared");
    CHECK(t.instances > 250);
    CHECK(t.refused > 30);
}

TEST_CASE("schema_validator: random schemas and instances, as jsonschema judges them") {
    using namespace validator_test;
    const std::string seed = env_or("PARLEY_SCHEMA_SEED", "20250617");
    const std::string count = env_or("PARLEY_SCHEMA_CASES", "500");
    const auto started = std::chrono::steady_clock::now();
    const boost::json::value report = reference({"random", seed, count});
    if (report.is_null()) return;
    tally t;
    compare(report, t);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    MESSAGE("seed " << seed << ": " << t.cases << " schemas, " << t.instances << " instances (" << t.valid << " valid), "
                    << t.violations << " violations compared in " << seconds << " s");
    // both verdicts are frequent: the instances are made near the schemas
    CHECK(t.valid * 5 > t.instances);
    CHECK((t.instances - t.valid) * 5 > t.instances);
}

TEST_CASE("schema_validator: violations name the keyword through the $refs, and read as a model is told them") {
    const auto v = parley::schema_validator::from_text(R"({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/item"}}},
        "required": ["items", "total"],
        "$defs": {"item": {"type": "object", "properties": {"price": {"type": "number", "minimum": 0}}}}
    })");
    const auto errors = v.validate(boost::json::parse(R"({"items": [{"price": 1}, {"price": -2}]})"));
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].instance_path == "/items/1/price");
    CHECK(errors[0].schema_path == "/properties/items/items/$ref/properties/price/minimum");
    CHECK(errors[0].keyword == "minimum");
    CHECK(errors[0].message == "-2 is less than the minimum of 0");
    CHECK(errors[0].text() == "/items/1/price: -2 is less than the minimum of 0");
    CHECK(errors[1].text() == "'total' is a required property");
    CHECK(parley::violations_text(errors) ==
          "/items/1/price: -2 is less than the minimum of 0\n'total' is a required property");
    CHECK(v.dialect() == parley::schema_dialect::draft2020_12);
    const parley::schema_validator copy = v;  // copies share the schema
    CHECK(&copy.schema() == &v.schema());
}

TEST_CASE("schema_validator: the options' dialect for a schema without $schema") {
    parley::schema_options o;
    o.dialect = parley::schema_dialect::draft7;
    const parley::schema_validator v(boost::json::parse(R"({"items": [{"type": "string"}], "additionalItems": false})"), o);
    CHECK(v.dialect() == parley::schema_dialect::draft7);
    CHECK(v.is_valid(boost::json::parse(R"(["a"])")));
    CHECK(v.validate(boost::json::parse(R"(["a", 1])")).front().message == "Additional items are not allowed (1 was unexpected)");
    CHECK_THROWS_WITH_AS(parley::schema_validator(boost::json::parse(R"({"prefixItems": [{}]})"), o),
                         doctest::Contains("is a keyword of draft 2020-12, not of draft-07"), parley::schema_error);
}

TEST_CASE("schema_validator: patterns are ECMA-262's, where Python's re reads them otherwise") {
    // jsonschema uses Python's re: these verdicts are the ECMA-262 ones (the JSON Schema
    // specification's), which docs/extraction.md lists as differences.
    auto fits = [](const char* pattern, const char* text) {
        boost::json::object s;
        s["pattern"] = pattern;
        return parley::schema_validator(s).is_valid(boost::json::value(text));
    };
    CHECK_FALSE(fits("^\\d$", "\xd9\xa3"));  // ARABIC-INDIC DIGIT THREE: \d is ASCII only
    CHECK_FALSE(fits("^\\w+$", "caf\xc3\xa9"));  // \w is ASCII only
    CHECK_FALSE(fits("^a$", "a\n"));  // $ is the end of the text, not before a last line break
    CHECK_FALSE(fits("^.$", "\r"));  // . does not take \r, \u2028, \u2029
    CHECK(fits("^\\s$", "\xef\xbb\xbf"));  // \s takes U+FEFF
    CHECK(fits("^(?<year>[0-9]{4})$", "2024"));  // named groups
    CHECK(fits("^\\uD83D\\uDE00$", "\xf0\x9f\x98\x80"));  // a surrogate pair is one code point
    CHECK(fits("^.$", "\xf0\x9f\x98\x80"));  // . takes a code point
    CHECK_FALSE(fits("^caf\xc3\xa9\\b", "caf\xc3\xa9"));  // \b between ASCII word characters and others
}

TEST_CASE("schema_validator: patterns match in linear time") {
    // (a*)*b and (a|a)*b take exponential time in a backtracking engine on a's without a b
    boost::json::object s;
    s["pattern"] = "^(a*)*b$";
    const parley::schema_validator v(s);
    boost::json::object t;
    t["pattern"] = "^(a|aa)*(a|aa)*(a|aa)*c$";
    const parley::schema_validator w(t);
    const std::string text(50000, 'a');
    const auto started = std::chrono::steady_clock::now();
    CHECK_FALSE(v.is_valid(boost::json::value(text)));
    CHECK_FALSE(w.is_valid(boost::json::value(text)));
    CHECK(v.is_valid(boost::json::value(text + "b")));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    MESSAGE("three searches of 50,000 characters: " << seconds << " s");
    CHECK(seconds < 20);  // a generous bound: sanitizers, -O0 and a loaded machine included
}

TEST_CASE("schema_validator: limits of the schema and of the instance") {
    parley::schema_options o;
    o.limits.max_values = 10;
    CHECK_THROWS_WITH_AS(parley::schema_validator(boost::json::parse(R"({"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})"), o),
                         "schema at #: the schema has more than 10 JSON values (schema_limits::max_values)", parley::schema_error);
    o = {};
    o.limits.max_depth = 3;
    CHECK_THROWS_WITH_AS(parley::schema_validator(boost::json::parse(R"({"properties": {"a": {"properties": {"b": {}}}}})"), o),
                         "schema at #: the schema is nested deeper than 3 arrays and objects (schema_limits::max_depth)",
                         parley::schema_error);
    o = {};
    o.limits.max_pattern_length = 8;
    CHECK_THROWS_WITH_AS(parley::schema_validator(boost::json::parse(R"({"pattern": "abcdefghi"})"), o),
                         doctest::Contains("a pattern of 9 bytes, above the limit of 8"), parley::schema_error);

    o = {};
    o.limits.max_instance_depth = 3;
    const parley::schema_validator v(boost::json::parse(R"({"type": "object"})"), o);
    CHECK(v.is_valid(boost::json::parse(R"({"a": [{"b": 1}]})")));
    const auto errors = v.validate(boost::json::parse(R"({"a": [{"b": [1]}]})"));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].instance_path == "/a/0/b");
    CHECK(errors[0].message == "the value is nested deeper than 3 arrays and objects (schema_limits::max_instance_depth)");
    CHECK_FALSE(v.is_valid(boost::json::parse(R"({"a": [{"b": [1]}]})")));

    // a schema whose work doubles with each definition: stopped by max_steps
    std::string defs = R"({"$defs": {"d0": {"type": "integer"})";
    for (int i = 1; i <= 40; ++i)
        defs += ", \"d" + std::to_string(i) + "\": {\"anyOf\": [{\"$ref\": \"#/$defs/d" + std::to_string(i - 1) +
                "\"}, {\"$ref\": \"#/$defs/d" + std::to_string(i - 1) + "\"}]}";
    defs += R"(}, "$ref": "#/$defs/d40"})";
    o = {};
    o.limits.max_steps = 100000;
    const parley::schema_validator exponential(boost::json::parse(defs), o);
    CHECK(exponential.is_valid(boost::json::value(1)));  // the first alternatives fit at once
    CHECK_THROWS_WITH_AS(exponential.validate(boost::json::value("x")),
                         "the validation applied more than 100000 subschemas (schema_limits::max_steps)", parley::error);
    try {
        (void)exponential.is_valid(boost::json::value("x"));
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::schema_limit);
    }

    // max_ref_depth: a recursive schema on a deep value
    o = {};
    o.limits.max_ref_depth = 5;
    const parley::schema_validator tree(boost::json::parse(R"({"properties": {"next": {"$ref": "#"}}})"), o);
    CHECK(tree.is_valid(boost::json::parse(R"({"next": {"next": {"next": {}}}})")));
    CHECK_THROWS_WITH_AS(tree.is_valid(boost::json::parse(R"({"next": {"next": {"next": {"next": {"next": {"next": {}}}}}}})")),
                         "the validation followed more than 5 $refs inside one another (schema_limits::max_ref_depth)", parley::error);

    // max_errors and max_value_text
    o = {};
    o.limits.max_errors = 2;
    o.limits.max_value_text = 12;
    const parley::schema_validator each(boost::json::parse(R"({"items": {"type": "string"}})"), o);
    const auto some = each.validate(boost::json::parse(R"([1, 2, 3, 4])"));
    CHECK(some.size() == 2);
    const auto cut = each.validate(boost::json::parse(R"([[1234567890, 1234567890]])"));
    REQUIRE(cut.size() == 1);
    CHECK(cut[0].message == "[1234567890,... is not of type 'string'");
}

TEST_CASE("schema_validator: from_text and from_file name the place of a JSON error") {
    CHECK_THROWS_WITH_AS(parley::schema_validator::from_text("{\n  \"type\": \"object\",\n  \"required\": [\"a\",]\n}", {}, "s.json"),
                         "s.json: schema at #: not valid JSON: expected valid JSON, found \"]\\n}\" at line 3, column 20, offset 41 "
                         "(syntax error)",
                         parley::schema_error);
    CHECK_THROWS_WITH_AS(parley::schema_validator::from_text(R"({"properties": {"a": {"type": 1}}})", {}, "s.json"),
                         doctest::Contains("s.json: schema at #/properties/a/type: expected a type name"), parley::schema_error);
    const auto path = subprocess::temp_path("schema.json");
    {
        std::ofstream f(path);
        f << R"({"type": "integer", "maximum": 3})";
    }
    const auto v = parley::schema_validator::from_file(path.string());
    std::filesystem::remove(path);
    CHECK(v.is_valid(boost::json::value(3)));
    CHECK_FALSE(v.is_valid(boost::json::value(4)));
    CHECK_THROWS_WITH_AS(parley::schema_validator::from_file(path.string()), doctest::Contains("cannot read the schema file"),
                         parley::error);
}
