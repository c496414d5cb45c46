"""file-batch: the aio-stress shape (the 2011 patch "aio: allocate kiocbs in batches",
measured with aio-stress -O -r 8 -d 256 -b 32): random reads, depth 256, submitted in
groups of 1, 8 and 32, on three files made in the scratch folder:

  written    8 KiB O_DIRECT reads of a file of real data (the virtual disk's speed shows)
  unwritten  8 KiB O_DIRECT reads of unwritten extents: no device time, so this is the
             pure submission + completion cost of each system
  cached     512 B buffered reads of a page-cache-hot file

Systems, one program each, alternated in rounds. The targets compare vigil with its
hand-written peer at 5%, so each vigil engine runs next to its peer in every round (the
pairs' order rotates, and which of a pair goes first alternates). Unwritten and cached
(the files the targets read) run 24 short rounds (40 ms per batch size), written 6 of
80 ms: on the shared 2-core VM a program's CPU per I/O moves by 20-50% between rounds a
second apart (run of 2026-12-02 04:10: vigil io_uring against liburing, unwritten, batch
32, per round 0.75x-2.13x), so more rounds, each system near its peer, pair the moments
better than 12 of 80 ms did in about the same time. Even so a pooled median of 24 rounds
moves by a few percent from run to run; fb_ab (a diagnostic, not run here) alternates
the systems in windows of one process and settles a 1-2% difference.
Systems:
  vigil      its io_uring engine (uring backend), its Linux AIO engine and its thread
             pool, requests from vigil's pool; "registered" variants (vigil and
             liburing) register the file and the buffers first
  liburing   a hand-written liburing loop (one io_uring_submit per group)
  libaio     a hand-written libaio loop (one io_submit per group, io_getevents)
  libuv      uv_fs_read (libuv 1.44: its thread pool)
Where vigil's gaps to the targets lie (2026-12-02 night, AMD EPYC VM, 2 cores, kernel 6.18):
  unwritten, batch 32, registered (the best vigil engine against liburing registered):
  fb_ab, 200 windows of 4,096 reads, two runs, CPU ns per read of the thread: vigil
  581.7/580.0 (user 24, system 556-559), liburing 563.3/560.2 (user 13-15, system
  547-550), liburing-turn (the turn's groups in one io_uring_submit_and_wait: vigil's
  pattern) 567.6/563.7 (user 7-8, system 557-560). Of vigil's 3.5% about 9 ns per read
  is the system time of one enter per turn (all 256 reads through one enter: 256 buffers
  of 8 KiB zeroed, 2 MiB, against liburing's 32 at a time in 256 KiB) and 10-17 ns the
  library's user code (callgrind, 100,000 reads: ~175 instructions per read in
  req_get/put, vigil_file_submit, uring_submit, the backend's reap and the completion,
  against ~40 of liburing's own; each function near its minimum already).
  cached, batch 32 (one engine >= 1.3x libuv's IOPS at <= 0.5x its CPU): a 512 B pread
  from the page cache costs 490-540 ns of CPU by itself here (a loop of 2 million), 0.43-
  0.47x libuv's 1,142, so the threads engine cannot reach 0.5x with any hand-off on top
  (perf: 26% of its samples copying to the caller's buffer, whose lines the other core
  wrote last); io_uring's inline read costs ~510 ns (registered) on one core: at most
  ~1.95M reads/s, 1.14x libuv's 1.705M. No engine meets both halves on this machine.
Metrics: iops and cpu_ns_per_io (user + system of the whole process, per window of
the measuring time; pooled over rounds by run.py), syscalls_per_io (separate counting
runs, lab/common/count.py), and the pool micro-benchmark (ns to take and return a
request, vs calloc/free).
"""
import os
import sys

import count
import plotting
import rounds

NAME = "file-batch"
TITLE = ("Random reads at depth 256 in groups of 1/8/32: 8 KiB O_DIRECT on a written file, on "
         "unwritten extents (no device time: pure submission cost), 512 B from the page cache")
SEED = ("2011: aio kiocbs allocated in batches: less lock time when 32 iocbs are submitted per "
        "io_submit (aio-stress -O -r 8 -d 256 -b 32)")
PARAMS = ("file", "batch")

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = sys.executable or "/usr/bin/python3"
FILES = ("unwritten", "cached", "written")
SYSTEMS = [  # (label, program, extra args); pairs that the targets compare side by side
    ("vigil uring", "fb_vigil", ["--engine", "uring"]),
    ("liburing", "fb_liburing", []),
    ("vigil aio", "fb_vigil", ["--engine", "aio"]),
    ("libaio", "fb_libaio", []),
    ("vigil threads", "fb_vigil", ["--engine", "threads"]),
    ("libuv", "fb_libuv", []),
    ("vigil uring registered", "fb_vigil", ["--engine", "uring", "--registered", "1"]),
    ("liburing registered", "fb_liburing", ["--registered", "1"]),
]
PAIRS = [(0, 1), (2, 3), (4, 5), (6, 7)]  # indices into SYSTEMS
# Rounds and measuring time per batch size: (rounds, ms) per file, and the share of the
# rounds written runs in (every 4th: it has no target, and its device time is noise).
ROUNDS, MS, WRITTEN_EVERY = 24, 40, 4
WRITTEN_MS = 80


def plan(ctx):
    # Many short rounds: on a shared machine, systems measured close in time pair better.
    n_rounds = 1 if ctx.quick else ROUNDS
    have = [s for s in SYSTEMS if os.path.exists(os.path.join(ctx.bin, s[1]))]
    pairs = [[SYSTEMS[i] for i in p if SYSTEMS[i] in have] for p in PAIRS]
    steps = [dict(cmd=[PYTHON, os.path.join(HERE, "prep.py"), ctx.tmp] + (["--quick"] if ctx.quick else []),
                  label="make the files (written, unwritten, cached)", est_s=2 if ctx.quick else 8)]
    steps.append(dict(cmd=["fb_pool"], label="pool vs calloc/free", est_s=0.5 if ctx.quick else 2))
    for r in range(n_rounds):
        for gi, f in enumerate(FILES):
            if f == "written" and r % WRITTEN_EVERY != 0 and not ctx.quick:
                continue
            ms = 100 if ctx.quick else (WRITTEN_MS if f == "written" else MS)
            # a window is at least 5 ms (fb.h), the warm-up two windows
            win = max(ms / 20, 5)
            for s in rounds.paired_order(pairs, r + gi):
                steps.append(dict(
                    cmd=[s[1], "--path", os.path.join(ctx.tmp, f), "--file", f, "--batch", "1,8,32", "--ms", str(ms)]
                    + s[2], label=f"round {r + 1}/{n_rounds}: {f}: {s[0]}", est_s=3 * (ms + 2 * win + 25) / 1000))
    # counting runs (lab/common/count.py): system calls per I/O in the steady state; the
    # written file's device is slow, and its wait count depends on the device's timing
    n, batches = (1000, "32") if ctx.quick else (4000, "1,8,32")
    for f in FILES:
        for label, prog, args in have:
            steps.append(count.step(ctx, [prog, "--path", os.path.join(ctx.tmp, f), "--file", f, "--batch", batches]
                                    + args, n // 2 if f == "written" else n, f"count system calls: {f}: {label}",
                                    1 if ctx.quick else 4))
    steps.append(dict(cmd=[PYTHON, os.path.join(HERE, "prep.py"), ctx.tmp, "--remove"], label="remove the files",
                      est_s=0.5))
    return steps


def _series(r):
    s = r["system"]
    if r.get("engine"):
        s += " " + r["engine"]
    if "registered" in str(r.get("case", "")):
        s += " registered"
    return s


def plot(rows, ax, targets=()):
    """IOPS by batch size, one line per system, one panel-column per file (drawn as
    groups on one axis: unwritten, cached, written)."""
    pts = {}
    for r in rows:
        if r.get("metric") != "iops":
            continue
        pts.setdefault((r["file"], _series(r)), []).append((int(r["batch"]), float(r["value"])))
    files = [f for f in FILES if any(k[0] == f for k in pts)]
    names = sorted({k[1] for k in pts})
    # vigil in blues (as the report's other charts), peers in their own colours;
    # registered variants dashed in their system's colour
    palette = {"vigil uring": "#08306b", "vigil aio": "#2171b5", "vigil threads": "#6baed6",
               "liburing": "#2ca02c", "libaio": "#ff7f0e", "libuv": "#d62728"}
    colors = {n: palette.get(n.replace(" registered", ""), "#9467bd") for n in names}
    for fi, f in enumerate(files):
        for n in names:
            p = sorted(pts.get((f, n), []))
            if not p:
                continue
            xs = [fi * 4 + {1: 0, 8: 1, 32: 2}.get(b, 0) for b, _ in p]
            ax.plot(xs, [v / 1000 for _, v in p], marker="o", color=colors[n], label=n if fi == 0 else None,
                    ls="--" if n.endswith("registered") else "-")
    plotting.target_marks(ax, targets, "iops", lambda t: files.index(t["params"]["file"]) * 4 + {1: 0, 8: 1, 32: 2}[int(t["params"]["batch"])]
                          if t["params"].get("file") in files and int(t["params"].get("batch", 0)) in (1, 8, 32) else None, div=1000)
    ax.set_xticks([fi * 4 + j for fi in range(len(files)) for j in range(3)])
    ax.set_xticklabels([f"{f}\nb={b}" if j == 1 else f"b={b}" for f in files for j, b in enumerate((1, 8, 32))],
                       fontsize="small")
    ax.set_ylabel("thousand IOPS (median of windows)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="x-small", ncol=2)
    ax.set_title("file-batch: IOPS by group size (unwritten = submission cost only)")
