"""timer-error: how late (or early) a timer wakes, for requested delays of 1 us to 2 ms
(the 2008 select/poll-on-hrtimers patch), raw kernel waits vs vigil vs libuv/libev/libevent.

The error of one wake-up is the time the callback starts (or the call returns) minus the
deadline asked for, signed: negative is early. Every program re-arms from its callback
(or loops on the call), so a wake-up also pays for the loop around it. A peer whose API
takes only milliseconds (poll, libuv) is asked for the delay rounded up to whole ms and
measured against the delay wanted. Raw calls and peers run with the thread's inherited
timer slack (50 us by default); vigil sets its loop thread's slack to 1 ns by default.

The pure-spin reference (kernel spin) never sleeps: it reads CLOCK_MONOTONIC until the
deadline, the best precision the machine allows at a whole CPU per timer; its
cpu_ns_per_wakeup shows that price beside the others'.

Alternation: for each delay, every system runs in turn (the order rotated), in rounds;
each program prints its round's records with their samples and run.py pools the rounds
into one record per series (lab/common/rounds.py): error percentiles over all samples,
early wake-ups and CPU summed."""
import plotting

NAME = "timer-error"
TITLE = "Timer wake-up error vs requested delay (us; negative = early)"
SEED = ("2008, 'Nano/Microsecond resolution for select() and poll()': asked 1200 us, got 1997 us; "
        "asked 1 us, got 998 us; with hrtimers ~4 us error. vigil's targets: precise mode p50 <= 1 us "
        "and p99 <= 20 us at every delay; default mode p50 within 1.2x of epoll_pwait2 with 1 ns slack "
        "and below libuv, libev and libevent under 2 ms; zero early wake-ups for vigil.")

DELAYS_US = [1, 10, 50, 100, 500, 1200, 1999, 2000]

# (cmd, label, waits in whole ms?)
SYSTEMS = [
    (["te_kernel", "--case", "select"], "kernel select", False),
    (["te_kernel", "--case", "poll"], "kernel poll (ms)", True),
    (["te_kernel", "--case", "pwait2 slack default"], "kernel epoll_pwait2 slack default", False),
    (["te_kernel", "--case", "pwait2 slack 1ns"], "kernel epoll_pwait2 slack 1ns", False),
    (["te_spin"], "kernel spin (pure-spin reference)", False),
    (["te_vigil", "--backend", "uring", "--mode", "default"], "vigil default uring", False),
    (["te_vigil", "--backend", "epoll", "--mode", "default"], "vigil default epoll", False),
    (["te_vigil", "--backend", "poll", "--mode", "default"], "vigil default poll", False),
    (["te_vigil", "--backend", "uring", "--mode", "precise"], "vigil precise uring", False),
    (["te_vigil", "--backend", "epoll", "--mode", "precise"], "vigil precise epoll", False),
    (["te_vigil", "--backend", "poll", "--mode", "precise"], "vigil precise poll", False),
    (["te_libuv"], "libuv (ms)", True),
    (["te_libev"], "libev", True),
    (["te_libevent"], "libevent", True),
    (["te_libevent", "--precise", "1"], "libevent PRECISE_TIMER flag", False),
]


def samples(delay_us, quick):
    n = 1600 if delay_us <= 100 else 1000 if delay_us <= 500 else 700
    return max(30, n // 13) if quick else n


def plan(ctx):
    rounds = 1 if ctx.quick else 4
    steps, k = [], 0
    for d in DELAYS_US:
        per = samples(d, ctx.quick) // rounds
        for r in range(rounds):
            order = SYSTEMS[k % len(SYSTEMS):] + SYSTEMS[:k % len(SYSTEMS)]
            k += 5
            for cmd, label, ms in order:
                wait_us = max(d, 1000 * -(-d // 1000)) if ms else d
                steps.append(dict(cmd=cmd + ["--delay-us", d, "--n", per],
                                  label=f"delay {d} us, round {r + 1}/{rounds}: {label}",
                                  est_s=round(per * (wait_us + 70) / 1e6 + 0.03, 2)))
    return steps


def _label(r):
    s, c = str(r.get("system")), str(r.get("case", ""))
    if s == "vigil":
        return f"vigil {c} [{r.get('backend')}]"
    if s == "kernel":
        return {"select": "select", "poll": "poll (ms)", "spin": "spin (pure-spin reference)"}.get(
            c, c.replace("pwait2", "epoll_pwait2"))
    if "PRECISE_TIMER" in c:
        return f"{s} (PRECISE_TIMER flag)"
    return s


def plot(rows, ax, targets=()):
    cpu = {(_label(r), int(r["delay_us"])): float(r["value"]) for r in rows if r.get("metric") == "cpu_ns_per_wakeup"}
    rows = [r for r in rows if r.get("metric") == "error_us"]
    if not rows:
        return
    series = {}
    for r in rows:
        series.setdefault(_label(r), []).append(r)
    style = {"select": ("#7f7f7f", "--"), "poll (ms)": ("#bcbd22", "--"),
             "epoll_pwait2 slack default": ("#17becf", "--"), "epoll_pwait2 slack 1ns": ("#000000", "--"),
             "spin (pure-spin reference)": ("#8c564b", ":"),
             "libuv": ("#2ca02c", "-"), "libev": ("#ff7f0e", "-"), "libevent": ("#d62728", "-"),
             "libevent (PRECISE_TIMER flag)": ("#d62728", ":")}
    vig = ["#1f77b4", "#6baed6", "#08306b", "#9467bd", "#c5b0d5", "#54278f"]
    vi, lo = 0, -1.0
    for name in sorted(series):
        rs = sorted(series[name], key=lambda r: float(r["delay_us"]))
        main = [r for r in rs if int(r["delay_us"]) != 1999]  # 1999: the 2008 mail's early-return case
        odd = [r for r in rs if int(r["delay_us"]) == 1999]
        x = [float(r["delay_us"]) for r in main]
        p50 = [float(r.get("p50", r["value"])) for r in main]
        p99 = [float(r.get("p99", r["value"])) for r in main]
        lo = min([lo] + [2 * v for v in p50])
        if name in style:
            color, ls = style[name]
        else:
            color, ls = vig[vi % len(vig)], "-"
            vi += 1
        ax.plot(x, p50, ls, color=color, marker="o", ms=3, lw=1.5, label=name)
        ax.fill_between(x, p50, p99, color=color, alpha=0.06)
        for r in odd:
            ax.plot([1999.0], [float(r.get("p50", r["value"]))], "x", color=color, ms=5)
    # the seed's own figures: 2008, select/poll with ms timeouts vs on hrtimers
    ax.plot([1, 1200], [998 - 1, 1997 - 1200], "*", color="#e377c2", ms=11, label="2008 mail: select, ms timeouts")
    ax.axhline(4, color="#e377c2", ls=":", lw=1.2, label="2008 mail: on hrtimers, ~4 us")
    plotting.target_marks(ax, targets, "error_us", lambda t: float(t["params"]["delay_us"]))
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(bottom=lo)
    ax.axhline(0, color="#444444", lw=0.8)
    ax.set_xlabel("requested delay (us, log); x marks: 1999 us")
    ax.set_ylabel("wake-up error (us, symlog): line = median, band = up to p99")
    ax.set_xticks([1, 10, 50, 100, 500, 1200, 2000])
    ax.set_xticklabels(["1", "10", "50", "100", "500", "1200", "2000"])
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", fontsize=7, ncol=3)
    # what the precision costs: CPU per wake-up of the spin reference beside the others
    d = max((k[1] for k in cpu), default=None)
    if d is not None:
        at = sorted(((v, n) for (n, dd), v in cpu.items()
                     if dd == d and (n.startswith("spin") or "slack 1ns" in n or "precise" in n)), reverse=True)
        ax.text(0.99, 0.02, f"CPU per wake-up at {d} us:\n" + "\n".join(f"{n}: {v / 1000:,.1f} us" for v, n in at),
                transform=ax.transAxes, ha="right", va="bottom", fontsize=6, color="#444",
                bbox=dict(facecolor="white", alpha=0.8, lw=0))
    ax.set_title("Timer wake-up error vs requested delay (seed: 2008, select/poll on hrtimers)", fontsize=9)
