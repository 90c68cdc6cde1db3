#!/usr/bin/env bash
# expect_error.sh: run a command that the library must diagnose, and check how it ended.
#
# Usage: expect_error.sh [--status nonzero|N] REGEX -- COMMAND [ARGS...]
#
#   --status nonzero   (default) the command must exit with a non-zero status
#   --status N         the command must exit with status N (e.g. 0: a diagnosed but non-fatal
#                      condition, or the status passed to shmem_global_exit)
#   REGEX              an extended regular expression (grep -E) that must match one line of the
#                      command's combined standard output and standard error
#
# The output of the command is always shown (ctest keeps it for --output-on-failure); on a
# mismatch the reason is printed last and the script exits 1.
set -u

want_status=nonzero
if [ "${1-}" = "--status" ]; then
    want_status=${2:?--status needs an argument}
    shift 2
fi
regex=${1:?usage: expect_error.sh [--status nonzero|N] REGEX -- COMMAND [ARGS...]}
shift
if [ "${1-}" != "--" ]; then
    echo "expect_error.sh: expected -- before the command" >&2
    exit 2
fi
shift
[ $# -gt 0 ] || { echo "expect_error.sh: no command given" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1 </dev/null
status=$?

echo "----- output of: $* -----"
cat "$out"
echo "----- exit status: $status -----"

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
if [ "$fail" -eq 0 ]; then
    echo "expect_error.sh: as expected (status $status, message matched)"
fi
exit "$fail"
