"""CPython's suites run here unedited, and some of their tests ask
test.support.socket_helper.find_unused_port() for a port, then bind, listen on or connect
to it later: a port that is free when asked and closed again is one any process beside
(ctest runs tests in parallel) may take before the test binds it, through bind(port 0)
or an outgoing connect, both of which take their ports from the kernel's ephemeral
range (seen: test_sendfile_ssl_close_peer_after_receiving, bind: EADDRINUSE;
test_create_connection_local_addr_skip_different_family, a connect expected to fail
reached a listener).

Holding the port until the test binds it cannot be done from here: the test's own bind
(sock.bind without SO_REUSEADDR in test_sendfile, a connection's local_addr in
test_events) would then fail on the held port. So the port handed out comes from below
the ephemeral range, where neither bind(port 0) nor connect ever picks one; the only
other takers of such ports are other processes running this same function, and those
are kept apart by a lock per port (flock on a file in the temporary directory, held
while the process lives). The port is checked bindable (no SO_REUSEADDR, on the
wildcard address: no listener, no TIME_WAIT) before it is handed out, and never handed
out twice by one process. Nothing in this project's own tests binds a fixed port."""
import errno
import fcntl
import os
import random
import socket
import tempfile

_held = {}  # port -> open lock file, kept while this process lives


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bindable(port, family, socktype):
    host = "::" if family == socket.AF_INET6 else "0.0.0.0"
    try:
        with socket.socket(family, socktype) as s:
            s.bind((host, port))
        return True
    except OSError:
        return False


def find_unused_port(family=socket.AF_INET, socktype=socket.SOCK_STREAM):
    """A port below the kernel's ephemeral range that this process has claimed and
    that nothing is bound to now (see the module's comment)."""
    high = _ephemeral_low()
    low = max(1024, high - 16384)
    if high - low < 1024:
        raise RuntimeError(f"ip_local_port_range starts at {high}: too few ports below it")
    for _ in range(200):
        port = random.randrange(low, high)
        if port in _held:
            continue
        path = os.path.join(tempfile.gettempdir(), f"vigil-port-{port}.lock")
        f = open(path, "a")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            f.close()
            if e.errno in (errno.EWOULDBLOCK, errno.EACCES):
                continue
            raise
        if not _bindable(port, family, socktype):
            f.close()
            continue
        _held[port] = f
        return port
    raise RuntimeError("no unclaimed port found below the ephemeral range")


try:
    from test.support import socket_helper
except ImportError:  # no CPython test package: the suites skip themselves
    socket_helper = None
if socket_helper is not None:
    # The suites call socket_helper.find_unused_port() through the module, so replacing
    # the module's attribute reaches every call.
    socket_helper.find_unused_port = find_unused_port
