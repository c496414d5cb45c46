"""create_datagram_endpoint on vigil's datagram transport (python/csrc/dgram.c), each
scenario run on asyncio's default loop and on vigil's (the backend VIGIL_BACKEND selects;
ctest runs this file once per backend) and the two compared: the callbacks in their
order, the errors, the extra info. Plus volume on loopback: 100,000 datagrams with no
loss (the sender keeps a window the receiver acknowledges, so the rate is one the
receiver keeps up with), random sizes up to IPv4's 65,507 bytes checked byte for byte,
and flow control under a burst larger than the socket buffer."""
import ast
import asyncio
import contextvars
import os
import random
import socket
import tempfile

import pytest

import vigil

VAR = contextvars.ContextVar("VAR", default="unset")
KINDS = ["asyncio", "vigil"]


def new_loop(kind):
    return vigil.new_event_loop() if kind == "vigil" else asyncio.new_event_loop()


def both(scenario, *args):
    """Runs scenario(loop, ...) on both loops; returns {kind: result}."""
    out = {}
    for kind in KINDS:
        loop = new_loop(kind)
        try:
            out[kind] = loop.run_until_complete(asyncio.wait_for(scenario(loop, *args), 30))
        finally:
            loop.close()
    return out


def same(scenario, *args):
    out = both(scenario, *args)
    assert out["vigil"] == out["asyncio"], out
    return out["vigil"]


class Rec(asyncio.DatagramProtocol):
    """Records every callback (with VAR's value where it ran) in order."""

    def __init__(self, loop, want=None):
        self.ev = []
        self.lost = loop.create_future()
        self.got = asyncio.Event()
        self.want = want

    def connection_made(self, transport):
        self.transport = transport
        self.ev.append(("made", VAR.get()))

    def datagram_received(self, data, addr):
        self.ev.append(("data", data, VAR.get()))
        if self.want is not None and sum(1 for e in self.ev if e[0] == "data") >= self.want:
            self.got.set()

    def error_received(self, exc):
        self.ev.append(("error", type(exc).__name__, VAR.get()))
        self.got.set()

    def pause_writing(self):
        self.ev.append(("pause",))

    def resume_writing(self):
        self.ev.append(("resume",))

    def connection_lost(self, exc):
        self.ev.append(("lost", repr(exc) if exc else None, VAR.get()))
        self.lost.set_result(None)


async def _echo_pair(loop):
    """A sender connected to a receiver; each records; the context var differs per side."""
    VAR.set("rx")
    rt, rp = await loop.create_datagram_endpoint(lambda: Rec(loop, 3), local_addr=("127.0.0.1", 0))
    VAR.set("tx")
    st, sp = await loop.create_datagram_endpoint(lambda: Rec(loop), remote_addr=rt.get_extra_info("sockname"))
    VAR.set("other")
    return rt, rp, st, sp


async def scenario_basic(loop):
    rt, rp, st, sp = await _echo_pair(loop)
    info = [type(st.get_extra_info("socket")).__name__, st.get_extra_info("peername") == rt.get_extra_info("sockname"),
            rt.get_extra_info("peername"), st.get_write_buffer_size(), st.is_closing()]
    st.sendto(b"one")
    st.sendto(b"two", rt.get_extra_info("sockname"))  # the connected address itself: allowed
    st.sendto(bytearray(b"three"))
    st.sendto(b"")  # nothing (3.11's asyncio)
    with pytest.raises(ValueError):
        st.sendto(b"x", ("127.0.0.1", 1))
    with pytest.raises(TypeError):
        st.sendto("text")
    await rp.got.wait()
    # the reply goes to the sender's address as recvfrom gave it
    rt.sendto(b"back", st.get_extra_info("sockname"))
    while not [e for e in sp.ev if e[0] == "data"]:
        await asyncio.sleep(0.01)
    # close() from each transport's own context: asyncio runs connection_lost in the
    # closer's context, vigil's (as uvloop, and vigil's stream transport) in the captured one
    VAR.set("tx")
    st.close()
    VAR.set("rx")
    rt.close()
    info.append(st.is_closing())
    await asyncio.gather(rp.lost, sp.lost)
    return info, rp.ev, sp.ev


def test_basic_order_context_extra():
    info, rx, tx = same(scenario_basic)
    assert rx[0] == ("made", "rx") and ("data", b"three", "rx") in rx and rx[-1] == ("lost", None, "rx")
    assert ("data", b"back", "tx") in tx


async def scenario_refused(loop):
    # a port nothing listens on: an ICMP port unreachable comes back to the connected socket
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    VAR.set("c")
    t, p = await loop.create_datagram_endpoint(lambda: Rec(loop), remote_addr=("127.0.0.1", port))
    VAR.set("other")
    t.sendto(b"ping")
    await p.got.wait()
    VAR.set("c")
    t.close()
    await p.lost
    # asyncio reports it either from the receive or from the next send: the kind is what counts
    return [e[:2] for e in p.ev if e[0] == "error"][:1], p.ev[0], p.ev[-1]


def test_error_received_on_refused_port():
    errs, first, last = same(scenario_refused)
    assert errs == [("error", "ConnectionRefusedError")]


async def scenario_abort(loop):
    rt, rp, st, sp = await _echo_pair(loop)
    st.sendto(b"a")
    VAR.set("tx")
    st.abort()
    st.abort()
    VAR.set("rx")
    rt.close()
    await asyncio.gather(rp.lost, sp.lost)
    return sp.ev, st.is_closing(), st.get_extra_info("sockname") is not None


def test_abort():
    ev, closing, _ = same(scenario_abort)
    assert ev == [("made", "tx"), ("lost", None, "tx")] and closing


async def scenario_sendto_errors(loop):
    t, p = await loop.create_datagram_endpoint(lambda: Rec(loop, 1), local_addr=("127.0.0.1", 0))
    t.sendto(b"x", ("localhost", t.get_extra_info("sockname")[1]))  # a host name (/etc/hosts)
    await p.got.wait()
    t.sendto(b"x", ("127.0.0.1", 0))  # port 0: EINVAL from the kernel, error_received
    t.sendto(b"x", None)  # no address on an unconnected socket: a fatal TypeError, closed
    await p.lost
    return [e[:2] for e in p.ev]


def test_sendto_errors():
    same(scenario_sendto_errors)


async def scenario_unix(loop, d):
    a, b = os.path.join(d, "a"), os.path.join(d, "b")
    VAR.set("u")
    rt, rp = await loop.create_datagram_endpoint(lambda: Rec(loop, 2), local_addr=a, family=socket.AF_UNIX)
    st, sp = await loop.create_datagram_endpoint(lambda: Rec(loop, 1), local_addr=b, remote_addr=a,
                                                 family=socket.AF_UNIX)
    st.sendto(b"u1")
    st.sendto(b"u2")
    await rp.got.wait()
    # the sender's path came with the datagrams: reply to it
    rt.sendto(b"r", b)
    await sp.got.wait()
    un = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)  # an unnamed sender
    un.sendto(b"anon", a)
    un.close()
    while len([e for e in rp.ev if e[0] == "data"]) < 3:
        await asyncio.sleep(0.01)
    st.close()
    rt.close()
    await asyncio.gather(rp.lost, sp.lost)
    return rp.ev, sp.ev, rt.get_extra_info("sockname"), st.get_extra_info("peername")


def test_unix_datagrams():
    with tempfile.TemporaryDirectory() as d:
        out = both(scenario_unix, d)
        # the paths are per run (same dir): equal on both loops
        assert out["vigil"] == out["asyncio"], out


async def scenario_sock_param(loop):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    t, p = await loop.create_datagram_endpoint(lambda: Rec(loop, 1), sock=s)
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.bind(("127.0.0.1", 0))
    r.sendto(b"to-sock", s.getsockname())
    await p.got.wait()
    t.sendto(b"reply", r.getsockname())
    r.settimeout(10)
    data = r.recv(100)
    r.close()
    t.close()
    await p.lost
    return data, p.ev, s.fileno()


def test_sock_parameter():
    data, ev, fd = same(scenario_sock_param)
    assert data == b"reply" and fd == -1  # the transport closed the socket it was given


async def scenario_reuse_broadcast(loop):
    t, p = await loop.create_datagram_endpoint(lambda: Rec(loop), local_addr=("127.0.0.1", 0), reuse_port=True,
                                               allow_broadcast=True)
    s = t.get_extra_info("socket")
    opts = (s.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT), s.getsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST))
    t.close()
    await p.lost
    return bool(opts[0]), bool(opts[1])


def test_reuse_port_allow_broadcast():
    assert same(scenario_reuse_broadcast) == (True, True)


async def scenario_ipv6(loop):
    try:
        rt, rp = await loop.create_datagram_endpoint(lambda: Rec(loop, 1), local_addr=("::1", 0))
    except OSError:
        return "no ipv6"
    st, sp = await loop.create_datagram_endpoint(lambda: Rec(loop), family=socket.AF_INET6,
                                                 local_addr=("::1", 0))
    st.sendto(b"six", rt.get_extra_info("sockname")[:2])
    await rp.got.wait()
    st.close()
    rt.close()
    await asyncio.gather(rp.lost, sp.lost)
    [(_, data, _)] = [e for e in rp.ev if e[0] == "data"]
    return data


def test_ipv6():
    same(scenario_ipv6)


# ------------------------------------------------------------------ volume


class Sink(asyncio.DatagramProtocol):
    """Checks each datagram against what was sent (seq in the first 4 bytes, then bytes
    from a seeded generator), acks every `ack` of them."""

    def __init__(self, ack):
        self.n = 0
        self.bad = 0
        self.ack = ack
        self.seen = set()

    def connection_made(self, t):
        self.t = t

    def datagram_received(self, data, addr):
        seq = int.from_bytes(data[:4], "little")
        if data != payload(seq, len(data)):
            self.bad += 1
        self.seen.add(seq)
        self.n += 1
        if self.n % self.ack == 0:
            self.t.sendto(self.n.to_bytes(4, "little"), addr)

    def error_received(self, exc):
        raise exc


def payload(seq, size):
    head = seq.to_bytes(4, "little")
    rnd = random.Random(seq)
    return head + rnd.randbytes(size - 4)


class Src(asyncio.DatagramProtocol):
    def __init__(self, loop):
        self.acked = 0
        self.cond = asyncio.Event()
        self.errors = []

    def connection_made(self, t):
        self.t = t

    def datagram_received(self, data, addr):
        self.acked = max(self.acked, int.from_bytes(data, "little"))
        self.cond.set()

    def error_received(self, exc):
        self.errors.append(exc)


async def stream_datagrams(loop, sizes, window, ack):
    rt, rp = await loop.create_datagram_endpoint(lambda: Sink(ack), local_addr=("127.0.0.1", 0))
    rt.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 21)
    st, sp = await loop.create_datagram_endpoint(lambda: Src(loop), remote_addr=rt.get_extra_info("sockname"))
    for seq, size in enumerate(sizes):
        while seq - sp.acked >= window:  # the rate the receiver keeps up with
            sp.cond.clear()
            try:
                await asyncio.wait_for(sp.cond.wait(), 10)
            except asyncio.TimeoutError:
                raise AssertionError(f"stalled: sent {seq}, received {rp.n}, acked {sp.acked}")
        st.sendto(payload(seq, size))
    while rp.n < len(sizes):
        sp.cond.clear()
        try:
            await asyncio.wait_for(sp.cond.wait(), 0.5)
        except asyncio.TimeoutError:
            if rp.n < len(sizes) and sp.acked == rp.n - rp.n % ack:
                break  # nothing more arrives: lost
    st.close()
    rt.close()
    return rp.n, rp.bad, len(rp.seen), sp.errors


@pytest.mark.parametrize("kind", ["vigil"])
def test_100k_datagrams_no_loss(kind):
    loop = new_loop(kind)
    try:
        n = 100_000
        sizes = [8 + (i % 5) * 50 for i in range(n)]
        got, bad, uniq, errs = loop.run_until_complete(stream_datagrams(loop, sizes, window=256, ack=64))
    finally:
        loop.close()
    assert (got, bad, uniq, errs) == (n, 0, n, [])


@pytest.mark.parametrize("kind", KINDS)
def test_random_sizes_byte_for_byte(kind):
    rnd = random.Random(30)
    sizes = [rnd.choice([4, 5, 100, 1472, 1473, 16240, 16241, 65507]) for _ in range(100)]
    sizes += [rnd.randint(4, 65507) for _ in range(300)]
    loop = new_loop(kind)
    try:
        got, bad, uniq, errs = loop.run_until_complete(stream_datagrams(loop, sizes, window=8, ack=1))
    finally:
        loop.close()
    assert (got, bad, uniq, errs) == (len(sizes), 0, len(sizes), [])


async def unix_pair(loop, d, proto):
    """A transport on a Unix datagram socket connected to a plain receiving socket: there a
    full receiver makes sendto block (EAGAIN), which UDP on loopback never does (it drops)."""
    d = tempfile.mkdtemp(dir=d)
    rx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    rx.bind(os.path.join(d, "rx"))
    rx.setblocking(False)
    t, p = await loop.create_datagram_endpoint(proto, local_addr=os.path.join(d, "tx"),
                                               remote_addr=os.path.join(d, "rx"), family=socket.AF_UNIX)
    return rx, t, p


async def drain(rx, n, until=None):
    got = []
    while len(got) < n or (until is not None and not until.done()):
        try:
            got.append(rx.recv(70000))
        except BlockingIOError:
            if until is not None and until.done() and len(got) >= n:
                break
            await asyncio.sleep(0.001)
    while True:  # what is left once connection_lost ran
        try:
            got.append(rx.recv(70000))
        except BlockingIOError:
            return got


async def scenario_burst(loop, d):
    """More than the receiver takes at once: sendto buffers the rest, pause_writing at
    the high-water mark, resume_writing at the low one, every datagram out in order."""
    rx, t, p = await unix_pair(loop, d, lambda: Rec(loop))
    t.set_write_buffer_limits(high=8192, low=2048)
    n, size = 3000, 1000
    for i in range(n):
        t.sendto(i.to_bytes(4, "little") + bytes(size - 4))
    buffered = t.get_write_buffer_size()
    got = [int.from_bytes(g[:4], "little") for g in await drain(rx, n)]
    while t.get_write_buffer_size():
        await asyncio.sleep(0.001)
    t.close()
    await p.lost
    rx.close()
    flow = [e[0] for e in p.ev if e[0] in ("pause", "resume")]
    return buffered > 0, buffered % size, flow[:2], flow[-1], got == list(range(n)), t.get_write_buffer_size()


def test_flow_control_burst():
    with tempfile.TemporaryDirectory() as d:
        out = both(scenario_burst, d)
    assert out["vigil"] == out["asyncio"] == (True, 0, ["pause", "resume"], "resume", True, 0), out


async def scenario_close_flushes(loop, d):
    rx, t, p = await unix_pair(loop, d, lambda: Rec(loop))
    for i in range(200):
        t.sendto(bytes(1000))
    queued = t.get_write_buffer_size() > 0
    t.close()
    t.sendto(b"after close")  # still queued behind the rest, as asyncio's (sent before lost)
    lost_at_close = p.lost.done()
    got = await drain(rx, 0, until=p.lost)
    rx.close()
    return queued, lost_at_close, len(got), [e[0] for e in p.ev if e[0] not in ("pause", "resume")]


def test_close_flushes_then_connection_lost():
    with tempfile.TemporaryDirectory() as d:
        out = both(scenario_close_flushes, d)
    assert out["vigil"] == out["asyncio"], out
    assert out["vigil"][:3] == (True, False, 201), out


def test_callback_exception_goes_to_handler():
    async def scenario(loop):
        errors = []
        loop.set_exception_handler(lambda lp, ctx: errors.append(type(ctx.get("exception")).__name__))

        class Bad(Rec):
            def datagram_received(self, data, addr):
                super().datagram_received(data, addr)
                raise ZeroDivisionError

        rt, rp = await loop.create_datagram_endpoint(lambda: Bad(loop, 2), local_addr=("127.0.0.1", 0))
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        c.sendto(b"1", rt.get_extra_info("sockname"))
        c.sendto(b"2", rt.get_extra_info("sockname"))
        c.close()
        await rp.got.wait()
        closing = rt.is_closing()
        rt.close()
        await rp.lost
        return errors, closing

    assert same(scenario) == (["ZeroDivisionError", "ZeroDivisionError"], False)


def test_vigil_transport_is_the_c_one():
    loop = vigil.new_event_loop()
    try:
        async def go():
            t, p = await loop.create_datagram_endpoint(asyncio.DatagramProtocol, local_addr=("127.0.0.1", 0))
            kind = type(t._io).__name__
            t.close()
            return kind

        assert loop.run_until_complete(go()) == "DgramIO"
    finally:
        loop.close()


def test_lost_transports_go_by_reference_counting(caplog):
    """Once connection_lost has run, a datagram transport (shell and C half; connected and
    not) is freed by reference counting, as asyncio's is: no cycle left for the collector.
    A connected transport's sendto after the loss still warns (asyncio's 'socket.send()
    raised exception.' from the 5th), also through a sendto bound before the loss, and
    abort() and close() do nothing more."""
    import gc
    import logging
    import weakref

    loop = vigil.new_event_loop()

    async def main():
        rt, rp = await loop.create_datagram_endpoint(lambda: Rec(loop, 1), local_addr=("127.0.0.1", 0))
        ct, cp = await loop.create_datagram_endpoint(lambda: Rec(loop), remote_addr=rt.get_extra_info("sockname"))
        ct.sendto(b"ping")
        await rp.got.wait()
        send = ct.sendto
        rt.close()
        ct.close()
        await rp.lost
        await cp.lost
        with caplog.at_level(logging.WARNING, logger="asyncio"):
            for _ in range(5):
                ct.sendto(b"late")
        assert any("socket.send() raised exception." in r.getMessage() for r in caplog.records)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="asyncio"):
            send(b"late")
        assert any("socket.send() raised exception." in r.getMessage() for r in caplog.records)
        ct.abort()
        ct.close()
        assert ct.is_closing()
        refs = [weakref.ref(rt), weakref.ref(ct), weakref.ref(rt._io), weakref.ref(ct._io)]
        del rt, rp, ct, cp
        return refs, send

    gc.collect()
    gc.disable()
    try:
        refs, send = loop.run_until_complete(main())
        loop.run_until_complete(asyncio.sleep(0))
        assert refs[0]() is None, "the receiver's transport waits for the cyclic collector"
        assert refs[2]() is None, "the receiver's DgramIO waits for the cyclic collector"
        assert refs[1]() is None, "the sender's transport waits for the cyclic collector"
        assert refs[3]() is not None  # the bound sendto keeps the C half, not the shell
        send(b"late")  # the shell is gone: nothing to warn through, and no error
        del send
        assert refs[3]() is None, "the sender's DgramIO waits for the cyclic collector"
    finally:
        gc.enable()
        loop.close()


def test_pool_set_by_a_stream_first_reports_emsgsize():
    """vigil only (asyncio reads up to 256 KiB): when a stream transport set the loop's
    receive pool up first (16 KiB buffers), a datagram longer than a buffer holds is
    reported to error_received as EMSGSIZE, and the datagrams after it still arrive."""
    loop = vigil.new_event_loop()

    async def go():
        a, b = socket.socketpair()
        st, _ = await loop.create_connection(asyncio.Protocol, sock=a)  # the pool: 16 KiB buffers
        rt, rp = await loop.create_datagram_endpoint(lambda: Rec(loop, 2), local_addr=("127.0.0.1", 0))
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        c.sendto(b"s" * 100, rt.get_extra_info("sockname"))
        c.sendto(b"L" * 20000, rt.get_extra_info("sockname"))
        c.sendto(b"t" * 100, rt.get_extra_info("sockname"))
        c.close()
        while len([e for e in rp.ev if e[0] == "data"]) < 2:
            await asyncio.sleep(0.01)
        st.close()
        b.close()
        rt.close()
        await rp.lost
        return [e[:2] for e in rp.ev if e[0] == "error"], [len(e[1]) for e in rp.ev if e[0] == "data"]

    try:
        assert loop.run_until_complete(asyncio.wait_for(go(), 30)) == ([("error", "OSError")], [100, 100])
    finally:
        loop.close()


def long_dir(d):
    """A directory whose paths are longer than a sockaddr_in6 (28 bytes) and whose
    sockets' names are prefixes of one another (a, ab): the AF_UNIX paths anyio's tests
    use (pytest's tmp_path), where the old dgram.c sent to a path with a stale byte after
    it."""
    d = os.path.join(d, "a-directory-with-a-long-name-for-sockets")
    os.makedirs(d, exist_ok=True)
    return d


async def scenario_unconnected_unix_paths(loop, d):
    """An unconnected Unix datagram transport sending by path, alternately to two
    receivers whose names share a prefix (x/a and x/ab): each gets its own datagrams.
    (A Unix datagram is in the receiver's queue when sendto returns: read at once.)"""
    d = long_dir(tempfile.mkdtemp(dir=d))
    rx = {}
    for name in ("a", "ab"):
        s = rx[name] = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(os.path.join(d, name))
        s.setblocking(False)
    t, p = await loop.create_datagram_endpoint(lambda: Rec(loop), family=socket.AF_UNIX)
    got = {"a": [], "ab": []}
    for i in range(20):
        for name in ("ab", "a"):
            t.sendto(f"{name}{i}".encode(), os.path.join(d, name))
        await asyncio.sleep(0)
        for name, s in rx.items():
            got[name] += await drain(s, 0)
    for s in rx.values():
        s.close()
    t.close()
    await p.lost
    return got, [e for e in p.ev if e[0] == "error"], t.get_write_buffer_size()


def test_unconnected_unix_paths():
    with tempfile.TemporaryDirectory() as d:
        got, errors, left = same(scenario_unconnected_unix_paths, d)
    assert errors == [] and left == 0 and got == {n: [f"{n}{i}".encode() for i in range(20)] for n in ("a", "ab")}, (got, errors)


def free_depth():
    """How many more Python frames fit before RecursionError (a C path that left the
    thread's recursion counter unbalanced changes it)."""
    def down(n):
        try:
            return down(n + 1)
        except RecursionError:
            return n
    return down(0)


async def scenario_unix_backpressure(loop, d):
    """anyio's TestUDPSocketBackpressure sequence, by hand: an unconnected Unix datagram
    socket with a small send buffer (SO_SNDBUF 1024) and a peer that does not read; the
    datagrams the OS takes go at once, the next waits in the transport (pause_writing,
    high water 0 as anyio sets it) and goes once the peer reads (resume_writing); a
    datagram waiting when the transport is aborted never arrives; then the interpreter
    still parses and compiles."""
    d = long_dir(tempfile.mkdtemp(dir=d))
    payload = b"\0" * 64
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    peer_path = os.path.join(d, "peer.sock")
    peer.bind(peer_path)
    peer.setblocking(False)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(os.path.join(d, "local.sock"))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1024)
    sock.setblocking(False)
    capacity = 0
    try:
        while True:
            sock.sendto(payload, peer_path)
            capacity += 1
    except BlockingIOError:
        pass
    await drain(peer, capacity)
    t, p = await loop.create_datagram_endpoint(lambda: Rec(loop), sock=sock)
    await asyncio.sleep(0)
    t.set_write_buffer_limits(0)
    out = []
    for _ in range(capacity):
        t.sendto(payload, peer_path)
    out.append(("filled", t.get_write_buffer_size(), [e[0] for e in p.ev[1:]]))
    t.sendto(b"one", peer_path)  # the OS is full: queued
    out.append(("queued", t.get_write_buffer_size(), [e[0] for e in p.ev[1:]]))
    got = []
    for _ in range(5000):  # bounded: a datagram sent elsewhere never comes
        got += await drain(peer, 0)
        if b"one" in got:
            break
        await asyncio.sleep(0.001)
    out.append(("drained", got.count(payload), got[-1:], t.get_write_buffer_size(), [e[0] for e in p.ev[1:]]))
    for _ in range(capacity):
        t.sendto(payload, peer_path)
    t.sendto(b"two", peer_path)  # queued, then thrown away by abort
    out.append(("queued", t.get_write_buffer_size()))
    t.abort()
    await p.lost
    rest = await drain(peer, 0)
    out.append(("aborted", len(rest), b"two" in rest, sock.fileno(), [e[0] for e in p.ev[1:]]))
    peer.close()
    return out


def test_unix_backpressure_unconnected():
    depth = free_depth()
    with tempfile.TemporaryDirectory() as d:
        out = same(scenario_unix_backpressure, d)
    cap = out[2][1]
    assert out == [("filled", 0, []), ("queued", 3, ["pause"]), ("drained", cap, [b"one"], 0, ["pause", "resume"]),
                   ("queued", 3), ("aborted", cap, False, -1, ["pause", "resume", "pause", "lost"])], out
    compile(ast.parse("def f(x):\n    return [x for _ in range(3)]\n"), "<check>", "exec")
    assert free_depth() == depth


async def scenario_close_with_failing_queue(loop, d):
    """close() while a datagram waits for a receiver that then goes away: the queued
    send fails (error_received) and connection_lost still comes, as asyncio's."""
    d = long_dir(tempfile.mkdtemp(dir=d))
    peer_path = os.path.join(d, "peer.sock")
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    peer.bind(peer_path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1024)
    sock.setblocking(False)
    t, p = await loop.create_datagram_endpoint(lambda: Rec(loop), sock=sock)
    await asyncio.sleep(0)
    for _ in range(10000):
        t.sendto(b"\0" * 64, peer_path)
        if t.get_write_buffer_size():
            break
    queued = t.get_write_buffer_size()
    t.close()
    peer.close()  # frees the sender's buffer (writable) and refuses what waits
    os.unlink(peer_path)
    try:
        await asyncio.wait_for(asyncio.shield(p.lost), 5)
    except asyncio.TimeoutError:
        t.abort()
        await p.lost
        return queued, "no connection_lost", [e[:2] for e in p.ev[1:]]
    return queued, "lost", [e[:2] for e in p.ev[1:]]


def test_close_with_failing_queue():
    with tempfile.TemporaryDirectory() as d:
        out = same(scenario_close_with_failing_queue, d)
    assert out[:2] == (64, "lost") and ("error", "FileNotFoundError") in out[2], out
