#!/usr/bin/env python3
"""Checks `parley run` from the command line.

    cli_run_check.py PARLEY_PROGRAM TEMPLATE_DIR

Runs the template set TEMPLATE_DIR/assistant.yaml (tests/bot/cli_run/) as a user does:
- with nothing configured: the echo model answers, stderr says so, the data reach the texts;
- against `parley fake-server`: a function that runs its command (a Python script, in the
  template file's directory, arguments on standard input), the built-in calculator, a template
  switch after which the rest of the switching template is read, --history written and read back
  by a second run, --stream;
- `--api responses`: the same loop over OpenAI's Responses API (streamed), the reasoning item
  sent back before the function call it came with, and kept in the history;
- with the scripted model (--provider scripted --script): a command that times out and one that
  fails, both told to the model as the function's result; a run that fails leaves the history
  file byte-identical and exits 1;
- parley killed with SIGKILL while a function's command runs: the history file is
  byte-identical to before, the directory holds the same files as before (no temporary file was
  made: the history is written only after the run, into a temporary file renamed over it), and
  the command was killed with parley (Linux: PR_SET_PDEATHSIG);
- bad input: unknown template, missing files, bad JSON, bad YAML, usage errors (exit 2);
- PROMPT: the words joined, `-` and a pipe on standard input, a terminal without words (exit 2);
- data: `--data` inline or from a file, `--set` (dotted keys, JSON or string values) and its
  errors;
- `contentParts`: the prompt and `--image` files (PNG, JPEG, GIF, WebP: the type checked against
  Python's imghdr, the data: URL against Python's base64) and URLs with `--detail`, in the
  request body the fake server records; files that are not images, too big or missing;
- a single template's file (a list of messages, named after the file) for `render` and `run`,
  its bare user message taking the parts; `--functions` files (YAML and JSON) whose definitions
  reach the request's tools and whose commands run; bad definitions and rule-breaking files;
- errors of rendering placed in the YAML file (block, plain and quoted scalars), for `render`
  and `run`;
- a failed run prints the error only (with --stream, the replies already printed and a line
  that says they were discarded);
- `parley templates list|search|show` (the shown YAML read back by PyYAML, the reference).
"""
import base64
import json
import os
import pty
import re
import signal
import subprocess
import sys
import tempfile
import time
import warnings
import zlib

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import imghdr  # the reference for the type of an image (Python 3.11's standard library)
import yaml  # PyYAML (python3-yaml), the reference YAML reader

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from cli_check import TIMEOUT, check, clean_env, failures, report, start_fake_server, stop_fake_server  # noqa: E402


def run(program, args, env, timeout=TIMEOUT, stdin=subprocess.DEVNULL, input=None, command="run"):
    if input is not None:
        stdin = None
    return subprocess.run([program, command, *args], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=stdin, input=input)


def write_text(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def recorded(path):
    """The bodies of the requests `parley fake-server --record` wrote, as JSON."""
    with open(path) as f:
        return [json.loads(json.loads(line)["body"]) for line in f if line.strip()]


def load(path):
    with open(path) as f:
        return json.load(f)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f)


def echo_checks(program, templates, tmp):
    r = run(program, [templates, "--template", "chat", "Hello there"], clean_env())
    check(r.returncode == 0, f"echo: exit {r.returncode}: {r.stderr}")
    check(r.stdout == "Hello there\n", f"echo: output {r.stdout!r}")
    check("no API configured" in r.stderr and "the echo model answers" in r.stderr, f"echo: notice {r.stderr!r}")

    # the data and PROMPT (as `input`) reach the texts; the history file is made
    data = os.path.join(tmp, "data.json")
    write_json(data, {"name": "Ada"})
    history = os.path.join(tmp, "echo-history.json")
    r = run(program, [templates, "--template", "chat", "--data", data, "--history", history, "Hi"], clean_env())
    check(r.returncode == 0 and r.stdout == "Hi\n", f"echo with data: {r.returncode} {r.stdout!r} {r.stderr!r}")
    try:
        conversation = load(history)
        check(conversation == [{"role": "system", "content": "You are a helpful assistant for Ada."},
                               {"role": "user", "content": "Hi"}, {"role": "request"},
                               {"role": "assistant", "content": "Hi"}], f"echo history {conversation!r}")
    except (OSError, ValueError) as error:
        failures.append(f"echo: no history written: {error}")
    check(sorted(os.listdir(tmp)) == ["data.json", "echo-history.json"], f"echo: files left {os.listdir(tmp)!r}")

    # --provider echo says nothing about configuration
    r = run(program, [templates, "--template", "chat", "--provider", "echo", "Quiet"], clean_env())
    check(r.returncode == 0 and r.stdout == "Quiet\n" and "no API configured" not in r.stderr,
          f"--provider echo: {r.returncode} {r.stdout!r} {r.stderr!r}")


def server_checks(program, templates, tmp):
    script = {"steps": [
        {"reply": {"tool_calls": [
            {"id": "call_1", "name": "lookup_order", "arguments": "{\"order\": \"A-17\"}"},
            {"id": "call_2", "name": "calculator", "arguments": "{\"expression\": \"(2 + 3) * 4 - 1 / 4\"}"}]}},
        {"reply": {"tool_calls": [{"id": "call_3", "name": "botSwitchTemplate", "arguments": "{\"name\": \"support\"}"}]}},
        {"reply": {"text": "Support here. Your order has shipped."}},
        {"reply": {"text": "Glad to help."}},
        {"reply": {"text": "Streamed words arrive in pieces", "delta_size": 3}, "chunk_size": 5},
    ]}
    script_path = os.path.join(tmp, "script.json")
    write_json(script_path, script)
    log_path = os.path.join(tmp, "server.log")
    server, base = start_fake_server(program, script_path, log_path)
    history = os.path.join(tmp, "history.json")
    env = clean_env(OPENAI_API_KEY="key-0123456789", OPENAI_BASE_URL=base + "/v1")
    try:
        r = run(program, [templates, "--template", "orders", "--history", history, "Where is order A-17?"], env)
        check(r.returncode == 0, f"orders: exit {r.returncode}: {r.stderr}")
        check(r.stdout == "Support here. Your order has shipped.\nGlad to help.\n", f"orders: output {r.stdout!r}")
        check("no API configured" not in r.stderr, f"orders: echo notice with a server: {r.stderr!r}")
        check("[tool call] lookup_order" in r.stderr, f"orders: calls not shown on stderr: {r.stderr!r}")
        conversation = load(history) if os.path.exists(history) else []
        roles = [m.get("role") for m in conversation]
        check(roles == ["default-request", "system", "user", "request", "assistant", "tool", "tool", "assistant", "tool",
                        "system", "request", "assistant", "assistant", "assistant"], f"orders: roles {roles!r}")
        if len(conversation) == 14:
            lookup = json.loads(conversation[5]["content"])
            check(conversation[5]["tool_call_id"] == "call_1", f"lookup answers {conversation[5]!r}")
            check(lookup == {"order": "A-17", "state": "shipped", "function": "lookup_order", "directory": "cli_run"},
                  f"the command's result {lookup!r}")
            check(conversation[6] == {"role": "tool", "content": "{\"result\": 19.75}", "tool_call_id": "call_2"},
                  f"calculator's result {conversation[6]!r}")
            check(conversation[8] == {"role": "tool", "content": "Switched to template 'support'.",
                                      "tool_call_id": "call_3"}, f"switch result {conversation[8]!r}")
            check(conversation[9] == {"role": "system", "content": "You handle support requests."},
                  f"support's first message {conversation[9]!r}")
            check(conversation[11]["content"] == "Support here. Your order has shipped.", f"reply {conversation[11]!r}")
            # the rest of the template that switched, read once the template switched to ended, and
            # the request that ends that read (the template has no request after it)
            check(conversation[12] == {"role": "assistant", "content": "Anything else about your order?"},
                  f"the rest of orders {conversation[12]!r}")
            check(conversation[13] == {"role": "assistant", "content": "Glad to help."},
                  f"the reply to the rest of orders {conversation[13]!r}")
        before = read_bytes(history) if os.path.exists(history) else b""

        # the history read back: a second run goes on from it (--stream, model from PARLEY_MODEL)
        r = run(program, [templates, "--template", "chat", "--history", history, "--stream", "Thanks"],
                dict(env, PARLEY_MODEL="streaming-model"))
        check(r.returncode == 0, f"second run: exit {r.returncode}: {r.stderr}")
        check(r.stdout == "Streamed words arrive in pieces\n", f"streamed output {r.stdout!r}")
        after = load(history)
        check(len(after) == 18 and after[:14] == json.loads(before),
              f"the second run does not extend the history read back: {after!r}")
        check(after[14:] == [{"role": "system", "content": "You are a helpful assistant."},
                             {"role": "user", "content": "Thanks"}, {"role": "request"},
                             {"role": "assistant", "content": "Streamed words arrive in pieces"}],
              f"second run's messages {after[14:]!r}")
        check(sorted(os.listdir(tmp)) == ["history.json", "script.json", "server.log"], f"files left {os.listdir(tmp)!r}")

        # the script is used up: the server echoes (twice: the request of orders, then the one that
        # ends the read of its last message); --model replaces the template's model
        r = run(program, [templates, "--template", "orders", "--model", "other-model", "Echo this"], env)
        check(r.returncode == 0 and r.stdout == "Echo this\nEcho this\n",
              f"echo by the server: {r.returncode} {r.stdout!r} {r.stderr!r}")
    finally:
        stop_fake_server(server)
    with open(log_path) as f:
        log = f.read()
    check(log.count("/v1/chat/completions") == 7, f"the server's log: {log!r}")


def responses_checks(program, templates, tmp):
    """`parley run --api responses`: the bot's loop over OpenAI's Responses API, a function call
    with the reasoning item before it sent back, and the history written as for the other APIs."""
    script = {"steps": [
        {"reply": {"reasoning": "The order number is given.",
                   "tool_calls": [{"id": "call_1", "name": "lookup_order", "arguments": "{\"order\": \"A-17\"}"}]}},
        {"reply": {"text": "Your order has shipped.", "delta_size": 4}},
        {"reply": {"text": "Anything more?"}},
    ]}
    script_path = os.path.join(tmp, "script.json")
    write_json(script_path, script)
    record = os.path.join(tmp, "requests.jsonl")
    server, base = start_fake_server(program, script_path, os.path.join(tmp, "server.log"), record)
    history = os.path.join(tmp, "history.json")
    env = clean_env(OPENAI_API_KEY="key-0123456789")
    try:
        r = run(program, [templates, "--template", "orders", "--api", "responses", "--base-url", base + "/v1",
                          "--history", history, "--stream", "Where is order A-17?"], env)
        check(r.returncode == 0, f"responses: exit {r.returncode}: {r.stderr}")
        check(r.stdout == "Your order has shipped.\nAnything more?\n", f"responses: output {r.stdout!r}")
    finally:
        stop_fake_server(server)
    bodies = [json.loads(q["body"]) for q in recorded_requests(record)]
    targets = [q["target"] for q in recorded_requests(record)]
    check(targets == ["/v1/responses"] * 3, f"responses: targets {targets!r}")
    if len(bodies) == 3:
        first, second = bodies[0], bodies[1]
        check(first.get("instructions") == "You look orders up." and first.get("stream") is True
              and first.get("input") == [{"role": "user", "content": "Where is order A-17?"}],
              f"responses: the first request {first!r}")
        names = [t.get("name") for t in first.get("tools", [])]
        check("lookup_order" in names and all(t.get("type") == "function" for t in first.get("tools", [])),
              f"responses: the tools {first.get('tools')!r}")
        items = second.get("input", [])
        kinds = [i.get("type", i.get("role")) for i in items]
        check(kinds == ["user", "reasoning", "function_call", "function_call_output"], f"responses: input items {kinds!r}")
        if len(items) == 4:
            check(items[1].get("summary") == [{"type": "summary_text", "text": "The order number is given."}]
                  and str(items[1].get("id", "")).startswith("rs_"), f"responses: the reasoning item {items[1]!r}")
            check(items[2].get("call_id") == "call_1" and items[3].get("call_id") == "call_1"
                  and json.loads(items[3].get("output", "{}")).get("state") == "shipped",
                  f"responses: the call and its output {items[2:]!r}")
    conversation = load(history) if os.path.exists(history) else []
    roles = [m.get("role") for m in conversation]
    check(roles == ["default-request", "system", "user", "request", "assistant", "tool", "assistant", "assistant",
                    "assistant"], f"responses: history roles {roles!r}")
    if len(conversation) == 9:
        reasoning = conversation[4].get("reasoning", [])
        check(len(reasoning) == 1 and reasoning[0].get("type") == "reasoning"
              and reasoning[0].get("summary") == ["The order number is given."],
              f"responses: the reasoning kept in the history {conversation[4]!r}")


def recorded_requests(path):
    """The requests `parley fake-server --record` wrote: method, target, status and body."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def scripted(tmp, name, steps):
    path = os.path.join(tmp, name)
    write_json(path, {"steps": steps})
    return path


def scripted_checks(program, templates, tmp):
    # a command that takes longer than its timeout, and one that fails: the model is told
    script = scripted(tmp, "timeout.json", [
        {"reply": {"tool_calls": [{"id": "t1", "name": "slow_lookup", "arguments": "{}"},
                                  {"id": "t2", "name": "broken_lookup", "arguments": "{}"}]}},
        {"reply": {"text": "The lookups failed."}},
        {"reply": {"text": "Bye."}},
    ])
    history = os.path.join(tmp, "scripted-history.json")
    started = time.monotonic()
    r = run(program, [templates, "--template", "orders", "--provider", "scripted", "--script", script,
                      "--history", history, "Where is my order?"], clean_env())
    elapsed = time.monotonic() - started
    check(r.returncode == 0, f"timeout run: exit {r.returncode}: {r.stderr}")
    check(r.stdout == "The lookups failed.\nBye.\n", f"timeout run: output {r.stdout!r}")
    check(elapsed < 8, f"the 1 s timeout took {elapsed:.1f} s (the command sleeps 10 s)")
    check("the order database is down" in r.stderr, f"the failing command's stderr is not shown: {r.stderr!r}")
    conversation = load(history) if os.path.exists(history) else []
    tools = [m for m in conversation if m.get("role") == "tool"]
    check(tools == [
        {"role": "tool", "content": "Error: the command of slow_lookup did not finish within 1 s and was stopped",
         "tool_call_id": "t1", "is_error": True},
        {"role": "tool", "content": "Error: the command of broken_lookup failed with exit status 3: "
                                    "the order database is down", "tool_call_id": "t2", "is_error": True}],
        f"timeout and failure results {tools!r}")

    # a run that fails (the script has no reply after the call) leaves the history as it was
    before = read_bytes(history) if os.path.exists(history) else b"missing"
    script = scripted(tmp, "short.json", [
        {"reply": {"tool_calls": [{"id": "c1", "name": "calculator", "arguments": "{\"expression\": \"1 / 0\"}"}]}},
    ])
    r = run(program, [templates, "--template", "orders", "--provider", "scripted", "--script", script,
                      "--history", history, "Divide"], clean_env())
    check(r.returncode == 1 and r.stderr == "error: invalid argument: the scripted model has no reply left (2 requests "
                                            "received)\n" and r.stdout == "",
          f"failed run: the error only: {r.returncode} {r.stdout!r} {r.stderr!r}")
    check(read_bytes(history) == before, "a failed run changed the history file")

    # the scripted model plays reply steps only
    script = scripted(tmp, "status.json", [{"status": 500}])
    r = run(program, [templates, "--template", "chat", "--provider", "scripted", "--script", script, "x"], clean_env())
    check(r.returncode == 1 and "steps[0]: the scripted model plays reply steps only" in r.stderr,
          f"status step: {r.returncode} {r.stderr!r}")


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is dead
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def kill_checks(program, templates, tmp):
    work = os.path.join(tmp, "kill")
    os.mkdir(work)
    history = os.path.join(work, "history.json")
    original = [{"role": "user", "content": "Earlier question"}, {"role": "assistant", "content": "Earlier answer"}]
    with open(history, "w") as f:
        json.dump(original, f, indent=1)
    before = read_bytes(history)
    listing = sorted(os.listdir(work))
    script = scripted(tmp, "wait.json", [
        {"reply": {"tool_calls": [{"id": "w1", "name": "wait_here", "arguments": "{}"}]}},
        {"reply": {"text": "never"}},
    ])
    marker = os.path.join(tmp, "marker")
    process = subprocess.Popen([program, "run", templates, "--template", "orders", "--provider", "scripted",
                                "--script", script, "--history", history, "Wait"],
                               env=clean_env(PARLEY_TEST_MARKER=marker),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(marker) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    check(os.path.exists(marker), "the function's command never started")
    check(process.poll() is None, f"parley ended before it was killed ({process.returncode})")
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=TIMEOUT)
    check(process.returncode == -signal.SIGKILL, f"parley's end: {process.returncode}")
    check(read_bytes(history) == before, "the history file changed when parley was killed")
    check(sorted(os.listdir(work)) == listing, f"files after the kill: {sorted(os.listdir(work))!r}, before {listing!r}")
    if os.path.exists(marker) and sys.platform.startswith("linux"):
        with open(marker) as f:
            pid = int(f.read().strip())
        deadline = time.monotonic() + 10
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = pid_alive(pid)
        check(not alive, "the function's command outlived parley")
        if alive:
            os.kill(pid, signal.SIGKILL)


def bad_input_checks(program, templates, tmp):
    env = clean_env()

    def expect(args, code, text, what):
        r = run(program, args, env)
        check(r.returncode == code and text in r.stderr, f"{what}: exit {r.returncode}, stderr {r.stderr!r}")
        check(r.stdout == "", f"{what}: printed {r.stdout!r}")
        return r

    expect([templates, "--template", "nope", "x"], 1,
           "error: no template named 'nope' (the set has: chat, orders, support)", "unknown template")
    expect([templates, "x"], 1, "has 3 templates: choose one with --template NAME (chat, orders, support)",
           "no --template")
    missing = os.path.join(tmp, "missing.yaml")
    expect([missing, "x"], 1, f"error: {missing}: cannot open the file", "missing template file")
    expect([templates, "--template", "chat", "--data", os.path.join(tmp, "missing.json"), "x"], 1,
           "cannot read " + os.path.join(tmp, "missing.json"), "missing data file")

    bad_json = os.path.join(tmp, "bad.json")
    with open(bad_json, "w") as f:
        f.write('{"name": "Ada",\n "city": Oslo}')
    expect([templates, "--template", "chat", "--data", bad_json, "x"], 1,
           f"error: {bad_json}: not valid JSON: expected valid JSON, found \"Oslo}}\" at line 2, column 10, offset 25",
           "bad data JSON")
    expect([templates, "--template", "chat", "--history", bad_json, "x"], 1,
           f"error: {bad_json}:2:10: not valid JSON: expected valid JSON, found \"Oslo}}\" at line 2, column 10, offset 25 "
           "(syntax error)\n", "bad history JSON")
    not_object = os.path.join(tmp, "list.json")
    write_json(not_object, [1, 2])
    expect([templates, "--template", "chat", "--data", not_object, "x"], 1, "the data must be a JSON object",
           "data not an object")
    with_input = os.path.join(tmp, "input.json")
    write_json(with_input, {"input": "from the file"})
    expect([templates, "--template", "chat", "--data", with_input, "x"], 2,
           "error: the data have a key 'input', which PROMPT gives: rename it\n", "data with an input")
    nowhere = os.path.join(tmp, "no-such-dir", "history.json")
    expect([templates, "--template", "chat", "--history", nowhere, "x"], 1,
           f"{nowhere}: the directory {os.path.dirname(nowhere)} does not exist", "history in a missing directory")
    bad_history = os.path.join(tmp, "bad-history.json")
    write_json(bad_history, [{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}])
    expect([templates, "--template", "chat", "--history", bad_history, "x"], 1,
           f"{bad_history}: /1/role: unknown role 'bot'", "bad history message")

    def yaml_file(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    bad_yaml = yaml_file("bad.yaml", "templates:\n  t:\n    messages:\n      - role: user\n        contnet: hi\n")
    expect([bad_yaml, "x"], 1, f"{bad_yaml}:5:9: unknown key 'contnet' in a user message", "bad YAML")
    zero = yaml_file("zero.yaml", "templates: {t: [{role: user, content: hi}]}\nfunctions:\n"
                                  "  - name: f\n    command: 'true'\n    timeout: 0\n")
    expect([zero, "x"], 1, f"{zero}:5:14: 'timeout' expects a number of seconds above 0 (up to 1e9), found '0'",
           "timeout 0")
    lone = yaml_file("lone.yaml", "templates: {t: [{role: user, content: hi}]}\nfunctions:\n"
                                  "  - name: f\n    timeout: 3\n")
    expect([lone, "x"], 1, f"{lone}:4:14: 'timeout' is the time limit of a 'command', and the function has none",
           "timeout without command")
    empty = yaml_file("empty.yaml", "templates: {t: [{role: user, content: hi}]}\nfunctions:\n"
                                    "  - name: f\n    command: ' '\n")
    expect([empty, "x"], 1, f"{empty}:4:14: 'command' is empty", "empty command")
    nothing = yaml_file("nothing.yaml", "templates: {t: [{role: user, content: hi}]}\nfunctions:\n  - name: lookup\n")
    expect([nothing, "x"], 1, "function 'lookup' has no 'command', and parley run has no built-in function of that "
                              "name (get_time, calculator)", "function without a command")

    usage = "usage: parley run"
    expect([], 2, "error: give the template file\n" + usage, "no template file")
    expect([templates, "--bogus", "x"], 2, "unknown option --bogus", "unknown option")
    expect([templates, "--template"], 2, "--template needs a value", "option without a value")
    expect([templates, "--provider", "nonsense", "x"], 2,
           "--provider must be openai, responses, anthropic, gemini, ollama, azure, azure-responses, echo or scripted, "
           "not 'nonsense'", "bad provider")
    expect([templates, "--provider", "scripted", "x"], 2, "--provider scripted needs --script FILE.json",
           "scripted without a script")
    r = run(program, ["--help"], env)
    check(r.returncode == 0 and r.stdout.startswith(usage), f"--help: {r.returncode} {r.stdout[:80]!r}")

    # the built-in get_time, through the scripted model
    script = scripted(tmp, "time.json", [
        {"reply": {"tool_calls": [{"id": "g1", "name": "get_time", "arguments": "{}"}]}},
        {"reply": {"text": "It is late."}},
        {"reply": {"text": "Good night."}},
    ])
    history = os.path.join(tmp, "time-history.json")
    r = run(program, [templates, "--template", "orders", "--provider", "scripted", "--script", script,
                      "--history", history, "Time?"], env)
    check(r.returncode == 0 and r.stdout == "It is late.\nGood night.\n",
          f"get_time run: {r.returncode} {r.stdout!r} {r.stderr!r}")
    tools = [m for m in load(history) if m.get("role") == "tool"] if os.path.exists(history) else []
    now = json.loads(tools[0]["content"]) if len(tools) == 1 else {}
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", str(now.get("utc"))) is not None
          and abs(now.get("unix", 0) - time.time()) < 120, f"get_time's result {tools!r}")

# --- PROMPT, data, contentParts, single templates, functions files ------------------------------

ECHO_TEMPLATE = "- role: user\n  content: \"{{ input }}\"\n- role: request\n"


def on_a_terminal(program, args, env):
    """Runs `parley run ARGS` with a pseudo-terminal as standard input."""
    leader, follower = pty.openpty()
    try:
        return subprocess.run([program, "run", *args], env=env, capture_output=True, text=True, timeout=TIMEOUT,
                              stdin=follower)
    finally:
        os.close(leader)
        os.close(follower)


def prompt_checks(program, templates, tmp):
    env = clean_env()
    echo = write_text(tmp, "echo.yaml", ECHO_TEMPLATE)
    base = [echo, "--provider", "echo"]

    r = run(program, [*base, "What", "is", "the", "time?"], env)
    check(r.returncode == 0 and r.stdout == "What is the time?\n", f"words: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = run(program, [*base, "-"], env, input="from\nstandard input\n\n")
    check(r.returncode == 0 and r.stdout == "from\nstandard input\n", f"'-': {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = run(program, base, env, input="piped\r\n")
    check(r.returncode == 0 and r.stdout == "piped\n", f"a pipe without words: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = run(program, [*base, "--", "-5", "degrees?"], env)
    check(r.returncode == 0 and r.stdout == "-5 degrees?\n", f"words after --: {r.returncode} {r.stdout!r}")
    # an empty prompt: the echo model answers nothing, and nothing is printed
    r = run(program, base, env)
    check(r.returncode == 0 and r.stdout == "" and r.stderr == "", f"empty input: {r.returncode} {r.stdout!r} {r.stderr!r}")
    history = os.path.join(tmp, "prompt-history.json")
    r = run(program, [*base, "--history", history, "-"], env, input="line one\nline two\n")
    check(r.returncode == 0 and load(history)[0] == {"role": "user", "content": "line one\nline two"},
          f"the prompt read from standard input, in the history: {r.stderr!r}")

    r = on_a_terminal(program, base, env)
    check(r.returncode == 2 and r.stderr.startswith("error: give PROMPT, or '-' and the prompt on standard input\n"
                                                    "usage: parley run") and r.stdout == "",
          f"no PROMPT on a terminal: {r.returncode} {r.stdout!r} {r.stderr[:200]!r}")
    r = on_a_terminal(program, [*base, "on", "a", "terminal"], env)
    check(r.returncode == 0 and r.stdout == "on a terminal\n", f"words on a terminal: {r.returncode} {r.stdout!r}")
    r = run(program, [*base, "-", "more"], env)
    check(r.returncode == 2 and "error: '-' (PROMPT from standard input) stands alone, without other words" in r.stderr,
          f"'-' among words: {r.returncode} {r.stderr!r}")


def data_checks(program, templates, tmp):
    env = clean_env()
    shown = write_text(tmp, "shown.yaml", "- role: user\n  content: >-\n"
                       "    {{ input }}: {{ who.name }} {{ who.city }} {{ who.age }} {{ n + 1 }} {{ flag }} {{ list }}\n"
                       "    {{ quoted ~ '!' }} {{ text }} [{{ empty }}] {{ nested.a.b }} {{ spaced }}\n- role: request\n"
                       "  model: m\n")
    base = [shown, "--provider", "echo"]
    sets = ["--set", "who.age=36", "--set", "n=41", "--set", "flag=true", "--set", "list=[1, 2,3]",
            "--set", "quoted=\"7\"", "--set", "text=not json", "--set", "empty=", "--set", "nested.a.b=deep",
            "--set", "spaced= {\"x\": 1} "]
    r = run(program, [*base, "--data", '{"who": {"name": "Ada", "city": "Oslo"}, "n": 1}', *sets, "Q"], env)
    check(r.returncode == 0 and r.stdout == "Q: Ada Oslo 36 42 True [1, 2, 3] 7! not json [] deep {'x': 1}\n",
          f"--data inline and --set: {r.returncode} {r.stdout!r} {r.stderr!r}")
    data = os.path.join(tmp, "who.json")
    write_json(data, {"who": {"name": "Bo", "city": "Rome", "age": 1}, "n": 0})
    r = run(program, [*base, "--data", data, *sets, "--set", "who.city=Paris", "--set", "n=9", "Q"], env)
    check(r.returncode == 0 and r.stdout == "Q: Bo Paris 36 10 True [1, 2, 3] 7! not json [] deep {'x': 1}\n",
          f"--data FILE and --set, later ones winning: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = run(program, [*base, "--data", "  \n{\"who\": {}}", "--set", "who=\"x\"", "--set", "who.name=y", "Q"], env)
    check(r.returncode == 2 and "error: --set who.name=y: 'who' is a string, not an object, so it has no member 'name'"
          in r.stderr, f"a dotted key through a string: {r.returncode} {r.stderr!r}")

    def usage(args, text, what):
        r = run(program, [*base, *args, "Q"], env)
        check(r.returncode == 2 and f"error: {text}\n" in r.stderr and r.stdout == "",
              f"{what}: {r.returncode} {r.stdout!r} {r.stderr!r}")

    usage(["--set", "noequals"], "--set expects KEY=VALUE, found 'noequals'", "--set without '='")
    usage(["--set", "=1"], "--set =1: the key is empty", "--set with an empty key")
    usage(["--set", "a..b=1"], "--set a..b=1: an empty part in the key 'a..b'", "--set with an empty key part")
    usage(["--set", "who.=1"], "--set who.=1: an empty part in the key 'who.'", "--set ending with a dot")
    usage(["--set", "n=1", "--set", "n.x=2"], "--set n.x=2: 'n' is an integer, not an object, so it has no member 'x'",
          "a dotted key through a number")
    usage(["--set", "list=[1]", "--set", "list.0=2"],
          "--set list.0=2: 'list' is an array, not an object, so it has no member '0'", "a dotted key through a list")
    usage(["--set", "who=null", "--set", "who.a.b=2"], "--set who.a.b=2: 'who' is null, not an object, so it has no "
          "member 'a'", "a dotted key through null")
    usage(["--data", "{\"who\": "], "--data: not valid JSON: expected valid JSON, found the end of the text at line 1, "
          "column 9, offset 8 (incomplete JSON)", "bad inline JSON")
    usage(["--set", "input=x"], "the data have a key 'input', which PROMPT gives: rename it", "--set input")
    usage(["--data", "{\"contentParts\": []}"], "the data have a key 'contentParts', which PROMPT and --image give: "
          "rename it", "contentParts in the data")
    r = run(program, [*base, "Q", "--set"], env)
    check(r.returncode == 2 and r.stderr.startswith("error: --set needs a value\nusage: parley run"),
          f"--set without its value: {r.returncode} {r.stderr[:100]!r}")
    # a value that is not inline JSON names a file
    r = run(program, [*base, "--data", "name=Ada", "Q"], env)
    check(r.returncode == 1 and r.stderr == "error: cannot read name=Ada\n", f"--data of a file: {r.returncode} {r.stderr!r}")

    # render takes the same data options
    r = run(program, [shown, "--data", '{"input": "I", "who": {"name": "Ada"}}', *sets, "--set", "who.city=Oslo"],
            env, command="render")
    request = json.loads(r.stdout) if r.returncode == 0 else {}
    check(request.get("messages") == [{"role": "user", "content": "I: Ada Oslo 36 42 True [1, 2, 3] 7! not json [] "
                                                                  "deep {'x': 1}"}],
          f"render with --data and --set: {r.returncode} {r.stdout!r} {r.stderr!r}")


def png_bytes():
    """A 1x1 PNG image."""
    def chunk(kind, data):
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", bytes([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


IMAGES = {
    "dot.png": png_bytes(),
    "dot.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9",
    "dot.gif": b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,"
               b"\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;",
    "dot.webp": b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00",
}


def content_parts_checks(program, templates, tmp):
    look = write_text(tmp, "look.yaml", "- role: system\n  content: You describe images.\n- role: user\n"
                                        "- role: request\n  model: vision-model\n")
    paths = {}
    for name, data in IMAGES.items():
        paths[name] = os.path.join(tmp, name)
        with open(paths[name], "wb") as f:
            f.write(data)
    script_path = os.path.join(tmp, "script.json")
    write_json(script_path, {"steps": []})
    record = os.path.join(tmp, "requests.jsonl")
    server, base = start_fake_server(program, script_path, os.path.join(tmp, "server.log"), record)
    env = clean_env(OPENAI_API_KEY="key-0123456789", OPENAI_BASE_URL=base + "/v1")
    try:
        url = "https://example.com/cat.jpg"
        r = run(program, [look, "--image", paths["dot.png"], "--image", url, "--image=" + paths["dot.jpg"],
                          "--image", paths["dot.gif"], "--image", paths["dot.webp"], "--detail", "low",
                          "What", "are", "these?"], env)
        check(r.returncode == 0 and r.stdout == "What are these?\n", f"images: {r.returncode} {r.stdout!r} {r.stderr!r}")

        def image_part(source, detail):
            if source.startswith("https:"):
                url = source
            else:
                with open(source, "rb") as f:
                    data = f.read()
                url = f"data:image/{imghdr.what(None, h=data)};base64,{base64.b64encode(data).decode()}"
            part = {"type": "image_url", "image_url": {"url": url}}
            if detail:
                part["image_url"]["detail"] = detail
            return part

        expected = [{"type": "text", "text": "What are these?"}] + [
            image_part(s, "low") for s in (paths["dot.png"], url, paths["dot.jpg"], paths["dot.gif"], paths["dot.webp"])]
        bodies = recorded(record)
        check(len(bodies) == 1, f"one request: {len(bodies)}")
        if bodies:
            check(bodies[0]["messages"] == [{"role": "system", "content": "You describe images."},
                                            {"role": "user", "content": expected}],
                  f"the request's messages {json.dumps(bodies[0]['messages'])[:600]}")
            check(bodies[0]["model"] == "vision-model", f"model {bodies[0].get('model')!r}")

        # without --detail, no detail; without a prompt, no text part
        r = run(program, [look, "--image", paths["dot.gif"]], env)
        check(r.returncode == 0 and r.stdout == "", f"an image alone: {r.returncode} {r.stdout!r} {r.stderr!r}")
        bodies = recorded(record)
        check(len(bodies) == 2 and bodies[-1]["messages"][1] == {"role": "user",
                                                                 "content": [image_part(paths["dot.gif"], None)]},
              f"an image without a prompt: {bodies[-1]['messages'][1] if bodies else None!r}")

        # the documents' own form: a single template whose user message has no content (ask.yaml,
        # without a request message: the end of the template sends the request)
        ask = os.path.join(templates_dir(templates), "ask.yaml")
        r = run(program, [ask, "--image", paths["dot.png"], "--detail", "high", "Is", "it", "red?"], env)
        check(r.returncode == 0 and r.stdout == "Is it red?\n", f"ask.yaml: {r.returncode} {r.stdout!r} {r.stderr!r}")
        bodies = recorded(record)
        check(len(bodies) == 3, f"ask.yaml sends one request: {len(bodies) - 2}")
        if len(bodies) == 3:
            check(bodies[2]["model"] == "test-model" and bodies[2]["messages"] == [
                {"role": "system", "content": "You answer briefly."},
                {"role": "user", "content": [{"type": "text", "text": "Is it red?"}, image_part(paths["dot.png"], "high")]}],
                f"ask.yaml's request {json.dumps(bodies[2])[:400]}")
    finally:
        stop_fake_server(server)

    # images that cannot be sent
    env = clean_env()

    def refused(args, code, text, what):
        r = run(program, [look, "--provider", "echo", *args, "Q"], env)
        check(r.returncode == code and f"error: {text}\n" in r.stderr and r.stdout == "",
              f"{what}: {r.returncode} {r.stdout!r} {r.stderr!r}")

    notes = write_text(tmp, "notes.txt", "hello there, I am text")
    refused(["--image", notes], 1, f"--image {notes}: not a PNG, JPEG, GIF or WebP image (it begins with the bytes "
                                   "68 65 6c 6c 6f 20 74 68)", "a text file")
    bmp = os.path.join(tmp, "dot.bmp")
    with open(bmp, "wb") as f:
        f.write(b"BM" + bytes(60))
    with open(bmp, "rb") as f:
        check(imghdr.what(None, h=f.read()) == "bmp", "the BMP file is a BMP image for imghdr")
    refused(["--image", bmp], 1, f"--image {bmp}: not a PNG, JPEG, GIF or WebP image (it begins with the bytes "
                                 "42 4d 00 00 00 00 00 00)", "a BMP image")
    empty = write_text(tmp, "empty.png", "")
    refused(["--image", empty], 1, f"--image {empty}: not a PNG, JPEG, GIF or WebP image (the file is empty)",
            "an empty file")
    missing = os.path.join(tmp, "missing.png")
    refused(["--image", missing], 1, f"--image {missing}: cannot read the file: No such file or directory",
            "a missing file")
    big = os.path.join(tmp, "big.png")
    with open(big, "wb") as f:
        f.write(IMAGES["dot.png"])
        f.truncate(20 * 1024 * 1024 + 1)
    refused(["--image", big], 1, f"--image {big}: the file is larger than the limit of 20971520 bytes (20 MiB)",
            "a file over the limit")
    refused(["--image", paths["dot.png"], "--detail", "huge"], 2, "--detail must be low, high or auto, not 'huge'",
            "a bad --detail")
    refused(["--detail", "low"], 2, "--detail goes with --image", "--detail without --image")


def templates_dir(templates):
    return os.path.dirname(templates)


def single_template_checks(program, templates, tmp):
    here = templates_dir(templates)
    ask = os.path.join(here, "ask.yaml")
    env = clean_env()

    # render: a single template named after its file; its bare user message takes contentParts
    r = run(program, [ask, "--set", "contentParts=[\"Hi\", {\"type\": \"text\", \"text\": \"there\"}]"], env,
            command="render")
    request = json.loads(r.stdout) if r.returncode == 0 else {}
    check(request == {"model": "test-model", "messages": [
        {"role": "system", "content": "You answer briefly."},
        {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}]}]},
        f"render ask.yaml: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = run(program, [ask, "--template", "ask", "--set", "contentParts=[]"], env, command="render")
    check(r.returncode == 0, f"render --template with the file's stem: {r.returncode} {r.stderr!r}")
    r = run(program, [ask, "--template", "other"], env, command="render")
    check(r.returncode == 1 and "error: no template named 'other' (the set has: ask)" in r.stderr,
          f"render --template of another name: {r.returncode} {r.stderr!r}")
    r = run(program, [ask], env, command="render")
    check(r.returncode == 1 and "ask, message 2: a user message without content takes its content from the data's "
                                "'contentParts', which the data does not have" in r.stderr,
          f"render without contentParts: {r.returncode} {r.stderr!r}")

    # run: PROMPT becomes the user message's text part
    history = os.path.join(tmp, "ask-history.json")
    r = run(program, [ask, "--provider", "echo", "--history", history, "Capital", "of", "France?"], env)
    check(r.returncode == 0 and r.stdout == "Capital of France?\n", f"run ask.yaml: {r.returncode} {r.stdout!r} {r.stderr!r}")
    check(os.path.exists(history) and load(history) == [
        {"role": "default-request", "model": "test-model"}, {"role": "system", "content": "You answer briefly."},
        {"role": "user", "content": [{"type": "text", "text": "Capital of France?"}]},
        {"role": "assistant", "content": "Capital of France?"}],
        f"ask.yaml's history {load(history) if os.path.exists(history) else None!r}")

    # --functions: the definitions of a separate file (YAML or JSON) reach the request's tools,
    # and their commands run in that file's directory
    lookup = os.path.join(here, "lookup.yaml")
    for functions in ("functions.yaml", "functions.json"):
        script = scripted(tmp, "lookup.json", [
            {"reply": {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": "{\"order\": \"B-2\"}"},
                                      {"id": "c2", "name": "opening_hours", "arguments": "{}"}]}},
            {"reply": {"text": "B-2 has shipped; we open at nine."}},
        ])
        record = os.path.join(tmp, "functions.jsonl")
        server, base = start_fake_server(program, script, os.path.join(tmp, "functions.log"), record)
        try:
            history = os.path.join(tmp, "functions-history.json")
            if os.path.exists(history):
                os.remove(history)
            r = run(program, [lookup, "--functions", os.path.join(here, functions), "--history", history, "Where is B-2?"],
                    clean_env(OPENAI_API_KEY="key-0123456789", OPENAI_BASE_URL=base + "/v1"))
        finally:
            stop_fake_server(server)
        check(r.returncode == 0 and r.stdout == "B-2 has shipped; we open at nine.\n",
              f"--functions {functions}: {r.returncode} {r.stdout!r} {r.stderr!r}")
        bodies = recorded(record)
        check(len(bodies) == 2, f"--functions {functions}: {len(bodies)} requests")
        if bodies:
            check(bodies[0].get("tools") == [
                {"type": "function", "function": {"name": "lookup_order", "description": "The state of an order.",
                                                  "parameters": {"type": "object", "properties": {
                                                      "order": {"type": "string", "description": "The order's number"}},
                                                      "required": ["order"]}}},
                {"type": "function", "function": {"name": "opening_hours", "description": "The shop's opening hours.",
                                                  "parameters": {"type": "object", "properties": {}}}}],
                f"--functions {functions}: tools {json.dumps(bodies[0].get('tools'))}")
        tools = [m for m in load(history) if m.get("role") == "tool"] if os.path.exists(history) else []
        check(len(tools) == 2 and json.loads(tools[0]["content"]) == {
            "order": "B-2", "state": "shipped", "function": "lookup_order", "directory": "cli_run"}
            and json.loads(tools[1]["content"]) == {"open": "09:00", "close": "18:00"},
            f"--functions {functions}: the commands' results {tools!r}")

    # a template set with --functions adds to the set's own definitions
    r = run(program, [templates, "--template", "orders", "--functions", os.path.join(here, "functions.yaml"),
                      "--provider", "echo", "Hello"], env)
    check(r.returncode == 1 and f"{os.path.join(here, 'functions.yaml')}:3:9: function 'lookup_order' is defined twice"
          in r.stderr, f"a function defined in the set and the file: {r.returncode} {r.stderr!r}")

    def failing(args, text, what, code=1):
        r = run(program, [*args, "Q"], env)
        check(r.returncode == code and text in r.stderr and r.stdout == "", f"{what}: {r.returncode} {r.stdout!r} {r.stderr!r}")

    bad = write_text(tmp, "bad-functions.yaml", "- name: lookup_order\n  description: x\n  parameter: {}\n")
    failing([lookup, "--functions", bad], f"error: {bad}:3:3: unknown key 'parameter' in a function definition (expected "
                                          "name, description, parameters, strict, command or timeout); did you mean 'parameters'?",
            "a bad definition")
    not_list = write_text(tmp, "map-functions.yaml", "functions:\n  - name: f\n")
    failing([lookup, "--functions", not_list], f"error: {not_list}:1:1: a functions file is a list of function "
                                               "definitions (each a map with 'name', 'description' and 'parameters'), "
                                               "found a map", "a functions file that is not a list")
    bad_json = write_text(tmp, "bad-functions.json", '[{"name": "lookup_order", "parameters": [1]}]')
    failing([lookup, "--functions", bad_json], f"error: {bad_json}:1:41: 'parameters' expects a JSON schema (a map, or "
                                               "a string of JSON text), found a list", "a bad JSON definition")
    failing([lookup, "--functions", os.path.join(tmp, "nope.yaml")], f"error: {os.path.join(tmp, 'nope.yaml')}: cannot "
                                                                     "open the file", "a missing functions file")
    failing([lookup], f"error: {lookup}:8:15: 'functions' names 'lookup_order', which the set does not define",
            "a single template naming functions nobody defines")
    failing([lookup, "--functions", os.path.join(here, "functions.yaml"), "--template", "other"],
            "error: no template named 'other' (the set has: lookup)", "--template on a single template")

    # a list of messages that breaks a rule of the chat model, at its line and column
    image_reply = write_text(tmp, "image-reply.yaml", "- role: user\n  content: hi\n- role: assistant\n  content:\n"
                                                      "    - type: image_url\n      image_url: {url: 'https://x/a.png'}\n")
    failing([image_reply, "--provider", "echo"], f"error: {image_reply}:5:7: image parts belong to user messages",
            "an image in an assistant message")
    lone_tool = write_text(tmp, "lone-tool.yaml", "- role: user\n  content: hi\n- role: tool\n  content: '42'\n")
    failing([lone_tool, "--provider", "echo"], f"error: {lone_tool}:3:3: a tool message needs a 'tool_call_id'",
            "a tool message without tool_call_id")
    two_docs = write_text(tmp, "two-docs.yaml", "- role: user\n  content: hi\n---\n- role: user\n")
    failing([two_docs, "--provider", "echo"], f"error: {two_docs}:4:1: a file holds one YAML document; this is a second one",
            "two documents")
    r = run(program, [image_reply], env, command="render")
    check(r.returncode == 1 and f"error: {image_reply}:5:7: image parts belong to user messages" in r.stderr,
          f"render of a rule-breaking file: {r.returncode} {r.stderr!r}")


def render_error_checks(program, templates, tmp):
    """Errors of rendering a text: the YAML file's line and column, the line and a caret."""
    env = clean_env()
    cases = [
        ("block.yaml", "- role: default-request\n  model: m\n- role: system\n  content: |\n    You help {{ user }}.\n"
                       "    Today is {{ 1 // 0 }}.\n- role: user\n  content: \"{{ input }}\"\n- role: request\n",
         6, 19, "    Today is {{ 1 // 0 }}."),
        ("plain.yaml", "- role: default-request\n  model: m\n- role: system\n  content: You help {{ nobody.name.first }}\n"
                       "- role: request\n", 4, 31, "  content: You help {{ nobody.name.first }}"),
        ("single.yaml", "- role: default-request\n  model: m\n- role: user\n  content: 'It''s {{ \"a\" + 1 }}'\n"
                        "- role: request\n", 4, 26, "  content: 'It''s {{ \"a\" + 1 }}'"),
        ("double.yaml", "- role: default-request\n  model: m\n- role: user\n  content: \"\\tTab {{ input\n"
                        "    | int + [] }}\"\n- role: request\n", 5, 11, "    | int + [] }}\""),
    ]
    messages = {"block.yaml": "integer division or modulo by zero", "plain.yaml": "'nobody' is undefined",
                "single.yaml": 'can only concatenate str (not "int") to str',
                "double.yaml": "unsupported operand type(s) for +: 'int' and 'list'"}
    for name, text, line, column, source in cases:
        path = write_text(tmp, name, text)
        expected = f"error: {path}:{line}:{column}: {messages[name]}\n  {source}\n  {' ' * (column - 1)}^\n"
        r = run(program, [path, "--provider", "echo", "--set", "user=Ada", "12"], env)
        check(r.returncode == 1 and r.stderr == expected and r.stdout == "",
              f"run {name}: {r.returncode} {r.stdout!r} {r.stderr!r}, expected {expected!r}")
        r = run(program, [path, "--set", "input=12", "--set", "user=Ada"], env, command="render")
        check(r.returncode == 1 and r.stderr == expected and r.stdout == "",
              f"render {name}: {r.returncode} {r.stdout!r} {r.stderr!r}, expected {expected!r}")
    # in a set too, in a template reached by botSwitchTemplate
    switch = write_text(tmp, "switch.yaml", "templates:\n  a:\n    - role: user\n      content: '{{ input }}'\n"
                                            "    - role: request\n      functions: [botSwitchTemplate]\n"
                                            "  b:\n    - role: system\n      content: >\n        Now\n"
                                            "        {{ missing.x }}\n    - role: request\n")
    script = scripted(tmp, "switch.json", [
        {"reply": {"tool_calls": [{"id": "s1", "name": "botSwitchTemplate", "arguments": "{\"name\": \"b\"}"}]}}])
    r = run(program, [switch, "--template", "a", "--provider", "scripted", "--script", script, "Go"], env)
    check(r.returncode == 1 and r.stderr == f"error: {switch}:11:20: 'missing' is undefined\n          {{{{ missing.x }}}}\n"
                                           f"  {' ' * 19}^\n" and r.stdout == "",
          f"a switched-to template: {r.returncode} {r.stdout!r} {r.stderr!r}")


def failed_run_checks(program, templates, tmp):
    """A failed run prints its error only; with --stream, the replies it printed and a note."""
    two = write_text(tmp, "two.yaml", "- role: user\n  content: '{{ input }}'\n- role: request\n"
                                      "- role: user\n  content: And the second?\n- role: request\n"
                                      "  functions: [calculator]\n")
    steps = [{"reply": {"text": "First answer."}},
             {"reply": {"tool_calls": [{"id": "k1", "name": "calculator", "arguments": "{\"expression\": \"6 * 7\"}"}]}}]
    history = os.path.join(tmp, "failed-history.json")
    with open(history, "w") as f:
        json.dump([{"role": "user", "content": "Before"}, {"role": "assistant", "content": "Earlier"}], f)
    before = read_bytes(history)
    env = clean_env()
    error = "error: invalid argument: the scripted model has no reply left (3 requests received)\n"
    r = run(program, [two, "--provider", "scripted", "--script", scripted(tmp, "fail.json", steps), "--history", history,
                      "First?"], env)
    check(r.returncode == 1 and r.stdout == "" and r.stderr == error,
          f"a failed run prints the error only: {r.returncode} {r.stdout!r} {r.stderr!r}")
    check(read_bytes(history) == before, "a failed run changed the history file")
    r = run(program, [two, "--provider", "scripted", "--script", scripted(tmp, "fail.json", steps), "--history", history,
                      "--stream", "First?"], env)
    check(r.returncode == 1 and r.stdout == "First answer.\n" and r.stderr ==
          "[tool call] calculator {\"expression\": \"6 * 7\"}\n" + error +
          "parley: the run failed, so the replies printed above are not part of the conversation (the history file is "
          "unchanged)\n", f"a failed streamed run: {r.returncode} {r.stdout!r} {r.stderr!r}")
    check(read_bytes(history) == before, "a failed streamed run changed the history file")
    # the same run succeeds with a last reply: everything is printed, in order
    r = run(program, [two, "--provider", "scripted", "--script",
                      scripted(tmp, "ok.json", steps + [{"reply": {"text": "42."}}]), "First?"], env)
    check(r.returncode == 0 and r.stdout == "First answer.\n42.\n" and r.stderr ==
          "[tool call] calculator {\"expression\": \"6 * 7\"}\n", f"the run that succeeds: {r.returncode} {r.stdout!r} "
                                                                  f"{r.stderr!r}")
    # a text reply that stops in the middle of a line, streamed, then a failure: the line is ended
    r = run(program, [two, "--provider", "scripted", "--script",
                      scripted(tmp, "part.json", [{"reply": {"text": "No line break"}}]), "--stream", "First?"], env)
    check(r.returncode == 1 and r.stdout == "No line break\n" and r.stderr == error.replace("3 requests", "2 requests") +
          "parley: the run failed, so the replies printed above are not part of the conversation\n",
          f"a streamed reply, then a failure: {r.returncode} {r.stdout!r} {r.stderr!r}")


def usage_checks(program, templates, tmp):
    """--usage: the whole run's tokens and cost per model, at the prices of a --models catalog,
    also when the run fails; --context-window: a run that cannot fit fails before its request."""
    two = write_text(tmp, "usage.yaml", "- role: default-request\n  model: priced-model\n"
                                        "- role: user\n  content: '{{ input }}'\n- role: request\n"
                                        "- role: user\n  content: And the second?\n")
    catalog = os.path.join(tmp, "models.json")
    write_json(catalog, {"read": "2026-01-02", "models": {
        "priced-model": {"context_window": 100000, "input": 2.0, "cached_input": 0.5, "output": 8.0}}})
    script_path = os.path.join(tmp, "usage-script.json")
    write_json(script_path, {"steps": [
        {"reply": {"text": "One.", "usage": {"prompt": 1200, "completion": 30, "cached": 1000}}},
        {"reply": {"text": "Two.", "usage": {"prompt": 1300, "completion": 70, "reasoning": 40}}},
        {"reply": {"text": "Other.", "usage": {"prompt": 10, "completion": 5}}},
        {"status": 400, "error": {"type": "invalid_request_error", "message": "no second answer"}},
    ]})
    server, base = start_fake_server(program, script_path, os.path.join(tmp, "usage-server.log"))
    env = clean_env(OPENAI_API_KEY="key-0123456789", OPENAI_BASE_URL=base + "/v1")
    try:
        r = run(program, [two, "--usage", "--models", catalog, "First?"], env)
        # 2,500 input tokens of which 1,000 cached, 100 output tokens:
        # (1500 * 2.0 + 1000 * 0.5 + 100 * 8.0) / 1e6 dollars, printed with six decimals below a cent
        cost = (1500 * 2.0 + 1000 * 0.5 + 100 * 8.0) / 1e6
        check(r.returncode == 0 and r.stdout == "One.\nTwo.\n", f"usage run: {r.returncode} {r.stdout!r} {r.stderr!r}")
        check(r.stderr == "usage: priced-model: 2 requests, 2,500 input tokens (1,000 cached), 100 output tokens "
                          f"(40 reasoning); ${cost:.6f}\nusage: prices as published on 2026-01-02\n",
              f"usage lines {r.stderr!r}")
        # a model the catalog has no price for, through --model; then a run that fails
        r = run(program, [two, "--usage", "--models", catalog, "--model", "unpriced-model", "First?"], env)
        check(r.returncode == 1 and r.stdout == "" and r.stderr.startswith(
            "usage: unpriced-model: 2 requests (1 failed), 10 input tokens, 5 output tokens; no price known\n"),
            f"usage of a failed run: {r.returncode} {r.stdout!r} {r.stderr!r}")
    finally:
        stop_fake_server(server)
    # a window too small for the current read: the run fails before any request, with the counts
    r = run(program, [two, "--context-window", "5", "--provider", "scripted", "--script",
                      scripted(tmp, "never.json", [{"reply": {"text": "never sent"}}]),
                      "A question that takes more than five tokens to ask"], clean_env())
    check(r.returncode == 1 and r.stdout == "" and
          "the request does not fit the context window of 'priced-model' (5 tokens)" in r.stderr,
          f"a run that cannot fit: {r.returncode} {r.stdout!r} {r.stderr!r}")
    for bad in ("0", "-3", "12k", ""):
        r = run(program, [two, "--context-window", bad, "x"], clean_env())
        check(r.returncode == 2 and f"--context-window takes a positive number of tokens, not '{bad}'" in r.stderr,
              f"--context-window {bad!r}: {r.returncode} {r.stderr!r}")
    r = run(program, [two, "--models", os.path.join(tmp, "missing-models.json"), "x"], clean_env())
    check(r.returncode == 1 and "missing-models.json" in r.stderr, f"a missing catalog: {r.returncode} {r.stderr!r}")


def templates_checks(program, templates, tmp):
    here = templates_dir(templates)
    ask = os.path.join(here, "ask.yaml")
    lookup = os.path.join(here, "lookup.yaml")
    env = clean_env()

    def tpl(*args):
        return run(program, list(args), env, command="templates")

    def table(rows):
        name_w = max(len(n) for n, f, d in rows)
        file_w = max(len(f) for n, f, d in rows)
        return "".join(f"{n.ljust(name_w)}  {f.ljust(file_w)}  {d}\n" if d else f"{n.ljust(name_w)}  {f}\n"
                       for n, f, d in rows)

    rows = [("chat", templates, "Answers the user."),
            ("orders", templates, "Looks orders up, and hands over to support."),
            ("support", templates, "Support requests."),
            ("ask", ask, "You answer briefly."),
            ("lookup", lookup, "You look orders up.")]
    r = tpl("list", templates, ask, lookup)
    check(r.returncode == 0 and r.stdout == table(rows) and r.stderr == "", f"list: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = tpl("search", "ORDER", templates, ask, lookup)
    check(r.returncode == 0 and r.stdout == table([rows[1], rows[4]]), f"search ORDER: {r.stdout!r} {r.stderr!r}")
    r = tpl("search", "support  Requests", templates, ask, lookup)
    check(r.returncode == 0 and r.stdout == table([rows[2]]), f"search of two words: {r.stdout!r} {r.stderr!r}")
    r = tpl("search", "helpful", templates, ask)  # in a text only
    check(r.returncode == 0 and r.stdout == table([rows[0]]), f"search in texts: {r.stdout!r} {r.stderr!r}")
    r = tpl("search", "zebra", templates, ask)
    check(r.returncode == 0 and r.stdout == "" and r.stderr == "parley: no template matches 'zebra'\n",
          f"search without a match: {r.returncode} {r.stdout!r} {r.stderr!r}")

    r = tpl("show", "orders", templates, ask)
    check(r.returncode == 0 and r.stdout.startswith(f"# orders from {templates}\n"), f"show: {r.returncode} {r.stdout[:80]!r}")
    if r.returncode == 0:
        with open(templates) as f:
            original = yaml.safe_load(f)["templates"]["orders"]
        check(yaml.safe_load(r.stdout) == original, f"show orders, read by PyYAML: {r.stdout!r}")
    r = tpl("show", "ask", templates, ask)
    if r.returncode == 0:
        with open(ask) as f:
            check(yaml.safe_load(r.stdout) == yaml.safe_load(f), f"show ask, read by PyYAML: {r.stdout!r}")
    else:
        failures.append(f"show ask: {r.returncode} {r.stderr!r}")

    twice = write_text(tmp, "chat.yaml", "templates:\n  chat: [{role: user, content: hi}]\n")
    r = tpl("show", "chat", templates, twice)
    check(r.returncode == 1 and r.stderr == f"error: template 'chat' is in several files ({templates}, {twice}): give only "
                                           "the file you mean\n", f"show of a name in two files: {r.returncode} {r.stderr!r}")
    r = tpl("show", "nope", ask, twice)
    check(r.returncode == 1 and r.stderr == "error: no template named 'nope' (the files have: ask, chat)\n",
          f"show of an unknown name: {r.returncode} {r.stderr!r}")
    functions = os.path.join(here, "functions.yaml")
    r = tpl("list", ask, functions)
    check(r.returncode == 1 and r.stderr.startswith(f"error: {functions}:3:3: a message needs a 'role' (") and
          "this looks like a function definition: a list of them is a functions file, not a template\n" in r.stderr,
          f"list of a functions file: {r.returncode} {r.stderr!r}")
    bad = write_text(tmp, "bad.yaml", "- role: user\n  contnet: hi\n")
    r = tpl("list", ask, bad)
    check(r.returncode == 1 and f"error: {bad}:2:3: unknown key 'contnet' in a user message" in r.stderr and r.stdout == "",
          f"list of a bad file: {r.returncode} {r.stdout!r} {r.stderr!r}")
    for args, text in ((["frob", ask], "unknown templates command 'frob' (expected list, search or show)"),
                       ([], "give list, search or show"), (["list"], "give the YAML files"),
                       (["search", "x"], "give WORDS and the YAML files"), (["show", "ask"], "give NAME and the YAML files"),
                       (["list", "--bogus", ask], "unknown option --bogus")):
        r = tpl(*args)
        check(r.returncode == 2 and r.stderr.startswith(f"error: {text}\nusage: parley templates"),
              f"templates {args}: {r.returncode} {r.stderr!r}")
    r = tpl("--help")
    check(r.returncode == 0 and r.stdout.startswith("usage: parley templates list FILE..."), f"templates --help: {r.stdout!r}")



def main():
    program, template_dir = sys.argv[1], sys.argv[2]
    templates = os.path.join(template_dir, "assistant.yaml")
    for checks in (echo_checks, server_checks, responses_checks, scripted_checks, kill_checks, bad_input_checks,
                   prompt_checks, data_checks, content_parts_checks, single_template_checks, render_error_checks,
                   failed_run_checks, usage_checks,
                   templates_checks):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                checks(program, templates, tmp)
            except Exception as error:  # a check that crashed is a failure, not a skipped check
                failures.append(f"{checks.__name__} raised {type(error).__name__}: {error}")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    sys.exit(report("cli_run_check", started))
