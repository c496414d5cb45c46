"""What the network benchmarks' drivers share (lab/net-echo, lab/http-hello): a server
process started on one CPU, its readiness, the CPU time of all its processes and
threads, and its stop.

A server follows the lab's server CLI contract: `PROG PORT` listens on 127.0.0.1:PORT,
prints a line `ready` on stdout once listening and exits 0 on SIGTERM or SIGINT. A
driver picks the port (free_port), starts the server with Server(...), runs its client
and reads Server.cpu_ns() around the measured window. A server that prints no `ready`
(nginx) is ready when its port takes a connection (ready="port").
"""
import os
import select
import signal
import socket
import subprocess
import sys
import time

CPUS = os.cpu_count() or 1
SERVER_CPU = 0
CLIENT_CPU = 1 if CPUS > 1 else 0


def free_port():
    """A TCP port on 127.0.0.1 nothing listens on now (bound to port 0, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cpu, own_group=False):
    """A preexec_fn that pins the child to one CPU (and, own_group: puts it in a process
    group of its own, so that it and every process it starts can be killed at once)."""
    def f():
        if own_group:
            os.setpgid(0, 0)
        os.sched_setaffinity(0, {cpu})
    return f


def _children(pid):
    """The pids whose parent is pid."""
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    out += [int(x) for x in f.read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def tree(pid):
    """pid and every descendant."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.append(p)
            todo += _children(p)
    return seen


def cpu_ns(pid):
    """CPU time of every thread of pid and its descendants, ns (the first field of each
    /proc/<pid>/task/<tid>/schedstat: exact, where /proc/<pid>/stat counts 10 ms ticks).
    Threads that ended are not counted: the servers measured here start none."""
    total = 0
    for p in tree(pid):
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return total


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Server:
    """A server process pinned to `cpu`; a context manager that always stops it.

    ready="line": wait for its first stdout line (`ready`; any first line is taken, and
    the port must then take a connection); ready="port": wait until the port takes a
    connection. Its stderr goes to ours (run.log)."""

    def __init__(self, argv, port, cpu=SERVER_CPU, env=None, ready="line", timeout=10.0, stop_signal=signal.SIGINT):
        self.argv, self.port, self.stop_signal = [str(a) for a in argv], port, stop_signal
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=e,
                                  preexec_fn=pinned(cpu, own_group=True))
        self.pid = self.p.pid
        try:
            self._wait_ready(ready, timeout)
        except BaseException:
            self.kill()
            raise

    def _wait_ready(self, how, timeout):
        end = time.monotonic() + timeout
        if how == "line":
            line = b""
            fd = self.p.stdout.fileno()
            while not line.endswith(b"\n"):
                left = end - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    raise RuntimeError(f"{os.path.basename(self.argv[0])}: no line on stdout within {timeout:.0f} s")
                b = os.read(fd, 1)
                if not b:
                    raise RuntimeError(f"{os.path.basename(self.argv[0])} exited before it was ready "
                                       f"(status {self.p.wait()})")
                line += b
            if line.strip() != b"ready":
                log(f"netsrv: {os.path.basename(self.argv[0])} printed {line.strip().decode(errors='replace')!r}, "
                    f"not 'ready' (the server CLI contract); waiting for its port instead")
            else:
                return
        while True:
            if self.p.poll() is not None:
                raise RuntimeError(f"{os.path.basename(self.argv[0])} exited before it was ready "
                                   f"(status {self.p.returncode})")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError(f"{os.path.basename(self.argv[0])}: port {self.port} not open within "
                                       f"{timeout:.0f} s")
                time.sleep(0.02)

    def cpu_ns(self):
        return cpu_ns(self.pid)

    def alive(self):
        return self.p.poll() is None

    def stop(self, timeout=5.0):
        """Sends the stop signal and waits; kills it after timeout. Returns its exit
        status (None: it had to be killed)."""
        if self.p.poll() is None:
            try:
                self.p.send_signal(self.stop_signal)
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                log(f"netsrv: {os.path.basename(self.argv[0])} did not stop within {timeout:.0f} s: killed")
                self.kill()
                return None
        self._kill_group()
        if self.p.stdout:
            self.p.stdout.close()
        return self.p.returncode

    def _kill_group(self):
        """Whatever of the server's process group is left (an nginx worker whose master
        was killed)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def kill(self):
        """The server and every process it started, at once."""
        self._kill_group()
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()
        return False
