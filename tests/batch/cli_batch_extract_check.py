#!/usr/bin/env python3
"""Checks `parley batch --extract SCHEMA.json` as a user runs it, against `parley fake-server`.

    cli_batch_extract_check.py PARLEY_PROGRAM

For each extraction mode (tool-call, json-schema, json-text), 300 inputs against the OpenAI
chat-completions route, a third of them answered at once with a value that fits the schema, a
third first with a reply that does not fit (JSON of the wrong shape; in the text modes also prose
without JSON) then with one that does, a third with three replies that do not fit (the default
two re-asks). The server's script gives each input its own replies (steps that match the input's
id in the request body), whatever the order in which the 32 workers send them. Checked:

- every input has one line: the value of the reply that fits as its `result`, or an `error` with
  code `conversion`, the last reply, and its violations, which must be Python jsonschema's errors
  of that reply (message and instance path); `usage.requests` counts every request (1, 2 or 3);
  exit status 3 (error lines);
- the requests as the server recorded them: the schema as the forced function's parameters
  (tool-call), as `response_format.json_schema.schema` (json-schema), in a user message
  (json-text); each re-ask carries jsonschema's messages of the reply before it, in a tool
  message (tool-call) or a user message (text modes); exactly as many requests as replies;
- the same through the Anthropic Messages API (tool-call, json-schema), the Responses API and
  Gemini (json-schema), 30 inputs each: the request carries the schema where that API wants it;
- what cannot run stops before any request: a schema the validator refuses (named with its
  JSON pointer), tool-call mode with a schema that is not an object, a template with messages
  after its request, options without --extract (exit status 2).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from cli_check import TIMEOUT, check, clean_env, failures, report, start_fake_server, stop_fake_server  # noqa: E402

try:
    import jsonschema
except ImportError as exc:
    sys.exit("cli_batch_extract_check.py: needs the jsonschema package (%s)" % exc)

INPUTS = 300

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "description": "The person the text names",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "uniqueItems": True},
        "address": {"$ref": "#/$defs/address"},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
    "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
}

TEMPLATES = """\
templates:
  person:
    messages:
      - role: system
        content: You read the person a text names.
      - role: user
        content: "{{ text }} (input {{ id }})"
"""

# replies that do not fit: JSON values, and (text modes only) prose without JSON
WRONG = [
    {"name": 5, "age": "forty"},
    {"name": "Ada"},
    {"name": "Ada", "age": -3, "email": "ada@example.com"},
    {"name": "", "age": 200, "tags": ["math", "math", "Poetry"]},
    {"name": "Ada", "age": 36.5, "address": {"street": "St James's Square"}},
]
PROSE = "I think the text is about Ada Lovelace, who was 36."


def good(i):
    return {"name": "Person %d" % i, "age": i % 90, "tags": ["x" * (1 + i % 3)], "address": {"city": "Oslo"}}


def plan(i, prose_allowed):
    """The replies to input i: values (dicts) or prose (str), the last one fitting or not."""
    kind = i % 3
    wrong = [WRONG[(i + k) % len(WRONG)] for k in range(3)]
    if prose_allowed and i % 6 >= 3:
        wrong[0] = PROSE
    if kind == 0:
        return [good(i)], True
    if kind == 1:
        return [wrong[0], good(i)], True
    return wrong, False


def reply_text(mode, reply):
    """The call's arguments or the reply's text that carries a reply."""
    text = reply if isinstance(reply, str) else json.dumps(reply)
    if mode == "json-text" and not isinstance(reply, str):
        return "Here it is:\n```json\n" + text + "\n```"
    return text


def reply_step(mode, i, reply):
    step = {"match": "(input doc-%d)" % i}
    if mode == "tool-call":
        step["reply"] = {"tool_calls": [{"name": "person", "arguments": reply_text(mode, reply)}]}
    else:
        step["reply"] = {"text": reply_text(mode, reply)}
    return step


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def run_batch(program, args, timeout=120):
    env = clean_env(OPENAI_API_KEY="sk-test", ANTHROPIC_API_KEY="sk-ant-test", GEMINI_API_KEY="gm-test")
    return subprocess.run([program, "batch", *args], env=env, capture_output=True, text=True, timeout=timeout)


def read_lines(path, what):
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                v = json.loads(line)
            except ValueError:
                failures.append(f"{what}: line {n} is not JSON: {line[:200]!r}")
                continue
            if v.get("id") in out:
                failures.append(f"{what}: two lines for {v.get('id')!r}")
            out[v.get("id")] = v
    return out


def read_records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def expected_errors(reply):
    """jsonschema's errors of a reply: (instance path, message), sorted; None for prose."""
    if isinstance(reply, str):
        return None
    v = jsonschema.Draft202012Validator(SCHEMA)
    return sorted(("".join("/" + str(t) for t in e.absolute_path), e.message) for e in v.iter_errors(reply))


def message_texts(body):
    """The texts of the request's messages, whatever the API (chat completions, Anthropic)."""
    out = []
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            for part in c:
                if isinstance(part, dict):
                    for key in ("text", "content"):
                        if isinstance(part.get(key), str):
                            out.append(part[key])
    return out


def check_mode(program, tmp, mode):
    """The 300 inputs in one mode, against the OpenAI route."""
    prose = mode != "tool-call"
    steps = []
    for i in range(INPUTS):
        replies, _ = plan(i, prose)
        steps += [reply_step(mode, i, r) for r in replies]
    script = os.path.join(tmp, f"script-{mode}.json")
    write(script, json.dumps({"steps": steps}))
    record = os.path.join(tmp, f"record-{mode}.jsonl")
    server, base = start_fake_server(program, script, os.path.join(tmp, f"server-{mode}.log"), record)
    out = os.path.join(tmp, f"out-{mode}.jsonl")
    try:
        started = time.monotonic()
        r = run_batch(program, [os.path.join(tmp, "templates.yaml"), "--input", os.path.join(tmp, "in.jsonl"), "--output", out,
                                "--api", "openai", "--base-url", base + "/v1", "--model", "gpt-4o-mini", "--concurrency", "32",
                                "--extract", os.path.join(tmp, "person.json"), "--extract-mode", mode])
        took = time.monotonic() - started
    finally:
        stop_fake_server(server)
    check(r.returncode == 3, f"{mode}: exit {r.returncode} (3 expected: error lines), stderr {r.stderr[-1500:]}")
    lines = read_lines(out, mode)
    check(set(lines) == {f"doc-{i}" for i in range(INPUTS)}, f"{mode}: the ids of the lines differ from the inputs'")
    requests = compared = reasks = 0
    for i in range(INPUTS):
        line = lines.get(f"doc-{i}")
        if line is None:
            continue
        replies, fits = plan(i, prose)
        requests += len(replies)
        what = f"{mode}: doc-{i}"
        check(line.get("usage", {}).get("requests") == len(replies), f"{what}: usage {line.get('usage')}, {len(replies)} requests expected")
        check(line.get("attempts") == 1, f"{what}: attempts {line.get('attempts')}")
        if fits:
            check(line.get("result") == replies[-1], f"{what}: result {line.get('result')!r}, expected {replies[-1]!r}")
            continue
        e = line.get("error", {})
        check(e.get("code") == "conversion", f"{what}: error {e}")
        check(e.get("message", "").startswith("no reply fitted in 3 attempts"), f"{what}: message {e.get('message')!r}")
        last = replies[-1]
        check(e.get("reply") == reply_text(mode, last), f"{what}: reply {e.get('reply')!r}, expected {reply_text(mode, last)!r}")
        got = sorted((v.get("instance_path"), v.get("message")) for v in e.get("violations", []))
        check(got == expected_errors(last), f"{what}: violations {got}, jsonschema says {expected_errors(last)}")
        compared += len(got)
        for v in e.get("violations", []):
            check(isinstance(v.get("schema_path"), str) and v["schema_path"].startswith("/") and v.get("keyword"),
                  f"{what}: violation without schema path or keyword: {v}")

    records = read_records(record)
    check(len(records) == requests, f"{mode}: the server received {len(records)} requests, {requests} expected")
    by_input = {}
    for rec in records:
        body = json.loads(rec["body"])
        texts = message_texts(body)
        ids = [t for t in texts if "(input doc-" in t]
        if not ids:
            failures.append(f"{mode}: a request without an input's text")
            continue
        i = int(ids[0].rsplit("doc-", 1)[1].rstrip(")"))
        by_input.setdefault(i, []).append(body)
    for i, bodies in by_input.items():
        what = f"{mode}: doc-{i}"
        first = bodies[0]
        if mode == "tool-call":
            tools = first.get("tools", [])
            check(len(tools) == 1 and tools[0]["function"]["name"] == "person", f"{what}: tools {tools}")
            if tools:
                want = {k: v for k, v in SCHEMA.items() if k != "$schema"}
                check(tools[0]["function"].get("parameters") == want, f"{what}: parameters {tools[0]['function'].get('parameters')}")
                check(tools[0]["function"].get("description") == SCHEMA["description"], f"{what}: description")
            check(first.get("tool_choice") == {"type": "function", "function": {"name": "person"}},
                  f"{what}: tool_choice {first.get('tool_choice')}")
        elif mode == "json-schema":
            rf = first.get("response_format", {})
            check(rf.get("type") == "json_schema" and rf.get("json_schema", {}).get("name") == "person" and
                  rf["json_schema"].get("schema") == {k: v for k, v in SCHEMA.items() if k != "$schema"} and
                  rf["json_schema"].get("strict") is False, f"{what}: response_format {rf}")
            check("tools" not in first, f"{what}: tools in json-schema mode")
        else:
            texts = message_texts(first)
            check(any(t.startswith("Reply with one JSON value that follows this JSON Schema") and '"minLength":1' in t for t in texts),
                  f"{what}: no schema in the prompt: {texts}")
        replies, _ = plan(i, prose)
        for k in range(1, len(bodies)):
            reasks += 1
            asked = "\n".join(message_texts(bodies[k]))
            previous = replies[k - 1]
            errors = expected_errors(previous)
            if errors is None:
                check("expected valid JSON" in asked or "JSON value" in asked, f"{what}: re-ask {k} does not say the reply is not JSON")
                continue
            for path, message in errors:
                check((f"{path}: {message}" if path else message) in asked,
                      f"{what}: re-ask {k} lacks jsonschema's {path} {message!r}:\n{asked[-800:]}")
            if mode == "tool-call":
                tool_messages = [m for m in bodies[k]["messages"] if m.get("role") == "tool"]
                check(tool_messages and tool_messages[-1]["content"].startswith("Error: the arguments of person do not fit"),
                      f"{what}: re-ask {k} is not a tool message: {bodies[k]['messages'][-1]}")
            else:
                check(bodies[k]["messages"][-1]["role"] == "user" and
                      bodies[k]["messages"][-1]["content"].startswith("Your reply does not fit the requested JSON:"),
                      f"{what}: re-ask {k}: {bodies[k]['messages'][-1]}")
    print(f"{mode}: {INPUTS} inputs, {requests} requests ({reasks} re-asks checked), {compared} violations of error "
          f"lines compared with jsonschema's, {took:.1f} s")


def check_other_apis(program, tmp):
    """30 inputs through each of the other wire APIs."""
    n = 30
    small = os.path.join(tmp, "small.jsonl")
    write(small, "".join(json.dumps({"id": f"doc-{i}", "text": f"text {i}"}) + "\n" for i in range(n)))
    want_schema = {k: v for k, v in SCHEMA.items() if k != "$schema"}
    cases = [
        ("anthropic", "tool-call", lambda b: b.get("tool_choice") == {"type": "tool", "name": "person"} and
         b["tools"][0]["input_schema"] == want_schema),
        ("anthropic", "json-schema", lambda b: b.get("output_config", {}).get("format") == {"type": "json_schema", "schema": want_schema}),
        ("responses", "json-schema", lambda b: b.get("text", {}).get("format", {}).get("schema") == want_schema and
         b["text"]["format"].get("name") == "person"),
        ("gemini", "json-schema", lambda b: b.get("generationConfig", {}).get("responseJsonSchema") == want_schema),
        ("gemini", "tool-call", lambda b: "tools" in b and "toolConfig" in b),
    ]
    for api, mode, wire_ok in cases:
        steps = []
        for i in range(n):
            replies, _ = plan(i, False)
            steps += [reply_step(mode, i, r) for r in replies]
        script = os.path.join(tmp, f"script-{api}-{mode}.json")
        write(script, json.dumps({"steps": steps}))
        record = os.path.join(tmp, f"record-{api}-{mode}.jsonl")
        server, base = start_fake_server(program, script, os.path.join(tmp, f"server-{api}.log"), record)
        out = os.path.join(tmp, f"out-{api}-{mode}.jsonl")
        url = {"anthropic": base, "gemini": base + "/v1beta"}.get(api, base + "/v1")
        model = {"anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash"}.get(api, "gpt-4o-mini")
        try:
            r = run_batch(program, [os.path.join(tmp, "templates.yaml"), "--input", small, "--output", out, "--api", api,
                                    "--base-url", url, "--model", model, "--extract", os.path.join(tmp, "person.json"),
                                    "--extract-mode", mode])
        finally:
            stop_fake_server(server)
        what = f"{api} {mode}"
        check(r.returncode == 3, f"{what}: exit {r.returncode}, stderr {r.stderr[-1500:]}")
        lines = read_lines(out, what)
        for i in range(n):
            replies, fits = plan(i, False)
            line = lines.get(f"doc-{i}", {})
            if fits:
                check(line.get("result") == replies[-1], f"{what}: doc-{i}: {line}")
            else:
                check(line.get("error", {}).get("code") == "conversion", f"{what}: doc-{i}: {line}")
            check(line.get("usage", {}).get("requests") == len(replies), f"{what}: doc-{i} usage {line.get('usage')}")
        records = read_records(record)
        check(len(records) == sum(len(plan(i, False)[0]) for i in range(n)), f"{what}: {len(records)} requests")
        for rec in records[:3]:
            body = json.loads(rec["body"])
            check(wire_ok(body), f"{what}: the request does not carry the schema where the API wants it: {json.dumps(body)[:1500]}")
        print(f"{what}: {n} inputs")


def check_refusals(program, tmp):
    inp = os.path.join(tmp, "in.jsonl")
    out = os.path.join(tmp, "refused.jsonl")
    templates = os.path.join(tmp, "templates.yaml")
    base = ["--input", inp, "--output", out, "--api", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]

    bad = os.path.join(tmp, "bad.json")
    write(bad, json.dumps({"type": "object", "properties": {"a": {"type": "string", "unevaluatedProperties": False}}}))
    r = run_batch(program, [templates, *base, "--extract", bad])
    check(r.returncode == 1 and f"{bad}: schema at #/properties/a/unevaluatedProperties: the keyword \"unevaluatedProperties\" is "
          "not implemented" in r.stderr, f"unsupported keyword: exit {r.returncode}, {r.stderr!r}")

    broken = os.path.join(tmp, "broken.json")
    write(broken, '{"type": "object",\n "required": ["a",]}')
    r = run_batch(program, [templates, *base, "--extract", broken])
    check(r.returncode == 1 and "not valid JSON" in r.stderr and "line 2" in r.stderr, f"broken JSON: exit {r.returncode}, {r.stderr!r}")

    array = os.path.join(tmp, "list.json")
    write(array, json.dumps({"type": "array", "items": {"type": "string"}}))
    r = run_batch(program, [templates, *base, "--extract", array])
    check(r.returncode == 1 and "--extract-mode tool-call needs a schema whose root is an object schema" in r.stderr,
          f"array schema in tool-call mode: exit {r.returncode}, {r.stderr!r}")

    two = os.path.join(tmp, "two.yaml")
    write(two, "templates:\n  t:\n    messages:\n      - role: user\n        content: \"{{ text }}\"\n      - role: request\n"
               "      - role: user\n        content: more\n")
    r = run_batch(program, [two, *base, "--extract", os.path.join(tmp, "person.json")])
    check(r.returncode == 1 and "with --extract, the template's messages up to its first request message are the prompt" in r.stderr,
          f"template with a second read: exit {r.returncode}, {r.stderr!r}")

    for args, want in [(["--extract-mode", "json-text"], "go with --extract SCHEMA.json"),
                       (["--extract", os.path.join(tmp, "person.json"), "--extract-mode", "yaml"], "--extract-mode takes tool-call"),
                       (["--extract", os.path.join(tmp, "person.json"), "--messages"], "--messages and --extract exclude each other"),
                       (["--extract", os.path.join(tmp, "person.json"), "--extract-strict"], "--extract-strict goes with --extract-mode json-schema"),
                       (["--extract", os.path.join(tmp, "person.json"), "--extract-name", "a b"], "--extract-name takes a name")]:
        r = run_batch(program, [templates, *base, *args])
        check(r.returncode == 2 and want in r.stderr, f"{args}: exit {r.returncode}, {r.stderr[:300]!r}")
    check(not os.path.exists(out) or os.path.getsize(out) == 0, "a refused run wrote lines")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    program = sys.argv[1]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, "templates.yaml"), TEMPLATES)
        write(os.path.join(tmp, "person.json"), json.dumps(SCHEMA, indent=2))
        write(os.path.join(tmp, "in.jsonl"),
              "".join(json.dumps({"id": f"doc-{i}", "text": f"A text about person {i}."}) + "\n" for i in range(INPUTS)))
        for mode in ("tool-call", "json-schema", "json-text"):
            check_mode(program, tmp, mode)
        check_other_apis(program, tmp)
        check_refusals(program, tmp)
    return report("cli_batch_extract_check", started)


if __name__ == "__main__":
    sys.exit(main())
