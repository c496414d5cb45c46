"""py-http's aiohttp.web "hello" app on one of four asyncio loops.

  aiohttp_hello.py --loop asyncio|uvloop|rloop|vigil PORT

One route, GET / -> 200 "Hello, world!\\n" (text/plain), no access log. Listens on
127.0.0.1:PORT (aiohttp's AppRunner and TCPSite, backlog 4096), prints `ready` once
listening and exits 0 on SIGTERM or SIGINT (the lab's server CLI contract,
lab/common/netsrv.py). The loop is made by its own documented factory (uvloop and
rloop: new_event_loop; vigil: vigil.new_event_loop, backend from VIGIL_BACKEND) and
installed with asyncio.set_event_loop, as aiohttp's documentation does for uvloop."""
import argparse
import asyncio
import os
import sys

from aiohttp import web

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import pyloops  # noqa: E402

BODY = b"Hello, world!\n"


async def hello(request):
    return web.Response(body=BODY, content_type="text/plain")


async def main(port):
    loop = asyncio.get_running_loop()
    stop = pyloops.stopped(loop)
    app = web.Application()
    app.router.add_get("/", hello)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=4096, reuse_address=True)
    await site.start()
    print("ready", flush=True)
    await stop
    await runner.cleanup()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", required=True, choices=pyloops.LOOPS)
    ap.add_argument("port", type=int)
    a = ap.parse_args()
    pyloops.run(a.loop, lambda: main(a.port))
