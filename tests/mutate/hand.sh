#!/bin/sh
# Runs the whole gate file with --fail-fast on a hand-mutant binary (memwal-check-hand-NAME, built
# from the patch of that name in tests/mutate/hand/; tests/mutate/CMakeLists.txt) and passes when the gate fails:
# exit 1 with at least one entry marked FAIL. Any other exit (0: the mutant survives; 2: a bad gate
# file; 3: a safety stop) fails this script.
# usage: hand.sh BINARY GATE_FILE OUT_DIR
set -u
binary=$1 gate=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
code=0
"$binary" gate --gate "$gate" --fail-fast --out "$out/gate" >"$out/gate.txt" 2>&1 || code=$?
cat "$out/gate.txt"
if [ "$code" -ne 1 ]; then
  echo "hand.sh: the gate exited $code on $(basename "$binary"); the mutant must make it exit 1" >&2
  exit 1
fi
if ! grep -q '^FAIL' "$out/gate.txt"; then
  echo "hand.sh: the gate exited 1 but no entry reads FAIL" >&2
  exit 1
fi
echo "hand.sh: $(basename "$binary") fails the gate (exit 1)"
