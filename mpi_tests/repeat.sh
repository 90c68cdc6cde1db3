#!/usr/bin/env bash
# repeat.sh COUNT COMMAND [ARGS...]: runs the command COUNT times in a row and fails at the first
# run that does not exit 0, showing that run's output.
set -u
count=${1:?usage: repeat.sh COUNT COMMAND [ARGS...]}
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 1; i <= count; i++)); do
    "$@" >"$out" 2>&1 </dev/null
    status=$?
    if [ "$status" -ne 0 ]; then
        cat "$out"
        echo "repeat.sh: run $i of $count exited with status $status: $*"
        exit 1
    fi
done
tail -n 3 "$out"
echo "repeat.sh: $count consecutive runs exited 0: $*"
