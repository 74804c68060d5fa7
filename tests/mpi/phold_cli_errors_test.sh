#!/usr/bin/env bash
# Bad input to `preflight phold` exits 2 with one line on stderr, on 1 and 2 ranks.
set -uo pipefail
preflight=$1
mpiexec=$2
failures=0

expect_usage_error() {
  local ranks=$1 pattern=$2; shift 2
  local err status
  if [[ $ranks -eq 1 ]]; then
    err=$(timeout 60 "$preflight" "$@" 2>&1 >/dev/null)
  else
    err=$(timeout 60 "$mpiexec" --oversubscribe --allow-run-as-root -n "$ranks" "$preflight" "$@" 2>&1 >/dev/null)
  fi
  status=$?
  # Under mpiexec, Open MPI adds its own banner about the non-zero exit; count ours.
  err=$(grep '^preflight' <<<"$err")
  local lines
  lines=$(grep -c . <<<"$err")
  if [[ $status -ne 2 ]]; then
    echo "FAIL ($*): exit $status, expected 2; stderr: $err"; failures=$((failures + 1))
  elif [[ $lines -ne 1 ]]; then
    echo "FAIL ($*): expected one line on stderr, got $lines: $err"; failures=$((failures + 1))
  elif ! grep -q -- "$pattern" <<<"$err"; then
    echo "FAIL ($*): stderr does not mention '$pattern': $err"; failures=$((failures + 1))
  else
    echo "ok   ($*) -> $err"
  fi
}

for ranks in 1 2; do
  expect_usage_error "$ranks" "lookahead" phold --lookahead 0
  expect_usage_error "$ranks" "lookahead" phold --lookahead -1
  expect_usage_error "$ranks" "--mean" phold --mean 0.05
  expect_usage_error "$ranks" "--remote" phold --remote 1.5
  expect_usage_error "$ranks" "--lps" phold --lps 0
  expect_usage_error "$ranks" "--lps" phold --lps many
  expect_usage_error "$ranks" "--sync" phold --sync optimistic
  expect_usage_error "$ranks" "--end" phold --end -3
  expect_usage_error "$ranks" "frobnicate" phold --frobnicate 1
  expect_usage_error "$ranks" "--progress-every" phold --progress-every 0
  expect_usage_error "$ranks" "subcommand" nonsense
done
exit $((failures > 0))
