"""smallset: one non-blocking loop turn on one idle pty fd (the 2006 select/poll patch).

Each system is one program; a round runs each once, for a short measuring time, and
the rounds rotate the order so no system always runs first or last. run.py pools the
rounds of each series (the records carry per-batch "samples") into one figure."""
import count
import plotting
import rounds

NAME = "smallset"
TITLE = "One non-blocking turn of a loop watching one idle pty fd (ns per turn)"
SEED = ("2006, 'select/poll: small fd sets on the stack': select of 1 pty fd ~13% faster, and "
        "no page allocated per sleeping daemon. vigil's targets: a non-blocking turn costs at most "
        "1.10x a raw epoll_wait(..., 0) on epoll, less than libuv, libev and libevent, and at most "
        "0.2x epoll_wait on io_uring, where an idle turn makes no system call.")

SYSTEMS = [
    (["smallset_kernel"], "kernel select/poll/ppoll/epoll_wait", 4),
    (["smallset_vigil", "--backend", "uring"], "vigil uring", 1),
    (["smallset_vigil", "--backend", "epoll"], "vigil epoll", 1),
    (["smallset_vigil", "--backend", "poll"], "vigil poll", 1),
    (["smallset_libuv"], "libuv", 1),
    (["smallset_libev"], "libev", 1),
    (["smallset_libevent"], "libevent", 1),
]


def plan(ctx):
    # full: a multiple of the 7 programs, so each runs at each place in a round equally often
    n_rounds, ms = (3, 50) if ctx.quick else (14, 280)
    steps = rounds.alternate(n_rounds, [None], SYSTEMS, lambda r, _, s: dict(
        cmd=s[0] + ["--ms", str(ms)], label=f"round {r + 1}/{n_rounds}: {s[1]}", est_s=s[2] * ms / 1000 + 0.05))
    # A separate counting run per system: system calls per turn, under strace (never timed).
    for cmd, label, cases in SYSTEMS:
        steps.append(count.step(ctx, cmd, 2000, f"count system calls: {label}", 0.2 * cases))
    return steps


def plot(rows, ax):
    calls = {(r["system"], r.get("case")): float(r["value"]) for r in rows if r.get("metric") == "syscalls_per_turn"}
    rows = [r for r in rows if r.get("metric") == "ns_per_turn"]
    if not rows:
        return

    def label(r):
        c = str(r.get("case", ""))
        return c if c.startswith(str(r["system"])) else f"{r['system']} {c}"
    rows.sort(key=lambda r: float(r["value"]))
    y = range(len(rows))
    vals = [float(r["value"]) for r in rows]
    p99 = [float(r.get("p99", r["value"])) for r in rows]
    right = 1.3 * max(vals)  # p99s of a noisy machine would squash the medians
    ax.barh(list(y), vals, color=[plotting.color(r["system"]) for r in rows])
    ax.plot([min(p, right) for p in p99], list(y), "k|", ms=12, label="p99 (at the edge: off scale)")
    ax.set_xlim(0, right)
    ax.set_yticks(list(y))
    def calls_of(r):
        c = calls.get((r["system"], r.get("case")))
        return "" if c is None else f"  [{c:g} syscall{'s' if c != 1 else ''}]"
    ax.set_yticklabels([label(r) + calls_of(r) for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("ns per turn (bar: median, mark: p99)")
    ep = [float(r["value"]) for r in rows if r["system"] == "kernel" and "epoll" in str(r.get("case", ""))]
    if ep:
        ax.axvline(1.10 * ep[0], ls="--", color="#1f77b4", lw=1, label="1.10x epoll_wait (epoll target)")
        ax.axvline(0.2 * ep[0], ls=":", color="#1f77b4", lw=1, label="0.2x epoll_wait (uring target)")
        ax.legend(loc="upper right", fontsize=8)
    for i, (v, p) in enumerate(zip(vals, p99)):
        ax.text(v, i, f" {v:.0f} (p99 {p:,.0f})", va="center", fontsize=8)
