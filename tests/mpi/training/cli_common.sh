# Sourced by the `run` command-line tests of this folder after they set
# preflight, mpiexec and root from their arguments: a scratch folder removed
# on exit, the status a test exits with, fail (report and remember),
# mpi N CMD... (N oversubscribed ranks, as root too) and check (check_run.py).
# shellcheck shell=bash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
check="/usr/bin/python3 $root/tests/mpi/training/check_run.py"
fail() { echo "FAIL: $*"; status=1; }
mpi() { local n=$1; shift; "$mpiexec" --oversubscribe --allow-run-as-root -n "$n" "$@"; }
