#!/usr/bin/env bash
# The README's main job: install dependencies, build (Release), and run the benchmark suite
# (bench/run-all: RMA, atomics, collectives, scale, UCX_TLS=tcp against raw UCX, the network table,
# computing target, progress-thread CPU, busy machine, two simulated hosts) side by side with Open
# MPI's OSHMEM and MPI, printing its tables and writing docs/benchmarks.md and docs/bench/*.png.
# Short mode by default (every section: ~20 min on a loaded 2-core VM; `--sections rma,amo,coll`
# and so on picks some); pass --full for the figures to quote (quiet machine, ~1.5 h).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bash ci/deps.sh
bash ci/hugepages.sh 400 >/dev/null
bash ci/build.sh build-release -DCMAKE_BUILD_TYPE=Release -DUSHMEM_BUILD_TESTS=OFF
mode=--short
case "${1:-}" in --short | --full) mode=$1; shift ;; esac
exec python3 bench/run-all "$mode" --build-dir build-release "$@"
