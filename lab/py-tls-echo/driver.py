#!/usr/bin/python3
"""The py-tls-echo step: the TLS echo server (lab/py-tls-echo/server.py) on every loop at
once, each on a port of its own, all pinned to CPU 0, then the TLS client
(tls_echo_client, pinned to CPU 1) against each in turn, round after round, the order
rotated by one from point to point and round to round.

  driver.py --bin DIR --python PY --cert CERT --key KEY --rounds N --seconds S --warmup W
            [--systems asyncio,uvloop,rloop,vigil:uring,vigil:epoll] [--points 100x64,100x4096]

Makes the certificate first when CERT is missing (openssl: a self-signed P-256 key, CN
localhost, into CERT's folder under the build dir). A loop that cannot serve TLS (its
server exits 77: rloop) is skipped with the reason printed. Prints the client's records
(requests_per_s, server_cpu_ns_per_request, rtt_us, client_busy; each round's, the first
two and client_busy marked "pool": "median": run.py keeps the median and the extreme
rounds as min and max). Exit 77 when no server started or the client is not built.
"""
import argparse
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
import echodrive  # noqa: E402
import netsrv  # noqa: E402

def log(msg):
    print(msg, file=sys.stderr, flush=True)


def make_cert(cert, key):
    os.makedirs(os.path.dirname(cert), exist_ok=True)
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "3650", "-subj", "/CN=localhost"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        netsrv.skip(f"openssl could not make the certificate: {r.stderr.strip()[-200:]}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for k in ("--bin", "--python", "--cert", "--key"):
        ap.add_argument(k, required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=0.2)
    ap.add_argument("--systems", default="asyncio,uvloop,rloop,vigil:uring,vigil:epoll")
    ap.add_argument("--points", default="100x64,100x4096")
    a = ap.parse_args(argv)
    client = os.path.join(a.bin, "tls_echo_client")
    if not os.access(client, os.X_OK):
        netsrv.skip("program tls_echo_client not built (OpenSSL's development files: libssl-dev)")
    if not (os.path.exists(a.cert) and os.path.exists(a.key)):
        make_cert(a.cert, a.key)
    systems = [tuple(s.split(":")) if ":" in s else (s, None) for s in a.systems.split(",")]
    points = [tuple(int(x) for x in p.split("x")) for p in a.points.split(",")]
    servers = {}
    try:
        for s in systems:
            env = {"VIGIL_BACKEND": s[1]} if s[1] else {}
            argv_of = lambda port, s=s: [a.python, os.path.join(HERE, "server.py"), "--loop", s[0],  # noqa: E731
                                         "--cert", a.cert, "--key", a.key, port]
            try:
                port = netsrv.free_port()  # one try: a server that exits 77 says why once
                servers[s] = netsrv.Server(argv_of(port), port, env=env, stop_signal=signal.SIGTERM, nofile=8192,
                                           timeout=30.0)
            except RuntimeError as e:
                if "(status 77)" not in str(e):
                    raise
                log(f"py-tls-echo: {s[0]} skipped (its server's reason above: it cannot serve TLS or is not installed)")
                continue
        live = [s for s in systems if s in servers]
        if not live:
            netsrv.skip("no TLS echo server started")
        for r in range(a.rounds):
            for pi, (conns, m) in enumerate(points):
                k = (r + pi) % len(live)
                for s in live[k:] + live[:k]:
                    one(a, client, servers[s], s, conns, m)
        for s in live:
            rc = servers[s].stop(timeout=10)
            if rc != 0:
                raise RuntimeError(f"the {s[0]} server did not exit 0 on SIGTERM (status {rc})")
    finally:
        for srv in servers.values():
            srv.kill()
    return 0


def one(a, client, srv, s, conns, m):
    keys = {"bench": "py-tls-echo", "system": s[0], "case": "protocol tls"}
    if s[1]:
        keys["backend"] = s[1]
    keys.update(conns=conns, msg_bytes=m)
    echodrive.run_client(client, srv, keys, conns, m, a.seconds, a.warmup, system=s[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
