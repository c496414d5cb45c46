#!/usr/bin/env bash
# The wheel as a user installs it (tests/python/CMakeLists.txt: python.wheel.*):
#   wheeltest.sh build <build dir>              make the sdist and wheel (wheel.sh) into
#                                               <build dir>/python/dist
#   wheeltest.sh run <build dir> debian|path    install that wheel into a fresh venv of
#       Debian's /usr/bin/python3 (debian) or of the python3.11 on PATH (path: pyenv's
#       here), with no compiler on PATH and only binary wheels allowed (pip cannot build
#       anything), plus pytest, pytest-timeout and uvicorn from PyPI; then run the
#       package's own tests (test_vigil_loop.py, test_asyncio_parity.py,
#       test_uvicorn.py: uvicorn --loop vigil:new_event_loop, test_proc.py, test_mq.py
#       without its C peer) from the installed package.
# Exit 77 with a SKIP: line when PyPI cannot be reached, the interpreter is missing or is
# not the 3.11 the wheel is built for.
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
cmd="$1"; bdir="$(cd "$2" && pwd)"
dist="$bdir/python/dist"
# uvicorn: a release whose --loop takes a custom factory (module:function), pinned
UVICORN="${VIGIL_UVICORN:-uvicorn==0.54.0}"

pypi_ok() {
  "$1" -c 'import urllib.request as u; u.urlopen("https://pypi.org/simple/pytest/", timeout=10)' 2>/dev/null
}

case "$cmd" in
build)
  exec bash "$here/scripts/wheel.sh" "$bdir"
  ;;
run)
  which="$3"
  case "$which" in
  debian) py=/usr/bin/python3 ;;
  path)
    py="$(command -v python3.11)" || { echo "SKIP: no python3.11 on PATH"; exit 77; }
    py="$("$py" -c 'import sys; print(sys.executable)')" || { echo "SKIP: $py does not run"; exit 77; }
    if [ "$(readlink -f "$py")" = "$(readlink -f /usr/bin/python3.11)" ]; then
      echo "SKIP: the python3.11 on PATH is Debian's ($py), tested as python.wheel.debian"; exit 77
    fi ;;
  *) echo "usage: $0 run <build dir> debian|path" >&2; exit 2 ;;
  esac
  [ -x "$py" ] || { echo "SKIP: $py not found"; exit 77; }
  "$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
    || { echo "SKIP: $py is $("$py" -V 2>&1), the wheel is built for 3.11"; exit 77; }
  "$py" -c 'import venv, ensurepip' 2>/dev/null || { echo "SKIP: $py has no venv/ensurepip"; exit 77; }
  pypi_ok "$py" || { echo "SKIP: PyPI (https://pypi.org) cannot be reached: pytest and uvicorn come from it"; exit 77; }
  whl="$(ls "$dist"/vigil_asyncio-*-cp311-cp311-*manylinux*.whl 2>/dev/null | head -1)"
  [ -n "$whl" ] || { echo "SKIP: no manylinux wheel in $dist (python.wheel.build was skipped)"; exit 77; }
  set -e
  work="$(mktemp -d "$bdir/python/wheeltest-$which.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  "$py" -m venv "$work/venv"
  # PATH without a compiler: the venv and a few tools the tests run, nothing else
  mkdir "$work/bin"
  for t in sh bash env cat echo true false sleep kill ls rm mkdir cp mv grep sed head tail uname id ps openssl; do
    p="$(type -P "$t" || true)"  # the file, not a shell builtin's bare name (a link to itself)
    [ -n "$p" ] && ln -s "$p" "$work/bin/$t"
  done
  export PATH="$work/venv/bin:$work/bin"
  unset CC CXX LDSHARED CFLAGS
  for c in cc gcc c99 clang clang-14 tcc x86_64-linux-gnu-gcc ld; do
    if command -v "$c" >/dev/null; then echo "FAIL: a compiler on PATH: $(command -v "$c")"; exit 1; fi
  done
  cd "$work"
  python -m pip install -q --disable-pip-version-check --only-binary :all: "$whl" pytest pytest-timeout "$UVICORN"
  python -P - <<'PY'
import os, subprocess, sys, vigil, vigil._core as core
site = os.path.dirname(os.path.dirname(vigil.__file__))
assert vigil.__file__.startswith(sys.prefix), vigil.__file__
print("vigil from", vigil.__file__, "libvigil", vigil.libvigil_version, "python", sys.version.split()[0])
libs = os.path.join(site, "vigil_asyncio.libs")
print("grafted:", sorted(os.listdir(libs)) if os.path.isdir(libs) else "none")
deps = subprocess.run(["/usr/bin/ldd", core.__file__], capture_output=True, text=True).stdout
print(deps)
assert "libvigil" not in deps, "the extension needs a libvigil beside it"
for line in deps.splitlines():
    if "liburing" in line:
        assert "vigil_asyncio.libs" in line, "liburing not from the wheel: " + line
for b in ("uring", "epoll", "poll"):
    try:
        vigil.new_event_loop(backend=b).close()
        print("backend", b, "ok")
    except OSError as e:
        print("backend", b, "unavailable:", e)
PY
  mkdir tests
  cp "$here/tests/conftest.py" "$here/tests/test_vigil_loop.py" "$here/tests/test_asyncio_parity.py" \
     "$here/tests/test_uvicorn.py" "$here/tests/test_proc.py" "$here/tests/test_mq.py" tests/
  # -P and cwd outside the tree: "import vigil" is the installed wheel's
  VIGIL_REQUIRE_UVICORN=1 exec python -P -m pytest -q -rs -p no:cacheprovider --timeout 120 tests
  ;;
*) echo "usage: $0 build|run ..." >&2; exit 2 ;;
esac
