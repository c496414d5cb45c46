#!/usr/bin/python3
"""The project's claims (lab/claims.py) and the issues' checker (../shared/targets.py,
beside the repository) agree on what each benchmark records. Skips (77) where the checker
is not there (a user's clone).

  claims_targets.py <source root>

1. Every benchmark with claims is one the checker checks, and every benchmark the lab has
   (lab/*/bench.py) that the checker checks has claims.
2. For each benchmark, records made from exactly what the claims read (their bench,
   system, case, backend, parameters and metric, figures 1) give the checker every
   record it looks for: none of its targets is MISSING (but the pure-spin reference's
   presence, which is no claim of vigil) and none finds records of another shape.
3. The checker reads each (system, metric) the claims read: none is read by the claims
   alone.
4. The two against each other as oracles: on those records with random figures (100
   seeded draws around the thresholds, every record present), each benchmark gets as
   many verdicts, and as many holding, from the claims as from the checker. (With
   records missing they may differ by design: the checker leaves out what it finds no
   records for, where the claims say "not measured".)
"""
import importlib.util
import io
import os
import random
import sys
from contextlib import redirect_stdout

from labcheck import check, fails, finish, src

import claims  # noqa: E402
import run as lab  # noqa: E402

CANDIDATES = [os.path.join(src, "..", "shared", "targets.py"), os.path.join(src, "..", "..", "shared", "targets.py"),
              "/work/shared/targets.py"]
path = next((os.path.normpath(p) for p in CANDIDATES if os.path.exists(p)), None)
if not path:
    print("skip: no ../shared/targets.py beside the repository (the issues' checker); nothing to compare")
    sys.exit(77)
spec = importlib.util.spec_from_file_location("vigil_shared_targets", path)
targets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(targets)
NOT_CLAIMS = ("timer-error pure-spin reference in the lab",)  # a reference series' presence, not a claim

bench_of = {name: getattr(targets, "BENCH", {}).get(name, name) for name in targets.CHECKS}
checked = set(bench_of.values())
claimed = list(dict.fromkeys(c.bench for c in claims.CLAIMS))
in_lab = {m.NAME for _, m in lab.discover()}
check(set(claimed) <= checked, f"every benchmark with claims is checked by {path} ({sorted(set(claimed) - checked)} not)")
check(not (in_lab & checked) - set(claimed), f"every benchmark of the lab the checker checks has claims "
      f"({sorted((in_lab & checked) - set(claimed))} have none)")


def records_read(bench):
    """One record per Records the bench's claims read, figures 1. A Records that names no
    parameters (a bound over every delay) is covered by those of the same series that do:
    real records always carry their parameters."""
    rows, seen = [], set()
    reads = [r for c in claims.CLAIMS if c.bench == bench for t in (c.test,) + c.also for r in (t.mine,) + t.ref]
    with_params = {(r.system, r.metric, r.case) for r in reads if r.params}
    for r in reads:
        if r in seen or (not r.params and (r.system, r.metric, r.case) in with_params):
            continue
        seen.add(r)
        rec = dict(bench=bench, system=r.system, metric=r.metric, case=r.case or "", value=1.0, p50=1.0, p99=1.0,
                   run="claims")
        if r.backend:
            rec["backend"] = r.backend
        rec.update(dict(r.params))
        rows.append(rec)
    return rows


read_by = {}  # bench -> (system, metric) the checker read
for name, bench in bench_of.items():
    if bench not in claimed:
        continue
    rows = records_read(bench)
    read = read_by.setdefault(bench, set())
    orig = targets.pick

    def spy(rs, system=None, case=None, metric=None, **extra):
        got = orig(rs, system=system, case=case, metric=metric, **extra)
        if system:
            read.update((r.get("system"), r.get("metric")) for r in got)
        return got
    targets.pick = spy
    rep = targets.Report()
    try:
        with redirect_stdout(io.StringIO()):
            targets.CHECKS[name](rows, rep)
    except Exception as e:  # the checker's own shape errors are the finding
        rep.check(name, False, f"records not in the lab contract's shape: {e!r}")
    finally:
        targets.pick = orig
    lines = [ln for ln in rep.lines if not any(ln.split(None, 1)[1].startswith(n) for n in NOT_CLAIMS)]
    missing = [ln for ln in lines if ln.startswith("MISSING") or "not in the lab contract's shape" in ln]
    check(not missing, f"{name}: the claims' records give the checker all {len(lines)} of its targets' records"
          + (f"; not: {missing[:3]}" if missing else ""))
for bench, read in read_by.items():
    mine = {(r["system"], r["metric"]) for r in records_read(bench)}
    check(mine <= read, f"{bench}: the checker reads every system and metric the claims read"
          + (f"; not: {sorted(mine - read)}" if mine - read else ""))
COUNTS = ("early_count", "starved_conns", "syscalls_per_batch", "syscalls_per_turn")
differ = []
for seed in range(100):
    rnd = random.Random(seed)
    for bench in claimed:
        rows = records_read(bench)
        for r in rows:
            for k in ("value", "p50", "p99"):  # signed errors in py-timers; counts that are 0 or not
                r[k] = (rnd.choice([0, 1, 5]) if r["metric"] in COUNTS else
                        rnd.uniform(-1.5, 1.5) if bench == "py-timers" else rnd.uniform(0.5, 1.5))
        lines = []
        for name in (n for n, b in bench_of.items() if b == bench):
            rep = targets.Report()
            with redirect_stdout(io.StringIO()):
                targets.CHECKS[name](rows, rep)
            lines += [ln for ln in rep.lines if not any(ln.split(None, 1)[1].startswith(n) for n in NOT_CLAIMS)]
        vs = claims.check(rows, benches={bench})
        theirs = (len(lines), sum(ln.startswith("HOLDS") for ln in lines))
        ours = (len(vs), sum(v.state == claims.HOLDS for v in vs))
        if theirs != ours:
            differ.append(f"seed {seed} {bench}: checker {theirs}, claims {ours} (verdicts, holding)")
check(not differ, f"on 100 random draws the claims and the checker agree, benchmark by benchmark ({differ[:3]})")
finish("claims and targets: all checks passed")
