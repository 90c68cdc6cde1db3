#!/usr/bin/env bash
# ushmem install test.
#
#   tests/install/run.sh BUILD_DIR [CONFIG]
#
# Installs the (already built) build tree BUILD_DIR into a temporary prefix P with
# `cmake --install BUILD_DIR --prefix P`, checks the installed layout, then builds small programs
# from outside the source tree against P only, and runs each on 2 PEs:
#   (a) hello.c   with P/bin/ushmemcc (also calling MPI, through the wrapper's MPI flags)
#   (b) hello.c   with `cc $(pkg-config --cflags --libs ushmem)`, PKG_CONFIG_PATH=<libdir>/pkgconfig
#   (c) hello.c and hello.cpp with a CMake project using find_package(ushmem), CMAKE_PREFIX_PATH=P
#   (d) hello.cpp with P/bin/ushmemcxx (also calling MPI)
#   (e) P/bin/ushmem-info alone, under mpirun, and --json (checked with python3 -m json.tool)
#   (f) the drop-in names from P/libexec/ushmem/osh first on PATH: hello.c with oshcc, hello.cpp
#       with oshc++ / oshCC / oshcxx, both run with oshrun; none of them in P/bin
# Registered as the ctest `install` (label `install`) by cmake/install_test.cmake.
#
# Environment: CMAKE_COMMAND (cmake), USHMEM_MPIEXEC (mpirun), CC (cc), CXX (c++),
# USHMEM_INSTALL_TEST_KEEP=1 keeps the temporary directory.
set -uo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [CONFIG]" >&2
    exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_include=$(cd "$here/../../include" && pwd)
build=$(cd "$1" && pwd) || exit 2
config=${2:-}
cmake=${CMAKE_COMMAND:-cmake}
mpiexec=${USHMEM_MPIEXEC:-mpirun}
cc=${CC:-cc}
cxx=${CXX:-c++}

work=$(mktemp -d "${TMPDIR:-/tmp}/ushmem-install-test.XXXXXX")
if [ "${USHMEM_INSTALL_TEST_KEEP:-0}" = 1 ]; then
    echo "keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix

passed=0
failed=0
pass() {
    echo "PASS: $1"
    passed=$((passed + 1))
}
fail() {
    echo "FAIL: $1"
    failed=$((failed + 1))
}
show_log() {
    echo "---- $1 (last 40 lines) ----"
    tail -n 40 "$1"
    echo "----"
}
# step NAME LOG COMMAND...: run COMMAND with its output in LOG, record the result.
step() {
    local name=$1 log=$2
    shift 2
    if "$@" > "$log" 2>&1; then
        pass "$name"
        return 0
    fi
    fail "$name"
    show_log "$log"
    return 1
}
finish() {
    echo "install test: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

mpi_flags=()
pass_ld_library_path=()
if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    mpi_flags=(--allow-run-as-root --oversubscribe)
    pass_ld_library_path=(-x LD_LIBRARY_PATH)
fi
# run_pes NAME PROGRAM_TAG EXE [mpirun options...]: run EXE on 2 PEs; it must exit 0 and each PE
# must print "PROGRAM_TAG: PE <n> of 2: OK".
run_pes() {
    local name=$1 tag=$2 exe=$3
    shift 3
    local log=$work/run-$name.log
    timeout 60 "$mpiexec" "${mpi_flags[@]}" -np 2 "$@" "$exe" > "$log" 2>&1
    local rc=$?
    local good
    good=$(grep -c "^$tag: PE [01] of 2: OK" "$log")
    if [ "$rc" -eq 0 ] && [ "$good" -eq 2 ]; then
        pass "run $name"
    else
        fail "run $name (exit $rc, $good of 2 PEs OK)"
        show_log "$log"
    fi
}

# ---- install -------------------------------------------------------------------------------
install_cmd=("$cmake" --install "$build" --prefix "$prefix")
if [ -n "$config" ]; then
    install_cmd+=(--config "$config")
fi
step "cmake --install" "$work/install.log" "${install_cmd[@]}" || finish

version=$(sed -n 's/^set(USHMEM_VERSION \[=\[\(.*\)\]=\])$/\1/p' "$build/ushmem-install/install-vars.cmake")
echo "ushmem version $version, prefix $prefix"

# ---- layout --------------------------------------------------------------------------------
libdir=
for d in "$prefix/lib" "$prefix/lib64" "$prefix"/lib/*-linux-gnu*; do
    if [ -e "$d/libushmem.so" ]; then
        libdir=$d
        break
    fi
done
if [ -z "$libdir" ]; then
    fail "libushmem.so installed"
    find "$prefix" | sort
    finish
fi
pass "libushmem.so installed in ${libdir#"$prefix"/}"

soname=$(readelf -d "$libdir/libushmem.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ -n "$soname" ] && [ -L "$libdir/libushmem.so" ] && [ -e "$libdir/$soname" ] &&
    [ -f "$libdir/libushmem.so.$version" ] && [ ! -L "$libdir/libushmem.so.$version" ]; then
    pass "SONAME $soname, libushmem.so.$version with links"
else
    fail "SONAME (got '$soname') and versioned file libushmem.so.$version"
    ls -l "$libdir"
fi

runpath=$(readelf -d "$libdir/libushmem.so.$version" 2>/dev/null | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\].*/\1/p')
if [[ "$runpath" == *"$build"* ]]; then
    fail "installed library has no build-tree run path (RUNPATH=$runpath)"
else
    pass "installed library has no build-tree run path${runpath:+ (RUNPATH=$runpath)}"
fi

# shmem.h, shmemx.h, pshmem.h in the private include/ushmem/openshmem (no collision with another
# OpenSHMEM in the same prefix), the rest (ushmem/...) in include/ (cmake/install.cmake).
shmem_inc=$prefix/include/ushmem/openshmem
missing=0
while IFS= read -r f; do
    case $(basename "$f") in CMakeLists.txt | *.in | .* | README.md) continue ;; esac  # (the folders' maps stay in the source)
    case $f in */*) dest=$prefix/include/$f ;; *) dest=$shmem_inc/$f ;; esac
    if ! cmp -s "$source_include/$f" "$dest"; then
        echo "  not installed (or different): $dest"
        missing=1
    fi
done < <(cd "$source_include" && find . -type f | sed 's|^\./||')
maps=$(find "$prefix/include" -name README.md)
if [ -n "$maps" ]; then
    echo "  installed although it is the source tree's map: ${maps%%$'\n'*}"
    missing=1
fi
if [ "$missing" -eq 0 ] && [ -f "$shmem_inc/shmem.h" ] && [ -f "$shmem_inc/shmemx.h" ] &&
    [ ! -e "$prefix/include/shmem.h" ]; then
    pass "headers: include/ tree installed, shmem.h in include/ushmem/openshmem only"
else
    fail "headers: include/ tree installed, shmem.h in include/ushmem/openshmem only"
fi

for f in "$prefix/bin/ushmemcc" "$prefix/bin/ushmemcxx" "$libdir/pkgconfig/ushmem.pc" \
    "$libdir/cmake/ushmem/ushmemConfig.cmake" "$libdir/cmake/ushmem/ushmemConfigVersion.cmake" \
    "$libdir/cmake/ushmem/ushmemTargets.cmake" "$prefix/bin/ushmem-info" "$shmem_inc/pshmem.h" \
    "$prefix/share/doc/ushmem/copyright"; do
    if [ -e "$f" ]; then pass "installed ${f#"$prefix"/}"; else fail "installed ${f#"$prefix"/}"; fi
done

# The public headers stand alone: no MPI, UCX or hwloc headers needed.
printf '#include <shmem.h>\n#include <shmemx.h>\nint main(void) { return 0; }\n' > "$work/headers.c"
step "headers compile as C with only the two -I" "$work/headers-c.log" \
    "$cc" -fsyntax-only -I"$shmem_inc" -I"$prefix/include" "$work/headers.c"
step "headers compile as C++ with only the two -I" "$work/headers-cxx.log" \
    "$cxx" -fsyntax-only -x c++ -I"$shmem_inc" -I"$prefix/include" "$work/headers.c"

# ---- (a) ushmemcc --------------------------------------------------------------------------
ushmemcc=$prefix/bin/ushmemcc
ushmemcxx=$prefix/bin/ushmemcxx
show=$("$ushmemcc" --showme hello.c 2>&1)
echo "ushmemcc --showme hello.c: $show"
if [[ "$show" == *"-I$shmem_inc -I$prefix/include "* && "$show" == *"-L$libdir"* && "$show" == *"-lushmem"* &&
    "$show" == *"-Wl,-rpath,$libdir"* && "$show" == *"hello.c"* ]]; then
    pass "ushmemcc --showme"
else
    fail "ushmemcc --showme"
fi
show=$("$ushmemcc" -show -c hello.c 2>&1)
if [[ "$show" == *"-I$prefix/include"* && "$show" != *"-lushmem"* ]]; then
    pass "ushmemcc -show -c: compile only, no link flags"
else
    fail "ushmemcc -show -c: compile only, no link flags ($show)"
fi
show=$(USHMEMCC_CC="echo cc-override" "$ushmemcc" 'an arg' other.c 2>&1)
if [[ "$show" == "cc-override -I$shmem_inc -I$prefix/include"*"an arg other.c"*"-lushmem"* ]]; then
    pass "USHMEMCC_CC overrides the compiler, arguments pass through"
else
    fail "USHMEMCC_CC overrides the compiler, arguments pass through ($show)"
fi
show=$(USHMEMCXX_CXX="echo cxx-override" "$ushmemcxx" x.cpp 2>&1)
if [[ "$show" == "cxx-override "*"x.cpp"*"-lushmem"* ]]; then
    pass "USHMEMCXX_CXX overrides the compiler"
else
    fail "USHMEMCXX_CXX overrides the compiler ($show)"
fi

if step "build (a) ushmemcc hello.c (with MPI calls)" "$work/build-a.log" \
    "$ushmemcc" -DUSHMEM_HELLO_MPI -o "$work/hello_ushmemcc" "$here/hello.c"; then
    run_pes "(a) ushmemcc" hello.c "$work/hello_ushmemcc"
fi

# ---- (b) pkg-config ------------------------------------------------------------------------
export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pc_version=$(pkg-config --modversion ushmem 2>&1)
if [ "$pc_version" = "$version" ]; then
    pass "pkg-config --modversion ushmem = $version"
else
    fail "pkg-config --modversion ushmem = $version (got '$pc_version')"
fi
pc_cflags=$(pkg-config --cflags ushmem 2>&1)
pc_libs=$(pkg-config --libs ushmem 2>&1)
echo "pkg-config --cflags --libs ushmem: $pc_cflags $pc_libs"
if [ "$(echo "$pc_cflags" | sed 's/[[:space:]]*$//')" = "-I$shmem_inc -I$prefix/include" ]; then
    pass "pkg-config --cflags is just -I<prefix>/include/ushmem/openshmem -I<prefix>/include"
else
    fail "pkg-config --cflags is just -I<prefix>/include/ushmem/openshmem -I<prefix>/include (got '$pc_cflags')"
fi
# shellcheck disable=SC2086 # word splitting of pkg-config output is intended
if step "build (b) cc \$(pkg-config --cflags --libs ushmem) hello.c" "$work/build-b.log" \
    "$cc" $pc_cflags -o "$work/hello_pkgconfig" "$here/hello.c" $pc_libs; then
    # pkg-config gives no run path, as usual: the loader finds libushmem via LD_LIBRARY_PATH.
    LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        run_pes "(b) pkg-config" hello.c "$work/hello_pkgconfig" "${pass_ld_library_path[@]}"
fi

# ---- (c) CMake find_package(ushmem) ---------------------------------------------------------
consumer=$work/consumer
if step "configure (c) find_package(ushmem)" "$work/configure-c.log" \
    env -u CMAKE_PREFIX_PATH "$cmake" -S "$here/consumer" -B "$consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" -DUSHMEM_EXPECTED_VERSION="$version" \
    -DCMAKE_BUILD_TYPE=Release; then
    if grep -q "ushmem $version from $libdir/cmake/ushmem" "$work/configure-c.log"; then
        pass "find_package(ushmem) found the test installation"
    else
        fail "find_package(ushmem) found the test installation"
        show_log "$work/configure-c.log"
    fi
    if step "build (c) CMake project" "$work/build-c.log" \
        "$cmake" --build "$consumer" -j 2; then
        run_pes "(c) CMake hello_c" hello.c "$consumer/hello_c"
        run_pes "(c) CMake hello_cpp" hello.cpp "$consumer/hello_cpp"
    fi
fi

# ---- (d) ushmemcxx -------------------------------------------------------------------------
if step "build (d) ushmemcxx hello.cpp (with MPI calls)" "$work/build-d.log" \
    "$ushmemcxx" -DUSHMEM_HELLO_MPI -o "$work/hello_ushmemcxx" "$here/hello.cpp"; then
    run_pes "(d) ushmemcxx" hello.cpp "$work/hello_ushmemcxx"
fi
# The C++ API with the wrapper's default language level (gnu++20) and no flags of our own.
if step "build (d) ushmemcxx hello_modern.cpp (<ushmem/ushmem.hpp>)" "$work/build-d2.log" \
    "$ushmemcxx" -o "$work/hello_modern" "$here/hello_modern.cpp"; then
    run_pes "(d) ushmemcxx modern" hello_modern.cpp "$work/hello_modern"
fi
# C++ that relies on the compiler's GNU dialect, which the wrapper's default must keep: C99's
# creal/cimag from <complex.h>, as tests-sos's C++ reduction tests use them on the complex
# reductions' results (g++ declares them only in gnu++ modes, not under -std=c++20).
cat > "$work/gnu_dialect.cpp" <<'CXX'
#include <shmem.h>
#include <complex.h>
double both_parts(double _Complex z) { return creal(z) + cimag(z); }
void reduce(double _Complex *dest, const double _Complex *src) {
    shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, dest, src, 1);
}
CXX
step "ushmemcxx keeps the GNU dialect (<complex.h> creal in C++)" "$work/build-d3.log" \
    "$ushmemcxx" -c -o "$work/gnu_dialect.o" "$work/gnu_dialect.cpp"

# ---- (e) ushmem-info from the prefix: alone, under mpirun, and --json for tools -------------
info=$prefix/bin/ushmem-info
if step "ushmem-info alone (MPI singleton)" "$work/info-1.log" timeout 60 "$info"; then
    if grep -q "^settings:" "$work/info-1.log" && grep -q "SHMEM_SYMMETRIC_SIZE" "$work/info-1.log" &&
        grep -q "^PE 0 of 1" "$work/info-1.log"; then
        pass "ushmem-info prints the settings and PE 0 of 1"
    else
        fail "ushmem-info prints the settings and PE 0 of 1"
        show_log "$work/info-1.log"
    fi
fi
if step "ushmem-info under mpirun -np 2" "$work/info-2.log" \
    timeout 60 "$mpiexec" "${mpi_flags[@]}" -np 2 "$info"; then
    if grep -q "^PE 1 of 2" "$work/info-2.log" && grep -q "peer  node" "$work/info-2.log"; then
        pass "ushmem-info reports both PEs and their peers"
    else
        fail "ushmem-info reports both PEs and their peers"
        show_log "$work/info-2.log"
    fi
fi
if timeout 60 "$mpiexec" "${mpi_flags[@]}" -np 2 "$info" --json > "$work/info.json" 2> "$work/info-json.err" &&
    python3 -m json.tool "$work/info.json" > "$work/info-pretty.json" 2>> "$work/info-json.err" &&
    grep -q '"npes": 2' "$work/info-pretty.json"; then
    pass "ushmem-info --json at 2 PEs parses (python3 -m json.tool)"
else
    fail "ushmem-info --json at 2 PEs parses (python3 -m json.tool)"
    show_log "$work/info-json.err"
    head -c 2000 "$work/info.json"
fi

# ---- (f) drop-in names: oshcc, oshc++, oshCC, oshcxx, oshrun ----------------------------------
osh=$prefix/libexec/ushmem/osh
for name in oshcc oshc++ oshCC oshcxx oshrun; do
    if [ -x "$osh/$name" ]; then pass "installed libexec/ushmem/osh/$name"; else fail "installed libexec/ushmem/osh/$name"; fi
    # Never next to ushmemcc: a ushmem in /usr would shadow (or replace) Open MPI's own names.
    if [ -e "$prefix/bin/$name" ]; then fail "$name is not in bin/"; fi
done
extra=$(find "$osh" -mindepth 1 ! -name 'osh*' 2>/dev/null)
if [ -z "$extra" ]; then
    pass "libexec/ushmem/osh holds only osh* names (no mpirun, mpicc, cc to shadow)"
else
    fail "libexec/ushmem/osh holds only osh* names (found: $extra)"
fi
(
    export PATH="$osh:$PATH"
    if [ "$(command -v oshcc)" = "$osh/oshcc" ] && [ "$(command -v oshrun)" = "$osh/oshrun" ]; then
        echo "PASS: oshcc and oshrun found first on PATH"
    else
        echo "FAIL: oshcc and oshrun found first on PATH ($(command -v oshcc), $(command -v oshrun))"
    fi
    if oshcc -o "$work/hello_oshcc" "$here/hello.c" > "$work/build-f.log" 2>&1; then
        echo "PASS: build (f) oshcc hello.c"
        timeout 60 oshrun "${mpi_flags[@]}" -np 2 "$work/hello_oshcc" > "$work/run-f.log" 2>&1
        rc=$?
        good=$(grep -c "^hello.c: PE [01] of 2: OK" "$work/run-f.log")
        if [ "$rc" -eq 0 ] && [ "$good" -eq 2 ]; then
            echo "PASS: run (f) oshrun -np 2 hello_oshcc"
        else
            echo "FAIL: run (f) oshrun -np 2 hello_oshcc (exit $rc, $good of 2 PEs OK)"
            tail -n 40 "$work/run-f.log"
        fi
    else
        echo "FAIL: build (f) oshcc hello.c"
        tail -n 40 "$work/build-f.log"
    fi
    for cxx in oshc++ oshCC oshcxx; do
        if "$cxx" -o "$work/hello_$cxx" "$here/hello.cpp" > "$work/build-f-$cxx.log" 2>&1; then
            echo "PASS: build (f) $cxx hello.cpp"
        else
            echo "FAIL: build (f) $cxx hello.cpp"
            tail -n 40 "$work/build-f-$cxx.log"
        fi
    done
    if [ -x "$work/hello_oshCC" ]; then
        timeout 60 oshrun "${mpi_flags[@]}" -np 2 "$work/hello_oshCC" > "$work/run-f2.log" 2>&1
        rc=$?
        good=$(grep -c "^hello.cpp: PE [01] of 2: OK" "$work/run-f2.log")
        if [ "$rc" -eq 0 ] && [ "$good" -eq 2 ]; then
            echo "PASS: run (f) oshrun -np 2 hello_oshCC"
        else
            echo "FAIL: run (f) oshrun -np 2 hello_oshCC (exit $rc, $good of 2 PEs OK)"
            tail -n 40 "$work/run-f2.log"
        fi
    fi
    # The settings reach PEs on other nodes: Open MPI gets -x for each SHMEM_/USHMEM_/UCX_ one.
    show=$(SHMEM_SYMMETRIC_SIZE=16M USHMEM_STATS=0 oshrun --showme -np 2 ./prog 2>&1)
    if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
        if [[ "$show" == *"-x SHMEM_SYMMETRIC_SIZE"* && "$show" == *"-x USHMEM_STATS"* &&
            "$show" == *"-np 2 ./prog" && "$show" != *"-x PATH"* ]]; then
            echo "PASS: oshrun --showme forwards the SHMEM settings ($show)"
        else
            echo "FAIL: oshrun --showme forwards the SHMEM settings ($show)"
        fi
    elif [[ "$show" == *"-np 2 ./prog" ]]; then
        echo "PASS: oshrun --showme ($show)"
    else
        echo "FAIL: oshrun --showme ($show)"
    fi
    show=$(oshcc --showme:version 2>&1)
    if [[ "$show" == *"(ushmem) $version"* ]]; then
        echo "PASS: oshcc --showme:version is ushmem's ($show)"
    else
        echo "FAIL: oshcc --showme:version is ushmem's ($show)"
    fi
) > "$work/osh.log" 2>&1
cat "$work/osh.log"
passed=$((passed + $(grep -c '^PASS:' "$work/osh.log")))
failed=$((failed + $(grep -c '^FAIL:' "$work/osh.log")))

finish
