#!/usr/bin/python3
"""Counts the system calls of a loop turn: runs a smallset program under strace with
--count N and prints one "syscalls_per_turn" record per series it marked.

  count.py [--strace PATH] [--turns N] PROGRAM [ARGS...]

The program prints "count-series {keys}" on stdout, then makes its N turns between two
getppid() calls (turns_mark in turns.h); every call strace sees between the markers is
the loop's. The timed runs never run under strace: this is a separate counting run.
Exit 77 (skip) when strace or the program is missing, or the program skips."""
import json
import os
import re
import subprocess
import sys
import tempfile

CALL = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+([a-z_0-9]+)\(")


def main(argv):
    strace, turns = "/usr/bin/strace", 2000
    while argv and argv[0].startswith("--"):
        if argv[0] == "--strace":
            strace = argv[1]
        elif argv[0] == "--turns":
            turns = int(argv[1])
        else:
            print(f"unknown option {argv[0]}", file=sys.stderr)
            return 2
        argv = argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if not os.access(strace, os.X_OK):
        print(f"skip: no strace at {strace}", file=sys.stderr)
        return 77
    if not os.access(argv[0], os.X_OK):
        print(f"skip: program {os.path.basename(argv[0])} not built", file=sys.stderr)
        return 77
    with tempfile.NamedTemporaryFile(prefix="vigil-count-", suffix=".strace") as tf:
        p = subprocess.run([strace, "-f", "-qq", "-o", tf.name] + argv + ["--count", str(turns)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sys.stderr.write(p.stderr)
        if p.returncode != 0:
            return p.returncode
        with open(tf.name) as f:
            trace = f.read().splitlines()
    series = [json.loads(l[len("count-series "):]) for l in p.stdout.splitlines() if l.startswith("count-series ")]
    segs, cur = [], None
    for line in trace:
        m = CALL.match(line)
        if not m:
            continue  # "<... resumed>", signals, exits
        name = m.group(2)
        if name == "getppid":
            if cur is None:
                cur = {}
            else:
                segs.append(cur)
                cur = None
        elif cur is not None:
            cur[name] = cur.get(name, 0) + 1
    if len(segs) != len(series):
        print(f"{len(series)} series marked but {len(segs)} counted segments in the trace", file=sys.stderr)
        return 1
    for keys, seg in zip(series, segs):
        total = sum(seg.values())
        rec = dict(keys)
        rec.update(metric="syscalls_per_turn", value=round(total / turns, 4), n=turns,
                   calls=", ".join(f"{k} {v / turns:.3g}" for k, v in sorted(seg.items(), key=lambda kv: -kv[1])))
        order = ["bench", "system", "case", "metric", "value", "n"]
        print(json.dumps({k: rec[k] for k in order + [k for k in rec if k not in order]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
