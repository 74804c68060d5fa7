#!/usr/bin/env bash
# SPEC section 6's PHOLD through the CLI on 1, 2 and 4 ranks and both sync modes:
# the committed count is within 0.1% of 16.38 million and every run commits the
# same events in the same order (same count, same checksum).
set -euo pipefail
preflight=$1
mpiexec=$2
args=(phold --lps 2048 --start-events 4 --remote 0.25 --lookahead 0.1 --mean 1.0 --end 2000 --seed 1)

value() { sed -n "s/^$1: //p" <<<"$2"; }

reference=""
for ranks in 1 2 4; do
  for sync in window null_message; do
    out=$("$mpiexec" --oversubscribe --allow-run-as-root -n "$ranks" "$preflight" "${args[@]}" --sync "$sync")
    events=$(value events "$out")
    checksum=$(value checksum "$out")
    echo "ranks=$ranks sync=$sync events=$events checksum=$checksum events_per_s=$(value events_per_s "$out")"
    [[ $(value ranks "$out") == "$ranks" ]] || { echo "FAIL: ranks line"; exit 1; }
    if [[ -z "$reference" ]]; then
      reference="$events $checksum"
      # |events - 16.38e6| <= 0.1% of 16.38e6 = 16380
      delta=$(( events > 16380000 ? events - 16380000 : 16380000 - events ))
      (( delta <= 16380 )) || { echo "FAIL: $events events is not within 0.1% of 16.38 million"; exit 1; }
    elif [[ "$events $checksum" != "$reference" ]]; then
      echo "FAIL: ranks=$ranks sync=$sync gave '$events $checksum', 1 rank gave '$reference'"
      exit 1
    fi
  done
done
echo "all runs agree: $reference"
