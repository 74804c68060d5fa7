#!/usr/bin/env bash
# `preflight --version` prints the project version, and `cmake --install`
# puts a working preflight and its configs under a prefix: the installed
# binary reads an installed example (its relative part references and the
# presets' calibration paths resolve inside share/preflight/configs).
set -uo pipefail
preflight=$1
build=$2
version=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

out=$("$preflight" --version)
status=$?
[[ $status -eq 0 ]] || fail "--version exits $status"
# "preflight 0.1.0 (git 0123456789ab)", "-dirty" for a modified tree, "unknown" outside git.
[[ "$out" =~ ^preflight\ $version\ \(git\ ([0-9a-f]{12}(-dirty)?|unknown)\)$ ]] \
  || fail "--version printed '$out', expected 'preflight $version (git COMMIT)'"

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install failed"; }
installed=$tmp/prefix/bin/preflight
share=$tmp/prefix/share/preflight/configs
[[ -x "$installed" ]] || fail "no executable at bin/preflight"
[[ "$("$installed" --version 2>&1)" == "$out" ]] || fail "installed binary reports another version"
for f in ../scripts/plot_timeline.py ../scripts/summarize.py ../scripts/plot_sweep.py; do
  [[ -x "$share/$f" ]] || fail "not installed (executable): share/preflight/configs/$f"
done
# The installed binary finds the installed presets, not the source tree's.
presets=$(cd "$tmp" && "$installed" --list-presets 2>&1)
[[ $(head -1 <<<"$presets") == "presets in $(cd "$share" && pwd -P)" ]] || fail "--list-presets: $(head -1 <<<"$presets")"
grep -q "$share/hardware/h100-sxm-80gb.yaml" <<<"$presets" || fail "--list-presets does not list the installed h100 preset"
for f in hardware/h100-sxm-80gb.yaml hardware/gh200-96gb.yaml calibration/gh200/gemm_fp16.csv examples/gpt3-13b-a100-128.yaml; do
  [[ -f "$share/$f" ]] || fail "not installed: share/preflight/configs/$f"
done
(cd "$tmp" && "$installed" validate "$share/examples/gpt3-13b-a100-128.yaml" >"$tmp/validate.txt" 2>&1)
status=$?
[[ $status -eq 0 ]] || { cat "$tmp/validate.txt"; fail "installed preflight validate on the installed example exits $status"; }
grep -q '^fits:' "$tmp/validate.txt" || fail "installed validate printed no verdict"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "install_cli: ok"
