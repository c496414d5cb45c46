#!/usr/bin/python3
"""net-echo's instruction count (a diagnostic, not a step of the benchmark: bench.py does
not run it): one echo server under `valgrind --tool=callgrind`, net_echo_client driving
an exact number of requests at it, and the server's user-space instructions per request.
A count that load does not move: it holds while the lab's timed runs go on.

  callgrind.py --bin DIR --server PROG [--backend uring|epoll|poll] --conns N --msg-bytes M
               [--count REQUESTS] [--out FILE]

PROG is a program in DIR (echo_server, srv_liburing, srv_epoll, ...; DIR is usually
build/rel/lab). The server runs with instrumentation off; the client warms up (1 s),
lets every connection go idle and prints "warm"; instrumentation goes on
(callgrind_control -i on), the client makes --count requests and prints "done";
instrumentation goes off, the server stops on SIGINT and callgrind writes FILE. Printed:
instructions / requests, and system calls per request (callgrind's --collect-systime).
Under callgrind the server is some 50 times slower, so more requests share a turn than
in a timed run: the 1-connection point is exact (two turns a request on io_uring), the
100- and 1000-connection points count about as many requests a turn as the timed runs
do (system calls per request, printed, say how many). FILE (default
/tmp/callgrind.net-echo.<pid>) keeps the profile: `callgrind_annotate FILE` splits it by
function. Exit 77 when valgrind or a program is missing.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import netsrv  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--backend")
    ap.add_argument("--conns", type=int, required=True)
    ap.add_argument("--msg-bytes", type=int, required=True)
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--out", default=f"/tmp/callgrind.net-echo.{os.getpid()}")
    a = ap.parse_args(argv)
    server, client = os.path.join(a.bin, a.server), os.path.join(a.bin, "net_echo_client")
    for prog in (server, client):
        if not os.access(prog, os.X_OK):
            netsrv.skip(f"program {os.path.basename(prog)} not built")
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        netsrv.skip("valgrind (callgrind) is not installed")
    env = dict(os.environ)
    if a.backend:
        env["VIGIL_BACKEND"] = a.backend
    netsrv.raise_nofile(a.conns + 64)
    port = netsrv.free_port()
    srv = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-systime=yes",
                            f"--callgrind-out-file={a.out}", server, str(port)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    cl = None
    try:
        if srv.stdout.readline().strip() != "ready":
            raise RuntimeError(f"{a.server} did not start under valgrind (status {srv.wait()})")
        cl = subprocess.Popen([client, "--port", str(port), "--conns", str(a.conns), "--msg-bytes",
                               str(a.msg_bytes), "--warmup", "1", "--count", str(a.count)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if cl.stdout.readline().strip() != "warm":
            raise RuntimeError(f"net_echo_client did not warm up (status {cl.wait()})")
        subprocess.run(["callgrind_control", "-i", "on", str(srv.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cl.stdin.write("go\n")
        cl.stdin.flush()
        line = cl.stdout.readline().split()
        if len(line) != 2 or line[0] != "done":
            raise RuntimeError(f"net_echo_client failed (status {cl.wait()})")
        done = int(line[1])
        subprocess.run(["callgrind_control", "-i", "off", str(srv.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cl.stdin.write("bye\n")
        cl.stdin.flush()
        cl.wait(60)
        srv.send_signal(signal.SIGINT)
        if srv.wait(120) != 0:
            raise RuntimeError(f"{a.server} did not exit 0 on SIGINT (status {srv.returncode})")
    finally:
        for p in (cl, srv):
            if p and p.poll() is None:
                p.kill()
                p.wait()
    ir = calls = None
    with open(a.out) as f:
        for ln in f:
            if ln.startswith(("summary:", "totals:")):
                fs = ln.split()
                ir, calls = int(fs[1]), int(fs[2]) if len(fs) > 2 else 0
    if ir is None:
        raise RuntimeError(f"no totals in {a.out}")
    print(f"{a.server}{' ' + a.backend if a.backend else ''} {a.conns} x {a.msg_bytes} B: {ir / done:.1f} "
          f"instructions per request ({ir} over {done}), {calls / done:.3f} system calls per request; "
          f"profile in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
