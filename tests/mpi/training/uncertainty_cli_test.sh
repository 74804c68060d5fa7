#!/bin/bash
# `preflight run --uncertainty N` through the binary under mpiexec:
#  - the sampled band (P10/P50/P90, MFU, tokens/s, sensitivity) is identical
#    on 1 rank, on 2 ranks running every sample together, and on 4 ranks
#    with --jobs-per-run 1 (samples dealt over the ranks);
#  - P10 <= P50 <= P90, the one-at-a-time runs straddle the nominal step
#    for the GEMM rate, the ranking is by swing and names what to measure;
#  - with every prior collapsed (low = high = 1) and the model error off
#    every sample is the nominal run: P10 = P50 = P90 = the report's step
#    time, and the cheap band closes on it too; with the model error on, the
#    band is the nominal step times the measured error's quantiles;
#  - the timeline's /summary carries the band;
#  - another seed gives other samples; the config key works like the flag;
#  - sweep --uncertainty: common samples across variants, the same on 1 and 2
#    ranks; a real difference is a robust ranking, identical variants are
#    flagged as flipping;
#  - scripts/plot_tornado.py and scripts/plot_sweep.py draw the bands;
#  - bad input (a non-divisor --jobs-per-run, an unknown prior key) exits 2
#    before simulating.
# usage: uncertainty_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -u
preflight=$1 mpiexec=$2 root=$3
exp=$root/tests/mpi/training/small-pipeline.yaml
# shellcheck source=cli_common.sh
source "$root/tests/mpi/training/cli_common.sh"
band() { /usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['uncertainty'], sort_keys=True))" "$1"; }
plan=(--set topology.nodes=2 --set parallelism.tp=2 --set parallelism.pp=2 --set parallelism.dp=4
      --set parallelism.sequence_parallel=true --set training.global_batch_size=16
      --set simulation.network=analytical --quiet --no-timeline)

# 1 rank; 2 ranks on every run; 4 ranks with the runs dealt one per rank.
for n in 1 2 4; do
  out=$work/u-$n
  jobs=(); [[ $n -eq 4 ]] && jobs=(--jobs-per-run 1)
  mpi "$n" "$preflight" run "$exp" "${plan[@]}" --uncertainty 6 "${jobs[@]}" --out "$out" > "$out.txt" 2>&1 \
    || { fail "--uncertainty on $n ranks exited $?"; cat "$out.txt"; continue; }
  [[ "$(band "$out/report.json")" == "$(band "$work/u-1/report.json")" ]] || fail "band on $n ranks differs from 1 rank"
done
grep -q "sampled band" "$work/u-1.txt" || { fail "text report lacks the sampled band"; cat "$work/u-1.txt"; }
grep -q "measure next" "$work/u-1.txt" || fail "text report lacks the measurement to make next"

/usr/bin/python3 - "$work/u-1/report.json" <<'PY' || fail "band figures"
import json, sys
r = json.load(open(sys.argv[1])); u = r["uncertainty"]
step = r["step_time_ms"]
assert u["samples"] == 6 and u["failed_samples"] == 0, u
assert u["p10"] <= u["p50"] <= u["p90"], u
assert u["mfu"]["p10"] <= u["mfu"]["p90"] and u["tokens_per_s"]["p10"] <= u["tokens_per_s"]["p90"]
s = {x["parameter"]: x for x in u["sensitivity"]}
g = s["hardware.gpu.efficiency.gemm"]
assert g["step_time_ms_at_low"] > step > g["step_time_ms_at_high"], (g, step)
assert g["value_high"] <= 1.0
top = u["sensitivity"][0]["parameter"]
swings = [x["swing_ms"] for x in u["sensitivity"]]
assert swings == sorted(swings, reverse=True), swings
assert u["narrow_first"]["parameter"] == top
assert "step_time_ms_low" in u and "basis" in u  # the cheap band's keys stay
PY

# The timeline's /summary carries the band (it follows the report).
out=$work/h5
"$preflight" run "$exp" "${plan[@]:0:${#plan[@]}-1}" --uncertainty 2 --out "$out" > "$out.txt" 2>&1 \
  || { fail "--uncertainty with a timeline exited $?"; cat "$out.txt"; }
/usr/bin/python3 - "$out" <<'PY' || fail "/summary lacks the band"
import h5py, json, sys
u = json.load(open(sys.argv[1] + "/report.json"))["uncertainty"]
a = h5py.File(sys.argv[1] + "/timeline.h5")["summary"].attrs
assert a["uncertainty.p50"] == u["p50"] and a["uncertainty.step_time_ms_low"] == u["step_time_ms_low"]
assert json.loads(a["uncertainty.sensitivity"])[0]["parameter"] == u["sensitivity"][0]["parameter"]
PY

# Every prior collapsed: the band is the nominal run, exactly.
cp "$root/configs/hardware/a100-sxm-80gb.yaml" "$work/flat.yaml"
/usr/bin/python3 - "$work/flat.yaml" <<'PY'
import sys
keys = ["gpu.sustained_clock", "gpu.efficiency.gemm", "gpu.efficiency.attention", "gpu.efficiency.attention_flash2",
        "gpu.efficiency.elementwise", "gpu.efficiency.overlap_slowdown", "gpu.efficiency.communication_overhead_us",
        "nccl.latency_scale", "node.nvlink_efficiency", "node.nic_efficiency", "gpu.speed_spread",
        "gpu.speed_fluctuation"]
text = open(sys.argv[1]).read().split("uncertainty:")[0]
text += "uncertainty:\n" + "".join("  - {key: %s, low: 1, high: 1, source: test}\n" % k for k in keys)
open(sys.argv[1], "w").write(text)
PY
out=$work/flat
"$preflight" run "$exp" "${plan[@]}" --set hardware="$work/flat.yaml" --set training.host_overhead_us=0 \
  --set simulation.uncertainty_model_error=false \
  --uncertainty 4 --out "$out" > "$out.txt" 2>&1 || { fail "collapsed priors exited $?"; cat "$out.txt"; }
/usr/bin/python3 - "$out/report.json" <<'PY' || fail "collapsed priors do not give the nominal step"
import json, sys
r = json.load(open(sys.argv[1])); u = r["uncertainty"]
assert u["p10"] == u["p50"] == u["p90"] == r["step_time_ms"], (u["p10"], u["p90"], r["step_time_ms"])
assert u["step_time_ms_low"] == u["step_time_ms_high"] == r["step_time_ms"], u  # the cheap band closes too
assert all(x["swing_ms"] == 0 for x in u["sensitivity"])
assert u["narrow_first"] is None
assert u["model_error"] is None
PY

# The same with the model's measured error: only it moves the band, by its
# own quantiles (models/uncertainty/model_error.h), in both bands.
out=$work/flat-error
"$preflight" run "$exp" "${plan[@]}" --set hardware="$work/flat.yaml" --set training.host_overhead_us=0 \
  --uncertainty 4 --out "$out" > "$out.txt" 2>&1 || { fail "collapsed priors with the model error exited $?"; cat "$out.txt"; }
grep -q "model error .* published dense runs" "$out.txt" || { fail "the text report lacks the model error"; cat "$out.txt"; }
grep -q "a measured step of this plan" "$out.txt" \
  || { fail "the text report does not say the model error outweighs the (collapsed) parameters"; cat "$out.txt"; }
/usr/bin/python3 - "$out/report.json" <<'PY' || fail "the model error does not give the band"
import json, sys
r = json.load(open(sys.argv[1])); u = r["uncertainty"]; m = u["model_error"]; step = r["step_time_ms"]
assert m["stratum"] == "dense" and m["rows"] > 10 and m["p10"] < m["p50"] < m["p90"], m
assert u["band_covers"][-1] == "model_error", u["band_covers"]  # the collapsed priors move nothing
assert abs(u["step_time_ms_low"] - step * min(1, m["p10"])) < 1e-6 * step, (u, step)
assert abs(u["step_time_ms_high"] - step * max(1, m["p90"])) < 1e-6 * step, (u, step)
# Every run at the nominal step: the band is the step times the table's own quantiles.
for q in ("p10", "p50", "p90"):
    assert abs(u[q] / step - m[q]) < 1e-9 * m[q], (q, u[q] / step, m[q])
assert abs(u["mfu"]["p10"] * m["p90"] - r["mfu"]) < 1e-9 * r["mfu"], (u["mfu"], r["mfu"])
assert all(x["swing_ms"] == 0 for x in u["sensitivity"])
PY

# Another seed, other samples; the config key is the flag.
"$preflight" run "$exp" "${plan[@]}" --uncertainty 6 --uncertainty-seed 9 --out "$work/seed9" > /dev/null 2>&1
[[ "$(band "$work/seed9/report.json")" != "$(band "$work/u-1/report.json")" ]] || fail "seed 9 gives seed 1's band"
"$preflight" run "$exp" "${plan[@]}" --set simulation.uncertainty_samples=6 --out "$work/key" > /dev/null 2>&1
[[ "$(band "$work/key/report.json")" == "$(band "$work/u-1/report.json")" ]] || fail "the config key differs from the flag"

# sweep --uncertainty: the same samples for every variant; 1 rank and 2 ranks
# with the variants' samples dealt over them give the same bands; a real
# difference (100 vs 400 Gb/s NICs) is robust, two identical variants are not.
splan=("${plan[@]:0:${#plan[@]}-1}")  # sweep writes no timeline: drop --no-timeline
sweep=(sweep "$exp" "${splan[@]}" --vary hardware.node.nic_bandwidth_gbps=100,400 --uncertainty 4)
"$preflight" "${sweep[@]}" --json "$work/s1.json" > "$work/s1.txt" 2>&1 || { fail "sweep --uncertainty exited $?"; cat "$work/s1.txt"; }
mpi 2 "$preflight" "${sweep[@]}" --jobs-per-run 1 --json "$work/s2.json" > "$work/s2.txt" 2>&1 \
  || { fail "sweep --uncertainty on 2 ranks exited $?"; cat "$work/s2.txt"; }
"$preflight" sweep "$exp" "${splan[@]}" --vary simulation.seed=1,2 --uncertainty 4 --json "$work/s3.json" \
  > "$work/s3.txt" 2>&1 || { fail "sweep of identical variants exited $?"; cat "$work/s3.txt"; }
grep -q "ranking flips within the band" "$work/s3.txt" || { fail "identical variants not flagged"; cat "$work/s3.txt"; }
/usr/bin/python3 - "$work/s1.json" "$work/s2.json" "$work/s3.json" <<'PY' || fail "sweep bands"
import json, sys
a, b, c = (json.load(open(f)) for f in sys.argv[1:])
ua = [r["uncertainty"] for r in a["rows"]]
assert ua == [r["uncertainty"] for r in b["rows"]], "1 vs 2 ranks"
assert a["uncertainty_samples"] == 4
top = a["rows"][0]
assert top["variant"]["hardware.node.nic_bandwidth_gbps"] == 400, top
v = top["uncertainty"]["vs_next"]
assert v["samples"] == 4 and v["faster_share"] == 1.0 and v["robust"] and v["margin_pct_p10"] > 0, v
assert a["rows"][1]["uncertainty"]["vs_next"] is None
assert top["uncertainty"]["p10"] <= top["uncertainty"]["p50"] <= top["uncertainty"]["p90"]
w = c["rows"][0]["uncertainty"]["vs_next"]
assert w["faster_share"] == 0.0 and not w["robust"] and w["margin_pct_p10"] == 0.0, w
PY

# The plot scripts draw the band: the tornado of a run, the sweep's error bars.
png() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG" ]; }
/usr/bin/python3 "$root/scripts/plot_tornado.py" "$work/u-1/report.json" -o "$work/tornado.png" > /dev/null \
  && png "$work/tornado.png" || fail "plot_tornado.py"
/usr/bin/python3 "$root/scripts/plot_sweep.py" "$work/s1.json" -o "$work/sweep.png" > /dev/null \
  && png "$work/sweep.png" || fail "plot_sweep.py with bands"
/usr/bin/python3 "$root/scripts/plot_tornado.py" "$work/flat/report.json" -o "$work/flat.png" > /dev/null \
  || fail "plot_tornado.py of a collapsed band"

# Bad input: exit 2, one line, before simulating.
mpi 2 "$preflight" run "$exp" "${plan[@]}" --uncertainty 4 --jobs-per-run 3 --out "$work/bad" > "$work/bad.txt" 2>&1
rc=$?
[[ $rc -eq 2 ]] || { fail "--jobs-per-run 3 on 2 ranks exited $rc, expected 2"; cat "$work/bad.txt"; }
grep -q "jobs-per-run" "$work/bad.txt" || { fail "the error does not name --jobs-per-run"; cat "$work/bad.txt"; }
sed 's/^uncertainty:.*/uncertainty:\n  - {key: gpu.efficiency.gemmm, low: 0.9, high: 1.1}/' "$root/configs/hardware/a100-sxm-80gb.yaml" \
  | sed '/^  - {key: gpu.sustained_clock/,$d' > "$work/bad-hw.yaml"
"$preflight" run "$exp" "${plan[@]}" --set hardware="$work/bad-hw.yaml" --out "$work/bad2" > "$work/bad2.txt" 2>&1
rc=$?
[[ $rc -eq 2 ]] || { fail "an unknown prior key exited $rc, expected 2"; cat "$work/bad2.txt"; }
grep -q "bad-hw.yaml" "$work/bad2.txt" || { fail "the error does not name the file"; cat "$work/bad2.txt"; }

[[ $status -eq 0 ]] && echo "uncertainty_cli: all checks passed"
exit $status
