#!/usr/bin/env python3
"""Line and branch coverage of impl/ under the gate, from Debian's gcov (`./memwal coverage`).

Reads the .gcda files the gate's run left in a --coverage build of memwal-check, runs
`gcov --json-format --branch-probabilities` on every impl/*.cc object, and prints per file its
lines and branches reached, then every block of impl/ lines no gate entry reaches (consecutive
unexecuted lines, a blank or comment line does not break a block), as `impl/FILE:FIRST-LAST
(N lines) in FUNCTION`; and every spec rule impl/ names in a comment (`R24`) with whether the
gate ran the function that carries it (the function the comment is in, or the first one that
starts within 15 lines below it). --markdown prints the same list as docs/gate-coverage.md's table rows.

usage: gate_coverage.py --build build-coverage --source . [--markdown]
"""
import argparse
import gzip
import json
import pathlib
import re
import subprocess
import sys
import tempfile


def gcov_json(source, obj_dir, scratch):
    """gcov's JSON document for one source file, or None when it has no data."""
    # CMake names the object of a source X.cc "X.cc.o", so its notes and data are X.cc.gcno and X.cc.gcda:
    # gcov is given the object (given the source it would look for X.gcno).
    subprocess.run(["gcov", "--json-format", "--branch-probabilities", "--demangled-names",
                    str(obj_dir / (source.name + ".o"))],
                   cwd=scratch, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = pathlib.Path(scratch) / (source.name + ".gcov.json.gz")
    if not out.exists():
        return None
    with gzip.open(out, "rt") as f:
        document = json.load(f)
    out.unlink()
    return document


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--write", help="write the generated part of this markdown file "
                        "(between its `generated` markers): totals, rules and every "
                        "unreached block with its reason from --reasons")
    parser.add_argument("--reasons", help="TSV: impl/FILE or *, FUNCTION or *, the block's "
                        "first line (stripped), * or ~REGEX searched in it, the reason; the "
                        "first matching row wins")
    args = parser.parse_args()
    source = pathlib.Path(args.source).resolve()
    build = pathlib.Path(args.build).resolve()
    obj_dir = build / "impl" / "CMakeFiles" / "memwal_impl.dir"
    if not any(obj_dir.glob("*.gcda")):
        print(f"gate_coverage: no .gcda files under {obj_dir}: build with --coverage and run "
              "the gate first", file=sys.stderr)
        return 2
    totals = [0, 0, 0, 0]  # lines, lines hit, branches, branches taken
    blocks = []
    rows = []
    rules = {}  # "R24" -> [(where, function, executions)]
    with tempfile.TemporaryDirectory(prefix="memwal-gcov-") as scratch:
        for cc in sorted((source / "impl").glob("*.cc")):
            document = gcov_json(cc, obj_dir, scratch)
            if document is None:
                continue
            text = cc.read_text().splitlines()
            for entry in document["files"]:
                if pathlib.Path(entry["file"]).name != cc.name:
                    continue
                functions = sorted(((f["start_line"], f["end_line"], f["demangled_name"])
                                    for f in entry.get("functions", [])))
                executed = {(f["start_line"], f["demangled_name"]): f["execution_count"]
                            for f in entry.get("functions", [])}
                for number, line_text in enumerate(text, start=1):
                    comment = line_text.find("//")
                    if comment < 0:
                        continue
                    for rule in set(re.findall(r"\bR[0-9]+\b", line_text[comment:])):
                        carrier = [f for f in functions if f[0] <= number <= f[1]]
                        if not carrier:
                            carrier = [f for f in functions if number < f[0] <= number + 15][:1]
                        for start, _, name in carrier[-1:]:
                            rules.setdefault(rule, []).append(
                                (f"impl/{cc.name}:{number}", name.split("(")[0],
                                 executed.get((start, name), 0)))
                lines = {}
                branches = taken = 0
                for line in entry["lines"]:
                    number = line["line_number"]
                    lines[number] = lines.get(number, 0) + line["count"]
                    for branch in line.get("branches", []):
                        branches += 1
                        taken += branch["count"] > 0
                hit = sum(1 for c in lines.values() if c > 0)
                totals[0] += len(lines)
                totals[1] += hit
                totals[2] += branches
                totals[3] += taken
                rows.append((cc.name, len(lines), hit, branches, taken))
                missed = sorted(n for n, c in lines.items() if c == 0)
                block = []
                for number in missed:
                    gap = range(block[-1] + 1, number) if block else range(0)
                    if block and all(n not in lines for n in gap):
                        block.append(number)
                        continue
                    if block:
                        blocks.append((cc.name, block, functions))
                    block = [number]
                if block:
                    blocks.append((cc.name, block, functions))

    def function_of(functions, line):
        best = "-"
        for start, end, name in functions:
            if start <= line <= end:
                best = name
        best = best.replace("(anonymous namespace)::", "").replace("[abi:cxx11]", "")
        return best.split("(")[0].removeprefix("memwal::impl::")

    if args.write:
        return write_markdown(pathlib.Path(args.write), args.reasons, source, rows, totals,
                              rules, unexercised_of(rules), blocks, function_of)
    if not args.markdown:
        print(f"{'file':28} {'lines':>14} {'branches':>16}")
        for name, n, hit, b, t in rows:
            print(f"{'impl/' + name:28} {hit:6}/{n:<6} {100 * hit / max(n, 1):4.0f}%"
                  f" {t:6}/{b:<6} {100 * t / max(b, 1):3.0f}%")
        print(f"{'impl/ total':28} {totals[1]:6}/{totals[0]:<6}"
              f" {100 * totals[1] / max(totals[0], 1):4.0f}% {totals[3]:6}/{totals[2]:<6}"
              f" {100 * totals[3] / max(totals[2], 1):3.0f}%")
    unexercised = unexercised_of(rules)
    if not args.markdown:
        exercised = len(rules) - len(unexercised)
        print(f"spec rules impl/ carries: {exercised} of {len(rules)} exercised by the gate"
              + (": not " + " ".join(unexercised) if unexercised else ""))
        for rule in unexercised:
            for where, function, _ in rules[rule]:
                print(f"  {rule} at {where} in {function}: never run")
        print(f"\nimpl/ lines no gate entry reaches: {len(blocks)} blocks, "
              f"{sum(len(b) for _, b, _ in blocks)} lines")
    for name, block, functions in blocks:
        where = f"impl/{name}:{block[0]}" + (f"-{block[-1]}" if len(block) > 1 else "")
        function = function_of(functions, block[0])
        if args.markdown:
            print(f"| {where} | {len(block)} | `{function}` | |")
        else:
            print(f"{where} ({len(block)} lines) in {function}")
    return 0


def unexercised_of(rules):
    return sorted((r for r, c in rules.items() if not any(e > 0 for _, _, e in c)),
                  key=lambda r: int(r[1:]))


BEGIN = "<!-- generated by tests/ci/gate_coverage.py --write: do not edit below -->"
END = "<!-- end of the generated part -->"


def read_reasons(path):
    reasons = []
    if path:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                parts = line.split("\t")
                if len(parts) != 4:
                    print(f"gate_coverage: {path}:{number}: expected 4 tab-separated fields",
                          file=sys.stderr)
                    sys.exit(2)
                reasons.append(parts)
    return reasons


def write_markdown(path, reasons_path, source, rows, totals, rules, unexercised, blocks,
                   function_of):
    reasons = read_reasons(reasons_path)
    out = [BEGIN, "", "| file | lines reached | branches taken |", "|---|---:|---:|"]
    for name, n, hit, b, t in rows:
        out.append(f"| impl/{name} | {hit} of {n} ({100 * hit / max(n, 1):.0f}%) | "
                   f"{t} of {b} ({100 * t / max(b, 1):.0f}%) |")
    out.append(f"| **impl/ total** | **{totals[1]} of {totals[0]} "
               f"({100 * totals[1] / max(totals[0], 1):.1f}%)** | **{totals[3]} of {totals[2]} "
               f"({100 * totals[3] / max(totals[2], 1):.1f}%)** |")
    out.append("")
    out.append(f"Spec rules impl/ names in a comment: {len(rules) - len(unexercised)} of "
               f"{len(rules)} carried by a function the gate runs"
               + (": not " + " ".join(unexercised) if unexercised else "") + ".")
    out.append("")
    out.append(f"{len(blocks)} blocks of impl/ lines no gate entry reaches "
               f"({sum(len(b) for _, b, _ in blocks)} lines):")
    out.append("")
    out.append("| block | lines | function | first line | why no gate entry reaches it |")
    out.append("|---|---:|---|---|---|")
    missing = 0
    for name, block, functions in blocks:
        where = f"impl/{name}:{block[0]}" + (f"-{block[-1]}" if len(block) > 1 else "")
        function = function_of(functions, block[0])
        text = (source / "impl" / name).read_text().splitlines()
        first = text[block[0] - 1].strip()
        why = None
        for file, func, line, reason in reasons:
            if file not in (f"impl/{name}", "*") or func not in (function, "*"):
                continue
            if line in (first, "*") or (line.startswith("~") and re.search(line[1:], first)):
                why = reason
                break
        if why is None:
            why = "**no reason recorded yet** (add a row to the reasons file)"
            missing += 1
        shown = first.replace("|", "\\|")
        if len(shown) > 60:
            shown = shown[:57] + "..."
        out.append(f"| {where} | {len(block)} | `{function}` | `{shown}` | {why} |")
    out.append("")
    out.append(END)
    document = path.read_text() if path.exists() else ""
    if BEGIN in document and END in document:
        head = document[:document.index(BEGIN)]
        tail = document[document.index(END) + len(END):]
    else:
        head, tail = document + "\n", "\n"
    path.write_text(head + "\n".join(out) + tail)
    print(f"gate_coverage: wrote {path}: {len(blocks)} blocks, {missing} without a reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
