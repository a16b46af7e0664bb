#!/usr/bin/env python3
"""Test of the check that the differential tests run with their reference (reference_python.py).

    reference_python_test.py PARLEY_PROGRAM ORACLE [DOCTEST_BINARY TEST_CASE]

The interpreter that runs this script must be the reference (CPython 3.11, Jinja2 3.1.6,
MarkupSafe 3.0). Then each script that compares with Python (jinja_diff.py, pystr_ref.py,
builtin_signatures.py), and DOCTEST_BINARY's TEST_CASE (a test that renders through the oracle),
is run as if another MarkupSafe, then another Jinja2, were installed (a distribution's metadata
of another version first on PYTHONPATH, as pip would leave it): each must fail at once with the
message naming what it found and what it needs, without comparing anything.
"""
import os
import subprocess
import sys
import tempfile

import reference_python

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL {what}")


def fake_site(directory, name, version):
    """A site directory holding only the metadata of `name` at `version`."""
    info = os.path.join(directory, f"{name}-{version}.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    with open(os.path.join(info, "RECORD"), "w", encoding="utf-8") as f:
        f.write("")
    return directory


def run(argv, pythonpath=None):
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    return r.returncode, r.stdout.decode("utf-8", "replace")


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    parley, oracle = sys.argv[1], sys.argv[2]

    # This interpreter is the reference: without a check that passes here, the rest means nothing.
    message = reference_python.problem()
    check(message is None, f"the interpreter running the tests is not the reference: {message}")
    if message:
        return 1
    code, out = run([sys.executable, os.path.join(HERE, "reference_python.py")])
    check(code == 0 and "CPython 3.11." in out and "Jinja2 3.1.6" in out and "MarkupSafe 3.0." in out,
          f"reference_python.py on the reference: status {code}, {out!r}")

    # What the message says for interpreters that are not the reference.
    needed = "CPython 3.11 with Jinja2 3.1.6 and MarkupSafe 3.0"
    for what, ok, named in [
        (("CPython", "3.11.2", "3.1.6", "3.0.0"), True, None),
        (("CPython", "3.11.13", "3.1.6", "3.0.3"), True, None),
        (("CPython", "3.13.5", "3.1.6", "3.0.3"), False, "is CPython 3.13.5 with Jinja2 3.1.6 and MarkupSafe 3.0.3"),
        (("CPython", "3.12.1", "3.1.6", "3.0.3"), False, "is CPython 3.12.1"),
        (("PyPy", "3.11.11", "3.1.6", "3.0.3"), False, "is PyPy 3.11.11"),
        (("CPython", "3.11.7", "3.1.2", "3.0.3"), False, "with Jinja2 3.1.2 and"),
        (("CPython", "3.11.7", "3.1.6", "2.1.5"), False, "and MarkupSafe 2.1.5"),
        (("CPython", "3.11.7", "3.1.6", "3.1.0"), False, "and MarkupSafe 3.1.0"),
        (("CPython", "3.11.7", None, None), False, "with no Jinja2 and no MarkupSafe"),
    ]:
        m = reference_python.problem(what, "/opt/py/bin/python3")
        if ok:
            check(m is None, f"{what} is the reference, but the check says: {m}")
        else:
            check(m is not None and needed in m and "/opt/py/bin/python3 is " in m and named in m,
                  f"{what}: the message should name {needed!r} and {named!r}: {m!r}")

    # Each user of the reference, run with another MarkupSafe, then another Jinja2.
    with tempfile.TemporaryDirectory(prefix="parley-reference-") as tmp:
        for name, version in (("MarkupSafe", "2.1.5"), ("Jinja2", "3.1.2")):
            site = fake_site(os.path.join(tmp, name), name, version)
            found = f"{name} {version}"
            runs = {
                "jinja_diff.py": [sys.executable, os.path.join(HERE, "jinja_diff.py"), "--parley", parley,
                                  "--oracle", oracle, "cases", os.path.join(ROOT, "tests", "jinja", "cases")],
                "pystr_ref.py": [sys.executable, os.path.join(HERE, "pystr_ref.py"), "cases",
                                 os.path.join(tmp, "in.txt"), os.path.join(tmp, "out.txt")],
                "builtin_signatures.py": [sys.executable, os.path.join(HERE, "builtin_signatures.py"),
                                          os.path.join(tmp, "signatures.txt")],
            }
            if len(sys.argv) == 5:
                runs[f"{os.path.basename(sys.argv[3])} -tc='{sys.argv[4]}'"] = [sys.argv[3], "-tc=" + sys.argv[4]]
            for label, argv in runs.items():
                code, out = run(argv, site)
                check(code != 0, f"{label} with {found}: exit status 0\n{out}")
                check(needed in out and found in out,
                      f"{label} with {found}: the output should name {needed!r} and {found!r}:\n{out}")
                if label == "jinja_diff.py":
                    # failed before comparing: no case reported, the closing line counts one failure
                    check("FAIL " not in out and "case(s):" not in out and out.rstrip().endswith("0 passed, 1 failed"),
                          f"jinja_diff.py with {found} compared cases:\n{out}")
                print(f"ok {label} with {found}: fails naming it")

    passed = 1 if not failures else 0
    print(f"{passed} passed, {1 - passed} failed")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
