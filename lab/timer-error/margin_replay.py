#!/usr/bin/python3
"""Replays a lab run's epoll_pwait2 (slack 1 ns) lateness series through precise mode's
margin rule, the current one (src/loop/timer.c) and the one before 2026-12-02, to weigh
a rule change on the run's own samples instead of a noisy rerun:

  lab/timer-error/margin_replay.py build/lab/run.log

Model: each series (one round of one delay, as the lab ran it) is a fresh loop; a
precise wake-up sleeps to deadline - margin and is taken to wake as late as the
plain call's sample says; its error is that lateness less the margin (0.35 us when
covered: the callback's own start), its spin the margin less the lateness. CPU is
reported as (the run's epoll_pwait2 CPU per wake-up + mean spin) over the former: the
figure the lab's 4x target reads, if the loop's other costs are the plain call's.
A Python copy of the rule: keep it in step with learn_class and record_sleep."""
import json
import sys

WIN, EVERY, BUDGET, INIT, FLOOR, GUARD, TAILMAX = 128, 16, 200.0, 60.0, 2.0, 2.0, 10.0


def q(v, f):
    return v[int((len(v) - 1) * f)]


def tail(hi):
    return min(hi / 4, TAILMAX)


def clamp(m):
    return max(FLOOR, min(m, BUDGET))


class Rule:
    def __init__(self, old):
        self.old, self.m, self.level, self.win, self.n = old, INIT, INIT, [], 0

    def learn(self):
        v = sorted(self.win[-WIN:])
        base = clamp(q(v, .75) + GUARD)
        if self.old:  # p99 - tail, at most twice base; the attack within the same cap
            self.level = base
            self.m = clamp(max(base, min(q(v, .99) - tail(q(v, .99)), 2 * base)))
            return
        hi = q(v, .90)
        level = clamp(max(base, min(hi - tail(hi), base * 1.5)))
        self.m = clamp(level + max(0.0, self.m - self.level))
        self.level = level

    def record(self, late):
        late = max(late, 0.0)
        self.win.append(late)
        self.n += 1
        if late - self.m > tail(late) and (self.old or late <= 1.5 * BUDGET):
            cap = 2 * self.level if self.old else BUDGET
            self.m = max(self.m, clamp(min(late - tail(late), cap)))
        elif not self.old and late <= self.m and self.m > self.level:
            ex = (self.m - self.level) * 3 / 4
            self.m = self.level + (ex if ex >= 1.0 else 0.0)
        if self.n % EVERY == 0:
            self.learn()


def replay(series, old):
    err, spin = [], []
    for s in series:
        r = Rule(old)
        for late in s:
            err.append(max(late - r.m, 0.0) + 0.35)
            spin.append(max(r.m - late, 0.0))
            r.record(late)
    return sorted(err), sum(spin) / len(spin)


def main(path):
    series, cpu = {}, {}
    for line in open(path):
        if not line.startswith('{"bench":"timer-error"') or "pwait2 slack 1ns" not in line:
            continue
        j = json.loads(line)
        d = int(j["delay_us"])
        if j["metric"] == "error_us" and d >= 500:
            series.setdefault(d, []).append(j["samples"])
        elif j["metric"] == "cpu_ns_per_wakeup":
            c = cpu.setdefault(d, [0.0, 0.0])
            c[0] += j["total"]
            c[1] += j["per"]
    for d in sorted(series):
        pw = sorted(sum(series[d], []))
        kc = cpu[d][0] / cpu[d][1] / 1000 if d in cpu else None
        line = f"{d:5d} us: epoll_pwait2 p50 {q(pw, .5):6.1f} p99 {q(pw, .99):6.1f} us"
        for name, old in (("old", True), ("new", False)):
            e, s = replay(series[d], old)
            line += f" | {name}: p99 {q(e, .99):6.1f} us ({q(e, .99) / q(pw, .99):.2f}x), spin {s:5.1f} us"
            if kc:
                line += f" (CPU {(kc + s) / kc:.2f}x)"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/lab/run.log")
