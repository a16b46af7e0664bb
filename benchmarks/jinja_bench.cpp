// Benchmarks of the Jinja engine (docs/benchmarks.md): parse and render of ChatML over 3, 100 and
// 1000 messages and of Qwen3-Coder.jinja with tools.json, in the Hugging Face environment, next to
// a hand-written std::string::append loop that produces the same ChatML bytes.
//
//   parley-bench-jinja_bench [Google Benchmark flags]
//   parley-bench-jinja_bench --dump=DIR
//       writes the cases (template paths, contexts, parley's outputs) to DIR/cases.json and the
//       files it names, for benchmarks/jinja_peer.py, and exits without benchmarking.
//
// Benchmark names are CASE/VARIANT:
//   parse      env.parse(source) of the template
//   render     t.render(ctx): a new std::string each time (what Python's render does)
//   render_to  out.clear(); t.render_to(out, ctx): one std::string reused across renders
//   append     the hand-written loop into a new std::string
//   append_to  the hand-written loop into a reused std::string
#include "chatml_data.hpp"

#include <parley/jinja.hpp>

#include <benchmark/benchmark.h>
#include <boost/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
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
namespace json = boost::json;
using parley::jinja::environment;
using parley::jinja::parsed_template;
using parley_bench::read_file;

constexpr std::array<std::size_t, 3> chatml_sizes = {3, 100, 1000};

fs::path chatml_template_path() {
    return fs::weakly_canonical(fs::path(PARLEY_BENCH_SOURCE_DIR) / "examples/chat-templates/chatml.jinja");
}
fs::path qwen_template_path() {
    return fs::weakly_canonical(fs::path(PARLEY_BENCH_SHARED_DIR) / "corpus/chat-templates/Qwen3-Coder.jinja");
}
fs::path qwen_context_path() {
    return fs::weakly_canonical(fs::path(PARLEY_BENCH_SHARED_DIR) / "corpus/contexts/tools.json");
}

void write_file(const fs::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

// The conversation of n messages (chatml_data.hpp), followed by add_generation_prompt: true.
json::value chatml_context(std::size_t n) {
    json::array messages;
    for (const parley_bench::chatml_message& m : parley_bench::chatml_messages(n))
        messages.push_back(json::object{{"role", m.role}, {"content", m.content}});
    return json::object{{"messages", std::move(messages)}, {"add_generation_prompt", true}};
}

// The baseline: ChatML written by hand, reading the same boost::json data by key.
void chatml_append(std::string& out, const json::value& ctx) {
    const json::object& c = ctx.as_object();
    for (const json::value& m : c.at("messages").as_array()) {
        const json::object& message = m.as_object();
        out.append("<|im_start|>");
        out.append(std::string_view(message.at("role").as_string()));
        out.append("\n");
        out.append(std::string_view(message.at("content").as_string()));
        out.append("<|im_end|>\n");
    }
    if (const json::value* g = c.if_contains("add_generation_prompt"); g && g->is_bool() && g->get_bool())
        out.append("<|im_start|>assistant\n");
}

struct chatml_case {
    std::string name;  // chatml-N
    json::value context;
    std::string expected;  // the baseline's output
};

struct inputs {
    environment env = environment::hf();
    std::string chatml_source;
    parsed_template chatml;
    std::vector<chatml_case> chatml_cases;
    std::string qwen_source;
    parsed_template qwen;
    json::value qwen_context;
};

inputs load_inputs() {
    inputs in;
    in.chatml_source = read_file(chatml_template_path());
    in.chatml = in.env.parse(in.chatml_source, "chatml.jinja");
    for (std::size_t n : chatml_sizes) {
        chatml_case c{"chatml-" + std::to_string(n), chatml_context(n), {}};
        chatml_append(c.expected, c.context);
        in.chatml_cases.push_back(std::move(c));
    }
    in.qwen_source = read_file(qwen_template_path());
    in.qwen = in.env.parse(in.qwen_source, "Qwen3-Coder.jinja");
    in.qwen_context = json::parse(read_file(qwen_context_path()));
    return in;
}

void bench_parse(benchmark::State& state, const environment& env, const std::string& source) {
    for (auto _ : state) {
        parsed_template t = env.parse(source);
        benchmark::DoNotOptimize(t);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * source.size()));
}

// Renders once outside the timing loop and compares with `expected` (unless empty).
bool check_render(benchmark::State& state, const parsed_template& t, const json::value& ctx, const std::string& expected) {
    try {
        const std::string out = t.render(ctx);
        if (out.empty()) {
            state.SkipWithError("the template rendered nothing");
            return false;
        }
        if (!expected.empty() && out != expected) {
            state.SkipWithError("the engine's output differs from the hand-written baseline's");
            return false;
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return false;
    }
    return true;
}

void bench_render(benchmark::State& state, const parsed_template& t, const json::value& ctx, const std::string& expected) {
    if (!check_render(state, t, ctx, expected)) return;
    std::size_t bytes = 0;
    for (auto _ : state) {
        std::string out = t.render(ctx);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
        bytes = out.size();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

void bench_render_to(benchmark::State& state, const parsed_template& t, const json::value& ctx, const std::string& expected) {
    if (!check_render(state, t, ctx, expected)) return;
    std::string out;
    for (auto _ : state) {
        out.clear();
        t.render_to(out, ctx);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}

void bench_append(benchmark::State& state, const json::value& ctx, const std::string& expected) {
    std::string check;
    chatml_append(check, ctx);
    if (check != expected) {
        state.SkipWithError("the baseline's output changed");
        return;
    }
    for (auto _ : state) {
        std::string out;
        chatml_append(out, ctx);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * expected.size()));
}

void bench_append_to(benchmark::State& state, const json::value& ctx, const std::string& expected) {
    std::string out;
    chatml_append(out, ctx);
    if (out != expected) {
        state.SkipWithError("the baseline's output changed");
        return;
    }
    for (auto _ : state) {
        out.clear();
        chatml_append(out, ctx);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}

void register_benchmarks(const inputs& in) {
    benchmark::RegisterBenchmark("chatml/parse", [&in](benchmark::State& s) { bench_parse(s, in.env, in.chatml_source); });
    for (const chatml_case& c : in.chatml_cases) {
        benchmark::RegisterBenchmark((c.name + "/render").c_str(),
            [&in, &c](benchmark::State& s) { bench_render(s, in.chatml, c.context, c.expected); });
        benchmark::RegisterBenchmark((c.name + "/render_to").c_str(),
            [&in, &c](benchmark::State& s) { bench_render_to(s, in.chatml, c.context, c.expected); });
        benchmark::RegisterBenchmark((c.name + "/append").c_str(),
            [&c](benchmark::State& s) { bench_append(s, c.context, c.expected); });
        benchmark::RegisterBenchmark((c.name + "/append_to").c_str(),
            [&c](benchmark::State& s) { bench_append_to(s, c.context, c.expected); });
    }
    benchmark::RegisterBenchmark("qwen3-coder/parse", [&in](benchmark::State& s) { bench_parse(s, in.env, in.qwen_source); });
    benchmark::RegisterBenchmark("qwen3-coder/render",
        [&in](benchmark::State& s) { bench_render(s, in.qwen, in.qwen_context, {}); });
    benchmark::RegisterBenchmark("qwen3-coder/render_to",
        [&in](benchmark::State& s) { bench_render_to(s, in.qwen, in.qwen_context, {}); });
}

// Writes what benchmarks/jinja_peer.py needs to run the same cases and check its outputs.
void dump_cases(const inputs& in, const fs::path& dir) {
    fs::create_directories(dir);
    json::array cases;
    cases.push_back(json::object{{"name", "chatml/parse"}, {"kind", "parse"}, {"template", chatml_template_path().string()}});
    for (const chatml_case& c : in.chatml_cases) {
        const std::string output = in.chatml.render(c.context);
        if (output != c.expected)
            throw std::runtime_error(c.name + ": the engine's output differs from the hand-written baseline's");
        write_file(dir / (c.name + ".json"), json::serialize(c.context));
        write_file(dir / (c.name + ".out"), output);
        cases.push_back(json::object{{"name", c.name + "/render"}, {"kind", "render"},
            {"template", chatml_template_path().string()}, {"context", (dir / (c.name + ".json")).string()},
            {"expected", (dir / (c.name + ".out")).string()}});
    }
    cases.push_back(json::object{{"name", "qwen3-coder/parse"}, {"kind", "parse"}, {"template", qwen_template_path().string()}});
    write_file(dir / "qwen3-coder.out", in.qwen.render(in.qwen_context));
    cases.push_back(json::object{{"name", "qwen3-coder/render"}, {"kind", "render"},
        {"template", qwen_template_path().string()}, {"context", qwen_context_path().string()},
        {"expected", (dir / "qwen3-coder.out").string()}});
    write_file(dir / "cases.json", json::serialize(json::object{{"cases", std::move(cases)}}));
}

const char* compiler() {
#if defined(__clang__)
    return "clang++ " __clang_version__;
#elif defined(__GNUC__)
    return "g++ " __VERSION__;
#else
    return "unknown";
#endif
}

}  // namespace

int main(int argc, char** argv) {
    std::string dump_dir;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a.rfind("--dump=", 0) == 0) dump_dir = std::string(a.substr(7));
        else args.push_back(argv[i]);
    }
    int n = static_cast<int>(args.size());

    static inputs in;
    try {
        in = load_inputs();
        if (!dump_dir.empty()) {
            dump_cases(in, dump_dir);
            return 0;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }

    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    benchmark::AddCustomContext("parley_compiler", compiler());
#if defined(__OPTIMIZE__)
    benchmark::AddCustomContext("parley_optimized", "yes");
#else
    benchmark::AddCustomContext("parley_optimized", "no");
#endif
#if defined(NDEBUG)
    benchmark::AddCustomContext("parley_ndebug", "yes");
#else
    benchmark::AddCustomContext("parley_ndebug", "no");
#endif
    register_benchmarks(in);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
