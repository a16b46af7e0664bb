#!/usr/bin/env python3
"""Reference answers for tests/jinja/pystr_test.cpp, computed by CPython itself.

    pystr_ref.py cases IN OUT
        IN has one case a line: a function name and its arguments, separated by spaces.
        Argument tokens: s<hex> a string (hex of its UTF-8 bytes; bytes that are not valid
        UTF-8 become lone surrogates through 'surrogateescape', which behave like parley's
        invalid units), n None, i<int>, b0/b1, c<int> one character, d<hex> a float given by
        the 16 hex digits of its IEEE-754 bits.
        OUT gets one line a case: the result in the same tokens, l<count> followed by the
        tokens of a list, or e<hex> with the message of the exception raised.

    pystr_ref.py codepoints PLANES MAPPINGS
        PLANES gets one plane per predicate of CODEPOINT_FLAGS, in that order: one byte (0 or
        1) per code point 0..0x10FFFF, surrogates excluded. MAPPINGS gets a line
        'cp upper lower casefold title swapcase' (hex of the UTF-8 of each) for every code
        point where one of them is not the character itself.
"""
import json
import re
import struct
import sys
import urllib.parse

import reference_python

# CPython 3.11 (Unicode 14.0.0), Jinja2 3.1.6 and MarkupSafe 3.0, or a message naming what this is
reference_python.require()

import jinja2  # noqa: E402 (after the check of the reference)
import jinja2.filters as jf  # noqa: E402
import markupsafe  # noqa: E402

ENV = jinja2.Environment()
WORD = re.compile(r"\w")


def decode_token(tok):
    kind, body = tok[0], tok[1:]
    if kind == "s":
        return bytes.fromhex(body).decode("utf-8", "surrogateescape")
    if kind == "n":
        return None
    if kind == "i":
        return int(body)
    if kind == "b":
        return body == "1"
    if kind == "c":
        return chr(int(body))
    if kind == "d":
        if body == "nan":
            return float("nan")
        return struct.unpack(">d", bytes.fromhex(body))[0]
    raise ValueError("bad token " + tok)


def encode(value):
    if isinstance(value, bool):
        return "b1" if value else "b0"
    if isinstance(value, int):
        return "i%d" % value
    if isinstance(value, float):
        if value != value:
            return "dnan"
        return "d" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "s" + value.encode("utf-8", "surrogateescape").hex()
    if isinstance(value, list):
        return " ".join(["l%d" % len(value)] + [encode(v) for v in value])
    raise TypeError(type(value))


def strip(s, chars, left, right):
    if left and right:
        return s.strip(chars)
    if left:
        return s.lstrip(chars)
    if right:
        return s.rstrip(chars)
    return s


def striptags(s):
    return jf.do_striptags(s)


FUNCS = {
    "length": len,
    "offset": lambda s, i: len(s[:i].encode("utf-8", "surrogateescape")),
    "isspace": str.isspace,
    "isalpha": str.isalpha,
    "isdigit": str.isdigit,
    "isalnum": str.isalnum,
    "isdecimal": str.isdecimal,
    "isnumeric": str.isnumeric,
    "islower": str.islower,
    "isupper": str.isupper,
    "istitle": str.istitle,
    "upper": str.upper,
    "lower": str.lower,
    "casefold": str.casefold,
    "swapcase": str.swapcase,
    "capitalize": str.capitalize,
    "title": str.title,
    "jinja_title": jf.do_title,
    "jinja_capitalize": jf.do_capitalize,
    "float_repr": repr,
    "str_repr": repr,
    "json_string": lambda s, ensure_ascii: json.dumps(s, ensure_ascii=ensure_ascii),
    "json_float": json.dumps,
    "html_escape": lambda s: str(markupsafe.escape(s)),
    "strip": strip,
    "split": lambda s, sep, n: s.split(sep, n),
    "rsplit": lambda s, sep, n: s.rsplit(sep, n),
    "splitlines": str.splitlines,
    "find": str.find,
    "rfind": str.rfind,
    "count": str.count,
    "replace": str.replace,
    "center": str.center,
    "ljust": str.ljust,
    "rjust": str.rjust,
    "zfill": str.zfill,
    "wordwrap": lambda s, w, blw, ws, boh: jf.do_wordwrap(ENV, s, w, blw, ws, boh),
    "wordcount": jf.do_wordcount,
    "striptags": striptags,
    "url_quote": lambda s, safe: urllib.parse.quote_from_bytes(
        s.encode("utf-8", "surrogateescape"), safe),
    "truncate": lambda s, n, kill, end, leeway: jf.do_truncate(ENV, s, n, kill, end, leeway),
    "round": round,
}


def run_cases(in_path, out_path):
    with open(in_path, encoding="ascii") as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        name, *toks = line.split(" ")
        args = [decode_token(t) for t in toks]
        try:
            out.append(encode(FUNCS[name](*args)))
        except Exception as exc:  # the C++ side expects the same failure
            out.append("e" + str(exc).encode("utf-8", "surrogateescape").hex())
    with open(out_path, "w", encoding="ascii") as f:
        f.write("\n".join(out))
        f.write("\n")


CODEPOINT_FLAGS = [
    str.isspace, str.isprintable, str.isalpha, str.isdigit, str.isdecimal, str.isnumeric,
    str.isalnum, str.isupper, str.islower, None, str.istitle,  # None: re's \w
]


def run_codepoints(planes_path, mappings_path):
    chars = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    planes = []
    for fn in CODEPOINT_FLAGS:
        if fn is None:
            plane = bytearray(len(chars))
            for m in WORD.finditer("".join(chars)):
                plane[m.start()] = 1
            planes.append(bytes(plane))
        else:
            planes.append(bytes(map(fn, chars)))
    mapped = [list(map(fn, chars)) for fn in
              (str.upper, str.lower, str.casefold, str.title, str.swapcase)]
    lines = []
    for c, *row in zip(chars, *mapped):
        if not c == row[0] == row[1] == row[2] == row[3] == row[4]:
            lines.append("%x %s" % (ord(c), " ".join(r.encode().hex() for r in row)))
    with open(planes_path, "wb") as f:
        f.write(b"".join(planes))
    with open(mappings_path, "w", encoding="ascii") as f:
        f.write("\n".join(lines))
        f.write("\n")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "cases":
        run_cases(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "codepoints":
        run_codepoints(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
