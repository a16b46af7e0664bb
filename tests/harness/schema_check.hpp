// Runs tests/harness/schema_check.py (Python's jsonschema) on schemas and instances made by the
// schema tests (see subprocess.hpp for how the script is run).
#ifndef PARLEY_TESTS_HARNESS_SCHEMA_CHECK_HPP
#define PARLEY_TESTS_HARNESS_SCHEMA_CHECK_HPP

#include "subprocess.hpp"

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace schema_check {

/// One schema and the instances to validate against it.
struct check_case {
    std::string name;
    boost::json::value schema;
    std::vector<boost::json::value> instances;
};

/// What jsonschema said about one case.
struct case_result {
    std::string name;
    std::optional<std::string> schema_error;  ///< meta-schema violation
    std::vector<std::string> annotation_errors;  ///< defaults or examples that do not validate
    std::vector<bool> valid;  ///< one per instance
    std::vector<std::string> errors;  ///< one per instance, empty when valid
};

/// Validates every case with jsonschema; an empty result (and a failed check saying why) when
/// Python cannot be run.
inline std::vector<case_result> run(const std::vector<check_case>& cases) {
    boost::json::array list;
    for (const auto& c : cases) {
        boost::json::array instances(c.instances.begin(), c.instances.end());
        list.push_back(boost::json::object{{"name", c.name}, {"schema", c.schema}, {"instances", std::move(instances)}});
    }
    const auto in = subprocess::temp_path("in.json");
    const auto out = subprocess::temp_path("out.json");
    {
        std::ofstream f(in, std::ios::binary);
        f << boost::json::serialize(boost::json::object{{"cases", std::move(list)}});
    }
    const bool ran = subprocess::run_python("schema_check.py", {in.string(), out.string()});
    std::filesystem::remove(in);
    if (!ran) {
        std::filesystem::remove(out);
        return {};
    }
    std::stringstream text;
    {
        std::ifstream f(out, std::ios::binary);
        text << f.rdbuf();
    }
    std::filesystem::remove(out);
    boost::json::parse_options options;
    options.max_depth = 10000;
    const boost::json::value report = boost::json::parse(text.str(), {}, options);
    std::vector<case_result> results;
    for (const auto& r : report.at("cases").as_array()) {
        case_result cr;
        cr.name = std::string(r.at("name").as_string());
        if (!r.at("schema_error").is_null()) cr.schema_error = std::string(r.at("schema_error").as_string());
        for (const auto& e : r.at("annotation_errors").as_array()) cr.annotation_errors.emplace_back(e.as_string());
        for (const auto& v : r.at("results").as_array()) {
            cr.valid.push_back(v.at("valid").as_bool());
            cr.errors.emplace_back(v.at("error").is_null() ? "" : std::string(v.at("error").as_string()));
        }
        results.push_back(std::move(cr));
    }
    if (results.size() != cases.size()) FAIL_CHECK("schema_check.py answered " << results.size() << " cases of " << cases.size());
    return results;
}

/// Parses JSON text written in a test.
inline boost::json::value json(const char* text) { return boost::json::parse(text); }

}  // namespace schema_check

#endif
