#!/usr/bin/env bash
# The sanitizer and fuzzing gate that ctest runs (test fuzz.sanitized, label sanitize):
#   1. configures a nested build with ASan+UBSan (MEMWAL_SANITIZE=address) in BUILD_DIR, using
#      a clang that can build the project and link libFuzzer (clang++-19, else any clang++ >= 16)
#      with MEMWAL_FUZZ=ON, else the default compiler without libFuzzer;
#   2. builds only the fuzz replay executables and impl_test there (not the whole tree: the
#      full ASan build does not fit the CI budget on 2 cores);
#   3. runs impl_test and the replay tests (ctest -L fuzz) under the sanitizers;
#   4. with libFuzzer, runs every decoder target for SECONDS (default 10) from a copy of the
#      committed corpus (the committed corpus is never modified).
# Exit 0 when all of it passes. The nested build is incremental across runs.
# usage: sanitized_check.sh SOURCE_DIR BUILD_DIR [SECONDS]
set -euo pipefail
readonly src="$1" build="$2" seconds="${3:-10}"
readonly decoders=(roaring manifest index_section memwal_details shard_manifest trace_json itf)

pick_clang() {
  local candidate version
  for candidate in clang++-19 clang++-18 clang++-17 clang++-16 clang++; do
    command -v "$candidate" >/dev/null || continue
    version=$("$candidate" -dumpversion | cut -d. -f1)
    # clang 14 and 15 cannot compile captured structured bindings (impl/ uses them).
    [ "$version" -ge 16 ] && { echo "$candidate"; return; }
  done
}

configure() {
  local clang fuzz=OFF cxx=()
  clang=$(pick_clang)
  if [ -n "$clang" ]; then
    fuzz=ON
    cxx=(-DCMAKE_CXX_COMPILER="$(command -v "$clang")")
  fi
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMEMWAL_SANITIZE=address \
    -DMEMWAL_FUZZ="$fuzz" "${cxx[@]}" -DCMAKE_CXX_FLAGS="-gline-tables-only -Wno-unused-private-field" >/dev/null
}

[ -f "$build/CMakeCache.txt" ] || configure
fuzzing=$(grep -q '^MEMWAL_FUZZ:BOOL=ON' "$build/CMakeCache.txt" && echo yes || echo no)
targets=(impl_test)
for t in "${decoders[@]}" lockstep; do
  targets+=("fuzz_${t}_replay")
  [ "$fuzzing" = yes ] && targets+=("fuzz_$t")
done
cmake --build "$build" -j2 --target "${targets[@]}" >"$build/sanitized-build.log" 2>&1 ||
  { tail -n 30 "$build/sanitized-build.log"; exit 1; }

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$build/tests/impl/impl_test" --gtest_brief=1
ctest --test-dir "$build" -L fuzz --output-on-failure -j2

if [ "$fuzzing" = yes ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  for t in "${decoders[@]}"; do
    mkdir -p "$work/$t"
    cp "$src/fuzz/corpus/$t/"* "$work/$t/"
    echo "libFuzzer: $t for ${seconds}s" >&2
    (cd "$work" && "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -print_final_stats=1 "$work/$t" 2>"$work/$t.log") ||
      { tail -n 40 "$work/$t.log"; exit 1; }
    grep -E 'stat::number_of_executed_units|cov:' "$work/$t.log" | tail -n 2 >&2
  done
else
  echo "no clang >= 16 with libFuzzer: skipped the short fuzz runs" >&2
fi
