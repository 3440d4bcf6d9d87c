#!/usr/bin/env python3
"""Lists the functions of the project's C++ sources that are at least N lines long.

usage: tests/style/function_lengths.py [--min N] [--max-allowed N] [ROOT]

A function's length runs from the line of its name to the line of its closing brace (what a
reader scrolls through). The sources are scanned, not compiled: comments, string and character
literals (raw strings too) and preprocessor lines are blanked first, then every brace that opens
at namespace or class scope after a parameter list is a function body. Lambdas and local classes
count as part of the function around them.

Prints one line per function, longest first: "LINES PATH:LINE NAME", the production folders
(base model impl checker inspect) first, then tests/ and fuzz/ under a heading. With
--max-allowed N it exits 1 when a production function is longer than N lines.
"""

import argparse
import os
import re
import sys

PRODUCTION = ["base", "model", "impl", "checker", "inspect"]
OTHER = ["tests", "fuzz"]
SUFFIXES = (".cc", ".h")


def Blank(text):
    """text with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#" or (line_start and c in " \t" and _DirectiveAhead(text, i)):
            j = i
            while j < n:  # a directive runs to an unescaped newline
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                j += 1
            out.append(_Spaces(text[i:j]))
            i = j
            continue
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
            continue
        if c not in " \t":
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(_Spaces(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(_Spaces(text[i:j]))
            i = j
        elif c == "R" and text.startswith('"', i + 1) and not _IdentChar(text, i - 1):
            m = re.match(r'R"([^ ()\\\t\n]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            close = ")" + m.group(1) + '"'
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            out.append('""' + _Spaces(text[i + 2 : j]))
            i = j
        elif c == '"' or (c == "'" and not _DigitSeparator(text, i)):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + _Spaces(text[i + 1 : j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _DirectiveAhead(text, i):
    j = i
    while j < len(text) and text[j] in " \t":
        j += 1
    return j < len(text) and text[j] == "#"


def _IdentChar(text, i):
    return i >= 0 and (text[i].isalnum() or text[i] == "_")


def _DigitSeparator(text, i):  # 1'000'000
    return i > 0 and text[i - 1].isalnum() and i + 1 < len(text) and text[i + 1].isalnum()


def _Spaces(s):
    return "".join("\n" if ch == "\n" else " " for ch in s)


def _TopLevel(header):
    """header with every bracketed part removed: what is outside (), [], <> is not tracked."""
    depth, kept = 0, []
    for ch in header:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0:
            kept.append(ch)
    return "".join(kept)


SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b")
NAME = re.compile(r"((?:[A-Za-z_~][\w]*(?:<[^()]*>)?::)*(?:operator\s*\S+?|~?[A-Za-z_]\w*))\s*$")


def Functions(path):
    """Yields (name, first_line, last_line) for every function body in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = Blank(f.read())
    stack = []  # one entry per open brace: "scope", or ("function", name, line)
    header_start = 0
    line = 1
    line_at = []  # line number of each character
    for ch in text:
        line_at.append(line)
        if ch == "\n":
            line += 1
    for i, ch in enumerate(text):
        if ch == "{":
            in_function = any(isinstance(s, tuple) for s in stack)
            header = text[header_start:i]
            if in_function:
                stack.append("block")
            else:
                stack.append(_Classify(header, header_start, line_at))
            header_start = i + 1
        elif ch == "}":
            if stack:
                top = stack.pop()
                if isinstance(top, tuple):
                    yield top[1], top[2], line_at[i]
            header_start = i + 1
        elif ch == ";":
            header_start = i + 1
        elif ch == ":" and not any(isinstance(s, tuple) for s in stack):
            # "public:" ends a header; "a::b" and an initializer list's ":" do not
            before = text[header_start:i].strip()
            if before in ("public", "private", "protected"):
                header_start = i + 1
    return


def _Classify(header, header_start, line_at):
    top = _TopLevel(header)
    if SCOPE.search(top) and "(" not in header.split("{")[0].split(":")[0] or top.strip() == "":
        return "scope"
    if 'extern ""' in header:
        return "scope"
    paren = header.find("(")
    if paren < 0 or "=" in _TopLevel(header[:paren]).replace("operator=", ""):
        return "data"
    if re.search(r"(^|[^=!<>])=([^=]|$)", _TopLevel(header).replace("operator", "")):
        return "data"  # a variable initialized by a call or a lambda
    m = NAME.search(header[:paren])
    if not m:
        return "data"
    name = re.sub(r"\s+", "", m.group(1))
    if name in ("TEST", "TEST_F", "TEST_P", "RC_GTEST_PROP", "RC_GTEST_FIXTURE_PROP"):
        close = header.find(")", paren)
        name += "(" + re.sub(r"\s+", " ", header[paren + 1 : close]).strip() + ")"
    offset = header_start + paren - (len(header[:paren]) - len(header[:paren].rstrip()))
    return ("function", name, line_at[max(offset - 1, header_start)])


def SourceFiles(root, folders):
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", "__pycache__"))
            for name in sorted(filenames):
                if name.endswith(SUFFIXES):
                    yield os.path.join(dirpath, name)


def Long(root, folders, minimum):
    rows = []
    for path in SourceFiles(root, folders):
        for name, first, last in Functions(path):
            lines = last - first + 1
            if lines >= minimum:
                rows.append((lines, os.path.relpath(path, root), first, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--min", type=int, default=70, help="list functions of at least N lines")
    parser.add_argument("--max-allowed", type=int, default=0,
                        help="exit 1 when a production function is longer than N lines")
    parser.add_argument("root", nargs="?",
                        default=os.path.dirname(os.path.dirname(os.path.dirname(
                            os.path.abspath(__file__)))))
    args = parser.parse_args()
    production = Long(args.root, PRODUCTION, args.min)
    for lines, path, first, name in production:
        print(f"{lines:4d} {path}:{first} {name}")
    other = Long(args.root, OTHER, args.min)
    if other:
        print("-- tests/ and fuzz/:")
        for lines, path, first, name in other:
            print(f"{lines:4d} {path}:{first} {name}")
    print(f"{len(production)} production functions of {args.min}+ lines, {len(other)} in tests")
    if args.max_allowed:
        over = [r for r in production if r[0] > args.max_allowed]
        for lines, path, first, name in over:
            print(f"too long: {path}:{first} {name} is {lines} lines (at most {args.max_allowed})",
                  file=sys.stderr)
        return 1 if over else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
