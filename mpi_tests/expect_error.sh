#!/usr/bin/env bash
# expect_error.sh: run a command that the library must diagnose, and check how it ended.
#
# Usage: expect_error.sh [--status nonzero|N] [--within S] [--not REGEX] REGEX -- COMMAND [ARGS...]
#
#   --status nonzero   (default) the command must exit with a non-zero status
#   --status N         the command must exit with status N (e.g. 0: a diagnosed but non-fatal
#                      condition, or the status passed to shmem_global_exit)
#   --within S         the command must end within S seconds (it is ended at S + 5) (a diagnosis that must come at once,
#                      not after a timeout: a hang shows as a late end, not only as ctest's kill)
#   --not REGEX        no line of the output may match this extended regular expression
#   REGEX              an extended regular expression (grep -E) that must match one line of the
#                      command's combined standard output and standard error
#
# The output of the command is always shown (ctest keeps it for --output-on-failure); on a
# mismatch the reason is printed last and the script exits 1.
set -u

want_status=nonzero
within=""
absent=""
while [ $# -gt 0 ]; do
    case "$1" in
    --status) want_status=${2:?--status needs an argument}; shift 2 ;;
    --within) within=${2:?--within needs an argument}; shift 2 ;;
    --not) absent=${2:?--not needs an argument}; shift 2 ;;
    *) break ;;
    esac
done
regex=${1:?usage: expect_error.sh [--status nonzero|N] [--within S] [--not REGEX] REGEX -- COMMAND [ARGS...]}
shift
if [ "${1-}" != "--" ]; then
    echo "expect_error.sh: expected -- before the command" >&2
    exit 2
fi
shift
[ $# -gt 0 ] || { echo "expect_error.sh: no command given" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s%N)
if [ -n "$within" ]; then
    # Ended 5 s after the limit, so that a hang fails here and says so rather than at ctest's kill.
    timeout "$((within + 5))" "$@" >"$out" 2>&1 </dev/null
else
    "$@" >"$out" 2>&1 </dev/null
fi
status=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))

echo "----- output of: $* -----"
cat "$out"
echo "----- exit status: $status, after ${elapsed_ms} ms -----"

fail=0
if [ "$want_status" = nonzero ]; then
    if [ "$status" -eq 0 ]; then
        echo "expect_error.sh: MISMATCH: the command exited 0; it should have failed (abort)"
        fail=1
    fi
elif [ "$status" -ne "$want_status" ]; then
    echo "expect_error.sh: MISMATCH: exit status $status, expected $want_status"
    fail=1
fi
if ! grep -Eq -- "$regex" "$out"; then
    echo "expect_error.sh: MISMATCH: no line of the output matches the regular expression"
    echo "    $regex"
    fail=1
fi
if [ -n "$absent" ] && grep -Eq -- "$absent" "$out"; then
    echo "expect_error.sh: MISMATCH: a line of the output matches what must not appear"
    echo "    $absent"
    fail=1
fi
if [ -n "$within" ] && [ "$elapsed_ms" -gt "$((within * 1000))" ]; then
    echo "expect_error.sh: MISMATCH: the command took ${elapsed_ms} ms, more than ${within} s"
    fail=1
fi
if [ "$fail" -eq 0 ]; then
    echo "expect_error.sh: as expected (status $status, message matched)"
fi
exit "$fail"
