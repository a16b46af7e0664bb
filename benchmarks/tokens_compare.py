#!/usr/bin/env python3
"""parley's tokenizers against tiktoken and Hugging Face tokenizers, same texts, same run: prints
the Markdown tables of docs/benchmarks.md ("Tokenizers").

    tokens_compare.py [BENCHMARK_BINARY] [--references NODE_MODULES] [--min-time SECONDS] [--rounds N]
                      [--skip-long]

BENCHMARK_BINARY defaults to build/gcc/benchmarks/parley-bench-tokens_bench (built with
optimisation and NDEBUG); NODE_MODULES to .cache/node-peers/tokens/node_modules (./dev.sh test
installs it from tests/tokens/package.json). This script builds nothing. It

  1. writes the rank files (tests/tokens/make_rank_files.mjs) and the four 1 MB texts
     (benchmarks/tokens_texts.mjs: needs Debian's fortunes and fortunes-zh) into a temporary folder;
  2. runs, in N rounds (default 2), the benchmark program's load and encode benchmarks (CPU time,
     one thread, three timings of each of at least SECONDS, default 1), then the references
     (benchmarks/tokens_peer.mjs, RAYON_NUM_THREADS=1: one thread; the best of three timings of
     at least SECONDS), keeps each side's best timing of each case, and checks that every
     reference counts the same tokens as parley on every text;
  3. unless --skip-long: the pathological inputs (1 to 10 MB) and the count of 100 MB, each in a
     process of its own (its peak resident memory is the process's);

and prints the tables with the targets: encoding at least 5 times tiktoken's and 10 times
Hugging Face tokenizers' tokens per second on every text for o200k_base, cl100k_base and Llama 3;
o200k_base loaded in under 100 ms, holding at most twice its rank file's size. Exit status 0 when
every target is met, 1 otherwise.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_BINARY = os.path.join(ROOT, "build", "gcc", "benchmarks", "parley-bench-tokens_bench")
DEFAULT_REFERENCES = os.path.join(ROOT, ".cache", "node-peers", "tokens", "node_modules")
TEXTS = ["english", "code", "chinese", "json"]
# (parley's tokenizer, the references' name of it, target over tiktoken, target over tokenizers)
TARGETS = [("o200k_base", 5, 10), ("cl100k_base", 5, None), ("llama3", 5, 10)]


def fail(message):
    sys.exit("tokens_compare.py: " + message)


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        fail(f"{' '.join(cmd)} failed with status {p.returncode}")
    return p.stdout


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def bench(binary, env, pattern, min_time=None, repetitions=1):
    cmd = [binary, f"--benchmark_filter={pattern}", "--benchmark_format=json"]
    if min_time:
        cmd.append(f"--benchmark_min_time={min_time}")
    if repetitions > 1:
        cmd.append(f"--benchmark_repetitions={repetitions}")
    return [b for b in json.loads(run(cmd, env))["benchmarks"] if b.get("run_type", "iteration") == "iteration"]


def best_of(runs):
    """The best run of each benchmark: the most tokens per second, or the least CPU time."""
    best = {}
    for b in runs:
        old = best.get(b["name"])
        if "tokens_per_second" in b:
            better = old is None or b["tokens_per_second"] > old["tokens_per_second"]
        else:
            better = old is None or b["cpu_time"] < old["cpu_time"]
        if better:
            best[b["name"]] = b
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=DEFAULT_BINARY)
    ap.add_argument("--references", default=DEFAULT_REFERENCES)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--skip-long", action="store_true")
    a = ap.parse_args()
    node = shutil.which("node") or fail("node is not on PATH")
    if not os.path.isfile(a.binary):
        fail(f"{a.binary} does not exist: cmake --build build/gcc --target parley-bench-tokens_bench")
    if not os.path.isdir(os.path.join(a.references, "@anush008", "tokenizers")):
        fail(f"{a.references} lacks the reference tokenizers: ./dev.sh test installs them (tests/tokens/package.json)")

    work = tempfile.mkdtemp(prefix="parley-tokens-bench-")
    ranks, texts = os.path.join(work, "ranks"), os.path.join(work, "texts")
    run([node, os.path.join(ROOT, "tests", "tokens", "make_rank_files.mjs"), a.references, ranks])
    run([node, os.path.join(HERE, "tokens_texts.mjs"), a.references, ROOT, texts])
    env = dict(os.environ, PARLEY_TOKENS_TEXTS=texts, PARLEY_TOKENS_RANKS=ranks, PARLEY_TOKENS_REFERENCES=a.references)

    # rounds that alternate between parley and the references, each timing every case three
    # times; each side's best timing of all is kept (the machine's load changes from minute to
    # minute, and the same statistic on both sides)
    ours_runs, peer_runs, node_version = [], [], ""
    for _ in range(max(1, a.rounds)):
        ours_runs += bench(a.binary, env, "^(load|encode)/", a.min_time, repetitions=3)
        p = json.loads(run([node, os.path.join(HERE, "tokens_peer.mjs"), a.references, ranks, texts, str(a.min_time)],
                           dict(env, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")))
        peer_runs += p["results"]
        node_version = p["node"]
    long_runs = []
    if not a.skip_long:
        for pattern in ["^pathological/", "^count_100MB/o200k_base/", "^count_100MB/llama3/"]:
            long_runs += bench(a.binary, env, pattern)

    by_name = best_of(ours_runs)
    peer = {}
    for r in peer_runs:
        k = (r["peer"], r["tokenizer"], r["text"])
        if k not in peer or r["tokens_per_second"] > peer[k]["tokens_per_second"]:
            peer[k] = r
    ok = True
    mismatched = []
    print(f"Run at {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {cpu_model()}, "
          f"load average {os.getloadavg()[0]:.1f}; Node {node_version}; CPU time of one thread; each side's best of "
          f"{3 * max(1, a.rounds)} timings of at least {a.min_time:g} s, in {max(1, a.rounds)} alternating rounds.\n")
    print("| tokenizer | text | parley M tokens/s | tiktoken | parley / tiktoken | tokenizers | parley / tokenizers |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for tok, t_target, h_target in TARGETS + [("qwen3", None, None), ("gemma3", None, None)]:
        for text in TEXTS:
            b = by_name.get(f"encode/{tok}/{text}")
            if not b:
                continue
            rate = b["tokens_per_second"]
            cells = [tok, text, f"{rate / 1e6:.2f}"]
            for name, target in (("tiktoken", t_target), ("tokenizers", h_target)):
                r = peer.get((name, tok, text))
                if not r:
                    cells += ["", ""]
                    continue
                if int(r["tokens"]) != int(b["tokens"]):
                    mismatched.append(f"{name} counts {r['tokens']} tokens of {text} with {tok}, parley {int(b['tokens'])}")
                ratio = rate / r["tokens_per_second"]
                met = target is None or ratio >= target
                ok = ok and met
                mark = "" if target is None else (f" (>= {target}: met)" if met else f" (>= {target}: MISSED)")
                cells += [f"{r['tokens_per_second'] / 1e6:.3f}", f"{ratio:.1f}x{mark}"]
            print("| " + " | ".join(cells) + " |")
    print()
    print("| load | time (CPU) | file | held in memory | held / file | resident memory grown |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for tok in ["o200k_base", "cl100k_base", "llama3"]:
        b = by_name.get(f"load/{tok}")
        if not b:
            continue
        ms = b["cpu_time"] if b["time_unit"] == "ms" else b["cpu_time"] / 1e6
        ratio = b["held_bytes"] / b["file_bytes"]
        note = ""
        if tok == "o200k_base":
            met = ms < 100 and ratio <= 2
            ok = ok and met
            note = " (targets < 100 ms, <= 2x: " + ("met)" if met else "MISSED)")
        print(f"| {tok} | {ms:.1f} ms | {b['file_bytes'] / 1e6:.2f} MB | {b['held_bytes'] / 1e6:.2f} MB | {ratio:.2f}x{note} | "
              f"{b['rss_bytes'] / 1e6:.1f} MB |")
    if long_runs:
        print()
        print("| input | tokenizer | size | time | tokens | MB/s |")
        print("| --- | --- | ---: | ---: | ---: | ---: |")
        for b in long_runs:
            parts = b["name"].split("/")
            if parts[0] == "pathological":
                kind, tok, size = parts[2], parts[1], parts[3]
                print(f"| {kind} | {tok} | {size} MB | {b['real_time']:.0f} ms | {int(b['tokens'])} | {b['bytes_per_second'] / 2**20:.1f} |")
            else:
                print(f"| count 100 MB of English | {parts[1]} | {b['text_bytes'] / 2**20:.0f} MB | {b['real_time']:.0f} ms | "
                      f"{int(b['tokens'])} | {b['bytes_per_second'] / 2**20:.1f} (peak resident memory "
                      f"{b['peak_rss_bytes'] / 2**20:.0f} MB, of which the text {b['text_bytes'] / 2**20:.0f} MB) |")
    for m in mismatched:
        print("count mismatch: " + m)
    shutil.rmtree(work, ignore_errors=True)
    if mismatched:
        ok = False
    print("\ntargets: " + ("all met" if ok else "MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
