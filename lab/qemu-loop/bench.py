"""qemu-loop: the 2015 workload behind epoll_ctl_batch/epoll_pwait1 (QEMU's main loop).

n = 15, 85, 200 pipe read ends are watched ("fds"); each turn 4 of them change interest
(READ <-> READ|WRITE, "changes": 4; a pipe's read end is never writable, so the change
never fires; vigil's uring backend leaves changes that only drop bits unsent, which
here costs it nothing: see qloop.h) and one fd becomes ready (the benchmark writes a byte; the callback reads
it). ns_per_turn: the write + the interest changes + one turn (wait + dispatch); the
write is timed because epoll and io_uring do part of their work when the fd becomes
ready, in the writer's context. value and p50 = median over every turn of the run, p99
over turns (run.py pools the rounds). A timer is always pending (as in QEMU), so every wait has a timeout.

Systems, one program each, measured in rounds (rotating order, all n in each step):
  kernel ppoll   pollfd array kept built, 4 entries patched, ppoll(1 s), scan revents
  kernel epoll   4 epoll_ctl(MOD) + epoll_pwait2(1 s)
  liburing       hand-written, one io_uring_enter a turn, the two designs the issue asks
                 vigil's uring backend to weigh: EPOLL_CTL SQEs + one EPOLL_WAIT SQE
                 (6.15+), or one-shot POLL_ADD per fd, updated in place, re-armed
  vigil          vigil_io_modify x4 + vigil_loop_run(ONCE), backend uring, epoll, poll
  libuv          uv_poll_start x4 + uv_run(ONCE)   (1.44: 2 epoll_ctl per change)
  libev          ev_io_stop/set/start x4 + ev_run(ONCE)
  libevent       event_add/event_del of a write event x4 + event_base_loop(ONCE)
syscalls_per_turn: a separate counting run per system (lab/common/count.py: a fixed
number of turns between markers, under strace); the benchmark's own write/read on its pipes are left out
(they appear as bench:write / bench:read in the record's "calls").
"""
import os

import count
import plotting
import rounds

NAME = "qemu-loop"
TITLE = "QEMU's loop: n fds watched, 4 interest changes and 1 ready fd per turn"
SEED = ("2015: QEMU latency overhead with ppoll 37/49/83 us at ~15/85/200 fds; "
        "with epoll_ctl_batch+epoll_pwait1 36/37/47 us")

FDS = "15,85,200"
SYSTEMS = [  # (label, argv)
    ("kernel ppoll", ["qemu_loop_kernel", "--case", "ppoll"]),
    ("kernel epoll", ["qemu_loop_kernel", "--case", "epoll"]),
    ("liburing EPOLL_CTL+EPOLL_WAIT", ["qemu_loop_liburing", "--case", "epoll"]),
    ("liburing poll", ["qemu_loop_liburing", "--case", "poll"]),
    ("vigil uring", ["qemu_loop_vigil", "--backend", "uring"]),
    ("vigil epoll", ["qemu_loop_vigil", "--backend", "epoll"]),
    ("vigil poll", ["qemu_loop_vigil", "--backend", "poll"]),
    ("libuv", ["qemu_loop_libuv"]),
    ("libev", ["qemu_loop_libev"]),
    ("libevent", ["qemu_loop_libevent"]),
]


def plan(ctx):
    have = [s for s in SYSTEMS if os.path.exists(os.path.join(ctx.bin, s[1][0]))]
    n_rounds, ms, n = (2, 35, 100) if ctx.quick else (12, 200, 400)
    est = len(FDS.split(",")) * ms / 1000 + 0.05
    steps = rounds.alternate(n_rounds, [None], have, lambda r, _, s: dict(
        cmd=s[1] + ["--fds", FDS, "--ms", str(ms)], label=f"round {r + 1}/{n_rounds}: {s[0]}", est_s=est))
    return steps + [count.step(ctx, argv + ["--fds", FDS], n, f"count system calls: {label}", 0.5 if ctx.quick else 1.5)
                    for label, argv in have]


def _name(r):
    if r.get("backend"):
        return f"{r['system']} ({r['backend']})"
    if r["system"] == "liburing":
        return "liburing, poll SQEs" if "poll" in r["case"] else "liburing, EPOLL_CTL+WAIT SQEs"
    return f"{r['system']} {r['case']}" if r["system"] == "kernel" else r["system"]


def plot(rows, ax, targets=()):
    series, system_of = {}, {}
    for r in rows:
        if r.get("metric") == "ns_per_turn":
            system_of[_name(r)] = r["system"]
            series.setdefault(_name(r), []).append((int(r["fds"]), float(r["value"]) / 1000))
    ys = plotting.lines(ax, series, system_of, style=lambda name: "-" if name.startswith("vigil") else "--")
    ax.set_xlabel("fds watched (4 interest changes, 1 ready fd per turn)")
    ax.set_ylabel("us per turn (median, log)")
    ax.set_yscale("log")
    plotting.log_ticks(ax, [1, 1.5, 2, 3, 5, 10, 20, 50], min(ys), max(ys))
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    plotting.target_marks(ax, targets, "ns_per_turn", lambda t: int(t["params"]["fds"]), div=1000)
    ax.set_title("qemu-loop: cost of one turn by number of fds (seed: ppoll grows, batching stays flat)")
