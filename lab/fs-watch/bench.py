"""fs-watch: a tree of 1,000 directories (40 at the top, 24 under each, 4 files in each)
watched while a writer process, pinned to the other CPU, runs a script of file
operations (25% create, 25% write, 12% chmod, 18% rename to another directory, 20%
unlink; the same seeded script for every system), paced so that the kernel's event
queue (max_queued_events, 16,384 here, never raised) cannot overflow for a watcher that
keeps up: the writer stays at most 8,192 inotify events ahead of what the watcher took.
Only the watcher's process is measured.

The tree is made on tmpfs (/dev/shm) where there is one.
Systems, one program each (fsw.h is their shared frame), alternated in rounds:
  vigil    one recursive vigil_fswatch on the root (uring and epoll backends)
  libuv    uv_fs_event_start on each of the 1,000 directories (libuv has no recursive
           watching on Linux)
  kernel   the raw inotify floor: a watch per directory, epoll_wait, one read(2) of
           64 KiB per wake-up, each event's directory looked up by its wd
Records: events_per_s (script operations / wall time), cpu_ns_per_event (the watcher's
CPU per operation; median of rounds), lost_events (operations not reported, summed over
rounds; libuv and the floor count inotify events, where a rename is two).
"""
import os

import plotting
import rounds

NAME = "fs-watch"
TITLE = "Watching a tree of 1,000 directories: CPU per file-system event (100,000 paced operations)"
SEED = ("issue 28: recursive watching (libuv #1778 asks for it on Linux); targets: vigil loses no event of the "
        "paced script, at no more than 1.2x the raw inotify floor's CPU per event")
PARAMS = ("ops",)
BUDGET_S = 18

SYSTEMS = [  # (label, program, env)
    ("vigil uring", "fsw_vigil", {"VIGIL_BACKEND": "uring"}),
    ("kernel", "fsw_kernel", {}),
    ("vigil epoll", "fsw_vigil", {"VIGIL_BACKEND": "epoll"}),
    ("libuv", "fsw_libuv", {}),
]
CPUS = min(2, os.cpu_count() or 1)


def plan(ctx):
    n_rounds, ops = (1, 20000) if ctx.quick else (5, 100000)
    have = [s for s in SYSTEMS if os.path.exists(os.path.join(ctx.bin, s[1]))]
    # The tree lives on tmpfs where there is one: the writer's operations then cost the
    # kernel's VFS, not a disk's journal, and the watchers get events at a high rate.
    where = "/dev/shm" if os.access("/dev/shm", os.W_OK) else ctx.tmp
    return rounds.alternate(n_rounds, [None], have, lambda r, g, s: dict(
        cmd=[s[1], "--dir", where, "--ops", ops, "--cpu", r % CPUS, "--seed", 1000 + r],
        env=s[2], label=f"round {r + 1}/{n_rounds}: {s[0]}", est_s=1.5 if ctx.quick else 5))


def _series(r):
    return r["system"] + (f" {r['backend']}" if r.get("backend") else "")


def plot(rows, ax, targets=()):
    """CPU per event by system (bars), with each one's events/s and losses written on it."""
    cpu = {_series(r): float(r["value"]) for r in rows if r.get("metric") == "cpu_ns_per_event"}
    rate = {_series(r): float(r["value"]) for r in rows if r.get("metric") == "events_per_s"}
    lost = {_series(r): float(r["value"]) for r in rows if r.get("metric") == "lost_events"}
    names = sorted(cpu, key=lambda n: (n.split(" ")[0] != "vigil", n))
    if not names:
        return
    colors = plotting.series_colors(names, {})
    xs = range(len(names))
    ax.bar(xs, [cpu[n] / 1000 for n in names], color=[colors[n] for n in names])
    for x, n in zip(xs, names):
        ax.text(x, cpu[n] / 1000, f"{rate.get(n, 0) / 1000:.0f}k ev/s\nlost {lost.get(n, 0):.0f}", ha="center",
                va="bottom", fontsize="x-small")
    k = cpu.get("kernel")
    if k:
        ax.axhline(1.2 * k / 1000, color="#888888", ls="--", lw=1, label="1.2x raw inotify (target)")
        ax.legend(fontsize="x-small")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, fontsize="small")
    ax.set_ylabel("watcher CPU per event, us")
    ax.set_ylim(bottom=0)
    ax.set_title("fs-watch: CPU per event (lower is better)")
