"""iteration: the classic libevent/libev benchmark -- loop overhead with many idle and
few active fds. N = 100, 1000, 10000 fds (N/2 socketpairs), A = 1 and 100 active; each
turn writes one byte to the next active fd's peer, runs one blocking loop turn, and the
callback reads the byte.

A step is one system at one N (the fd set is built once per step; A = 1 and 100
alternate inside it). Rounds repeat every (N, system) step, rotating the systems'
order; run.py pools the rounds of each series into one figure."""
import plotting
import rounds
NAME = "iteration"
TITLE = "One blocking turn with N fds watched, one made ready per turn (ns per turn, write + read included)"
SEED = ("The libevent/libev benchmark (Niels Provos 2003; Marc Lehmann's libev comparison 2007): "
        "a loop's cost per turn should not grow with the number of idle fds it watches. "
        "vigil's target: at every N and A, at least as fast as the fastest of libuv, libev and libevent.")

FDS = (100, 1000, 10000)
SYSTEMS = [
    (["iteration_vigil", "--backend", "uring"], "vigil uring"),
    (["iteration_vigil", "--backend", "epoll"], "vigil epoll"),
    (["iteration_vigil", "--backend", "poll"], "vigil poll"),
    (["iteration_libuv"], "libuv"),
    (["iteration_libev"], "libev"),
    (["iteration_libevent"], "libevent"),
]


def plan(ctx):
    # full: a multiple of the 6 systems, so each runs at each place in a round equally often
    n_rounds, ms = (1, 60) if ctx.quick else (24, 60)

    def step(r, n, system):
        cmd, label = system
        # two A values of ms each, plus building N fds and the first turns; a poll turn
        # scans all N fds (~0.1-0.5 us each), its batches run longer
        est = 2 * ms / 1000 + 0.03 + n / 40000 + (n / 10000 if "poll" in label else 0)
        return dict(cmd=cmd + ["--fds", str(n), "--ms", str(ms)], label=f"round {r + 1}/{n_rounds}: {label} fds={n}",
                    est_s=est)
    return rounds.alternate(n_rounds, FDS, SYSTEMS, step)


def plot(rows, ax, targets=()):
    """Lines over N per system and A. A series far above the rest (vigil's poll backend:
    ppoll scans every fd) is drawn clipped and named in a note with its figures, so the
    close race between the others stays readable."""
    rows = [r for r in rows if r.get("metric") == "ns_per_turn"]
    if not rows:
        return
    vstyles = {"uring": "-", "epoll": "--", "poll": ":"}
    series = {}
    for r in rows:
        key = (r["system"], str(r.get("backend", "")), int(r.get("active", 0)))
        series.setdefault(key, []).append(r)
    lo = min(float(r["value"]) for r in rows)
    near = [float(r["value"]) for r in rows if float(r["value"]) <= 1.5 * lo]
    top = 1.12 * max(near)
    off = []
    for (system, backend, active), rs in sorted(series.items()):
        rs.sort(key=lambda r: int(r["fds"]))
        xs = [int(r["fds"]) for r in rs]
        ys = [float(r["value"]) for r in rs]
        label = f"{system}{' ' + backend if backend else ''} A={active}"
        ls = vstyles.get(backend, "-") if system == "vigil" else "-"
        if max(ys) > top:
            off.append(f"{label}: " + ", ".join(f"{y / 1000:,.0f} us" for y in ys))
            continue
        ax.plot(xs, ys, ls=ls, marker="o" if active == 1 else "s", color=plotting.color(system),
                alpha=1.0 if active == 1 else 0.55, label=label)
    plotting.target_marks(ax, targets, "ns_per_turn", lambda t: int(t["params"]["fds"]))
    ax.set_xscale("log")
    ax.set_xticks(list(FDS))
    ax.set_xticklabels([str(n) for n in FDS])
    ax.set_ylim(0.95 * lo, top)
    ax.set_xlabel("fds watched (N)")
    ax.set_ylabel("ns per turn (median; axis not from 0)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=3, loc="upper right")
    if off:
        ax.text(0.01, 0.98, "not drawn, far above (N = " + ", ".join(map(str, FDS)) + "):\n" + "\n".join(off),
                transform=ax.transAxes, va="top", fontsize=7, color="#444")
