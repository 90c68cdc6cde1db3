#!/usr/bin/env bash
# fault_host.sh: kill a whole simulated host in the middle of a job, repeatedly, and check how
# the job ends. Runs inside a cluster of ci/cluster.sh (which sets CLUSTER_DIR):
#
#   ci/cluster.sh run -- fault_host.sh LOOPS HOST -- MPIRUN -np N ... fault PHASE none
#   (FAULT_LOOPS in the environment overrides LOOPS, as for fault.sh)
#
# In each run every PE of the job (fault.c with VICTIM "none") reaches the middle of PHASE and
# says so; then every process of host HOST (its orted and its PEs) gets SIGKILL at once
# (ci/cluster.sh kill-host: stopped first, as when a machine loses power; its network link stays,
# so the survivors' connections see the peers' sockets close). The run passes when:
#   - the job ends with a non-zero status within 10 s of the kill (the command runs under
#     `timeout 60`, so a hang is a failure, not a stalled test);
#   - a surviving PE printed ushmem's peer-failure message naming a PE of the dead host
#     ("ushmem: peer failure detection (PE s of N): PE v is unreachable"), in every run;
#   - nothing is left: no process in the hosts' namespaces, no System V segment in either host's
#     IPC namespace (the heaps), nothing from the surviving host. The dead host's own Open MPI
#     files (its orted's session directory in the host's TMPDIR, vader segments named after the
#     host in /dev/shm), which a killed daemon cannot remove, are listed, then removed as a reboot
#     of that host would; anything else is a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/leftovers.sh"  # command_np
cluster=$here/../ci/cluster.sh
loops=${FAULT_LOOPS:-${1:?usage: fault_host.sh LOOPS HOST -- COMMAND...}}
dead=${2:?usage: fault_host.sh LOOPS HOST -- COMMAND...}
shift 2
[ "${1-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "fault_host.sh: no command given" >&2; exit 2; }
[ -n "${CLUSTER_DIR-}" ] || { echo "fault_host.sh: run it on a simulated cluster: ci/cluster.sh run -- $0 ..." >&2; exit 2; }

np=$(command_np "$@")
[ "$np" -gt 0 ] || { echo "fault_host.sh: cannot find -np N in the command" >&2; exit 2; }
dead_uts=$(stat -L -c %i "$CLUSTER_DIR/h$dead.uts") || exit 2
dead_name=$(nsenter --uts="$CLUSTER_DIR/h$dead.uts" hostname) || exit 2

out=$(mktemp)
job=""
trap 'rm -f "$out"; [ -n "$job" ] && kill -KILL "$job" 2>/dev/null' EXIT
fail=0
for ((run = 1; run <= loops; ++run)); do
    why=""
    took=""
    started=$(date +%s.%N)
    timeout -s KILL 60 "$@" >"$out" 2>&1 </dev/null &
    job=$!
    # Every PE in the middle of the phase (or the job over, which is a failure).
    for ((w = 0; w < 600; ++w)); do
        [ "$(grep -c '^fault: PE [0-9]* running' "$out")" -ge "$np" ] && break
        kill -0 "$job" 2>/dev/null || break
        sleep 0.1  # polling the job's output for its progress lines
    done
    # The PEs of the host to kill, from their pids (fault.c prints them first).
    victims=" "
    survivors=" "
    while read -r pe pid; do
        if [ "$(stat -L -c %i "/proc/$pid/ns/uts" 2>/dev/null)" = "$dead_uts" ]; then victims+="$pe "
        else survivors+="$pe "; fi
    done < <(sed -n 's/^fault: PE \([0-9]*\) pid \([0-9]*\) job .*/\1 \2/p' "$out")
    if [ "$(grep -c '^fault: PE [0-9]* running' "$out")" -lt "$np" ]; then
        why="the PEs did not all reach the middle of the phase"
    elif [ "$victims" = " " ] || [ "$survivors" = " " ]; then
        why="the job does not span host $dead and another host (PEs on host $dead:$victims; elsewhere:$survivors)"
    else
        killed=$(date +%s.%N)
        ready=$(awk -v a="$started" -v b="$killed" 'BEGIN {printf "%.1f", b - a}')
        "$cluster" kill-host "$CLUSTER_DIR" "$dead" || why="kill-host failed"
        wait "$job"
        status=$?
        took=$(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
        if [ "$status" -eq 0 ] || [ "$status" -eq 3 ]; then
            why="the job exited $status: the death of host $dead was not noticed"
        elif [ "$status" -eq 137 ]; then
            why="still running 60 s after it started (killed by timeout)"
        elif awk -v t="$took" 'BEGIN {exit !(t > 10)}'; then
            why="the job took $took s to end after host $dead was killed (limit 10 s)"
        fi
        named=$(sed -n 's/^ushmem: peer failure detection (PE \([0-9]*\) of [0-9]*): PE \([0-9]*\) is unreachable.*/\1 \2/p' "$out" |
                while read -r s v; do
                    [[ "$survivors" == *" $s "* && "$victims" == *" $v "* ]] && echo "PE $s named PE $v"
                done | head -1)
        [ -n "$named" ] || why="${why:+$why; }no surviving PE (of$survivors) printed ushmem's peer-failure message naming a PE of host $dead (PEs$victims)"
    fi
    wait "$job" 2>/dev/null
    job=""
    # What the run left (ci/cluster.sh leftovers waits for the kernel to reap the processes).
    left=$("$cluster" leftovers "$CLUSTER_DIR")
    reboot=""
    if [ -n "$left" ]; then
        rest=""
        IFS=';' read -ra items <<<"$left"
        for item in "${items[@]}"; do
            item=${item# }
            if [[ "$item" =~ ^"host $dead: /dev/shm files "(vader_segment\.$dead_name\.[^ ]+ ?)+$ ||
                  "$item" =~ ^"host $dead: files in its TMPDIR "(ompi\.$dead_name\.[^ ]+ ?)+$ ]]; then
                reboot+="${reboot:+; }${item#host $dead: }"
            else
                rest+="${rest:+; }$item"
            fi
        done
        [ -n "$rest" ] && why="${why:+$why; }left behind: $rest"
        "$cluster" clean-host "$CLUSTER_DIR" "$dead"
        left=$("$cluster" leftovers "$CLUSTER_DIR")
        [ -n "$left" ] && why="${why:+$why; }still there after cleaning host $dead: $left"
    fi
    if [ -n "$why" ]; then
        echo "----- run $run/$loops (host $dead killed, PEs$victims): FAILED: $why; output: -----"
        cat "$out"
        fail=1
    else
        echo "run $run/$loops: host $dead (PEs$victims) killed ${ready} s after the start, job ended after $took s (status $status), $named;" \
             "left: ${reboot:-nothing}${reboot:+ (Open MPI files of the dead host, removed as its reboot would)}"
    fi
done
[ "$fail" -eq 0 ] && echo "fault_host.sh: all $loops runs as expected"
exit "$fail"
