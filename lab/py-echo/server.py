"""A Python echo server, the same program on three loops and three ways of writing it.

  server.py --loop asyncio|uvloop|vigil --way protocol|streams|sock PORT

Listens on 127.0.0.1:PORT, prints `ready` once listening, echoes every byte back until
SIGTERM or SIGINT, then exits 0 (the lab's server CLI contract, lab/common/netsrv.py).
  protocol  asyncio.Protocol: data_received -> transport.write
  streams   asyncio.start_server: reader.read -> writer.write + await writer.drain()
  sock      loop.sock_accept / loop.sock_recv / loop.sock_sendall on non-blocking sockets
The loops: asyncio's default (selector) loop, uvloop and rloop (PyPI), vigil's loop (python/).
"""
import argparse
import asyncio
import signal
import socket
import sys


class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.t = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data):
        self.t.write(data)


async def on_stream(reader, writer, tasks):
    me = asyncio.current_task()
    tasks.add(me)  # so shutdown can cancel and await it (else: "Task was destroyed")
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        tasks.discard(me)
        writer.close()


async def sock_conn(loop, conn):
    try:
        while True:
            data = await loop.sock_recv(conn, 65536)
            if not data:
                break
            await loop.sock_sendall(conn, data)
    except ConnectionError:
        pass
    finally:
        conn.close()


async def main(way, port):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    tasks = set()
    if way == "protocol":
        srv = await loop.create_server(Echo, "127.0.0.1", port, backlog=4096, reuse_address=True)
    elif way == "streams":
        srv = await asyncio.start_server(lambda r, w: on_stream(r, w, tasks), "127.0.0.1", port, backlog=4096,
                                         reuse_address=True)
    else:
        lsock = socket.socket()
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(("127.0.0.1", port))
        lsock.listen(4096)
        lsock.setblocking(False)

        async def acceptor():
            while True:
                conn, _ = await loop.sock_accept(lsock)
                conn.setblocking(False)
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                t = loop.create_task(sock_conn(loop, conn))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
        acc = loop.create_task(acceptor())
        srv = None
    print("ready", flush=True)
    await stop
    if srv is not None:
        srv.close()
    else:
        acc.cancel()
        tasks.add(acc)
        lsock.close()
    # Every connection's task ends here, cancelled and awaited: none is left pending
    # when the loop closes.
    for t in list(tasks):
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


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
    ap.add_argument("--way", required=True, choices=("protocol", "streams", "sock"))
    ap.add_argument("port", type=int)
    a = ap.parse_args()
    try:
        factory = loop_factory(a.loop)
    except ImportError as e:
        print(f"skip: {a.loop} is not installed in {sys.executable}: {e}", file=sys.stderr)
        sys.exit(77)
    loop = factory()
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(main(a.way, a.port))
    finally:
        loop.close()
