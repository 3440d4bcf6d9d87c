#!/usr/bin/env bash
# A kill at any moment loses nothing (issue 42): runs KIND once uninterrupted
# (the reference), then KILLS times starts the same run, SIGKILLs it after a
# seeded random delay within the reference's duration, checks what the killed
# run left, resumes it, and checks that the resumed run ends with the
# reference's counts, verdict and files.
#
# usage: kill_resume.sh MEMWAL_CHECK KIND KILLS SEED
#   KIND check   check --model-only --checkpoint C --checkpoint-every 0 --out O
#                (a bug with a counterexample at depth > 1, so that several
#                levels are snapshotted before the trace is written); resumed
#                with --resume C when C/CURRENT exists, else run again.
#   KIND corpus  corpus --out D; resumed with corpus --resume.
#
# What a killed run may leave: files that are whole (byte-identical to the
# reference's file of the same name) and hidden temporaries, which the
# resumed run sweeps (none may be left after it); never a COMPLETE
# marker unless every entry is there, never a CURRENT naming a snapshot that
# does not verify (the resume would refuse it: exit 2, a failure here).
set -uo pipefail

checker=$(readlink -f "$1")
readonly checker kind="$2" kills="$3" seed="$4"

fail() {
  echo "kill_resume $kind: $*" >&2
  exit 1
}

work=$(mktemp -d /tmp/memwal-kill.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || fail "no work directory"

case "$kind" in
  check)
    command_for() { # command_for DIR [--resume DIR/C]: sets cmd
      local dir="$1"
      shift
      cmd=("$checker" check --model-only --preset tiny --bug claim-past-read-version
        --mode bfs --threads 2 --no-liveness --json --checkpoint "$dir/C"
        --checkpoint-every 0 --out "$dir/O" "$@")
    }
    resume_args() { [ -e "$1/C/CURRENT" ] && echo --resume "$1/C"; }
    # Counts, verdict and where it was found: the run's JSON without times,
    # sizes and the resumed level.
    summary() {
      python3 - "$1/stdout" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keep = {k: d[k] for k in ("verdict", "invariant", "states_distinct",
        "transitions", "depth_max", "step", "counterexample_steps")
        if k in d}
print(json.dumps(keep, sort_keys=True))
PY
    }
    outputs() { echo O; }
    ;;
  corpus)
    command_for() {
      local dir="$1"
      shift
      cmd=("$checker" corpus --out "$dir/D" --count 12 --preset tiny --seed 5 "$@")
    }
    resume_args() { echo --resume; }
    # The run's report with the directory's own name left out.
    summary() { grep -v -E 'second|resum' "$1/stdout" | sed "s#$1/##g"; }
    outputs() { echo D; }
    ;;
  *) fail "unknown kind $kind" ;;
esac

# run DIR [ARGS...]: the run in the foreground, its output in DIR.
run() {
  local dir="$1"
  shift
  command_for "$dir" "$@"
  "${cmd[@]}" >"$dir/stdout" 2>"$dir/stderr"
}

# Every non-hidden file under $1/$2 is whole: identical to the reference's.
check_left() {
  local dir="$1" out="$2" file
  [ -e "$dir/$out" ] || return 0
  while IFS= read -r -d '' file; do
    local name=${file#"$dir/$out/"}
    case "$(basename "$name")" in .*) continue ;; esac
    if [ "$kind" = corpus ] && [ "$name" = COMPLETE ]; then
      # COMPLETE only once every entry is there.
      diff -r -x COMPLETE -x INCOMPLETE -x '.*' "ref/$out" "$dir/$out" >/dev/null ||
        fail "moment $k: COMPLETE in a corpus that is not: $(diff -r -q -x '.*' "ref/$out" "$dir/$out" | head -3)"
      continue
    fi
    [ "$name" = INCOMPLETE ] && fail "moment $k: a SIGKILLed run wrote INCOMPLETE"
    cmp -s "ref/$out/$name" "$file" ||
      fail "moment $k: $out/$name looks written but differs from the reference's"
  done < <(find "$dir/$out" -type f -print0)
}

mkdir ref
start=$(date +%s%N)
run ref
code=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[ "$code" -le 1 ] || fail "the reference run exited $code: $(cat ref/stderr)"
ref_summary=$(summary ref) || fail "no summary of the reference"
[ "$elapsed_ms" -ge 1 ] || elapsed_ms=1
echo "reference: exit $code in ${elapsed_ms} ms: $(head -3 <<<"$ref_summary" | tr '\n' ' ')"

RANDOM=$seed
resumed_from_snapshot=0
left_files=0
left_temporaries=0
for ((k = 0; k < kills; k++)); do
  dir="m$k"
  mkdir "$dir"
  # A moment within the reference's duration (and a little past it), in ms.
  delay_ms=$(((RANDOM * 32768 + RANDOM) % (elapsed_ms * 11 / 10 + 1)))
  # Started from this shell, so that $! is memwal-check itself.
  command_for "$dir"
  "${cmd[@]}" >"$dir/stdout" 2>"$dir/stderr" &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  check_left "$dir" "$(outputs)"
  if [ -n "$(find "$dir" -name '.*.tmp-*' 2>/dev/null | head -1)" ]; then
    left_temporaries=$((left_temporaries + 1))
  fi
  if [ -n "$(find "$dir/$(outputs)" -type f ! -name '.*' 2>/dev/null | head -1)" ]; then
    left_files=$((left_files + 1))
  fi
  args=$(resume_args "$dir")
  [ -n "$args" ] && [ "$kind" = check ] && resumed_from_snapshot=$((resumed_from_snapshot + 1))
  # shellcheck disable=SC2086
  run "$dir" $args
  resumed=$?
  [ "$resumed" -eq "$code" ] ||
    fail "moment $k (${delay_ms} ms): the resumed run exited $resumed, not $code: $(head -c 400 "$dir/stderr")"
  [ "$(summary "$dir")" = "$ref_summary" ] ||
    fail "moment $k (${delay_ms} ms): resumed '$(summary "$dir")', reference '$ref_summary'"
  out=$(outputs)
  # Nothing a killed run left behind survives the resumed one: the writer's
  # hidden temporaries (.NAME.tmp-RANDOM) are swept by the next run into the
  # same directory (base/output_file.h), and the files are the reference's,
  # temporaries included in the comparison.
  left=$(find "$dir" -name '*.tmp-*' ! -path "$dir/stdout" ! -path "$dir/stderr" | head -3)
  [ -z "$left" ] || fail "moment $k (${delay_ms} ms): the resumed run left temporaries: $left"
  diff -r -x COMPLETE "ref/$out" "$dir/$out" >/dev/null ||
    fail "moment $k (${delay_ms} ms): files differ: $(diff -r -q "ref/$out" "$dir/$out" | head -5)"
  # A corpus's COMPLETE holds its report, which names the directory.
  if [ -e "ref/$out/COMPLETE" ]; then
    [ "$(sed "s#ref/##g" "ref/$out/COMPLETE")" = "$(sed "s#$dir/##g" "$dir/$out/COMPLETE")" ] ||
      fail "moment $k (${delay_ms} ms): COMPLETE differs"
  fi
  rm -rf "$dir"
done
echo "kill_resume $kind: $kills kills, every resumed run matched the reference" \
  "($left_files left output files, $left_temporaries left temporaries, all swept," \
  "$resumed_from_snapshot resumed from a snapshot)"
