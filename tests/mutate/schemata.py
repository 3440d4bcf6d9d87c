#!/usr/bin/env python3
"""Mutant schemata for impl/ (`./memwal mutate`, issue 36 item 5).

Reads impl/ source files with clang's own parser (Debian's python3-clang-19, the libclang
bindings), finds every mutation site in every function body from the AST's exact operand and
statement extents, and writes a copy of each file into OUT where every mutation sits behind a
runtime switch:

    a < b   becomes   (MEMWAL_MUTANT_ON(17) ? (a <= b) : MEMWAL_MUTANT_ON(18) ? (a > b) : a < b)

Only one branch of a conditional is evaluated, so the operands keep their side effects and
short-circuiting. The switch (OUT/impl/mutant_switch.{h,cc}) reads MEMWAL_MUTANT once, before any
static initializer of the program; 0 or unset is the original program. Each switch, when it is
evaluated, marks its mutant as reached; MEMWAL_MUTANT_REACHED=FILE appends the reached ids to
FILE when the process ends (exit or quick_exit).

Operators (the `operator` field of OUT/mutants.json):
  boundary     < to <=, <= to <, > to >=, >= to > (built-in operands)
  relational   < to >, <= to >=, > to <, >= to <= (built-in operands)
  equality     == to != and != to == (built-in or overloaded)
  logical      && to || and || to &&
  arithmetic   + to -, - to +, += to -=, -= to += (built-in arithmetic operands)
  call         std::min to std::max and back
  constant     an integer literal n to n+1 and (n > 0) n-1; true to false, false to true
  negate       the condition of if, while, for, do and ?: negated; !x to x
  delete       an expression statement, break, continue or `return;` removed
  swap         two adjacent call arguments of one type exchanged
  return       a returned bool expression (not a literal) to true, and to false

Mutant ids are numbered from 1 in the order of (file as given, byte offset, operator,
alternative), so they are the same on every run over the same source. A site inside a macro
invocation (MEMWAL_ASSERT and friends) or inside a constexpr function is left alone. When
--compiler is given, each generated file is compiled with -fsyntax-only and every site on a line
the compiler rejects is dropped (listed in mutants.json under "dropped"), so that an operand
type the AST filter did not foresee cannot break the build.
"""
import argparse
import json
import os
import re
import subprocess
import sys

try:
    import clang.cindex as ci
except ImportError:  # Debian's bindings, when python3 is not Debian's interpreter.
    sys.path.append("/usr/lib/python3/dist-packages")
    import clang.cindex as ci

K = ci.CursorKind
FUNCTION_KINDS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                  K.FUNCTION_TEMPLATE, K.CONVERSION_FUNCTION}
RELATIONAL = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="]}
EQUALITY = {"==": ["!="], "!=": ["=="]}
LOGICAL = {"&&": ["||"], "||": ["&&"]}
ARITHMETIC = {"+": ["-"], "-": ["+"], "+=": ["-="], "-=": ["+="]}
ARITH_TYPES = {"BOOL", "CHAR_U", "UCHAR", "CHAR16", "CHAR32", "USHORT", "UINT", "ULONG",
               "ULONGLONG", "UINT128", "CHAR_S", "SCHAR", "WCHAR", "SHORT", "INT", "LONG",
               "LONGLONG", "INT128", "FLOAT", "DOUBLE", "LONGDOUBLE"}
SWITCH = "MEMWAL_MUTANT_ON"
# Calls whose arguments commute (a swap is equivalent) or are iterator ranges.
NO_SWAP_CALLEES = {"min", "max", "swap", "includes", "all_of", "any_of", "none_of", "set_union",
                   "set_intersection", "set_difference", "insert", "assign"}


def canonical_kind(t):
    return t.get_canonical().kind.name


class Site:
    """One mutation site: the byte range [lo, hi) of an expression or statement, its holes
    (operand ranges), and its alternatives: format strings over the rendered holes ({0}, {1})
    and the whole site ({all}). `keep` formats the original branch."""

    def __init__(self, lo, hi, operator, holes, alternatives, rank, keep="({all})"):
        self.lo, self.hi = lo, hi
        self.operator = operator
        self.holes = holes
        self.alternatives = alternatives  # list of (format, description)
        self.rank = rank  # of two sites over one range, the lower rank is the outer one
        self.keep = keep
        self.function = ""
        self.ids = []
        self.inner = []


def flat(text):
    return text.replace("\n", " ")


class FileMutator:
    def __init__(self, path, rel, args):
        self.path, self.rel = path, rel
        with open(path, "rb") as f:
            raw = f.read()
        index = ci.Index.create()
        self.tu = index.parse(path, args=args,
                              options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        errors = [d for d in self.tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            raise SystemExit(f"schemata: {rel}: libclang cannot parse it: {errors[0]}")
        # Comments become blanks (same length, newlines kept), so that an operand copied onto
        # one line cannot comment out what follows it.
        text = bytearray(raw)
        for t in self.tu.get_tokens(extent=self.tu.cursor.extent):
            if t.kind == ci.TokenKind.COMMENT and t.location.file and \
                    t.location.file.name == path:
                lo, hi = t.extent.start.offset, t.extent.end.offset
                for k in range(lo, hi):
                    if text[k] != 0x0A:
                        text[k] = 0x20
        self.src = bytes(text)
        self.macros = []
        self.sites = []
        self.function = None
        self.line_starts = [0] + [m.end() for m in re.finditer(b"\n", self.src)]

    def text(self, lo, hi):
        return self.src[lo:hi].decode()

    def line_of(self, offset):
        lo, hi = 0, len(self.line_starts)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid
        return lo + 1

    def in_file(self, c):
        a, b = c.extent.start.file, c.extent.end.file
        return a is not None and b is not None and a.name == self.path and b.name == self.path

    def span(self, c):
        return c.extent.start.offset, c.extent.end.offset

    def add(self, site):
        if site.hi <= site.lo:
            return
        if any(site.lo < mhi and mlo < site.hi for mlo, mhi in self.macros):
            return
        site.function = self.function_name
        self.sites.append(site)

    # --- the AST walk ---------------------------------------------------------------------
    def collect(self):
        for c in self.tu.cursor.get_children():
            if c.kind == K.MACRO_INSTANTIATION and self.in_file(c):
                self.macros.append(self.span(c))
        self.walk_decls(self.tu.cursor)
        self.sites.sort(key=lambda s: (s.lo, -s.hi, s.rank))

    def walk_decls(self, cursor):
        for c in cursor.get_children():
            if not self.in_file(c):
                continue
            if c.kind in FUNCTION_KINDS:
                if c.is_definition() and not self.declared(c, ("constexpr", "consteval")):
                    body = [ch for ch in c.get_children() if ch.kind == K.COMPOUND_STMT]
                    if body:
                        self.function = c
                        parent = c.semantic_parent
                        self.function_name = (
                            parent.spelling + "::" + c.spelling
                            if parent is not None and parent.kind in (
                                K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE) else c.spelling)
                        self.walk(body[-1], [c])
            elif c.kind in (K.NAMESPACE, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
                            K.UNEXPOSED_DECL, K.LINKAGE_SPEC):
                self.walk_decls(c)

    @staticmethod
    def declared(c, words):
        """Whether `c`'s tokens before its body or initializer include one of `words`."""
        for t in c.get_tokens():
            if t.spelling in words:
                return True
            if t.spelling in ("{", "=", "("):
                return False
        return False

    def walk(self, c, stack):
        if not self.in_file(c):
            return
        kind = c.kind
        if kind == K.STATIC_ASSERT:
            return
        if kind.is_declaration() and kind not in (K.VAR_DECL, K.UNEXPOSED_DECL):
            return
        if kind == K.VAR_DECL and self.declared(c, ("constexpr", "constinit")):
            return
        handler = getattr(self, "on_" + kind.name.lower(), None)
        if handler is not None:
            handler(c, stack)
        children = list(c.get_children())
        if kind == K.CASE_STMT:
            children = children[1:]  # the label is a constant expression
        for ch in children:
            self.walk(ch, stack + [c])

    # --- operators ------------------------------------------------------------------------
    def operands(self, c):
        children = list(c.get_children())
        if len(children) != 2 or not all(self.in_file(x) for x in children):
            return None
        lhs, rhs = children
        (lo, lhs_hi), (rhs_lo, hi) = self.span(lhs), self.span(rhs)
        if (lo, hi) != self.span(c) or lhs_hi > rhs_lo:
            return None
        return lhs, rhs, self.text(lhs_hi, rhs_lo).strip()

    def on_binary_operator(self, c, stack):
        found = self.operands(c)
        if found is None:
            return
        lhs, rhs, op = found
        types = (canonical_kind(lhs.type), canonical_kind(rhs.type))
        if op in RELATIONAL:
            if all(t in ARITH_TYPES for t in types):
                for to in RELATIONAL[op]:
                    self.binop(c, lhs, rhs, op, to,
                               "boundary" if to.rstrip("=") == op.rstrip("=") else "relational")
        elif op in EQUALITY:
            self.binop(c, lhs, rhs, op, EQUALITY[op][0], "equality")
        elif op in LOGICAL:
            self.binop(c, lhs, rhs, op, LOGICAL[op][0], "logical")
        elif op in ("+", "-"):
            if all(t in ARITH_TYPES for t in types) or (
                    types[0] == "POINTER" and types[1] in ARITH_TYPES):
                self.binop(c, lhs, rhs, op, ARITHMETIC[op][0], "arithmetic")

    def on_compound_assignment_operator(self, c, stack):
        found = self.operands(c)
        if found is None:
            return
        lhs, rhs, op = found
        if op in ("+=", "-=") and canonical_kind(lhs.type) in ARITH_TYPES:
            self.binop(c, lhs, rhs, op, ARITHMETIC[op][0], "arithmetic")

    def binop(self, c, lhs, rhs, op, to, operator):
        lo, hi = self.span(c)
        # One site per operator node; a second alternative joins the first site.
        for s in self.sites:
            if (s.lo, s.hi, s.rank) == (lo, hi, 2):
                s.alternatives.append(("({0} " + to + " {1})", f"{op} -> {to}", operator))
                return
        self.add(Site(lo, hi, "binary", [self.span(lhs), self.span(rhs)],
                      [("({0} " + to + " {1})", f"{op} -> {to}", operator)], rank=2))

    def on_call_expr(self, c, stack):
        name = c.spelling
        if name.startswith("operator"):
            if name[len("operator"):] in EQUALITY:
                self.overloaded_equality(c)
            return
        args = list(c.get_arguments())
        lo, hi = self.span(c)
        if name in ("min", "max") and len(args) == 2 and all(self.in_file(a) for a in args):
            (alo, ahi), (blo, bhi) = self.span(args[0]), self.span(args[1])
            prefix = self.text(lo, alo)
            other = "max" if name == "min" else "min"
            if lo < alo < ahi <= blo < bhi <= hi and prefix.rstrip("( ").endswith(name):
                def escape(t):
                    return flat(t).replace("{", "{{").replace("}", "}}")
                head = prefix.rstrip("( ")
                fmt = (escape(head[:-len(name)] + other + prefix[len(head):]) + "{0}" +
                       escape(self.text(ahi, blo)) + "{1}" + escape(self.text(bhi, hi)))
                self.add(Site(lo, hi, "call", [(alo, ahi), (blo, bhi)],
                              [(fmt, f"{name} -> {other}", "call")], rank=2))
        if len(args) < 2 or name in NO_SWAP_CALLEES:
            return
        for a, b in zip(args, args[1:]):
            if not (self.in_file(a) and self.in_file(b)):
                continue
            (alo, ahi), (blo, bhi) = self.span(a), self.span(b)
            if not (lo <= alo < ahi <= blo < bhi <= hi) or self.text(ahi, blo).strip() != ",":
                continue
            ta, tb = a.type.get_canonical().spelling, b.type.get_canonical().spelling
            at, bt = self.text(alo, ahi).strip(), self.text(blo, bhi).strip()
            if ta != tb or "iterator" in ta or at == bt or at.startswith("{") or \
                    bt.startswith("{"):
                continue
            self.add(Site(alo, bhi, "swap", [(alo, ahi), (blo, bhi)],
                          [("", f"{name}(.., {flat(at)}, {flat(bt)}, ..) arguments swapped",
                            "swap")], rank=3))

    def overloaded_equality(self, c):
        children = list(c.get_children())
        if len(children) != 3 or not all(self.in_file(x) for x in children):
            return
        lhs, _, rhs = children
        (lo, lhs_hi), (rhs_lo, hi) = self.span(lhs), self.span(rhs)
        written = self.text(lhs_hi, rhs_lo).strip()
        if written in EQUALITY and (lo, hi) == self.span(c):
            self.binop(c, lhs, rhs, written, EQUALITY[written][0], "equality")

    def on_unary_operator(self, c, stack):
        children = list(c.get_children())
        if len(children) != 1 or not self.in_file(children[0]):
            return
        lo, hi = self.span(c)
        inner_lo, inner_hi = self.span(children[0])
        if inner_hi == hi and self.text(lo, inner_lo).strip() == "!":
            self.add(Site(lo, hi, "negate", [(inner_lo, inner_hi)],
                          [("static_cast<bool>({0})", "!x -> x", "negate")], rank=1))

    def on_integer_literal(self, c, stack):
        lo, hi = self.span(c)
        spelling = self.text(lo, hi)
        m = re.fullmatch(r"(0[xX][0-9a-fA-F']+|[1-9][0-9']*|0)([uUlLzZ]*)", spelling)
        if not m or any(s.kind in (K.INIT_LIST_EXPR, K.TEMPLATE_REF, K.ENUM_CONSTANT_DECL,
                                   K.FIELD_DECL) for s in stack):
            return
        value = int(m.group(1).replace("'", ""), 0)
        alternatives = [(f"({spelling} + 1)", f"{spelling} -> {value + 1}", "constant")]
        if value > 0:
            alternatives.append((f"({spelling} - 1)", f"{spelling} -> {value - 1}",
                                 "constant"))
        self.add(Site(lo, hi, "constant", [], alternatives, rank=4))

    def on_cxx_bool_literal_expr(self, c, stack):
        lo, hi = self.span(c)
        spelling = self.text(lo, hi)
        if spelling in ("true", "false"):
            other = "false" if spelling == "true" else "true"
            self.add(Site(lo, hi, "constant", [], [(other, f"{spelling} -> {other}",
                                                    "constant")], rank=4))

    def condition(self, cond):
        if cond is None or not self.in_file(cond) or not cond.kind.is_expression():
            return
        lo, hi = self.span(cond)
        self.add(Site(lo, hi, "negate", [(lo, hi)], [("!({0})", "condition negated", "negate")],
                      rank=1, keep="static_cast<bool>({all})"))

    def paren_condition(self, c):
        """The child expression that is the condition inside `keyword ( ... )`."""
        tokens = list(c.get_tokens())
        depth, start, inner = 0, None, None
        for i, t in enumerate(tokens):
            if t.spelling == "(":
                if start is None:
                    start = i
                depth += 1
            elif t.spelling == ")":
                depth -= 1
                if depth == 0 and start is not None:
                    inner = tokens[start + 1:i]
                    break
        if not inner:
            return None
        parts, current, depth = [], [], 0
        for t in inner:
            if t.spelling in ("(", "[", "{"):
                depth += 1
            elif t.spelling in (")", "]", "}"):
                depth -= 1
            if t.spelling == ";" and depth == 0:
                parts.append(current)
                current = []
            else:
                current.append(t)
        parts.append(current)
        if c.kind == K.FOR_STMT:
            if len(parts) != 3:
                return None
            part = parts[1]
        else:
            part = parts[-1]
        if not part:
            return None
        lo, hi = part[0].extent.start.offset, part[-1].extent.end.offset
        for ch in c.get_children():
            if self.in_file(ch) and self.span(ch) == (lo, hi):
                return ch
        return None

    def bodies(self, c, children):
        for ch in children:
            self.statement(ch)

    def on_if_stmt(self, c, stack):
        tokens = list(c.get_tokens())[:2]
        if any(t.spelling == "constexpr" for t in tokens):
            return
        cond = self.paren_condition(c)
        self.condition(cond)
        self.bodies(c, [ch for ch in c.get_children()
                        if cond is None or self.span(ch) != self.span(cond)])

    def on_while_stmt(self, c, stack):
        self.condition(self.paren_condition(c))
        self.bodies(c, list(c.get_children())[-1:])

    def on_for_stmt(self, c, stack):
        self.condition(self.paren_condition(c))
        self.bodies(c, list(c.get_children())[-1:])

    def on_cxx_for_range_stmt(self, c, stack):
        self.bodies(c, list(c.get_children())[-1:])

    def on_do_stmt(self, c, stack):
        children = list(c.get_children())
        if len(children) == 2:
            self.condition(children[1])

    def on_conditional_operator(self, c, stack):
        children = list(c.get_children())
        if len(children) == 3:
            self.condition(children[0])

    def on_compound_stmt(self, c, stack):
        self.bodies(c, c.get_children())

    def on_case_stmt(self, c, stack):
        self.bodies(c, list(c.get_children())[-1:])

    def on_default_stmt(self, c, stack):
        self.bodies(c, list(c.get_children())[-1:])

    def statement(self, s):
        """A deletion site for an expression statement, break, continue or `return;`."""
        if not self.in_file(s):
            return
        lo, hi = self.span(s)
        if s.kind == K.RETURN_STMT:
            if list(s.get_children()):
                return
        elif s.kind not in (K.BREAK_STMT, K.CONTINUE_STMT):
            if not s.kind.is_expression() or s.kind in (K.CXX_BOOL_LITERAL_EXPR,
                                                        K.INTEGER_LITERAL, K.LAMBDA_EXPR):
                return
        end = hi
        while end < len(self.src) and self.src[end:end + 1] in (b" ", b"\t", b"\n"):
            end += 1
        if self.src[end:end + 1] != b";":
            return
        head = flat(self.text(lo, hi)).split("(")[0].strip()
        self.add(Site(lo, end + 1, "delete", [(lo, end + 1)],
                      [("", f"statement deleted: {head[:50]}", "delete")], rank=0))

    def on_return_stmt(self, c, stack):
        children = list(c.get_children())
        if len(children) != 1 or not self.in_file(children[0]):
            return
        if any(s.kind == K.LAMBDA_EXPR for s in stack):
            return
        if self.function.result_type.get_canonical().kind.name != "BOOL":
            return
        value = children[0]
        lo, hi = self.span(value)
        if self.text(lo, hi).strip() in ("true", "false"):
            return
        self.add(Site(lo, hi, "return", [], [("true", "returns true", "return"),
                                             ("false", "returns false", "return")], rank=1))

    # --- rendering ------------------------------------------------------------------------
    def nest(self, excluded):
        """Arranges the live sites into a forest by range containment; returns the roots."""
        roots, open_ = [], []
        for s in self.sites:
            s.ids, s.inner = [], []
            if (s.lo, s.hi, s.rank) in excluded:
                continue
            while open_ and not (open_[-1].lo <= s.lo and s.hi <= open_[-1].hi):
                open_.pop()
            siblings = open_[-1].inner if open_ else roots
            if siblings and siblings[-1].hi > s.lo:
                continue  # overlaps a sibling without nesting: not a well-formed site
            if open_:
                parent = open_[-1]
                if (parent.lo, parent.hi, parent.rank) == (s.lo, s.hi, s.rank) or (
                        (parent.lo, parent.hi) == (s.lo, s.hi) and
                        parent.operator == s.operator == "negate"):
                    continue  # one node reached twice, or !x both as condition and as !x
            siblings.append(s)
            open_.append(s)
            s.live = True
        return roots

    def render(self, lo, hi, sites):
        out, at = [], lo
        for s in sites:
            if s.lo < lo or s.hi > hi:
                continue
            out.append(self.text(at, s.lo))
            out.append(self.render_site(s))
            at = s.hi
        out.append(self.text(at, hi))
        return "".join(out)

    def render_site(self, s):
        whole = self.render(s.lo, s.hi, s.inner)
        holes = [self.render(a, b, [x for x in s.inner if a <= x.lo and x.hi <= b])
                 for a, b in s.holes]
        on = [f"{SWITCH}({i})" for i in s.ids]
        if s.operator == "delete":
            return f"{{ if (!{on[0]}) {{ {whole} }} }}"
        if s.operator == "swap":
            (_, ahi), (blo, _) = s.holes
            a, b = holes
            return (f"({on[0]} ? {flat(b)} : {a}){self.text(ahi, blo)}"
                    f"({on[0]} ? {flat(a)} : {b})")
        chain = "".join(f"{switch} ? {flat(fmt.format(*holes, all=whole))} : "
                        for (fmt, _, _), switch in zip(s.alternatives, on))
        return "(" + chain + s.keep.format(all=whole) + ")"

    def generate(self, excluded, next_id, mutants):
        """Numbers the live sites from next_id, appends their mutants; returns the text."""
        roots = self.nest(excluded)
        seen = {}  # (function, mutation, text) -> sites so far: the site's ordinal
        for s in self.sites:
            if not getattr(s, "live", False):
                continue
            line = self.line_of(s.lo)
            original = " ".join(self.text(s.lo, s.hi).split())
            for fmt, description, operator in s.alternatives:
                s.ids.append(next_id)
                site = (s.function, description, original[:100])
                ordinal = seen[site] = seen.get(site, 0) + 1
                mutants.append({
                    "id": next_id, "file": self.rel, "line": line,
                    "column": s.lo - self.line_starts[line - 1] + 1,
                    "function": s.function, "operator": operator, "mutation": description,
                    "original": original[:160],
                    "key": key_of(self.rel, s.function, ordinal, description,
                                  original[:100])})
                next_id += 1
        for s in self.sites:
            s.live = False
        text = ('#include "mutant_switch.h"\n#line 1 "' + self.rel + '"\n' +
                self.render(0, len(self.src), roots))
        return text, next_id


def key_of(rel, function, ordinal, mutation, original):
    """A mutant's key (tests/mutate/equivalent.tsv and gaps.tsv): file, function, the ordinal of
    its site among the function's sites of this mutation of this text (1 for the first from the
    top), the mutation and the site's text. One key names one mutant of one site; it does not
    depend on line numbers or ids, and it changes (so its .tsv row is refused until re-judged)
    when a site of the same text and mutation is added above it in the function. `original` is
    the site's text with its whitespace collapsed, cut at 100 characters."""
    return f"{rel}|{function}|#{ordinal}|{mutation}|{original}"


def innermost_on_lines(fm, lines):
    """The sites with ids whose lines include a rejected line and none of whose inner sites
    with ids do."""
    def covers(s):
        first, last = fm.line_of(s.lo), fm.line_of(s.hi - 1)
        return any(first <= n <= last for n in lines)

    def visit(s):
        inner = [x for x in s.inner if x.ids and covers(x)]
        found = []
        for x in inner:
            found.extend(visit(x))
        if not found and s.ids and covers(s):
            return [s]
        return found

    result = []
    for s in fm.sites:
        if s.ids and covers(s) and not any(s in p.inner for p in fm.sites if p.ids):
            result.extend(visit(s))
    return result


def syntax_errors(compiler, flags, path, rel):
    """Lines of `rel` (the #line name) that `compiler -fsyntax-only` rejects."""
    result = subprocess.run([compiler, "-fsyntax-only", "-w", "-std=c++20"] + flags + [path],
                            capture_output=True, text=True)
    if result.returncode == 0:
        return set()
    lines = {int(m.group(1)) for m in
             re.finditer(re.escape(rel) + r":(\d+):\d+: (?:error|note: in expansion)",
                         result.stderr)}
    if not lines:
        raise SystemExit(f"schemata: the schemata of {rel} do not compile and the compiler "
                         f"names no line of it:\n" + result.stderr[-3000:])
    return lines


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(prog="schemata.py", description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True, help="the repository")
    parser.add_argument("--out", required=True, help="where the generated files go")
    parser.add_argument("--flag", action="append", default=[],
                        help="a compiler flag for parsing (-I..., -isystem...), repeatable")
    parser.add_argument("--compiler", help="check each generated file with it (-fsyntax-only)")
    parser.add_argument("files", nargs="+", help="impl/ files, relative to --root")
    options = parser.parse_args()
    flags = []
    for f in options.flag:
        flags.extend(f.split(" ", 1) if " " in f else [f])
    files = []
    for rel in options.files:
        fm = FileMutator(os.path.join(options.root, rel), rel,
                         ["-x", "c++", "-std=c++20"] + flags)
        fm.collect()
        files.append(fm)
    excluded = {fm.rel: set() for fm in files}
    dropped = []
    clean = set()  # files that compiled: ids shift between rounds, their validity does not
    while True:
        mutants, next_id, texts = [], 1, []
        for fm in files:
            text, next_id = fm.generate(excluded[fm.rel], next_id, mutants)
            texts.append((fm, text))
        again = False
        write_if_changed(os.path.join(options.out, "impl", "mutant_switch.h"),
                         SWITCH_H % len(mutants))
        if options.compiler:
            for fm, text in texts:
                if fm.rel in clean:
                    continue
                out = os.path.join(options.out, fm.rel)
                write_if_changed(out, text)
                lines = syntax_errors(options.compiler, flags, out, fm.rel)
                if not lines:
                    clean.add(fm.rel)
                    continue
                culprits = innermost_on_lines(fm, lines)
                if not culprits:
                    raise SystemExit(f"schemata: {fm.rel} lines {sorted(lines)} do not compile "
                                     "and hold no mutation site")
                for s in culprits:
                    excluded[fm.rel].add((s.lo, s.hi, s.rank))
                    dropped.append(f"{fm.rel}:{fm.line_of(s.lo)}: {s.operator} "
                                   f"{' '.join(fm.text(s.lo, s.hi).split())[:80]}")
                again = True
        if not again:
            break
    for fm, text in texts:
        write_if_changed(os.path.join(options.out, fm.rel), text)
    count = len(mutants)
    write_if_changed(os.path.join(options.out, "impl", "mutant_switch.h"), SWITCH_H % count)
    write_if_changed(os.path.join(options.out, "impl", "mutant_switch.cc"), SWITCH_CC)
    write_if_changed(os.path.join(options.out, "mutants.json"), json.dumps(
        {"files": options.files, "count": count, "dropped": sorted(set(dropped)),
         "mutants": mutants}, indent=1) + "\n")
    print(f"schemata: {count} mutants over {len(files)} files "
          f"({len(set(dropped))} sites the compiler rejected were dropped)")


SWITCH_H = """// Generated by tests/mutate/schemata.py: the runtime switch of the mutant schemata.
#pragma once

namespace memwal_mutant {
constexpr unsigned kCount = %d;
extern unsigned active;
extern unsigned char reached[kCount + 1];
// True when mutant `id` is the active one; marks it reached.
inline bool On(unsigned id) {
  if (!__atomic_load_n(&reached[id], __ATOMIC_RELAXED))
    __atomic_store_n(&reached[id], 1, __ATOMIC_RELAXED);
  return id == active;
}
}  // namespace memwal_mutant

#define MEMWAL_MUTANT_ON(id) (::memwal_mutant::On(id))
"""

SWITCH_CC = """// Generated by tests/mutate/schemata.py: MEMWAL_MUTANT (read once, before any static
// initializer of the program) and MEMWAL_MUTANT_REACHED (the reached ids, appended at exit).
#include "mutant_switch.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace memwal_mutant {
unsigned active = 0;
unsigned char reached[kCount + 1] = {};

namespace {
const char* reached_path = nullptr;
std::atomic<bool> dumped{false};

void Dump() {
  if (reached_path == nullptr || dumped.exchange(true)) return;
  std::string ids;
  for (unsigned id = 1; id <= kCount; ++id) {
    if (__atomic_load_n(&reached[id], __ATOMIC_RELAXED)) ids += std::to_string(id) + " ";
  }
  ids += "\\n";
  const int fd = open(reached_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  const char* at = ids.data();
  size_t left = ids.size();
  while (left > 0) {
    const ssize_t n = write(fd, at, left);
    if (n <= 0) break;
    at += n;
    left -= static_cast<size_t>(n);
  }
  close(fd);
}

__attribute__((constructor(101))) void Start() {
  const char* value = std::getenv("MEMWAL_MUTANT");
  if (value != nullptr && *value != '\\0') {
    char* end = nullptr;
    const unsigned long id = std::strtoul(value, &end, 10);
    if (*end != '\\0' || id > kCount) {
      std::fprintf(stderr, "MEMWAL_MUTANT=%s: not a mutant id (0 to %u)\\n", value, kCount);
      std::_Exit(2);
    }
    active = static_cast<unsigned>(id);
  }
  reached_path = std::getenv("MEMWAL_MUTANT_REACHED");
  if (reached_path != nullptr) {
    std::atexit(Dump);
    std::at_quick_exit(Dump);
  }
}
}  // namespace
}  // namespace memwal_mutant
"""

if __name__ == "__main__":
    main()
