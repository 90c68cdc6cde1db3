#!/usr/bin/env bash
# stats_check.sh NP MPIRUN-COMMAND...: runs mpi_tests/stats.c with USHMEM_STATS=1 and checks that
# every PE's finalize table reports exactly the operations the program made to its right
# neighbour (PE (me+1) % NP), and the number of quiet and collective calls.
set -uo pipefail
np=$1
shift
out=$(USHMEM_STATS=1 "$@" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
bad=0
expect() {  # expect REGEX: one line of the output matches
    if ! grep -Eq "$1" <<<"$out"; then
        echo "FAIL: no line matches: $1"
        bad=1
    fi
}
for ((pe = 0; pe < np; ++pe)); do
    r=$(((pe + 1) % np))
    expect "^\[PE $pe\] put +$r +15 +120\$"
    expect "^\[PE $pe\] put_nbi +$r +1 +16\$"
    expect "^\[PE $pe\] get +$r +3 +48\$"
    expect "^\[PE $pe\] amo_fetch +$r +4 +32\$"
    expect "^\[PE $pe\] amo +$r +2 +16\$"
    expect "^\[PE $pe\] total +all +25 +232\$"
    expect "^\[PE $pe\] time in quiet +[0-9.]+ s +2 calls\$"
    expect "^\[PE $pe\] time in collectives +[0-9.]+ s +1 calls\$"
    expect "^\[PE $pe\] per-PE tables [0-9]+ bytes committed, [0-9]+ reserved \([0-9]+ arrays\)\$"
done
[ "$bad" -eq 0 ] && echo "stats: OK"
exit $bad
