#!/usr/bin/env bash
# The lab's Python: a venv of Debian's /usr/bin/python3 under the build dir with uvloop,
# rloop, aiofiles, anyio, aiohttp, uvicorn and httptools (PyPI) and vigil's loop (python/, built by pip from the tree),
# shared by the Python benchmarks (py-timers, py-echo, py-files, py-http, py-tls-echo); each runs it as its first
# step (cheap when up to date). Usage: pyvenv.sh <dir>
set -eu
venv="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"  # lab/common/ -> the repository
py=/usr/bin/python3
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check "setuptools>=61" wheel >&2
"$venv/bin/python" -c 'import uvloop' 2>/dev/null || "$venv/bin/python" -m pip install -q --disable-pip-version-check uvloop >&2 \
  || echo "lab: uvloop could not be installed; its steps will be skipped" >&2
# rloop (PyPI, an asyncio loop written in Rust): py-echo's fourth loop (issue 30)
"$venv/bin/python" -c 'import rloop' 2>/dev/null || "$venv/bin/python" -m pip install -q --disable-pip-version-check rloop >&2 \
  || echo "lab: rloop could not be installed; its steps will be skipped" >&2
# aiofiles and anyio (PyPI): py-files' peers, file calls on executor threads (issue 30)
for m in aiofiles anyio; do
  "$venv/bin/python" -c "import $m" 2>/dev/null || "$venv/bin/python" -m pip install -q --disable-pip-version-check $m >&2 \
    || echo "lab: $m could not be installed; its steps will be skipped" >&2
done
# aiohttp, uvicorn and httptools (PyPI): the frameworks py-http serves "hello" with (issue 30)
"$venv/bin/python" -c 'import aiohttp, uvicorn, httptools' 2>/dev/null \
  || "$venv/bin/python" -m pip install -q --disable-pip-version-check aiohttp uvicorn httptools >&2 \
  || echo "lab: aiohttp/uvicorn/httptools could not be installed; py-http's steps will be skipped" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall "$root/python" >&2
