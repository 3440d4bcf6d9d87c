#!/usr/bin/env bash
# Memory runs out anywhere (issue 42): every command of memwal-check, starved
# early, midway and late, ends with exit 3, a "memory-limit" verdict on
# standard output (its own memory-limit report, or main's partial report:
# base/memory.h) and a memory-limit line on standard error; never an abort,
# never exit 0, 1 or 2.
#
# usage: memory.sh MEMWAL_CHECK_STARVED TABLE_DIR [CASE...]
#   MEMWAL_CHECK_STARVED  memwal-check whose Nth allocation fails
#                         (tests/faults/starve.cc)
#   TABLE_DIR             a Lance table for inspect and validate
#   CASE                  run only these cases (default: all)
#
# Method: each case runs once with MEMWAL_STARVE_COUNT=1 to learn how many
# allocations the whole run makes (T), then with MEMWAL_STARVE_AFTER at 5%,
# 35%, 65% and 95% of T: allocation N+1 fails, the reserve is given back, a
# few thousand more succeed, then every one fails. Commands run with one
# thread, so that T is the same from run to run.
set -uo pipefail

starved=$(readlink -f "$1")
table=$(readlink -f "$2")
shift 2
readonly starved table
wanted=("$@")

fail() {
  echo "memory: $*" >&2
  exit 1
}

work=$(mktemp -d /tmp/memwal-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || fail "no work directory"

M="$starved"
# Fixtures, made by the same binary unstarved: a counterexample trace and a
# variants rows file.
"$M" check --model-only --preset tiny --bug claim-past-read-version --threads 1 \
  --no-liveness --out traces >/dev/null 2>&1
[ "$?" -eq 1 ] || fail "could not make the fixture trace"
cp traces/CatchupWithinCoverage.trace.json t.json
"$M" variants --model-only --preset tiny --only bug=claim-past-read-version \
  --json --out vtraces >rows.json 2>/dev/null
[ -s rows.json ] || fail "could not make the fixture rows"
# A table the implementation wrote that validate explains whole (valid).
"$M" corpus --out tables --count 7 --preset small --seed 5 --tables >/dev/null 2>&1
valid_table="$work/tables/tables/entry-0006"
"$M" validate "$valid_table" >/dev/null 2>&1 || fail "no valid table for validate"

# name<TAB>command (eval'd in a fresh directory; $M, $table, "$work/t.json").
cases=$(
  cat <<'EOF'
check-model	$M check --model-only --preset tiny --bug claim-past-read-version --threads 1 --no-liveness --out o
check-lockstep-json	$M check --preset tiny --bug claim-past-read-version --threads 1 --no-liveness --json --out o
check-liveness	$M check --model-only --preset tiny --threads 1 --out o
replay	$M replay "$work/t.json"
replay-json	$M replay "$work/t.json" --json
minimize	$M minimize "$work/t.json" --out m
compare	$M compare default bug=claim-past-read-version --model-only --preset tiny --threads 1
variants	$M variants --model-only --preset tiny --only bug=claim-past-read-version --out v
corpus	$M corpus --out D --count 4 --preset tiny --seed 5
report-trace	$M report "$work/t.json" --out page.html
report-variants	cp -r "$work/vtraces" . && $M report --variants "$work/rows.json" --out V
inspect	$M inspect "$table"
inspect-json	$M inspect "$table" --json
validate	$M validate "$valid_table"
validate-incomplete	$M validate "$table" --json
properties	$M properties --cases 5
gate	printf '[gate]\nsafety-seconds = 120\n[entry tiny]\ncheck = --preset tiny --model-only --no-liveness\nexpect = verdict=ok\nbudget = states 300000\n' >g.txt && $M gate --gate g.txt --entry tiny --jobs 1 --out go
EOF
)

ran=0
while IFS=$'\t' read -r name command; do
  if [ "${#wanted[@]}" -gt 0 ] && [[ ! " ${wanted[*]} " =~ " $name " ]]; then
    continue
  fi
  mkdir -p "$name/count"
  (cd "$name/count" && MEMWAL_STARVE_COUNT=1 eval "$command" >stdout.txt 2>stderr.txt </dev/null)
  code=$?
  [ "$code" -le 1 ] || [[ "$name" == *-incomplete ]] ||
    fail "$name: the unstarved run exited $code: $(tail -c 400 "$name/count/stderr.txt")"
  total=$(sed -n 's/^allocations: //p' "$name/count/stderr.txt" | tail -1)
  [ -n "$total" ] && [ "$total" -gt 100 ] || fail "$name: no allocation count ($total)"
  for percent in 5 35 65 95; do
    after=$((total * percent / 100))
    dir="$name/at-$percent"
    mkdir -p "$dir"
    # What the reserve gives: a fiftieth of the run (at most 2000
    # allocations), so that some runs finish on it and others are cut off.
    grace=$((total / 50 < 2000 ? total / 50 : 2000))
    (cd "$dir" && MEMWAL_STARVE_AFTER=$after MEMWAL_STARVE_GRACE=$grace eval "$command" \
      >stdout.txt 2>stderr.txt </dev/null)
    code=$?
    what="$name starved after $after of $total allocations ($percent%)"
    [ "$code" -lt 128 ] || fail "$what: killed by signal $((code - 128)): $(tail -3 "$dir/stderr.txt")"
    [ "$code" -eq 3 ] || fail "$what: exit $code, not 3: $(tail -c 400 "$dir/stderr.txt")"
    grep -q 'terminate called' "$dir/stderr.txt" && fail "$what: terminate called"
    grep -q 'memory-limit' "$dir/stdout.txt" ||
      fail "$what: no memory-limit verdict on standard output: $(tail -c 300 "$dir/stdout.txt")"
    grep -q 'memory-limit' "$dir/stderr.txt" ||
      grep -q 'memory-limit' "$dir/stdout.txt" ||
      fail "$what: no memory-limit line"
    # --json: the last line of standard output is one JSON object whose
    # verdict or stopped_by says memory-limit.
    if [[ "$command" == *--json* ]]; then
      tail -1 "$dir/stdout.txt" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert "memory-limit" in (d.get("verdict"), d.get("stopped_by")), d
' || fail "$what: the last line is not a memory-limit JSON object: $(tail -1 "$dir/stdout.txt" | head -c 300)"
    fi
  done
  echo "$name: $total allocations; starved at 5/35/65/95%: exit 3, memory-limit each time"
  ran=$((ran + 1))
  rm -rf "$name"
done <<<"$cases"
[ "$ran" -gt 0 ] || fail "no case ran"
echo "memory: $ran cases (11 commands), each starved at 4 moments, ended with exit 3 and memory-limit"
