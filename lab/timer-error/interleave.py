#!/usr/bin/python3
"""Precise mode against epoll_pwait2 (slack 1 ns), interleaved the lab's way, outside a
full `make lab`: per delay, rounds in which every series runs once (the order rotated),
pooled over the rounds; the whole comparison repeated. A second library build may run
beside the first (A/B of a change, same te_vigil binary, its own LD_LIBRARY_PATH).

  lab/timer-error/interleave.py --bin build/rel/lab [--lib-b /tmp/new] \\
      [--delays 1200,1999,2000] [--rounds 4] [--n 175] [--reps 3] [--mode precise]

Per series: p50, p90, p99 of the error (us; p99 of 4 x 175 samples is the 7th worst:
a handful of late wake-ups decide it), its ratio to epoll_pwait2's p99, CPU per
wake-up over epoll_pwait2's, early wake-ups. Defaults are the lab's (bench.py)."""
import argparse
import json
import os
import subprocess


def q(v, f):
    return v[int((len(v) - 1) * f)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/rel/lab")
    ap.add_argument("--lib-b", help="a directory holding another libvigil.so.0 (series B)")
    ap.add_argument("--delays", default="1200,1999,2000")
    ap.add_argument("--backends", default="uring,epoll,poll")
    ap.add_argument("--mode", default="precise")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--n", type=int, default=175)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    series = [("pwait2", [os.path.join(a.bin, "te_kernel"), "--case", "pwait2 slack 1ns"], None)]
    for tag, lib in (("A", None), ("B", a.lib_b)):
        if tag == "B" and not lib:
            continue
        for be in a.backends.split(","):
            env = dict(os.environ, LD_LIBRARY_PATH=lib) if lib else None
            series.append((f"{tag}:{be}" if a.lib_b else be,
                           [os.path.join(a.bin, "te_vigil"), "--backend", be, "--mode", a.mode], env))
    k = 0
    for rep in range(a.reps):
        for d in [int(x) for x in a.delays.split(",")]:
            err, cpu = {}, {}
            for _ in range(a.rounds):
                for name, cmd, env in series[k % len(series):] + series[:k % len(series)]:
                    out = subprocess.run(cmd + ["--delay-us", str(d), "--n", str(a.n)], capture_output=True,
                                         text=True, env=env).stdout
                    for line in out.splitlines():
                        j = json.loads(line)
                        if j["metric"] == "error_us":
                            err.setdefault(name, []).extend(j["samples"])
                        elif j["metric"] == "cpu_ns_per_wakeup":
                            c = cpu.setdefault(name, [0.0, 0.0])
                            c[0] += j["total"]
                            c[1] += j.get("per", a.n)
                k += 1
            pw = sorted(err["pwait2"])
            pc = cpu["pwait2"][0] / cpu["pwait2"][1]
            print(f"rep {rep + 1} delay {d} us: epoll_pwait2 p50 {q(pw, .5):.1f} p99 {q(pw, .99):.1f} us")
            for name, _, _ in series[1:]:
                v = sorted(err[name])
                c = cpu[name][0] / cpu[name][1]
                print(f"  {name:9s} p50 {q(v, .5):6.2f} p90 {q(v, .9):6.1f} p99 {q(v, .99):7.1f} us "
                      f"({q(v, .99) / q(pw, .99):.2f}x pwait2's p99), CPU {c / pc:.2f}x, early {sum(x < 0 for x in v)}",
                      flush=True)


if __name__ == "__main__":
    main()
