#!/bin/sh
# Runs "$@" beside busy loops, one per CPU unless USHMEM_TEST_LOAD says how many, so that the PEs
# outnumber the free CPUs (some orderings and algorithm choices happen only then). The loops end
# with the command, also when it fails or is killed by ctest's timeout (SIGTERM).
n=${USHMEM_TEST_LOAD:-$(nproc)}
pids=""
i=0
while [ "$i" -lt "$n" ]; do
  (while :; do :; done) &
  pids="$pids $!"
  i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' EXIT
trap 'kill $pids 2>/dev/null; exit 143' TERM INT
"$@"
