#!/usr/bin/env python3
"""Checks `parley mcp` from the command line against the reference MCP server.

    cli_mcp_check.py PARLEY_PROGRAM NODE_PEERS_DIR

Runs `parley mcp tools`, `call` and `prompts` against @modelcontextprotocol/server-everything
(installed under NODE_PEERS_DIR/mcp by dev.sh) over stdio (`-- node .../index.js stdio`) and over
Streamable HTTP (the server started on a free port), as a user does, and checks the output, the
--json forms, the exit status of a tool that reports an error, and the usage errors.
"""
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from cli_check import TIMEOUT, check, failures, report  # noqa: E402


def run(program, args):
    return subprocess.run([program, "mcp", *args], capture_output=True, text=True, timeout=TIMEOUT)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    program, peers = sys.argv[1], sys.argv[2]
    server_js = os.path.join(peers, "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
    if not os.path.exists(server_js):
        print("FAIL: the reference MCP server is not installed at " + server_js + " (./dev.sh test installs it)")
        sys.exit(1)
    stdio = ["--", "node", server_js, "stdio"]

    r = run(program, ["tools", *stdio])
    check(r.returncode == 0, f"tools exit {r.returncode}: {r.stderr}")
    lines = r.stdout.splitlines()
    check(any(l.startswith("echo: ") for l in lines), f"tools lists echo: {r.stdout!r}")
    check(any(l.startswith("get-sum: ") for l in lines), f"tools lists get-sum: {r.stdout!r}")

    r = run(program, ["tools", "--json", *stdio])
    check(r.returncode == 0, f"tools --json exit {r.returncode}")
    try:
        tools = json.loads(r.stdout)
        echo = [t for t in tools if t["name"] == "echo"]
        check(len(echo) == 1 and "message" in echo[0]["inputSchema"]["properties"], f"tools --json echo: {echo!r}")
    except (ValueError, KeyError, TypeError) as e:
        failures.append(f"tools --json is not a list of tools: {r.stdout[:200]!r} ({e})")

    r = run(program, ["call", "echo", '{"message": "hello"}', *stdio])
    check(r.returncode == 0 and r.stdout == "Echo: hello\n", f"call echo: {r.returncode} {r.stdout!r} {r.stderr!r}")

    r = run(program, ["call", "get-sum", '{"a": 19, "b": 23}', "--json", *stdio])
    check(r.returncode == 0, f"call --json exit {r.returncode}")
    try:
        result = json.loads(r.stdout)
        check(result["content"][0]["text"] == "The sum of 19 and 23 is 42.", f"call --json content: {result!r}")
    except (ValueError, KeyError, TypeError, IndexError) as e:
        failures.append(f"call --json is not the result: {r.stdout[:200]!r} ({e})")

    # a tool that reports an error: its content on stdout, exit status 1
    r = run(program, ["call", "get-sum", '{"a": "x"}', *stdio])
    check(r.returncode == 1 and r.stdout.strip() != "" and "reported an error" in r.stderr,
          f"isError call: {r.returncode} {r.stdout!r} {r.stderr!r}")

    r = run(program, ["prompts", *stdio])
    check(r.returncode == 0 and any(l.startswith("args-prompt(city, state?)") for l in r.stdout.splitlines()),
          f"prompts: {r.returncode} {r.stdout!r}")

    # over Streamable HTTP
    port = free_port()
    env = dict(os.environ, PORT=str(port))
    server = subprocess.Popen(["node", server_js, "streamableHttp"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
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
        url = f"http://127.0.0.1:{port}/mcp"
        r = run(program, ["call", "echo", '{"message": "over http"}', url])
        check(r.returncode == 0 and r.stdout == "Echo: over http\n", f"call over http: {r.returncode} {r.stdout!r} {r.stderr!r}")
        r = run(program, ["tools", url])
        check(r.returncode == 0 and "echo: " in r.stdout, f"tools over http: {r.returncode} {r.stderr!r}")
    finally:
        server.terminate()
        server.wait(timeout=10)

    # bad command lines: exit 2 with the usage; a server that cannot be reached: exit 1
    for args, expected in ((["tools"], "give the server"), (["call", *stdio], "give the tool to call"),
                           (["call", "echo", "[1]", *stdio], "the arguments must be a JSON object"),
                           (["list", *stdio], "unknown mcp command 'list'"),
                           (["tools", "not-a-url"], "is not a URL"),
                           (["tools", "--env", "X=1", "http://127.0.0.1:9/mcp"], "--env is for a server run as a command"),
                           (["tools", "--timeout", "soon", *stdio], "--timeout takes seconds")):
        r = run(program, args)
        check(r.returncode == 2 and expected in r.stderr and "usage: parley mcp" in r.stderr,
              f"usage error {args}: {r.returncode} {r.stderr!r}")
    r = run(program, ["tools", "--", "/nonexistent/server"])
    check(r.returncode == 1 and "cannot start the server" in r.stderr, f"missing command: {r.returncode} {r.stderr!r}")
    r = run(program, ["tools", f"http://127.0.0.1:{free_port()}/mcp"])
    check(r.returncode == 1 and r.stderr.startswith("error: "), f"nobody listening: {r.returncode} {r.stderr!r}")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    sys.exit(report("cli_mcp_check", started))
