#!/usr/bin/python3
"""net-echo's io_uring_enter calls, one by one (a diagnostic, not a step of the benchmark:
bench.py does not run it). The counting steps (echodrive.py --count) give one figure,
system calls per request; this splits an io_uring server's enters by what they ask
(flags, min_complete), with the SQEs each submits and how long each took, so that a
count can be read: for vigil, a turn's wait (flags 1, min_complete 1: GETEVENTS) against
the fairness drain of src/net/uring.c taskrun_rest (flags 9: GETEVENTS | EXT_ARG, a zero
timeout, min_complete > 1). A server makes one turn's enter per batch of requests, so
requests per enter is how many requests shared a turn: about 40 when the server lags
(the kernel runs at most 20 deferred completions at each of its two points in an enter)
and fewer when the server keeps up with the client and sleeps between arrivals.

  enters.py --bin DIR --server PROG [--backend uring] --conns N --msg-bytes M [--count R]

PROG is a program in DIR (echo_server, srv_liburing; DIR is usually build/rel/lab). The
client (net_echo_client) warms up, `perf trace -e io_uring_enter` attaches to the server,
the client makes R requests (default 30 per connection, at least 3,000, as the counting
steps), and the trace is summed. Exit 77 when perf trace cannot trace here.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import netsrv  # noqa: E402

LINE = re.compile(r"\(\s*([\d.]+) ms\): .*io_uring_enter\(.*to_submit: (\d+), min_complete: (\d+), flags: (\w+).*\)\s+= (-?\d+)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--backend")
    ap.add_argument("--conns", type=int, required=True)
    ap.add_argument("--msg-bytes", type=int, required=True)
    ap.add_argument("--count", type=int)
    a = ap.parse_args(argv)
    count = a.count or max(3000, 30 * a.conns)
    server, client = os.path.join(a.bin, a.server), os.path.join(a.bin, "net_echo_client")
    for prog in (server, client):
        if not os.access(prog, os.X_OK):
            netsrv.skip(f"program {os.path.basename(prog)} not built")
    perf = shutil.which("perf")
    if not perf:
        netsrv.skip("perf is not installed")
    env = {"VIGIL_BACKEND": a.backend} if a.backend else None
    netsrv.raise_nofile(a.conns + 64)
    out = tempfile.NamedTemporaryFile(prefix="enters.", suffix=".txt", delete=False).name
    done = 0
    with netsrv.start(lambda port: [server, port], env=env, nofile=a.conns + 64) as srv:
        cl = subprocess.Popen([client, "--port", str(srv.port), "--conns", str(a.conns), "--msg-bytes", str(a.msg_bytes),
                               "--warmup", "0.2", "--cpu", str(netsrv.CLIENT_CPU), "--count", str(count)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        st = None
        try:
            if cl.stdout.readline().strip() != "warm":
                raise RuntimeError(f"net_echo_client did not warm up (status {cl.wait()})")
            st = subprocess.Popen([perf, "trace", "-e", "io_uring_enter", "-o", out, "-p", str(srv.pid)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)  # perf opens its events (echodrive.py waits for them; a second does here)
            if st.poll() is not None:
                netsrv.skip(f"perf trace cannot trace here (status {st.returncode})")
            cl.stdin.write("go\n")
            cl.stdin.flush()
            line = cl.stdout.readline().split()
            if len(line) != 2 or line[0] != "done":
                raise RuntimeError(f"net_echo_client failed (status {cl.wait()})")
            done = int(line[1])
            st.send_signal(2)
            st.wait(30)
            st = None
            cl.stdin.write("bye\n")
            cl.stdin.flush()
            cl.wait(30)
        finally:
            for p in (st, cl):
                if p and p.poll() is None:
                    p.kill()
                    p.wait()
    kinds = collections.defaultdict(lambda: {"n": 0, "sub": 0, "us": []})
    with open(out) as f:
        for ln in f:
            m = LINE.search(ln)
            if not m:
                continue
            ms, sub, mc, fl = float(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
            k = kinds[f"flags {fl}, min_complete {'>1' if int(mc) > 1 else mc}"]
            k["n"] += 1
            k["sub"] += sub
            k["us"].append(ms * 1000)
    os.unlink(out)
    total = sum(k["n"] for k in kinds.values())
    print(f"{a.server}{' ' + a.backend if a.backend else ''} {a.conns} x {a.msg_bytes} B: {total} io_uring_enter over "
          f"{done} requests = {total / done if done else 0:.4f} per request")
    for name, k in sorted(kinds.items(), key=lambda kv: -kv[1]["n"]):
        us = sorted(k["us"])
        print(f"  {name:28s} {k['n']:6d} ({k['n'] / done:.4f} per request), {k['sub'] / k['n']:.1f} SQEs each, "
              f"{us[len(us) // 2]:.0f} us p50 under the tracer")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
