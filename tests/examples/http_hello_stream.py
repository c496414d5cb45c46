#!/usr/bin/env python3
"""http_hello answers every complete request it has read, and gives back every buffer:
  - 10,000 pipelined requests in one write, and in writes of 16 KiB and 64 KiB, of mixed
    sizes (so requests straddle the 4 KiB receive buffers): 10,000 answers, in order;
  - 2,000 pipelined requests and a half-close (shutdown(SHUT_WR)): 2,000 answers, then
    the server's end of stream;
  - 20 connections whose peer stops reading while pipelining (the server's send stays
    in flight, back-pressure) and then resets: each failed send gives back what its
    connection held, so the counters (SIGUSR1) show no receive buffer lent, no request
    arrays out, no connection left; and the server still answers.
The old example failed each: 9,998 answers then silence, 1,971 then end of stream, one
pool buffer leaked per reset connection. Run once per backend (VIGIL_BACKEND)."""
import random, re, socket, sys, time

from exampletest import Server, backend, read_all, reset, writer


def count_answers(s, want, timeout=20):
    """Reads until want answers arrived, the last one whole (a read can end between an
    answer's head and its body); returns (answers, bytes read). A stall of timeout s
    ends the read (the old server stopped answering)."""
    s.settimeout(timeout)
    buf, n = b"", 0
    while n < want or not buf.endswith(b"Hello, world!\n"):
        try:
            x = s.recv(1 << 16)
        except TimeoutError:
            break
        if not x:
            break
        buf += x
        n = buf.count(b"HTTP/1.1 200 OK")
    return n, buf


srv = Server(sys.argv[1])
failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


try:
    # mostly wrk's request (27 bytes), some longer: heads straddle the receive buffers
    rnd = random.Random(26)
    reqs = [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"] + [b"GET / HTTP/1.1\r\nHost: x\r\n%s\r\n" % (b"X-Pad: %s\r\n" % (b"p" * rnd.choice((10, 100, 700)))
                                                        if rnd.random() < 0.1 else b"")
            for i in range(9999)]
    data = b"".join(reqs)
    for chunk in (len(data), 16384, 65536):
        s = srv.connect()
        t = writer(s, data, chunk)
        n, out = count_answers(s, 10000)
        check(n == 10000 and out.endswith(b"Hello, world!\n"), f"pipelined, writes of {chunk} bytes: {n} answers of 10000")
        t.join(5)
        s.close()

    # half-close after 2,000 pipelined requests: every one answered, then end of stream;
    for shape, half in (("wrk's", [reqs[0]] * 2000), ("mixed", reqs[:2000])):
        s = srv.connect()
        t = writer(s, b"".join(half), 1 << 20)
        t.join(20)
        s.shutdown(socket.SHUT_WR)
        out = read_all(s, 20)
        n = out.count(b"HTTP/1.1 200 OK")
        check(n == 2000 and out.endswith(b"Hello, world!\n"), f"half-close, {shape} requests: {n} answers of 2000")
        s.close()

    # peers that stop reading while pipelining, then reset
    N = 20
    socks = []
    for _ in range(N):
        socks.append(srv.slow_reader())
    flood = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 4096
    end = time.monotonic() + 30
    while True:
        for s in socks:
            try:
                s.send(flood)
            except BlockingIOError:
                pass
        st = srv.stats()
        if st["sending"] >= N:
            break
        assert time.monotonic() < end, f"the connections never filled up: {st}"
        time.sleep(0.05)
    for s in socks:
        reset(s)
    st = srv.wait_stats(lambda st: st["conns"] == 0, "every reset connection closed")
    check(st["bufs_lent"] == 0 and st["works"] == 0 and st["sending"] == 0,
          f"{st['bufs_lent']} receive buffers not given back after {N} resets: {st}")
    s = srv.connect()
    s.sendall(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert read_all(s).startswith(b"HTTP/1.1 200 OK"), "not answered after the resets"
    s.close()
finally:
    try:
        srv.check_exit()
    except AssertionError as e:
        print(e); failed.append("exit")
    srv.kill()
print("http_hello_stream:", "FAIL " + "; ".join(failed) if failed else "pass", backend())
sys.exit(1 if failed else 0)
