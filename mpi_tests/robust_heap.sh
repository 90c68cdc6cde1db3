#!/usr/bin/env bash
# robust_heap.sh: run a job that makes a symmetric heap the machine cannot give as asked, and check
# how it ended and that it left nothing behind (issue #13).
#
# Usage: robust_heap.sh [--status nonzero|0] [--shmmni-per-pe N] REGEX [--also REGEX]...
#                       [--forbid REGEX]... -- COMMAND...
#
#   --status          the job's expected exit status (default: nonzero)
#   --shmmni-per-pe N run the job in a new IPC namespace whose kernel.shmmni is N times the job's
#                     PE count (-np): the System V segments UCX needs for its workers fit, the
#                     heap's does not, so UCX takes its fallbacks (the test needs root)
#   REGEX             must match a line of the job's output (grep -E), as must each --also REGEX
#   --forbid REGEX    must match no line of it
#
# The program prints "robust: PE p pid P job J" (robust.c, mode init_only) or its heap mapping;
# afterwards the job must have left no System V segment created or attached by one of its
# processes (ipcs -m -p) and no new file in /dev/shm that is Open MPI's for this job or UCX's
# (leftovers.sh). Only what this job created counts: other jobs may run on the machine meanwhile.
set -u
. "$(cd "$(dirname "$0")" && pwd)/leftovers.sh"  # job_leftovers, command_np

want_status=nonzero
shmmni_per_pe=""
forbid=()
also=()
while [ $# -gt 0 ]; do
    case "$1" in
    --status) want_status=$2; shift 2 ;;
    --shmmni-per-pe) shmmni_per_pe=$2; shift 2 ;;
    --forbid) forbid+=("$2"); shift 2 ;;
    --also) also+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) [ -z "${regex-}" ] && regex=$1 || { echo "robust_heap.sh: unexpected argument $1" >&2; exit 2; }; shift ;;
    esac
done
[ -n "${regex-}" ] && [ $# -gt 0 ] || { echo "usage: robust_heap.sh [options] REGEX -- COMMAND..." >&2; exit 2; }

np=$(command_np "$@")

out=$(mktemp)
trap 'rm -f "$out"' EXIT
started=$SECONDS
shm_before=$(ls /dev/shm)
if [ -n "$shmmni_per_pe" ]; then
    [ "$np" -gt 0 ] || { echo "robust_heap.sh: cannot find -np N in the command" >&2; exit 2; }
    # A fresh IPC namespace: its limits are its own, and nothing of the machine's is affected.
    timeout -s KILL 120 unshare --ipc sh -c 'sysctl -q -w kernel.shmmni="$0" && exec "$@"' \
        "$((shmmni_per_pe * np))" "$@" >"$out" 2>&1 </dev/null
else
    timeout -s KILL 120 "$@" >"$out" 2>&1 </dev/null
fi
status=$?

echo "----- output of: $* -----"
cat "$out"
echo "----- exit status: $status -----"
fail=0
# 137 (SIGKILL) from timeout, not from a job that a PE's own SIGKILL ended (heap_grow kill).
if [ "$status" -eq 137 ] && [ $((SECONDS - started)) -ge 119 ]; then
    echo "robust_heap.sh: MISMATCH: the job was still running after 120 s"
    fail=1
elif [ "$want_status" = nonzero ] && [ "$status" -eq 0 ]; then
    echo "robust_heap.sh: MISMATCH: the job exited 0; it should have failed"
    fail=1
elif [ "$want_status" != nonzero ] && [ "$status" -ne "$want_status" ]; then
    echo "robust_heap.sh: MISMATCH: exit status $status, expected $want_status"
    fail=1
fi
for r in "$regex" "${also[@]}"; do
    if ! grep -Eq -- "$r" "$out"; then
        echo "robust_heap.sh: MISMATCH: no line of the output matches $r"
        fail=1
    fi
done
for f in "${forbid[@]}"; do
    if grep -Eq -- "$f" "$out"; then
        echo "robust_heap.sh: MISMATCH: a line of the output matches $f, which must not appear:"
        grep -E -- "$f" "$out" | head -3
        fail=1
    fi
done
pids=$(sed -n 's/^robust: PE [0-9?]* pid \([0-9]*\) job .*/\1/p' "$out" | sort -u | tr '\n' ' ')
job=$(sed -n 's/^robust: PE [0-9?]* pid [0-9]* job \([0-9a-f]*\)$/\1/p' "$out" | head -1)
leak=$(job_leftovers "$pids" "$job" "$shm_before")
if [ -n "$leak" ]; then
    echo "robust_heap.sh: MISMATCH: the job left behind: $leak"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "robust_heap.sh: as expected (status $status, message matched, nothing left behind)"
exit "$fail"
