"""The stream transport as csrc/transport_new.c builds it (the accept path,
_make_socket_transport and SocketTransport.__init__), checked against asyncio's default
loop: every test runs on both loops (the `loop` fixture), on the backend VIGIL_BACKEND
selects, so a difference shows as a failure on one side only.

- asyncio's extra info (socket, sockname, peername) equal to the socket's own, for
  IPv4, IPv6 and Unix sockets, from create_server, create_connection and
  connect_accepted_socket; TCP_NODELAY set on TCP sockets, as base_events._set_nodelay;
- the protocol's callbacks (connection_made, data_received, eof_received,
  connection_lost) run in the context current when the transport was made, not the one
  current when the data arrives (create_server, create_connection,
  connect_accepted_socket);
- the server sees its transports: Server._attach counts them (3.11-3.12:
  _active_count; 3.13: _clients), wait_closed waits for them, close_clients and
  abort_clients (3.13) reach them;
- a transport, with its protocol, is garbage collected once closed (weakref);
- SocketTransport(loop, sock, protocol, waiter) called from Python still makes a working
  transport; one whose construction fails leaves its socket to the caller."""
import asyncio
import contextvars
import gc
import socket
import sys
import weakref

import pytest

import vigil

VAR = contextvars.ContextVar("VAR", default="unset")


def run(loop, coro, timeout=60):
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def has_ipv6():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


class Recorder(asyncio.Protocol):
    """Records each callback with VAR's value; echoes (echo=True: servers); closes on EOF (as asyncio does
    when eof_received returns None)."""

    def __init__(self, echo=True):
        self.echo = echo
        self.seen = []
        self.done = asyncio.get_event_loop().create_future()
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        self.seen.append(("made", VAR.get()))

    def data_received(self, data):
        self.seen.append(("data", VAR.get()))
        if self.echo:
            self.transport.write(data)

    def eof_received(self):
        self.seen.append(("eof", VAR.get()))

    def connection_lost(self, exc):
        self.seen.append(("lost", VAR.get()))
        if not self.done.done():
            self.done.set_result(None)


def Client():
    return Recorder(echo=False)


def check_extra(transport, family):
    """The transport's extra info is its socket's (asyncio's TransportSocket over it)."""
    ts = transport.get_extra_info("socket")
    assert isinstance(ts, asyncio.trsock.TransportSocket)
    assert ts.fileno() == transport._sock.fileno()
    assert transport.get_extra_info("sockname") == ts.getsockname()
    assert transport.get_extra_info("peername") == ts.getpeername()
    if family in (socket.AF_INET, socket.AF_INET6):
        # as base_events._set_nodelay: only on a socket object made with IPPROTO_TCP
        nodelay = ts.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        assert bool(nodelay) == (ts.proto == socket.IPPROTO_TCP)
        assert isinstance(transport.get_extra_info("sockname"), tuple)


def check_vigil(loop, transport):
    if isinstance(loop, vigil.Loop):
        assert type(transport) is vigil._loop.SocketTransport
        assert type(transport._io).__name__ == "TransportIO"


FAMILIES = [pytest.param(socket.AF_INET, id="ipv4"),
            pytest.param(socket.AF_INET6, id="ipv6",
                         marks=pytest.mark.skipif(not has_ipv6(), reason="no IPv6 loopback")),
            pytest.param(socket.AF_UNIX, id="unix")]


async def serve(loop, factory, family, tmp_path):
    if family == socket.AF_UNIX:
        path = str(tmp_path / "s.sock")
        srv = await loop.create_unix_server(factory, path)
        return srv, path
    host = "::1" if family == socket.AF_INET6 else "127.0.0.1"
    srv = await loop.create_server(factory, host, 0, family=family)
    return srv, srv.sockets[0].getsockname()[:2]


async def connect(loop, factory, family, addr):
    if family == socket.AF_UNIX:
        return await loop.create_unix_connection(factory, addr)
    return await loop.create_connection(factory, addr[0], addr[1])


@pytest.mark.parametrize("family", FAMILIES)
def test_extra_info(loop, family, tmp_path):
    async def main():
        made = []

        def factory():
            p = Recorder()
            made.append(p)
            return p
        srv, addr = await serve(loop, factory, family, tmp_path)
        tr, cp = await connect(loop, Client, family, addr)
        tr.write(b"x")
        while not cp.seen or cp.seen[-1][0] != "data":
            await asyncio.sleep(0.001)
        st = made[0].transport
        for t in (tr, st):
            check_extra(t, family)
            check_vigil(loop, t)
        assert st.get_extra_info("peername") == tr.get_extra_info("sockname")
        assert tr.get_extra_info("peername") == st.get_extra_info("sockname")
        tr.close()
        await made[0].done
        srv.close()
        await srv.wait_closed()
    run(loop, main())


def test_extra_peername_given(loop):
    """extra={"peername": ...} given to the transport is kept (asyncio's accept passes the
    address accept() returned); the dict given is the transport's _extra."""
    async def main():
        a, b = socket.socketpair()
        with b:
            extra = {"peername": "given"}
            tr = loop._make_socket_transport(a, Recorder(), extra=extra)
            await asyncio.sleep(0)
            assert tr.get_extra_info("peername") == "given"
            assert tr._extra is extra
            assert tr.get_extra_info("sockname") == a.getsockname()
            tr.close()
            await asyncio.sleep(0.01)
    run(loop, main())


def callbacks_in(seen, value):
    kinds = [k for k, _ in seen]
    assert kinds[0] == "made" and "data" in kinds and "lost" in kinds, seen
    assert {v for _, v in seen} == {value}, seen


def test_context_create_server(loop):
    async def main():
        protos = []

        def factory():
            p = Recorder()
            protos.append(p)
            return p
        VAR.set("at create_server")
        srv = await loop.create_server(factory, "127.0.0.1", 0)
        VAR.set("later")
        r, w = await asyncio.open_connection("127.0.0.1", srv.sockets[0].getsockname()[1])
        w.write(b"ping")
        assert await r.readexactly(4) == b"ping"
        w.write_eof()
        await protos[0].done
        w.close()
        srv.close()
        await srv.wait_closed()
        callbacks_in(protos[0].seen, "at create_server")
    run(loop, main())


def test_context_create_connection(loop):
    async def main():
        srv = await loop.create_server(Recorder, "127.0.0.1", 0)
        VAR.set("at create_connection")
        tr, p = await loop.create_connection(Client, "127.0.0.1", srv.sockets[0].getsockname()[1])
        VAR.set("later")
        tr.write(b"ping")
        while "data" not in [k for k, _ in p.seen]:
            await asyncio.sleep(0.001)
        tr.write_eof()  # the server closes on EOF: the client sees eof, then lost
        await p.done
        srv.close()
        await srv.wait_closed()
        callbacks_in(p.seen, "at create_connection")
        assert "eof" in [k for k, _ in p.seen]
    run(loop, main())


def test_context_connect_accepted_socket(loop):
    async def main():
        lsock = socket.create_server(("127.0.0.1", 0))
        with lsock:
            client = socket.create_connection(lsock.getsockname())
            conn, _ = lsock.accept()
        client.setblocking(False)
        with client:
            VAR.set("at connect_accepted_socket")
            tr, p = await loop.connect_accepted_socket(Recorder, conn)
            VAR.set("later")
            check_extra(tr, socket.AF_INET)
            check_vigil(loop, tr)
            await loop.sock_sendall(client, b"ping")
            assert await loop.sock_recv(client, 4) == b"ping"
            client.shutdown(socket.SHUT_WR)
            await p.done
        callbacks_in(p.seen, "at connect_accepted_socket")
    run(loop, main())


def clients_of(srv):
    """The transports the server counts (Server._attach/_detach)."""
    if sys.version_info >= (3, 13):
        return len(srv._clients)
    return srv._active_count


def test_server_sees_transports(loop):
    async def main():
        protos = []

        def factory():
            p = Recorder()
            protos.append(p)
            return p
        srv = await loop.create_server(factory, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        conns = []
        for _ in range(3):
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"a")
            assert await r.readexactly(1) == b"a"
            conns.append(w)
        assert clients_of(srv) == 3
        if sys.version_info >= (3, 13):
            assert set(srv._clients) == {p.transport for p in protos}
        assert all(p.transport._server is srv for p in protos)
        srv.close()
        waiter = asyncio.ensure_future(srv.wait_closed())
        await asyncio.sleep(0.01)
        if sys.version_info >= (3, 12, 1):
            assert not waiter.done()
        for w in conns:
            w.close()
        await asyncio.gather(*(p.done for p in protos))
        await waiter
        assert clients_of(srv) == 0
        assert all(p.transport._server is None for p in protos)
    run(loop, main())


@pytest.mark.skipif(sys.version_info < (3, 13), reason="abort_clients/close_clients are 3.13's")
@pytest.mark.parametrize("how", ["abort_clients", "close_clients"])
def test_server_reaches_transports(loop, how):
    async def main():
        protos = []

        def factory():
            p = Recorder()
            protos.append(p)
            return p
        srv = await loop.create_server(factory, "127.0.0.1", 0)
        r, w = await asyncio.open_connection("127.0.0.1", srv.sockets[0].getsockname()[1])
        w.write(b"a")
        assert await r.readexactly(1) == b"a"
        srv.close()
        getattr(srv, how)()
        await protos[0].done  # the server's transport was reached and closed
        assert protos[0].transport.is_closing()
        await srv.wait_closed()
        w.close()
    run(loop, main())


def test_collected_after_close(loop):
    async def main():
        protos = []

        def factory():
            p = Recorder()
            protos.append(p)
            return p
        srv = await loop.create_server(factory, "127.0.0.1", 0)
        tr, p = await loop.create_connection(Client, "127.0.0.1", srv.sockets[0].getsockname()[1])
        tr.write(b"a")
        while "data" not in [k for k, _ in p.seen]:
            await asyncio.sleep(0.001)
        refs = [weakref.ref(tr), weakref.ref(p), weakref.ref(protos[0].transport), weakref.ref(protos[0])]
        tr.close()
        await p.done
        await protos[0].done
        srv.close()
        await srv.wait_closed()
        return refs
    refs = run(loop, main())
    gc.collect()
    assert [r() for r in refs] == [None] * 4


def test_python_constructor(loop):
    """SocketTransport(...) as other code calls it: the same construction."""
    async def main():
        a, b = socket.socketpair()
        with b:
            p = Recorder()
            waiter = loop.create_future()
            if isinstance(loop, vigil.Loop):
                tr = vigil._loop.SocketTransport(loop, a, p, waiter)
            else:
                tr = loop._make_socket_transport(a, p, waiter)
            await waiter
            assert p.seen == [("made", "unset")]
            assert loop._transports[a.fileno()] is tr
            check_extra(tr, socket.AF_UNIX)
            b.setblocking(False)
            b.sendall(b"hi")
            assert await loop.sock_recv(b, 2) == b"hi"
            tr.close()
            await p.done
    run(loop, main())


def test_failed_construction_leaves_socket(loop):
    """A protocol without data_received: the construction raises (vigil: at once; the
    socket stays the caller's, open and without an unclosed-transport warning)."""
    if not isinstance(loop, vigil.Loop):
        pytest.skip("asyncio's transport looks data_received up only when data arrives")

    async def main():
        a, b = socket.socketpair()
        with a, b:
            with pytest.raises(AttributeError):  # no data_received
                vigil._loop.SocketTransport(loop, a, object())
            gc.collect()
            assert a.fileno() >= 0
            assert a.fileno() not in loop._transports
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        run(loop, main())
