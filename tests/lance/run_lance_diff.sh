#!/bin/sh
# run_lance_diff.sh BINARY EXPECTED_EXIT EXPECTED_TEXT ARGS...: runs `BINARY lance-diff ARGS`
# with its findings kept in a fresh directory; passes when the exit code is EXPECTED_EXIT and
# the output contains EXPECTED_TEXT (if not empty). Exit 77 (skipped) when LanceDB is missing.
binary="$1" expected="$2" text="$3"
shift 3
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
# lance-diff's scratch tables on tmpfs where there is one: the store fsyncs every file it
# writes, which made a state take about ten times as long on this machine's disk.
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
"$binary" lance-diff --keep "$keep" "$@" >"$keep/out.txt" 2>&1
code=$?
cat "$keep/out.txt"
[ "$code" -eq 3 ] && exit 77
if [ "$code" -ne "$expected" ]; then
  echo "run_lance_diff.sh: exit $code, expected $expected" >&2
  exit 1
fi
if [ -n "$text" ] && ! grep -q "$text" "$keep/out.txt"; then
  echo "run_lance_diff.sh: the output does not say \"$text\"" >&2
  exit 1
fi
exit 0
