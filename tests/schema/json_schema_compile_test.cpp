// Compile-fail tests of parley/schema/json_schema.hpp and parley/schema/function_signature.hpp:
// snippets that must not compile, and the message the compiler must give (fmt's
// expect_compile). The snippets are compiled with the compiler family that built this test
// (g++ or clang++ from PATH, or PARLEY_CXX), against the repository's headers.
#include <parley/schema/json_schema.hpp>

#include "../support/schema_check.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string compiler() {
    if (const char* cxx = std::getenv("PARLEY_CXX"); cxx && *cxx) return cxx;
#if defined(__clang__)
    return "clang++";
#else
    return "g++";
#endif
}

struct compile_result {
    bool compiled = false;
    std::string output;
};

/// Compiles a translation unit (syntax and templates only, no code) and returns what the
/// compiler said.
compile_result compile(const std::string& source) {
    const auto file = schema_check::temp_path("snippet.cpp");
    const auto log = schema_check::temp_path("snippet.log");
    {
        std::ofstream f(file);
        f << source;
    }
    const std::string cmd = schema_check::shell_quote(compiler()) + " -std=c++20 -fsyntax-only -I" +
                            schema_check::shell_quote(schema_check::source_dir() + "/include") + " " +
                            schema_check::shell_quote(file.string()) + " > " + schema_check::shell_quote(log.string()) +
                            " 2>&1";
    compile_result r;
    r.compiled = std::system(cmd.c_str()) == 0;
    std::stringstream text;
    {
        std::ifstream f(log);
        text << f.rdbuf();
    }
    r.output = text.str();
    std::filesystem::remove(file);
    std::filesystem::remove(log);
    return r;
}

const char* const prelude = R"(
#include <parley/schema.hpp>
#include <boost/describe/class.hpp>
#include <map>
#include <string>
#include <vector>
)";

TEST_CASE("json_schema: the snippet harness compiles a correct use") {
    const compile_result r = compile(std::string(prelude) + R"(
struct ok { int x; };
BOOST_DESCRIBE_STRUCT(ok, (), (x))
static_assert(!parley::json_schema_text<ok>.empty());
int main() {}
)");
    INFO(r.output);
    CHECK(r.compiled);
}

TEST_CASE("json_schema: what cannot be described is a static_assert that says what to do") {
    const compile_result r = compile(std::string(prelude) + R"(
struct not_described { int x; };
struct holder { int a; std::vector<not_described> items; };
BOOST_DESCRIBE_STRUCT(holder, (), (a, items))
auto s = parley::json_schema_text<holder>;
)");
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("parley cannot describe this type") != std::string::npos);
    CHECK(r.output.find("BOOST_DESCRIBE_STRUCT") != std::string::npos);
    // the culprit is named, however deep it is
    CHECK(r.output.find("cannot_describe<not_described>") != std::string::npos);
}

TEST_CASE("json_schema: what has no strict form is a static_assert naming the type") {
    const compile_result r = compile(std::string(prelude) + R"(
struct with_map { std::map<std::string, int> counts; };
BOOST_DESCRIBE_STRUCT(with_map, (), (counts))
auto a = parley::strict_json_schema_text<with_map>;
auto b = parley::strict_json_schema_text<std::vector<int>>;
)");
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("has no OpenAI strict form") != std::string::npos);
    CHECK(r.output.find("cannot_be_strict<std::map<") != std::string::npos);
    CHECK(r.output.find("needs a struct described with BOOST_DESCRIBE_STRUCT at the root") != std::string::npos);
}

TEST_CASE("json_schema: exceeding an OpenAI limit is a static_assert naming the limit") {
    std::string chain = "struct d11 { int x; };\nBOOST_DESCRIBE_STRUCT(d11, (), (x))\n";
    for (int i = 10; i >= 0; --i) {
        chain += "struct d" + std::to_string(i) + " { d" + std::to_string(i + 1) + " next; };\n";
        chain += "BOOST_DESCRIBE_STRUCT(d" + std::to_string(i) + ", (), (next))\n";
    }
    const compile_result r = compile(std::string(prelude) + chain + R"(
auto fine = parley::json_schema_text<d0>;
auto strict = parley::strict_json_schema_text<d0>;
)");
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("at most 10 levels of object nesting") != std::string::npos);
}

TEST_CASE("json_schema: annotation mistakes and bad default names stop the compiler") {
    const compile_result r = compile(std::string(prelude) + R"(
struct p { int x; };
BOOST_DESCRIBE_STRUCT(p, (), (x))
PARLEY_ANNOTATE(p, (x, pattern("^[0-9]+$")))
auto s = parley::json_schema_text<p>;

template <class T> struct box { T v; };
BOOST_DESCRIBE_STRUCT(box<int>, (), (v))
auto n = parley::function_name<box<int>>;
)");
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("apply to strings only") != std::string::npos);
    CHECK(r.output.find("not a valid function name") != std::string::npos);
}

}  // namespace
