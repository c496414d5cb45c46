"""One py-timers step: n call_later wake-ups of one delay on one loop; prints the lab's
records (error_us with its samples, early_count). Exit 77 if the system is missing."""
import argparse
import asyncio
import json
import sys
import time


def make_loop(system, backend):
    if system == "asyncio":
        return asyncio.new_event_loop(), None
    if system == "uvloop":
        try:
            import uvloop
        except ImportError as e:
            print(f"uvloop not installed: {e}", file=sys.stderr)
            sys.exit(77)
        return uvloop.new_event_loop(), None
    import vigil
    try:
        lp = vigil.new_event_loop(backend=backend)
    except OSError as e:
        print(f"vigil backend {backend} not available: {e}", file=sys.stderr)
        sys.exit(77)
    return lp, lp.backend


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--system", required=True)
    ap.add_argument("--backend")
    ap.add_argument("--delay-us", type=int, required=True)
    ap.add_argument("--n", type=int, default=1000)
    a = ap.parse_args()
    loop, backend = make_loop(a.system, a.backend)
    delay_ns = a.delay_us * 1000
    delay_s = a.delay_us / 1e6
    errs = []
    warm = 20
    mono = time.monotonic_ns

    def cb(deadline):
        errs.append(mono() - deadline)
        if len(errs) >= a.n + warm:
            loop.stop()
            return
        t = mono()
        loop.call_later(delay_s, cb, t + delay_ns)

    t = mono()
    loop.call_later(delay_s, cb, t + delay_ns)
    loop.run_forever()
    loop.close()
    errs = errs[warm:]
    base = {"bench": "py-timers", "system": a.system, "case": "call_later", "delay_us": a.delay_us}
    if backend:
        base["backend"] = backend
    us = [e / 1000.0 for e in errs]
    srt = sorted(us)
    print(json.dumps(dict(base, metric="error_us", value=srt[len(srt) // 2], p50=srt[len(srt) // 2],
                          p99=srt[int((len(srt) - 1) * 0.99)], n=len(us), samples=[round(x, 3) for x in us])))
    print(json.dumps(dict(base, metric="early_count", value=sum(1 for e in errs if e < 0),
                          total=sum(1 for e in errs if e < 0))))


if __name__ == "__main__":
    main()
