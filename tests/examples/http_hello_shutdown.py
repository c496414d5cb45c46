#!/usr/bin/env python3
"""http_hello's graceful shutdown on SIGTERM, with connections open, under the
sanitizers' eyes (the test build's LeakSanitizer reports any struct not freed and makes
the exit status non-zero):
  1. 100 idle keep-alive connections, 50 with half a request, 20 whose peer pipelines
     without reading (answers being sent): SIGTERM; the idle ones and the half requests
     are closed (end of stream), the answers being sent arrive whole (the stream ends
     right after an answer) once those peers read; the server exits 0, nothing leaked;
  2. 20 peers that never read and never close: the server closes them at its
     --shutdown-timeout (500 ms here) and exits 0, nothing leaked.
The old example exited with every connection struct leaked (LeakSanitizer, exit 23).
Run once per backend (VIGIL_BACKEND)."""
import socket, sys, time

from exampletest import Server, backend, read_all

ok = False
servers = []


def answered(s):
    out = b""
    while not out.endswith(b"Hello, world!\n"):
        x = s.recv(4096)
        assert x, "closed before the answer"
        out += x


def flooders(srv, n):
    socks = []
    for _ in range(n):
        socks.append(srv.slow_reader())
    flood = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 4096
    end = time.monotonic() + 30
    while srv.stats()["sending"] < n:
        for s in socks:
            try:
                s.send(flood)
            except BlockingIOError:
                pass
        assert time.monotonic() < end, f"the connections never filled up: {srv.stats()}"
        time.sleep(0.05)
    return socks


try:
    srv = Server(sys.argv[1], "--shutdown-timeout", 20000)
    servers.append(srv)
    idle = [srv.connect() for _ in range(100)]
    for s in idle:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        answered(s)
    half = [srv.connect() for _ in range(50)]
    for s in half:
        s.sendall(b"GET /half HTTP/1.1\r\nHost: x\r\n")
    busy = flooders(srv, 20)
    srv.wait_stats(lambda st: st["conns"] == 170, "170 connections")
    srv.proc.send_signal(15)
    for s in idle + half:
        assert read_all(s, 20) == b"", "bytes after SIGTERM on an idle connection"
        s.close()
    for s in busy:
        s.setblocking(True)
        out = read_all(s, 20)
        assert out.count(b"HTTP/1.1 200 OK") > 0 and out.endswith(b"Hello, world!\n"), \
            f"an answer in flight was cut: {len(out)} bytes ending {out[-60:]!r}"
        s.close()
    srv.check_exit()

    srv = Server(sys.argv[1], "--shutdown-timeout", 500)
    servers.append(srv)
    busy = flooders(srv, 20)
    srv.check_exit()  # the peers still hold their connections open
    for s in busy:
        s.close()
    ok = True
finally:
    for srv in servers:
        srv.kill()
print("http_hello_shutdown:", "pass" if ok else "FAIL", backend())
sys.exit(0 if ok else 1)
