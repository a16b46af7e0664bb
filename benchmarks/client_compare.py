#!/usr/bin/env python3
"""parley's chat client against the official openai SDK for Node, on one fake server: prints a Markdown table and a JSON summary.

    client_compare.py [PROGRAM ...] [--cli PARLEY] [--rounds N] [--calls-1 N] [--calls-256 N]
                      [--warmup-1 N] [--warmup-256 N] [--json FILE]

PROGRAM is parley-bench-client_bench (benchmarks/client_bench.cpp), built with optimisation
and NDEBUG (the gcc and clang presets are RelWithDebInfo: -O2 -g -DNDEBUG); several programs
(a g++ and a clang++ build) are measured in the same run. Default:
build/gcc/benchmarks/parley-bench-client_bench. PARLEY is the parley command-line program, which
serves the fake OpenAI API (`parley fake-server`); default: tools/parley/parley in the first
program's build directory. This script builds nothing. It installs the openai SDK pinned in
benchmarks/package.json into benchmarks/node_modules when it is missing (npm ci).

One fake server (--threads 1, a scripted 40-byte reply, repeated) serves every call of the run.
For each round, each mode (chat, stream) and each concurrency (1, 256), every client runs once
as a process of its own, in an order that rotates from round to round: the warm-up calls, then
the timed calls. Measured from here, the same way for every client:

- requests/s: the timed calls over the wall-clock time of the timed calls (the client reports it);
- client CPU per call: user + system CPU time of the whole client process (its rusage, from
  os.wait4), start-up and warm-up included, over all the calls it made (warm-up + timed);
- server CPU per call: the server's user + system time (/proc/PID/stat, in clock ticks) over the
  same interval, over the same calls, and the server's busy share of that interval;
- others: the CPU time the rest of the machine used in that interval (/proc/stat), in cores;
- connections: the client's connections to the server seen open during the run (client-side
  sockets of /proc/net/tcp, sampled every 0.1 s, every 0.02 s in the first second), to check
  that both clients keep connections alive.

Each client is also run with no calls (start-up only) to show its fixed cost. The tables show
the median of the rounds (5 unless --rounds says otherwise). Every call's reply is checked (its
text, and for streams the text assembled from the events); a failed call stops the script.

A reference with no target, the floor: in each round, next to the non-streamed runs at
concurrency 1, the first PROGRAM also runs with `--mode floor --concurrency 1` (the same calls
and warm-up calls), measured the same way: one blocking TCP connection that writes, for each
call, the bytes parley's client sends for that call (built once) in one write and reads the reply
into a fixed buffer until its Content-Length body has arrived, checking the status and the text
but parsing no HTTP fields beyond Content-Length and no JSON. On loopback most of that CPU time is
the kernel's (sending, receiving, sleeping until the reply and waking up). The first table shows
it as a row of its own ("blocking socket loop"); after the targets, each parley build's client
CPU per non-streamed call at concurrency 1 minus the floor's (both medians of the rounds) is
given as parley's own work per call.

Exit status: 0 when every target of docs/benchmarks.md ("Chat client") is met, 1 when one is
missed or a run failed, 2 for a program built without optimisation or NDEBUG.
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
import threading
import time

sys.dont_write_bytecode = True  # importing compare.py leaves no __pycache__ in the source tree
from compare import cpu_model, git_revision  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_PROGRAM = os.path.join(ROOT, "build", "gcc", "benchmarks", "parley-bench-client_bench")
NODE_SCRIPT = os.path.join(HERE, "client_bench_node.mjs")

REPLY_TEXT = "Hello! How can I help you today, friend?"  # 40 bytes
assert len(REPLY_TEXT.encode()) == 40
CLOCK_TICK = os.sysconf("SC_CLK_TCK")

# Targets (docs/benchmarks.md, "Chat client").
MAX_CPU_US = 20.0  # parley's client CPU per non-streamed call
MIN_CPU_RATIO = 5.0  # Node's client CPU per non-streamed call / parley's
MIN_RPS_RATIO = 3.0  # parley's requests/s / Node's, at concurrency 256

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy",
                   "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def fail(message, status=1):
    sys.stderr.write(f"client_compare.py: {message}\n")
    sys.exit(status)


def child_env():
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env.pop("NODE_OPTIONS", None)
    return env


def process_cpu_seconds(pid):
    """user + system time of a running process (all its threads), from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3 of proc(5)); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def machine_busy_seconds():
    """CPU time every core of the machine spent outside idle and iowait, from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as f:
        cpu = [int(x) for x in f.readline().split()[1:]]
    busy = sum(cpu[:8]) - cpu[3] - cpu[4]  # user nice system idle iowait irq softirq steal
    return busy / CLOCK_TICK


class ConnectionWatch(threading.Thread):
    """Collects the client-side sockets connected to the server's port while a client runs, from
    /proc/net/tcp every 0.1 s (every 0.02 s in the first second): (local port, inode) of each
    open one. A connection of a run that keeps connections alive lives from its first call to the
    end of the run, so none is missed; ports alone would not do, since Linux reuses a port in
    TIME_WAIT for a new loopback connection."""

    def __init__(self, server_port):
        super().__init__(daemon=True)
        self.server_port = server_port
        self.seen = set()
        self.finished = threading.Event()

    def sample(self):
        with open("/proc/net/tcp", encoding="ascii") as f:
            next(f)
            for line in f:
                parts = line.split()
                local, remote, inode = parts[1], parts[2], parts[9]
                if inode != "0" and int(remote.split(":")[1], 16) == self.server_port:
                    self.seen.add((int(local.split(":")[1], 16), inode))

    def run(self):
        started = time.monotonic()
        while not self.finished.wait(0.02 if time.monotonic() - started < 1 else 0.1):
            self.sample()

    def stop(self):
        self.finished.set()
        self.join()
        return len(self.seen)


def ensure_node_sdk():
    if os.path.isfile(os.path.join(HERE, "node_modules", "openai", "package.json")):
        return
    npm = shutil.which("npm")
    if not npm:
        fail("the openai SDK is not installed in benchmarks/node_modules and npm is not on PATH")
    lock = os.path.isfile(os.path.join(HERE, "package-lock.json"))
    cmd = [npm, "ci" if lock else "install", "--no-audit", "--no-fund"]
    print(f"installing the openai SDK: {' '.join(cmd)} (in benchmarks/)", file=sys.stderr)
    if subprocess.run(cmd, cwd=HERE).returncode != 0:
        fail("npm could not install the openai SDK")


class Server:
    def __init__(self, cli, script_path):
        self.proc = subprocess.Popen([cli, "fake-server", "--threads", "1", "--script", script_path],
                                     stdout=subprocess.PIPE, text=True, env=child_env())
        line = self.proc.stdout.readline().strip()
        prefix = "listening on "
        if not line.startswith(prefix):
            self.proc.kill()
            fail(f"parley fake-server did not start (it printed {line!r})")
        self.base_url = line[len(prefix):]
        self.port = int(self.base_url.rsplit(":", 1)[1])

    def cpu_seconds(self):
        return process_cpu_seconds(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_client(cmd, server, calls, warmup):
    """Runs one client process to its end; returns its report and the measurements around it."""
    watch = ConnectionWatch(server.port)
    server_before = server.cpu_seconds()
    busy_before = machine_busy_seconds()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryFile(mode="w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=child_env(), cwd=HERE)
        watch.start()
        out = proc.stdout.read()
        connections = watch.stop()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        busy = machine_busy_seconds() - busy_before
        server_cpu = server.cpu_seconds() - server_before
        err.seek(0)
        errors = err.read()
    if proc.returncode != 0 or not out.strip():
        sys.stderr.write(out + errors)
        fail(f"{' '.join(cmd)} failed with status {proc.returncode}")
    report = json.loads(out.strip().splitlines()[-1])
    if report["errors"] != 0 or report["calls"] != calls or report["warmup"] != warmup:
        fail(f"{' '.join(cmd)}: {report}")
    client_cpu = usage.ru_utime + usage.ru_stime
    made = calls + warmup
    return {
        "report": report,
        "process_wall_s": wall,
        "client_cpu_s": client_cpu,
        "client_user_s": usage.ru_utime,
        "client_sys_s": usage.ru_stime,
        "server_cpu_s": server_cpu,
        "others_cpu_s": max(0.0, busy - client_cpu - server_cpu),
        "load_before": load_before,
        "connections": connections,
        "rps": calls / report["wall_seconds"] if calls else None,
        "client_cpu_us_per_call": client_cpu / made * 1e6 if made else None,
        "server_cpu_us_per_call": server_cpu / made * 1e6 if made else None,
        "server_busy": server_cpu / wall,
        "client_busy": client_cpu / wall,
        "others_cores": max(0.0, busy - client_cpu - server_cpu) / wall,
    }


def median(values):
    return statistics.median(values) if values else float("nan")


def fmt_us(us):
    return f"{us:.1f} µs" if us < 100 else f"{us:.0f} µs"


def fmt_rps(r):
    return f"{r:,.0f}"


def fmt_ratio(r):
    return f"{r:.1f}×"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", default=[DEFAULT_PROGRAM], metavar="PROGRAM")
    ap.add_argument("--cli", help="the parley program (default: tools/parley/parley of the first PROGRAM's build)")
    ap.add_argument("--node", default="node", help="the node program")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls-1", type=int, default=10000, help="timed calls at concurrency 1")
    ap.add_argument("--calls-256", type=int, default=20000, help="timed calls at concurrency 256")
    ap.add_argument("--warmup-1", type=int, default=500)
    ap.add_argument("--warmup-256", type=int, default=2560)
    ap.add_argument("--json", help="also write the JSON summary (with every run) to this file")
    a = ap.parse_args()

    programs = [os.path.abspath(p) for p in a.programs]
    for p in programs:
        if not os.access(p, os.X_OK):
            fail(f"no program at {p}: build the target parley-bench-client_bench first (docs/benchmarks.md)")
    cli = a.cli or os.path.join(os.path.dirname(os.path.dirname(programs[0])), "tools", "parley", "parley")
    if not os.access(cli, os.X_OK):
        fail(f"no parley program at {cli}: build the target parley-cli, or give --cli")
    node = shutil.which(a.node)
    if not node:
        fail(f"{a.node} is not on PATH")
    ensure_node_sdk()

    started = datetime.datetime.now(datetime.timezone.utc)
    revision = git_revision()
    load_start = os.getloadavg()
    configs = [("chat", 1, a.calls_1, a.warmup_1), ("chat", 256, a.calls_256, a.warmup_256),
               ("stream", 1, a.calls_1, a.warmup_1), ("stream", 256, a.calls_256, a.warmup_256)]

    script = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"steps": [{"reply": {"text": REPLY_TEXT}}], "repeat": True}, script)
    script.close()
    server = Server(cli, script.name)

    def command(client, mode, concurrency, calls, warmup):
        if client == floor_ref:
            client, mode = programs[0], "floor"
        args = ["--base-url", server.base_url + "/v1", "--mode", mode, "--concurrency", str(concurrency),
                "--calls", str(calls), "--warmup", str(warmup), "--expect", REPLY_TEXT]
        return ([node, NODE_SCRIPT] if client == "node" else [client]) + args

    clients = programs + ["node"]
    floor_ref = "floor"  # the blocking socket loop of the first program (--mode floor), chat at concurrency 1 only

    def clients_of(mode, concurrency):
        return programs + [floor_ref, "node"] if (mode, concurrency) == ("chat", 1) else clients

    names = {}
    runs = []  # every run: client, mode, concurrency, round, measurements
    startup = {c: [] for c in clients}
    try:
        # Start-up only (no calls), also checks that each program runs and is optimised.
        for c in clients:
            m = run_client(command(c, "chat", 1, 0, 0), server, 0, 0)
            r = m["report"]
            if c != "node" and not (r.get("optimized") and r.get("ndebug")):
                fail(f"{c} was built without optimisation or without NDEBUG: use the gcc or clang preset", 2)
            names[c] = (r["compiler"].strip() if c != "node"
                        else f"Node {r['node_version']}, openai {r['sdk_version']}")
        names[floor_ref] = f"blocking socket loop ({names[programs[0]]} build; no HTTP or JSON work)"
        for rnd in range(a.rounds):
            for mode, concurrency, calls, warmup in configs:
                order = clients_of(mode, concurrency)
                k = rnd % len(order)
                for c in order[k:] + order[:k]:
                    m = run_client(command(c, mode, concurrency, calls, warmup), server, calls, warmup)
                    m.update(client=c, mode=mode, concurrency=concurrency, round=rnd)
                    runs.append(m)
                    print(f"round {rnd + 1}/{a.rounds} {mode:6} c={concurrency:<3} {names[c][:40]:40} "
                          f"{m['rps']:9,.0f} req/s  client {m['client_cpu_us_per_call']:6.1f} µs/call  "
                          f"server {m['server_cpu_us_per_call']:5.1f} µs/call  "
                          f"busy {m['client_busy']:.0%}/{m['server_busy']:.0%}  "
                          f"others {m['others_cores']:.2f} cores  conns {m['connections']}",
                          file=sys.stderr, flush=True)
            for c in clients:
                startup[c].append(run_client(command(c, "chat", 1, 0, 0), server, 0, 0)["client_cpu_s"])
    finally:
        server.stop()
        os.unlink(script.name)
    load_end = os.getloadavg()
    finished = datetime.datetime.now(datetime.timezone.utc)

    # Medians per (client, mode, concurrency).
    summary = {}
    for mode, concurrency, calls, warmup in configs:
        for c in clients_of(mode, concurrency):
            ms = [m for m in runs if m["client"] == c and m["mode"] == mode and m["concurrency"] == concurrency]
            summary[(c, mode, concurrency)] = {
                "calls": calls,
                "warmup": warmup,
                "rps": median([m["rps"] for m in ms]),
                "client_cpu_us": median([m["client_cpu_us_per_call"] for m in ms]),
                "server_cpu_us": median([m["server_cpu_us_per_call"] for m in ms]),
                "server_busy": median([m["server_busy"] for m in ms]),
                "client_busy": median([m["client_busy"] for m in ms]),
                "others_cores": median([m["others_cores"] for m in ms]),
                "connections": median([m["connections"] for m in ms]),
                "events": median([m["report"]["events"] / calls for m in ms]) if mode == "stream" else None,
            }

    def label_of(c):
        if c == floor_ref:
            return names[c]
        return "parley, " + names[c] if c != "node" else "openai SDK, " + names[c]

    all_met = True
    verdicts = []
    out = []
    out.append(f"Fake server: `parley fake-server --threads 1`, a {len(REPLY_TEXT)}-byte reply "
               f"(`{REPLY_TEXT}`); streamed: "
               f"{summary[('node', 'stream', 1)]['events']:.0f} chunks and `data: [DONE]` per call. "
               "Busy: CPU time over the wall-clock time of the client's run (100% is one core).\n")
    out.append("| Client | Mode | Concurrency | Requests/s | Client CPU per call | Server CPU per call | "
               "Client busy | Server busy | Connections |")
    out.append("|---|---|--:|--:|--:|--:|--:|--:|--:|")
    for mode, concurrency, _, _ in configs:
        for c in clients_of(mode, concurrency):
            s = summary[(c, mode, concurrency)]
            label = label_of(c)
            out.append(f"| {label} | {mode} | {concurrency} | {fmt_rps(s['rps'])} | {fmt_us(s['client_cpu_us'])} | "
                       f"{fmt_us(s['server_cpu_us'])} | {s['client_busy']:.0%} | {s['server_busy']:.0%} | "
                       f"{s['connections']:.0f} |")
    out.append("")
    out.append("| parley build | Mode | Concurrency | CPU per call, Node / parley | Target | | "
               "Requests/s, parley / Node | Target | | parley CPU per call | Target | |")
    out.append("|---|---|--:|--:|--:|---|--:|--:|---|--:|--:|---|")
    for p in programs:
        for mode, concurrency, _, _ in configs:
            s, n = summary[(p, mode, concurrency)], summary[("node", mode, concurrency)]
            cpu_ratio = n["client_cpu_us"] / s["client_cpu_us"]
            rps_ratio = s["rps"] / n["rps"]
            cells = [names[p], mode, str(concurrency)]
            checks = []
            cells.append(fmt_ratio(cpu_ratio))
            if mode == "chat":
                ok = cpu_ratio >= MIN_CPU_RATIO
                checks.append(("cpu_ratio", ok))
                cells += [f"≥ {MIN_CPU_RATIO:.0f}×", "met" if ok else "**missed**"]
            else:
                cells += ["—", ""]
            cells.append(fmt_ratio(rps_ratio))
            if concurrency == 256:
                ok = rps_ratio >= MIN_RPS_RATIO
                checks.append(("rps_ratio", ok))
                cells += [f"≥ {MIN_RPS_RATIO:.0f}×", "met" if ok else "**missed**"]
            else:
                cells += ["—", ""]
            cells.append(fmt_us(s["client_cpu_us"]))
            if mode == "chat":
                ok = s["client_cpu_us"] <= MAX_CPU_US
                checks.append(("cpu", ok))
                cells += [f"≤ {MAX_CPU_US:.0f} µs", "met" if ok else "**missed**"]
            else:
                cells += ["—", ""]
            out.append("| " + " | ".join(cells) + " |")
            for what, ok in checks:
                all_met &= ok
                verdicts.append({"program": names[p], "mode": mode, "concurrency": concurrency,
                                 "target": what, "met": ok})
    out.append("")
    floor_us = summary[(floor_ref, "chat", 1)]["client_cpu_us"]
    own_work = {names[p]: summary[(p, "chat", 1)]["client_cpu_us"] - floor_us for p in programs}
    out.append("parley's own work per non-streamed call at concurrency 1 (no target): its client CPU per call "
               f"minus the blocking socket loop's ({fmt_us(floor_us)}), medians of the rounds: " +
               "; ".join(f"{n}: {fmt_us(w)} ({w / (w + floor_us):.0%} of its {fmt_us(w + floor_us)})"
                         for n, w in own_work.items()) + ".")
    out.append("")
    out.append("| Client | Start-up CPU (no calls) |")
    out.append("|---|--:|")
    for c in clients:
        out.append(f"| {label_of(c)} | {median(startup[c]) * 1e3:.1f} ms |")
    out.append("")
    others = [m["others_cores"] for m in runs]
    out.append(f"- Date: {started:%Y-%m-%d %H:%M} UTC to {finished:%H:%M} UTC; parley {revision}")
    out.append(f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; load average "
               f"{load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end; other processes used "
               f"{median(others):.2f} cores during the median run (from {min(others):.2f} to {max(others):.2f})")
    out.append(f"- Calls per run: {a.calls_1:,} at concurrency 1 and {a.calls_256:,} at 256, after "
               f"{a.warmup_1:,} and {a.warmup_256:,} warm-up calls; median of {a.rounds} rounds")
    out.append(f"- Python {platform.python_version()}; {names['node']}")
    print("\n".join(out))

    result = {
        "date": started.isoformat(timespec="seconds"),
        "revision": revision,
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "load_average_start": load_start[0],
        "load_average_end": load_end[0],
        "reply_text": REPLY_TEXT,
        "rounds": a.rounds,
        "clients": {c: names[c] for c in clients + [floor_ref]},
        "startup_cpu_ms": {names[c]: median(startup[c]) * 1e3 for c in clients},
        "medians": [dict(client=names[c], mode=mode, concurrency=conc, **v)
                    for (c, mode, conc), v in summary.items()],
        "floor": {"client": names[floor_ref], "program": names[programs[0]], "mode": "chat", "concurrency": 1,
                  "client_cpu_us": floor_us,
                  "own_work_us": own_work},  # parley's client CPU per call minus the floor's, medians
        "targets": verdicts,
        "all_targets_met": all_met,
    }
    print("\n```json\n" + json.dumps(result, indent=1, ensure_ascii=False) + "\n```")
    if a.json:
        result["runs"] = [{**{k: v for k, v in m.items() if k != "client"}, "client": names[m["client"]]}
                          for m in runs]
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1, ensure_ascii=False)
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
