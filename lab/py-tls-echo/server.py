"""py-echo's protocol way over TLS 1.3: the same program on four asyncio loops.

  server.py --loop asyncio|uvloop|rloop|vigil --cert CERT --key KEY PORT

loop.create_server(pyloops.Echo, ssl=context) on 127.0.0.1:PORT (the context: TLS 1.3 only, the
given certificate and key); data_received -> transport.write. Prints `ready` once
listening and exits 0 on SIGTERM or SIGINT (the lab's server CLI contract,
lab/common/netsrv.py). A loop that cannot serve TLS (rloop: its README lists SSL among
what it does not support, and its create_server(ssl=...) raises NotImplementedError)
exits 77 with the reason."""
import argparse
import asyncio
import os
import ssl
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import pyloops  # noqa: E402


async def main(loop_name, ctx, port):
    loop = asyncio.get_running_loop()
    stop = pyloops.stopped(loop)
    try:
        srv = await loop.create_server(pyloops.Echo, "127.0.0.1", port, ssl=ctx, backlog=4096, reuse_address=True)
    except NotImplementedError as e:
        return (f"{loop_name} cannot serve TLS: create_server(ssl=...) raises NotImplementedError"
                + (f": {e}" if str(e) else "") + (" (its README lists SSL as not supported)" if loop_name == "rloop" else ""))
    print("ready", flush=True)
    await stop
    srv.close()
    return None


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", required=True, choices=pyloops.LOOPS)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("port", type=int)
    a = ap.parse_args()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_cert_chain(a.cert, a.key)
    why = pyloops.run(a.loop, lambda: main(a.loop, ctx, a.port))
    if why:  # after the loop: a SystemExit raised inside a callback is not every loop's to propagate
        print(f"skip: {why}", file=sys.stderr, flush=True)
        sys.exit(77)
