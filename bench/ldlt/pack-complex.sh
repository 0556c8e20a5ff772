#!/usr/bin/env bash
# bench/ldlt/pack-complex.sh: the complex-scalar bench_ldlt for the GPU host, in build-complex/gpuhost/.
#
# Builds libpgx and bench_ldlt against Debian's complex PETSc exactly as 'make check-complex' does (same BUILD,
# build-complex/, so the objects are shared with it; host backends only: PGX's CUDA backends are real-only), then
# copies into build-complex/gpuhost/: bench_ldlt, lib/libpgx.so* (stripped) and runtime.tar.xz, the three libraries
# of the complex PETSc that the packed real runtime (.gpuhost/, ../shared/gpuhost/pack.sh) lacks:
# libpetsc_complex.so.3.18, libslepc_complex.so.3.18, libzmumps-5.5.so (everything else they need is in it).
# About 12 MB. Carry build-complex/gpuhost and .gpuhost; on the host:
#   source .gpuhost/env.sh && bench/ldlt/table.sh complex $OUT/ldlt-complex
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CXDIR=${PETSC_COMPLEX_DIR:-$(ls -d /usr/lib/petscdir/petsc3.*/x86_64-linux-gnu-complex 2>/dev/null | head -1)}
[ -n "$CXDIR" ] || { echo "pack-complex: no complex PETSc (Debian: apt-get install libpetsc-complex3.18-dev)" >&2; exit 1; }
make --no-print-directory -j"${JOBS:-2}" PETSC_DIR="$CXDIR" PETSC_ARCH= BUILD=build-complex LIBDIR=build-complex/lib \
  lib build-complex/bench/ldlt/bench_ldlt
OUT=build-complex/gpuhost
rm -rf "$OUT"; mkdir -p "$OUT/lib"
cp build-complex/bench/ldlt/bench_ldlt "$OUT/"
cp -P build-complex/lib/libpgx.so* "$OUT/lib/"
strip --strip-unneeded "$OUT/bench_ldlt" "$OUT"/lib/libpgx.so.*.*.* 2>/dev/null || true
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
for l in libpetsc_complex.so.3.18 libslepc_complex.so.3.18 libzmumps-5.5.so; do
  src=$(ldd "$OUT/bench_ldlt" | awk -v l="$l" '$1 == l { print $3 }')
  [ -n "$src" ] || src=/usr/lib/x86_64-linux-gnu/$l
  cp -L "$src" "$STAGE/$l"
  strip --strip-unneeded "$STAGE/$l" 2>/dev/null || true
done
tar -C "$STAGE" -cf - . | xz -T0 -6 > "$OUT/runtime.tar.xz"
du -sh "$OUT" | sed 's/^/  /'
echo "carry: build-complex/gpuhost .gpuhost; on the host: source .gpuhost/env.sh && bench/ldlt/table.sh complex \$OUT/ldlt-complex"
