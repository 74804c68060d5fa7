#!/usr/bin/env bash
# Installs the Debian packages preflight needs, only those missing.
# Silent when everything is present; non-interactive; safe to run repeatedly.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev
  libyaml-cpp-dev
  libboost-graph-dev
  libgtest-dev libgmock-dev
  libmetis-dev
  libcli11-dev
  nlohmann-json3-dev
  libssl-dev
  libbenchmark-dev
  python3-h5py python3-numpy python3-matplotlib
  clang libclang-rt-14-dev   # scripts/test.sh --sanitize: ASan/UBSan and libFuzzer (tests/fuzz)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "preflight: installing ${missing[*]}" >&2
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
