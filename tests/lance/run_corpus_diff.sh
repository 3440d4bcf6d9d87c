#!/bin/sh
# run_corpus_diff.sh BINARY CORPUS_ARGS...: writes a corpus with `BINARY corpus --tables
# CORPUS_ARGS` and checks every table it wrote with `BINARY lance-diff --corpus`: LanceDB 0.39's
# countRows, full scan and indexed queries against the model's rows at each entry's last state.
# Passes when lance-diff exits 0 having checked one table per entry, and some entry is a
# shallow clone whose sources corpus wrote (entry-NNNN.sources/). Exit 77 (skipped) when
# LanceDB is missing.
binary="$1"
shift
# On tmpfs where there is one: the store fsyncs every file it writes (500 tables), which on
# a loaded disk took minutes instead of seconds.
base="${TMPDIR:-/tmp}"
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
work="$(mktemp -d -p "$base")"
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"
if ! "$binary" corpus --out "$work/corpus" --tables "$@" >"$work/corpus.txt" 2>&1; then
  cat "$work/corpus.txt"
  echo "run_corpus_diff.sh: corpus failed" >&2
  exit 1
fi
entries=$(ls "$work/corpus/json" | wc -l)
clones=$(ls -d "$work/corpus/tables/"*.sources 2>/dev/null | wc -l)
echo "corpus: $entries entries, $clones with a shallow clone's sources"
"$binary" lance-diff --keep "$work/keep" --corpus "$work/corpus" >"$work/out.txt" 2>&1
code=$?
cat "$work/out.txt"
[ "$code" -eq 3 ] && exit 77
if [ "$code" -ne 0 ]; then
  echo "run_corpus_diff.sh: lance-diff exit $code, expected 0" >&2
  exit 1
fi
if ! grep -q "lance-diff: $entries corpus tables" "$work/out.txt"; then
  echo "run_corpus_diff.sh: lance-diff did not check all $entries tables" >&2
  exit 1
fi
if [ "$clones" -eq 0 ]; then
  echo "run_corpus_diff.sh: no entry wrote a shallow clone's sources" >&2
  exit 1
fi
exit 0
