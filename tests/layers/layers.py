#!/usr/bin/env python3
"""Checks that no header of include/parley includes a header of a layer below its own.

    layers.py INCLUDE_DIR

The layers, from the top (docs/architecture.md): a header may include headers of its own layer
and of the layers above it, never of those below. The umbrella headers parley.hpp and
parley/src.hpp, which gather every layer, are above none and may include anything; the other
umbrella headers (parley/jinja.hpp, parley/chat.hpp...) belong to the layer they gather.
The testing layer (the fake model server) comes right after support, so that it can use nothing
else: it is a second reading of the wire formats, apart from parley's clients. It is for tests
only, and no other layer may include it. Every #include <parley/...> counts, in any branch of a
preprocessor conditional. Prints each include that goes down the layers or into the testing
layer, with its file and line, and exits with status 1 if there is one.
"""
import os
import re
import sys

# (layer, the paths under include/ that belong to it), from the top
LAYERS = [
    ("support", ["parley/config.hpp", "parley/error.hpp", "parley/fixed_string.hpp", "parley/string_list.hpp",
                 "parley/type_name.hpp", "parley/detail/"]),
    ("testing", ["parley/testing/"]),
    ("jinja", ["parley/jinja.hpp", "parley/jinja/"]),
    ("schema", ["parley/schema.hpp", "parley/schema/"]),
    ("chat", ["parley/chat.hpp", "parley/chat/"]),
    ("tokens", ["parley/tokens.hpp", "parley/tokens/"]),
    ("net", ["parley/net/"]),
    ("mcp", ["parley/mcp/"]),
    ("provider", ["parley/provider/"]),
    ("bot", ["parley/bot.hpp", "parley/bot/"]),
    ("batch", ["parley/batch.hpp", "parley/batch/"]),
]
EVERYTHING = {"parley.hpp", "parley/src.hpp"}
# layers that only their own headers may include
FOR_TESTS_ONLY = {"testing"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](parley[^>"]*)[>"]')


def layer_of(path):
    for rank, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
                return rank, name
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    problems = []
    headers = 0
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".hpp"):
                continue
            full = os.path.join(dirpath, f)
            path = os.path.relpath(full, root).replace(os.sep, "/")
            headers += 1
            if path in EVERYTHING:
                continue
            mine = layer_of(path)
            if mine is None:
                problems.append(f"{path}: in no layer (add its folder to LAYERS in {__file__})")
                continue
            with open(full, encoding="utf-8") as src:
                for number, line in enumerate(src, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    theirs = layer_of(target)
                    if target in EVERYTHING:
                        problems.append(f"{path}:{number}: includes {target}, which gathers every layer")
                    elif theirs is None:
                        problems.append(f"{path}:{number}: includes {target}, which is in no layer")
                    elif theirs[0] > mine[0]:
                        problems.append(f"{path}:{number}: the {mine[1]} layer includes {target} of the "
                                        f"{theirs[1]} layer, below it")
                    elif theirs[1] in FOR_TESTS_ONLY and theirs[1] != mine[1]:
                        problems.append(f"{path}:{number}: the {mine[1]} layer includes {target} of the "
                                        f"{theirs[1]} layer, which is for tests only")
    for p in problems:
        print(p)
    if headers == 0:
        print(f"no header found under {root}")
        return 1
    print(f"layers: {headers} headers, {len(problems)} includes that go down the layers, out of them or into "
          f"the testing layer")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
