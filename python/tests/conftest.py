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
test_events) would then fail on the held port. So the port handed out comes from
10000-19999, below the ephemeral range, where neither bind(port 0) nor connect ever
picks one. The other takers of such ports are kept out: the example tests
(tests/examples) bind theirs in 20000-31999, and other processes running this same
function are kept apart by a claim per port (an abstract AF_UNIX name bound while the
process lives: no file, gone with the process). The port is checked bindable (without
SO_REUSEADDR, on the wildcard address: no socket bound there, no TIME_WAIT) before it
is handed out, and never handed out twice by one process.

Also the `loop` fixture of the tests that run on both loops (test_asyncio_parity.py,
test_server.py): asyncio's default loop, then vigil's (on the backend VIGIL_BACKEND
selects), closed after the test."""
import asyncio
import errno
import random
import socket

import pytest

_held = {}  # port -> the socket holding its claim, kept while this process lives


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
    """A port in 10000-19999 (below the kernel's ephemeral range) that this process
    has claimed and that nothing is bound to now (see the module's comment)."""
    low, high = 10000, 20000
    if _ephemeral_low() < high:
        raise RuntimeError(f"ip_local_port_range starts below {high}: no ports of ours below it")
    for _ in range(200):
        port = random.randrange(low, high)
        if port in _held:
            continue
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            claim.bind(f"\0vigil-test-port-{port}")
        except OSError as e:
            claim.close()
            if e.errno == errno.EADDRINUSE:  # another process's
                continue
            raise
        if not _bindable(port, family, socktype):
            claim.close()
            continue
        _held[port] = claim
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


@pytest.fixture(params=["asyncio", "vigil"])
def loop(request):
    import vigil
    lp = vigil.new_event_loop() if request.param == "vigil" else asyncio.new_event_loop()
    yield lp
    if not lp.is_closed():
        lp.close()
