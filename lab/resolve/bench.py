"""resolve: name lookups that do not block a loop. 10,000 distinct names (QUICK: 2,000),
h<i>.bench.test, each with one A and one AAAA record, served by a local dnsmasq started for
each run on 127.0.0.1:53 inside the run's own user, mount and network namespaces (its own
/etc/resolv.conf, nsswitch.conf `hosts: files dns` and hosts bind-mounted: drive.py); every
name asked once per run for A and AAAA (AF_UNSPEC), `inflight` lookups outstanding (1 and
100). Systems, one client program each, alternated in rounds:
  vigil    vigil_resolve, the resolver's cache off (VIGIL_RESOLVER_NO_CACHE)
  c-ares   ares_getaddrinfo, driven by its socket-state callback on epoll
  libuv    uv_getaddrinfo: glibc's getaddrinfo on libuv's thread pool (4 threads)
  glibc    getaddrinfo_a (glibc's helper threads), completions by gai_suspend
Metrics: lookups_per_s (names / wall time of the run), cpu_ns_per_lookup (user + system of
the client process, threads included; dnsmasq's CPU is not counted), latency_us (p50/p99)."""
import os
import sys

import plotting
import rounds

NAME = "resolve"
TITLE = "10,000 distinct names (A+AAAA) against a local dnsmasq, 1 and 100 lookups in flight"
SEED = ("Issue 29: a getaddrinfo() blocks its loop; libuv hands it to a 4-thread pool; c-ares is "
        "what C programs use to resolve without blocking. Target: at 100 in flight vigil >= 0.97x "
        "c-ares and >= 2x libuv lookups/s; CPU per lookup <= c-ares at 1 and 100.")
PARAMS = ("inflight",)
BUDGET_S = 31
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = sys.executable or "/usr/bin/python3"
SYSTEMS = [("vigil", "rs_vigil"), ("c-ares", "rs_cares"), ("libuv", "rs_libuv"), ("glibc", "rs_glibc")]


def plan(ctx):
    n_rounds, names = (1, 2000) if ctx.quick else (3, 10000)
    have = [s for s in SYSTEMS if os.path.exists(os.path.join(ctx.bin, s[1]))]

    def step(r, inflight, s):
        # inflight 1 runs one lookup at a time: ~50-100 us each
        est = names * (80e-6 if inflight == 1 else 15e-6) + 1.0
        return dict(cmd=[PYTHON, os.path.join(HERE, "drive.py"), "--bin", ctx.bin, "--prog", s[1],
                         "--inflight", inflight, "--names", names],
                    label=f"round {r + 1}/{n_rounds}: inflight {inflight}: {s[0]}", est_s=est)
    return rounds.alternate(n_rounds, (1, 100), have, step)


def plot(rows, ax, targets=()):
    """Lookups per second by system, one group per inflight."""
    colors = {"vigil": "#08306b", "c-ares": "#2ca02c", "libuv": "#d62728", "glibc": "#ff7f0e"}
    vals = {}
    for r in rows:
        if r.get("metric") == "lookups_per_s":
            vals[(int(r["inflight"]), r["system"])] = float(r["value"])
    systems = [s for s, _ in SYSTEMS if any(k[1] == s for k in vals)]
    w = 0.8 / max(1, len(systems))
    for si, s in enumerate(systems):
        xs, ys = [], []
        for gi, n in enumerate((1, 100)):
            if (n, s) in vals:
                xs.append(gi + si * w)
                ys.append(vals[(n, s)] / 1000)
        ax.bar(xs, ys, width=w, color=colors.get(s, "#9467bd"), label=s)
    plotting.target_marks(ax, targets, "lookups_per_s",
                          lambda t: (0 if int(t["params"].get("inflight", 0)) == 1 else 1) if t["params"].get("inflight") else None,
                          div=1000)
    ax.set_xticks([g + 0.4 - w / 2 for g in range(2)])
    ax.set_xticklabels(["inflight 1", "inflight 100"])
    ax.set_ylabel("thousand lookups/s (A+AAAA)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="x-small")
    ax.set_title("resolve: lookups per second")
