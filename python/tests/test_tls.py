"""TLS on vigil's loop (python/csrc/tls.c under asyncio's SSLProtocol state machine) against
OpenSSL's own peers, `openssl s_server` and `openssl s_client`, with certificates made here
by `openssl req`. Each test runs on the backend VIGIL_BACKEND selects (ctest runs this file
once per backend). What the peers print with -msg shows which TLS records crossed the wire
(close_notify alerts), so the close tests see the protocol, not only the callbacks.
Behaviours that asyncio defines loosely (a peer gone without close_notify, a handshake
that never completes) are run on asyncio's own loop too and must match it."""
import asyncio
import contextvars
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
from asyncio import sslproto

import pytest

import vigil
from vigil import _loop

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl program (Debian: openssl)")

MiB = 1 << 20
LINE = bytes(range(65, 65 + 26)) * 3 + b"\n"  # s_server -rev reverses each line
CV = contextvars.ContextVar("CV", default="unset")


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    crt, key = str(d / "c.pem"), str(d / "k.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", crt, "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    return crt, key


def client_ctx(crt):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(crt)
    return ctx


def server_ctx(crt, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    return ctx


def run(coro, loop_factory=None):
    loop = (loop_factory or vigil.new_event_loop)()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


async def s_server(crt, key, msgfile, *args):
    """openssl s_server on 127.0.0.1, an ephemeral port, its -msg record log into msgfile;
    returns (process, port)."""
    p = await asyncio.create_subprocess_exec(
        "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", crt, "-key", key, "-naccept", "1",
        "-msg", "-msgfile", msgfile, *args,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    while True:
        line = await p.stdout.readline()
        assert line, "s_server exited before ACCEPT"
        if line.startswith(b"ACCEPT"):
            return p, int(line.split(b":")[-1])


async def rev_end(p, t, pr, n):
    """The end of a run against `s_server -rev`: waits for its n reversed LINEs in pr.data,
    closes the transport t, waits for connection_lost (pr.lost) and s_server's exit."""
    while len(pr.data) < n * len(LINE):
        await asyncio.sleep(0.01)
    assert bytes(pr.data) == (LINE[:-1][::-1] + b"\n") * n
    t.close()
    assert await asyncio.wait_for(pr.lost, 30) is None
    await p.stdout.read()
    await p.wait()


class Recorder(asyncio.Protocol):
    """Records every callback, each with the context variable's value it ran under."""

    def __init__(self):
        self.events, self.data = [], bytearray()
        self.lost = asyncio.get_running_loop().create_future()

    def connection_made(self, t):
        self.t = t
        self.events.append(("made", CV.get()))

    def data_received(self, d):
        self.data += d

    def eof_received(self):
        self.events.append(("eof", CV.get()))

    def connection_lost(self, exc):
        self.events.append(("lost", type(exc).__name__ if exc else None, CV.get()))
        self.lost.set_result(exc)


def test_record_path_is_c():
    """The loop's TLS protocol is tls.c's: get_buffer, buffer_updated and the app transport's
    write are C functions, not sslproto's Python (so the tests below run the C path)."""
    assert _loop._ssl_protocol_class() is _loop._SSLProtocol
    for cls, name in ((_loop._SSLProtocol, "buffer_updated"), (_loop._SSLProtocol, "get_buffer"),
                      (_loop._SSLAppTransport, "write")):
        assert type(cls.__dict__[name]).__name__ == "instancemethod"
        assert type(getattr(cls, name)).__name__ == "builtin_function_or_method"


@pytest.mark.parametrize("factory", [vigil.new_event_loop, asyncio.new_event_loop], ids=["vigil", "asyncio"])
def test_client_1mib_each_way_close_notify(cert, tmp_path, factory):
    """vigil's client against s_server -rev: 1 MiB out, 1 MiB (reversed lines) back, extra
    info, then close(): s_server receives our close_notify and answers with its own, and
    the protocol sees eof_received and connection_lost(None), all callbacks in the creating
    context; asyncio's own loop (the second id) must pass the same test."""
    crt, key = cert

    async def main():
        p, port = await s_server(crt, key, str(tmp_path / "msg"), "-rev")
        ctx = client_ctx(crt)
        CV.set("client")
        loop = asyncio.get_running_loop()
        t, pr = await loop.create_connection(Recorder, "127.0.0.1", port, ssl=ctx, server_hostname="localhost")
        CV.set("elsewhere")
        assert isinstance(t.get_extra_info("ssl_object"), ssl.SSLObject)
        assert t.get_extra_info("sslcontext") is ctx
        assert t.get_extra_info("cipher")[1] == "TLSv1.3"
        assert t.get_extra_info("peercert")["subject"] == ((("commonName", "localhost"),),)
        assert t.get_extra_info("compression") is None
        n = MiB // len(LINE) + 1
        for i in range(0, n, 1000):  # many writes, as an application makes them
            t.write(LINE * min(1000, n - i))
        await rev_end(p, t, pr, n)
        return pr.events, (tmp_path / "msg").read_text()

    events, out = run(main(), factory)
    # as sslproto: the peer's close_notify answering ours reaches eof_received
    assert events == [("made", "client"), ("eof", "client"), ("lost", None, "client")]
    assert "<<< TLS 1.3, Alert [length 0002], warning close_notify" in out  # ours, received
    assert ">>> TLS 1.3, Alert [length 0002], warning close_notify" in out  # theirs, sent to us


async def s_client(port, crt, msgfile, *args, stdin=b""):
    """openssl s_client (quiet: stdout is the application data), its -msg record log read
    from msgfile; returns (status, stdout, stderr + record log)."""
    p = await asyncio.create_subprocess_exec(
        "openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", crt, "-verify_return_error",
        "-servername", "localhost", "-quiet", "-msg", "-msgfile", msgfile, *args,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await p.communicate(stdin)
    with open(msgfile) as f:
        return p.returncode, out, err.decode(errors="replace") + f.read()


@pytest.mark.parametrize("factory", [vigil.new_event_loop, asyncio.new_event_loop], ids=["vigil", "asyncio"])
def test_server_1mib_each_way_close_notify(cert, tmp_path, factory):
    """vigil's server against s_client: 1 MiB in, echoed back, then the server closes:
    s_client gets all of it and our close_notify (and exits 0), the server protocol saw
    connection_made after the handshake and connection_lost(None), in the server's context."""
    crt, key = cert
    blob = os.urandom(MiB)

    class Echo(Recorder):
        def data_received(self, d):
            super().data_received(d)
            self.t.write(d)
            if len(self.data) == len(blob):
                self.t.close()

    async def main():
        protos = []
        CV.set("server")
        srv = await asyncio.get_running_loop().create_server(lambda: protos.append(Echo()) or protos[-1],
                                                              "127.0.0.1", 0, ssl=server_ctx(crt, key))
        CV.set("elsewhere")
        port = srv.sockets[0].getsockname()[1]
        rc, out, err = await s_client(port, crt, str(tmp_path / "msg"), "-ign_eof", stdin=blob)
        await asyncio.wait_for(protos[0].lost, 30)
        srv.close()
        await srv.wait_closed()
        return rc, out, err, protos[0]

    rc, out, err, pr = run(main(), factory)
    assert rc == 0, err[-2000:]
    assert out == blob
    assert "<<< TLS 1.3, Alert [length 0002], warning close_notify" in err  # ours reached s_client
    assert pr.events == [("made", "server"), ("eof", "server"), ("lost", None, "server")]  # as sslproto


def test_server_peer_close_notify_eof(cert, tmp_path):
    """s_client sends a little and closes at its stdin's end with close_notify: the server
    protocol gets the data, eof_received (sslproto: on close_notify), then connection_lost."""
    crt, key = cert

    async def main():
        protos = []
        srv = await asyncio.get_running_loop().create_server(lambda: protos.append(Recorder()) or protos[-1],
                                                              "127.0.0.1", 0, ssl=server_ctx(crt, key))
        port = srv.sockets[0].getsockname()[1]
        rc, out, err = await s_client(port, crt, str(tmp_path / "msg"), "-no_ign_eof", stdin=b"hello over tls\n")
        await asyncio.wait_for(protos[0].lost, 30)
        srv.close()
        await srv.wait_closed()
        return rc, err, protos[0]

    rc, err, pr = run(main())
    assert rc == 0, err[-2000:]
    assert ">>> TLS 1.3, Alert [length 0002], warning close_notify" in err  # s_client did send it
    assert bytes(pr.data) == b"hello over tls\n"
    assert [e[0] for e in pr.events] == ["made", "eof", "lost"]


def no_close_notify(crt, key, loop_factory):
    """s_client is killed (SIGKILL) after it sent data: the socket closes with no
    close_notify. Returns what the server protocol saw."""

    async def main():
        protos = []
        ctx = server_ctx(crt, key)
        # No session tickets: nothing reaches s_client after the handshake, so the kill
        # closes its socket with a FIN (unread data would make it an RST: another path).
        ctx.num_tickets = 0
        srv = await asyncio.get_running_loop().create_server(lambda: protos.append(Recorder()) or protos[-1],
                                                              "127.0.0.1", 0, ssl=ctx)
        port = srv.sockets[0].getsockname()[1]
        p = await asyncio.create_subprocess_exec(
            "openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", crt, "-quiet",
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p.stdin.write(b"before the kill\n")
        while not protos or len(protos[0].data) < 16:
            await asyncio.sleep(0.01)
        p.kill()
        await p.wait()
        exc = await asyncio.wait_for(protos[0].lost, 30)
        srv.close()
        await srv.wait_closed()
        return bytes(protos[0].data), [e[:2] for e in protos[0].events], type(exc).__name__

    return run(main(), loop_factory)


def test_server_peer_gone_without_close_notify(cert):
    got = no_close_notify(*cert, vigil.new_event_loop)
    assert got[0] == b"before the kill\n"
    assert got == no_close_notify(*cert, asyncio.new_event_loop)  # as asyncio's sslproto does


def handshake_timeout(crt, loop_factory):
    """A TCP peer that accepts and never speaks TLS: create_connection(ssl=...,
    ssl_handshake_timeout=0.3) fails as asyncio's does. Returns the exception's type."""
    lsock = socket.create_server(("127.0.0.1", 0))

    async def main():
        try:
            await asyncio.get_running_loop().create_connection(
                asyncio.Protocol, "127.0.0.1", lsock.getsockname()[1], ssl=client_ctx(crt),
                server_hostname="localhost", ssl_handshake_timeout=0.3)
        except Exception as e:  # noqa: BLE001 -- the type is the result
            return type(e).__name__, str(e)
        return None

    try:
        return run(main(), loop_factory)
    finally:
        lsock.close()


def test_handshake_timeout(cert):
    got = handshake_timeout(cert[0], vigil.new_event_loop)
    assert got is not None and "handshake is taking longer than 0.3 seconds" in got[1]
    assert got == handshake_timeout(cert[0], asyncio.new_event_loop)


def test_start_tls_upgrade_against_s_client(cert, tmp_path):
    """s_client -starttls smtp: the server speaks plain SMTP until STARTTLS, then
    loop.start_tls(server_side=True) upgrades the same connection; data then flows over
    TLS (64 KiB from s_client's stdin, echoed) and the close is a close_notify."""
    crt, key = cert
    blob = os.urandom(64 * 1024)

    async def handle(reader, writer):
        writer.write(b"220 vigil ESMTP\r\n")
        line = await reader.readline()
        assert line.upper().startswith((b"EHLO", b"HELO")), line
        writer.write(b"250-vigil\r\n250 STARTTLS\r\n")
        assert (await reader.readline()).upper().startswith(b"STARTTLS")
        writer.write(b"220 go ahead\r\n")
        await writer.drain()
        await writer.start_tls(server_ctx(crt, key))
        assert writer.get_extra_info("cipher")[1] == "TLSv1.3"
        got = await reader.readexactly(len(blob))
        writer.write(got)
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        return got

    async def main():
        done = asyncio.get_running_loop().create_future()

        async def cb(r, w):
            try:
                done.set_result(await handle(r, w))
            except BaseException as e:  # noqa: BLE001 -- reported through the future
                done.set_exception(e)

        srv = await asyncio.start_server(cb, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        rc, out, err = await s_client(port, crt, str(tmp_path / "msg"), "-starttls", "smtp", "-ign_eof", stdin=blob)
        got = await asyncio.wait_for(done, 30)
        srv.close()
        await srv.wait_closed()
        return rc, out, err, got

    rc, out, err, got = run(main())
    assert rc == 0, err[-2000:]
    assert got == blob and out == blob
    assert "<<< TLS 1.3, Alert [length 0002], warning close_notify" in err


class Pausing(Recorder):
    """Pauses reading after every chunk and resumes on the next loop turn: the C record
    path and sslproto's Python path (taken while paused and on resume) alternate."""

    def data_received(self, d):
        super().data_received(d)
        self.t.pause_reading()
        asyncio.get_running_loop().call_soon(self.t.resume_reading)


class Buffered(asyncio.BufferedProtocol):
    """A BufferedProtocol application (sslproto's Python path) with a small buffer."""

    def __init__(self):
        # a memoryview: sslproto's _do_read__buffered slices the buffer to read into it,
        # and a sliced bytearray is a copy (its data lost: on asyncio's own loop too)
        self.buf, self.data = memoryview(bytearray(1000)), bytearray()
        self.lost = asyncio.get_running_loop().create_future()

    def connection_made(self, t):
        self.t = t

    def get_buffer(self, n):
        return self.buf

    def buffer_updated(self, n):
        self.data += self.buf[:n]

    def eof_received(self):
        pass

    def connection_lost(self, exc):
        self.lost.set_result(exc)


@pytest.mark.parametrize("proto", [Pausing, Buffered])
def test_client_paused_and_buffered_apps(cert, tmp_path, proto):
    """1 MiB back from s_server -rev into an application that pauses reading after every
    chunk, and into a BufferedProtocol: every byte arrives in order, then the close."""
    crt, key = cert

    async def main():
        p, port = await s_server(crt, key, str(tmp_path / "msg"), "-rev")
        t, pr = await asyncio.get_running_loop().create_connection(
            proto, "127.0.0.1", port, ssl=client_ctx(crt), server_hostname="localhost")
        n = MiB // len(LINE) + 1
        t.writelines([LINE * (n // 2), LINE * (n - n // 2)])
        await rev_end(p, t, pr, n)

    run(main())


# ---- the session in C (csrc/tls_session.c): handshake, shutdown, their timeouts, failures.
# Each scenario runs on vigil's loop and on asyncio's own, and the two must agree.

SESSION_METHODS = ("connection_made", "connection_lost", "eof_received", "_start_handshake", "_do_handshake",
                   "_on_handshake_complete", "_check_handshake_timeout", "_start_shutdown", "_do_flush",
                   "_do_shutdown", "_on_shutdown_complete", "_check_shutdown_timeout", "_abort",
                   "_call_eof_received", "_do_read", "_do_write", "_process_outgoing", "_set_state",
                   "_wakeup_waiter")


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="the session is C on 3.11/3.12 (3.13 changed sslproto)")
def test_session_is_c():
    """The handshake, the shutdown and the state machine are tls_session.c's C functions
    on the loop's protocol, and VIGIL_TLS=python still selects sslproto's own class."""
    for name in SESSION_METHODS:
        assert type(_loop._SSLProtocol.__dict__[name]).__name__ == "instancemethod", name
        assert type(getattr(_loop._SSLProtocol, name)).__name__ == "builtin_function_or_method", name
    old = os.environ.get("VIGIL_TLS")
    os.environ["VIGIL_TLS"] = "python"
    try:
        assert _loop._ssl_protocol_class() is sslproto.SSLProtocol
    finally:
        if old is None:
            del os.environ["VIGIL_TLS"]
        else:
            os.environ["VIGIL_TLS"] = old


def collect_errors(loop):
    """The loop's exception handler records (message, exception type) instead of logging."""
    errors = []
    loop.set_exception_handler(lambda lp, ctx: errors.append((ctx["message"], type(ctx.get("exception")).__name__)))
    return errors


def shutdown_timeout(crt, key, tmp_path, loop_factory):
    """The client closes; s_server is stopped (SIGSTOP) so it never answers our close_notify:
    after ssl_shutdown_timeout the transport is force-closed with TimeoutError, as asyncio's
    _check_shutdown_timeout does. Returns what the protocol saw and the errors reported."""

    async def main():
        errors = collect_errors(asyncio.get_running_loop())
        p, port = await s_server(crt, key, str(tmp_path / "msg"), "-rev")
        t, pr = await asyncio.get_running_loop().create_connection(
            Recorder, "127.0.0.1", port, ssl=client_ctx(crt), server_hostname="localhost", ssl_shutdown_timeout=0.3)
        t.write(LINE)
        while len(pr.data) < len(LINE):
            await asyncio.sleep(0.01)
        p.send_signal(signal.SIGSTOP)
        try:
            t.close()
            assert t.is_closing()
            exc = await asyncio.wait_for(pr.lost, 30)
        finally:
            p.send_signal(signal.SIGCONT)
            p.kill()
            await p.wait()
        return type(exc).__name__, str(exc), [e[:2] for e in pr.events], errors

    return run(main(), loop_factory)


def test_shutdown_timeout(cert, tmp_path):
    got = shutdown_timeout(*cert, tmp_path, vigil.new_event_loop)
    assert got[:2] == ("TimeoutError", "SSL shutdown timed out")
    assert got == shutdown_timeout(*cert, tmp_path, asyncio.new_event_loop)


def server_closes(crt, key, tmp_path, loop_factory):
    """s_server -www answers one HTTP request and closes the TLS session itself: its
    close_notify reaches the client protocol as eof_received (sslproto's order: the data,
    eof, lost(None)) and the client answers with its own close_notify."""

    async def main():
        p, port = await s_server(crt, key, str(tmp_path / "msg"), "-www")
        t, pr = await asyncio.get_running_loop().create_connection(
            Recorder, "127.0.0.1", port, ssl=client_ctx(crt), server_hostname="localhost")
        t.write(b"GET / HTTP/1.0\r\n\r\n")
        exc = await asyncio.wait_for(pr.lost, 30)
        await p.stdout.read()
        await p.wait()
        return exc, bytes(pr.data[:15]), [e[:1] for e in pr.events], (tmp_path / "msg").read_text()

    return run(main(), loop_factory)


def test_peer_server_close_notify(cert, tmp_path):
    exc, head, events, msg = server_closes(*cert, tmp_path, vigil.new_event_loop)
    assert exc is None and head == b"HTTP/1.0 200 ok"
    assert ">>> TLS 1.3, Alert [length 0002], warning close_notify" in msg  # s_server sent it
    assert "<<< TLS 1.3, Alert [length 0002], warning close_notify" in msg  # and got ours back
    theirs = server_closes(*cert, tmp_path, asyncio.new_event_loop)
    assert (exc, head, events) == theirs[:3]


def bad_cert_client(crt, key, other_crt, tmp_path, loop_factory):
    """The client trusts another certificate than the one s_server presents: the
    handshake fails, create_connection raises what asyncio raises (SSLCertVerificationError,
    an OSError: not sent to the exception handler), and s_server sees the alert."""

    async def main():
        errors = collect_errors(asyncio.get_running_loop())
        p, port = await s_server(crt, key, str(tmp_path / "msg"), "-rev")  # -rev: stdin unread
        try:
            await asyncio.get_running_loop().create_connection(
                Recorder, "127.0.0.1", port, ssl=client_ctx(other_crt), server_hostname="localhost")
        except Exception as e:  # noqa: BLE001 -- the exception is the result
            got = type(e).__name__, getattr(e, "verify_message", None), isinstance(e, ssl.SSLError)
        else:
            got = None
        await p.stdout.read()
        await p.wait()
        return got, errors

    return run(main(), loop_factory)


@pytest.fixture(scope="module")
def other_cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls-other")
    crt, key = str(d / "c.pem"), str(d / "k.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", crt, "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    return crt, key


def test_failed_handshake_bad_cert_client(cert, other_cert, tmp_path):
    got = bad_cert_client(*cert, other_cert[0], tmp_path, vigil.new_event_loop)
    assert got[0] == ("SSLCertVerificationError", "self-signed certificate", True)
    assert got == bad_cert_client(*cert, other_cert[0], tmp_path, asyncio.new_event_loop)


def bad_cert_server(crt, key, other_crt, tmp_path, loop_factory, debug=False):
    """The server requires a client certificate; s_client offers none: the server's
    handshake fails. No protocol callback runs (connection_made comes only after the
    handshake), the failure goes where asyncio sends it, and s_client exits non-zero."""

    async def main():
        loop = asyncio.get_running_loop()
        loop.set_debug(debug)
        errors = collect_errors(loop)
        protos = []
        ctx = server_ctx(crt, key)
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(other_crt)
        srv = await loop.create_server(lambda: protos.append(Recorder()) or protos[-1], "127.0.0.1", 0, ssl=ctx)
        port = srv.sockets[0].getsockname()[1]
        rc, out, err = await s_client(port, crt, str(tmp_path / "msg"), stdin=b"x\n")
        for _ in range(100):  # the server's side of the failure lands a turn or two later
            await asyncio.sleep(0.01)
        srv.close()
        await srv.wait_closed()
        return rc != 0, [p.events for p in protos], errors

    return run(main(), loop_factory)


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
def test_failed_handshake_server_requires_cert(cert, other_cert, tmp_path, debug):
    got = bad_cert_server(*cert, other_cert[0], tmp_path, vigil.new_event_loop, debug)
    assert got[0] and got[1] == [[]]
    assert got == bad_cert_server(*cert, other_cert[0], tmp_path, asyncio.new_event_loop, debug)


def debug_roundtrip(crt, key, tmp_path, loop_factory):
    """In debug mode sslproto's Python does the handshake's log and timing (tls_session.c
    hands it the whole step): a round trip and close against s_server -rev still match."""

    async def main():
        loop = asyncio.get_running_loop()
        loop.set_debug(True)
        p, port = await s_server(crt, key, str(tmp_path / "msg"), "-rev")
        t, pr = await loop.create_connection(Recorder, "127.0.0.1", port, ssl=client_ctx(crt),
                                             server_hostname="localhost")
        t.write(LINE)
        await rev_end(p, t, pr, 1)
        return [e[:1] for e in pr.events]

    return run(main(), loop_factory)


def test_debug_mode_roundtrip(cert, tmp_path):
    got = debug_roundtrip(*cert, tmp_path, vigil.new_event_loop)
    assert got == [("made",), ("eof",), ("lost",)]
    assert got == debug_roundtrip(*cert, tmp_path, asyncio.new_event_loop)
