# The server of python/scripts/accept_rate/run.sh (see there): an echo Protocol on one loop.
import asyncio, os, resource, sys
kind = sys.argv[1]
if kind == "uvloop":
    import uvloop; loop = uvloop.new_event_loop()
elif kind.startswith("vigil"):
    import vigil; loop = vigil.new_event_loop(backend=kind.split(":")[1])
    if kind.startswith("vigilpy"):  # the Python readiness path (before server.c)
        def _ss(protocol_factory, sock, sslcontext=None, server=None, backlog=100, *a):
            loop._add_reader(sock.fileno(), loop._accept_ready, protocol_factory, sock, sslcontext, server,
                             backlog, 60.0, 30.0)
        loop._start_serving = _ss
else:
    loop = asyncio.new_event_loop()
class Echo(asyncio.Protocol):
    def connection_made(self, t): self.t = t
    def data_received(self, d): self.t.write(d)
async def main():
    srv = await loop.create_server(Echo, "127.0.0.1", 0, backlog=4096)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    print(srv.sockets[0].getsockname()[1], flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(ru.ru_utime + ru.ru_stime - r0.ru_utime - r0.ru_stime, flush=True)
loop.run_until_complete(main())
