#!/usr/bin/env python3
"""Checks `parley jinja --batch` from the command line, as tests/harness/jinja_diff.py and other
clients use it.

    cli_batch_check.py PARLEY_PROGRAM

One result line per input line, in order, each `{"output": str}` or `{"error": str}`; blank lines
skipped; a last line without a newline, CR LF line ends and lines longer than the program's read
block; templates kept between lines give each line its own context and environment (also past the
number of templates kept, and for a template that does not parse); every result equal to what
`parley jinja TEMPLATE CONTEXT` prints for the same input; and a client that writes one line and
waits for its result gets it before it writes the next.
"""
import json
import os
import selectors
import subprocess
import sys
import tempfile

failures = []
TIMEOUT = 60


def check(condition, what):
    if not condition:
        failures.append(what)


def batch(program, text):
    p = subprocess.run([program, "jinja", "--batch"], input=text.encode("utf-8"), capture_output=True,
                       timeout=TIMEOUT)
    check(p.returncode == 0, f"exit status {p.returncode}, stderr {p.stderr[-500:]!r}")
    results = []
    for line in p.stdout.decode("utf-8").split("\n")[:-1]:
        obj = json.loads(line)
        check(isinstance(obj, dict) and len(obj) == 1 and ("output" in obj or "error" in obj),
              f"result line {line[:200]!r}")
        results.append(obj)
    check(p.stdout.endswith(b"\n") or not p.stdout, "the results end with a newline")
    return results


def line(template, context=None, env=None):
    obj = {"template": template}
    if context is not None:
        obj["context"] = context
    if env is not None:
        obj["env"] = env
    return json.dumps(obj, ensure_ascii=False)


def single(program, template, context, env):
    """What `parley jinja --env ENV TEMPLATE CONTEXT` prints, as a batch result."""
    with tempfile.TemporaryDirectory() as d:
        t = os.path.join(d, "t.jinja")
        c = os.path.join(d, "c.json")
        with open(t, "w", encoding="utf-8", newline="") as f:
            f.write(template)
        with open(c, "w", encoding="utf-8") as f:
            json.dump(context, f)
        p = subprocess.run([program, "jinja", "--env", env, t, c], capture_output=True, timeout=TIMEOUT)
        if p.returncode == 0:
            return {"output": p.stdout.decode("utf-8")}
        return None  # an error: its text names the file, unlike the batch's


def main():
    program = sys.argv[1]

    # the protocol: order, blank lines, errors, a last line without newline, CR LF
    text = "\n".join([
        line("a{{ x }}", {"x": 1}),
        "",
        "   ",
        "not json",
        "[1, 2]",
        line("{{ y", env="plain"),
        json.dumps({"template": "z"}) + "\r",
        line("{{ x }}", None, "nowhere"),
        line("last{{ 2 }}"),
    ])
    r = batch(program, text)
    check(len(r) == 7, f"7 results for 7 non-blank lines, got {len(r)}: {r}")
    if len(r) == 7:
        check(r[0] == {"output": "a1"}, f"line 1: {r[0]}")
        check("error" in r[1] and "error" in r[2], f"lines 4 and 5 are errors: {r[1]}, {r[2]}")
        check("error" in r[3] and "1:5" in r[3]["error"], f"a syntax error with its position: {r[3]}")
        check(r[4] == {"output": "z"}, f"a CR LF line: {r[4]}")
        check(r[5] == {"error": "unknown environment nowhere"}, f"an unknown environment: {r[5]}")
        check(r[6] == {"output": "last2"}, f"a last line without a newline: {r[6]}")

    # kept templates: the same text with other contexts and in the other environment, a text that
    # does not parse, more different texts than are kept, then the first again
    lines, expected = [], []
    shared = "{% if x %}\n{{ x }}{% endif %}"
    for i in range(3):
        for env in ("hf", "plain"):
            lines.append(line(shared, {"x": i + 1}, env))
            expected.append({"output": ("" if env == "hf" else "\n") + str(i + 1)})
    for i in range(100):
        lines.append(line("t%d {{ v * %d }}" % (i, i), {"v": 2}))
        expected.append({"output": "t%d %d" % (i, 2 * i)})
    for env in ("plain", "hf"):
        lines.append(line(shared, {"x": 7}, env))
        expected.append({"output": ("\n" if env == "plain" else "") + "7"})
    for _ in range(2):
        lines.append(line("{% for %}"))
        expected.append(None)
    r = batch(program, "\n".join(lines) + "\n")
    check(len(r) == len(expected), f"{len(expected)} results, got {len(r)}")
    for i, (got, want) in enumerate(zip(r, expected), 1):
        if want is None:
            check("error" in got, f"kept templates, line {i}: an error expected, got {got}")
        else:
            check(got == want, f"kept templates, line {i}: {got} instead of {want}")

    # a line longer than any read block, and results equal to the single-template mode's
    big = {"messages": [{"role": "user", "content": "m%d " % k + "x" * 200} for k in range(2000)]}
    cases = [
        ("{% for m in messages %}{{ m.role }}:{{ m.content|length }};{% endfor %}", big, "hf"),
        ("{{ messages|length }} {{ messages[-1].content[:4] }}", big, "plain"),
        ("{{ 'é' ~ x|tojson }} {{ 2 ** 70 }}", {"x": ["<a>", 1.5, None]}, "plain"),
        ("{{ 'é' ~ x|tojson }}", {"x": ["<a>", 1.5, None]}, "hf"),
    ]
    r = batch(program, "".join(line(t, c, e) + "\n" for t, c, e in cases))
    check(len(r) == len(cases), f"{len(cases)} results, got {len(r)}")
    for (t, c, e), got in zip(cases, r):
        want = single(program, t, c, e)
        check(want is not None and got == want, f"{t[:40]!r} [{e}]: batch {str(got)[:200]} single {str(want)[:200]}")

    # a client that writes one line and waits for its result
    p = subprocess.Popen([program, "jinja", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    selector = selectors.DefaultSelector()
    selector.register(p.stdout, selectors.EVENT_READ)
    for i in range(3):
        p.stdin.write((line("{{ n + 1 }}", {"n": i}) + "\n").encode())
        p.stdin.flush()
        if not selector.select(timeout=TIMEOUT):
            failures.append(f"no result for line {i + 1} while the client waits")
            break
        got = json.loads(p.stdout.readline())
        check(got == {"output": str(i + 1)}, f"interactive line {i + 1}: {got}")
    p.stdin.close()
    check(p.wait(timeout=TIMEOUT) == 0, "exit status after the input ends")

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
