// Tests of parley/net/sse.hpp: every rule of the WHATWG event-stream interpretation, any
// chunking, the limits, and the OpenAI recordings of ../shared/fixtures/openai-sse/ against a
// plain splitter written here and against tests/net/sse_reference.py (Python, from the
// specification's text).
#include <parley/net/sse.hpp>

#include "../harness/subprocess.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using parley::net::sse_event;
using parley::net::sse_limits;
using parley::net::sse_reader;

struct recorded {
    std::string event;
    std::string data;
    std::string id;
    friend bool operator==(const recorded&, const recorded&) = default;
    friend std::ostream& operator<<(std::ostream& os, const recorded& r) {
        return os << "{event '" << r.event << "', data '" << r.data << "', id '" << r.id << "'}";
    }
};

struct outcome {
    std::vector<recorded> events;
    std::error_code error;
    bool pending = false;
};

// Feeds `chunks` one after another and records every event.
outcome read_chunks(const std::vector<std::string>& chunks, sse_limits limits = {}) {
    sse_reader reader(limits);
    outcome out;
    for (const std::string& c : chunks) {
        out.error = reader.feed(c, [&](const sse_event& e) {
            out.events.push_back({std::string(e.event), std::string(e.data), std::string(e.id)});
        });
        if (out.error) break;
    }
    out.pending = reader.pending();
    return out;
}

outcome read_whole(const std::string& text) { return read_chunks({text}); }

std::vector<std::string> bytewise(const std::string& text) {
    std::vector<std::string> chunks;
    for (char c : text) chunks.emplace_back(1, c);
    return chunks;
}

std::vector<std::string> random_chunks(const std::string& text, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> size(1, 4096);
    std::vector<std::string> chunks;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t n = std::min(size(rng), text.size() - pos);
        chunks.push_back(text.substr(pos, n));
        pos += n;
    }
    return chunks;
}

// Every way of cutting `text` in two, plus byte by byte: all must give `expected`.
void check_every_split(const std::string& text, const std::vector<recorded>& expected) {
    CAPTURE(text);
    CHECK(read_whole(text).events == expected);
    CHECK(read_chunks(bytewise(text)).events == expected);
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        CAPTURE(cut);
        CHECK(read_chunks({text.substr(0, cut), text.substr(cut)}).events == expected);
    }
}

// The plain reading a careful programmer would write from the specification, for whole texts:
// split into complete lines, then apply the field rules. The reference for the recordings.
std::vector<recorded> plain_reading(std::string text) {
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
    std::vector<std::string> lines;
    std::string current;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\r' || c == '\n') {
            lines.push_back(current);
            current.clear();
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        } else {
            current += c;
        }
    }
    std::vector<recorded> events;
    std::string data, type, id_buffer;
    bool any_data = false;
    for (const std::string& line : lines) {
        if (line.empty()) {
            if (any_data) events.push_back({type, data, id_buffer});
            data.clear();
            type.clear();
            any_data = false;
            continue;
        }
        if (line[0] == ':') continue;
        const auto colon = line.find(':');
        std::string name = line.substr(0, colon);
        std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
        if (!value.empty() && value[0] == ' ') value.erase(0, 1);
        if (name == "data") {
            if (any_data) data += '\n';
            data += value;
            any_data = true;
        } else if (name == "event") {
            type = value;
        } else if (name == "id" && value.find('\0') == std::string::npos) {
            id_buffer = value;
        }
    }
    return events;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    std::string out;
    for (std::size_t pos = 0;;) {
        const auto hit = s.find(from, pos);
        out.append(s, pos, hit == std::string::npos ? std::string::npos : hit - pos);
        if (hit == std::string::npos) break;
        out += to;
        pos = hit + from.size();
    }
    return out;
}

fs::path fixtures_dir() { return fs::path(PARLEY_TEST_SHARED_DIR) / "fixtures" / "openai-sse"; }

// The twelve recordings ../shared/fixtures/README.md lists.
const std::vector<std::string> fixture_names = {
    "content-logprobs.sse",  "json-schema-nonpydantic.sse",   "json-schema-response.sse",
    "json-schema-three-choices.sse", "length-cutoff.sse", "non-strict-tool-call.sse",
    "parallel-tool-calls-with-usage.sse", "plain-text.sse", "refusal-logprobs.sse",
    "refusal.sse", "strict-tool-call.sse", "tool-call.sse"};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every *.sse file of the fixtures directory; a listed recording that is missing fails.
std::map<std::string, std::string> fixtures() {
    std::map<std::string, std::string> files;
    for (const std::string& name : fixture_names) {
        const fs::path path = fixtures_dir() / name;
        if (!fs::is_regular_file(path)) {
            FAIL_CHECK("missing recording " << path.string());
            continue;
        }
        files[name] = read_file(path);
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fixtures_dir(), ec))
        if (entry.path().extension() == ".sse") files.try_emplace(entry.path().filename().string(), read_file(entry.path()));
    CHECK_MESSAGE(!ec, "cannot list " << fixtures_dir().string() << ": " << ec.message());
    return files;
}

}  // namespace

TEST_CASE("sse_reader: one event, and the fields of an event") {
    check_every_split("data: hello\n\n", {{"", "hello", ""}});
    check_every_split("event: add\ndata: 1\n\ndata: 2\n\n", {{"add", "1", ""}, {"", "2", ""}});
    check_every_split("data: a\ndata: b\ndata:\n\n", {{"", "a\nb\n", ""}});
    // Later event: fields replace earlier ones.
    check_every_split("event: a\nevent: b\ndata: x\n\n", {{"b", "x", ""}});
}

TEST_CASE("sse_reader: line ends \\r\\n, \\n and a lone \\r, also split between \\r and \\n") {
    const std::vector<recorded> two = {{"", "a\nb", ""}, {"", "c", ""}};
    check_every_split("data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n", two);
    check_every_split("data: a\rdata: b\r\rdata: c\r\r", two);
    check_every_split("data: a\ndata: b\n\ndata: c\n\n", two);
    check_every_split("data: a\rdata: b\r\n\ndata: c\n\r", two);
    // "\r" at the end of one feed and "\n" at the start of the next are one line end, not two
    // (two would be a blank line, dispatching "a" alone).
    CHECK(read_chunks({"data: a\r", "\ndata: b\r", "\n\r", "\n"}).events == std::vector<recorded>{{"", "a\nb", ""}});
    // A "\r" at the end of a feed followed by more text starts a new line.
    CHECK(read_chunks({"data: a\r", "data: b\r", "\r"}).events == std::vector<recorded>{{"", "a\nb", ""}});
    // "\n\r" is two line ends.
    CHECK(read_whole("data: a\n\rdata: b\n\n").events == std::vector<recorded>{{"", "a", ""}, {"", "b", ""}});
}

TEST_CASE("sse_reader: comments, fields without a colon, the optional space, unknown fields") {
    check_every_split(": comment\ndata: x\n:\n: another\n\n", {{"", "x", ""}});
    // "data" alone is a data line with an empty value; the event is dispatched with empty data.
    check_every_split("data\n\n", {{"", "", ""}});
    check_every_split("data:\n\n", {{"", "", ""}});
    check_every_split("data\ndata\n\n", {{"", "\n", ""}});
    // "event" alone sets an empty type, which means "message".
    check_every_split("event: x\nevent\ndata: y\n\n", {{"", "y", ""}});
    // Only one space after the colon is removed; none is needed.
    check_every_split("data:  two\n\ndata:x\n\ndata:\tt\n\n", {{"", " two", ""}, {"", "x", ""}, {"", "\tt", ""}});
    // A colon in the value stays in the value.
    check_every_split("data: {\"a\":1}\n\n", {{"", "{\"a\":1}", ""}});
    // Unknown names, and names in another case, are ignored.
    check_every_split("Data: no\nDATA: no\nfoo: bar\nfoo\ndata : no\n\n", {});
    check_every_split("foo: bar\ndata: yes\n\n", {{"", "yes", ""}});
}

TEST_CASE("sse_reader: events without data are not dispatched") {
    check_every_split("\n\n\n", {});
    check_every_split("event: ping\n\n", {});
    // ...and the type of such an event does not leak into the next one.
    check_every_split("event: ping\n\ndata: x\n\n", {{"", "x", ""}});
    check_every_split("id: 4\n\n:\n\n", {});
}

TEST_CASE("sse_reader: id is the last event ID, kept across events, ignored with NUL") {
    check_every_split("id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
                      {{"", "a", "7"}, {"", "b", "7"}, {"", "c", ""}});
    using namespace std::string_literals;
    check_every_split("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n"s, {{"", "a", "1"}, {"", "b", "1"}});

    sse_reader r;
    int count = 0;
    auto on = [&](const sse_event&) { ++count; };
    CHECK(r.last_event_id() == "");
    REQUIRE_FALSE(r.feed("id: 5\ndata: x\n\n", on));
    CHECK(r.last_event_id() == "5");
    // An id is committed when its event is dispatched...
    REQUIRE_FALSE(r.feed("id: 6\n", on));
    CHECK(r.last_event_id() == "5");
    // ...even when the event has no data and nothing is delivered.
    REQUIRE_FALSE(r.feed("\n", on));
    CHECK(r.last_event_id() == "6");
    CHECK(count == 1);
}

TEST_CASE("sse_reader: retry takes ASCII digits only") {
    sse_reader r;
    auto on = [](const sse_event&) {};
    CHECK_FALSE(r.retry_ms());
    REQUIRE_FALSE(r.feed("retry: 1500\n", on));
    CHECK(r.retry_ms() == 1500u);
    for (const char* bad : {"retry: 15x\n", "retry:\n", "retry\n", "retry: -1\n", "retry: 1.5\n", "retry: +3\n",
                            "retry:  7\n", "retry: 99999999999999999999999\n"}) {
        CAPTURE(bad);
        REQUIRE_FALSE(r.feed(bad, on));
        CHECK(r.retry_ms() == 1500u);
    }
    REQUIRE_FALSE(r.feed("retry:0\n", on));
    CHECK(r.retry_ms() == 0u);
    REQUIRE_FALSE(r.feed("retry: 18446744073709551615\n", on));
    CHECK(r.retry_ms() == 18446744073709551615u);
    // retry is not data: no event.
    CHECK(read_whole("retry: 10\n\n").events.empty());
}

TEST_CASE("sse_reader: a UTF-8 byte order mark at the very start is dropped, once") {
    check_every_split("\xEF\xBB\xBF" "data: x\n\n", {{"", "x", ""}});
    // A second one is part of the first field's name, which is then unknown.
    check_every_split("\xEF\xBB\xBF\xEF\xBB\xBF" "data: x\n\ndata: y\n\n", {{"", "y", ""}});
    // A partial mark is not a mark.
    check_every_split("\xEF\xBB" "data: x\n\ndata: y\n\n", {{"", "y", ""}});
    // Not at the start: part of the line.
    CHECK(read_chunks({"data: a\n\n", "\xEF\xBB\xBF" "data: b\n\n"}).events == std::vector<recorded>{{"", "a", ""}});
    // Non-ASCII bytes in values pass through unchanged.
    check_every_split("data: caf\xC3\xA9 \xE2\x82\xAC\n\n", {{"", "caf\xC3\xA9 \xE2\x82\xAC", ""}});
}

TEST_CASE("sse_reader: pending() tells a cut stream") {
    auto pending_after = [](std::vector<std::string> chunks) { return read_chunks(chunks).pending; };
    CHECK_FALSE(pending_after({}));
    CHECK_FALSE(pending_after({"data: x\n\n"}));
    CHECK_FALSE(pending_after({": keep-alive\n"}));
    CHECK_FALSE(pending_after({"data: x\r\n\r"}));
    CHECK(pending_after({"data: x\n"}));
    CHECK(pending_after({"data: x"}));
    CHECK(pending_after({"data: x\n\nda"}));
    CHECK(pending_after({"id: 1\n"}));
    CHECK(pending_after({": unterminated comment"}));
    CHECK(pending_after({"\xEF\xBB"}));
    // The unterminated event is discarded, as the specification says.
    CHECK(read_chunks({"data: a\n\ndata: b\n"}).events == std::vector<recorded>{{"", "a", ""}});
}

TEST_CASE("sse_reader: a bool callback stops the reader; consumed() says where") {
    const std::string text = "data: a\n\ndata: [DONE]\n\ndata: after\n\n";
    sse_reader r;
    std::vector<std::string> seen;
    auto until_done = [&](const sse_event& e) {
        seen.emplace_back(e.data);
        return e.data != "[DONE]";
    };
    REQUIRE_FALSE(r.feed(text, until_done));
    CHECK(seen == std::vector<std::string>{"a", "[DONE]"});
    CHECK(r.consumed() == text.find("data: after"));
    CHECK_FALSE(r.pending());
    // Feeding the rest carries on from there.
    REQUIRE_FALSE(r.feed(std::string_view(text).substr(r.consumed()), until_done));
    CHECK(seen == std::vector<std::string>{"a", "[DONE]", "after"});
    CHECK(r.consumed() == text.size() - text.find("data: after"));

    // Stopped in the middle of "\r\n": the '\n' is consumed with its '\r'.
    sse_reader crlf;
    int n = 0;
    REQUIRE_FALSE(crlf.feed("data: a\r\n\r\ndata: b\r\n\r\n", [&](const sse_event&) { return ++n < 1; }));
    CHECK(n == 1);
    CHECK(crlf.consumed() == 11);
}

TEST_CASE("sse_reader: an exception from the callback leaves the reader usable") {
    sse_reader r;
    std::vector<std::string> seen;
    auto throwing = [&](const sse_event& e) {
        seen.emplace_back(e.data);
        if (e.data == "bad") throw std::runtime_error("consumer failed");
    };
    CHECK_THROWS_AS(r.feed("event: x\ndata: bad\n\ndata: lost\n\n", throwing), std::runtime_error);
    CHECK_FALSE(r.failed());
    CHECK_FALSE(r.pending());
    // The event after the one that threw was not read; later bytes are read from a clean state.
    REQUIRE_FALSE(r.feed("data: next\n\n", throwing));
    CHECK(seen == std::vector<std::string>{"bad", "next"});
}

TEST_CASE("sse_reader: an event's views into one feed survive to the next feed") {
    // The first data line and the type are read in place; the event completes in a later feed,
    // after the caller's buffer has been overwritten.
    sse_reader r;
    std::vector<recorded> got;
    auto on = [&](const sse_event& e) { got.push_back({std::string(e.event), std::string(e.data), std::string(e.id)}); };
    std::string buffer = "event: first\ndata: one\n";
    REQUIRE_FALSE(r.feed(buffer, on));
    std::fill(buffer.begin(), buffer.end(), 'X');
    buffer = "data: two\n\n";
    REQUIRE_FALSE(r.feed(buffer, on));
    CHECK(got == std::vector<recorded>{{"first", "one\ntwo", ""}});
}

TEST_CASE("sse_reader: limits on lines and events are errors, and memory stays bounded") {
    const sse_limits limits{100, 1000};
    const std::string line100 = "data: " + std::string(94, 'x');
    // Exactly at the limit is fine, whole or byte by byte.
    CHECK(read_chunks({line100 + "\n\n"}, limits).events.size() == 1);
    CHECK(read_chunks(bytewise(line100 + "\n\n"), limits).events.size() == 1);
    // One byte more is an error, whole, byte by byte, or without its line end.
    for (const auto& chunks : {std::vector<std::string>{line100 + "x\n\n"}, bytewise(line100 + "x\n\n"),
                               std::vector<std::string>{line100 + "x"}, std::vector<std::string>{": " + line100}}) {
        const outcome o = read_chunks(chunks, limits);
        CHECK(o.error == parley::errc::protocol);
        CHECK(o.events.empty());
    }
    // Data of 10 lines of 99 bytes plus 9 joining newlines = 999 bytes: fine; 11 lines: too much.
    std::string event;
    for (int i = 0; i < 10; ++i) event += "data: " + std::string(93, 'y') + "\n";
    CHECK(read_chunks({event + "\n"}, limits).events.at(0).data.size() == 939);
    // 10 lines of 95 bytes, one of 40 and 10 joining newlines: exactly max_event; one more (empty)
    // data line adds a newline: too much.
    std::string big;
    for (int i = 0; i < 10; ++i) big += "data:" + std::string(95, 'y') + "\n";
    big += "data:" + std::string(40, 'y') + "\n";
    CHECK(read_chunks({big + "\n"}, limits).events.at(0).data.size() == 1000);
    CHECK(read_chunks(random_chunks(big + "\n", 3), limits).events.at(0).data.size() == 1000);
    CHECK(read_chunks(bytewise(big + "\n"), limits).events.at(0).data.size() == 1000);
    const outcome over = read_chunks({big + "data:\n\n"}, limits);
    CHECK(over.error == parley::errc::protocol);
    CHECK(over.events.empty());
    CHECK(read_chunks(bytewise(big + "data:\n\n"), limits).error == parley::errc::protocol);

    // The reader stays failed, says why, and reset() brings it back.
    sse_reader r(limits);
    int count = 0;
    auto on = [&](const sse_event&) { ++count; };
    CHECK(r.feed(std::string(101, 'a'), on) == parley::errc::protocol);
    CHECK(r.failed());
    CHECK(r.failure().find("sse_limits::max_line = 100") != std::string::npos);
    CHECK(r.feed("data: x\n\n", on) == parley::errc::protocol);
    CHECK(count == 0);
    r.reset();
    CHECK_FALSE(r.failed());
    CHECK_FALSE(r.feed("data: x\n\n", on));
    CHECK(count == 1);

    // 4 MB of one endless line, 4 KB at a time, and of one endless event: the reader fails at the
    // limit and never holds more than the documented bound.
    const std::size_t bound = 2 * (4 * limits.max_line + limits.max_event);
    sse_reader endless_line(limits);
    std::size_t most = 0;
    std::error_code ec;
    const std::string chunk(4096, 'z');
    for (int i = 0; i < 1000; ++i) {
        ec = endless_line.feed(chunk, on);
        most = std::max(most, endless_line.buffer_capacity());
    }
    CHECK(ec == parley::errc::protocol);
    CHECK(most <= bound);
    sse_reader endless_event(limits);
    most = 0;
    ec = {};
    const std::string data_line = "data: " + std::string(60, 'w') + "\n";
    for (int i = 0; i < 100000 && !ec; ++i) {
        // 37-byte pieces: lines span feeds, so the reader copies them
        const std::size_t at = (static_cast<std::size_t>(i) * 37) % data_line.size();
        const std::string piece = (data_line + data_line).substr(at, 37);
        ec = endless_event.feed(piece, on);
        most = std::max(most, endless_event.buffer_capacity());
    }
    CHECK(ec == parley::errc::protocol);
    CHECK(endless_event.failure().find("sse_limits::max_event = 1000") != std::string::npos);
    CHECK(most <= bound);
    CHECK(count == 1);
}

TEST_CASE("sse_reader: the default limits") {
    const sse_limits d;
    CHECK(d.max_line == 1048576u);
    CHECK(d.max_event == 8388608u);
    // A 1 MiB data line is accepted with the defaults; one byte more is not.
    const std::string at = "data:" + std::string(d.max_line - 5, 'q');
    CHECK(read_chunks({at + "\n\n"}).events.at(0).data.size() == d.max_line - 5);
    CHECK(read_chunks({at + "q\n\n"}).error == parley::errc::protocol);
}

TEST_CASE("sse_reader: the OpenAI recordings, whole, byte by byte and in random chunks") {
    const auto files = fixtures();
    CHECK(files.size() >= fixture_names.size());
    for (const auto& file : files) {
        const std::string& name = file.first;
        const std::string& text = file.second;
        CAPTURE(name);
        const std::vector<recorded> expected = plain_reading(text);
        REQUIRE(expected.size() > 2);
        CHECK(expected.back().data == "[DONE]");
        const outcome whole = read_whole(text);
        CHECK_FALSE(whole.error);
        CHECK_FALSE(whole.pending);
        CHECK(whole.events == expected);
        CHECK(read_chunks(bytewise(text)).events == expected);
        for (unsigned seed : {1u, 2u, 3u, 42u, 2024u}) {
            CAPTURE(seed);
            CHECK(read_chunks(random_chunks(text, seed)).events == expected);
        }
        // The same stream with the other line ends, and with a byte order mark.
        CHECK(read_chunks(random_chunks(replace_all(text, "\n", "\r\n"), 7)).events == expected);
        CHECK(read_chunks(bytewise(replace_all(text, "\n", "\r\n"))).events == expected);
        CHECK(read_chunks(random_chunks(replace_all(text, "\n", "\r"), 8)).events == expected);
        CHECK(read_chunks(random_chunks("\xEF\xBB\xBF" + text, 9)).events == expected);
    }
}

TEST_CASE("sse_reader: the OpenAI recordings against the Python reading of the specification") {
    const auto files = fixtures();
    REQUIRE_FALSE(files.empty());
    const char* env_python = std::getenv("PARLEY_PYTHON");
    const std::string python = env_python && *env_python ? env_python : "python3";
    const fs::path out = subprocess::temp_path("sse-reference.jsonl");
    std::string cmd = subprocess::shell_quote(python) + " " +
                      subprocess::shell_quote(subprocess::source_dir() + "/tests/net/sse_reference.py") + " " +
                      subprocess::shell_quote(out.string());
    for (const auto& file : files) cmd += " " + subprocess::shell_quote((fixtures_dir() / file.first).string());
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "failed: " << cmd);

    std::map<std::string, std::vector<recorded>> python_events;
    {
        std::ifstream in(out);
        std::string line;
        while (std::getline(in, line)) {
            const auto v = boost::json::parse(line).as_object();
            python_events[std::string(v.at("file").as_string())].push_back(
                {std::string(v.at("event").as_string()), std::string(v.at("data").as_string()),
                 std::string(v.at("id").as_string())});
        }
    }
    fs::remove(out);
    for (const auto& file : files) {
        const std::string& name = file.first;
        const std::string& text = file.second;
        CAPTURE(name);
        const std::vector<recorded>& py = python_events[name];
        const outcome ours = read_chunks(random_chunks(text, 11));
        REQUIRE(ours.events.size() == py.size());
        for (std::size_t i = 0; i < py.size(); ++i) {
            CAPTURE(i);
            CHECK(ours.events[i] == py[i]);
        }
    }
}
