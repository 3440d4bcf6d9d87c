#!/usr/bin/env bash
# `./memwal check` with no arguments is the gate (issue 36 item 1): every entry of gate.txt, one
# line per entry and one verdict, and not one configuration. Runs the real wrapper, as a user
# does (after ./memwal test has set the machine up, its set-up installs and builds nothing), so
# that its dispatch, not a copy of it, is what is tested. Usage: memwal_check_default_test.sh SRC
set -uo pipefail
src="$1"
fail() {
  echo "FAIL: $*"
  exit 1
}
out=$(cd "$src" && ./memwal check 2>&1)
code=$?
echo "$out"
[ "$code" -eq 0 ] || fail "./memwal check exited $code, expected 0"
grep -q '^config:' <<<"$out" && fail "./memwal check ran one configuration (a 'config:' line), not the gate"
grep -q 'actions never fired' <<<"$out" && fail "'actions never fired' printed"
grep -qx 'verdict: ok' <<<"$out" || fail "no 'verdict: ok' line"
grep -qE '^coverage: ([0-9]+) of \1 actions fired' <<<"$out" || fail "not every action fired"
entries=$(grep -c '^\[entry ' "$src/gate.txt")
for name in $(sed -n 's/^\[entry \(.*\)\]$/\1/p' "$src/gate.txt"); do
  grep -qE "^ok +$name " <<<"$out" || fail "no 'ok' line for entry $name"
done
echo "PASS: ./memwal check ran the gate's $entries entries"
