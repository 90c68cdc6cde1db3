#!/usr/bin/env bash
# Reserve N 2 MiB huge pages when we may (root), so that the huge-page heap path is exercised.
# Usage: ci/hugepages.sh N    (prints the number actually reserved)
set -u
want=${1:-0}
f=/proc/sys/vm/nr_hugepages
if [ -w "$f" ]; then echo "$want" > "$f" 2>/dev/null || true; fi
cat "$f" 2>/dev/null || echo 0
