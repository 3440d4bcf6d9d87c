#!/bin/sh
# docs/exploring-a-change.md section 8: the worked change (docs/fence.patch, the
# R65 fence as the code has it) touches at most 4 files of code, all in model/
# and impl/, and is the whole change: in a scratch copy of the sources with the
# patch taken out, nothing names the fence any more and the files it touched
# still compile (g++ -fsyntax-only, the build's flags).
#   worked_change_test.sh SOURCE_DIR BUILD_DIR CXX
set -eu
src=$1
build=$2
cxx=$3
patch="$src/docs/fence.patch"
fail() { echo "worked change: $*" >&2; exit 1; }

files=$(cd "$src" && git apply --numstat "$patch" | cut -f3)
count=$(echo "$files" | wc -l)
echo "files the worked change touches ($count):"
echo "$files" | sed 's/^/  /'
[ "$count" -le 4 ] || fail "$count code files, more than 4"
for f in $files; do
  case $f in
    model/*|impl/*) ;;
    *) fail "$f is outside model/ and impl/" ;;
  esac
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$src/base" "$src/model" "$src/impl" "$src/checker" "$scratch/"
cd "$scratch"
# -R: the patch must be exactly what the sources hold today.
git apply -R "$patch" || fail "docs/fence.patch no longer matches the sources"
if grep -rnE 'kFence|kDataPassProperty|CheckDataPassFence|"fence"|"--fence"' \
     base model impl checker --include='*.cc' --include='*.h' \
     | grep -vE '^[^:]+:[0-9]+: *//'; then
  fail "code outside the patch names the fence"
fi
for f in $files; do
  case $f in *.cc) ;; *) continue ;; esac
  lib=${f%%/*}
  mkdir -p "roots/$lib"
  ln -sfn "$scratch/base" "roots/$lib/base"
  ln -sfn "$scratch/$lib" "roots/$lib/$lib"
  "$cxx" -std=c++20 -Wall -Wextra -Werror -Wshadow -fsyntax-only \
    -I"roots/$lib" -isystem "$build/generated/base" \
    -isystem "$build/generated/$lib" "$f" ||
    fail "$f does not compile without the change"
done
echo "the worked change: $count code files; the sources without it compile"
