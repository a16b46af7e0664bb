#!/usr/bin/env python3
"""parley's from_json against Boost.JSON's value_to, and the run-time cost of a schema: prints a Markdown table.

    schema_compare.py [BENCHMARK_BINARY] [--clock cpu|real] [--repetitions N] [--min-time SECONDS]

BENCHMARK_BINARY defaults to build/gcc/benchmarks/parley-bench-schema_bench; it must be built
with optimisation and NDEBUG (the gcc and clang presets are RelWithDebInfo: -O2 -g -DNDEBUG).
This script builds nothing. It runs the binary once with --benchmark_format=json,
--benchmark_repetitions=N and --benchmark_enable_random_interleaving=true (the repetitions of
all cases are run in a shuffled order, so that parley and Boost.JSON meet the same machine
conditions), takes the median of the N repetitions of each case, and prints the table with the
targets of docs/benchmarks.md. The program checks, before timing, that both converters read
the same order; a case that failed that check stops this script.

Exit status: 0 when every target is met, 1 when one is missed, when a case failed, or when the
program was built without optimisation or without NDEBUG.
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
DEFAULT_BINARY = os.path.join(ROOT, "build", "gcc", "benchmarks", "parley-bench-schema_bench")

# (parley case, Boost.JSON case, label, largest allowed parley / value_to ratio)
CONVERSION_CASES = [
    ("value/parley_from_json", "value/boost_value_to", "parsed `boost::json::value` → struct", 1.5),
    ("text/parley_from_json", "text/boost_value_to", "text → `boost::json::parse` → struct", 1.5),
]
# (case, label, largest allowed time in ns or None). Reading a constant is a register move, and
# returning the reference to a value parsed once a check of its guard; anything that touched
# the schema's 2.8 KB of text would take far longer than the limit.
SCHEMA_CASES = [
    ("schema/text", "`json_schema_text<T>` (compile-time constant)", 5.0),
    ("schema/strict_text", "`strict_json_schema_text<T>` (compile-time constant)", 5.0),
    ("schema/value", "`json_schema<T>()` (reference to the value parsed on first use)", 5.0),
    ("schema/strict_value", "`strict_json_schema<T>()` (the same, strict form)", 5.0),
    ("schema/value_copy", "a copy of `json_schema<T>()` (for a caller that keeps one)", None),
    ("schema/parse_text", "parsing the schema text into a `boost::json::value` (first use only)", None),
]


def fmt_ratio(r):
    return f"{r:.2f}×"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary", nargs="?", default=DEFAULT_BINARY)
    ap.add_argument("--clock", choices=["cpu", "real"], default="cpu",
                    help="CPU time of the process (default) or wall-clock time")
    ap.add_argument("--repetitions", type=int, default=9,
                    help="how many times each case is timed (the table shows the median)")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="seconds per timing of each case")
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit(f"schema_compare.py: no benchmark program at {a.binary}: build the target "
                 "parley-bench-schema_bench first (see docs/benchmarks.md)")
    started = datetime.datetime.now(datetime.timezone.utc)
    revision = git_revision()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    cmd = [a.binary, "--benchmark_format=json", f"--benchmark_repetitions={a.repetitions}",
           "--benchmark_enable_random_interleaving=true", f"--benchmark_min_time={a.min_time}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(f"schema_compare.py: {' '.join(cmd)} failed with status {p.returncode}")
    bench = json.loads(p.stdout)
    context = bench["context"]
    if context.get("parley_optimized") != "yes" or context.get("parley_ndebug") != "yes":
        sys.stderr.write("schema_compare.py: the benchmark program was built without optimisation or "
                         "without NDEBUG: configure with CMAKE_BUILD_TYPE=RelWithDebInfo or Release\n")
        return 1

    key = "cpu_time" if a.clock == "cpu" else "real_time"
    runs = {}
    for b in bench["benchmarks"]:
        if b.get("error_occurred"):
            sys.stderr.write(f"schema_compare.py: {b['name']}: {b.get('error_message', 'error')}\n")
            return 1
        if b.get("run_type") != "iteration":
            continue  # Google Benchmark's own aggregates; the median is taken below
        runs.setdefault(b["run_name"], []).append(b[key] * UNIT_NS[b.get("time_unit", "ns")])
    time = {name: statistics.median(values) for name, values in runs.items()}

    missed = []
    out = []
    out.append(f"`order_arguments` from {context.get('parley_json_bytes', '?')} bytes of JSON:")
    out.append("")
    out.append("| Conversion | parley `from_json` | Boost.JSON `value_to` | parley / value_to | Target | |")
    out.append("|---|--:|--:|--:|--:|---|")
    for ours, theirs, label, limit in CONVERSION_CASES:
        if ours not in time or theirs not in time:
            sys.exit(f"schema_compare.py: no result for {ours} or {theirs}")
        ratio = time[ours] / time[theirs]
        met = ratio <= limit
        if not met:
            missed.append(f"{label}: parley takes {fmt_ratio(ratio)} value_to's time, target at most {limit}×")
        out.append(f"| {label} | {fmt_time(time[ours])} | {fmt_time(time[theirs])} | {fmt_ratio(ratio)} | "
                   f"≤ {limit}× | {'met' if met else '**missed**'} |")
    out.append("")
    out.append(f"The schema of `order_arguments` ({context.get('parley_schema_bytes', '?')} bytes; strict form "
               f"{context.get('parley_strict_schema_bytes', '?')} bytes):")
    out.append("")
    out.append("| Schema at run time | Time per call | Target | |")
    out.append("|---|--:|--:|---|")
    for name, label, limit in SCHEMA_CASES:
        if name not in time:
            sys.exit(f"schema_compare.py: no result for {name}")
        t = time[name]
        verdict = ""
        if limit is not None:
            verdict = "met" if t <= limit else "**missed**"
            if t > limit:
                missed.append(f"{label}: {t:.2f} ns, target at most {limit:g} ns (no run-time work)")
        time_text = f"{t:.2f} ns" if t < 10 else fmt_time(t)
        out.append(f"| {label} | {time_text} | {f'≤ {limit:g} ns' if limit else '—'} | {verdict} |")
    out.append("")
    clock = ("CPU time of the process (Google Benchmark's cpu_time)" if a.clock == "cpu" else
             "wall-clock time (Google Benchmark's real_time)")
    out.append(f"- Date: {started:%Y-%m-%d %H:%M} UTC; parley {revision}")
    out.append(f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; load average at start {load:.2f}")
    out.append(f"- Compiler: {context.get('parley_compiler', 'unknown').strip()}, optimised, NDEBUG; "
               f"Boost {context.get('parley_boost_version', 'unknown').replace('_', '.')}; "
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
