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
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import pyloops  # noqa: E402


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
    stop = pyloops.stopped(loop)
    tasks = set()
    if way == "protocol":
        srv = await loop.create_server(pyloops.Echo, "127.0.0.1", port, backlog=4096, reuse_address=True)
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


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", required=True, choices=pyloops.LOOPS)
    ap.add_argument("--way", required=True, choices=("protocol", "streams", "sock"))
    ap.add_argument("port", type=int)
    a = ap.parse_args()
    pyloops.run(a.loop, lambda: main(a.way, a.port))
