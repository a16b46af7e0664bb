#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora and dictionaries from the project's test data.

    make_seeds.py --source REPO --shared SHARED_DIR --out BUILD_DIR/fuzz

For each target NAME (fuzz-jinja, fuzz-jinja-compiled, fuzz-yaml, fuzz-stream, fuzz-json,
fuzz-commands, fuzz-mcp, fuzz-tokens, fuzz-batch, fuzz-schema) it writes OUT/seeds/NAME/ (one file per input, named by its SHA-1, the whole
directory rewritten) and, for the template and YAML targets, OUT/dict/NAME.dict. Every input
starts with the selector byte(s) the target reads first (see the comment at the top of each
fuzz/*_fuzz.cpp). The sources:
- templates: tests/jinja/cases/*.jsonl, SHARED/corpus/chat-templates/*.jinja, SHARED/corpus/rasa;
- YAML: every *.yaml / *.yml under examples/ and tests/, and the YAML texts written in
  tests/chat/yaml_test.cpp;
- event streams: SHARED/fixtures/openai-sse/*.sse, tests/provider/openai-sse-assembled/cases/*.sse,
  tests/provider/anthropic-data/*.sse and the streams and events written in
  tests/net/sse_test.cpp and tests/provider/*stream_test.cpp;
- JSON: the *.json files of tests/ and examples/, SHARED/corpus/contexts, and the texts
  written in tests/schema/{json_text,partial_json,partial,from_json}_test.cpp;
- action lists: the texts written in tests/schema/{commands,rasa_commands}_test.cpp;
- JSON Schemas: the schemas and instances of tests/schema/validator_cases.json, and their patterns
  with the strings they are tried on.
A missing shared directory only leaves its inputs out (with a note on stderr), unless
--require-shared is given (the ctest runs): then it is an error.
"""
import argparse
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

MAX_SEED = 64 * 1024  # run.sh's -max_len is smaller; longer seeds are cut by libFuzzer anyway


def cpp_string_literals(text):
    """The string literals of a C++ source, decoded (raw strings as written; adjacent literals
    joined)."""
    pieces = []  # (end offset, value)
    pattern = re.compile(r'R"([^()\\ ]{0,16})\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"', re.S)
    for m in pattern.finditer(text):
        value = m.group(2) if m.group(2) is not None else decode_escapes(m.group(3))
        between = text[pieces[-1][0]:m.start()] if pieces else None
        if pieces and between is not None and between.strip() == "":
            pieces[-1] = (m.end(), pieces[-1][1] + value)
        else:
            pieces.append((m.end(), value))
    return [v for _, v in pieces]


def decode_escapes(s):
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34, "'": 39, "a": 7, "b": 8, "f": 12, "v": 11, "?": 63}
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out += c.encode("utf-8")
            i += 1
            continue
        e = s[i + 1]
        if e == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2:])
            out.append(int(m.group(0), 16) if m else 0)
            i += 2 + (len(m.group(0)) if m else 0)
        elif e in "uU":
            n = 4 if e == "u" else 8
            try:
                out += chr(int(s[i + 2:i + 2 + n], 16)).encode("utf-8", "surrogatepass")
            except ValueError:
                pass
            i += 2 + n
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        else:
            out.append(simple.get(e, ord(e) if ord(e) < 128 else 63))
            i += 2
    return out.decode("utf-8", "surrogateescape")


def encode(s):
    return s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s


class corpus:
    def __init__(self, out, name):
        self.dir = out / "seeds" / name
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.count = 0

    def add(self, prefix, payload):
        data = bytes(prefix) + encode(payload)
        data = data[:MAX_SEED]
        name = hashlib.sha1(data).hexdigest()
        path = self.dir / name
        if not path.exists():
            path.write_bytes(data)
            self.count += 1


def read_text(path):
    return path.read_text(encoding="utf-8", errors="surrogateescape")


def walk(value):
    """Every (key, value) pair of the objects inside a JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def literals_of(paths):
    found = []
    for p in paths:
        if p.exists():
            found.extend(cpp_string_literals(read_text(p)))
    return found


def write_dict(out, name, words):
    d = out / "dict"
    d.mkdir(parents=True, exist_ok=True)
    lines = []
    for w in sorted(set(words)):
        escaped = "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else "\\x%02X" % b for b in encode(w))
        lines.append('"%s"' % escaped)
    (d / (name + ".dict")).write_text("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", required=True, type=Path, help="the repository")
    ap.add_argument("--shared", required=True, type=Path, help="the shared test data (corpus/, fixtures/)")
    ap.add_argument("--out", required=True, type=Path, help="where seeds/ and dict/ are written")
    ap.add_argument("--require-shared", action="store_true",
                    help="fail when the shared corpus or fixtures are missing")
    args = ap.parse_args()
    src, shared, out = args.source, args.shared, args.out
    missing = [d for d in ("corpus", "fixtures/openai-sse") if not (shared / d).is_dir()]
    if missing and args.require_shared:
        print("make_seeds.py: error: the shared test data lacks %s (looked in %s)" % (", ".join(missing), shared),
              file=sys.stderr)
        return 1
    if not (shared / "corpus").is_dir():
        print("make_seeds.py: no shared corpus at %s; its inputs are left out" % shared, file=sys.stderr)

    # ---- templates ----
    jinja = corpus(out, "fuzz-jinja")
    compiled = corpus(out, "fuzz-jinja-compiled")
    for f in sorted((src / "tests/jinja/cases").glob("*.jsonl")):
        for line in read_text(f).split("\n"):
            if not line.strip():
                continue
            case = json.loads(line)
            tpl = case.get("template")
            if not isinstance(tpl, str):
                continue
            hf = 1 if case.get("env") == "hf" else 0
            jinja.add([hf], tpl)
            compiled.add([0x0B if hf else 0], tpl)  # hf: trim_blocks, lstrip_blocks, loop_controls
    for sub in ("corpus/chat-templates", "corpus/rasa"):
        for f in sorted((shared / sub).glob("*.jinja*")) if (shared / sub).is_dir() else []:
            tpl = read_text(f)
            jinja.add([1], tpl)
            jinja.add([0], tpl)
            compiled.add([0x0B], tpl)
            compiled.add([0x00], tpl)
    jinja_words = ["{{", "}}", "{%", "%}", "{#", "#}", "{%-", "-%}", "{{-", "-}}", "{%+", "|", "(", ")", "[", "]",
                   ",", ":", ".", "=", "==", "!=", "<=", ">=", "**", "//", "~", "'", '"', "\\u00e9", "\\x41"]
    jinja_words += ("for in endfor if elif else endif set endset macro endmacro call endcall filter endfilter "
                    "raw endraw with endwith block endblock break continue recursive not and or is true false "
                    "none True False None loop caller varargs kwargs namespace range dict lipsum cycler joiner "
                    "raise_exception strftime_now self super import include extends from as").split()
    for f in sorted((src / "include/parley/jinja/detail").glob("*.hpp")):
        jinja_words += re.findall(r'\{"([a-z_]+)", *[a-z_:]*[ftg]_', read_text(f))
    write_dict(out, "fuzz-jinja", jinja_words)
    write_dict(out, "fuzz-jinja-compiled", jinja_words)

    # ---- YAML ----
    yaml = corpus(out, "fuzz-yaml")
    yaml_files = sorted(p for top in ("examples", "tests") for ext in ("*.yaml", "*.yml")
                        for p in (src / top).rglob(ext) if "node_modules" not in p.parts)
    yaml_texts = [read_text(p) for p in yaml_files]
    yaml_texts += [s for s in literals_of([src / "tests/chat/yaml_test.cpp"]) if ":" in s and ("\n" in s or "-" in s)]
    for t in yaml_texts:
        for selector in (0, 1, 2, 3):  # set or single template, with or without the round trip
            yaml.add([selector], t)
    yaml_words = ["templates:", "functions:", "messages:", "role:", "content:", "name:", "description:",
                  "parameters:", "variables:", "version:", "- ", ": ", "|", ">", "|-", "&a", "*a", "<<: ", "!!str",
                  "'", '"', "---", "...", "{", "}", "[", "]", "#", "? "]
    for f in ("include/parley/chat/impl/yaml_read.hpp", "include/parley/chat/message.hpp",
              "include/parley/chat/request.hpp"):
        if (src / f).exists():
            yaml_words += [w for w in re.findall(r'"([a-z_-]{2,})"', read_text(src / f))]
    write_dict(out, "fuzz-yaml", yaml_words)

    # ---- event streams ----
    stream = corpus(out, "fuzz-stream")
    openai = sorted((shared / "fixtures/openai-sse").glob("*.sse")) if (shared / "fixtures/openai-sse").is_dir() else []
    anthropic = sorted((src / "tests/provider/anthropic-data").glob("*.sse"))
    for f in openai:
        for cut in (0, 0x5A):
            stream.add([1, cut], f.read_bytes())
    for f in anthropic:
        for cut in (0, 0x5A):
            stream.add([2, cut], f.read_bytes())
    for s in literals_of([src / "tests/net/sse_test.cpp"]):
        if "data" in s or "event" in s or ":" in s:
            stream.add([0, 0x33], s)
    for s in literals_of(sorted((src / "tests/provider").glob("*stream_test.cpp"))):
        if "data:" in s or "event:" in s:
            stream.add([2 if "content_block" in s or "message_start" in s else 1, 0], s)
    for f in sorted((src / "tests/provider/openai-sse-assembled/cases").glob("*.sse")):
        for cut in (0, 0x5A):
            stream.add([1, cut], f.read_bytes())
    # the Gemini API's streams (the data of the SSE files; mode 4)
    for f in sorted((src / "tests/provider/gemini-data").glob("*.sse")):
        for cut in (0, 0x5A):
            stream.add([4, cut], f.read_bytes())
    # Ollama's JSON lines (mode 5), and the lines its codec test writes
    for f in sorted((src / "tests/provider/ollama-data").glob("*.ndjson")):
        for cut in (0, 0x5A):
            stream.add([5, cut], f.read_bytes())
    for s in literals_of([src / "tests/provider/ollama_codec_test.cpp"]):
        if '"message"' in s or '"error"' in s:
            stream.add([5, 0], s.replace("\n", " ") + "\n")
    # the Responses API's events written in its stream test, as one stream and one by one
    responses_events = [s for s in literals_of([src / "tests/provider/responses_stream_test.cpp"])
                        if '"type":"response.' in s or '"type":"error"' in s]
    if responses_events:
        stream.add([3, 0], "".join(f"data: {e}\n\n" for e in responses_events))
        for e in responses_events:
            stream.add([3, 0], f"data: {e}\n\n")

    # ---- tokenizers ----
    tok = corpus(out, "fuzz-tokens")
    texts = [read_text(src / "README.md")] + [read_text(p) for p in sorted((src / "docs").glob("*.md"))[:4]]
    texts += ["Hello world, it's 12:30 🕧 <|endoftext|> <|end|> <x> 中文文本 'S 'll \r\n\n   \t x",
              "e\u0301 a\u0316\u0300 \uac00\u11a8 \u1100\u1161", "  " * 40 + "x", "a" * 300]
    for t in texts:
        for k in range(0, min(len(t), 6000), 1500):
            for selector in (0, 1, 2, 3):
                tok.add([selector], t[k:k + 1500])
    for t in literals_of([src / "tests/tokens/tokenizer_test.cpp"]):
        if '"model"' in t or "type" in t:
            tok.add([4], t)
    tok.add([5], "IQ== 0\nIg== 1\nYWI= 2\n")
    write_dict(out, "fuzz-tokens", ["<|endoftext|>", "<|end|>", "<x>", "'s", "'LL", "\u0301", "\"type\"", "\"model\"",
                                    "\"BPE\"", "\"vocab\"", "\"merges\"", "\"added_tokens\"", "\"Split\"", "\"ByteLevel\"",
                                    "\"Regex\"", "\"String\"", "\"normalizer\"", "\"NFC\""])

    # ---- JSON ----
    js = corpus(out, "fuzz-json")
    json_texts = []
    for top in (src / "tests", src / "examples", shared / "corpus/contexts"):
        if top.is_dir():
            json_texts += [read_text(p) for p in sorted(top.rglob("*.json"))
                           if "node_modules" not in p.parts and p.stat().st_size <= MAX_SEED]
    json_texts += literals_of([src / "tests/schema" / n for n in
                               ("json_text_test.cpp", "partial_json_test.cpp", "partial_test.cpp", "from_json_test.cpp",
                                "from_json_result_test.cpp")])
    record = ('{"id": 7, "big": -9223372036854775808, "ubig": 18446744073709551615, "small": 255, "ratio": 0.1, '
              '"flag": true, "main": "blue", "points": [{"x": -128, "y": 65535}], "caption": {"text": "a", '
              '"tint": "green"}, "groups": {"g": [1, -2]}, "either": {"x": 1, "y": 2}, "samples": [1.5, null], '
              '"tree": {"name": "r", "children": [{"name": "c", "children": []}]}}')
    json_texts += [record, "Here it is:\n```json\n" + record + "\n```\n", record[:len(record) // 2]]
    for t in json_texts:
        for mode in range(7):
            js.add([mode], t)

    # ---- action lists ----
    commands = corpus(out, "fuzz-commands")
    for s in literals_of([src / "tests/schema/commands_test.cpp", src / "tests/schema/rasa_commands_test.cpp"]):
        if "(" in s or "\n" in s:
            for selector in (0, 1, 3):
                commands.add([selector], s)
    for s in ("Drive(-3, 10, 1.5, true, high, None)\nNote(\"a, b\", 2)\nVisit(x, y, z)\nTag(1, 2, 2)\nStop()",
              "1. StartFlow(transfer_money)\n- SetSlot(recipient, 'Freddy')\n* Clarify(a, b)\nChitChat"):
        for selector in (0, 1, 2, 3):
            commands.add([selector], s)

    # ---- MCP ----
    mcp = corpus(out, "fuzz-mcp")
    mcp_texts = [s for s in literals_of([src / "tests/mcp/jsonrpc_test.cpp"]) if "jsonrpc" in s]
    mcp_texts += [
        '{"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, '
        '"serverInfo": {"name": "s", "version": "1"}}}',
        '{"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "echo", "description": "Echoes", "inputSchema": '
        '{"type": "object", "properties": {"message": {"type": "string"}}}}], "nextCursor": "2"}}',
        '{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "hi"}, {"type": "image", '
        '"data": "iVBORw0KGgo=", "mimeType": "image/png"}, {"type": "resource", "resource": {"uri": "demo://x", '
        '"text": "t"}}], "structuredContent": {"a": 1}, "isError": false}}',
        '{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 4, "progress": 1, "total": 3}}',
        '{"jsonrpc": "2.0", "id": "s1", "method": "ping"}',
        '[{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, {"jsonrpc": "2.0", "id": 5, "error": '
        '{"code": -32602, "message": "bad", "data": {"x": [1, 2]}}}]',
    ]
    joined = "\n".join(mcp_texts) + "\n"
    for selector in (0, 1, 2, 3, 4, 7):
        mcp.add([selector], joined)
        for t in mcp_texts:
            mcp.add([selector], t + "\r\n")

    # ---- batch lines and rate-limit fields ----
    batch = corpus(out, "fuzz-batch")
    batch_texts = [s for s in literals_of([src / "tests/batch/output_test.cpp", src / "tests/batch/governor_test.cpp"])]
    batch_texts += [
        '{"id": "a1", "text": "hello"}\n{"id": 17, "x": [1, {"y": null}]}\n\n[1]\n{"text": 1}\n{"id": 1.5}\n{"id": "a1"}',
        '\ufeff{"id":"a","result":"fine","usage":{"input_tokens":1,"output_tokens":2},"attempts":1}\n'
        '{"id":2,"error":{"code":"timeout","message":"m","status":503},"attempts":5}\n{"id":"b","res',
        "6m0s\n1h2m3.5s\n20ms\n0.5\n2024-05-01T12:00:30.25+02:00\nSun, 06 Nov 1994 08:49:37 GMT\n",
    ]
    for t in batch_texts:
        for selector in range(8):
            batch.add([selector], t)
    # the batch APIs' objects and result files, and state files (selector bit 3)
    api_texts = [s for s in literals_of([src / "tests/batch/provider_batch_test.cpp"])]
    api_texts += [
        '{"parley_batch_state":1,"via":"openai-batch","base_url":"http://h/v1","endpoint":"/v1/chat/completions",'
        '"batches":[{"id":"batch_1","input_file_id":"file-1","requests":{"in-1":"a","in-2":17}}]}',
    ]
    for t in api_texts:
        for selector in (8, 10):
            batch.add([selector], t)

    # ---- JSON Schemas and instances, patterns and texts ----
    schema = corpus(out, "fuzz-schema")
    cases_path = src / "tests/schema/validator_cases.json"
    if cases_path.exists():
        cases = json.loads(read_text(cases_path))["cases"]
        patterns = []
        for c in cases:
            text = json.dumps(c["schema"])
            instances = c.get("instances") or [c["schema"]]
            for selector in (0, 1, 2):
                for instance in instances:
                    schema.add([selector], text + "\0" + json.dumps(instance))
            for key, value in walk(c["schema"]):
                if key == "pattern" and isinstance(value, str):
                    patterns.append((value, [i for i in instances if isinstance(i, str)]))
                if key == "patternProperties" and isinstance(value, dict):
                    patterns += [(p, []) for p in value]
        for pattern, texts in patterns:
            for selector in (4, 6):
                for t in texts or ["", "abc"]:
                    schema.add([selector], pattern + "\0" + t)
    write_dict(out, "fuzz-schema", ['"type"', '"properties"', '"required"', '"additionalProperties"', '"items"', '"prefixItems"',
                                    '"$ref"', '"$defs"', '"anyOf"', '"oneOf"', '"allOf"', '"not"', '"if"', '"then"', '"else"',
                                    '"pattern"', '"patternProperties"', '"enum"', '"const"', '"minimum"', '"multipleOf"',
                                    '"contains"', '"minContains"', '"uniqueItems"', '"$schema"', '"#/$defs/"', '(?:', '[^', '{2,3}',
                                    '\\d', '\\b', '\\u00e9'])

    for c in (jinja, compiled, yaml, stream, js, commands, mcp, batch, schema):
        print("%s: %d seeds" % (c.dir.name, c.count))


if __name__ == "__main__":
    sys.exit(main())
