#!/usr/bin/python3
"""Writes <out>/report.html and one PNG per benchmark from <out>/results.jsonl.

  report.py --out build/lab

run.py calls it at the end of `make lab`; it can be rerun alone on a results file. The
report opens with the machine, kernel, date and run id; then, per benchmark, its title,
the seed patch's claim next to the plot, and the table of figures (median / p99).
A bench.py may define plot(rows, ax) to draw its own figure on a matplotlib Axes;
otherwise the report draws a grouped bar chart (median, p99 as an error mark).
Needs matplotlib (python3-matplotlib, /usr/bin/python3); without it the report has
tables only.
"""
import argparse
import html
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as lab  # noqa: E402  (discovery and tables are shared with the runner; puts lab/common on sys.path)
from plotting import series_colors  # noqa: E402

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # tables only
    plt = None

LOWER_IS_BETTER_EXCEPT = ("iops", "msgs_per_s")


def load(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if isinstance(r, dict):
                    rows.append(r)
    return rows


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
        better = "higher" if metric in LOWER_IS_BETTER_EXCEPT else "lower"
        ax.set_ylabel(f"{metric} ({better} is better)", fontsize=8)
        pos = [v for v in vals if v > 0]
        if pos and max(pos) / min(pos) > 30:
            ax.set_yscale("log")
        if cut:
            ax.set_title("bars: median; marks: p99, cut at 3x the highest median", fontsize=8)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.grid(axis="y", alpha=0.3)


def draw(name, mod, rows, path):
    """Writes the benchmark's PNG; returns None or the reason the plot is missing/fallback."""
    note = None
    param_keys = getattr(mod, "PARAMS", lab.PARAM_KEYS) if mod else lab.PARAM_KEYS
    nmetrics = len({r.get("metric") for r in rows})
    custom = getattr(mod, "plot", None) if mod else None
    if custom:
        fig = plt.figure(figsize=(9, 5))
        try:
            custom([dict(r) for r in rows], fig.add_subplot(1, 1, 1))
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


def html_table(rows, param_keys):
    out = []
    for metric, params, series, cells in lab.table_data(rows, param_keys):
        has_p99 = any("p99" in r for r in cells.values())
        out.append(f"<p class=metric>{html.escape(str(metric))}"
                   f"{' &mdash; median / p99' if has_p99 else ''}</p><table><tr><th></th>")
        out += [f"<th>{html.escape(lab.param_label(p))}</th>" for p in params]
        out.append("</tr>")
        for s in series:
            out.append(f"<tr><th class=s>{html.escape(s)}</th>")
            for p in params:
                r = cells.get((p, s))
                out.append(f"<td>{html.escape(lab.cell_text(r))}</td>")
            out.append("</tr>")
        out.append("</table>")
    return "".join(out)


CSS = """
body{font-family:sans-serif;max-width:1200px;margin:1em auto;color:#222}
h1{margin-bottom:.2em} .meta{color:#555} .meta td{padding:0 1em 0 0}
.bench{border-top:1px solid #ccc;margin-top:1.5em;padding-top:.5em}
.row{display:flex;gap:1.5em;align-items:flex-start;flex-wrap:wrap}
.row img{max-width:760px;border:1px solid #eee}
.seed{flex:1;min-width:260px;background:#f6f6f0;padding:.8em;border-left:4px solid #b8a}
table{border-collapse:collapse;font-size:90%;margin:.3em 0 1em}
td,th{border:1px solid #ddd;padding:2px 8px;text-align:right} th.s{text-align:left}
.metric{font-weight:bold;margin:.6em 0 0} .steps{font-size:85%;color:#555}
.fail{color:#b00} .skip{color:#a60}
"""


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder of results.jsonl (build/lab)")
    a = ap.parse_args(argv)
    out = os.path.abspath(a.out)
    rows = load(os.path.join(out, "results.jsonl"))
    status = {}
    try:
        with open(os.path.join(out, "run.json")) as f:
            status = json.load(f)
    except (OSError, ValueError):
        pass
    meta = status.get("meta") or {k: (rows[0].get(k) if rows else "?") for k in lab.RUN_KEYS}
    mods = {m.NAME: (d, m) for d, m in lab.discover()}
    order = [b["name"] for b in status.get("benchmarks", [])]
    order += [r["bench"] for r in rows if r.get("bench") not in order]
    order = list(dict.fromkeys(order))
    steps_of = {b["name"]: b for b in status.get("benchmarks", [])}

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
             "in this one run. Lower is better except iops and msgs_per_s. Raw records: "
             "<a href='results.jsonl'>results.jsonl</a>; steps: <a href='run.json'>run.json</a>, "
             "<a href='run.log'>run.log</a>.</p>")
    if status.get("interrupted"):
        h.append("<p class=fail>This run was interrupted: some benchmarks are missing or partial.</p>")
    h.append("<p>" + " &middot; ".join(f"<a href='#{html.escape(n)}'>{html.escape(n)}</a>" for n in order) + "</p>")
    if not plt:
        h.append("<p class=fail>matplotlib is missing (apt-get install python3-matplotlib): tables only.</p>")

    for name in order:
        folder, mod = mods.get(name, (name, None))
        brows = [r for r in rows if r.get("bench") == name]
        title = getattr(mod, "TITLE", "") if mod else ""
        seed = getattr(mod, "SEED", "") if mod else ""
        param_keys = getattr(mod, "PARAMS", lab.PARAM_KEYS) if mod else lab.PARAM_KEYS
        h.append(f"<div class=bench id='{html.escape(name)}'><h2>{html.escape(name)}</h2>"
                 f"<p>{html.escape(title)}</p><div class=row>")
        note = None
        if brows and plt:
            png = f"{name}.png"
            try:
                note = draw(name, mod, brows, os.path.join(out, png))
                h.append(f"<img src='{html.escape(png)}' alt='{html.escape(name)} plot'>")
            except Exception as e:
                note = f"no plot: {e!r}"
        elif not brows:
            h.append("<p class=fail>No records in this run.</p>")
        h.append(f"<div class=seed><b>Seed claim</b><br>{html.escape(seed) or '(none given)'}")
        if note:
            h.append(f"<p class=fail>{html.escape(note)}</p>")
        h.append("</div></div>")
        if brows:
            h.append(html_table(brows, param_keys))
        st = steps_of.get(name)
        if st:
            bad = [s for s in st.get("steps", []) if s.get("status") != "pass"]
            seen, items = set(), []
            for s in bad:
                key = (s["status"], s.get("note"))
                if key in seen and s["status"] == "skip":
                    continue
                seen.add(key)
                items.append(f"<li class={s['status']}>{html.escape(s['label'])}: {s['status']}"
                             f"{': ' + html.escape(s.get('note') or '') if s.get('note') else ''}</li>")
            h.append(f"<p class=steps>{len(st.get('steps', []))} steps in {st.get('seconds', '?')} s"
                     f"{'; not passed:' if bad else '.'}</p>")
            if items:
                h.append("<ul class=steps>" + "".join(items) + "</ul>")
        h.append("</div>")
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write("\n".join(h))
    print(f"lab: report in {os.path.join(out, 'report.html')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
