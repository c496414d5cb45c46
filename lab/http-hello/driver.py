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
import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import netsrv  # noqa: E402
import wrkrun  # noqa: E402


def nginx_argv(tmp, port):
    argv = netsrv.nginx_argv(tmp, port)  # worker_connections 4096, worker_rlimit_nofile 8192
    if not argv:
        netsrv.skip("nginx is not installed (Debian: nginx-light)")
    return argv


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
        out, cpu = srv.measure(lambda: wrkrun.run(wrk, srv.port, a.conns, a.seconds, a.tmp, netsrv.CLIENT_CPU))
    sys.stderr.write(out["stderr"])
    reqs, dur, errs = out["requests"], out["duration_s"], out["errors"]
    print(f"http-hello {a.system} conns {a.conns}: {reqs} requests in {dur:.2f} s "
          f"({reqs / max(dur, 1e-9):.0f}/s), server {cpu / max(reqs, 1):.0f} ns/request, errors {errs}",
          file=sys.stderr)
    recs = wrkrun.records(keys, out, cpu)
    for r in recs:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
