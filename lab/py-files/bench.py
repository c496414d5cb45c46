"""py-files (issue 30): files from asyncio, vigil's file API (python/vigil/files.py, on
vigil's file engine in the loop's turn) against aiofiles and anyio (each call a thread
of an executor), and the blocking calls they exist to avoid. 4 KiB reads of cached files
(op `read`), 4 KiB writes over cached files (`write`), stat of 10,000 files (`stat`), 1
and 64 in flight (`inflight`): ops_per_s and cpu_ns_per_op (getrusage of the process:
every thread, the executors' and io_uring's workers too), lab/py-files/py_files.py says
exactly how. Systems: vigil on each backend (uring: the io_uring engine; epoll and poll:
the engine's threads; rows carry `backend` and `engine`), aiofiles and anyio's
open_file / Path.stat on asyncio's default loop, and `python` (case `blocking`): plain
calls on the loop's thread, the floor that stalls the loop. All run in the lab's venv of
/usr/bin/python3 (lab/common/pyvenv.sh), made by the first step. One process per system
and op measures both in-flight counts; systems alternate in rounds (the order rotates by
op and round), pooled as the median round."""
import os

import plotting
import pyvenv
import rounds

NAME = "py-files"
TITLE = "asyncio file I/O: 4 KiB reads, writes, stat of 10,000 files; 1 and 64 in flight (ops/s)"
SEED = ("Issue 30: vigil's file API on its best backend >= 3x the ops/s of aiofiles and of anyio at 64 "
        "in flight, at <= 0.5x their CPU per operation (read, write, stat)")
PARAMS = ("op", "inflight")
BUDGET_S = 80

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = ("read", "write", "stat")
SYSTEMS = [("vigil", "uring"), ("aiofiles", None), ("vigil", "epoll"), ("anyio", None), ("vigil", "poll"),
           ("python", None)]


def _name(s):
    return s[0] + (f" {s[1]}" if s[1] else "")


def plan(ctx):
    py = pyvenv.python(ctx)
    d = os.path.join(ctx.tmp, "py-files")
    n_rounds, secs, warm = (1, 0.2, 0.05) if ctx.quick else (3, 0.3, 0.08)

    def step(r, op, s):
        cmd = [py, os.path.join(HERE, "py_files.py"), "--system", s[0], "--op", op, "--inflight", "1,64",
               "--dir", d, "--seconds", secs, "--warmup", warm]
        if s[1]:
            cmd += ["--backend", s[1]]
        return dict(cmd=cmd, label=f"round {r + 1}/{n_rounds}: {op}: {_name(s)}",
                    est_s=round(2 * (secs + warm) + 0.4 + (1.5 if op == "stat" and r == 0 else 0), 2), timeout_s=120)

    return [pyvenv.step(ctx)] + rounds.alternate(n_rounds, OPS, SYSTEMS, step)


def _series(r):
    return r["system"] + (f" {r['backend']}" if r.get("backend") else "")


def plot(rows, ax, targets=()):
    """ops/s (log scale) by op and in-flight count, one marker series per system."""
    palette = {"vigil uring": "#08306b", "vigil epoll": "#2171b5", "vigil poll": "#6baed6", "aiofiles": "#d62728",
               "anyio": "#2ca02c", "python": "#7f7f7f"}
    plotting.ops_inflight_points(ax, rows, targets, OPS, _series, palette, "operations per second (median round)",
                                 "py-files: ops/s by operation and in-flight count (1, 64)",
                                 label_of=lambda name: name + (" (blocking)" if name == "python" else ""))
