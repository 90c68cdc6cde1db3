#!/usr/bin/env bash
# The README's main job: install dependencies, build (Release), and run the benchmark suite
# side by side with Open MPI's OSHMEM and MPI RMA, printing its tables.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bash ci/deps.sh
bash ci/hugepages.sh 400 >/dev/null
bash ci/build.sh build-release -DCMAKE_BUILD_TYPE=Release -DUSHMEM_BUILD_TESTS=OFF
exec bash bench/run --build build-release "$@"
