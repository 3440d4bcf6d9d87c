#!/usr/bin/env python3
"""ctests (label mutate) of `./memwal mutate`'s honesty rules (tests/mutate/README.md):

  keys        a .tsv row whose key names no mutant, or several, is refused: exit 2, one line.
  equivalent  a mutant argued equivalent is not run by default (reported `equivalent (not
              run)`); --run-equivalent runs it, and a killed one refutes its argument (exit 1).
  readme      the README's mutation-score block is the one the score file makes: a hand-edited
              figure, a figure outside the block, or a block without a score file behind it
              fails the check.

Each case runs on the slice binary (memwal-check-mutant-slice, impl/read.cc alone) and one tiny
entry, or on files written under --work.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutate  # noqa: E402

ENTRY = ("0 check --preset tiny --commits 3 --no-liveness --threads 1 "
         "--expect verdict=ReachPositionWithdrawn\n")


def run(args):
    result = subprocess.run([sys.executable, os.path.join(HERE, "mutate.py")] + args,
                            capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def keys(options, mutants, work):
    """A planted row with a key no mutant has, and one with a key two mutants share, are each
    refused with exit 2 and a one-line error naming the row, before anything runs."""
    known = mutants[0]
    common = ["--binary", options.binary, "--judge", write(os.path.join(work, "judge.txt"),
                                                          ENTRY),
              "--out", os.path.join(work, "keys-report"), "--gaps", os.devnull]
    # A key the schemata never made (the old format, without the site's ordinal).
    old_key = f"{known['file']}|{known['function']}|{known['mutation']}|{known['original']}"
    planted = write(os.path.join(work, "stale.tsv"),
                    "# a planted stale row\n" + old_key + "\tan argument\n")
    code, out, err = run(common + ["--mutants", options.mutants, "--equivalent", planted])
    assert code == 2, (code, out, err)
    assert err.count("\n") == 1 and "stale.tsv:2" in err and "names no mutant" in err, err
    assert "unmutated" not in out, "a refused row must stop the run before the baseline"
    # Two mutants of one key (a schemata that broke the one-key-one-site rule).
    with open(options.mutants) as f:
        schemata = json.load(f)
    schemata["mutants"][1]["key"] = schemata["mutants"][0]["key"]
    twice = write(os.path.join(work, "twice.json"), json.dumps(schemata))
    row = write(os.path.join(work, "row.tsv"), schemata["mutants"][0]["key"] + "\tanything\n")
    code, out, err = run(common + ["--mutants", twice, "--equivalent", row])
    assert code == 2 and err.count("\n") == 1 and "names 2 mutants" in err, (code, err)
    # The same row for a key named once is accepted (the run goes on to the baseline).
    code, out, err = run(common + ["--mutants", options.mutants, "--equivalent", row,
                                   "--only", "1"])
    assert code == 0, (code, out, err)
    # A key both argued equivalent and listed as a gap is refused.
    code, out, err = run(common[:-2] + ["--mutants", options.mutants, "--equivalent", row,
                                        "--gaps", row])
    assert code == 2 and "both" in err, (code, err)
    print("keys: a stale key, a shared key and a key in both files are refused (exit 2)")


def equivalent(options, mutants, work):
    """The known-killable mutant of the slice argued equivalent: not run by default; run and
    refuted (exit 1, listed) with --run-equivalent."""
    known = [m for m in mutants if m["file"] == "impl/read.cc" and
             "position >= generation" in m["original"] and m["mutation"] == ">= -> >"]
    assert len(known) == 1, known
    known = known[0]
    neighbour = known["id"] + 1
    argued = write(os.path.join(work, "argued.tsv"),
                   known["key"] + "\ta planted wrong argument\n")
    out_dir = os.path.join(work, "equivalent-report")
    common = ["--binary", options.binary, "--mutants", options.mutants,
              "--judge", write(os.path.join(work, "judge.txt"), ENTRY), "--out", out_dir,
              "--equivalent", argued, "--gaps", os.devnull, "--min-timeout", "60",
              "--only", f"{known['id']},{neighbour}"]
    code, out, err = run(common)
    assert code == 0, (code, out, err)
    with open(os.path.join(out_dir, "mutate.json")) as f:
        report = json.load(f)
    rows = {r["id"]: r for r in report["mutants"]}
    assert rows[known["id"]]["verdict"] == "equivalent (not run)", rows[known["id"]]
    with open(os.path.join(out_dir, "results.jsonl")) as f:
        ran = [json.loads(line)["id"] for line in f]
    assert known["id"] not in ran, ran
    assert report["counts"]["equivalent"] >= 1 and not report["refuted"], report["counts"]
    code, out, err = run(common + ["--run-equivalent"])
    assert code == 1, (code, out, err)
    with open(os.path.join(out_dir, "mutate.json")) as f:
        report = json.load(f)
    rows = {r["id"]: r for r in report["mutants"]}
    assert rows[known["id"]]["verdict"] == "killed", rows[known["id"]]
    assert report["refuted"] == [known["id"]], report["refuted"]
    assert "REFUTED" in out and "argued equivalent were killed" in err, (out, err)
    print(f"equivalent: mutant {known['id']} argued equivalent is not run; with "
          f"--run-equivalent it is killed and refutes its argument (exit 1)")


def readme(options, work):
    """The README check passes on the block a score file makes and fails on a hand-edited
    figure, a figure outside the block, and a measured figure without its score file."""
    score = {"measured": True, "score_line": "x", "percent": 91.3, "killed": 1000,
             "non_equivalent": 1095, "judged": "./memwal check (gate.txt)",
             "counts": {"generated": 1900, "unreached": 200, "equivalent": 80},
             "source_commit": "0123456789ab", "source_dirty": False, "binary_sha256": "f" * 16,
             "command": "./memwal mutate --write-score docs/mutation-score.json",
             "date": "2026-12-05 10:00 UTC"}
    score_path = write(os.path.join(work, "score.json"), json.dumps(score))
    block = mutate.readme_block(score)
    good = "# A README\n\nIntro.\n\n" + block + "\n\nMore.\n"
    readme_path = write(os.path.join(work, "README.md"), good)
    check = ["--check-readme", "--readme", readme_path, "--score-file", score_path]
    code, out, err = run(check)
    assert code == 0, (code, out, err)
    write(readme_path, good.replace("**91.3%**", "**95.0%**"))
    code, out, err = run(check)
    assert code == 1 and "differs" in err, (code, err)
    write(readme_path, good + "\nOur mutation score is 99% now.\n")
    code, out, err = run(check)
    assert code == 1 and "outside" in err, (code, err)
    not_measured = write(os.path.join(work, "none.json"), json.dumps(mutate.NOT_MEASURED))
    write(readme_path, good)
    code, out, err = run(["--check-readme", "--readme", readme_path, "--score-file",
                          not_measured])
    assert code == 1, (code, err)
    write(readme_path, good.replace(block, mutate.readme_block(mutate.NOT_MEASURED)))
    code, out, err = run(["--check-readme", "--readme", readme_path, "--score-file",
                          not_measured])
    assert code == 0, (code, err)
    # --write-score refuses a run that is not the full one.
    code, out, err = run(["--write-score", os.path.join(work, "w.json"), "--sample", "3",
                          "--binary", options.binary, "--mutants", options.mutants])
    assert code == 2 and "--write-score" in err, (code, err)
    print("readme: a hand-edited figure, a figure outside the block and a figure without a "
          "measured score file each fail the check")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["keys", "equivalent", "readme"])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--mutants", required=True)
    parser.add_argument("--work", required=True)
    options = parser.parse_args()
    work = os.path.join(options.work, options.case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(options.mutants) as f:
        mutants = json.load(f)["mutants"]
    if options.case == "keys":
        keys(options, mutants, work)
    elif options.case == "equivalent":
        equivalent(options, mutants, work)
    else:
        readme(options, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
