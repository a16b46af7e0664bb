// Compile-fail tests of the schema layer's static_asserts (json_schema.hpp, annotations,
// function_signature.hpp, from_json/to_json, commands.hpp): snippets that must not compile, and
// the message the compiler must give (fmt's expect_compile), compiled by
// tests/support/subprocess.hpp.
#include <parley/schema/json_schema.hpp>

#include "../support/subprocess.hpp"

#include <doctest/doctest.h>

#include <string>

namespace {

using subprocess::compile_result;
using subprocess::compile_snippet;

const char* const prelude = R"(
#include <parley/schema.hpp>
#include <boost/describe/class.hpp>
#include <map>
#include <string>
#include <vector>
)";

TEST_CASE("json_schema: the snippet harness compiles a correct use") {
    const compile_result r = compile_snippet(std::string(prelude) + R"(
struct ok { int x; };
BOOST_DESCRIBE_STRUCT(ok, (), (x))
static_assert(!parley::json_schema_text<ok>.empty());
int main() {}
)");
    INFO(r.output);
    CHECK(r.compiled);
}

TEST_CASE("json_schema: what cannot be described is a static_assert that says what to do") {
    const compile_result r = compile_snippet(std::string(prelude) + R"(
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
    const compile_result r = compile_snippet(std::string(prelude) + R"(
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
    const compile_result r = compile_snippet(std::string(prelude) + chain + R"(
auto fine = parley::json_schema_text<d0>;
auto strict = parley::strict_json_schema_text<d0>;
)");
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("at most 10 levels of object nesting") != std::string::npos);
}

TEST_CASE("json_schema: each OpenAI limit passed by one is a static_assert naming that limit") {
    // On the counts directly: 5000 properties need more schema text than g++ evaluates by
    // default, and the type-based boundaries are in json_schema_test.cpp.
    const compile_result r = compile_snippet(std::string(prelude) + R"(
using parley::schema_stats;
template <schema_stats S>
constexpr bool within = (parley::detail::require_openai_limits<S>(), true);
static_assert(within<schema_stats{.properties = 5000, .enum_values = 1000, .string_chars = 120000,
                                  .large_enum_chars = 15000, .depth = 10}>);
bool a = within<schema_stats{.properties = 5001}>;
bool b = within<schema_stats{.enum_values = 1001}>;
bool c = within<schema_stats{.string_chars = 120001}>;
bool d = within<schema_stats{.large_enum_chars = 15001}>;
bool e = within<schema_stats{.depth = 11}>;
)");
    INFO(r.output);
    CHECK(!r.compiled);
    for (const char* message : {"OpenAI strict mode allows at most 5000 object properties in a schema",
                                "OpenAI strict mode allows at most 1000 enum values in a schema",
                                "OpenAI strict mode allows at most 120,000 characters of property names, definition "
                                "names and enum values",
                                "OpenAI strict mode allows at most 15,000 characters in an enum of more than 250 values",
                                "OpenAI strict mode allows at most 10 levels of object nesting"}) {
        CAPTURE(message);
        CHECK(r.output.find(message) != std::string::npos);
    }
    // one error per limit passed, none for the counts at the limits
    std::size_t errors = 0;
    for (std::size_t at = r.output.find("OpenAI strict mode allows"); at != std::string::npos;
         at = r.output.find("OpenAI strict mode allows", at + 1))
        ++errors;
    CHECK(errors == 5);
}

TEST_CASE("json_schema: conversions, signatures and commands of types they cannot take stop the compiler") {
    const compile_result r = compile_snippet(std::string(prelude) + R"snippet(
struct not_described { int x; };
struct holder { not_described inner; };
BOOST_DESCRIBE_STRUCT(holder, (), (inner))
struct with_map { std::map<std::string, int> m; };
BOOST_DESCRIBE_STRUCT(with_map, (), (m))
struct go { int steps; };
BOOST_DESCRIBE_STRUCT(go, (), (steps))
struct go_again { int steps; };
BOOST_DESCRIBE_STRUCT(go_again, (), (steps))
PARLEY_ANNOTATE(go_again, name("go"))

auto from = parley::from_json<holder>(boost::json::value());
auto to = parley::to_json(holder{});
auto signature = parley::function_signature<int>("f");
auto map_command = parley::parse_commands<with_map>("with_map()");
auto same_names = parley::parse_commands<go, go_again>("go(1)");
)snippet");
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("from_json<T>: T, or a type inside it, has no JSON form") != std::string::npos);
    CHECK(r.output.find("to_json cannot write this type") != std::string::npos);
    CHECK(r.output.find("function signatures take their parameters from a struct described with "
                        "BOOST_DESCRIBE_STRUCT") != std::string::npos);
    CHECK(r.output.find("a command is a struct described with BOOST_DESCRIBE_STRUCT whose members are") !=
          std::string::npos);
    CHECK(r.output.find("two command types have the same command name") != std::string::npos);
}

TEST_CASE("json_schema: annotation mistakes and bad default names stop the compiler") {
    const compile_result r = compile_snippet(std::string(prelude) + R"(
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
