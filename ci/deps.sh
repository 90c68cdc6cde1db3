#!/usr/bin/env bash
# Install what ushmem needs to build, test and benchmark on Debian 12 (run as root).
# Idempotent: does nothing when every package is already there.
set -euo pipefail
PKGS=(libopenmpi-dev openmpi-bin libucx-dev ucx-utils libhwloc-dev googletest libgtest-dev
      libbenchmark-dev cmake g++ pkg-config make gnuplot-nox python3
      clang   # clang: the libFuzzer targets in fuzz/
      iproute2 util-linux   # ci/cluster.sh: namespaces, veth links (ip), unshare, nsenter, ipcs
      dpkg-dev file man-db) # the package test: cpack -G DEB (dpkg-shlibdeps, file), man pages
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ci/deps.sh: installing ${missing[*]}"
  if [ "$(id -u)" != 0 ]; then echo "ci/deps.sh: run as root to install packages" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
