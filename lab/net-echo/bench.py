"""net-echo: TCP echo over loopback, closed loop per connection: each of `conns`
connections sends msg_bytes, waits for the whole echo and sends again. One server
process pinned to CPU 0, one client pinned to CPU 1, the same client for every server
(client.c: liburing, one io_uring_submit_and_wait per turn for all its sends and
receives, so the client stays cheap and reports its own busy share, client_busy).
Servers, each its own program, none busy-polling: a hand-written level-triggered epoll
server (kernel, case epoll), a hand-written liburing server (multishot accept and
receive from a provided-buffer ring, single issuer + defer taskrun), libuv streams,
libevent bufferevents, libev ev_io watchers, and vigil's own examples/echo_server on
its uring and epoll backends (VIGIL_BACKEND). Records per server and point:
requests_per_s, server_cpu_ns_per_request (every thread of the server process, read
from /proc around the window), rtt_us (p50/p99 over round trips), client_busy, and from
separate, untimed runs under `perf trace -s` (strace where perf cannot trace; the
median of three per server at 1 connection and of five from 100 up),
syscalls_per_request. A timed round of a point is one step (driver.py) with every server
side by side: all started at once, one client connected to all of them, the servers
taking turns of 0.25 s (two each, A B C .. C B A, the first server rotating from round
to round and point to point), so that a slow spell of the shared machine falls on every
server alike. run.py pools the rounds: seven rounds, requests_per_s, server CPU and
client_busy as their median, rtt_us over every round trip."""
import os
import sys

import plotting
import rounds

NAME = "net-echo"
TITLE = "TCP echo over loopback, closed loop per connection (server CPU ns per request)"
SEED = ("A completion-based sockets API: vigil's echo server at most 1.03x the server CPU per "
        "request of the better hand-written server (epoll, liburing), below libuv, libevent and "
        "libev, at least 0.97x the best requests/s, and on io_uring no more system calls per "
        "request than hand-written liburing (+0.02).")

# (program, system, case, backend)
SYSTEMS = [("srv_epoll", "kernel", "epoll", None),
           ("srv_liburing", "liburing", "multishot defer_taskrun", None),
           ("net_echo_libuv", "libuv", "streams", None),
           ("net_echo_libevent", "libevent", "bufferevent", None),
           ("net_echo_libev", "libev", "ev_io", None),
           ("echo_server", "vigil", "echo_server example", "uring"),
           ("echo_server", "vigil", "echo_server example", "epoll")]
POINTS = [(c, m) for c in (1, 100, 1000) for m in (64, 4096)]
PARAMS = ("conns", "msg_bytes")
TURNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver.py")
DRIVER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common", "echodrive.py")


def _cmd(ctx, s, point):
    cmd = [sys.executable or "/usr/bin/python3", DRIVER, "--bin", ctx.bin, "--server", s[0], "--system", s[1],
           "--case", s[2], "--conns", point[0], "--msg-bytes", point[1], "--tmp", ctx.tmp]
    return cmd + (["--backend", s[3]] if s[3] else [])


def _name(s):
    return s[1] + (f" {s[3]}" if s[3] else "")


def plan(ctx):
    n_rounds, secs, slice_, warm = (1, 0.3, 0.15, 0.1) if ctx.quick else (7, 0.5, 0.25, 0.2)
    turns = max(1, round(secs / slice_))
    steps = []
    for r in range(n_rounds):
        for pi, pt in enumerate(POINTS):
            k = (r + pi) % len(SYSTEMS)
            order = SYSTEMS[k:] + SYSTEMS[:k]
            cmd = [sys.executable or "/usr/bin/python3", TURNS, "--bin", ctx.bin, "--conns", pt[0], "--msg-bytes", pt[1],
                   "--seconds", secs, "--slice", slice_, "--warmup", warm]
            for s in order:
                cmd += ["--srv", ",".join(x for x in s if x)]
            # per server: its warm-up, its turns (each SETTLE_S uncounted and a drain), its start and stop
            steps.append(dict(cmd=cmd, label=f"round {r + 1}/{n_rounds}: conns {pt[0]} {pt[1]} B, {_name(order[0])} first",
                              est_s=len(SYSTEMS) * (warm + secs + turns * 0.07 + 0.25) + 0.5))
    # the counting runs: untimed, after every timed round; 30 requests per connection (at
    # least 3,000); per server and point the median of three runs at 1 connection (the
    # count is exact there: one turn per request) and of five from 100 up, where how many
    # requests share a turn depends on how client and server fall into step: a run falls
    # into a phase of smaller turns now and then, for either io_uring server (of three
    # runs, two such made the median of 20261126T221345Z 0.08 instead of 0.025). Only the
    # two io_uring servers the claim compares (vigil on io_uring, hand-written liburing) get
    # the repeats; the others' counts, shown beside them, come from one run each (this
    # saves about 3 minutes of the lab's 45).
    reps = 1 if ctx.quick else 5
    for rep in range(reps):
        for pt in POINTS:
            if rep >= 3 and pt[0] == 1:
                continue
            n = max(1000, 3 * pt[0]) if ctx.quick else max(3000, 30 * pt[0])
            for s in SYSTEMS:
                if rep >= 1 and not (s[1] == "liburing" or s[3] == "uring"):
                    continue
                steps.append(dict(cmd=_cmd(ctx, s, pt) + ["--count", n, "--warmup", warm],
                                  label=f"count {rep + 1}/{reps}: {_name(s)} conns {pt[0]} {pt[1]} B", est_s=2.5))
    return steps


def plot(rows, ax):
    plotting.echo_cpu_lines(ax, rows, POINTS, "connections x message size")
