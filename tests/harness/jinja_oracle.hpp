// Renders templates with Python Jinja2 through the shared oracle (tools/jinja-oracle of the
// shared directory, batch mode), for tests that compare parley's output with the reference. The
// shared directory is PARLEY_TEST_SHARED_DIR (set by tests/CMakeLists.txt); the interpreter is
// PARLEY_PYTHON (default: python3), which must be the reference the tests are written against
// (tests/harness/reference_python.py: CPython 3.11, Jinja2 3.1.6, MarkupSafe 3.0). Anything missing,
// or another reference, is a failed check, never a skipped test.
#ifndef PARLEY_TESTS_HARNESS_JINJA_ORACLE_HPP
#define PARLEY_TESTS_HARNESS_JINJA_ORACLE_HPP

#include "subprocess.hpp"

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

namespace jinja_oracle {

/// One template to render, with its context, in the oracle's "plain" or "hf" environment.
struct render_case {
    std::string source;
    boost::json::value context;
    std::string env = "plain";
};

/// What Python Jinja2 made of a case: the output, or the error it raised.
struct result {
    std::optional<std::string> output;
    std::string error;
};

/// The shared directory, or empty (with a failed check) when the test was built without it.
inline std::filesystem::path shared_dir() {
#if defined(PARLEY_TEST_SHARED_DIR)
    return PARLEY_TEST_SHARED_DIR;
#else
    FAIL_CHECK("PARLEY_TEST_SHARED_DIR is not defined: the test cannot find the shared corpus and oracle");
    return {};
#endif
}

/// The bytes of a file; nothing (and a failed check naming the file) when it cannot be read.
inline std::optional<std::string> read_file(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        FAIL_CHECK("cannot read " << path.string());
        return std::nullopt;
    }
    std::stringstream text;
    text << f.rdbuf();
    return text.str();
}

using subprocess::shell_quote;
using subprocess::temp_path;

/// The interpreter that runs the oracle: PARLEY_PYTHON, or python3.
inline std::string python() {
    const char* env_python = std::getenv("PARLEY_PYTHON");
    return env_python && *env_python ? env_python : "python3";
}

/// Whether python() is the reference (tests/harness/reference_python.py), asked once per process;
/// when it is not, a failed check with the script's message, which names what it found.
inline bool reference_ok() {
    static const std::string problem = [] {
        const std::string dir = subprocess::source_dir();
        if (dir.empty()) return std::string("PARLEY_TEST_SOURCE_DIR is not defined: the test cannot find "
                                            "tests/harness/reference_python.py");
        const auto log = temp_path("reference.log");
        const std::string cmd = shell_quote(python()) + " " + shell_quote(dir + "/tests/harness/reference_python.py") +
                                " > " + shell_quote(log.string()) + " 2>&1";
        const int status = std::system(cmd.c_str());
        std::stringstream text;
        {
            std::ifstream f(log);
            text << f.rdbuf();
        }
        std::filesystem::remove(log);
        if (status == 0) return std::string();
        return "the reference Python is not the one these tests need (status " + std::to_string(status) + " of " +
               cmd + "): " + text.str();
    }();
    if (!problem.empty()) FAIL_CHECK(problem);
    return problem.empty();
}

/// Renders every case with Python Jinja2 in one run of the oracle. Returns one result per case,
/// or an empty vector (and a failed check saying why) when the oracle cannot be run.
inline std::vector<result> render(const std::vector<render_case>& cases) {
    const std::filesystem::path dir = shared_dir();
    if (dir.empty()) return {};
    const std::filesystem::path oracle = dir / "tools" / "jinja-oracle";
    if (!std::filesystem::exists(oracle)) {
        FAIL_CHECK("the oracle " << oracle.string() << " is missing");
        return {};
    }
    if (!reference_ok()) return {};
    const auto in = temp_path("in.jsonl");
    const auto out = temp_path("out.jsonl");
    {
        std::ofstream f(in, std::ios::binary);
        for (const render_case& c : cases)
            f << boost::json::serialize(boost::json::object{{"template", c.source}, {"context", c.context}, {"env", c.env}})
              << '\n';
    }
    const std::string cmd = shell_quote(python()) + " " + shell_quote(oracle.string()) + " --batch < " +
                            shell_quote(in.string()) + " > " + shell_quote(out.string());
    const int status = std::system(cmd.c_str());
    std::filesystem::remove(in);
    std::vector<result> results;
    if (status != 0) {
        FAIL_CHECK("the oracle failed (status " << status << "): " << cmd);
        std::filesystem::remove(out);
        return results;
    }
    std::ifstream f(out, std::ios::binary);
    for (std::string line; std::getline(f, line);) {
        const boost::json::value r = boost::json::parse(line);
        result x;
        if (const auto* o = r.as_object().if_contains("output"))
            x.output = std::string(o->as_string());
        else
            x.error = std::string(r.at("error").as_string());
        results.push_back(std::move(x));
    }
    f.close();
    std::filesystem::remove(out);
    if (results.size() != cases.size()) {
        FAIL_CHECK("the oracle answered " << results.size() << " cases of " << cases.size());
        results.clear();
    }
    return results;
}

/// Where two texts first differ, with a little of each around it (for failure messages).
inline std::string first_difference(const std::string& a, const std::string& b) {
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    const std::size_t from = i < 40 ? 0 : i - 40;
    return "at byte " + std::to_string(i) + ":\n  parley: ..." + a.substr(from, 80) + "\n  Jinja2: ..." + b.substr(from, 80);
}

}  // namespace jinja_oracle

#endif
