#!/usr/bin/env python3
"""Checks `parley fake-server` from the command line.

    cli_check.py PARLEY_PROGRAM SCRIPT_JSON

Starts the program the way a user does with the script (tests/testing/cli-script.json),
reads the port from its first line, sends requests with urllib (a client that is not parley's)
and checks the replies the script asks for, then stops it with SIGTERM and checks that it exits
with status 0. Also checks the exit status and message of a wrong option and of a missing script.
"""
import json
import os
import selectors
import signal
import subprocess
import sys
import urllib.error
import urllib.request

failures = []
TIMEOUT = 20  # seconds, for every wait on the program or the server


def check(condition, what):
    if not condition:
        failures.append(what)


def read_first_line(process):
    """The first line of the program's standard output, or None if none comes in time."""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    if not selector.select(timeout=TIMEOUT):
        return None
    return process.stdout.readline()


def post(url, body, headers=None):
    """(status, header fields, body text) of a POST; HTTP errors are replies too."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
            return reply.status, reply.headers, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def sse_data(text):
    """The data of each event of a server-sent events body."""
    events = []
    for block in text.split("\n\n"):
        data = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        if data:
            events.append("\n".join(data))
    return events


def check_server(base):
    chat = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}

    status, _, text = post(base + "/v1/chat/completions", chat)
    check(status == 200, f"first reply: status {status}")
    reply = json.loads(text) if status == 200 else {}
    check(reply.get("object") == "chat.completion", f"first reply: {text!r}")
    if reply.get("choices"):
        check(reply["choices"][0]["message"]["content"] == "Hello from the script file.", f"first reply: {text!r}")
        check(reply["usage"] == {"prompt_tokens": 9, "completion_tokens": 6, "total_tokens": 15,
                                 "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                                 "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                                               "accepted_prediction_tokens": 0,
                                                               "rejected_prediction_tokens": 0}},
              f"usage: {text!r}")

    status, headers, text = post(base + "/v1/chat/completions", chat)
    check(status == 429, f"second reply: status {status}")
    check(headers.get("retry-after") == "0", f"second reply: retry-after {headers.get('retry-after')!r}")
    check("slow down" in text, f"second reply: body {text!r}")

    status, headers, text = post(base + "/v1/chat/completions", {**chat, "stream": True})
    check(status == 200, f"stream: status {status}")
    check(headers.get("content-type", "").startswith("text/event-stream"), f"stream: {headers.get('content-type')!r}")
    events = sse_data(text)
    check(events and events[-1] == "[DONE]", f"stream: the last event is [DONE]: {events[-1:]!r}")
    arguments, names = "", []
    for data in events[:-1]:
        chunk = json.loads(data)
        for choice in chunk["choices"]:
            for call in choice["delta"].get("tool_calls", []):
                if "name" in call["function"]:
                    names.append(call["function"]["name"])
                arguments += call["function"].get("arguments", "")
    check(names == ["get_weather"], f"stream: tool names {names!r}")
    check(json.loads(arguments or "null") == {"city": "Oslo"}, f"stream: arguments {arguments!r}")

    anthropic_headers = {"anthropic-version": "2023-06-01", "x-api-key": "test"}
    message = {"model": "claude-3-5-sonnet-latest", "max_tokens": 50, "messages": [{"role": "user", "content": "Salut"}]}
    status, _, text = post(base + "/v1/messages", message, anthropic_headers)
    check(status == 200 and json.loads(text)["content"][0]["text"] == "Bonjour.", f"anthropic: {status} {text!r}")

    # the script is used up: replies echo the last user message
    status, _, text = post(base + "/v1/messages", message, anthropic_headers)
    check(status == 200 and json.loads(text)["content"][0]["text"] == "Salut", f"echo: {status} {text!r}")


def main():
    program, script = sys.argv[1], sys.argv[2]

    process = subprocess.Popen([program, "fake-server", "--script", script, "--threads", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = read_first_line(process)
        check(line is not None and line.startswith("listening on http://127.0.0.1:"), f"first line {line!r}")
        if line and line.startswith("listening on "):
            check_server(line[len("listening on "):].strip())
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=TIMEOUT)
            check(code == 0, f"exit status after SIGTERM: {code}, stderr {process.stderr.read()!r}")
        except subprocess.TimeoutExpired:
            check(False, "the program did not stop after SIGTERM")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()

    # mistakes: 2 for usage, 1 for a file that cannot be read
    p = subprocess.run([program, "fake-server", "--bogus"], capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 2 and "unknown option --bogus" in p.stderr and "usage: parley fake-server" in p.stderr,
          f"bad option: {p.returncode} {p.stderr!r}")
    missing = os.path.join(os.path.dirname(os.path.abspath(script)), "no-such-script.json")
    p = subprocess.run([program, "fake-server", "--script", missing], capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 1 and "cannot read" in p.stderr, f"missing script: {p.returncode} {p.stderr!r}")
    p = subprocess.run([program, "fake-server", "--tls-cert", script], capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 2 and "--tls-cert and --tls-key go together" in p.stderr, f"half TLS: {p.returncode} {p.stderr!r}")

    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
