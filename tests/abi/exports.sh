#!/usr/bin/env bash
# The exported names are exactly the public API: every function declared with
# VIGIL_EXPORT (or another VIGIL_*EXPORT macro, e.g. VIGIL_MQ_EXPORT) in include/ is
# listed in src/vigil.map and exported by libvigil.so under a version node, and nothing
# else is exported or listed. All three lists are derived (headers, map, nm), none is
# written here, so renames and additions need no edit of this script.
# Usage: tests/abi/exports.sh <source dir> <path to libvigil.so>
set -euo pipefail
src=$1
lib=$2
map=$src/src/vigil.map
cc=${CC:-cc}
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Declared: per header, comments removed by the preprocessor without expanding macros
# (-fpreprocessed), directives dropped, the text cut into declarations at ';' and '{'. A
# declaration carrying a VIGIL_*EXPORT macro names the identifier before its first '('
# (a function) or its last identifier (an object).
: > "$tmp/declared.where"
while IFS= read -r -d '' h; do
  rel=${h#"$src"/}
  # (|| true: a header of directives only, such as the umbrella vigil.h, leaves no line)
  "$cc" -w -fpreprocessed -dD -E -P -x c "$h" | { grep -v '^[[:space:]]*#' || true; } |
    tr '\n' ' ' | tr ';{' '\n\n' |
    awk -v where="$rel" '
      /(^|[^A-Za-z0-9_])VIGIL_[A-Z0-9_]*EXPORT([^A-Za-z0-9_]|$)/ {
        p = index($0, "(")
        t = (p > 0) ? substr($0, 1, p - 1) : $0
        sub(/[=\[].*$/, "", t)
        gsub(/[^A-Za-z0-9_]+/, " ", t)
        m = split(t, w, " ")
        if (m > 0) print w[m], where
      }' >> "$tmp/declared.where"
done < <(find "$src/include" -name '*.h' -print0 | sort -z)
cut -d' ' -f1 "$tmp/declared.where" | sort -u > "$tmp/declared"

# 2. Listed: the names under global: in any version node of the map (comments removed).
# A wildcard is refused: the map names every symbol.
"$cc" -w -fpreprocessed -E -P -x c "$map" | sed -E 's/(global|local)[[:space:]]*:/ \1: /g; s/[;{}]/ & /g' |
  tr -s ' \t' '\n\n' | awk '
  $0 == "" || $0 == ";" { next }
  $0 == "{" { depth++; mode = ""; next }
  $0 == "}" { depth--; next }
  $0 == "global:" || $0 == "local:" { mode = $0; next }
  depth == 1 && mode == "global:" { print }' | sort > "$tmp/listed.all"
sort -u "$tmp/listed.all" > "$tmp/listed"
fail=0
if grep -q '[][*?]' "$tmp/listed"; then
  echo "FAIL: src/vigil.map exports by pattern; list every symbol by name:"
  grep '[][*?]' "$tmp/listed" | sed 's/^/  /'
  fail=1
fi
if [ "$(wc -l < "$tmp/listed.all")" -ne "$(wc -l < "$tmp/listed")" ]; then
  echo "FAIL: src/vigil.map lists a name twice:"
  uniq -d "$tmp/listed.all" | sed 's/^/  /'
  fail=1
fi

# 3. Exported: libvigil.so's dynamic symbols it defines, each with the version node it
# carries (nm -D prints name@@NODE for the default version).
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sort > "$tmp/exported.raw"
sed 's/@.*//' "$tmp/exported.raw" | sort -u > "$tmp/exported"
unversioned=$(grep -v '@' "$tmp/exported.raw" || true)
if [ -n "$unversioned" ]; then
  echo "FAIL: exported without a version node (is the map passed to the linker?):"
  echo "$unversioned" | sed 's/^/  /'
  fail=1
fi

report() { # report <file of names> <message>
  [ -s "$1" ] || return 0
  echo "FAIL: $2"
  while read -r n; do
    w=$(awk -v n="$n" '$1 == n { print $2; exit }' "$tmp/declared.where")
    echo "  $n${w:+  ($w)}"
  done < "$1"
  fail=1
}
comm -23 "$tmp/declared" "$tmp/listed" > "$tmp/a"
report "$tmp/a" "declared VIGIL_EXPORT in include/ but missing from src/vigil.map (add it to the newest version node):"
comm -13 "$tmp/declared" "$tmp/listed" | grep -v '[][*?]' > "$tmp/b" || true
report "$tmp/b" "listed in src/vigil.map but declared VIGIL_EXPORT in no header (renamed or removed? drop it from the map):"
comm -23 "$tmp/declared" "$tmp/exported" > "$tmp/c"
report "$tmp/c" "declared VIGIL_EXPORT but not exported by $(basename "$lib") (not defined, or missing from the map):"
comm -13 "$tmp/declared" "$tmp/exported" > "$tmp/d"
report "$tmp/d" "exported by $(basename "$lib") but declared VIGIL_EXPORT in no header:"

nd=$(wc -l < "$tmp/declared")
if [ "$nd" -eq 0 ]; then
  echo "FAIL: found no VIGIL_EXPORT declaration under $src/include"
  fail=1
fi
[ $fail -eq 0 ] && echo "OK: $nd functions declared VIGIL_EXPORT, listed in src/vigil.map and exported (versioned), nothing else"
exit $fail
