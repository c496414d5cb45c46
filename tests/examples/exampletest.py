"""What the example servers' tests share: start a server on a free port, talk to it over
raw sockets, read its counters (SIGUSR1 prints a line "stats key=value ..." on its
stdout), stop it and check that it exited 0 with nothing reported by the sanitizers."""
import os, random, signal, socket, subprocess, threading, time


class Server:
    def __init__(self, binary, *options):
        """The server on a random port below the ephemeral range (32768-60999), which no
        bind(0) or connect of another test takes; should a test running beside this one
        hold it (listen fails, EADDRINUSE), another is tried. (Port 0 read back from /proc
        would be free of races too, but after the fuzz drivers' tens of thousands of
        connections the ephemeral range can be all TIME_WAIT.)"""
        for _ in range(8):
            self.port = random.randint(20000, 31999)
            self.proc = subprocess.Popen([binary, *map(str, options), str(self.port)], stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True)
            if self.proc.stdout.readline().strip() == "ready":
                return
            err = self.proc.communicate(timeout=10)[1]
            if "Address already in use" not in err:
                raise AssertionError(f"server did not start: {err.strip()}")
        raise AssertionError("server did not start: every port tried was taken")

    def stats(self):
        self.proc.send_signal(signal.SIGUSR1)
        line = self.proc.stdout.readline().split()
        assert line and line[0] == "stats", f"no stats line on SIGUSR1: {line}"
        return {k: int(v) for k, v in (x.split("=") for x in line[1:])}

    def wait_stats(self, pred, what, timeout=20):
        """Polls the counters until pred(stats) holds (a condition, not a time: the limit
        only ends a test that would otherwise hang)."""
        end = time.monotonic() + timeout
        while True:
            st = self.stats()
            if pred(st):
                return st
            if time.monotonic() > end:
                raise AssertionError(f"{what}: not reached, counters {st}")
            time.sleep(0.05)

    def connect(self, timeout=10):
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)

    def stop(self, sig=signal.SIGTERM, timeout=20):
        """Signals the server; returns (exit status, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            err = self.proc.communicate(timeout=timeout)[1]
        except subprocess.TimeoutExpired:
            self.proc.kill()
            err = self.proc.communicate()[1]
            raise AssertionError(f"the server did not exit within {timeout} s of {sig.name}: {err[-2000:]}")
        return self.proc.returncode, err

    def slow_reader(self):
        """A connection that reads little: a 4 KiB receive buffer, non-blocking (its peer's
        answers back up in the server)."""
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", self.port))
        s.setblocking(False)
        return s

    def finish(self, ok):
        """A test's end: the server must stop on SIGTERM with status 0 and no sanitizer
        report, else the test fails; it is killed if still running. Returns the verdict."""
        try:
            self.check_exit()
        except AssertionError as e:
            print(e)
            ok = False
        self.kill()
        return ok

    def check_exit(self, sig=signal.SIGTERM, timeout=20):
        rc, err = self.stop(sig, timeout)
        bad = [w for w in ("LeakSanitizer", "AddressSanitizer", "runtime error") if w in err]
        assert rc == 0 and not bad, f"exit status {rc} after {sig.name}, sanitizer reports {bad}:\n{err[-3000:]}"

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def read_all(s, timeout=10, stall_ok=False, reset_ok=True):
    """Everything until end of stream (or a reset, unless not reset_ok: then it raises);
    a stall of timeout s raises, or with stall_ok ends the read."""
    s.settimeout(timeout)
    out = []
    while True:
        try:
            x = s.recv(1 << 16)
        except ConnectionResetError:
            if not reset_ok:
                raise
            break
        except TimeoutError:
            if not stall_ok:
                raise AssertionError(f"no end of stream within {timeout} s; got {len(b''.join(out))} bytes: "
                                     f"{b''.join(out)[-200:]!r}")
            break
        if not x:
            break
        out.append(x)
    return b"".join(out)


def writer(s, data, chunk):
    """Sends data in writes of chunk bytes from a thread (the server stops reading while
    this side does not read its answers, so writing and reading must overlap)."""
    def run():
        try:
            for i in range(0, len(data), chunk):
                s.sendall(data[i:i + chunk])
        except OSError:
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def reset(s):
    """Closes with SO_LINGER 0: the peer gets a reset, whatever is queued is dropped."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()


def backend():
    return os.environ.get("VIGIL_BACKEND", "auto")


def verdict(name, ok):
    """Prints a test's verdict; its exit status."""
    print(f"{name}:", "pass" if ok else "FAIL", backend())
    return 0 if ok else 1
