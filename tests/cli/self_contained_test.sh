#!/usr/bin/env bash
# The repository stands alone: no tracked file names a path outside it (the
# team's common folder beside a developer's checkout, an absolute path of this
# machine) or cites the old out-of-tree specification ("SPEC"); the contract
# lives in the in-repo READMEs (io/cli, io/config, io/report, io/timeline).
# usage: self_contained_test.sh REPO_ROOT
set -uo pipefail
root=$1
cd "$root" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path ./.git -prune -o -path ./build -prune -o -path './build-*' -prune -o -type f -print | sed 's|^\./||')
fi
failures=0
check() {  # LABEL REGEX
  local hits
  hits=$(printf '%s\0' "${files[@]}" | xargs -0 grep -nIE "$2" 2>/dev/null | grep -v '^tests/cli/self_contained_test.sh:')
  if [[ -n $hits ]]; then
    echo "FAIL: $1:"
    echo "$hits" | head -20
    failures=$((failures + 1))
  else
    echo "ok   $1"
  fi
}
# The folder's name is assembled so that this file does not name it itself.
folder=sha
folder+=red
check "a path into the folder beside the checkout" "\\.\\./${folder}|${folder}/(calibration|validation|workloads|SPEC)"

check "an absolute path of a developer machine" "(^|[[:space:]\"'=(:])/(work|home|root)/[A-Za-z]"
check "a citation of the out-of-tree SPEC" '\bSPEC\b'
echo "${#files[@]} files checked"
exit $((failures > 0))
