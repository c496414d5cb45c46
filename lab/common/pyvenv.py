"""The lab's Python, for the Python benchmarks (py-echo, py-timers, py-http, py-tls-echo): a venv of Debian's
/usr/bin/python3 under the build dir (beside the lab's programs' folder) with uvloop from
PyPI and vigil's loop from the tree, made by lab/common/pyvenv.sh as each benchmark's
first step (cheap when up to date)."""
import os

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyvenv.sh")


def path(ctx):
    """The venv's folder: <build>/rel/pyvenv-lab for programs in <build>/rel/lab."""
    return os.path.join(os.path.dirname(os.path.abspath(ctx.bin)), "pyvenv-lab")


def python(ctx):
    """The venv's interpreter."""
    return os.path.join(path(ctx), "bin", "python")


def step(ctx):
    """The step that makes or updates the venv."""
    return dict(cmd=["/bin/bash", SCRIPT, path(ctx)], label="venv (uvloop, rloop, aiofiles, anyio, aiohttp, uvicorn, vigil)", est_s=60, timeout_s=900)
