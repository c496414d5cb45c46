"""vigil's file API (vigil/files.py, csrc/file.c): files and file-system calls through
vigil's file engine. Each runs on the backend VIGIL_BACKEND selects (ctest runs this
file once per backend: io_uring's engine on uring, the engine's threads on epoll/poll).
The oracle is os: plain system calls on the same files give the expected answers."""
import asyncio
import errno
import gc
import io
import os
import random

import pytest

import vigil
from vigil import _core


def run(coro):
    loop = vigil.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def nfds():
    return len(os.listdir("/proc/self/fd"))


async def until(cond, what):
    """Turns of the loop until cond() holds (a request the test cannot await completes):
    bounded by a count, not by time."""
    for _ in range(20000):
        if cond():
            return
        await asyncio.sleep(0.0005)
    raise AssertionError(f"never happened: {what}")


def test_engine_matches_backend():
    async def main():
        loop = asyncio.get_running_loop()
        eng = vigil.files.file_engine()
        if "VIGIL_FILE_ENGINE" not in os.environ:
            assert eng == ("uring" if loop.backend == "uring" else "threads"), (loop.backend, eng)
        return eng
    assert run(main()) in ("uring", "aio", "threads")


def test_no_thread_per_call(tmp_path):
    """200 reads and 200 stats in flight at once: no Python thread is made (the engine's
    threads are C threads of a fixed pool, io_uring's its own), and the process's
    threads stay few: far fewer than the calls in flight."""
    import threading
    p = tmp_path / "f"
    p.write_bytes(os.urandom(1 << 20))

    async def main():
        async with vigil.open(p, "rb") as f:
            futs = [f.pread(4096, 4096 * i) for i in range(200)] + [vigil.stat(p) for _ in range(200)]
            tasks = len(os.listdir("/proc/self/task"))
            await asyncio.gather(*futs)
        return tasks, threading.active_count()
    tasks, pythreads = run(main())
    assert pythreads == 1
    assert tasks < 50, tasks


def test_read_write_seek_tell(tmp_path):
    p = tmp_path / "f"

    async def main():
        async with vigil.open(p, "w+b") as f:
            assert f.tell() == 0
            assert await f.write(b"hello ") == 6
            assert await f.write(bytearray(b"world")) == 5
            assert f.tell() == 11
            assert await f.seek(0) == 0
            assert await f.read(5) == b"hello"
            assert await f.seek(-3, os.SEEK_END) == 8
            assert await f.read(100) == b"rld"
            assert await f.read(10) == b""
            assert await f.seek(-4, os.SEEK_CUR) == 7
            assert await f.read() == b"orld"
            assert await f.pread(4, 2) == b"llo "
            assert await f.pwrite(memoryview(b"HE"), 0) == 2
            assert f.tell() == 11  # pread/pwrite leave the position alone
            assert (await f.stat()).st_size == 11
            assert f.name == str(p) and not f.closed
        assert f.closed
        with pytest.raises(ValueError):
            f.read(1)
        await f.close()  # a second close is done at once
    run(main())
    assert p.read_bytes() == b"HEllo world"


def test_queued_operations_keep_call_order(tmp_path):
    p = tmp_path / "f"

    async def main():
        f = await vigil.open(p, "w+b")
        futs = [f.write(bytes([65 + i]) * 3) for i in range(10)]  # none awaited yet
        seek = f.seek(3)
        rd = f.read(6)
        assert await rd == b"BBBCCC"
        assert await seek == 3
        assert [await x for x in futs] == [3] * 10
        assert f.tell() == 9
        await f.close()
    run(main())
    assert p.read_bytes() == b"".join(bytes([65 + i]) * 3 for i in range(10))


def test_append_mode_and_readall(tmp_path):
    p = tmp_path / "f"
    big = os.urandom(3 * 65536 + 17)
    p.write_bytes(big)

    async def main():
        async with vigil.open(str(p), "ab") as f:
            assert f.tell() == len(big)
            await f.write(b"tail")
            assert f.tell() == len(big) + 4
        async with vigil.open(os.fsencode(p), "rb") as f:
            assert await f.read() == big + b"tail"
            with pytest.raises(io.UnsupportedOperation):
                f.write(b"x")
    run(main())


@pytest.mark.parametrize("mode", ["r", "rt", "w", "rb+x", "q", "rbb"])
def test_modes_refused(tmp_path, mode):
    async def main():
        with pytest.raises(ValueError):
            vigil.open(tmp_path / "f", mode)
    run(main())


def test_errors_are_os_subclasses(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    f = tmp_path / "f"
    f.write_bytes(b"x")
    missing = tmp_path / "missing"

    async def main():
        cases = [
            (lambda: vigil.open(missing, "rb"), FileNotFoundError, missing),
            (lambda: vigil.stat(missing), FileNotFoundError, missing),
            (lambda: vigil.lstat(missing), FileNotFoundError, missing),
            (lambda: vigil.unlink(missing), FileNotFoundError, missing),
            (lambda: vigil.open(d, "wb"), IsADirectoryError, d),
            (lambda: vigil.unlink(d), IsADirectoryError, d),
            (lambda: vigil.open(f, "xb"), FileExistsError, f),
            (lambda: vigil.mkdir(d), FileExistsError, d),
            (lambda: vigil.listdir(f), NotADirectoryError, f),
            (lambda: vigil.stat(f / "x"), NotADirectoryError, f / "x"),
            (lambda: vigil.rmdir(tmp_path), OSError, tmp_path),  # ENOTEMPTY
        ]
        for call, exc, name in cases:
            with pytest.raises(exc) as ei:
                await call()
            assert ei.value.filename == str(name), (call, ei.value)
        with pytest.raises(FileNotFoundError) as ei:
            await vigil.rename(missing, tmp_path / "new")
        assert (ei.value.filename, ei.value.filename2) == (str(missing), str(tmp_path / "new"))
        assert ei.value.errno == errno.ENOENT
        with pytest.raises(ValueError):
            vigil.stat("a\0b")
        with pytest.raises(TypeError):
            vigil.stat(3.5)
    run(main())


def test_needs_vigils_loop(tmp_path):
    async def main():
        with pytest.raises(TypeError):
            vigil.stat(tmp_path)
    asyncio.run(main())


def test_fs_calls_against_os(tmp_path):
    async def main():
        names = [f"entry-{i:05d}-" + "n" * 100 for i in range(600)]  # > one 32 KiB batch
        for n in names:
            (tmp_path / n).write_bytes(b"")
        assert sorted(await vigil.listdir(tmp_path)) == sorted(os.listdir(tmp_path))
        assert sorted(await vigil.listdir(os.fsencode(tmp_path))) == sorted(os.listdir(os.fsencode(tmp_path)))
        await vigil.mkdir(tmp_path / "sub", 0o700)
        assert (await vigil.stat(tmp_path / "sub")).st_mode & 0o777 == 0o700 & ~_umask()
        await vigil.rename(tmp_path / names[0], tmp_path / "sub" / "moved")
        assert await vigil.listdir(tmp_path / "sub") == ["moved"]
        os.symlink("sub", tmp_path / "link")
        st, lst = await vigil.stat(tmp_path / "link"), await vigil.lstat(tmp_path / "link")
        assert st == os.stat(tmp_path / "link") and lst == os.lstat(tmp_path / "link")
        assert lst.st_mtime_ns == os.lstat(tmp_path / "link").st_mtime_ns
        await vigil.unlink(tmp_path / "sub" / "moved")
        await vigil.rmdir(tmp_path / "sub")
        assert not (tmp_path / "sub").exists()
    run(main())


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def test_cancelled_read_leaves_position(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(bytes(range(256)))

    async def main():
        async with vigil.open(p, "rb") as f:
            a = f.read(4)  # started: its request runs to its end, result dropped
            a.cancel()
            assert await f.read(4) == bytes(range(4))
            b1, b2, b3 = f.read(4), f.read(4), f.read(4)
            b2.cancel()  # still queued: never starts
            assert await b1 == bytes(range(4, 8))
            assert await b3 == bytes(range(8, 12))
            assert f.tell() == 12
            await until(lambda: f._inflight == 0, "requests reaped")
    run(main())


def test_cancelled_write_moves_position_past_its_bytes(tmp_path):
    p = tmp_path / "f"

    async def main():
        async with vigil.open(p, "wb") as f:
            w = f.write(b"aaaa")
            w.cancel()  # the request runs; its bytes are in the file
            q = f.write(b"bbbb")
            await f.write(b"cccc")
            assert await q == 4
            assert f.tell() == 12
    run(main())
    assert p.read_bytes() == b"aaaabbbbcccc"


def test_cancelled_tasks_mid_flight(tmp_path):
    p = tmp_path / "f"
    data = os.urandom(1 << 20)
    p.write_bytes(data)

    async def reader(f, off):
        while True:
            assert await f.pread(4096, off) == data[off:off + 4096]

    async def main():
        f = await vigil.open(p, "r+b")
        tasks = [asyncio.ensure_future(reader(f, 4096 * i)) for i in range(64)]
        seq = asyncio.ensure_future(cursor(f))
        for _ in range(20):
            await asyncio.sleep(0)
        for t in tasks + [seq]:
            t.cancel()
        res = await asyncio.gather(*tasks, seq, return_exceptions=True)
        assert all(isinstance(r, asyncio.CancelledError) for r in res), res
        await until(lambda: f._inflight == 0, "every cancelled request reaped")
        # the file and the position agree: what the cursor task wrote is where tell() says
        pos = f.tell()
        await f.seek(0)
        assert await f.read(pos) == data[:pos]
        await f.close()

    async def cursor(f):
        while True:
            chunk = await f.read(1000)
            await f.seek(-len(chunk), os.SEEK_CUR)
            await f.write(chunk)

    run(main())
    assert p.read_bytes() == data


def test_cancelled_open_closes_its_fd(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"x")

    async def main():
        await vigil.stat(p)  # the file engine's own fds (the threads engine's eventfd) exist
        before = nfds()
        for _ in range(50):
            o = vigil.open(p, "rb")
            o._fut.cancel()
        await until(lambda: nfds() == before, "cancelled opens closed their fds")
        t = asyncio.ensure_future(vigil.listdir(tmp_path))
        await asyncio.sleep(0)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        await until(lambda: nfds() == before, "a cancelled listdir closed its directory")
    run(main())


def test_close_waits_for_requests(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"0123456789")

    async def main():
        f = await vigil.open(p, "rb")
        fd = f.fileno()
        reads = [f.pread(2, i) for i in range(5)]
        c = f.close()
        assert f.closed
        with pytest.raises(ValueError):
            f.pread(1, 0)
        assert [await r for r in reads] == [b"01", b"12", b"23", b"34", b"45"]
        assert await c is None
        with pytest.raises(OSError):
            os.fstat(fd)
    run(main())


def test_loop_closed_with_requests_in_flight(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"z" * 8192)
    before = nfds()
    loop = vigil.new_event_loop()
    f = loop.run_until_complete(_open(p))
    futs = [f.pread(4096, 0) for _ in range(8)] + [f.read(10), f.seek(0), f.read(10)]
    o = loop.run_until_complete(_open_started(p))
    loop.close()  # ends every request (vigil_loop_free); their futures stay as they are
    assert f._inflight == 0
    c = f.close()  # the loop is gone: closed at once
    assert c.done() and f.closed
    del f, o, futs, c
    gc.collect()
    assert nfds() == before


async def _open(p):
    return await vigil.open(p, "rb")


async def _open_started(p):
    return vigil.open(p, "rb")  # its request starts; nobody awaits it


def test_file_not_closed_is_closed_as_garbage(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"x")

    async def main():
        await vigil.stat(p)  # the file engine's own fds exist
        before = nfds()
        f = await vigil.open(p, "rb")
        assert await f.read(1) == b"x"
        del f
        gc.collect()
        assert nfds() == before
    run(main())


def test_randomized_against_os(tmp_path):
    """Random operations on one file through vigil and, as the oracle, on a shadow copy
    through plain os calls; every answer and the final bytes must agree."""
    seed = int(os.environ.get("VIGIL_TEST_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    mine, shadow = tmp_path / "mine", tmp_path / "shadow"
    init = os.urandom(rng.randrange(0, 20000))
    mine.write_bytes(init)
    shadow.write_bytes(init)

    async def main():
        f = await vigil.open(mine, "r+b")
        sfd = os.open(shadow, os.O_RDWR)
        try:
            for step in range(600):
                op = rng.choice(["read", "write", "seek", "pread", "pwrite", "tell", "stat", "readall"])
                where = f"seed {seed} step {step} {op}"
                if op == "read":
                    n = rng.choice([0, 1, 7, 4096, 10000, 70000])
                    assert await f.read(n) == os.read(sfd, n), where
                elif op == "readall":
                    assert await f.read() == os.read(sfd, 1 << 24), where
                elif op == "write":
                    b = os.urandom(rng.choice([0, 1, 100, 4096, 9000]))
                    assert await f.write(b) == os.write(sfd, b), where
                elif op == "seek":
                    whence = rng.choice([os.SEEK_SET, os.SEEK_CUR, os.SEEK_END])
                    off = rng.randrange(-30000, 30000)
                    try:
                        want = os.lseek(sfd, off, whence)
                    except OSError as e:
                        with pytest.raises(type(e)):
                            await f.seek(off, whence)
                    else:
                        assert await f.seek(off, whence) == want, where
                elif op == "pread":
                    n, off = rng.choice([1, 4096, 50000]), rng.randrange(0, 40000)
                    assert await f.pread(n, off) == os.pread(sfd, n, off), where
                elif op == "pwrite":
                    b, off = os.urandom(rng.choice([1, 4096])), rng.randrange(0, 40000)
                    assert await f.pwrite(b, off) == os.pwrite(sfd, b, off), where
                elif op == "tell":
                    assert f.tell() == os.lseek(sfd, 0, os.SEEK_CUR), where
                else:
                    assert (await f.stat()).st_size == os.fstat(sfd).st_size, where
        finally:
            os.close(sfd)
            await f.close()

    run(main())
    assert mine.read_bytes() == shadow.read_bytes(), f"seed {seed}"


def test_randomized_fs_calls_against_os(tmp_path):
    """Random file-system calls in two twin folders: vigil's in one, os's in the other;
    results (or the exception's class and errno) must match, and so must the trees."""
    seed = int(os.environ.get("VIGIL_TEST_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    roots = [tmp_path / "v", tmp_path / "o"]
    for r in roots:
        r.mkdir()
    names = ["a", "b", "c", "d/e", "d", "d/f"]

    def os_call(op, a, b):
        if op == "mkdir":
            return os.mkdir(a)
        if op == "unlink":
            return os.unlink(a)
        if op == "rmdir":
            return os.rmdir(a)
        if op == "rename":
            return os.rename(a, b)
        if op == "create":
            return os.close(os.open(a, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        if op == "stat":
            s = os.stat(a)
            return (s.st_mode, s.st_size, s.st_nlink, s.st_ino)
        return sorted(os.listdir(a))

    async def vigil_call(op, a, b):
        if op == "create":
            return await (await vigil.open(a, "xb")).close()
        if op == "stat":
            s = await vigil.stat(a)
            return (s.st_mode, s.st_size, s.st_nlink, s.st_ino)
        if op == "listdir":
            return sorted(await vigil.listdir(a))
        if op == "rename":
            return await vigil.rename(a, b)
        return await getattr(vigil, op)(a)

    def outcome(fn):
        try:
            return ("ok", fn())
        except OSError as e:
            return (type(e), e.errno)

    async def main():
        for step in range(300):
            op = rng.choice(["mkdir", "unlink", "rmdir", "rename", "create", "stat", "listdir"])
            n1, n2 = rng.choice(names), rng.choice(names)
            o = outcome(lambda: os_call(op, roots[1] / n1, roots[1] / n2))
            try:
                v = ("ok", await vigil_call(op, roots[0] / n1, roots[0] / n2))
            except OSError as e:
                v = (type(e), e.errno)
            if op == "stat" and v[0] == "ok":  # inodes differ between the twins
                v, o = ("ok", v[1][:3]), ("ok", o[1][:3])
            assert v == o, f"seed {seed} step {step}: {op} {n1} {n2}: vigil {v} os {o}"
        assert sorted(p.relative_to(roots[0]) for p in roots[0].rglob("*")) == \
            sorted(p.relative_to(roots[1]) for p in roots[1].rglob("*")), f"seed {seed}"

    run(main())


@pytest.mark.parametrize("size", [0, 1, 100000, 3 << 20])
def test_sendfile_to_a_transport(tmp_path, size):
    """vigil.sendfile after a transport.write: the peer gets the written bytes, then the
    file's, in order; the file's position does not move; reading resumes after."""
    p = tmp_path / "f"
    data = os.urandom(size)
    p.write_bytes(data)

    async def main():
        got = asyncio.get_running_loop().create_future()

        peer_done = asyncio.get_running_loop().create_future()

        async def peer(reader, writer):
            buf = await reader.readexactly(5 + size + 3)
            writer.write(b"back")
            await writer.drain()
            got.set_result(buf)
            writer.close()
            peer_done.set_result(None)

        srv = await asyncio.start_server(peer, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        async with vigil.open(p, "rb") as f:
            writer.write(b"head:")
            assert await vigil.sendfile(writer.transport, f) == size
            writer.write(b"end")
            assert f.tell() == 0
            if size > 10:
                assert await vigil.sendfile(writer.transport, f, 0, 0) == 0
        assert await got == b"head:" + data + b"end"
        assert await reader.readexactly(4) == b"back"
        await peer_done  # the loop closes after the server's task ended, not under it
        writer.close()
        srv.close()
        await srv.wait_closed()
    run(main())
