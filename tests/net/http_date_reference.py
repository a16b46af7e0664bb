#!/usr/bin/env python3
"""Reads HTTP dates with Python's email.utils.parsedate_to_datetime, the reference for parley's
reading of Retry-After dates.

    http_date_reference.py INPUT OUTPUT

INPUT has one date per line; OUTPUT gets, per line, the date as whole seconds since
1970-01-01T00:00:00Z (a date without a zone is UTC, as HTTP dates are), or "none" when Python
does not read it.
"""
import datetime
import sys
from email.utils import parsedate_to_datetime


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as out:
        for line in f:
            text = line.rstrip("\n")
            try:
                d = parsedate_to_datetime(text)
            except (TypeError, ValueError, IndexError):
                d = None
            if d is None:
                out.write("none\n")
                continue
            if d.tzinfo is None:
                d = d.replace(tzinfo=datetime.timezone.utc)
            out.write(str(int(d.timestamp())) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
