#!/usr/bin/env python3
"""http_hello's nginx-like timeouts, given short values here (--client-header-timeout
500, --keepalive-timeout 500, --send-timeout 500 ms): a slowloris client (a header line
every 100 ms, never the end of its head) is closed, and so is a connection that sends
nothing; an idle keep-alive connection is closed after its answer; a peer that stops
reading while pipelining is closed (its send never completes); meanwhile a normal
client is answered. Each close is seen by the client (end of stream or reset) and
counted by the server under the right timeout (SIGUSR1 counters). Nothing here measures
time: the server must close each within 15 s, 30 times its timeout. The old example had
no timeouts (these connections stayed open). Run once per backend (VIGIL_BACKEND)."""
import socket, sys, time

from exampletest import Server, backend, read_all, verdict

srv = Server(sys.argv[1], "--client-header-timeout", 500, "--keepalive-timeout", 500, "--send-timeout", 500)
ok = False


def closed_by_server(s, feed=None, limit=15):
    """Waits for the server's end (EOF or reset), sending feed() every 100 ms."""
    s.settimeout(0.1)
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            if feed:
                s.sendall(feed())
            x = s.recv(1 << 16)
            if not x:
                return True
        except (TimeoutError, BlockingIOError):
            pass
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


try:
    # slowloris: the head never ends
    slow = srv.connect()
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    n = iter(range(1 << 30))
    assert closed_by_server(slow, lambda: b"X-%d: y\r\n" % next(n)), "slowloris connection not closed"
    slow.close()
    # a connection that sends nothing
    mute = srv.connect()
    assert closed_by_server(mute), "silent connection not closed"
    mute.close()
    st = srv.stats()
    assert st["timeouts_request"] == 2, st

    # an idle keep-alive connection, after its answer; a normal client still answered
    idle = srv.connect()
    idle.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    out = b""
    while not out.endswith(b"Hello, world!\n"):
        out += idle.recv(4096)
    assert b"keep-alive" in out, out
    assert closed_by_server(idle), "idle keep-alive connection not closed"
    idle.close()
    st = srv.stats()
    assert st["timeouts_idle"] == 1, st

    # a peer that stops reading: the server's send stays in flight, then times out
    s = srv.slow_reader()
    flood = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 4096
    end = time.monotonic() + 15
    while srv.stats()["timeouts_send"] == 0:
        try:
            s.send(flood)
        except (BlockingIOError, ConnectionResetError, BrokenPipeError):
            pass
        assert time.monotonic() < end, f"a peer that does not read was not closed: {srv.stats()}"
        time.sleep(0.05)
    s.close()

    c = srv.connect()
    c.sendall(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert read_all(c).startswith(b"HTTP/1.1 200 OK")
    c.close()
    st = srv.wait_stats(lambda st: st["conns"] == 0, "every connection closed")
    assert st["bufs_lent"] == 0 and st["works"] == 0, st
    ok = True
finally:
    ok = srv.finish(ok)
sys.exit(verdict("http_hello_timeouts", ok))
