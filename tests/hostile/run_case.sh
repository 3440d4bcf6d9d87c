#!/usr/bin/env bash
# Runs one case of cases.tsv (the table of hostile inputs, issue 17) against
# memwal-check and asserts its exit code, its one-line message, and that
# nothing outside the case's output path changed.
#
# usage: run_case.sh MEMWAL_CHECK CASES_TSV CASE_NAME
#
# Each case runs in a fresh sandbox directory holding the fixtures below; its
# setup column runs first (in the sandbox), then a snapshot of the sandbox
# (type, size, mode, inode, mtime and checksum of every entry, symlink
# targets) and of /dev/null is taken, then the command, then the snapshot is
# compared with the output path left out. Passing: the exit code is the
# expected one, stderr holds exactly one "memwal-check..." line (and no
# other line), that line matches the message column (an ERE; "-"
# means no such line is expected), and the check column (bash, "-" for none)
# succeeds. Setup and commands may use $M (the binary), $TABLE (a fixture
# table to copy), $SHARD and $NEWEST (a shard of it and its newest manifest).
set -uo pipefail

checker=$(readlink -f "$1")
cases=$(readlink -f "$2")
readonly checker cases wanted="$3"

fail() {
  echo "hostile case $wanted: $*" >&2
  exit 1
}

# The fixtures every case may use.
make_fixtures() {
  "$checker" check --model-only --preset tiny --bug claim-past-read-version \
    --out traces >/dev/null 2>&1
  [ "$?" -eq 1 ] || fail "could not make the fixture trace"
  cp traces/CatchupWithinCoverage.trace.json t.json
  rm -rf traces
  mkfifo fifo
  echo precious >victim
  ln -s victim link
  ln -s loop loop
  mkdir dir
}

snapshot() {
  local out="$1"
  {
    find . -mindepth 1 \( -path "./$out" -o -path "./$out/*" \) -prune -o \
      -printf '%p %y %s %m %i %T@ %l\n' | sort
    find . -mindepth 1 \( -path "./$out" -o -path "./$out/*" \) -prune -o \
      -type f -print0 | sort -z | xargs -0 -r md5sum
    stat -c '/dev/null %F %i %t:%T' /dev/null
  }
}

line=$(awk -F '\t' -v name="$wanted" '$1 == name' "$cases")
[ -n "$line" ] || fail "no such case in $cases"
IFS=$'\t' read -r name setup command want_exit want_message output check <<<"$line"

sandbox=$(mktemp -d /tmp/memwal-hostile.XXXXXX)
trap 'chmod -R u+rwx "$sandbox" 2>/dev/null; rm -rf "$sandbox"' EXIT
cd "$sandbox" || fail "no sandbox"
make_fixtures
M="$checker"
# A LanceDB-written MemWAL table with two shards (tests/fixtures/lancedb/).
TABLE="$(cd "$(dirname "$cases")/../fixtures/lancedb/tables" && pwd)/memwal_bucket.lance"
SHARD=_mem_wal/8e131bde-8368-54ff-89d9-c2e1cc781b29
NEWEST="$SHARD/manifest/0001000000000000000000000000000000000000000000000000000000000000.binpb"
export M TABLE SHARD NEWEST
[ "$setup" = "-" ] || eval "$setup" || fail "setup failed: $setup"
[ "$output" = "-" ] && output="__no_output__"
before=$(snapshot "$output")

eval "$command" >stdout.txt 2>stderr.txt </dev/null
code=$?
output_files="stdout.txt stderr.txt"
after=$(snapshot "$output" | grep -v -E "^\./(stdout|stderr)\.txt |  \./(stdout|stderr)\.txt$")
before=$(grep -v -E "^\./(stdout|stderr)\.txt |  \./(stdout|stderr)\.txt$" <<<"$before")

[ "$code" -eq "$want_exit" ] ||
  fail "exit $code, expected $want_exit; stderr: $(head -c 600 stderr.txt)"
if [ "$code" -ge 128 ]; then fail "killed by signal $((code - 128))"; fi
messages=$(grep -c '^memwal-check' stderr.txt)
others=$(grep -v -c '^memwal-check' stderr.txt)
[ "$others" -eq 0 ] || fail "stderr has lines besides one message: $(cat -A stderr.txt | head -c 600)"
if [ "$want_message" = "-" ]; then
  [ "$messages" -eq 0 ] || fail "unexpected message: $(cat stderr.txt)"
else
  [ "$messages" -eq 1 ] || fail "$messages message lines, expected 1: $(cat -A stderr.txt | head -c 600)"
  grep '^memwal-check' stderr.txt | grep -q -E -- "$want_message" ||
    fail "message '$(grep '^memwal-check' stderr.txt)' does not match '$want_message'"
fi
[ "$before" = "$after" ] || fail "something outside '$output' changed: $(diff <(echo "$before") <(echo "$after") | head -20)"
if [ "$check" != "-" ]; then
  eval "$check" || fail "check failed: $check"
fi
: "$output_files"
echo "hostile case $name: ok (exit $code)"
