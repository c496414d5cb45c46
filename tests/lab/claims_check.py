#!/usr/bin/python3
"""The project's claims (lab/claims.py) judged on a tiny synthetic results.jsonl, through
the checker (claims.check), its command line and the report (lab/report.py, with no
issues' checker beside it, as on a user's clone).

  claims_check.py <source root>

The records are written here, so each verdict is known: a claim that holds, claims that
fall short (one only when rates count higher-is-better, one only when a signed error is
compared by its size), claims whose records are missing (not measured, never passed), a
claim that holds for one engine of two, and an older run whose records must not count.
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

import claims  # noqa: E402


def rec(run, bench, system, metric, value, **kw):
    return dict(bench=bench, system=system, metric=metric, value=value, run=run, **kw)


OLD, NEW = "20260101T000000Z", "20260102T000000Z"
net = dict(conns=100, msg_bytes=64)
records = [
    # an older run: vigil fast enough there to beat libuv; only the last run counts
    rec(OLD, "smallset", "vigil", "ns_per_turn", 50, backend="epoll", case="vigil epoll", fds=1),
    rec(NEW, "smallset", "kernel", "ns_per_turn", 100, case="epoll_wait", fds=1),
    rec(NEW, "smallset", "vigil", "ns_per_turn", 105, backend="epoll", case="vigil epoll", fds=1),
    rec(NEW, "smallset", "libuv", "ns_per_turn", 90, case="uv_run nowait", fds=1),
    rec(NEW, "smallset", "libevent", "ns_per_turn", 200, case="event_base_loop nonblock", fds=1),
    # (no libev, no vigil uring: those claims are not measured)
    # requests/s: the best other server is the highest (1000): 960 < 0.97 x 1000 falls short
    rec(NEW, "net-echo", "vigil", "requests_per_s", 960, backend="uring", case="echo", **net),
    rec(NEW, "net-echo", "kernel", "requests_per_s", 1000, case="epoll", **net),
    rec(NEW, "net-echo", "liburing", "requests_per_s", 900, case="echo", **net),
    rec(NEW, "net-echo", "libuv", "requests_per_s", 800, case="echo", **net),
    rec(NEW, "net-echo", "libevent", "requests_per_s", 700, case="echo", **net),
    rec(NEW, "net-echo", "libev", "requests_per_s", 600, case="echo", **net),
    # signed errors compared by size: |-0.5| < |2.0| holds, |-0.5| < |-0.3| falls short
    rec(NEW, "py-timers", "vigil", "error_us", -0.5, p50=-0.5, p99=3, backend="uring", delay_us=1),
    rec(NEW, "py-timers", "asyncio", "error_us", 2.0, p50=2.0, p99=900, delay_us=1),
    rec(NEW, "py-timers", "uvloop", "error_us", -0.3, p50=-0.3, p99=800, delay_us=1),
    # one engine of two passes both halves: threads (140 >= 1.3 x 100 IOPS, 400 <= 0.5 x 1000 ns)
    rec(NEW, "file-batch", "vigil", "iops", 200, engine="uring", case="read", file="cached", batch=32),
    rec(NEW, "file-batch", "vigil", "cpu_ns_per_io", 600, engine="uring", case="read", file="cached", batch=32),
    rec(NEW, "file-batch", "vigil", "iops", 140, engine="threads", case="read", file="cached", batch=32),
    rec(NEW, "file-batch", "vigil", "cpu_ns_per_io", 400, engine="threads", case="read", file="cached", batch=32),
    rec(NEW, "file-batch", "libuv", "iops", 100, case="read", file="cached", batch=32),
    rec(NEW, "file-batch", "libuv", "cpu_ns_per_io", 1000, case="read", file="cached", batch=32),
]
EXPECT = {  # claim text -> (verdict, vigil's figure, threshold)
    "a non-blocking turn on epoll costs at most 1.10x a raw epoll_wait(..., 0)": (claims.HOLDS, 105, 110),
    "a non-blocking turn on epoll costs less than libuv's": (claims.SHORT, 105, 90),
    "a non-blocking turn on epoll costs less than libevent's": (claims.HOLDS, 105, 200),
    "a non-blocking turn on epoll costs less than libev's": (claims.MISSING, 105, None),
    "an idle non-blocking turn on io_uring costs at most 0.2x a raw epoll_wait (no system call)": (claims.MISSING, None, 20),
    "100 conns x 64 B: requests/s at least 0.97x the best other server": (claims.SHORT, 960, 970),
    "call_later(1 us): |p50 error| below asyncio's": (claims.HOLDS, -0.5, 2.0),
    "call_later(1 us): |p50 error| below uvloop's": (claims.SHORT, -0.5, 0.3),
    "cached file, batch 32: one engine reaches 1.3x libuv's IOPS at no more than 0.5x its CPU per I/O":
        (claims.HOLDS, 140, 130),
}

# 1. the contract's higher-is-better rule
check([m for m in ("requests_per_s", "ops_per_s", "spawns_per_s", "iops", "jain_index") if not claims.higher_is_better(m)]
      == [] and not any(claims.higher_is_better(m) for m in ("ns_per_op", "rss_kib_per_conn", "error_us", "late_ms")),
      "higher is better for every *_per_s metric, iops and jain_index, lower for the rest")

# 2. the verdicts
verdicts = claims.check(records)
by_text = {}
for v in verdicts:
    by_text.setdefault(v.claim.text, v)
for text, (state, mine, thr) in EXPECT.items():
    v = by_text.get(text)
    same_thr = (thr is None and v is not None and v.threshold is None) or \
        (thr is not None and v is not None and v.threshold is not None and abs(v.threshold - thr) < 1e-9)
    check(v is not None and v.state == state and v.mine == mine and same_thr,
          f"{text}: {state}, vigil {mine}, threshold {thr} (got {v and (v.state, v.mine, v.threshold)})")
check(all(v.state == claims.MISSING for v in verdicts if v.claim.bench in ("iteration", "mq-full", "net-fair")),
      "every claim of a benchmark without records is not measured")
check(not any(v.state == claims.HOLDS and v.mine is None for v in verdicts), "no claim holds without vigil's figure")

# 3. the command line: the verdicts of the benchmarks in the records, exit 1 when one falls short
tmp = tempfile.mkdtemp(prefix="vigil-claims-")
try:
    out = os.path.join(tmp, "lab")
    os.makedirs(out)
    with open(os.path.join(out, "results.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
    r = subprocess.run([sys.executable, os.path.join(src, "lab", "claims.py"), os.path.join(out, "results.jsonl")],
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    check(r.returncode == 1, f"claims.py exits 1 when a claim falls short (exit {r.returncode}, {r.stderr[-200:]})")
    benches = [ln.strip() for ln in lines if ln.startswith("   ") and not ln.startswith("     ")]
    check(benches == ["smallset", "file-batch", "net-echo", "py-timers"], f"it lists the benchmarks run ({benches})")
    libev = [ln for ln in lines if "less than libev's" in ln]
    check(len(libev) == 1 and libev[0].split()[0:2] == ["not", "measured"], f"a missing peer: not measured ({libev})")

    # 4. the report without the issues' checker (a user's clone): the claims with their verdicts
    r = subprocess.run([sys.executable, os.path.join(src, "lab", "report.py"), "--out", out,
                        "--targets", os.path.join(tmp, "no-such-targets.py")], capture_output=True, text=True)
    check(r.returncode == 0, f"report.py exits 0 ({r.stderr.strip()[-300:]})")
    page = open(os.path.join(out, "report.html")).read()
    rows = [(b, s, [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)])
            for b, s, tr in re.findall(r"<tr class=claim data-bench='([^']*)' data-state='([^']*)'>(.*?)</tr>", page, re.S)]
    shown = {cells[0]: (s, cells) for b, s, cells in rows if s != "not run"}
    for text, (state, mine, thr) in EXPECT.items():
        got = shown.get(text)
        ok = got is not None and got[0] == state and got[1][-1] == state
        if ok and mine is not None:
            ok = claims.fmt(mine) in got[1][2]
        if ok and thr is not None:
            ok = claims.fmt(float(thr)) in got[1][3]
        check(ok, f"report: {text}: {state}, figures shown ({got and got[1]})")
    check("No targets checked" not in page and "The claims at a glance" in page, "the report checks claims without ../shared")
    not_run = {b for b, s, _ in rows if s == "not run"}
    check({"iteration", "timer-error", "net-fair"} <= not_run and not not_run & {"smallset", "net-echo"},
          f"benchmarks that did not run collapse to one 'not run' row ({sorted(not_run)})")
    check(re.search(r"reproduces: 2006, select/poll small fd sets", page) is not None, "the seed figure a claim reproduces is shown")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
finish("claims: all checks passed")
