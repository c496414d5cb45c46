#!/usr/bin/env bash
# Every public header compiles when included first and alone (twice: the include guard),
# warning-free with -Werror, in one language mode; or the README's first program compiles
# as a user would build it. Headers are found by globbing include/ when the test runs, so
# a new header is covered without an edit here.
# Usage: tests/headers/compile.sh c99|c11|gnu11|cxx11|readme <source dir>
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
  *) echo "usage: compile.sh c99|c11|gnu11|cxx11|readme <source dir>" >&2; exit 2 ;;
esac
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
fi
[ $fail -eq 0 ] && echo "OK: $n compiled in mode $mode (${comp[*]})"
exit $fail
