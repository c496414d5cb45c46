#!/usr/bin/env bash
# Every public header compiles when included first and alone (twice: the include guard),
# and after each other public header (every ordered pair: a header that needs another to
# come first, or breaks one that follows, fails), warning-free with -Werror, in one
# language mode; or the README's first program compiles as a user would build it; or
# (acyclic) no public header includes itself through a chain of vigil headers (a circle
# works only through the include guards' order). Headers are found by globbing include/
# when the test runs, so a new header is covered without an edit here.
# Usage: tests/headers/compile.sh c99|c11|gnu11|cxx11|readme|acyclic <source dir>
#   CC, CXX: the compilers (default cc, c++)
set -euo pipefail
mode=$1
src=$2
cc=${CC:-cc}
cxx=${CXX:-c++}
warn=(-Wall -Wextra -Werror -Wshadow)
case $mode in
  c99)   comp=("$cc" -x c -std=c99 -pedantic "${warn[@]}" -Wstrict-prototypes) ;;
  c11)   comp=("$cc" -x c -std=c11 -pedantic "${warn[@]}" -Wstrict-prototypes) ;;
  gnu11) comp=("$cc" -x c -std=gnu11 -pedantic "${warn[@]}" -Wstrict-prototypes) ;;
  cxx11) comp=("$cxx" -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -Wshadow) ;;
  readme) comp=("$cc" -x c -std=c11 -Wall -Wextra -Werror) ;;
  acyclic) comp=(true) ;;
  *) echo "usage: compile.sh c99|c11|gnu11|cxx11|readme|acyclic <source dir>" >&2; exit 2 ;;
esac

if [ "$mode" = acyclic ]; then
  # The graph of #include "..." between the headers under include/ (a name resolves
  # beside the includer first, then under include/, as the compiler finds it).
  declare -A deps state
  while IFS= read -r -d '' h; do
    rel=${h#"$src/include/"}
    dir=$(dirname "$rel")
    list=""
    while IFS= read -r inc; do
      if [ "$dir" != . ] && [ -f "$src/include/$dir/$inc" ]; then list+=" $dir/$inc"
      elif [ -f "$src/include/$inc" ]; then list+=" $inc"; fi
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$h")
    deps[$rel]=$list
  done < <(find "$src/include" -name '*.h' -print0 | sort -z)
  [ ${#deps[@]} -gt 0 ] || { echo "FAIL: no header under $src/include"; exit 1; }
  circles=0
  visit() { # visit <header> <path so far>: depth first; state 1 = on the path, 2 = done
    local h=$1 path=$2 d
    state[$h]=1
    for d in ${deps[$h]}; do
      if [ "${state[$d]:-0}" = 1 ]; then
        echo "FAIL  circle: $path -> $d"
        circles=$((circles + 1))
      elif [ "${state[$d]:-0}" = 0 ]; then
        visit "$d" "$path -> $d"
      fi
    done
    state[$h]=2
  }
  for h in $(printf '%s\n' "${!deps[@]}" | sort); do
    [ "${state[$h]:-0}" = 0 ] && visit "$h" "$h"
  done
  for h in $(printf '%s\n' "${!deps[@]}" | sort); do echo "      $h includes:${deps[$h]:- no vigil header}"; done
  [ $circles -eq 0 ] && echo "OK: ${#deps[@]} headers, no circle"
  [ $circles -eq 0 ]
  exit
fi
command -v "${comp[0]}" >/dev/null || { echo "SKIP: no compiler ${comp[0]} for $mode"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

try() { # try <label> <file>: compile file with the mode's flags, report
  n=$((n + 1))
  if "${comp[@]}" -I "$src/include" -c "$2" -o "$tmp/out.o" > "$tmp/log" 2>&1; then
    echo "ok    $1"
  else
    echo "FAIL  $1: ${comp[*]} -I include -c"
    sed 's/^/      /' "$tmp/log"
    fail=1
  fi
}

if [ "$mode" = readme ]; then
  # The first ```c block of README.md, as the reader copies it; and its copy in examples/.
  awk '/^```c[[:space:]]*$/ { f = 1; next } f && /^```/ { exit } f' "$src/README.md" > "$tmp/readme.c"
  [ -s "$tmp/readme.c" ] || { echo "FAIL: no \`\`\`c block in README.md"; exit 1; }
  try "README.md's first program" "$tmp/readme.c"
  [ -f "$src/examples/first_program.c" ] && try "examples/first_program.c" "$src/examples/first_program.c"
else
  while IFS= read -r -d '' h; do
    rel=${h#"$src/include/"}
    printf '#include <%s>\n#include <%s>\n' "$rel" "$rel" > "$tmp/tu.c"
    try "<$rel>" "$tmp/tu.c"
  done < <(find "$src/include" -name '*.h' -print0 | sort -z)
  [ $n -gt 0 ] || { echo "FAIL: no header under $src/include"; exit 1; }
  # Every ordered pair of two different headers, and all of them forwards and backwards.
  mapfile -t rels < <(cd "$src/include" && find . -name '*.h' | sed 's|^\./||' | sort)
  for a in "${rels[@]}"; do
    for b in "${rels[@]}"; do
      [ "$a" = "$b" ] && continue
      printf '#include <%s>\n#include <%s>\n' "$a" "$b" > "$tmp/tu.c"
      try "<$a> then <$b>" "$tmp/tu.c"
    done
  done
  printf '#include <%s>\n' "${rels[@]}" > "$tmp/tu.c"
  try "all, sorted" "$tmp/tu.c"
  for ((i = ${#rels[@]} - 1; i >= 0; i--)); do printf '#include <%s>\n' "${rels[$i]}"; done > "$tmp/tu.c"
  try "all, reversed" "$tmp/tu.c"
fi
[ $fail -eq 0 ] && echo "OK: $n compiled in mode $mode (${comp[*]})"
exit $fail
