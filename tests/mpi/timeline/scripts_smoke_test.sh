#!/usr/bin/env bash
# scripts/plot_timeline.py and scripts/summarize.py on a written timeline:
# --help works, both write a non-empty PNG, bad input exits 2.
set -uo pipefail
scripts=$1 timeline=$2 work=$3
py=/usr/bin/python3
failures=0
mkdir -p "$work"
rm -f "$work"/*.png

is_png() { [[ -s $1 ]] && [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] && [[ $(stat -c %s "$1") -gt 5000 ]]; }
step() {  # step NAME COMMAND... ; PNG named NAME.png must appear
  local name=$1; shift
  if "$@" >"$work/$name.out" 2>&1 && is_png "$work/$name.png"; then
    echo "ok   ($name): $(stat -c %s "$work/$name.png") bytes"
  else
    echo "FAIL ($name): $(tail -5 "$work/$name.out")"; failures=$((failures + 1))
  fi
}

for s in plot_timeline summarize; do
  if ! $py "$scripts/$s.py" --help | grep -q usage; then echo "FAIL ($s --help)"; failures=$((failures + 1)); fi
done
# The interval arithmetic behind "exposed comm" and "bubble", on a case worked by hand.
if ! $py - "$scripts" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import summarize as s
u = s.merge(np.array([0, 3, 10, 11]), np.array([5, 8, 12, 11]))
assert [list(u[0]), list(u[1])] == [[0, 10], [8, 12]], u
assert s.overlap((np.array([0, 20]), np.array([10, 30])), (np.array([5]), np.array([25]))) == 10
assert s.overlap((np.array([0]), np.array([10])), (np.array([10, 12]), np.array([11, 20]))) == 0
rows = np.zeros(3, dtype=[("stream", "u1"), ("phase", "u1"), ("start_ns", "<i8"), ("end_ns", "<i8")])
rows["stream"] = [0, 1, 0]
rows["start_ns"] = [0, 8, 20]
rows["end_ns"] = [10, 16, 30]
# compute 0-10 and 20-30, comm 8-16: 6 ns exposed; step 40 -> bubble 40 - 20 - 6 = 14
assert s.gpu_figures(rows, 40) == [20, 0, 0, 8, 6, 14], s.gpu_figures(rows, 40)
PY
then echo "FAIL (interval arithmetic)"; failures=$((failures + 1)); fi
step gantt $py "$scripts/plot_timeline.py" "$timeline" -o "$work/gantt.png"
step gantt_window $py "$scripts/plot_timeline.py" "$timeline" -o "$work/gantt_window.png" --gpus 0-3,8 \
  --start-ns 2000 --end-ns 30000 --color-by phase
step summary $py "$scripts/summarize.py" "$timeline" -o "$work/summary.png"
for table in "per-GPU breakdown" "exposed comm" "bubble" "link utilisation by class" "busiest"; do
  grep -q "$table" "$work/summary.out" || { echo "FAIL (summary): no '$table' in the text"; failures=$((failures + 1)); }
done
echo "not hdf5" >"$work/bad.h5"
$py "$scripts/plot_timeline.py" "$work/bad.h5" -o "$work/bad.png" 2>/dev/null; status=$?
[[ $status -eq 2 ]] || { echo "FAIL (bad input): plot_timeline exit $status"; failures=$((failures + 1)); }
$py "$scripts/summarize.py" "$work/bad.h5" -o "$work/bad.png" 2>/dev/null; status=$?
[[ $status -eq 2 ]] || { echo "FAIL (bad input): summarize exit $status"; failures=$((failures + 1)); }
exit $((failures > 0))
