#!/usr/bin/env bash
# A run killed in the middle of writing its timeline leaves no timeline.h5:
# the file only appears by the rename after every rank has closed it.
set -uo pipefail
writer=$1 mpiexec=$2 dir=$3
rm -rf "$dir"
failures=0
for step in events close; do
  timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$writer" "$dir" --die-at "$step" >/dev/null 2>&1
  status=$?
  if [[ $status -eq 0 ]]; then
    echo "FAIL ($step): the killed writer exited 0"; failures=$((failures + 1))
  elif [[ -e $dir/timeline.h5 ]]; then
    echo "FAIL ($step): timeline.h5 exists after the kill"; failures=$((failures + 1))
  else
    echo "ok   ($step): exit $status, no timeline.h5 ($(ls "$dir" 2>/dev/null | tr '\n' ' '))"
  fi
done
# The same writer, not killed, does publish the file.
if timeout 120 "$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$writer" "$dir" >/dev/null && [[ -s $dir/timeline.h5 && ! -e $dir/timeline.h5.tmp ]]; then
  echo "ok   (complete): timeline.h5 written, no .tmp left"
else
  echo "FAIL (complete): no timeline.h5 after a normal write"; failures=$((failures + 1))
fi
exit $((failures > 0))
