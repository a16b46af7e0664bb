// Tests of parley/provider/detail/wire.hpp: the one excerpt of untrusted text (redacted, on one
// line, bounded, invalid UTF-8 shown), kind names, the readers' messages, extra's merge.
#include <parley/provider/detail/wire.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>

using namespace parley;
namespace dw = parley::detail::wire;

TEST_CASE("wire excerpt: white space collapsed, invalid UTF-8 shown as '?', cuts at a character boundary") {
    CHECK(dw::excerpt("  a \r\n\t b  ") == "a b");
    CHECK(dw::excerpt("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    // a lone continuation byte, an overlong '/', a UTF-16 surrogate, a truncated sequence
    CHECK(dw::excerpt("a\x80" "b\xC0\xAF" "c\xED\xA0\x80" "d\xE2\x82") == "a?b??c???d??");
    CHECK(dw::excerpt("abcdef", 4) == "abcd...");
    CHECK(dw::excerpt("ab\xE2\x82\xAC", 4) == "ab...");
    CHECK(dw::excerpt("ab\x01\x7F" "cd", 10) == "ab cd");
    CHECK(dw::excerpt("") == "");
}

TEST_CASE("wire excerpt: what looks like a key is redacted, even where the bound cuts it") {
    CHECK(dw::excerpt("key sk-proj-AbCdEfGhIjKlMnOpQrStUv0123 and Bearer abcdefghijkl") ==
          "key sk-[redacted] and Bearer [redacted]");
    const std::string near_end = std::string(190, 'x') + " sk-0123456789abcdefghijklmnop and more";
    CHECK(dw::excerpt(near_end) == std::string(190, 'x') + " sk-[redac...");
    CHECK(dw::excerpt("task-sk-ab") == "task-sk-ab");
}

TEST_CASE("wire bounded_text and cut: at a character boundary") {
    CHECK(dw::cut("abc", 3) == "abc");
    CHECK(dw::cut("abcd", 3) == "abc...");
    CHECK(dw::cut("a\xC3\xA9z", 2) == "a...");
    CHECK(dw::bounded_text("x sk-0123456789abcdefghij", 100) == "x sk-[redacted]");
}

TEST_CASE("wire kind_name and found: one wording for every decoder") {
    CHECK(std::string(dw::kind_name(boost::json::parse("1"))) == "an integer");
    CHECK(std::string(dw::kind_name(boost::json::parse("18446744073709551615"))) == "an integer");
    CHECK(std::string(dw::kind_name(boost::json::parse("1.5"))) == "a number");
    CHECK(std::string(dw::kind_name(boost::json::parse("true"))) == "a boolean");
    CHECK(std::string(dw::kind_name(boost::json::parse("null"))) == "null");
    CHECK(dw::found(boost::json::parse(R"("abc")")) == "a string (\"abc\")");
    CHECK(dw::found(boost::json::parse("[1]")) == "an array");
    CHECK(dw::found(nullptr) == "nothing");
}

TEST_CASE("wire readers: the path and what was expected") {
    const auto v = boost::json::parse(R"({"choices": [{"delta": {"content": 7}}]})");
    const dw::json_path root{nullptr, "chat.completion.chunk", 0};
    const auto& delta = v.at("choices").at(0).at("delta").as_object();
    // a path is built on the stack, one named step at a time (each step points at the one before)
    const auto choices = root.member("choices");
    const auto first = choices.element(0);
    const auto at = first.member("delta");
    try {
        dw::opt_string(delta, "content", at);
        FAIL("no failure");
    } catch (const dw::wire_failure& f) {
        CHECK(f.message == "chat.completion.chunk: choices[0].delta.content: expected a string or null, found an integer (7)");
    }
}

TEST_CASE("wire merge_extra: members replace or are added; the request's own members are refused") {
    boost::json::object body = boost::json::parse(R"({"model": "m", "temperature": 0.5})").as_object();
    dw::merge_extra(body, boost::json::parse(R"({"temperature": 0.1, "top_k": 40})").as_object());
    CHECK(boost::json::serialize(body) == R"({"model":"m","temperature":1E-1,"top_k":40})");
    for (std::string key : {"model", "messages", "input", "stream", "tools"}) {
        boost::json::object extra;
        extra[key] = 1;
        CHECK_THROWS_WITH_AS(dw::merge_extra(body, extra),
                             ("'extra' may not set 'model', 'messages', 'input', 'stream' or 'tools' (parley builds them "
                              "from the request), found '" + key + "'").c_str(),
                             parley::error);
    }
}
