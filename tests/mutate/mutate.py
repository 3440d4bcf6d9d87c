#!/usr/bin/env python3
"""The gate's mutation score (`./memwal mutate`, issue 36 item 5; tests/mutate/README.md).

1. Builds the mutant schemata in the Release build ./memwal uses (build/, or --build-dir):
   tests/mutate/schemata.py writes the schemata of impl/'s catch-up, read, build, advance,
   conflict, commit and world code into the build tree, compiled once into memwal-check-mutant.
   impl/ itself is never edited.
2. Runs the judge on the unmutated binary (MEMWAL_MUTANT=0) with MEMWAL_MUTANT_REACHED set,
   two entries at a time: every entry must exit as expected, and the switches it evaluates are
   the reached mutants. An unreached mutant is reported as such and not run.
3. Runs every reached mutant (MEMWAL_MUTANT=<id>), two at a time, cheapest first: the entries
   that reach it in order of their unmutated time, fastest first, stopping at the first that
   does not exit as expected, crashes, or runs past its timeout (that entry kills the mutant).
   A mutant argued equivalent in tests/mutate/equivalent.tsv is not run (`equivalent (not
   run)`) unless --run-equivalent, which runs it and refutes the argument if it is killed.
   Progress lines carry an estimate of the time left.
4. Writes OUT/mutate.json and OUT/mutate.txt: generated, reached, unreached, killed, survived,
   the score (killed / non-equivalent; an unreached mutant counts as not killed), every
   survivor with file:line, the mutation and a reason (gap, from tests/mutate/gaps.tsv or
   generic), and every mutant argued equivalent with its argument. With --write-score FILE (a
   complete run only) also the score's summary to FILE (docs/mutation-score.json) and the
   README's mutation-score block from it; --check-readme checks that block against the file.

Keys of the .tsv files name one mutant of one site (schemata.py key_of; --list prints them); a
row whose key names no mutant, or several, is refused with exit 2.

The judge is the gate file (gate.txt, `memwal-check gate`; each entry runs alone with
--entry), or, for the tool's own tests, a file of entries, one a line: the expected exit code,
then memwal-check's arguments (`--out DIR` is added to `check` lines). Default: gate.txt.
Results are appended to OUT/results.jsonl as they come, so
--resume continues a cut-off run of the same binary.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RC_PARAMS = "seed=18 max_success=1000"


def fail(message):
    print("memwal mutate: " + message, file=sys.stderr)
    sys.exit(2)


def default_judge():
    """The gate file of memwal-check gate: the one portfolio ./memwal check runs."""
    return os.path.join(ROOT, "gate.txt")


def is_gate_file(path):
    with open(path) as f:
        return any(line.startswith("[entry ") for line in f)


def read_judge(path):
    if is_gate_file(path):
        # memwal-check gate's file: each entry alone first (fastest first, to kill early),
        # then, for a mutant that passes them all, the whole gate with its coverage verdict:
        # the mutant survives only when `memwal-check gate` itself passes.
        entries = []
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if line.startswith("[entry ") and line.endswith("]"):
                    name = line[len("[entry "):-1].strip()
                    entries.append({"line": number, "expected": 0, "name": name,
                                    "args": ["gate", "--gate", path, "--entry", name,
                                             "--jobs", "1"]})
        entries.append({"line": 0, "expected": 0, "final": True,
                        "args": ["gate", "--gate", path]})
        return entries
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            expected, _, command = line.partition(" ")
            if not expected.isdigit() or not command.strip():
                fail(f"{path}:{number}: expected `<exit code> <arguments>`")
            entries.append({"line": number, "expected": int(expected),
                            "args": command.split()})
    if not entries:
        fail(f"{path}: no entries")
    return entries


def read_reasons(path, by_key):
    """tests/mutate/equivalent.tsv or gaps.tsv: key<TAB>text, the key as mutants.json gives it
    (one key, one mutant of one site: tests/mutate/schemata.py key_of). A row whose key names no
    mutant of this schemata, or several, or repeats a key, or has no text is refused (exit 2):
    the code it argued about has changed, and its argument must be judged again."""
    known = {}
    if not os.path.exists(path):
        return known
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            key, tab, text = line.partition("\t")
            where = f"{os.path.relpath(path, ROOT)}:{number}"
            if not tab or not text.strip():
                fail(f"{where}: expected `key<TAB>reason`")
            matches = by_key.get(key, [])
            if not matches:
                fail(f"{where}: the key `{key}` names no mutant (the code changed: judge the "
                     f"row again and give it a mutant's key from mutate.py --list)")
            if len(matches) > 1:
                fail(f"{where}: the key `{key}` names {len(matches)} mutants (ids "
                     f"{', '.join(str(m['id']) for m in matches)}); a row covers one site")
            if key in known:
                fail(f"{where}: the key `{key}` has a row already")
            known[key] = text
    return known


def command_of(entry, binary, out_dir):
    args = entry["args"]
    command = [binary] + args
    if args[0] in ("check", "gate"):
        command += ["--out", out_dir]
    return command


def entry_coverage(entry, work):
    """The action kinds fired and goals reached by a gate entry's last run in `work`, from its
    check --json (result.json); None for an entry that is not a gate check."""
    if "name" not in entry:
        return None
    path = os.path.join(work, "out", entry["name"], "result.json")
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError):
        return None
    fired = sorted(k for k, v in result.get("coverage", {}).items() if v)
    goals = sorted(k for k, v in result.get("reachability", {}).items() if v == "reached")
    return {"fired": fired, "goals": goals}


def portfolio_lost(baseline_coverage, mutated):
    """The action kinds and goals the unmutated portfolio covers that the mutant's portfolio
    does not: entries in `mutated` (index -> coverage of the mutant's run) replace their
    unmutated coverage; every other entry did not execute the mutant and runs as unmutated."""
    need_fired, need_goals, have_fired, have_goals = set(), set(), set(), set()
    for k, c in enumerate(baseline_coverage):
        if c is None:
            continue
        need_fired.update(c["fired"])
        need_goals.update(c["goals"])
        now = mutated.get(k, c) or {"fired": [], "goals": []}
        have_fired.update(now["fired"])
        have_goals.update(now["goals"])
    return sorted(need_fired - have_fired) + sorted(need_goals - have_goals)


def run_entry(entry, binary, mutant, timeout, work, reached=None):
    """Runs one entry; returns (verdict, detail, seconds): verdict is ok, exit, crash or
    timeout."""
    out_dir = os.path.join(work, "out")
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(os.environ, MEMWAL_MUTANT=str(mutant), RC_PARAMS=RC_PARAMS)
    env.pop("MEMWAL_MUTANT_REACHED", None)
    if reached:
        env["MEMWAL_MUTANT_REACHED"] = reached
    start = time.monotonic()
    process = subprocess.Popen(command_of(entry, binary, out_dir), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return "timeout", f"past {timeout:.0f} s", time.monotonic() - start
    seconds = time.monotonic() - start
    if code == entry["expected"]:
        return "ok", "", seconds
    if code < 0:
        return "crash", f"signal {-code}", seconds
    return "exit", f"exit {code}, expected {entry['expected']}", seconds


def describe(entry):
    return " ".join(entry["args"])


def build(build_dir, targets):
    """Builds `targets` (memwal-check-mutant: the gate file's rule-properties entry runs inside
    it) in build_dir, configuring it first (Release, ccache when present) if it is new."""
    cache = os.path.join(build_dir, "CMakeCache.txt")
    os.makedirs(build_dir, exist_ok=True)
    log = os.path.join(build_dir, "mutate-build.log")
    with open(log, "w") as out:
        if not os.path.exists(cache):
            launcher = (["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
                        if shutil.which("ccache") else [])
            code = subprocess.call(["cmake", "-S", ROOT, "-B", build_dir,
                                    "-DCMAKE_BUILD_TYPE=Release"]
                                   + launcher, stdout=out, stderr=subprocess.STDOUT)
            if code != 0:
                fail(f"configuring {build_dir} failed (see {log})")
        print(f"building {build_dir} (log: {log})", file=sys.stderr, flush=True)
        code = subprocess.call(["nice", "-n", "5", "cmake", "--build", build_dir, "-j2",
                                "--target"] + targets,
                               stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        fail(f"building the mutant schemata failed (see {log})")
    return (os.path.join(build_dir, "tests", "mutate", "memwal-check-mutant"),
            os.path.join(build_dir, "tests", "mutate", "all", "mutants.json"))


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def parse_ids(text, count):
    ids = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            fail(f"--only {text}: expected ids and ranges such as 3,7-9")
        ids.update(range(int(lo), int(hi or lo) + 1))
    bad = sorted(i for i in ids if not 1 <= i <= count)
    if bad:
        fail(f"--only: no mutant {bad[0]} (1 to {count})")
    return ids


def source_commit():
    """HEAD of the repository and whether impl/, tests/ or the gate file differ from it."""
    def git(*args):
        result = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True,
                                text=True)
        return result.stdout.strip() if result.returncode == 0 else None
    head = git("rev-parse", "--short=12", "HEAD")
    dirty = git("status", "--porcelain", "--", "impl", "tests", "checker", "model", "gate.txt")
    return head, bool(dirty)


def main():
    parser = argparse.ArgumentParser(prog="memwal mutate", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__[__doc__.index("\n") + 1:])
    parser.add_argument("--build-dir", default=os.path.join(
        ROOT, os.environ.get("MEMWAL_BUILD_DIR", "build")),
        help="the Release build the schemata are built in (default: %(default)s, the build "
             "./memwal configures, so the unmutated libraries are already built)")
    parser.add_argument("--binary", help="a schemata memwal-check (skips the build); needs "
                                         "--mutants")
    parser.add_argument("--mutants", help="the binary's mutants.json")
    parser.add_argument("--judge", default=default_judge(),
                        help="the entries that judge a mutant: a gate file of memwal-check "
                             "gate ([entry NAME] sections) or lines of `<exit code> "
                             "<arguments>` (default: %(default)s)")
    parser.add_argument("--equivalent", default=os.path.join(ROOT, "tests/mutate/equivalent.tsv"),
                        help="mutants argued equivalent: key<TAB>argument; they are not run "
                             "(reported `equivalent (not run)`) unless --run-equivalent")
    parser.add_argument("--gaps", default=os.path.join(ROOT, "tests/mutate/gaps.tsv"),
                        help="known gaps: key<TAB>why no entry kills it and what would; a "
                             "survivor listed here still counts as not killed")
    parser.add_argument("--run-equivalent", action="store_true",
                        help="run the mutants argued equivalent too; one that is killed refutes "
                             "its argument: it is listed, counts as killed, and mutate exits 1")
    parser.add_argument("--out", help="report directory (default: BUILD_DIR/mutate-report)")
    parser.add_argument("--only", help="run only these ids (3,7-9); the others are not run")
    parser.add_argument("--every", type=int, default=1,
                        help="run every K-th reached mutant (by id) only: a sample; the "
                             "report says so")
    parser.add_argument("--sample", type=int,
                        help="judge a seeded uniform sample of N of the generated mutants "
                             "(reached or not; --seed): the report says so and scores the "
                             "sample")
    parser.add_argument("--seed", type=int, default=1, help="the sample's seed (default 1)")
    parser.add_argument("--confirm-survivors", action="store_true",
                        help="also run the whole gate on a mutant that every entry reaching it "
                             "passed (by default an entry that does not execute the mutant is "
                             "not run: it runs as unmutated)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants at once (at most 2)")
    parser.add_argument("--timeout-factor", type=float, default=10.0,
                        help="an entry's timeout: this times its unmutated seconds ...")
    parser.add_argument("--min-timeout", type=float, default=30.0, help="... and at least this")
    parser.add_argument("--resume", action="store_true",
                        help="keep OUT/results.jsonl's results for this binary")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--report-only", action="store_true",
                        help="run nothing: report OUT/results.jsonl and OUT/reached-baseline "
                             "of an earlier (perhaps cut-off) run of this binary")
    parser.add_argument("--write-score", metavar="FILE",
                        help="write the score's summary (score line, counts, source commit, "
                             "binary digest, command) to FILE (docs/mutation-score.json) and "
                             "the README's mutation-score block from it; only for a complete "
                             "run in one invocation with the gate file, over every generated "
                             "mutant or a seeded --sample (then it says so)")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"),
                        help="the README whose mutation-score block --write-score rewrites")
    parser.add_argument("--check-readme", action="store_true",
                        help="run nothing: exit 1 unless the README's mutation-score block is "
                             "the one the score file (--score-file) makes")
    parser.add_argument("--score-file", default=SCORE_FILE,
                        help="the committed score for --check-readme (default: %(default)s)")
    options = parser.parse_args()
    if options.check_readme:
        problem = check_readme(options.readme, options.score_file)
        if problem:
            print("memwal mutate: " + problem, file=sys.stderr)
            return 1
        print(f"{options.readme}: the mutation-score block is {options.score_file}'s")
        return 0
    if not 1 <= options.jobs <= 2:
        fail("--jobs: 1 or 2 (the machine has 2 cores)")
    if options.write_score and (options.only or options.every > 1 or options.report_only or
                                options.resume):
        fail("--write-score: only a complete run in one invocation, over every mutant or a "
             "seeded --sample (no --only, --every, --resume or --report-only)")
    judge = read_judge(options.judge)
    if options.write_score and not is_gate_file(options.judge):
        fail("--write-score: the score is the gate file's (memwal-check gate), not a list's")
    if options.binary:
        if not options.mutants:
            fail("--binary needs --mutants")
        binary, mutants_path = os.path.abspath(options.binary), options.mutants
    elif options.list and options.mutants:
        binary, mutants_path = None, options.mutants
    else:
        binary, mutants_path = build(options.build_dir, ["memwal-check-mutant"])
    with open(mutants_path) as f:
        schemata = json.load(f)
    mutants = schemata["mutants"]
    by_key = {}
    for m in mutants:
        by_key.setdefault(m["key"], []).append(m)
    if options.list:
        for m in mutants:
            print(f"{m['id']}\t{m['file']}:{m['line']}\t{m['operator']}\t{m['key']}")
        return 0
    equivalent = read_reasons(options.equivalent, by_key)
    gaps = read_reasons(options.gaps, by_key)
    both = sorted(set(equivalent) & set(gaps))
    if both:
        fail(f"the key `{both[0]}` is both argued equivalent and listed as a gap")
    out = os.path.abspath(options.out or os.path.join(options.build_dir, "mutate-report"))
    os.makedirs(out, exist_ok=True)
    started = time.monotonic()

    # The unmutated run: every entry passes; each entry's reached marks, coverage and time.
    digest = file_digest(binary)
    baseline_path = os.path.join(out, "baseline.json")
    judge_args = [describe(e) for e in judge]
    base = None
    if (options.resume or options.report_only) and os.path.exists(baseline_path):
        with open(baseline_path) as f:
            base = json.load(f)
        if not isinstance(base, dict) or base.get("binary") != digest or \
                base.get("judge") != judge_args:
            base = None
    if base is None and options.report_only:
        fail(f"--report-only: no {baseline_path} of this binary and judge")
    if options.report_only:
        options.resume = True  # report what results.jsonl holds; never delete it
    if base is None:
        base = baseline_run(judge, binary, out, options)
        with open(baseline_path, "w") as f:
            json.dump(base, f)
    baseline = base["seconds"]
    reached_by = [set(r) for r in base["reached"]]
    coverage = base["coverage"]
    reached = set().union(*reached_by) if reached_by else set()
    # Entries in order of their unmutated time, fastest first; the whole gate (only with
    # --confirm-survivors) last.
    order = sorted((k for k in range(len(judge)) if baseline[k] is not None),
                   key=lambda k: (judge[k].get("final", False), baseline[k], k))
    timeouts = [max(options.min_timeout, options.timeout_factor * (s or 0)) for s in baseline]

    selected = parse_ids(options.only, len(mutants)) if options.only else None
    sample = None
    if options.sample:
        if options.sample > len(mutants):
            fail(f"--sample {options.sample}: there are {len(mutants)} mutants")
        sample = set(random.Random(options.seed).sample(
            [m["id"] for m in mutants], options.sample))
        selected = sample if selected is None else selected & sample
    results_path = os.path.join(out, "results.jsonl")
    results = {}
    if options.resume and os.path.exists(results_path):
        with open(results_path) as f:
            for line in f:
                r = json.loads(line)
                if r.get("binary") == digest:
                    results[r["id"]] = r
    elif os.path.exists(results_path):
        os.remove(results_path)
    if options.every > 1:
        every = set(sorted(reached)[::options.every])
        selected = every if selected is None else selected & every
    # A mutant argued equivalent is not run (unless --run-equivalent): its verdict would not
    # count, and a reached one usually runs every entry that reaches it (a survivor's cost).
    todo = [m for m in mutants if m["id"] in reached and m["id"] not in results and
            (selected is None or m["id"] in selected) and not options.report_only and
            (options.run_equivalent or m["key"] not in equivalent)]

    def predicted(m):
        """A mutant's cost if it survives: the unmutated seconds of the entries reaching it."""
        return sum(baseline[k] for k in order if m["id"] in reached_by[k])

    # The cheapest first, so that a cut-off run has judged as many as it could.
    todo.sort(key=lambda m: (predicted(m), m["id"]))
    lock = threading.Lock()
    slots = list(range(options.jobs))

    def judge_mutant(m):
        """Runs only the entries whose unmutated run executed the mutant (any other entry runs
        exactly as unmutated: one search thread, one seed), fastest first, until one fails;
        then the portfolio's coverage with the mutated entries' coverage in place of theirs."""
        with lock:
            slot = slots.pop()
        try:
            start = time.monotonic()
            work = os.path.join(out, f"work-{slot + 1}")
            mutated = {}
            ran = []
            for k in order:
                final = judge[k].get("final", False)
                if not final and m["id"] not in reached_by[k]:
                    continue
                if final:  # --confirm-survivors: the whole gate, as ./memwal check runs it
                    lost = portfolio_lost(coverage, mutated)
                    if lost:
                        break
                verdict, detail, seconds = run_entry(judge[k], binary, m["id"], timeouts[k],
                                                     work)
                ran.append(judge[k].get("name", describe(judge[k])))
                if verdict != "ok":
                    return {"id": m["id"], "verdict": "killed", "how": verdict,
                            "by": judge[k].get("name", describe(judge[k])), "detail": detail,
                            "ran": ran,
                            "seconds": round(time.monotonic() - start, 1), "binary": digest}
                mutated[k] = entry_coverage(judge[k], work)
            lost = portfolio_lost(coverage, mutated)
            if lost:
                return {"id": m["id"], "verdict": "killed", "how": "coverage",
                        "by": "the portfolio's coverage",
                        "detail": "covered by no entry: " + " ".join(lost), "ran": ran,
                        "seconds": round(time.monotonic() - start, 1), "binary": digest}
            return {"id": m["id"], "verdict": "survived", "ran": ran,
                    "seconds": round(time.monotonic() - start, 1), "binary": digest}
        finally:
            with lock:
                slots.append(slot)

    skipped = len([m for m in mutants if m["id"] in reached and m["key"] in equivalent and
                   not options.run_equivalent and (selected is None or m["id"] in selected)])
    print(f"{len(mutants)} mutants, {len(reached)} reached; running {len(todo)} "
          f"({options.jobs} at a time; {skipped} reached ones argued equivalent are not run)",
          flush=True)
    # Progress with an estimate of the time left: the seconds spent so far per predicted
    # second (a survivor's cost) of the mutants done, times the predicted seconds left, over
    # the jobs. Mutants run cheapest first, so the estimate grows as the run goes on.
    total_predicted = sum(predicted(m) for m in todo)
    done_predicted, done_seconds, done = 0.0, 0.0, 0
    run_start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        # As each finishes (not in submission order), so that results.jsonl keeps every
        # finished mutant when a run is cut off.
        futures = {pool.submit(judge_mutant, m): m for m in todo}
        for future in concurrent.futures.as_completed(futures):
            m, r = futures[future], future.result()
            results[r["id"]] = r
            with lock, open(results_path, "a") as f:
                f.write(json.dumps(r) + "\n")
            done += 1
            done_predicted += predicted(m)
            done_seconds += r["seconds"]
            ratio = done_seconds / done_predicted if done_predicted > 0 else 1.0
            left = ratio * (total_predicted - done_predicted) / options.jobs
            print(f"[{done}/{len(todo)} {format_seconds(time.monotonic() - run_start)} "
                  f"elapsed, about {format_seconds(left)} left] "
                  f"{r['id']:5} {r['verdict']:8} {r['seconds']:6.1f} s  {m['file']}:{m['line']} "
                  f"{m['mutation']}" + (f"  [{r['how']}: {r['by']}]" if r["verdict"] == "killed"
                                        else ""), flush=True)

    report = summarize(mutants, reached, results, selected, equivalent, judge, baseline,
                       options, binary, mutants_path, sample, gaps)
    report["seconds"] = round(time.monotonic() - started)
    with open(os.path.join(out, "mutate.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    text = table(report)
    with open(os.path.join(out, "mutate.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    print(f"report: {out}/mutate.json, {out}/mutate.txt")
    refuted = report["refuted"]
    if options.write_score:
        if report["run"].startswith("partial"):
            fail(f"--write-score: the run is not complete ({report['run']}); nothing written")
        if refuted:
            fail("--write-score: an argued-equivalent mutant was killed; nothing written")
        score = score_summary(report, digest)
        with open(options.write_score, "w") as f:
            json.dump(score, f, indent=1)
            f.write("\n")
        write_readme_block(options.readme, readme_block(score))
        print(f"score written to {options.write_score} and {options.readme}")
    if refuted:
        print(f"memwal mutate: {len(refuted)} mutants argued equivalent were killed (their "
              f"argument in {os.path.relpath(options.equivalent, ROOT)} is wrong): ids "
              + " ".join(str(r) for r in refuted), file=sys.stderr)
        return 1
    return 0


def format_seconds(seconds):
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds} s"


def baseline_run(judge, binary, out, options):
    """Each entry once on the unmutated binary (MEMWAL_MUTANT=0), options.jobs at a time, with
    its own reached file: every entry must pass; its reached ids, coverage and seconds."""
    base = {"binary": file_digest(binary), "judge": [describe(e) for e in judge],
            "seconds": [None] * len(judge), "reached": [[] for _ in judge],
            "coverage": [None] * len(judge)}
    runs = [k for k, e in enumerate(judge) if not e.get("final") or options.confirm_survivors]
    lock = threading.Lock()
    slots = list(range(options.jobs))

    def one(k):
        with lock:
            slot = slots.pop()
        try:
            entry = judge[k]
            work = os.path.join(out, f"work-{slot + 1}")
            reached_file = os.path.join(out, f"reached-{k}")
            if os.path.exists(reached_file):
                os.remove(reached_file)
            verdict, detail, seconds = run_entry(entry, binary, 0, None, work, reached_file)
            if verdict != "ok":
                return k, f"the unmutated binary fails `{describe(entry)}`: {detail}"
            ids = set()
            if os.path.exists(reached_file):
                with open(reached_file) as f:
                    for line in f:
                        ids.update(int(x) for x in line.split())
            base["seconds"][k] = seconds
            base["reached"][k] = sorted(ids)
            base["coverage"][k] = entry_coverage(entry, work)
            print(f"unmutated: {seconds:6.1f} s  {len(ids):5} mutants reached  "
                  f"{describe(entry)}", flush=True)
            return k, None
        finally:
            with lock:
                slots.append(slot)

    # In the gate file's order (no entry's time is known yet); the whole gate last.
    runs.sort(key=lambda k: judge[k].get("final", False))
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        for k, error in pool.map(one, runs):
            if error:
                fail(error)
    return base


def summarize(mutants, reached, results, selected, equivalent, judge, baseline, options,
              binary, mutants_path, sample=None, gaps=None):
    rows = []
    counts = {"generated": len(mutants), "reached": 0, "unreached": 0, "killed": 0,
              "survived": 0, "equivalent": 0, "not run": 0}
    if sample is not None:
        mutants = [m for m in mutants if m["id"] in sample]
        counts["sample"] = len(mutants)
    refuted = []
    for m in mutants:
        row = dict(m)
        r = results.get(m["id"])
        argued = m["key"] in equivalent
        counts["reached" if m["id"] in reached else "unreached"] += 1
        if r is not None:
            row.update({k: r[k] for k in ("verdict", "how", "by", "detail", "seconds", "ran")
                        if k in r})
        elif argued and not options.run_equivalent:
            row["verdict"] = "equivalent (not run)"
        elif m["id"] not in reached:
            row["verdict"] = "unreached"
        else:
            row["verdict"] = "not run"
        if row["verdict"] == "killed":
            counts["killed"] += 1
            if argued:  # --run-equivalent: the argument is wrong
                refuted.append(m["id"])
                row["reason"] = "refuted: argued equivalent in equivalent.tsv, but killed"
        elif argued:
            counts["equivalent"] += 1
            row["reason"] = "equivalent: " + equivalent[m["key"]]
            if row["verdict"] == "survived":
                counts["survived"] += 1
        else:
            if row["verdict"] == "survived":
                counts["survived"] += 1
            elif row["verdict"] == "not run":
                counts["not run"] += 1
            if row["verdict"] in ("survived", "unreached"):
                if gaps and m["key"] in gaps:
                    row["reason"] = "gap: " + gaps[m["key"]]
                elif row["verdict"] == "unreached":
                    row["reason"] = "gap: no gate entry executes it"
                else:
                    row["reason"] = "gap: every gate entry passes with it"
        rows.append(row)

    def equivalent_row(r):
        return r.get("reason", "").startswith("equivalent")

    unreached_run = [r for r in rows if r["verdict"] == "unreached" and not equivalent_row(r)]
    run = [r for r in rows if r["verdict"] in ("killed", "survived")]
    run_non_equivalent = len([r for r in run if not equivalent_row(r)])
    non_equivalent = len([r for r in rows if not equivalent_row(r)])
    killed = counts["killed"]
    complete = counts["not run"] == 0
    if complete:
        score = {"killed": killed, "non_equivalent": non_equivalent,
                 "percent": round(100.0 * killed / non_equivalent, 1) if non_equivalent
                 else None,
                 "of": (f"a seeded uniform sample of {len(mutants)} of the {counts['generated']}"
                        f" generated mutants, seed {options.seed}" if sample is not None else
                        "every generated mutant") + "; unreached ones count as not killed"}
    else:
        unreached_non_equivalent = len(unreached_run)
        among_run = killed / run_non_equivalent if run_non_equivalent else None
        reached_share = 1.0 - unreached_non_equivalent / non_equivalent if non_equivalent \
            else None
        score = {"killed": killed, "non_equivalent": run_non_equivalent,
                 "percent": round(100.0 * among_run, 1) if among_run is not None else None,
                 "of": "the reached mutants that were run (partial run)",
                 "estimate_percent": round(100.0 * among_run * reached_share, 1)
                 if among_run is not None else None,
                 "estimate": "killed share among the run mutants times the reached share of "
                             "all non-equivalent mutants (unreached ones count as not killed)"}
    judged = ("./memwal check (gate.txt)"
              if os.path.abspath(options.judge) == os.path.join(ROOT, "gate.txt")
              else os.path.relpath(options.judge, ROOT))
    return {
        "command": "./memwal mutate " + " ".join(sys.argv[1:]),
        "judged": judged,
        "judge": [{"expected": e["expected"], "args": describe(e), "unmutated_seconds":
                   None if s is None else round(s, 1)} for e, s in zip(judge, baseline)],
        "binary": binary, "mutants_json": mutants_path,
        "run": (f"complete over a seeded uniform sample of {len(mutants)} of "
                f"{counts['generated']} generated mutants (--sample {options.sample} --seed "
                f"{options.seed}); this is a sample, not the full score"
                if sample is not None else "complete") if complete else
               f"partial: {len(results)} of {counts['reached']} reached mutants run"
               + (f" (a sample: every {options.every}th reached mutant by id)"
                  if options.every > 1 else "")
               + (" (--only)" if options.only else ""),
        "counts": counts,
        "score": score,
        "refuted": refuted,
        "survivors": [{k: r[k] for k in ("id", "file", "line", "function", "operator",
                                         "mutation", "original", "verdict", "reason", "key")}
                      for r in rows if r["verdict"] in ("survived", "unreached")
                      and not equivalent_row(r)],
        "equivalent": [{k: r[k] for k in ("id", "file", "line", "mutation", "verdict",
                                          "reason", "key")}
                       for r in rows if equivalent_row(r)],
        "mutants": rows,
    }


def score_line(report):
    s = report["score"]
    return (f"score of {report['judged']}: {s['killed']} killed of {s['non_equivalent']} "
            f"non-equivalent" + (f" = {s['percent']}%" if s["percent"] is not None else "")
            + f" ({s['of']})")


def table(report):
    c, s = report["counts"], report["score"]
    lines = [f"run: {report['run']}",
             f"generated {c['generated']}  reached {c['reached']}  unreached {c['unreached']}  "
             f"killed {c['killed']}  survived {c['survived']}  not run {c['not run']}  "
             f"equivalent {c['equivalent']}",
             score_line(report)]
    if "estimate_percent" in s:
        lines.append(f"estimated score of ./memwal check: {s['estimate_percent']}% "
                     f"({s['estimate']})")
    if report["refuted"]:
        lines.append("REFUTED: argued equivalent in equivalent.tsv but killed: ids "
                     + " ".join(str(i) for i in report["refuted"]))
    lines.append("")
    by_operator = {}
    for r in report["mutants"]:
        slot = by_operator.setdefault(r["operator"], {"all": 0, "reached": 0, "run": 0,
                                                      "killed": 0})
        slot["all"] += 1
        slot["reached"] += r["verdict"] not in ("unreached", "equivalent (not run)")
        slot["run"] += r["verdict"] in ("killed", "survived")
        slot["killed"] += r["verdict"] == "killed"
    lines.append(f"{'operator':12} {'mutants':>8} {'reached':>8} {'run':>8} {'killed':>8}")
    for op in sorted(by_operator):
        o = by_operator[op]
        lines.append(f"{op:12} {o['all']:8} {o['reached']:8} {o['run']:8} {o['killed']:8}")
    lines.append("")
    lines.append("survivors and unreached mutants (not killed):")
    lines.append(f"{'id':>5}  {'where':28} {'verdict':9} {'mutation':44} reason")
    def row(r, verdict_width, reason_width=None):
        where = f"{r['file']}:{r['line']}"
        verdict = r["verdict"][:verdict_width]
        return (f"{r['id']:5}  {where:28} {verdict:{verdict_width}} {r['mutation'][:44]:44} "
                f"{r['reason'][:reason_width]}")

    lines.extend(row(r, 9) for r in report["survivors"])
    lines.append("")
    lines.append(f"argued equivalent ({len(report['equivalent'])}; tests/mutate/equivalent.tsv):")
    lines.extend(row(r, 20, 120) for r in report["equivalent"])
    return "\n".join(lines) + "\n"


# --- The committed score and the README's figure ---------------------------------------------
SCORE_FILE = os.path.join(ROOT, "docs", "mutation-score.json")
README_BEGIN = "<!-- mutation-score: ./memwal mutate --write-score writes it; ctest MutateReadme* -->"
README_END = "<!-- /mutation-score -->"
NOT_MEASURED = {"measured": False,
                "how": "./memwal mutate --write-score docs/mutation-score.json"}


def score_summary(report, digest):
    head, dirty = source_commit()
    return {"measured": True, "run": report["run"], "score_line": score_line(report),
            "sample": report["counts"].get("sample"),
            "percent": report["score"]["percent"], "killed": report["score"]["killed"],
            "non_equivalent": report["score"]["non_equivalent"],
            "counts": report["counts"], "judged": report["judged"],
            "source_commit": head, "source_dirty": dirty, "binary_sha256": digest,
            "command": report["command"], "seconds": report.get("seconds"),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "survivors": [f"{r['id']} {r['file']}:{r['line']} {r['mutation']}: {r['reason']}"
                          for r in report["survivors"]]}


def readme_block(score):
    """The README's mutation-score lines, made from the score file alone."""
    if not score.get("measured"):
        body = ("The mutation score of `./memwal check` is **not measured**: no complete run is "
                "recorded in docs/mutation-score.json yet. `./memwal mutate --write-score "
                "docs/mutation-score.json` measures it (docs/mutation.md says what a run costs) "
                "and writes this paragraph from its result.")
    else:
        c = score["counts"]
        if score.get("sample"):
            what = (f"a seeded sample of {score['sample']} of the {c['generated']} generated "
                    f"mutants, not the full score: {score['killed']} killed of "
                    f"{score['non_equivalent']} non-equivalent; of the sample, "
                    f"{c['unreached']} reached by no entry, {c['equivalent']} argued "
                    f"equivalent")
        else:
            what = (f"{score['killed']} killed of {score['non_equivalent']} non-equivalent "
                    f"mutants; {c['generated']} generated, {c['unreached']} reached by no "
                    f"entry, {c['equivalent']} argued equivalent")
        body = (f"Mutation score of `./memwal check`"
                f"{' (a sample)' if score.get('sample') else ''}: **{score['percent']}%** "
                f"({what}), measured by `{score['command']}` on "
                f"commit {score['source_commit']}"
                f"{' with local changes' if score['source_dirty'] else ''} ({score['date']}). "
                f"Its survivors, each with its reason, are in docs/mutation-score.json.")
    return (README_BEGIN + "\n" + textwrap.fill(body, width=96, break_long_words=False,
                                                break_on_hyphens=False)
            + "\n" + README_END)


def check_readme(readme, score_path):
    """None when the README's mutation-score block is the one its score file makes and no other
    line of the README states a mutation percentage; else what is wrong."""
    with open(score_path) as f:
        score = json.load(f)
    with open(readme) as f:
        text = f.read()
    blocks = readme_blocks(text)
    if len(blocks) != 1:
        return f"{readme}: expected one mutation-score block, found {len(blocks)}"
    lo, hi, block = blocks[0]
    if block != readme_block(score):
        return (f"{readme}: the mutation-score block differs from the one "
                f"{os.path.relpath(score_path, ROOT)} makes (run ./memwal mutate --write-score, "
                f"or restore it):\n--- README\n{block}\n--- expected\n{readme_block(score)}")
    for number, line in enumerate((text[:lo] + text[hi:]).splitlines(), 1):
        if re.search(r"mutat|mutant", line, re.I) and re.search(r"\d\s*%|percent", line):
            return f"{readme}: a mutation figure outside the mutation-score block: {line.strip()}"
    return None


def readme_blocks(text):
    """The mutation-score blocks of a README's text: [(begin offset, end offset, block)]."""
    found, at = [], 0
    while True:
        lo = text.find(README_BEGIN, at)
        if lo < 0:
            return found
        hi = text.find(README_END, lo)
        if hi < 0:
            return found + [(lo, len(text), text[lo:])]
        hi += len(README_END)
        found.append((lo, hi, text[lo:hi]))
        at = hi


def write_readme_block(path, block):
    with open(path) as f:
        text = f.read()
    blocks = readme_blocks(text)
    if len(blocks) != 1:
        fail(f"{path}: expected one mutation-score block ({README_BEGIN[:30]}...), found "
             f"{len(blocks)}")
    lo, hi, _ = blocks[0]
    with open(path, "w") as f:
        f.write(text[:lo] + block + text[hi:])


if __name__ == "__main__":
    sys.exit(main())
