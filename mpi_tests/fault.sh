#!/usr/bin/env bash
# fault.sh: kill a PE in the middle of a job, repeatedly, and check how the job ends.
#
# Usage: fault.sh LOOPS -- MPIRUN -np N ... fault PHASE
#   (FAULT_LOOPS in the environment overrides LOOPS: the acceptance run is
#    `FAULT_LOOPS=20 ctest --test-dir BUILD -L '^fault$'`.)
#
# Run i appends the victim PE, i mod N, to the command (fault.c kills that PE with SIGKILL in
# the middle of PHASE) and checks:
#   - the job ends, with a non-zero status, within 10 s of the victim's death (the command runs
#     under `timeout 30`, so a hang is a failure, not a stalled test);
#   - the output names the dead PE: mpirun's "process rank V ... exited on signal 9", or ushmem's
#     own report when UCX tells it first ("ushmem: shmem_long_put (PE p of n): put to PE V
#     failed: Endpoint timeout" with UCX_TLS=tcp) or "PE V is unreachable";
#   - nothing is left behind: no System V shared-memory segment created by one of the job's
#     processes (ipcs -m -p), no /dev/shm file named after the job (Open MPI) or new UCX file,
#     and HugePages_Free back to at least its value before the run (waiting up to 10 s for the
#     kernel to reap the processes). The huge-page check is exact only when nothing else runs
#     on the machine at the same time; ctest runs these tests with the "serial" label.
set -u
. "$(cd "$(dirname "$0")" && pwd)/leftovers.sh"  # job_leftovers, hp_free, command_np
loops=${FAULT_LOOPS:-${1:?usage: fault.sh LOOPS -- COMMAND...}}
shift
[ "${1-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "fault.sh: no command given" >&2; exit 2; }

np=$(command_np "$@")
[ "$np" -gt 0 ] || { echo "fault.sh: cannot find -np N in the command" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
# Over network lanes (UCX_TLS=tcp here) ushmem detects the death itself (UCP_ERR_HANDLING_MODE_PEER,
# USHMEM_PEER_FAILURE): its own line naming the dead PE must appear in at least one run of the
# loop (a run may end by mpirun's abort before a survivor reports it, so not in every run).
detected=0
for ((i = 0; i < loops; ++i)); do
    victim=$((i % np))
    hp_before=$(hp_free)
    shm_before=$(ls /dev/shm)
    start=$(date +%s)
    timeout -s KILL 30 "$@" "$victim" >"$out" 2>&1 </dev/null
    status=$?
    end=$(date +%s.%N)
    took=""
    why=""
    died=$(sed -n "s/^fault: PE $victim dies now .* at \([0-9.]*\)$/\1/p" "$out" | head -1)
    if [ "$status" -eq 0 ] || [ "$status" -eq 3 ]; then
        why="the job exited $status: the death of PE $victim was not noticed"
    elif [ $(( ${end%.*} - start )) -ge 30 ]; then
        why="still running after 30 s (killed by timeout)"
    elif [ -z "$died" ]; then
        why="PE $victim never reached its death (status $status)"
    else
        took=$(awk -v a="$died" -v b="$end" 'BEGIN {printf "%.2f", b - a}')
        if awk -v t="$took" 'BEGIN {exit !(t > 10)}'; then
            why="the job took $took s to end after PE $victim died (limit 10 s)"
        fi
        if ! grep -Eq "(process rank $victim .*(signal 9|Killed)|PE $victim is unreachable|ushmem: .* to PE $victim failed)" "$out"; then
            why="${why:+$why; }no line names the dead PE $victim"
        fi
    fi
    # What the job left behind (leftovers.sh).
    pids=$(sed -n 's/^fault: PE [0-9]* pid \([0-9]*\) job .*/\1/p' "$out" | sort -u | tr '\n' ' ')
    job=$(sed -n 's/^fault: PE [0-9]* pid [0-9]* job \([0-9a-f]*\)$/\1/p' "$out" | head -1)
    leak=$(job_leftovers "$pids" "$job" "$shm_before" "${hp_before:-0}")
    grep -Eq "ushmem: peer failure detection \(PE [0-9]+ of $np\): PE $victim is unreachable" "$out" &&
        detected=$((detected + 1))
    [ -n "$leak" ] && why="${why:+$why; }left behind: $leak"
    if [ -n "$why" ]; then
        echo "----- run $((i + 1))/$loops (victim PE $victim): FAILED: $why; output: -----"
        cat "$out"
        fail=1
    else
        echo "run $((i + 1))/$loops: PE $victim killed, job ended after ${took} s (status $status), nothing left behind"
    fi
done
if [[ "${UCX_TLS-}" == tcp* ]] && [ "${USHMEM_PEER_FAILURE-1}" != 0 ]; then
    echo "fault.sh: ushmem's own peer-failure detection named the dead PE in $detected of $loops runs"
    [ "$detected" -gt 0 ] || fail=1
fi
[ "$fail" -eq 0 ] && echo "fault.sh: all $loops runs as expected"
exit "$fail"
