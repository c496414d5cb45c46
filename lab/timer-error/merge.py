#!/usr/bin/env python3
"""timer-error's last step: pools the rounds each program appended to the raw file
(one JSON line per series and round: errs_ns, cpu_ns) and prints the records:
error_us (value = p50; p50/p99/mean/n over all samples, the rule of lab/common/bench.h),
early_count (sum over rounds) and cpu_ns_per_wakeup (CPU of all rounds / wake-ups)."""
import json
import sys


def main(path):
    series, order = {}, []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            key = (r["system"], r["case"], r.get("backend"), int(r["delay_us"]))
            if key not in series:
                series[key] = {"errs": [], "cpu": 0}
                order.append(key)
            series[key]["errs"].extend(int(x) for x in r["errs_ns"])
            series[key]["cpu"] += int(r["cpu_ns"])
    for key in order:
        system, case, backend, delay = key
        errs = sorted(series[key]["errs"])
        if not errs:
            continue
        n = len(errs)
        base = {"bench": "timer-error", "system": system, "case": case}
        extra = {"delay_us": delay}
        if backend:
            extra["backend"] = backend
        p50 = errs[n // 2] / 1000.0
        p99 = errs[int((n - 1) * 0.99)] / 1000.0
        mean = sum(errs) / n / 1000.0
        out = [
            dict(base, metric="error_us", value=round(p50, 4), p50=round(p50, 4), p99=round(p99, 4),
                 mean=round(mean, 4), n=n, min=round(errs[0] / 1000.0, 4), max=round(errs[-1] / 1000.0, 4), **extra),
            dict(base, metric="early_count", value=sum(1 for e in errs if e < 0), n=n, **extra),
            dict(base, metric="cpu_ns_per_wakeup", value=round(series[key]["cpu"] / n, 1), n=n, **extra),
        ]
        for rec in out:
            print(json.dumps(rec))


if __name__ == "__main__":
    main(sys.argv[1])
