"""mq-empty: send then receive on an empty queue, 16-byte messages (the 2012 mqueue
rbtree + node-cache patch's table).

One program per system (kernel mq_*, Boost.Interprocess message_queue, vigil). Each round
runs every system once for a short slice, rotating the order, all pinned to one CPU
(round r on CPU r % 2: the two vCPUs can differ 2x in speed at a given moment); a
program prints its round's records with their histograms and run.py pools the rounds
into one record per case. Cases:
"pair" (BATCH x send+receive between two clock reads, the targets' figure), "send" and
"receive" each timed alone (a batch of sends fills the queue, a batch of receives empties
it), and "clock_gettime" (kernel program): one clock read, the cost that timing each call
alone, as the 2012 selftest did, adds to every figure."""
import plotting
import rounds
from mqsteps import CPUS, env_of, systems

NAME = "mq-empty"
TITLE = "Empty-queue send+receive, 16-byte messages (ns per operation, median of 64-op batches)"
SEED = ("2012, 'ipc/mqueue: add rbtree node caching support': empty-queue send/recv 305/288 ns "
        "(old array), 349/318 ns (rbtree), 310/322 ns (rbtree + node cache), each call timed alone "
        "with a per-thread CPU clock. vigil's targets: its send+receive pair at most 0.08x the "
        "kernel's and no slower than Boost's.")

SYSTEMS = systems("mq_empty")
PARAMS = ("msg_bytes",)


def plan(ctx):
    n_rounds, secs = (1, 0.6) if ctx.quick else (4, 1.5)
    return rounds.alternate(n_rounds, [None], SYSTEMS, lambda r, _, s: dict(
        cmd=[s[0], "--seconds", secs, "--cpu", r % CPUS], label=f"round {r + 1}/{n_rounds} (cpu {r % CPUS}): {s[1]}",
        est_s=secs + 0.05, env=env_of(ctx, s[1])))


def plot(rows, ax, targets=()):
    rows = [r for r in rows if r.get("metric") == "ns_per_op"]
    if not rows:
        return
    cases = ["pair", "send", "receive"]
    systems = [s for s in ("kernel", "boost", "vigil", "vigil-preload") if any(r["system"] == s for r in rows)]
    width = 0.8 / max(1, len(systems))
    for j, s in enumerate(systems):
        xs, vals, errs = [], [], []
        for i, c in enumerate(cases):
            r = [x for x in rows if x["system"] == s and x.get("case") == c]
            if r:
                xs.append(i + (j - (len(systems) - 1) / 2) * width)
                vals.append(float(r[0]["value"]))
                errs.append(max(0.0, float(r[0].get("p99", r[0]["value"])) - float(r[0]["value"])))
        ax.bar(xs, vals, width, yerr=[[0] * len(vals), errs], color=plotting.color(s), label=s, capsize=2)
        for x, v in zip(xs, vals):
            ax.text(x, v, f"{v:.0f}", ha="center", va="bottom", fontsize=7)
    # The 2012 patch's own figures (rbtree + node cache; each call timed alone).
    ax.plot([1 - 0.4, 1 + 0.4], [310, 310], ls="--", color="#d62728", lw=1, label="2012: send 310 / recv 322 ns")
    ax.plot([2 - 0.4, 2 + 0.4], [322, 322], ls="--", color="#d62728", lw=1)
    clk = [float(r["value"]) for r in rows if r.get("case") == "clock_gettime"]
    if clk:
        ax.axhline(clk[0], ls=":", color="#555555", lw=1, label=f"one clock_gettime: {clk[0]:.0f} ns")
    plotting.target_marks(ax, targets, "ns_per_op", lambda t: cases.index(t["case"]) if t.get("case") in cases else None)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(["send+receive pair", "send alone", "receive alone"])
    ax.set_yscale("log")
    ax.set_ylabel("ns per operation (bar: median, mark: p99; log)")
    ax.legend(fontsize=8)
