#!/usr/bin/env bash
# The ABI freeze: libvigil.so's binary interface against the baseline kept in the tree,
# abi/libvigil.abi (libabigail's XML, written by abidw; Debian package abigail-tools).
#
#   scripts/abi.sh check    [build dir]   compare a fresh build with the baseline
#   scripts/abi.sh baseline [build dir]   rewrite the baseline from a fresh build, on purpose
#   (make abi-check / make abi-baseline; make test runs check as the ctest test abi_check)
#
# Both verbs build a plain libvigil.so of their own in the build dir (default build/abi):
# Release, -O2 -g, no sanitizer, no tests, no lab; CFLAGS/LDFLAGS from the environment are
# ignored so every machine measures the same thing. abidw reads its DWARF keeping only the
# exported functions (src/vigil.map) and the types the public headers (include/) define:
# a change to a private struct or an internal function is not an ABI change.
#
# check fails (exit 1) on ANY difference: the freeze is strict.
#   - an incompatible change (abidiff bit 8: a removed or renamed function, ...);
#   - any other ABI change (abidiff bit 4 without 8). abidiff rates a public struct whose
#     size or layout changed, or a changed parameter type, as a change without the
#     incompatible bit; the script says so and asks for it to be treated as incompatible.
#   - additions only (an added function, abidiff's summary "0 Removed, 0 Changed"): an
#     addition is harmless to old programs, but it must be deliberate: it fails until the
#     version is bumped and the baseline regenerated, so the baseline is always the ABI
#     of the tree and the next change is measured from there.
# It also fails when include/vigil/loop.h's VIGIL_VERSION_* and CMakeLists.txt's project()
# VERSION disagree. It skips (exit 77) when abidw/abidiff are not installed.
#
# When to bump (the SONAME rule; the soname is libvigil.so.<VIGIL_VERSION_MAJOR>):
#   - incompatible change: bump VIGIL_VERSION_MAJOR in include/vigil/loop.h and the major of
#     project(vigil VERSION ...) in CMakeLists.txt (that is the soname), zero the minor,
#     start a new version node in src/vigil.map, then run `make abi-baseline`;
#   - compatible addition: bump VIGIL_VERSION_MINOR and the minor of project() VERSION,
#     list the new names in a new node of src/vigil.map that inherits the previous one,
#     then run `make abi-baseline`;
#   - no ABI change (a fix): bump the patch level if you release; the baseline stays.
# Before the first release (0.x) the API may still change; the baseline is then simply
# regenerated after a deliberate change, and baseline says what changed.
# Commit abi/libvigil.abi together with the change it records.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
verb=${1:-}
dir=${2:-$root/build/abi}
base=$root/abi/libvigil.abi
case $verb in
  check|baseline) ;;
  *) echo "usage: scripts/abi.sh check|baseline [build dir]" >&2; exit 2 ;;
esac

for t in abidw abidiff; do
  if ! command -v $t >/dev/null; then
    echo "SKIP: $t not installed (Debian: apt-get install abigail-tools, or bash scripts/deps.sh test); ABI not checked"
    exit 77
  fi
done

# The version, said twice, must agree.
hv=$(awk '/#define VIGIL_VERSION_(MAJOR|MINOR|PATCH) /{printf "%s%s", sep, $3; sep="."}' "$root/include/vigil/loop.h")
cv=$(sed -nE 's/^project\(vigil VERSION ([0-9.]+).*/\1/p' "$root/CMakeLists.txt")
if [ "$hv" != "$cv" ]; then
  echo "FAIL: include/vigil/loop.h says version $hv, CMakeLists.txt project() says $cv: bump both"
  exit 1
fi

# The plain build. A nested make (this may run under make or ctest) must not inherit the
# outer one's flags or command-line variables.
unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS LDFLAGS CPPFLAGS
mkdir -p "$dir"
echo "abi: building a plain libvigil.so $hv (-O2 -g) in $dir"
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O2 -g -DNDEBUG" \
  -DVIGIL_SANITIZE=OFF -DVIGIL_WERROR=OFF -DVIGIL_TESTS=OFF -DVIGIL_LAB=OFF >"$dir/abi-configure.log" 2>&1 ||
  { cat "$dir/abi-configure.log"; echo "FAIL: cmake configure of the plain build"; exit 1; }
cmake --build "$dir" --target vigil -j "$(nproc)" >"$dir/abi-build.log" 2>&1 ||
  { cat "$dir/abi-build.log"; echo "FAIL: plain build of libvigil.so"; exit 1; }
lib=$dir/libvigil.so

# One reading for both sides: the baseline was written with these same options, so check
# compares two XML corpora made alike (no paths, no DT_NEEDED, stable type ids).
dw=(abidw --headers-dir "$root/include" --drop-private-types --no-corpus-path --no-comp-dir-path
    --short-locs --no-elf-needed --type-id-style hash)
now=$dir/libvigil.abi
"${dw[@]}" --out-file "$now" "$lib"

# abidiff's exit status is a bit set: 1 error, 2 usage, 4 ABI change, 8 incompatible change.
diff_rc=0
if [ -f "$base" ]; then
  abidiff --no-show-locs "$base" "$now" > "$dir/abidiff.txt" 2>&1 || diff_rc=$?
fi

if [ "$verb" = baseline ]; then
  if [ ! -f "$base" ]; then
    echo "abi: no previous baseline"
  elif [ $diff_rc -eq 0 ]; then
    echo "abi: no ABI change since the previous baseline"
  elif [ $((diff_rc & 3)) -ne 0 ]; then
    cat "$dir/abidiff.txt"; echo "abi: abidiff failed on the previous baseline (rc $diff_rc); rewriting it anyway"
  else
    cat "$dir/abidiff.txt"
    if [ $((diff_rc & 8)) -ne 0 ]; then
      echo "abi: INCOMPATIBLE change since the previous baseline: bump VIGIL_VERSION_MAJOR and the soname unless 0.x"
    else
      echo "abi: compatible change since the previous baseline: bump VIGIL_VERSION_MINOR"
    fi
  fi
  mkdir -p "$(dirname "$base")"
  cp "$now" "$base"
  echo "abi: wrote abi/libvigil.abi for libvigil $hv ($(grep -c '<elf-symbol ' "$base") exported symbols); commit it"
  exit 0
fi

if [ ! -f "$base" ]; then
  echo "FAIL: no baseline abi/libvigil.abi; write it with: make abi-baseline"
  exit 1
fi
if [ $diff_rc -eq 0 ]; then
  echo "OK: ABI of libvigil $hv matches abi/libvigil.abi"
  exit 0
fi
cat "$dir/abidiff.txt"
if [ $((diff_rc & 3)) -ne 0 ]; then
  echo "FAIL: abidiff failed (exit status $diff_rc)"
elif [ $((diff_rc & 8)) -ne 0 ]; then
  echo "FAIL: INCOMPATIBLE ABI change against abi/libvigil.abi (above). If it is meant: bump"
  echo "      VIGIL_VERSION_MAJOR (include/vigil/loop.h) and project() VERSION (CMakeLists.txt) -- the"
  echo "      soname --, then run: make abi-baseline (see scripts/abi.sh)"
elif grep -qE 'changes summary: 0 Removed, 0 Changed' "$dir/abidiff.txt" &&
     ! grep -qE 'changes summary: ([1-9]|0 Removed, [1-9])' "$dir/abidiff.txt"; then
  echo "FAIL: compatible ABI change (additions only, above) against abi/libvigil.abi; the freeze is"
  echo "      strict. If it is meant: bump VIGIL_VERSION_MINOR and project() VERSION, list the new"
  echo "      names in a new node of src/vigil.map, then run: make abi-baseline"
else
  echo "FAIL: ABI change against abi/libvigil.abi (above). abidiff does not rate it incompatible by"
  echo "      itself, but a changed type (size, layout, member) breaks programs built against the"
  echo "      old one: unless it is only harmless, treat it as incompatible (VIGIL_VERSION_MAJOR and"
  echo "      the soname), then run: make abi-baseline"
fi
exit 1
