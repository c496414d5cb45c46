"""net-fair: is every connection served? 1,000 connections (param conns), each a closed
loop over loopback (send a request, wait for the whole answer, send the next), driven by
the lab's own client (client.c: one thread, level-triggered epoll, a byte counter per
connection; wrk has none), pinned to CPU 1, against one server pinned to CPU 0. Workload
(param workload) `echo`: 4 KiB echoed; `http`: a keep-alive GET answered with 200 and
"Hello, world!". Measured for 10 s (QUICK: 2 s) after every connection is up and 1 s
(QUICK: 0.3 s) of warm-up: jain_index (Jain's fairness index of the bytes per
connection), starved_conns (connections with nothing in a 1 s window), late_ms (a client
connecting 2 s into the measured time, QUICK 0.5 s: time to its first answer),
bytes_per_conn, requests_per_s, and the server's and client's busy shares (the run
counts when the server is the limit: records say `limit`). Servers: vigil's examples
(echo_server, http_hello) on uring, epoll and poll; the hand-written level-triggered
epoll server (kernel, epoll) and liburing server (multishot receive, provided buffers),
echoing or answering HTTP (lab/common/server_*.c), which show the client itself is fair;
nginx (one worker, `return 200`) for http, reported beside them. One run per server and
workload (about 12 s each: about 2.5 min in all; QUICK about 40 s)."""
import os
import sys

import plotting

NAME = "net-fair"
TITLE = "1,000 closed-loop connections: is every one served? (Jain's index of bytes per connection)"
SEED = ("Issue 26: under 1,000 busy connections vigil's http_hello on io_uring left 960 of them "
        "with 0 bytes in 7 s, and on poll 488; target: on every backend and workload 0 starved "
        "connections, Jain's index >= 0.9 and >= 0.95x the better hand-written server's, a late "
        "client answered within 250 ms.")

CONNS = 1000
BACKENDS = ("uring", "epoll", "poll")
PARAMS = ("workload", "conns")
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver.py")


def servers(workload):
    """(system, backend) in the order they run: hand-written first, vigil between them."""
    out = [("kernel", None), ("vigil", "uring"), ("liburing", None), ("vigil", "epoll")]
    if workload == "http":
        out.append(("nginx", None))
    out.append(("vigil", "poll"))
    return out


def plan(ctx):
    secs, warm, late = (2, 0.3, 0.5) if ctx.quick else (10, 1, 2)
    steps = []
    for wl in ("echo", "http"):
        for system, backend in servers(wl):
            cmd = [sys.executable or "/usr/bin/python3", DRIVER, "--bin", ctx.bin, "--system", system,
                   "--workload", wl, "--conns", CONNS, "--seconds", secs, "--warmup", warm, "--late-at", late,
                   "--tmp", ctx.tmp] + (["--backend", backend] if backend else [])
            steps.append(dict(cmd=cmd, label=f"{wl}: {system}{' ' + backend if backend else ''}",
                              est_s=secs + warm + 2.0))
    return steps


def _name(r):
    return r["system"] + (f" {r['backend']}" if r.get("backend") else "")


def plot(rows, ax):
    """Jain's index per server, grouped by workload; each bar labelled with its starved
    connections and late client's time."""
    jr = [r for r in rows if r.get("metric") == "jain_index"]
    if not jr:
        return
    other = {(r["metric"], _name(r), r.get("workload")): r for r in rows}
    names = []
    for r in jr:
        if _name(r) not in names:
            names.append(_name(r))
    wls = [w for w in ("echo", "http") if any(r.get("workload") == w for r in jr)]
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        for gi, wl in enumerate(wls):
            r = next((x for x in jr if _name(x) == n and x.get("workload") == wl), None)
            if not r:
                continue
            x = gi + (i - (len(names) - 1) / 2) * width
            ax.bar([x], [float(r["value"])], width, color=plotting.color(r["system"]),
                   alpha=1.0 if r["system"] != "vigil" else 0.6 + 0.4 * (BACKENDS.index(r["backend"]) / 2),
                   label=n if gi == 0 or not any(_name(y) == n and y.get("workload") == wls[0] for y in jr) else None)
            st = other.get(("starved_conns", n, wl))
            lm = other.get(("late_ms", n, wl))
            ax.text(x, float(r["value"]), f"{n}\n{st['value'] if st else '?'} starved\n"
                    f"late {float(lm['value']):.0f} ms" if lm else "", ha="center", va="bottom", fontsize=6,
                    rotation=90)
    ax.axhline(0.9, color="#d62728", lw=0.8, ls="--")
    ax.set_ylim(0, 1.6)
    ax.set_xticks(range(len(wls)))
    ax.set_xticklabels([f"{w} ({CONNS} connections)" for w in wls])
    ax.set_ylabel("Jain's index of bytes per connection (1 = fair; dashed: 0.9)")
    ax.legend(fontsize=7, ncol=3, loc="upper right")
