"""lab/net-echo's servers side by side: net_echo_client with three servers (--port,
--pid, --keys each, --slice) against three small echo servers here, each of which notes
when it received data. Only the server whose turn it is gets requests: the servers'
activity, in time order, is each one's warm-up in turn, then the turns A B C C B A
(round(S / L) = 2 each), never two at once; each server's records carry its own keys,
in the order given, and count no more requests than it echoed. And bench.py's plan:
one timed step per round and point naming every server, the first rotating, the
estimate about the old 9 minutes.

    ne_turns.py SOURCE_DIR NET_ECHO_CLIENT"""
import json, os, socket, subprocess, sys, tempfile, textwrap

src, client = sys.argv[1:3]
sys.path.insert(0, os.path.join(src, "tests", "lab"))
from labcheck import check, finish  # noqa: E402

# An echo server that writes, at its end, the CLOCK_MONOTONIC time of every receive.
SERVER = textwrap.dedent("""
    import selectors, signal, socket, sys, time
    out, ls = sys.argv[1], socket.socket()
    ls.bind(("127.0.0.1", 0)); ls.listen(64); ls.setblocking(False)
    sel, times, stop = selectors.DefaultSelector(), [], []
    sel.register(ls, selectors.EVENT_READ)
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    print(ls.getsockname()[1], flush=True)
    while not stop:
        for key, _ in sel.select(0.05):
            if key.fileobj is ls:
                c, _ = ls.accept(); c.setblocking(True); sel.register(c, selectors.EVENT_READ)
                continue
            d = key.fileobj.recv(65536)
            if not d:
                sel.unregister(key.fileobj); key.fileobj.close(); continue
            times.append(time.monotonic()); key.fileobj.sendall(d)
    with open(out, "w") as f:
        f.write("\\n".join(map(repr, times)))
""")

tmp = tempfile.mkdtemp(prefix="vigil-ne-turns-")
names, procs, ports = "ABC", [], []
try:
    for n in names:
        p = subprocess.Popen([sys.executable, "-c", SERVER, os.path.join(tmp, n)], stdout=subprocess.PIPE, text=True)
        procs.append(p)
        ports.append(int(p.stdout.readline()))
    cmd = [client, "--conns", "3", "--msg-bytes", "64", "--seconds", "0.4", "--slice", "0.2", "--warmup", "0.1"]
    for n, p, port in zip(names, procs, ports):
        cmd += ["--port", str(port), "--pid", str(p.pid), "--keys", f'"bench":"net-echo","system":"{n}"']
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"net_echo_client with three servers exits 0 ({r.stderr.strip()[-300:]})")
    recs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
finally:
    for p in procs:
        p.terminate()
        p.wait(10)
events = []
for n in names:
    with open(os.path.join(tmp, n)) as f:
        events += [(float(t), n) for t in f.read().split()]
events.sort()
runs = []
for _, n in events:
    if not runs or runs[-1][0] != n:
        runs.append([n, 0])
    runs[-1][1] += 1
seq = "".join(n for n, _ in runs)
check(seq == "ABC" + "ABC" + "BA"  # the two turns of C run together
      , f"warm-ups A B C, then turns A B C C B A, never two servers at once ({seq})")
order = [r["system"] for r in recs if r["metric"] == "requests_per_s"]
check(order == list(names), f"one set of records per server, in the order given ({order})")
for n in names:
    mine = {r["metric"]: r for r in recs if r["system"] == n}
    check(set(mine) == {"requests_per_s", "server_cpu_ns_per_request", "rtt_us", "client_busy"},
          f"{n}: its four records ({sorted(mine)})")
    reqs = mine.get("server_cpu_ns_per_request", {}).get("per", 0)
    echoed = sum(k for m, k in runs if m == n)
    check(0 < reqs <= echoed, f"{n}: its requests ({reqs}) within what it echoed ({echoed})")
    secs = mine.get("requests_per_s", {}).get("per", 0)
    check(0.4 <= secs < 0.5, f"{n}: its counted time is its two turns of 0.2 s ({secs:.3f} s)")
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)

sys.path.insert(0, os.path.join(src, "lab", "net-echo"))
sys.path.insert(0, os.path.join(src, "lab", "common"))
import bench  # noqa: E402


class Ctx:
    bin, tmp, quick = "/nonexistent/lab", "/nonexistent/tmp", False


steps = bench.plan(Ctx())
timed = [s for s in steps if "--slice" in s["cmd"]]
srvs = lambda s: [s["cmd"][i + 1] for i, a in enumerate(s["cmd"]) if a == "--srv"]  # noqa: E731
every = sorted(",".join(x for x in s if x) for s in bench.SYSTEMS)
check(len(timed) == 7 * len(bench.POINTS), f"one timed step per round and point ({len(timed)})")
check(all(sorted(srvs(s)) == every for s in timed), "every timed step names every server once")
for pt in bench.POINTS:
    firsts = [srvs(s)[0] for s in timed if s["cmd"][s["cmd"].index("--conns") + 1] == pt[0]
              and s["cmd"][s["cmd"].index("--msg-bytes") + 1] == pt[1]]
    check(len(set(firsts)) == len(firsts) == 7, f"conns {pt[0]} x {pt[1]} B: the first server rotates ({firsts})")
total = sum(float(s["est_s"]) for s in steps)
check(total <= 9.5 * 60, f"the plan's estimate about the old 9 minutes ({total:.0f} s)")
finish("ne_turns: ok")
