"""py-echo's protocol way over TLS 1.3: the same program on four asyncio loops.

  server.py --loop asyncio|uvloop|rloop|vigil --cert CERT --key KEY PORT

loop.create_server(Echo, ssl=context) on 127.0.0.1:PORT (the context: TLS 1.3 only, the
given certificate and key); data_received -> transport.write. Prints `ready` once
listening and exits 0 on SIGTERM or SIGINT (the lab's server CLI contract,
lab/common/netsrv.py). A loop that cannot serve TLS (rloop: its README lists SSL among
what it does not support, and its create_server(ssl=...) raises NotImplementedError)
exits 77 with the reason."""
import argparse
import asyncio
import signal
import socket
import ssl
import sys


class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.t = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data):
        self.t.write(data)


async def main(loop_name, ctx, port):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    try:
        srv = await loop.create_server(Echo, "127.0.0.1", port, ssl=ctx, backlog=4096, reuse_address=True)
    except NotImplementedError as e:
        return (f"{loop_name} cannot serve TLS: create_server(ssl=...) raises NotImplementedError"
                + (f": {e}" if str(e) else "") + (" (its README lists SSL as not supported)" if loop_name == "rloop" else ""))
    print("ready", flush=True)
    await stop
    srv.close()
    return None


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


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", required=True, choices=("asyncio", "uvloop", "rloop", "vigil"))
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("port", type=int)
    a = ap.parse_args()
    try:
        factory = loop_factory(a.loop)
    except ImportError as e:
        print(f"skip: {a.loop} is not installed in {sys.executable}: {e}", file=sys.stderr)
        sys.exit(77)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_cert_chain(a.cert, a.key)
    loop = factory()
    asyncio.set_event_loop(loop)
    try:
        why = loop.run_until_complete(main(a.loop, ctx, a.port))
    finally:
        loop.close()
    if why:  # after the loop: a SystemExit raised inside a callback is not every loop's to propagate
        print(f"skip: {why}", file=sys.stderr, flush=True)
        sys.exit(77)
