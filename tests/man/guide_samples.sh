#!/usr/bin/env bash
# Every C sample of docs/guide.md compiles and links against the build's headers and
# library, as a reader would build it (-std=c11 -Wall -Wextra -Werror).
#   ```c            a complete program: compiled and linked
#   ```c fragment   declarations only (functions a program would hold): compiled
#                   alone with -c, after '#include <vigil.h>'
# Usage: tests/man/guide_samples.sh <source dir> <libvigil.so>
#   CC (default cc); VIGIL_SAMPLE_FLAGS: the build's sanitizer flags, so a sample links
#   against a sanitized libvigil; VIGIL_SAMPLE_LDFLAGS: what a link takes on top (clang:
#   the shared sanitizer runtime)
set -euo pipefail
src=$1 lib=$2
cc=${CC:-cc}
guide=$src/docs/guide.md
[ -f "$guide" ] || { echo "FAIL: no $guide"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One file per block: sample_N.c (program) or sample_N.frag (fragment), with the
# guide's line number in a #line directive so errors point into the guide.
awk -v dir="$tmp" '
  /^```c( fragment)?[[:space:]]*$/ { n++; kind = ($2 == "fragment" || $0 ~ /fragment/) ? "frag" : "c"
                                     f = dir "/sample_" n "." kind; print "#line " NR + 1 " \"docs/guide.md\"" > f; next }
  f && /^```/ { close(f); f = ""; next }
  f { print > f }' "$guide"
shopt -s nullglob
files=("$tmp"/sample_*)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no \`\`\`c block in docs/guide.md"; exit 1; }
read -r -a san <<< "${VIGIL_SAMPLE_FLAGS:-}"
read -r -a sanld <<< "${VIGIL_SAMPLE_LDFLAGS:-}"
flags=(-std=c11 -Wall -Wextra -Werror -I "$src/include")
fail=0
for f in "${files[@]}"; do
  b=$(basename "$f")
  line=$(head -n1 "$f" | awk '{ print $2 }')
  if [[ $f == *.frag ]]; then
    { echo '#include <vigil.h>'; cat "$f"; } > "$f.c"
    cmd=("$cc" "${flags[@]}" -Wno-unused-function "${san[@]}" -c "$f.c" -o "$f.o")
  else
    cp "$f" "$f.c"
    cmd=("$cc" "${flags[@]}" "${san[@]}" "${sanld[@]}" "$f.c" -o "$f.bin" -L "$(dirname "$lib")" -lvigil
         -Wl,-rpath,"$(dirname "$lib")")
  fi
  if "${cmd[@]}" > "$tmp/log" 2>&1; then
    echo "ok    $b (docs/guide.md line $((line - 1)))"
  else
    echo "FAIL  $b (docs/guide.md line $((line - 1))): ${cmd[*]}"
    sed 's/^/      /' "$tmp/log"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "OK: ${#files[@]} samples of docs/guide.md compiled"
exit $fail
