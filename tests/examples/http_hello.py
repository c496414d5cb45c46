#!/usr/bin/env python3
"""The http_hello example as an HTTP client sees it (a real client: Python's
http.client, plus raw sockets for what a client library would not send): keep-alive,
a request split across reads byte by byte, pipelined requests answered in order,
Connection: close honoured (the answer arrives whole, then end of stream), HTTP/1.0,
a request body skipped by Content-Length, 400 and close for malformed requests, the
lingering close (what the peer sends after the last answer is drained, and a peer that
never closes is closed after linger_ms: 1 s here), and the headers nginx sends. Run
once per backend (VIGIL_BACKEND)."""
import http.client, os, random, signal, socket, subprocess, sys, time

binary = sys.argv[1]
LINGER_S = 1.0


def start():
    """The server on a port below the kernel's ephemeral range (32768 up here), which the
    thousands of connections net_fuzz and conn_fuzz make beside it never take: the
    server's own bind is the only check (nothing binds, closes and binds again), and a
    port another test holds is told by the server's EADDRINUSE and another one tried.
    20000-31999 as in echo_server.sh, apart from python/tests/conftest.py's ports."""
    for _ in range(5):
        port = random.randrange(20000, 32000)
        proc = subprocess.Popen([binary, str(port), str(int(LINGER_S * 1000))], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        if proc.stdout.readline().strip() == "ready":
            return proc, port
        err = proc.communicate(timeout=10)[1]
        if "Address already in use" not in err:
            raise AssertionError(f"server did not start: {err.strip()}")
    raise AssertionError("server did not start: every port tried was taken")


proc, port = start()
ok = False
try:

    def raw(data, chunks=None, timeout=5):
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        if chunks:
            for i in range(0, len(data), chunks):
                s.sendall(data[i:i + chunks]); time.sleep(0.001)
        else:
            s.sendall(data)
        out = b""
        while True:
            try:
                x = s.recv(65536)
            except socket.timeout:
                break
            if not x:
                break
            out += x
        s.close()
        return out

    # keep-alive with a real client: 50 requests on one connection
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    for i in range(50):
        c.request("GET", f"/{i}")
        r = c.getresponse(); body = r.read()
        assert r.status == 200 and body == b"Hello, world!\n", (r.status, body)
        for h in ("Date", "Server", "Content-Type", "Content-Length", "Connection"):
            assert r.getheader(h), h
        assert r.getheader("Connection") == "keep-alive" and r.getheader("Content-Length") == "14"
    c.close()

    # split across reads, byte by byte, then Connection: close
    req = b"GET /split HTTP/1.1\r\nHost: x\r\nUser-Agent: t\r\nConnection: close\r\n\r\n"
    out = raw(req, chunks=1)
    assert out.startswith(b"HTTP/1.1 200 OK\r\n") and out.count(b"HTTP/1.1") == 1 and out.endswith(b"Hello, world!\n"), out
    assert b"Connection: close" in out

    # pipelined: 200 requests in one write, random sizes of headers, last one closes
    reqs = b"".join(b"GET /p%d HTTP/1.1\r\nHost: x\r\nX-Pad: %s\r\n\r\n" % (i, b"a" * random.randint(0, 300)) for i in range(199))
    reqs += b"GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    out = raw(reqs)
    assert out.count(b"HTTP/1.1 200 OK") == 200, out.count(b"HTTP/1.1 200 OK")
    assert out.count(b"Connection: keep-alive") == 199 and out.endswith(b"Hello, world!\n")

    # HTTP/1.0: closes unless keep-alive asked
    out = raw(b"GET / HTTP/1.0\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 200 OK") and b"Connection: close" in out, out
    out = raw(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", timeout=0.5)
    assert b"Connection: keep-alive" in out, out

    # a body announced by Content-Length is skipped, the next request answered
    out = raw(b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\nGET / HTTP/1GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert out.count(b"200 OK") == 2, out

    # malformed: 400, then the server closes
    for bad in (b"BAD\r\n\r\n", b"GET / HTTP/2.0\r\n\r\n", b"GET / HTTP/1.1\r\nNoColon\r\n\r\n",
                b"GET  HTTP/1.1\r\n\r\n", b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                b"GET / HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n"):
        out = raw(bad)
        assert out.startswith(b"HTTP/1.1 400 Bad Request\r\n") and out.count(b"HTTP/1.1") == 1, (bad[:40], out[:80])

    # lingering close: after "Connection: close" the answer, then end of stream; bytes the
    # peer still sends are drained (no reset) until the server closes, LINGER_S after
    # its shutdown; from then on a send is answered by a reset.
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    out = b""
    while True:
        x = s.recv(65536)
        if not x:
            break
        out += x
    t0 = time.monotonic()
    assert out.startswith(b"HTTP/1.1 200 OK") and b"Connection: close" in out, out
    s.setblocking(False)
    reset_after = None
    while time.monotonic() - t0 < LINGER_S + 9:
        try:
            s.send(b"late")
            s.recv(1)  # b"" (end of stream) until the reset arrives
        except BlockingIOError:
            pass
        except (ConnectionResetError, BrokenPipeError):
            reset_after = time.monotonic() - t0
            break
        time.sleep(0.05)
    s.close()
    assert reset_after is not None, "the server never closed a lingering connection"
    assert reset_after > LINGER_S * 0.8, f"closed {reset_after:.2f} s after its answer: too soon to linger"

    # many connections at once
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=5) for _ in range(200)]
    for c in conns:
        c.request("GET", "/")
    for c in conns:
        r = c.getresponse(); assert r.status == 200 and r.read() == b"Hello, world!\n"
        c.close()
    ok = True
finally:
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=10)
    if ok and rc != 0:
        print("server exit status", rc); ok = False
print("http_hello:", "pass" if ok else "FAIL", os.environ.get("VIGIL_BACKEND", "auto"))
sys.exit(0 if ok else 1)
