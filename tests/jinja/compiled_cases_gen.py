#!/usr/bin/env python3
"""Generates the compile-time engine's differential tests from tests/jinja/cases/*.jsonl.

Every case of the run-time engine's differential table that can be written with a typed context
becomes a compiled_template over a described struct built from the case's JSON context. The
generated test renders it and checks the output (or the error) against the run-time engine's
render of the same template on the case's original JSON context, which the jinja-cases-diff
test checks against Python Jinja2.

A case is taken when
  * it runs in the plain environment (env "plain" or "both"; "hf" cases need the Hugging Face
    globals, filters and sandbox);
  * Python Jinja2 parses and compiles its template (a syntax error is a compile error here);
  * its context maps to C++ types: objects to a struct per shape (members in key order, the
    order of dict iteration and repr), arrays whose elements have one type to std::vector
    (an empty array: std::vector<std::string>; null among values of one type:
    std::variant<std::nullptr_t, T>), strings to std::string, integers to std::int64_t, floats
    to double, booleans to bool, null to std::nullptr_t; keys must be C++ identifiers;
  * every name path the compile-time check follows exists in the context type (the check is a
    compile error otherwise). A name the template reads from the context but the context lacks
    is undefined in Jinja: it becomes an empty std::optional member of the context struct, which
    reads as undefined. A member path into an object that lacks the member cannot be written.

Usage: compiled_cases_gen.py --out-dir DIR --shards N CASE_FILE_OR_DIR...
Writes DIR/compiled_cases_<k>.cpp (k < N; files whose text does not change are left alone; the
first also holds the summary test) and prints what it generated and what it skipped, and why.
"""
import argparse
import collections
import json
import math
import os
import re
import sys

try:
    import jinja2
    from jinja2 import nodes
except ImportError:  # this interpreter lacks Jinja2: try the system one (Debian's python3-jinja2)
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.stderr.write("compiled_cases_gen.py: Python Jinja2 is missing: apt-get install python3-jinja2\n")
    sys.exit(2)

# The test fails when fewer generated cases than this render through the generated code (rather
# than the run-time engine): a change that silently sends templates to the run-time path.
COMPILED_PATH_FLOOR = 160

# Cases whose compiled render is known to differ from the run-time engine's (bugs of the
# compile-time engine, each with its reason). The generated test checks that they still differ,
# so that the list cannot go stale.
EXPECTED_TO_DIFFER: dict = {}

# Cases left out of the generated tests because their compiled form does not build, each with
# its reason (a bug of the compile-time engine).
DOES_NOT_COMPILE = {
    "jinja2-core-tags/if-elif-deep-0": "22.8 KB with 1,000 elif branches: its constexpr parse passes clang's default budget of constant-evaluation steps (-fconstexpr-steps=1048576), a compile error under clang",
    "jinja2-core-tags/if-elif-deep-10": "22.8 KB with 1,000 elif branches: its constexpr parse passes clang's default budget of constant-evaluation steps (-fconstexpr-steps=1048576), a compile error under clang",
    "jinja2-core-tags/if-elif-deep-999": "22.8 KB with 1,000 elif branches: its constexpr parse passes clang's default budget of constant-evaluation steps (-fconstexpr-steps=1048576), a compile error under clang",
    "jinja2-core-tags/if-elif-deep-1000": "22.8 KB with 1,000 elif branches: its constexpr parse passes clang's default budget of constant-evaluation steps (-fconstexpr-steps=1048576), a compile error under clang",
}

CPP_KEYWORDS = set("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern
false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public register reinterpret_cast requires return short signed
sizeof static static_assert static_cast struct switch template this thread_local throw true try
typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
final override import module
""".split())
# Names that are macros in the test sources (standard headers, GNU predefined macros, doctest).
CPP_MACROS = set("""
assert errno offsetof setjmp va_arg va_start va_end va_copy stdin stdout stderr NULL EOF BUFSIZ
linux unix i386 CHECK REQUIRE WARN INFO CAPTURE MESSAGE FAIL SUBCASE TEST_CASE
""".split())

INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1

# Names with a meaning of their own in the compile-time front end (never reported as missing).
GLOBAL_NAMES = {"range", "dict", "namespace", "cycler", "joiner", "lipsum", "loop", "caller", "varargs", "kwargs"}
DICT_METHODS = {"clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update",
                "values"}
LOOP_ATTRIBUTES = {"index", "index0", "revindex", "revindex0", "first", "last", "length"}


class Skip(Exception):
    """The case cannot be written with a typed context: the reason."""


class Case:
    def __init__(self, name, template, context_text, context, origin):
        self.name = name
        self.template = template
        self.context_text = context_text   # the context as JSON text (key order kept)
        self.context = context             # an Obj (see load_json)
        self.origin = origin


# ----------------------------------------------------------------------------- loading cases

class Obj:
    """A JSON object with its keys in order."""
    def __init__(self, pairs):
        self.pairs = pairs


def load_json(text):
    """Parses JSON keeping key order; rejects what has no C++ counterpart."""
    def pairs_hook(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise Skip("an object with a duplicate key")
        return Obj(pairs)

    def bad_constant(c):
        raise Skip(f"a non-JSON number ({c})")

    return json.loads(text, object_pairs_hook=pairs_hook, parse_constant=bad_constant)


def load_cases(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files.extend(sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(".jsonl")))
        else:
            files.append(p)
    cases, skipped, total = [], [], [0]
    for path in files:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            origin = f"tests/jinja/cases/{os.path.basename(path)}:{lineno}"
            name = obj["name"]
            total[0] += 1
            if obj.get("env", "both") == "hf":
                skipped.append((name, "needs the hf environment"))
                continue
            context_text = json.dumps(obj.get("context", {}), ensure_ascii=False)
            try:
                parsed = dict(load_json(line).pairs).get("context", Obj([]))
            except Skip as e:
                skipped.append((name, f"context: {e}"))
                continue
            cases.append(Case(name, obj["template"], context_text, parsed, origin))
    return cases, skipped, total[0]


# ----------------------------------------------------------------------------- C++ types

# A type is a tuple: ("str",), ("int",), ("float",), ("bool",), ("null",), ("list", T or None),
# ("nullable", T), ("obj", ((key, T), ...)), ("undefined",) (an empty optional member).

def is_identifier(k):
    return (k.isascii() and k.isidentifier() and k not in CPP_KEYWORDS and k not in CPP_MACROS
            and "__" not in k and not (k.startswith("_") and len(k) > 1 and k[1].isupper()))


def type_of_json(v):
    if isinstance(v, Obj):
        for k, _ in v.pairs:
            if not is_identifier(k):
                raise Skip(f"a key that is not a C++ identifier ({k!r})")
        return ("obj", tuple((k, type_of_json(x)) for k, x in v.pairs))
    if isinstance(v, list):
        t = None
        for x in v:
            t = type_of_json(x) if t is None else unify(t, type_of_json(x))
        return ("list", t)
    if isinstance(v, bool):
        return ("bool",)
    if isinstance(v, int):
        if not INT64_MIN <= v <= INT64_MAX:
            raise Skip("an integer beyond 64 bits")
        return ("int",)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise Skip("a float out of range")
        return ("float",)
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise Skip("a string that is not valid UTF-8")
        return ("str",)
    if v is None:
        return ("null",)
    raise AssertionError(v)


def unify(a, b):
    """The one C++ type for the elements of an array, or Skip."""
    if a == b:
        return a
    if a[0] == "null":
        return b if b[0] == "nullable" else ("nullable", b)
    if b[0] == "null":
        return unify(b, a)
    if a[0] == "nullable" or b[0] == "nullable":
        inner_a = a[1] if a[0] == "nullable" else a
        inner_b = b[1] if b[0] == "nullable" else b
        return ("nullable", unify(inner_a, inner_b))
    if a[0] == "list" and b[0] == "list":
        if a[1] is None:
            return b
        if b[1] is None:
            return a
        return ("list", unify(a[1], b[1]))
    if a[0] == "obj" and b[0] == "obj":
        if [k for k, _ in a[1]] != [k for k, _ in b[1]]:
            raise Skip("an array of objects with different keys or key orders")
        return ("obj", tuple((k, unify(x, y)) for (k, x), (_, y) in zip(a[1], b[1])))
    raise Skip("an array of values of different types")


# ----------------------------------------------------------------------------- the compile-time check

class Missing(Exception):
    """The compile-time check would stop at a member the context type lacks."""


class Checker:
    """Follows the name paths of a template as parley/jinja/compiled.hpp's compile-time check does
    (check_node, eval, lookup, member_of), with the types of the generated context: reports the
    names read from the context that it lacks (`missing`) and raises Missing for a member path
    into an object that lacks the member."""

    def __init__(self, template_ast, root):
        self.root = dict(root[1])  # ("obj", members)
        self.assigned = assigned_names(template_ast)
        self.missing = []

    # -- types of expressions (eval's return types; None: unknown)

    def lookup(self, name, scope):
        for n, t in reversed(scope):
            if n == name:
                return t
        if name in self.root:
            return self.root[name]
        if name not in self.assigned and name not in GLOBAL_NAMES and name not in self.missing:
            self.missing.append(name)
        return None

    def member(self, t, key, is_attr):
        if t is None:
            return None
        if t == ("loop",):
            return ("int",) if is_attr and key in LOOP_ATTRIBUTES else None
        if t[0] == "obj":
            if is_attr and key in DICT_METHODS:
                return None
            for k, x in t[1]:
                if k == key:
                    return x
            raise Missing(f"reads a member the object lacks ({key!r})")
        return None

    def type_of(self, n, scope):
        if isinstance(n, nodes.Const):
            v = n.value
            if isinstance(v, bool):
                return ("bool",)
            if isinstance(v, int):
                return ("int",)
            if isinstance(v, str):
                return ("str",)
            if v is None:
                return ("null",)
            return None
        if isinstance(n, nodes.Name):
            return self.lookup(n.name, scope)
        if isinstance(n, nodes.Getattr):
            return self.member(self.type_of(n.node, scope), n.attr, True)
        if isinstance(n, nodes.Getitem) and is_str_const(n.arg):
            return self.member(self.type_of(n.node, scope), n.arg.value, False)
        if (isinstance(n, nodes.Filter) and n.node is not None and n.name in ("first", "last")
                and not n.args and not n.kwargs and n.dyn_args is None and n.dyn_kwargs is None):
            # seq|first, seq|last: the element, as seq[k]
            t = self.type_of(n.node, scope)
            if t is not None and t[0] == "list":
                return t[1] if t[1] is not None else ("str",)
            return None
        if isinstance(n, nodes.Getitem) and is_int_literal(n.arg):
            # seq[k]: the element (read further, its members are checked)
            t = self.type_of(n.node, scope)
            if t is not None and t[0] == "list":
                return t[1] if t[1] is not None else ("str",)
            return None
        if isinstance(n, nodes.Add):
            a, b = self.type_of(n.left, scope), self.type_of(n.right, scope)
            return ("str",) if a == ("str",) and b == ("str",) else None
        if (isinstance(n, nodes.Filter) and n.node is not None and n.name in ("length", "count")
                and not n.args and not n.kwargs and n.dyn_args is None and n.dyn_kwargs is None):
            self.type_of(n.node, scope)
            return ("int",)
        if isinstance(n, (nodes.And, nodes.Or, nodes.Not, nodes.Compare, nodes.Test)):
            self.truth(n, scope)
            return ("bool",)
        return None

    def truth(self, n, scope):
        """truth_ok: the types it computes."""
        if isinstance(n, (nodes.And, nodes.Or)):
            self.truth(n.left, scope)
            self.truth(n.right, scope)
        elif isinstance(n, nodes.Not):
            self.truth(n.node, scope)
        elif isinstance(n, nodes.Compare):
            if len(n.ops) == 1:
                self.type_of(n.expr, scope)
                self.type_of(n.ops[0].expr, scope)
        elif isinstance(n, nodes.Test):
            if n.args or n.kwargs or n.dyn_args or n.dyn_kwargs:
                return
            if n.name == "none":
                self.type_of(n.node, scope)
        else:
            self.type_of(n, scope)

    # -- check_node

    def check_list(self, items, scope):
        scope = list(scope)
        for item in items:
            if isinstance(item, nodes.Assign) and isinstance(item.target, nodes.Name):
                self.check(item.node, scope)
                scope.append((item.target.name, self.type_of(item.node, scope)))
            else:
                self.check(item, scope)

    def check(self, n, scope):
        if n is None:
            return
        if isinstance(n, list):
            for x in n:
                self.check(x, scope)
            return
        if isinstance(n, (nodes.Name, nodes.Getattr)) or (isinstance(n, nodes.Getitem) and is_str_const(n.arg)):
            self.type_of(n, scope)
        elif isinstance(n, nodes.Test) and n.name in ("defined", "undefined"):
            pass
        elif isinstance(n, nodes.Filter) and n.name in ("default", "d"):
            self.check([n.args, n.kwargs, n.dyn_args, n.dyn_kwargs], scope)
        elif isinstance(n, nodes.For):
            self.check(n.iter, scope)
            seq = self.type_of(n.iter, scope)
            if isinstance(n.target, nodes.Name) and seq is not None and seq[0] == "list":
                elem = seq[1] if seq[1] is not None else ("str",)
                inner = list(scope) + [("loop", ("loop",)), (n.target.name, elem)]
            elif isinstance(n.target, nodes.Name):
                inner = list(scope) + [(n.target.name, None)]
            else:
                inner = list(scope)
            self.check(n.test, inner)
            self.check_list(n.body, inner)
            self.check_list(n.else_, scope)
        elif isinstance(n, nodes.Assign):
            self.check(n.node, scope)
        elif isinstance(n, (nodes.Macro, nodes.CallBlock, nodes.With)):
            pass
        elif isinstance(n, nodes.If):
            self.check(n.test, scope)
            self.check_list(n.body, scope)
            for e in n.elif_:
                self.check(e, scope)
            self.check_list(n.else_, scope)
        elif isinstance(n, (nodes.AssignBlock, nodes.FilterBlock, nodes.Block, nodes.Scope,
                            nodes.ScopedEvalContextModifier)):
            for field in n.fields:
                v = getattr(n, field)
                if field == "body":
                    self.check_list(v, scope)
                elif isinstance(v, (nodes.Node, list)):
                    self.check(v, scope)
        elif isinstance(n, nodes.Template):
            self.check_list(n.body, scope)
        elif isinstance(n, nodes.Node):
            for child in n.iter_child_nodes():
                self.check(child, scope)


def is_str_const(n):
    return isinstance(n, nodes.Const) and isinstance(n.value, str)


def is_int_literal(n):
    """k or -k, k an integer literal (compiled.hpp's is_int_subscript)."""
    if isinstance(n, nodes.Neg):
        n = n.node
    return isinstance(n, nodes.Const) and isinstance(n.value, int) and not isinstance(n.value, bool)


def assigned_names(template):
    """compiled.hpp's assigned_symbols: the names assigned where the generated code does not
    follow the assignment."""
    r = set()

    def mark(t):
        if isinstance(t, (nodes.Name, nodes.NSRef)):
            r.add(t.name)
        elif isinstance(t, (nodes.Tuple, nodes.List)):
            for x in t.items:
                mark(x)

    def mark_all():
        for y in template.find_all((nodes.Assign, nodes.AssignBlock, nodes.For)):
            mark(y.target)
        for y in template.find_all(nodes.Macro):
            r.add(y.name)
            r.update(a.name for a in y.args)
        for y in template.find_all(nodes.CallBlock):
            r.update(a.name for a in y.args)
        for y in template.find_all(nodes.With):
            r.update(t.name for t in y.targets if isinstance(t, nodes.Name))

    def walk_list(items, followed):
        for item in items:
            if isinstance(item, nodes.Assign):
                if not followed or not isinstance(item.target, nodes.Name):
                    mark(item.target)
            else:
                walk(item, followed)

    def walk(n, followed):
        if isinstance(n, nodes.For):
            if not isinstance(n.target, nodes.Name):
                mark(n.target)
            walk_list(n.body, True)
            walk_list(n.else_, followed)
        elif isinstance(n, nodes.If):
            walk_list(n.body, False)
            for e in n.elif_:
                walk(e, False)
            walk_list(n.else_, False)
        elif isinstance(n, (nodes.Macro, nodes.CallBlock, nodes.With, nodes.AssignBlock, nodes.FilterBlock,
                            nodes.Block, nodes.Scope, nodes.ScopedEvalContextModifier)):
            mark_all()

    walk_list(template.body, True)
    return r


# ----------------------------------------------------------------------------- C++ text

def cpp_string(s):
    """A C++ string literal of the UTF-8 bytes of s (octal escapes: never longer than 3 digits)."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c == "?":
            out.append("\\?")
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def cpp_string_view(s):
    return f"::std::string_view({cpp_string(s)}, {len(s.encode('utf-8'))})"


class Emitter:
    """The structs of one case's context."""

    def __init__(self, ns):
        self.ns = ns
        self.structs = []  # (name, members) in definition order
        self.names = {}

    def cpp_type(self, t):
        kind = t[0]
        if kind == "str":
            return "::std::string"
        if kind == "int":
            return "::std::int64_t"
        if kind == "float":
            return "double"
        if kind == "bool":
            return "bool"
        if kind == "null":
            return "::std::nullptr_t"
        if kind == "undefined":
            return "::std::optional<::std::string>"
        if kind == "list":
            return f"::std::vector<{self.cpp_type(t[1] if t[1] is not None else ('str',))}>"
        if kind == "nullable":
            return f"::std::variant<::std::nullptr_t, {self.cpp_type(t[1])}>"
        if kind == "obj":
            if t not in self.names:
                members = [(k, self.cpp_type(x)) for k, x in t[1]]
                name = f"s{len(self.structs)}_"
                self.structs.append((name, members))
                self.names[t] = name
            return f"::{self.ns}::{self.names[t]}"
        raise AssertionError(t)

    def value(self, t, v):
        kind = t[0]
        if kind == "str":
            return f"::std::string({cpp_string(v)}, {len(v.encode('utf-8'))})"
        if kind == "int":
            return "(-9223372036854775807 - 1)" if v == INT64_MIN else f"::std::int64_t{{{v}}}"
        if kind == "float":
            return repr(float(v))
        if kind == "bool":
            return "true" if v else "false"
        if kind == "null":
            return "nullptr"
        if kind == "undefined":
            return "::std::nullopt"
        if kind == "list":
            ct = self.cpp_type(t)
            if not v:
                return f"{ct}{{}}"
            return f"{ct}{{" + ", ".join(self.value(t[1], x) for x in v) + "}"
        if kind == "nullable":
            ct = self.cpp_type(t)
            if v is None:
                return f"{ct}{{::std::in_place_index<0>, nullptr}}"
            return f"{ct}{{::std::in_place_index<1>, {self.value(t[1], v)}}}"
        if kind == "obj":
            ct = self.cpp_type(t)
            values = dict(v.pairs) if isinstance(v, Obj) else v
            fields = [f".{k} = {self.value(x, values[k])}" for k, x in t[1]]
            return f"{ct}{{" + ", ".join(fields) + "}"
        raise AssertionError(t)

    def definitions(self):
        lines = []
        for name, members in self.structs:
            lines.append(f"struct {name} {{")
            for k, ct in members:
                lines.append(f"    {ct} {k};")
            lines.append("};")
            lines.append(f"BOOST_DESCRIBE_STRUCT({name}, (), ({', '.join(k for k, _ in members)}))")
        return lines


# ----------------------------------------------------------------------------- generation

class Generated:
    def __init__(self, case, index, root_type, undefined_names):
        self.case = case
        self.index = index
        self.root_type = root_type
        self.undefined_names = undefined_names


def builtin_signatures():
    """The filters and tests the compile-time templates know (parley/jinja/detail/ct/diagnostics.hpp),
    with their argument counts, read from its tables: {("filter" or "test", name): (min, max)}."""
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "parley", "jinja",
                          "detail", "ct", "diagnostics.hpp")
    with open(header, encoding="utf-8") as f:
        text = f.read()
    table = {}
    for kind, array in (("filter", "builtin_filters"), ("test", "builtin_tests")):
        body = re.search(r"builtin_signature " + array + r"\[\] = \{(.*?)\n\};", text, re.S).group(1)
        for name, lo, hi in re.findall(r'\{"([^"]+)", (\d+), (\d+|many)\}', body):
            table[(kind, name)] = (int(lo), 255 if hi == "many" else int(hi))
    assert len(table) > 80, "compiled_cases_gen.py: the signature tables of detail/ct/diagnostics.hpp were not found"
    return table


SIGNATURES = builtin_signatures()


def call_fault(ast):
    """Why the compile-time check of filters and tests rejects a template, or None."""
    for n in ast.find_all((nodes.Filter, nodes.Test)):
        kind = "filter" if isinstance(n, nodes.Filter) else "test"
        sig = SIGNATURES.get((kind, n.name))
        if sig is None:
            return f"an unknown {kind} (a compile error for a compile-time template)"
        if n.dyn_args is None and n.dyn_kwargs is None:
            given = len(n.args) + len(n.kwargs)
            if given < sig[0] or given > sig[1]:
                return f"a {kind} given a wrong number of arguments (a compile error for a compile-time template)"
    return None


def prepare(case, env):
    """The typed form of a case, or Skip."""
    if case.name in DOES_NOT_COMPILE:
        raise Skip("does not compile: " + DOES_NOT_COMPILE[case.name])
    if "\\N{" in case.template:
        raise Skip("a \\N{NAME} escape: a syntax error for parley (a known difference from Jinja2)")
    try:
        ast = env.parse(case.template)
        env.from_string(case.template)
    except jinja2.TemplateSyntaxError:
        raise Skip("a syntax error: a compile error for a compile-time template")
    except Exception as e:  # an unknown filter or test, or code Python itself refuses
        raise Skip(f"fails when compiled by Jinja2 ({type(e).__name__})")
    if any(True for _ in ast.find_all((nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport))):
        raise Skip("a tag that needs a template loader: a syntax error for parley")
    fault = call_fault(ast)
    if fault:
        raise Skip(fault)
    root = type_of_json(case.context)
    checker = Checker(ast, root)
    try:
        checker.check(ast, [])
    except Missing as e:
        raise Skip(str(e))
    undefined = []
    if checker.missing:
        for name in checker.missing:
            if not is_identifier(name):
                raise Skip(f"reads a name that is not a C++ identifier ({name!r})")
        undefined = list(checker.missing)
        root = ("obj", root[1] + tuple((n, ("undefined",)) for n in undefined))
        again = Checker(ast, root)
        try:
            again.check(ast, [])
        except Missing as e:
            raise Skip(str(e))
        assert not again.missing
    return root, undefined


def case_code(g):
    c = g.case
    ns = f"compiled_case_{g.index}"
    em = Emitter(ns)
    root_cpp = em.cpp_type(g.root_type)
    root_value = em.value(g.root_type, Obj(list(c.context.pairs) + [(n, None) for n in g.undefined_names]))
    expected = "differs" if c.name in EXPECTED_TO_DIFFER else "same"
    lines = [f"// {c.name} ({c.origin})", f"namespace {ns} {{"]
    lines += em.definitions()
    lines += [
        "struct source {",
        f"    static constexpr ::std::string_view value = {cpp_string_view(c.template)};",
        "};",
        "using compiled = ::parley::jinja::compiled_template<source>;",
        f"using context_type = {root_cpp};",
        "::compiled_cases::outcome render() {",
        f"    const context_type ctx = {root_value};",
        "    return ::compiled_cases::render_compiled<compiled>(ctx);",
        "}",
        f"const ::compiled_cases::entry entry{{{cpp_string(c.name)}, {cpp_string(c.origin)}, source::value,",
        f"    {cpp_string_view(c.context_text)},",
        f"    {'true' if g.undefined_names else 'false'}, compiled::is_compiled_for<context_type>, "
        f"::compiled_cases::expect::{expected}, &render, &compiled::runtime}};",
        "const ::compiled_cases::registrar registered{entry};",
        f"}}  // namespace {ns}",
        f"TEST_CASE({cpp_string('compiled case: ' + c.name)}) {{ ::compiled_cases::check({ns}::entry); }}",
        "",
    ]
    return lines


HEADER = """// Generated by tests/jinja/compiled_cases_gen.py from tests/jinja/cases/*.jsonl: do not edit.
// Each case's template compiled for a described struct holding its context, rendered and
// compared with the run-time engine's render of the same template on the case's JSON context.
#include "compiled_cases.hpp"

#include <boost/describe/class.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
"""


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--shards", type=int, required=True)
    ap.add_argument("--verbose", action="store_true", help="list every skipped case with its reason")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args(argv)

    cases, skipped, total = load_cases(a.paths)
    env = jinja2.Environment(keep_trailing_newline=False)
    generated = []
    for case in cases:
        try:
            root, undefined = prepare(case, env)
        except Skip as e:
            skipped.append((case.name, str(e)))
            continue
        generated.append(Generated(case, len(generated), root, undefined))

    known = {g.case.name for g in generated}
    for name in list(EXPECTED_TO_DIFFER):
        if name not in known:
            sys.stderr.write(f"compiled_cases_gen.py: EXPECTED_TO_DIFFER names {name!r}, which is not generated\n")
            return 1

    # shards of similar size (the template and the context are what the compiler works on)
    shards = [[] for _ in range(a.shards)]
    sizes = [0] * a.shards
    for g in sorted(generated, key=lambda g: -(len(g.case.template) + len(g.case.context_text) + 400)):
        k = sizes.index(min(sizes))
        shards[k].append(g)
        sizes[k] += len(g.case.template) + len(g.case.context_text) + 400
    reasons = collections.Counter(r.split(" (")[0] for _, r in skipped)
    with_undefined = sum(1 for g in generated if g.undefined_names)
    summary = [f"{total} case(s) read, "
               f"{len(generated)} generated ({with_undefined} with names the context lacks as empty optionals), "
               f"{len(skipped)} skipped:"]
    summary += [f"  {n:4d}  {r}" for r, n in sorted(reasons.items(), key=lambda x: (-x[1], x[0]))]
    # the summary test, in the first unit
    summary_test = [
        f"static const char* const generator_summary = {cpp_string(chr(10).join(summary))};",
        "TEST_CASE(\"compiled cases: every generated case registered, and enough of them take the generated "
        "path\") {",
        f"    ::compiled_cases::check_summary({len(generated)}, {COMPILED_PATH_FLOOR}, generator_summary);",
        "}",
        "",
    ]
    os.makedirs(a.out_dir, exist_ok=True)
    for k, shard in enumerate(shards):
        lines = [HEADER]
        for g in sorted(shard, key=lambda g: g.index):
            lines += case_code(g)
        if k == 0:
            lines += summary_test
        write_if_changed(os.path.join(a.out_dir, f"compiled_cases_{k}.cpp"), "\n".join(lines))

    print("compiled_cases_gen.py: " + "\n".join(summary))
    if a.verbose:
        for name, reason in skipped:
            print(f"  skipped {name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
