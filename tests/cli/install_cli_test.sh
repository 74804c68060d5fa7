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
[[ "$out" == "preflight $version" ]] || fail "--version printed '$out', expected 'preflight $version'"

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install failed"; }
installed=$tmp/prefix/bin/preflight
share=$tmp/prefix/share/preflight/configs
[[ -x "$installed" ]] || fail "no executable at bin/preflight"
[[ "$("$installed" --version 2>&1)" == "preflight $version" ]] || fail "installed binary reports another version"
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
