"""vigil's own claims, checked by the lab on its records (lab/README.md, "The claims").

Each Claim says what vigil claims against a peer (or an absolute bound), which records
of results.jsonl hold the two figures (Records: bench, system, case, metric, backend,
parameters, and which statistic), the threshold, and the seed patch's figure it
reproduces where there is one. run.py prints the verdicts after a run and report.py
shows them in report.html; both call check(rows) below, so a clone without anything
beside the repository gets the same verdicts.

A verdict is "holds", "falls short" (both figures measured, the comparison fails) or
"not measured" (a figure's records are missing: never counted as holding).

The issues' checker (../shared/targets.py, beside the repository) sets the same targets
for its own use; tests/lab/claims_targets.py checks that the two read the same
benchmarks, systems and metrics. Benchmarks the lab does not have yet (none today) add their
claims here with their folders.

  python3 lab/claims.py [results.jsonl] [bench ...]
prints the verdicts on the benchmarks named, or on those the records have (default
build/lab/results.jsonl); exit 1 when a claim falls short.
"""
import json
import os
import sys
from dataclasses import dataclass, field

HOLDS, SHORT, MISSING = "holds", "falls short", "not measured"


def higher_is_better(metric):
    """The lab contract's rule: lower is better except rates (`*_per_s`), IOPS and Jain's
    fairness index."""
    return str(metric).endswith("_per_s") or metric in ("iops", "jain_index")


def same(a, b):
    """Parameter equality: 100 == "100" == 100.0; other values compare as strings."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


@dataclass(frozen=True)
class Records:
    """The records one figure is read from, and how.

    system, metric, backend: equal; case: a lower-case substring of the record's case
    (not_case: a substring it must not have); params: (key, value) pairs that must be
    equal. key: the statistic read ("value", "p50", "p99"; p50 falls back to value).
    agg: how the matching records make one figure: "min", "max" or "sum"; None takes the
    best one (max when higher is better, else min)."""
    bench: str
    system: str
    metric: str
    case: str = None
    not_case: str = None
    backend: str = None
    params: tuple = ()
    key: str = "value"
    agg: str = None

    def matches(self, r):
        if r.get("bench") != self.bench or r.get("system") != self.system or r.get("metric") != self.metric:
            return False
        case = str(r.get("case", "")).lower()
        if self.case and self.case.lower() not in case:
            return False
        if self.not_case and self.not_case.lower() in case:
            return False
        if self.backend and r.get("backend") != self.backend:
            return False
        return all(k in r and same(r[k], v) for k, v in self.params)

    def stat(self, r):
        v = r.get(self.key, r.get("value") if self.key == "p50" else None)
        return None if v is None else float(v)

    def figure(self, rows):
        """(figure, the records it came from); (None, []) when nothing matches."""
        got = [(self.stat(r), r) for r in rows if self.matches(r)]
        got = [g for g in got if g[0] is not None]
        if not got:
            return None, []
        agg = self.agg or ("max" if higher_is_better(self.metric) else "min")
        if agg == "sum":
            return sum(v for v, _ in got), [r for _, r in got]
        v, r = (max if agg == "max" else min)(got, key=lambda g: g[0])
        return v, [r]

    def label(self):
        s = self.system + (f" {self.backend}" if self.backend else "")
        if self.case:
            s += f" ({self.case})"
        return s


OPS = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}


@dataclass(frozen=True)
class Compare:
    """mine OP factor x ref + plus, where ref is the best of `ref` (every one must be
    measured), at least `floor`; or mine OP value when there is no ref. absolute:
    compare |mine| with |ref| (a signed error)."""
    mine: Records
    op: str
    ref: tuple = ()
    factor: float = 1.0
    plus: float = 0.0
    value: float = None
    floor: float = None
    absolute: bool = False

    def threshold(self, rows):
        """(threshold, reference figure, its records) or (None, None, [])."""
        if not self.ref:
            return self.value, None, []
        figs = [r.figure(rows) for r in self.ref]
        if any(f[0] is None for f in figs):
            return None, None, []
        vals = [abs(f[0]) if self.absolute else f[0] for f in figs]
        pick = max if higher_is_better(self.ref[0].metric) else min
        i = vals.index(pick(vals))
        ref = vals[i] if self.floor is None else max(vals[i], self.floor)
        return self.factor * ref + self.plus, ref, figs[i][1]

    def evaluate(self, rows):
        mine, mrows = self.mine.figure(rows)
        thr, ref, rrows = self.threshold(rows)
        if mine is None or thr is None:
            return MISSING, mine, thr, ref, mrows, rrows
        m = abs(mine) if self.absolute else mine
        return (HOLDS if OPS[self.op](m, thr) else SHORT), mine, thr, ref, mrows, rrows


@dataclass(frozen=True)
class Claim:
    """One claim: `text` in words, `test` the comparison; `also`: further comparisons that
    must hold too; `each`: keys grouping vigil's records (the claim holds when one group,
    e.g. one engine, passes every comparison); `seed`: the seed figure it reproduces."""
    text: str
    test: Compare
    also: tuple = ()
    each: tuple = ()
    seed: str = None

    @property
    def bench(self):
        return self.test.mine.bench

    def systems(self):
        return [self.test.mine.label()] + [r.label() for r in self.test.ref]


@dataclass
class Verdict:
    claim: Claim
    state: str
    mine: float = None
    threshold: float = None
    ref: float = None
    mine_rows: list = field(default_factory=list)
    ref_rows: list = field(default_factory=list)
    missing: list = field(default_factory=list)  # the figures with no records (labels)

    @property
    def ratio(self):
        """mine / reference figure (the claim's factor is its bound), or None."""
        if self.mine is None or not self.ref:
            return None
        return (abs(self.mine) if self.claim.test.absolute else self.mine) / self.ref


# ---------------------------------------------------------------- the claims

SEED_2006 = "2006, select/poll small fd sets on the stack: select of 1 pty fd ~13% faster"
SEED_2012 = "2012, mqueue rbtree + node cache: empty-queue send/receive 310/322 ns; queue-full cases faster"
SEED_2015 = "2015, epoll_ctl_batch + epoll_pwait1: QEMU latency at 10-200 fds stays flat (37/49/83 us -> 36/37/47 us)"
SEED_2011 = "2011, aio kiocbs allocated in batches: less lock time per request with 32 iocbs per call"
SEED_2008 = "2008, select/poll on hrtimers: 1200 us asked, 1997 us got -> ~4 us error"
PEERS = ("libuv", "libev", "libevent")
NET_POINTS = [(c, m) for c in (1, 100, 1000) for m in (64, 4096)]
BACKENDS = ("uring", "epoll", "poll")


def R(bench, system, metric, case=None, key="value", agg=None, not_case=None, backend=None, **params):
    return Records(bench, system, metric, case, not_case, backend, tuple(sorted(params.items())), key, agg)


def C(text, mine, op, ref=(), factor=1.0, seed=None, also=(), each=(), **kw):
    ref = (ref,) if isinstance(ref, Records) else tuple(ref)
    return Claim(text, Compare(mine, op, ref, factor, **kw), tuple(also), tuple(each), seed)


def _smallset():
    b, m = "smallset", "ns_per_turn"
    v = R(b, "vigil", m, backend="epoll")
    k = R(b, "kernel", m, case="epoll")
    out = [C("a non-blocking turn on epoll costs at most 1.10x a raw epoll_wait(..., 0)", v, "<=", k, 1.10, SEED_2006)]
    out += [C(f"a non-blocking turn on epoll costs less than {p}'s", v, "<", R(b, p, m), seed=SEED_2006) for p in PEERS]
    out.append(C("an idle non-blocking turn on io_uring costs at most 0.2x a raw epoll_wait (no system call)",
                 R(b, "vigil", m, backend="uring"), "<=", k, 0.2, SEED_2006))
    return out


def _iteration():
    b, m = "iteration", "ns_per_turn"
    return [C(f"fds={n} active={a}: a turn costs no more than the fastest of libuv, libev and libevent",
              R(b, "vigil", m, fds=n, active=a), "<=", [R(b, p, m, fds=n, active=a) for p in PEERS])
            for n in (100, 1000, 10000) for a in (1, 100)]


def _ctl_batch():
    b, m = "ctl-batch", "ns_per_change"
    v = R(b, "vigil", m, backend="uring", changes=32)
    return [
        C("32 interest changes cost at most 1.05x a hand-written linked liburing batch (same stop-at-first-error semantics)",
          v, "<=", R(b, "liburing", m, case="linked", not_case="unlinked", changes=32), 1.05, SEED_2015),
        C("32 interest changes cost at most 1.05x 32 epoll_ctl calls", v, "<=", R(b, "kernel", m, changes=32), 1.05, SEED_2015),
        C("32 interest changes make one system call", R(b, "vigil", "syscalls_per_batch", backend="uring", agg="max", changes=32),
          "<=", value=1.0, seed=SEED_2015),
    ]


def _qemu_loop():
    b, m = "qemu-loop", "ns_per_turn"
    out = [C(f"fds={n}: a QEMU-shaped turn costs at most 0.8x the better of ppoll and epoll", R(b, "vigil", m, fds=n), "<=",
             [R(b, "kernel", m, case="ppoll", fds=n), R(b, "kernel", m, case="epoll", fds=n)], 0.8, SEED_2015)
           for n in (15, 85, 200)]
    out.append(C("the turn stays flat: at 200 fds at most 1.2x its cost at 15", R(b, "vigil", m, fds=200), "<=",
                 R(b, "vigil", m, fds=15), 1.2, SEED_2015))
    out += [C(f"fds={n}: one system call per turn on io_uring", R(b, "vigil", "syscalls_per_turn", backend="uring", agg="max", fds=n),
              "<=", value=1.05, seed=SEED_2015) for n in (15, 85, 200)]
    return out


def _timer_error():
    b, m = "timer-error", "error_us"
    pw = dict(case="pwait2 slack 1ns")
    out = [C("precise mode: p50 error at most 1 us at every delay (worst backend)",
             R(b, "vigil", m, case="precise", key="p50", agg="max"), "<=", value=1.0, seed=SEED_2008)]
    for d in (10, 50, 100, 500, 1200, 1999, 2000):
        x = 0.5 if d >= 1000 else 1.0
        out.append(C(f"delay {d} us: precise p99 (worst backend) at most {x}x epoll_pwait2's (1 ns slack)",
                     R(b, "vigil", m, case="precise", key="p99", agg="max", delay_us=d), "<=",
                     R(b, "kernel", m, key="p99", delay_us=d, **pw), x, SEED_2008))
        if d >= 500:
            out.append(C(f"delay {d} us: precise CPU per wake-up at most 4x epoll_pwait2's (1 ns slack)",
                         R(b, "vigil", "cpu_ns_per_wakeup", case="precise", agg="max", delay_us=d), "<=",
                         R(b, "kernel", "cpu_ns_per_wakeup", delay_us=d, **pw), 4.0, SEED_2008))
    out.append(C("no timer ever wakes early", R(b, "vigil", "early_count", agg="sum"), "<=", value=0, seed=SEED_2008))
    for d in (1, 10, 50, 100, 500, 1200, 1999, 2000):
        v = R(b, "vigil", m, not_case="precise", key="p50", delay_us=d)
        out.append(C(f"delay {d} us: default mode p50 at most 1.2x epoll_pwait2's (1 ns slack, at least 0.5 us)", v, "<=",
                     R(b, "kernel", m, key="p50", delay_us=d, **pw), 1.2, SEED_2008, floor=0.5))
        if d < 2000:
            out += [C(f"delay {d} us: default mode p50 below {p}'s", v, "<", R(b, p, m, key="p50", delay_us=d), seed=SEED_2008)
                    for p in PEERS]
    return out


def _mq_empty():
    b, m = "mq-empty", "ns_per_op"
    v = R(b, "vigil", m, case="pair")
    return [
        C("a send+receive pair on an empty queue costs at most 0.08x the kernel's", v, "<=", R(b, "kernel", m, case="pair"), 0.08, SEED_2012),
        C("a send+receive pair on an empty queue costs no more than Boost.Interprocess's", v, "<=", R(b, "boost", m, case="pair"),
          seed=SEED_2012),
        C("the kernel's mq program under the preload library costs at most 1.2x vigil's own",
          R(b, "vigil-preload", m, case="pair"), "<=", v, 1.2, SEED_2012),
    ]


def _mq_full():
    b, m = "mq-full", "ns_per_op"
    out = []
    for pat in ("constant", "rising", "falling", "random"):
        for depth in (1024, 4096, 65536):
            v = R(b, "vigil", m, pattern=pat, depth=depth)
            out.append(C(f"{pat} priorities at depth {depth}: no more than Boost.Interprocess", v, "<=",
                         R(b, "boost", m, pattern=pat, depth=depth), seed=SEED_2012))
            if depth < 65536:
                out.append(C(f"{pat} priorities at depth {depth}: at most 0.2x the kernel", v, "<=",
                             R(b, "kernel", m, pattern=pat, depth=depth), 0.2, SEED_2012))
    return out


def _mq_pingpong():
    b, m = "mq-pingpong", "rtt_us"
    out = []
    for key, x in (("p50", 0.5), ("p99", 1.0)):
        out.append(C(f"16-byte round trip {key} at most {x}x the better of the kernel and Boost",
                     R(b, "vigil", m, key=key, msg_bytes=16), "<=",
                     [R(b, "kernel", m, key=key, msg_bytes=16), R(b, "boost", m, key=key, msg_bytes=16)], x, SEED_2012))
    return out


def _file_batch():
    b = "file-batch"
    out = []
    for f in ("unwritten", "cached"):
        for n in (1, 8, 32):
            at = dict(file=f, batch=n)
            out.append(C(f"{f} file, batch {n}: the io_uring engine reaches at least 0.95x hand-written liburing's IOPS",
                         R(b, "vigil", "iops", engine="uring", **at), ">=", R(b, "liburing", "iops", **at), 0.95, SEED_2011))
            out.append(C(f"{f} file, batch {n}: the io_uring engine's CPU per I/O at most 1.05x liburing's",
                         R(b, "vigil", "cpu_ns_per_io", engine="uring", **at), "<=", R(b, "liburing", "cpu_ns_per_io", **at),
                         1.05, SEED_2011))
    at = dict(file="unwritten", batch=32)
    out.append(C("unwritten file, batch 32: the best engine reaches the IOPS of the faster of libaio and liburing",
                 R(b, "vigil", "iops", **at), ">=", [R(b, "libaio", "iops", **at), R(b, "liburing", "iops", **at)], seed=SEED_2011))
    at = dict(file="cached", batch=32)
    out.append(C("cached file, batch 32: one engine reaches 1.3x libuv's IOPS at no more than 0.5x its CPU per I/O",
                 R(b, "vigil", "iops", **at), ">=", R(b, "libuv", "iops", **at), 1.3, SEED_2011, each=("engine", "case"),
                 also=[Compare(R(b, "vigil", "cpu_ns_per_io", **at), "<=", (R(b, "libuv", "cpu_ns_per_io", **at),), 0.5)]))
    return out


def _mq_lowrate():
    b, m = "mq-lowrate", "cpu_ns_per_msg"
    return [C(f"gap {g} us: a waiting receiver's CPU per message at most 1.1x the kernel's",
              R(b, "vigil", m, agg="max", gap_us=g), "<=", R(b, "kernel", m, gap_us=g), 1.1) for g in (50, 200, 1000, 10000)]


def _fs_watch():
    b = "fs-watch"
    return [C("recursive watching of 1,000 directories loses no event of the paced script",
              R(b, "vigil", "lost_events", agg="sum"), "<=", value=0),
            C("CPU per event at most 1.2x the raw inotify floor's",
              R(b, "vigil", "cpu_ns_per_event"), "<=", R(b, "kernel", "cpu_ns_per_event"), 1.2)]


def _net_echo():
    b, cpu, rps = "net-echo", "server_cpu_ns_per_request", "requests_per_s"
    out = []
    for c, m in NET_POINTS:
        at = dict(conns=c, msg_bytes=m)
        where = f"{c} conn{'s' if c > 1 else ''} x {m} B"
        v = R(b, "vigil", cpu, **at)
        hand_x, peer_x = (1.06, 1.03) if c == 1 else (1.03, 1.0)
        out.append(C(f"{where}: server CPU per request at most {hand_x}x the better hand-written server (epoll, liburing)",
                     v, "<=", [R(b, "kernel", cpu, case="epoll", **at), R(b, "liburing", cpu, **at)], hand_x))
        for p in ("libuv", "libevent", "libev"):
            if c == 1:
                out.append(C(f"{where}: server CPU per request at most {peer_x}x {p}'s", v, "<=", R(b, p, cpu, **at), peer_x))
            else:
                out.append(C(f"{where}: server CPU per request below {p}'s", v, "<", R(b, p, cpu, **at)))
        out.append(C(f"{where}: requests/s at least 0.97x the best other server", R(b, "vigil", rps, **at), ">=",
                     [R(b, s, rps, **at) for s in ("kernel", "liburing", "libuv", "libevent", "libev")], 0.97))
        if c >= 100:
            out.append(C(f"{where}: on io_uring at most liburing's system calls per request + 0.02",
                         R(b, "vigil", "syscalls_per_request", backend="uring", **at), "<=",
                         R(b, "liburing", "syscalls_per_request", **at), plus=0.02))
    return out


def _http_hello():
    b = "http-hello"
    out = []
    for c in (100, 1000):
        out.append(C(f"{c} connections: requests/s at least nginx's", R(b, "vigil", "requests_per_s", conns=c), ">=",
                     R(b, "nginx", "requests_per_s", conns=c)))
        out.append(C(f"{c} connections: server CPU per request at most nginx's", R(b, "vigil", "server_cpu_ns_per_request", conns=c),
                     "<=", R(b, "nginx", "server_cpu_ns_per_request", conns=c)))
    return out


def _http_memory():  # an http-hello run of its own: 10,000 idle keep-alive connections
    b, m = "http-hello", "rss_kib_per_conn"
    return [C(f"http-memory, {be}: 10,000 idle keep-alive connections cost at most 1.25x nginx's RSS per connection",
              R(b, "vigil", m, backend=be, agg="max", idle_conns=10000), "<=", R(b, "nginx", m, idle_conns=10000), 1.25)
            for be in BACKENDS]


def _net_fair():
    b = "net-fair"
    out = []
    for w in ("echo", "http"):
        at = dict(workload=w, conns=1000)
        for be in BACKENDS:
            where = f"{w}, {be}, 1000 connections"
            out.append(C(f"{where}: no connection starved", R(b, "vigil", "starved_conns", backend=be, agg="max", **at),
                         "<=", value=0))
            jain = R(b, "vigil", "jain_index", backend=be, agg="min", **at)
            out.append(C(f"{where}: Jain's fairness index at least 0.9 and 0.95x the better hand-written server's", jain, ">=",
                         [R(b, "kernel", "jain_index", **at), R(b, "liburing", "jain_index", **at)], 0.95,
                         also=[Compare(jain, ">=", value=0.9)]))
            out.append(C(f"{where}: a late client is answered within 250 ms", R(b, "vigil", "late_ms", backend=be, agg="max", **at),
                         "<", value=250))
    return out


def _fs_ops():
    """Issue 28's fs-ops: vigil's best engine against the faster of libuv (its default
    pool, threads=4) and hand-written liburing (libuv alone for readdir: io_uring has no
    getdents), and its CPU per operation against libuv's. The checker reads the CPU of the
    engine with the most ops/s; a claim reads one figure per side, so this one reads
    vigil's lowest CPU per operation (the report shows each engine's)."""
    b = "fs-ops"
    out = []
    for op in ("create", "stat", "read", "rename", "unlink", "readdir"):
        for n in (1, 64):
            at = dict(op=op, inflight=n)
            peers = [R(b, "libuv", "ops_per_s", threads=4, **at)] + ([R(b, "liburing", "ops_per_s", **at)] if op != "readdir" else [])
            out.append(C(f"{op}, {n} in flight: the best engine reaches 0.95x the ops/s of the faster of libuv (default pool)"
                         + (" and liburing" if op != "readdir" else ""), R(b, "vigil", "ops_per_s", **at), ">=", peers, 0.95))
            out.append(C(f"{op}, {n} in flight: CPU per operation at most libuv's (default pool)",
                         R(b, "vigil", "cpu_ns_per_op", **at), "<=", R(b, "libuv", "cpu_ns_per_op", threads=4, **at)))
    return out


def _py_echo():
    b, cpu, rps = "py-echo", "server_cpu_ns_per_request", "requests_per_s"
    out = []
    for way in ("protocol", "sock", "streams"):
        for c, m in NET_POINTS:
            at = dict(conns=c, msg_bytes=m)
            where = f"{way}, {c} conn{'s' if c > 1 else ''} x {m} B"
            vc = R(b, "vigil", cpu, case=way, **at)
            if c == 1:
                out += [C(f"{where}: server CPU per request at most {p}'s", vc, "<=", R(b, p, cpu, case=way, **at))
                        for p in ("uvloop", "rloop")]
            else:
                out += [C(f"{where}: requests/s at least 0.97x {p}'s", R(b, "vigil", rps, case=way, **at), ">=",
                          R(b, p, rps, case=way, **at), 0.97) for p in ("uvloop", "rloop")]
            if way != "streams" and c >= 100:
                out.append(C(f"{where}: server CPU per request at most 0.9x uvloop's", vc, "<=",
                             R(b, "uvloop", cpu, case=way, **at), 0.9))
    for m in (64, 4096):
        at = dict(conns=100, msg_bytes=m)
        out.append(C(f"protocol, 100 conns x {m} B: requests/s at least 3x asyncio's default loop",
                     R(b, "vigil", rps, case="protocol", **at), ">=", R(b, "asyncio", rps, case="protocol", **at), 3.0))
        for c in (100, 1000):
            at = dict(conns=c, msg_bytes=m)
            out.append(C(f"protocol, {c} conns x {m} B: on io_uring fewer system calls per request than uvloop",
                         R(b, "vigil", "syscalls_per_request", case="protocol", backend="uring", **at), "<",
                         R(b, "uvloop", "syscalls_per_request", case="protocol", **at)))
    return out


def _py_timers():
    b, m = "py-timers", "error_us"
    out = [C(f"call_later({d} us): |p50 error| below {p}'s", R(b, "vigil", m, key="p50", delay_us=d), "<",
             R(b, p, m, key="p50", delay_us=d), seed=SEED_2008, absolute=True)
           for d in (1, 100, 1000) for p in ("asyncio", "uvloop")]
    out.append(C("no call_later callback ever runs early", R(b, "vigil", "early_count", agg="sum"), "<=", value=0, seed=SEED_2008))
    return out


def _spawn():
    b, sps, cpu = "spawn", "spawns_per_s", "cpu_ns_per_spawn"
    out = []
    for n in (1, 32):
        for mb in (16, 1024):
            at = dict(inflight=n, parent_rss_mb=mb)
            where = f"{n} in flight, parent at {mb} MiB"
            out.append(C(f"{where}: spawns/s at least 0.95x posix_spawn + pidfd_open + epoll's",
                         R(b, "vigil", sps, **at), ">=", R(b, "kernel", sps, case="posix_spawn", **at), 0.95))
            out.append(C(f"{where}: spawns/s at least libuv's (uv_spawn)", R(b, "vigil", sps, **at), ">=",
                         R(b, "libuv", sps, **at)))
        big = R(b, "vigil", cpu, inflight=n, parent_rss_mb=1024)
        out.append(C(f"{n} in flight: CPU per spawn at 1 GiB within 1.2x of its own at 16 MiB (flat in the parent's memory)",
                     big, "<=", R(b, "vigil", cpu, inflight=n, parent_rss_mb=16), 1.2))
        out.append(C(f"{n} in flight, parent at 1 GiB: CPU per spawn below fork + exec's", big, "<",
                     R(b, "kernel", cpu, case="fork", inflight=n, parent_rss_mb=1024)))
    return out


def _work_queue():
    b = "work-queue"
    return [C("empty jobs, 64 in flight: jobs/s at least 1.2x libuv's uv_queue_work",
              R(b, "vigil", "jobs_per_s", not_case="mixed", inflight=64), ">=",
              R(b, "libuv", "jobs_per_s", not_case="mixed", inflight=64), 1.2),
            C("mixed (8 jobs sleeping 100 ms always in flight): short jobs' p99 round trip under 1 ms, "
              "slow jobs marked or not", R(b, "vigil", "rtt_us", case="mixed", key="p99", agg="max"), "<", value=1000)]


def _resolve():
    b, lk, cpu = "resolve", "lookups_per_s", "cpu_ns_per_lookup"
    return [
        C("inflight=100: lookups/s (A+AAAA) at least 0.97x c-ares's", R(b, "vigil", lk, inflight=100), ">=",
          R(b, "c-ares", lk, inflight=100), 0.97),
        C("inflight=100: lookups/s at least 2x libuv's (getaddrinfo on its thread pool)", R(b, "vigil", lk, inflight=100),
          ">=", R(b, "libuv", lk, inflight=100), 2.0),
    ] + [C(f"inflight={n}: CPU per lookup at most c-ares's", R(b, "vigil", cpu, inflight=n), "<=",
           R(b, "c-ares", cpu, inflight=n)) for n in (1, 100)]


def _https_hello():
    b = "https-hello"
    out = []
    for c in (100, 1000):
        ka = dict(not_case="handshake", conns=c)
        out.append(C(f"TLS 1.3 keep-alive, {c} connections: requests/s at least 0.97x nginx's",
                     R(b, "vigil", "requests_per_s", **ka), ">=", R(b, "nginx", "requests_per_s", **ka), 0.97))
        out.append(C(f"TLS 1.3 keep-alive, {c} connections: server CPU per request at most nginx's",
                     R(b, "vigil", "server_cpu_ns_per_request", **ka), "<=",
                     R(b, "nginx", "server_cpu_ns_per_request", **ka)))
    out.append(C("a full handshake per request, 100 connections: handshakes/s at least 0.95x nginx's",
                 R(b, "vigil", "handshakes_per_s", case="handshake full", conns=100), ">=",
                 R(b, "nginx", "handshakes_per_s", case="handshake full", conns=100), 0.95))
    return out


def _py_files():
    """Issue 30's py-files: vigil's file API against aiofiles and anyio (both on asyncio's
    default loop), 64 in flight. The checker reads the CPU of the backend with the most
    ops/s; a claim reads one figure per side, so this one reads vigil's lowest CPU per
    operation (the report shows each backend's)."""
    b, ops, cpu = "py-files", "ops_per_s", "cpu_ns_per_op"
    out = []
    for op in ("read", "write", "stat"):
        at = dict(op=op, inflight=64)
        out.append(C(f"{op}, 64 in flight: ops/s at least 3x the faster of aiofiles and anyio",
                     R(b, "vigil", ops, **at), ">=", [R(b, "aiofiles", ops, **at), R(b, "anyio", ops, **at)], 3.0))
        out.append(C(f"{op}, 64 in flight: CPU per operation at most 0.5x the lower of aiofiles' and anyio's",
                     R(b, "vigil", cpu, **at), "<=", [R(b, "aiofiles", cpu, **at), R(b, "anyio", cpu, **at)], 0.5))
    return out


def _py_http():
    """Issue 30's py-http: vigil's loop (its best backend) under aiohttp and under uvicorn
    (httptools) against uvloop and rloop. The checker reads the CPU per request of vigil's
    backend with the most requests/s; a claim reads one figure per side, so the CPU claim
    reads vigil's lowest (the report shows each backend's)."""
    b, cpu, rps = "py-http", "server_cpu_ns_per_request", "requests_per_s"
    out = []
    for fw in ("aiohttp", "uvicorn"):
        for c in (100, 1000):
            keep = dict(case=fw, not_case="churn", conns=c)
            out += [C(f"{fw}, {c} keep-alive connections: requests/s at least 0.97x {p}'s", R(b, "vigil", rps, **keep),
                      ">=", R(b, p, rps, **keep), 0.97) for p in ("uvloop", "rloop")]
            out.append(C(f"{fw}, {c} keep-alive connections: server CPU per request at most uvloop's",
                         R(b, "vigil", cpu, **keep), "<=", R(b, "uvloop", cpu, **keep)))
        churn = dict(case=f"{fw} churn", conns=100)
        out.append(C(f"{fw}, a new connection per request (100 at a time): requests/s at least 0.97x uvloop's",
                     R(b, "vigil", rps, **churn), ">=", R(b, "uvloop", rps, **churn), 0.97))
    return out


def _py_tls_echo():
    """Issue 30's py-tls-echo: asyncio protocols over TLS 1.3 (create_server(ssl=...)),
    vigil's loop (its best backend) against uvloop; the CPU claim reads vigil's lowest
    CPU per request (the checker: that of its backend with the most requests/s)."""
    b, cpu, rps = "py-tls-echo", "server_cpu_ns_per_request", "requests_per_s"
    out = []
    for m in (64, 4096):
        at = dict(conns=100, msg_bytes=m)
        out.append(C(f"100 conns x {m} B over TLS 1.3: requests/s at least 0.97x uvloop's", R(b, "vigil", rps, **at), ">=",
                     R(b, "uvloop", rps, **at), 0.97))
        out.append(C(f"100 conns x {m} B over TLS 1.3: server CPU per request at most uvloop's", R(b, "vigil", cpu, **at),
                     "<=", R(b, "uvloop", cpu, **at)))
    return out


CLAIMS = [c for part in (_smallset, _iteration, _ctl_batch, _qemu_loop, _timer_error, _mq_empty, _mq_full,
                         _mq_pingpong, _file_batch, _mq_lowrate, _net_echo, _http_hello, _http_memory, _net_fair,
                         _py_echo, _py_timers, _py_http, _py_tls_echo, _spawn, _work_queue, _fs_ops, _resolve, _fs_watch,
                         _https_hello, _py_files)
          for c in part()]


# --------------------------------------------------------------- the checker

def latest_run(rows):
    """Only the last run's records of each benchmark: a ratio holds within one run."""
    last = {}
    for r in rows:
        if r.get("run") is not None:
            last[r.get("bench")] = r["run"]
    return [r for r in rows if r.get("bench") not in last or r.get("run") == last[r.get("bench")]]


def _groups(claim, rows):
    """Row sets to evaluate the claim on: all rows, or one per group of vigil's records
    (others' records stay in every group)."""
    if not claim.each:
        return [rows]
    key = lambda r: tuple(str(r.get(k)) for k in claim.each)  # noqa: E731
    mine = [t.mine for t in (claim.test,) + claim.also]
    groups = list(dict.fromkeys(key(r) for r in rows if any(m.matches(r) for m in mine)))
    return [[r for r in rows if not any(m.matches(r) for m in mine) or key(r) == g] for g in groups] or [rows]


def verdict(claim, rows):
    """The claim's verdict on these records (one run's)."""
    best = None
    for g in _groups(claim, rows):
        state, mine, thr, ref, mrows, rrows = claim.test.evaluate(g)
        for extra in claim.also:
            s2 = extra.evaluate(g)[0]
            state = MISSING if MISSING in (state, s2) else SHORT if SHORT in (state, s2) else HOLDS
        v = Verdict(claim, state, mine, thr, ref, mrows, rrows)
        if state == MISSING:
            v.missing = list(dict.fromkeys(r.label() for t in (claim.test,) + claim.also for r in (t.mine,) + t.ref
                                           if r.figure(g)[0] is None))
        rank = {HOLDS: 0, SHORT: 1, MISSING: 2}[state]
        if best is None or rank < best[0]:
            best = (rank, v)
    return best[1]


def check(rows, claims=None, benches=None):
    """Verdicts of the claims (all, or of these benchmarks) on the last run of each
    benchmark among rows, in the claims' order."""
    rows = latest_run(rows)
    return [verdict(c, rows) for c in (CLAIMS if claims is None else claims) if benches is None or c.bench in benches]


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if a >= 0.01 or v == 0 else f"{v:.2g}"


def describe(v):
    """The verdict's figures in words: measured vs threshold (and the ratio to the peer)."""
    t = v.claim.test
    if v.state == MISSING:
        return "no records" + (f" of {', '.join(v.missing)}" if v.missing else "")
    s = f"{fmt(v.mine)} {t.op} {fmt(v.threshold)}"
    if v.ratio is not None:
        s += f" ({v.ratio:.2f}x {t.ref[0].system if len(t.ref) == 1 else 'the best peer'})"
    return s


def summary(verdicts):
    n = {s: sum(1 for v in verdicts if v.state == s) for s in (HOLDS, SHORT, MISSING)}
    return f"{n[HOLDS]} of {len(verdicts)} claims hold, {n[SHORT]} fall short, {n[MISSING]} not measured"


def text_table(verdicts, width=120):
    """The verdicts as text lines: one per claim, grouped by benchmark."""
    lines, bench = [f"== claims: {summary(verdicts)}"], None
    for v in verdicts:
        if v.claim.bench != bench:
            bench = v.claim.bench
            lines.append(f"   {bench}")
        line = f"     {v.state:12}  {describe(v):34}  {v.claim.text}"
        lines.append(line if len(line) <= width else line[:width - 3] + "...")
    return lines


def load(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if isinstance(r, dict):
                    rows.append(r)
    return rows


def main(argv):
    path = argv[0] if argv and argv[0].endswith(".jsonl") else "build/lab/results.jsonl"
    rows = load(path)
    benches = [a for a in argv if not a.endswith(".jsonl")] or {r.get("bench") for r in rows}
    vs = check(rows, benches=benches)
    print("\n".join(text_table(vs, width=10 ** 6)))
    return 1 if any(v.state == SHORT for v in vs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
