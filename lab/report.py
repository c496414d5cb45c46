#!/usr/bin/python3
"""Writes <out>/report.html and one PNG per benchmark from <out>/results.jsonl.

  report.py --out build/lab

run.py calls it at the end of `make lab`; it can be rerun alone on a results file. The
report opens with the machine, kernel, date and run id; then, per benchmark, its title,
the seed patch's claim next to the plot, and the table of figures (median / p99).
A bench.py may define plot(rows, ax) to draw its own figure on a matplotlib Axes;
otherwise the report draws a grouped bar chart (median, p99 as an error mark). A plot()
that takes a third argument, targets, gets the thresholds of the benchmark's claims in
this run (plotting.target_marks draws them).

The report opens with one summary table, the claims at a glance: each of the project's
claims (lab/claims.py, in the repository), the systems it compares, vigil's figure, the
threshold it must meet in this run, the ratio to the peer and the verdict (holds, falls
short, not measured), grouped by benchmark under the seed figure it reproduces. When the
issues' checker is there (../shared/targets.py beside the repository; --targets names
another file), a second table gives its targets and verdicts: report.py imports it by
path and runs its checks on these records, reading the figures each check compares as
it computes them.
Needs matplotlib (python3-matplotlib, /usr/bin/python3); without it the report has
tables only.
"""
import argparse
import html
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as lab  # noqa: E402  (discovery and tables are shared with the runner; puts lab/common on sys.path)
import claims as lab_claims  # noqa: E402
from plotting import series_colors  # noqa: E402

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # tables only
    plt = None

HERE = os.path.dirname(os.path.abspath(__file__))
# ../shared/targets.py beside the repository (or beside the folder of git worktrees).
TARGETS_PY = next((p for p in (os.path.normpath(os.path.join(HERE, *[".."] * n, "shared", "targets.py"))
                               for n in (2, 3)) if os.path.exists(p)),
                  os.path.normpath(os.path.join(HERE, "..", "..", "shared", "targets.py")))
UNITS = {"ns_per_op": "ns", "ns_per_turn": "ns", "ns_per_change": "ns", "syscalls_per_turn": "calls/turn",
         "syscalls_per_batch": "calls/batch", "syscalls_per_io": "calls/IO", "iops": "IOPS",
         "cpu_ns_per_io": "ns CPU/IO", "cpu_ns_per_wakeup": "ns CPU/wake-up", "error_us": "us",
         "early_count": "early", "msgs_per_s": "msg/s", "rtt_us": "us", "cpu_ns_per_msg": "ns CPU/msg",
         "requests_per_s": "req/s", "server_cpu_ns_per_request": "ns CPU/req",
         "syscalls_per_request": "calls/req", "rss_kib_per_conn": "KiB/conn", "jain_index": "",
         "late_ms": "ms", "starved_conns": "starved"}
NUM = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
STATE = {None: "MISSING", True: "HOLDS", False: "SHORT"}


# ---- the summary: the project's claims ------------------------------------------------

VERDICT_CLASS = {lab_claims.HOLDS: "ok", lab_claims.SHORT: "fail", lab_claims.MISSING: "skip"}


def series_figure(v, rec, key):
    return f"{lab.series_label(rec)}: {fmt_figure(v, rec, key)}"


def claim_cells(v):
    """The cells of one verdict's row: claim, systems, vigil's figure, threshold, ratio."""
    t = v.claim.test
    names = v.claim.systems()
    systems = f"{names[0]} vs {', '.join(names[1:])}" if t.ref else names[0]
    mine = series_figure(v.mine, v.mine_rows[0], t.mine.key) if v.mine is not None and v.mine_rows else None
    if v.threshold is None:
        thr = None
    elif not t.ref:
        thr = f"{t.op} {lab_claims.fmt(v.threshold)}"
    else:
        peer = lab_claims.fmt(v.ref)
        if v.ref_rows:  # the peer's record as measured (a signed error keeps its sign)
            r = next(x for x in t.ref if x.matches(v.ref_rows[0]))
            peer = series_figure(r.stat(v.ref_rows[0]), v.ref_rows[0], r.key)
        factor = f"{t.factor:g}x " if t.factor != 1 else ""
        thr = f"{t.op} {lab_claims.fmt(v.threshold)} ({factor}{peer}" + (f" + {t.plus:g}" if t.plus else "") + ")"
    if v.state == lab_claims.MISSING and thr is None:
        thr = lab_claims.describe(v)  # which figures have no records
    ratio = f"{v.ratio:.2f}" if v.ratio is not None else None
    return v.claim.text, systems, mine, thr, ratio


def claims_html(verdicts, ran):
    """The summary table of the claims; ran: the benchmarks with records in this run
    (the claims of the others collapse into one row each)."""
    h = ["<h2 id=summary>The claims at a glance</h2>",
         f"<p>{html.escape(lab_claims.summary([v for v in verdicts if v.claim.bench in ran]))} in this run: "
         "vigil's own claims (<code>lab/claims.py</code>), checked on this run's records. The threshold is the "
         "claim's factor times the peer's figure measured in the same run (the best of the peers named); "
         "ratio = vigil / peer. Lower is better except rates (<code>*_per_s</code>), IOPS and Jain's "
         "fairness index. A claim whose records are missing is not measured, never counted as holding.</p>",
         "<table class=summary><colgroup><col class=kc><col class=ks><col class=kv><col class=kt>"
         "<col class=cr><col class=ch></colgroup><tr><th>claim</th><th>systems compared</th><th>vigil</th>"
         "<th>threshold (peer, same run)</th><th>ratio</th><th>verdict</th></tr>"]
    for bench in dict.fromkeys(v.claim.bench for v in verdicts):
        vs = [v for v in verdicts if v.claim.bench == bench]
        seeds = list(dict.fromkeys(v.claim.seed for v in vs if v.claim.seed))
        b = html.escape(bench)
        h.append(f"<tr class=bench><td class=s colspan=6><a href='#{b}'>{b}</a>"
                 + (f" &mdash; {html.escape(lab_claims.summary(vs))}" if bench in ran else " &mdash; not run")
                 + "".join(f"<br><span class=fig>reproduces: {html.escape(s)}</span>" for s in seeds) + "</td></tr>")
        if bench not in ran:
            h.append(f"<tr class=claim data-bench='{b}' data-state='not run'><td class=s colspan=5>"
                     f"{len(vs)} claims, not measured: the benchmark did not run</td><td class=skip>not run</td></tr>")
            continue
        for v in vs:
            cells = "".join(f"<td class=s>{html.escape(c) if c else '&ndash;'}</td>" for c in claim_cells(v)[:4])
            ratio = claim_cells(v)[4] or "&ndash;"
            h.append(f"<tr class=claim data-bench='{b}' data-state='{v.state}'>{cells}<td>{ratio}</td>"
                     f"<td class={VERDICT_CLASS[v.state]}>{v.state}</td></tr>")
    h.append("</table>")
    return "".join(h)


def plot_marks(verdicts):
    """Per benchmark, the thresholds of its comparative claims, for plot(rows, ax, targets)."""
    marks = {}
    for v in verdicts:
        t = v.claim.test
        if not t.ref or v.threshold is None or t.absolute or not v.mine_rows:
            continue
        r = v.mine_rows[0]
        marks.setdefault(v.claim.bench, []).append({
            "metric": t.mine.metric, "key": t.mine.key, "value": v.threshold, "holds": v.state == lab_claims.HOLDS,
            "name": v.claim.text, "system": r.get("system"), "case": r.get("case"),
            "params": {k: r[k] for k in lab.PARAM_KEYS + ("engine", "backend") if k in r}})
    return marks


# ---- the issues' targets (../shared/targets.py, when it is there) ----------------------

def load_targets(path):
    """The checker module loaded from its file (it is no package), or None."""
    if not path or not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("vigil_shared_targets", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod if all(hasattr(mod, n) for n in ("CHECKS", "Report", "low", "high")) else None


def latest_run(rows):
    """Only the last run's records, as the checker reads them."""
    runs = [r.get("run") for r in rows if r.get("run") is not None]
    return [r for r in rows if r.get("run") == runs[-1]] if runs else rows


def is_vigil(rec):
    return str(rec.get("system", "")).startswith("vigil")


def fmt_figure(v, rec, key):
    unit = UNITS.get(rec.get("metric"), str(rec.get("metric", "")))
    at = "" if key == "value" else f" ({key})"
    return f"{lab_claims.fmt(v)} {unit}{at}"


def _decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def _close(v, text):
    return abs(v - float(text)) <= 0.5 * 10 ** -_decimals(text) + 1e-9 * max(1.0, abs(v))


def comparative(name):
    """A target relative to another system (a factor, or a comparison with a name)."""
    return bool(re.search(r"\d(?:\.\d+)?x\b", name) or re.search(r"(?:<=|>=|<|>)\s+[A-Za-z]", name))


def claim_sentence(bench, name):
    text = name[len(bench):].lstrip(" :") if name.startswith(bench) else name
    if bench == "smallset" and name.startswith("smallset uring"):
        text = "uring" + name[len("smallset uring"):]
    for a, b in (("<=", "at most"), (">=", "at least"), (" < ", " below "), (" > ", " above ")):
        text = text.replace(a, b)
    text = text.strip() or name
    return text + ("" if text.endswith(".") else ".")


def claim_row(bench, name, holds, figure, pool):
    """One summary row: the check's verdict and figure, and the vigil and peer figures it
    compared, found among the values the check computed (pool: (value, key, record))."""
    fig = str(figure).strip()
    row = {"bench": bench, "name": name, "claim": claim_sentence(bench, name), "state": STATE[holds],
           "holds": holds, "figure": fig, "vigil": None, "peer": None, "ratio": None}
    vig = [p for p in pool if is_vigil(p[2])]
    peers = [p for p in pool if not is_vigil(p[2])]

    def by_values(a, b):
        for v in reversed(vig):
            for p in reversed(peers):
                if _close(v[0], a) and _close(p[0], b):
                    return v, p
        return None

    def by_ratio(text, tops=vig, bottoms=peers):
        for v in reversed(tops):
            for p in reversed(bottoms):
                if p is not v and p[0] and _close(v[0] / p[0], text):
                    return v, p
        return None
    pair = None
    m1 = re.match(rf"^({NUM})\s*/\s*({NUM})(?:\s*[A-Za-z]+)?\s*=\s*({NUM})$", fig)
    m2 = re.match(rf"^({NUM}) vs ({NUM})", fig)
    if m1:
        row["ratio"] = float(m1.group(3))
        pair = by_values(m1.group(1), m1.group(2)) or by_ratio(m1.group(3))
    elif m2:
        a, b = float(m2.group(1)), float(m2.group(2))
        row["ratio"] = a / b if b else None
        pair = by_values(m2.group(1), m2.group(2))
    elif re.fullmatch(NUM, fig) and comparative(name):
        row["ratio"] = float(fig)
        pair = by_ratio(fig) or by_ratio(fig, pool, pool)  # vigil against vigil: preload, fds=200/15
    elif re.match(rf"^({NUM})x\b", fig):
        row["ratio"] = float(re.match(rf"^({NUM})x\b", fig).group(1))
    if pair:
        (v, vk, vr), (p, pk, pr) = pair
        row["vigil"] = f"{lab.series_label(vr)}: {fmt_figure(v, vr, vk)}"
        row["peer"] = f"{lab.series_label(pr)}: {fmt_figure(p, pr, pk)}"
        if row["ratio"] is None and p:
            row["ratio"] = v / p
    elif holds is not None and not comparative(name):
        row["vigil"] = fig  # an absolute target: the figure is vigil's
    return row


def claims_from_targets(tmod, rows):
    """Runs every check of the checker on this run's records (as `targets.py` does on
    build/lab/results.jsonl) and returns its verdicts as summary rows, in its order."""
    pool, out = [], []
    orig_low, orig_high = tmod.low, tmod.high

    def spy(fn):
        def inner(rs, key="value"):
            v = fn(rs, key)
            if v is not None:
                src = [r for r in rs if key in r and float(r[key]) == v]
                if src:
                    pool.append((v, key, src[0]))
            return v
        return inner
    bench = None

    class Rep(tmod.Report):
        def check(self, name, holds, figure):
            super().check(name, holds, figure)
            out.append(claim_row(bench, name, holds, figure, list(pool)))
    tmod.low, tmod.high = spy(orig_low), spy(orig_high)
    try:
        for name, fn in tmod.CHECKS.items():
            bench = getattr(tmod, "BENCH", {}).get(name, name)
            brows = latest_run([r for r in rows if r.get("bench") == bench])
            del pool[:]
            rep = Rep()
            if not brows:
                rep.check(name, None, "no records in this run")
                out[-1]["claim"] = "Every target of this benchmark (not run)."
                continue
            try:
                fn(brows, rep)
            except (KeyError, ValueError, TypeError, ZeroDivisionError) as e:
                rep.check(name, False, f"records not in the lab contract's shape: {e!r}")
    finally:
        tmod.low, tmod.high = orig_low, orig_high
    return out


def targets_html(claims, targets_path):
    h = ["<h2 id=targets>The issues' targets</h2>"]
    held = sum(1 for c in claims if c["state"] == "HOLDS")
    h.append(f"<p>{held} of {len(claims)} targets hold in this run (the issues' targets, as "
             f"<code>{html.escape(os.path.basename(targets_path))}</code> beside the repository checks them). "
             "vigil's figure and the best peer's are the two the target compares, measured in this run; "
             "ratio = vigil / peer.</p>")
    h.append("<table class=summary><colgroup><col class=cb><col class=cc><col class=cv><col class=cp>"
             "<col class=cr><col class=ch></colgroup><tr><th>benchmark</th><th>target</th><th>vigil</th>"
             "<th>best peer, same run</th><th>ratio</th><th>verdict</th></tr>")
    for c in claims:
        ratio = f"{c['ratio']:.2f}" if isinstance(c.get("ratio"), float) else "&ndash;"
        vig = html.escape(c["vigil"]) if c.get("vigil") else "&ndash;"
        peer = html.escape(c["peer"]) if c.get("peer") else "&ndash;"
        if not c.get("vigil") and not c.get("peer") and c.get("figure") and c.get("ratio") is None:
            vig = f"<span class=fig>{html.escape(c['figure'])}</span>"
        cls = {"HOLDS": "ok", "SHORT": "fail", "MISSING": "skip"}.get(c["state"], "")
        h.append(f"<tr class=target data-name='{html.escape(c['name'])}' data-state='{c['state']}'>"
                 f"<td class=s><a href='#{html.escape(str(c['bench']))}'>{html.escape(str(c['bench']))}</a></td>"
                 f"<td class=s>{html.escape(c['claim'])}</td><td class=s>{vig}</td><td class=s>{peer}</td>"
                 f"<td>{ratio}</td><td class={cls}>{c['state']}</td></tr>")
    h.append("</table>")
    return "".join(h)


def default_plot(fig, rows, param_keys):
    """One panel per metric: groups = parameter sets, bars = systems (median), with a
    mark up to the p99 (cut at 3x the highest median, so medians stay readable)."""
    data = lab.table_data(rows, param_keys)
    axes = fig.subplots(len(data), 1, squeeze=False)[:, 0]
    for ax, (metric, params, series, cells) in zip(axes, data):
        width = 0.8 / max(1, len(series))
        colors = series_colors(series, {lab.series_label(r): str(r.get("system")) for r in rows})
        vals, cut = [], False
        top = 3 * max(float(r["value"]) for r in cells.values())
        for j, s in enumerate(series):
            xs, ys, errs = [], [], []
            for i, p in enumerate(params):
                r = cells.get((p, s))
                if r is None:
                    continue
                v = float(r["value"])
                xs.append(i + (j - (len(series) - 1) / 2) * width)
                ys.append(v)
                e = max(0.0, float(r.get("p99", v)) - v) if "p99" in r else 0.0
                cut |= top > 0 and v + e > top
                errs.append(min(e, max(0.0, top - v)) if top > 0 else e)
            if not xs:
                continue
            vals += ys
            ax.bar(xs, ys, width=width * 0.95, label=s, color=colors[s],
                   yerr=[[0] * len(errs), errs] if any(errs) else None, capsize=2)
        ax.set_xticks(range(len(params)))
        ax.set_xticklabels([lab.param_label(p) for p in params], fontsize=8,
                           rotation=20 if len(params) > 4 else 0)
        better = "higher" if lab_claims.higher_is_better(metric) else "lower"
        ax.set_ylabel(f"{metric} ({better} is better)", fontsize=8)
        pos = [v for v in vals if v > 0]
        if pos and max(pos) / min(pos) > 30:
            ax.set_yscale("log")
        if cut:
            ax.set_title("bars: median; marks: p99, cut at 3x the highest median", fontsize=8)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.grid(axis="y", alpha=0.3)


def draw(name, mod, rows, path, targets=()):
    """Writes the benchmark's PNG; returns None or the reason the plot is missing/fallback."""
    note = None
    param_keys = getattr(mod, "PARAMS", lab.PARAM_KEYS) if mod else lab.PARAM_KEYS
    nmetrics = len({r.get("metric") for r in rows})
    custom = getattr(mod, "plot", None) if mod else None
    if custom:
        fig = plt.figure(figsize=(9, 5))
        try:
            ax = fig.add_subplot(1, 1, 1)
            if len(inspect.signature(custom).parameters) >= 3:
                custom([dict(r) for r in rows], ax, [dict(t) for t in targets])
            else:
                custom([dict(r) for r in rows], ax)
            fig.tight_layout()
            fig.savefig(path, dpi=100)
            plt.close(fig)
            return None
        except Exception:
            plt.close(fig)
            note = "its plot() failed, default chart shown: " + traceback.format_exc().strip().splitlines()[-1]
    fig = plt.figure(figsize=(11, 2.2 + 3.2 * nmetrics))
    default_plot(fig, rows, param_keys)
    fig.suptitle(name)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return note


COLS = 7  # parameter columns per table: wider tables are split, so none scrolls sideways


def html_table(rows, param_keys):
    out = []
    for metric, params, series, cells in lab.table_data(rows, param_keys):
        has_p99 = any("p99" in r for r in cells.values())
        out.append(f"<p class=metric>{html.escape(str(metric))}"
                   f"{' &mdash; median / p99' if has_p99 else ''}</p>")
        for i in range(0, max(1, len(params)), COLS):
            part = params[i:i + COLS]
            out.append("<table class=fig><tr><th></th>")
            out += [f"<th>{html.escape(lab.param_label(p))}</th>" for p in part]
            out.append("</tr>")
            for s in series:
                if not any((p, s) in cells for p in part):
                    continue
                out.append(f"<tr><th class=s>{html.escape(s)}</th>")
                for p in part:
                    r = cells.get((p, s))
                    out.append(f"<td>{html.escape(lab.cell_text(r))}</td>")
                out.append("</tr>")
            out.append("</table>")
    return "".join(out)


CSS = """
body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 .5em;color:#222}
h1{margin-bottom:.2em} .meta{color:#555} .meta td{padding:0 1em 0 0}
.bench{border-top:1px solid #ccc;margin-top:1.5em;padding-top:.5em}
.row{display:flex;gap:1.5em;align-items:flex-start;flex-wrap:wrap}
.row img{max-width:min(760px,100%);border:1px solid #eee}
.seed{flex:1;min-width:260px;background:#f6f6f0;padding:.8em;border-left:4px solid #b8a}
table{border-collapse:collapse;font-size:85%;margin:.3em 0 1em;max-width:100%}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:right;overflow-wrap:anywhere} th.s,td.s{text-align:left}
table.fig th{font-weight:normal;background:#f4f4f4}
table.summary{width:100%;table-layout:fixed;font-size:80%} table.summary td{vertical-align:top}
col.cb{width:8%} col.cc{width:38%} col.cv{width:19%} col.cp{width:19%} col.cr{width:6%} col.ch{width:10%}
col.kc{width:30%} col.ks{width:14%} col.kv{width:18%} col.kt{width:22%} tr.bench td{background:#f4f4f4}
.ok{color:#080;font-weight:bold} .fig{color:#555}
.metric{font-weight:bold;margin:.6em 0 0} .steps{font-size:85%;color:#555}
.fail{color:#b00} .skip{color:#a60}
"""


def load_run(out):
    """(records, run.json's status, the run's meta) of the results folder."""
    rows = lab_claims.load(os.path.join(out, "results.jsonl"))
    status = {}
    try:
        with open(os.path.join(out, "run.json")) as f:
            status = json.load(f)
    except (OSError, ValueError):
        pass
    meta = status.get("meta") or {k: (rows[0].get(k) if rows else "?") for k in lab.RUN_KEYS}
    return rows, status, meta


def bench_order(rows, status):
    """The benchmarks in the order they ran, then any others the records name."""
    order = [b["name"] for b in status.get("benchmarks", [])]
    order += [r["bench"] for r in rows if r.get("bench") not in order]
    return list(dict.fromkeys(order))


def head_html(meta, status, order):
    """The page's head: machine, kernel, date, run id, source, load, mode, the links."""
    h = [f"<!doctype html><meta charset=utf-8><title>vigil lab {html.escape(str(meta.get('run')))}</title>",
         f"<style>{CSS}</style><h1>vigil lab report</h1><table class=meta>"]
    for k, label in (("machine", "Machine"), ("kernel", "Kernel"), ("date", "Date (UTC)"), ("run", "Run id")):
        h.append(f"<tr><td>{label}</td><td><b>{html.escape(str(meta.get(k, '?')))}</b></td></tr>")
    if status.get("commit"):
        h.append(f"<tr><td>Source</td><td><b>{html.escape(status['commit'])}</b></td></tr>")
    if status.get("load_start") is not None:
        h.append(f"<tr><td>Load average</td><td><b>{status['load_start']:.1f}</b> at the start, "
                 f"<b>{status.get('load_end') or 0:.1f}</b> at the end (1 min, {os.cpu_count()} CPUs; "
                 "above the CPU count other work was competing, which shows in the p99s)</td></tr>")
    if status.get("quick"):
        h.append("<tr><td>Mode</td><td><b>quick</b> (QUICK=1: short runs, figures are indicative)</td></tr>")
    h.append("</table><p class=meta>Medians and p99s over batches; systems measured in alternation "
             "in this one run. Lower is better except rates (*_per_s), iops and jain_index. Raw records: "
             "<a href='results.jsonl'>results.jsonl</a>; steps: <a href='run.json'>run.json</a>, "
             "<a href='run.log'>run.log</a>.</p>")
    if status.get("interrupted"):
        h.append("<p class=fail>This run was interrupted: some benchmarks are missing or partial.</p>")
    h.append("<p>" + " &middot; ".join(f"<a href='#{html.escape(n)}'>{html.escape(n)}</a>" for n in order) + "</p>")
    if not plt:
        h.append("<p class=fail>matplotlib is missing (apt-get install python3-matplotlib): tables only.</p>")
    return h


def targets_section(rows, targets_path):
    """The issues' targets table, when their checker is there; [] otherwise."""
    try:
        tmod = load_targets(targets_path)
    except Exception as e:  # a broken checker must not cost the report
        return [f"<p class=fail>{html.escape(f'the checker failed to load: {e!r}')}</p>"]
    if not tmod:
        return []
    try:
        return [targets_html(claims_from_targets(tmod, rows), targets_path)]
    except Exception as e:
        return [f"<p class=fail>{html.escape(f'the checker failed on these records: {e!r}')}</p>"]


def steps_html(st):
    """A benchmark's step count and time, and the steps that did not pass."""
    bad = [s for s in st.get("steps", []) if s.get("status") != "pass"]
    seen, items = set(), []
    for s in bad:
        key = (s["status"], s.get("note"))
        if key in seen and s["status"] == "skip":
            continue
        seen.add(key)
        items.append(f"<li class={s['status']}>{html.escape(s['label'])}: {s['status']}"
                     f"{': ' + html.escape(s.get('note') or '') if s.get('note') else ''}</li>")
    h = [f"<p class=steps>{len(st.get('steps', []))} steps in {st.get('seconds', '?')} s"
         f"{'; not passed:' if bad else '.'}</p>"]
    if items:
        h.append("<ul class=steps>" + "".join(items) + "</ul>")
    return h


def bench_html(name, mod, brows, out, marks, verdicts, st):
    """One benchmark's section: title, plot beside the seed's claim, its claims' count,
    table of figures, steps."""
    title = getattr(mod, "TITLE", "") if mod else ""
    seed = getattr(mod, "SEED", "") if mod else ""
    param_keys = getattr(mod, "PARAMS", lab.PARAM_KEYS) if mod else lab.PARAM_KEYS
    h = [f"<div class=bench id='{html.escape(name)}'><h2>{html.escape(name)} "
         "<a class=steps href='#summary'>(summary)</a></h2>"
         f"<p>{html.escape(title)}</p><div class=row>"]
    note = None
    if brows and plt:
        png = f"{name}.png"
        try:
            note = draw(name, mod, brows, os.path.join(out, png), marks)
            h.append(f"<img src='{html.escape(png)}' alt='{html.escape(name)} plot'>")
        except Exception as e:
            note = f"no plot: {e!r}"
    elif not brows:
        h.append("<p class=fail>No records in this run.</p>")
    h.append(f"<div class=seed><b>Seed claim</b><br>{html.escape(seed) or '(none given)'}")
    if verdicts:
        h.append(f"<p><a href='#summary'>Claims</a>: {html.escape(lab_claims.summary(verdicts))}.</p>")
    if note:
        h.append(f"<p class=fail>{html.escape(note)}</p>")
    h.append("</div></div>")
    if brows:
        h.append(html_table(brows, param_keys))
    if st:
        h += steps_html(st)
    h.append("</div>")
    return h


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder of results.jsonl (build/lab)")
    ap.add_argument("--targets", default=TARGETS_PY, help=f"the issues' targets checker (default {TARGETS_PY})")
    a = ap.parse_args(argv)
    out = os.path.abspath(a.out)
    rows, status, meta = load_run(out)
    order = bench_order(rows, status)
    verdicts = lab_claims.check(rows)
    ran = {r.get("bench") for r in rows}
    h = head_html(meta, status, order)
    h.append(claims_html(verdicts, ran))
    h += targets_section(rows, a.targets)
    marks = plot_marks(verdicts)
    mods = {m.NAME: m for _, m in lab.discover()}
    steps_of = {b["name"]: b for b in status.get("benchmarks", [])}
    for name in order:
        h += bench_html(name, mods.get(name), [r for r in rows if r.get("bench") == name], out,
                        marks.get(name, ()), [v for v in verdicts if v.claim.bench == name], steps_of.get(name))
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write("\n".join(h))
    print(f"lab: report in {os.path.join(out, 'report.html')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
