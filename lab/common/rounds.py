"""The lab's one way to pool rounds, runner side (lab/common/rounds.h is the program side).

A benchmark runs each system in several short rounds, in alternation; every round's
program prints its own records. pool() merges the records of one series (records of one
benchmark that agree in every key but the figures) into one, from what they carry:

  "samples": [x, ...]        value = p50 = median of all samples, p99 = sample
  "hist": [[x, count], ...]  floor((n-1)*0.99) of the sorted samples (bench.h's rule),
                             mean, min, max and n over all samples
  "total": t [, "per": p]    value = sum(t) / sum(p), or sum(t) without "per"
  ... and "pool": "median"   value = the median of the rounds' own t / p (min and max:
                             the extreme rounds). For figures a disturbed round can
                             swing (server CPU per request on a shared VM moves by 20-30%
                             from one second to the next): one bad round shifts a sum
                             but not a median. Every system of a benchmark is pooled
                             the same way. Keys that describe one round ("calls": a
                             counting run's per-call breakdown) come from the median
                             round and do not split the series.

and sets "rounds" to the number of records merged. The raw samples are not kept.
Records that carry none of these are left as they are.
"""
import json

# Keys that describe a measurement rather than name it: pooled or overwritten, never
# part of a series' identity.
STAT_KEYS = ("value", "p50", "p99", "mean", "n", "min", "max", "samples", "hist", "total", "per", "rounds", "pool")
RUN_KEYS = ("run", "kernel", "machine", "date")
# Keys that describe one round's figure (a counting run's per-call breakdown and tracer):
# not part of a series' identity; a median-pooled record takes them from its median round.
ROUND_KEYS = ("calls", "tool")


def series_key(rec):
    """What a record measures, apart from its figures: every key but the stats."""
    return json.dumps({k: v for k, v in rec.items() if k not in STAT_KEYS and k not in RUN_KEYS
                       and k not in ROUND_KEYS}, sort_keys=True)


def pctl(sorted_vals, q):
    """Same rule as lab/common/bench.h: element floor((n-1)*q) of the sorted samples."""
    return sorted_vals[int((len(sorted_vals) - 1) * q)]


def _at(hist, rank):
    """The value at 0-based rank of a sorted [(value, count)] list."""
    seen = 0
    for v, c in hist:
        seen += c
        if seen > rank:
            return v
    return hist[-1][0]


def _kind(rec):
    if isinstance(rec.get("samples"), list) or isinstance(rec.get("hist"), list):
        return "dist"
    if "total" in rec:
        return "total"
    return None


def pool(records):
    """Merges the rounds of each series; order: first appearance."""
    out, groups = [], {}
    for rec in records:
        kind = _kind(rec)
        if kind is None:
            out.append(rec)
            continue
        k = (kind, series_key(rec))
        g = groups.get(k)
        if g is None:
            g = groups[k] = {"rec": dict(rec), "counts": {}, "total": 0.0, "per": 0.0, "has_per": False,
                             "rounds": 0, "each": []}
            out.append(g["rec"])
        g["rounds"] += 1
        if kind == "dist":
            for x in rec.get("samples") or []:
                g["counts"][float(x)] = g["counts"].get(float(x), 0) + 1
            for x, c in rec.get("hist") or []:
                g["counts"][float(x)] = g["counts"].get(float(x), 0) + int(c)
        else:
            g["total"] += float(rec["total"])
            if "per" in rec:
                g["has_per"] = True
                g["per"] += float(rec["per"])
            if rec.get("pool") == "median":
                per = float(rec.get("per", 1.0))
                g["each"].append((float(rec["total"]) / per if per > 0 else float(rec["value"]),
                                  {k: rec[k] for k in ROUND_KEYS if k in rec}))
    for (kind, _), g in groups.items():
        r = g["rec"]
        for key in ("samples", "hist", "total", "per", "min", "max"):
            r.pop(key, None)
        r["rounds"] = g["rounds"]
        if kind == "total":
            if g["each"] and len(g["each"]) == g["rounds"]:
                each = sorted(g["each"], key=lambda e: e[0])
                mid = len(each) // 2
                med = each[mid][0] if len(each) % 2 else (each[mid - 1][0] + each[mid][0]) / 2
                r["value"], r["min"], r["max"] = round(med, 4), round(each[0][0], 4), round(each[-1][0], 4)
                r.update(each[mid if len(each) % 2 else mid - 1][1])
            else:
                r["value"] = round(g["total"] / g["per"], 4) if g["has_per"] and g["per"] > 0 else g["total"]
            continue
        hist = sorted(g["counts"].items())
        n = sum(c for _, c in hist)
        if n == 0:
            continue
        r["value"] = r["p50"] = _at(hist, n // 2)
        r["p99"] = _at(hist, int((n - 1) * 0.99))
        r["mean"] = round(sum(v * c for v, c in hist) / n, 4)
        r["min"], r["max"] = hist[0][0], hist[-1][0]
        r["n"] = n
    return out


def alternate(rounds, groups, systems, step):
    """A bench.py's timed steps, systems in alternation: for each round and each group (a
    parameter set, or [None]), every system once, the order rotated by one from group to
    group and round to round, so each system runs at each place about equally often.
    step(r, group, system) returns the step (a dict) or None."""
    steps = []
    for r in range(rounds):
        for gi, g in enumerate(groups):
            k = (r + gi) % len(systems) if systems else 0
            for s in systems[k:] + systems[:k]:
                st = step(r, g, s)
                if st:
                    steps.append(st)
    return steps


def paired_order(pairs, k):
    """The order of round k when each system runs next to the peer its target compares it
    with: the pairs (lists of systems) rotated by k, and within each pair the first
    system alternating every len(pairs) rounds, so each system of a pair runs first and
    second equally often. Empty pairs are left out."""
    pairs = [p for p in pairs if p]
    if not pairs:
        return []
    k0 = k % len(pairs)
    out = []
    for p in pairs[k0:] + pairs[:k0]:
        out += p if (k // len(pairs)) % 2 == 0 else p[::-1]
    return out
