// Tests of parley/batch/output.hpp and parley/batch/lines.hpp: input lines and their errors,
// output lines read back, and the output file: resumption, a last line cut short, lines that
// are not output lines, --retry-failed's rewrite.
#include <parley/batch/output.hpp>

#include <parley/batch/lines.hpp>
#include <parley/batch/runner.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

/// A file in a fresh temporary directory, removed at the end of the test.
struct temp_file {
    fs::path dir;
    fs::path path;
    explicit temp_file(std::string_view contents) {
        char templ[] = "/tmp/parley-batch-test-XXXXXX";
        dir = ::mkdtemp(templ);
        path = dir / "out.jsonl";
        std::ofstream(path, std::ios::binary) << contents;
    }
    ~temp_file() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string read() const {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
};

std::string input_error(std::string_view line) {
    std::optional<parley::batch_line_error> failure;
    auto in = parley::read_batch_input_line(line, 7, "in.jsonl", failure);
    REQUIRE_FALSE(in);
    REQUIRE(failure);
    return failure->message;
}

}  // namespace

TEST_CASE("input lines: an object with an id") {
    std::optional<parley::batch_line_error> failure;
    auto in = parley::read_batch_input_line(R"({"id": "a1", "text": "hello"})", 3, "in.jsonl", failure);
    REQUIRE(in);
    CHECK(in->id == boost::json::value("a1"));
    CHECK(in->data.at("text") == "hello");
    CHECK(in->line == 3);
    in = parley::read_batch_input_line("{\"id\": 17}\r", 4, "in.jsonl", failure);
    REQUIRE(in);
    CHECK(in->id == 17);
    // a blank line is neither an input nor an error
    CHECK_FALSE(parley::read_batch_input_line("  \t", 5, "in.jsonl", failure));
    CHECK_FALSE(failure);

    CHECK(input_error("[1, 2]") == "in.jsonl:7: expected a JSON object with an \"id\" (a string or an integer), found an array");
    CHECK(input_error(R"({"text": "x"})") == "in.jsonl:7: the object has no \"id\" (a string or an integer)");
    CHECK(input_error(R"({"id": 1.5})") == "in.jsonl:7: the id must be a string or an integer, found a number with a fraction or exponent");
    CHECK(input_error(R"({"id": null})") == "in.jsonl:7: the id must be a string or an integer, found null");
    CHECK(input_error(R"({"id": "a",)").starts_with("in.jsonl:7: not JSON ("));
    parley::batch_line_limits tight;
    tight.max_depth = 3;
    CHECK(parley::read_batch_input_line(R"({"id": 1, "x": [[[[1]]]]})", 1, "f", failure, tight) == std::nullopt);
    REQUIRE(failure);
    CHECK(failure->message.starts_with("f:1: not JSON ("));
}

TEST_CASE("output lines: the runner's lines read back") {
    parley::usage_summary usage;
    parley::call_error e;
    e.code = parley::make_error_code(parley::errc::http_status);
    e.status = 503;
    e.message = "overloaded";
    e.headers.add("x-request-id", "req_9");
    const std::string failed = parley::batch_error_line("\"b\"", e, usage, 3);
    const std::string ok = parley::batch_result_line("17", boost::json::value("fine"), usage, 1);
    CHECK(ok == "{\"id\":17,\"result\":\"fine\",\"usage\":{\"input_tokens\":0,\"output_tokens\":0,\"requests\":0},\"attempts\":1}\n");
    const auto v = boost::json::parse(failed);
    CHECK(v.at("error").at("code") == "http_status");
    CHECK(v.at("error").at("status") == 503);
    CHECK(v.at("error").at("request_id") == "req_9");
    CHECK(v.at("attempts") == 3);
    std::optional<parley::batch_line_error> failure;
    auto line = parley::read_batch_output_line(std::string_view(failed).substr(0, failed.size() - 1), 1, "out", failure);
    REQUIRE(line);
    CHECK(line->id_key == "\"b\"");
    CHECK(line->failed);
    line = parley::read_batch_output_line(R"({"id": 1, "result": 2, "error": 3})", 9, "out", failure);
    CHECK_FALSE(line);
    CHECK(failure->message == "out:9: an output line of a batch has either \"result\" or \"error\"; this one has both");
}

TEST_CASE("batch_file: the ids already written are done") {
    temp_file f("{\"id\":\"a\",\"result\":1}\n{\"id\":2,\"error\":{\"code\":\"timeout\"}}\n");
    parley::batch_file out(f.path);
    CHECK(out.done("\"a\""));
    CHECK(out.done("2"));
    CHECK_FALSE(out.done("\"2\""));  // the string "2" is another id than the number 2
    CHECK(out.state().lines == 2);
    CHECK(out.state().results == 1);
    CHECK(out.state().errors == 1);
    CHECK(out.state().cut_bytes == 0);
    out.write("{\"id\":\"c\",\"result\":3}\n");
    CHECK(f.read() == "{\"id\":\"a\",\"result\":1}\n{\"id\":2,\"error\":{\"code\":\"timeout\"}}\n{\"id\":\"c\",\"result\":3}\n");
}

TEST_CASE("batch_file: a last line cut short is cut off") {
    temp_file f("{\"id\":\"a\",\"result\":1}\n{\"id\":\"b\",\"res");
    parley::batch_file out(f.path);
    CHECK(out.done("\"a\""));
    CHECK_FALSE(out.done("\"b\""));
    CHECK(out.state().cut_bytes == 14);
    CHECK(out.state().cut_line == 2);
    CHECK(f.read() == "{\"id\":\"a\",\"result\":1}\n");
    out.write("{\"id\":\"b\",\"result\":2}\n");
    CHECK(f.read() == "{\"id\":\"a\",\"result\":1}\n{\"id\":\"b\",\"result\":2}\n");
}

TEST_CASE("batch_file: a file that is not a batch's output is refused, and left as it is") {
    SUBCASE("a line that is not an output line") {
        temp_file f("{\"id\":\"a\",\"result\":1}\nhello\n{\"id\":\"b\",\"result\":1}\n");
        CHECK_THROWS_WITH_AS(parley::batch_file(f.path),
                             (f.path.string() + ":2: not JSON (syntax error): \"hello\" (not an output line of a batch)").c_str(),
                             parley::error);
        CHECK(f.read() == "{\"id\":\"a\",\"result\":1}\nhello\n{\"id\":\"b\",\"result\":1}\n");
    }
    SUBCASE("an id twice") {
        temp_file f("{\"id\":\"a\",\"result\":1}\n{\"id\":\"a\",\"error\":{}}\n");
        CHECK_THROWS_WITH_AS(parley::batch_file(f.path),
                             (f.path.string() + ":2: the id \"a\" has a line already: the file is not the output of one batch").c_str(),
                             parley::error);
    }
}

TEST_CASE("batch_file: retry_failed drops the error lines") {
    temp_file f("{\"id\":1,\"result\":1}\n{\"id\":2,\"error\":{\"code\":\"timeout\"}}\n{\"id\":3,\"result\":3}\n{\"id\":4,\"res");
    parley::batch_file_options o;
    o.retry_failed = true;
    parley::batch_file out(f.path, o);
    CHECK(out.state().dropped_errors == 1);
    CHECK(out.done("1"));
    CHECK_FALSE(out.done("2"));
    CHECK(out.done("3"));
    CHECK(out.state().cut_bytes == 12);
    CHECK(f.read() == "{\"id\":1,\"result\":1}\n{\"id\":3,\"result\":3}\n");
    CHECK_FALSE(fs::exists(f.path.string() + ".parley-tmp"));
}

TEST_CASE("batch_file: a new file, and a byte order mark") {
    temp_file f("");
    fs::remove(f.path);
    {
        parley::batch_file out(f.path);
        CHECK(out.state().lines == 0);
        CHECK(fs::exists(f.path));
    }
    std::ofstream(f.path, std::ios::binary) << "\xEF\xBB\xBF{\"id\":1,\"result\":1}\n";
    parley::batch_file again(f.path);
    CHECK(again.done("1"));
}
