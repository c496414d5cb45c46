"""mq-full: a queue filled to depth-1, then send+receive pairs with constant, rising,
falling and random priorities (the kernel selftest mq_perf_tests, test #2), 16-byte
messages, at depths 1024 and 4096 (all three systems) and 65536 (vigil and Boost; the
kernel's RLIMIT_MSGQUEUE of 800 KiB, charged ~112 B per 16-byte message, stops it near
7300 messages, so its 65536 step skips and says so).

One program per system; each step fills a fresh queue with the pattern, then times
batches of 64 pairs. Rounds alternate the systems per (depth, pattern), rotating the
order, with every step of round r pinned to CPU r % 2 (the two vCPUs can differ 2x);
run.py pools the rounds of each series into one record.

Code placement: a pair is 306-362 instructions (callgrind, by pattern), and on the AMD
EPYC (Zen 2) VM their speed once depended on where the linker put libvigil's fast paths,
not on the mq code: runs 20261202T183154Z (rising 42.6, random 40.7 ns, 1.3x Boost) and
20261202T145953Z (rising ~27 ns, 0.89x) ran the same src/mq; their two libvigil.so
swapped under one mq_full_vigil binary (LD_LIBRARY_PATH) gave 42.0 and 27.3 ns for rising
at depth 1024, with the same instruction count (an IPC of ~2.9 against ~4.3: the front
end, most likely the op cache; this VM has no counters to say). With src/mq's code
shifted in 16-byte steps, 34 of 47 placements made rising 38-43 ns, the others ~28.
send_locked and receive_locked are now cold (src/mq/send.c), which lays the fast paths
out apart from their rare blocks: 0 of 47 placements slow, nor 0 of 16 placements of the
POSIX wrappers (4-6 of 16 before); every pattern within 1.13x its best placement. To
tell placement from a regression, swap the library as above and compare callgrind's
instructions per pair, which placement does not change."""
import os

import plotting
import rounds

NAME = "mq-full"
TITLE = "Send+receive on a queue holding depth-1 messages, by priority pattern (ns per pair)"
SEED = ("2012, 'ipc/mqueue: add rbtree node caching support': with the queue nearly full the "
        "rbtree of per-priority lists makes send/receive faster than the old sorted array in every "
        "priority pattern. vigil's targets: at most 0.2x the kernel (at each depth the kernel runs) "
        "and no slower than Boost (a sorted array of message pointers: O(n) per insert in the middle).")

SYSTEMS = [("mq_full_kernel", "kernel"), ("mq_full_boost", "boost"), ("mq_full_vigil", "vigil")]
DEPTHS = (1024, 4096, 65536)
PATTERNS = ("constant", "rising", "falling", "random")
PARAMS = ("depth", "pattern")
CPUS = min(2, os.cpu_count() or 1)  # round r pins every system to CPU r % CPUS (mqlab.h: --cpu)


def plan(ctx):
    n_rounds, secs = (1, 0.05) if ctx.quick else (4, 0.25)

    def step(r, group, system):
        (depth, pat), (prog, label) = group, system
        fill = 0.5 if (depth == 65536 and label == "boost" and pat != "constant") else 0.02
        return dict(cmd=[prog, "--depth", depth, "--pattern", pat, "--seconds", secs, "--cpu", r % CPUS],
                    label=f"round {r + 1}/{n_rounds} (cpu {r % CPUS}): {label} depth={depth} {pat}", est_s=secs + fill)
    return rounds.alternate(n_rounds, [(d, p) for d in DEPTHS for p in PATTERNS], SYSTEMS, step)


def plot(rows, ax, targets=()):
    rows = [r for r in rows if r.get("metric") == "ns_per_op"]
    if not rows:
        return
    styles = {"constant": "-", "rising": "--", "falling": "-.", "random": ":"}
    marks = {"constant": "o", "rising": "^", "falling": "v", "random": "s"}
    for s in ("kernel", "boost", "vigil"):
        for p in PATTERNS:
            pts = sorted((int(r["depth"]), float(r["value"])) for r in rows
                         if r["system"] == s and r.get("pattern") == p)
            if pts:
                ax.plot([d for d, _ in pts], [v for _, v in pts], ls=styles[p], marker=marks[p],
                        color=plotting.color(s), label=f"{s} {p}")
    plotting.target_marks(ax, targets, "ns_per_op", lambda t: int(t["params"]["depth"]))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(DEPTHS))
    ax.set_xticklabels([str(d) for d in DEPTHS])
    ax.set_xlabel("queue depth (filled to depth-1)")
    ax.set_ylabel("ns per send+receive (median; log)")
    ax.legend(fontsize=7, ncol=3)
