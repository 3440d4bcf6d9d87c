#!/usr/bin/env bash
# memwal-check gate on small gate files: each case names what it shows, runs the gate and
# checks its exit code and a line of its output (ctest ci.gate_cli). Entries are tiny (the
# legacy one stops after 73 states), so the whole script takes seconds.
# usage: gate_cli_test.sh MEMWAL_CHECK SOURCE_DIR
set -uo pipefail
checker="$1"
source_dir="$2"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failures=0

# expect_run NAME EXIT PATTERN GATE_TEXT [gate args...]: runs the gate on GATE_TEXT and checks
# that it exits EXIT and that its output (stdout and stderr) matches the grep -E PATTERN.
expect_run() {
  local name="$1" want="$2" pattern="$3" text="$4"
  shift 4
  local file="$scratch/$name.txt" out="$scratch/$name.out"
  printf '%s\n' "$text" >"$file"
  "$checker" gate --gate "$file" --out "$scratch/$name" "$@" >"$out" 2>&1
  local got=$?
  if [ "$got" -ne "$want" ] || ! grep -Eq -- "$pattern" "$out"; then
    echo "FAIL: $name: exit $got (want $want), output:"
    sed 's/^/    /' "$out"
    echo "    (wanted a line matching: $pattern)"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

legacy='[entry legacy]
check = --preset tiny --protocol legacy --no-liveness
expect = verdict=ReadsMissNoRows
budget = states 2000'

expect_run an_expected_violation_that_breaks_as_expected_passes 0 '^ok +legacy' \
  "$legacy" --entry legacy --junit "$scratch/junit.xml"
if grep -q '<failure' "$scratch/junit.xml" || ! grep -q 'name="legacy"' "$scratch/junit.xml"; then
  echo "FAIL: the JUnit case of an expected violation is not a pass:"
  cat "$scratch/junit.xml"
  failures=$((failures + 1))
else
  echo "ok: the_junit_case_of_an_expected_violation_is_a_pass"
fi

expect_run an_unmet_expectation_fails 1 'verdict=ok not met' \
  "${legacy/verdict=ReadsMissNoRows/verdict=ok}" --entry legacy

expect_run an_expected_violation_not_found_within_its_budget_fails 1 '^FAIL +legacy' \
  "${legacy/states 2000/states 10}" --entry legacy

expect_run an_action_no_entry_fires_is_a_coverage_finding 1 \
  'coverage: action RetireSsTable fired in no entry' "$legacy"

expect_run a_goal_no_entry_reaches_is_a_coverage_finding 1 \
  'coverage: goal ReachPositionWithdrawn was reached in no entry' "$legacy"

expect_run a_cannot_fire_declaration_that_fires_fails 1 \
  'declares that Append cannot fire, but it fired' \
  '[entry unconditional]
check = --preset tiny --protocol unconditional --commits 3 --no-liveness
expect = verdict=ok
budget = states 50000
cannot-fire = Append: planted, and false' --entry unconditional

expect_run a_true_cannot_fire_declaration_passes 0 '^ok +unconditional' \
  '[entry unconditional]
check = --preset tiny --protocol unconditional --commits 3 --no-liveness
expect = verdict=ok
budget = states 50000
cannot-fire = Activate: unconditional has no bit' --entry unconditional

expect_run a_cannot_fire_declaration_on_an_incomplete_search_is_unchecked 1 \
  'declaration is unchecked' "$legacy
cannot-fire = Restore: planted" --entry legacy

expect_run a_flag_check_rejects_is_a_bad_gate_file 2 'file.txt:2: entry legacy:.*--no-such-flag' \
  "${legacy/--no-liveness/--no-liveness --no-such-flag}"

expect_run a_misspelled_invariant_is_refused_before_any_search 2 "decides no 'ReadsMisNoRows'" \
  "$legacy
expect = ReadsMisNoRows=violation"

expect_run a_budget_in_seconds_is_refused 2 'never seconds' \
  "${legacy/states 2000/seconds 60}"

expect_run a_flag_the_gate_owns_is_refused 2 '--max-states is the gate' \
  "${legacy/--no-liveness/--no-liveness --max-states 5}"

expect_run an_unknown_entry_is_bad_usage 2 "no entry named 'nope'" "$legacy" --entry nope

expect_run a_wall_clock_stop_is_budget_not_a_verdict 3 '^budget +derived-tiny' \
  '[entry derived-tiny]
check = --preset tiny --no-liveness
expect = verdict=ok
budget = states 300000' --entry derived-tiny --safety-seconds 1

expect_run fail_fast_stops_at_the_first_failing_entry 1 '^not run +derived-tiny' \
  "${legacy/verdict=ReadsMissNoRows/verdict=ok}

[entry derived-tiny]
check = --preset tiny --no-liveness
expect = verdict=ok
budget = states 300000" --fail-fast --jobs 1

expect_run the_rule_function_properties_run_as_an_entry 0 '^ok +props +properties: [0-9]+ passed, 50 random cases each' \
  '[entry props]
properties =
budget = cases 50' --entry props

# The repository's gate file parses (every entry's flags and expectations).
if "$checker" gate --gate "$source_dir/gate.txt" --list >"$scratch/list.out" 2>&1; then
  echo "ok: the_repository_gate_file_parses ($(wc -l <"$scratch/list.out") entries)"
else
  echo "FAIL: the repository's gate.txt does not parse:"
  cat "$scratch/list.out"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || {
  echo "$failures case(s) failed"
  exit 1
}
echo "every case passed"
