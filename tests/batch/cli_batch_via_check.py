#!/usr/bin/env python3
"""Checks `parley batch --via openai-batch|anthropic-batch` as a user runs it, against
`parley fake-server`'s batch routes.

    cli_batch_via_check.py PARLEY_PROGRAM

- a job through OpenAI's Batch API: one file upload and one batch, every input one line (the
  echo of its rendered template), an error reply as that input's error line, exit status 3, the
  state file gone at the end; --messages gives the messages the template added and the reply;
- a job through Anthropic's Message Batches API split into batches by --batch-size, with
  requests that expire as error lines (timeout, batch_expired);
- a run killed (SIGKILL) between the submission and the end of its batch, then the same command
  again: it polls the batch of the state file and writes every line, without uploading or
  creating anything again (counted from the server's log);
- --cancel after a kill: the requests answered before are written, the others are not, the
  state file goes; the command run again submits those others and completes the output;
- what --via refuses: a template of two requests, an API without batches, options of the direct
  mode, --cancel without --via.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from cli_check import TIMEOUT, check, clean_env, report, start_fake_server, stop_fake_server  # noqa: E402

TEMPLATES = """\
templates:
  summarize:
    messages:
      - role: system
        content: You summarize documents in one sentence.
      - role: user
        content: "Summarize: {{ text }}"
      - role: request
        max_tokens: 100
  twice:
    messages:
      - role: user
        content: "{{ text }}"
      - role: request
      - role: user
        content: "Again."
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def write_inputs(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"doc-{i}" if i % 3 else i, "text": f"document {i}"}) + "\n")
    return [f"doc-{i}" if i % 3 else i for i in range(n)]


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        data = f.read()
    check(not data or data.endswith("\n"), f"{path}: a partial last line")
    return [json.loads(x) for x in data.splitlines() if x]


def by_id(lines, what):
    seen = {}
    for v in lines:
        key = json.dumps(v["id"])
        check(key not in seen, f"{what}: two lines for {key}")
        check(("result" in v) != ("error" in v), f"{what}: a line without exactly one of result, error: {v}")
        seen[key] = v
    return seen


def count(log_path, method_target):
    with open(log_path) as f:
        return sum(1 for line in f if line.startswith(method_target + " -> "))


def via(program, templates, inp, out, api, base, *extra):
    model = ["--model", "gpt-4o-mini"] if api == "openai-batch" else ["--model", "claude-sonnet-4-5"]
    return [program, "batch", templates, "--template", "summarize", "--input", inp, "--output", out, "--via", api,
            "--base-url", base, *model, "--poll-interval", "0.01", *extra]


def env():
    return clean_env(OPENAI_API_KEY="sk-test", ANTHROPIC_API_KEY="sk-ant-test")


def run(cmd, timeout=120):
    return subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=timeout)


def wait_for(path, proc):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None and not os.path.exists(path):
        time.sleep(0.005)
    return os.path.exists(path)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    program = sys.argv[1]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        templates = os.path.join(tmp, "templates.yaml")
        write(templates, TEMPLATES)
        inp = os.path.join(tmp, "in.jsonl")
        ids = write_inputs(inp, 12)
        script = os.path.join(tmp, "script.json")
        log = os.path.join(tmp, "server.log")

        # --- OpenAI: one batch, an error reply --------------------------------------------------
        write(script, json.dumps({"steps": [{}, {"status": 400, "error": {"message": "no such model"}}], "batch": {"polls": 1}}))
        server, base = start_fake_server(program, script, log)
        try:
            out = os.path.join(tmp, "openai.jsonl")
            r = run(via(program, templates, inp, out, "openai-batch", base + "/v1"))
            check(r.returncode == 3, f"openai: exit {r.returncode}, stderr {r.stderr[-1500:]}")
            lines = by_id(read_lines(out), "openai")
            check(set(lines) == {json.dumps(i) for i in ids}, f"openai: ids {sorted(lines)}")
            for i in ids:
                v = lines.get(json.dumps(i), {})
                n = i if isinstance(i, int) else int(i.split("-")[1])
                if n == 1:
                    e = v.get("error", {})
                    check(e.get("status") == 400 and e.get("type") == "invalid_request_error" and e.get("message", "").endswith(
                        "no such model"), f"openai: the error line: {v}")
                    check(e.get("request_id", "").startswith("req_fake_batch_"), f"openai: request id of the error: {v}")
                else:
                    check(v.get("result") == f"Summarize: document {n}", f"openai: line of {i!r}: {v}")
                    check(v.get("usage", {}).get("requests") == 1 and v.get("attempts") == 1, f"openai: usage of {i!r}: {v}")
            check(not os.path.exists(out + ".batches.json"), "openai: the state file is left")
            check(count(log, "POST /v1/files") == 1 and count(log, "POST /v1/batches") == 1,
                  "openai: not one upload and one batch")
            check("batch: 12 inputs done (11 results, 1 errors) through openai-batch, 12 requests submitted in 1 batch" in r.stderr,
                  f"openai: summary {r.stderr[-800:]}")
            check("at batch prices (half the catalog's)" in r.stderr, f"openai: cost {r.stderr[-800:]}")
            check("holds 1 error line (--retry-failed runs those inputs again)" in r.stderr, f"openai: {r.stderr[-800:]}")

            # --messages: the messages the template added, and the reply
            small = os.path.join(tmp, "small.jsonl")
            write_inputs(small, 2)
            out_m = os.path.join(tmp, "messages.jsonl")
            r = run(via(program, templates, small, out_m, "openai-batch", base + "/v1", "--messages"))
            check(r.returncode == 0, f"--messages: exit {r.returncode}, stderr {r.stderr[-1000:]}")
            m = by_id(read_lines(out_m), "--messages").get("0", {}).get("result")
            check(isinstance(m, list) and [x.get("role") for x in m] == ["system", "user", "request", "assistant"]
                  and m[-1].get("content") == "Summarize: document 0", f"--messages: {m}")
        finally:
            stop_fake_server(server)

        # --- Anthropic: --batch-size, expired requests ----------------------------------------
        write(script, json.dumps({"steps": [], "batch": {"polls": 1, "per_poll": 3, "expire": True}}))
        server, base = start_fake_server(program, script, log)
        try:
            out = os.path.join(tmp, "anthropic.jsonl")
            r = run(via(program, templates, inp, out, "anthropic-batch", base, "--batch-size", "5"))
            check(r.returncode == 3, f"anthropic: exit {r.returncode}, stderr {r.stderr[-1500:]}")
            lines = by_id(read_lines(out), "anthropic")
            check(len(lines) == 12, f"anthropic: {len(lines)} lines")
            results = [v for v in lines.values() if "result" in v]
            expired = [v for v in lines.values() if v.get("error", {}).get("type") == "batch_expired"]
            # three batches (5, 5, 2 requests), each answering three requests before it expires
            check(len(results) == 8 and len(expired) == 4, f"anthropic: {len(results)} results, {len(expired)} expired")
            check(all(v["error"]["code"] == "timeout" for v in expired), f"anthropic: expired lines {expired[:1]}")
            check(count(log, "POST /v1/messages/batches") == 3, "anthropic: not three batches")
        finally:
            stop_fake_server(server)

        # --- SIGKILL between the submission and the end, then the same command ------------------
        write(script, json.dumps({"steps": [], "batch": {"polls": 3}}))
        server, base = start_fake_server(program, script, log)
        try:
            out = os.path.join(tmp, "killed.jsonl")
            state = out + ".batches.json"
            cmd = via(program, templates, inp, out, "openai-batch", base + "/v1", "--poll-interval", "0.05")
            p = subprocess.Popen(cmd, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            check(wait_for(state, p), "kill: no state file")
            time.sleep(0.05)
            check(p.poll() is None, "kill: the run ended before the kill")
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=TIMEOUT)
            with open(state) as f:
                saved = json.load(f)
            check(len(saved["batches"]) == 1 and len(saved["batches"][0]["requests"]) == 12, f"kill: state {saved}")
            check(read_lines(out) == [], "kill: lines before the batch ended")
            uploads, creations = count(log, "POST /v1/files"), count(log, "POST /v1/batches")
            r = run(cmd)
            check(r.returncode == 0, f"resume: exit {r.returncode}, stderr {r.stderr[-1500:]}")
            check(count(log, "POST /v1/files") == uploads == 1 and count(log, "POST /v1/batches") == creations == 1,
                  "resume: uploaded or created again")
            check(f"GET /v1/batches/{saved['batches'][0]['id']}" in open(log).read(), "resume: the batch was not polled")
            lines = by_id(read_lines(out), "resume")
            check(set(lines) == {json.dumps(i) for i in ids} and all("result" in v for v in lines.values()),
                  f"resume: lines {sorted(lines)}")
            check("12 awaited from an earlier run" in r.stderr, f"resume: summary {r.stderr[-600:]}")
            check(not os.path.exists(state), "resume: the state file is left")
        finally:
            stop_fake_server(server)

        # --- --cancel after a kill, then the command again ------------------------------------
        write(script, json.dumps({"steps": [], "batch": {"polls": 1, "per_poll": 1}}))
        server, base = start_fake_server(program, script, log)
        try:
            out = os.path.join(tmp, "cancelled.jsonl")
            state = out + ".batches.json"
            cmd = via(program, templates, inp, out, "anthropic-batch", base, "--poll-interval", "0.05")
            p = subprocess.Popen(cmd, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            check(wait_for(state, p), "cancel: no state file")
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=TIMEOUT)
            r = run(cmd + ["--cancel"])
            check(r.returncode == 0, f"--cancel: exit {r.returncode}, stderr {r.stderr[-1500:]}")
            check(count(log, "POST /v1/messages/batches") == 1, "--cancel: created a batch")
            check(sum(1 for x in open(log) if x.startswith("POST /v1/messages/batches/") and "/cancel -> 200" in x) == 1,
                  "--cancel: no cancel request")
            written = by_id(read_lines(out), "--cancel")
            check(all("result" in v for v in written.values()), f"--cancel: {written}")
            check(f"{12 - len(written)} requests were cancelled before they ran" in r.stderr or
                  (len(written) == 11 and "1 request was cancelled before it ran" in r.stderr), f"--cancel: summary {r.stderr[-800:]}")
            check(0 < 12 - len(written), "--cancel: nothing was cancelled")
            check(not os.path.exists(state), "--cancel: the state file is left")
            r = run(cmd + ["--cancel"])
            check(r.returncode == 0 and "no batches to cancel" in r.stderr, f"--cancel again: {r.returncode} {r.stderr[-300:]}")
            r = run(cmd)
            check(r.returncode == 0, f"after --cancel: exit {r.returncode}, stderr {r.stderr[-1500:]}")
            check(count(log, "POST /v1/messages/batches") == 2, "after --cancel: not one more batch")
            lines = by_id(read_lines(out), "after --cancel")
            check(set(lines) == {json.dumps(i) for i in ids}, f"after --cancel: ids {sorted(lines)}")
            check(f"{len(written):,} already in" in r.stderr, f"after --cancel: summary {r.stderr[-600:]}")
        finally:
            stop_fake_server(server)

        # --- what --via refuses ---------------------------------------------------------------
        out = os.path.join(tmp, "refused.jsonl")
        base = "http://127.0.0.1:9/v1"
        r = run([program, "batch", templates, "--template", "twice", "--input", inp, "--output", out, "--via", "openai-batch",
                 "--base-url", base])
        check(r.returncode == 1 and "template 'twice' sends more than one request (message 3 follows the request of message 2)" in r.stderr,
              f"two requests: exit {r.returncode}, {r.stderr[-400:]}")
        for extra, want in [(["--api", "gemini"], "--via openai-batch takes --api openai or responses, not gemini"),
                            (["--concurrency", "4"], "--concurrency has no meaning with --via"),
                            (["--poll-interval", "0"], "--poll-interval takes a number of seconds from 0.001 to 86400")]:
            r = run(via(program, templates, inp, out, "openai-batch", base) + extra)
            check(r.returncode == 2 and want in r.stderr, f"{extra}: exit {r.returncode}, {r.stderr[:300]!r}")
        r = run([program, "batch", templates, "--input", inp, "--output", out, "--cancel"])
        check(r.returncode == 2 and "--cancel goes with --via" in r.stderr, f"--cancel alone: {r.returncode} {r.stderr[:200]!r}")
        r = run([program, "batch", templates, "--input", inp, "--output", out, "--via", "gemini-batch"])
        check(r.returncode == 2 and "--via takes openai-batch or anthropic-batch, not 'gemini-batch'" in r.stderr,
              f"--via gemini-batch: {r.returncode} {r.stderr[:200]!r}")
        check(not os.path.exists(out) or os.path.getsize(out) == 0, "refused runs wrote lines")

    return report("cli_batch_via_check", started)


if __name__ == "__main__":
    sys.exit(main())
