"""create_server / start_server accepting in C (csrc/server.c: vigil's listener, the
protocol and the transport made without a Task per connection), checked against
asyncio's default loop: every test runs on both loops (the `loop` fixture), on the
backend VIGIL_BACKEND selects (ctest runs this file once per backend), so a difference
shows as a failure on one side only. On vigil's loop each test also checks that the
server accepted through the C listener (not the Python readiness path).

- 1,000 connections accepted and echoed; a host list (dual stack), sock=, a Unix
  server; close()/wait_closed() with live clients
  (3.12+: wait_closed waits for them); start_serving=False then start_serving();
  serve_forever() cancelled; reuse_port with two servers on one port; the protocol
  factory in the context captured at create_server (a copy per connection); a factory
  that raises (the connection closed, the server serving on, reported in debug mode);
  connection_made raising (reported to the exception handler, as asyncio);
  abort_clients/close_clients (3.13+).
- EMFILE: a server in a child process with RLIMIT_NOFILE lowered (the parent's limit is
  untouched) is sent more connections than it has fds for: it reports "socket.accept()
  out of system resource", pauses, never hangs, and serves new connections once fds
  free up. asyncio serves every pending connection; vigil's loop closes the newest
  of a burst it accepted into its last free fds (each transport needs a second fd:
  csrc/server.c), as uvloop (libuv) closes pending connections on EMFILE."""
import asyncio
import contextvars
import os
import socket
import subprocess
import sys
import textwrap

import pytest

import vigil

VAR = contextvars.ContextVar("VAR", default="unset")


def run(loop, coro, timeout=60):
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def in_c(loop, server):
    """On vigil's loop, the server's sockets accept through csrc/server.c's Listener."""
    if isinstance(loop, vigil.Loop):
        listeners = loop.__dict__.get("_vigil_listeners", {})
        for s in server.sockets:
            assert s.fileno() in listeners, "accepted by the Python path, not the C listener"


class Echo(asyncio.Protocol):
    conns = 0

    def connection_made(self, transport):
        Echo.conns += 1
        self.transport = transport

    def data_received(self, data):
        self.transport.write(data)


async def echo_once(port, payload=b"ping", host="127.0.0.1"):
    r, w = await asyncio.open_connection(host, port)
    w.write(payload)
    got = await r.readexactly(len(payload))
    w.close()
    await w.wait_closed()
    return got


def test_thousand_connections(loop):
    async def main():
        srv = await loop.create_server(Echo, "127.0.0.1", 0, backlog=1000)
        in_c(loop, srv)
        port = srv.sockets[0].getsockname()[1]
        sem = asyncio.Semaphore(100)

        async def one(i):
            async with sem:
                return await echo_once(port, b"c%04d" % i)

        Echo.conns = 0
        got = await asyncio.gather(*(one(i) for i in range(1000)))
        assert got == [b"c%04d" % i for i in range(1000)]
        assert Echo.conns == 1000
        srv.close()
        await srv.wait_closed()
    run(loop, main())


def test_host_list_and_dual_stack(loop):
    async def main():
        hosts = ["127.0.0.1"] + (["::1"] if socket.has_ipv6 else [])
        try:
            srv = await loop.create_server(Echo, hosts, 0)
        except OSError as e:  # no IPv6 on lo
            pytest.skip(f"no ::1: {e}")
        in_c(loop, srv)
        assert len(srv.sockets) == len(hosts)
        for s in srv.sockets:
            host, port = s.getsockname()[:2]
            assert await echo_once(port, b"x", host) == b"x"
        srv.close()
        await srv.wait_closed()
    run(loop, main())


def test_sock_argument(loop):
    async def main():
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        srv = await loop.create_server(Echo, sock=s)
        in_c(loop, srv)
        assert await echo_once(s.getsockname()[1]) == b"ping"
        srv.close()
        await srv.wait_closed()
        assert s.fileno() == -1  # the server closed it
    run(loop, main())


def test_unix_server(loop, tmp_path):
    async def main():
        path = str(tmp_path / "s.sock")
        srv = await loop.create_unix_server(Echo, path)
        in_c(loop, srv)
        r, w = await asyncio.open_unix_connection(path)
        w.write(b"unix")
        assert await r.readexactly(4) == b"unix"
        w.close()
        await w.wait_closed()
        srv.close()
        await srv.wait_closed()
    run(loop, main())


def test_close_with_live_clients(loop):
    async def main():
        srv = await loop.create_server(Echo, "127.0.0.1", 0)
        in_c(loop, srv)
        port = srv.sockets[0].getsockname()[1]
        clients = []
        for i in range(3):
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"a")
            assert await r.readexactly(1) == b"a"
            clients.append((r, w))
        srv.close()
        assert not srv.is_serving()
        waiter = asyncio.ensure_future(srv.wait_closed())
        for _ in range(20):
            await asyncio.sleep(0)
        if sys.version_info >= (3, 12, 1):
            assert not waiter.done()  # waits for the connections (asyncio since 3.12.1)
        with pytest.raises(OSError):
            await echo_once(port)  # no longer listening
        for r, w in clients:  # the live connections still work
            w.write(b"b")
            assert await r.readexactly(1) == b"b"
        for r, w in clients:
            w.close()
            await w.wait_closed()
        await waiter
    run(loop, main())


def test_start_serving_false(loop):
    async def main():
        srv = await loop.create_server(Echo, "127.0.0.1", 0, start_serving=False)
        port = srv.sockets[0].getsockname()[1]
        assert not srv.is_serving()
        with pytest.raises(OSError):
            await echo_once(port)  # not listening yet
        await srv.start_serving()
        assert srv.is_serving()
        in_c(loop, srv)
        assert await echo_once(port) == b"ping"
        srv.close()
        await srv.wait_closed()
    run(loop, main())


def test_serve_forever(loop):
    async def main():
        srv = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        task = asyncio.ensure_future(srv.serve_forever())
        await asyncio.sleep(0)
        assert srv.is_serving()
        in_c(loop, srv)
        r, w = await asyncio.open_connection("127.0.0.1", srv.sockets[0].getsockname()[1])
        assert await r.read() == b""
        w.close()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not srv.is_serving()  # serve_forever's cancellation closes the server
        await srv.wait_closed()
    run(loop, main())


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="no SO_REUSEPORT")
def test_reuse_port_two_servers(loop):
    async def main():
        seen = {1: 0, 2: 0}

        def factory(n):
            class P(Echo):
                def connection_made(self, transport):
                    seen[n] += 1
                    self.transport = transport
            return P

        s1 = await loop.create_server(factory(1), "127.0.0.1", 0, reuse_port=True)
        port = s1.sockets[0].getsockname()[1]
        s2 = await loop.create_server(factory(2), "127.0.0.1", port, reuse_port=True)
        in_c(loop, s1)
        in_c(loop, s2)
        for i in range(64):
            assert await echo_once(port, b"r") == b"r"
        assert seen[1] + seen[2] == 64
        # The kernel spreads connections by a hash of the client's port: 64 connections
        # all landing on one server has a probability of 2**-63.
        assert seen[1] and seen[2], seen
        for s in (s1, s2):
            s.close()
            await s.wait_closed()
    run(loop, main())


def test_factory_context(loop):
    async def main():
        seen = []

        class P(Echo):
            def connection_made(self, transport):
                seen.append(("made", VAR.get()))
                self.transport = transport

            def data_received(self, data):
                seen.append(("data", VAR.get()))
                self.transport.write(data)

        def factory():
            seen.append(("factory", VAR.get()))
            VAR.set("changed by the factory")  # in this connection's copy only
            return P()

        VAR.set("at create_server")
        srv = await loop.create_server(factory, "127.0.0.1", 0)
        in_c(loop, srv)
        VAR.set("later")
        port = srv.sockets[0].getsockname()[1]
        for _ in range(3):
            await echo_once(port)
        srv.close()
        await srv.wait_closed()
        return seen
    seen = run(loop, main())
    assert [v for k, v in seen if k == "factory"] == ["at create_server"] * 3
    assert {v for k, v in seen if k != "factory"} == {"changed by the factory"}


def test_factory_raises(loop):
    async def main():
        loop.set_debug(True)
        errors = []
        # Only what the test needs: asyncio leaves the accepted socket to be closed with
        # the frame the exception's traceback holds.
        loop.set_exception_handler(lambda lp, ctx: errors.append((ctx["message"], type(ctx.get("exception")))))
        n = [0]

        def factory():
            n[0] += 1
            if n[0] == 1:
                raise ZeroDivisionError("first")
            return Echo()

        srv = await loop.create_server(factory, "127.0.0.1", 0)
        in_c(loop, srv)
        port = srv.sockets[0].getsockname()[1]
        r, w = await asyncio.open_connection("127.0.0.1", port)
        if isinstance(loop, vigil.Loop):  # asyncio leaves the socket to the GC
            try:
                assert await r.read() == b""  # closed by the server
            except ConnectionResetError:
                pass
        w.close()
        assert await echo_once(port) == b"ping"  # serving on
        srv.close()
        await srv.wait_closed()
        assert ("Error on transport creation for incoming connection", ZeroDivisionError) in errors, errors
    run(loop, main())


def test_connection_made_raises(loop):
    async def main():
        errors = []
        loop.set_exception_handler(lambda lp, ctx: errors.append(ctx))

        class Bad(Echo):
            def connection_made(self, transport):
                self.transport = transport
                raise ZeroDivisionError("made")

        srv = await loop.create_server(Bad, "127.0.0.1", 0)
        in_c(loop, srv)
        r, w = await asyncio.open_connection("127.0.0.1", srv.sockets[0].getsockname()[1])
        for _ in range(50):
            if errors:
                break
            await asyncio.sleep(0.01)
        w.close()
        srv.close()
        await srv.wait_closed()
        assert any(isinstance(c.get("exception"), ZeroDivisionError) for c in errors), errors
    run(loop, main())


@pytest.mark.skipif(sys.version_info < (3, 13), reason="abort_clients/close_clients are 3.13's")
@pytest.mark.parametrize("how", ["abort_clients", "close_clients"])
def test_close_clients(loop, how):
    async def main():
        srv = await loop.create_server(Echo, "127.0.0.1", 0)
        in_c(loop, srv)
        r, w = await asyncio.open_connection("127.0.0.1", srv.sockets[0].getsockname()[1])
        w.write(b"a")
        assert await r.readexactly(1) == b"a"
        srv.close()
        getattr(srv, how)()
        try:
            assert await r.read() == b""
        except ConnectionResetError:
            pass
        await srv.wait_closed()
        w.close()
    run(loop, main())


EMFILE_SERVER = textwrap.dedent("""
    import asyncio, resource, sys
    import vigil
    LIMIT = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))
    loop = vigil.new_event_loop() if sys.argv[1] == "vigil" else asyncio.new_event_loop()
    def handler(lp, ctx):
        print("handler:", ctx["message"], getattr(ctx.get("exception"), "errno", None), flush=True)
    loop.set_exception_handler(handler)
    class Echo(asyncio.Protocol):
        def connection_made(self, t):
            self.t = t
        def data_received(self, d):
            self.t.write(d)
    async def main():
        srv = await loop.create_server(Echo, "127.0.0.1", 0, backlog=200)
        if sys.argv[1] == "vigil":
            assert srv.sockets[0].fileno() in loop._vigil_listeners
        print("port", srv.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    loop.run_until_complete(main())
""")


def test_emfile_pause_and_resume(loop, tmp_path):
    kind = "vigil" if isinstance(loop, vigil.Loop) else "asyncio"
    loop.close()
    script = tmp_path / "server.py"
    script.write_text(EMFILE_SERVER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.Popen([sys.executable, "-P", str(script), kind, "48"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline()
        assert line.startswith("port "), line
        port = int(line.split()[1])
        conns = []
        for i in range(100):  # more than the server has fds for
            c = socket.create_connection(("127.0.0.1", port), timeout=60)
            c.sendall(b"%03d" % i)
            conns.append(c)
        served = 0
        for i, c in enumerate(conns):  # each is served once earlier ones closed...
            got = b""
            try:
                while len(got) < 3:
                    d = c.recv(3 - len(got))
                    if not d:
                        break
                    got += d
            except ConnectionResetError:
                pass
            # ... or, on vigil's loop, closed: a burst accepted into the last free fds
            # cannot all be served (each transport needs a second fd), the newest go.
            assert got == b"%03d" % i or (kind == "vigil" and got == b""), (i, got)
            served += got != b""
            c.close()
        assert served >= 10 if kind == "vigil" else served == len(conns)
        with socket.create_connection(("127.0.0.1", port), timeout=60) as c:  # serving on
            c.sendall(b"end")
            assert c.recv(3) == b"end"
        p.stdin.write("\n")
        p.stdin.flush()
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 0
        assert "handler: socket.accept() out of system resource 24" in out, out
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
