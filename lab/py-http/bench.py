"""py-http: real Python web frameworks on four asyncio loops, under wrk. An aiohttp.web
"hello" app (lab/py-http/aiohttp_hello.py) and a raw ASGI "hello" app under uvicorn with
httptools (asgi_hello.py, started by uvicorn's own CLI: `--loop uvloop`, `--loop
rloop:new_event_loop`, `--loop vigil:new_event_loop`), each on asyncio's default loop,
uvloop, rloop (PyPI) and vigil's loop (python/) on its uring and epoll backends, every
answer 200 "Hello, world!\\n". Servers pinned to CPU 0, `wrk -t1` to CPU 1; 100 and 1000
keep-alive connections (case `aiohttp` / `uvicorn`), and 100 connections with a new
connection per request (wrk's `-H "Connection: close"`; case `aiohttp churn` / `uvicorn
churn`). Records per system and point: requests_per_s, server_cpu_ns_per_request (the
server process's CPU from /proc over wrk's run), latency_us (p50/p99 of wrk's histogram,
merged over the rounds), client_busy.

HTTP under wrk is noisy here (one server moved by up to 2x between 5 s rounds), so one
step per framework (lab/py-http/driver.py) starts that framework's five servers once, on a
port each, and runs wrk against them in turn, the order rotated at each point and round;
seven rounds of 1 s (wrk counts whole seconds) per point and system. requests_per_s,
server CPU and client_busy are the medians of the rounds, with the extreme rounds as
`min` and `max` (the spread) in the row."""
import os
import sys

import plotting
import pyvenv

NAME = "py-http"
TITLE = "aiohttp and uvicorn 'hello' on asyncio, uvloop, rloop, vigil's loop under wrk (requests/s, server CPU per request)"
SEED = ("vigil's loop under the frameworks people deploy: with aiohttp and with uvicorn (httptools), at 100 and "
        "1000 keep-alive connections, at least 0.97x uvloop's and rloop's requests/s at no more server CPU per "
        "request than uvloop; with a new connection per request, at least 0.97x uvloop's requests/s.")
PARAMS = ("conns",)  # the case (framework, churn) names the series: one row per loop and case
BUDGET_S = 290  # 2 frameworks x 3 points x 5 servers x 7 rounds of 1 s wrk runs (~1.1 s each) + warm-up, starts

HERE = os.path.dirname(os.path.abspath(__file__))
FRAMEWORKS = ("aiohttp", "uvicorn")
SYSTEMS = "asyncio,uvloop,rloop,vigil:uring,vigil:epoll"
POINTS = ("100", "1000", "churn100")


def plan(ctx):
    steps = [pyvenv.step(ctx)]
    n_rounds = 3 if ctx.quick else 7
    for fw in FRAMEWORKS:
        runs = n_rounds * len(POINTS) * len(SYSTEMS.split(","))
        steps.append(dict(cmd=[sys.executable or "/usr/bin/python3", os.path.join(HERE, "driver.py"),
                               "--python", pyvenv.python(ctx), "--framework", fw, "--rounds", n_rounds,
                               "--seconds", 1, "--tmp", ctx.tmp, "--systems", SYSTEMS, "--points", ",".join(POINTS)],
                          label=f"{fw}: {n_rounds} rounds x {len(POINTS)} points x 5 servers (1 s wrk runs)",
                          est_s=runs * 1.15 + 15))
    return steps


def _name(r):
    return r["system"] + (f" {r['backend']}" if r.get("backend") else "")


def plot(rows, ax, targets=()):
    """requests/s per (framework, point), one bar per loop with its min..max spread;
    the label gives the server CPU per request."""
    rps = [r for r in rows if r.get("metric") == "requests_per_s"]
    if not rps:
        return
    cpu = {(_name(r), r["case"], int(r["conns"])): float(r["value"]) for r in rows
           if r.get("metric") == "server_cpu_ns_per_request"}
    groups = [(fw + (" churn" if p.startswith("churn") else ""), int(p.replace("churn", ""))) for fw in FRAMEWORKS
              for p in POINTS]
    names = list(dict.fromkeys(_name(r) for r in sorted(rps, key=lambda r: SYSTEMS.index(r["system"]))))
    plotting.rps_bars(ax, names, len(groups),
                      lambda n, gi: next((r for r in rps if _name(r) == n and r["case"] == groups[gi][0]
                                          and int(r["conns"]) == groups[gi][1]), None),
                      lambda n, gi: cpu.get((n,) + groups[gi]), fontsize=6)
    ax.set_xticklabels([f"{case}\n{conns} conns" for case, conns in groups], fontsize=8)
    ax.set_ylabel("requests/s, thousands (median, min..max of the rounds;\nlabel: server CPU per request, us)")
    ax.legend(fontsize=7, ncol=3)
