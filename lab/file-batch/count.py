"""file-batch: system calls per I/O, from counting runs separate from the timed runs.

Each (system, file, batch) runs twice in count mode (--count N and --count 2N: N
completions after a warm-up; N/2 on the written file, whose device is slow) under
`perf stat -e raw_syscalls:sys_enter` (every thread of the process, workers included);
calls per I/O = (calls(2N) - calls(N)) / N, so the set-up calls (open, ring set-up,
thread creation) cancel and only the steady state's remain. On the written file the
number of waits depends on the device's timing, so its counts are rougher. Prints one
syscalls_per_io record per (system, file, batch).

usage: count.py BIN DIR N BATCHES LABEL:PROG[:ARG...] ...
"""
import json
import os
import subprocess
import sys
import tempfile

PERF = "/usr/bin/perf"
FILES = ("written", "unwritten", "cached")


def calls(cmd):
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as out:
        r = subprocess.run([PERF, "stat", "-x", ",", "-e", "raw_syscalls:sys_enter", "-o", out.name, "--"] + cmd,
                           capture_output=True, text=True, timeout=300)
        if r.returncode == 77:
            return None, None
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()[-200:]}")
        keys = ""
        for line in r.stdout.splitlines():
            if line.startswith("keys "):
                keys = line[5:].strip()
        for line in out.read().splitlines():
            f = line.split(",")
            if len(f) > 2 and f[2].startswith("raw_syscalls:sys_enter"):
                return int(f[0]), keys
    raise RuntimeError("perf printed no count")


def main():
    bin_dir, d, n, batches = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
    systems = [a.split(":") for a in sys.argv[5:]]
    if not os.path.exists(PERF):
        print("file-batch: no perf, no system call counts", file=sys.stderr)
        sys.exit(77)
    probe = subprocess.run([PERF, "stat", "-x", ",", "-e", "raw_syscalls:sys_enter", "--", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:  # not root and perf_event_paranoid too strict, or no tracepoints
        last = (probe.stderr.strip().splitlines() or ["perf failed"])[-1]
        print(f"file-batch: perf cannot count system calls here: {last}", file=sys.stderr)
        sys.exit(77)
    failed = 0
    for f in FILES:
        path = os.path.join(d, f)
        nf = max(n // 2, 1000) if f == "written" else n  # the device is slow: fewer
        for b in batches:
            for label, prog, *args in systems:
                exe = os.path.join(bin_dir, prog)
                if not os.path.exists(exe):
                    continue
                base = [exe, "--path", path, "--file", f, "--batch", b] + args
                try:
                    c1, keys = calls(base + ["--count", str(nf)])
                    if c1 is None:
                        continue
                    c2, _ = calls(base + ["--count", str(2 * nf)])
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print(f"file-batch count {label} {f} batch {b}: {e}", file=sys.stderr)
                    failed = 1
                    continue
                rec = {"bench": "file-batch", "system": label.split()[0],
                       "case": "random read",
                       "metric": "syscalls_per_io", "value": round(max(c2 - c1, 0) / nf, 4),
                       "file": f, "batch": int(b), "depth": 256, "bs": 512 if f == "cached" else 8192}
                if keys:  # the program's own case and keys (engine, backend)
                    rec.update(json.loads("{" + keys + "}"))
                print(json.dumps(rec), flush=True)
    sys.exit(failed)


main()
