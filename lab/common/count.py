#!/usr/bin/env python3
"""The lab's one way to count system calls (see lab/common/count.h for the program side).

  count.py PROGRAM [ARGS...]     (ARGS include the program's --count N)

Runs PROGRAM under `strace -f` (every thread), reads the series it described on stdout
("count-series <id> <div> {keys}", "count-own <id> <fd>...") and counts the calls each
made between its markers, write(-1, "lab-mark begin|end <id>"). Prints one record per
series: its keys, value = the measured system's calls / div, n = div, and "calls" (each
call by name, per unit; the benchmark's own read/write on its fds as bench:read /
bench:write, not in the value). Counting runs are never timed.

Exit status: the program's; 77 (a skip, the reason on stderr's last line) when strace is
missing or may not trace here (ptrace refused in a container), so a machine without it
still gets its timed figures.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

STRACE = "/usr/bin/strace"
LINE = re.compile(r"^(?:\[pid\s+)?(?:\d+\]?\s+)?(.*)$")
MARK = re.compile(r'^write\(-1, "lab-mark (begin|end) (\d+)"')
FIRST = ["bench", "system", "case", "metric", "value", "n"]


def step(ctx, argv, count, label, est_s, env=None):
    """A bench.py's counting step: argv[0] a program in ctx.bin, run with --count N under
    this counter."""
    st = dict(cmd=[sys.executable or "/usr/bin/python3", os.path.abspath(__file__), os.path.join(ctx.bin, argv[0])]
              + [str(a) for a in argv[1:]] + ["--count", str(count)], label=label, est_s=est_s)
    if env:
        st["env"] = env
    return st


def describe(stdout):
    """{id: {"keys": {...}, "div": n, "own": {fd, ...}}} from the program's stdout."""
    desc = {}
    for line in stdout.splitlines():
        if line.startswith("count-series "):
            _, sid, div, js = line.split(" ", 3)
            desc[int(sid)] = {"keys": json.loads(js), "div": float(div), "own": set()}
        elif line.startswith("count-own "):
            p = line.split()
            if int(p[1]) in desc:
                desc[int(p[1])]["own"] = {int(x) for x in p[2:]}
    return desc


def tally(trace_lines, desc):
    """{id: {call name: count}} of the calls between each series' markers."""
    calls, active = {}, None
    for line in trace_lines:
        rest = LINE.match(line).group(1)
        if rest.startswith(("<...", "---", "+++")):
            continue  # a resumed call (counted when it began), a signal, an exit
        mk = MARK.match(rest)
        if mk:
            active = int(mk.group(2)) if mk.group(1) == "begin" else None
            if active is not None:
                calls.setdefault(active, {})  # a series may make no call at all
            continue
        if active is None or "(" not in rest:
            continue
        name = rest.split("(", 1)[0]
        if not re.fullmatch(r"[a-z_0-9]+", name):
            continue
        if name in ("read", "write") and active in desc:
            fd = rest.split("(", 1)[1].split(",", 1)[0].strip()
            if fd.isdigit() and int(fd) in desc[active]["own"]:
                name = "bench:" + name
        c = calls.setdefault(active, {})
        c[name] = c.get(name, 0) + 1
    return calls


def records(desc, calls):
    out = []
    for sid, d in sorted(desc.items()):
        div = d["div"]
        c = calls.get(sid, {})
        loop = sum(v for k, v in c.items() if not k.startswith("bench:"))
        rec = dict(d["keys"], value=round(loop / div, 4), n=int(div),
                   calls=", ".join(f"{k} {v / div:.3g}" for k, v in sorted(c.items(), key=lambda kv: -kv[1])))
        out.append({k: rec[k] for k in FIRST + [k for k in rec if k not in FIRST] if k in rec})
    return out


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    exe = STRACE if os.access(STRACE, os.X_OK) else shutil.which("strace")
    if not exe:
        print("skip: strace is not installed (system call counts need it)", file=sys.stderr)
        return 77
    if not os.access(argv[0], os.X_OK):
        print(f"skip: program {os.path.basename(argv[0])} not built", file=sys.stderr)
        return 77
    with tempfile.NamedTemporaryFile(prefix="vigil-count-", suffix=".strace") as tf:
        p = subprocess.run([exe, "-f", "-qq", "-s", "64", "-o", tf.name] + argv,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sys.stderr.write(p.stderr)
        if p.returncode != 0:
            if "strace:" in p.stderr and os.path.getsize(tf.name) == 0:
                print(f"skip: strace cannot trace here: {p.stderr.strip().splitlines()[-1]}", file=sys.stderr)
                return 77
            return p.returncode
        with open(tf.name) as f:
            trace = f.read().splitlines()
    desc = describe(p.stdout)
    calls = tally(trace, desc)
    missing = [sid for sid in desc if sid not in calls]
    if missing:
        print(f"series {missing} described but their markers are not in the trace", file=sys.stderr)
        return 1
    for rec in records(desc, calls):
        print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
