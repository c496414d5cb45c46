#!/usr/bin/python3
"""http-hello's memory run: the resident memory an idle keep-alive connection costs a
server. Two runs of the same binary and configuration, each a fresh server pinned to
CPU 0:

  none    one connection makes one request and closes (what is set up on a first
          request is in both runs, not charged to connections); then the server's VmRSS;
  loaded  the same, then N connections opened one at a time, each making one keep-alive
          request and waiting for its answer before the next connects (no burst); with
          all N open and idle (0.5 s after the last answer), the server's VmRSS.

  rss_kib_per_conn = (VmRSS loaded - VmRSS none) / N, param idle_conns N

VmRSS is read from /proc/<pid>/status of the process that holds the connections:
http_hello itself; for nginx its one worker (the master's child), not the master (the
master's RSS goes to stderr). nginx runs with worker_connections and worker_rlimit_nofile
N + 64 in both runs (--worker-connections: another worker_connections; it allocates its
connection array at start: the baseline carries it). The server's own file limit is
raised to N + 64 (that process only); this process, which holds the client side, raises
its own. Before reading the loaded figure the server's open sockets are counted
(/proc/<pid>/fd; held_conns = loaded minus none). vigil must hold all N (fewer means it
closed connections, a keep-alive timeout shorter than the run: the step fails). nginx
closes idle keep-alive connections itself once fewer than 1/16 of worker_connections
are free (its reusable-connection drain): at N + 64 it holds about N - 570 of them, and
its figure is then (VmRSS loaded - VmRSS none) / held_conns, the connections it holds.

  memory.py --bin DIR --system vigil|nginx [--backend B] --idle-conns N --tmp DIR
            [--worker-connections W]

Exit 77 (skipped) when the program or nginx is missing.
"""
import json
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import netsrv  # noqa: E402

REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
# The client's connections end with a reset (SO_LINGER 0), not a FIN: an active close
# would leave each in TIME_WAIT for 60 s on a local port, and 10,000 per run exhaust the
# machine's ephemeral ports for every program on it (bind to port 0 fails).
ABORT = struct.pack("ii", 1, 0)


def abort(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, ABORT)
    s.close()


def one_request(port):
    """A connection that has made one request and read its whole answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        return answered(s)
    except BaseException:
        abort(s)
        raise


def answered(s):
    s.sendall(REQUEST)
    data = b""
    while b"\r\n\r\n" not in data:
        b = s.recv(4096)
        if not b:
            raise RuntimeError("the server closed a connection before answering")
        data += b
    head, body = data.split(b"\r\n\r\n", 1)
    length = next((int(ln.split(b":", 1)[1]) for ln in head.split(b"\r\n")
                   if ln.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        b = s.recv(4096)
        if not b:
            raise RuntimeError("the server closed a connection before answering")
        body += b
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"answer {head.splitlines()[0]!r}")
    return s


def holder(srv, system):
    """The pid that holds the connections: nginx's worker, or the server itself."""
    if system != "nginx":
        return srv.pid
    end = time.monotonic() + 5
    while time.monotonic() < end:
        kids = [p for p in srv.pids() if p != srv.pid]
        if kids:
            return kids[0]
        time.sleep(0.05)
    raise RuntimeError("nginx started no worker")


def measure(a, n):
    """The server's (holder's) VmRSS in KiB and its open sockets, with n idle connections open."""
    if a.system == "vigil":
        prog = os.path.join(a.bin, "http_hello")
        if not os.access(prog, os.X_OK):
            netsrv.skip("program http_hello not built")
        # keep-alive for an hour, as nginx's configuration says (netsrv.NGINX_CONF): making
        # 10,000 connections one at a time takes longer than the default 75 s on poll
        argv_of = lambda port: [prog, "--keepalive-timeout", "3600000", port]  # noqa: E731
        ready, env = "line", {"VIGIL_BACKEND": a.backend}
    else:
        if not netsrv.nginx_argv(a.tmp, 0):
            netsrv.skip("nginx is not installed (Debian: nginx-light)")

        def argv_of(port):
            return netsrv.nginx_argv(a.tmp, port, conns=a.worker_connections or a.idle_conns + 64,
                                     nofile=a.idle_conns + 64)
        ready, env = "port", {}
    with netsrv.start(argv_of, env=env, ready=ready, stop_signal=signal.SIGTERM, nofile=a.idle_conns + 64) as srv:
        port = srv.port
        pid = holder(srv, a.system)
        abort(one_request(port))
        conns = []
        try:
            return held_rss(a, srv, pid, port, n, conns)
        finally:
            for s in conns:
                abort(s)


def held_rss(a, srv, pid, port, n, conns):
    """Opens n connections into conns, one request each, one at a time; then reads the
    holder's VmRSS and sockets, and stops the server."""
    t0 = time.monotonic()
    for _ in range(n):
        conns.append(one_request(port))
    took = time.monotonic() - t0
    time.sleep(0.5)
    if not srv.alive():
        raise RuntimeError(f"the server exited (status {srv.p.returncode})")
    held = netsrv.open_sockets(pid)
    rss = netsrv.rss_kib(pid)
    master = netsrv.rss_kib(srv.pid) if pid != srv.pid else None
    print(f"http-hello memory {a.system} {a.backend or ''}: {n} idle connections (made in {took:.1f} s), "
          f"server holds {held} sockets, VmRSS {rss} KiB" + (f" (worker; master {master} KiB)" if master else ""),
          file=sys.stderr)
    if held < n and a.system == "vigil":
        raise RuntimeError(f"the server holds {held} sockets, fewer than the {n} idle connections "
                           f"(it closed some: a keep-alive timeout?)")
    for s in conns:
        abort(s)
    conns.clear()
    rc = srv.stop()
    if rc != 0:
        raise RuntimeError(f"the server did not exit 0 on SIGTERM (status {rc})")
    return rss, held


def main(argv):
    ap = netsrv.args(__doc__)
    ap.add_argument("--backend")
    ap.add_argument("--idle-conns", type=int, default=10000)
    ap.add_argument("--worker-connections", type=int, help="nginx: worker_connections (default N + 64)")
    a = ap.parse_args(argv)
    if netsrv.raise_nofile(a.idle_conns + 256) < a.idle_conns + 256:
        netsrv.skip(f"{a.idle_conns} connections need {a.idle_conns + 256} files here; the hard limit is lower")
    base, held0 = measure(a, 0)
    loaded, held1 = measure(a, a.idle_conns)
    held = min(held1 - held0, a.idle_conns)
    if held <= 0:
        raise RuntimeError("the server held none of the connections")
    case = "http_hello example idle" if a.system == "vigil" else "return 200 idle"
    if a.worker_connections:
        case += f" worker_connections {a.worker_connections}"
    rec = {"bench": "http-hello", "system": a.system, "case": case}
    if a.system == "vigil":
        rec["backend"] = a.backend
    rec.update(idle_conns=a.idle_conns, metric="rss_kib_per_conn",
               value=round((loaded - base) / held, 3), held_conns=held, rss_kib_none=base, rss_kib_loaded=loaded,
               measured="worker VmRSS" if a.system == "nginx" else "VmRSS")
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
