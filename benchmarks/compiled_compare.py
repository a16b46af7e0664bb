#!/usr/bin/env python3
"""Compile-time templates against a hand-written append loop and the run-time engine: prints Markdown tables.

    compiled_compare.py [BENCHMARK_BINARY] [--clock cpu|real] [--repetitions N] [--min-time SECONDS]

BENCHMARK_BINARY defaults to build/gcc/benchmarks/parley-bench-compiled_bench; it must be built
with optimisation and NDEBUG (the gcc and clang presets are RelWithDebInfo: -O2 -g -DNDEBUG).
This script builds nothing. It runs the binary once with --benchmark_format=json,
--benchmark_repetitions=N and --benchmark_enable_random_interleaving=true (the repetitions of
all cases run in a shuffled order, so that the generated code, the hand-written loop and the
run-time engine meet the same machine conditions), takes the median of the N repetitions of
each case, and prints the tables with the targets of docs/benchmarks.md ("Compile-time
templates"). The program checks, before timing, that every variant writes the expected bytes;
a case that failed that check stops this script.

Targets, for ChatML over 3, 100 and 1000 messages, checked both for renders into a new string
(compiled against append, runtime against compiled) and into a reused one (the _to variants):
  - the compiled template takes at most 1.5 times the hand-written loop's time;
  - the run-time engine, rendering the same structs, takes at least 3 times the compiled
    template's time.
The Rasa prompt has no target; its table shows whether it takes the generated path.

Exit status: 0 when every target is met, 1 when one is missed, when a case failed, when ChatML
does not take the generated path, or when the program was built without optimisation or NDEBUG.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # importing compare.py leaves no __pycache__ in the source tree
from compare import UNIT_NS, cpu_model, fmt_time, git_revision  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_BINARY = os.path.join(ROOT, "build", "gcc", "benchmarks", "parley-bench-compiled_bench")

CHATML_SIZES = [3, 100, 1000]
MAX_COMPILED_OVER_APPEND = 1.5
MIN_RUNTIME_OVER_COMPILED = 3.0


def fmt_ratio(r):
    return f"{r:.2f}×"


def fmt_bytes(n):
    return f"{n} B" if n < 1000 else f"{n / 1000:.3g} KB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary", nargs="?", default=DEFAULT_BINARY)
    ap.add_argument("--clock", choices=["cpu", "real"], default="cpu",
                    help="CPU time of the process (default) or wall-clock time")
    ap.add_argument("--repetitions", type=int, default=7,
                    help="how many times each case is timed (the tables show the median)")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="seconds per timing of each case")
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit(f"compiled_compare.py: no benchmark program at {a.binary}: build the target "
                 "parley-bench-compiled_bench first (see docs/benchmarks.md)")
    started = datetime.datetime.now(datetime.timezone.utc)
    revision = git_revision()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    cmd = [a.binary, "--benchmark_format=json", f"--benchmark_repetitions={a.repetitions}",
           "--benchmark_enable_random_interleaving=true", f"--benchmark_min_time={a.min_time}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.stderr.write(f"compiled_compare.py: {' '.join(cmd)} failed with status {p.returncode}\n")
        return 1
    bench = json.loads(p.stdout)
    context = bench["context"]
    if context.get("parley_optimized") != "yes" or context.get("parley_ndebug") != "yes":
        sys.stderr.write("compiled_compare.py: the benchmark program was built without optimisation or "
                         "without NDEBUG: configure with CMAKE_BUILD_TYPE=RelWithDebInfo or Release\n")
        return 1
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    key = "cpu_time" if a.clock == "cpu" else "real_time"
    runs = {}
    for b in bench["benchmarks"]:
        if b.get("error_occurred"):
            sys.stderr.write(f"compiled_compare.py: {b['name']}: {b.get('error_message', 'error')}\n")
            return 1
        if b.get("run_type") != "iteration":
            continue  # Google Benchmark's own aggregates; the median is taken below
        runs.setdefault(b["run_name"], []).append(b[key] * UNIT_NS[b.get("time_unit", "ns")])
    time = {name: statistics.median(values) for name, values in runs.items()}

    def t(name):
        if name not in time:
            sys.exit(f"compiled_compare.py: no result for {name}")
        return time[name]

    output_bytes = {}
    for item in context.get("parley_output_bytes", "").split(","):
        if "=" in item:
            name, n = item.split("=", 1)
            output_bytes[name] = int(n)

    missed = []

    chatml_compiled = context.get("parley_chatml_compiled") == "yes"
    if not chatml_compiled:
        missed.append("ChatML does not take the generated path (is_compiled_for<chatml_ctx> is false)")

    out = []
    out.append("ChatML against the hand-written `std::string::append` loop (same structs, same bytes):")
    out.append("")
    out.append("| Messages | Output | `compiled` | `append` | compiled / append | `compiled_to` | `append_to` | "
               "compiled_to / append_to | Target | |")
    out.append("|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    for n in CHATML_SIZES:
        c = f"chatml-{n}"
        new = t(f"{c}/compiled") / t(f"{c}/append")
        reused = t(f"{c}/compiled_to") / t(f"{c}/append_to")
        ok_new, ok_reused = new <= MAX_COMPILED_OVER_APPEND, reused <= MAX_COMPILED_OVER_APPEND
        if not ok_new:
            missed.append(f"ChatML-{n}: compiled takes {fmt_ratio(new)} the append loop's time, "
                          f"target at most {MAX_COMPILED_OVER_APPEND}×")
        if not ok_reused:
            missed.append(f"ChatML-{n}: compiled_to takes {fmt_ratio(reused)} append_to's time, "
                          f"target at most {MAX_COMPILED_OVER_APPEND}×")
        out.append(f"| {n} | {fmt_bytes(output_bytes.get(c, 0))} | {fmt_time(t(f'{c}/compiled'))} | "
                   f"{fmt_time(t(f'{c}/append'))} | {fmt_ratio(new)} | {fmt_time(t(f'{c}/compiled_to'))} | "
                   f"{fmt_time(t(f'{c}/append_to'))} | {fmt_ratio(reused)} | ≤ {MAX_COMPILED_OVER_APPEND}× | "
                   f"{'met' if ok_new and ok_reused else '**missed**'} |")
    out.append("")
    out.append("ChatML: the run-time engine on the same structs against the compiled template:")
    out.append("")
    out.append("| Messages | `runtime` | `compiled` | runtime / compiled | `runtime_to` | `compiled_to` | "
               "runtime_to / compiled_to | Target | | `runtime_json` |")
    out.append("|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|")
    for n in CHATML_SIZES:
        c = f"chatml-{n}"
        new = t(f"{c}/runtime") / t(f"{c}/compiled")
        reused = t(f"{c}/runtime_to") / t(f"{c}/compiled_to")
        ok_new, ok_reused = new >= MIN_RUNTIME_OVER_COMPILED, reused >= MIN_RUNTIME_OVER_COMPILED
        if not ok_new:
            missed.append(f"ChatML-{n}: the compiled template is {fmt_ratio(new)} faster than the run-time "
                          f"engine, target at least {MIN_RUNTIME_OVER_COMPILED}×")
        if not ok_reused:
            missed.append(f"ChatML-{n}: compiled_to is {fmt_ratio(reused)} faster than runtime_to, "
                          f"target at least {MIN_RUNTIME_OVER_COMPILED}×")
        out.append(f"| {n} | {fmt_time(t(f'{c}/runtime'))} | {fmt_time(t(f'{c}/compiled'))} | {fmt_ratio(new)} | "
                   f"{fmt_time(t(f'{c}/runtime_to'))} | {fmt_time(t(f'{c}/compiled_to'))} | {fmt_ratio(reused)} | "
                   f"≥ {MIN_RUNTIME_OVER_COMPILED:g}× | {'met' if ok_new and ok_reused else '**missed**'} | "
                   f"{fmt_time(t(f'{c}/runtime_json'))} |")
    out.append("")
    rasa_compiled = context.get("parley_rasa_compiled") == "yes"
    out.append("Rasa command-generator prompt, described context (generated path: "
               f"{'yes' if rasa_compiled else 'no, the run-time engine renders it'}):")
    out.append("")
    out.append("| Context | Output | `compiled` | `runtime` | runtime / compiled | `compiled_to` | `runtime_to` | "
               "runtime_to / compiled_to | `runtime_json` |")
    out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for k in range(int(context.get("parley_rasa_contexts", "0"))):
        c = f"rasa-{k}"
        out.append(f"| {k} | {fmt_bytes(output_bytes.get(c, 0))} | {fmt_time(t(f'{c}/compiled'))} | "
                   f"{fmt_time(t(f'{c}/runtime'))} | {fmt_ratio(t(f'{c}/runtime') / t(f'{c}/compiled'))} | "
                   f"{fmt_time(t(f'{c}/compiled_to'))} | {fmt_time(t(f'{c}/runtime_to'))} | "
                   f"{fmt_ratio(t(f'{c}/runtime_to') / t(f'{c}/compiled_to'))} | "
                   f"{fmt_time(t(f'{c}/runtime_json'))} |")
    out.append("")
    clock = ("CPU time of the process (Google Benchmark's cpu_time)" if a.clock == "cpu" else
             "wall-clock time (Google Benchmark's real_time)")
    out.append(f"- Date: {started:%Y-%m-%d %H:%M} UTC; parley {revision}")
    out.append(f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; load average {load:.2f} at start, "
               f"{load_end:.2f} at the end")
    out.append(f"- Compiler: {context.get('parley_compiler', 'unknown').strip()}, optimised, NDEBUG; "
               f"Google Benchmark library built as {context.get('library_build_type', 'unknown')}")
    out.append(f"- Times: {clock}, per call; median of {a.repetitions} repetitions in shuffled order, "
               f"each timing the case for at least {a.min_time:g} s")
    print("\n".join(out))
    if missed:
        sys.stderr.write("targets missed:\n" + "".join(f"  {m}\n" for m in missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
