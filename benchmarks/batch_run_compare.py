#!/usr/bin/env python3
"""Batch runs against `parley fake-server`: requests per second at concurrency 256, and CPU per
request against a plain chat call's (docs/benchmarks.md, "Batch runs").

    batch_run_compare.py BENCH [--cli PARLEY] [--rounds N] [--lines N] [--json FILE]

BENCH is parley-bench-batch_bench (benchmarks/batch_bench.cpp); PARLEY the parley program (by
default tools/parley/parley in BENCH's build directory). The script starts `parley fake-server
--threads 1` (one thread: the client has the other core) with a script of one step repeated (the
echo of the request's last user text), then in each round:

- runs BENCH (Google Benchmark, 3 iterations of 20,000 requests per benchmark): BM_chat_calls
  (plain chat calls, 256 at once: the reference), BM_batch_runner (batch_runner, the work one chat
  call, the lines to a file) and BM_batch_template (the work of `parley batch`: a template run by
  parley::bot); each gives its requests/s and the process's CPU time per request;
- runs `parley batch TEMPLATES --input IN --output OUT --concurrency 256` on LINES input lines
  (20,000 by default) into a fresh output file, and measures the whole process from outside:
  wall-clock time, user + system CPU time (os.wait4), start-up and the reading of the input
  included.

The table shows the medians of the rounds. Targets: at least 5,000 requests/s for `parley batch`
and for each benchmark; CPU per request of `parley batch` and of each batch benchmark at most 1.5
times BM_chat_calls' in the same round. Exit status 0 when every target is met, 1 otherwise.
"""
import argparse
import datetime
import json
import os
import platform
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TEMPLATES = """\
templates:
  hello:
    messages:
      - role: system
        content: You answer in one short sentence.
      - role: user
        content: "{{ text }}"
"""


def start_server(cli, script):
    server = subprocess.Popen([cli, "fake-server", "--threads", "1", "--script", script], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    sel = selectors.DefaultSelector()
    sel.register(server.stdout, selectors.EVENT_READ)
    if not sel.select(timeout=30):
        server.kill()
        sys.exit("fake-server printed nothing")
    return server, server.stdout.readline().strip().rsplit(" ", 1)[-1] + "/v1"


def run_bench(bench, base):
    r = subprocess.run([bench, f"--base-url={base}", "--benchmark_format=json"], capture_output=True, text=True,
                       timeout=900)
    if r.returncode != 0:
        sys.exit(f"{bench} failed: {r.stderr[-2000:]}")
    out = {}
    for b in json.loads(r.stdout)["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"{b['name']}: {b.get('error_message')}")
        name = b["name"].split("/")[0]
        out[name] = {"rps": b["items_per_second"], "cpu_us": b["cpu_us_per_request"]}
    return out


def run_cli(cli, base, tmp, lines):
    templates = os.path.join(tmp, "t.yaml")
    inp = os.path.join(tmp, "in.jsonl")
    out = os.path.join(tmp, "out.jsonl")
    if not os.path.exists(inp):
        with open(templates, "w") as f:
            f.write(TEMPLATES)
        with open(inp, "w") as f:
            for i in range(lines):
                f.write(json.dumps({"id": f"doc-{i}", "text": "Say hello in one short sentence."}) + "\n")
    if os.path.exists(out):
        os.remove(out)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_")) and
           k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    env["OPENAI_API_KEY"] = "sk-bench"
    start = time.monotonic()
    p = subprocess.Popen([cli, "batch", templates, "--input", inp, "--output", out, "--concurrency", "256",
                          "--api", "openai", "--base-url", base, "--model", "gpt-4o-mini", "--no-progress"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    err = p.stderr.read().decode()
    if status != 0:
        sys.exit(f"parley batch failed ({status}): {err[-2000:]}")
    with open(out) as f:
        n = sum(1 for _ in f)
    if n != lines:
        sys.exit(f"parley batch wrote {n} lines for {lines} inputs")
    cpu = usage.ru_utime + usage.ru_stime
    return {"rps": lines / wall, "cpu_us": cpu * 1e6 / lines, "wall": wall}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench")
    ap.add_argument("--cli")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--json")
    a = ap.parse_args()
    cli = a.cli or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(a.bench))), "tools", "parley", "parley")
    rounds = []
    started = datetime.datetime.now(datetime.timezone.utc)
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "script.json")
        with open(script, "w") as f:
            json.dump({"steps": [{}], "repeat": True}, f)
        server, base = start_server(cli, script)
        try:
            for r in range(a.rounds):
                row = run_bench(a.bench, base)
                row["parley batch"] = run_cli(cli, base, tmp, a.lines)
                rounds.append(row)
                print(f"round {r + 1}: " + ", ".join(f"{k} {v['rps']:,.0f}/s {v['cpu_us']:.1f} us" for k, v in row.items()),
                      file=sys.stderr)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    ended = datetime.datetime.now(datetime.timezone.utc)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rounds, f, indent=1)

    names = ["BM_chat_calls", "BM_batch_runner", "BM_batch_template", "parley batch"]
    what = {"BM_chat_calls": "chat calls (the reference)", "BM_batch_runner": "batch_runner, one chat call per input",
            "BM_batch_template": "batch_runner, a template run by parley::bot",
            "parley batch": f"`parley batch`, {a.lines:,} lines, whole process"}
    ok = True
    print("| Run | Requests/s | CPU per request | CPU / chat call's | Targets |")
    print("|---|--:|--:|--:|---|")
    for n in names:
        rps = statistics.median(r[n]["rps"] for r in rounds)
        cpu = statistics.median(r[n]["cpu_us"] for r in rounds)
        ratio = statistics.median(r[n]["cpu_us"] / r["BM_chat_calls"]["cpu_us"] for r in rounds)
        verdicts = []
        met = rps >= 5000
        verdicts.append(f"≥ 5,000/s {'met' if met else 'missed'}")
        ok = ok and met
        if n != "BM_chat_calls":
            met = ratio <= 1.5
            verdicts.append(f"≤ 1.5× {'met' if met else 'missed'}")
            ok = ok and met
        print(f"| {what[n]} | {rps:,.0f} | {cpu:.1f} µs | {ratio:.2f}× | {'; '.join(verdicts)} |")
    cpu_name = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu_name = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print()
    print(f"- Date: {started:%Y-%m-%d %H:%M} UTC to {ended:%H:%M} UTC; {a.rounds} rounds, medians")
    print(f"- CPU: {cpu_name}, {os.cpu_count()} logical cores; load average {load_start:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end")
    print(f"- Python {platform.python_version()}; server `parley fake-server --threads 1`")
    print(f"\nVerdict: {'every target met' if ok else 'a target missed'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
