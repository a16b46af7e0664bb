// Compile-fail tests of the schema layer's static_asserts (json_schema.hpp, annotations,
// function_signature.hpp, from_json/to_json, commands.hpp): snippets that must not compile, and
// the message the compiler must give (fmt's expect_compile), compiled by
// tests/harness/subprocess.hpp.
#include <parley/schema/json_schema.hpp>

#include "../harness/subprocess.hpp"

#include <doctest/doctest.h>

#include <string>

namespace {

using subprocess::compile_result;
using subprocess::compile_snippet;

// The first line of the compiler's output that reports an error (g++ and clang++ both write
// "error:"), or "".
std::string first_error_line(const std::string& output) {
    const std::size_t at = output.find("error:");
    if (at == std::string::npos) return {};
    const std::size_t begin = output.rfind('\n', at);
    const std::size_t end = output.find('\n', at);
    return output.substr(begin == std::string::npos ? 0 : begin + 1, end == std::string::npos ? end : end - begin - 1);
}

// Whether a line of `text` holds both `a` and `b`.
bool has_line_with(const std::string& text, const std::string& a, const std::string& b) {
    std::size_t begin = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(begin, end - begin);
        if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return true;
        begin = end + 1;
    }
    return false;
}

// How many times `what` occurs in `text`.
std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

const char* const prelude = R"(
#include <parley/schema.hpp>
#include <boost/describe/class.hpp>
#include <map>
#include <string>
#include <vector>
)";

TEST_CASE("json_schema: the snippet harness compiles a correct use") {
    const compile_result r = compile_snippet(R"(
struct ok { int x; };
BOOST_DESCRIBE_STRUCT(ok, (), (x))
static_assert(!parley::json_schema_text<ok>.empty());
int main() {}
)", {}, prelude);
    INFO(r.output);
    CHECK(r.compiled);
}

TEST_CASE("json_schema: what cannot be described is a static_assert that says what to do") {
    const compile_result r = compile_snippet(R"(
struct not_described { int x; };
struct holder { int a; std::vector<not_described> items; };
BOOST_DESCRIBE_STRUCT(holder, (), (a, items))
auto s = parley::json_schema_text<holder>;
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("parley cannot describe this type (named in the instantiation notes)") != std::string::npos);
    CHECK(r.output.find("BOOST_DESCRIBE_STRUCT") != std::string::npos);
    // the culprit is named, however deep it is
    CHECK(r.output.find("cannot_describe<not_described>") != std::string::npos);
}

TEST_CASE("json_schema: what has no strict form is a static_assert naming the type") {
    const compile_result r = compile_snippet(R"(
struct with_map { std::map<std::string, int> counts; };
BOOST_DESCRIBE_STRUCT(with_map, (), (counts))
auto a = parley::strict_json_schema_text<with_map>;
auto b = parley::strict_json_schema_text<std::vector<int>>;
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("this type (named in the instantiation notes) has no OpenAI strict form") != std::string::npos);
    CHECK(r.output.find("cannot_be_strict<std::map<") != std::string::npos);
    CHECK(r.output.find("needs a struct described with BOOST_DESCRIBE_STRUCT at the root") != std::string::npos);
}

TEST_CASE("json_schema: exceeding an OpenAI limit is a static_assert naming the limit") {
    std::string chain = "struct d11 { int x; };\nBOOST_DESCRIBE_STRUCT(d11, (), (x))\n";
    for (int i = 10; i >= 0; --i) {
        chain += "struct d" + std::to_string(i) + " { d" + std::to_string(i + 1) + " next; };\n";
        chain += "BOOST_DESCRIBE_STRUCT(d" + std::to_string(i) + ", (), (next))\n";
    }
    const compile_result r = compile_snippet(chain + R"(
auto fine = parley::json_schema_text<d0>;
auto strict = parley::strict_json_schema_text<d0>;
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("at most 10 levels of object nesting") != std::string::npos);
}

TEST_CASE("json_schema: each OpenAI limit passed by one is a static_assert naming that limit") {
    // On the counts directly: 5000 properties need more schema text than g++ evaluates by
    // default, and the type-based boundaries are in json_schema_test.cpp.
    const compile_result r = compile_snippet(R"(
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
)", {}, prelude);
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
    CHECK(count(r.output, "OpenAI strict mode allows") == 5);
}

TEST_CASE("json_schema: conversions, signatures and commands of types they cannot take stop the compiler") {
    const compile_result r = compile_snippet(R"snippet(
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
)snippet", {}, prelude);
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

TEST_CASE("from_json: a struct without a default constructor is named by the static_assert, before anything else") {
    const compile_result r = compile_snippet(R"(
struct p {
    explicit p(int v) : x(v) {}
    int x;
};
BOOST_DESCRIBE_STRUCT(p, (), (x))
struct q {
    explicit q(int v) : y(v) {}
    int y;
};
BOOST_DESCRIBE_STRUCT(q, (), (y))
struct holder { std::vector<q> items; };
BOOST_DESCRIBE_STRUCT(holder, (), (items))
auto top = parley::from_json<p>(boost::json::value());
auto nested = parley::from_json<holder>(boost::json::value());
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    const std::string message =
        "from_json builds structs member by member: give the struct (named in the instantiation notes) a default "
        "constructor";
    CHECK(first_error_line(r.output).find(message) != std::string::npos);
    // once for p itself, once for q inside holder, and nothing from the reader's body
    CHECK(count(r.output, message) == 2);
    CHECK(r.output.find("needs_default_constructor<p>") != std::string::npos);
    CHECK(r.output.find("needs_default_constructor<q>") != std::string::npos);
    CHECK(r.output.find("no matching") == std::string::npos);
    CHECK(count(r.output, "error:") == 2);
}

TEST_CASE("parse_commands: a command without a default constructor is a static_assert") {
    const compile_result r = compile_snippet(R"snippet(
struct Go {
    explicit Go(int s) : steps(s) {}
    int steps;
};
BOOST_DESCRIBE_STRUCT(Go, (), (steps))
auto commands = parley::parse_commands<Go>("Go(1)");
)snippet", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(first_error_line(r.output).find("parse_commands builds a command member by member: give each command type "
                                          "a default constructor") != std::string::npos);
    CHECK(count(r.output, "error:") == 1);
}

TEST_CASE("PARLEY_ANNOTATE: written where parley does not look for it, it is a compile error saying where to write it") {
    const compile_result r = compile_snippet(R"(
namespace app {
struct p { int x; };
BOOST_DESCRIBE_STRUCT(p, (), (x))
struct q { int y; };
BOOST_DESCRIBE_STRUCT(q, (), (y))
struct r { int z; };
BOOST_DESCRIBE_STRUCT(r, (), (z))
inline auto early = parley::json_schema_text<r>;
PARLEY_ANNOTATE(r, "annotated after a use")
}  // namespace app
PARLEY_ANNOTATE(app::p, "described outside", (x, minimum(3)))
namespace other {
PARLEY_ANNOTATE(app::q, "in another namespace")
}
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    const std::string where = "is written where parley does not look for it: write it at namespace scope in the "
                              "namespace that declares ";
    CHECK(first_error_line(r.output).find("PARLEY_ANNOTATE(") != std::string::npos);
    CHECK(r.output.find("PARLEY_ANNOTATE(app::p, ...) " + where + "app::p, after its BOOST_DESCRIBE_STRUCT or "
                        "BOOST_DESCRIBE_ENUM, and before app::p is used with parley") != std::string::npos);
    CHECK(r.output.find("PARLEY_ANNOTATE(app::q, ...) " + where + "app::q") != std::string::npos);
    CHECK(r.output.find("PARLEY_ANNOTATE(r, ...) " + where + "r") != std::string::npos);
}

TEST_CASE("PARLEY_ANNOTATE: a second one for the same type, written elsewhere, is a compile error") {
    const compile_result r = compile_snippet(R"(
namespace app {
struct p { int x; };
BOOST_DESCRIBE_STRUCT(p, (), (x))
PARLEY_ANNOTATE(p, "the right place", (x, minimum(3)))
}  // namespace app
PARLEY_ANNOTATE(app::p, "a second place", (x, minimum(4)))
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("parley_annotations") != std::string::npos);
    CHECK(r.output.find("ambiguous") != std::string::npos);
}

TEST_CASE("PARLEY_ANNOTATE: in the namespace of its type, it is found and used") {
    const compile_result r = compile_snippet(R"(
namespace app {
struct p { int x; };
BOOST_DESCRIBE_STRUCT(p, (), (x))
PARLEY_ANNOTATE(p, "described inside", (x, minimum(3)))
}  // namespace app
static_assert(parley::json_schema_text<app::p>.find("\"description\":\"described inside\"") != std::string_view::npos);
static_assert(parley::json_schema_text<app::p>.find("\"minimum\":3") != std::string_view::npos);
int main() {}
)", {}, prelude);
    INFO(r.output);
    CHECK(r.compiled);
}

TEST_CASE("PARLEY_ANNOTATE: a mistake is a compile error even where only conversions and commands are used") {
    // The issue's case: nothing makes a schema.
    const compile_result r = compile_snippet(R"(
struct p { int x; std::string y; };
BOOST_DESCRIBE_STRUCT(p, (), (x, y))
PARLEY_ANNOTATE(p, (x, max_length(2)), (y, "no such member"))
auto from = parley::from_json<p>(boost::json::value());
auto to = parley::to_json(p{});
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(first_error_line(r.output).find("min_length/max_length/pattern/format apply to strings only") !=
          std::string::npos);
}

TEST_CASE("from_json, to_json and parse_commands check the annotations of every type they reach") {
    // PARLEY_DETAIL_ANNOTATIONS is PARLEY_ANNOTATE without its own check: each use must find the
    // mistake of the type it reaches by itself.
    const compile_result r = compile_snippet(R"snippet(
struct read_inner { std::string s; };
BOOST_DESCRIBE_STRUCT(read_inner, (), (s))
PARLEY_DETAIL_ANNOTATIONS(read_inner, (s, minimum(1)))
struct read_outer { std::vector<read_inner> items; };
BOOST_DESCRIBE_STRUCT(read_outer, (), (items))

#include <boost/describe/enum.hpp>
enum class colour { red, green };
BOOST_DESCRIBE_ENUM(colour, red, green)
PARLEY_DETAIL_ANNOTATIONS(colour, (blue, "not an enumerator"))
struct written { std::optional<colour> c; };
BOOST_DESCRIBE_STRUCT(written, (), (c))

struct Go { int steps; };
BOOST_DESCRIBE_STRUCT(Go, (), (steps))
PARLEY_DETAIL_ANNOTATIONS(Go, (steps, min_items(1)))

auto from = parley::from_json<read_outer>(boost::json::value());
auto to = parley::to_json(written{});
auto commands = parley::parse_commands<Go>("Go(1)");
)snippet", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("PARLEY_ANNOTATE: minimum/maximum/exclusive_minimum/exclusive_maximum/multiple_of apply to "
                        "numbers only") != std::string::npos);
    CHECK(r.output.find("PARLEY_ANNOTATE names an enumerator that BOOST_DESCRIBE_ENUM does not list") !=
          std::string::npos);
    CHECK(r.output.find("PARLEY_ANNOTATE: min_items/max_items apply to arrays only") != std::string::npos);
}

TEST_CASE("PARLEY_ANNOTATE: the first error line says what is wrong, and the notes name the type and member") {
    const compile_result r = compile_snippet(R"(
namespace app {
struct p { int count; };
BOOST_DESCRIBE_STRUCT(p, (), (count))
PARLEY_ANNOTATE(p, (count, pattern("^[0-9]+$")))
}  // namespace app
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(first_error_line(r.output).find("PARLEY_ANNOTATE: min_length/max_length/pattern/format apply to strings "
                                          "only") != std::string::npos);
    CHECK(count(r.output, "error:") == 1);
    // a note names the type and the member, as characters (both compilers show them so)
    CHECK(has_line_with(r.output, "app::p", "'c', 'o', 'u', 'n', 't'"));
}

TEST_CASE("json_schema: annotation mistakes and bad default names stop the compiler") {
    const compile_result r = compile_snippet(R"(
struct p { int x; };
BOOST_DESCRIBE_STRUCT(p, (), (x))
PARLEY_ANNOTATE(p, (x, pattern("^[0-9]+$")))
auto s = parley::json_schema_text<p>;

template <class T> struct box { T v; };
BOOST_DESCRIBE_STRUCT(box<int>, (), (v))
auto n = parley::function_name<box<int>>;
)", {}, prelude);
    INFO(r.output);
    CHECK(!r.compiled);
    CHECK(r.output.find("apply to strings only") != std::string::npos);
    CHECK(r.output.find("not a valid function name") != std::string::npos);
}

}  // namespace
