#!/usr/bin/env python3
"""The http_hello example as an HTTP client sees it (a real client: Python's
http.client, plus raw sockets for what a client library would not send): keep-alive,
a request split across reads byte by byte, pipelined requests answered in order,
Connection: close honoured (the answer arrives whole, then end of stream), HTTP/1.0,
a request body skipped by Content-Length, the lingering close (what the peer sends
after the last answer is drained, and a peer that never closes is closed after the
lingering timeout: 1 s here), the headers nginx sends; and RFC 9112's framing rules:
conflicting Content-Length and Content-Length with Transfer-Encoding get 400 and a close
(section 6.3), chunked bodies are decoded (section 7.1: sizes, extensions, trailers, in
one piece or byte by byte) and bad chunked syntax gets 400, a head over 8 KiB 431.
Run once per backend (VIGIL_BACKEND)."""
import http.client, random, re, sys, time

from exampletest import Server, backend, read_all, verdict

LINGER_S = 1.0
srv = Server(sys.argv[1], "--lingering-timeout", int(LINGER_S * 1000))
ok = False
try:

    def raw(data, chunks=None, timeout=5, stall_ok=False):
        s = srv.connect(timeout)
        try:
            for i in range(0, len(data), chunks or len(data)):
                s.sendall(data[i:i + (chunks or len(data))])
                if chunks:
                    time.sleep(0.001)
        except (BrokenPipeError, ConnectionResetError):
            pass  # rejected and closed before the request was all sent
        out = read_all(s, timeout, stall_ok)
        s.close()
        return out

    def statuses(out):
        return [int(x) for x in re.findall(rb"HTTP/1\.1 (\d\d\d) ", out)]

    # keep-alive with a real client: 50 requests on one connection
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
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
    out = raw(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", timeout=0.5, stall_ok=True)
    assert b"Connection: keep-alive" in out, out

    # a body announced by Content-Length is skipped, the next request answered; a list
    # of equal values is one value (RFC 9110 section 8.6)
    out = raw(b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\nGET / HTTP/1GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert statuses(out) == [200, 200], out
    out = raw(b"POST / HTTP/1.1\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert statuses(out) == [200, 200], out

    # chunked request bodies (RFC 9112 section 7.1): sizes in hex, extensions (token and
    # quoted values), an empty last chunk, trailer fields; then the next request
    chunked = (b"POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"5\r\nhello\r\n1A;name=value;q=\"a b;c\"\r\n" + b"z" * 26 + b"\r\n"
               b"A ; ext\r\n0123456789\r\n000;last\r\nTrailer-One: 1\r\nTrailer-Two:\t2 \r\n\r\n"
               b"POST /c2 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
               b"GET /after HTTP/1.1\r\nConnection: close\r\n\r\n")
    for chunks in (None, 1, 7):
        out = raw(chunked, chunks=chunks)
        assert statuses(out) == [200, 200, 200], (chunks, out)
    # a chunk's data that looks like a request is data, not a request
    out = raw(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n12\r\nGET / HTTP/1.1\r\n\r\n\r\n0\r\n\r\n"
              b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert statuses(out) == [200, 200], out

    # rejected: the status, then the server closes (nothing after the bad request is read)
    post = b"POST / HTTP/1.1\r\nHost: x\r\n"
    te = post + b"Transfer-Encoding: chunked\r\n\r\n"
    bad = [
        (400, b"BAD\r\n\r\n"), (400, b"GET / HTTP/2.0\r\n\r\n"), (400, b"GET / HTTP/1.1\r\nNoColon\r\n\r\n"),
        (400, b"GET  HTTP/1.1\r\n\r\n"), (400, b"GET / HTTP/1.1\r\nX : y\r\n\r\n"),
        (400, b"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n"),            # obs-fold
        (400, b"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n"),               # bare CR
        (400, b"GET / HTTP/1.1\r\n\rX: y\r\n\r\n"),                 # bare CR where a field starts
        (400, b"GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n"),             # NUL
        (400, b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        # RFC 9112 section 6.3: conflicting lengths, and both framings (request smuggling)
        (400, post + b"Content-Length: 5\r\nContent-Length: 0\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n"),
        (400, post + b"Content-Length: 5, 0\r\n\r\nhello"),
        (400, post + b"Content-Length: +5\r\n\r\nhello"), (400, post + b"Content-Length:\r\n\r\n"),
        (400, post + b"Content-Length: 99999999999999999999999\r\n\r\n"),
        (400, post + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        (400, post + b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"),
        (400, post + b"Transfer-Encoding: gzip\r\n\r\n"),                   # chunked not last
        (400, post + b"Transfer-Encoding: chunked, chunked\r\n\r\n"),
        (400, b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        (501, post + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
        # bad chunked syntax
        (400, te + b"\r\n"), (400, te + b"z\r\n"), (400, te + b"5 \r\nhello\r\n0\r\n\r\n"),
        (400, te + b"5\r\nhelloX\r\n0\r\n\r\n"), (400, te + b"5\r\nhello\rX0\r\n\r\n"),
        (400, te + b"5;a\x01\r\nhello\r\n0\r\n\r\n"), (400, te + b"5\rhello\r\n0\r\n\r\n"),
        (400, te + b"-5\r\nhello\r\n0\r\n\r\n"), (400, te + b"1" * 20 + b"\r\n"),
        (400, te + b"0\r\nBad Trailer: x\r\n\r\n"), (400, te + b"0\r\nT: a\x7fb\r\n\r\n"),
        (400, te + b"0\r\n\rX"),
        # the head's size is bounded: 431 Request Header Fields Too Large
        (431, b"GET / HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n"),
        (431, b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 2000),
        (431, te + b"0\r\n" + b"T: x\r\n" * 2000 + b"\r\n"),
    ]
    for status, req in bad:
        for chunks in (None, 3) if len(req) < 1000 else (None,):
            out = raw(req, chunks=chunks)
            assert statuses(out) == [status] and b"Connection: close" in out, (status, req[:80], chunks, out[:120])

    # lingering close: after "Connection: close" the answer, then end of stream; bytes the
    # peer still sends are drained (no reset) until the server closes, LINGER_S after
    # its shutdown; from then on a send is answered by a reset.
    s = srv.connect()
    s.sendall(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    out = read_all(s, reset_ok=False)
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
    conns = [http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5) for _ in range(200)]
    for c in conns:
        c.request("GET", "/")
    for c in conns:
        r = c.getresponse(); assert r.status == 200 and r.read() == b"Hello, world!\n"
        c.close()

    # every receive buffer is back in the pool, every request's arrays back on the spares
    st = srv.wait_stats(lambda st: st["conns"] == 0, "every connection closed")
    assert st["bufs_lent"] == 0 and st["works"] == 0 and st["sending"] == 0, st
    ok = True
finally:
    ok = srv.finish(ok)
sys.exit(verdict("http_hello", ok))
