#!/usr/bin/env python3
"""Checks `parley batch` as a user runs it, against `parley fake-server`.

    cli_batch_check.py PARLEY_PROGRAM [--lines N]

- N input lines (20,000 by default) against a server whose fault mix answers 5% of the requests with a fault of
  every kind (429 with retry-after-ms and x-ratelimit reset fields, 500, 503, a connection closed
  before the reply, a body cut short, no reply at all and a reply that stops in its body, both
  past the 0.3 s time-out): every input id ends with exactly one output line, a result (the
  server's echo of the rendered template) or the error that stopped it, none twice, every line
  whole JSON;
- the same input with the program killed (SIGKILL) in the middle of the run, then run again: the
  lines written before the kill are kept as they were, the rerun skips their ids, and in the end
  the same set of ids, each once, no partial line;
- a last line cut short (a writer killed in the middle of a line) is cut off with a notice, and
  its input runs again;
- --retry-failed runs the inputs of the error lines again (against a server without faults: exit
  status 0, no error line left);
- input lines that are not objects with an id, and repeated ids, stop the command before any
  request, with file:line;
- the progress line (with --progress; never when standard error is not a terminal) and the
  summary.
"""
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from cli_check import TIMEOUT, check, clean_env, failures, report  # noqa: E402

LINES = 20000  # --lines

TEMPLATES = """\
templates:
  summarize:
    messages:
      - role: system
        content: You summarize documents in one sentence.
      - role: user
        content: "Summarize: {{ text }}"
  other:
    messages:
      - role: user
        content: "{{ text }}"
"""


def start_server(program, script_path):
    server = subprocess.Popen([program, "fake-server", "--script", script_path], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    selector = selectors.DefaultSelector()
    selector.register(server.stdout, selectors.EVENT_READ)
    if not selector.select(timeout=TIMEOUT):
        server.kill()
        raise RuntimeError("fake-server printed nothing")
    line = server.stdout.readline().strip()
    return server, line.rsplit(" ", 1)[-1] + "/v1"


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        server.kill()


def batch_command(program, templates, inp, out, base, *extra):
    return [program, "batch", templates, "--template", "summarize", "--input", inp, "--output", out,
            "--api", "openai", "--base-url", base, "--model", "gpt-4o-mini", "--timeout", "0.3",
            "--concurrency", "256", *extra]


def env():
    return clean_env(OPENAI_API_KEY="sk-test")


def read_lines(path, what):
    """The output lines of `path` as JSON, with a failure for a partial or malformed line."""
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        failures.append(f"{what}: the file ends with a partial line: {data[-80:]!r}")
    out = []
    for n, raw in enumerate(data.split(b"\n")[:-1], 1):
        try:
            out.append(json.loads(raw))
        except ValueError:
            failures.append(f"{what}: line {n} is not JSON: {raw[:120]!r}")
    return out


def check_complete(lines, ids, what, expect_results=True):
    """Each id of `ids` exactly once; results are the echo of the rendered template."""
    seen = {}
    for v in lines:
        i = v.get("id")
        if i in seen:
            failures.append(f"{what}: id {i!r} has two lines")
        seen[i] = v
        has_result, has_error = "result" in v, "error" in v
        check(has_result != has_error, f"{what}: line of {i!r} has not exactly one of result, error: {v}")
        check(isinstance(v.get("usage"), dict) and "input_tokens" in v["usage"] and "output_tokens" in v["usage"],
              f"{what}: line of {i!r} without usage: {v}")
        check(isinstance(v.get("attempts"), int) and 1 <= v["attempts"] <= 5, f"{what}: attempts of {i!r}: {v}")
        if has_result and expect_results:
            want = "Summarize: document " + str(i).split("-")[-1]
            check(v["result"] == want, f"{what}: result of {i!r} is {v['result']!r}, expected {want!r}")
        if has_error:
            e = v["error"]
            check(isinstance(e.get("code"), str) and isinstance(e.get("message"), str), f"{what}: error of {i!r}: {e}")
    check(set(seen) == set(ids), f"{what}: ids differ from the input's: {len(set(ids) - set(seen))} missing, "
                                 f"{len(set(seen) - set(ids))} unknown")
    return seen


def main():
    global LINES
    args = sys.argv[1:]
    if len(args) == 3 and args[1] == "--lines" and args[2].isdigit() and int(args[2]) >= 1000:
        LINES = int(args[2])
        args = args[:1]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    program = args[0]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        templates = os.path.join(tmp, "templates.yaml")
        with open(templates, "w") as f:
            f.write(TEMPLATES)
        ids = [f"doc-{i}" for i in range(LINES)]
        inp = os.path.join(tmp, "in.jsonl")
        with open(inp, "w") as f:
            for i in range(LINES):
                f.write(json.dumps({"id": ids[i], "text": f"document {i}"}) + "\n")
        faulty = os.path.join(tmp, "faulty.json")
        with open(faulty, "w") as f:
            json.dump({"steps": [{}], "repeat": True, "fault_mix": {"rate": 0.05, "seed": 7}}, f)
        clean = os.path.join(tmp, "clean.json")
        with open(clean, "w") as f:
            json.dump({"steps": [{}], "repeat": True}, f)

        server, base = start_server(program, faulty)
        try:
            # --- LINES lines, 5% faults of every kind -----------------------------------------
            out = os.path.join(tmp, "out.jsonl")
            t = time.monotonic()
            r = subprocess.run(batch_command(program, templates, inp, out, base), env=env(), capture_output=True,
                               text=True, timeout=300)
            first_run = time.monotonic() - t
            check(r.returncode in (0, 3), f"faulty run: exit {r.returncode}, stderr {r.stderr[-2000:]}")
            check("\r" not in r.stderr, "a progress line although standard error is not a terminal")
            check(f"batch: {LINES:,} inputs done" in r.stderr, f"summary: {r.stderr[-1000:]}")
            lines = read_lines(out, "faulty run")
            seen = check_complete(lines, ids, "faulty run")
            errors = [v for v in seen.values() if "error" in v]
            retried = sum(1 for v in seen.values() if v.get("attempts", 1) > 1)
            # (a connection closed before the reply on a kept-alive connection is sent again by the
            # client at once, as a stale connection, not retried by the batch)
            check(retried > LINES * 0.03, f"faulty run: only {retried} inputs were retried (5% of requests fault)")
            check((r.returncode == 3) == bool(errors), f"faulty run: exit {r.returncode} with {len(errors)} error lines")
            print(f"faulty run: {first_run:.1f} s, {retried} inputs retried, {len(errors)} error lines")

            # --- SIGKILL in the middle, then the same command again ---------------------------
            killed = os.path.join(tmp, "killed.jsonl")
            p = subprocess.Popen(batch_command(program, templates, inp, killed, base), env=env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline and p.poll() is None:
                if os.path.exists(killed) and os.path.getsize(killed) > LINES * 20:  # about a fifth of the lines
                    break
                time.sleep(0.01)
            check(p.poll() is None, "the run to kill ended before it could be killed")
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=TIMEOUT)
            with open(killed, "rb") as f:
                before = f.read()
            whole = before[:before.rfind(b"\n") + 1]
            kept = [json.loads(x) for x in whole.split(b"\n")[:-1]]
            check(0 < len(kept) < LINES, f"killed run wrote {len(kept)} lines")
            check(len({v["id"] for v in kept}) == len(kept), "killed run: an id twice before the rerun")
            r = subprocess.run(batch_command(program, templates, inp, killed, base), env=env(), capture_output=True,
                               text=True, timeout=300)
            check(r.returncode in (0, 3), f"rerun: exit {r.returncode}, stderr {r.stderr[-2000:]}")
            check(f"{len(kept):,} already in" in r.stderr, f"rerun summary does not count the {len(kept)} lines kept: {r.stderr[-600:]}")
            with open(killed, "rb") as f:
                after = f.read()
            check(after.startswith(whole), "rerun changed the lines written before the kill")
            check_complete(read_lines(killed, "rerun after SIGKILL"), ids, "rerun after SIGKILL")
            print(f"SIGKILL after {len(kept)} lines ({len(before) - len(whole)} bytes of a partial line); rerun complete")

            # --- a last line cut short ---------------------------------------------------------
            cut = os.path.join(tmp, "cut.jsonl")
            small = os.path.join(tmp, "small.jsonl")
            with open(small, "w") as f:
                for i in range(50):
                    f.write(json.dumps({"id": ids[i], "text": f"document {i}"}) + "\n")
            partial = '{"id":"doc-1","result":"Summ'
            with open(cut, "w") as f:
                f.write(json.dumps({"id": "doc-0", "result": "Summarize: document 0", "usage": {"input_tokens": 1, "output_tokens": 1},
                                    "attempts": 1}) + "\n")
                f.write(partial)
            r = subprocess.run(batch_command(program, templates, small, cut, base), env=env(), capture_output=True,
                               text=True, timeout=120)
            check(r.returncode in (0, 3), f"cut: exit {r.returncode}, stderr {r.stderr[-1000:]}")
            check(f"{cut}:2: the last line was cut short ({len(partial)} bytes" in r.stderr, f"cut: no notice: {r.stderr[-1000:]}")
            check_complete(read_lines(cut, "cut"), ids[:50], "cut")
        finally:
            stop_server(server)

        # --- --retry-failed against a server without faults --------------------------------------
        server, base = start_server(program, clean)
        try:
            errors_before = sum(1 for v in read_lines(out, "before --retry-failed") if "error" in v)
            r = subprocess.run(batch_command(program, templates, inp, out, base, "--retry-failed"), env=env(),
                               capture_output=True, text=True, timeout=300)
            check(r.returncode == 0, f"--retry-failed: exit {r.returncode}, stderr {r.stderr[-1000:]}")
            if errors_before:
                check(f"removed {errors_before} error line" in r.stderr, f"--retry-failed notice: {r.stderr[-1000:]}")
            final = check_complete(read_lines(out, "--retry-failed"), ids, "--retry-failed")
            check(not any("error" in v for v in final.values()), "--retry-failed left error lines")

            # the progress line, asked for
            prog = os.path.join(tmp, "progress.jsonl")
            r = subprocess.run(batch_command(program, templates, small, prog, base, "--progress"), env=env(),
                               capture_output=True, timeout=120)
            check(r.returncode == 0 and b"\rdone 50/50 \xc2\xb7 " in r.stderr and b" in, " in r.stderr,
                  f"--progress: exit {r.returncode}, stderr {r.stderr!r}")

            # --- inputs that cannot run -------------------------------------------------------
            bad = os.path.join(tmp, "bad.jsonl")
            with open(bad, "w") as f:
                f.write('{"id": "a", "text": "x"}\n\n[1]\n{"text": "no id"}\n{"id": "a", "text": "again"}\n{"id": 2.5}\n')
            bad_out = os.path.join(tmp, "bad-out.jsonl")
            r = subprocess.run(batch_command(program, templates, bad, bad_out, base), env=env(), capture_output=True,
                               text=True, timeout=60)
            check(r.returncode == 1, f"bad input: exit {r.returncode}")
            for want in [f"{bad}:3: expected a JSON object with an \"id\" (a string or an integer), found an array",
                         f"{bad}:4: the object has no \"id\" (a string or an integer)",
                         f"{bad}:5: the id \"a\" is that of line 1 already: ids must be unique",
                         f"{bad}:6: the id must be a string or an integer, found a number with a fraction or exponent",
                         "(nothing was run)"]:
                check(want in r.stderr, f"bad input: {want!r} not in {r.stderr!r}")
            check(os.path.getsize(bad_out) == 0, "bad input: lines were written")
            r = subprocess.run([program, "batch", templates, "--input", bad], capture_output=True, text=True, timeout=60)
            check(r.returncode == 2 and "--output" in r.stderr, f"no --output: exit {r.returncode}, {r.stderr[:200]!r}")
        finally:
            stop_server(server)

    return report("cli_batch_check", started)


if __name__ == "__main__":
    sys.exit(main())
