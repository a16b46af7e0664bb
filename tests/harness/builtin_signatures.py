"""Writes (to the file given as argument, or standard output) how many arguments each of Python Jinja2's built-in filters and tests takes besides
its input, one line each: `filter NAME MIN MAX` or `test NAME MIN MAX` (MAX 255: any number).
The reference for the signature table of parley/jinja/detail/ct/diagnostics.hpp."""
import inspect
import sys

import reference_python

# The signatures of Jinja2 3.1.6, or a message naming the Jinja2 this is
reference_python.require()

import jinja2.filters  # noqa: E402 (after the check of the reference)
import jinja2.tests  # noqa: E402

MANY = 255


def counts(fn):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except ValueError:  # a function written in C (markupsafe's escape): the input only
        return 0, 0
    # the environment, context or eval context that Jinja passes first (a wrapper's signature is
    # its wrapped function's, which may not take one), then the input
    if params and params[0].name in ("environment", "env", "eval_ctx", "context"):
        params = params[1:]
    params = params[1:]
    lo = hi = 0
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            hi = MANY
        elif p.kind == p.KEYWORD_ONLY:
            if hi != MANY:
                hi += 1
        else:
            if p.default is p.empty:
                lo += 1
            if hi != MANY:
                hi += 1
    return lo, hi


lines = []
for kind, table in (("filter", jinja2.filters.FILTERS), ("test", jinja2.tests.TESTS)):
    for name in sorted(table):
        lo, hi = counts(table[name])
        lines.append(f"{kind} {name} {lo} {hi}\n")
if len(sys.argv) > 1:
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.writelines(lines)
else:
    sys.stdout.writelines(lines)
