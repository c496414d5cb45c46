"""http-hello: `wrk -t1 -c N --latency` (pinned to CPU 1) against a one-process HTTP/1.1
server pinned to CPU 0 that answers every request with 200 and "Hello, world!\\n"
(text/plain), keep-alive: vigil's examples/http_hello and nginx (Debian's nginx-light:
one worker, `return 200`, no access log, no keep-alive request limit, in a private
prefix under the scratch folder). N = 100 and 1000 connections. Records:
requests_per_s, server_cpu_ns_per_request (every process and thread of the server,
nginx's master and worker, over wrk's whole run, connecting included), latency_us
(wrk's histogram, p50/p99) and client_busy (wrk's CPU / wall: near 1, wrk is the limit).
Rounds alternate the two servers, rotating the order; run.py pools them.

Then the memory run (memory.py): rss_kib_per_conn, the server's VmRSS with 10,000 idle
keep-alive connections open (param idle_conns; each made one request, one connection at
a time) minus the same binary and configuration with none, per connection held; vigil's
http_hello on uring, epoll and poll; nginx's worker (one worker; worker_connections and
worker_rlimit_nofile 10,064 in both runs, and beside it worker_connections 10,700, at
which nginx's drain of idle connections leaves all 10,000 open). Also under QUICK=1
(about 90 s in all, 75 of them vigil's poll backend)."""
import os
import sys

import plotting
import rounds

NAME = "http-hello"
TITLE = "HTTP/1.1 'return 200' under wrk (requests/s, server CPU ns per request)"
SEED = ("nginx's `return 200` is the reference for a small, fast HTTP server. vigil's target: "
        "examples/http_hello at least nginx's requests/s and at most its server CPU per request, "
        "at 100 and 1000 connections.")

SYSTEMS = ["vigil", "nginx"]
CONNS = (100, 1000)
PARAMS = ("conns", "idle_conns")
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver.py")
MEMORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "memory.py")
IDLE_CONNS = 10000
# (system, backend, extra arguments)
MEMORY_RUNS = [("vigil", "uring", []), ("nginx", None, []), ("vigil", "epoll", []), ("vigil", "poll", []),
               ("nginx", None, ["--worker-connections", IDLE_CONNS + 700])]


def plan(ctx):
    # wrk counts whole seconds. Seven rounds: wrk, the limit at both points, drifted by
    # up to 10% from one round to the next (98-120k requests/s for one server within a
    # minute), which three rounds could not average out.
    n_rounds, secs = (1, 1) if ctx.quick else (7, 2)
    steps = rounds.alternate(n_rounds, CONNS, SYSTEMS, lambda r, c, s: dict(
        cmd=[sys.executable or "/usr/bin/python3", DRIVER, "--bin", ctx.bin, "--system", s, "--conns", c,
             "--seconds", secs, "--tmp", ctx.tmp],
        label=f"round {r + 1}/{n_rounds}: {s} conns {c}", est_s=secs + 1.0))
    # the memory run: the same 10,000 idle connections under QUICK=1 (the figure is per
    # connection at that count): 2-4 s per server, but about 75 s on vigil's poll backend,
    # which scans every fd each turn (10,000 connections made one at a time: ~7 ms each)
    for system, backend, extra in MEMORY_RUNS:
        steps.append(dict(cmd=[sys.executable or "/usr/bin/python3", MEMORY, "--bin", ctx.bin, "--system", system,
                               "--idle-conns", IDLE_CONNS, "--tmp", ctx.tmp] + (["--backend", backend] if backend else [])
                          + extra,
                          label=f"memory: {system}{' ' + backend if backend else ''} {IDLE_CONNS} idle connections"
                          + (" (worker_connections " + str(extra[-1]) + ")" if extra else ""),
                          est_s=75.0 if backend == "poll" else 4.0))
    return steps


def plot(rows, ax):
    rps = [r for r in rows if r.get("metric") == "requests_per_s"]
    cpu = {(r["system"], int(r["conns"])): float(r["value"]) for r in rows
           if r.get("metric") == "server_cpu_ns_per_request"}
    if not rps:
        return
    width = 0.38
    for i, s in enumerate(SYSTEMS):
        pts = sorted((int(r["conns"]), float(r["value"])) for r in rps if r["system"] == s)
        if not pts:
            continue
        xs = [CONNS.index(c) + (i - 0.5) * width for c, _ in pts if c in CONNS]
        ys = [v / 1e3 for c, v in pts if c in CONNS]
        ax.bar(xs, ys, width, color=plotting.color(s), label=s)
        for x, (c, v) in zip(xs, pts):
            ns = cpu.get((s, c))
            ax.text(x, v / 1e3, f"{v / 1e3:.1f}k" + (f"\n{ns / 1e3:.1f} us CPU" if ns else ""), ha="center",
                    va="bottom", fontsize=7)
    ax.set_ylim(0, max(float(r["value"]) for r in rps) / 1e3 * 1.15)  # room for the labels
    ax.set_xticks(range(len(CONNS)))
    ax.set_xticklabels([f"{c} connections" for c in CONNS])
    ax.set_ylabel("requests/s, thousands (label: server CPU per request)")
    ax.legend(fontsize=8)
    mem = [r for r in rows if r.get("metric") == "rss_kib_per_conn"]
    if mem:  # the memory run, as a note in the corner
        txt = "RSS per idle connection (10,000):\n" + "\n".join(
            f"{r['system']}{' ' + r['backend'] if r.get('backend') else ''}"
            f"{' wc ' + r['case'].split()[-1] if 'worker_connections' in r.get('case', '') else ''}: "
            f"{float(r['value']):.2f} KiB" for r in mem)
        ax.text(0.01, 0.99, txt, transform=ax.transAxes, va="top", ha="left", fontsize=7,
                bbox=dict(facecolor="white", alpha=0.8, lw=0))
