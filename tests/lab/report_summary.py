#!/usr/bin/python3
"""lab/report.py renders the report from a small recorded run (tests/lab/results.jsonl:
16 records of smallset, ctl-batch and mq-empty from the lab run of 2026-11-23) and its
summary table says what the records say.

  report_summary.py <source root>

1. Without the targets checker (--targets at a missing file): the summary says no
   targets were checked and has one row per benchmark and metric with vigil's best
   figure and the best other system's, as computed here from the records.
2. With ../shared/targets.py (when present beside the repository): the summary has the
   checker's targets, in its order and with its verdicts (targets.py itself is run on
   the same records), and known rows carry the figures of the records they compare.
3. Every table fits the page: at most 8 columns in a figures table, the summary laid
   out fixed at the page width; every benchmark of the records has its section.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

src = os.path.abspath(sys.argv[1])
fixture = os.path.join(src, "tests", "lab", "results.jsonl")
sys.path.insert(0, os.path.join(src, "lab"))
import report  # noqa: E402

fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


def render(tmp, targets):
    out = os.path.join(tmp, "lab")
    os.makedirs(out, exist_ok=True)
    shutil.copy(fixture, os.path.join(out, "results.jsonl"))
    r = subprocess.run([sys.executable, os.path.join(src, "lab", "report.py"), "--out", out, "--targets", targets],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"report.py --targets {targets} exits 0 ({r.stderr.strip()[-300:]})")
    with open(os.path.join(out, "report.html")) as f:
        return f.read()


def summary_rows(page):
    rows = []
    for tr in re.findall(r"<tr class=claim data-name='([^']*)' data-state='([^']*)'>(.*?)</tr>", page, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr[2], re.S)]
        rows.append({"name": html.unescape(tr[0]), "state": tr[1], "cells": cells,
                     "link": re.search(r"href='#([^']+)'", tr[2]).group(1)})
    return rows


def number_in(text, value):
    """`value` shown in `text` as the report formats it."""
    return report.fmt_num(float(value)) in text


def fits(page):
    for t in re.findall(r"<table class=fig>(.*?)</table>", page, re.S):
        first = re.search(r"<tr>(.*?)</tr>", t, re.S).group(1)
        if first.count("<th") > report.COLS + 1:
            return False
    return "table.summary{width:100%;table-layout:fixed" in page


records = [json.loads(line) for line in open(fixture)]
benches = list(dict.fromkeys(r["bench"] for r in records))
tmp = tempfile.mkdtemp(prefix="vigil-report-")
try:
    # 1. no checker
    page = render(tmp, os.path.join(tmp, "no-such-targets.py"))
    rows = summary_rows(page)
    check(len(re.findall(r"<h2 id=summary>", page)) == 1 and page.index("id=summary") < page.index("class=bench"),
          "one summary table, before the benchmarks")
    check("No targets checked" in page, "without the checker the summary says no targets were checked")
    want = [(b, m) for b in benches for m in dict.fromkeys(r["metric"] for r in records if r["bench"] == b)]
    check([(r["link"], r["name"].split(" ", 1)[1]) for r in rows] == want,
          f"one row per benchmark and metric, linked to its section ({len(want)} rows)")
    for row in rows:
        b, m = row["link"], row["name"].split(" ", 1)[1]
        ms = [r for r in records if r["bench"] == b and r["metric"] == m]
        pick = max if m in report.LOWER_IS_BETTER_EXCEPT else min
        v = pick(float(r["value"]) for r in ms if r["system"].startswith("vigil"))
        p = pick(float(r["value"]) for r in ms if not r["system"].startswith("vigil"))
        check(number_in(row["cells"][2], v) and number_in(row["cells"][3], p) and
              row["cells"][4] == f"{v / p:.2f}",
              f"{b} {m}: vigil {v}, best other {p}, ratio {v / p:.2f} ({row['cells'][2:5]})")
    check(all(f"id='{b}'" in page for b in benches), "every benchmark has its section")
    check(fits(page), "tables fit the page width")

    # 2. the checker
    tpath = report.TARGETS_PY
    if not os.path.exists(tpath):
        print(f"note: {tpath} not present: the summary with targets is not checked")
    else:
        page = render(tmp, tpath)
        rows = summary_rows(page)
        run_dir = os.path.join(tmp, "cwd")
        os.makedirs(os.path.join(run_dir, "build", "lab"))
        shutil.copy(fixture, os.path.join(run_dir, "build", "lab", "results.jsonl"))
        r = subprocess.run([sys.executable, tpath], cwd=run_dir, capture_output=True, text=True)
        lines = [ln for ln in r.stdout.splitlines() if re.match(r"^(HOLDS|SHORT|MISSING) ", ln)]
        theirs = [(ln.split(None, 1)[0], ln.split(None, 1)[1].split(" -> ")[0]) for ln in lines]
        ours = [(row["state"], row["name"]) for row in rows]
        check(ours == theirs, f"the summary's targets and verdicts are targets.py's ({len(theirs)} targets)")
        held = sum(1 for s, _ in theirs if s == "HOLDS")
        check(f"{held} of {len(theirs)} targets hold" in page, f"the summary counts {held} of {len(theirs)} holding")
        known = {  # target name -> (vigil value, peer value, ratio, state) from the records
            "smallset vigil (epoll backend) <= 1.10x raw epoll_wait": (199.4, 196.5, "1.01", "HOLDS"),
            "smallset vigil (epoll backend) < libevent": (199.4, 247.8, "0.80", "HOLDS"),
            "ctl-batch k=32 vigil <= 1.05x one-by-one epoll_ctl": (326.406, 381.219, "0.86", "HOLDS"),
            "mq-empty send+receive pair vigil <= 1.0x boost": (22.2188, 24.25, "0.92", "HOLDS"),
        }
        by_name = {row["name"]: row for row in rows}
        for name, (v, p, ratio, state) in known.items():
            row = by_name.get(name)
            check(row is not None and number_in(row["cells"][2], v) and number_in(row["cells"][3], p)
                  and row["cells"][4] == ratio and row["state"] == state,
                  f"{name}: vigil {v}, peer {p}, ratio {ratio}, {state} ({row and row['cells'][2:]})")
        check(all(row["link"] in benches or row["state"] == "MISSING" for row in rows),
              "rows link to the benchmark sections")
        check(fits(page), "tables fit the page width (with targets)")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"{len(fails)} failed" if fails else "report summary: all checks passed")
sys.exit(1 if fails else 0)
