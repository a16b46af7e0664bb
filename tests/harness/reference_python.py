#!/usr/bin/env python3
"""The reference the differential tests compare parley with: Python Jinja2, as run by one version
of CPython, Jinja2 and MarkupSafe.

Other versions render some cases differently, for reasons that are not parley's (under CPython
3.13 with MarkupSafe 2.1: sort(reverse=...) of a string, str.replace(count=), sum of floats,
randrange of floats, the arguments of Markup's methods). A test that finds another reference
fails with a message naming what it found, instead of reporting those differences as parley's.

    reference_python.py
        exits 0 when the interpreter running it is the reference (and prints what it is), or 1
        with a message naming what it is instead. `PYTHON reference_python.py` asks PYTHON.

As a module: `problem()` is that message or None; `require()` exits with it.
"""
import importlib.metadata
import platform
import sys

# What the differential tests need: CPython 3.11.x, Jinja2 3.1.6, MarkupSafe 3.0.x.
PYTHON = (3, 11)
JINJA2 = "3.1.6"
MARKUPSAFE = (3, 0)

NEEDED = (f"CPython {PYTHON[0]}.{PYTHON[1]} with Jinja2 {JINJA2} and MarkupSafe "
          f"{MARKUPSAFE[0]}.{MARKUPSAFE[1]}")


def distribution_version(name):
    """The installed version of a distribution as this interpreter imports it, or None."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def found():
    """What this interpreter is: (implementation, Python version, Jinja2's, MarkupSafe's)."""
    return (platform.python_implementation(), platform.python_version(),
            distribution_version("Jinja2"), distribution_version("MarkupSafe"))


def describe(implementation, python, jinja2, markupsafe):
    return (f"{implementation} {python} with "
            + (f"Jinja2 {jinja2}" if jinja2 else "no Jinja2") + " and "
            + (f"MarkupSafe {markupsafe}" if markupsafe else "no MarkupSafe"))


def release(version):
    """The first two numbers of a version ('3.0.3' -> (3, 0)), or None."""
    parts = (version or "").split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def is_reference(implementation, python, jinja2, markupsafe):
    return (implementation == "CPython" and release(python) == PYTHON and jinja2 == JINJA2
            and release(markupsafe) == MARKUPSAFE)


def problem(what=None, executable=None):
    """None when `what` (default: this interpreter, found()) is the reference; otherwise the
    message that says what is needed, what was found and how to choose the interpreter."""
    what = what or found()
    if is_reference(*what):
        return None
    executable = executable or sys.executable or "python3"
    return (f"the differential tests compare parley with Python Jinja2 as run by {NEEDED} "
            f"(other versions render some cases differently); {executable} is "
            f"{describe(*what)}. Run the tests with such an interpreter: configure with "
            f"-DPython3_EXECUTABLE=PATH (./dev.sh takes the first python3 or python3.11 on PATH "
            f"that is one), or set PARLEY_PYTHON for a test binary run by hand")


def require():
    """Exits with status 1 and the message when this interpreter is not the reference."""
    message = problem()
    if message:
        sys.stderr.write(f"error: {message}\n")
        sys.exit(1)


def main():
    message = problem()
    if message:
        sys.stderr.write(f"error: {message}\n")
        return 1
    print(f"reference: {sys.executable}: {describe(*found())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
