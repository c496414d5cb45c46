"""ctl-batch: k interest changes applied as one batch (seed 2015, epoll_ctl_batch).

Systems, each its own program, measured in rounds (A B C D E, then B C D E A, ...):
  kernel    one epoll_ctl(EPOLL_CTL_MOD) per change
  liburing  hand-written: k IORING_OP_EPOLL_CTL SQEs, one io_uring_submit_and_wait(k);
            and a second case, the same SQEs chained with IOSQE_IO_LINK on a
            SINGLE_ISSUER|DEFER_TASKRUN ring: what "stop at the first failure" costs
  vigil     vigil_epoll_ctl_batch(), backend "uring" (one io_uring_enter) and "epoll"
            (one epoll_ctl per command), chosen by VIGIL_EPOLL1_PATH
  libuv     k uv_poll_start() + one uv_run(UV_RUN_NOWAIT): libuv 1.44 makes 2 epoll_ctl
            per change (DEL at once, ADD in the turn) and one epoll_wait(0), and runs
            its timer/idle/prepare/check queues
The fds are pipe read ends: EPOLLOUT never fires on them, so a batch is changes only.
ns_per_change = one batch's time / k (value and p50 = median over all batches of the
run, p99 over batches). syscalls_per_batch comes from a separate counting run per
system under `strace -f` (k batches between markers), never from the timed runs.
"""
import os
import sys
import time

NAME = "ctl-batch"
TITLE = "k interest changes applied as one batch: ns per change, system calls per batch"
SEED = "2015: one call for many interest changes (epoll_ctl_batch)"

HERE = os.path.dirname(os.path.abspath(__file__))
KS = "1,8,32,256"
SYSTEMS = [  # (label, program, env)
    ("kernel epoll_ctl", "ctl_batch_kernel", None),
    ("liburing EPOLL_CTL", "ctl_batch_liburing", None),
    ("liburing EPOLL_CTL linked", "ctl_batch_liburing", {"LAB_URING_LINK": "1", "LAB_URING_FLAGS": "0x3000"}),
    ("vigil uring", "ctl_batch_vigil", {"VIGIL_EPOLL1_PATH": "uring"}),
    ("vigil epoll", "ctl_batch_vigil", {"VIGIL_EPOLL1_PATH": "epoll"}),
    ("libuv", "ctl_batch_libuv", None),
]
PYTHON = sys.executable or "/usr/bin/python3"
COLLECT = os.path.join(HERE, "collect.py")


def plan(ctx):
    tag = f"{NAME}-{os.getpid()}-{time.time_ns()}"
    samples = os.path.join(ctx.tmp, tag + ".samples")
    have = [s for s in SYSTEMS if os.path.exists(os.path.join(ctx.bin, s[1]))]
    rounds, ms = (2, 60) if ctx.quick else (8, 250)
    nk = len(KS.split(","))
    steps = []
    for r in range(rounds):
        order = have[r % len(have):] + have[:r % len(have)] if have else []
        for label, prog, env in order:
            step = dict(cmd=[prog, "--k", KS, "--ms", str(ms), "--samples", samples],
                        label=f"round {r + 1}/{rounds}: {label}", est_s=nk * ms / 1000 + 0.1)
            if env:
                step["env"] = env
            steps.append(step)
    pairs = []
    for i, (label, prog, env) in enumerate(have):
        desc = os.path.join(ctx.tmp, f"{tag}.count{i}")
        trace = os.path.join(ctx.tmp, f"{tag}.strace{i}")
        pairs.append(f"{desc}:{trace}")
        step = dict(cmd=[PYTHON, COLLECT, "trace", trace, os.path.join(ctx.bin, prog),
                         "--k", KS, "--count", "20", "--samples", desc],
                    label=f"count system calls: {label}", est_s=1)
        if env:
            step["env"] = env
        steps.append(step)
    steps.append(dict(cmd=[PYTHON, COLLECT, NAME, samples] + pairs,
                      label="merge rounds, count calls", est_s=1))
    return steps


def _name(r):
    if r.get("backend"):
        return f"{r['system']} ({r['backend']} path)"
    if r["system"] == "liburing":
        return "liburing, linked" if "linked" in r["case"] else "liburing"
    return f"{r['system']} {r['case']}" if r["system"] == "kernel" else r["system"]


def _colors(series, system_of):
    """The report's colors (vigil blues, raw calls greys, a peer its own) when report.py
    is the program drawing; matplotlib's own otherwise."""
    sc = getattr(sys.modules.get("__main__"), "series_colors", None)
    if sc is None:
        return {}
    try:
        return sc(list(series), system_of)
    except Exception:
        return {}


def _ticks(ax, at, lo, hi):
    at = [t for t in at if lo / 1.5 <= t <= hi * 1.5]
    ax.set_yticks(at)
    ax.set_yticklabels([f"{t:g}" for t in at])
    ax.minorticks_off()


def plot(rows, ax):
    series, system_of = {}, {}
    for r in rows:
        if r.get("metric") == "ns_per_change":
            system_of[_name(r)] = r["system"]
            series.setdefault(_name(r), []).append((int(r["changes"]), float(r["value"]), float(r.get("p99", r["value"]))))
    colors = _colors(sorted(series), system_of)
    ys = [p[1] for pts in series.values() for p in pts] or [1.0]
    for name, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name, color=colors.get(name))
    ax.set_xscale("log", base=2)
    ks = sorted({p[0] for pts in series.values() for p in pts})
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlabel("interest changes per batch (k)")
    ax.set_ylabel("ns per change (median over batches, log)")
    ax.set_yscale("log")
    _ticks(ax, [100, 200, 300, 500, 1000, 2000, 5000], min(ys), max(ys))
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("ctl-batch: cost of one interest change, by batch size")
