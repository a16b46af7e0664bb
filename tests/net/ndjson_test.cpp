// Tests of parley/net/ndjson.hpp: lines out of any chunking, line ends, blank lines, the limit,
// stopping early, the last line without its line end.
#include <parley/net/ndjson.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

using parley::net::ndjson_reader;

namespace {

std::vector<std::string> lines_of(std::string_view bytes, std::size_t piece, std::size_t max_line = 1 << 20) {
    ndjson_reader r(max_line);
    std::vector<std::string> out;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
        const auto ec = r.feed(bytes.substr(at, piece), [&](std::string_view line) { out.emplace_back(line); });
        REQUIRE_FALSE(ec);
    }
    if (r.pending()) out.push_back("<pending> " + r.take_pending());
    return out;
}

}  // namespace

TEST_CASE("ndjson_reader: the same lines whatever the chunking") {
    const std::string body = "{\"a\": 1}\n\n  \n{\"b\": \"x\\ny\"}\r\n{\"c\": 3}";
    const std::vector<std::string> expected = {"{\"a\": 1}", "{\"b\": \"x\\ny\"}", "<pending> {\"c\": 3}"};
    for (std::size_t piece = 1; piece <= body.size(); ++piece) {
        CAPTURE(piece);
        CHECK(lines_of(body, piece) == expected);
    }
}

TEST_CASE("ndjson_reader: a line over the limit fails, split or whole, and the reader stays failed") {
    for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{100}}) {
        CAPTURE(piece);
        ndjson_reader r(8);
        const std::string body = "12345678\n123456789\nok\n";
        std::vector<std::string> out;
        std::error_code ec;
        for (std::size_t at = 0; at < body.size() && !ec; at += piece)
            ec = r.feed(std::string_view(body).substr(at, piece), [&](std::string_view line) { out.emplace_back(line); });
        CHECK(ec == parley::make_error_code(parley::errc::protocol));
        CHECK(out == std::vector<std::string>{"12345678"});
        CHECK(r.failed());
        CHECK(r.failure().starts_with("a line of more than 8 bytes"));
        CHECK(r.feed("ok\n", [&](std::string_view line) { out.emplace_back(line); }) ==
              parley::make_error_code(parley::errc::protocol));
    }
    // a line at the limit with "\r\n" is not over it
    ndjson_reader r(8);
    std::vector<std::string> out;
    CHECK_FALSE(r.feed("1234567", [&](std::string_view line) { out.emplace_back(line); }));
    CHECK_FALSE(r.feed("8\r", [&](std::string_view line) { out.emplace_back(line); }));
    CHECK_FALSE(r.feed("\n", [&](std::string_view line) { out.emplace_back(line); }));
    CHECK(out == std::vector<std::string>{"12345678"});
}

TEST_CASE("ndjson_reader: a callback returning false stops after its line") {
    ndjson_reader r;
    std::vector<std::string> out;
    CHECK_FALSE(r.feed("a\nb\nc\n", [&](std::string_view line) {
        out.emplace_back(line);
        return line != "b";
    }));
    CHECK(out == std::vector<std::string>{"a", "b"});
    CHECK_FALSE(r.pending());
}
