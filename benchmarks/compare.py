#!/usr/bin/env python3
"""parley's Jinja engine against Python Jinja2, same cases, same run: prints a Markdown table.

    compare.py [BENCHMARK_BINARY] [--clock cpu|real] [--rounds N] [--min-time SECONDS]

BENCHMARK_BINARY defaults to build/gcc/benchmarks/parley-bench-jinja_bench; it must be built
with optimisation and NDEBUG (the gcc and clang presets are RelWithDebInfo: -O2 -g -DNDEBUG).
This script builds nothing. It

  1. runs the binary with --dump=DIR: the cases (template files, contexts, parley's outputs);
  2. --rounds times: runs the binary with --benchmark_format=json (which first checks that the
     engine's ChatML output equals the hand-written loop's), then benchmarks/jinja_peer.py DIR
     with a Python that has Jinja2 (python3 on PATH, else /usr/bin/python3), which checks that
     Jinja2's output equals parley's on every render case and times Jinja2 on every case;

and prints the table with the targets of docs/benchmarks.md. Exit status: 0 when every output
matched and every target is met, 1 otherwise.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_BINARY = os.path.join(ROOT, "build", "gcc", "benchmarks", "parley-bench-jinja_bench")

# (case, label, target speed-up over Jinja2 or None)
PEER_CASES = [
    ("chatml/parse", "ChatML, parse", None),
    ("chatml-3/render", "ChatML, 3 messages, render", 20),
    ("chatml-100/render", "ChatML, 100 messages, render", 20),
    ("chatml-1000/render", "ChatML, 1000 messages, render", 20),
    ("qwen3-coder/parse", "Qwen3-Coder + tools.json, parse", 100),
    ("qwen3-coder/render", "Qwen3-Coder + tools.json, render", 20),
]
# (messages, largest allowed render / append ratio or None)
BASELINE_CASES = [(3, None), (100, 3), (1000, None)]

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def python_with_jinja2():
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if candidate and subprocess.run([candidate, "-c", "import jinja2"],
                                        capture_output=True).returncode == 0:
            return candidate
    sys.exit("compare.py: no Python with Jinja2 (python3 on PATH or /usr/bin/python3): "
             "apt-get install python3-jinja2")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(f"compare.py: {' '.join(cmd)} failed with status {p.returncode}")
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


def git_revision():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fmt_time(ns):
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.3g} µs" if ns < 1e5 else f"{ns / 1e3:.0f} µs"
    return f"{ns / 1e6:.3g} ms"


def fmt_ratio(r):
    return f"{r:.1f}×" if r < 100 else f"{r:.0f}×"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary", nargs="?", default=DEFAULT_BINARY)
    ap.add_argument("--clock", choices=["cpu", "real"], default="cpu",
                    help="CPU time of the process (default) or wall-clock time")
    ap.add_argument("--rounds", type=int, default=5,
                    help="how many times each side times each case (the table shows the median)")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="seconds per timing of each case, on both sides")
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit(f"compare.py: no benchmark program at {a.binary}: build the target "
                 "parley-bench-jinja_bench first (see docs/benchmarks.md)")
    key = "cpu_ns" if a.clock == "cpu" else "real_ns"
    started = datetime.datetime.now(datetime.timezone.utc)
    revision = git_revision()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    # Rounds alternate between the two sides, so that both meet the same machine conditions
    # (other processes, frequency changes); each round times every case once on each side.
    ours, theirs = {}, {}
    python = python_with_jinja2()
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as cases_dir:
        run([a.binary, f"--dump={cases_dir}"])
        for _ in range(a.rounds):
            bench = json.loads(run([a.binary, "--benchmark_format=json",
                                    f"--benchmark_min_time={a.min_time}"]))
            context = bench["context"]
            if context.get("parley_optimized") != "yes" or context.get("parley_ndebug") != "yes":
                sys.exit("compare.py: the benchmark program was built without optimisation or "
                         "without NDEBUG: configure with CMAKE_BUILD_TYPE=RelWithDebInfo or Release")
            for b in bench["benchmarks"]:
                if b.get("error_occurred"):
                    sys.exit(f"compare.py: {b['name']}: {b.get('error_message', 'error')}")
                unit = UNIT_NS[b.get("time_unit", "ns")]
                ours.setdefault(b["name"], []).append(
                    {"cpu_ns": b["cpu_time"] * unit, "real_ns": b["real_time"] * unit})

            p = subprocess.run([python, os.path.join(HERE, "jinja_peer.py"), cases_dir,
                                "--min-time", str(a.min_time), "--repetitions", "1"],
                               capture_output=True, text=True)
            if p.returncode != 0 or not p.stdout.strip():
                sys.stderr.write(p.stderr)
                sys.exit("compare.py: Python Jinja2 and parley disagree, or the peer failed")
            peer = json.loads(p.stdout)
            for r in peer["results"]:
                theirs.setdefault(r["name"], []).extend(r["runs"])
    parley = {name: statistics.median(r[key] for r in runs) for name, runs in ours.items()}
    jinja = {name: statistics.median(r[key] for r in runs) for name, runs in theirs.items()}

    missed = []
    out = []
    out.append("| Case | parley | Python Jinja2 | Jinja2 / parley | Target | |")
    out.append("|---|--:|--:|--:|--:|---|")
    for name, label, target in PEER_CASES:
        if name not in parley or name not in jinja:
            sys.exit(f"compare.py: no result for {name}")
        ratio = jinja[name] / parley[name]
        verdict = ""
        if target is not None:
            verdict = "met" if ratio >= target else "**missed**"
            if ratio < target:
                missed.append(f"{label}: {fmt_ratio(ratio)} faster than Jinja2, target {target}×")
        out.append(f"| {label} | {fmt_time(parley[name])} | {fmt_time(jinja[name])} | "
                   f"{fmt_ratio(ratio)} | {f'≥ {target}×' if target else '—'} | {verdict} |")
    out.append("")
    out.append("| ChatML | `render` | `append` | render / append | `render_to` | `append_to` | "
               "render_to / append_to | Target | | Jinja2 / append |")
    out.append("|---|--:|--:|--:|--:|--:|--:|--:|---|--:|")
    for n, limit in BASELINE_CASES:
        t = {v: parley[f"chatml-{n}/{v}"] for v in ("render", "append", "render_to", "append_to")}
        ratio = t["render"] / t["append"]
        verdict = ""
        if limit is not None:
            verdict = "met" if ratio <= limit else "**missed**"
            if ratio > limit:
                missed.append(f"ChatML-{n} render: {fmt_ratio(ratio)} the append loop's time, "
                              f"target at most {limit}×")
        out.append(f"| {n} messages | {fmt_time(t['render'])} | {fmt_time(t['append'])} | "
                   f"{fmt_ratio(ratio)} | {fmt_time(t['render_to'])} | {fmt_time(t['append_to'])} | "
                   f"{fmt_ratio(t['render_to'] / t['append_to'])} | "
                   f"{f'≤ {limit}×' if limit else '—'} | {verdict} | "
                   f"{fmt_ratio(jinja[f'chatml-{n}/render'] / t['append'])} |")
    out.append("")
    clock = ("CPU time of the process (Google Benchmark's cpu_time, Python's time.process_time)"
             if a.clock == "cpu" else
             "wall-clock time (Google Benchmark's real_time, Python's time.perf_counter)")
    out.append(f"- Date: {started:%Y-%m-%d %H:%M} UTC; parley {revision}")
    out.append(f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; "
               f"load average at start {load:.2f}")
    out.append(f"- Compiler: {context.get('parley_compiler', 'unknown')}, optimised, NDEBUG; "
               f"Google Benchmark library built as {context.get('library_build_type', 'unknown')}")
    out.append(f"- Python {peer['python']} ({peer['python_implementation']}), "
               f"Jinja2 {peer['jinja2']}")
    out.append(f"- Times: {clock}, per call; median of {a.rounds} rounds that alternate between "
               f"parley and Jinja2, each timing every case for at least {a.min_time:g} s")
    print("\n".join(out))
    if missed:
        sys.stderr.write("targets missed:\n" + "".join(f"  {m}\n" for m in missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
