// benchmarks/batch_bench.cpp (parley-bench-batch_bench): batch runs against a running model
// server (`parley fake-server`), at concurrency 256 on one io_context run by one thread. Each
// benchmark makes 20,000 non-streamed chat calls per iteration and reports the requests per
// second (wall clock) and the process's CPU time per request (user + system, getrusage):
//
// - BM_chat_calls: the reference, plain chat calls: 256 coroutines each loop on
//   `co_await client.chat(request)` (the request copied per call), as parley-bench-client_bench
//   does;
// - BM_batch_runner: parley::batch_runner over 20,000 inputs, the work one chat call with the
//   input's text, the lines written to a batch_file (one write(2) per line);
// - BM_batch_template: the same with the work of `parley batch`: a conversation template run by
//   parley::bot through governed_model, the usage counted per input.
//
//   parley-bench-batch_bench --base-url=http://127.0.0.1:PORT/v1 [Google Benchmark options]
//
// benchmarks/batch_run_compare.py starts the server, runs this program and `parley batch`, and
// prints the table of docs/benchmarks.md ("Batch runs").
#include <parley/batch.hpp>
#include <parley/bot/bot.hpp>
#include <parley/bot/client_model.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/provider/chat_client.hpp>

#include <benchmark/benchmark.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/value.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace asio = boost::asio;

std::string base_url;  // from --base-url
constexpr std::size_t requests = 20000;
constexpr std::size_t concurrency = 256;

double cpu_seconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

parley::client_config config() {
    parley::client_config c;
    c.api = parley::api::openai;
    c.base_url = base_url;
    c.api_key = "sk-bench";
    c.defaults.model = "gpt-4o-mini";
    c.net.retry.max_retries = 0;
    c.net.max_connections_per_host = concurrency;
    c.net.proxy.how = parley::net::proxy_options::mode::none;
    return c;
}

std::vector<parley::batch_input> make_inputs() {
    std::vector<parley::batch_input> v;
    v.reserve(requests);
    for (std::size_t i = 0; i < requests; ++i) {
        parley::batch_input in;
        in.id = "doc-" + std::to_string(i);
        in.data = boost::json::object{{"id", in.id}, {"text", "Say hello in one short sentence."}};
        v.push_back(std::move(in));
    }
    return v;
}

/// Sets the counters every benchmark reports, from the CPU time and requests of its iterations.
void report(benchmark::State& state, double cpu, std::size_t done, std::size_t failed) {
    state.SetItemsProcessed(static_cast<std::int64_t>(done));
    state.counters["cpu_us_per_request"] = benchmark::Counter(cpu * 1e6 / static_cast<double>(done));
    state.counters["failed"] = benchmark::Counter(static_cast<double>(failed));
    if (failed) state.SkipWithError("some requests failed");
}

void BM_chat_calls(benchmark::State& state) {
    asio::io_context io(1);
    parley::chat_client client(io.get_executor(), config());
    parley::chat_request request;
    request.messages.push_back(parley::make_message(parley::role::user, "Say hello in one short sentence."));
    double cpu = 0;
    std::size_t done = 0, failed = 0;
    for (auto _ : state) {
        std::size_t left = requests;
        const double c0 = cpu_seconds();
        for (std::size_t w = 0; w < concurrency; ++w)
            asio::co_spawn(io, [&]() -> asio::awaitable<void> {
                while (left > 0) {
                    --left;
                    auto reply = co_await client.chat(request);
                    if (!reply) ++failed;
                    ++done;
                }
            }, asio::detached);
        io.restart();
        io.run();
        cpu += cpu_seconds() - c0;
    }
    report(state, cpu, done, failed);
}

void BM_batch_runner(benchmark::State& state) {
    asio::io_context io(1);
    parley::chat_client client(io.get_executor(), config());
    const auto inputs = make_inputs();
    const auto dir = std::filesystem::temp_directory_path() / ("parley-batch-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    double cpu = 0;
    std::size_t done = 0, failed = 0;
    auto work = [&client](const parley::batch_input& in, parley::batch_attempt& a) -> asio::awaitable<parley::batch_outcome> {
        parley::chat_request r;
        r.messages.push_back(parley::make_message(parley::role::user, std::string(in.data.at("text").as_string())));
        auto reply = co_await client.chat(std::move(r));
        if (!reply) co_return reply.error();
        a.record(*reply, "gpt-4o-mini");
        co_return boost::json::value(reply->text());
    };
    for (auto _ : state) {
        state.PauseTiming();
        std::filesystem::remove(dir / "out.jsonl");
        state.ResumeTiming();
        const double c0 = cpu_seconds();
        parley::batch_file out(dir / "out.jsonl");
        parley::batch_options o;
        o.concurrency = concurrency;
        parley::batch_runner runner(io.get_executor(), o);
        auto f = asio::co_spawn(io, runner.run(inputs, work, out), asio::use_future);
        io.restart();
        io.run();
        const auto p = f.get();
        cpu += cpu_seconds() - c0;
        done += p.done;
        failed += p.failed;
    }
    std::filesystem::remove_all(dir);
    report(state, cpu, done, failed);
}

constexpr std::string_view templates = R"(
templates:
  hello:
    messages:
      - role: system
        content: You answer in one short sentence.
      - role: user
        content: "{{ text }}"
)";

void BM_batch_template(benchmark::State& state) {
    asio::io_context io(1);
    auto client = std::make_shared<parley::chat_client>(io.get_executor(), config());
    const auto inputs = make_inputs();
    const auto dir = std::filesystem::temp_directory_path() / ("parley-batch-bench-t-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    double cpu = 0;
    std::size_t done = 0, failed = 0;
    for (auto _ : state) {
        state.PauseTiming();
        std::filesystem::remove(dir / "out.jsonl");
        state.ResumeTiming();
        const double c0 = cpu_seconds();
        parley::batch_file out(dir / "out.jsonl");
        parley::batch_options o;
        o.concurrency = concurrency;
        parley::batch_runner runner(io.get_executor(), o);
        parley::bot bot(parley::load_template_set(templates),
                        std::make_shared<parley::governed_model>(std::make_shared<parley::client_model>(client), runner.governor()));
        auto work = [&bot](const parley::batch_input& in, parley::batch_attempt& a) -> asio::awaitable<parley::batch_outcome> {
            parley::run_options opt;
            opt.usage = &a.usage();
            auto added = co_await bot.run("hello", in.data, {}, std::move(opt));
            co_return boost::json::value(added.back().text());
        };
        auto f = asio::co_spawn(io, runner.run(inputs, work, out), asio::use_future);
        io.restart();
        io.run();
        const auto p = f.get();
        cpu += cpu_seconds() - c0;
        done += p.done;
        failed += p.failed;
    }
    std::filesystem::remove_all(dir);
    report(state, cpu, done, failed);
}

BENCHMARK(BM_chat_calls)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime()->Iterations(3);
BENCHMARK(BM_batch_runner)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime()->Iterations(3);
BENCHMARK(BM_batch_template)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime()->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a.starts_with("--base-url=")) base_url = std::string(a.substr(11));
        else rest.push_back(argv[i]);
    }
    if (base_url.empty()) {
        std::fprintf(stderr, "usage: parley-bench-batch_bench --base-url=http://127.0.0.1:PORT/v1 [benchmark options]\n"
                             "(a running `parley fake-server`; benchmarks/batch_run_compare.py starts one)\n");
        return 2;
    }
    int n = static_cast<int>(rest.size());
    benchmark::Initialize(&n, rest.data());
    if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
