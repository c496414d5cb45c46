"""mq-lowrate: a sender on one CPU sends a 16-byte message every 50 us, 200 us, 1 ms and
10 ms; the receiver, pinned to the other CPU, blocks in receive. Record: the receiver's
CPU time per message (cpu_ns_per_msg: CLOCK_THREAD_CPUTIME_ID over batches of about
20 ms of messages; value = p50 over batches, with p50 and p99) for the kernel's
mq_receive, Boost.Interprocess and vigil (default settings, the build of mq-pingpong);
and sleeps_per_msg, the receiver's voluntary context switches per message over the same
batches (~1: it slept for every message; less: it caught some by spinning).
A waiter that spins before it sleeps pays for its spin at every message here, where
messages never come back to back. Rounds alternate the systems per gap, rotating the
order and the CPUs (round r: receiver on CPU r % 2); the last round of a series emits one
record from all its rounds' samples.
The fourth system, "futex", is the hand-written floor (lab/common/mq/sys_futex.h): a
ring in shared memory and one shared futex, no priorities, no recovery, no timeouts. It
is what any queue in shared memory pays at the least for a receiver that sleeps, so the
target (vigil at most 1.1x the kernel) is within reach on a machine only where this row
is well under 1.1x the kernel's.
Eight rounds: the order rotates by one system per round, so each of the four systems
runs at each place twice per gap, once on each CPU (round r: receiver on CPU
(r + r // 4) % 2). The per-run figures of one system move up to 1.7x from round to
round on this VM (kernel at 50 us, run 20261202T070944Z: 1.7-3.1 us per message): a
place that costs more must land on every system alike. Short runs (0.45 s; 0.8 s at
10 ms, which needs enough messages for its batches) keep the samples per series at
least as many as six rounds of 0.6 s would give."""
import os

import plotting
import rounds

NAME = "mq-lowrate"
TITLE = "CPU of a receiver blocked on a quiet queue (ns of receiver CPU per message)"
SEED = ("2012 mqueue patches: the kernel's receive sleeps in the kernel and costs one system "
        "call per message. vigil's target: at most 1.1x the kernel's receiver CPU per message at "
        "every gap (50 us .. 10 ms), while mq-pingpong's targets hold.")

SYSTEMS = [("mq_lowrate_kernel", "kernel"), ("mq_lowrate_futex", "futex"), ("mq_lowrate_boost", "boost"),
           ("mq_lowrate_vigil", "vigil")]
GAPS = (50, 200, 1000, 10000)
PARAMS = ("gap_us",)
CPUS = min(2, os.cpu_count() or 1)


def plan(ctx):
    n_rounds, secs = (1, 0.3) if ctx.quick else (8, 0.45)

    def step(r, gap, s):
        # The longest gap needs enough messages for a few batches even when quick.
        t = max(secs, 0.3 if ctx.quick else 0.8) if gap >= 10000 else secs
        return dict(cmd=[s[0], "--gap-us", gap, "--seconds", t, "--cpu", (r + r // 4) % CPUS],
                    label=f"round {r + 1}/{n_rounds}: {s[1]} gap {gap} us", est_s=t + 0.2)
    return rounds.alternate(n_rounds, GAPS, SYSTEMS, step)


def plot(rows, ax, targets=()):
    rows = [r for r in rows if r.get("metric") == "cpu_ns_per_msg"]
    if not rows:
        return
    plotting.p50_p99_lines(ax, rows, "gap_us", ("kernel", "futex", "boost", "vigil"), div=1e3)
    plotting.target_marks(ax, targets, "cpu_ns_per_msg", lambda t: int(t["params"]["gap_us"]), div=1e3)
    ax.set_xscale("log")
    ax.set_xticks(list(GAPS))
    ax.set_xticklabels(["50 us", "200 us", "1 ms", "10 ms"])
    ax.set_xlabel("gap between messages")
    ax.set_ylabel("receiver CPU per message, us")
    ax.legend(fontsize=8, ncol=4)
