#!/usr/bin/env python3
"""Compiles every C++ block of README.md and docs/*.md, so that the documents cannot rot.

    snippets.py --build-info FILE.json --work-dir DIR [--jobs N] [--only TEXT]
    snippets.py --source-dir DIR --list          (what each block is, without compiling)

FILE.json is written by the build (build/PRESET/tests/docs-snippets.json); --only TEXT compiles
the blocks of the documents whose path contains TEXT (and the blocks they continue).

Every fenced block of the documents is found and listed with what was done with it. A ```cpp
block is, by its content and by the marker right before it (an HTML comment, invisible on the
rendered page; tests/docs/README.md describes them):

- a program (it defines main): compiled and linked as it is, and run when its marker says what
  it prints (`output=next`: the next fenced block);
- a fragment: compiled in a generated translation unit, its declarations at namespace scope and
  its statements in a function of its own (a coroutine when it awaits), in a namespace of its
  own, after the preludes its marker names (`context=NAME`, tests/docs/context/NAME.hpp) and the
  blocks it continues (`after=ID`);
- a declaration (`declaration`, `of=CLASS`): compiled in a namespace inside parley, and each of
  its members compared with the member of the same name in the header;
- a block that must not compile (`fails="TEXT"`), whose diagnostics must contain each TEXT;
- a copy of a file of the repository that the build compiles (`file=PATH`): compared with it;
- pseudo-code (`pseudo`): listed, not compiled.

The fragments and declarations of all the documents share one translation unit compiled with
-fsyntax-only (templates and coroutines are instantiated, nothing is generated); `#line`
directives make every diagnostic name the document's file and line. The compiler, its flags,
include directories and definitions are those of a real target of the build (the compile command
of tests/docs/flags.cpp in compile_commands.json); the link libraries come from the build too.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time

CPP_LANGUAGES = {"cpp", "c++", "cxx"}
MARKER_KEYS = {"id", "after", "context", "namespace", "call", "declaration", "of", "pseudo", "fails", "file",
               "output"}


class DocError(Exception):
    """A mistake in a document or a marker, reported with the document's file and line."""


# ---------------------------------------------------------------------------------------------
# Markdown: fenced blocks and their markers


class Block:
    def __init__(self, doc, fence_line, language, lines, first_line, marker, marker_line, indent):
        self.doc = doc  # path relative to the source directory
        self.fence_line = fence_line  # 1-based line of the opening fence
        self.language = language
        self.lines = lines  # the content, the fence's indentation removed
        self.first_line = first_line  # 1-based line of the first content line
        self.marker = marker  # dict key -> list of values, or None
        self.marker_line = marker_line
        self.indent = indent
        self.kind = None  # program, fragment, declaration, fails, file, pseudo, text
        self.status = "not checked"
        self.detail = ""
        self.next_block = None  # the fenced block that follows, for output=next

    @property
    def where(self):
        return f"{self.doc}:{self.fence_line}"

    @property
    def last_line(self):
        return self.first_line + len(self.lines) - 1

    @property
    def text(self):
        return "\n".join(self.lines) + "\n"

    def values(self, key):
        return (self.marker or {}).get(key, [])

    def value(self, key):
        v = self.values(key)
        return v[-1] if v else None


MARKER_RE = re.compile(r"^\s*<!--\s*snippet:(.*?)-->\s*$")
FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")


def parse_marker(text, where):
    """`key=value key="quoted value" flag` -> {key: [values]}."""
    marker = {}
    for m in re.finditer(r'\s*([A-Za-z-]+)(?:=("([^"]*)"|\S+))?', text):
        if not m.group(0).strip():
            continue
        key = m.group(1)
        if key not in MARKER_KEYS:
            raise DocError(f"{where}: unknown snippet marker key '{key}' (known: {', '.join(sorted(MARKER_KEYS))})")
        value = m.group(3) if m.group(3) is not None else m.group(2)
        marker.setdefault(key, []).append(value if value is not None else "")
    rest = re.sub(r'\s*([A-Za-z-]+)(?:=("([^"]*)"|\S+))?', "", text).strip()
    if rest:
        raise DocError(f"{where}: cannot read the snippet marker: {text.strip()!r}")
    return marker


def read_blocks(source_dir, doc):
    lines = open(os.path.join(source_dir, doc), encoding="utf-8").read().split("\n")
    blocks = []
    i = 0
    pending_marker = None  # (marker, line)
    while i < len(lines):
        line = lines[i]
        m = MARKER_RE.match(line)
        if m:
            if pending_marker:
                raise DocError(f"{doc}:{pending_marker[1]}: a snippet marker not followed by a fenced block")
            pending_marker = (parse_marker(m.group(1), f"{doc}:{i + 1}"), i + 1)
            i += 1
            continue
        if "<!--" in line and "snippet" in line:
            raise DocError(f"{doc}:{i + 1}: a snippet marker must be one line of its own: <!-- snippet: ... -->")
        f = FENCE_RE.match(line)
        if f and f.group(2)[0] == "`" and "`" in f.group(3):
            f = None  # not a fence: inline code at the start of a line (CommonMark)
        if f:
            indent, fence, info = f.group(1), f.group(2), f.group(3).strip()
            language = info.split()[0].lower() if info else ""
            body = []
            j = i + 1
            while j < len(lines):
                close = FENCE_RE.match(lines[j])
                if close and close.group(2)[0] == fence[0] and len(close.group(2)) >= len(fence) and not close.group(3).strip():
                    break
                body.append(lines[j])
                j += 1
            else:
                raise DocError(f"{doc}:{i + 1}: a fenced block that is never closed")
            content = []
            for k, text in enumerate(body):
                if text.strip() and not text.startswith(indent):
                    raise DocError(f"{doc}:{i + 2 + k}: a line of the block is indented less than its fence")
                content.append(text[len(indent):])
            marker, marker_line = (pending_marker or (None, None))
            blocks.append(Block(doc, i + 1, language, content, i + 2, marker, marker_line, indent))
            pending_marker = None
            i = j + 1
            continue
        if line.strip() and pending_marker:
            raise DocError(f"{doc}:{pending_marker[1]}: a snippet marker must come right before its fenced block")
        i += 1
    if pending_marker:
        raise DocError(f"{doc}:{pending_marker[1]}: a snippet marker not followed by a fenced block")
    for a, b in zip(blocks, blocks[1:]):
        a.next_block = b
    return blocks


def documents(source_dir):
    docs = ["README.md"]
    docs_dir = os.path.join(source_dir, "docs")
    docs += sorted("docs/" + name for name in os.listdir(docs_dir) if name.endswith(".md"))
    return docs


# ---------------------------------------------------------------------------------------------
# C++ text: comments and literals blanked, top-level items


def blank(text):
    """The text with comments, and the contents of string and character literals, replaced by
    spaces (newlines kept), so that brackets and keywords can be found. Same length."""
    out = list(text)
    i, n = 0, len(text)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
                                                                  or text[i - 1] in "uUL8"):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            wipe(i + 2, end - 1)
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
        elif c == "'":
            # a digit separator (100'000) or a character literal
            k = i
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_.'"):
                k -= 1
            if k < i and text[k].isdigit():
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


CONTROL = re.compile(r"^(if|for|while|switch|do|else|try|catch|return|co_return|co_await|throw)\b")
OPENING = {"(": ")", "[": "]", "{": "}"}


class Item:
    def __init__(self, start, end, kind):
        self.start, self.end, self.kind = start, end, kind  # kind: include, pp, namespace, body, function


def depth0_positions(b, chars):
    depth = 0
    for k, c in enumerate(b):
        if depth == 0 and c in chars:
            yield k
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1


def split_items(text):
    """Top-level items of a C++ fragment: preprocessor lines, and declarations or statements ended
    by `;` or by the `}` that closes a function body, a namespace or a control statement."""
    b = blank(text)
    items = []
    i, n = 0, len(text)
    start = None
    depth = 0
    head_end = None  # position of the first depth-0 '{' of the current item
    while i < n:
        c = b[i]
        if start is None:
            if c.isspace():
                i += 1
                continue
            if c == "#":
                j = i
                while True:
                    e = text.find("\n", j)
                    e = n if e < 0 else e
                    if e > 0 and text[e - 1] == "\\" and e < n:
                        j = e + 1
                        continue
                    break
                directive = b[i:e]
                kind = "include" if re.match(r"#\s*include\b", directive) else "pp"
                items.append(Item(i, e, kind))
                i = e
                continue
            start, depth, head_end = i, 0, None
        if c in "([{":
            if c == "{" and depth == 0 and head_end is None:
                head_end = i
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced '{c}' at offset {i}")
            if c == "}" and depth == 0 and ends_at_brace(b[start:head_end]):
                items.append(Item(start, i + 1, None))
                start = None
            elif (c == ")" and depth == 0 and head_end is None and re.match(r"\s*[A-Z][A-Z0-9_]*\s*\(", b[start:])
                  and b[i + 1:].lstrip()[:1] not in (";", "{", ",")):
                # a macro call without a semicolon (BOOST_DESCRIBE_STRUCT(...), PARLEY_ANNOTATE(...))
                items.append(Item(start, i + 1, None))
                start = None
        elif c == ";" and depth == 0:
            items.append(Item(start, i + 1, None))
            start = None
        i += 1
    if start is not None:
        if depth != 0:
            raise ValueError("unbalanced brackets at the end of the block")
        if b[start:].strip():
            items.append(Item(start, n, None))
    for item in items:
        if item.kind is None:
            item.kind = classify_item(b[item.start:item.end])
    return items


def ends_at_brace(head):
    """Whether an item whose first depth-0 '{' follows `head` ends at the matching '}'."""
    h = head.strip()
    if not h or CONTROL.match(h) or re.match(r"^(namespace\b|extern\s)", h):
        return True
    h2 = re.sub(r"^template\s*<.*?>\s*", "", h, flags=re.S)
    if re.match(r"^(struct|class|union|enum)\b", h2):
        return False
    if list(depth0_positions(h, "=")):
        return False
    return "(" in h


def classify_item(b):
    h = b.strip()
    head = h.split("{", 1)[0]
    if re.match(r"^(template\b|namespace\b|using\s+namespace\b|using\s+\w+\s*=|typedef\b|extern\s)", h):
        return "namespace"
    if re.match(r"^(struct|class|union|enum)\b", h):
        return "namespace"
    if re.match(r"^(BOOST_DESCRIBE_\w+|PARLEY_ANNOTATE)\s*\(", h):
        return "namespace"
    if h.endswith("}") and "(" in head and not CONTROL.match(h) and not list(depth0_positions(head, "=")):
        return "function"
    return "body"


def has_keyword(b, *words):
    return any(re.search(r"\b" + w + r"\b", b) for w in words)


# ---------------------------------------------------------------------------------------------
# Classes of declaration blocks: their members


def class_definitions(text):
    """[(name, keyword, body_start, body_end)] of the top-level `struct NAME {` / `class NAME {` of
    text (the body between its braces)."""
    b = blank(text)
    found = []
    for item in split_items(text):
        seg = b[item.start:item.end]
        m = re.match(r"\s*(?:template\s*<.*?>\s*)?(struct|class)\s+(\w+)[^{;]*\{", seg, re.S)
        if m:
            open_at = item.start + m.end() - 1
            depth = 0
            for k in range(open_at, item.end):
                if b[k] == "{":
                    depth += 1
                elif b[k] == "}":
                    depth -= 1
                    if depth == 0:
                        found.append((m.group(2), m.group(1), open_at + 1, k))
                        break
    return found


def members(text, body_start, body_end, class_name):
    """The members of the class body text[body_start:body_end]: [(kind, name, template, offset)],
    kind data or function (template: None, the number of type parameters of a member template,
    or -1 when it has others), or skip for what is not compared (constructors, destructors,
    operators, friends, nested types, using-declarations)."""
    b = blank(text)
    result = []
    segments = []
    seg_start = body_start
    depth = 0
    for k in range(body_start, body_end):
        c = b[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if c == "}" and depth == 0 and b[k + 1:body_end].lstrip()[:1] != ";":
                segments.append((seg_start, k + 1))  # a member function defined in the class
                seg_start = k + 1
        elif c == ";" and depth == 0:
            segments.append((seg_start, k))
            seg_start = k + 1
    for a, e in segments:
        decl = b[a:e]
        label = re.match(r"\s*((public|private|protected)\s*:)?\s*", decl)
        d = decl[label.end():].rstrip()
        offset = a + label.end()
        if not d:
            continue
        template = None
        t = re.match(r"template\s*<(.*?)>\s*", d, re.S)
        if t:
            params = [p.strip() for p in t.group(1).split(",") if p.strip()]
            template = len(params) if all(re.match(r"^(class|typename)\b", p) for p in params) else -1
            d = d[t.end():]
        d = re.sub(r"^((virtual|static|inline|constexpr|explicit|\[\[\w+\]\])\s+)+", "", d)
        if re.match(r"^(friend|using|typedef|static_assert|enum|struct|class|union)\b", d):
            result.append(("skip", d.split()[0], None, offset))
            continue
        paren = next(depth0_positions(d, "("), None)
        if paren is not None and "=" not in d[:paren]:
            m = re.search(r"(~?\w+)\s*$", d[:paren])
            name = m.group(1) if m else "?"
            if name == class_name or name.startswith("~") or re.search(r"\boperator\b", d[:paren]):
                result.append(("skip", "a constructor, destructor or operator", None, offset))
            else:
                result.append(("function", name, template, offset))
            continue
        for declarator in d.split(","):
            declarator = re.split(r"[={]", declarator, maxsplit=1)[0]
            m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", declarator)
            if m:
                result.append(("data", m.group(1), None, offset))
    return result


# ---------------------------------------------------------------------------------------------
# Generating the translation units


def ident(text):
    return re.sub(r"\W", "_", text)


class Generator:
    def __init__(self, source_dir, blocks_by_id):
        self.source_dir = source_dir
        self.by_id = blocks_by_id
        self.includes = []
        self.include_keys = set()
        self.contexts = {}

    def add_include(self, line):
        line = line.strip()
        key = re.sub(r"\s*//.*$", "", line)  # without its comment
        if key not in self.include_keys:
            self.include_keys.add(key)
            self.includes.append(line)

    def context(self, name, where):
        if name not in self.contexts:
            path = os.path.join(self.source_dir, "tests", "docs", "context", name + ".hpp")
            if not os.path.exists(path):
                raise DocError(f"{where}: no prelude named '{name}' (tests/docs/context/{name}.hpp)")
            self.contexts[name] = open(path, encoding="utf-8").read()
        return self.contexts[name]

    def line(self, block, line_no):
        return f'#line {line_no} "{block.doc}"\n'

    def pieces(self, block):
        """(namespace code, body code) of a fragment, includes collected."""
        text = block.text
        b = blank(text)
        items = split_items(text)
        line_of = lambda offset: block.first_line + text.count("\n", 0, offset)
        namespace_code, body_code = [], []
        whole_namespace = any(it.kind == "function" for it in items)
        for it in items:
            code = self.line(block, line_of(it.start)) + text[it.start:it.end] + "\n"
            if it.kind == "include":
                self.add_include(text[it.start:it.end])
            elif it.kind in ("namespace", "function", "pp") or whole_namespace:
                namespace_code.append(code)
            else:
                body_code.append(code)
        call = block.value("call")
        if call:
            inner = text
            last = len(b.rstrip()) - 1
            if last >= 0 and b[last] == ",":
                inner = text[:last] + " " + text[last + 1:]
            body_code = [self.line(block, block.first_line - 1) + f"[[maybe_unused]] constexpr auto snippet_value = {call}(\n" +
                         self.line(block, block.first_line) + inner + "\n);\n"]
            namespace_code = []
        ns = block.value("namespace")
        if ns and namespace_code:
            namespace_code = [f"namespace {ns} {{\n"] + namespace_code + [f"}}  // namespace {ns}\n"]
        awaits = has_keyword(b, "co_await", "co_return", "co_yield")
        return namespace_code, body_code, awaits

    def dependencies(self, block, seen=None, chain=()):
        """The blocks `block` continues (after=ID), transitively, in order, each once."""
        seen = [] if seen is None else seen
        for dep_id in ",".join(block.values("after")).split(","):
            if not dep_id:
                continue
            dep = self.by_id.get(dep_id)
            if dep is None:
                raise DocError(f"{block.where}: after={dep_id}: no block has id={dep_id}")
            if dep in chain:
                raise DocError(f"{block.where}: after={dep_id} makes a cycle")
            self.dependencies(dep, seen, chain + (block,))
            if dep not in seen:
                seen.append(dep)
        return seen

    def fragment(self, block):
        """The code of a fragment in a namespace of its own."""
        namespace = "snippet_" + ident(block.doc) + "_" + str(block.fence_line)
        parts = [f"namespace {namespace} {{\n"]
        body = []  # each block's statements in a scope inside those of the blocks it continues
        scopes = 0
        awaits = False
        used_contexts = []
        for b in self.dependencies(block) + [block]:
            for name in ",".join(b.values("context")).split(","):
                if name and name not in used_contexts:
                    used_contexts.append(name)
                    prelude = self.context(name, b.where)
                    for it in split_items(prelude):
                        code = prelude[it.start:it.end]
                        if it.kind == "include":
                            self.add_include(code)
                        else:
                            line = 1 + prelude.count("\n", 0, it.start)
                            parts.append(f'#line {line} "tests/docs/context/{name}.hpp"\n{code}\n')
            ns_code, body_code, b_awaits = self.pieces(b)
            parts += ns_code
            if body_code:
                body += ["{\n"] + body_code
                scopes += 1
            awaits = awaits or b_awaits
        ns = block.value("namespace")
        if ns:
            parts.append(f"namespace {ns} {{\n")
        if body:
            if awaits:
                parts.append("boost::asio::awaitable<void> snippet_body() {\n")
            else:
                parts.append("void snippet_body() {\n")
            parts += body
            # the end on the block's last line, where g++ reports errors of the coroutine as a whole
            parts.append(self.line(block, block.last_line) + "}" * scopes + (" co_return;" if awaits else "") + " }\n")
        if ns:
            parts.append(f"}}  // namespace {ns}\n")
        parts.append(f"}}  // namespace {namespace}\n\n")
        return "".join(parts)

    def declaration(self, block):
        """A declaration block in a namespace inside parley, then its members compared with the
        header's."""
        namespace = "snippet_" + ident(block.doc) + "_" + str(block.fence_line)
        text = block.text
        of = block.value("of")
        for it in split_items(text):
            if it.kind == "include":
                self.add_include(text[it.start:it.end])
        line_of = lambda offset: block.first_line + text.count("\n", 0, offset)
        classes = class_definitions(text)
        parts = [f"namespace parley::{namespace} {{\nnamespace asio = boost::asio;\n"]
        checks = []
        if classes:
            if of and len(classes) != 1:
                raise DocError(f"{block.where}: of={of} names the class of a block that defines {len(classes)} classes")
            parts.append(self.line(block, block.first_line) + text)
            for name, keyword, body_start, body_end in classes:
                real = of or f"parley::{name}"
                checks += self.member_checks(block, text, body_start, body_end, name, f"{namespace}::{name}", real,
                                             line_of)
        else:
            if not of:
                raise DocError(f"{block.where}: a declaration block without a class definition needs of=CLASS "
                               "(the class whose members it declares)")
            short = of.split("::")[-1]
            body = re.sub(r"\b" + re.escape(short) + r"::(?=~?\w+\s*\()", "", text)
            prefix = f"struct {short} {{\n"
            parts.append(prefix + self.line(block, block.first_line) + body + "};\n")
            checks += self.member_checks(block, body, 0, len(body), short, f"{namespace}::{short}", of, line_of)
        parts.append(f"}}  // namespace parley::{namespace}\n")
        parts += checks
        return "".join(parts) + "\n"

    def member_checks(self, block, text, body_start, body_end, class_name, doc_class, real_class, line_of):
        checks = []
        doc_class = "parley::" + doc_class
        real = real_class if real_class.startswith("::") else "::" + real_class
        found = members(text, body_start, body_end, class_name)
        notes = []
        for k, (kind, name, tparams, offset) in enumerate(found):
            at = self.line(block, line_of(offset))
            if kind == "data":
                checks.append(at + f"static_assert(std::is_same_v<decltype({doc_class}::{name}), decltype({real}::{name})>, "
                              f"\"{block.doc}: the member {name} of {real_class} differs from the header\");\n")
            elif kind == "function":
                if tparams == -1:
                    notes.append(f"{name} (a template with non-type parameters) compiled, not compared")
                    continue
                targs = ""
                if tparams:
                    targs = "<" + ", ".join(f"parley_snippets::probe<{i}>" for i in range(tparams)) + ">"
                    doc_ptr = f"&{doc_class}::template {name}{targs}"
                    real_ptr = f"&{real}::template {name}{targs}"
                else:
                    doc_ptr = f"&{doc_class}::{name}"
                    real_ptr = f"&{real}::{name}"
                # unevaluated: the real member is looked up (an overload of the documented type)
                # without instantiating its definition
                checks.append(at + f"using snippet_check_{ident(block.doc)}_{block.fence_line}_{k} = decltype(static_cast<"
                              f"parley_snippets::same_member_t<decltype({doc_ptr}), {real}>>({real_ptr}));\n")
        block.detail = "; ".join(notes)
        return checks


# ---------------------------------------------------------------------------------------------
# The build: flags from compile_commands.json, running compilers


class Toolchain:
    def __init__(self, info_path):
        info = json.load(open(info_path))
        self.info = info
        self.source_dir = info["source_dir"]
        commands = json.load(open(info["compile_commands"]))
        probe = os.path.realpath(info["probe_source"])
        entry = next((e for e in commands if os.path.realpath(os.path.join(e["directory"], e["file"])) == probe), None)
        if entry is None:
            raise SystemExit(f"error: {info['compile_commands']} has no command for {info['probe_source']}")
        args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
        flags = []
        skip = False
        for a in args[1:]:
            if skip:
                skip = False
                continue
            if a in ("-o", "-c", "-MF", "-MT", "-MQ"):
                skip = a != "-c"
                continue
            if a in ("-MD", "-MMD") or os.path.realpath(os.path.join(entry["directory"], a)) == probe:
                continue
            if a.startswith("-I") and not os.path.isabs(a[2:]):
                a = "-I" + os.path.join(entry["directory"], a[2:])
            flags.append(a)
        self.compiler = args[0]
        self.flags = flags
        self.launcher = [a for a in info.get("launcher", []) if a]
        self.link = [a for a in info["link"] if a]
        self.link_flags = [a for a in info["link_flags"] if a]
        self.compiler_id = info["compiler_id"]

    def describe(self):
        return " ".join([self.compiler] + self.flags)


def run(cmd, cwd, timeout=1500, env=None):
    """(exit status, output, wall seconds, CPU seconds of the command and its children)."""
    start = time.monotonic()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    except OSError as e:
        return -1, f"cannot run {cmd[0]}: {e}\n", 0.0, 0.0
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    out = p.stdout.read().decode("utf-8", errors="replace")
    p.stdout.close()
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    p.returncode = code = os.waitstatus_to_exitcode(status)
    if code == -9:
        out = f"killed after {timeout} s\n" + out
    return code, out, time.monotonic() - start, usage.ru_utime + usage.ru_stime


def attribute(output, blocks):
    """The blocks that the diagnostics of output name (doc:line inside the block)."""
    hit = {}
    for m in re.finditer(r"^((?:README|docs/[\w.-]+)\.md):(\d+)(?::\d+)?: (?:fatal )?error", output, re.M):
        doc, line = m.group(1), int(m.group(2))
        for b in blocks:
            if b.doc == doc and b.first_line - 1 <= line <= b.last_line + 1:
                hit.setdefault(b, []).append(m.group(0))
    return hit


# ---------------------------------------------------------------------------------------------


def classify_blocks(blocks):
    for block in blocks:
        marker = block.marker or {}
        if block.language not in CPP_LANGUAGES:
            if marker:
                raise DocError(f"{block.where}: a snippet marker on a block that is not ```cpp")
            block.kind = "text"
            if not block.language and looks_like_cpp(block.text):
                raise DocError(f"{block.where}: a block without a language that looks like C++: "
                               "label it ```cpp (or ```text if it is not code)")
            block.status = f"not C++ ({block.language or 'no language'})"
            continue
        if "pseudo" in marker:
            block.kind = "pseudo"
        elif "file" in marker:
            block.kind = "file"
        elif "fails" in marker:
            block.kind = "fails"
        elif "declaration" in marker or ("of" in marker):
            block.kind = "declaration"
        elif is_program(block.text):
            block.kind = "program"
        else:
            block.kind = "fragment"
        allowed = {
            "pseudo": {"pseudo"},
            "file": {"file"},
            "fails": {"fails", "context", "after", "id", "namespace"},
            "declaration": {"declaration", "of"},
            "program": {"output"},
            "fragment": {"id", "after", "context", "namespace", "call"},
        }[block.kind]
        extra = set(marker) - allowed
        if extra:
            raise DocError(f"{block.where}: a {block.kind} block takes no {', '.join(sorted(extra))} "
                           f"(it takes {', '.join(sorted(allowed))})")
        if "output" in marker and marker["output"] != ["next"]:
            raise DocError(f"{block.where}: output= takes 'next' (the next fenced block is what the program prints)")


def looks_like_cpp(text):
    lines = [l.strip() for l in text.split("\n") if l.strip()]
    if any(l.startswith("#include") for l in lines):
        return True
    ends = sum(1 for l in lines if l.endswith((";", "{", "}")) and not l.startswith(("-", "*", "|")))
    return len(lines) >= 2 and ends * 2 >= len(lines)


def is_program(text):
    b = blank(text)
    return any(it.kind == "function" and re.match(r"\s*int\s+main\s*\(", b[it.start:it.end]) for it in split_items(text))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-info", help="the JSON file the build writes (tests/CMakeLists.txt)")
    ap.add_argument("--source-dir", help="the repository (default: from --build-info)")
    ap.add_argument("--work-dir", help="where the generated files and programs go")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="list the blocks and what they are, compile nothing")
    ap.add_argument("--only", metavar="TEXT",
                    help="compile only the blocks of the documents whose path contains TEXT (docs/bot.md)")
    args = ap.parse_args()
    toolchain = Toolchain(args.build_info) if args.build_info else None
    source_dir = args.source_dir or (toolchain.source_dir if toolchain else None)
    if not source_dir:
        ap.error("--source-dir or --build-info is needed")
    start = time.monotonic()

    blocks = []
    try:
        for doc in documents(source_dir):
            blocks += read_blocks(source_dir, doc)
        classify_blocks(blocks)
        by_id = {}
        for b in blocks:
            for i in b.values("id"):
                if i in by_id:
                    raise DocError(f"{b.where}: id={i} is also the id of {by_id[i].where}")
                by_id[i] = b
        gen = Generator(source_dir, by_id)
        units = []  # (name, text, blocks, mode)
        shared = []
        shared_blocks = []
        selected = [b for b in blocks if not args.only or args.only in b.doc]
        for b in blocks:
            if b not in selected and b.kind != "text":
                b.status = "not compiled (--only)"
        for b in selected:
            if b.kind == "fragment":
                shared.append(gen.fragment(b))
                shared_blocks.append(b)
            elif b.kind == "declaration":
                shared.append(gen.declaration(b))
                shared_blocks.append(b)
        header = ("// Generated by tests/docs/snippets.py from the ```cpp blocks of README.md and docs/*.md.\n"
                  '#include "snippet_support.hpp"\n')
        fragments_unit = header + "".join(i + "\n" for i in gen.includes) + "\n" + "".join(shared)
        if shared_blocks:
            units.append(("fragments", fragments_unit, shared_blocks, "syntax"))
        for b in selected:
            if b.kind == "fails":
                g = Generator(source_dir, by_id)
                code = g.fragment(b)
                units.append((f"fails_{ident(b.doc)}_{b.fence_line}", header + "".join(i + "\n" for i in g.includes) + code,
                              [b], "fails"))
            elif b.kind == "program":
                units.append((f"program_{ident(b.doc)}_{b.fence_line}", f'#line {b.first_line} "{b.doc}"\n' + b.text, [b],
                              "program"))
    except (DocError, ValueError) as e:
        print(f"error: {e}")
        return 1

    for b in blocks:
        if b.kind == "pseudo":
            b.status = "pseudo-code, not compiled (marked pseudo)"
        elif b.kind == "file":
            path = b.value("file")
            full = os.path.join(source_dir, path)
            if not os.path.exists(full):
                b.status = f"FAILED: file={path} does not exist"
            elif open(full, encoding="utf-8").read() != b.text:
                b.status = f"FAILED: differs from {path}"
            else:
                b.status = f"the same as {path}, which the build compiles"

    if args.list or toolchain is None:
        for b in blocks:
            print(f"{b.where:40} {b.kind:12} {describe(b)}")
        return 0

    args.work_dir = os.path.abspath(args.work_dir)
    os.makedirs(args.work_dir, exist_ok=True)
    support_dir = os.path.join(source_dir, "tests", "docs")
    base = toolchain.launcher + [toolchain.compiler] + toolchain.flags + ["-iquote", support_dir, "-I", support_dir]
    if toolchain.compiler_id == "GNU":
        # The #line directives make g++ take the blocks for code of another file than the one it
        # compiles, as in a header: it would then warn about every lambda of a block that ends up
        # in a coroutine frame of parley's templates (as in the unity builds of the tests).
        base.append("-Wno-subobject-linkage")
    env = dict(os.environ)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_API_KEY"):
        env.pop(name, None)

    def job(unit):
        name, text, unit_blocks, mode = unit
        path = os.path.join(args.work_dir, name + ".cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        if mode == "syntax":
            # fragments: excerpts, whose variables are often not used further
            cmd = base + ["-fsyntax-only", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
                          "-Wno-unused-local-typedefs", path]
            return unit, [(cmd, *run(cmd, source_dir))]
        if mode == "fails":
            cmd = base + ["-fsyntax-only", path]
            return unit, [(cmd, *run(cmd, source_dir))]
        # a program: compiled (-O0: its speed does not matter), linked, run
        obj = os.path.join(args.work_dir, name + ".o")
        exe = os.path.join(args.work_dir, name)
        flags = [f for f in base if not re.match(r"^-O[0-3sgz]?$", f)] + ["-O0"]
        cmd = flags + ["-c", path, "-o", obj]
        steps = [(cmd, *run(cmd, source_dir))]
        if steps[-1][1] != 0:
            return unit, steps
        link = [toolchain.compiler] + [f for f in toolchain.link_flags] + [obj, "-o", exe] + toolchain.link
        steps.append((link, *run(link, source_dir)))
        if steps[-1][1] != 0:
            return unit, steps
        b = unit_blocks[0]
        if b.value("output") == "next":
            steps.append(([exe], *run([exe], args.work_dir, timeout=60, env=env)))
        return unit, steps

    failed = False
    units.sort(key=lambda u: u[3] != "syntax")  # the longest first
    timings = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for unit, steps in pool.map(job, units):
            name, text, unit_blocks, mode = unit
            timings.append((name, sum(s[3] for s in steps), sum(s[4] for s in steps), len(unit_blocks)))
            last_cmd, code, out = steps[-1][:3]
            if mode == "syntax":
                hit = attribute(out, unit_blocks)
                for b in unit_blocks:
                    if code == 0:
                        b.status = "compiled" + (" and compared with the header" if b.kind == "declaration" else "")
                    elif b in hit:
                        b.status = "FAILED: " + hit[b][0]
                    else:
                        b.status = "not known: the translation unit failed"
                if code != 0:
                    failed = True
                    print(f"--- {name}.cpp failed (exit {code}):\n{trim(out)}\n")
            elif mode == "fails":
                b = unit_blocks[0]
                missing = [t for t in b.values("fails") if t not in out]
                if code == 0:
                    b.status = "FAILED: compiled, but must not"
                elif missing:
                    b.status = "FAILED: the diagnostics lack " + ", ".join(repr(t) for t in missing)
                    print(f"--- {name}.cpp diagnostics:\n{trim(out)}\n")
                else:
                    b.status = "does not compile, as it should: " + ", ".join(b.values("fails"))
                failed = failed or b.status.startswith("FAILED")
            else:
                b = unit_blocks[0]
                if code != 0:
                    step = ["compile", "link", "run"][len(steps) - 1]
                    b.status = f"FAILED to {step} (exit {code})"
                    print(f"--- {b.where}: {step} failed:\n{' '.join(last_cmd)}\n{trim(out)}\n")
                elif b.value("output") == "next":
                    expected = b.next_block.text if b.next_block else None
                    actual = steps[-1][2]
                    if actual == expected:
                        b.status = f"compiled, linked, run: prints {b.next_block.where}"
                    else:
                        b.status = f"FAILED: prints something else than {b.next_block.where if b.next_block else 'a next block'}"
                        print(f"--- {b.where} printed:\n{actual}--- expected:\n{expected}")
                else:
                    b.status = "compiled and linked"
                failed = failed or b.status.startswith("FAILED")

    for b in blocks:
        if b.status.startswith("FAILED"):
            failed = True
    print(f"compiler: {toolchain.describe()}")
    print(f"{len(blocks)} fenced blocks, {sum(1 for b in blocks if b.kind != 'text')} of C++:")
    for b in blocks:
        print(f"  {b.where:38} {b.kind:11} {describe(b)}: {b.status}" + (f" ({b.detail})" if b.detail else ""))
    for name, wall, cpu, count in timings:
        print(f"time: {name}.cpp ({count} block{'s' if count != 1 else ''}): {cpu:.1f} s of CPU, {wall:.1f} s")
    print(f"time: {sum(t[2] for t in timings):.1f} s of CPU, {time.monotonic() - start:.1f} s in all")
    print("FAILED" if failed else "passed")
    return 1 if failed else 0


def describe(b):
    m = b.marker or {}
    bits = []
    for key in ("context", "after", "namespace", "call", "of", "output", "file", "id"):
        if key in m:
            bits.append(f"{key}={','.join(m[key])}")
    return ("[" + " ".join(bits) + "]") if bits else ""


def trim(out, limit=120):
    lines = out.rstrip("\n").split("\n")
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
