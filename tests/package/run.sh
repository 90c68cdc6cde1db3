#!/usr/bin/env bash
# ushmem package test.
#
#   tests/package/run.sh BUILD_DIR
#
# Builds the Debian package of the (already built) tree BUILD_DIR with `cpack -G DEB` into a
# temporary directory, checks its metadata and contents, extracts it with `dpkg-deb -x` into a
# scratch root R (nothing is installed on the machine), and builds and runs programs copied out of
# the source tree against R only:
#   (a) hello.c with R/usr/bin/ushmemcc (USHMEM_PREFIX=R/usr: the tree was moved from /usr)
#   (b) hello.c with `pkg-config --define-variable=prefix=R/usr` on R/usr/lib/<multiarch>/pkgconfig
#   (c) hello.c / hello.cpp with find_package(ushmem), CMAKE_PREFIX_PATH=R/usr
#   (d) hello.c with R/usr/libexec/ushmem/osh/oshcc, run with oshrun
#   (e) R/usr/bin/ushmem-info
# and checks that each program's libushmem and <shmem.h> come from R. The layout: the library in
# the multiarch directory, /usr/share/doc/ushmem/copyright, shmem.h not in /usr/include itself (it
# would collide with another OpenSHMEM package), and ushmemcc as installed (prefix /usr) adding no
# -I/usr/include, -L/usr/lib... or run path to a system directory. (The package is not installed
# on the machine, so the unmoved /usr wrapper is checked through --showme; (a) compiles and runs
# with the same wrapper moved.) Then makes the source
# tarball with `cpack --config CPackSourceConfig.cmake` and checks that it holds the sources and no
# build tree. Registered as the ctest `package` (label `package`) by cmake/package.cmake.
#
# Environment: CMAKE_COMMAND (cmake), CPACK_COMMAND (cpack), USHMEM_MPIEXEC (mpirun).
set -uo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd) || exit 2
cmake=${CMAKE_COMMAND:-cmake}
cpack=${CPACK_COMMAND:-cpack}
mpiexec=${USHMEM_MPIEXEC:-mpirun}
for tool in dpkg-deb "$cpack"; do
    if ! command -v "$tool" > /dev/null 2>&1; then
        echo "SKIPPED: $tool not found"
        exit 77
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ushmem-package-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
usr=$root/usr

passed=0
failed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }
show_log() { echo "---- $1 (last 40 lines) ----"; tail -n 40 "$1"; echo "----"; }
step() {
    local name=$1 log=$2
    shift 2
    if "$@" > "$log" 2>&1; then pass "$name"; return 0; fi
    fail "$name"
    show_log "$log"
    return 1
}
finish() {
    echo "package test: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

mpi_flags=()
if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    mpi_flags=(--allow-run-as-root --oversubscribe)
fi
run_pes() {  # run_pes NAME TAG EXE: 2 PEs, exit 0, each prints "TAG: PE <n> of 2: OK"
    local name=$1 tag=$2 exe=$3 log=$work/run-$1.log
    timeout 60 "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" > "$log" 2>&1
    local rc=$? good
    good=$(grep -c "^$tag: PE [01] of 2: OK" "$log")
    if [ "$rc" -eq 0 ] && [ "$good" -eq 2 ]; then pass "run $name"; else
        fail "run $name (exit $rc, $good of 2 PEs OK)"
        show_log "$log"
    fi
}
from_root() {  # from_root NAME EXE: libushmem resolves inside the scratch root
    local lib
    lib=$(ldd "$2" 2>/dev/null | sed -n 's/.*libushmem\.so[^ ]* => \([^ ]*\).*/\1/p')
    if [[ "$lib" == "$usr/"* ]]; then pass "$1 loads libushmem from the package"; else
        fail "$1 loads libushmem from the package (got '$lib')"
    fi
}

# ---- the .deb ------------------------------------------------------------------------------
step "cpack -G DEB" "$work/cpack.log" \
    "$cpack" -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake" || finish
deb=$(ls "$work"/pkg/ushmem_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
    fail "a ushmem_*.deb was made"
    finish
fi
pass "made $(basename "$deb")"
info=$(dpkg-deb -I "$deb")
for want in "Package: ushmem" "libucx0" "libhwloc" "libopenmpi" "Recommends: openmpi-bin"; do
    if [[ "$info" == *"$want"* ]]; then pass "control has '$want'"; else fail "control has '$want'"; fi
done
step "dpkg-deb -x into a scratch root" "$work/extract.log" dpkg-deb -x "$deb" "$root" || finish
# The multiarch directory (lib/x86_64-linux-gnu) where Debian's packages put their libraries.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch 2>/dev/null)
lib=usr/lib/$multiarch
inc=usr/include/ushmem/openshmem
for f in $lib/libushmem.so $lib/libushmem.so.0 $inc/shmem.h $inc/shmemx.h $inc/pshmem.h \
    usr/include/ushmem/c/features.h usr/include/ushmem/shmem4py.h usr/include/ushmem/ushmem.hpp \
    usr/bin/ushmemcc usr/bin/ushmemcxx usr/bin/ushmem-info $lib/pkgconfig/ushmem.pc \
    $lib/cmake/ushmem/ushmemConfig.cmake usr/share/doc/ushmem/copyright usr/libexec/ushmem/osh/oshcc \
    usr/libexec/ushmem/osh/oshc++ usr/libexec/ushmem/osh/oshCC usr/libexec/ushmem/osh/oshrun \
    usr/share/man/man1/ushmemcc.1 usr/share/man/man1/ushmemcxx.1 usr/share/man/man1/ushmem-info.1 \
    usr/share/man/man1/ushmem-oshrun.1; do
    if [ -e "$root/$f" ]; then pass "package holds /$f"; else fail "package holds /$f"; fi
done
stray=$(cd "$root" && ls usr/lib/libushmem* usr/include/*.h 2>/dev/null)
if [ -z "$stray" ]; then pass "no library in /usr/lib itself, no header in /usr/include itself"; else
    fail "no library in /usr/lib itself, no header in /usr/include itself (found: $stray)"
fi
# ushmemcc as installed in /usr: the compiler and the loader search /usr/include and /usr/lib/...
# anyway; -I/usr/include breaks g++'s #include_next, a run path to a system directory is wrong.
show=$(env -u USHMEM_PREFIX "$usr/bin/ushmemcc" --showme hello.c 2>&1)
echo "ushmemcc (prefix /usr) --showme hello.c: $show"
bad=$(tr ' ' '\n' <<< "$show" | grep -xE -- "-I/usr/include|-L/usr/lib(/$multiarch)?|-Wl,-rpath,/usr/lib(/$multiarch)?")
if [ -z "$bad" ] && [[ "$show" == *" -I/usr/include/ushmem/openshmem "*"hello.c"*"-lushmem"* ]]; then
    pass "ushmemcc under /usr: -I/usr/include/ushmem/openshmem, no system -I/-L/run path"
else
    fail "ushmemcc under /usr: -I/usr/include/ushmem/openshmem, no system -I/-L/run path (bad: ${bad:-none})"
fi
if grep -q "ushmem" "$root/usr/share/doc/ushmem/copyright" &&
    { [ ! -f "$src/LICENSE" ] || grep -qF "$(head -n 1 "$src/LICENSE")" "$root/usr/share/doc/ushmem/copyright"; }; then
    pass "copyright file (with LICENSE's text when the sources have one)"
else
    fail "copyright file (with LICENSE's text when the sources have one)"
fi
# Open MPI's package owns /usr/bin/oshcc, oshrun and their man pages: ours must not collide.
clash=$(cd "$root" && ls usr/bin/osh* usr/share/man/man1/osh* 2>/dev/null)
if [ -z "$clash" ]; then pass "no file of Open MPI's names (usr/bin/osh*, man1/osh*)"; else
    fail "no file of Open MPI's names (found: $clash)"
fi
if grep -rq "$build\|$src" "$usr/bin/ushmemcc" "$root/$lib/pkgconfig/ushmem.pc" "$usr/libexec/ushmem/osh/oshcc"; then
    fail "wrappers and ushmem.pc name no build or source path"
else
    pass "wrappers and ushmem.pc name no build or source path"
fi
if grep -q "^prefix=/usr$" "$root/$lib/pkgconfig/ushmem.pc"; then pass "ushmem.pc has prefix=/usr"; else
    fail "ushmem.pc has prefix=/usr"
fi
if ! command -v man > /dev/null 2>&1; then
    echo "(man is not installed: the man pages are not rendered)"
elif man -l "$usr/share/man/man1/ushmem-oshrun.1" 2>&1 | grep -q "oshrun"; then
    pass "man page ushmem-oshrun.1 renders"
else
    fail "man page ushmem-oshrun.1 renders"
fi

# ---- programs outside the source tree, against the scratch root only -----------------------
cp "$src/tests/install/hello.c" "$src/tests/install/hello.cpp" "$work/"
mkdir -p "$work/consumer" && cp "$src/tests/install/consumer/CMakeLists.txt" "$work/consumer/"
export USHMEM_PREFIX=$usr

# (a) ushmemcc from the package
if step "build (a) ushmemcc hello.c" "$work/build-a.log" \
    "$usr/bin/ushmemcc" -o "$work/hello_a" "$work/hello.c"; then
    from_root "(a)" "$work/hello_a"
    hdr=$("$usr/bin/ushmemcc" -M "$work/hello.c" 2>/dev/null | tr ' \\' '\n\n' | grep '/shmem\.h$' | head -n 1)
    if [[ "$hdr" == "$root/$inc/shmem.h" ]]; then pass "(a) <shmem.h> from the package"; else
        fail "(a) <shmem.h> from the package (got '$hdr')"
    fi
    run_pes "(a) ushmemcc" hello.c "$work/hello_a"
fi

# (b) pkg-config, with the prefix taken from where ushmem.pc lies
# --define-prefix guesses the prefix as two levels above pkgconfig/, wrong under lib/<multiarch>.
pc_flags=$(PKG_CONFIG_PATH=$root/$lib/pkgconfig pkg-config --define-variable=prefix="$usr" --cflags --libs ushmem 2>&1)
# shellcheck disable=SC2086
if step "build (b) cc \$(pkg-config --define-variable=prefix=R/usr ...) hello.c" "$work/build-b.log" \
    cc -o "$work/hello_b" "$work/hello.c" $pc_flags -Wl,-rpath,"$root/$lib"; then
    from_root "(b)" "$work/hello_b"
    run_pes "(b) pkg-config" hello.c "$work/hello_b"
fi

# (c) find_package(ushmem) with CMAKE_PREFIX_PATH=R/usr
if step "configure (c) find_package(ushmem)" "$work/configure-c.log" \
    env -u CMAKE_PREFIX_PATH "$cmake" -S "$work/consumer" -B "$work/consumer-build" \
    -DCMAKE_PREFIX_PATH="$usr" -DCMAKE_BUILD_TYPE=Release -DCMAKE_BUILD_RPATH="$root/$lib"; then
    if grep -q "from $root/$lib/cmake/ushmem" "$work/configure-c.log"; then
        pass "(c) find_package(ushmem) found the package's files"
    else
        fail "(c) find_package(ushmem) found the package's files"
        show_log "$work/configure-c.log"
    fi
    if step "build (c) CMake project" "$work/build-c.log" "$cmake" --build "$work/consumer-build" -j 2; then
        from_root "(c)" "$work/consumer-build/hello_c"
        run_pes "(c) CMake hello_c" hello.c "$work/consumer-build/hello_c"
        run_pes "(c) CMake hello_cpp" hello.cpp "$work/consumer-build/hello_cpp"
    fi
fi

# (d) the drop-in names from the package
if step "build (d) oshcc hello.c" "$work/build-d.log" \
    "$usr/libexec/ushmem/osh/oshcc" -o "$work/hello_d" "$work/hello.c"; then
    from_root "(d)" "$work/hello_d"
    log=$work/run-d.log
    timeout 60 "$usr/libexec/ushmem/osh/oshrun" "${mpi_flags[@]}" -np 2 "$work/hello_d" > "$log" 2>&1
    rc=$?
    good=$(grep -c "^hello.c: PE [01] of 2: OK" "$log")
    if [ "$rc" -eq 0 ] && [ "$good" -eq 2 ]; then pass "run (d) oshrun"; else
        fail "run (d) oshrun (exit $rc, $good of 2 PEs OK)"
        show_log "$log"
    fi
fi

# (e) ushmem-info from the package (run path $ORIGIN/../lib)
from_root "(e) ushmem-info" "$usr/bin/ushmem-info"
if step "(e) ushmem-info from the package" "$work/info.log" timeout 60 "$usr/bin/ushmem-info"; then
    if grep -q "^PE 0 of 1" "$work/info.log"; then pass "(e) ushmem-info reports PE 0 of 1"; else
        fail "(e) ushmem-info reports PE 0 of 1"
        show_log "$work/info.log"
    fi
fi
unset USHMEM_PREFIX

# ---- source tarball ------------------------------------------------------------------------
if step "cpack source tarball" "$work/cpack-src.log" \
    "$cpack" -B "$work/src-pkg" --config "$build/CPackSourceConfig.cmake"; then
    tgz=$(ls "$work"/src-pkg/ushmem-*.tar.gz 2>/dev/null | head -n 1)
    if [ -n "$tgz" ]; then
        list=$(tar -tzf "$tgz")
        top=$(basename "$tgz" .tar.gz)
        missing=""
        for f in CMakeLists.txt README.md src/api/api.hpp include/shmem.h cmake/package.cmake \
            docs/man/ushmemcc.1 tests/package/run.sh ci/test.sh; do
            grep -qx "$top/$f" <<< "$list" || missing="$missing $f"
        done
        if [ -z "$missing" ]; then pass "source tarball holds the sources"; else
            fail "source tarball holds the sources (missing:$missing)"
        fi
        if grep -qE "^$top/(build[^/]*|\.git|_CPack_Packages)/" <<< "$list"; then
            fail "source tarball holds no build tree or .git"
            grep -E "^$top/(build[^/]*|\.git|_CPack_Packages)/" <<< "$list" | head
        else
            pass "source tarball holds no build tree or .git"
        fi
    else
        fail "a ushmem-*.tar.gz was made"
    fi
fi

finish
