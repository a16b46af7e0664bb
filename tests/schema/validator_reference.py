#!/usr/bin/env python3
"""The reference of parley::schema_validator's tests (tests/schema/validator_test.cpp): Python's
jsonschema, asked at test time.

    validator_reference.py cases IN OUT        the cases of IN
    validator_reference.py random SEED N OUT   N random schemas, each with a few instances

IN is {"cases": [{"name", "schema", "instances": [...]}, ...]}. OUT is {"cases": [...]}: each
case as given (the random ones made here) with

    "schema_error": null, or jsonschema's meta-schema error (check_schema),
    "results": [{"valid": bool, "errors": [ERROR, ...]}, ...]   one per instance

where ERROR is {"instance_path", "schema_path", "keyword", "message", "context": [ERROR...]}, the
paths as JSON pointers (the schema path as jsonschema gives it: without the "$ref"s it went
through), every error of iter_errors, in its order. The dialect is the schema's "$schema", else
draft 2020-12; formats are not checked (jsonschema's default).

The random schemas use the keywords parley implements, in both dialects, with $defs and $refs
(recursive ones too), patterns of the ECMA-262 subset that Python's re reads the same way on the
strings made here (ASCII without line breaks), numbers that are integers, halves, tenths and a
few large ones. Instances are made from the schema (mostly near it: the properties it names,
items of its item schemas, strings of its patterns' letters, numbers near its bounds) and at
random, so that about half of them fit.
"""
import json
import random
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for
except ImportError as exc:
    sys.exit("validator_reference.py: needs the jsonschema package (%s)" % exc)

DRAFT7 = "http://json-schema.org/draft-07/schema#"


def pointer(tokens):
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def error_record(e):
    return {
        "instance_path": pointer(e.absolute_path),
        "schema_path": pointer(e.absolute_schema_path),
        "keyword": e.validator if isinstance(e.validator, str) else "",
        "message": e.message,
        "context": [error_record(c) for c in e.context],
    }


def check_case(case):
    schema = case["schema"]
    out = dict(case)
    out["schema_error"] = None
    out["results"] = []
    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        out["schema_error"] = exc.message
        return out
    validator = cls(schema)
    for instance in case.get("instances", []):
        errors = [error_record(e) for e in validator.iter_errors(instance)]
        out["results"].append({"valid": not errors, "errors": errors})
    return out


# --- random schemas ----------------------------------------------------------------------------

LETTERS = "ab01 _"
NAMES = ["a", "b", "c", "d"]


class maker:
    def __init__(self, rng, draft7):
        self.r = rng
        self.draft7 = draft7
        self.defs = {}
        self.defs_key = "definitions" if draft7 and rng.random() < 0.5 else "$defs"

    # values -----------------------------------------------------------------------------------
    def string(self, letters=LETTERS):
        return "".join(self.r.choice(letters) for _ in range(self.r.randint(0, 4)))

    def number(self):
        r = self.r
        k = r.random()
        if k < 0.45:
            return r.randint(-4, 12)
        if k < 0.65:
            return r.randint(-8, 24) / 2
        if k < 0.8:
            return r.randint(-20, 40) / 10
        return r.choice([1e16, 1.5e-05, 0.0001, 123456789.5, 2 ** 63, 2 ** 64 - 1, -2 ** 63, 1e300, 7.0, -0.0])

    def value(self, depth=0, in_array=False):
        r = self.r
        kinds = ["null", "bool", "number", "string"] + (["array", "object"] if depth < 2 else [])
        kind = r.choice(kinds)
        if kind == "null":
            return None
        if kind == "bool":
            return None if in_array else r.random() < 0.5  # no booleans inside arrays: see uniq below
        if kind == "number":
            return self.number()
        if kind == "string":
            return self.string()
        if kind == "array":
            return [self.value(depth + 1, True) for _ in range(r.randint(0, 3))]
        return {r.choice(NAMES + ["e", "x1"]): self.value(depth + 1) for _ in range(r.randint(0, 3))}

    # patterns: what Python's re and ECMA-262 read alike -----------------------------------------
    def pattern(self, depth=0):
        r = self.r
        parts = []
        if r.random() < 0.4:
            parts.append("^")
        for _ in range(r.randint(1, 3)):
            k = r.random()
            if k < 0.35:
                atom = r.choice("ab01_") if r.random() < 0.8 else "\\" + r.choice(".-")
            elif k < 0.5:
                atom = r.choice(["[ab]", "[a-c]", "[^a]", "[0-9_]", "[\\d]", "[^\\s]"])
            elif k < 0.65:
                atom = r.choice(["\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "."])
            elif k < 0.75 and depth < 2:
                atom = "(" + ("?:" if r.random() < 0.5 else "") + self.pattern(depth + 1).strip("^$") + ")"
            elif k < 0.85 and depth < 2:
                atom = "(" + self.pattern(depth + 1).strip("^$") + "|" + self.pattern(depth + 1).strip("^$") + ")"
            else:
                atom = "\\b" if r.random() < 0.5 else r.choice("ab")
            if not atom.startswith("\\b") and r.random() < 0.4:
                atom += r.choice(["*", "+", "?", "{1,2}", "{2}", "{0,}", "*?"])
            parts.append(atom)
        if r.random() < 0.4:
            parts.append("$")
        return "".join(parts)

    # schemas ----------------------------------------------------------------------------------
    def shuffled(self, d):
        items = list(d.items())
        self.r.shuffle(items)
        return dict(items)

    def schema(self, depth=0):
        r = self.r
        if depth > 3 or r.random() < 0.06:
            return r.random() < 0.7 if depth > 0 else {}
        kind = r.choice(["object", "object", "array", "array", "string", "string", "number", "integer", "combinator",
                         "combinator", "enum", "const", "ref", "types", "conditional"])
        s = getattr(self, "schema_" + kind)(depth)
        if r.random() < 0.1:
            s["description"] = "d"
        if r.random() < 0.05:
            s["format"] = r.choice(["email", "date-time"])
        return self.shuffled(s)

    def schema_object(self, depth):
        r = self.r
        s = {}
        if r.random() < 0.8:
            s["type"] = "object"
        names = r.sample(NAMES, r.randint(0, 3))
        if names or r.random() < 0.3:
            s["properties"] = {n: self.schema(depth + 1) for n in names}
        if r.random() < 0.6:
            s["required"] = r.sample(NAMES, r.randint(0, 2))
        k = r.random()
        if k < 0.35:
            s["additionalProperties"] = False
        elif k < 0.5:
            s["additionalProperties"] = self.schema(depth + 1)
        if r.random() < 0.2:
            s["patternProperties"] = {self.pattern(): self.schema(depth + 1)}
        if r.random() < 0.1:
            s["propertyNames"] = {"pattern": self.pattern(), "maxLength": r.randint(1, 3)}
        if r.random() < 0.15:
            s["minProperties"] = r.randint(0, 2)
        if r.random() < 0.15:
            s["maxProperties"] = r.randint(0, 3)
        if r.random() < 0.15:
            a, b = r.sample(NAMES, 2)
            if self.draft7:
                s["dependencies"] = {a: [b]} if r.random() < 0.5 else {a: self.schema(depth + 1)}
            else:
                s["dependentRequired"] = {a: [b]}
        if not self.draft7 and r.random() < 0.1:
            s["dependentSchemas"] = {r.choice(NAMES): self.schema(depth + 1)}
        return s

    def schema_array(self, depth):
        r = self.r
        s = {}
        if r.random() < 0.8:
            s["type"] = "array"
        if self.draft7:
            k = r.random()
            if k < 0.4:
                s["items"] = self.schema(depth + 1)
            elif k < 0.7:
                s["items"] = [self.schema(depth + 1) for _ in range(r.randint(1, 2))]
                if r.random() < 0.6:
                    s["additionalItems"] = False if r.random() < 0.5 else self.schema(depth + 1)
        else:
            if r.random() < 0.35:
                s["prefixItems"] = [self.schema(depth + 1) for _ in range(r.randint(1, 2))]
            k = r.random()
            if k < 0.3:
                s["items"] = False
            elif k < 0.7:
                s["items"] = self.schema(depth + 1)
        if r.random() < 0.25:
            s["contains"] = self.schema(depth + 1)
            if not self.draft7:
                if r.random() < 0.4:
                    s["minContains"] = r.randint(0, 2)
                if r.random() < 0.4:
                    s["maxContains"] = r.randint(0, 2)
        if r.random() < 0.25:
            s["minItems"] = r.randint(0, 2)
        if r.random() < 0.25:
            s["maxItems"] = r.randint(0, 3)
        if r.random() < 0.25:
            s["uniqueItems"] = r.random() < 0.8
        return s

    def schema_string(self, depth):
        r = self.r
        s = {"type": "string"} if r.random() < 0.8 else {}
        if r.random() < 0.35:
            s["minLength"] = r.randint(0, 3)
        if r.random() < 0.35:
            s["maxLength"] = r.randint(0, 4)
        if r.random() < 0.5:
            s["pattern"] = self.pattern()
        return s

    def bounds(self, s, integer):
        r = self.r
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]:
            if r.random() < 0.25:
                s[key] = r.randint(-3, 8) if integer or r.random() < 0.5 else r.randint(-6, 16) / 2
        if r.random() < 0.3:
            s["multipleOf"] = r.choice([1, 2, 3, 0.5, 0.1, 0.25, 1.5, 2.0])
        return s

    def schema_number(self, depth):
        return self.bounds({"type": "number"} if self.r.random() < 0.8 else {}, False)

    def schema_integer(self, depth):
        return self.bounds({"type": "integer"}, True)

    def schema_types(self, depth):
        r = self.r
        types = r.sample(["null", "boolean", "integer", "number", "string", "array", "object"], r.randint(1, 3))
        return {"type": types if len(types) > 1 or r.random() < 0.5 else types[0]}

    def schema_combinator(self, depth):
        r = self.r
        k = r.choice(["allOf", "anyOf", "oneOf", "not"])
        if k == "not":
            return {"not": self.schema(depth + 1)}
        return {k: [self.schema(depth + 1) for _ in range(r.randint(1, 3))]}

    def schema_conditional(self, depth):
        r = self.r
        s = {"if": self.schema(depth + 1)}
        if r.random() < 0.7:
            s["then"] = self.schema(depth + 1)
        if r.random() < 0.7:
            s["else"] = self.schema(depth + 1)
        return s

    def schema_enum(self, depth):
        return {"enum": [self.value(1) for _ in range(self.r.randint(1, 4))]}

    def schema_const(self, depth):
        return {"const": self.value(1)}

    def schema_ref(self, depth):
        r = self.r
        if not self.defs or (len(self.defs) < 3 and r.random() < 0.5):
            name = "n%d" % len(self.defs)
            if r.random() < 0.3:
                # a recursive definition: a list of integers as nested objects
                self.defs[name] = {"type": "object", "properties": {
                    "v": {"type": "integer"}, "next": {"$ref": "#/%s/%s" % (self.defs_key, name)}},
                    "required": ["v"]}
            else:
                self.defs[name] = None  # reserved: a definition may refer to the ones before it
                self.defs[name] = self.schema(depth + 1)
        ready = [n for n, d in self.defs.items() if d is not None]
        if not ready:  # only the definition being made: no $ref to it from inside itself
            return {"type": "integer"}
        name = r.choice(ready)
        s = {"$ref": "#/%s/%s" % (self.defs_key, name)}
        if r.random() < 0.3:
            s["type"] = r.choice(["object", "integer", "string"])  # a sibling: ignored by draft-07
        return s

    def root(self):
        s = self.schema(0)
        if not isinstance(s, dict):
            s = {"allOf": [s]}
        s = dict(s)
        if self.defs:
            s[self.defs_key] = {n: d for n, d in self.defs.items() if d is not None}
        if self.draft7:
            s["$schema"] = DRAFT7
        return s

    # instances near a schema ------------------------------------------------------------------
    def resolve(self, ref):
        return self.defs.get(ref.rsplit("/", 1)[-1]) or {}

    def near(self, s, depth=0):
        r = self.r
        if depth > 4 or not isinstance(s, dict) or r.random() < 0.15:
            return self.value(2)
        if "$ref" in s and r.random() < 0.8:
            return self.near(self.resolve(s["$ref"]), depth + 1)
        for k in ("allOf", "anyOf", "oneOf"):
            if k in s:
                return self.near(r.choice(s[k]), depth + 1)
        if "if" in s:
            return self.near(r.choice([s["if"], s.get("then", {}), s.get("else", {})]), depth + 1)
        if "enum" in s:
            return r.choice(s["enum"]) if r.random() < 0.7 else self.value(1)
        if "const" in s:
            return s["const"] if r.random() < 0.7 else self.value(1)
        t = s.get("type")
        if isinstance(t, list):
            t = r.choice(t)
        if t == "object" or "properties" in s or "required" in s:
            o = {}
            for name, sub in s.get("properties", {}).items():
                if r.random() < 0.75:
                    o[name] = self.near(sub, depth + 1)
            for name in s.get("required", []):
                if name not in o and r.random() < 0.7:
                    o[name] = self.value(2)
            if r.random() < 0.25:
                o[r.choice(["e", "x1", "a_", "b0"])] = self.value(2)
            return o
        if t == "array" or "items" in s or "prefixItems" in s:
            out = []
            prefix = s.get("prefixItems", s.get("items") if isinstance(s.get("items"), list) else [])
            for sub in prefix:
                if r.random() < 0.8:
                    out.append(self.near(sub, depth + 1))
            rest = s.get("items") if isinstance(s.get("items"), (dict, bool)) else s.get("additionalItems", {})
            for _ in range(r.randint(0, 3)):
                out.append(self.near(rest, depth + 1))
            if "contains" in s and r.random() < 0.5:
                out.append(self.near(s["contains"], depth + 1))
            if s.get("uniqueItems") and out and r.random() < 0.3:
                out.append(out[0])
            return out
        if t == "string" or "pattern" in s or "minLength" in s:
            letters = "".join(c for c in s.get("pattern", "") if c in "ab01_ ") or LETTERS
            return self.string(letters)
        if t in ("number", "integer") or "minimum" in s or "multipleOf" in s:
            bounds = [s[k] for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") if k in s]
            if bounds and r.random() < 0.6:
                b = r.choice(bounds)
                return b + r.choice([-1, 0, 0, 1, 0.5])
            if "multipleOf" in s and r.random() < 0.5:
                return s["multipleOf"] * r.randint(-3, 6)
            return self.number() if t != "integer" or r.random() < 0.3 else r.randint(-4, 10)
        if t == "boolean":
            return r.random() < 0.5
        if t == "null":
            return None
        return self.value(1)


def has_key(s, key):
    if isinstance(s, dict):
        return key in s or any(has_key(v, key) for v in s.values())
    if isinstance(s, list):
        return any(has_key(v, key) for v in s)
    return False


def nested_bool(v, in_array=False):
    """Whether a list inside a list holds a boolean: jsonschema's uniq sorts such lists with True
    equal to 1 and may then miss a repeated item (a known quirk it has), which the cases avoid."""
    if isinstance(v, bool):
        return in_array
    if isinstance(v, list):
        return any(nested_bool(x, True) for x in v)
    if isinstance(v, dict):
        return any(nested_bool(x, False) for x in v.values())
    return False


def random_cases(seed, count):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        m = maker(rng, draft7=rng.random() < 0.25)
        schema = m.root()
        instances = []
        for _ in range(6):
            v = m.near(schema) if rng.random() < 0.8 else m.value()
            if has_key(schema, "uniqueItems") and nested_bool(v):
                continue
            instances.append(v)
        cases.append({"name": "random %d" % len(cases), "schema": schema, "instances": instances})
    return cases


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "cases":
        with open(sys.argv[2], encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        out = sys.argv[3]
    elif len(sys.argv) == 5 and sys.argv[1] == "random":
        cases = random_cases(int(sys.argv[2]), int(sys.argv[3]))
        out = sys.argv[4]
    else:
        sys.exit(__doc__)
    results = [check_case(c) for c in cases]
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"cases": results}, f)


if __name__ == "__main__":
    main()
