#!/usr/bin/env python3
"""Runs the example CI workflows (examples/ci/*.yml) the way a runner would, at tiny bounds.

For every workflow file: its shell must run with pipefail (the workflow's or the job's
`defaults.run.shell`, or each step's `shell`); then every `run:` step of every job runs, in
order, in a scratch directory holding a copy of the repository's gate file, under that shell,
with the workflow's `env:` and with `./memwal` standing for a shim that calls the built
memwal-check directly (no package installation, no build): `./memwal check` with only the
gate's options runs `memwal-check gate`, every other command runs with each `--preset`
replaced by `tiny`. A step that exits non-zero fails the test, so that a flag the tool rejects
or an expectation the tool reports unmet fails `./memwal test`.

--plant flag|expect runs a planted copy instead and succeeds only when that copy fails:
`flag` appends `--no-such-flag` to the first memwal command of each workflow; `expect` flips
the expectation of the gate file's check entry with the smallest budget, and the gate step runs
that entry alone.

usage: workflows_test.py --checker build/memwal-check --source . [--plant flag|expect]
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

SHIM = """#!/usr/bin/env bash
# ./memwal for tests/ci/workflows_test.py: the built checker, tiny bounds.
set -euo pipefail
checker="$MEMWAL_TEST_CHECKER"
command="${1:-}"
shift || true
gate_only=1
args=("$@")
i=0
while [ "$i" -lt "${#args[@]}" ]; do
  case "${args[$i]}" in
    --entry | --jobs | --out | --junit | --gate | --safety-seconds) i=$((i + 2)) ;;
    --json | --list | --fail-fast) i=$((i + 1)) ;;
    *) gate_only=0; break ;;
  esac
done
if [ "$command" = check ] && [ "$gate_only" -eq 1 ]; then
  exec "$checker" gate --gate "$MEMWAL_TEST_GATE" $MEMWAL_TEST_GATE_ARGS "$@"
fi
out=()
while [ "$#" -gt 0 ]; do
  if [ "$1" = --preset ] && [ "$#" -ge 2 ]; then
    out+=(--preset tiny)
    shift 2
  else
    out+=("$1")
    shift
  fi
done
exec "$checker" "$command" "${out[@]}"
"""


def fail(message):
    print("FAIL: " + message)
    return 1


def has_pipefail(shell):
    return shell is not None and "pipefail" in shell and "bash" in shell


def step_shell(workflow, job, step):
    for holder in (step, job.get("defaults", {}).get("run", {}),
                   workflow.get("defaults", {}).get("run", {})):
        if "shell" in holder:
            return holder["shell"]
    return None


def run_workflow(path, args, scratch, plant):
    """0 when every run step passes; else 1 (with the failing step printed)."""
    workflow = yaml.safe_load(path.read_text())
    env = dict(os.environ)
    for key, value in (workflow.get("env") or {}).items():
        env[str(key)] = str(value)
    bin_dir = scratch / "shim"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "memwal"
    shim.write_text(SHIM)
    shim.chmod(0o755)
    gate = scratch / "gate.txt"
    shutil.copy(pathlib.Path(args.source) / "gate.txt", gate)
    env["MEMWAL_TEST_CHECKER"] = str(pathlib.Path(args.checker).resolve())
    env["MEMWAL_TEST_GATE"] = str(gate)
    env["MEMWAL_TEST_GATE_ARGS"] = ""
    env["GITHUB_STEP_SUMMARY"] = str(scratch / "summary.md")
    if plant == "expect":
        # Flip the first check entry's expectation and run that entry alone.
        text = gate.read_text()
        # The entry with the smallest budget, so that the planted run is quick.
        matches = list(re.finditer(
            r"^\[entry ([^\]]+)\]\ncheck = [^\n]*\nexpect = ([^\n]*)\n(?:#[^\n]*\n)*"
            r"budget = states ([0-9]+)$", text, re.M))
        if not matches:
            return fail("no check entry with an expect line to plant in gate.txt")
        match = min(matches, key=lambda m: int(m.group(3)))
        name, expect = match.group(1), match.group(2)
        flipped = "verdict=ok" if expect != "verdict=ok" else "verdict=ReadsMissNoRows"
        gate.write_text(text[:match.start(2)] + flipped + text[match.end(2):])
        env["MEMWAL_TEST_GATE_ARGS"] = "--entry " + name
        print(f"planted: entry {name} expects {flipped} instead of {expect}")
    planted = False
    status = 0
    for job_name, job in (workflow.get("jobs") or {}).items():
        for step in job.get("steps") or []:
            if "run" not in step:
                continue
            shell = step_shell(workflow, job, step)
            if not has_pipefail(shell):
                return fail(f"{path.name}: job {job_name}, step '{step.get('name')}' "
                            f"runs without pipefail (shell: {shell})")
            script = step["run"].replace("./memwal ", str(shim) + " ")
            if plant == "flag" and not planted and str(shim) in script:
                # At the end of the first memwal command (before a pipe, if any).
                lines = script.split("\n")
                for k, line in enumerate(lines):
                    if str(shim) in line:
                        head, bar, tail = line.partition(" | ")
                        lines[k] = head.rstrip() + " --no-such-flag" + (
                            " | " + tail if bar else "")
                        break
                script = "\n".join(lines)
                planted = True
                print(f"planted: --no-such-flag in step '{step.get('name')}'")
            script_file = scratch / "step.sh"
            script_file.write_text(script)
            words = shell.replace("{0}", str(script_file)).split()
            print(f"--- {path.name}: {step.get('name')}", flush=True)
            result = subprocess.run(words, cwd=scratch, env=env)
            if result.returncode != 0:
                print(f"step '{step.get('name')}' of {path.name} exited "
                      f"{result.returncode}", flush=True)
                status = 1
                if not step.get("if"):
                    return status
    if plant == "flag" and not planted:
        return fail(f"{path.name}: no memwal command to plant a flag in")
    return status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--plant", choices=["flag", "expect"])
    parser.add_argument("--workflow", action="append",
                        help="only these workflow files (default: examples/ci/*.yml)")
    args = parser.parse_args()
    files = ([pathlib.Path(w) for w in args.workflow] if args.workflow else
             sorted((pathlib.Path(args.source) / "examples" / "ci").glob("*.yml")))
    if not files:
        return fail("no workflow files under examples/ci/")
    failures = []
    for path in files:
        with tempfile.TemporaryDirectory(prefix="memwal-ci-") as scratch:
            if run_workflow(path, args, pathlib.Path(scratch), args.plant) != 0:
                failures.append(path.name)
    if args.plant:
        if len(failures) != len(files):
            passed = [f.name for f in files if f.name not in failures]
            return fail(f"planted {args.plant} did not fail: {' '.join(passed)}")
        print(f"every planted workflow failed, as it must ({args.plant})")
        return 0
    if failures:
        return fail("workflows failed: " + " ".join(failures))
    print("every workflow step passed: " + " ".join(f.name for f in files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
