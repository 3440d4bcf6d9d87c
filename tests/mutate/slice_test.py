#!/usr/bin/env python3
"""ctest MutateSliceKillsAKnownMutantAndTheOriginalPasses: the whole `./memwal mutate` pipeline
(schemata binary, unmutated run with reached marks, mutants judged, report) on the slice
binary memwal-check-mutant-slice (impl/read.cc alone), a handful of mutants and one tiny entry.

Checks that the unmutated binary passes the entry (mutate.py exits 0 only then), that the
retirement test's boundary flip `position >= generation` -> `>` in read.cc is killed, that
every mutant is reached or unreached and the counts add up, and that a mutant id past the
count is refused (exit 2) by the binary's switch.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENTRY = ("0 check --preset tiny --commits 3 --no-liveness --threads 1 "
         "--expect verdict=ReachPositionWithdrawn\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--mutants", required=True)
    parser.add_argument("--work", required=True)
    options = parser.parse_args()
    with open(options.mutants) as f:
        schemata = json.load(f)
    mutants = schemata["mutants"]
    assert [m["id"] for m in mutants] == list(range(1, len(mutants) + 1)), "ids are 1..N"
    known = [m for m in mutants if m["file"] == "impl/read.cc" and
             "position >= generation" in m["original"] and m["mutation"] == ">= -> >"]
    assert len(known) == 1, f"the known mutant is not in the slice: {known}"
    known = known[0]
    # The known mutant and its neighbours in id order: a handful.
    ids = sorted({known["id"]} | {i for i in range(known["id"] - 2, known["id"] + 3)
                                  if 1 <= i <= len(mutants)})
    os.makedirs(options.work, exist_ok=True)
    judge = os.path.join(options.work, "judge.txt")
    with open(judge, "w") as f:
        f.write(ENTRY)
    out = os.path.join(options.work, "report")
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "mutate.py"), "--binary", options.binary,
         "--mutants", options.mutants, "--judge", judge, "--out", out,
         "--only", ",".join(map(str, ids)), "--min-timeout", "60", "--equivalent",
         os.devnull, "--gaps", os.devnull], capture_output=True, text=True)
    print(result.stdout)
    print(result.stderr, file=sys.stderr)
    assert result.returncode == 0, f"mutate.py exited {result.returncode}"
    with open(os.path.join(out, "mutate.json")) as f:
        report = json.load(f)
    rows = {r["id"]: r for r in report["mutants"]}
    c = report["counts"]
    assert c["generated"] == len(mutants) == schemata["count"]
    assert c["reached"] + c["unreached"] == c["generated"]
    assert c["killed"] + c["survived"] + c["not run"] == c["reached"]
    assert rows[known["id"]]["verdict"] == "killed", rows[known["id"]]
    assert c["reached"] > 0 and c["unreached"] < c["generated"]
    for i in ids:
        assert rows[i]["verdict"] in ("killed", "survived", "unreached"), rows[i]
    refused = subprocess.run([options.binary, "--help"], capture_output=True, text=True,
                             env=dict(os.environ, MEMWAL_MUTANT=str(len(mutants) + 1)))
    assert refused.returncode == 2, f"MEMWAL_MUTANT past the count: exit {refused.returncode}"
    print(f"slice: {len(mutants)} mutants, {c['reached']} reached; mutant {known['id']} "
          f"({known['mutation']} at {known['file']}:{known['line']}) killed by "
          f"{rows[known['id']]['by']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
