#!/usr/bin/env python3
"""Checks `parley run` from the command line.

    cli_run_check.py PARLEY_PROGRAM TEMPLATE_DIR

Runs the template set TEMPLATE_DIR/assistant.yaml (tests/bot/cli_run/) as a user does:
- with nothing configured: the echo model answers, stderr says so, the data reach the texts;
- against `parley fake-server`: a function that runs its command (a Python script, in the
  template file's directory, arguments on standard input), the built-in calculator, a template
  switch after which the rest of the switching template is read, --history written and read back
  by a second run, --stream;
- with the scripted model (--provider scripted --script): a command that times out and one that
  fails, both told to the model as the function's result; a run that fails leaves the history
  file byte-identical and exits 1;
- parley killed with SIGKILL while a function's command runs: the history file is
  byte-identical to before, the directory holds the same files as before (no temporary file was
  made: the history is written only after the run, into a temporary file renamed over it), and
  the command was killed with parley (Linux: PR_SET_PDEATHSIG);
- bad input: unknown template, missing files, bad JSON, bad YAML, usage errors (exit 2).
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_check import TIMEOUT, check, clean_env, failures, start_fake_server, stop_fake_server  # noqa: E402


def run(program, args, env, timeout=TIMEOUT):
    return subprocess.run([program, "run", *args], env=env, capture_output=True, text=True, timeout=timeout)


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
        check(r.stdout == "Support here. Your order has shipped.\n", f"orders: output {r.stdout!r}")
        check("no API configured" not in r.stderr, f"orders: echo notice with a server: {r.stderr!r}")
        check("[tool call] lookup_order" in r.stderr, f"orders: calls not shown on stderr: {r.stderr!r}")
        conversation = load(history) if os.path.exists(history) else []
        roles = [m.get("role") for m in conversation]
        check(roles == ["default-request", "system", "user", "request", "assistant", "tool", "tool", "assistant", "tool",
                        "system", "request", "assistant", "assistant"], f"orders: roles {roles!r}")
        if len(conversation) == 13:
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
            # the rest of the template that switched, read once the template switched to ended
            check(conversation[12] == {"role": "assistant", "content": "Anything else about your order?"},
                  f"the rest of orders {conversation[12]!r}")
        before = read_bytes(history) if os.path.exists(history) else b""

        # the history read back: a second run goes on from it (--stream, model from PARLEY_MODEL)
        r = run(program, [templates, "--template", "chat", "--history", history, "--stream", "Thanks"],
                dict(env, PARLEY_MODEL="streaming-model"))
        check(r.returncode == 0, f"second run: exit {r.returncode}: {r.stderr}")
        check(r.stdout == "Streamed words arrive in pieces\n", f"streamed output {r.stdout!r}")
        after = load(history)
        check(len(after) == 17 and after[:13] == json.loads(before),
              f"the second run does not extend the history read back: {after!r}")
        check(after[13:] == [{"role": "system", "content": "You are a helpful assistant."},
                             {"role": "user", "content": "Thanks"}, {"role": "request"},
                             {"role": "assistant", "content": "Streamed words arrive in pieces"}],
              f"second run's messages {after[13:]!r}")
        check(sorted(os.listdir(tmp)) == ["history.json", "script.json", "server.log"], f"files left {os.listdir(tmp)!r}")

        # the script is used up: the server echoes; --model replaces the template's model
        r = run(program, [templates, "--template", "orders", "--model", "other-model", "Echo this"], env)
        check(r.returncode == 0 and r.stdout == "Echo this\n", f"echo by the server: {r.returncode} {r.stdout!r} {r.stderr!r}")
    finally:
        stop_fake_server(server)
    with open(log_path) as f:
        log = f.read()
    check(log.count("/v1/chat/completions") == 5, f"the server's log: {log!r}")


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
    ])
    history = os.path.join(tmp, "scripted-history.json")
    started = time.monotonic()
    r = run(program, [templates, "--template", "orders", "--provider", "scripted", "--script", script,
                      "--history", history, "Where is my order?"], clean_env())
    elapsed = time.monotonic() - started
    check(r.returncode == 0, f"timeout run: exit {r.returncode}: {r.stderr}")
    check(r.stdout == "The lookups failed.\n", f"timeout run: output {r.stdout!r}")
    check(elapsed < 8, f"the 1 s timeout took {elapsed:.1f} s (the command sleeps 10 s)")
    check("the order database is down" in r.stderr, f"the failing command's stderr is not shown: {r.stderr!r}")
    conversation = load(history) if os.path.exists(history) else []
    tools = [m for m in conversation if m.get("role") == "tool"]
    check(tools == [
        {"role": "tool", "content": "Error: the command of slow_lookup did not finish within 1 s and was stopped",
         "tool_call_id": "t1"},
        {"role": "tool", "content": "Error: the command of broken_lookup failed with exit status 3: "
                                    "the order database is down", "tool_call_id": "t2"}],
        f"timeout and failure results {tools!r}")

    # a run that fails (the script has no reply after the call) leaves the history as it was
    before = read_bytes(history) if os.path.exists(history) else b"missing"
    script = scripted(tmp, "short.json", [
        {"reply": {"tool_calls": [{"id": "c1", "name": "calculator", "arguments": "{\"expression\": \"1 / 0\"}"}]}},
    ])
    r = run(program, [templates, "--template", "orders", "--provider", "scripted", "--script", script,
                      "--history", history, "Divide"], clean_env())
    check(r.returncode == 1 and "the scripted model has no reply left" in r.stderr,
          f"failed run: {r.returncode} {r.stderr!r}")
    check(r.stderr.count("\n") == 2 and r.stderr.startswith("[tool call] calculator"),
          f"failed run: stderr is the call and one error line: {r.stderr!r}")
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
           f"{bad_json}: not valid JSON: expected valid JSON, found \"Oslo}}\" at line 2", "bad history JSON")
    not_object = os.path.join(tmp, "list.json")
    write_json(not_object, [1, 2])
    expect([templates, "--template", "chat", "--data", not_object, "x"], 1, "the data must be a JSON object",
           "data not an object")
    with_input = os.path.join(tmp, "input.json")
    write_json(with_input, {"input": "from the file"})
    expect([templates, "--template", "chat", "--data", with_input, "x"], 2, "has a key 'input', which PROMPT gives",
           "data with an input")
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
    expect([templates, "--template", "chat"], 2, usage, "no PROMPT")
    expect([templates, "--template", "chat", "a", "b"], 2, "exactly one PROMPT", "two PROMPTs")
    expect([templates, "--bogus", "x"], 2, "unknown option --bogus", "unknown option")
    expect([templates, "--template"], 2, "--template needs a value", "option without a value")
    expect([templates, "--provider", "nonsense", "x"], 2,
           "--provider must be openai, anthropic, echo or scripted, not 'nonsense'", "bad provider")
    expect([templates, "--provider", "scripted", "x"], 2, "--provider scripted needs --script FILE.json",
           "scripted without a script")
    r = run(program, ["--help"], env)
    check(r.returncode == 0 and r.stdout.startswith(usage), f"--help: {r.returncode} {r.stdout[:80]!r}")

    # the built-in get_time, through the scripted model
    script = scripted(tmp, "time.json", [
        {"reply": {"tool_calls": [{"id": "g1", "name": "get_time", "arguments": "{}"}]}},
        {"reply": {"text": "It is late."}},
    ])
    history = os.path.join(tmp, "time-history.json")
    r = run(program, [templates, "--template", "orders", "--provider", "scripted", "--script", script,
                      "--history", history, "Time?"], env)
    check(r.returncode == 0 and r.stdout == "It is late.\n", f"get_time run: {r.returncode} {r.stdout!r} {r.stderr!r}")
    tools = [m for m in load(history) if m.get("role") == "tool"] if os.path.exists(history) else []
    now = json.loads(tools[0]["content"]) if len(tools) == 1 else {}
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", str(now.get("utc"))) is not None
          and abs(now.get("unix", 0) - time.time()) < 120, f"get_time's result {tools!r}")


def main():
    program, template_dir = sys.argv[1], sys.argv[2]
    templates = os.path.join(template_dir, "assistant.yaml")
    for checks in (echo_checks, server_checks, scripted_checks, kill_checks, bad_input_checks):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                checks(program, templates, tmp)
            except Exception as error:  # a check that crashed is a failure, not a skipped check
                failures.append(f"{checks.__name__} raised {type(error).__name__}: {error}")


if __name__ == "__main__":
    main()
    for failure in failures:
        print("FAIL:", failure)
    print("cli_run_check:", "FAILED" if failures else "passed")
    sys.exit(1 if failures else 0)
