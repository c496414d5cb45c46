#!/usr/bin/env bash
# The manual as HTML (make man-html), built, not committed: man/mangen.py makes the roff
# pages, mandoc -Thtml renders each (a ".so" stub renders its target's page under its own
# name), and index.html lists them; man/style.css is the hand-written style sheet. The
# sources are man/pages/*.md.
# Usage: scripts/man-html.sh OUT   render the manual into the folder OUT (its old .html
#                                  files are replaced); exit 77: mandoc or python3 missing.
#                                  ctest's man_html renders into the build tree.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
out=$1
command -v mandoc >/dev/null || { echo "SKIP: mandoc is not installed (scripts/deps.sh test installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$src/man/mangen.py" "$tmp/roff"
mkdir -p "$tmp/html"
cd "$tmp/roff"
for f in man3/*.3 man7/*.7; do
  b=$(basename "$f")
  first=$(head -n1 "$f")
  if [[ $first == .so* ]]; then
    # A stub (one more function of a shared page): a pointer to that page, not a
    # second copy of it.
    t=$(basename "${first#.so }")
    printf '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=%s.html">\n<title>%s</title></head><body>\n<p>%s is described in <a href="%s.html">%s</a>.</p>\n</body></html>\n' \
      "$t" "$b" "${b%.*}" "$t" "$t" > "$tmp/html/$b.html"
    continue
  fi
  # mandoc's exit status fails the script on a real error.
  mandoc -Thtml -W stop -Ostyle=style.css,man=%N.%S.html "$f" > "$tmp/html/$b.html"
done
# References to pages of this manual become links (mandoc links only mdoc's .Xr).
python3 - "$tmp/html" <<'PY'
import os, re, sys
d = sys.argv[1]
have = set(os.listdir(d))
def link(m):
    f = "%s.%s.html" % (m.group(1), m.group(2))
    return '<a href="%s"><b>%s</b>(%s)</a>' % (f, m.group(1), m.group(2)) if f in have else m.group(0)
for f in sorted(have):
    p = os.path.join(d, f)
    t = open(p, encoding="utf-8").read()
    n = re.sub(r"<b>([A-Za-z_][A-Za-z0-9_]*)</b>\(([0-9])\)", link, t)
    if n != t:
        open(p, "w", encoding="utf-8").write(n)
PY
{
  echo '<!DOCTYPE html>'
  echo '<html lang="en"><head><meta charset="utf-8"><link rel="stylesheet" href="style.css">'
  echo '<title>vigil manual</title></head><body>'
  echo '<h1>vigil manual</h1>'
  echo '<p>Generated from <code>man/pages/</code> by <code>make man-html</code>; installed as man pages by <code>make install</code>.</p>'
  for sec in 7 3; do
    [ "$sec" = 7 ] && echo '<h2>Overviews (section 7)</h2>' || echo '<h2>Functions (section 3)</h2>'
    echo '<table>'
    for f in man$sec/*.$sec; do
      b=$(basename "$f" ".$sec")
      first=$(head -n1 "$f")
      if [[ $first == .so* ]]; then
        t=$(basename "${first#.so }" ".$sec")
        desc="see <a href=\"$t.$sec.html\">$t($sec)</a>"
      else
        # The NAME line(s): what follows "\-" up to the next macro.
        desc=$(awk '/^\.SH NAME/ { f = 1; next } f && /^\./ { exit } f' "$f" | tr '\n' ' ' |
               sed -e 's/.*\\- //' -e 's/ *$//' -e 's/&/\&amp;/g' -e 's/</\&lt;/g')
      fi
      echo "<tr><td><a href=\"$b.$sec.html\">$b($sec)</a></td><td>$desc</td></tr>"
    done
    echo '</table>'
  done
  echo '</body></html>'
} > "$tmp/html/index.html"
cp "$src/man/style.css" "$tmp/html/style.css"
mkdir -p "$out"
find "$out" -name '*.html' -delete
cp "$tmp/html/"* "$out/"
echo "$out: $(ls "$out"/*.html | wc -l) HTML files"
