"""work-queue: a function run on a pool thread and its completion back in the loop,
vigil's work queue (vigil_work_submit, the loop's pool at its defaults: 4 runnable
threads) against libuv's uv_queue_work (its default pool: 4 threads).

  empty   jobs that do nothing, 1 and 64 kept in flight (param inflight; each completion
          submits the next): jobs_per_s, cpu_ns_per_job (CPU of the whole process, every
          thread), rtt_us (submit to completion callback, p50/p99)
  mixed   8 jobs that sleep 100 ms, resubmitted as each ends (8 always in flight), while
          short empty jobs are submitted one at a time: the short jobs' rtt_us. vigil runs
          it twice: the sleeping jobs not marked (its watchdog must find them: case
          "mixed") and marked VIGIL_WORK_SLOW ("mixed, slow jobs marked"); libuv has no
          way to mark them

vigil runs on io_uring and on epoll (param backend). Systems alternate in rounds (the order
rotates), each round a fresh process with a warm-up before its measured window.
"""
import os

import plotting
import rounds

NAME = "work-queue"
TITLE = "A work queue: empty jobs at 1 and 64 in flight, and short jobs beside 8 jobs of 100 ms"
SEED = ("Issue 28: libuv's users have asked for years for a thread pool that slow work cannot starve "
        "(libuv #28, nodejs/node #8436); target: vigil >= 1.2x libuv's jobs/s at 64 in flight, and "
        "short jobs' p99 round trip under 1 ms while 8 jobs of 100 ms run")
PARAMS = ("inflight",)
BUDGET_S = 44

EMPTY = [  # (label, program, extra args, env)
    ("vigil uring", "wq_vigil", [], {"VIGIL_BACKEND": "uring"}),
    ("vigil epoll", "wq_vigil", [], {"VIGIL_BACKEND": "epoll"}),
    ("libuv", "wq_libuv", [], {}),
]
MIXED = [
    ("vigil uring", "wq_vigil", [], {"VIGIL_BACKEND": "uring"}),
    ("vigil uring, marked", "wq_vigil", ["--mark-slow", "1"], {"VIGIL_BACKEND": "uring"}),
    ("vigil epoll", "wq_vigil", [], {"VIGIL_BACKEND": "epoll"}),
    ("libuv", "wq_libuv", [], {}),
]


def plan(ctx):
    n_rounds, ms, mixed_ms = (1, 250, 700) if ctx.quick else (3, 600, 2000)
    steps = []
    for case, systems in (("empty", EMPTY), ("mixed", MIXED)):
        have = [s for s in systems if os.path.exists(os.path.join(ctx.bin, s[1]))]
        steps += rounds.alternate(n_rounds, [case], have, lambda r, c, s: dict(
            cmd=[s[1], "--case", c, "--inflight", "1,64", "--ms", str(ms if c == "empty" else mixed_ms)] + s[2],
            env=s[3], label=f"round {r + 1}/{n_rounds}: {c}: {s[0]}",
            est_s=(2 * (ms * 1.25 + 40) if c == "empty" else mixed_ms + 400) / 1000))
    return steps


def _series(r):
    s = r["system"] + (f" {r['backend']}" if r.get("backend") else "")
    return s + (", marked" if "marked" in str(r.get("case", "")) else "")


def plot(rows, ax, targets=()):
    """Thousand jobs/s at 1 and 64 in flight, one bar per system; the mixed run's short
    jobs' p99 round trip written in each series' legend entry."""
    jobs = [r for r in rows if r.get("metric") == "jobs_per_s"]
    mixed = {_series(r): float(r.get("p99", r["value"])) for r in rows
             if r.get("metric") == "rtt_us" and "mixed" in str(r.get("case", ""))}
    names = []
    for r in jobs:
        if _series(r) not in names:
            names.append(_series(r))
    colors = plotting.series_colors(names, {})
    points = sorted({int(r["inflight"]) for r in jobs})
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        xs, ys = [], []
        for pi, p in enumerate(points):
            r = next((x for x in jobs if _series(x) == n and int(x["inflight"]) == p), None)
            if r:
                xs.append(pi + (i - (len(names) - 1) / 2) * width)
                ys.append(float(r["value"]) / 1000)
        extra = [f"{k}: {v / 1000:.3g} ms" for k, v in mixed.items() if k == n or k.startswith(n + ",")]
        label = n + (f" (mixed p99 {'; '.join(extra)})" if extra else "")
        ax.bar(xs, ys, width, color=colors.get(n), label=label)
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels([f"empty jobs, {p} in flight" for p in points])
    ax.set_ylabel("thousand jobs/s")
    ax.legend(fontsize="x-small")
    ax.set_title("work-queue: jobs/s; legend: short jobs' p99 round trip beside 8 jobs of 100 ms")
