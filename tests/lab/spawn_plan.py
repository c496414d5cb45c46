#!/usr/bin/python3
"""lab/spawn's full plan treats vigil and posix_spawn alike and decides on medians.

  spawn_plan.py <source root>

1. At each parent size, vigil and posix_spawn run in the same rounds (at least 5 of them),
   with the same window (--ms) and the same in-flight counts, and in every round in which
   one runs the other does too; every system runs at 16 MiB in every round.
2. Programs' rate and CPU records are pooled as the median round: sp.h marks
   spawns_per_s and cpu_ns_per_spawn "pool": "median", and rounds.pool() then keeps the
   middle round of records shaped like them, not their sum.
"""
import importlib.util
import os
import re
import sys
import tempfile

from labcheck import check, finish, src

sys.path.insert(0, os.path.join(src, "lab", "common"))  # bench.py's own imports (rounds, plotting)
import rounds  # noqa: E402

spec = importlib.util.spec_from_file_location("vigil_lab_spawn", os.path.join(src, "lab", "spawn", "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


class Ctx:
    def __init__(self, bin_dir):
        self.bin, self.quick, self.tmp, self.out = bin_dir, False, bin_dir, bin_dir


with tempfile.TemporaryDirectory() as d:
    for prog in {s[1] for s in bench.SYSTEMS}:
        open(os.path.join(d, prog), "w").close()
    steps = bench.plan(Ctx(d))


def arg(cmd, name):
    return cmd[cmd.index(name) + 1] if name in cmd else None


def runs(label, mb):
    """{round: (ms, inflight)} of one system at one size, from the steps' labels and commands."""
    out = {}
    for st in steps:
        m = re.match(r"round (\d+)/\d+: (\d+) MiB: (\S+)$", st["label"])
        if m and m.group(3) == label and int(m.group(2)) == mb:
            out[int(m.group(1))] = (arg(st["cmd"], "--ms"), arg(st["cmd"], "--inflight"))
    return out


n_rounds = max(int(re.match(r"round \d+/(\d+)", st["label"]).group(1)) for st in steps)
check(n_rounds >= 5, f"spawn: {n_rounds} rounds (at least 5)")
for mb in bench.RSS:
    v, ps = runs("vigil", mb), runs("posix_spawn", mb)
    check(v == ps and len(v) == n_rounds, f"spawn {mb} MiB: vigil and posix_spawn in the same {len(v)} rounds, same windows and in-flight counts")
for s in bench.SYSTEMS:
    check(len(runs(s[0], 16)) == n_rounds, f"spawn 16 MiB: {s[0]} in every round")

sp_h = open(os.path.join(src, "lab", "spawn", "sp.h")).read()
for metric in ("spawns_per_s", "cpu_ns_per_spawn"):
    line = next((ln for ln in sp_h.splitlines() if f'\\"metric\\":\\"{metric}\\"' in ln), "")
    check('\\"pool\\":\\"median\\"' in line, f"sp.h: {metric} marked pool median")

# Records shaped as sp.h prints them: 5 rounds, one of them disturbed (a tenth of the rate).
recs = [dict(bench="spawn", system="vigil", case="", inflight=1, parent_rss_mb=16, metric="spawns_per_s",
             value=c / 0.3, total=c, per=0.3, pool="median") for c in (480, 500, 510, 50, 490)]
out = rounds.pool(recs)
check(len(out) == 1 and abs(out[0]["value"] - 490 / 0.3) < 0.01 and out[0]["rounds"] == 5,
      f"pool: the median round's rate ({out[0]['value'] if out else None})")
finish("spawn_plan: ok")
