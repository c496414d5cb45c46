"""Where vigil's loop must behave as asyncio's own: each test runs on asyncio's default
loop and on vigil's (on the backend VIGIL_BACKEND selects; ctest runs this file once per
backend), so a difference shows as a failure on one side only.

- contextvars: a transport's protocol callbacks (data_received, eof_received,
  connection_lost, BufferedProtocol's get_buffer/buffer_updated; connection_made,
  which TLS calls from the handshake) run in the context current when the transport was
  made (create_connection, create_server, connect_accepted_socket), as asyncio's reader
  handle and uvloop's transport capture it; call_soon/call_later/call_at/
  call_soon_threadsafe(context=...), add_reader/add_writer callbacks and
  add_signal_handler callbacks run in the context asyncio gives them.
- file objects: remove_reader/remove_writer (and add_*) on a socket that was registered
  and then closed find the fd it was registered with (asyncio's selectors look the
  object up among their keys): True once, then False."""
import asyncio
import contextvars
import os
import signal
import socket
import ssl
import sys
import threading

import pytest

import vigil

VAR = contextvars.ContextVar("VAR", default="unset")


def run(loop, coro, timeout=30):
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


class _Seen:
    """What both recorders share: VAR's value recorded per callback, the data, the end
    (eof_received returns None: the transport closes; connection_lost ends the wait)."""

    def __init__(self, done):
        self.seen = {}
        self.data = b""
        self.done = done

    def connection_made(self, transport):
        self.seen["connection_made"] = VAR.get()
        self.transport = transport

    def eof_received(self):
        self.seen["eof_received"] = VAR.get()

    def connection_lost(self, exc):
        self.seen["connection_lost"] = VAR.get()
        if not self.done.done():
            self.done.set_result(None)


class Recorder(_Seen, asyncio.Protocol):
    def data_received(self, data):
        self.seen["data_received"] = VAR.get()
        self.data += data


class BufferedRecorder(_Seen, asyncio.BufferedProtocol):
    def __init__(self, done):
        super().__init__(done)
        self.buf = bytearray(1024)

    def get_buffer(self, sizehint):
        self.seen["get_buffer"] = VAR.get()
        return self.buf

    def buffer_updated(self, nbytes):
        self.seen["buffer_updated"] = VAR.get()
        self.data += bytes(self.buf[:nbytes])


def peer_sends_then_closes(lsock, payload):
    """A plain blocking peer in a thread: accepts, sends payload, shuts down, waits for
    the other side's close."""
    def serve():
        c, _ = lsock.accept()
        with c:
            c.sendall(payload)
            c.shutdown(socket.SHUT_WR)
            while c.recv(4096):
                pass
    th = threading.Thread(target=serve, daemon=True)
    th.start()
    return th


def listener():
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    return ls


@pytest.mark.parametrize("proto_cls", [Recorder, BufferedRecorder])
def test_create_connection_callbacks_run_in_the_callers_context(loop, proto_cls):
    async def main():
        VAR.set("client")  # this task's context only: the loop's own has VAR unset
        done = loop.create_future()
        proto = proto_cls(done)
        with listener() as ls:
            th = peer_sends_then_closes(ls, b"hello")
            await loop.create_connection(lambda: proto, *ls.getsockname())
            await done
            th.join(10)
        return proto

    proto = run(loop, main())
    assert proto.data == b"hello"
    assert set(proto.seen.values()) == {"client"}, proto.seen
    assert "connection_lost" in proto.seen and "eof_received" in proto.seen


def test_create_server_callbacks_run_in_the_servers_context(loop):
    async def main():
        VAR.set("server")
        done = loop.create_future()
        protos = []

        def factory():
            protos.append(Recorder(done))
            return protos[-1]

        srv = await loop.create_server(factory, "127.0.0.1", 0)
        VAR.set("changed after create_server")  # a copy was taken: the protocol sees "server"
        port = srv.sockets[0].getsockname()[1]

        def client():
            with socket.create_connection(("127.0.0.1", port)) as c:
                c.sendall(b"ping")
                c.shutdown(socket.SHUT_WR)
                while c.recv(4096):
                    pass

        await asyncio.gather(loop.run_in_executor(None, client), done)
        srv.close()
        await srv.wait_closed()
        return protos[0]

    proto = run(loop, main())
    assert proto.data == b"ping"
    assert set(proto.seen) == {"connection_made", "data_received", "eof_received", "connection_lost"}
    assert set(proto.seen.values()) == {"server"}, proto.seen


class Closer(Recorder):
    """Closes the transport from its own data_received."""

    def data_received(self, data):
        super().data_received(data)
        self.transport.close()


@pytest.mark.parametrize("proto_cls", [Recorder, Closer], ids=["peer-eof", "close-in-callback"])
def test_connect_accepted_socket_callbacks_run_in_the_callers_context(loop, proto_cls):
    """The peer sends and shuts down (Recorder), or the protocol closes the transport
    from data_received (Closer): connection_lost then follows in the transport's context
    too (asyncio: a copy of the reader's, uvloop: the transport's)."""
    async def main():
        VAR.set("accepted")
        done = loop.create_future()
        proto = proto_cls(done)
        a, b = socket.socketpair()
        with b:
            await loop.connect_accepted_socket(lambda: proto, a)
            b.sendall(b"x")
            if proto_cls is Recorder:
                b.shutdown(socket.SHUT_WR)
            await done
        return proto

    proto = run(loop, main())
    assert proto.data == b"x"
    assert set(proto.seen.values()) == {"accepted"}, proto.seen
    if proto_cls is Closer:  # closed before any EOF could come
        assert set(proto.seen) == {"connection_made", "data_received", "connection_lost"}, proto.seen


def _keycert():
    try:
        import test
    except ImportError:
        return None
    d = os.path.dirname(test.__file__)
    for p in (os.path.join(d, "keycert.pem"), os.path.join(d, "certdata", "keycert.pem")):
        if os.path.exists(p):
            return p
    return None


def test_tls_connection_made_runs_in_the_callers_context(loop):
    """With TLS, connection_made comes from the handshake, inside the raw transport's
    data_received: it too runs in the context of the create_connection caller."""
    keycert = _keycert()
    if keycert is None:
        pytest.skip("CPython's test certificates (test/keycert.pem) not installed")
    sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(keycert)
    cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    cctx.check_hostname = False
    cctx.verify_mode = ssl.CERT_NONE

    async def main():
        VAR.set("server")
        server_seen = []

        class Echo(asyncio.Protocol):
            def connection_made(self, tr):
                server_seen.append(VAR.get())
                self.tr = tr

            def data_received(self, data):
                server_seen.append(VAR.get())
                self.tr.write(data)
                self.tr.close()

        srv = await loop.create_server(Echo, "127.0.0.1", 0, ssl=sctx)
        port = srv.sockets[0].getsockname()[1]

        async def client():
            VAR.set("client")
            done = loop.create_future()
            proto = Recorder(done)
            await loop.create_connection(lambda: proto, "127.0.0.1", port, ssl=cctx)
            proto.transport.write(b"tls")
            await done
            return proto

        proto = await asyncio.create_task(client())
        srv.close()
        await srv.wait_closed()
        return proto, server_seen

    proto, server_seen = run(loop, main())
    assert proto.data == b"tls"
    assert proto.seen["connection_made"] == "client" and proto.seen["data_received"] == "client", proto.seen
    assert proto.seen["connection_lost"] == "client", proto.seen
    assert server_seen == ["server", "server"]


def test_scheduling_with_explicit_context(loop):
    ctx = contextvars.copy_context()
    ctx.run(VAR.set, "given")
    seen = []
    loop.call_soon(lambda: seen.append(("soon", VAR.get())), context=ctx)
    loop.call_later(0, lambda: seen.append(("later", VAR.get())), context=ctx)
    loop.call_at(loop.time(), lambda: seen.append(("at", VAR.get())), context=ctx)
    loop.call_soon_threadsafe(lambda: seen.append(("threadsafe", VAR.get())), context=ctx)
    token = VAR.set("current")
    try:
        loop.call_soon(lambda: seen.append(("copied", VAR.get())))
    finally:
        VAR.reset(token)
    loop.call_later(0.01, loop.stop)
    loop.run_forever()
    assert sorted(seen) == sorted([("soon", "given"), ("later", "given"), ("at", "given"),
                                   ("threadsafe", "given"), ("copied", "current")])


def test_reader_writer_and_signal_callbacks_run_in_the_adders_context(loop):
    seen = {}
    a, b = socket.socketpair()
    a.setblocking(False)

    def on_read():
        seen["reader"] = VAR.get()
        loop.remove_reader(a)

    def on_write():
        seen["writer"] = VAR.get()
        loop.remove_writer(a)

    def on_signal():
        seen["signal"] = VAR.get()
        loop.remove_signal_handler(signal.SIGUSR1)

    def add():
        VAR.set("adder")
        loop.add_reader(a, on_read)
        loop.add_writer(a, on_write)
        if threading.current_thread() is threading.main_thread():
            loop.add_signal_handler(signal.SIGUSR1, on_signal)
            loop.call_soon(os.kill, os.getpid(), signal.SIGUSR1)

    with a, b:
        contextvars.copy_context().run(add)
        b.send(b"r")
        loop.call_later(0.2, loop.stop)
        loop.run_forever()
    want = {"reader": "adder", "writer": "adder"}
    if threading.current_thread() is threading.main_thread():
        want["signal"] = "adder"
    assert seen == want


@pytest.mark.parametrize("closer", ["close", "detach-and-close"])
@pytest.mark.parametrize("kind", ["reader", "writer"])
def test_remove_reader_writer_of_a_closed_socket(loop, kind, closer):
    """(Only one direction: with both, asyncio's selector loop raises the kernel's EBADF
    from the epoll_ctl MOD that removing one of two makes on a closed fd.)"""
    add, remove = (loop.add_reader, loop.remove_reader) if kind == "reader" else (loop.add_writer, loop.remove_writer)
    other = loop.remove_writer if kind == "reader" else loop.remove_reader
    a, b = socket.socketpair()
    with b:
        add(a, lambda: None)
        if closer == "close":
            a.close()
        else:
            os.close(a.detach())
        assert a.fileno() == -1
        assert other(a) is False  # found, but nothing registered that way
        assert remove(a) is True
        # found once: the watch is gone now, and nothing remembers the object
        with pytest.raises(ValueError):
            remove(a)
        loop.call_soon(loop.stop)
        loop.run_forever()  # a turn after the removal is quiet


def test_closed_socket_never_registered_is_invalid(loop):
    a, b = socket.socketpair()
    b.close()
    a.close()
    with pytest.raises(ValueError):
        loop.remove_reader(a)
    with pytest.raises(ValueError):
        loop.remove_writer(a)
    with pytest.raises(ValueError):
        loop.add_reader(a, lambda: None)


def test_closed_socket_waiting_in_a_task_is_removed(loop):
    """anyio's pattern (wait_readable): a task waits on add_reader(sock), another closes
    the socket, the waiter is cancelled and its finally removes the reader."""
    async def main():
        a, b = socket.socketpair()
        a.setblocking(False)
        ev = asyncio.Event()
        removed = []

        async def wait_readable():
            loop.add_reader(a, ev.set)
            try:
                await ev.wait()
            finally:
                removed.append(loop.remove_reader(a))

        t = asyncio.create_task(wait_readable())
        await asyncio.sleep(0)
        a.close()
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        b.close()
        return removed

    assert run(loop, main()) == [True]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="eager tasks came in Python 3.12")
def test_eager_task_factory(loop):
    """3.12's eager tasks: a task starts inside create_task and runs to its first
    suspension before create_task returns."""
    loop.set_task_factory(asyncio.eager_task_factory)
    order = []

    async def child():
        order.append("child started")
        await asyncio.sleep(0)
        order.append("child resumed")
        return 7

    async def main():
        t = asyncio.create_task(child())
        order.append("create_task returned")
        return await t

    assert run(loop, main()) == 7
    assert order == ["child started", "create_task returned", "child resumed"]


def test_refused_connect_error_is_in_no_cycle(loop):
    """The error of a refused sock_connect is referred to by nothing but its catcher once
    the call returns (CPython's selector loop breaks the cycle through the future; anyio's
    test_happy_eyeballs_refcycles checks it with gc.get_referrers)."""
    import gc
    ls = listener()
    addr = ls.getsockname()
    ls.close()  # nothing listens there now: the connect is refused

    async def main():
        with socket.socket() as s:
            s.setblocking(False)
            try:
                await loop.sock_connect(s, addr)
            except OSError as e:
                return e
        return None

    gc.collect()
    gc.disable()  # only reference counting from here: a cycle would keep its referrers
    try:
        exc = run(loop, main())
        assert isinstance(exc, ConnectionRefusedError), exc
        assert gc.get_referrers(exc) == [], gc.get_referrers(exc)
    finally:
        gc.enable()


def test_datagram_callbacks_run_in_the_callers_context(loop):
    seen = {}

    class Proto(asyncio.DatagramProtocol):
        def __init__(self, done):
            self.done = done

        def connection_made(self, tr):
            seen["connection_made"] = VAR.get()

        def datagram_received(self, data, addr):
            seen["datagram_received"] = VAR.get()
            self.tr_close()

        def connection_lost(self, exc):
            seen["connection_lost"] = VAR.get()
            self.done.set_result(None)

    async def main():
        VAR.set("udp")
        done = loop.create_future()
        proto = Proto(done)
        tr, _ = await loop.create_datagram_endpoint(lambda: proto, local_addr=("127.0.0.1", 0))
        proto.tr_close = tr.close
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"d", tr.get_extra_info("sockname"))
            await done

    run(loop, main())
    assert seen == {"connection_made": "udp", "datagram_received": "udp", "connection_lost": "udp"}


def test_subprocess_pipe_callbacks_run_in_the_callers_context(loop):
    """The pipes' callbacks (asyncio's own pipe transports on both loops)."""
    seen = []

    class Proto(asyncio.SubprocessProtocol):
        def __init__(self, done):
            self.done = done

        def pipe_data_received(self, fd, data):
            seen.append(("pipe_data_received", VAR.get()))

        def pipe_connection_lost(self, fd, exc):
            seen.append(("pipe_connection_lost", VAR.get()))

        def connection_lost(self, exc):
            self.done.set_result(None)

    async def main():
        VAR.set("proc")
        done = loop.create_future()
        tr, _ = await loop.subprocess_exec(lambda: Proto(done), sys.executable, "-c", "print('hi')",
                                           stdin=None, stderr=None)
        await done
        tr.close()

    if isinstance(loop, vigil.Loop) or sys.version_info >= (3, 12):
        run(loop, main())
    else:  # 3.11's default loop needs a child watcher attached to it
        with asyncio.Runner(loop_factory=lambda: loop) as r:
            asyncio.get_child_watcher().attach_loop(loop)
            r.run(asyncio.wait_for(main(), 30))
    assert seen and all(v == "proc" for _, v in seen), seen
