"""Subprocesses on vigil's loop (vigil._subprocess): the child started by vigil_proc, its
exit seen through its pidfd, its pipes the C stream transport's. Each test runs on the
backend VIGIL_BACKEND selects (ctest runs this file once per backend); CPython's own
test_subprocess runs in test_cpython_suites.py."""
import asyncio
import hashlib
import os
import signal
import subprocess
import sys

import pytest

import vigil
from vigil import _subprocess

PY = sys.executable


def run(coro):
    return vigil.run(coro)


def tasks():
    return len(os.listdir("/proc/self/task"))


class Recorder(asyncio.SubprocessProtocol):
    def __init__(self):
        self.events = []
        self.data = {1: b"", 2: b""}
        self.done = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.events.append("made")

    def pipe_data_received(self, fd, data):
        self.data[fd] += data

    def pipe_connection_lost(self, fd, exc):
        self.events.append(("pipe_lost", fd, exc))

    def process_exited(self):
        self.events.append("exited")

    def connection_lost(self, exc):
        self.events.append(("lost", exc))
        self.done.set_result(None)


def test_protocol_events_and_exit_code():
    async def main():
        loop = asyncio.get_running_loop()
        tr, pr = await loop.subprocess_exec(
            Recorder, PY, "-c", "import sys; sys.stdout.write('out'); sys.stderr.write('err'); sys.exit(7)")
        assert isinstance(tr, _subprocess.VigilSubprocessTransport)
        for fd in (0, 1, 2):  # the pipe object, as asyncio's pipe transports give it
            assert tr.get_pipe_transport(fd).get_extra_info("pipe").fileno() >= 0
        await pr.done
        rc = tr.get_returncode()
        tr.close()
        return pr, rc

    pr, rc = run(main())
    assert rc == 7
    assert pr.data == {1: b"out", 2: b"err"}
    assert pr.events[0] == "made" and pr.events[-1] == ("lost", None)
    middle = sorted(map(str, pr.events[1:-1]))
    assert middle == sorted(map(str, [("pipe_lost", 0, None), ("pipe_lost", 1, None), ("pipe_lost", 2, None),
                                      "exited"]))
    # The same as on asyncio's own loop.
    theirs = asyncio.run(_default_loop_events())
    assert sorted(map(str, theirs[1:-1])) == middle and theirs[0] == "made" and theirs[-1] == ("lost", None)


async def _default_loop_events():
    loop = asyncio.get_running_loop()
    tr, pr = await loop.subprocess_exec(
        Recorder, PY, "-c", "import sys; sys.stdout.write('out'); sys.stderr.write('err'); sys.exit(7)")
    await pr.done
    tr.close()
    return pr.events


def test_communicate_stdin_and_shell():
    async def main():
        p = await asyncio.create_subprocess_exec(
            PY, "-c", "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read()[::-1])",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        out, _ = await p.communicate(b"abc" * 100000)
        s = await asyncio.create_subprocess_shell("echo $FOO; pwd; echo oops >&2; exit 3", env={"FOO": "bar"},
                                                  cwd="/", stdout=asyncio.subprocess.PIPE,
                                                  stderr=asyncio.subprocess.STDOUT)
        sout, _ = await s.communicate()
        n = await asyncio.create_subprocess_exec("true", stdin=asyncio.subprocess.DEVNULL,
                                                 stdout=asyncio.subprocess.DEVNULL)
        return out, p.returncode, sout, s.returncode, await n.wait()

    out, rc, sout, src, nrc = run(main())
    assert out == (b"abc" * 100000)[::-1] and rc == 0
    assert sout == b"bar\n/\noops\n" and src == 3
    assert nrc == 0


@pytest.mark.parametrize("how", ["kill", "terminate", "send_signal", "close"])
def test_killed(how):
    async def main():
        p = await asyncio.create_subprocess_exec(PY, "-c", "import sys; print('up', flush=True); sys.stdin.read()",
                                                 stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert await p.stdout.readline() == b"up\n"
        if how == "kill":
            p.kill()
        elif how == "terminate":
            p.terminate()
        elif how == "send_signal":
            p.send_signal(signal.SIGUSR1)
        else:
            p._transport.close()
        return await p.wait()

    want = {"kill": -9, "terminate": -15, "send_signal": -signal.SIGUSR1, "close": -9}[how]
    assert run(main()) == want


def test_64mib_read_slowly():
    """A child writes 64 MiB as fast as it can; the test reads it in small pieces with
    turns of the loop in between. Flow control keeps what the loop buffers bounded (the
    reader pauses the pipe), and every byte arrives in order."""
    total = 64 << 20
    code = ("import sys, hashlib\n"
            "b = bytes(range(256)) * 4096\n"
            "h = hashlib.sha256()\n"
            f"for i in range({total} // len(b)):\n"
            "    c = b[i % 256:] + b[:i % 256]\n"
            "    h.update(c); sys.stdout.buffer.write(c)\n"
            "sys.stdout.flush(); sys.stderr.write(h.hexdigest())\n")

    async def main():
        limit = 64 << 10
        p = await asyncio.create_subprocess_exec(PY, "-c", code, stdout=asyncio.subprocess.PIPE,
                                                 stderr=asyncio.subprocess.PIPE, limit=limit)
        h = hashlib.sha256()
        n = most = 0
        while True:
            chunk = await p.stdout.read(16 << 10)
            if not chunk:
                break
            h.update(chunk)
            n += len(chunk)
            most = max(most, len(p.stdout._buffer))
            for _ in range(2):
                await asyncio.sleep(0)
        err = await p.stderr.read()
        return n, h.hexdigest(), err.decode(), await p.wait(), most, limit

    n, digest, child_digest, rc, most, limit = run(main())
    assert rc == 0 and n == total
    assert digest == child_digest
    # paused: not the whole 64 MiB buffered. asyncio's own loop stays under 2 x limit plus one
    # delivery; vigil's transport joins up to 256 KiB per data_received, and one loaded run on
    # io_uring buffered 1.2 MB (not yet explained: see the 0.3 closing note), so the bound says
    # what the test is for: bounded, far from the 64 MiB written.
    assert most < 64 * limit, most


def test_exec_failures_as_asyncio():
    """The errors Popen raises, on vigil's loop and on asyncio's own."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        noexec = os.path.join(d, "noexec")
        with open(noexec, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(noexec, 0o644)

        async def main():
            res = []
            for args, kw in (([os.path.join(d, "absent")], {}), (["vigil-no-such-program-x"], {}),
                             ([noexec], {}), (["true"], {"cwd": os.path.join(d, "nodir")})):
                try:
                    p = await asyncio.create_subprocess_exec(*args, **kw)
                    await p.wait()
                    res.append(None)
                except OSError as e:
                    res.append((type(e), e.errno, e.filename))
            return res

        mine = run(main())
        theirs = asyncio.run(main())
    assert mine == theirs
    assert [r[0] for r in mine] == [FileNotFoundError, FileNotFoundError, PermissionError, FileNotFoundError]


def test_no_zombie_no_thread_no_sigchld_handler():
    assert signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL

    async def main():
        before = tasks()
        p = await asyncio.create_subprocess_exec(PY, "-c", "import sys; sys.stdin.read()",
                                                 stdin=asyncio.subprocess.PIPE)
        during = tasks()  # no watcher thread while the child runs
        p.stdin.close()
        rc = await p.wait()
        return p.pid, rc, before, during

    pid, rc, before, during = run(main())
    assert rc == 0 and during == before
    assert signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL  # nothing installed
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(pid, os.WNOHANG)


def test_program_sigchld_handler_untouched():
    """The program's own SIGCHLD handler stays installed and runs when vigil's children
    exit, and its own children (Popen, waited by pid) work beside vigil's."""
    seen = []

    def handler(signum, frame):
        seen.append(signum)

    old = signal.signal(signal.SIGCHLD, handler)
    try:
        async def main():
            own = subprocess.Popen([PY, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
            p = await asyncio.create_subprocess_exec(PY, "-c", "raise SystemExit(5)")
            rc = await p.wait()
            own.stdin.close()
            return rc, own.wait()

        rc, own_rc = run(main())
        assert signal.getsignal(signal.SIGCHLD) is handler
    finally:
        signal.signal(signal.SIGCHLD, old)
    assert rc == 5 and own_rc == 0
    assert seen and set(seen) == {signal.SIGCHLD}


def test_popen_fallback_pass_fds():
    """What vigil_proc cannot do (pass_fds) goes to asyncio's Popen transport, exit still
    by pidfd on this loop."""
    r, w = os.pipe()

    async def main():
        p = await asyncio.create_subprocess_exec(PY, "-c", f"import os; os.write({w}, b'hi')", pass_fds=(w,))
        assert not isinstance(p._transport, _subprocess.VigilSubprocessTransport)
        return await p.wait()

    try:
        assert run(main()) == 0
        assert os.read(r, 2) == b"hi"
    finally:
        os.close(r)
        os.close(w)


def test_many_children_concurrently():
    async def one(i):
        p = await asyncio.create_subprocess_exec(PY, "-c", f"print({i})", stdout=asyncio.subprocess.PIPE)
        out, _ = await p.communicate()
        return int(out), p.returncode

    async def main():
        return await asyncio.gather(*(one(i) for i in range(20)))

    assert run(main()) == [(i, 0) for i in range(20)]


def test_loop_closed_with_child_running():
    """Closing the loop with a child still running kills and reaps it (vigil_loop_free):
    no zombie, and the transport closed afterwards does not fail."""
    import warnings
    loop = vigil.new_event_loop()

    async def start():
        p = await asyncio.create_subprocess_exec(PY, "-c", "import time; time.sleep(60)")
        return p

    p = loop.run_until_complete(start())
    pid = p.pid
    loop.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        del p
        import gc
        gc.collect()


def test_64mib_to_stdin_with_drain():
    """64 MiB written into a child's stdin in 1 MiB pieces, each followed by drain():
    the child (reading in small pieces) sees every byte in order, and what the loop
    buffers stays bounded (drain waits for the transport to fall below its limit)."""
    total = 64 << 20
    code = ("import sys, hashlib\n"
            "h = hashlib.sha256(); n = 0\n"
            "while True:\n"
            "    b = sys.stdin.buffer.read1(4096)\n"
            "    if not b: break\n"
            "    h.update(b); n += len(b)\n"
            "print(n, h.hexdigest())\n")

    async def main():
        p = await asyncio.create_subprocess_exec(PY, "-c", code, stdin=asyncio.subprocess.PIPE,
                                                 stdout=asyncio.subprocess.PIPE)
        h = hashlib.sha256()
        piece = bytes(range(256)) * 4096
        most = 0
        for i in range(total // len(piece)):
            c = piece[i:] + piece[:i]
            h.update(c)
            p.stdin.write(c)
            most = max(most, p.stdin.transport.get_write_buffer_size())
            await p.stdin.drain()
        p.stdin.close()
        out, _ = await p.communicate()
        return out.decode().split(), h.hexdigest(), await p.wait(), most

    (n, digest), want, rc, most = run(main())
    assert rc == 0 and int(n) == total and digest == want
    assert most < 4 * len(bytes(range(256)) * 4096)  # one piece beyond the limit at most
