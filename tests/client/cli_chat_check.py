#!/usr/bin/env python3
"""Checks `parley chat` from the command line.

    cli_chat_check.py PARLEY_PROGRAM

Starts `parley fake-server` with a script, runs `parley chat` against it as a user does
(OpenAI and Anthropic wire formats, plain, --stream and --json, a system message, a tool call),
and checks what it prints and the request the server saw. Also checks that with nothing
configured the echo model answers and stderr says so, that a failed call exits 1 with the
API's message on stderr and without the API key, and that usage errors exit 2.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_check import TIMEOUT, check, clean_env, failures, start_fake_server, stop_fake_server  # noqa: E402


def run(program, args, env):
    return subprocess.run([program, "chat", *args], env=env, capture_output=True, text=True, timeout=TIMEOUT)


def main():
    program = sys.argv[1]
    script = {"steps": [
        {"reply": {"text": "Hello from OpenAI"}},
        {"reply": {"text": "Streamed words arrive in pieces", "delta_size": 3}, "chunk_size": 5},
        {"reply": {"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}]}},
        {"reply": {"text": "Bonjour d'Anthropic"}},
        {"status": 401, "body": "{\"error\": {\"type\": \"invalid_request_error\", \"message\": \"Incorrect API key provided: key-1234567890abcdef\", \"param\": null, \"code\": \"invalid_api_key\"}}"},
    ]}
    with tempfile.TemporaryDirectory() as tmp:
        script_path = os.path.join(tmp, "script.json")
        with open(script_path, "w") as f:
            json.dump(script, f)
        log_path = os.path.join(tmp, "requests.log")
        server, base = start_fake_server(program, script_path, log_path)
        try:
            env = clean_env(OPENAI_API_KEY="key-1234567890abcdef")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "--system", "Be brief.", "Hi"], env)
            check(r.returncode == 0, f"plain chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Hello from OpenAI\n", f"plain chat output {r.stdout!r}")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "--stream", "Go"], env)
            check(r.returncode == 0, f"streamed chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Streamed words arrive in pieces\n", f"streamed chat output {r.stdout!r}")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "--json", "Weather?"], env)
            check(r.returncode == 0, f"json chat exit {r.returncode}: {r.stderr}")
            try:
                message = json.loads(r.stdout)
                check(message.get("role") == "assistant", f"json role {message!r}")
                calls = message.get("tool_calls") or []
                check(len(calls) == 1 and calls[0]["function"]["name"] == "get_weather"
                      and json.loads(calls[0]["function"]["arguments"]) == {"city": "Oslo"},
                      f"json tool calls {calls!r}")
            except (ValueError, KeyError, TypeError) as error:
                failures.append(f"--json output is not the expected message: {r.stdout!r} ({error})")

            r = run(program, ["--provider", "anthropic", "--base-url", base, "--model", "claude-x", "Salut"],
                    clean_env(ANTHROPIC_API_KEY="ant-key-0123456789"))
            check(r.returncode == 0, f"anthropic chat exit {r.returncode}: {r.stderr}")
            check(r.stdout == "Bonjour d'Anthropic\n", f"anthropic chat output {r.stdout!r}")

            r = run(program, ["--base-url", base + "/v1", "--model", "m1", "Hi"], env)
            check(r.returncode == 1, f"failed call exit {r.returncode}")
            check("HTTP 401" in r.stderr and "invalid_api_key" in r.stderr, f"failed call stderr {r.stderr!r}")
            check("key-1234567890abcdef" not in r.stderr + r.stdout, "the API key appears in the output")
        finally:
            stop_fake_server(server)
        with open(log_path) as f:
            log = f.read()
        check("m1" in log or "/v1/chat/completions" in log, "the server's log shows no chat request")

    r = run(program, ["Echo me"], clean_env())
    check(r.returncode == 0 and r.stdout == "Echo me\n", f"echo fallback: {r.returncode} {r.stdout!r}")
    check("echo" in r.stderr, f"echo fallback says nothing on stderr: {r.stderr!r}")

    r = run(program, ["--provider", "nonsense", "x"], clean_env())
    check(r.returncode == 2, f"bad provider exit {r.returncode}")
    r = run(program, ["--bogus", "x"], clean_env())
    check(r.returncode == 2 and "unknown option --bogus" in r.stderr, f"bad option: {r.returncode} {r.stderr!r}")
    r = run(program, [], clean_env())
    check(r.returncode == 2, f"no prompt exit {r.returncode}")
    r = run(program, ["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "x"], clean_env())
    check(r.returncode == 2 and "no model" in r.stderr, f"no model: {r.returncode} {r.stderr!r}")


if __name__ == "__main__":
    main()
    for failure in failures:
        print("FAIL:", failure)
    print("cli_chat_check:", "FAILED" if failures else "passed")
    sys.exit(1 if failures else 0)
