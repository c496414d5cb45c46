#!/usr/bin/python3
"""One http-hello step: starts a server pinned to CPU 0 (vigil's examples/http_hello,
or nginx in a private prefix under --tmp), runs `wrk -t1 -c N -d S --latency` pinned to
CPU 1 against it, stops the server and prints the records:

  requests_per_s             wrk's requests / its run time (rounds: "total"/"per")
  server_cpu_ns_per_request  CPU time of every process and thread of the server (nginx:
                             master and worker) over wrk's run, connecting included / requests
  latency_us                 wrk's latency histogram (us; rounds: "hist")
  client_busy                wrk's CPU time / wall time (near 1: wrk, not the server, is the limit)

  driver.py --bin DIR --system vigil|nginx --conns N --seconds S --tmp DIR   (wrk: whole seconds)

Exit 77 (skipped) when the program, nginx or wrk is missing.
"""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import netsrv  # noqa: E402

# wrk reports its latency histogram (1 us buckets) and totals through this script.
WRK_LUA = """\
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("lab-summary %d %d %d %d %d %d %d\\n", summary.requests, summary.duration,
                         e.connect, e.read, e.write, e.status, e.timeout))
  io.write("lab-hist")
  for i = 1, #latency do  -- #latency: the distinct values; latency(i): the i-th and its count
    local v, c = latency(i)
    io.write(string.format(" %d:%d", v, c))
  end
  io.write("\\n")
end
"""


def nginx_argv(tmp, port):
    argv = netsrv.nginx_argv(tmp, port)  # worker_connections 4096, worker_rlimit_nofile 8192
    if not argv:
        netsrv.skip("nginx is not installed (Debian: nginx-light)")
    return argv


def hist_of(line):
    """wrk's 1-us buckets, merged to 3 significant digits (a few hundred buckets)."""
    out = {}
    for item in line.split()[1:]:
        v, c = item.split(":")
        v = int(v)
        q = 10 ** max(0, len(str(v)) - 3)
        k = (v // q) * q + (q - 1) / 2 if q > 1 else v
        out[k] = out.get(k, 0) + int(c)
    return sorted(out.items())


def pctl(hist, q):
    n = sum(c for _, c in hist)
    want, seen = int((n - 1) * q), 0
    for v, c in hist:
        seen += c
        if seen > want:
            return v
    return hist[-1][0]


def run_wrk(wrk, port, conns, seconds, tmp):
    script = os.path.join(tmp, "lab.lua")
    with open(script, "w") as f:
        f.write(WRK_LUA)
    argv = [wrk, "-t1", f"-c{conns}", f"-d{max(1, math.ceil(seconds))}s", "--latency", "-s", script, f"http://127.0.0.1:{port}/"]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=netsrv.pinned(netsrv.CLIENT_CPU))
    t0 = time.monotonic()
    try:
        out, err = p.communicate(timeout=float(seconds) + 60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise RuntimeError("wrk did not finish")
    wall = time.monotonic() - t0
    sys.stderr.write(err)
    if p.returncode != 0:
        raise RuntimeError(f"wrk exited {p.returncode}: {err.strip()[-200:]}")
    return out, wall


def main(argv):
    ap = netsrv.args(__doc__)
    ap.add_argument("--conns", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=1.5)
    a = ap.parse_args(argv)
    wrk = shutil.which("wrk")
    if not wrk:
        netsrv.skip("wrk is not installed")
    if a.system == "vigil":
        prog = os.path.join(a.bin, "http_hello")
        if not os.access(prog, os.X_OK):
            netsrv.skip("program http_hello not built")
        argv_of, ready, case, stop = (lambda port: [prog, port]), "line", "http_hello example", signal.SIGTERM
    else:
        argv_of, ready, case, stop = (lambda port: nginx_argv(a.tmp, port)), "port", "return 200", signal.SIGTERM
    keys = {"bench": "http-hello", "system": a.system, "case": case, "conns": a.conns}
    # netsrv.start: another port if one freed here is taken before the server binds it
    with netsrv.start(argv_of, ready=ready, stop_signal=stop) as srv:
        c0 = srv.cpu_ns()
        r0 = os.times()  # wrk's CPU: this process's reaped children (wrk is the only one)
        out, wall = run_wrk(wrk, srv.port, a.conns, a.seconds, a.tmp)
        r1 = os.times()
        c1 = srv.cpu_ns()
        if not srv.alive():
            raise RuntimeError(f"the server exited during the run (status {srv.p.returncode})")
        rc = srv.stop()
        if rc != 0:
            raise RuntimeError(f"the server did not exit 0 on {stop.name} (status {rc})")
    summary = next((ln.split() for ln in out.splitlines() if ln.startswith("lab-summary ")), None)
    hline = next((ln for ln in out.splitlines() if ln.startswith("lab-hist")), None)
    if not summary or hline is None:
        raise RuntimeError("wrk printed no lab-summary (its Lua script did not run)")
    reqs, dur_us = int(summary[1]), int(summary[2])
    errs = dict(zip(("connect", "read", "write", "status", "timeout"), map(int, summary[3:8])))
    print(f"http-hello {a.system} conns {a.conns}: {reqs} requests in {dur_us / 1e6:.2f} s "
          f"({reqs / (dur_us / 1e6):.0f}/s), server {(c1 - c0) / max(reqs, 1):.0f} ns/request, errors {errs}",
          file=sys.stderr)
    if reqs == 0:
        raise RuntimeError("no request completed")
    if errs["status"] or errs["connect"]:
        raise RuntimeError(f"wrk saw errors: {errs}")
    hist = hist_of(hline)
    busy = (r1.children_user + r1.children_system - r0.children_user - r0.children_system) * 1e9
    recs = [dict(keys, metric="requests_per_s", value=round(reqs / (dur_us / 1e6), 4), total=reqs, per=dur_us / 1e6),
            dict(keys, metric="server_cpu_ns_per_request", value=round((c1 - c0) / reqs, 4), total=c1 - c0, per=reqs),
            dict(keys, metric="latency_us", value=pctl(hist, 0.5), p50=pctl(hist, 0.5), p99=pctl(hist, 0.99),
                 n=sum(c for _, c in hist), hist=[[v, c] for v, c in hist]),
            dict(keys, metric="client_busy", value=round(busy / (wall * 1e9), 4), total=busy, per=wall * 1e9)]
    for r in recs:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
