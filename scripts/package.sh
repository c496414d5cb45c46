#!/usr/bin/env bash
# make package: the Debian packages (debian/) built from a clean copy of the tree.
#   scripts/package.sh <out dir>     (make package: $(BUILD)/package)
# Copies the tree's files (git's tracked and untracked-but-not-ignored files; without git,
# everything but build*/) into <out>/vigil-<version>, runs `dpkg-buildpackage -us -uc -b`
# there (its tests: debian/rules), leaves the .debs in <out>, runs lintian (fails on an
# error; warnings are shown), then scripts/package-check.sh on the .debs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
version=$(sed -nE 's/^project\(vigil VERSION ([0-9.]+).*/\1/p' "$root/CMakeLists.txt")
src=$out/vigil-$version
t0=$(date +%s)
rm -rf "$out"/vigil-* "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$src"

if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Files as they are in the work tree (uncommitted edits included), minus the output dir.
  rel=${out#"$root"/}
  (cd "$root" && git ls-files -z -c -o --exclude-standard |
     { if [ "$rel" != "$out" ]; then grep -z -v "^${rel%%/*}/" || true; else cat; fi; } |
     tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$src"
else
  (cd "$root" && tar --exclude='./build*' --exclude='./debian/build' -cf - .) | tar -xf - -C "$src"
fi
echo "package: source copied to $src ($(find "$src" -type f | wc -l) files)"

log=$out/build.log
echo "package: dpkg-buildpackage -us -uc -b (build and plain tests; log: $log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") > "$log" 2>&1; then
  tail -n 40 "$log"
  echo "package: dpkg-buildpackage failed (whole log: $log)"
  exit 1
fi
grep -E '^[0-9]+% tests passed' "$log" | sed 's/^/package: plain ctest: /' || true
t1=$(date +%s)
changes=$(ls "$out"/vigil_*.changes)
echo "package: built in $((t1 - t0)) s:"
ls -1 "$out"/*.deb | sed 's/^/  /'

echo "package: lintian (fails on errors)"
lintian --fail-on error "$changes" 2>&1 |
  grep -v '^running with root privileges' | tee "$out/lintian.txt" || { echo "package: lintian found errors"; exit 1; }
echo "package: lintian: $(grep -c '^E:' "$out/lintian.txt" || true) errors, $(grep -c '^W:' "$out/lintian.txt" || true) warnings"

bash "$root/scripts/package-check.sh" "$out" "$root" | sed 's/^/package: /'
echo "package: done in $(($(date +%s) - t0)) s; .debs in $out"
