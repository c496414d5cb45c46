#!/usr/bin/python3
"""lab/common/rounds.py pools a benchmark's rounds the way its docstring says, checked
against figures computed here by hand:

1. "total"/"per" records: value = sum(total) / sum(per) over the rounds.
2. The same with "pool": "median": value = the median of each round's total / per
   (odd and even counts), min and max the extreme rounds; one wild round moves a sum
   but not the median; a key that describes one round ("calls") does not keep rounds
   apart and comes from the median round.
3. "samples" records: p50 and p99 by bench.h's rule over every sample of every round.
4. Series stay apart: records that differ in any key but the figures are not merged,
   and records without figures pass through untouched.

  rounds_pool.py <source root>
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.abspath(sys.argv[1]), "lab", "common"))
import rounds  # noqa: E402

fails = []


def check(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got!r}, want {want!r}")


def rec(system, v, per, **kw):
    return dict(bench="b", system=system, metric="m", value=v / per, total=v, per=per, **kw)


# 1. sums
out = rounds.pool([rec("a", 10, 2), rec("a", 30, 2), rec("a", 500, 6)])
check("sum pooling: one record", len(out), 1)
check("sum pooling: value", out[0]["value"], round(540 / 10, 4))
check("sum pooling: rounds", out[0]["rounds"], 3)

# 2. medians, with one wild round
five = [rec("a", v, 1, pool="median") for v in (7.0, 5.0, 1000.0, 6.0, 4.0)]
out = rounds.pool(five)
check("median of 5: value", out[0]["value"], 6.0)
check("median of 5: min/max", (out[0]["min"], out[0]["max"]), (4.0, 1000.0))
check("median of 5: pool kept", out[0].get("pool"), "median")
out = rounds.pool([rec("a", v * 3, 3, pool="median") for v in (2.0, 8.0, 4.0, 100.0)])
check("median of 4: mean of the middle two", out[0]["value"], 6.0)

# 2b. counting runs: "calls" and "tool" (the tracer) differ per run, the runs still pool,
# and the breakdown and tracer are the median run's
cnt = [dict(bench="b", system="a", metric="syscalls_per_request", value=t / 1000, total=t, per=1000,
            pool="median", calls=f"io_uring_enter {t / 1000}", tool=tool)
       for t, tool in ((25.0, "perf trace"), (185.0, "perf trace"), (45.0, "strace"))]
out = rounds.pool(cnt)
check("counting runs: one record", len(out), 1)
check("counting runs: median", out[0]["value"], 0.045)
check("counting runs: the median run's breakdown", out[0]["calls"], "io_uring_enter 0.045")
check("counting runs: the median run's tracer", out[0]["tool"], "strace")

# 3. samples
out = rounds.pool([dict(bench="b", system="a", metric="lat", samples=list(range(1, 51))),
                   dict(bench="b", system="a", metric="lat", samples=list(range(51, 101)))])
check("samples: p50 (element floor(n/2) of 1..100)", out[0]["p50"], 51.0)
check("samples: p99 (element floor(99*0.99))", out[0]["p99"], 99.0)
check("samples: n", out[0]["n"], 100)

# 4. series apart
out = rounds.pool([rec("a", 1, 1), rec("b", 3, 1), rec("a", 5, 1, conns=2), dict(bench="b", note="x")])
check("series apart: count", len(out), 4)
check("series apart: a", out[0]["value"], 1.0)
check("untouched record", out[3], dict(bench="b", note="x"))

for f in fails:
    print("FAIL", f)
print(f"rounds_pool: {'FAIL' if fails else 'ok'} ({len(fails)} failures)")
sys.exit(1 if fails else 0)
