// Runs tests/support/schema_check.py (Python's jsonschema) on schemas and instances made by the
// schema tests, through files and std::system like the other Python-checked tests. Set
// PARLEY_PYTHON to choose the interpreter (default: python3).
#ifndef PARLEY_TESTS_SUPPORT_SCHEMA_CHECK_HPP
#define PARLEY_TESTS_SUPPORT_SCHEMA_CHECK_HPP

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
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

inline std::string source_dir() {
#if defined(PARLEY_TEST_SOURCE_DIR)
    return PARLEY_TEST_SOURCE_DIR;
#else
    return {};
#endif
}

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

inline std::filesystem::path temp_path(const char* what) {
    static std::mt19937_64 rng{std::random_device{}()};
    char name[80];
    std::snprintf(name, sizeof name, "parley-schema-%016llx-%s", static_cast<unsigned long long>(rng()), what);
    return std::filesystem::temp_directory_path() / name;
}

/// Validates every case with jsonschema; an empty result (and a failed check saying why) when
/// Python cannot be run.
inline std::vector<case_result> run(const std::vector<check_case>& cases) {
    const std::string dir = source_dir();
    if (dir.empty()) {
        FAIL_CHECK("PARLEY_TEST_SOURCE_DIR is not defined: the test cannot find tests/support/schema_check.py");
        return {};
    }
    boost::json::array list;
    for (const auto& c : cases) {
        boost::json::array instances(c.instances.begin(), c.instances.end());
        list.push_back(boost::json::object{{"name", c.name}, {"schema", c.schema}, {"instances", std::move(instances)}});
    }
    const auto in = temp_path("in.json");
    const auto out = temp_path("out.json");
    {
        std::ofstream f(in, std::ios::binary);
        f << boost::json::serialize(boost::json::object{{"cases", std::move(list)}});
    }
    const char* env_python = std::getenv("PARLEY_PYTHON");
    const std::string python = env_python && *env_python ? env_python : "python3";
    const std::string cmd = shell_quote(python) + " " + shell_quote(dir + "/tests/support/schema_check.py") + " " +
                            shell_quote(in.string()) + " " + shell_quote(out.string());
    const int status = std::system(cmd.c_str());
    std::filesystem::remove(in);
    if (status != 0) {
        FAIL_CHECK("schema_check.py failed (status " << status << "): " << cmd);
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
