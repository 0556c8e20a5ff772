#!/usr/bin/env bash
# make check-install: 'make install' into a temporary DESTDIR, then, using only what was installed:
#  1. compile examples/tutorials/ex1.c (as installed under share/pgx) with `pkg-config --cflags --libs pgx` and
#     check its iteration count (the same as the build tree's tutorial: 23 on the default 20^3 problem);
#  2. load the installed library with -dll_append in an unmodified PETSc tutorial and check the PC ran;
#  3. check the soname links and that the private headers were not installed;
#  4. 'make uninstall' leaves the prefix empty.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
tmp=$(mktemp -d /tmp/pgx-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=/opt/pgx-test dest=$tmp/dest inst=$tmp/dest/opt/pgx-test
fail() { echo "check-install: FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

make --no-print-directory -s install PREFIX=$prefix DESTDIR=$dest >/dev/null
[ -f $inst/lib/pkgconfig/pgx.pc ] || fail "no lib/pkgconfig/pgx.pc"
ver=$(sed -n 's/^Version: //p' $inst/lib/pkgconfig/pgx.pc)
soname=$(readlink $inst/lib/libpgx.so)
[ "$(readlink $inst/lib/$soname)" = "libpgx.so.$ver" ] || fail "lib/$soname does not point to libpgx.so.$ver"
objdump -p $inst/lib/libpgx.so.$ver | grep -q "SONAME *$soname" || fail "the library's SONAME is not $soname"
[ ! -e $inst/include/pgx/private ] || fail "private headers were installed"
[ -f $inst/include/pgx.h ] && [ -f $inst/include/pgx/pgxversion.h ] || fail "public headers missing"
grep -q "^petsc_dir=" $inst/lib/pkgconfig/pgx.pc || fail "pgx.pc does not name the PETSc it was built against"
echo "installed PGX $ver ($soname) with DESTDIR: $(find $inst -type f | wc -l) files"

# 1. the tutorial against the installed tree only (the pkg-config prefix moved to where DESTDIR put it)
flags=$(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --define-variable=prefix=$inst --cflags --libs pgx)
case "$flags" in *"$ROOT"*) fail "pkg-config flags point into the build tree: $flags" ;; esac
mpicc -o $tmp/ex1 $inst/share/pgx/tutorials/ex1.c $flags
ldd $tmp/ex1 | grep -q "libpgx.so.* => $inst/lib/" || fail "ex1 does not load the installed libpgx: $(ldd $tmp/ex1 | grep pgx)"
out=$($tmp/ex1 -pgx_device host 2>&1) || fail "ex1 failed: $out"
echo "$out" | grep -q "converged in 23 iterations" || fail "ex1 against the installed tree: $out"
echo "ex1 built with pkg-config against the installed tree: $(echo "$out" | grep -o 'converged in [0-9]* iterations')"

# 2. -dll_append of the installed library in an unmodified PETSc tutorial
out=$(build/petsc-tutorials/ksp_ksp_ex2 -dll_append $inst/lib/libpgx.so -pc_type dilu -pgx_device host -ksp_view 2>&1) || fail "ex2 -dll_append failed: $out"
echo "$out" | grep -q "type: dilu" || fail "ex2 -dll_append of the installed library did not run PCDILU: $out"
echo "-dll_append $prefix/lib/libpgx.so (installed) runs PCDILU in PETSc's ksp ex2"

# 4. uninstall
make --no-print-directory -s uninstall PREFIX=$prefix DESTDIR=$dest >/dev/null
left=$(find $dest -mindepth 1 -not -path "$dest/opt" -not -path "$inst" | head)
[ -z "$left" ] || fail "uninstall left: $left"
echo "uninstall left the prefix empty"
echo "check-install: all checks passed"
