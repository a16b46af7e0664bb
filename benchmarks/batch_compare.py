#!/usr/bin/env python3
"""`parley jinja --batch` against Python Jinja2's batch renderer, same input, same run.

    batch_compare.py [--parley PATH] [--bench PATH] [--oracle PATH] [--renders N] [--rounds N]
                     [--clock cpu|real] [--baseline PATH]

The input is what a client of the batch mode sends: N JSON lines (3,000 by default) in the
Hugging Face environment, alternating Qwen3-Coder.jinja with tools.json (../shared/corpus) and
ChatML (examples/chat-templates/chatml.jinja) with the 100-message conversation of the render
benchmarks (written by `parley-bench-jinja_bench --dump=DIR`). Each line carries its template's
text and its context, as jinja_diff.py sends them.

Each round runs `PARLEY jinja --batch` and `ORACLE --batch` (../shared/tools/jinja-oracle: Python
Jinja2, which compiles each line's template with from_string) on that input, in alternating
order, and times the whole process: CPU time (user + system of the child) and wall-clock time,
from start to exit. Every round checks that both programs gave the same result for every line
(the same output text) and that every line rendered. The table shows the medians of the rounds; the target is a ratio of at least 80
on the chosen clock (CPU time by default). `--baseline PATH` times another build of parley in
the same rounds (another row of the table, checked like the first). Exit status: 0 when the
outputs matched and the target is met, 1 otherwise.
"""
import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
TARGET = 80


def fail(msg):
    sys.exit(f"batch_compare.py: {msg}")


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e}")


def make_input(bench, renders):
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([bench, f"--dump={d}"], capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"{bench} --dump failed:\n{p.stderr}")
        chatml_ctx = json.loads(read(os.path.join(d, "chatml-100.json")))
    qwen = json.dumps({"template": read(os.path.join(SHARED, "corpus/chat-templates/Qwen3-Coder.jinja")),
                       "context": json.loads(read(os.path.join(SHARED, "corpus/contexts/tools.json"))),
                       "env": "hf"}, ensure_ascii=False)
    chatml = json.dumps({"template": read(os.path.join(ROOT, "examples/chat-templates/chatml.jinja")),
                         "context": chatml_ctx, "env": "hf"}, ensure_ascii=False)
    lines = [qwen if i % 2 == 0 else chatml for i in range(renders)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def timed_run(argv, stdin):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        fail(f"{' '.join(argv)} exited with {p.returncode}:\n{p.stderr.decode('utf-8', 'replace')[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu, wall


def check(out_parley, out_oracle, renders):
    """Both programs gave the same result for every line (their JSON texts differ in spacing and
    escaping) and every line rendered."""
    mine = out_parley.decode("utf-8").splitlines()
    ref = out_oracle.decode("utf-8").splitlines()
    if len(mine) != renders or len(ref) != renders:
        fail(f"{len(mine)} (parley) and {len(ref)} (Jinja2) result lines for {renders} input lines")
    for i, (x, y) in enumerate(zip(mine, ref), 1):
        a, b = json.loads(x), json.loads(y)
        if "output" not in b:
            fail(f"line {i} did not render in Jinja2: {y[:300]}")
        if a != b:
            fail(f"line {i}: parley and Jinja2 differ:\n  parley: {x[:300]}\n  Jinja2: {y[:300]}")


def fmt_time(s):
    return f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parley", default=os.path.join(ROOT, "build/gcc/tools/parley/parley"))
    ap.add_argument("--bench", default=os.path.join(ROOT, "build/gcc/benchmarks/parley-bench-jinja_bench"),
                    help="writes the ChatML conversation (--dump)")
    ap.add_argument("--oracle", default=os.path.join(SHARED, "tools/jinja-oracle"))
    ap.add_argument("--renders", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clock", choices=("cpu", "real"), default="cpu")
    ap.add_argument("--baseline", default=None, help="another parley program, timed in the same rounds")
    a = ap.parse_args()
    for what, path in (("parley", a.parley), ("benchmark", a.bench), ("oracle", a.oracle)) + \
            ((("baseline", a.baseline),) if a.baseline else ()):
        if not os.access(path, os.X_OK):
            fail(f"the {what} program {path} is missing or not executable")
    if a.renders < 2 or a.rounds < 1:
        fail("--renders must be at least 2 and --rounds at least 1")

    stdin = make_input(a.bench, a.renders)
    load = os.getloadavg()[0]
    started = datetime.datetime.now(datetime.timezone.utc)
    programs = {"parley": [a.parley, "jinja", "--batch"], "jinja2": [a.oracle, "--batch"]}
    if a.baseline:
        programs["baseline"] = [a.baseline, "jinja", "--batch"]
    times = {who: [] for who in programs}
    for r in range(a.rounds):
        order = list(programs) if r % 2 == 0 else list(reversed(programs))
        outs = {}
        for who in order:
            out, cpu, wall = timed_run(programs[who], stdin)
            outs[who] = out
            times[who].append((cpu, wall))
            print(f"round {r + 1}: {who}: cpu {cpu:.3f} s, wall {wall:.3f} s", file=sys.stderr)
        check(outs["parley"], outs["jinja2"], a.renders)
        if a.baseline:
            check(outs["baseline"], outs["jinja2"], a.renders)

    col = 0 if a.clock == "cpu" else 1
    med = {who: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts)) for who, ts in times.items()}
    ratio = med["jinja2"][col] / med["parley"][col]
    met = ratio >= TARGET
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown"
    print(f"| {a.renders:,} renders, `--batch` | parley | Python Jinja2 | Jinja2 / parley | Target | |")
    print("|---|--:|--:|--:|--:|---|")
    for c, label in ((0, "CPU time"), (1, "wall-clock time")):
        r = med["jinja2"][c] / med["parley"][c]
        target = f"≥ {TARGET}×" if c == col else "—"
        verdict = ("met" if met else "missed") if c == col else ""
        print(f"| {label} | {fmt_time(med['parley'][c])} | {fmt_time(med['jinja2'][c])} | {r:.1f}× | {target} | {verdict} |")
    if a.baseline:
        for c, label in ((0, "CPU time"), (1, "wall-clock time")):
            r = med["jinja2"][c] / med["baseline"][c]
            print(f"| {label}, baseline ({a.baseline}) | {fmt_time(med['baseline'][c])} | {fmt_time(med['jinja2'][c])} | {r:.1f}× | — |  |")
    print()
    print(f"- Date: {started:%Y-%m-%d %H:%M} UTC; parley {rev}; {a.rounds} rounds, medians")
    print(f"- Input: {len(stdin) / 1e6:.1f} MB, {a.renders:,} lines (Qwen3-Coder + tools.json and ChatML-100, alternating)")
    print(f"- Machine: {platform.machine()}, {os.cpu_count()} logical cores; load average at start {load:.2f}")
    try:
        import jinja2
        version = f"Jinja2 {jinja2.__version__}"
    except ImportError:
        version = "no Jinja2 in this Python"
    print(f"- Python {platform.python_version()} ({version}); the oracle: {os.path.relpath(a.oracle, ROOT)}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
