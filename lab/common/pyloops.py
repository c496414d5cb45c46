"""The asyncio event loops the lab's Python servers are run on (py-echo, py-tls-echo,
py-http's aiohttp app), by the name their --loop option takes, and what every such
server does around its own work: make the loop (a loop not installed in this
interpreter: "skip: ..." on stderr and exit 77), run the server's coroutine on it, close
it; the server runs until SIGTERM or SIGINT.

  LOOPS                       the names: asyncio, uvloop, rloop, vigil
  run(name, coro_of) -> the coroutine's result (coro_of() is called once the loop is set)
  stopped(loop)      -> a future that SIGTERM or SIGINT completes
  Echo               the echo protocol (py-echo's protocol way, py-tls-echo)
"""
import asyncio
import signal
import socket
import sys

LOOPS = ("asyncio", "uvloop", "rloop", "vigil")


def loop_factory(name):
    if name == "asyncio":
        return asyncio.new_event_loop
    if name == "uvloop":
        import uvloop
        return uvloop.new_event_loop
    if name == "rloop":
        import rloop  # PyPI: an asyncio loop in Rust
        return rloop.new_event_loop
    import vigil  # python/ in this repository; VIGIL_BACKEND picks its backend
    return vigil.new_event_loop


def run(name, coro_of):
    try:
        factory = loop_factory(name)
    except ImportError as e:
        print(f"skip: {name} is not installed in {sys.executable}: {e}", file=sys.stderr)
        sys.exit(77)
    loop = factory()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(coro_of())
    finally:
        loop.close()


def stopped(loop):
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    return stop


class Echo(asyncio.Protocol):
    """py-echo's protocol way, and py-tls-echo's: data_received -> transport.write (no Nagle)."""

    def connection_made(self, transport):
        self.t = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data):
        self.t.write(data)
