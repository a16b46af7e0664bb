#!/usr/bin/env python3
"""Checks `parley render` from the command line on examples/conversation_templates/.

    cli_render_check.py PARLEY_PROGRAM EXAMPLE_DIR

Runs the program the way a user does and checks its standard output (the request as JSON), its
standard error and its exit status, for a good run and for each kind of mistake.
"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def run(program, *args):
    p = subprocess.run([program, "render", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    program, example = sys.argv[1], sys.argv[2]
    templates = os.path.join(example, "assistants.yaml")
    data_file = os.path.join(example, "weather-data.json")
    history_file = os.path.join(example, "history.json")
    with open(data_file) as f:
        data = json.load(f)
    with open(history_file) as f:
        history = json.load(f)

    # the weather template, with data and history
    code, out, err = run(program, templates, "--template", "weather", "--data", data_file, "--history", history_file)
    check(code == 0, f"weather: exit {code}, stderr {err!r}")
    request = json.loads(out) if code == 0 else {}
    check(request.get("model") == "gpt-4o-mini", f"weather: model {request.get('model')!r}")
    messages = request.get("messages", [])
    check(messages[:2] == history, f"weather: the history comes first, unchanged: {messages[:2]!r}")
    check([m["role"] for m in messages[2:]] == ["system", "user"], f"weather: roles {messages!r}")
    if len(messages) == 4:
        transcript = " / ".join(("U: " if m["role"] == "user" else "A: ") + m["content"] for m in history)
        check(messages[2]["content"].endswith("\n" + transcript),
              f"weather: the system text ends with the history as a dialogue: {messages[2]['content']!r}")
        check(messages[3]["content"] == f"What is the weather in {data['city']}?", f"weather: user {messages[3]!r}")
    tools = request.get("tools", [])
    check(len(tools) == 1 and tools[0]["type"] == "function" and tools[0]["function"]["name"] == "get_weather",
          f"weather: tools {tools!r}")
    check(tools and tools[0]["function"]["parameters"]["required"] == ["city"], "weather: the parameters schema")
    check(request.get("tool_choice") == {"type": "function", "function": {"name": "get_weather"}},
          f"weather: tool_choice {request.get('tool_choice')!r}")
    check(out.startswith('{\n  "model": "gpt-4o-mini",\n'), f"weather: indented JSON, model first: {out[:40]!r}")

    # the ask template without data: the text renders the missing variable as nothing (Jinja2's
    # default), the parameters are the default-request's overridden by the request's
    code, out, err = run(program, templates, "--template", "ask")
    check(code == 0, f"ask: exit {code}, stderr {err!r}")
    request = json.loads(out) if code == 0 else {}
    check(request.get("temperature") == 0.2 and request.get("max_tokens") == 100, f"ask: parameters {request!r}")
    check('"temperature": 0.2\n' in out and 'E-1' not in out, "ask: numbers written as 0.2, not 2E-1")
    check([m["role"] for m in request.get("messages", [])] == ["system", "user"], f"ask: {request!r}")
    check("tools" not in request and "tool_choice" not in request, "ask: no tools")

    # mistakes: each exits 1 (2 for usage) with a message that names the problem
    code, out, err = run(program, templates)
    check(code == 1 and "has 2 templates: choose one with --template NAME (ask, weather)" in err,
          f"no --template: {code} {err!r}")
    code, out, err = run(program, templates, "--template", "wether")
    check(code == 1 and "no template named 'wether' (the set has: ask, weather)" in err, f"unknown: {code} {err!r}")
    code, out, err = run(program)
    check(code == 2 and "usage: parley render" in err, f"no file: {code} {err!r}")
    code, out, err = run(program, templates, "--bogus")
    check(code == 2 and "unknown option --bogus" in err, f"bad option: {code} {err!r}")

    with tempfile.TemporaryDirectory() as tmp:
        bad_yaml = os.path.join(tmp, "bad.yaml")
        with open(bad_yaml, "w") as f:
            f.write("templates:\n  t:\n    messages:\n      - role: user\n        contnet: hi\n")
        code, out, err = run(program, bad_yaml)
        check(code == 1 and f"{bad_yaml}:5:9: unknown key 'contnet' in a user message" in err,
              f"YAML error with file:line:col: {code} {err!r}")
        bad_history = os.path.join(tmp, "history.json")
        with open(bad_history, "w") as f:
            json.dump([{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}], f)
        code, out, err = run(program, templates, "--template", "ask", "--history", bad_history)
        check(code == 1 and f"{bad_history}: /1/role: unknown role 'bot'" in err, f"bad history: {code} {err!r}")
        not_json = os.path.join(tmp, "data.json")
        with open(not_json, "w") as f:
            f.write("{city: Oslo}")
        code, out, err = run(program, templates, "--template", "ask", "--data", not_json)
        check(code == 1 and f"{not_json}: not valid JSON" in err, f"bad data: {code} {err!r}")
        no_model = os.path.join(tmp, "no-model.yaml")
        with open(no_model, "w") as f:
            f.write("templates:\n  t:\n    messages:\n      - role: user\n        content: hi\n      - role: request\n")
        code, out, err = run(program, no_model)
        check(code == 1 and "the request has no model" in err, f"no model: {code} {err!r}")

    for f in failures:
        print("FAIL:", f)
    print(f"cli_render_check: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
