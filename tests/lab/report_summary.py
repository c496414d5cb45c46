#!/usr/bin/python3
"""lab/report.py renders the report from a small recorded run (tests/lab/results.jsonl:
16 records of smallset, ctl-batch and mq-empty from the lab run of 2026-11-23) and its
summary table says what the records say.

  report_summary.py <source root>

1. Without the targets checker (--targets at a missing file, as on a user's clone): the
   summary has the project's claims (lab/claims.py) with their verdicts, one row per
   claim of the benchmarks in the records (claims.check's verdicts, with vigil's figure
   and the threshold), one "not run" row for each other benchmark, and no issues'
   targets table.
2. With ../shared/targets.py (when present beside the repository): a second table has the
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

from labcheck import check, fails, finish, src

fixture = os.path.join(src, "tests", "lab", "results.jsonl")
import report  # noqa: E402
import claims  # noqa: E402


def render(tmp, targets):
    out = os.path.join(tmp, "lab")
    os.makedirs(out, exist_ok=True)
    shutil.copy(fixture, os.path.join(out, "results.jsonl"))
    r = subprocess.run([sys.executable, os.path.join(src, "lab", "report.py"), "--out", out, "--targets", targets],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"report.py --targets {targets} exits 0 ({r.stderr.strip()[-300:]})")
    with open(os.path.join(out, "report.html")) as f:
        return f.read()


def cells_of(tr):
    return [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]


def claim_rows(page):
    return [(b, s, cells_of(tr)) for b, s, tr in
            re.findall(r"<tr class=claim data-bench='([^']*)' data-state='([^']*)'>(.*?)</tr>", page, re.S)]


def summary_rows(page):
    rows = []
    for tr in re.findall(r"<tr class=target data-name='([^']*)' data-state='([^']*)'>(.*?)</tr>", page, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr[2], re.S)]
        rows.append({"name": html.unescape(tr[0]), "state": tr[1], "cells": cells,
                     "link": re.search(r"href='#([^']+)'", tr[2]).group(1)})
    return rows


def number_in(text, value):
    """`value` shown in `text` as the report formats it."""
    return claims.fmt(float(value)) in text


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
    # 1. no checker: the project's claims
    page = render(tmp, os.path.join(tmp, "no-such-targets.py"))
    rows = claim_rows(page)
    check(len(re.findall(r"<h2 id=summary>", page)) == 1 and page.index("id=summary") < page.index("class=bench id="),
          "one summary table, before the benchmarks")
    check("id=targets" not in page and "class=target " not in page, "without the checker, no issues' targets table")
    verdicts = claims.check(records)
    want = [(v.claim.bench, v.state, v.claim.text) for v in verdicts if v.claim.bench in benches]
    check([(b, s, c[0]) for b, s, c in rows if s != "not run"] == want,
          f"one row per claim of the benchmarks run, with claims.py's verdict ({len(want)} rows)")
    for v, (b, s, c) in zip([v for v in verdicts if v.claim.bench in benches], [r for r in rows if r[1] != "not run"]):
        shown = (v.mine is None or number_in(c[2], v.mine)) and (v.threshold is None or number_in(c[3], v.threshold))
        check(shown and c[-1] == v.state, f"{b}: {c[0]}: vigil {v.mine}, threshold {v.threshold}, {v.state} ({c[2:]})")
    not_run = [b for b, s, _ in rows if s == "not run"]
    others = [b for b in dict.fromkeys(x.bench for x in claims.CLAIMS) if b not in benches]
    check(not_run == others, f"one 'not run' row for each other benchmark with claims ({len(others)})")
    check(all(f"id='{b}'" in page for b in benches), "every benchmark has its section")
    check(fits(page), "tables fit the page width")

    # 2. the checker
    tpath = report.TARGETS_PY
    if not os.path.exists(tpath):
        print(f"note: {tpath} not present: the summary with targets is not checked")
    else:
        page = render(tmp, tpath)
        rows = summary_rows(page)
        check(page.index("id=summary") < page.index("id=targets") < page.index("class=bench id="),
              "the issues' targets table follows the claims, before the benchmarks")
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
finish("report summary: all checks passed")
