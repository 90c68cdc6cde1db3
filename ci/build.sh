#!/usr/bin/env bash
# Configure and build into a directory. Usage: ci/build.sh BUILD_DIR [cmake args...]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$1; shift
cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
