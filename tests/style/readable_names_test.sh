#!/bin/sh
# Parameterized tests print readable names: no test registered with ctest has
# gtest's byte dump of a parameter ("32-byte object <00-73 ...>") in its name
# or its GetParam() (a parameter type without PrintTo or a name generator).
#   readable_names_test.sh BUILD_DIR
set -u
listed=$(ctest --test-dir "$1" -N) || { echo "ctest -N failed"; exit 1; }
total=$(echo "$listed" | grep -c 'Test *#')
params=$(echo "$listed" | grep -c 'GetParam() = ')
dumps=$(echo "$listed" | grep -E '[0-9]+-byte object <')
if [ -n "$dumps" ]; then
  echo "$dumps" | head -5
  echo "byte dumps in $(echo "$dumps" | wc -l) test names"
  exit 1
fi
echo "readable: $total tests, $params parameterized, no byte dump"
