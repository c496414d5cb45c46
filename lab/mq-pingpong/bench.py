"""mq-pingpong: two processes (fork), blocking round trips over two queues of 4 messages:
the parent sends, the child echoes, the parent receives. One clock read per round trip.
Messages of 16 B, 4 KiB and 64 KiB (the kernel's msgsize_max is raised for 64 KiB inside
the private IPC namespace its program creates). Records: rtt_us (value = p50, with p50
and p99 over round trips) and msgs_per_s (both directions counted: 2 / mean round trip).
Rounds alternate the systems per message size, rotating the order; run.py pools the
rounds of each series into one record. The two processes are pinned to
different CPUs (round r: parent on CPU r % 2, echo on the other), a cross-core round
trip: left to the scheduler they sometimes share one CPU and sometimes not, from run to
run, and every system's figures move 2x with that (same CPU, this machine: kernel ~7.4 us,
Boost ~11 us, vigil ~4 us; separate CPUs: ~15, ~14, ~0.5 us)."""
import plotting
import rounds
from mqsteps import CPUS, env_of, systems
NAME = "mq-pingpong"
TITLE = "Cross-process blocking round trip over two queues (us per round trip)"
SEED = ("2012 mqueue patches measured single-process send/receive; the cross-process case "
        "adds a wake-up per message (the kernel's 'pipelined send' hands a message straight to a "
        "waiting receiver). vigil's target with 16-byte messages: round-trip p50 at most 0.5x the "
        "better of the kernel's and Boost's, and a p99 no worse than either's.")

SYSTEMS = systems("mq_pingpong")
SIZES = (16, 4096, 65536)
PARAMS = ("msg_bytes",)


def plan(ctx):
    n_rounds, secs = (1, 0.25) if ctx.quick else (4, 0.9)
    return rounds.alternate(n_rounds, SIZES, SYSTEMS, lambda r, size, s: dict(
        cmd=[s[0], "--msg-bytes", size, "--seconds", secs, "--cpu", r % CPUS],
        label=f"round {r + 1}/{n_rounds}: {s[1]} {size} B", est_s=secs + 0.1, env=env_of(ctx, s[1])))


def plot(rows, ax):
    rows = [r for r in rows if r.get("metric") == "rtt_us"]
    if not rows:
        return
    plotting.p50_p99_lines(ax, rows, "msg_bytes", ("kernel", "boost", "vigil", "vigil-preload"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(SIZES))
    ax.set_xticklabels(["16 B", "4 KiB", "64 KiB"])
    ax.set_xlabel("message size")
    ax.set_ylabel("round trip, us (log)")
    ax.legend(fontsize=8, ncol=3)
