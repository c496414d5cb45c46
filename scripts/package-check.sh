#!/usr/bin/env bash
# The built .debs as a user gets them, without installing anything on this (shared)
# machine: `dpkg -x` unpacks libvigil0, libvigil-dev and libvigil-mq into a throwaway
# root, then
#   - the README's first program (examples/first_program.c) builds with the root's
#     vigil.pc (relocatable: PKG_CONFIG_PATH alone must give flags inside the root) and
#     runs with LD_LIBRARY_PATH into the root, loading the root's libvigil.so.0;
#   - it builds again with CMake's find_package(vigil) from the root;
#   - an unmodified <mqueue.h> program runs on the root's libvigil-mq.so (LD_PRELOAD);
#   - when the packages carry manual pages, `man -l` renders one and `man` finds a page
#     in the root's share/man.
# Usage: scripts/package-check.sh <dir of the .debs> [source root]
# Exit 77 (skip) when the dir holds no .debs: `make package` builds them, then runs this.
set -eu
debs=$1
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
pick() {  # the newest .deb of a package in $debs
  ls -t "$debs"/"$1"_*.deb 2>/dev/null | head -n1
}
lib=$(pick libvigil0) dev=$(pick libvigil-dev) mq=$(pick libvigil-mq)
if [ -z "$lib" ] || [ -z "$dev" ] || [ -z "$mq" ]; then
  echo "SKIP: no libvigil0/libvigil-dev/libvigil-mq .debs in $debs (make package builds them)"
  exit 77
fi
root=$(mktemp -d /tmp/vigil-debroot-XXXXXX)
trap 'rm -rf "$root"' EXIT
for d in "$lib" "$dev" "$mq"; do dpkg -x "$d" "$root"; done
echo "unpacked $(basename "$lib") $(basename "$dev") $(basename "$mq") into $root"

pc=$(find "$root" -name vigil.pc | head -n1)
[ -n "$pc" ] || { echo "FAIL: no vigil.pc in libvigil-dev"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
[ -e "$libdir/libvigil.so.0" ] || { echo "FAIL: no libvigil.so.0 beside vigil.pc ($libdir)"; exit 1; }

# Relocatable: with only PKG_CONFIG_PATH into the root, the flags name the root.
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_LIBDIR=$(dirname "$pc") pkg-config --cflags --libs vigil)
echo "pkg-config --cflags --libs vigil: $flags"
inc= lib_l=
for f in $flags; do
  case $f in
    -I*) inc=$(realpath -m "${f#-I}") ;;
    -L*) lib_l=$(realpath -m "${f#-L}") ;;
  esac
done
[ "$inc" = "$root/usr/include" ] && [ "$lib_l" = "$(realpath "$libdir")" ] ||
  { echo "FAIL: vigil.pc is not relocatable: -I $inc, -L $lib_l (want $root/usr/include, $libdir)"; exit 1; }
echo "vigil.pc is relocatable: -I and -L resolve into the root"
cc -std=c11 -Wall -Wextra -Werror "$src/examples/first_program.c" -o "$root/fp" $flags
LD_LIBRARY_PATH=$libdir ldd "$root/fp" | grep -q "libvigil.so.0 => $libdir/" ||
  { echo "FAIL: fp does not load the root's libvigil.so.0:"; LD_LIBRARY_PATH=$libdir ldd "$root/fp"; exit 1; }
out=$( (sleep 0.3; echo hello) | LD_LIBRARY_PATH=$libdir timeout 10 "$root/fp")
echo "$out" | grep -q "read 6 bytes" || { echo "FAIL: first program (pkg-config) printed: $out"; exit 1; }
echo "first program: built with pkg-config, ran on the root's libvigil.so.0"

# The static library: same program, libvigil.a, Libs.private.
cc -std=c11 "$src/examples/first_program.c" -o "$root/fp_static" \
  $(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_LIBDIR=$(dirname "$pc") pkg-config --cflags vigil) \
  "$libdir/libvigil.a" $(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_LIBDIR=$(dirname "$pc") pkg-config --libs-only-l --static vigil | sed 's/-lvigil//')
(sleep 0.3; echo hello) | timeout 10 "$root/fp_static" | grep -q "read 6 bytes" ||
  { echo "FAIL: first program against libvigil.a did not run"; exit 1; }
echo "first program: built against libvigil.a"

# CMake: find_package(vigil) from the root.
if command -v cmake >/dev/null; then
  mkdir "$root/proj"
  cat > "$root/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(fp C)
find_package(vigil 0.1 REQUIRED)
add_executable(fp $src/examples/first_program.c)
target_link_libraries(fp vigil::vigil)
CM
  cmake -S "$root/proj" -B "$root/proj/b" -DCMAKE_PREFIX_PATH="$root/usr" > "$root/cmake.log" 2>&1 ||
    { cat "$root/cmake.log"; echo "FAIL: find_package(vigil) from the root"; exit 1; }
  cmake --build "$root/proj/b" > "$root/build.log" 2>&1 || { cat "$root/build.log"; exit 1; }
  (sleep 0.3; echo hello) | LD_LIBRARY_PATH=$libdir timeout 10 "$root/proj/b/fp" | grep -q "read 6 bytes" ||
    { echo "FAIL: find_package build did not run"; exit 1; }
  echo "first program: built with find_package(vigil) (vigil::vigil)"
fi

# libvigil-mq: an unmodified <mqueue.h> program, preloaded.
mqlib=$(find "$root" -name libvigil-mq.so | head -n1)
[ -n "$mqlib" ] || { echo "FAIL: no libvigil-mq.so in libvigil-mq"; exit 1; }
cc -D_GNU_SOURCE -I"$src/tests/preload" -I"$src/tests/common" "$src/tests/preload/basic.c" -o "$root/mqbasic" -lrt -lpthread
(cd "$root" && LD_PRELOAD=$mqlib timeout 20 ./mqbasic) > "$root/mq.log" 2>&1 ||
  { cat "$root/mq.log"; echo "FAIL: <mqueue.h> program under LD_PRELOAD=libvigil-mq.so"; exit 1; }
echo "libvigil-mq.so: an unmodified <mqueue.h> program ran on vigil's queues"

# The manual, when packaged.
pages=$(find "$root/usr/share/man" -type f -name '*.[37]*' 2>/dev/null | sort)
if [ -z "$pages" ]; then
  echo "no manual pages in libvigil-dev (none built yet): man not checked"
else
  page=$(echo "$pages" | head -n1)
  MANWIDTH=80 man -P cat -l "$page" 2>/dev/null | grep -q . || { echo "FAIL: man -l $page rendered nothing"; exit 1; }
  name=$(basename "$page"); name=${name%.gz}; sec=${name##*.}; name=${name%.*}
  found=$(MANPATH=$root/usr/share/man man -w "$sec" "$name" 2>/dev/null || true)
  case $found in
    "$root"/*) ;;
    *) echo "FAIL: man -w $sec $name with MANPATH into the root found '$found'"; exit 1 ;;
  esac
  echo "manual: $(echo "$pages" | wc -l) pages; man -l renders $(basename "$page"), man finds it in the root"
fi
echo "package check passed"
