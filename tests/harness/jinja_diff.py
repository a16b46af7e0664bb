#!/usr/bin/env python3
"""Differential test of parley's Jinja2 engine against the reference renderer (Python Jinja2).

Both programs are run once each in batch mode (`PARLEY jinja --batch`, `ORACLE --batch`) over the
same list of cases, and their results are compared case by case. A case passes when both render
the same string, or when both report an error (error texts are not compared).

  jinja_diff.py --parley PATH --oracle PATH corpus --templates DIR --contexts DIR
      every *.jinja in DIR x every *.json in --contexts, rendered in the hf environment.

  jinja_diff.py --parley PATH --oracle PATH cases DIR_OR_FILE...
      every *.jsonl in the given directories (and the given files); one case per line:
      {"name": str, "template": str, "context": {...}?, "env": "hf"|"plain"|"both"?}
      ("both", the default, makes one case per environment).

The oracle is run by the interpreter that runs this script, which must be the reference the
results are recorded with (tests/harness/reference_python.py: CPython 3.11, Jinja2 3.1.6,
MarkupSafe 3.0); with another one the run fails at once, naming what it found, without comparing.

Exit status: 0 when every case passes; 1 on any failure, on a missing or empty input, on
malformed case files, when there are no cases, when the interpreter is not the reference, or when
either program returns a different number of results than there are cases.
"""
import argparse
import json
import os
import signal
import subprocess
import sys

import reference_python

TIMEOUT_SECONDS = 300
EXCERPT = 600
ENVS = ("hf", "plain")
CASE_KEYS = {"name", "template", "context", "env"}


class InputError(Exception):
    """A missing, empty or malformed input: the run fails."""


class Case:
    def __init__(self, name, template, context, env, origin, context_label=None):
        self.name = name            # unique name (for "both" cases: shared by the two envs)
        self.template = template
        self.context = context
        self.env = env
        self.origin = origin        # file:line or template path
        self.context_label = context_label

    def label(self):
        s = f"{self.name} [env={self.env}]"
        if self.context_label:
            s += f" [context={self.context_label}]"
        return s

    def batch_line(self):
        return json.dumps({"template": self.template, "context": self.context, "env": self.env},
                          ensure_ascii=False)


# ----------------------------------------------------------------------------- loading cases

def read_text(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}")


def list_files(directory, suffix, what):
    if not os.path.isdir(directory):
        raise InputError(f"{what} directory {directory!r} is missing")
    names = sorted(n for n in os.listdir(directory)
                   if n.endswith(suffix) and os.path.isfile(os.path.join(directory, n)))
    if not names:
        raise InputError(f"{what} directory {directory!r} has no *{suffix} files")
    return [os.path.join(directory, n) for n in names]


def load_corpus(templates_dir, contexts_dir):
    templates = list_files(templates_dir, ".jinja", "templates")
    contexts = list_files(contexts_dir, ".json", "contexts")
    loaded = []
    for cpath in contexts:
        try:
            obj = json.loads(read_text(cpath))
        except json.JSONDecodeError as e:
            raise InputError(f"{cpath}: invalid JSON: {e}")
        if not isinstance(obj, dict):
            raise InputError(f"{cpath}: the context must be a JSON object")
        loaded.append((os.path.basename(cpath), obj))
    cases = []
    for tpath in templates:
        text = read_text(tpath)
        for cname, obj in loaded:
            cases.append(Case(os.path.basename(tpath), text, obj, "hf", tpath, cname))
    return cases


def parse_case_line(path, lineno, line, seen):
    where = f"{path}:{lineno}"
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: invalid JSON: {e}")
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a case must be a JSON object")
    unknown = sorted(set(obj) - CASE_KEYS)
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}")
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{where}: \"name\" must be a non-empty string")
    if name in seen:
        raise InputError(f"{where}: duplicate case name {name!r} (first at {seen[name]})")
    seen[name] = where
    template = obj.get("template")
    if not isinstance(template, str):
        raise InputError(f"{where}: \"template\" must be a string")
    context = obj.get("context", {})
    if not isinstance(context, dict):
        raise InputError(f"{where}: \"context\" must be a JSON object")
    env = obj.get("env", "both")
    if env not in ("hf", "plain", "both"):
        raise InputError(f"{where}: \"env\" must be \"hf\", \"plain\" or \"both\", not {env!r}")
    envs = ENVS if env == "both" else (env,)
    return [Case(name, template, context, e, where) for e in envs]


def load_cases(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files.extend(list_files(p, ".jsonl", "cases"))
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise InputError(f"case file or directory {p!r} is missing")
    cases, seen = [], {}
    for path in files:
        text = read_text(path)
        count = 0
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            cases.extend(parse_case_line(path, lineno, line, seen))
            count += 1
        if count == 0:
            raise InputError(f"{path}: no cases")
    return cases


# ----------------------------------------------------------------------------- running

class Run:
    def __init__(self, role, results, problems):
        self.role = role
        self.results = results      # list of ("output"|"error", text)
        self.problems = problems    # list of strings: the program misbehaved as a whole


def run_batch(role, argv, cases):
    stdin = "".join(c.batch_line() + "\n" for c in cases).encode("utf-8")
    problems = []
    try:
        # own session, so that a timeout kills the program and anything it started
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except FileNotFoundError:
        return Run(role, [], [f"{argv[0]}: not found"])
    except PermissionError:
        return Run(role, [], [f"{argv[0]}: not executable"])
    try:
        stdout, stderr = proc.communicate(stdin, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        stdout, stderr = proc.communicate()
        problems.append(f"timed out after {TIMEOUT_SECONDS} s")
    else:
        if proc.returncode != 0:
            tail = stderr.decode("utf-8", "replace").strip()[-1000:]
            problems.append(f"exit status {proc.returncode}"
                            + (f"; stderr:\n{tail}" if tail else ""))
    try:
        text = stdout.decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append(f"stdout is not valid UTF-8: {e}")
        text = stdout.decode("utf-8", "replace")
    results = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            results.append(("bad", f"result line {i} is not JSON ({e}): {line[:200]!r}"))
            continue
        if isinstance(obj, dict) and len(obj) == 1 and isinstance(obj.get("output"), str):
            results.append(("output", obj["output"]))
        elif isinstance(obj, dict) and len(obj) == 1 and isinstance(obj.get("error"), str):
            results.append(("error", obj["error"]))
        else:
            results.append(("bad", f"result line {i} is neither {{\"output\": str}} nor "
                                   f"{{\"error\": str}}: {line[:200]!r}"))
    if len(results) != len(cases):
        problems.append(f"returned {len(results)} result(s) for {len(cases)} case(s)")
    return Run(role, results, problems)


# ----------------------------------------------------------------------------- reporting

def clip(s, n=EXCERPT):
    r = repr(s)
    return r if len(r) <= n else r[:n] + f"... ({len(s)} chars)"


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b)) if len(a) != len(b) else None


def describe(result):
    if result is None:
        return "no result"
    kind, text = result
    if kind == "bad":
        return f"malformed result: {text}"
    return f"{kind} {clip(text)}"


def report_case(case, verdict, mine, ref, out):
    out.write(f"{verdict} {case.label()}  ({case.origin})\n")
    excerpt = case.template if len(case.template) <= 300 else case.template[:300] + "..."
    out.write(f"  template: {excerpt!r}\n")
    if case.context and not case.context_label:
        text = json.dumps(case.context, ensure_ascii=False)
        out.write(f"  context:  {text if len(text) <= 300 else text[:300] + '...'}\n")
    out.write(f"  parley: {describe(mine)}\n")
    out.write(f"  oracle: {describe(ref)}\n")
    if mine and ref and mine[0] == ref[0] == "output" and mine[1] != ref[1]:
        pos = first_difference(mine[1], ref[1])
        out.write(f"  first difference at position {pos}: parley {mine[1][pos:pos + 40]!r}, "
                  f"oracle {ref[1][pos:pos + 40]!r}\n")


MISSING_SHOWN = 5  # cases without a result (a program stopped early) reported in full


def load_known(path):
    """Documented differences from Jinja2: `case-name [env]  reason` per line, '#' comments."""
    known = {}
    if not path:
        return known
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in ("hf", "plain"):
                raise InputError(f"{path}:{n}: expected 'CASE-NAME ENV REASON'")
            known[(parts[0], parts[1])] = parts[2]
    return known


def compare(cases, parley, oracle, show_all, out, known=None):
    passed = failed = missing = 0
    known = known or {}
    seen_known = set()
    for i, case in enumerate(cases):
        mine = parley.results[i] if i < len(parley.results) else None
        ref = oracle.results[i] if i < len(oracle.results) else None
        ok = (mine is not None and ref is not None and mine[0] != "bad"
              and ((mine[0] == ref[0] == "output" and mine[1] == ref[1])
                   or (mine[0] == ref[0] == "error")))
        key = (case.name, case.env)
        if key in known:
            seen_known.add(key)
            if ok:
                # a listed difference that no longer differs: the list must be updated
                failed += 1
                out.write(f"FAIL {case.label()}: listed as a known difference but now matches the oracle\n")
            else:
                out.write(f"KNOWN {case.label()}: {known[key]}\n")
            continue
        if ok:
            passed += 1
            if show_all:
                report_case(case, "PASS", mine, ref, out)
            continue
        failed += 1
        if mine is None or ref is None:
            missing += 1
            if missing > MISSING_SHOWN and not show_all:
                continue
        report_case(case, "FAIL", mine, ref, out)
    if missing > MISSING_SHOWN and not show_all:
        out.write(f"... and {missing - MISSING_SHOWN} more case(s) without a result "
                  f"(--show-all lists them)\n")
    if seen_known:
        out.write(f"{len(seen_known)} known difference(s) from Jinja2 (listed with their reasons above)\n")
    return passed, failed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parley", required=True, help="the parley program")
    ap.add_argument("--oracle", required=True, help="the reference renderer (jinja-oracle)")
    ap.add_argument("--filter", default=None, help="run only cases whose name contains SUBSTR")
    ap.add_argument("--show-all", action="store_true", help="print every case's result")
    ap.add_argument("--known", default=None,
                    help="file listing documented differences (CASE ENV REASON per line)")
    ap.add_argument("--now", default=None,
                    help="passed to parley as --now: the oracle's fixed clock for strftime_now()")
    sub = ap.add_subparsers(dest="mode", required=True)
    cp = sub.add_parser("corpus", help="templates x contexts, hf environment")
    cp.add_argument("--templates", required=True)
    cp.add_argument("--contexts", required=True)
    kp = sub.add_parser("cases", help="JSON-lines case tables")
    kp.add_argument("paths", nargs="+", metavar="DIR_OR_FILE")
    a = ap.parse_args(argv)
    out = sys.stdout

    # Another CPython, Jinja2 or MarkupSafe renders some cases differently: no comparison then.
    message = reference_python.problem()
    if message:
        out.write(f"error: {message}\n0 passed, 1 failed\n")
        return 1

    try:
        for role, path in (("parley", a.parley), ("oracle", a.oracle)):
            if not os.path.isfile(path):
                raise InputError(f"{role} program {path!r} is missing")
            if role == "parley" and not os.access(path, os.X_OK):
                raise InputError(f"{role} program {path!r} is not executable")
        if a.mode == "corpus":
            cases = load_corpus(a.templates, a.contexts)
        else:
            cases = load_cases(a.paths)
        known = load_known(a.known)
        names = {(c.name, c.env) for c in cases}
        unknown = [k for k in known if k not in names]
        if unknown and a.filter is None:
            raise InputError(f"{a.known}: no such case: {unknown[0][0]} [{unknown[0][1]}]")
    except InputError as e:
        out.write(f"error: {e}\n0 passed, 1 failed\n")
        return 1

    if a.filter is not None:
        cases = [c for c in cases if a.filter in c.name]
    if not cases:
        out.write("error: no cases to run\n0 passed, 1 failed\n")
        return 1

    # (the oracle accepts and ignores the "jinja" word in batch mode, so it can stand in for parley
    # when it is executable)
    parley_cmd = [a.parley, "jinja", "--batch"] + (["--now", a.now] if a.now else [])
    parley = run_batch("parley", parley_cmd, cases)
    # the oracle by the interpreter checked above, not by the python3 its first line finds on PATH
    oracle = run_batch("oracle", [sys.executable, a.oracle, "--batch"], cases)

    per_env = {e: sum(1 for c in cases if c.env == e) for e in ENVS}
    out.write(f"{len(cases)} case(s): " + ", ".join(f"{n} {e}" for e, n in per_env.items() if n)
              + "\n")
    rendered = sum(1 for r in oracle.results if r[0] == "output")
    errored = sum(1 for r in oracle.results if r[0] == "error")
    out.write(f"oracle: {rendered} rendered, {errored} errored\n")
    if cases and len(oracle.results) == len(cases) and rendered == 0:
        out.write("warning: the oracle renders none of the cases\n")

    passed, failed = compare(cases, parley, oracle, a.show_all, out, known)
    broken = False
    for run in (parley, oracle):
        for p in run.problems:
            out.write(f"error: {run.role}: {p}\n")
            broken = True
        n = len(run.results)
        if n < len(cases):
            out.write(f"  the first case without a {run.role} result is "
                      f"{cases[n].label()} ({cases[n].origin})\n")
    out.write(f"{passed} passed, {failed} failed\n")
    return 1 if failed or broken else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into a pager or head that stopped reading
        sys.exit(1)
