#!/usr/bin/python3
"""One step of an echo benchmark (lab/net-echo, lab/py-echo): starts a server pinned to
CPU 0, runs net_echo_client (lab/net-echo/client.c) pinned to CPU 1 against it, stops the
server and prints the client's records.

  echodrive.py --bench NAME --bin DIR --server PROG [--server-arg=X ...] --system S --case C
               [--backend B] --conns N --msg-bytes M (--seconds S [--warmup W] | --count N)
               [--tracer auto|perf|strace]

PROG is a program in DIR (or an absolute path, e.g. a Python); the server's command line
is PROG, the --server-arg values in order, then the port (the lab's server CLI contract,
netsrv.py).

A timed step (--seconds) prints requests_per_s, server_cpu_ns_per_request, rtt_us and
client_busy (see client.c); the first two and client_busy are marked "pool": "median"
(run.py takes the median of the rounds, not their sum). A counting step (--count N)
attaches a tracer to the running server once the client's connections are up and idle,
lets the client make N requests, detaches, and prints syscalls_per_request: the server's
system calls (every thread) / N, with "calls" naming them per request and "tool" the
tracer (as total/per, median-pooled when a benchmark repeats its counting runs). The
tracer (--tracer, default auto) is `perf trace -s`, which counts from the kernel's
syscall tracepoints without stopping the server, or `strace -f -c` where perf cannot
trace (see attach()). Counting steps are never timed.
Exit 77 (skipped) when the server or the client is not built, or no tracer works.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netsrv  # noqa: E402

CLIENT = "net_echo_client"
# Per-round figures run.py pools as the median of the rounds (lab/common/rounds.py): on a
# shared VM one disturbed second moves a server's CPU per request by 20-30%.
MEDIAN_POOLED = ("requests_per_s", "server_cpu_ns_per_request", "client_busy")


def skip(why):
    print(f"skip: {why}", file=sys.stderr)
    sys.exit(77)


def keys_of(a):
    k = {"bench": a.bench, "system": a.system, "case": a.case}
    if a.backend:
        k["backend"] = a.backend
    k.update(conns=a.conns, msg_bytes=a.msg_bytes)
    return k


def run_client(client, srv, keys, conns, msg_bytes, seconds, warmup, system=None):
    """A timed run of an echo client (net_echo_client, py-tls-echo's tls_echo_client: the
    same command line) against srv; prints its records, the median-pooled ones marked.
    system: the server's name in the errors, where a step runs several."""
    p = subprocess.run([client, "--port", str(srv.port), "--conns", str(conns), "--msg-bytes", str(msg_bytes),
                        "--seconds", str(seconds), "--warmup", str(warmup), "--cpu", str(netsrv.CLIENT_CPU),
                        "--pid", str(srv.pid), "--keys", json.dumps(keys, separators=(",", ":"))[1:-1]],
                       stdout=subprocess.PIPE, text=True, timeout=seconds + warmup + 60)
    if p.returncode != 0:
        raise RuntimeError(f"{os.path.basename(client)} exited {p.returncode}" + (f" against {system}" if system else ""))
    if not srv.alive():
        raise RuntimeError(f"the {system + ' ' if system else ''}server exited during the run (status {srv.p.returncode})")
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            if rec.get("metric") in MEDIAN_POOLED:
                rec["pool"] = "median"
            line = json.dumps(rec)
        print(line, flush=True)


def timed(a, srv, client):
    run_client(client, srv, keys_of(a), a.conns, a.msg_bytes, a.seconds, a.warmup)


def strace_table(path):
    """{call: count} and the total from `strace -c` output."""
    calls, total = {}, None
    with open(path) as f:
        for line in f:
            fs = line.split()
            if len(fs) < 5 or not re.fullmatch(r"[\d.]+", fs[0]):
                continue
            name, n = fs[-1], int(fs[3])
            if name == "total":
                total = n
            else:
                calls[name] = n
    return calls, total if total is not None else sum(calls.values())


def perf_table(path):
    """{call: count} and the total from `perf trace -s` output (a table per thread, summed)."""
    calls, seen = {}, False
    with open(path) as f:
        for line in f:
            seen = seen or "Summary of events" in line
            fs = line.split()
            if len(fs) >= 8 and re.fullmatch(r"[a-z_][a-z_0-9]*", fs[0]) and fs[1].isdigit():
                calls[fs[0]] = calls.get(fs[0], 0) + int(fs[1])
    if not seen:
        raise RuntimeError(f"perf trace wrote no summary to {path}")
    return calls, sum(calls.values())


def perf_fds(pid):
    """How many perf events process PID holds open."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:[perf_event]"
        except OSError:
            pass
    return n


def perf_works():
    """Whether `perf trace` can trace a process here (perf installed, perf_event_open for
    tracepoints allowed): one short trial on /bin/true."""
    perf = shutil.which("perf")
    if not perf:
        return None
    try:
        p = subprocess.run([perf, "trace", "-s", "--", "/bin/true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return perf if p.returncode == 0 and "Summary of events" in p.stderr else None


def attach_perf(perf, pid, threads, out):
    """`perf trace -s` on every thread of PID once its events are open; None if it does
    not get there (it exits, or 10 s pass)."""
    st = subprocess.Popen([perf, "trace", "-s", "-o", out, "-p", str(pid)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 10
    while st.poll() is None and time.monotonic() < deadline:
        if perf_fds(st.pid) >= 2 * threads:  # a sys_enter and a sys_exit event per thread
            time.sleep(0.2)  # the events are enabled once all are open
            return st
        time.sleep(0.01)
    st.kill()
    st.wait()
    return None


def attach_strace(pid, threads, out):
    """`strace -f -c` on every thread of PID, once it says each is attached."""
    strace = shutil.which("strace")
    if not strace:
        skip("neither perf trace nor strace can count system calls here")
    st = subprocess.Popen([strace, "-f", "-c", "-o", out, "-p", str(pid)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    attached = 0
    while attached < threads:  # "strace: Process N attached", one line per thread
        line = st.stderr.readline()
        if not line:
            skip(f"strace cannot trace here (status {st.wait()})")
        m = re.search(r"attached with (\d+) threads", line)  # strace -p: one line for all
        if m:
            attached += int(m.group(1))
        elif "attached" in line:
            attached += 1
    time.sleep(0.05)
    return st


def attach(a, pid, out):
    """Starts the tracer on every thread of PID and returns (tracer process, tool, table
    reader) once it is attached. perf trace counts from the kernel's syscall tracepoints
    and never stops the server; strace stops it twice per call (tens of us), which slows
    every turn and so changes how many requests share one (at 1000 connections x 4 KiB a
    turn under strace held 9-40 requests from run to run, under perf trace about 40).
    strace serves where perf cannot trace (not installed, perf_event_open refused)."""
    threads = len(os.listdir(f"/proc/{pid}/task"))
    if a.tracer in ("auto", "perf"):
        perf = perf_works()
        st = attach_perf(perf, pid, threads, out) if perf else None
        if st:
            return st, "perf trace", perf_table
        if a.tracer == "perf":
            skip("perf trace cannot trace here (--tracer perf)")
        if perf:
            print(f"echodrive: perf trace did not attach to {threads} threads; strace counts", file=sys.stderr)
    return attach_strace(pid, threads, out), "strace", strace_table


def counted(a, srv, client, tmp):
    cl = subprocess.Popen([client, "--port", str(srv.port), "--conns", str(a.conns), "--msg-bytes", str(a.msg_bytes),
                           "--warmup", str(a.warmup), "--cpu", str(netsrv.CLIENT_CPU), "--count", str(a.count)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    st = None
    out = os.path.join(tmp, f"syscalls-{os.getpid()}.txt")
    try:
        if cl.stdout.readline().strip() != "warm":
            raise RuntimeError(f"{CLIENT} did not warm up (status {cl.wait()})")
        st, tool, table = attach(a, srv.pid, out)
        cl.stdin.write("go\n")
        cl.stdin.flush()
        line = cl.stdout.readline().split()
        if len(line) != 2 or line[0] != "done":
            raise RuntimeError(f"{CLIENT} failed in the counting run (status {cl.wait()})")
        done = int(line[1])
        st.send_signal(signal.SIGINT)  # detach: the tracer writes its table
        st.wait(30)
        st.stderr.close()
        st = None
        cl.stdin.write("bye\n")
        cl.stdin.flush()
        cl.wait(30)
    finally:
        for p in (st, cl):
            if p and p.poll() is None:
                p.kill()
                p.wait()
    calls, total = table(out)
    os.unlink(out)
    # total/per with "pool": "median": a benchmark that repeats its counting runs gets the
    # median run (how many requests share a turn depends on how client and server fall
    # into step, which varies from run to run)
    rec = dict(keys_of(a), metric="syscalls_per_request", value=round(total / done, 4), n=done, total=total,
               per=done, pool="median", tool=tool,
               calls=", ".join(f"{k} {v / done:.3g}" for k, v in sorted(calls.items(), key=lambda kv: -kv[1])))
    order = ["bench", "system", "case", "metric", "value", "n"]
    print(json.dumps({k: rec[k] for k in order + [k for k in rec if k not in order]}))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--bench", default="net-echo")
    ap.add_argument("--server", required=True)
    ap.add_argument("--server-arg", action="append", default=[])
    ap.add_argument("--system", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--backend")
    ap.add_argument("--conns", type=int, required=True)
    ap.add_argument("--msg-bytes", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=0.2)
    ap.add_argument("--count", type=int)
    ap.add_argument("--tmp", default="/tmp")
    ap.add_argument("--tracer", choices=("auto", "perf", "strace"), default="auto",
                    help="what counts a counting step's system calls (auto: perf trace where it works)")
    a = ap.parse_args(argv)
    server, client = os.path.join(a.bin, a.server), os.path.join(a.bin, CLIENT)  # an absolute server stays
    for prog in (server, client):
        if not os.access(prog, os.X_OK):
            skip(f"program {os.path.basename(prog)} not built")
    env = {"VIGIL_BACKEND": a.backend} if a.backend else None
    # netsrv.start: another port if one freed here is taken before the server binds it
    with netsrv.start(lambda port: [server] + a.server_arg + [port], env=env) as srv:
        if a.count:
            counted(a, srv, client, a.tmp)
        else:
            timed(a, srv, client)
        rc = srv.stop()
        if rc != 0:
            raise RuntimeError(f"{a.server} did not exit 0 on SIGINT (status {rc})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
