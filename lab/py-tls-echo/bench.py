"""py-tls-echo: py-echo's protocol way over TLS 1.3 (loop.create_server(ssl=...), the
echo in data_received; lab/py-tls-echo/server.py) on asyncio's default loop, uvloop,
rloop and vigil's loop (uring and epoll backends), against a C client on OpenSSL
(tls_echo_client.c: 100 TLS 1.3 connections, each a closed loop of one message and its
echo; the handshakes are made first and not timed), 64 B and 4 KiB messages. Server on
CPU 0, client on CPU 1. A loop that cannot serve TLS is skipped with the reason printed
(rloop: its README lists SSL as not supported; its create_server(ssl=...) raises
NotImplementedError). The certificate (self-signed, P-256) is made by openssl into the
build dir on the first run.

One step (driver.py) starts every server once, on a port each, and alternates them at
each point, the order rotated by one from point to point and round to round. Records:
requests_per_s, server_cpu_ns_per_request (every thread of the server, /proc), rtt_us,
client_busy; the first two and client_busy are the medians of the rounds, with the
extreme rounds as min and max (the spread)."""
import os
import sys

import plotting
import pyvenv

NAME = "py-tls-echo"
TITLE = "Python TLS 1.3 echo server (asyncio protocols): asyncio, uvloop, rloop, vigil's loop (requests/s, server CPU)"
SEED = ("vigil's loop serving TLS 1.3 the way asyncio programs do (create_server(ssl=...)): at 100 connections, "
        "64 B and 4 KiB, at least 0.97x uvloop's requests/s at no more server CPU per request.")
PARAMS = ("conns", "msg_bytes")
BUDGET_S = 85  # the venv step (~12 s), 5 servers started, 4 loops x 2 points x 6 rounds of ~1.35 s
# (100 handshakes, 0.2 s warm-up, 0.8 s measured)

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEMS = "asyncio,uvloop,rloop,vigil:uring,vigil:epoll"
POINTS = ((100, 64), (100, 4096))


def plan(ctx):
    n_rounds, secs, warm = (2, 0.5, 0.2) if ctx.quick else (6, 0.8, 0.2)
    cert_dir = os.path.join(os.path.dirname(os.path.abspath(ctx.bin)), "py-tls-echo-cert")
    runs = n_rounds * len(POINTS) * 4
    return [pyvenv.step(ctx),
            dict(cmd=[sys.executable or "/usr/bin/python3", os.path.join(HERE, "driver.py"), "--bin", ctx.bin,
                      "--python", pyvenv.python(ctx), "--cert", os.path.join(cert_dir, "cert.pem"),
                      "--key", os.path.join(cert_dir, "key.pem"), "--rounds", n_rounds, "--seconds", secs,
                      "--warmup", warm, "--systems", SYSTEMS, "--points", ",".join(f"{c}x{m}" for c, m in POINTS)],
                 label=f"{n_rounds} rounds x {len(POINTS)} points x 4 loops", est_s=runs * (secs + warm + 0.35) + 5)]


def plot(rows, ax, targets=()):
    """requests/s per message size, one bar per loop (min..max of the rounds); the label
    gives the server CPU per request."""
    rps = [r for r in rows if r.get("metric") == "requests_per_s"]
    if not rps:
        return
    name = lambda r: r["system"] + (f" {r['backend']}" if r.get("backend") else "")  # noqa: E731
    cpu = {(name(r), int(r["msg_bytes"])): float(r["value"]) for r in rows if r.get("metric") == "server_cpu_ns_per_request"}
    names = list(dict.fromkeys(name(r) for r in sorted(rps, key=lambda r: SYSTEMS.index(r["system"]))))
    plotting.rps_bars(ax, names, len(POINTS),
                      lambda n, gi: next((r for r in rps if name(r) == n and int(r["conns"]) == POINTS[gi][0]
                                          and int(r["msg_bytes"]) == POINTS[gi][1]), None),
                      lambda n, gi: cpu.get((n, POINTS[gi][1])))
    ax.set_xticklabels([f"{c} conns x {m} B" for c, m in POINTS])
    ax.set_ylabel("requests/s, thousands (median, min..max of the rounds;\nlabel: server CPU per request, us)")
    ax.legend(fontsize=8)
