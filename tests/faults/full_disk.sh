#!/usr/bin/env bash
# A full disk (issue 42), made with `ulimit -f` (no privilege needed): every
# file the tool writes (a counterexample trace, an HTML page, a checkpoint, a
# corpus entry, the liveness pass's spill file) meets EFBIG partway. The run
# must end with exit 2 or 3 and one clear line, and leave no file that looks
# complete but is not: whatever it left is byte-identical to an unlimited
# run's file of the same name, and a checkpoint or a corpus it left resumes,
# without the limit, to the unlimited run's result.
#
# usage: full_disk.sh MEMWAL_CHECK
set -uo pipefail

checker=$(readlink -f "$1")
readonly checker

fail() {
  echo "full_disk: $*" >&2
  exit 1
}

work=$(mktemp -d /tmp/memwal-full.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || fail "no work directory"

# limited KB CMD...: CMD under `ulimit -f KB` (KB of 1024 bytes), standard
# output to a pipe (no limit applies to it), stderr to err.txt.
limited() {
  local kb="$1"
  shift
  (ulimit -f "$kb" && "$@") 2>err.txt | cat >out.txt
  return "${PIPESTATUS[0]}"
}

# expect_refusal WHAT CODE: the limited run's exit code and its one line.
expect_refusal() {
  local what="$1" code="$2"
  [ "$code" -eq 2 ] || [ "$code" -eq 3 ] ||
    fail "$what: exit $code under a full disk, not 2 or 3: $(head -c 400 err.txt)"
  grep -q -E '^memwal-check.*(File too large|cannot write)' err.txt ||
    fail "$what: no clear message: $(head -c 400 err.txt)"
}

# same_or_absent REF DIR: every non-hidden file under DIR is REF's.
same_or_absent() {
  local ref="$1" dir="$2" file
  [ -e "$dir" ] || return 0
  while IFS= read -r -d '' file; do
    case "$(basename "$file")" in .*) continue ;; esac
    cmp -s "$ref/${file#"$dir/"}" "$file" ||
      fail "$dir: ${file#"$dir/"} is a truncated or foreign file presented as complete"
  done < <(find "$dir" -type f -print0)
}

trace_args=(check --model-only --preset tiny --bug claim-past-read-version --no-liveness)

# 1. A counterexample trace.
"$checker" "${trace_args[@]}" --out ref-o >/dev/null 2>&1
[ $? -eq 1 ] || fail "the unlimited check found no counterexample"
limited 1 "$checker" "${trace_args[@]}" --out o
expect_refusal "check --out" $?
same_or_absent ref-o o

# 2. An HTML report of that trace.
trace=$(ls ref-o/*.trace.json | head -1)
limited 1 "$checker" report "$trace" --out page.html
expect_refusal "report --out" $?
[ ! -e page.html ] || fail "report left page.html under a full disk"

# 3. Checkpoints: a snapshot per level; the limit stops one partway.
check_args=(check --model-only --preset tiny --mode bfs --no-liveness --json
  --checkpoint-every 0)
"$checker" "${check_args[@]}" --checkpoint ref-c >ref-c.json 2>/dev/null
ref_code=$?
limited 8 "$checker" "${check_args[@]}" --checkpoint c
expect_refusal "check --checkpoint" $?
if [ -e c/CURRENT ]; then
  "$checker" "${check_args[@]}" --checkpoint c --resume c >c.json 2>err.txt
  resumed=$?
else
  "$checker" "${check_args[@]}" --checkpoint c >c.json 2>err.txt
  resumed=$?
fi
[ "$resumed" -eq "$ref_code" ] || fail "the resumed check exited $resumed, not $ref_code: $(cat err.txt)"
python3 - ref-c.json c.json <<'PY' || fail "the resumed check's counts differ from the unlimited run's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
keys = ("verdict", "states_distinct", "transitions", "depth_max")
sys.exit(0 if all(a.get(k) == b.get(k) for k in keys) else 1)
PY

# 4. A corpus: entries until the limit, no COMPLETE; --resume finishes it.
corpus_args=(corpus --count 12 --preset tiny --seed 5)
"$checker" "${corpus_args[@]}" --out ref-d >/dev/null 2>&1 || fail "the unlimited corpus failed"
limited 1 "$checker" "${corpus_args[@]}" --out d
expect_refusal "corpus --out" $?
[ ! -e d/COMPLETE ] || fail "a corpus cut by a full disk has COMPLETE"
same_or_absent ref-d d
"$checker" "${corpus_args[@]}" --out d --resume >/dev/null 2>err.txt ||
  fail "corpus --resume after a full disk failed: $(cat err.txt)"
diff -r -x COMPLETE ref-d d >/dev/null || fail "the resumed corpus differs: $(diff -r -q ref-d d | head -3)"

# 5. The liveness pass's spill file (spec R74's layers wait on disk in
# $TMPDIR): the check stops, incomplete, and says why.
TMPDIR="$work/spill" && mkdir -p "$TMPDIR" && export TMPDIR
limited 1 "$checker" check --model-only --preset tiny
code=$?
[ "$code" -eq 3 ] || fail "liveness spill: exit $code under a full disk, not 3: $(head -c 400 err.txt)"
grep -q -E '^verdict: incomplete \(layer-queue: .*File too large\)' out.txt ||
  fail "liveness spill: no clear verdict: $(grep verdict out.txt)"
echo "full_disk: every limited run ended with exit 2 or 3 and left only whole files"
