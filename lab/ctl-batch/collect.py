#!/usr/bin/env python3
"""Merge the rounds of a 2015 benchmark (ctl-batch, qemu-loop) and print its records.

Usage: collect.py BENCH SAMPLES [DESC:STRACE ...]
       collect.py trace STRACE PROGRAM ARGS...    (a counting run, see below)

SAMPLES holds the histogram blocks the timed runs appended (see series.h). Each
DESC:STRACE pair is one counting run: DESC says what each marked series is and which fds
are the benchmark's own, STRACE is `strace -f -qq -s 64 -o STRACE prog --count ...`.
Every input file is removed after it is read, so a scratch folder never mixes runs.
Records go to stdout (one JSON line each), diagnostics to stderr.

`trace` runs PROGRAM under strace into STRACE and exits with the program's status, or
77 (a skip, with the reason on stderr) where strace is missing or may not trace (ptrace
refused in a container): a machine without it still gets its timed figures.
"""
import json
import os
import re
import sys

FIRST = ["bench", "system", "case", "metric", "value", "p50", "p99", "mean", "n", "rounds"]


def record(bench, keys, **fig):
    rec = {"bench": bench}
    rec.update({k: v for k, v in keys.items() if k != "div"})
    rec.update(fig)
    ordered = {k: rec[k] for k in FIRST if k in rec}
    ordered.update({k: v for k, v in rec.items() if k not in ordered})
    return json.dumps(ordered, separators=(",", ":"))


def read_samples(path):
    """{series json: [total n, total sum, {value: count}, rounds]} merged over every round."""
    merged, cur = {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("series "):
                cur = merged.setdefault(line[7:], [0, 0.0, {}, 0])
                cur[3] += 1
            elif line.startswith("sum ") and cur is not None:
                p = line.split()
                cur[1] += float(p[1])
                cur[0] += int(p[3])
            elif line == "end":
                cur = None
            elif cur is not None and line:
                v, c = line.split()
                cur[2][float(v)] = cur[2].get(float(v), 0) + int(c)
    return merged


def quantile(hist, n, rank):
    seen = 0
    for v in sorted(hist):
        seen += hist[v]
        if seen > rank:
            return v
    return max(hist)


def timed(bench, path):
    out = []
    for key, (n, total, hist, rounds) in read_samples(path).items():
        keys = json.loads(key)
        div = float(keys.get("div", 1))
        if n <= 0:
            continue
        p50 = quantile(hist, n, n // 2) / div
        p99 = quantile(hist, n, int((n - 1) * 0.99)) / div
        out.append(record(bench, keys, value=round(p50, 2), p50=round(p50, 2), p99=round(p99, 2),
                          mean=round(total / n / div, 2), n=n, rounds=rounds))
    return out


LINE = re.compile(r"^\d+\s+(.*)$")
MARK = re.compile(r'^write\(-1, "lab-mark (begin|end) (\d+)"')


def read_desc(path):
    desc, last = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("count "):
                _, sid, js = line.rstrip("\n").split(" ", 2)
                last = int(sid)
                desc[last] = {"keys": json.loads(js), "own": set()}
            elif line.startswith("own") and last is not None:
                desc[last]["own"] = {int(x) for x in line.split()[1:]}
    return desc


def counted(bench, desc_path, strace_path):
    desc = read_desc(desc_path)
    calls, active = {}, None
    with open(strace_path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            rest = m.group(1)
            if rest.startswith(("<...", "---", "+++")):
                continue  # a resumed call (counted when it began), a signal, an exit
            mk = MARK.match(rest)
            if mk:
                active = int(mk.group(2)) if mk.group(1) == "begin" else None
                continue
            if active is None:
                continue
            name = rest.split("(", 1)[0]
            if name in ("read", "write") and active in desc:
                fd = rest.split("(", 1)[1].split(",", 1)[0]
                if fd.strip().isdigit() and int(fd) in desc[active]["own"]:
                    name = "bench:" + name  # the benchmark making an fd ready, not the loop
            calls.setdefault(active, {}).setdefault(name, 0)
            calls[active][name] += 1
    out = []
    for sid, d in sorted(desc.items()):
        keys, div = d["keys"], float(d["keys"]["div"])
        c = calls.get(sid, {})
        loop = sum(v for k, v in c.items() if not k.startswith("bench:"))
        detail = ", ".join(f"{k} {v / div:g}" for k, v in sorted(c.items(), key=lambda kv: -kv[1]))
        out.append(record(bench, keys, value=round(loop / div, 3), n=int(div), calls=detail))
    return out


STRACE = "/usr/bin/strace"


def run_traced(out, cmd):
    import shutil
    import subprocess
    exe = STRACE if os.path.exists(STRACE) else shutil.which("strace")
    if not exe:
        print("skip: strace is not installed (syscall counts need it)", file=sys.stderr)
        return 77
    p = subprocess.run([exe, "-f", "-qq", "-s", "64", "-o", out] + cmd, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(p.stderr)
    if p.returncode != 0 and "strace:" in p.stderr and (not os.path.exists(out) or os.path.getsize(out) == 0):
        print(f"skip: strace cannot trace here: {p.stderr.strip().splitlines()[-1]}", file=sys.stderr)
        return 77
    return p.returncode


def main(argv):
    if len(argv) >= 4 and argv[1] == "trace":
        return run_traced(argv[2], argv[3:])
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bench, samples = argv[1], argv[2]
    lines = []
    if os.path.exists(samples):
        lines += timed(bench, samples)
        os.unlink(samples)
    else:
        print(f"{bench}: no samples (every timed step failed or was skipped)", file=sys.stderr)
    for pair in argv[3:]:
        desc, trace = pair.split(":", 1)
        if os.path.exists(desc) and os.path.exists(trace):
            lines += counted(bench, desc, trace)
        else:
            print(f"{bench}: counting run {os.path.basename(trace)} left no output (skipped, or strace refused)",
                  file=sys.stderr)
        for p in (desc, trace):
            if os.path.exists(p):
                os.unlink(p)
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
