"""py-timers: how late (or early) asyncio's call_later runs its callback, on asyncio's
default loop, uvloop and vigil's loop (python/), for delays of 1 us to 10 ms.

The error of one wake-up is the callback's time.monotonic_ns() minus the deadline (the
clock read just before call_later, plus the delay), signed: negative is early. Each
callback arms the next timer, so a wake-up also pays for the loop around it. Every
system runs in one Python: the lab's own venv of /usr/bin/python3 (Debian's 3.11),
made by this benchmark's first step under the build dir with uvloop from PyPI and vigil
from the tree (lab/common/pyvenv.py and pyvenv.sh, shared with py-echo). vigil's loop runs in its default timer mode (not
precise), once per backend. Systems alternate in rounds; rounds are pooled."""
import os

import pyvenv

NAME = "py-timers"
TITLE = "asyncio call_later wake-up error vs delay (us; negative = early)"
SEED = ("2008 select/poll on hrtimers (1200 us asked, 1997 us got), seen from Python: asyncio's "
        "default loop waits in whole ms (epoll_wait); vigil's loop waits on ns deadlines. Targets: "
        "|p50| below asyncio and uvloop at 1, 100, 1000 us; zero early wake-ups for vigil.")
PARAMS = ("delay_us",)

HERE = os.path.dirname(os.path.abspath(__file__))
DELAYS_US = [1, 100, 1000, 10000]
SYSTEMS = [("asyncio", None), ("uvloop", None), ("vigil", "uring"), ("vigil", "epoll"), ("vigil", "poll")]


def plan(ctx):
    py = pyvenv.python(ctx)
    steps = [pyvenv.step(ctx)]
    rounds = 1 if ctx.quick else 3
    k = 0
    for d in DELAYS_US:
        n = 2000 if d <= 100 else 1000 if d <= 1000 else 200
        if ctx.quick:
            n = max(50, n // 10)
        per = n // rounds
        for r in range(rounds):
            order = SYSTEMS[k % len(SYSTEMS):] + SYSTEMS[:k % len(SYSTEMS)]
            k += 2
            for system, backend in order:
                cmd = [py, os.path.join(HERE, "py_timers.py"), "--system", system, "--delay-us", d, "--n", per]
                if backend:
                    cmd += ["--backend", backend]
                label = f"delay {d} us, round {r + 1}/{rounds}: {system}" + (f" [{backend}]" if backend else "")
                steps.append(dict(cmd=cmd, label=label, est_s=round(per * (max(d, 1000 if system == 'asyncio' else d) + 60) / 1e6 + 0.3, 2)))
    return steps
