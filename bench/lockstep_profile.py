#!/usr/bin/env python3
"""Where a lockstep transition's instructions go, and what rate each part allows (issue 37).

Runs one command twice: natively (--reps times; the median wall time) and once under
`valgrind --tool=callgrind` (instruction counts, the same whatever else the machine does):

    memwal-check check --preset small --no-liveness --threads 1 --mode dfs
                       --max-states N --json

Then prints, per transition of that prefix: the instructions in all, this machine's
instructions per second on it (callgrind's count over the native wall time), the
instructions per transition a target rate allows at that speed (--target, default the issue's
250,000 transitions/s per thread), and the instructions each part of the program executes
itself (exclusive cost, grouped by the object and namespace of the function): the
implementation, protobuf (the library and the generated lance:: messages), the allocator, libc,
libstdc++, the model, the checker, base (Status, Result), std templates instantiated in the
project's code, the rest (xxhash, the loader). For each part it prints the rate the whole would
reach if that part cost nothing, and the rate if every library (protobuf, the allocator, libc,
libstdc++) cost nothing and only the project's own code ran, at this machine's instructions per
second: projections (they assume the rest keeps its speed), labelled as such.

Exit 0 after printing; 2 on bad usage or when a run fails (one line on stderr).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (part, test on (qualified function name, object file)), first match wins. The name is the
# text before the argument list, so a checker function taking an impl::World is the checker's.
PARTS = [
    ("protobuf", lambda name, obj: "libprotobuf" in obj or
     name.startswith(("google::protobuf", "lance::"))),
    ("allocator", lambda name, obj: "jemalloc" in obj or
     name in ("malloc", "free", "operator new", "operator delete")),
    ("libc", lambda name, obj: "libc.so" in obj),
    ("libstdc++", lambda name, obj: "libstdc++" in obj),
    ("impl", lambda name, obj: name.startswith("memwal::impl")),
    ("model", lambda name, obj: name.startswith("memwal::model")),
    ("checker", lambda name, obj: name.startswith("memwal::checker")),
    ("base", lambda name, obj: name.startswith("memwal::")),
    ("std templates", lambda name, obj: name.startswith(("std::", "__gnu_cxx::"))),
    ("other", lambda name, obj: True),
]


def split_where(where):
    """"file:function(args) [object]" -> (qualified function name, object)."""
    function = where.split(":", 1)[1] if ":" in where else where
    obj = ""
    if function.endswith("]") and " [" in function:
        function, obj = function[:-1].rsplit(" [", 1)
    # The argument list is the last parenthesized group ("(anonymous namespace)" and
    # "decltype(auto)" are parts of the name).
    name = re.sub(r"( \[clone [^]]*\])+$", "", function.strip())
    if name.endswith(" const"):
        name = name[:-len(" const")]
    if name.endswith(")"):
        depth = 0
        for k in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[k], 0)
            if depth == 0:
                name = name[:k]
                break
    # A template's name may start with its return type ("void std::sort<...>",
    # "memwal::Result<...> memwal::impl::F<...>"): the name follows the last space outside
    # angle brackets and parentheses, unless that space is inside "(anonymous namespace)" or
    # follows "operator".
    depth, cut = 0, -1
    for k, c in enumerate(name):
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif (c == " " and depth == 0 and not name[:k].endswith("operator") and
              not name[k + 1:].startswith("const")):
            cut = k
    if cut >= 0:
        name = name[cut + 1:]
    return name, obj


# The project's own code, compiled here (std templates are instantiated in it).
OWN = ("impl", "model", "checker", "base", "std templates")


def fail(message):
    print("lockstep_profile: " + message, file=sys.stderr)
    sys.exit(2)


def command(binary, max_states):
    return [binary, "check", "--preset", "small", "--no-liveness", "--threads", "1", "--mode",
            "dfs", "--max-states", str(max_states), "--json"]


def run_json(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    # --max-states stops the search: exit 3 (a budget ran out) is the expected end.
    if done.returncode not in (0, 3):
        fail(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()[:300]}")
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        fail(f"{' '.join(argv)} printed no JSON")


def native(binary, max_states, reps):
    walls, transitions = [], None
    for _ in range(reps):
        start = time.monotonic()
        report = run_json(command(binary, max_states))
        walls.append(time.monotonic() - start)
        if transitions is not None and report["transitions"] != transitions:
            fail("two native runs took different numbers of transitions")
        transitions = report["transitions"]
    return statistics.median(walls), transitions


def exclusive_costs(binary, max_states, work):
    out = os.path.join(work, "callgrind.out")
    report = run_json(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] +
                      command(binary, max_states))
    annotate = subprocess.run(["callgrind_annotate", "--threshold=100", out],
                              capture_output=True, text=True)
    if annotate.returncode != 0:
        fail("callgrind_annotate failed: " + annotate.stderr.strip()[:300])
    total = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", annotate.stdout)
    if total is None:
        fail("callgrind_annotate printed no program total")
    rows = []
    for line in annotate.stdout.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\S*?:.*)$", line)
        if match:
            rows.append((int(match.group(1).replace(",", "")), match.group(2)))
    return int(total.group(1).replace(",", "")), rows, report["transitions"]


def group(rows):
    parts = {name: 0 for name, _ in PARTS}
    for cost, where in rows:
        function, obj = split_where(where)
        for name, test in PARTS:
            if test(function, obj):
                parts[name] += cost
                break
    return parts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "memwal-check"))
    parser.add_argument("--max-states", type=int, default=40000,
                        help="the prefix's states (default 40000)")
    parser.add_argument("--reps", type=int, default=3, help="native runs (default 3)")
    parser.add_argument("--target", type=float, default=250000,
                        help="transitions/s per thread to compare with (default 250000)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    options = parser.parse_args()
    if options.max_states < 1 or options.reps < 1 or options.target <= 0:
        fail("--max-states, --reps and --target must be positive")
    if not os.access(options.binary, os.X_OK):
        fail(f"no executable at {options.binary} (build it, or pass --binary)")
    for tool in ("valgrind", "callgrind_annotate"):
        if shutil.which(tool) is None:
            fail(f"{tool} is not on PATH (Debian's valgrind)")

    wall, transitions = native(options.binary, options.max_states, options.reps)
    with tempfile.TemporaryDirectory(prefix="lockstep-profile-") as work:
        total, rows, counted = exclusive_costs(options.binary, options.max_states, work)
    if counted != transitions or transitions == 0:
        fail(f"callgrind's run took {counted} transitions, the native ones {transitions}")
    per_second = total / wall
    parts = group(rows)
    result = {
        "command": " ".join(["memwal-check"] + command(options.binary, options.max_states)[1:]),
        "transitions": transitions,
        "native_seconds_median": wall,
        "native_transitions_per_s": transitions / wall,
        "instructions": total,
        "instructions_per_transition": total / transitions,
        "instructions_per_s": per_second,
        "target_transitions_per_s": options.target,
        "instructions_per_transition_the_target_allows": per_second / options.target,
        "parts": [{
            "part": name,
            "instructions_per_transition": cost / transitions,
            "share": cost / total,
            "projected_transitions_per_s_without_it":
                transitions / ((total - cost) / per_second) if cost < total else None,
        } for name, cost in sorted(parts.items(), key=lambda item: -item[1])],
    }
    own = sum(parts[name] for name in OWN)
    result["own_code_instructions_per_transition"] = own / transitions
    result["projected_transitions_per_s_own_code_only"] = transitions / (own / per_second)
    if options.json:
        print(json.dumps(result, indent=2))
        return
    print(f"command: {result['command']}")
    print(f"{transitions:,} transitions; native median of {options.reps}: {wall:.2f} s "
          f"= {transitions / wall:,.0f} transitions/s (process wall, start-up included)")
    print(f"callgrind: {total:,} instructions = {total / transitions:,.0f} per transition; "
          f"{per_second / 1e9:.2f} G instructions/s on this machine")
    print(f"{options.target:,.0f} transitions/s allows {per_second / options.target:,.0f} "
          f"instructions per transition at that speed")
    print("part            per transition   share   projected rate without it")
    for part in result["parts"]:
        rate = part["projected_transitions_per_s_without_it"]
        print(f"{part['part']:<15} {part['instructions_per_transition']:>14,.0f} "
              f"{part['share'] * 100:>6.1f}%   "
              f"{'-' if rate is None else f'{rate:,.0f} transitions/s'}")
    print(f"the project's own code alone ({', '.join(OWN)}): "
          f"{result['own_code_instructions_per_transition']:,.0f} per transition, projected "
          f"{result['projected_transitions_per_s_own_code_only']:,.0f} transitions/s with every "
          f"library free")


if __name__ == "__main__":
    main()
