#!/usr/bin/env python3
"""The independent validator of the schema tests (tests/schema/*_test.cpp): Python's jsonschema.

    schema_check.py IN OUT

IN is a JSON file: {"cases": [{"name": ..., "schema": {...}, "instances": [...]}, ...]}.
For every case, OUT (a JSON file) gets, in the same order:

    {"name": ...,
     "schema_error": null or the message of jsonschema's meta-schema check (draft 2020-12),
     "annotation_errors": ["<path>: <message>", ...]   every "default" and every item of
                          "examples" validated against the schema that carries it,
     "results": [{"valid": bool, "error": null or the first message}, ...]   one per instance}

Formats are checked with jsonschema's format checker (for the formats it knows).
"""
import json
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as exc:
    sys.exit("schema_check.py: needs the jsonschema package (%s)" % exc)

# Keywords whose value is a schema, and those whose value is an array or object of schemas.
SCHEMA_KEYWORDS = ("items", "additionalProperties", "not", "contains", "propertyNames",
                   "if", "then", "else", "unevaluatedItems", "unevaluatedProperties")
SCHEMA_LIST_KEYWORDS = ("anyOf", "allOf", "oneOf", "prefixItems")
SCHEMA_MAP_KEYWORDS = ("properties", "$defs", "patternProperties", "dependentSchemas")


def subschemas(schema, path="#"):
    """Every schema object inside schema (schema itself first), with its JSON pointer."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key in SCHEMA_KEYWORDS:
        if key in schema:
            yield from subschemas(schema[key], path + "/" + key)
    for key in SCHEMA_LIST_KEYWORDS:
        for i, sub in enumerate(schema.get(key, [])):
            yield from subschemas(sub, "%s/%s/%d" % (path, key, i))
    for key in SCHEMA_MAP_KEYWORDS:
        for name, sub in schema.get(key, {}).items():
            yield from subschemas(sub, "%s/%s/%s" % (path, key, name))


def first_error(validator, instance):
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    return None if error is None else error.message


def check_case(case):
    schema = case["schema"]
    out = {"name": case.get("name", ""), "schema_error": None, "annotation_errors": [], "results": []}
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        out["schema_error"] = exc.message
        return out
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for path, sub in subschemas(schema):
        values = []
        if "default" in sub:
            values.append(("default", sub["default"]))
        for i, example in enumerate(sub.get("examples", [])):
            values.append(("examples/%d" % i, example))
        if not values:
            continue
        bare = {k: v for k, v in sub.items() if k not in ("default", "examples")}
        local = validator.evolve(schema=bare)
        for where, value in values:
            message = first_error(local, value)
            if message is not None:
                out["annotation_errors"].append("%s/%s: %s" % (path, where, message))
    for instance in case.get("instances", []):
        message = first_error(validator, instance)
        out["results"].append({"valid": message is None, "error": message})
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: schema_check.py IN OUT")
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    results = [check_case(case) for case in cases]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump({"cases": results}, f)


if __name__ == "__main__":
    main()
