#!/usr/bin/env bash
# The Python loop's tests under ctest (tests/python/CMakeLists.txt).
#   ctest.sh venv <venv dir>                 create/refresh the venv, install vigil from the tree
#   ctest.sh run <venv dir> <test file> [backend]
# The venv is the project's own, under the build dir, made with Debian's /usr/bin/python3
# (3.11; PYTHON=... overrides): pip installs pytest and pytest-timeout from PyPI and the
# package from python/ (the extension is built by pip, without the sanitizer flags of the
# ASan build, so a normal python can load it). Exit 77 = skipped, with a SKIP: line.
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-/usr/bin/python3}"
cmd="$1"; venv="$2"
case "$cmd" in
venv)
  [ -x "$py" ] || { echo "SKIP: $py not found"; exit 77; }
  "$py" -c 'import venv, ensurepip' 2>/dev/null || { echo "SKIP: $py has no venv/ensurepip (Debian: python3-venv)"; exit 77; }
  "$py" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || { echo "SKIP: Python.h missing (Debian: python3-dev)"; exit 77; }
  set -e
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pytest, pytest_timeout, setuptools, wheel' 2>/dev/null; then
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check pytest pytest-timeout "setuptools>=61" wheel
  fi
  # Build in a scratch copy of nothing: pip builds in the tree (python/build is ignored).
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
    --force-reinstall "$here"
  "$venv/bin/python" -c 'import vigil; print("vigil", vigil.__file__, "libvigil", vigil.libvigil_version)'
  ;;
run)
  test="$3"; backend="${4:-}"
  [ -x "$venv/bin/python" ] || { echo "SKIP: no venv (the python.venv test was skipped)"; exit 77; }
  if [ -n "$backend" ]; then
    export VIGIL_BACKEND="$backend"
    why=$("$venv/bin/python" -c "import vigil,sys
try: vigil.new_event_loop(backend='$backend').close()
except OSError as e: print(e); sys.exit(1)") || { echo "SKIP: backend $backend not available: $why"; exit 77; }
  fi
  case "$test" in *cpython*)
    "$venv/bin/python" -c 'import test.test_asyncio.test_events' 2>/dev/null \
      || { echo "SKIP: CPython's test package missing (Debian: libpython3.11-testsuite)"; exit 77; } ;;
  esac
  # -P: the source tree (cwd) stays off sys.path, so "import vigil" is the installed
  # package with its compiled _core, not python/vigil/ (which has none in a clean clone).
  cd "$here" && exec "$venv/bin/python" -P -m pytest -q -rs -p no:cacheprovider --timeout 120 "tests/$test"
  ;;
*) echo "usage: $0 venv|run ..." >&2; exit 2 ;;
esac
