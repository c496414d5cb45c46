"""py-echo: a Python echo server on asyncio's default loop, uvloop, rloop and vigil's loop
(python/), written three ways (lab/py-echo/server.py: asyncio protocol, asyncio streams,
loop.sock_recv/sock_sendall), against the same C client as net-echo (lab/net-echo/
client.c: closed loop per connection, server pinned to CPU 0, client to CPU 1). Every
system runs in the lab's venv of /usr/bin/python3 (lab/common/pyvenv.sh: uvloop and
rloop from PyPI, vigil from the tree), made by the first step. vigil's loop runs on its uring and
epoll backends. Records per system, way and point: requests_per_s,
server_cpu_ns_per_request (every thread of the Python process), rtt_us, client_busy;
and, from separate untimed runs under `perf trace -s` (strace where perf cannot trace;
protocol way, 100 and 1000 connections), syscalls_per_request. Timed rounds (four) alternate the systems per point;
requests_per_s, server CPU and client_busy pool as the median of the rounds."""
import os
import sys

import plotting
import pyvenv
import rounds

NAME = "py-echo"
TITLE = "Python echo server over loopback: asyncio, uvloop, rloop, vigil's loop (server CPU ns per request)"
SEED = ("An asyncio loop on vigil, for programs unchanged: at least 0.97x uvloop's requests/s in every "
        "way, at most 0.9x its server CPU per request (protocols, sock_*) at 100 and 1000 connections, "
        "3x asyncio's default loop with protocols, and on io_uring fewer system calls per request than uvloop.")
PARAMS = ("case", "conns", "msg_bytes")

HERE = os.path.dirname(os.path.abspath(__file__))
COMMON = os.path.join(os.path.dirname(HERE), "common")
DRIVER = os.path.join(COMMON, "echodrive.py")
# (loop, backend)
SYSTEMS = [("asyncio", None), ("uvloop", None), ("rloop", None), ("vigil", "uring"), ("vigil", "epoll")]
WAYS = ("protocol", "streams", "sock")
POINTS = [(c, m) for c in (1, 100, 1000) for m in (64, 4096)]


def _cmd(ctx, s, way, point):
    py = pyvenv.python(ctx)
    cmd = [sys.executable or "/usr/bin/python3", DRIVER, "--bench", NAME, "--bin", ctx.bin, "--server", py,
           f"--server-arg={os.path.join(HERE, 'server.py')}", f"--server-arg=--loop={s[0]}",
           f"--server-arg=--way={way}", "--system", s[0], "--case", way, "--conns", point[0],
           "--msg-bytes", point[1], "--tmp", ctx.tmp]
    return cmd + (["--backend", s[1]] if s[1] else [])


def _name(s):
    return s[0] + (f" {s[1]}" if s[1] else "")


def plan(ctx):
    steps = [pyvenv.step(ctx)]
    n_rounds, secs, warm = (1, 0.3, 0.1) if ctx.quick else (4, 0.5, 0.2)
    cells = [(way, c, m) for way in WAYS for c, m in POINTS]
    steps += rounds.alternate(n_rounds, cells, SYSTEMS, lambda r, cell, s: dict(
        cmd=_cmd(ctx, s, cell[0], cell[1:]) + ["--seconds", secs, "--warmup", warm],
        label=f"round {r + 1}/{n_rounds}: {_name(s)} {cell[0]} conns {cell[1]} {cell[2]} B",
        est_s=secs + warm + 0.8))
    # system-call counts: untimed, the protocol way at 100 and 1000 connections
    for c, m in POINTS:
        if c < 100:
            continue
        for s in SYSTEMS:
            if s[0] == "asyncio":
                continue
            steps.append(dict(cmd=_cmd(ctx, s, "protocol", (c, m)) + ["--count", max(2000, 3 * c), "--warmup", warm],
                              label=f"count: {_name(s)} protocol conns {c} {m} B", est_s=2.5))
    return steps


def plot(rows, ax):
    plotting.echo_cpu_lines(ax, [r for r in rows if r.get("case") == "protocol"], POINTS,
                            "connections x message size (protocol way)")
