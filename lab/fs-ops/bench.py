"""fs-ops (issue 28): file-system calls without blocking the loop. 10,000 files in one
directory, in the lab's scratch folder on the machine's real file system (the records
carry its type as "fs": ext4 here, not a tmpfs), each operation measured alone (param
`op`): create (create + write 4 KiB + close), stat, read (open + read 4 KiB + close),
rename, unlink, readdir (the whole directory: open, every entry, close); 1 and 64 in
flight (param `inflight`). Metrics: ops_per_s and cpu_ns_per_op (getrusage(RUSAGE_SELF):
every thread of the process -- the thread pools' threads and io_uring's io-wq workers,
which are the process's own threads -- user + system, per operation).

Systems, one program each, alternated in rounds (the order rotates by op and round):
  vigil     the io_uring engine (uring backend), the thread pool ("threads") and the
            Linux AIO engine (whose file-system calls go to the same pool): rows carry
            `engine`
  libuv     uv_fs_* on its thread pool, at its default size (threads=4) and at
            UV_THREADPOOL_SIZE=2 (rows carry `threads`); readdir is uv_fs_scandir
  liburing  a hand-written liburing loop (no readdir: io_uring has no getdents)
  kernel    case "sync": the plain system calls in one thread (inflight 1)
and the io_uring engine's route table (src/file/engine_uring.c): vigil's uring engine
with every file-system call the kernel has forced onto the ring (case "route ring") or
onto the threads ("route threads"), for unlink, rename, mkdir, symlink, link, ftruncate
and fallocate (op "route:<call>"; not targets, the figures that decided the table).
"""
import os
import subprocess

import plotting
import rounds

NAME = "fs-ops"
TITLE = "File-system calls on 10,000 files in one directory, 1 and 64 in flight: operations per second"
SEED = ("Issue 28: vigil's best engine >= 0.95x the faster of libuv (default pool) and liburing at "
        "every op and in-flight count, at no more CPU per operation than libuv")
PARAMS = ("op", "inflight")
BUDGET_S = 300

OPS = ("create", "stat", "read", "rename", "unlink", "readdir")
ROUTE_OPS = ("route:unlink", "route:rename", "route:mkdir", "route:symlink", "route:link", "route:ftruncate",
             "route:fallocate")
SYSTEMS = [  # (label, program, args)
    ("vigil uring", "fo_vigil", ["--engine", "uring"]),
    ("libuv", "fo_libuv", ["--threads", "4"]),
    ("vigil threads", "fo_vigil", ["--engine", "threads"]),
    ("liburing", "fo_liburing", []),
    ("vigil aio", "fo_vigil", ["--engine", "aio"]),
    ("libuv threads=2", "fo_libuv", ["--threads", "2"]),
    ("kernel sync", "fo_sync", ["--inflight", "1"]),
]


def fs_type(path):
    try:
        return subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True,
                              check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def plan(ctx):
    # one round: each step already runs several passes (at least three per point: fo.h FO_MIN_PASSES)
    n_rounds, ms = (1, 30) if ctx.quick else (1, 250)
    d = os.path.join(ctx.tmp, "dir")
    os.makedirs(d, exist_ok=True)
    fs = fs_type(d)
    have = [s for s in SYSTEMS if os.path.exists(os.path.join(ctx.bin, s[1]))]

    def step(r, op, s):
        if s[1] == "fo_liburing" and op == "readdir":
            return None  # io_uring has no getdents
        # create and unlink also remake or remove the 10,000 files before each pass
        est = (0.8 if ctx.quick else 1.2) * (1 if "--inflight" in s[2] else 2) * (2 if op in ("create", "unlink") else 1)
        return dict(cmd=[s[1], "--dir", d, "--op", op, "--ms", str(ms), "--fs", fs] + s[2],
                    label=f"round {r + 1}/{n_rounds}: {op}: {s[0]}", est_s=est, timeout_s=180)
    steps = rounds.alternate(n_rounds, OPS, have, step)
    if os.path.exists(os.path.join(ctx.bin, "fo_vigil")):
        for op in ROUTE_OPS:
            for route in ("ring", "threads"):
                steps.append(dict(cmd=["fo_vigil", "--dir", d, "--op", op, "--ms", str(ms // 2), "--fs", fs,
                                       "--engine", "uring", "--route", route],
                                  label=f"route table: {op}: uring engine, {route}", est_s=2.0,
                                  timeout_s=120))
    return steps


def _series(r):
    s = r["system"]
    if r.get("engine"):
        s += " " + r["engine"]
    if r.get("system") == "libuv":
        s += f" threads={r.get('threads', 4)}"
    return s


def plot(rows, ax, targets=()):
    """ops/s (log scale) by op and in-flight count, one line per system."""
    palette = {"vigil uring": "#08306b", "vigil threads": "#6baed6", "vigil aio": "#2171b5",
               "libuv threads=4": "#d62728", "libuv threads=2": "#ff9896", "liburing": "#2ca02c",
               "kernel": "#7f7f7f"}
    plotting.ops_inflight_points(ax, rows, targets, OPS, _series, palette, "operations per second (median of passes)",
                                 "fs-ops: ops/s by operation and in-flight count (1, 64)")
