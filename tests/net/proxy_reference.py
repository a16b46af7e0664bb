#!/usr/bin/env python3
"""Answers NO_PROXY questions with Python's own rules (urllib.request.proxy_bypass_environment,
which Python requests also uses), the reference for host names and ports.

    proxy_reference.py INPUT OUTPUT

INPUT has one question per line, "NO_PROXY<TAB>HOST<TAB>PORT"; OUTPUT gets "1" (bypass the
proxy) or "0" per line.
"""
import sys
import urllib.request


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as out:
        for line in f:
            no_proxy, host, port = line.rstrip("\n").split("\t")
            bypass = urllib.request.proxy_bypass_environment(f"{host}:{port}", {"no": no_proxy})
            out.write(("1" if bypass else "0") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
