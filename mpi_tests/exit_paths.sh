#!/usr/bin/env bash
# exit_paths.sh: run a job that ends in an unusual way (exit_paths.c) and check how it ended.
#
# Usage: exit_paths.sh [--status nonzero|N] [--within S] [--repeat K] [--not REGEX] REGEX -- COMMAND...
#
#   --status   the job's exit status: N, or any non-zero status (default 0)
#   --within   the job must end within S seconds (default 30); it is killed at S + 5
#   --repeat   run the job K times, each run checked alike (for endings that go wrong only
#              sometimes); the output of a run is shown when it fails, and of the last run
#   --not      an extended regular expression no line of the output may match
#   REGEX      an extended regular expression (grep -E) one line of the output must match
#
# and the job must leave nothing behind (leftovers.sh): the program prints
# "exit_paths: PE p pid P job J" on every PE, which names the processes and the job to look for.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/leftovers.sh"

want=0
within=30
repeat=1
absent=""
while [ $# -gt 0 ]; do
    case $1 in
    --status) want=$2; shift 2 ;;
    --within) within=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --not) absent=$2; shift 2 ;;
    *) break ;;
    esac
done
regex=${1:?usage: exit_paths.sh [--status nonzero|N] [--within S] REGEX -- COMMAND...}
shift
[ "${1-}" = "--" ] || { echo "exit_paths.sh: expected -- before the command" >&2; exit 2; }
shift
[ $# -gt 0 ] || { echo "exit_paths.sh: no command given" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
run_once() {
    shm_before=$(ls /dev/shm)
    start=$(date +%s.%N)
    timeout -s KILL $((within + 5)) "$@" >"$out" 2>&1 </dev/null
    status=$?
    took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    why=""
    if [ "$want" = nonzero ]; then
        [ "$status" -eq 0 ] && why="the job exited 0; it should have failed"
    elif [ "$status" -ne "$want" ]; then
        why="exit status $status, expected $want"
    fi
    awk -v t="$took" -v w="$within" 'BEGIN {exit !(t > w)}' &&
        why="${why:+$why; }the job took $took s to end (limit $within s)"
    grep -Eq -- "$regex" "$out" || why="${why:+$why; }no line of the output matches $regex"
    [ -n "$absent" ] && grep -Eq -- "$absent" "$out" &&
        why="${why:+$why; }a line of the output matches $absent"
    pids=$(sed -n 's/^exit_paths: PE [0-9]* pid \([0-9]*\) job .*/\1/p' "$out" | sort -u | tr '\n' ' ')
    job=$(sed -n 's/^exit_paths: PE [0-9]* pid [0-9]* job \([0-9a-f]*\)$/\1/p' "$out" | head -1)
    [ -n "$pids" ] || why="${why:+$why; }no PE printed its pid"
    leak=$(job_leftovers "$pids" "$job" "$shm_before")
    [ -n "$leak" ] && why="${why:+$why; }left behind: $leak"
    if [ -n "$why" ] || [ "$run" -eq "$repeat" ]; then
        echo "----- output of: $* (run $run of $repeat) -----"
        cat "$out"
        echo "----- exit status: $status after $took s -----"
    fi
    if [ -n "$why" ]; then
        echo "exit_paths.sh: MISMATCH in run $run of $repeat: $why"
        return 1
    fi
    echo "exit_paths.sh: run $run of $repeat as expected (status $status after $took s, message matched, nothing left behind)"
}
for ((run = 1; run <= repeat; ++run)); do
    run_once "$@" || exit 1
done
