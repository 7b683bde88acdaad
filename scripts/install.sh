#!/usr/bin/env bash
# Installs libpmix.so.2 (with the libpmix.so development link), the C headers
# and a pmix.pc pkg-config file under a prefix:
#
#   scripts/install.sh [--prefix DIR] [--debug]
#
# then:  PKG_CONFIG_PATH=DIR/lib/pkgconfig gcc prog.c $(pkg-config --cflags --libs pmix)
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --debug) profile=debug; shift ;;
        *) echo "usage: $0 [--prefix DIR] [--debug]" >&2; exit 2 ;;
    esac
done

if [ "$profile" = release ]; then
    cargo build --release -p pmix-ffi
else
    cargo build -p pmix-ffi
fi
target="${CARGO_TARGET_DIR:-target}/$profile"
# pkg-config's version is the OpenPMIx API level the headers declare (a
# consumer's configure compares it with the OpenPMIx it needs).
api() { sed -n "s/^#define PMIX_VERSION_$1 *\([0-9]*\)L.*/\1/p" include/pmix_version.h; }
version="$(api MAJOR).$(api MINOR).$(api RELEASE)"

install -d "$prefix/lib/pkgconfig" "$prefix/include"
install -m 0755 "$target/libpmix.so" "$prefix/lib/libpmix.so.2"
ln -sf libpmix.so.2 "$prefix/lib/libpmix.so"
install -m 0644 include/*.h "$prefix/include/"
cat > "$prefix/lib/pkgconfig/pmix.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: pmix
Description: PMIx in Rust (pmix-rs): OpenPMIx 5.0's API on 4.2.2's ABI (libpmix.so.2)
Version: $version
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lpmix
Cflags: -I\${includedir}
PC
echo "installed libpmix.so.2, headers and pmix.pc under $prefix"
