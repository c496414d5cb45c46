#!/usr/bin/env bash
# debian/libvigil<major>.symbols from src/vigil.map: every exported name with the version
# node that introduced it, at that node's first release (VIGIL_0.2 -> 0.2.0), so a
# package built against libvigil depends on the oldest libvigil<major> that has what it
# uses. The SONAME major comes from CMakeLists.txt's project() VERSION (docs/versioning.md).
#
#   scripts/debian-symbols.sh          rewrite the symbols file (after editing src/vigil.map)
#   scripts/debian-symbols.sh --check  exit 1 when the committed file differs from the map
#
# Two checks keep the three lists together: --check (ctest debian_symbols, and debian/rules
# before dh_makeshlibs) ties the file to the map; dpkg-gensymbols -c4 (debian/rules) ties
# it to what the built libvigil.so.<major> exports, failing the build on any difference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
map=$root/src/vigil.map
major=$(sed -nE 's/^project\(vigil VERSION ([0-9]+)\..*/\1/p' "$root/CMakeLists.txt")
[ -n "$major" ] || { echo "FAIL: no project(vigil VERSION ...) in CMakeLists.txt" >&2; exit 1; }
out=$root/debian/libvigil$major.symbols

gen() {
  echo "# Generated from src/vigil.map by scripts/debian-symbols.sh: edit the map, rerun the script."
  echo "libvigil.so.$major libvigil$major #MINVER#"
  echo "* Build-Depends-Package: libvigil-dev"
  # Strip comments, then walk the nodes: "NAME {" opens one, "global:"/"local:" switch
  # what follows, "}" closes it. Each node also exports its own name (NAME@NAME).
  sed -e 's://.*$::' "$map" | awk '
    BEGIN { RS = "\0" }
    { gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, ""); print }' |
  awk '
    /^[[:space:]]*[A-Za-z_][A-Za-z0-9_.]*[[:space:]]*\{/ {
      node = $1; sub(/\{.*/, "", node); mode = ""
      v = node; sub(/^VIGIL_/, "", v); if (split(v, p, ".") == 2) v = v ".0"
      printf " %s@%s %s\n", node, node, v; next }
    /global:/ { mode = "g"; next }
    /local:/  { mode = "l"; next }
    /\}/      { node = ""; mode = ""; next }
    node != "" && mode == "g" {
      for (i = 1; i <= NF; i++) { s = $i; gsub(/;/, "", s); if (s != "") printf " %s@%s %s\n", s, node, v } }'
}

if [ "${1:-}" = --check ]; then
  if [ ! -f "$out" ]; then
    echo "FAIL: $out missing (SONAME major $major: rename the libvigil package in debian/control and run scripts/debian-symbols.sh)"
    exit 1
  fi
  if ! diff -u "$out" <(gen); then
    echo "FAIL: ${out#$root/} is not what src/vigil.map says: run scripts/debian-symbols.sh and commit it"
    exit 1
  fi
  echo "${out#$root/} matches src/vigil.map ($(gen | grep -c '^ ') symbols)"
else
  gen > "$out"
  echo "wrote ${out#$root/} ($(gen | grep -c '^ ') symbols)"
fi
