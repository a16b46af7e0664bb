#!/usr/bin/env python3
"""Python Jinja2 on the cases of parley's Jinja benchmark (docs/benchmarks.md).

    jinja_peer.py CASES_DIR [--min-time SECONDS] [--repetitions N]

CASES_DIR is what `parley-bench-jinja_bench --dump=CASES_DIR` wrote: cases.json names, for each
case, the template file, the context file and parley's output. Every render case is first
rendered once and compared with parley's output; a difference is a failure (exit status 1).

Each case is then timed: a batch of calls is repeated until it lasts at least --min-time seconds
(wall clock, time.perf_counter), and this is done --repetitions times. Prints JSON: for each case
the per-call wall time (time.perf_counter) and CPU time (time.process_time) of every repetition,
in nanoseconds, and the Python and Jinja2 versions.

  parse   env.from_string(source): Jinja2 compiles the source to Python code every time
  render  template.render(**context): returns a new str
"""
import argparse
import datetime
import json
import platform
import sys
import time

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment


def hf_environment():
    """The Hugging Face chat-template environment, as transformers builds it."""
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent,
                          separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def strftime_now(fmt):
        return datetime.datetime(2024, 7, 26).strftime(fmt)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def measure(fn, min_time, repetitions):
    """Per-call (wall, cpu) times in ns for each repetition of a batch lasting >= min_time."""
    n = 1
    while True:  # calibrate the batch size
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time:
            break
        n = max(n * 2, int(n * min_time * 1.2 / elapsed) if elapsed > 0 else n * 10)
    runs = []
    for _ in range(repetitions):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(n):
            fn()
        w1, c1 = time.perf_counter(), time.process_time()
        runs.append({"iterations": n, "real_ns": (w1 - w0) * 1e9 / n, "cpu_ns": (c1 - c0) * 1e9 / n})
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases_dir")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--repetitions", type=int, default=5)
    a = ap.parse_args()

    with open(f"{a.cases_dir}/cases.json", encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    env = hf_environment()
    failures = []
    results = []
    for case in cases:
        source = read(case["template"])
        if case["kind"] == "parse":
            fn = lambda source=source: env.from_string(source)
        else:
            with open(case["context"], encoding="utf-8") as f:
                context = json.load(f)
            template = env.from_string(source)
            expected = read(case["expected"])
            output = template.render(**context)
            if output != expected:
                at = next((i for i, (x, y) in enumerate(zip(output, expected)) if x != y),
                          min(len(output), len(expected)))
                failures.append(f"{case['name']}: Jinja2's output differs from parley's at "
                                f"character {at}: {output[at:at + 40]!r} vs {expected[at:at + 40]!r}")
                continue
            fn = lambda template=template, context=context: template.render(**context)
        results.append({"name": case["name"], "runs": measure(fn, a.min_time, a.repetitions)})

    json.dump({
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "jinja2": jinja2.__version__,
        "results": results,
        "failures": failures,
    }, sys.stdout, indent=1)
    sys.stdout.write("\n")
    for failure in failures:
        sys.stderr.write(f"error: {failure}\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
