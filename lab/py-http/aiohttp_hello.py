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
import signal
import sys

from aiohttp import web

BODY = b"Hello, world!\n"


async def hello(request):
    return web.Response(body=BODY, content_type="text/plain")


async def main(port):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    app = web.Application()
    app.router.add_get("/", hello)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=4096, reuse_address=True)
    await site.start()
    print("ready", flush=True)
    await stop
    await runner.cleanup()


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
        loop.run_until_complete(main(a.port))
    finally:
        loop.close()
