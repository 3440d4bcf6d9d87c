#!/usr/bin/env python3
"""The gate's own mutation score (`./memwal mutate`, issue 18 item 6).

Debian packages no maintained C++ mutation tool (`apt-cache search mutation`
lists none; Mull and Dextool are not packaged), so this is a small harness.
Each line of tests/mutate/mutants.tsv is one source mutation in impl/. The
harness copies the source tree once into BUILD_DIR/src (later runs copy only
files whose bytes changed, so object files are reused), configures
BUILD_DIR/obj, and per mutant: writes the mutated file, rebuilds memwal-check
(one object file and the links), runs the gate commands of
tests/mutate/gate.txt in order until one does not exit as it does on the
unmutated build, and restores the file. A gate line `test PATH ARGS` runs the
test binary PATH of the build (rebuilt too) instead of memwal-check, with
RC_PARAMS fixed so that its rapidcheck properties draw the same inputs on
every mutant. A mutant is killed when a gate command
exits otherwise (or runs past its timeout); it survives when every command
exits as expected. A mutant that does not compile is reported apart and not
counted. Prints per mutant the verdict, the command that killed it and the
time to kill (gate time, build excluded), then the kill rate and the
survivors.
"""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP_DIRS = {".git", "node_modules"}


def fail(message):
    print("memwal mutate: " + message, file=sys.stderr)
    sys.exit(2)


def read_mutants(path):
    mutants = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != 6:
                fail(f"{path}:{number}: expected 6 tab-separated cells")
            mutants.append({"id": cells[0], "category": cells[1],
                            "file": cells[2], "occurrence": int(cells[3]),
                            "from": cells[4], "to": cells[5]})
    return mutants


def read_gate(path):
    gate = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            expected, command = line.split(None, 1)
            gate.append((int(expected), command.split()))
    return gate


def sync_tree(source, dest):
    """Copies every file of `source` whose bytes differ into `dest`."""
    for directory, subdirs, files in os.walk(source):
        rel = os.path.relpath(directory, source)
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS and
                      not d.startswith("build")]
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for name in files:
            src = os.path.join(directory, name)
            dst = os.path.join(dest, rel, name)
            if os.path.islink(src) or not os.path.isfile(src):
                continue
            if os.path.exists(dst) and filecmp.cmp(src, dst, shallow=False):
                continue
            shutil.copy2(src, dst)


def mutated_text(text, mutant):
    at = -1
    for _ in range(mutant["occurrence"]):
        at = text.find(mutant["from"], at + 1)
        if at < 0:
            return None
    return text[:at] + mutant["to"] + text[at + len(mutant["from"]):]


RC_PARAMS = "seed=18 max_success=1000"


def gate_targets(gate):
    """The build targets the gate runs: memwal-check and its test binaries."""
    targets = ["memwal-check"]
    for _, args in gate:
        if args[0] == "test":
            targets.append(os.path.basename(args[1]))
    return targets


def build(obj, log, targets=("memwal-check",)):
    with open(log, "w") as out:
        code = subprocess.call(["nice", "-n", "5", "cmake", "--build", obj,
                                "-j2", "--target"] + list(targets),
                               stdout=out, stderr=subprocess.STDOUT)
    return code == 0


def run_gate(checker, gate, timeout_s, work):
    """Returns (killed_by or None, seconds)."""
    start = time.monotonic()
    for expected, args in gate:
        out_dir = os.path.join(work, "gate-out")
        shutil.rmtree(out_dir, ignore_errors=True)
        if args[0] == "test":
            command = [os.path.join(os.path.dirname(checker), args[1])] + args[2:]
        else:
            command = [checker] + args + ["--out", out_dir]
        try:
            code = subprocess.call(command,
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL,
                                   env=dict(os.environ, RC_PARAMS=RC_PARAMS),
                                   timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return " ".join(args) + " (timeout)", time.monotonic() - start
        if code != expected:
            return (" ".join(args) + f" (exit {code}, expected {expected})",
                    time.monotonic() - start)
    return None, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(prog="memwal mutate")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build-mutate"))
    parser.add_argument("--only", action="append", default=[],
                        help="run only this mutant (repeatable)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds per gate command before it counts as killed")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--emit", nargs=2, metavar=("ID", "OUT"),
                        help="write the mutated file of mutant ID to OUT and exit "
                             "(the ctest mutants of tests/mutate/CMakeLists.txt)")
    options = parser.parse_args()
    mutants = read_mutants(os.path.join(ROOT, "tests/mutate/mutants.tsv"))
    gate = read_gate(os.path.join(ROOT, "tests/mutate/gate.txt"))
    known = {m["id"] for m in mutants}
    for name in options.only:
        if name not in known:
            fail(f"unknown mutant '{name}'")
    if options.only:
        mutants = [m for m in mutants if m["id"] in options.only]
    if options.emit:
        name, out = options.emit
        if name not in known:
            fail(f"unknown mutant '{name}'")
        mutant = next(m for m in mutants if m["id"] == name)
        with open(os.path.join(ROOT, mutant["file"])) as f:
            text = mutated_text(f.read(), mutant)
        if text is None:
            fail(f"mutant {name}: its text is not in {mutant['file']}")
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out + ".tmp", "w") as f:
            f.write(text)
        os.replace(out + ".tmp", out)
        return 0
    if options.list:
        for m in mutants:
            print(f"{m['id']}\t{m['category']}\t{m['file']}")
        return 0
    for m in mutants:
        with open(os.path.join(ROOT, m["file"])) as f:
            if mutated_text(f.read(), m) is None:
                fail(f"mutant {m['id']}: its text is not in {m['file']}")
    src = os.path.join(options.build_dir, "src")
    obj = os.path.join(options.build_dir, "obj")
    sync_tree(ROOT, src)
    if not os.path.exists(os.path.join(obj, "CMakeCache.txt")):
        launcher = (["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
                    if shutil.which("ccache") else [])
        subprocess.check_call(["cmake", "-S", src, "-B", obj,
                               "-DCMAKE_BUILD_TYPE=Release"] + launcher,
                              stdout=subprocess.DEVNULL)
    log = os.path.join(options.build_dir, "build.log")
    checker = os.path.join(obj, "memwal-check")
    targets = gate_targets(gate)
    print(f"building {obj} (log: {log})", file=sys.stderr, flush=True)
    if not build(obj, log, targets):
        fail(f"the unmutated tree does not build (see {log})")
    if not options.skip_baseline:
        killed, seconds = run_gate(checker, gate, options.timeout, options.build_dir)
        if killed:
            fail(f"the unmutated build fails the gate: {killed}")
        print(f"baseline: the gate passes in {seconds:.1f} s", flush=True)
    results = []
    for m in mutants:
        path = os.path.join(src, m["file"])
        with open(path) as f:
            original = f.read()
        with open(path, "w") as f:
            f.write(mutated_text(original, m))
        started = time.monotonic()
        try:
            built = build(obj, log, targets)
            build_s = time.monotonic() - started
            if built:
                killed, seconds = run_gate(checker, gate, options.timeout,
                                           options.build_dir)
        finally:
            with open(path, "w") as f:
                f.write(original)
        if not built:
            verdict, why, seconds = "no build", "does not compile", 0.0
        elif killed:
            verdict, why = "killed", killed
        else:
            verdict, why = "survived", "every gate command exited as expected"
        results.append((m, verdict, why, seconds))
        print(f"{m['id']:36} {m['category']:24} {verdict:8} "
              f"{seconds:7.1f} s (build {build_s:.0f} s)  {why}", flush=True)
    if not build(obj, log, targets):  # leave the build matching the tree
        fail(f"the restored tree does not build (see {log})")
    counted = [r for r in results if r[1] != "no build"]
    killed = [r for r in counted if r[1] == "killed"]
    if counted:
        rate = 100.0 * len(killed) / len(counted)
        print(f"kill rate: {len(killed)} of {len(counted)} mutants "
              f"({rate:.1f}%), {len(results) - len(counted)} did not build")
    if killed:
        times = sorted(r[3] for r in killed)
        print(f"time to kill: median {times[len(times) // 2]:.1f} s, "
              f"max {times[-1]:.1f} s")
    for m, verdict, why, _ in results:
        if verdict == "survived":
            print(f"survivor: {m['id']} ({m['category']}, {m['file']}): {why}")
    return 0 if len(killed) == len(counted) else 1


if __name__ == "__main__":
    sys.exit(main())
