#!/usr/bin/python3
"""One net-fair step: starts a server pinned to CPU 0 (its file limit raised to what the
connections need, in that process only), runs net_fair_client (client.c) pinned to CPU 1
against it, stops the server and prints the records (keys: system, case, backend for
vigil, workload, conns):

  jain_index      Jain's fairness index of the bytes each connection received in the
                  measured time: (sum x)^2 / (n * sum x^2); 1.0 = perfectly fair
  starved_conns   connections that received nothing in at least one 1 s window
  late_ms         a client connecting 2 s into the measured time (QUICK: 0.5 s): ms from
                  its connect() to the end of its first answer (late_answered 0: never
                  answered; the value is then the time it waited, up to 10 s after the end)
  bytes_per_conn  the bytes of each connection in the measured time (samples: median,
                  p99, min, max, mean)
  requests_per_s  answers per second, all connections
  server_busy     the server's CPU time (every process and thread: nginx's master and
                  worker) / the measured wall time, from /proc/<pid>/task/*/schedstat
  client_busy     the client's CPU time / the same wall time

Each record says `limit`: "server" when the server's busy share is at least the client's
(the run counts: the server, not the client, is the bottleneck), else "client".

  driver.py --bin DIR --system vigil|kernel|liburing|nginx [--backend B] --workload echo|http
            --conns N --seconds S --warmup W --late-at T --tmp DIR

Exit 77 (skipped) when a program or nginx is missing.
"""
import argparse
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import netsrv  # noqa: E402

CLIENT = "net_fair_client"


def skip(why):
    print(f"skip: {why}", file=sys.stderr)
    sys.exit(77)


def prog(bin_dir, name):
    p = os.path.join(bin_dir, name)
    if not os.access(p, os.X_OK):
        skip(f"program {name} not built")
    return p


def server_of(a, port):
    """(argv, env, case, ready) of the server asked for, on port."""
    http = a.workload == "http"
    if a.system == "vigil":
        name = "http_hello" if http else "echo_server"
        return [prog(a.bin, name), port], {"VIGIL_BACKEND": a.backend}, f"{name} example", "line"
    if a.system == "kernel":
        return [prog(a.bin, "srv_epoll"), port] + (["http"] if http else []), {}, "epoll", "line"
    if a.system == "liburing":
        return [prog(a.bin, "srv_liburing"), port] + (["http"] if http else []), {}, "multishot", "line"
    if not http:
        skip("nginx runs the http workload only")
    # worker_connections twice the connections: below 1/16 of them free, nginx closes idle
    # keep-alive connections itself (at conns + 64 it closed 32 of the 1,000 in each run)
    argv = netsrv.nginx_argv(a.tmp, port, conns=2 * a.conns + 64, nofile=2 * a.conns + 128)
    if not argv:
        skip("nginx is not installed (Debian: nginx-light)")
    return argv, {}, "return 200", "port"


def jain(xs):
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else 0.0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--system", choices=("vigil", "kernel", "liburing", "nginx"), required=True)
    ap.add_argument("--backend")
    ap.add_argument("--workload", choices=("echo", "http"), required=True)
    ap.add_argument("--conns", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=1)
    ap.add_argument("--late-at", type=float, default=2)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args(argv)
    client = prog(a.bin, CLIENT)
    _, env, case, ready = server_of(a, 0)
    keys = {"bench": "net-fair", "system": a.system, "case": case}
    if a.system == "vigil":
        keys["backend"] = a.backend
    keys.update(workload=a.workload, conns=a.conns)
    with netsrv.start(lambda port: server_of(a, port)[0], env=env, ready=ready, stop_signal=signal.SIGTERM,
                      nofile=2 * a.conns + 128) as srv:
        port = srv.port
        pids = srv.pids()
        cmd = [client, "--port", port, "--conns", a.conns, "--workload", a.workload, "--seconds", a.seconds,
               "--warmup", a.warmup, "--late-at", a.late_at]
        for p in pids:
            cmd += ["--server-pid", p]
        p = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=a.warmup + a.seconds + 90, preexec_fn=netsrv.pinned(netsrv.CLIENT_CPU))
        sys.stderr.write(p.stderr)
        if p.returncode == 77:
            skip(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "the client skipped")
        if p.returncode != 0:
            raise RuntimeError(f"net_fair_client exited {p.returncode}")
        if not srv.alive():
            raise RuntimeError(f"the server exited during the run (status {srv.p.returncode})")
        rc = srv.stop()
        if rc != 0:
            raise RuntimeError(f"the server did not exit 0 on SIGTERM (status {rc})")
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("lab-fair ")), None)
    if not line:
        raise RuntimeError("the client printed no lab-fair line")
    r = json.loads(line[len("lab-fair "):])
    xs, wall = r["bytes"], r["measured_s"]
    sbusy, cbusy = r["server_ns"] / (wall * 1e9), r["client_ns"] / (wall * 1e9)
    limit = "server" if sbusy >= cbusy else "client"
    j = jain(xs)
    print(f"net-fair {a.system} {a.backend or ''} {a.workload} conns {a.conns}: Jain {j:.4f}, starved {r['starved']}, "
          f"late {r['late_ms']:.1f} ms (answered: {bool(r['late_answered'])}), {r['answers'] / wall:.0f} answers/s, "
          f"server busy {sbusy:.2f}, client busy {cbusy:.2f}, closed by the server {r['dead']}, "
          f"bytes per connection min {min(xs)} max {max(xs)}", file=sys.stderr)
    common = dict(keys, limit=limit)
    recs = [dict(common, metric="jain_index", value=round(j, 5)),
            dict(common, metric="starved_conns", value=r["starved"], windows=r["windows"], closed_conns=r["dead"]),
            dict(common, metric="late_ms", value=round(r["late_ms"], 3), late_answered=r["late_answered"]),
            dict(common, metric="bytes_per_conn", value=sorted(xs)[len(xs) // 2], samples=xs),
            dict(common, metric="requests_per_s", value=round(r["answers"] / wall, 2)),
            dict(common, metric="server_busy", value=round(sbusy, 4)),
            dict(common, metric="client_busy", value=round(cbusy, 4))]
    for rec in recs:
        print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
