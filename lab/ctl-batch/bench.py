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
ns_per_change = one batch's time / k (value and p50 = median over all batches of every
round, p99 over batches; run.py pools the rounds).
Many short rounds (24 of 80 ms per k), not a few long ones: on the shared 2-core lab VM
the load of other work changes over seconds, and in the run of 2026-12-02 (8 rounds of
250 ms) the per-round medians of one system at k=32 spanned 137-241 ns (vigil) and
136-201 ns (linked liburing) with equal per-round minimums (133 vs 132 ns), so the
pooled medians (185 vs 146 ns, 1.27x) told which system's rounds met the load, not
which is faster (an earlier run that day measured 0.86x). Shorter rounds spread
each system's batches over the whole run, the same total time per system. syscalls_per_batch comes from a
separate counting run per system (lab/common/count.py), never from the timed runs.
"""
import os

import count
import plotting
import rounds

NAME = "ctl-batch"
TITLE = "k interest changes applied as one batch: ns per change, system calls per batch"
SEED = "2015: one call for many interest changes (epoll_ctl_batch)"

KS = "1,8,32,256"
SYSTEMS = [  # (label, program, env)
    ("kernel epoll_ctl", "ctl_batch_kernel", None),
    ("liburing EPOLL_CTL", "ctl_batch_liburing", None),
    ("liburing EPOLL_CTL linked", "ctl_batch_liburing", {"LAB_URING_LINK": "1", "LAB_URING_FLAGS": "0x3000"}),
    ("vigil uring", "ctl_batch_vigil", {"VIGIL_EPOLL1_PATH": "uring"}),
    ("vigil epoll", "ctl_batch_vigil", {"VIGIL_EPOLL1_PATH": "epoll"}),
    ("libuv", "ctl_batch_libuv", None),
]
def plan(ctx):
    have = [s for s in SYSTEMS if os.path.exists(os.path.join(ctx.bin, s[1]))]
    n_rounds, ms = (2, 60) if ctx.quick else (24, 80)
    est = len(KS.split(",")) * ms / 1000 + 0.1
    steps = rounds.alternate(n_rounds, [None], have, lambda r, _, s: dict(
        cmd=[s[1], "--k", KS, "--ms", str(ms)], label=f"round {r + 1}/{n_rounds}: {s[0]}", est_s=est, env=s[2]))
    return steps + [count.step(ctx, [prog, "--k", KS], 20, f"count system calls: {label}", 1, env)
                    for label, prog, env in have]


def _name(r):
    if r.get("backend"):
        return f"{r['system']} ({r['backend']} path)"
    if r["system"] == "liburing":
        return "liburing, linked" if "linked" in r["case"] else "liburing"
    return f"{r['system']} {r['case']}" if r["system"] == "kernel" else r["system"]


def plot(rows, ax, targets=()):
    series, system_of = {}, {}
    for r in rows:
        if r.get("metric") == "ns_per_change":
            system_of[_name(r)] = r["system"]
            series.setdefault(_name(r), []).append((int(r["changes"]), float(r["value"])))
    ys = plotting.lines(ax, series, system_of)
    ax.set_xscale("log", base=2)
    ks = sorted({p[0] for pts in series.values() for p in pts})
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlabel("interest changes per batch (k)")
    ax.set_ylabel("ns per change (median over batches, log)")
    ax.set_yscale("log")
    plotting.log_ticks(ax, [100, 200, 300, 500, 1000, 2000, 5000], min(ys), max(ys))
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    plotting.target_marks(ax, targets, "ns_per_change", lambda t: int(t["params"]["changes"]))
    ax.set_title("ctl-batch: cost of one interest change, by batch size")
