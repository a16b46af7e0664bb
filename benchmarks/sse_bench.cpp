// Benchmark of parley's SSE reader (docs/benchmarks.md, "SSE parsing"): the twelve OpenAI
// recordings of ../shared/fixtures/openai-sse/ concatenated, fed in chunks of 64 KB and of
// 1,500 bytes (one TCP segment), next to a baseline: the plain line splitter a user would write
// with std::string (not a library; it handles "\n" and "\r\n" line ends, which is all these
// recordings have, but not a lone "\r", a byte order mark, or limits).
//
//   parley-bench-sse_bench [Google Benchmark flags]
//
// Benchmark names are READER/CHUNK: parley/65536, parley/1500, baseline/65536, baseline/1500.
// Every case first checks that its reader finds the same events as the other (data and type,
// in order); a mismatch fails the case with SkipWithError.
#include <parley/net/sse.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The recordings, in name order, one after another.
const std::string& recordings() {
    static const std::string text = [] {
        const fs::path dir = fs::path(PARLEY_BENCH_SHARED_DIR) / "fixtures" / "openai-sse";
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().extension() == ".sse") files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        if (files.size() != 12) throw std::runtime_error("expected 12 recordings in " + dir.string());
        std::string all;
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
        return all;
    }();
    return text;
}

// What a consumer does with each event: look at its type and data.
struct event_sink {
    std::size_t events = 0;
    std::size_t bytes = 0;
    std::vector<std::string>* record = nullptr;
    void operator()(std::string_view type, std::string_view data) {
        ++events;
        bytes += data.size() + type.size();
        if (record) record->push_back(std::string(type) + '\x1f' + std::string(data));
    }
};

void read_parley(std::string_view text, std::size_t chunk, event_sink& sink) {
    parley::net::sse_reader reader;
    for (std::size_t pos = 0; pos < text.size(); pos += chunk) {
        const auto ec = reader.feed(text.substr(pos, chunk),
                                    [&](const parley::net::sse_event& e) { sink(e.event, e.data); });
        if (ec) throw std::runtime_error("parley::net::sse_reader failed: " + reader.failure());
    }
}

// The baseline: append each chunk to a buffer, cut complete lines out of it with find('\n'),
// copy each line into a std::string, apply the field rules.
class baseline_reader {
public:
    template <class F>
    void feed(std::string_view bytes, F&& on_event) {
        buffer_.append(bytes);
        std::size_t start = 0;
        for (std::size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
            std::string line = buffer_.substr(start, nl - start);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.empty()) {
                if (has_data_) on_event(std::string_view(type_), std::string_view(data_));
                data_.clear();
                type_.clear();
                has_data_ = false;
                continue;
            }
            if (line[0] == ':') continue;
            const std::size_t colon = line.find(':');
            const std::string name = line.substr(0, colon);
            std::string value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
            if (!value.empty() && value[0] == ' ') value.erase(0, 1);
            if (name == "data") {
                if (has_data_) data_ += '\n';
                data_ += value;
                has_data_ = true;
            } else if (name == "event") {
                type_ = value;
            }
        }
        buffer_.erase(0, start);
    }

private:
    std::string buffer_;
    std::string data_;
    std::string type_;
    bool has_data_ = false;
};

void read_baseline(std::string_view text, std::size_t chunk, event_sink& sink) {
    baseline_reader reader;
    for (std::size_t pos = 0; pos < text.size(); pos += chunk)
        reader.feed(text.substr(pos, chunk), [&](std::string_view type, std::string_view data) { sink(type, data); });
}

template <void (*Read)(std::string_view, std::size_t, event_sink&)>
void bm_read(benchmark::State& state) {
    const std::size_t chunk = static_cast<std::size_t>(state.range(0));
    std::string_view text;
    try {
        text = recordings();
        // Both readers must find the same events, at this chunk size and whole.
        std::vector<std::string> ours, theirs;
        event_sink a{0, 0, &ours}, b{0, 0, &theirs};
        Read(text, chunk, a);
        read_baseline(text, text.size(), b);
        read_parley(text, text.size(), b);
        if (ours.empty() || 2 * ours.size() != theirs.size() ||
            !std::equal(ours.begin(), ours.end(), theirs.begin()) ||
            !std::equal(ours.begin(), ours.end(), theirs.begin() + static_cast<std::ptrdiff_t>(ours.size()))) {
            state.SkipWithError("the readers disagree on the events");
            return;
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    std::size_t events = 0;
    for (auto _ : state) {
        event_sink sink;
        Read(text, chunk, sink);
        benchmark::DoNotOptimize(sink.bytes);
        events = sink.events;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
    state.counters["events"] = static_cast<double>(events);
    state.counters["input_bytes"] = static_cast<double>(text.size());
}

}  // namespace

BENCHMARK(bm_read<read_parley>)->Name("parley")->Arg(65536)->Arg(1500);
BENCHMARK(bm_read<read_baseline>)->Name("baseline")->Arg(65536)->Arg(1500);

BENCHMARK_MAIN();
