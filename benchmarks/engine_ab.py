#!/usr/bin/env python3
"""Two builds of the render benchmark against each other, same cases, same run.

    engine_ab.py NEW_BINARY BASELINE_BINARY [--rounds N] [--min-time SECONDS] [--filter REGEX]
                 [--clock cpu|real] [--instructions]

Both binaries are parley-bench-jinja_bench, built from two revisions of the engine with the same
flags (the gcc preset's: -O2 -DNDEBUG). Each round runs both of them, in alternating order (the
new one first in odd rounds), with --benchmark_format=json on the cases that match --filter
(every render case by default); each run first checks, as the benchmark program always does,
that the engine's ChatML output equals the hand-written loop's. The table shows, per case, the
median over the rounds of each build's time per call and their ratio (new / baseline: below 1
is faster). With --instructions, the table also shows the instructions per render of each build,
counted by valgrind's callgrind (the inclusive cost of parsed_template::render_value divided by
its calls), which do not depend on the load of the machine. docs/benchmarks.md ("Integers of any size") has a run and what was decided from it.
This script builds nothing. Exit status: 0, or 1 when a benchmark run fails.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def run(binary, args, clock):
    p = subprocess.run([binary, "--benchmark_format=json"] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(f"engine_ab.py: {binary} failed with status {p.returncode}")
    times = {}
    for b in json.loads(p.stdout)["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"engine_ab.py: {binary}: {b['name']}: {b.get('error_message')}")
        times[b["name"]] = b[clock] * UNIT_NS[b["time_unit"]]
    return times


def instructions(binary, case):
    """Instructions per render of `case` under callgrind."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "callgrind.out")
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary,
                            f"--benchmark_filter=^{case}$", "--benchmark_min_time=0.01"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.stderr.write(p.stderr[-2000:])
            sys.exit(f"engine_ab.py: callgrind of {binary} ({case}) failed with status {p.returncode}")
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--tree=caller", out],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    # the callers of render_value, listed just above its own line: "N (x%)  < caller (Kx)"
    for i, line in enumerate(ann):
        if "*  " in line and "parsed_template::render_value(" in line:
            cost = calls = 0
            for prev in reversed(ann[:i]):
                m = re.match(r"\s*([\d,]+) \(.*?\)\s+<.*\(([\d,]+)x\)", prev)
                if not m:
                    break
                cost += int(m.group(1).replace(",", ""))
                calls += int(m.group(2).replace(",", ""))
            if calls:
                return cost / calls
    sys.exit(f"engine_ab.py: no calls of parsed_template::render_value in the profile of {binary} ({case})")


def fmt_time(ns):
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns / 1e6:.3g} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("new")
    ap.add_argument("baseline")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.3, help="seconds per case per run (default 0.3)")
    ap.add_argument("--filter", default="/render$", help="Google Benchmark filter (default: the render cases)")
    ap.add_argument("--clock", choices=["cpu", "real"], default="cpu")
    ap.add_argument("--instructions", action="store_true", help="also count instructions per render (valgrind)")
    a = ap.parse_args()
    clock = "cpu_time" if a.clock == "cpu" else "real_time"
    bench_args = [f"--benchmark_filter={a.filter}", f"--benchmark_min_time={a.min_time}"]
    new, base = {}, {}
    load = os.getloadavg()[0]
    for r in range(a.rounds):
        order = [(a.new, new), (a.baseline, base)]
        if r % 2:
            order.reverse()
        for binary, into in order:
            for name, t in run(binary, bench_args, clock).items():
                into.setdefault(name, []).append(t)
    if a.instructions:
        print("| Case | new | baseline | new / baseline | instructions, new | instructions, baseline | new / baseline |")
        print("|---|--:|--:|--:|--:|--:|--:|")
    else:
        print("| Case | new | baseline | new / baseline |")
        print("|---|--:|--:|--:|")
    for name in new:
        n, b = statistics.median(new[name]), statistics.median(base[name])
        row = f"| {name} | {fmt_time(n)} | {fmt_time(b)} | {n / b:.3f} |"
        if a.instructions:
            ni, bi = instructions(a.new, name), instructions(a.baseline, name)
            row += f" {ni:,.0f} | {bi:,.0f} | {ni / bi:.4f} |"
        print(row)
    print()
    print(f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; load average at start {load:.2f}")
    print(f"- new: {a.new}")
    print(f"- baseline: {a.baseline}")
    print(f"- {a.clock.upper()} time per call, median of {a.rounds} rounds alternating the two programs, "
          f"each timing each case for at least {a.min_time} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
