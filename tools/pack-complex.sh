#!/usr/bin/env bash
# pack-complex.sh -- the libraries that Debian's complex PETSc 3.18 and SLEPc 3.18 need beyond the real runtime
# packed by ../shared/gpuhost/pack.sh (libpetsc_complex, libslepc_complex, libzmumps), so that the complex build
# (make gpuhostc: build-gpuc/, lib-gpuc/) runs on the GPU host. They unpack into the same /opt/pb/lib.
#
#   tools/pack-complex.sh [OUT_TARBALL]   (default .gpuhostc/complex-runtime.tar.xz)
set -euo pipefail
OUTTAR=${1:-$PWD/.gpuhostc/complex-runtime.tar.xz}
LIBD=/usr/lib/x86_64-linux-gnu
STAGE=$(mktemp -d /tmp/pbcstage.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/pb/lib"
roots=($LIBD/libpetsc_complex.so.3.18 $LIBD/libslepc_complex.so.3.18)
# what the real runtime carries already
declare -A real
while read -r name arrow path rest; do [[ "$arrow" == "=>" ]] && real[$name]=1; done < <(ldd $LIBD/libpetsc_real.so.3.18 $LIBD/libslepc_real.so.3.18)
for r in "${roots[@]}"; do
  [ -f "$r" ] || { echo "pack-complex: $r missing (apt-get install libpetsc-complex3.18-dev libslepc-complex3.18-dev)" >&2; exit 1; }
  cp -L "$r" "$STAGE/pb/lib/$(basename "$r")"
  while read -r name arrow path rest; do
    [[ "$arrow" == "=>" && "$path" == /* ]] || continue
    [[ -n "${real[$name]:-}" || "$name" == libpetsc_complex* ]] && continue
    cp -L "$path" "$STAGE/pb/lib/$name"
  done < <(ldd "$r")
done
strip --strip-unneeded "$STAGE"/pb/lib/*.so* 2>/dev/null || true
ls "$STAGE/pb/lib"
mkdir -p "$(dirname "$OUTTAR")"
tar -C "$STAGE" -cf - pb | xz -T0 -9 > "$OUTTAR.tmp"
mv "$OUTTAR.tmp" "$OUTTAR"
ls -l "$OUTTAR"
