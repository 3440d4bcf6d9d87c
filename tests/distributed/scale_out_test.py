#!/usr/bin/env python3
"""ctest cases of issue 16: `check --distributed` under mpirun gives the
threaded search's answers, and a run killed with SIGKILL resumes from its
checkpoint to the same final counts and verdict.

usage: scale_out_test.py CHECKER MPIRUN WORKDIR CASE

CASE is one of
  same.NP.BOUNDS.MODE       threaded vs mpirun -np NP --distributed: the same
                            states_distinct, transitions, verdict, invariant,
                            states per depth and coverage
  reference.BOUNDS.MODE     the threaded run alone, kept for ...
  same.NP.BOUNDS.MODE.reference  ... the ranks' runs that compare with it
  trace.NP.BUG.MODE         a bug run: the trace file is byte-identical
  resume.threads | resume.NP[.MODE]  SIGKILL after the first snapshots,
                            --resume, compare with an uninterrupted run
  refuse                    --resume of another configuration or of a corrupt
                            snapshot exits 2 with one line
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

CHECKER, MPIRUN, WORK, CASE = sys.argv[1:5]
MPI = [MPIRUN, "--oversubscribe", "--allow-run-as-root"]
BOUNDS = {
    # The presets, and smaller lockstep bounds that finish in about a second.
    "tiny": ["--preset", "tiny"],
    "small": ["--preset", "small"],
    "tiny3": ["--preset", "tiny", "--commits", "3", "--inflight", "1"],
}
KEYS = ("verdict", "states_distinct", "transitions", "depth_max",
        "states_per_depth", "coverage", "goals_reached", "goals_missed",
        "stopped_by")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, np=0, expect=None):
    command = (MPI + ["-np", str(np)] if np else []) + [CHECKER, "check"] + args
    done = subprocess.run(command, capture_output=True, text=True)
    if expect is not None and done.returncode not in expect:
        fail("%s exited %d\n%s%s" % (" ".join(command), done.returncode,
                                     done.stdout, done.stderr))
    return done


def report(done):
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        fail("not JSON: %r %r" % (done.stdout, done.stderr))
    out = {key: document.get(key) for key in KEYS}
    violation = document.get("violation") or {}
    out["invariant"] = violation.get("invariant")
    return out, document


def same(a, b, what):
    for key in a:
        if a[key] != b[key]:
            fail("%s: %s differs: %r vs %r" % (what, key, a[key], b[key]))
    print("%s: same verdict %s, %s states, %s transitions" %
          (what, a["verdict"], a["states_distinct"], a["transitions"]))


def mode_args(mode):
    # Ranks search breadth first, level by level; so must the threaded runs
    # they are compared with (check's own default in lockstep is dfs).
    return ["--model-only"] if mode == "model" else ["--mode", "bfs"]


def same_args(bounds, mode):
    return BOUNDS[bounds] + mode_args(mode) + ["--no-liveness", "--json",
                                               "--out", WORK + "/out"]


def reference_file(bounds, mode):
    # Written by the case reference.BOUNDS.MODE into its own WORKDIR, a
    # sibling of every case's (the ctest fixture runs it first).
    return os.path.join(os.path.dirname(WORK), "reference.%s.%s" %
                        (bounds, mode), "threads.json")


def case_reference(bounds, mode):
    threads, _ = report(run(same_args(bounds, mode) + ["--threads", "2"],
                            expect=(0, 1, 3)))
    with open(reference_file(bounds, mode), "w") as out:
        json.dump(threads, out)
    print("threaded reference: verdict %s, %s states, %s transitions" %
          (threads["verdict"], threads["states_distinct"],
           threads["transitions"]))


def case_same(np, bounds, mode, shared):
    args = same_args(bounds, mode)
    if shared:
        with open(reference_file(bounds, mode)) as text:
            threads = json.load(text)
    else:
        threads, _ = report(run(args + ["--threads", "2"], expect=(0, 1, 3)))
    ranks, document = report(
        run(args + ["--distributed", "--threads", "1"], np=np,
            expect=(0, 1, 3)))
    if document["distributed"]["ranks"] != np:
        fail("ran on %s ranks" % document["distributed"]["ranks"])
    # Lockstep states that move take their World along (none re-derived).
    shipped = document["distributed"]["worlds_shipped"]
    rederived = document["distributed"]["worlds_rederived"]
    if mode == "lockstep" and (shipped == 0 or rederived != 0):
        fail("%d Worlds shipped, %d re-derived" % (shipped, rederived))
    same(threads, ranks, "threads vs %d ranks" % np)


def case_trace(np, bug, mode):
    files = []
    for name, extra, ranks in (("threads", ["--threads", "2"], 0),
                               ("ranks", ["--distributed", "--threads", "1"],
                                np)):
        out = os.path.join(WORK, name)
        shutil.rmtree(out, ignore_errors=True)
        done = run(["--preset", "tiny", "--bug", bug, "--no-liveness",
                    "--json", "--out", out] + mode_args(mode) + extra,
                   np=ranks, expect=(1,))
        _, document = report(done)
        trace_file = (document.get("violation") or {}).get("trace_file")
        if not trace_file:
            fail("%s: no trace file" % name)
        with open(trace_file, "rb") as trace:
            files.append(trace.read())
    if files[0] != files[1]:
        fail("the trace files differ")
    print("trace files byte-identical (%d bytes)" % len(files[0]))


def case_resume(np, mode):
    # Lockstep at tiny3: the resumed ranks re-derive their slice's Worlds.
    bounds = BOUNDS["tiny3"] if mode == "lockstep" else BOUNDS["tiny"]
    args = bounds + mode_args(mode) + ["--no-liveness", "--json",
                                       "--out", WORK + "/out"]
    extra = ["--threads", "2"] if np == 0 else ["--distributed",
                                                 "--threads", "1"]
    whole, _ = report(run(args + extra, np=np, expect=(0, 1)))
    snapshots = os.path.join(WORK, "snapshots")
    shutil.rmtree(snapshots, ignore_errors=True)
    command = ((MPI + ["-np", str(np)] if np else []) + [CHECKER, "check"] + args +
               extra + ["--checkpoint", snapshots, "--checkpoint-every", "0",
                        "--pause-after-snapshot", "0.3"])
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             start_new_session=True)
    current = os.path.join(snapshots, "CURRENT")
    deadline = time.time() + 60
    level = 0
    while time.time() < deadline and child.poll() is None:
        if os.path.exists(current):
            with open(current) as text:
                name = text.read().strip()
            level = int(name.split("-")[1]) if name else 0
            if level >= 4:
                break
        time.sleep(0.05)
    if child.poll() is not None:
        fail("the run ended before its fourth snapshot")
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    print("killed with SIGKILL after the snapshot of level %d" % level)
    resumed, document = report(
        run(args + extra + ["--resume", snapshots], np=np, expect=(0, 1)))
    if document["distributed"]["resumed_level"] < 4:
        fail("resumed at level %s" % document["distributed"]["resumed_level"])
    if mode == "lockstep" and document["distributed"]["worlds_rederived"] == 0:
        fail("no World re-derived on resume")
    same(whole, resumed, "uninterrupted vs resumed")


def case_refuse():
    snapshots = os.path.join(WORK, "snapshots")
    shutil.rmtree(snapshots, ignore_errors=True)
    args = ["--preset", "tiny", "--commits", "2", "--model-only",
            "--no-liveness", "--json", "--threads", "1"]
    run(args + ["--checkpoint", snapshots, "--checkpoint-every", "0"],
        expect=(0, 1))
    other = run(["--preset", "tiny", "--model-only", "--no-liveness",
                 "--resume", snapshots], expect=(2,))
    if "another configuration" not in other.stderr:
        fail("no refusal of another configuration: %r" % other.stderr)
    with open(os.path.join(snapshots, "CURRENT")) as text:
        name = text.read().strip()
    part = os.path.join(snapshots, name, "rank-0")
    with open(part, "r+b") as data:
        data.seek(40)
        byte = data.read(1)
        data.seek(40)
        data.write(bytes([byte[0] ^ 0xFF]))
    corrupt = run(args + ["--resume", snapshots], expect=(2,))
    errors = [line for line in corrupt.stderr.splitlines()
              if line.startswith("memwal-check check:")]
    if len(errors) != 1 or "checksum" not in errors[0]:
        fail("no one-line refusal of a corrupt snapshot: %r" % corrupt.stderr)
    print("refused: " + other.stderr.strip().splitlines()[-1] + " | " +
          errors[0])


os.makedirs(WORK, exist_ok=True)
parts = CASE.split(".")
if parts[0] == "same":
    case_same(int(parts[1]), parts[2], parts[3],
              len(parts) > 4 and parts[4] == "reference")
elif parts[0] == "reference":
    case_reference(parts[1], parts[2])
elif parts[0] == "trace":
    case_trace(int(parts[1]), parts[2], parts[3])
elif parts[0] == "resume":
    case_resume(0 if parts[1] == "threads" else int(parts[1]),
                parts[2] if len(parts) > 2 else "model")
elif parts[0] == "refuse":
    case_refuse()
else:
    fail("unknown case " + CASE)
