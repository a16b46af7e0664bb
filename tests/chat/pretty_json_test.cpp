// Tests of parley/chat/pretty_json.hpp against Python's json.dumps (the reference for the number
// and string forms), run on the same values.
#include <parley/chat/pretty_json.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

// Python's json.dumps(json.loads(text), indent=indent, ensure_ascii=False), or indent=None for 0.
std::string python_dumps(const std::string& json_text, int indent) {
    const char* py = std::getenv("PARLEY_PYTHON");
    REQUIRE_MESSAGE(py != nullptr, "PARLEY_PYTHON must name a Python interpreter (ctest sets it)");
    const auto path = std::filesystem::temp_directory_path() / "parley-pretty-json-input.json";
    {
        std::ofstream(path, std::ios::binary) << json_text;
    }
    const std::string cmd = std::string(py) +
                            " -c \"import json,sys; sys.stdout.buffer.write(json.dumps(json.load(open(sys.argv[1], "
                            "encoding='utf-8')), indent=" +
                            (indent ? std::to_string(indent) : std::string("None")) +
                            ", ensure_ascii=False).encode())\" " + path.string();
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    REQUIRE(pclose(p) == 0);
    return out;
}

}  // namespace

TEST_CASE("pretty_json: the same text as Python's json.dumps, indented and on one line") {
    const char* samples[] = {
        R"({"model": "gpt-4o-mini", "temperature": 0.2, "top_p": 1.0, "n": 3, "big": 1e22, "small": 1.5e-7,
            "neg": -0.0, "third": 0.3333333333333333, "max": 18446744073709551615, "min": -9223372036854775808,
            "text": "line\nbreak \"quoted\" tab\t back\\slash \u0001 caf\u00e9 \u4e2d\u6587 \ud83d\ude00",
            "list": [1, [], {}, [true, false, null]], "nested": {"a": {"b": [0.1, 100.0, 12345678901234567.0]}}})",
        R"([])",
        R"("just a string")",
        R"(123.456)",
    };
    for (const char* s : samples) {
        const boost::json::value v = boost::json::parse(s);
        const std::string text = boost::json::serialize(v);
        CAPTURE(s);
        CHECK(parley::pretty_json(v, 2) == python_dumps(text, 2));
        CHECK(parley::pretty_json(v, 4) == python_dumps(text, 4));
        CHECK(parley::pretty_json(v, 0) == python_dumps(text, 0));
    }
}
