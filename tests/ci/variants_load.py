#!/usr/bin/env python3
"""Does a `variants` verdict depend on the machine's load? (issue 36: "two runs of `variants`
(lockstep) on one machine, one with the other core busy, print the same verdict for every row")

Runs `memwal-check variants --json --threads 1 ARGS` twice on core 0 (taskset): once as the
machine is, once with a busy loop pinned to core 1 for the whole run, and compares each row's
verdict, broken invariant and state count. Prints one line per row and `same verdicts: N of N
rows`; exit 0 when every row's verdict and invariant agree, 1 when one differs, 2 on bad usage
or a run that did not produce a table.

usage: variants_load.py BINARY OUT_DIR [variants args...]   (default args: --preset tiny)
"""
import json
import os
import subprocess
import sys
import time


def run(binary, out, args, label):
    path = os.path.join(out, label)
    os.makedirs(path, exist_ok=True)
    command = ["taskset", "-c", "0", binary, "variants", "--json", "--threads", "1",
               "--out", os.path.join(path, "traces")] + args
    start = time.monotonic()
    with open(os.path.join(path, "variants.json"), "w") as stdout, \
            open(os.path.join(path, "stderr.txt"), "w") as stderr:
        code = subprocess.call(command, stdout=stdout, stderr=stderr)
    seconds = time.monotonic() - start
    try:
        with open(os.path.join(path, "variants.json")) as f:
            rows = json.load(f)
    except ValueError:
        print(f"variants_load: the {label} run (exit {code}) printed no table; see {path}",
              file=sys.stderr)
        sys.exit(2)
    print(f"{label}: exit {code}, {len(rows)} rows, {seconds:.1f} s ({' '.join(command)})",
          flush=True)
    return rows


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    args = sys.argv[3:] or ["--preset", "tiny"]
    if (os.cpu_count() or 1) < 2:
        print("variants_load: needs 2 cores (one for variants, one for the busy loop)",
              file=sys.stderr)
        return 2
    idle = run(binary, out, args, "as-is")
    busy = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"],
                            start_new_session=True)
    try:
        loaded = run(binary, out, args, "core-1-busy")
    finally:
        busy.kill()
        busy.wait()
    if [r["variant"] for r in idle] != [r["variant"] for r in loaded]:
        print("variants_load: the two runs have different rows", file=sys.stderr)
        return 1
    same = 0
    for a, b in zip(idle, loaded):
        agree = (a["verdict"], a.get("invariant")) == (b["verdict"], b.get("invariant"))
        same += agree
        print(f"{'same' if agree else 'DIFF':5} {a['variant']:34} {a['verdict']:12} "
              f"{b['verdict']:12} states {a['states']} / {b['states']}, "
              f"{a['seconds']:.1f} / {b['seconds']:.1f} s")
    print(f"same verdicts: {same} of {len(idle)} rows")
    return 0 if same == len(idle) else 1


if __name__ == "__main__":
    sys.exit(main())
