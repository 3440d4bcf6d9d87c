#!/usr/bin/env python3
"""bench/lockstep_profile.py on a short prefix: its parts add up to callgrind's total, every
part is named, the rates it projects are consistent with its measurements, and a wrong binary
is refused with exit 2."""
import json
import subprocess
import sys

script, binary = sys.argv[1], sys.argv[2]


def check(condition, message):
    if not condition:
        print("lockstep_profile_test: " + message, file=sys.stderr)
        sys.exit(1)


done = subprocess.run([sys.executable, script, "--binary", binary, "--max-states", "300",
                       "--reps", "1", "--json"], capture_output=True, text=True)
check(done.returncode == 0, f"exit {done.returncode}: {done.stderr.strip()}")
result = json.loads(done.stdout)
parts = {part["part"]: part for part in result["parts"]}
check(set(parts) == {"impl", "protobuf", "allocator", "libc", "libstdc++", "model", "checker",
                     "base", "std templates", "other"}, f"parts: {sorted(parts)}")
total = sum(part["instructions_per_transition"] for part in parts.values())
check(abs(total - result["instructions_per_transition"]) <= 0.01 * total,
      f"the parts add up to {total}, the total is {result['instructions_per_transition']}")
check(parts["impl"]["instructions_per_transition"] > 0 and
      parts["protobuf"]["instructions_per_transition"] > 0 and
      parts["model"]["instructions_per_transition"] > 0,
      "a lockstep run executes the implementation, protobuf and the model")
rate = result["native_transitions_per_s"]
for part in parts.values():
    projected = part["projected_transitions_per_s_without_it"]
    check(projected is not None and projected >= rate,
          f"{part['part']}: a projection without it below the measured rate")
check(result["projected_transitions_per_s_own_code_only"] >= rate, "own-code projection")
check(abs(result["instructions_per_transition_the_target_allows"] * 250000 -
          result["instructions_per_s"]) <= 1e-6 * result["instructions_per_s"],
      "the target's allowance is not instructions/s over 250,000")

refused = subprocess.run([sys.executable, script, "--binary", "/nonexistent/memwal-check"],
                         capture_output=True, text=True)
check(refused.returncode == 2 and refused.stderr.count("\n") == 1,
      f"a missing binary: exit {refused.returncode}, stderr {refused.stderr!r}")
print("ok")
