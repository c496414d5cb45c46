#!/usr/bin/python3
"""net-echo's targets read round by round (a diagnostic, not a step of the benchmark:
bench.py does not run it). A timed round of net-echo is one step in which every server
takes its turns side by side (driver.py), so the servers' figures within a round share
the machine's state; from round to round that state moves a lot (requests/s of one server
at 1000 x 64 B in 20261202T183154Z: 121k to 262k). The pooled figure of each server is
the median of its own rounds, which may come from different rounds for different
servers, so a ratio of two pooled figures carries the rounds' spread. This prints, for
each target of `../shared/targets.py net-echo` that compares vigil with other servers,
the ratio of the pooled figures (what the checker reads) beside the median of the
per-round ratios (each round's figures side by side: the paired reading) and the rounds'
range.

  paired.py RUN_LOG      (build/lab/run.log of a `make lab` run, or any file holding the
                          output of driver.py steps, each after its "$ ... driver.py" line)
"""
import json
import statistics
import sys

PEERS = ("libuv", "libevent", "libev")


def rounds_of(path):
    """[{(system, backend): {metric: value}}, point] per driver.py step, in order."""
    out, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("$ "):
                cur = None
                if "net-echo/driver.py" in line:
                    cur = [{}, None]
                    out.append(cur)
                continue
            if cur is None or not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("bench") != "net-echo" or r.get("metric") not in ("requests_per_s", "server_cpu_ns_per_request"):
                continue
            cur[1] = (r["conns"], r["msg_bytes"])
            cur[0].setdefault((r["system"], r.get("backend")), {})[r["metric"]] = r["value"]
    return [c for c in out if c[1]]


def figures(sv):
    """The figures the targets compare, from one set of servers: vigil's best CPU and
    requests/s (over its backends, as the checker takes them) and the others'."""
    def get(metric, system):
        return [v[metric] for (s, _), v in sv.items() if s == system and metric in v]
    vc, vr = get("server_cpu_ns_per_request", "vigil"), get("requests_per_s", "vigil")
    hand = get("server_cpu_ns_per_request", "kernel") + get("server_cpu_ns_per_request", "liburing")
    others = [x for s in ("kernel", "liburing") + PEERS for x in get("requests_per_s", s)]
    if not vc or not vr or len(hand) < 2 or not others:
        return None
    f = {"cpu vs the better hand-written server": min(vc) / min(hand),
         "requests/s vs the best other server": max(vr) / max(others)}
    for p in PEERS:
        pc = get("server_cpu_ns_per_request", p)
        if pc:
            f[f"cpu vs {p}"] = min(vc) / pc[0]
    return f


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    rounds = rounds_of(argv[0])
    points = sorted({pt for _, pt in rounds})
    for pt in points:
        mine = [sv for sv, p in rounds if p == pt]
        per = [f for f in (figures(sv) for sv in mine) if f]
        pooled_sv = {}
        for sv in mine:
            for k, v in sv.items():
                for m, x in v.items():
                    pooled_sv.setdefault(k, {}).setdefault(m, []).append(x)
        pooled = figures({k: {m: statistics.median(xs) for m, xs in v.items()} for k, v in pooled_sv.items()})
        if not per or not pooled:
            continue
        print(f"conns={pt[0]} bytes={pt[1]} ({len(per)} rounds)")
        for name in pooled:
            xs = sorted(f[name] for f in per if name in f)
            print(f"  {name:40s} pooled {pooled[name]:.3f}   paired median {statistics.median(xs):.3f}"
                  f"   rounds {xs[0]:.3f}-{xs[-1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
