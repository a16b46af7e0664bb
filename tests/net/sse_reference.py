#!/usr/bin/env python3
"""Reads text/event-stream files the way the WHATWG HTML specification's "event stream
interpretation" says and prints every dispatched event as one line of JSON:
{"file": NAME, "event": TYPE, "data": DATA, "id": LAST_EVENT_ID}, where TYPE is the event type
buffer as the stream set it ("" when it did not, which means "message").

    sse_reference.py OUTPUT FILE...

Written from the specification's text, independently of parley's C++ reader, which the tests
compare against it.
"""
import json
import re
import sys


def events(raw: bytes):
    text = raw.decode("utf-8", errors="replace")
    # "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are present."
    if text.startswith("\ufeff"):
        text = text[1:]
    # Lines end with CRLF, LF or CR; text after the last line end is an incomplete line and is
    # never processed (the stream ended before it did).
    parts = re.split(r"\r\n|\n|\r", text)
    complete_lines = parts[:-1]

    data = ""
    event_type = ""
    last_id_buffer = ""
    last_id = ""
    for line in complete_lines:
        if line == "":
            # Dispatch the event.
            last_id = last_id_buffer
            if data == "":
                event_type = ""
                continue
            if data.endswith("\n"):
                data = data[:-1]
            yield {"event": event_type, "data": data, "id": last_id}
            data = ""
            event_type = ""
            continue
        if line.startswith(":"):
            continue
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "event":
            event_type = value
        elif name == "data":
            data += value + "\n"
        elif name == "id":
            if "\0" not in value:
                last_id_buffer = value
        elif name == "retry":
            pass  # the reconnection time does not change the events
        # any other field is ignored


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for path in sys.argv[2:]:
            with open(path, "rb") as f:
                raw = f.read()
            name = path.replace("\\", "/").rsplit("/", 1)[-1]
            for e in events(raw):
                out.write(json.dumps({"file": name, **e}, ensure_ascii=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
