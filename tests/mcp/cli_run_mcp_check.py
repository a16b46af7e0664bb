#!/usr/bin/env python3
"""Checks `parley run` with a template set that declares MCP servers (`mcp_servers`).

    cli_run_mcp_check.py PARLEY_PROGRAM NODE_PEERS_DIR

The reference MCP server, @modelcontextprotocol/server-everything (installed under
NODE_PEERS_DIR/mcp by dev.sh), runs over stdio (started by parley from the set) and over
Streamable HTTP (started here); the model is `parley fake-server`, whose script calls the server's
tool `echo` under the server's prefix. Checked:
- the run completes: the tool's result is the tool message of the history, the request the model
  received carries the tool's definition (the server's inputSchema and description) under the
  prefix, and only the tools the set allows;
- the server's standard error reaches parley's, each line prefixed with the server's name;
- `${NAME}` in a header is the environment variable, and an unset one is an error;
- a server that cannot start, and a name under a server's prefix that is not one of its tools,
  fail the run with exit status 1, an error that names the server (and the place in the file,
  and the server's tools), and the history file byte-identical;
- no process is left behind: the stdio server's pid (written by the shell that execs it) is gone
  after every run, after a failed one, and after SIGINT in the middle of a tool call, which
  parley dies of; SIGTERM while a function's command runs kills the command at once.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from cli_check import TIMEOUT, check, clean_env, failures, report, start_fake_server, stop_fake_server  # noqa: E402


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def alive(pid):
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def gone_soon(pid, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recorded(path):
    """The bodies of the chat requests `parley fake-server --record` wrote, as JSON."""
    bodies = []
    with open(path) as f:
        for line in f:
            entry = json.loads(line)
            if entry["target"].endswith("/chat/completions"):
                bodies.append(json.loads(entry["body"]))
    return bodies


def stdio_server(server_js, pid_file):
    """The `command` of a stdio server whose pid lands in `pid_file` (the shell execs node)."""
    return json.dumps(["sh", "-c", f'echo $$ > "{pid_file}"; exec node "{server_js}" stdio'])


def set_text(servers, functions="[everything_echo]"):
    return ("mcp_servers:\n" + servers +
            "templates:\n"
            "  ask:\n"
            "    - role: system\n"
            "      content: Use the tools.\n"
            "    - role: user\n"
            "      content: '{{ input }}'\n"
            "    - role: request\n"
            f"      functions: {functions}\n")


def model_script(tmp, name, tool_call=("everything_echo", {"message": "hi from the model"})):
    path = os.path.join(tmp, name)
    write(path, json.dumps({"steps": [
        {"reply": {"tool_calls": [{"id": "call_1", "name": tool_call[0], "arguments": json.dumps(tool_call[1])}]}},
        {"reply": {"text": "The server said it."}},
    ]}))
    return path


def run(program, args, env, timeout=TIMEOUT):
    return subprocess.run([program, "run", *args], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def check_completed_run(label, program, tmp, set_path, env_extra, pid_file=None):
    """A run whose model calls everything_echo: the result in the history, the definition sent."""
    script = model_script(tmp, label + "-script.json")
    record = os.path.join(tmp, label + "-requests.jsonl")
    fake, base = start_fake_server(program, script, os.path.join(tmp, label + "-fake.log"), record)
    history = os.path.join(tmp, label + "-history.json")
    env = clean_env(OPENAI_API_KEY="key-0123456789", OPENAI_BASE_URL=base + "/v1", **env_extra)
    try:
        r = run(program, [set_path, "--history", history, "--model", "gpt-4o-mini", "Say hi"], env)
    finally:
        stop_fake_server(fake)
    check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}")
    check(r.stdout == "The server said it.\n", f"{label}: output {r.stdout!r}")
    check("[tool call] everything_echo " in r.stderr, f"{label}: the call on stderr: {r.stderr!r}")
    try:
        conversation = json.load(open(history))
        roles = [m.get("role") for m in conversation]
        check(roles == ["system", "user", "request", "assistant", "tool", "assistant"], f"{label}: roles {roles!r}")
        tool = [m for m in conversation if m.get("role") == "tool"]
        check(tool == [{"role": "tool", "content": "Echo: hi from the model", "tool_call_id": "call_1"}],
              f"{label}: the tool message {tool!r}")
    except (OSError, ValueError) as e:
        failures.append(f"{label}: no history: {e}")
    try:
        bodies = recorded(record)
        check(len(bodies) == 2, f"{label}: {len(bodies)} requests")
        tools = bodies[0].get("tools", [])
        names = [t["function"]["name"] for t in tools]
        check(names == ["everything_echo"], f"{label}: the tools sent {names!r}")
        if tools:
            f = tools[0]["function"]
            check(f["description"] == "Echoes back the input string", f"{label}: the description sent {f!r}")
            check(f["parameters"].get("type") == "object" and "message" in f["parameters"].get("properties", {})
                  and f["parameters"].get("required") == ["message"], f"{label}: the parameters sent {f!r}")
        check(bodies[1]["messages"][-1] == {"role": "tool", "content": "Echo: hi from the model", "tool_call_id": "call_1"},
              f"{label}: the second request's last message {bodies[1]['messages'][-1]!r}")
    except (OSError, ValueError, KeyError, IndexError) as e:
        failures.append(f"{label}: the recorded requests: {e}")
    if pid_file:
        try:
            pid = int(open(pid_file).read())
            check(gone_soon(pid), f"{label}: the server (pid {pid}) is still running after the run")
        except (OSError, ValueError) as e:
            failures.append(f"{label}: no pid file: {e}")
    return r


def main():
    program, peers = sys.argv[1], sys.argv[2]
    server_js = os.path.join(peers, "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
    if not os.path.exists(server_js):
        print("FAIL: the reference MCP server is not installed at " + server_js + " (./dev.sh test installs it)")
        sys.exit(1)
    tmp = tempfile.mkdtemp(prefix="parley-run-mcp-")

    # over stdio: the set starts the server; `tools` allows echo and get-sum, the request names echo
    pid_file = os.path.join(tmp, "everything.pid")
    stdio_set = os.path.join(tmp, "stdio.yaml")
    write(stdio_set, set_text("  everything:\n"
                              f"    command: {stdio_server(server_js, pid_file)}\n"
                              "    tools: [echo, get-sum]\n"
                              "    env: {GREETING: hello}\n"))
    r = check_completed_run("stdio", program, tmp, stdio_set, {}, pid_file)
    check("[everything] Starting default (STDIO) server..." in r.stderr.splitlines(),
          f"stdio: the server's stderr is not forwarded with its name: {r.stderr!r}")

    # a tool the set does not allow is no function of the run: the model is told so
    script = model_script(tmp, "not-allowed.json", ("everything_get-tiny-image", {}))
    history = os.path.join(tmp, "not-allowed-history.json")
    r = run(program, [stdio_set, "--history", history, "--provider", "scripted", "--script", script, "x"], clean_env())
    check(r.returncode == 0, f"not allowed: exit {r.returncode} {r.stderr!r}")
    try:
        tool = [m for m in json.load(open(history)) if m.get("role") == "tool"]
        check(len(tool) == 1 and tool[0]["content"].startswith("Error: there is no function named "
                                                               "'everything_get-tiny-image'"), f"not allowed: {tool!r}")
    except (OSError, ValueError) as e:
        failures.append(f"not allowed: no history: {e}")

    # any tool under the prefix when `tools` is not given
    open_set = os.path.join(tmp, "open.yaml")
    write(open_set, set_text("  everything:\n"
                             f"    command: {stdio_server(server_js, pid_file)}\n", "[everything_echo]"))
    check_completed_run("stdio-all-tools", program, tmp, open_set, {}, pid_file)

    # over Streamable HTTP, with a header taken from the environment
    port = free_port()
    server = subprocess.Popen(["node", server_js, "streamableHttp"], env=dict(os.environ, PORT=str(port)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 30
        started = False
        while time.time() < deadline:
            line = server.stderr.readline()
            if not line:
                break
            if "listening on port" in line:
                started = True
                break
        check(started, "the reference server did not start over HTTP")
        http_set = os.path.join(tmp, "http.yaml")
        write(http_set, set_text("  everything:\n"
                                 f"    url: http://127.0.0.1:{port}/mcp\n"
                                 "    headers: {X-Parley-Test: 'token ${PARLEY_TEST_TOKEN}'}\n"
                                 "    timeout: 20\n"))
        check_completed_run("http", program, tmp, http_set, {"PARLEY_TEST_TOKEN": "t0k3n"})
        # an unset variable in a header: the run fails before it starts
        history = os.path.join(tmp, "unset-history.json")
        write(history, "[]\n")
        r = run(program, [http_set, "--history", history, "--provider", "echo", "x"], clean_env())
        check(r.returncode == 1 and r.stderr == f"error: {http_set}: MCP server 'everything', header 'X-Parley-Test' names "
                                                "the environment variable 'PARLEY_TEST_TOKEN', which is not set\n",
              f"unset variable: {r.returncode} {r.stderr!r}")
        check(read_bytes(history) == b"[]\n", "unset variable: the history file changed")
    finally:
        server.terminate()
        server.wait(timeout=10)

    # a server that cannot start: exit 1, its name, the history file untouched, the other server stopped
    history = os.path.join(tmp, "kept-history.json")
    before = b'[{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "yes"}]\n'
    with open(history, "wb") as f:
        f.write(before)
    os.remove(pid_file)
    broken_set = os.path.join(tmp, "broken.yaml")
    write(broken_set, set_text("  everything:\n"
                               f"    command: {stdio_server(server_js, pid_file)}\n"
                               "  broken:\n"
                               "    command: /nonexistent/mcp-server\n"
                               "    args: [--stdio]\n"))
    r = run(program, [broken_set, "--history", history, "--provider", "echo", "x"], clean_env())
    check(r.returncode == 1, f"broken server: exit {r.returncode}")
    check(r.stderr.endswith(f"error: {broken_set}: cannot start the server 'broken' (/nonexistent/mcp-server in {tmp}): "
                            "No such file or directory\n"),
          f"broken server: {r.stderr!r}")
    check(read_bytes(history) == before, "broken server: the history file changed")
    try:
        pid = int(open(pid_file).read())
        check(gone_soon(pid), f"broken server: the other server (pid {pid}) is still running")
    except (OSError, ValueError) as e:
        failures.append(f"broken server: the other server did not start: {e}")

    # a command written as a shell command line gets a hint
    shell_set = os.path.join(tmp, "shell.yaml")
    write(shell_set, set_text("  everything:\n    command: node server.js stdio\n"))
    r = run(program, [shell_set, "--provider", "echo", "x"], clean_env())
    check(r.returncode == 1 and "('command' is the program, not a shell command: write the program and its arguments "
                                "as a list, as in [npx, -y, server])" in r.stderr, f"shell command: {r.returncode} {r.stderr!r}")

    # a name under the prefix that the server does not offer: the place in the file, the tools there are
    typo_set = os.path.join(tmp, "typo.yaml")
    write(typo_set, set_text("  everything:\n"
                             f"    command: {stdio_server(server_js, pid_file)}\n", "[everything_echo, everything_ecco]"))
    r = run(program, [typo_set, "--history", history, "--provider", "echo", "x"], clean_env())
    first = ([line for line in r.stderr.splitlines() if line.startswith("error: ")] or [""])[0]
    check(r.returncode == 1 and first.startswith(f"error: {typo_set}:11:36: 'functions' names 'everything_ecco', which MCP "
                                                 "server 'everything' does not offer (its tools, under the prefix "
                                                 "'everything_': echo, ") and "get-sum" in first,
          f"unknown tool: {r.returncode} {r.stderr!r}")
    check("      functions: [everything_echo, everything_ecco]\n" in r.stderr, f"unknown tool: no excerpt {r.stderr!r}")
    check(read_bytes(history) == before, "unknown tool: the history file changed")
    try:
        pid = int(open(pid_file).read())
        check(gone_soon(pid), f"unknown tool: the server (pid {pid}) is still running")
    except (OSError, ValueError) as e:
        failures.append(f"unknown tool: no pid file: {e}")

    # SIGINT during a long tool call: parley stops the server and dies of SIGINT, history untouched
    os.remove(pid_file)
    long_set = os.path.join(tmp, "long.yaml")
    write(long_set, set_text("  everything:\n"
                             f"    command: {stdio_server(server_js, pid_file)}\n",
                             "[everything_trigger-long-running-operation]"))
    script = model_script(tmp, "long-script.json",
                          ("everything_trigger-long-running-operation", {"duration": 60, "steps": 60}))
    process = subprocess.Popen([program, "run", long_set, "--history", history, "--stream", "--provider", "scripted",
                                "--script", script, "x"], env=clean_env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = ""
    deadline = time.time() + TIMEOUT
    while time.time() < deadline and "[tool call]" not in err:
        line = process.stderr.readline()
        if not line:
            break
        err += line
    check("[tool call] everything_trigger-long-running-operation" in err, f"SIGINT: the call did not start: {err!r}")
    time.sleep(0.5)
    started = time.time()
    process.send_signal(signal.SIGINT)
    try:
        _, rest = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        _, rest = process.communicate()
        failures.append("SIGINT: parley did not stop")
    err += rest
    check(process.returncode == -signal.SIGINT, f"SIGINT: exit {process.returncode} {err!r}")
    check(time.time() - started < 15, f"SIGINT: parley took {time.time() - started:.1f} s to stop")
    check("parley: interrupted (SIGINT); the history file is unchanged\n" in err, f"SIGINT: message {err!r}")
    check(read_bytes(history) == before, "SIGINT: the history file changed")
    try:
        pid = int(open(pid_file).read())
        check(gone_soon(pid), f"SIGINT: the server (pid {pid}) is still running")
    except (OSError, ValueError) as e:
        failures.append(f"SIGINT: no pid file: {e}")

    # SIGTERM while a function's command runs (no MCP server): the command is killed at once
    command_set = os.path.join(tmp, "command.yaml")
    write(command_set, "templates:\n"
                       "  ask:\n"
                       "    - role: user\n"
                       "      content: '{{ input }}'\n"
                       "    - role: request\n"
                       "      functions: [wait]\n"
                       "functions:\n"
                       "  - name: wait\n"
                       "    command: echo $$ > command.pid; exec sleep 60\n"
                       "    timeout: 100\n")
    script = model_script(tmp, "wait-script.json", ("wait", {}))
    command_pid = os.path.join(tmp, "command.pid")
    process = subprocess.Popen([program, "run", command_set, "--history", history, "--stream", "--provider", "scripted",
                                "--script", script, "x"], env=clean_env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline and not os.path.exists(command_pid):
        time.sleep(0.05)
    time.sleep(0.2)
    started = time.time()
    process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        failures.append("SIGTERM: parley did not stop")
    check(process.returncode == -signal.SIGTERM, f"SIGTERM: exit {process.returncode} {err!r}")
    check(time.time() - started < 5, f"SIGTERM: parley took {time.time() - started:.1f} s to stop")
    check(err.endswith("parley: interrupted (SIGTERM); the history file is unchanged\n"), f"SIGTERM: message {err!r}")
    check(read_bytes(history) == before, "SIGTERM: the history file changed")
    try:
        pid = int(open(command_pid).read())
        check(gone_soon(pid, 2), f"SIGTERM: the command (pid {pid}) is still running")
    except (OSError, ValueError) as e:
        failures.append(f"SIGTERM: no pid file: {e}")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    sys.exit(report("cli_run_mcp_check", started))
