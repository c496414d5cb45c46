#!/usr/bin/python3
"""net-echo's timed step: every server of the point side by side. Starts each server
(each a program of its own, on its own port, all pinned to CPU 0), then one
net_echo_client (pinned to CPU 1) connected to all of them at once, whose servers take
turns (client.c: --slice L, round(S / L) turns each, A B C C B A ...; only the server
whose turn it is gets requests), so that a slow spell of the shared machine falls on
every server alike instead of on the one whose step it was. Prints the client's records,
one set per server (requests_per_s, server_cpu_ns_per_request and client_busy marked
"pool": "median", as echodrive.py does; rtt_us), then stops the servers.

  driver.py --bin DIR --conns N --msg-bytes M --seconds S --slice L --warmup W
            --srv PROG,SYSTEM,CASE[,BACKEND] ...     (the servers, in turn order)

Exit 77 (skipped) when the client or a server is not built.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import echodrive  # noqa: E402
import netsrv  # noqa: E402


def keys_of(system, case, backend, conns, msg_bytes):
    k = {"bench": "net-echo", "system": system, "case": case}
    if backend:
        k["backend"] = backend
    k.update(conns=conns, msg_bytes=msg_bytes)
    return k


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--conns", type=int, required=True)
    ap.add_argument("--msg-bytes", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--slice", type=float, default=0.25)
    ap.add_argument("--warmup", type=float, default=0.2)
    ap.add_argument("--srv", action="append", required=True, help="PROG,SYSTEM,CASE[,BACKEND]")
    a = ap.parse_args(argv)
    client = os.path.join(a.bin, echodrive.CLIENT)
    specs = [(s.split(",") + [None])[:4] for s in a.srv]
    for prog in [client] + [os.path.join(a.bin, s[0]) for s in specs]:
        if not os.access(prog, os.X_OK):
            netsrv.skip(f"program {os.path.basename(prog)} not built")
    servers = []
    try:
        for prog, system, case, backend in specs:
            env = {"VIGIL_BACKEND": backend} if backend else None
            servers.append(netsrv.start(lambda port, p=prog: [os.path.join(a.bin, p), port], env=env,
                                        nofile=a.conns + 64))
        cmd = [client, "--conns", str(a.conns), "--msg-bytes", str(a.msg_bytes), "--seconds", str(a.seconds),
               "--slice", str(a.slice), "--warmup", str(a.warmup), "--cpu", str(netsrv.CLIENT_CPU)]
        for srv, (prog, system, case, backend) in zip(servers, specs):
            keys = keys_of(system, case, backend, a.conns, a.msg_bytes)
            cmd += ["--port", str(srv.port), "--pid", str(srv.pid), "--keys", json.dumps(keys, separators=(",", ":"))[1:-1]]
        turns = max(1, round(a.seconds / a.slice))
        p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True,
                           timeout=len(specs) * (a.warmup + a.seconds + 0.2 * turns + 1) + 60)
        if p.returncode != 0:
            raise RuntimeError(f"{echodrive.CLIENT} exited {p.returncode}")
        for srv, s in zip(servers, specs):
            if not srv.alive():
                raise RuntimeError(f"the {s[0]} server ({s[1]}) exited during the run (status {srv.p.returncode})")
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                if rec.get("metric") in echodrive.MEDIAN_POOLED:
                    rec["pool"] = "median"
                line = json.dumps(rec)
            print(line, flush=True)
        for srv, s in zip(servers, specs):
            rc = srv.stop()
            if rc != 0:
                raise RuntimeError(f"{s[0]} did not exit 0 on SIGINT (status {rc})")
    finally:
        for srv in servers:
            srv.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
