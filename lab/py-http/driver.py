#!/usr/bin/python3
"""One py-http step: one framework's "hello" server on every loop at once, each on a
port of its own, all pinned to CPU 0, then wrk (pinned to CPU 1) against each in turn,
round after round, the loops' order rotated by one from point to point and round to
round. Starting every server once and alternating them at each point is what makes the
ratios hold on this machine: the same server under wrk moves by up to 2x between rounds
a few seconds apart.

  driver.py --python PY --framework aiohttp|uvicorn --rounds N --seconds S --tmp DIR
            [--systems asyncio,uvloop,rloop,vigil:uring,vigil:epoll] [--points 100,1000,churn100]

aiohttp: lab/py-http/aiohttp_hello.py --loop L PORT (aiohttp.web's AppRunner).
uvicorn: PY -m uvicorn asgi_hello:app --http httptools --loop L (uvicorn's own CLI; L is
asyncio, uvloop, or its documented custom form module:function for rloop and vigil:
rloop:new_event_loop, vigil:new_event_loop), no access log, no lifespan.
vigil's loop runs on the backend named after the colon (VIGIL_BACKEND).

Points: N (keep-alive, N connections; case = the framework's name) and churnN (wrk sends
`Connection: close`: a new connection per request; case "<framework> churn").
Every round prints, per system and point:
  requests_per_s             wrk's requests / its run time
  server_cpu_ns_per_request  the server process's CPU (every thread, /proc/PID/task/*/
                             schedstat) over wrk's run, connecting included / requests
  latency_us                 wrk's histogram (rounds: "hist", merged over the rounds)
  client_busy                wrk's CPU / wall (near 1: wrk, not the server, is the limit)
The first two and client_busy say "pool": "median": run.py takes the median of the
rounds and keeps the extreme rounds as min and max (the spread).
A system whose loop is not installed is skipped with the reason on stderr; exit 77 when
wrk is missing or no server started.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
import netsrv  # noqa: E402
import wrkrun  # noqa: E402

UVICORN_LOOP = {"asyncio": "asyncio", "uvloop": "uvloop", "rloop": "rloop:new_event_loop", "vigil": "vigil:new_event_loop"}
IMPORT = {"uvloop": "uvloop", "rloop": "rloop", "vigil": "vigil"}
MEDIAN_POOLED = ("requests_per_s", "server_cpu_ns_per_request", "client_busy")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def server_argv(a, loop, port):
    if a.framework == "aiohttp":
        return [a.python, os.path.join(HERE, "aiohttp_hello.py"), "--loop", loop, port], "line"
    return [a.python, "-m", "uvicorn", "asgi_hello:app", "--app-dir", HERE, "--host", "127.0.0.1", "--port", port,
            "--http", "httptools", "--loop", UVICORN_LOOP[loop], "--lifespan", "off", "--no-access-log",
            "--log-level", "warning", "--backlog", "4096", "--timeout-keep-alive", "3600"], "port"


def missing(a, loop):
    """Why the loop (or the framework) cannot run in a.python, or None."""
    mods = [IMPORT[loop]] if loop in IMPORT else []
    mods += ["aiohttp"] if a.framework == "aiohttp" else ["uvicorn", "httptools"]
    r = subprocess.run([a.python, "-c", "import " + ", ".join(mods)], capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stderr.strip().splitlines() or ["import failed"])[-1]


def point_of(p):
    churn = p.startswith("churn")
    return int(p[5:] if churn else p), churn


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", required=True)
    ap.add_argument("--framework", choices=("aiohttp", "uvicorn"), required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=1)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--systems", default="asyncio,uvloop,rloop,vigil:uring,vigil:epoll")
    ap.add_argument("--points", default="100,1000,churn100")
    a = ap.parse_args(argv)
    wrk = shutil.which("wrk")
    if not wrk:
        netsrv.skip("wrk is not installed")
    systems = [tuple(s.split(":")) if ":" in s else (s, None) for s in a.systems.split(",")]
    points = [point_of(p) for p in a.points.split(",")]
    servers = {}
    try:
        for s in systems:
            why = missing(a, s[0])
            if why:
                log(f"py-http: {a.framework} on {s[0]} skipped: {why}")
                continue
            env = {"VIGIL_BACKEND": s[1]} if s[1] else {}
            servers[s] = netsrv.start(lambda port, s=s: server_argv(a, s[0], port)[0], env=env,
                                      ready=server_argv(a, s[0], 0)[1], stop_signal=signal.SIGTERM, nofile=8192,
                                      timeout=30.0)
            log(f"py-http: {a.framework} on {s[0]}{' ' + s[1] if s[1] else ''}: pid {servers[s].pid} port {servers[s].port}")
        if not servers:
            netsrv.skip(f"no {a.framework} server started")
        live = [s for s in systems if s in servers]
        # Warm-up, untimed: every server answers a short run first (imports, caches, the
        # allocator's arenas), so the first round is not the one that pays for it.
        for s in live:
            wrkrun.run(wrk, servers[s].port, 50, 1, a.tmp, netsrv.CLIENT_CPU)
        for r in range(a.rounds):
            for pi, (conns, churn) in enumerate(points):
                k = (r + pi) % len(live)
                for s in live[k:] + live[:k]:
                    one(a, wrk, servers[s], s, conns, churn, r)
        for s in live:
            srv = servers[s]
            if not srv.alive():
                raise RuntimeError(f"the {s[0]} server exited (status {srv.p.returncode})")
            rc = srv.stop(timeout=10)
            # uvicorn re-raises the signal it caught once it has shut down (its documented
            # behaviour since 0.29): killed by SIGTERM after a clean shutdown is its exit 0.
            if rc not in (0, -signal.SIGTERM if a.framework == "uvicorn" else 0):
                raise RuntimeError(f"the {s[0]} server did not exit cleanly on SIGTERM (status {rc})")
    finally:
        for srv in servers.values():
            srv.kill()
    return 0


def one(a, wrk, srv, s, conns, churn, r):
    case = a.framework + (" churn" if churn else "")
    keys = {"bench": "py-http", "system": s[0], "case": case}
    if s[1]:
        keys["backend"] = s[1]
    keys["conns"] = conns
    c0 = srv.cpu_ns()
    out = wrkrun.run(wrk, srv.port, conns, a.seconds, a.tmp, netsrv.CLIENT_CPU,
                     headers=("Connection: close",) if churn else ())
    c1 = srv.cpu_ns()
    if not srv.alive():
        raise RuntimeError(f"the {s[0]} server exited during the run (status {srv.p.returncode})")
    reqs, dur, errs = out["requests"], out["duration_s"], out["errors"]
    log(f"py-http round {r + 1}: {case} {s[0]}{' ' + s[1] if s[1] else ''} conns {conns}: {reqs / dur:.0f}/s, "
        f"server {(c1 - c0) / max(reqs, 1):.0f} ns/request, wrk busy {out['cpu_ns'] / (out['wall_s'] * 1e9):.2f}, "
        f"errors {errs}")
    if reqs == 0:
        raise RuntimeError(f"{s[0]}: no request completed")
    if errs["status"] or errs["connect"]:
        raise RuntimeError(f"{s[0]}: wrk saw errors: {errs}")
    hist = out["hist"]
    recs = [dict(keys, metric="requests_per_s", value=round(reqs / dur, 4), total=reqs, per=dur),
            dict(keys, metric="server_cpu_ns_per_request", value=round((c1 - c0) / reqs, 4), total=c1 - c0, per=reqs),
            dict(keys, metric="latency_us", value=wrkrun.pctl(hist, 0.5), p50=wrkrun.pctl(hist, 0.5),
                 p99=wrkrun.pctl(hist, 0.99), n=sum(c for _, c in hist), hist=[[v, c] for v, c in hist]),
            dict(keys, metric="client_busy", value=round(out["cpu_ns"] / (out["wall_s"] * 1e9), 4), total=out["cpu_ns"],
                 per=out["wall_s"] * 1e9)]
    for rec in recs:
        if rec["metric"] in MEDIAN_POOLED:
            rec["pool"] = "median"
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
