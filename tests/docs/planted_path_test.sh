#!/bin/sh
# The path test's failing side, end to end: a document that names a path
# which does not exist (one of the paths from before the checker/ split)
# makes Paths.EveryPathNamedInASourceOrADocumentExists fail, naming the file
# and the path.
#   planted_path_test.sh PATHS_TEST_BINARY
set -u
binary=$1
# Spelled in two parts, so that the scan does not read this file as naming it.
gone="checker"/lockstep_cli.h
planted=$(mktemp --suffix=.md)
trap 'rm -f "$planted"' EXIT
printf 'See %s for the command.\n' "$gone" >"$planted"
output=$(MEMWAL_PATHS_PLANTED="$planted" "$binary" \
  --gtest_filter=Paths.EveryPathNamedInASourceOrADocumentExists 2>&1)
code=$?
echo "$output" | grep -E 'names|FAILED|PASSED' | head -5
if [ "$code" -eq 0 ]; then
  echo "planted path: the path test passed with a dangling path planted"
  exit 1
fi
if ! echo "$output" | grep -qF "names $gone, which does not exist"; then
  echo "planted path: the path test failed, but not on the planted path"
  exit 1
fi
if [ "$(echo "$output" | grep -c ', which does not exist')" -ne 1 ]; then
  echo "planted path: the tree itself has dangling paths"
  exit 1
fi
echo "planted path: the path test fails on it, and only on it"
