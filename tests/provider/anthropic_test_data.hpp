// The Anthropic codec tests' data (tests/provider/anthropic-data/, taken from the API's
// documentation) and a minimal splitter of server-sent event text into events.
#ifndef PARLEY_TESTS_PROVIDER_ANTHROPIC_TEST_DATA_HPP
#define PARLEY_TESTS_PROVIDER_ANTHROPIC_TEST_DATA_HPP

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace anthropic_test {

/// The text of a file of tests/provider/anthropic-data/.
inline std::string read_data(std::string_view name) {
    const std::string path = PARLEY_TEST_SOURCE_DIR "/tests/provider/anthropic-data/" + std::string(name);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The JSON of a file of tests/provider/anthropic-data/.
inline boost::json::value read_json(std::string_view name) { return boost::json::parse(read_data(name)); }

/// One server-sent event: its name and its data.
struct sse_event {
    std::string event;
    std::string data;
};

/// The events of SSE text: blank lines end events; `event:` and `data:` fields (one space after
/// the colon dropped), several data lines joined with '\n'.
inline std::vector<sse_event> split_sse(std::string_view text) {
    std::vector<sse_event> out;
    sse_event current;
    bool any = false;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) {
            if (any) out.push_back(std::move(current));
            current = {};
            any = false;
            continue;
        }
        const std::size_t colon = line.find(':');
        const std::string_view field = line.substr(0, colon);
        std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (field == "event") {
            current.event = value;
            any = true;
        } else if (field == "data") {
            if (!current.data.empty()) current.data += '\n';
            current.data += value;
            any = true;
        }
    }
    if (any) out.push_back(std::move(current));
    return out;
}

/// The events of an .sse file of tests/provider/anthropic-data/.
inline std::vector<sse_event> read_sse(std::string_view name) { return split_sse(read_data(name)); }

}  // namespace anthropic_test

#endif
