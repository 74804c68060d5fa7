#!/usr/bin/env bash
# models/phold/README.md's PHOLD through the CLI on 1, 2 and 4 ranks and both sync modes:
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

# 32,768 pending events: past the queue's heap-only size, so events go through
# the ladder's time buckets (core/event_ladder.h); 1, 2 and 4 ranks must still
# commit the same events in the same order.
ladder_args=(phold --lps 2048 --start-events 16 --remote 0.25 --lookahead 0.1 --mean 1.0 --end 200 --seed 3)
ladder_reference=""
for ranks in 1 2 4; do
  out=$("$mpiexec" --oversubscribe --allow-run-as-root -n "$ranks" "$preflight" "${ladder_args[@]}")
  pending=$(value peak_pending_events "$out")
  got="$(value events "$out") $(value checksum "$out")"
  echo "ladder: ranks=$ranks peak_pending=$pending events+checksum=$got"
  if [[ $ranks == 1 ]]; then
    (( pending > 16384 )) || { echo "FAIL: $pending pending events do not reach the ladder"; exit 1; }
    ladder_reference=$got
  elif [[ "$got" != "$ladder_reference" ]]; then
    echo "FAIL: ranks=$ranks gave '$got', 1 rank gave '$ladder_reference'"
    exit 1
  fi
done

# Progress for batch logs: stderr here is not a terminal, so nothing by default;
# --progress-every prints complete lines.
short=(phold --lps 2048 --start-events 4 --remote 0.25 --lookahead 0.1 --mean 1.0 --end 500 --seed 1)
quiet_log=$("$preflight" "${short[@]}" 2>&1 >/dev/null)
[[ "$quiet_log" != *"[preflight] t="* ]] || { echo "FAIL: progress on a non-terminal without --progress-every"; exit 1; }
log=$("$preflight" "${short[@]}" --progress-every 0.001 2>&1 >/dev/null)
lines=$(grep -c '^\[preflight\] t=[0-9.]* us ( *[0-9.]*%)  [0-9.]* M events/s  ETA [0-9]* s$' <<<"$log" || true)
(( lines >= 1 )) || { echo "FAIL: no progress lines with --progress-every: '$log'"; exit 1; }
[[ "$log" != *$'\r'* ]] || { echo "FAIL: a log got carriage returns"; exit 1; }
echo "progress lines in the log: $lines"
