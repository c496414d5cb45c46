"""wrk as the lab's HTTP load generator (http-hello, https-hello, py-http):
`wrk -t1 -cN -dS --latency` pinned to one CPU, its totals, errors and 1-us latency
histogram read through a Lua `done` hook.

  out = run(wrk, port, conns, seconds, tmp, cpu, headers=(), scheme="http", env=None)
  out -> {"requests", "duration_s", "errors": {connect, read, write, status, timeout},
          "hist": [(us, count), ...] (merged to 3 significant digits), "wall_s", "cpu_ns",
          "stderr"}
  records(keys, out, server_cpu_ns) -> the four records of a wrk run (requests_per_s,
          server_cpu_ns_per_request, latency_us, client_busy); raises when no request
          completed or wrk saw connect or status errors

wrk counts whole seconds (-d takes an integer). cpu_ns is wrk's own CPU time (user +
system, of the children this process reaped meanwhile: wrk alone): near wall_s * 1e9 means wrk, not the server, is the limit.
"""
import math
import os
import subprocess
import time

LUA = """\
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
    """The value at rank floor((n-1)*q) of a sorted [(value, count)] list."""
    n = sum(c for _, c in hist)
    want, seen = int((n - 1) * q), 0
    for v, c in hist:
        seen += c
        if seen > want:
            return v
    return hist[-1][0]


def _pin(cpu):
    def f():
        os.sched_setaffinity(0, {cpu})
    return f


def run(wrk, port, conns, seconds, tmp, cpu, headers=(), scheme="http", env=None):
    script = os.path.join(tmp, "wrkrun.lua")
    if not os.path.exists(script):
        with open(script, "w") as f:
            f.write(LUA)
    argv = [wrk, "-t1", f"-c{conns}", f"-d{max(1, math.ceil(seconds))}s", "--latency", "-s", script]
    for h in headers:
        argv += ["-H", h]
    argv.append(f"{scheme}://127.0.0.1:{port}/")
    t0, r0 = time.monotonic(), os.times()  # wrk's CPU: the reaped children's (no other child ends meanwhile)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=_pin(cpu))
    try:
        out, err = p.communicate(timeout=float(seconds) + 60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise RuntimeError("wrk did not finish")
    wall, r1 = time.monotonic() - t0, os.times()
    if p.returncode != 0:
        raise RuntimeError(f"wrk exited {p.returncode}: {err.strip()[-200:]}")
    summary = next((ln.split() for ln in out.splitlines() if ln.startswith("lab-summary ")), None)
    hline = next((ln for ln in out.splitlines() if ln.startswith("lab-hist")), None)
    if not summary or hline is None:
        raise RuntimeError("wrk printed no lab-summary (its Lua script did not run)")
    errs = dict(zip(("connect", "read", "write", "status", "timeout"), map(int, summary[3:8])))
    return {"requests": int(summary[1]), "duration_s": int(summary[2]) / 1e6, "errors": errs,
            "hist": hist_of(hline), "wall_s": wall, "stderr": err,
            "cpu_ns": (r1.children_user + r1.children_system - r0.children_user - r0.children_system) * 1e9}


def records(keys, out, server_cpu_ns):
    """The records of one wrk run against a server that used server_cpu_ns meanwhile."""
    reqs, dur, errs = out["requests"], out["duration_s"], out["errors"]
    if reqs == 0:
        raise RuntimeError(f"{keys.get('system')}: no request completed")
    if errs["status"] or errs["connect"]:
        raise RuntimeError(f"{keys.get('system')}: wrk saw errors: {errs}")
    hist, busy, wall_ns = out["hist"], out["cpu_ns"], out["wall_s"] * 1e9
    return [dict(keys, metric="requests_per_s", value=round(reqs / dur, 4), total=reqs, per=dur),
            dict(keys, metric="server_cpu_ns_per_request", value=round(server_cpu_ns / reqs, 4), total=server_cpu_ns,
                 per=reqs),
            dict(keys, metric="latency_us", value=pctl(hist, 0.5), p50=pctl(hist, 0.5), p99=pctl(hist, 0.99),
                 n=sum(c for _, c in hist), hist=[[v, c] for v, c in hist]),
            dict(keys, metric="client_busy", value=round(busy / wall_ns, 4), total=busy, per=wall_ns)]
