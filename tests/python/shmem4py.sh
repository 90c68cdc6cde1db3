#!/usr/bin/env bash
# shmem4py on ushmem, the steps of docs/python.md run as a test.
#
#   tests/python/shmem4py.sh BUILD_DIR SHMEM4PY_SOURCE [NP...]
#
# Installs BUILD_DIR into a temporary prefix, copies the shmem4py source tree SHMEM4PY_SOURCE (a
# local checkout: nothing is downloaded) next to it, builds its extension with
# OSHCC=<prefix>/bin/ushmemcc and CFLAGS="-include ushmem/shmem4py.h" using /usr/bin/python3
# (python3 on PATH when that is absent), then runs its unittest suite under mpirun at each NP
# (default 1 2 4): every PE must report OK. Registered as the ctest `shmem4py` only when the
# CMake cache variable USHMEM_SHMEM4PY_SOURCE names a checkout (mpi_tests/clients.cmake).
#
# Environment: CMAKE_COMMAND (cmake), USHMEM_MPIEXEC (mpirun).
set -uo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR SHMEM4PY_SOURCE [NP...]" >&2
    exit 2
fi
build=$(cd "$1" && pwd) || exit 2
s4p=$(cd "$2" && pwd) || exit 2
shift 2
nps=("$@")
[ ${#nps[@]} -gt 0 ] || nps=(1 2 4)
cmake=${CMAKE_COMMAND:-cmake}
mpiexec=${USHMEM_MPIEXEC:-mpirun}
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || { echo "SKIPPED: no python3"; exit 77; }
if ! "$python" -c "import cffi, numpy" 2> /dev/null; then
    echo "SKIPPED: $python lacks cffi or numpy (apt-get install python3-cffi python3-numpy)"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ushmem-shmem4py.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 || {
    cat "$work/install.log"
    echo "FAIL: cmake --install"
    exit 1
}
cp -r "$s4p" "$work/shmem4py"
rm -rf "$work/shmem4py/build" "$work/shmem4py/.git"
cd "$work/shmem4py" || exit 1
if ! OSHCC=$prefix/bin/ushmemcc CFLAGS="-include ushmem/shmem4py.h" \
    "$python" setup.py build_ext --inplace > "$work/build.log" 2>&1; then
    tail -n 60 "$work/build.log"
    echo "FAIL: shmem4py build"
    exit 1
fi
echo "PASS: shmem4py built ($(grep -c ' error' "$work/build.log") errors)"
mpi_flags=()
if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    mpi_flags=(--allow-run-as-root --oversubscribe -x PYTHONPATH)
fi
status=0
for np in "${nps[@]}"; do
    PYTHONPATH=$work/shmem4py/src timeout 600 "$mpiexec" "${mpi_flags[@]}" -np "$np" \
        "$python" -m unittest discover -s test -p 'test_*.py' > "$work/run-$np.log" 2>&1
    rc=$?
    ok=$(grep -c '^OK' "$work/run-$np.log")
    ran=$(grep -m 1 '^Ran ' "$work/run-$np.log")
    if [ "$rc" -eq 0 ] && [ "$ok" -eq "$np" ]; then
        echo "PASS: shmem4py tests at $np PEs: $ran, OK on every PE"
    else
        echo "FAIL: shmem4py tests at $np PEs (exit $rc, $ok of $np PEs OK)"
        tail -n 60 "$work/run-$np.log"
        status=1
    fi
done
exit $status
