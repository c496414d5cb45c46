"""vigil's loop: what CPython's mixins do not cover. Each runs on the backend that
VIGIL_BACKEND selects (ctest runs this file once per backend)."""
import asyncio
import gc
import os
import signal
import socket
import sys
import threading
import time

import pytest

import vigil
from vigil import _core


@pytest.fixture
def loop():
    lp = vigil.new_event_loop()
    yield lp
    if not lp.is_closed():
        lp.close()


def test_backend_is_the_one_asked(loop):
    want = os.environ.get("VIGIL_BACKEND")
    assert loop.backend in ("uring", "epoll", "poll")
    if want:
        assert loop.backend == want
    for b in ("epoll", "poll"):
        lp = vigil.new_event_loop(backend=b)
        assert lp.backend == b
        lp.close()


def test_policy_and_factories():
    async def main():
        return type(asyncio.get_running_loop())

    assert vigil.run(main()) is vigil.Loop
    with asyncio.Runner(loop_factory=vigil.new_event_loop) as r:
        assert r.run(main()) is vigil.Loop
    if sys.version_info >= (3, 12):
        assert asyncio.run(main(), loop_factory=vigil.new_event_loop) is vigil.Loop
    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(vigil.EventLoopPolicy())
    try:
        assert asyncio.run(main()) is vigil.Loop
    finally:
        asyncio.set_event_loop_policy(old)
    # Importing vigil changed nothing.
    assert asyncio.run(main()) is not vigil.Loop


def test_time_is_monotonic_seconds(loop):
    a = time.monotonic()
    t = loop.time()
    b = time.monotonic()
    assert a <= t <= b


@pytest.mark.parametrize("delay_us", [0, 1, 100, 1000, 10000])
def test_timers_never_early(loop, delay_us):
    errors = []
    n = 60 if delay_us < 10000 else 15

    def cb(deadline_ns):
        errors.append(time.monotonic_ns() - deadline_ns)
        if len(errors) == n:
            loop.stop()

    def arm():
        t0 = time.monotonic_ns()
        loop.call_later(delay_us / 1e6, cb, t0 + delay_us * 1000)

    for i in range(n):
        loop.call_later(i * (delay_us + 50) / 1e6, arm)
    loop.call_later(30, loop.stop)
    loop.run_forever()
    assert len(errors) == n
    assert min(errors) >= 0, f"a timer ran {-min(errors)} ns early"


def test_call_at_never_early(loop):
    seen = []
    for k in range(50):
        when = loop.time() + k * 0.0003
        loop.call_at(when, lambda w=when: seen.append(time.monotonic() - w))
    loop.call_later(0.1, loop.stop)
    loop.run_forever()
    assert len(seen) == 50 and min(seen) >= 0


def test_timer_order_deadline_then_scheduling(loop):
    order = []
    base = loop.time() + 0.02
    for i, off in enumerate([3, 1, 2, 1, 3, 0, 1]):
        loop.call_at(base + off * 0.001, order.append, (off, i))
    loop.call_at(base + 0.01, loop.stop)
    loop.run_forever()
    assert order == sorted(order)


def test_call_soon_fifo_and_args(loop):
    out = []
    for i in range(1000):
        loop.call_soon(out.append, i)
    loop.call_soon(loop.stop)
    loop.run_forever()
    assert out == list(range(1000))


def test_reused_handles_are_fresh_and_skip_the_gc_count(loop):
    """Freed Handles are kept and reused (handle.c): a reused one starts clean (not
    cancelled, its own callback, arguments and context, no weak references of the one
    before), and taking it does not count toward the GC's young generation, so a turn
    that queues a Handle per connection does not trigger a collection."""
    import contextvars
    import weakref
    var = contextvars.ContextVar("v", default="none")
    out = []
    ctx = contextvars.copy_context()
    ctx.run(var.set, "ctx")

    def rec(i):
        out.append((i, var.get()))
    # a first batch of the same shape: its Handles (and their argument tuples, CPython's
    # own free list) are freed when it has run
    first = [loop.call_soon(rec, -1, context=ctx) for _ in range(1000)]
    refs = [weakref.ref(h) for h in first[:10]]
    first[0].cancel()
    loop.call_soon(loop.stop)
    loop.run_forever()
    del first
    assert all(r() is None for r in refs)
    out.clear()
    hs = [None] * 1000
    gc.disable()
    try:
        n0 = gc.get_count()[0]
        for i in range(1000):
            hs[i] = loop.call_soon(rec, i, context=ctx)
        n1 = gc.get_count()[0]
    finally:
        gc.enable()
    # CPython's own allocation of each Handle would add 1000
    assert n1 - n0 < 100, n1 - n0
    # TimerHandles too: a batch armed and cancelled (freed), then the same again
    for t in [loop.call_later(100, rec, -1, context=ctx) for _ in range(1000)]:
        t.cancel()
    gc.disable()
    try:
        n2 = gc.get_count()[0]
        ts = [loop.call_later(100, rec, -2, context=ctx) for _ in range(1000)]
        n3 = gc.get_count()[0]
    finally:
        gc.enable()
    assert n3 - n2 < 100, n3 - n2
    for t in ts:
        t.cancel()
    del ts, t
    assert loop._vigil_timer_count() == 0
    late = loop.call_later(0, rec, 1001)  # a reused TimerHandle still fires
    hs.append(loop.call_soon(rec, 1000))  # a copy of the current context: var unset
    assert not any(h.cancelled() for h in hs)
    hs[3].cancel()
    loop.call_soon(loop.stop)
    loop.run_forever()
    while (1001, "none") not in out:
        loop.call_soon(loop.stop)
        loop.run_forever()
    out.remove((1001, "none"))
    assert not late.cancelled()
    assert out == [(i, "ctx") for i in range(1000) if i != 3] + [(1000, "none")]
    assert hs[3].cancelled() and "cancelled" in repr(hs[3])
    assert isinstance(hs[0], asyncio.Handle) or type(hs[0]).__name__ == "Handle"


def test_cancelled_timers_release_their_handles(loop):
    hs = [loop.call_later(100, lambda: None) for _ in range(100)]
    assert loop._vigil_timer_count() == 100
    for h in hs:
        h.cancel()
        assert h.cancelled()
    assert loop._vigil_timer_count() == 0
    loop.call_soon(loop.stop)
    loop.run_forever()


def test_call_soon_threadsafe_wakes_a_sleeping_loop(loop):
    loop.call_later(60, loop.stop)  # the loop would sleep a minute without the wake-up

    def poke():
        time.sleep(0.05)
        loop.call_soon_threadsafe(loop.stop)

    th = threading.Thread(target=poke)
    th.start()
    t0 = time.monotonic()
    loop.run_forever()
    th.join()
    assert time.monotonic() - t0 < 5


def test_call_soon_threadsafe_from_many_threads(loop):
    n_threads, n_calls = 4, 2000
    got = []
    done = threading.Event()

    def cb(i):
        got.append(i)
        if len(got) == n_threads * n_calls:
            loop.stop()

    def worker(k):
        for i in range(n_calls):
            loop.call_soon_threadsafe(cb, k * n_calls + i)
            if i % 500 == 0:
                time.sleep(0.001)

    ths = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
    for t in ths:
        t.start()
    loop.call_later(30, loop.stop)
    loop.run_forever()
    for t in ths:
        t.join()
    assert sorted(got) == list(range(n_threads * n_calls))
    done.set()


def test_exception_handler_gets_callback_errors(loop):
    seen = []
    loop.set_exception_handler(lambda lp, ctx: seen.append(ctx))

    def boom():
        raise ZeroDivisionError("x")

    loop.call_soon(boom)
    loop.call_soon(loop.stop)
    loop.run_forever()
    assert len(seen) == 1
    assert isinstance(seen[0]["exception"], ZeroDivisionError)
    assert seen[0]["message"].startswith("Exception in callback")


def test_system_exit_escapes_run_forever(loop):
    after = []

    def bye():
        raise SystemExit(3)

    loop.call_soon(bye)
    loop.call_soon(after.append, 1)
    with pytest.raises(SystemExit):
        loop.run_forever()
    assert not loop.is_running()
    loop.call_soon(loop.stop)
    loop.run_forever()  # the callback queued behind it still runs
    assert after == [1]


def test_keyboard_interrupt_during_run_forever(loop):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("needs the main thread")
    loop.call_later(30, loop.stop)
    t = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    t.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        loop.run_forever()
    t.join()
    assert time.monotonic() - t0 < 10
    assert not loop.is_running()
    assert loop.run_until_complete(asyncio.sleep(0, "ok")) == "ok"


def test_debug_mode_slow_callback_warning(loop, caplog):
    loop.set_debug(True)
    loop.slow_callback_duration = 0.01
    loop.call_soon(time.sleep, 0.03)
    loop.call_soon(loop.stop)
    with caplog.at_level("WARNING", logger="asyncio"):
        loop.run_forever()
    assert any("Executing" in r.getMessage() and "took" in r.getMessage() for r in caplog.records)


def test_debug_mode_thread_check(loop):
    loop.set_debug(True)
    errs = []

    async def main():
        def other():
            try:
                loop.call_soon(lambda: None)
            except RuntimeError as e:
                errs.append(e)

        th = threading.Thread(target=other)
        th.start()
        th.join()

    loop.run_until_complete(main())
    assert errs and "thread" in str(errs[0])


def test_close_with_pending_callbacks(loop):
    ran = []
    loop.call_soon(ran.append, 1)
    loop.call_later(0.001, ran.append, 2)
    r, w = socket.socketpair()
    loop.add_reader(r, ran.append, 3)
    w.send(b"x")
    loop.close()
    assert ran == []
    assert loop.is_closed()
    with pytest.raises(RuntimeError):
        loop.call_soon(ran.append, 4)
    assert loop.remove_reader(r) is False
    r.close()
    w.close()


def test_fd_closed_while_watched(loop):
    """Closing a watched fd (without remove_reader) must not break the loop; the same
    fd number reused by a new socket is watched afresh once re-added."""
    r, w = socket.socketpair()
    calls = []
    loop.add_reader(r.fileno(), calls.append, "old")
    fd = r.fileno()
    r.close()
    w.close()
    loop.call_later(0.02, loop.stop)
    loop.run_forever()
    assert "old" not in calls  # a selector drops a closed fd; so does vigil (no EBADF callback)
    loop.remove_reader(fd)
    r2, w2 = socket.socketpair()
    loop.add_reader(r2.fileno(), lambda: (calls.append("new"), loop.stop()))
    w2.send(b"x")
    loop.call_later(5, loop.stop)
    loop.run_forever()
    assert "new" in calls
    loop.remove_reader(r2.fileno())
    r2.close()
    w2.close()


def test_transport_socket_closed_underneath(loop):
    """A transport whose fd is closed behind its back ends with connection_lost."""
    lost = loop.create_future()

    class P(asyncio.Protocol):
        def connection_lost(self, exc):
            if not lost.done():
                lost.set_result(exc)

    async def main():
        a, b = socket.socketpair()
        tr, _ = await loop.create_connection(P, sock=a)
        b.close()  # the peer goes away: EOF
        return await asyncio.wait_for(lost, 5)

    loop.run_until_complete(main())


def _epoll_holds(ino):
    """How many registrations of the file with inode ino the epoll sets of this process
    hold: the kernel lists each in /proc/self/fdinfo/<epoll fd> as a "tfd:" line that
    names the file's inode (hex)."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:[eventpoll]":
                continue
            with open(f"/proc/self/fdinfo/{fd}") as f:
                info = f.read()
        except OSError:
            continue
        n += sum(1 for ln in info.splitlines() if ln.startswith("tfd:") and f" ino:{ino:x} " in ln)
    return n


def test_transport_close_leaves_no_epoll_registration(loop):
    """A closed transport's socket leaves the loop's epoll set even while another fd keeps
    the file open (an os.dup here; a forked child's copy in real programs). The transport
    hands vigil a dup of the socket, so with the registration deleted after close() (as
    before 8543947) the file stayed in the set until an event on it made the loop rebuild
    the set."""
    lost = loop.create_future()
    got = []
    held = []

    class P(asyncio.Protocol):
        def connection_made(self, tr):
            self.tr = tr

        def data_received(self, data):
            got.append(data)
            if data == b"bye":
                self.tr.close()  # from the receive callback: the fd closes in this turn
            elif loop.backend == "epoll":
                held.append(_epoll_holds(ino))  # the check sees a registration that is there

        def connection_lost(self, exc):
            if not lost.done():
                lost.set_result(exc)

    a, b = socket.socketpair()
    keep = os.dup(a.fileno())
    ino = os.fstat(a.fileno()).st_ino

    async def main():
        await loop.create_connection(P, sock=a)
        b.send(b"x")
        while not got:
            await asyncio.sleep(0.005)
        b.send(b"bye")
        assert await asyncio.wait_for(lost, 5) is None
        for _ in range(3):  # a few turns, nothing arriving on the still-open file
            await asyncio.sleep(0.01)
        after_close = _epoll_holds(ino)
        b.send(b"more")  # its bytes must reach nobody
        await asyncio.sleep(0.05)
        return after_close

    try:
        assert loop.run_until_complete(main()) == 0
        assert got == [b"x", b"bye"]
        assert held == ([1] if loop.backend == "epoll" else [])
        assert _epoll_holds(ino) == 0
    finally:
        os.close(keep)
        b.close()


class _Echo(asyncio.Protocol):
    """Writes back every byte it receives (the servers of the tests below)."""

    def connection_made(self, tr):
        self.tr = tr

    def data_received(self, data):
        self.tr.write(data)


def _pair_servers(loop, server_proto):
    async def mk():
        srv = await loop.create_server(server_proto, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        return srv, port
    return loop.run_until_complete(mk())


# 4 KiB: on io_uring the first write goes out from one of the loop's send buffers, whose
# completion stream.c ends without running the transport when nothing waits on it
# (send_quiet_done): the pause must still end in resume_writing(). 64 KiB: a kept object.
@pytest.mark.parametrize("block_size", [4096, 65536])
def test_flow_control_pause_and_resume_writing(loop, block_size):
    events = []
    chunks = []

    class Sink(asyncio.Protocol):
        def connection_made(self, tr):
            self.tr = tr
            tr.pause_reading()
            sink.append(tr)

        def data_received(self, data):
            chunks.append(len(data))

    sink = []
    srv, port = _pair_servers(loop, Sink)

    class Source(asyncio.Protocol):
        def connection_made(self, tr):
            self.tr = tr

        def pause_writing(self):
            events.append("pause")

        def resume_writing(self):
            events.append("resume")

    async def main():
        tr, pr = await loop.create_connection(Source, "127.0.0.1", port)
        if block_size > 4096:  # 4 KiB: the defaults, so only the writes themselves pause
            tr.set_write_buffer_limits(high=64 * 1024, low=16 * 1024)
        assert tr.get_write_buffer_limits() == (16 * 1024, 64 * 1024)
        while not sink:
            await asyncio.sleep(0.001)
        block = b"x" * block_size
        for _ in range(200 * 65536 // block_size):
            tr.write(block)
            if "pause" in events:
                break
        assert "pause" in events
        assert tr.get_write_buffer_size() > 64 * 1024
        sink[0].resume_reading()  # the peer drains: the buffer empties, writing resumes
        for _ in range(500):
            if "resume" in events:
                break
            await asyncio.sleep(0.01)
        assert events[-1] == "resume"
        assert tr.get_write_buffer_size() <= 16 * 1024
        tr.close()
        srv.close()
        await srv.wait_closed()

    loop.run_until_complete(main())


def test_new_limits_pause_then_resume_after_a_send_buffer_send(loop):
    """set_write_buffer_limits() under what is in flight pauses the protocol; the send's
    completion then resumes it. On io_uring the 4 KiB write is in flight from a loop send
    buffer when the limits change, and its completion is the one stream.c may end without
    running the transport (send_quiet_done): the new limits must take it off that path.
    On the readiness backends and asyncio's loop the write is out at once: no pause, and
    then no resume either."""
    events = []

    srv, port = _pair_servers(loop, _Echo)

    class Source(asyncio.Protocol):
        def connection_made(self, tr):
            self.tr = tr

        def data_received(self, data):
            events.append(len(data))

        def pause_writing(self):
            events.append("pause")

        def resume_writing(self):
            events.append("resume")

    async def main():
        tr, pr = await loop.create_connection(Source, "127.0.0.1", port)
        tr.write(b"y" * 4096)
        paused = tr.get_write_buffer_size() > 0
        tr.set_write_buffer_limits(high=0, low=0)
        assert ("pause" in events) == paused
        if getattr(loop, "backend", None) == "uring":
            assert paused, "the 4 KiB write was not in flight from a send buffer"
        for _ in range(500):
            if tr.get_write_buffer_size() == 0 and (not paused or "resume" in events):
                break
            await asyncio.sleep(0.01)
        assert tr.get_write_buffer_size() == 0
        assert [e for e in events if isinstance(e, str)] == (["pause", "resume"] if paused else [])
        tr.close()
        srv.close()
        await srv.wait_closed()

    loop.run_until_complete(main())


def _paused_source(loop, Source, high=64 * 1024):
    """A client transport of Source paused for writing: its peer does not read until
    the returned resume() is called. Returns (transport, protocol, resume, cleanup)."""
    sink = []

    class Sink(asyncio.Protocol):
        def connection_made(self, tr):
            tr.pause_reading()
            sink.append(tr)

    srv, port = _pair_servers(loop, Sink)

    async def main():
        tr, pr = await loop.create_connection(Source, "127.0.0.1", port)
        tr.set_write_buffer_limits(high=high)
        while not sink:
            await asyncio.sleep(0.001)
        block = b"x" * 65536
        for _ in range(200):
            tr.write(block)
            if tr.get_write_buffer_size() > high:
                break
        return tr, pr

    tr, pr = loop.run_until_complete(main())

    async def cleanup():
        tr.close()
        srv.close()
        await srv.wait_closed()

    return tr, pr, sink[0].resume_reading, cleanup


def test_set_protocol_while_paused(loop):
    """A transport paused for writing gets a new protocol (what start_tls does): the
    new protocol is never told resume_writing() without a pause_writing() before it,
    and a write over the high-water mark pauses it. The pairing is what asyncio's docs
    promise ("pause_writing() and resume_writing() calls are paired"); asyncio's own
    selector loop (3.11) breaks it here, sending the new protocol a resume_writing()
    when the old one's buffer drains, so it is not the oracle for this one."""
    errors = []
    loop.set_exception_handler(lambda lp, ctx: errors.append(ctx))

    class Counting(asyncio.Protocol):
        def __init__(self):
            self.events = []

        def pause_writing(self):
            assert self.events[-1:] != ["pause"], "paused twice"
            self.events.append("pause")

        def resume_writing(self):
            assert self.events[-1:] == ["pause"], "resumed without a pause"
            self.events.append("resume")

    tr, old, resume, cleanup = _paused_source(loop, Counting)
    assert old.events == ["pause"]
    new = Counting()
    tr.set_protocol(new)
    assert tr.get_protocol() is new
    resume()  # the peer reads: the buffer drains

    async def drained():
        for _ in range(500):
            if tr.get_write_buffer_size() == 0:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the write buffer never drained")

    loop.run_until_complete(drained())
    loop.run_until_complete(asyncio.sleep(0.01))
    assert new.events == [] and old.events == ["pause"]
    tr.set_write_buffer_limits(high=0)  # the next write goes over at once
    tr.write(b"y" * 65536)
    loop.run_until_complete(drained())
    loop.run_until_complete(asyncio.sleep(0.01))
    assert new.events in (["pause", "resume"], [])  # [] where the write went out at once
    if loop.backend == "uring":
        assert new.events == ["pause", "resume"]  # the send stays in the ring until it completes
    loop.run_until_complete(cleanup())
    assert errors == []


def test_pause_reading_stops_data_received(loop):
    got = []

    class Srv(asyncio.Protocol):
        def connection_made(self, tr):
            tr.write(b"a" * 10)

    srv, port = _pair_servers(loop, Srv)

    class Cli(asyncio.Protocol):
        def connection_made(self, tr):
            tr.pause_reading()
            assert not tr.is_reading()

        def data_received(self, data):
            got.append(data)

    async def main():
        tr, _ = await loop.create_connection(Cli, "127.0.0.1", port)
        await asyncio.sleep(0.05)
        assert got == []
        tr.resume_reading()
        assert tr.is_reading()
        for _ in range(100):
            if got:
                break
            await asyncio.sleep(0.01)
        assert b"".join(got) == b"a" * 10
        tr.close()
        srv.close()
        await srv.wait_closed()

    loop.run_until_complete(main())


def test_transport_hot_methods_are_the_class_s(loop):
    """write, is_closing, ... are C methods of the shell's class reading its _io slot (so
    the interpreter specialises the calls): they work through a subclass and on a
    connection's transport, and a shell whose C half was never made raises instead of
    crashing."""
    from vigil._loop import SocketTransport

    class Sub(SocketTransport):
        pass

    for cls in (SocketTransport, Sub):
        bare = cls.__new__(cls)
        for name in ("write", "is_closing", "get_write_buffer_size", "is_reading", "pause_reading",
                     "resume_reading"):
            args = (b"x",) if name == "write" else ()
            with pytest.raises(RuntimeError, match="not initialised"):
                getattr(bare, name)(*args)
    with pytest.raises(TypeError):
        SocketTransport.write(object(), b"x")

    got = []

    class Cli(asyncio.Protocol):
        def data_received(self, data):
            got.append(data)

    srv, port = _pair_servers(loop, _Echo)

    async def main():
        tr, _ = await loop.create_connection(Cli, "127.0.0.1", port)
        assert "write" not in vars(tr) and not tr.is_closing() and tr.is_reading()
        tr.write(b"ping")
        with pytest.raises(TypeError):
            tr.write("text")
        for _ in range(200):
            if b"".join(got) == b"ping":
                break
            await asyncio.sleep(0.01)
        assert b"".join(got) == b"ping" and tr.get_write_buffer_size() == 0
        tr.close()
        assert tr.is_closing()
        srv.close()
        await srv.wait_closed()

    loop.run_until_complete(main())


def test_streams_echo_large(loop):
    async def handle(r, w):
        while data := await r.read(65536):
            w.write(data)
            await w.drain()
        w.close()

    async def main():
        srv = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        r, w = await asyncio.open_connection("127.0.0.1", port)
        payload = os.urandom(3 * 1024 * 1024)

        async def send():
            w.write(payload)
            await w.drain()
            w.write_eof()

        task = asyncio.ensure_future(send())
        got = await r.read(-1) if False else await r.readexactly(len(payload))
        await task
        assert got == payload
        w.close()
        srv.close()
        await srv.wait_closed()

    loop.run_until_complete(main())


def _recv_script(seed):
    """A random mix of peer writes and receiver reads: (kind, size) steps. The receiver
    reads with sock_recv or sock_recv_into, sizes from 1 byte to more than is queued,
    both when data is queued (a first attempt succeeds) and when none is (it must wait
    for the peer), so the adaptive first attempt (vigil._loop: sock_recv) flips both
    ways on one fd."""
    import random

    rnd = random.Random(seed)
    steps = []
    for _ in range(300):
        r = rnd.random()
        if r < 0.4:
            steps.append(("write", rnd.choice([1, 7, 64, 1000, 4096, 70000])))
        elif r < 0.7:
            steps.append(("recv", rnd.choice([1, 5, 64, 4096, 65536])))
        else:
            steps.append(("recv_into", rnd.choice([1, 13, 512, 8192, 65536])))
    return steps


def _run_recv_script(lp, steps, seed):
    """Plays steps on lp over an AF_UNIX stream pair; returns the chunks the receiver
    got, then what was left, up to the end of the stream. A read when nothing is queued
    makes the peer write (from a thread, 2 ms later) so the receiver waits. Each chunk
    is checked against a shadow copy of what the peer sent: on a stream socketpair a
    receive returns min(size, queued) bytes, the oldest first."""
    import random

    a, b = socket.socketpair()
    a.setblocking(False)
    chunks = []
    pending = bytearray()  # sent by the peer, not yet received: the shadow copy

    def data(i, n):
        return random.Random(seed * 100003 + i).randbytes(n)

    async def main():
        for i, (kind, size) in enumerate(steps):
            if kind == "write":
                if len(pending) + size <= 100_000:  # below the socket buffer: never blocks
                    b.sendall(data(i, size))
                    pending.extend(data(i, size))
                continue
            if not pending:
                d = data(i, 1 + (i * 37) % 5000)
                threading.Timer(0.002, b.sendall, (d,)).start()
                pending.extend(d)
            if kind == "recv":
                chunk = await lp.sock_recv(a, size)
            else:
                buf = bytearray(size)
                n = await lp.sock_recv_into(a, buf)
                chunk = bytes(buf[:n])
            assert len(chunk) == min(size, len(pending))
            assert chunk == bytes(pending[: len(chunk)])
            del pending[: len(chunk)]
            chunks.append(chunk)
        b.shutdown(socket.SHUT_WR)
        rest = bytearray()
        while chunk := await lp.sock_recv(a, 65536):
            rest.extend(chunk)
        assert rest == pending
        chunks.append(bytes(rest))
        return chunks

    try:
        return lp.run_until_complete(asyncio.wait_for(main(), 30))
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sock_recv_random_against_default_loop(loop, seed):
    """sock_recv/sock_recv_into skip their first attempt on an fd whose last receive
    waited: the chunks must be exactly those asyncio's default loop returns for the same
    script (the oracle), and match the shadow copy of what the peer sent."""
    steps = _recv_script(seed)
    ref_loop = asyncio.SelectorEventLoop()
    try:
        want = _run_recv_script(ref_loop, steps, seed)
    finally:
        ref_loop.close()
    assert _run_recv_script(loop, steps, seed) == want


def test_sock_recv_waited_fd_reused_and_reset(loop):
    """A waited fd, closed and its number reused by a new socket: the new socket's
    queued data and its end of stream arrive; a reset while waiting raises."""

    async def main():
        a, b = socket.socketpair()
        a.setblocking(False)
        threading.Timer(0.005, b.sendall, (b"x",)).start()
        assert await loop.sock_recv(a, 10) == b"x"  # it waited: the fd is marked
        fd = a.fileno()
        a.close()
        b.close()
        c, d = socket.socketpair()  # the lowest free numbers: fd is one of them
        if d.fileno() == fd:
            c, d = d, c
        assert c.fileno() == fd
        c.setblocking(False)
        d.sendall(b"queued")
        assert await loop.sock_recv(c, 100) == b"queued"
        d.close()
        assert await loop.sock_recv(c, 100) == b""  # end of stream
        c.close()

        # TCP: the peer closes with SO_LINGER 0 (a reset) while the receiver waits
        lsock = socket.socket()
        lsock.bind(("127.0.0.1", 0))
        lsock.listen(1)
        e = socket.create_connection(lsock.getsockname())
        f, _ = lsock.accept()
        e.setblocking(False)
        f.sendall(b"1")
        assert await loop.sock_recv(e, 1) == b"1"

        def reset():
            f.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            f.close()

        threading.Timer(0.005, reset).start()
        with pytest.raises(ConnectionResetError):
            await loop.sock_recv(e, 10)
        e.close()
        lsock.close()

    loop.run_until_complete(asyncio.wait_for(main(), 10))


def test_subprocess_and_signal(loop):
    async def main():
        p = await asyncio.create_subprocess_exec(sys.executable, "-c", "print('hi')",
                                                 stdout=asyncio.subprocess.PIPE)
        out, _ = await p.communicate()
        assert out.strip() == b"hi" and p.returncode == 0
        got = loop.create_future()
        loop.add_signal_handler(signal.SIGUSR1, got.set_result, "usr1")
        os.kill(os.getpid(), signal.SIGUSR1)
        assert await asyncio.wait_for(got, 5) == "usr1"
        assert loop.remove_signal_handler(signal.SIGUSR1)

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals need the main thread")
    loop.run_until_complete(main())


def test_after_fork_child_cannot_run_parent_loop_but_new_loop_works(loop):
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            try:
                loop.run_until_complete(asyncio.sleep(0))
                code = 1
            except RuntimeError:
                pass
            lp = vigil.new_event_loop()
            if lp.run_until_complete(asyncio.sleep(0.001, "ok")) != "ok":
                code = 2
            lp.close()
        except BaseException:
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert loop.run_until_complete(asyncio.sleep(0, "parent")) == "parent"


def test_no_reference_leak_in_steady_state(loop):
    async def work():
        for _ in range(200):
            await asyncio.sleep(0)
            loop.call_soon(lambda: None)
            loop.call_later(0.0001, lambda: None).cancel()

    loop.run_until_complete(work())
    gc.collect()
    if not hasattr(sys, "gettotalrefcount"):
        n0 = len(gc.get_objects())
        loop.run_until_complete(work())
        gc.collect()
        assert len(gc.get_objects()) - n0 < 50


def test_second_import_of_the_core_has_its_own_types_and_hooks(loop):
    # PEP 489: a second module object made from the same extension gets its own state.
    # With a process-global state (m_size -1) it got _core's types back, and its
    # _set_hooks replaced the repr hook of every loop in the process.
    import importlib.util

    spec = importlib.util.find_spec("vigil._core")
    m2 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m2)
    assert m2 is not _core
    assert m2.Loop is not _core.Loop and m2.Handle is not _core.Handle
    assert m2.TransportIO is not _core.TransportIO
    m2._set_hooks(lambda h: "<m2's repr>")
    h = loop.call_soon(lambda: None)
    assert repr(h) != "<m2's repr>" and "Handle" in repr(h)
    # The second module's bare loop works on its own state.
    lp = m2.Loop(backend=os.environ.get("VIGIL_BACKEND"))
    ran = []
    h2 = lp.call_soon(ran.append, 1)
    assert type(h2) is m2.Handle and repr(h2) == "<m2's repr>"
    t = lp.call_later(0, ran.append, 2)
    assert type(t) is m2.TimerHandle and lp._vigil_timer_count() == 1
    for _ in range(100):
        lp._run_once_nowait()
        if len(ran) == 2:
            break
        time.sleep(0.001)
    assert ran == [1, 2]
    lp._vigil_close()


def test_subinterpreter_loop_leaves_the_main_one_alone():
    # A loop run in a subinterpreter, which is then destroyed; the main interpreter's
    # loop must not use anything it left behind (the repr hook set by the subinterpreter's
    # vigil._loop was the process's one hook before per-module state). In a child
    # process: a crash there is a failure here, not the end of the test run.
    import subprocess
    import textwrap

    code = textwrap.dedent("""
        import sys
        try:
            import _xxsubinterpreters as interpreters
        except ImportError:
            print("SKIP: no _xxsubinterpreters"); sys.exit(77)
        import asyncio, vigil
        # 3.12 makes an isolated interpreter (its own GIL) by default, which a module
        # without per-interpreter-GIL support (vigil._core) may not load into: ask for
        # one that shares the GIL, as 3.11's are.
        sub = interpreters.create(isolated=False) if sys.version_info >= (3, 12) else interpreters.create()
        interpreters.run_string(sub, '''
        import asyncio, vigil
        async def main():
            await asyncio.sleep(0.001)
            return 7
        assert vigil.run(main()) == 7
        ''')
        interpreters.destroy(sub)
        import gc; gc.collect()
        loop = vigil.new_event_loop()
        h = loop.call_soon(print)
        r = repr(h)
        assert r.startswith("<Handle") and "print" in r, r
        assert loop.run_until_complete(asyncio.sleep(0, "main")) == "main"
        loop.close()
        print("ok")
    """)
    # -P, as ctest runs pytest: the source tree (cwd) stays off sys.path.
    p = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=60)
    if p.returncode == 77:
        pytest.skip(p.stdout.strip())
    assert p.returncode == 0 and p.stdout.strip() == "ok", (p.returncode, p.stdout, p.stderr)


# sock_recv's wait (io.c, _recv_arm): a completed wait leaves its fd's watch idle until
# the turn's wait, for the next wait on the same socket. A socket closed meanwhile and
# its number reused by another registration in the same turn must get a registration of
# its own (without it, these hang: epoll dropped the closed file, io_uring polls it).

def _recv_then(loop, then):
    """Runs then(a) in the pass right after a sock_recv on a that had to wait completed,
    in the same task (so in the same turn: the watch is idle then)."""
    async def main():
        a, b = socket.socketpair()
        a.setblocking(False)
        with b:
            loop.call_later(0.01, b.send, b"x")  # arrives while the receive waits
            assert await loop.sock_recv(a, 10) == b"x"
            return then(a)
    return loop.run_until_complete(asyncio.wait_for(main(), 10))


def test_recv_watch_number_reused_by_a_transport(loop):
    got = []

    class P(asyncio.Protocol):
        def data_received(self, data):
            got.append(data)

    def then(a):
        c, d = socket.socketpair()
        old = a.fileno()
        a.close()  # the number is free: the transport's dup() takes it, in this pass
        tr = loop._make_socket_transport(c, P())
        return old, tr, d

    old, tr, d = _recv_then(loop, then)

    async def check():
        d.send(b"hello")
        while not got:
            await asyncio.sleep(0.001)
    try:
        loop.run_until_complete(asyncio.wait_for(check(), 5))
    finally:
        tr.close()
        d.close()
        loop.run_until_complete(asyncio.sleep(0))
    assert b"".join(got) == b"hello"


def test_recv_watch_number_reused_by_add_reader(loop):
    fut = loop.create_future()

    def then(a):
        old = a.fileno()
        a.close()
        c, d = socket.socketpair()
        n = c.fileno() if c.fileno() == old else os.dup2(c.fileno(), old)
        # the same number, given as an int (no object to compare), in this pass
        loop.add_reader(n, lambda: fut.done() or fut.set_result(True))
        return c, d, n

    c, d, n = _recv_then(loop, then)
    try:
        d.send(b"y")
        assert loop.run_until_complete(asyncio.wait_for(fut, 5)) is True
    finally:
        loop.remove_reader(n)
        if n != c.fileno():
            os.close(n)
        c.close()
        d.close()


def test_cancelled_sock_recv_removes_its_reader(loop):
    async def main():
        a, b = socket.socketpair()
        a.setblocking(False)
        with a, b:
            t = loop.create_task(loop.sock_recv(a, 10))
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert loop._fd_handles(a)[0] is not None  # waiting
            t.cancel()
            with pytest.raises(asyncio.CancelledError):
                await t
            await asyncio.sleep(0)
            assert loop._fd_handles(a) == (None, None)
            # and the next receive on it still works
            b.send(b"z")
            assert await asyncio.wait_for(loop.sock_recv(a, 10), 5) == b"z"
            b.send(b"w")
            assert await asyncio.wait_for(loop.sock_recv(a, 10), 5) == b"w"
    loop.run_until_complete(main())


def test_many_connections_echo_random_sizes(loop):
    """300 connections echo messages of random sizes at once, each checked byte for byte.
    A pass of the ready queue then starts hundreds of sends: on io_uring each is copied
    into one of the loop's send buffers (stream.c: sbuf_get), shared by every transport
    and given back when its send completes, and once 64 sends wait vigil runs a
    non-blocking turn between two callbacks (runloop.c: vpy_run_ready). A buffer given
    back too early (reused while the kernel still reads it) or sends reordered show up
    here as wrong bytes; sizes from 1 byte to past a send buffer (8 KiB) take both the
    copy and the kept-object paths."""
    import random

    nconn, rounds = 300, 8

    async def client(port, i):
        rnd = random.Random(i)
        r, w = await asyncio.open_connection("127.0.0.1", port)
        try:
            for k in range(rounds):
                msg = rnd.randbytes(rnd.choice([1, 100, 4096, 4096, 5000, 8192, 12000]))
                w.write(msg)
                got = await r.readexactly(len(msg))
                assert got == msg, f"connection {i} round {k}: echo differs"
        finally:
            w.close()

    async def main():
        srv = await loop.create_server(_Echo, "127.0.0.1", 0, backlog=nconn)
        port = srv.sockets[0].getsockname()[1]
        try:
            await asyncio.wait_for(asyncio.gather(*(client(port, i) for i in range(nconn))), 60)
        finally:
            srv.close()
            await srv.wait_closed()

    loop.run_until_complete(main())


# sock_recv, sock_recv_into and sock_sendall are C (csrc/sock.c): each returns a
# coroutine-like awaitable, not a coroutine. These check what asyncio's coroutines
# promise: awaitable, taken by create_task/ensure_future/wait_for/gather, nothing done
# before the first step, errors at await, cancel at every point leaving no watch behind.

def _pair():
    a, b = socket.socketpair()
    a.setblocking(False)
    b.setblocking(False)
    return a, b


def test_sock_calls_are_coroutines_for_asyncio(loop):
    import collections.abc
    import inspect

    async def main():
        a, b = _pair()
        with a, b:
            c = loop.sock_recv(a, 10)
            assert asyncio.iscoroutine(c) and isinstance(c, collections.abc.Coroutine)
            assert inspect.isawaitable(c)
            assert "sock_recv" in repr(c) and c.__name__ == "sock_recv"
            t = asyncio.ensure_future(c)
            assert isinstance(t, asyncio.Task)
            b.send(b"1")
            assert await t == b"1"
            b.send(b"2")
            assert await asyncio.wait_for(loop.sock_recv(a, 10), 5) == b"2"
            b.send(b"34")
            r = await asyncio.gather(loop.sock_recv(a, 1), loop.sock_sendall(a, b"x"))
            assert r[0] in (b"3", b"34") and r[1] is None
            assert b.recv(10) == b"x"
            # reusing an awaited one fails as a coroutine does
            c = loop.sock_sendall(a, b"y")
            await c
            with pytest.raises(RuntimeError):
                await c
            # never awaited: nothing happens (no system call before the first step)
            c = loop.sock_sendall(a, b"never")
            c.close()
            del c
            await asyncio.sleep(0)
            assert b.recv(10) == b"y"
            # asyncio's parameter names; a wrong one fails at the call, as a coroutine
            # function's would
            await loop.sock_sendall(sock=a, data=b"kw")
            assert await asyncio.wait_for(loop.sock_recv(b, n=10), 5) == b"kw"
            b.send(b"kw2")
            buf = bytearray(8)
            n = await asyncio.wait_for(loop.sock_recv_into(sock=a, buf=buf), 5)
            assert bytes(buf[:n]) in (b"kw2", b"4kw2")  # gather's sock_recv(a, 1) may have left the 4
            for bad in (lambda: loop.sock_recv(a, nbytes=1), lambda: loop.sock_sendall(a),
                        lambda: loop.sock_recv_into(a, buf, 1)):
                with pytest.raises(TypeError):
                    bad()
    loop.run_until_complete(main())


def _errors(lp):
    """The exception types each bad call gives on loop lp (None: no error)."""
    async def main():
        a, b = _pair()
        out = []
        blocking = socket.socket()
        with a, b, blocking:
            for make in (lambda: lp.sock_recv(object(), 10), lambda: lp.sock_recv(a, "x"),
                         lambda: lp.sock_recv(a, -1), lambda: lp.sock_recv_into(a, b"ro"),
                         lambda: lp.sock_sendall(a, "str"), lambda: lp.sock_sendall(object(), b"x")):
                c = make()  # nothing raised at the call: a coroutine's errors come at await
                try:
                    await c
                    out.append(None)
                except Exception as e:
                    out.append(type(e))
            lp.set_debug(True)
            try:
                await lp.sock_recv(blocking, 1)
            except Exception as e:
                out.append(type(e))
            lp.set_debug(False)
            b.close()
            out.append(await lp.sock_recv(a, 10))
            try:
                for _ in range(100):
                    await lp.sock_sendall(a, b"z" * 65536)
                out.append(None)
            except Exception as e:
                out.append(OSError if isinstance(e, OSError) else type(e))
            try:
                await lp.sock_sendall(a, b"")  # nothing to send: still one send(2)
                out.append(None)
            except Exception as e:
                out.append(OSError if isinstance(e, OSError) else type(e))
        return out
    return lp.run_until_complete(main())


def test_sock_call_errors_as_asyncio(loop):
    ref = asyncio.new_event_loop()
    try:
        want = _errors(ref)
    finally:
        ref.close()
    assert _errors(loop) == want
    assert want[-3:] == [b"", OSError, OSError]


def test_sock_recv_closed_or_thrown_into_while_waiting_drops_its_watch(loop):
    """close() and throw() on a waiting sock_recv (driven by hand, as a task would)
    remove its reader; the socket then receives normally."""
    async def main():
        a, b = _pair()
        with a, b:
            loop._recv_waited.add(a.fileno())
            c = loop.sock_recv(a, 10)
            fut = c.send(None)
            assert isinstance(fut, asyncio.Future) and not fut.done()
            assert loop._fd_handles(a)[0] is not None
            c.close()
            assert loop._fd_handles(a) == (None, None)
            with pytest.raises(RuntimeError):
                c.send(None)
            c = loop.sock_recv(a, 10)
            c.send(None)
            assert loop._fd_handles(a)[0] is not None
            with pytest.raises(ValueError, match="thrown"):
                c.throw(ValueError("thrown"))
            assert loop._fd_handles(a) == (None, None)
            b.send(b"k")
            assert await asyncio.wait_for(loop.sock_recv(a, 10), 5) == b"k"
    loop.run_until_complete(main())


@pytest.mark.parametrize("when", ["before_first_step", "waiting"])
def test_cancelled_sock_recv_then_new_recv_on_the_same_socket(loop, when):
    """A sock_recv cancelled before it started or while it waits; a new sock_recv on the
    same socket started in the same pass as the cancel then gets the next bytes, and no
    watch is left."""
    async def main():
        a, b = _pair()
        with a, b:
            loop._recv_waited.add(a.fileno())  # the receive waits, not tried first
            t = loop.create_task(loop.sock_recv(a, 10))
            if when != "before_first_step":
                await asyncio.sleep(0)
                assert loop._fd_handles(a)[0] is not None
            t.cancel()
            t2 = loop.create_task(loop.sock_recv(a, 10))
            with pytest.raises(asyncio.CancelledError):
                await t
            b.send(b"next")
            assert await asyncio.wait_for(t2, 5) == b"next"
            await asyncio.sleep(0)
            assert loop._fd_handles(a) == (None, None)
    loop.run_until_complete(main())


def test_sock_sendall_large_waits_and_sends_everything(loop):
    data = os.urandom(1 << 16) * 64  # 4 MiB: far more than the socket buffers hold

    async def main():
        a, b = _pair()
        with a, b:
            a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            got = bytearray()

            async def reader():
                await asyncio.sleep(0.01)  # the sender fills the buffers and waits first
                while len(got) < len(data):
                    buf = bytearray(65536)
                    n = await loop.sock_recv_into(b, memoryview(buf)[:65536])
                    assert n > 0
                    got.extend(buf[:n])
            r = loop.create_task(reader())
            s = loop.create_task(loop.sock_sendall(a, memoryview(data)))
            await asyncio.sleep(0)
            assert loop._fd_handles(a)[1] is not None  # the send waits for room
            assert await asyncio.wait_for(s, 20) is None
            await asyncio.wait_for(r, 20)
            assert bytes(got) == data
            assert loop._fd_handles(a) == (None, None)
    loop.run_until_complete(main())


def test_sock_sendall_cancelled_while_waiting(loop):
    async def main():
        a, b = _pair()
        with a, b:
            s = loop.create_task(loop.sock_sendall(a, b"q" * (8 << 20)))
            await asyncio.sleep(0.01)
            assert loop._fd_handles(a)[1] is not None
            s.cancel()
            with pytest.raises(asyncio.CancelledError):
                await s
            await asyncio.sleep(0)
            assert loop._fd_handles(a) == (None, None)
            # the peer reading now does not wake anything left of it
            while True:
                try:
                    if not b.recv(1 << 20):
                        break
                except BlockingIOError:
                    break
            await loop.sock_sendall(a, b"after")
    loop.run_until_complete(main())


def test_sock_recv_socket_closed_while_waiting(loop):
    """The socket closed under a waiting sock_recv: the wait is cancelled cleanly, and a
    new socket that takes the same number receives normally."""
    async def main():
        a, b = _pair()
        old = a.fileno()
        loop._recv_waited.add(old)
        t = loop.create_task(loop.sock_recv(a, 10))
        await asyncio.sleep(0.01)
        a.close()
        await asyncio.sleep(0.01)
        assert not t.done() or t.cancelled() or isinstance(t.exception(), OSError)
        t.cancel()
        try:
            await t
        except (asyncio.CancelledError, OSError):
            pass
        b.close()
        c, d = _pair()
        with c, d:
            n = c.fileno() if c.fileno() == old else os.dup2(c.fileno(), old)
            e = socket.socket(fileno=n) if n != c.fileno() else c
            e.setblocking(False)
            d.send(b"fresh")
            assert await asyncio.wait_for(loop.sock_recv(e, 10), 5) == b"fresh"
            w = loop.create_task(loop.sock_recv(e, 10))
            await asyncio.sleep(0.01)
            d.send(b"again")
            assert await asyncio.wait_for(w, 5) == b"again"
            if e is not c:
                e.close()
    loop.run_until_complete(main())


def test_sock_recv_peer_closes_while_waiting(loop):
    async def main():
        a, b = _pair()
        with a:
            loop._recv_waited.add(a.fileno())
            t = loop.create_task(loop.sock_recv(a, 10))
            await asyncio.sleep(0.01)
            b.close()
            assert await asyncio.wait_for(t, 5) == b""
            assert loop._fd_handles(a) == (None, None)
    loop.run_until_complete(main())


def test_sock_calls_on_a_socket_subclass(loop):
    """A socket.socket subclass goes through its own recv/recv_into/send methods."""
    calls = []

    class S(socket.socket):
        def recv(self, n, *a):
            calls.append("recv")
            return super().recv(n, *a)

        def recv_into(self, buf, *a):
            calls.append("recv_into")
            return super().recv_into(buf, *a)

        def send(self, data, *a):
            calls.append("send")
            return super().send(data, *a)

    async def main():
        a0, b = _pair()
        a = S(fileno=a0.detach())
        a.setblocking(False)
        with a, b:
            await loop.sock_sendall(a, b"hi")
            assert b.recv(10) == b"hi"
            b.send(b"yo")
            assert await asyncio.wait_for(loop.sock_recv(a, 10), 5) == b"yo"
            buf = bytearray(4)
            b.send(b"abcdef")
            assert await asyncio.wait_for(loop.sock_recv_into(a, buf), 5) == 4 and buf == b"abcd"
    loop.run_until_complete(main())
    assert {"recv", "recv_into", "send"} <= set(calls)


# The order of a turn (runloop.c, vpy_loop_run): what the wait found runs first, then the
# ready queue; what a ready callback schedules runs only after the next wait, so data
# the peer sent in between is delivered before it (uvloop's order: aiohttp's
# RequestHandler.start then finds the next request read instead of sleeping on a new
# future). A stream transport's first receive keeps asyncio's order: the task that
# awaited create_connection resumes before the first data_received.
def test_turn_order_found_data_before_what_a_callback_scheduled(loop):
    a, b = socket.socketpair()
    events = []

    class P(asyncio.Protocol):
        def data_received(self, data):
            events.append(("data", data))

    async def main():
        b.send(b"first")  # ready before create_connection returns
        tr, _ = await loop.create_connection(P, sock=a)
        events.append("resumed")
        while len(events) < 2:
            await asyncio.sleep(0)
        done = loop.create_future()

        def later():
            events.append("later")
            done.set_result(None)

        def cb():
            b.send(b"second")  # in the kernel before the loop's next wait
            events.append("cb")
            loop.call_soon(later)

        loop.call_soon(cb)
        await done
        tr.close()

    loop.run_until_complete(main())
    b.close()
    assert events == ["resumed", ("data", b"first"), "cb", ("data", b"second"), "later"]


def test_turn_order_call_soon_fifo_and_next_turn(loop):
    # asyncio's promises under that order: FIFO, and a callback scheduled by a callback
    # runs after the callbacks queued before it, across found work.
    order = []
    r, w = os.pipe()

    def reader():
        os.read(r, 1)
        order.append("reader")
        loop.call_soon(order.append, "from-reader")

    def first():
        order.append("first")
        loop.call_soon(order.append, "from-first")
        os.write(w, b"x")

    loop.add_reader(r, reader)
    loop.call_soon(first)
    loop.call_soon(order.append, "second")
    loop.call_later(0.05, loop.stop)
    loop.run_forever()
    loop.remove_reader(r)
    os.close(r)
    os.close(w)
    assert order[:2] == ["first", "second"]
    assert order.index("from-first") > order.index("second")
    assert order.index("from-reader") > order.index("reader")
    assert sorted(order) == sorted(["first", "second", "from-first", "reader", "from-reader"])


def test_lost_transports_go_by_reference_counting(loop, caplog):
    """Once connection_lost has run, a stream transport (shell and C half, both ends) is
    freed by reference counting, as asyncio's and uvloop's are: no cycle left for the
    collector. Writes after the loss still warn through the transport (asyncio's
    'socket.send() raised exception.' from the 5th), writelines too, and abort() and
    close() do nothing more."""
    import logging
    import weakref

    lost = []
    made = []

    class Srv(asyncio.Protocol):
        def connection_made(self, tr):
            made.append(weakref.ref(tr))

        def data_received(self, data):
            made[-1]().write(data)

        def connection_lost(self, exc):
            lost.append("srv")

    class Cli(asyncio.Protocol):
        def __init__(self):
            self.done = loop.create_future()

        def data_received(self, data):
            self.done.set_result(data)

        def connection_lost(self, exc):
            lost.append("cli")

    async def main():
        srv = await loop.create_server(Srv, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        tr, pr = await loop.create_connection(Cli, "127.0.0.1", port)
        tr.write(b"ping")
        assert await pr.done == b"ping"
        tr.close()
        for _ in range(100):
            if len(lost) == 2:
                break
            await asyncio.sleep(0.01)
        assert sorted(lost) == ["cli", "srv"]
        with caplog.at_level(logging.WARNING, logger="asyncio"):
            for _ in range(5):
                tr.write(b"late")
            tr.writelines([b"late"])
        assert any("socket.send() raised exception." in r.getMessage() for r in caplog.records)
        tr.abort()
        tr.close()
        assert tr.is_closing()
        ref = weakref.ref(tr)
        del tr, pr
        srv.close()
        await srv.wait_closed()
        return ref

    gc.collect()
    gc.disable()
    try:
        ref = loop.run_until_complete(main())
        loop.run_until_complete(asyncio.sleep(0))
        assert ref() is None, "the client's transport waits for the cyclic collector"
        assert made and made[0]() is None, "the server's transport waits for the cyclic collector"
    finally:
        gc.enable()
    assert lost.count("cli") == 1 and lost.count("srv") == 1


def test_a_large_batch_of_found_work_runs_in_slices(loop):
    """A wait that finds many connections' data runs their data_received a slice at a
    time (runloop.c, FOUND_SLICE), each slice followed by what it queued, so the objects
    a wave of requests makes are not all alive at once: 600 connections whose
    data_received each keeps 9 container objects until a callback it queues has run,
    three waves, make the cyclic collector's young generation (threshold 700) collect
    8-9 times (the test's own waits included), where the whole batch alive at once made
    it collect 20-23 times (5,400 objects a wave). Every connection gets its data once,
    in order, and each reader callback of 100 readable pipes runs once for its one
    readiness although the batch spans several turns."""
    n = 600
    young = []
    got = {i: [] for i in range(n)}
    reads = []

    def on_gc(phase, info):
        if phase == "start" and info["generation"] == 0:
            young.append(1)

    class P(asyncio.Protocol):
        def __init__(self, i):
            self.i = i

        def data_received(self, data):
            got[self.i].append(data)
            self.keep = [[] for _ in range(8)]
            loop.call_soon(self.release)

        def release(self):
            self.keep = None

    async def main():
        pairs = [socket.socketpair() for _ in range(n)]
        trs = []
        for i, (a, b) in enumerate(pairs):
            tr, _ = await loop.connect_accepted_socket(lambda i=i: P(i), a)
            trs.append(tr)
        pipes = [os.pipe() for _ in range(100)]

        def reader(k, fd):
            reads.append(k)
            os.read(fd, 1)  # blocks if called with nothing to read
            loop.remove_reader(fd)

        for k, (r, w) in enumerate(pipes):
            os.set_blocking(r, True)
            loop.add_reader(r, reader, k, r)
        await asyncio.sleep(0.01)
        for k, (r, w) in enumerate(pipes):
            os.write(w, b"x")
        gc.collect()
        gc.callbacks.append(on_gc)
        try:
            for wave in range(3):
                for a, b in pairs:
                    b.send(b"%d" % wave)
                while sum(len(v) for v in got.values()) < n * (wave + 1):
                    await asyncio.sleep(0.001)
        finally:
            gc.callbacks.remove(on_gc)
        for _ in range(100):
            if len(reads) == 100:
                break
            await asyncio.sleep(0.001)
        for tr in trs:
            tr.close()
        for a, b in pairs:
            b.close()
        for r, w in pipes:
            os.close(r)
            os.close(w)
        await asyncio.sleep(0.01)

    loop.run_until_complete(main())
    assert sorted(reads) == list(range(100)), "a reader ran twice for one readiness, or not at all"
    assert all(b"".join(got[i]) == b"012" for i in range(n)), "data lost, repeated or out of order"
    assert len(young) <= 12, f"{len(young)} young collections during the waves"
