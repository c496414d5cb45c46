"""Datagram echo round trips per second: a UDP echo server on one loop (vigil's, per
backend, or uvloop, or asyncio's) pinned to CPU 0, against one client process pinned to
CPU 1 (plain blocking sockets, a window of datagrams in flight). Reports round trips/s and
the server's CPU ns per round trip. The loops alternate over the rounds (the machine is
shared: compare ratios of one run). Not a lab benchmark (no lab contract): a measurement
for issue 30's datagram path.

    python dgram_echo_bench.py [--seconds 3] [--rounds 3] [--window 1,32] [--size 64]
"""
import argparse
import asyncio
import multiprocessing as mp
import os
import resource
import socket
import statistics
import time


def server(kind, backend, port_q, stop_ev, out_q):
    os.sched_setaffinity(0, {0})
    if kind == "vigil":
        os.environ["VIGIL_BACKEND"] = backend
        import vigil
        loop = vigil.new_event_loop()
    elif kind == "uvloop":
        import uvloop
        loop = uvloop.new_event_loop()
    else:
        loop = asyncio.new_event_loop()

    class Echo(asyncio.DatagramProtocol):
        n = 0

        def connection_made(self, t):
            self.t = t

        def datagram_received(self, data, addr):
            self.t.sendto(data, addr)
            Echo.n += 1

    async def main():
        t, _ = await loop.create_datagram_endpoint(Echo, local_addr=("127.0.0.1", 0))
        t.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 21)
        port_q.put(t.get_extra_info("sockname")[1])
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        n0 = Echo.n
        while not stop_ev.is_set():
            await asyncio.sleep(0.05)
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
        out_q.put((Echo.n - n0, cpu))
        t.close()

    loop.run_until_complete(main())
    loop.close()


def client(port, seconds, window, size):
    os.sched_setaffinity(0, {1})
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(("127.0.0.1", port))
    s.settimeout(1.0)
    msg = b"x" * size
    for _ in range(window):
        s.send(msg)
    n = 0
    lost = 0
    t_end = time.monotonic() + seconds
    t0 = time.monotonic()
    while time.monotonic() < t_end:
        try:
            s.recv(65536)
        except socket.timeout:
            lost += 1
        n += 1
        s.send(msg)
    dt = time.monotonic() - t0
    s.close()
    return n / dt, lost


def one(kind, backend, seconds, window, size):
    ctx = mp.get_context("fork")
    port_q, out_q, stop_ev = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=server, args=(kind, backend, port_q, stop_ev, out_q))
    p.start()
    port = port_q.get(timeout=30)
    rate, lost = client(port, seconds, window, size)
    stop_ev.set()
    served, cpu = out_q.get(timeout=30)
    p.join(30)
    return rate, cpu * 1e9 / max(served, 1), lost


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--window", default="1,32")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--systems", default="vigil:uring,vigil:epoll,uvloop,asyncio")
    a = ap.parse_args()
    systems = [tuple((s + ":").split(":")[:2]) for s in a.systems.split(",")]
    for w in [int(x) for x in a.window.split(",")]:
        res = {s: [] for s in systems}
        for _ in range(a.rounds):
            for s in systems:
                res[s].append(one(s[0], s[1], a.seconds, w, a.size))
        base = statistics.median(r[0] for r in res.get(("uvloop", ""), [(1, 1, 0)]))
        base_cpu = statistics.median(r[1] for r in res.get(("uvloop", ""), [(1, 1, 0)]))
        for s, rs in res.items():
            rates = [r[0] for r in rs]
            cpus = [r[1] for r in rs]
            print(f"window={w:3d} size={a.size} {s[0]:8s} {s[1]:6s} rt/s median {statistics.median(rates):9.0f} "
                  f"(min {min(rates):.0f} max {max(rates):.0f}) x{statistics.median(rates) / base:.3f} uvloop; "
                  f"server cpu ns/rt {statistics.median(cpus):7.0f} x{statistics.median(cpus) / base_cpu:.3f}; "
                  f"lost {sum(r[2] for r in rs)}", flush=True)


if __name__ == "__main__":
    main()
