"""The lab's plot helpers, shared by report.py and every bench.py's plot(rows, ax).

Systems keep their color in every plot: vigil in blues, raw calls (kernel) in greys,
each peer its own. A bench.py imports this module (run.py and report.py put lab/common
on sys.path) instead of reaching into the program that drew it.
"""
COLORS = {"kernel": "#888888", "vigil": "#1f77b4", "libuv": "#2ca02c", "libev": "#ff7f0e",
          "libevent": "#d62728", "liburing": "#8c564b", "libaio": "#e377c2", "boost": "#bcbd22",
          "vigil-preload": "#17becf", "nginx": "#009639", "asyncio": "#7f7f7f", "uvloop": "#2ca02c", "rloop": "#b5651d"}
PALETTE = ["#1f77b4", "#aec7e8", "#6baed6", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#888888"]
SHADES = {"kernel": ["#555555", "#888888", "#aaaaaa", "#cccccc"],
          "vigil": ["#08519c", "#3182bd", "#6baed6", "#9ecae1"]}


def color(system):
    """The color of a system with one series in a plot."""
    return COLORS.get(system, "#9467bd")


def series_colors(series, system_of):
    """{series: color} for series named in order; system_of maps a series to its system
    (default: the series' first word). Several series of one system get shades."""
    out, used = {}, {}
    for j, s in enumerate(series):
        system = system_of.get(s, s.split(" ")[0])
        k = used.get(system, 0)
        used[system] = k + 1
        if system in SHADES:
            out[s] = SHADES[system][k % len(SHADES[system])]
        elif system in COLORS and k == 0:
            out[s] = COLORS[system]
        else:
            out[s] = PALETTE[j % len(PALETTE)]
    return out


def log_ticks(ax, at, lo, hi):
    """Readable ticks on a log y axis: those of `at` within the data's range lo..hi."""
    at = [t for t in at if lo / 1.5 <= t <= hi * 1.5]
    ax.set_yticks(at)
    ax.set_yticklabels([f"{t:g}" for t in at])
    ax.minorticks_off()


def lines(ax, series, system_of, style=None):
    """One line per series over x: series = {name: [(x, y), ...]}, colored by system;
    style(name) may give a line style. Returns the y values drawn."""
    colors = series_colors(sorted(series), system_of)
    ys = []
    for name, pts in sorted(series.items()):
        pts = sorted(pts)
        ys += [p[1] for p in pts]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style(name) if style else "-", marker="o", label=name,
                color=colors.get(name))
    return ys or [1.0]


def p50_p99_lines(ax, rows, xkey, systems, div=1.0):
    """Per system, its p50 (solid, labelled) and p99 (dashed) over rows[xkey]; y = value / div."""
    for s in systems:
        pts = sorted((int(r[xkey]), float(r.get("p50", r["value"])) / div, float(r.get("p99", r["value"])) / div)
                     for r in rows if r["system"] == s)
        if not pts:
            continue
        xs = [p[0] for p in pts]
        ax.plot(xs, [p[1] for p in pts], "-o", color=color(s), label=f"{s} p50")
        ax.plot(xs, [p[2] for p in pts], "--", marker="x", color=color(s), label=f"{s} p99")
        for x, y in zip(xs, [p[1] for p in pts]):
            ax.text(x, y, f" {y:.1f}", fontsize=7, va="bottom")


def target_marks(ax, targets, metric, x, div=1.0):
    """Marks each claim's threshold on a plot: a short bar at (x(target), threshold / div),
    green where the claim holds in this run, red where it falls short. targets: what
    report.py passes to plot(rows, ax, targets), from lab/claims.py (dicts with metric,
    value (the threshold, in the metric's unit and at the claim's key: value, p50 or p99),
    holds, params, system, case); x(target) gives the point's x or None to leave it out. Marks have a
    fixed size in points, so they read the same on linear and log axes."""
    drawn = set()
    for t in targets or ():
        if t.get("metric") != metric or t.get("value") is None:
            continue
        xv = x(t)
        if xv is None:
            continue
        ok = bool(t.get("holds"))
        label = "claim's threshold: holds" if ok else "claim's threshold: falls short"
        ax.plot([xv], [float(t["value"]) / div], marker="_", ms=22, mew=2.5, ls="none",
                color="#2ca02c" if ok else "#d62728", zorder=5,
                label=None if label in drawn else label)
        drawn.add(label)
    if drawn:
        ax.text(0.995, 0.005, "short bars: the claims' thresholds (green: holds, red: falls short)",
                transform=ax.transAxes, ha="right", va="bottom", fontsize=7, color="#444")


def echo_cpu_lines(ax, rows, points, xlabel):
    """The echo benchmarks' figure (net-echo, py-echo): server CPU per request (us, log
    scale) at each (conns, msg_bytes) point, one line per system (and backend)."""
    xs = {pt: i for i, pt in enumerate(points)}
    series, system_of = {}, {}
    for r in rows:
        pt = (int(r["conns"]), int(r["msg_bytes"]))
        if r.get("metric") != "server_cpu_ns_per_request" or pt not in xs:
            continue
        name = r["system"] + (f" {r['backend']}" if r.get("backend") else "")
        system_of[name] = r["system"]
        series.setdefault(name, []).append((xs[pt], float(r["value"]) / 1e3))
    if not series:
        return
    ys = lines(ax, series, system_of)
    ax.set_yscale("log")
    log_ticks(ax, [1, 2, 5, 10, 20, 50, 100, 200], min(ys), max(ys))
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels([f"{c} x {m} B" for c, m in points], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("server CPU per request, us (log)")
    ax.legend(fontsize=8, ncol=2)



def ops_inflight_points(ax, rows, targets, ops, series_of, palette, ylabel, title, label_of=lambda name: name):
    """The file benchmarks' figure (fs-ops, py-files): ops_per_s (log scale) by operation
    and in-flight count (1, 64), one marker series per series_of(row) coloured from
    palette, the claims' thresholds marked."""
    pts = {}
    for r in rows:
        if r.get("metric") != "ops_per_s" or r.get("op") not in ops:
            continue
        x = ops.index(r["op"]) * 3 + (0 if int(r["inflight"]) == 1 else 1)
        pts.setdefault(series_of(r), []).append((x, float(r["value"])))
    for name in sorted(pts):
        p = sorted(pts[name])
        ax.plot([x for x, _ in p], [v for _, v in p], marker="o", ls="", color=palette.get(name, "#9467bd"),
                label=label_of(name))
    target_marks(ax, targets, "ops_per_s",
                 lambda t: ops.index(t["params"]["op"]) * 3 + (0 if int(t["params"]["inflight"]) == 1 else 1)
                 if t["params"].get("op") in ops and "inflight" in t["params"] else None)
    ax.set_xticks([i * 3 + j for i in range(len(ops)) for j in range(2)])
    ax.set_xticklabels([f"{op}\n1" if j == 0 else "64" for op in ops for j in range(2)], fontsize="small")
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="x-small", ncol=2)
    ax.set_title(title)


def rps_bars(ax, names, ngroups, row_of, cpu_ns_of, fontsize=7):
    """Requests/s in thousands as bars (py-http, py-tls-echo): in each of ngroups groups
    one bar per name side by side, whiskers from the rounds' min to max, the server's CPU
    per request (us) written on top. row_of(name, group) -> the requests_per_s row or
    None; cpu_ns_of(name, group) -> ns per request or None."""
    colors = series_colors(names, {n: n.split(" ")[0] for n in names})
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        xs, ys, lo, hi = [], [], [], []
        for gi in range(ngroups):
            r = row_of(n, gi)
            if r is None:
                continue
            v = float(r["value"]) / 1e3
            xs.append(gi + (i - (len(names) - 1) / 2) * width)
            ys.append(v)
            lo.append(v - float(r.get("min", r["value"])) / 1e3)
            hi.append(float(r.get("max", r["value"])) / 1e3 - v)
            ns = cpu_ns_of(n, gi)
            if ns:
                ax.text(xs[-1], v, f"{ns / 1e3:.0f}", ha="center", va="bottom", fontsize=fontsize)
        ax.bar(xs, ys, width, color=colors[n], label=n, yerr=[lo, hi], capsize=2, error_kw=dict(lw=0.7))
    ax.set_xticks(range(ngroups))
