"""vigil.mq: vigil's message queues for coroutines, against a C program on the other end
(tests/python/mq_peer.c, built by ctest; its path in VIGIL_MQ_PEER). Each test runs on the
backend VIGIL_BACKEND selects (ctest runs this file once per backend). The queues live
in a temporary directory of the test's (VIGIL_MQ_DIR), never in /dev/shm."""
import asyncio
import gc
import os
import sys

import pytest

import vigil
from vigil import _core

PEER = os.environ.get("VIGIL_MQ_PEER")


@pytest.fixture(autouse=True)
def mqdir(tmp_path, monkeypatch):
    monkeypatch.setenv("VIGIL_MQ_DIR", str(tmp_path))
    return tmp_path


def run(coro):
    return vigil.run(coro)  # the backend is VIGIL_BACKEND's


def need_peer():
    if not PEER or not os.access(PEER, os.X_OK):
        pytest.skip("VIGIL_MQ_PEER (tests/python/mq_peer.c, built by ctest) not set")


async def peer(*args):
    p = await asyncio.create_subprocess_exec(PEER, *args, stdout=asyncio.subprocess.PIPE,
                                             stderr=asyncio.subprocess.PIPE)
    out, err = await p.communicate()
    assert p.returncode == 0, err
    return out.decode()


def test_get_from_c_sender_by_priority():
    need_peer()

    async def main():
        q = await vigil.mq.open("/from-c", create=True, maxmsg=8, msgsize=64)
        await peer("send", "/from-c", "1:low", "9:urgent", "5:mid", "9:urgent2", "0:last")
        got = [await q.get() for _ in range(5)]
        assert q.qsize() == 0
        q.close()
        vigil.mq.unlink("/from-c")
        return got

    assert run(main()) == [(b"urgent", 9), (b"urgent2", 9), (b"mid", 5), (b"low", 1), (b"last", 0)]


def test_get_waits_for_c_sender():
    """get() on an empty queue waits through the loop until the C program sends."""
    need_peer()

    async def main():
        q = await vigil.mq.open("/wait", create=True, msgsize=64)
        getters = [asyncio.ensure_future(q.get()) for _ in range(3)]
        await asyncio.sleep(0)
        assert not any(g.done() for g in getters)
        assert q._q.watching(False)  # waiting through vigil's watcher, not a thread of ours
        await peer("send", "/wait", "3:a", "3:b", "3:c")
        got = await asyncio.gather(*getters)
        q.close()
        return got

    assert run(main()) == [(b"a", 3), (b"b", 3), (b"c", 3)]


def test_put_to_c_receiver_waits_while_full():
    """put() on a full queue (depth 1) waits until the C program receives; the program
    echoes each message at priority + 1 to a second queue the test reads."""
    need_peer()

    async def main():
        to_c = await vigil.mq.open("/to-c", create=True, maxmsg=1, msgsize=32)
        back = await vigil.mq.open("/back", create=True, maxmsg=16, msgsize=32)
        msgs = [(f"m{i}".encode(), i % 4) for i in range(10)]
        await to_c.put(*msgs[0])
        put = asyncio.ensure_future(to_c.put(*msgs[1]))
        await asyncio.sleep(0)
        assert not put.done()  # full: it waits
        p = asyncio.ensure_future(peer("echo", "/to-c", "/back", str(len(msgs))))
        await put
        for m in msgs[2:]:
            await to_c.put(*m)
        out = await p
        echoed = [await back.get() for _ in msgs]
        to_c.close()
        back.close()
        return msgs, out, echoed

    msgs, out, echoed = run(main())
    # Depth 1: each message is received before the next is sent, so in the order put.
    assert out.splitlines() == [f"{p} {m.decode()}" for m, p in msgs]
    assert sorted(echoed, key=lambda e: -e[1]) == echoed  # highest priority first
    assert sorted(echoed) == sorted((m, p + 1) for m, p in msgs)


def test_cancelled_get_takes_nothing():
    async def main():
        q = await vigil.mq.open("/cancel", create=True)
        g = asyncio.ensure_future(q.get())
        await asyncio.sleep(0)
        g.cancel()
        with pytest.raises(asyncio.CancelledError):
            await g
        q.put_nowait(b"kept", 2)
        got = await q.get()
        # The watcher stops once it fires with nobody waiting.
        g2 = asyncio.ensure_future(q.get())
        await asyncio.sleep(0)
        g2.cancel()
        q.put_nowait(b"again", 1)
        for _ in range(3):
            await asyncio.sleep(0)
        left = q.get_nowait()
        q.close()
        return got, left

    assert run(main()) == ((b"kept", 2), (b"again", 1))


def test_errors():
    async def main():
        with pytest.raises(FileNotFoundError):
            await vigil.mq.open("/absent")
        q = await vigil.mq.open("/e", create=True, maxmsg=2, msgsize=8)
        with pytest.raises(FileExistsError):
            await vigil.mq.open("/e", create=True, exclusive=True)
        with pytest.raises(OSError) as ei:
            await q.put(b"123456789")  # > msgsize
        assert ei.value.errno == 90  # EMSGSIZE
        with pytest.raises(OSError):
            await q.put(b"x", vigil.mq.PRIO_MAX)  # EINVAL
        with pytest.raises(BlockingIOError):
            q.get_nowait()
        ro = await vigil.mq.open("/e", write=False)
        with pytest.raises(OSError):
            ro.put_nowait(b"x")  # EBADF: opened for reading
        ro.close()
        g = asyncio.ensure_future(q.get())
        await asyncio.sleep(0)
        q.close()  # a waiting get() learns it
        with pytest.raises(ValueError):
            await g
        with pytest.raises(ValueError):
            await q.get()
        vigil.mq.unlink("/e")
        with pytest.raises(FileNotFoundError):
            vigil.mq.unlink("/e")

    run(main())


def test_needs_vigil_loop():
    async def main():
        q = await vigil.mq.open("/other", create=True)
        with pytest.raises(RuntimeError):
            await q.get()
        q.close()

    asyncio.run(main())


def test_loop_close_stops_watchers():
    """A loop closed while a get() waits stops its watcher and lets the queue go."""
    loop = vigil.new_event_loop()
    q = vigil.MessageQueue("/lc", create=True)
    g = loop.create_task(q.get())
    loop.run_until_complete(asyncio.sleep(0))
    assert q._q.watching(False)
    g.cancel()
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    assert not q._q.watching(False)

    async def again():  # the queue goes on with the next loop
        g = asyncio.ensure_future(q.get())
        await asyncio.sleep(0)
        q.put_nowait(b"next", 4)
        return await g

    assert run(again()) == (b"next", 4)
    q.close()
    gc.collect()


def test_waits_in_the_loop():
    """A waiting get() costs a vigil helper thread exactly when vigil says its watcher is
    threaded (epoll, poll; io_uring before Linux 6.7), and none on io_uring with the
    futex wait in the ring. No thread of Python's either way."""
    def tasks():
        return len(os.listdir("/proc/self/task"))

    async def main():
        q = await vigil.mq.open("/t", create=True)
        before = tasks()
        g = asyncio.ensure_future(q.get())
        await asyncio.sleep(0)
        during, threaded = tasks(), q._q.threaded(False)
        q.put_nowait(b"m", 1)
        await g
        q.close()
        return before, during, threaded, asyncio.get_running_loop().backend

    before, during, threaded, backend = run(main())
    print(f"backend {backend}: {'helper thread' if threaded else 'no thread'}")
    assert during - before == (1 if threaded else 0)
    if backend != "uring":
        assert threaded


def test_against_a_model():
    """Random puts and gets (waiting and not, several priorities, a full and an empty
    queue) compared at every step with a model: highest priority first, FIFO within
    one (the oracle), plus the queue's own count."""
    import random

    rng = random.Random(30)

    async def main():
        q = await vigil.mq.open("/model", create=True, maxmsg=5, msgsize=16)
        model = []  # (-priority, seq, data)
        seq = 0
        for step in range(3000):
            op = rng.random()
            if op < 0.5:
                data, prio = b"%d" % step, rng.choice((0, 1, 7, 32767))
                if len(model) == q.attributes()[0]:
                    with pytest.raises(BlockingIOError):
                        q.put_nowait(data, prio)
                    # a waiting put(), completed by a get
                    t = asyncio.ensure_future(q.put(data, prio))
                    await asyncio.sleep(0)
                    assert not t.done()
                    model.sort()
                    want = model.pop(0)
                    assert q.get_nowait() == (want[2], -want[0])
                    await t
                else:
                    q.put_nowait(data, prio)
                seq += 1
                model.append((-prio, seq, data))
            elif model:
                model.sort()
                want = model.pop(0)
                got = await q.get() if op < 0.8 else q.get_nowait()
                assert got == (want[2], -want[0]), step
            else:
                with pytest.raises(BlockingIOError):
                    q.get_nowait()
                t = asyncio.ensure_future(q.get())
                await asyncio.sleep(0)
                assert not t.done()
                q.put_nowait(b"w", 3)
                assert await t == (b"w", 3)
            assert q.qsize() == len(model)
        q.close()

    run(main())
