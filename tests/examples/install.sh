#!/usr/bin/env bash
# `cmake --install` into a private prefix, then build the README's first program against
# it twice, as a user would: with pkg-config, and with CMake's find_package(vigil).
# CC: the build's compiler; VIGIL_SAN_FLAGS, VIGIL_SAN_LDFLAGS: its sanitizer flags and
# what a link takes on top (the program loads the sanitizer runtime the library needs).
set -eu
build=$1 src=$2
cc=${CC:-cc}
san=${VIGIL_SAN_FLAGS-"-fsanitize=address,undefined"}
sanld=${VIGIL_SAN_LDFLAGS-}
dir=$(mktemp -d /tmp/vigil-install-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cmake --install "$build" --prefix "$dir/prefix" > "$dir/install.log"
pc=$(find "$dir/prefix" -name vigil.pc | head -n1)
[ -n "$pc" ] || { echo "no vigil.pc installed"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs vigil)
"$cc" "$src/examples/first_program.c" -o "$dir/fp_pc" $flags -Wl,-rpath,"$libdir" $san $sanld
(sleep 0.3; echo hello) | timeout 10 "$dir/fp_pc" | grep -q "read 6 bytes" || { echo "pkg-config build did not run"; exit 1; }
mkdir "$dir/proj"
cat > "$dir/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(fp C)
find_package(vigil REQUIRED)
add_executable(fp $src/examples/first_program.c)
target_link_libraries(fp vigil::vigil)
CM
CC=$cc cmake -S "$dir/proj" -B "$dir/proj/b" -DCMAKE_PREFIX_PATH="$dir/prefix" -DCMAKE_C_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san $sanld" > "$dir/cmake.log"
cmake --build "$dir/proj/b" > "$dir/build.log"
(sleep 0.3; echo hello) | timeout 10 "$dir/proj/b/fp" | grep -q "read 6 bytes" || { echo "find_package build did not run"; exit 1; }
echo "installed; built and ran with pkg-config and with find_package(vigil)"
