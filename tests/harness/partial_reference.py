#!/usr/bin/env python3
"""What a partial reader should give for every prefix of a JSON document: the reference for
parley::read_partial_json<T> and parley::partial_reader<T>, written from the whole document
rather than from the prefix, independently of parley's C++ code.

    partial_reference.py INPUT OUTPUT

INPUT is JSON: {"cases": [{"name": N, "spec": SPEC, "document": TEXT}, ...]}. SPEC describes the
C++ type the document is read into:

    {"t": "string"} {"t": "int"} {"t": "number"} {"t": "bool"} {"t": "null"} {"t": "any"}
    {"t": "enum", "names": [...]}              (the first name is the value-initialised one)
    {"t": "optional", "of": SPEC}
    {"t": "array", "of": SPEC}                 (std::vector)
    {"t": "map", "of": SPEC}                   (std::map<std::string, ...>)
    {"t": "object", "members": [[NAME, SPEC, DEFAULT?], ...]}   (a described struct; DEFAULT is
                                               the member's default in JSON, when not the type's)

OUTPUT is JSON: {NAME: [one entry per prefix length 0..len(document)]}, each entry "nothing"
(nothing of the value yet), "fails" (the prefix does not read as the type) or
{"value": V, "states": [[POINTER, STATE], ...]}: V is the value read so far as parley's to_json
writes it (members that have not arrived hold their defaults, a disengaged optional member is
left out), and STATES lists every value that has arrived and that the type reads, in the order
of the text, each "arriving" or "complete".

How a prefix is read (the contract of docs/extraction.md, "replies still streaming in"):
- a value has arrived once its first character has, except a number, which needs one digit
  (a lone "-" is nothing yet); a member of an object arrives with its value;
- it is complete once its last character has (closing quote or bracket, last letter of a
  literal); a number once the character after it has (more digits could follow);
- a string still arriving holds its longest start that decodes whole (no cut escape, no cut
  UTF-8 character, no high surrogate without its low half); a number still arriving, its longest
  start that is a JSON number ("1." gives 1); a literal still arriving is the literal;
- an enum whose name is still arriving and begins some enumerator's name keeps the value it had.
"""
import json
import re
import sys

NUMBER = re.compile(rb"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
SPACE = b" \t\r\n"


class Value:
    """One value of the whole document: its kind, where its text starts and ends, its parts."""

    def __init__(self, kind, start):
        self.kind = kind  # object, array, string, number, literal
        self.start = start
        self.end = None
        self.members = []  # (name, Value) for objects
        self.items = []  # Values for arrays


def skip(doc, i):
    while i < len(doc) and doc[i] in SPACE:
        i += 1
    return i


def string_end(doc, i):
    """The end of the string literal starting at doc[i] == '"'."""
    k = i + 1
    while doc[k : k + 1] != b'"':
        k += 2 if doc[k : k + 1] == b"\\" else 1
    return k + 1


def parse(doc, i):
    """The value starting at doc[i] (after white space), recursively."""
    c = doc[i : i + 1]
    if c == b"{":
        v = Value("object", i)
        i = skip(doc, i + 1)
        if doc[i : i + 1] == b"}":
            v.end = i + 1
            return v
        while True:
            key_end = string_end(doc, i)
            name = json.loads(doc[i:key_end])
            i = skip(doc, key_end)
            assert doc[i : i + 1] == b":"
            member = parse(doc, skip(doc, i + 1))
            v.members.append((name, member))
            i = skip(doc, member.end)
            if doc[i : i + 1] == b"}":
                v.end = i + 1
                return v
            assert doc[i : i + 1] == b","
            i = skip(doc, i + 1)
    if c == b"[":
        v = Value("array", i)
        i = skip(doc, i + 1)
        if doc[i : i + 1] == b"]":
            v.end = i + 1
            return v
        while True:
            item = parse(doc, i)
            v.items.append(item)
            i = skip(doc, item.end)
            if doc[i : i + 1] == b"]":
                v.end = i + 1
                return v
            assert doc[i : i + 1] == b","
            i = skip(doc, i + 1)
    if c == b'"':
        v = Value("string", i)
        v.end = string_end(doc, i)
        return v
    m = NUMBER.match(doc, i)
    if m and m.end() > i:
        v = Value("number", i)
        v.end = m.end()
        return v
    for literal in (b"true", b"false", b"null"):
        if doc.startswith(literal, i):
            v = Value("literal", i)
            v.end = i + len(literal)
            return v
    raise ValueError(f"no JSON value at offset {i}")


class Arrived:
    """What has arrived of one value in a prefix: its value so far, its state, its parts."""

    def __init__(self, value, state, members=None, items=None):
        self.value = value
        self.state = state
        self.members = members or []  # (name, Arrived)
        self.items = items or []


def arrived(v, doc, n):
    """What of v has arrived in doc[:n], or None."""
    if v.start >= n:
        return None
    whole = v.end <= n
    if v.kind == "string":
        if whole:
            return Arrived(json.loads(doc[v.start : v.end]), "complete")
        content = doc[v.start + 1 : n]
        for k in range(len(content), -1, -1):
            try:
                s = json.loads(b'"' + content[:k] + b'"')
            except ValueError:  # a cut escape or UTF-8 character
                continue
            if s and "\ud800" <= s[-1] <= "\udbff":  # a high surrogate without its low half
                continue
            return Arrived(s, "arriving")
        raise AssertionError("unreachable")
    if v.kind == "number":
        if v.end < n:
            return Arrived(json.loads(doc[v.start : v.end]), "complete")
        text = doc[v.start : min(n, v.end)]
        for k in range(len(text), 0, -1):
            if NUMBER.fullmatch(text[:k]):
                return Arrived(json.loads(text[:k]), "arriving")
        return None
    if v.kind == "literal":
        return Arrived(json.loads(doc[v.start : v.end]), "complete" if whole else "arriving")
    state = "complete" if whole else "arriving"
    if v.kind == "array":
        items = [a for a in (arrived(item, doc, n) for item in v.items) if a is not None]
        return Arrived([a.value for a in items], state, items=items)
    members = []
    for name, member in v.members:
        a = arrived(member, doc, n)
        if a is not None:
            members.append((name, a))
    return Arrived({name: a.value for name, a in members}, state, members=members)


class Fails(Exception):
    pass


def zero(spec):
    """The value-initialised value of a type, in JSON."""
    t = spec["t"]
    if t == "object":
        out = {}
        for m in spec["members"]:
            if m[1]["t"] != "optional":
                out[m[0]] = m[2] if len(m) > 2 else zero(m[1])
        return out
    return {"string": "", "int": 0, "number": 0.0, "bool": False, "null": None, "any": None, "optional": None,
            "array": [], "map": {}, "enum": spec.get("names", [""])[0]}[t]


def typed(spec, a, before):
    """The C++ value (as to_json writes it) read from `a`; `before` is what it held."""
    t = spec["t"]
    v = a.value
    if t == "any":
        return v
    if t == "optional":
        if v is None:
            return None
        return typed(spec["of"], a, zero(spec["of"]))
    if t == "string":
        if not isinstance(v, str):
            raise Fails()
        return v
    if t == "bool":
        if not isinstance(v, bool):
            raise Fails()
        return v
    if t == "null":
        if v is not None:
            raise Fails()
        return None
    if t == "int":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Fails()
        if isinstance(v, float):
            if v != int(v):
                raise Fails()
            v = int(v)
        return v
    if t == "number":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Fails()
        return float(v)
    if t == "enum":
        if not isinstance(v, str):
            raise Fails()
        if v in spec["names"]:
            return v
        if a.state == "arriving" and any(name.startswith(v) for name in spec["names"]):
            return before
        raise Fails()
    if t == "array":
        if not isinstance(v, list):
            raise Fails()
        return [typed(spec["of"], item, zero(spec["of"])) for item in a.items]
    if t == "map":
        if not isinstance(v, dict):
            raise Fails()
        return {name: typed(spec["of"], m, zero(spec["of"])) for name, m in a.members}
    if t == "object":
        if not isinstance(v, dict):
            raise Fails()
        got = dict(a.members)
        out = {}
        for m in spec["members"]:
            name, mspec = m[0], m[1]
            default = m[2] if len(m) > 2 else zero(mspec)
            if name in got:
                x = typed(mspec, got[name], default)
            else:
                x = None if mspec["t"] == "optional" else default
            if mspec["t"] == "optional" and x is None:
                continue  # a disengaged optional member is left out
            out[name] = x
        return out
    raise ValueError(f"unknown type {t}")


def pointer(base, name):
    return base + "/" + str(name).replace("~", "~0").replace("/", "~1")


def states(spec, a, path, out):
    """Every value of `a` the type reads, with its state, in the order of the text."""
    out.append([path, a.state])
    parts(spec, a, path, out)


def parts(spec, a, path, out):
    t = spec["t"]
    if t == "optional":
        parts(spec["of"], a, path, out)
    elif t == "any":
        for name, m in a.members:
            states(spec, m, pointer(path, name), out)
        for k, item in enumerate(a.items):
            states(spec, item, pointer(path, k), out)
    elif t == "array":
        for k, item in enumerate(a.items):
            states(spec["of"], item, pointer(path, k), out)
    elif t == "map":
        for name, m in a.members:
            states(spec["of"], m, pointer(path, name), out)
    elif t == "object":
        specs = {m[0]: m[1] for m in spec["members"]}
        for name, m in a.members:
            if name in specs:
                states(specs[name], m, pointer(path, name), out)


def reference(spec, document):
    doc = document.encode("utf-8")
    start = skip(doc, 0)
    whole = parse(doc, start)
    out = []
    for n in range(len(doc) + 1):
        a = arrived(whole, doc, n)
        if a is None:
            out.append("nothing")
            continue
        try:
            value = typed(spec, a, zero(spec))
        except Fails:
            out.append("fails")
            continue
        listed = []
        states(spec, a, "", listed)
        out.append({"value": value, "states": listed})
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    result = {c["name"]: reference(c["spec"], c["document"]) for c in cases}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
